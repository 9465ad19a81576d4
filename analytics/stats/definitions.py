"""Every player statistic, defined once: name, words, and its count and opportunities in SQL.

A statistic is a count over its opportunities, per seat: ``count`` and ``opportunities``
are SQL expressions over one seat's row (integers or booleans; NULL counts as 0), summed
over the seats a question keeps.  The dashboard's grid, the report's section and
``handlab stats`` all read these definitions (through :mod:`analytics.stats.grid`), and
docs/statistics.md states them in the same words.

Where the row comes from depends on the game (:data:`SOURCES`):

* 7 & 8: ``stat_facts``, one row per seat written when the hand is loaded, whose columns
  ``<name>`` and ``<name>_opps`` are these expressions evaluated over the seat's betting
  summary (:mod:`analytics.stats.seveneight`): deriving them needs the hand's actions in
  order, which a question over a million hands cannot afford to read.
* Rummoli: ``stat_facts`` too, over the round's summary (:mod:`analytics.stats.rummoli`).
* Big Two: ``seat_facts`` (its places, cards left, plays by kind and passes, the passes
  holding a beating play counted by the rules engine on ingest), evaluated when asked, so
  the fry threshold can be a parameter.

A :class:`Result` is a column of the grid that is not a count over opportunities (net
results, big blinds per 100 hands): one SQL aggregate over the same rows.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

from parsers.rule_options import Game

__all__ = ["BIGTWO_SEATS", "CURRENCY", "ENDS_AT_FIRST_OUT", "FRY_THRESHOLD", "LEVELS",
           "MIN_OPPORTUNITIES", "ONE_CURRENCY", "RESULTS", "SOURCES", "SPLITS", "STATS", "Kind",
           "Result", "Stat", "currency_sql", "level_sql", "stat_columns", "stats_of",
           "unit_sql"]

MIN_OPPORTUNITIES: Final = 30
"""A cell with fewer opportunities than this is greyed (the dashboard lets it be changed)."""

FRY_THRESHOLD: Final = 10
"""Big Two: a game ended with at least this many cards in hand is a fry, unless its rules'
``fry_threshold`` says otherwise (RULES.md 2); the grid can be asked for another."""


class Kind(enum.Enum):
    """How a statistic's count and opportunities are read."""

    RATE = "rate"
    """A share: ``12/40 (30%)``, with Wilson's 95 % interval."""
    RATIO = "ratio"
    """A ratio of two counts (the aggression factor): ``12/40 (0.30)``; its interval is
    Wilson's for ``count / (count + opportunities)`` mapped to the ratio."""
    MEAN = "mean"
    """A total over opportunities (cards left per game): ``312/40 (7.80)``, no interval."""


@dataclass(frozen=True, slots=True)
class Stat:
    """One statistic: its column name, header, family, definition in words, and the SQL of
    its per-seat count and opportunities (over the game's source row)."""

    name: str
    game: Game
    label: str
    family: str
    words: str
    count: str
    opportunities: str
    kind: Kind = Kind.RATE
    per_level: bool = False
    """Its count is in the rule's unit (:data:`LEVELS`, as :attr:`Result.per_level`): none
    for a row whose hands were played under more than one of those rules."""
    in_currency: bool = False
    """Its count is in the row's currency, as :attr:`Result.in_currency`."""

    @property
    def opps_column(self) -> str:
        """The column of its opportunities: ``<name>_opps``."""
        return f"{self.name}_opps"


@dataclass(frozen=True, slots=True)
class Result:
    """A result column of the grid: an SQL aggregate over the game's source rows ``x``."""

    name: str
    game: Game
    label: str
    words: str
    aggregate: str
    per_level: bool = False
    """Its unit is the rule's (:data:`LEVELS`): points under one Big Two scoring rule are
    not points under another, chips per Rummoli round grow with the ante; so a row whose
    hands were played under more than one has none (``stat_views.stat_grid``)."""
    in_currency: bool = False
    """It is counted in the row's currency (:data:`CURRENCY`: chips, or the one currency
    its hands declare), which the grid names beside it."""


