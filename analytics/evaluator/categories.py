"""Hand categories of stored card text, many hands at once.

The warehouse labels every dealt hand when it is loaded (``seat_facts``) and the
dashboard labels hands it is given; both go through these functions, so a label
is the same wherever it is computed.  Card text is the warehouse's: canonical
two-character cards run together (``AsKd7c``).  Text that is not such cards of a
size the game knows (hidden cards ``??``, a partial deal, no cards) gets no label
(``None``) instead of an error, since a fact table is filled from whatever was
parsed.  Hands are grouped by size and each group goes through the batch
evaluator (:func:`~analytics.evaluator.seveneight_rank_batch`,
:func:`~analytics.evaluator.poker_rank_batch`) in one call.  Arrow string arrays
(what the warehouse fetches) are read from their buffers, with no Python object per
hand: labelling is a few microseconds of the ingest's main process per hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeAlias

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from analytics.evaluator.poker import (
    POKER_MAX_CARDS,
    POKER_MIN_CARDS,
    PokerCategory,
    poker_category_of,
    poker_rank_batch,
)
from analytics.evaluator.seveneight import (
    SevenEightCategory,
    seveneight_category_of,
    seveneight_rank_batch,
)
from parsers.cards import RANK_SYMBOLS, SUIT_SYMBOLS

__all__ = ["POKER_SIZES", "SEVENEIGHT_SIZES", "card_byte_codes", "card_text_codes",
           "poker_labels", "seveneight_labels"]

SEVENEIGHT_SIZES: Final = (2, 3)
"""Hand sizes with a 7 & 8 category."""

POKER_SIZES: Final = tuple(range(POKER_MIN_CARDS, POKER_MAX_CARDS + 1))
"""Hand sizes with a best-five poker category."""

# Byte value of a rank or suit character -> its index; everything else -> -1.
_RANK_OF: Final = np.full(256, -1, dtype=np.int16)
_SUIT_OF: Final = np.full(256, -1, dtype=np.int16)
for _i, _c in enumerate(RANK_SYMBOLS):
    _RANK_OF[ord(_c)] = _i
for _i, _c in enumerate(SUIT_SYMBOLS):
    _SUIT_OF[ord(_c)] = _i

# Labels indexed by category number (the enums number their members from 0).
_SEVENEIGHT_LABELS: Final = np.array([c.label for c in SevenEightCategory], dtype=object)
_POKER_LABELS: Final = np.array([c.label for c in PokerCategory], dtype=object)


def card_text_codes(texts: Sequence[str], k: int
                    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Texts of ``k`` cards each as an (n, k) int8 array of codes ``4 * rank + suit``, and
    which rows are canonical cards (the codes of other rows are meaningless).

    One bytes buffer and two table look-ups instead of a parse per card.  Raises
    ValueError when a text is not ``2 * k`` characters long.
    """
    if not texts:
        return np.zeros((0, k), dtype=np.int8), np.zeros(0, dtype=np.bool_)
    # A non-ASCII character becomes one "?" (not a card), so lengths stay in characters.
    raw = "".join(texts).encode("ascii", errors="replace")
    if len(raw) != 2 * k * len(texts):
        raise ValueError(f"every hand must be {k} cards")
    return card_byte_codes(np.frombuffer(raw, dtype=np.uint8).reshape(len(texts), k, 2))


Texts: TypeAlias = Iterable[str | None] | pa.Array | pa.ChunkedArray
"""Card texts: Python strings (``None`` or anything not a string: no hand) or an Arrow
string array (what the warehouse fetches: read from its buffers, no Python object per hand)."""


def seveneight_labels(texts: Texts) -> npt.NDArray[np.object_]:
    """The 7 & 8 category label of each hand of two or three cards; ``None`` for the rest."""
    return _labels(texts, SEVENEIGHT_SIZES, _seveneight_categories, _SEVENEIGHT_LABELS)


