"""The rule options of shared/RULES.md (its "knobs"), as typed, immutable rule sets per game.

A history names its knobs in its header; the parser turns them into one of
:class:`RummoliRules`, :class:`BigTwoRules` or :class:`SevenEightRules`.  An
unknown knob or value is an error, never silently replaced by the default.
Betting structure, blinds and antes are carried by the PHH fields (``variant``,
``min_bet``, ``small_bet``, ``big_bet``, ``blinds_or_straddles``, ``antes``) and
not repeated here; see docs/format.md for the mapping.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Final

from parsers.cards import Card, Suit, parse_card

__all__ = [
    "BIGTWO_KNOBS",
    "GAME_NAMES",
    "RUMMOLI_KNOBS",
    "Betting",
    "BigTwoDeal",
    "BigTwoRules",
    "BigTwoScoring",
    "Claim",
    "Finale",
    "FlushOrder",
    "Game",
    "RummoliRules",
    "SevenEightRules",
    "Straights",
]


class Game(StrEnum):
    """The three games handlab understands."""

    RUMMOLI = "rummoli"
    BIGTWO = "bigtwo"
    SEVENEIGHT = "seveneight"


GAME_NAMES: Final[dict[str, str]] = {
    Game.SEVENEIGHT: "7 & 8", Game.BIGTWO: "Big Two", Game.RUMMOLI: "Rummoli"}
"""Each game's name as people say it (a game's value, a plain string, finds it too)."""


class Betting(StrEnum):
    """Betting structure of a game that bets (7 & 8, Rummoli's poker phase)."""

    NO_LIMIT = "no_limit"
    POT_LIMIT = "pot_limit"
    FIXED_LIMIT = "fixed_limit"


class Claim(StrEnum):
    """Rummoli: whether laying a pay card wins its pot at once or only when claimed."""

    AUTO = "auto"
    MANUAL = "manual"


class Finale(StrEnum):
    """Rummoli: how the chips left on the board are played off at the end of a game."""

    SINGLE = "single"
    PER_POT = "per_pot"
    NONE = "none"


class BigTwoDeal(StrEnum):
    """Big Two: deal 13 cards each, or the whole deck evenly."""

    THIRTEEN = "thirteen"
    ALL = "all"


class Straights(StrEnum):
    """Big Two: which runs are straights and how they order."""

    SG_HK = "sg_hk"
    VIETNAMESE = "vietnamese"
    MALAYSIAN = "malaysian"


class FlushOrder(StrEnum):
    """Big Two: flushes compare by ranks first (``rank``) or by suit first (``suit_first``)."""

    RANK = "rank"
    SUIT_FIRST = "suit_first"


class BigTwoScoring(StrEnum):
    """Big Two: how a game is scored."""

    CARDS = "cards"
    CARDS_WITH_TWOS = "cards_with_twos"
    RANK = "rank"
    ZERO_SUM = "zero_sum"


_SUIT_LETTERS: Final = {"c": Suit.CLUBS, "d": Suit.DIAMONDS, "h": Suit.HEARTS, "s": Suit.SPADES}


@dataclass(frozen=True, slots=True)
class RummoliRules:
    """Rummoli knobs (RULES.md section 1).  ``poker_betting`` is in the variant code."""

    ante: int = 1
    claim: Claim = Claim.AUTO
    finale: Finale = Finale.SINGLE

    def __post_init__(self) -> None:
        if isinstance(self.ante, bool) or not isinstance(self.ante, int) or self.ante < 0:
            raise ValueError(f"ante must be a whole number of chips >= 0, not {self.ante!r}")


@dataclass(frozen=True, slots=True)
class BigTwoRules:
    """Big Two knobs (RULES.md section 2).

    ``suit_order`` lists the suits from lowest to highest (default ``dchs``:
    diamonds < clubs < hearts < spades).  ``fry_threshold``: from that many cards left a
    loser is "fried" (his loss doubled, under ``cards`` and ``zero_sum`` scoring).
    """

    deal: BigTwoDeal = BigTwoDeal.THIRTEEN
    lead_card: str = "3d"
    suit_order: str = "dchs"
    straights: Straights = Straights.SG_HK
    flush_order: FlushOrder = FlushOrder.RANK
    four_card_plays: bool = False
    scoring: BigTwoScoring = BigTwoScoring.CARDS
    fry_threshold: int = 10

    def __post_init__(self) -> None:
        if (isinstance(self.fry_threshold, bool) or not isinstance(self.fry_threshold, int)
                or self.fry_threshold < 1):
            raise ValueError(f"fry_threshold must be a whole number >= 1, not "
                             f"{self.fry_threshold!r}")
        if self.lead_card not in ("3d", "3c"):
            raise ValueError(f"lead_card must be 3d or 3c, not {self.lead_card!r}")
        if len(self.suit_order) != 4 or set(self.suit_order) != set("cdhs"):
            raise ValueError(
                f"suit_order must be a permutation of the letters c d h s, not {self.suit_order!r}"
            )
        if not isinstance(self.four_card_plays, bool):
            raise ValueError(f"four_card_plays must be true or false, not {self.four_card_plays!r}")

    @property
    def lead(self) -> Card:
        """The lead card as a :class:`Card`."""
        return parse_card(self.lead_card)

    @property
    def suit_strength(self) -> tuple[int, int, int, int]:
        """Strength 0..3 of each suit, indexed by :class:`Suit` value (clubs, diamonds, ...)."""
        return _suit_strength(self.suit_order)


@cache
def _suit_strength(suit_order: str) -> tuple[int, int, int, int]:
    """:attr:`BigTwoRules.suit_strength` of a suit order, worked out once per order (the
    evaluator asks for it at every card it compares)."""
    strength = [0, 0, 0, 0]
    for position, letter in enumerate(suit_order):
        strength[_SUIT_LETTERS[letter]] = position
    return (strength[0], strength[1], strength[2], strength[3])


@dataclass(frozen=True, slots=True)
class SevenEightRules:
    """7 & 8 knobs.  Betting, blinds and antes are PHH fields of the hand; nothing else varies."""


RUMMOLI_KNOBS: Final = {"ante": int, "claim": Claim, "finale": Finale}
"""Header keys that are Rummoli knobs, with the type or enum of their values."""

BIGTWO_KNOBS: Final = {
    "deal": BigTwoDeal,
    "lead_card": str,
    "suit_order": str,
    "straights": Straights,
    "flush_order": FlushOrder,
    "four_card_plays": bool,
    "scoring": BigTwoScoring,
    "fry_threshold": int,
}
"""Header keys that are Big Two knobs, with the type or enum of their values."""