LEVELS: Final = {Game.BIGTWO: ("scoring", "cards"), Game.RUMMOLI: ("ante", "1")}
"""The rule a game's results are counted under, besides the stakes (``views.level_of``):
the knob (also the grid's split of that name) and its value when the rules omit it."""


def level_sql(game: Game, rules: str = "x.rules") -> str:
    """The SQL of ``game``'s :data:`LEVELS` knob read from the rules JSON ``rules``."""
    knob, default = LEVELS[game]
    return f"coalesce(json_extract_string({rules}, '$.{knob}'), '{default}')"


_SE: Final = Game.SEVENEIGHT
_B2: Final = Game.BIGTWO

# 7 & 8: over the seat's betting summary (analytics.stats.seveneight.SUMMARY_COLUMNS).
_SEVENEIGHT: Final = (
    Stat("vpip", _SE, "VPIP", "round 1",
         "Voluntarily put money in the pot: hands where he called or raised in round 1 (the "
         "betting after the up cards). Blinds do not count, nor does the big blind's check "
         "when nobody raised; the small blind completing does count. Opportunities: hands "
         "where he acted in round 1 (as trackers count it: not a walk, where everyone "
         "folds to his big blind, nor a hand he was all in before round 1).",
         "r1_raises + r1_calls > 0", "r1_acts > 0"),
    Stat("pfr", _SE, "PFR", "round 1",
         "Raised in round 1: hands where he bet or raised (cbr) at least once in round 1, an "
         "all-in for less than a full raise included. Opportunities: hands where he acted "
         "in round 1 (as for VPIP).",
         "r1_raises > 0", "r1_acts > 0"),
    Stat("three_bet", _SE, "3-bet", "round 1",
         "Made the second raise of round 1: of the hands where he acted in round 1 facing "
         "exactly one raise (blinds are not raises), those where that action was a raise.",
         "facing_one_raise = 'cbr'", "facing_one_raise IS NOT NULL"),
    Stat("fold_to_three_bet", _SE, "Fold to 3-bet", "round 1",
         "Folded to a 3-bet: of the hands where he made the first raise of round 1 and then "
         "acted facing exactly a second raise (not a third), those where he folded.",
         "first_raiser AND facing_two_raises = 'f'",
         "first_raiser AND facing_two_raises IS NOT NULL"),
    Stat("af_round1", _SE, "AF round 1", "aggression",
         "Aggression factor in round 1: his bets and raises over his calls (a check is "
         "neither). A ratio, not a share.",
         "r1_raises", "r1_calls", Kind.RATIO),
    Stat("af_round2", _SE, "AF round 2", "aggression",
         "Aggression factor in round 2 (after the third card): bets and raises over calls.",
         "r2_raises", "r2_calls", Kind.RATIO),
    Stat("af", _SE, "AF both rounds", "aggression",
         "Aggression factor over both rounds: bets and raises over calls (a tracker's AF is "
         "round 2's, after the flop: AF round 2).",
         "r1_raises + r2_raises", "r1_calls + r2_calls", Kind.RATIO),
    Stat("afq", _SE, "AFq", "aggression",
         "Aggression frequency in round 2 (after the third card), as trackers count it "
         "after the flop: his bets and raises over all his bets, raises, calls and folds "
         "there (checks do not count). Round 1's folds would swamp it.",
         "r2_raises", "r2_raises + r2_calls + r2_folds"),
    Stat("cbet", _SE, "C-bet", "round 2",
         "Continuation bet: of the hands where he made the last raise of round 1, round 2 "
         "was reached and nobody bet before his first action in round 2, those where that "
         "action was a bet. A limped round 1 (no raise) gives nobody the chance; an all-in "
         "before round 2 neither (nobody acts in round 2).",
         "last_raiser AND first_r2_verb = 'cbr' AND first_r2_facing = 0",
         "last_raiser AND first_r2_facing = 0"),
    Stat("fold_to_cbet", _SE, "Fold to c-bet", "round 2",
         "Folded to a continuation bet: of the hands where another player c-bet and he then "
         "acted facing that bet alone (no raise after it), those where he folded.",
         "facing_cbet = 'f'", "facing_cbet IS NOT NULL"),
    Stat("wtsd", _SE, "WTSD", "showdown",
         "Went to showdown: of the hands where he was still in when round 2 began (he was "
         "dealt a third card; an all-in in round 1 counts), those that went to showdown "
         "with him in (he showed or mucked at the showdown).",
         "saw_round2 AND showdown", "saw_round2"),
    Stat("wsd", _SE, "W$SD", "showdown",
         "Won at showdown: of the showdowns he reached, those where he won at least part of "
         "a pot (a side pot or a split counts; uncalled chips returned do not).",
         "showdown AND won > 0", "showdown"),
    Stat("wwsr2", _SE, "WWSR2", "showdown",
         "Won when he saw round 2: of the hands where he was still in when round 2 began, "
         "those where he won at least part of a pot, at showdown or not.",
         "saw_round2 AND won > 0", "saw_round2"),
    Stat("up_high", _SE, "Up high", "up card",
         "Turned up the higher card: of the hands where his two first cards differ in rank "
         "(2 low, ace high) and are both known, those where he turned up the higher one.",
         "up_rank_value > down_rank_value",
         "up_rank_value > 0 AND down_rank_value > 0 AND up_rank_value <> down_rank_value"),
)

