"""What each header field of the format is, per game: the single table the reader and writer share.

The order of :data:`FIELD_ORDER` is the order the writer uses.
"""

from __future__ import annotations

from typing import Final

from parsers.rule_options import BIGTWO_KNOBS, RUMMOLI_KNOBS, Betting, Game

__all__ = [
    "ALL_FIELDS",
    "FIELD_ORDER",
    "GAME_FIELDS",
    "KNOB_FIELDS",
    "OUTCOME_FIELDS",
    "VARIANTS",
    "Variant",
]


class Variant:
    """A variant code: which game, and its betting structure where it bets."""

    __slots__ = ("betting", "code", "game")

    def __init__(self, code: str, game: Game, betting: Betting | None) -> None:
        self.code = code
        self.game = game
        self.betting = betting


VARIANTS: Final = {
    # 7 & 8: PHH's convention of a betting-structure letter then the game.
    "N78": Variant("N78", Game.SEVENEIGHT, Betting.NO_LIMIT),
    "P78": Variant("P78", Game.SEVENEIGHT, Betting.POT_LIMIT),
    "F78": Variant("F78", Game.SEVENEIGHT, Betting.FIXED_LIMIT),
    # Rummoli: the letter is the betting structure of its poker phase.
    "NRM": Variant("NRM", Game.RUMMOLI, Betting.NO_LIMIT),
    "PRM": Variant("PRM", Game.RUMMOLI, Betting.POT_LIMIT),
    "FRM": Variant("FRM", Game.RUMMOLI, Betting.FIXED_LIMIT),
    # Big Two has no betting.
    "B2": Variant("B2", Game.BIGTWO, None),
}

OUTCOME_FIELDS: Final = ("cards_left", "takes_all_losses", "as_recorded")
"""Big Two's outcome-only game (a score sheet's line): the cards each player had left, who
took on all losses, and whether a line without exactly one winner is kept as recorded."""

# Fields every game may carry (PHH optional fields, plus the format version).
_COMMON: Final = (
    "format_version",
    "variant",
    "players",
    "seats",
    "seat_count",
    "hand",
    "table",
    "event",
    "author",
    "venue",
    "url",
    "city",
    "region",
    "country",
    "time",
    "time_zone",
    "day",
    "month",
    "year",
    "currency",
    "starting_stacks",
    "finishing_stacks",
    "winnings",
    "actions",
)

GAME_FIELDS: Final[dict[Game, frozenset[str]]] = {
    Game.SEVENEIGHT: frozenset(
        _COMMON + ("antes", "blinds_or_straddles", "min_bet", "small_bet", "big_bet")
    ),
    Game.RUMMOLI: frozenset(
        _COMMON
        + ("min_bet", "small_bet", "dealer", "game_id", "round", "board_before", "finale_pot")
        + tuple(RUMMOLI_KNOBS)
    ),
    Game.BIGTWO: frozenset(_COMMON + ("game_id", "round") + OUTCOME_FIELDS
                           + tuple(BIGTWO_KNOBS)),
}
"""The header keys each game accepts (besides ``_``-prefixed user fields)."""

KNOB_FIELDS: Final[dict[Game, dict[str, object]]] = {
    Game.SEVENEIGHT: {},
    Game.RUMMOLI: dict(RUMMOLI_KNOBS),
    Game.BIGTWO: dict(BIGTWO_KNOBS),
}

ALL_FIELDS: Final = frozenset().union(*GAME_FIELDS.values())

FIELD_ORDER: Final = (
    "format_version",
    "variant",
    # knobs
    "ante",
    "claim",
    "finale",
    "deal",
    "lead_card",
    "suit_order",
    "straights",
    "flush_order",
    "four_card_plays",
    "scoring",
    "fry_threshold",
    # stakes
    "antes",
    "blinds_or_straddles",
    "min_bet",
    "small_bet",
    "big_bet",
    # game and round
    "game_id",
    "round",
    "dealer",
    "finale_pot",
    "board_before",
    "starting_stacks",
    "actions",
    "cards_left",
    "takes_all_losses",
    "as_recorded",
    "finishing_stacks",
    "winnings",
    "currency",
    # who, where, when
    "players",
    "seats",
    "seat_count",
    "hand",
    "table",
    "event",
    "author",
    "venue",
    "url",
    "city",
    "region",
    "country",
    "time",
    "time_zone",
    "day",
    "month",
    "year",
)