def poker_labels(texts: Texts, *, parallel: bool = True) -> npt.NDArray[np.object_]:
    """The best-five poker category label of each hand of 5 to 26 cards; ``None`` for the
    rest.

    ``parallel=False`` evaluates on the calling thread, without numba's thread pool: for
    small batches, and in any process that forks workers afterwards (the ingest's, whose
    forked workers GNU OpenMP would kill if they used the pool after it).
    """
    categories = _poker_categories if parallel else _poker_categories_serial
    return _labels(texts, POKER_SIZES, categories, _POKER_LABELS, pad=True)


def _seveneight_categories(codes: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    return seveneight_category_of(seveneight_rank_batch(codes))


def _poker_categories(codes: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    return poker_category_of(poker_rank_batch(codes))


def _poker_categories_serial(codes: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    return poker_category_of(poker_rank_batch(codes, parallel=False))


def _labels(texts: Texts, sizes: Sequence[int],
            categories: Callable[[npt.NDArray[np.int8]], npt.NDArray[np.int8]],
            names: npt.NDArray[np.object_], *, pad: bool = False) -> npt.NDArray[np.object_]:
    """Labels by size group: each group of canonical hands evaluated in one batch call, or
    with ``pad`` every group in one call, each hand padded to the largest size by repeating
    its own last card.  Padding is for poker only: a poker value depends on the set of cards
    held (the kernel ORs each card into its suit's bit mask), which a repeat leaves as it
    is.  A batch call's fixed cost is small on an idle machine (about 17 µs) but was
    7-8 ms with both cores busy, as in an ingest (the kernel runs on numba's thread
    pool, whose threads must be scheduled), so a Rummoli batch of seven hand sizes would
    pay it seven times (tests/test_evaluator_categories.py checks every size)."""
    array = _string_array(texts)
    out = np.full(len(array), None, dtype=object)
    # Bytes, not characters: a group's texts are then one contiguous run of its buffer
    # (a non-ASCII character makes a text longer in bytes and not cards either way).
    lengths = pc.fill_null(pc.binary_length(array), 0).to_numpy(zero_copy_only=False)
    groups: list[tuple[npt.NDArray[np.intp], npt.NDArray[np.int8]]] = []
    for size in sizes:
        rows = np.flatnonzero(lengths == 2 * size)
        if len(rows) == 0:
            continue
        codes, valid = _buffer_codes(array.take(pa.array(rows)), size)
        if valid.any():
            groups.append((rows[valid], codes[valid]))
    if pad and len(groups) > 1:
        width = max(codes.shape[1] for _, codes in groups)
        padded = [np.pad(codes, ((0, 0), (0, width - codes.shape[1])), mode="edge")
                  for _, codes in groups]
        groups = [(np.concatenate([rows for rows, _ in groups]), np.concatenate(padded))]
    for rows, codes in groups:
        out[rows] = names[categories(codes)]
    return out


def _string_array(texts: Texts) -> pa.StringArray:
    """``texts`` as one Arrow string array (anything not a string: null)."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if isinstance(texts, pa.Array):
        return texts.cast(pa.string())
    return pa.array([text if isinstance(text, str) else None for text in texts],
                    type=pa.string())


def _buffer_codes(array: pa.StringArray, k: int
                  ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """:func:`card_text_codes` of texts of exactly ``2 * k`` bytes each, read from the
    array's data buffer (they lie back to back in it)."""
    n = len(array)
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32)[array.offset:array.offset + n + 1]
    data = array.buffers()[2]
    raw = (np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]] if data is not None
           else np.zeros(0, dtype=np.uint8))
    return card_byte_codes(raw.reshape(n, k, 2))


def card_byte_codes(buffer: npt.NDArray[np.uint8]
                    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Codes (``DECK`` indexes) of an (n, k, 2) array of rank and suit bytes of card texts,
    and which rows are all cards."""
    ranks = _RANK_OF[buffer[:, :, 0]]
    suits = _SUIT_OF[buffer[:, :, 1]]
    valid: npt.NDArray[np.bool_] = np.asarray(((ranks >= 0) & (suits >= 0)).all(axis=1))
    return (4 * ranks + suits).astype(np.int8), valid