# Big Two: over BIGTWO_SEATS x ($fry_threshold is bound by the grid: NULL for each game's
# own threshold).
# The 2s in his plays: the plays joined, less the text without its '2's (a suit is never
# '2'); about half the CPU of summing the same per play with a lambda.
_TWOS: Final = ("length(array_to_string(x.plays, '')) "
                "- length(replace(array_to_string(x.plays, ''), '2', ''))")
_FIVE: Final = ("x.played_straight + x.played_flush + x.played_full_house "
                "+ x.played_four_of_a_kind + x.played_straight_flush")
_PLAYED_OUT: Final = f"{level_sql(_B2)} = 'rank'"
"""A Big Two game played out to the last place: scored by finishing order (RULES.md 2)."""
ENDS_AT_FIRST_OUT: Final = f"NOT ({_PLAYED_OUT})"
"""A Big Two game that ends when the first player goes out (every scoring rule but
finishing order): the others' cards left are what it is scored by."""
BIGTWO_SEATS: Final = """(
    SELECT s.* REPLACE (coalesce(s.cards_left, b.cards_left) AS cards_left),
           coalesce(b.outcome_only, FALSE) AS outcome_only
    FROM seat_facts s
    LEFT JOIN bigtwo_scores b ON b.hand_id = s.hand_id AND b.seat = s.seat)"""
"""A Big Two seat's row: ``seat_facts`` with the cards left of an outcome-only game (a score
sheet's line, which has no deal or plays to count them from) as ``bigtwo_scores`` holds
them, and ``outcome_only``: the game's plays are not known."""
_FRY: Final = (f"x.cards_left >= coalesce($fry_threshold, TRY_CAST(json_extract_string("
               f"x.rules, '$.fry_threshold') AS INTEGER), {FRY_THRESHOLD})")
