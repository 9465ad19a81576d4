"""Rummoli's board and cards as integers: pot indices, pay cards, colour masks, helpers.

Cards are the shared integer codes ``4 * rank + suit`` (ranks ``2..A -> 0..12``,
suits ``c d h s -> 0..3``); a hand is a 52-bit mask with bit ``code`` set for each
card held.  Because the rank is the high part of the code, the lowest set bit of
a mask is always one of the lowest-ranked cards, which makes "lay the lowest
card" a bit trick instead of a sort.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from parsers.cards import DECK, Card
from parsers.model import RUMMOLI_POTS

__all__ = [
    "AKD_POT",
    "BLACK",
    "CARD_POT",
    "FULL_DECK",
    "NINE_POTS",
    "PAY_CARDS",
    "POKER_POT",
    "POT_INDEX",
    "RANK_MASK",
    "RED",
    "RUMMOLI_POT",
    "SEVEN_EIGHT_NINE",
    "SEVEN_EIGHT_NINE_POT",
    "bit_count",
    "cards_of",
    "codes_of",
    "lowest_of",
    "mask_of",
]

NINE_POTS: Final = len(RUMMOLI_POTS)
POT_INDEX: Final = {name: index for index, name in enumerate(RUMMOLI_POTS)}
"""Index of each pot in ``board_before`` / ``board_after``."""
POKER_POT: Final = POT_INDEX["poker"]
AKD_POT: Final = POT_INDEX["AKD"]
SEVEN_EIGHT_NINE_POT: Final = POT_INDEX["789"]
RUMMOLI_POT: Final = POT_INDEX["rummoli"]

FULL_DECK: Final = (1 << 52) - 1


def _code(text: str) -> int:
    return "23456789TJQKA".index(text[0]) * 4 + "cdhs".index(text[1])


CARD_POT: Final = {_code(card): POT_INDEX[pot] for card, pot in
                   (("Ts", "TS"), ("Jd", "JD"), ("Qc", "QC"), ("Kh", "KH"), ("As", "AS"))}
"""The five cards that each win a pot of their own when laid."""
KING_DIAMONDS: Final = _code("Kd")
ACE_DIAMONDS: Final = _code("Ad")
AKD_MASK: Final = (1 << KING_DIAMONDS) | (1 << ACE_DIAMONDS)
PAY_CARDS: Final = sum(1 << code for code in CARD_POT) | AKD_MASK
"""Mask of the seven pay cards (T♠ J♦ Q♣ K♥ A♠ K♦ A♦): a hand holding one may not exchange."""

RED: Final = sum(1 << code for code in range(52) if code % 4 in (1, 2))
"""Mask of the red cards (diamonds, hearts)."""
BLACK: Final = FULL_DECK ^ RED
"""Mask of the black cards (clubs, spades)."""
RANK_MASK: Final = tuple(0xF << (4 * rank) for rank in range(13))
"""Mask of the four cards of each rank."""
SEVEN_EIGHT_NINE: Final = tuple(
    (1 << (4 * 5 + suit)) | (1 << (4 * 6 + suit)) | (1 << (4 * 7 + suit)) for suit in range(4)
)
"""Per suit, the mask of its 7, 8 and 9 (ranks 5, 6, 7)."""


def bit_count(mask: int) -> int:
    """The number of cards in a mask."""
    return mask.bit_count()


def lowest_of(mask: int) -> int:
    """The code of the lowest card of a non-empty mask (one of the lowest rank)."""
    return (mask & -mask).bit_length() - 1


def mask_of(codes: Iterable[int]) -> int:
    """The mask of card codes."""
    mask = 0
    for code in codes:
        mask |= 1 << code
    return mask


def codes_of(mask: int) -> list[int]:
    """The card codes of a mask, lowest first."""
    codes = []
    while mask:
        low = mask & -mask
        codes.append(low.bit_length() - 1)
        mask ^= low
    return codes


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, lowest first."""
    return tuple(DECK[code] for code in codes_of(mask))


