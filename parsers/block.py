"""Many 7 & 8 hands as one set of columns: the ingest's batch form of the usual hands.

Most 7 & 8 histories are written by :mod:`parsers.writer` (the simulator, converters,
handlab itself), always with the same header keys in the same order.  The ingest
worker reads a batch of such hands into one :class:`SevenEightBlock`: numbers in
numpy arrays (what the batch replay, :mod:`analytics.rules.seveneight.block`, reads),
each hand's other header values as plain Python values (what its id and its rows
read).  A hand the block does not take (another layout, anything to report) is read
by the per-hand path (:func:`parsers.reader.hand_from_chunk`), which gives every
message; so a block only ever holds hands that path reads without a problem, with
exactly the values it reads.

``tests/block_reference.py`` builds a block from hands the per-hand path has read,
value by value: the reference the scanner is checked against (tests/test_parsers_block.py),
and a way for tests to make blocks.

Layout: ``n`` hands, ``s`` seats (the sum of the hands' player counts), ``a``
actions.  Hand ``i``'s seats are rows ``seat_offsets[i]:seat_offsets[i + 1]`` of
the per-seat arrays, its actions rows ``action_offsets[i]:action_offsets[i + 1]``
of the per-action ones.  Missing values are -1 in integer arrays (``amounts``,
``targets``, ``min_bets``...), as no valid value is negative there.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from parsers.model import Verb

__all__ = ["BLOCK_VERBS", "MAX_ACTION_CARDS", "NO_VALUE", "VERB_CODE", "SevenEightBlock"]

Ints = npt.NDArray[np.int64]

NO_VALUE: Final = -1
"""A missing integer (no amount, no target, no ``min_bet``...)."""

BLOCK_VERBS: Final[tuple[Verb, ...]] = tuple(Verb)
"""The verb of code ``c`` in :attr:`SevenEightBlock.verbs` is ``BLOCK_VERBS[c]``."""
VERB_CODE: Final = {verb: code for code, verb in enumerate(BLOCK_VERBS)}
"""A verb's code in :attr:`SevenEightBlock.verbs`."""

MAX_ACTION_CARDS: Final = 3
"""Columns of :attr:`SevenEightBlock.cards`: no 7 & 8 action names more cards (a show)."""


@dataclass(frozen=True, slots=True, eq=False)
class SevenEightBlock:
    """7 & 8 hands (``game`` is ``seveneight``, no parse problem) as columns.

    Every hand has (the block's scope: the writer's layout): ``antes``,
    ``blinds_or_straddles``, ``starting_stacks``, ``finishing_stacks``, ``winnings``,
    ``players``, ``seats`` (one value per player),
    ``min_bet`` or (fixed limit) ``small_bet`` and ``big_bet``, ``seat_count``, ``hand`` (a number),
    ``table`` (text), ``time``, ``day``, ``month``, ``year``, perhaps ``user_fields``, and no
    other optional field (no ``currency``, ``event``, ``dealer``, ...); its rule set is
    its variant's defaults (no knob lines).  Cards are known (no ``??``).
    """

    source: str
    # ---- per hand (n)
    positions: Ints
    """Each hand's position in the sequence of chunks the block was read from."""
    indexes: Ints
    """``hand.index``: the hand's number in its file (1 for the first)."""
    lines: Ints
    """``hand.line``: the line of the hand's first header field."""
    raws: list[str]
    variants: list[str]
    min_bets: Ints
    small_bets: Ints
    big_bets: Ints
    seat_offsets: Ints
    """n + 1 offsets into the per-seat arrays."""
    players: list[tuple[str, ...]]
    seats: list[tuple[int, ...]]
    seat_counts: Ints
    hand_numbers: Ints
    tables: list[str]
    times: list[dt.time]
    days: Ints
    months: Ints
    years: Ints
    user_fields: list[tuple[tuple[str, object], ...]]
    # ---- per seat (s)
    starting_stacks: Ints
    antes: Ints
    blinds: Ints
    finishing_stacks: Ints
    winnings: Ints
    # ---- per action (a)
    action_offsets: Ints
    """n + 1 offsets into the per-action arrays."""
    actors: Ints
    """0 for the dealer ``d``, N for ``pN``."""
    verbs: npt.NDArray[np.int8]
    """Codes into :data:`BLOCK_VERBS`."""
    targets: Ints
    amounts: Ints
    card_counts: npt.NDArray[np.int8]
    cards: npt.NDArray[np.int8]
    """(a, :data:`MAX_ACTION_CARDS`) card codes (``DECK`` index), -1 past ``card_counts``."""
    card_texts: list[str | None]
    """Each action's cards in canonical notation (``8h3c``), None for none: the ``actions``
    table's ``cards`` column and the id's text."""
    action_lines: Ints

    def __len__(self) -> int:
        return len(self.positions)