_PLAYED: Final = "NOT x.outcome_only"
_BIGTWO: Final = (
    Stat("win_rate", _B2, "Win rate", "result",
         "Games won (he went out first) over games played.",
         "x.place = 1", "TRUE"),
    Stat("cards_left", _B2, "Cards left", "result",
         "Average cards left in his hand when the game ended (0 when he went out): total "
         "cards left over games (a score sheet's games as the sheet records them) that end "
         "when the first player goes out (not those scored by finishing order, played on "
         "until one player is left with his cards).",
         f"CASE WHEN {ENDS_AT_FIRST_OUT} THEN x.cards_left END",
         f"x.cards_left IS NOT NULL AND {ENDS_AT_FIRST_OUT}", Kind.MEAN),
    Stat("fry", _B2, "Fry", "result",
         "Games he ended holding at least the fry threshold of cards (each game's own: 10 "
         "unless its rules' fry_threshold says otherwise, or the one chosen) over games "
         "that end when the first player goes out (as Cards left).",
         f"{_FRY} AND {ENDS_AT_FIRST_OUT}", f"x.cards_left IS NOT NULL AND {ENDS_AT_FIRST_OUT}"),
    Stat("place_1", _B2, "Place 1", "places",
         "Games he finished in place 1 (he went out first) over games.",
         "x.place = 1", "TRUE"),
    *(Stat(f"place_{place}", _B2, f"Place {place}", "places",
           f"Games he finished in place {place} (the order players went out) over the games "
           f"played out to the last place (scoring by finishing order: under every other "
           f"rule a game ends when the first player goes out)"
           + (f" at tables of {place} or more." if place > 2 else "."),
           f"x.place = {place}", f"{_PLAYED_OUT} AND x.num_players >= {place}")
      for place in (2, 3, 4)),
    Stat("not_out", _B2, "Not out", "places",
         "Games that ended with him still holding cards (no finishing place) over the games "
         "that end when the first player goes out (every scoring rule but finishing order, "
         "which plays on to the last place).",
         "x.place IS NULL", f"NOT ({_PLAYED_OUT})"),
    Stat("twos", _B2, "2s per game", "plays",
         "2s he played per game: 2s in all his plays over the games whose plays are known "
         "(not a score sheet's).",
         _TWOS, _PLAYED, Kind.MEAN),
    Stat("five_card", _B2, "5-card plays per game", "plays",
         "Five-card plays (straights, flushes, full houses, four of a kind with a kicker, "
         "straight flushes, as the evaluator classifies them under the game's rules) per "
         "game whose plays are known (not a score sheet's).",
         _FIVE, _PLAYED, Kind.MEAN),
    Stat("pass_with_play", _B2, "Pass with play", "plays",
         "Passes he made while he held a play that beats the trick's last play (as many "
         "cards, stronger; the rules engine decides, so a four of a kind or any five-card "
         "play never beats a single or a pair) over all his passes. A leader may not pass.",
         "x.passes_with_play", "x.passes"),
    Stat("points", _B2, "Points per game", "result",
         "Points (his net score) per game: total over games (under one scoring rule: split "
         "by it when the games had several).",
         "x.net", "TRUE", Kind.MEAN, per_level=True),
)

# Rummoli: over the round's summary (analytics.warehouse.pipeline.stat_summary.rummoli_summary).
_RM: Final = Game.RUMMOLI
_RUMMOLI: Final = (
    Stat("vpip", _RM, "VPIP", "poker phase",
         "Put chips in the poker pot voluntarily: rounds where he called a bet or bet or "
         "raised in the poker phase (the antes do not count, nor a check) over rounds where "
         "he acted in it (checked, called, bet, raised or folded: not a round where the "
         "antes left him or everyone else all in, as 7 & 8's VPIP leaves out a hand he "
         "had no decision in).",
         "raises + calls > 0", "poker_acts > 0"),
    Stat("raise", _RM, "Raise", "poker phase",
         "Rounds where he bet or raised (cbr) in the poker phase over rounds where he acted "
         "in it (as VPIP).",
         "raises > 0", "poker_acts > 0"),
    Stat("poker_pot_won", _RM, "Poker pot won", "poker phase",
         "Rounds where he won at least part of the poker pot (a side pot, a split, the "
         "finale's pot included) over rounds he was dealt in.",
         "poker_won > 0", "dealt"),
    Stat("wsd", _RM, "W$SD", "poker phase",
         "Won at showdown: of the poker showdowns he reached (he showed or mucked), those "
         "where he won at least part of the poker pot.",
         "showdown AND poker_won > 0", "showdown"),
    Stat("widow_exchange", _RM, "Widow exchange", "widow",
         "Rounds he dealt and exchanged his hand for the widow, over rounds he dealt and "
         "chose (exchange or keep).",
         "exchanged", "widow_choice"),
    Stat("auction_bid", _RM, "Auction bid", "widow",
         "Auctions he bid in over auctions he was asked in (he bid, passed or won).",
         "bid", "asked"),
    Stat("winning_bid", _RM, "Winning bid", "widow",
         "Average winning bid: the chips he paid for the auctions he won over those "
         "auctions.",
         "winning_bids", "auctions_won", Kind.MEAN, per_level=True, in_currency=True),
    Stat("widow_net", _RM, "Auction chips", "widow",
         "Chips the widow's auction gained him (as the dealer, paid the price) or cost him "
         "(as the winning bidder), per round dealt in.",
         "auction_net", "dealt", Kind.MEAN, per_level=True, in_currency=True),
    Stat("pay_cards", _RM, "Pay cards laid", "laying",
         "Pay cards (T♠ J♦ Q♣ K♥ A♠ K♦ A♦) he laid per round with a Rummoli phase.",
         "pay_cards", "dealt AND laying", Kind.MEAN),
    Stat("stops", _RM, "Stops", "laying",
         "Stops he made per round with a Rummoli phase: cards he laid that the next card "
         "laid did not follow (not the next rank of the same suit).",
         "stops", "dealt AND laying", Kind.MEAN),
    Stat("cards_left", _RM, "Cards left", "laying",
         "Cards left in his hand when the round ended, per round with a Rummoli phase (an "
         "end-of-game round, poker only, counts neither its cards nor itself).",
         "CASE WHEN laying THEN cards_left ELSE 0 END", "dealt AND laying", Kind.MEAN),
    Stat("chips_paid", _RM, "Chips paid", "laying",
         "Chips he paid for the cards he held at the end (to the winner, or into the "
         "Rummoli pot at an impasse), per round with a Rummoli phase.",
         "chips_paid", "dealt AND laying", Kind.MEAN, per_level=True, in_currency=True),
    Stat("rummoli_pot", _RM, "Rummoli pot", "laying",
         "Rounds where he won the Rummoli pot (emptied his hand first, whatever the pot "
         "held: with no ante it holds nothing) over rounds with a Rummoli phase.",
         "laying AND cards_left = 0", "dealt AND laying"),
)

