"""Input checking shared by the evaluators."""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from parsers.cards import Card, CardError, parse_cards


class EvaluationError(ValueError):
    """Cards that cannot be evaluated: wrong count, unknown or repeated cards, bad codes."""


def as_known_cards(cards: Iterable[Card] | str, low: int, high: int, game: str) -> tuple[Card, ...]:
    """The cards as a tuple, checked: ``low..high`` known cards, no card twice.

    A string is read with :func:`parsers.cards.parse_cards` (``"AsKd"``, ``"As Kd"``).
    """
    if isinstance(cards, str):
        try:
            hand = parse_cards(cards)
        except CardError as error:
            raise EvaluationError(str(error)) from error
    else:
        hand = tuple(cards)
        for card in hand:
            if not isinstance(card, Card):
                raise EvaluationError(f"{card!r} is not a Card")
    if not low <= len(hand) <= high:
        wanted = f"{low}" if low == high else f"{low} to {high}"
        raise EvaluationError(f"a {game} hand has {wanted} cards, not {len(hand)}")
    if any(not card.is_known for card in hand):
        raise EvaluationError(f"cannot evaluate an unknown card (??) in a {game} hand")
    seen: set[Card] = set()
    for card in hand:
        if card in seen:
            raise EvaluationError(f"card {card} appears twice in a {game} hand")
        seen.add(card)
    return hand


def as_code_matrix(
    codes: npt.ArrayLike, widths: Iterable[int], game: str
) -> npt.NDArray[np.integer[Any]]:
    """A 2-D integer array of card codes 0..51 whose width is one of ``widths``."""
    array = np.asarray(codes)
    allowed = tuple(widths)
    if array.ndim != 2:
        raise EvaluationError(f"{game} batch: expected a 2-D (n, k) array, got shape {array.shape}")
    if array.shape[1] not in allowed:
        raise EvaluationError(
            f"{game} batch: {array.shape[1]} cards per hand, expected {allowed[0]} to {allowed[-1]}"
            if len(allowed) > 2
            else f"{game} batch: {array.shape[1]} cards per hand, expected one of {allowed}"
        )
    if not np.issubdtype(array.dtype, np.integer):
        if array.size == 0 and array.dtype == np.float64:  # np.asarray([]) has no integer dtype
            return array.astype(np.int8)
        raise EvaluationError(f"{game} batch: card codes must be integers, not {array.dtype}")
    if array.size and (int(array.min()) < 0 or int(array.max()) > 51):
        raise EvaluationError(f"{game} batch: card codes must be 0..51 (4 * rank + suit)")
    return array


class NamedCategory(IntEnum):
    """An ordered category (low to high) with the names the tables and the pages show."""

    @property
    def label(self) -> str:
        """Snake-case name, as stored in the warehouse: ``full_house``."""
        return self.name.lower()

    @property
    def text(self) -> str:
        """Words for people: ``full house``."""
        return self.name.lower().replace("_", " ")
