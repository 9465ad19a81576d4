"""What the Rummoli state modules share: phases, rule tags, card-code look-ups."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Final

from parsers.cards import DECK, Card

__all__ = [
    "CODE_BY_ID",
    "R_CLAIM",
    "R_DEAL",
    "R_END",
    "R_FINALE",
    "R_HEADER",
    "R_IMPASSE",
    "R_LAY",
    "R_POKER",
    "R_WIDOW",
    "LayReason",
    "Phase",
    "card_codes",
    "player_name",
]

# The rule each error names (RuleError.rule).
R_HEADER: Final = "RULES.md 1 (players and chips)"
R_DEAL: Final = "RULES.md 1.2 (deal)"
R_WIDOW: Final = "RULES.md 1.3 (widow)"
R_POKER: Final = "RULES.md 1.4 (poker phase)"
R_LAY: Final = "RULES.md 1.5 (Rummoli phase)"
R_CLAIM: Final = "RULES.md 1.5 (claim)"
R_IMPASSE: Final = "RULES.md 1.5 (impasse)"
R_END: Final = "RULES.md 1.6 (end of round)"
R_FINALE: Final = "RULES.md 1.7 (end of game)"

CODE_BY_ID: Final = {id(card): card.code for card in DECK}
"""``id(card) -> code`` for the 52 interned cards.  The engine no longer uses it:
``Card.code`` is now a field computed once, which reads faster than ``id()`` and a look-up."""


def card_codes(cards: Sequence[Card]) -> list[int]:
    """The integer codes of cards (-1 for ``??``)."""
    return [card.code for card in cards]


def player_name(index: int) -> str:
    """``pN`` for the 0-based player index N - 1."""
    return f"p{index + 1}"


class Phase(IntEnum):
    """Where a round stands; each phase expects particular actions."""

    DEAL = 0  # d dh / d dw until all 52 cards are dealt
    WIDOW = 1  # the dealer: xw or pw
    AUCTION = 2  # ab / ap in turn
    AUCTION_CLOSE = 3  # the high bidder: aw
    BETTING = 4  # cbr / cc / f
    SHOWDOWN = 5  # sm
    RUMMOLI = 6  # pl (and cl with claim = manual)
    IMPASSE = 7  # d im
    OVER = 8  # only claims of the last card laid


class LayReason(IntEnum):
    """Why the player to lay must lay what he must (for error messages)."""

    OPEN = 0  # the poker winner opens with his lowest card
    SEQUENCE = 1  # he holds the next card of the suit
    COLOUR = 2  # nobody holds the next card: the last layer switches colour
    PASSED = 3  # the last layer had no card of that colour: the turn passed clockwise