STATS: Final = {Game.SEVENEIGHT: _SEVENEIGHT, Game.BIGTWO: _BIGTWO, Game.RUMMOLI: _RUMMOLI}
"""Every statistic, per game, in the grid's column order."""


def currency_sql(stakes: str) -> str:
    """The SQL of the currency the ``views.STAKES`` label ``stakes`` ends in (``''``: none
    declared; Big Two's ``points`` has none either)."""
    return f"regexp_extract({stakes}, '^\\S+ (?:min )?\\S+ ?(.*)$', 1)"


ONE_CURRENCY: Final = ("len(list_distinct(list_transform(list(DISTINCT x.stakes), lambda s: "
                       f"{currency_sql('s')}))) = 1")
"""Whether a group's 7 & 8 or Rummoli rows share one currency (``views.STAKES`` ends in
it; none is one too): read from the distinct stakes labels, not from every row."""

def unit_sql(stakes: str) -> str:
    """The SQL of what the chips of the ``views.STAKES`` label ``stakes`` are counted in:
    the currency it declares, else ``chips``."""
    return f"coalesce(nullif({currency_sql(stakes)}, ''), 'chips')"


CURRENCY: Final = f"CASE WHEN {ONE_CURRENCY} THEN {unit_sql('any_value(x.stakes)')} END"
"""A group's one currency (``chips`` when its hands declare none), NULL when its 7 & 8 or
Rummoli rows name several: the unit of its results :attr:`Result.in_currency`."""

RESULTS: Final = {
    Game.SEVENEIGHT: (
        Result("hands", _SE, "Hands", "Hands dealt.", "count(*)"),
        Result("net", _SE, "Net", "Net result in chips (or the hands' declared currency), "
               "summed over every stake level he played, as a tracker sums money won; none "
               "for a row whose hands name two currencies, or one and none (bb/100 weighs "
               "each hand by its big blind; split by stakes for each level's chips).",
               f"CASE WHEN {ONE_CURRENCY} THEN CAST(sum(x.net) AS BIGINT) END",
               in_currency=True),
        Result("bb_per_100", _SE, "bb/100",
               "Net in big blinds per 100 hands: each hand's net divided by its big blind "
               "(the largest blind the hand declares, as trackers take the stake's big blind "
               "even when a short stack posts less; the minimum bet, else the small bet, when "
               "it declares none), summed, over hands, times 100.",
               "100 * sum(x.net / x.big_blind) / count(*)"),
        Result("allin_adj_bb_per_100", _SE, "All-in adj. bb/100",
               "As bb/100, with the expected net (equity times the pots) in place of the "
               "actual one in hands all in with cards to come.",
               "100 * sum(x.adjusted_net / x.big_blind) / count(*)"),
    ),
    Game.BIGTWO: (
        Result("games", _B2, "Games", "Games played.", "count(*)"),
        Result("wins", _B2, "Wins", "Games won (went out first).",
               "count(*) FILTER (WHERE x.place = 1)"),
        Result("net", _B2, "Points", "Net points over all games (under one scoring rule: "
               "split by it when the games had several).",
               "CAST(sum(x.net) AS BIGINT)", per_level=True),
    ),
    Game.RUMMOLI: (
        Result("rounds", _RM, "Rounds", "Rounds he sat in.", "count(*)"),
        Result("net", _RM, "Net", "Net result in chips (every pot, payment and ante); none "
               "for a row whose rounds name two currencies, or one and none.",
               f"CASE WHEN {ONE_CURRENCY} THEN CAST(sum(x.net) AS BIGINT) END",
               in_currency=True),
        Result("net_per_round", _RM, "Net per round", "Net chips per round.",
               "sum(x.net) / count(*)", per_level=True, in_currency=True),
        Result("poker_net_per_round", _RM, "Poker pot net per round",
               "Net chips per round from the poker pot (the poker phase alone): the poker "
               "pot, its side pots and an end-of-game round's pot won, less his ante into the "
               "poker pot and his bets.",
               "sum(x.poker_net) / count(*)", per_level=True, in_currency=True),
        Result("pay_cards_net_per_round", _RM, "Pay-card pots net per round",
               "Net chips per round from the seven pay-card pots: the pots he won by laying "
               "pay cards, less his antes into them.",
               "sum(x.pay_cards_net) / count(*)", per_level=True, in_currency=True),
        Result("rummoli_net_per_round", _RM, "Rummoli pot net per round",
               "Net chips per round from the Rummoli pot: the pot won by going out first, "
               "less his ante into it and what he paid into it at an impasse.",
               "sum(x.rummoli_net) / count(*)", per_level=True, in_currency=True),
        Result("payments_net_per_round", _RM, "Cards-left payments net per round",
               "Net chips per round from the payments for cards left: received as the "
               "winner, less paid for his own cards left. With the pots above and the "
               "auction's chips (Auction chips) it adds up to Net per round.",
               "sum(x.payments_net) / count(*)", per_level=True, in_currency=True),
    ),
}
"""The result columns of each game's grid."""

SOURCES: Final = {Game.SEVENEIGHT: "stat_facts", Game.BIGTWO: BIGTWO_SEATS,
                  Game.RUMMOLI: "stat_facts"}
"""The table (or subquery) each game's statistics are summed over (alias ``x``)."""

SPLITS: Final = {
    Game.SEVENEIGHT: {"position": "x.position", "stakes": "x.stakes", "up_rank": "x.up_rank"},
    Game.BIGTWO: {"scoring": level_sql(Game.BIGTWO),
                  "players": "CAST(x.num_players AS VARCHAR)"},
    Game.RUMMOLI: {"position": "x.position", "stakes": "x.stakes",
                   "ante": level_sql(Game.RUMMOLI)},
}
"""What each game's grid can be split by (a whitelist: the expressions go into SQL)."""


def stats_of(game: Game | str) -> tuple[Stat, ...]:
    """The statistics of ``game`` (ValueError for a game that has none yet)."""
    name = game.value if isinstance(game, Game) else game
    try:
        return STATS[Game(name)]
    except (KeyError, ValueError):
        raise ValueError(f"no statistics for game {name!r} (expected one of "
                         f"{', '.join(g.value for g in STATS)})") from None


def stat_columns(game: Game | str) -> tuple[str, ...]:
    """The count and opportunities columns of ``game``'s statistics, in grid order:
    ``vpip, vpip_opps, pfr, pfr_opps, ...``."""
    return tuple(column for stat in stats_of(game) for column in (stat.name, stat.opps_column))
