"""Hands and their outcomes turned into column batches, one Arrow table per warehouse table.

A :class:`Batch` collects plain Python lists column by column (list extensions
are the cheapest thing Python can do per value; a hand's own row is one tuple,
transposed at the end) and turns them into Arrow tables with the exact column
types of the schema in one step, so the database receives a few large vectors
per batch instead of millions of rows.
Rejected hands become :class:`RejectRow` records.  Column meanings are in
docs/schema.md.
"""

from __future__ import annotations

import datetime as dt
import json
import operator
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Final, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics.rules.base import Outcome
from analytics.warehouse.identity import ActionColumns, action_columns, hand_id
from analytics.warehouse.pipeline.equities import PendingRows, add_equity_rows, add_pending_rows
from analytics.warehouse.sql.scores import SCORES_SCHEMA, add_score_rows
from parsers.caching import BoundedCache
from parsers.model import RUMMOLI_POTS, HandHistory, Verb
from parsers.rule_options import Game, RummoliRules

__all__ = ["ARROW_SCHEMAS", "PASS_SCHEMA", "PASS_TABLE", "RAW_KEPT_BYTES", "Batch", "FileContext",
           "RejectRow", "kept_raw", "reject_table", "rules_json", "street_of", "without_hands"]


@dataclass(frozen=True, slots=True)
class FileContext:
    """What every row of one source file shares."""

    path: str
    sha256: str
    loaded_at: dt.datetime


@dataclass(frozen=True, slots=True)
class RejectRow:
    """A hand that could not be loaded, with where it is and why."""

    hand_index: int
    line: int | None
    stage: str  # "parse" (the reader) or "rules" (the engine's replay)
    game: str | None
    error: str
    raw: str
    detail: str | None = field(default=None, compare=False)
    """For an internal error (stage ``internal``), the traceback: it goes to the ingest's
    error log, not to the ``rejects`` table."""


_I16 = pa.int16()
_I32 = pa.int32()
_I64 = pa.int64()
_STR = pa.string()
_F64 = pa.float64()
_BOOL = pa.bool_()

ARROW_SCHEMAS: Final[dict[str, pa.Schema]] = {
    "hands": pa.schema([
        ("hand_id", _I64), ("game", _STR), ("variant", _STR), ("rules", _STR),
        ("min_bet", _I64), ("small_bet", _I64), ("big_bet", _I64), ("game_id", _STR),
        ("round", _I32), ("hand_label", _STR), ("table_name", _STR), ("event", _STR),
        ("played_on", pa.date32()), ("played_time", pa.time64("us")), ("time_zone", _STR),
        ("currency", _STR), ("num_players", _I16), ("dealer", _I16), ("winner", _I16),
        ("num_actions", _I32), ("finale_pot", _STR), ("source_file", _STR),
        ("source_sha256", _STR), ("source_line", _I32), ("source_index", _I32),
        ("loaded_at", pa.timestamp("us")),
    ]),
    "seats": pa.schema([
        ("hand_id", _I64), ("game", _STR), ("seat", _I16), ("player", _STR),
        ("starting_stack", _I64), ("ante", _I64), ("blind", _I64), ("finishing_stack", _I64),
        ("net", _I64),
        ("won", _I64), ("pots_won", _I16), ("place", _I16), ("winner", pa.bool_()),
    ]),
    "actions": pa.schema([
        ("hand_id", _I64), ("seq", _I32), ("actor", _I16), ("verb", _STR), ("cards", _STR),
        ("amount", _I64), ("target", _I16), ("pot", _STR), ("street", _STR), ("line", _I32),
        ("comment", _STR),
    ]),
    "showdowns": pa.schema([
        ("hand_id", _I64), ("game", _STR), ("player", _I16), ("cards", _STR), ("category", _STR),
        ("rank", _I64),
    ]),
    "awards": pa.schema([
        ("hand_id", _I64), ("pot", _STR), ("player", _I16), ("amount", _I64),
    ]),
    "board": pa.schema([
        ("hand_id", _I64), ("pot", _STR), ("pot_order", pa.int8()), ("before", _I64),
        ("antes", _I64), ("won_by", _I16), ("amount", _I64), ("after", _I64),
    ]),
    "allin_results": pa.schema([
        ("hand_id", _I64), ("seat", _I16), ("player", _STR), ("contributed", _I64),
        ("refund", _I64), ("equity", _F64), ("expected_won", _F64), ("actual_won", _I64),
        ("expected_net", _F64), ("actual_net", _I64), ("luck", _F64), ("std_error", _F64),
        ("pot", _I64), ("pots", _I16), ("exact", _BOOL), ("deals", _I64),
    ]),
    "rummoli_strength": pa.schema([
        ("hand_id", _I64), ("seat", _I16), ("player", _STR), ("hand_size", _I16),
        ("category", _STR), ("p_best", _F64), ("share", _F64), ("p_win", _F64),
        ("std_error", _F64), ("share_std_error", _F64), ("exact", _BOOL), ("samples", _I64),
        ("realised_share", _F64), ("won_poker_pot", _BOOL),
    ]),
    "bigtwo_features": pa.schema([
        ("hand_id", _I64), ("seat", _I16), ("player", _STR), ("cards", _I16), ("twos", _I16),
        ("aces", _I16), ("has_lead", _BOOL), ("pairs", _I16), ("triples", _I16),
        ("five_card", _I32), ("distinct_five_card_ranks", _I16),
    ]),
    "bigtwo_scores": SCORES_SCHEMA,
}
"""Column names and Arrow types of each table, in the schema's order."""

PASS_TABLE: Final = "bigtwo_passes"
"""The Big Two passes of a batch's seats, as its replays counted them (``Outcome.extra``'s
``passes`` and ``passes_with_play``): not a warehouse table, but the batch's own, from
which its ``seat_facts`` take them (:func:`analytics.warehouse.pipeline.fact_rows.fact_tables`),
so that no game is replayed twice."""
PASS_SCHEMA: Final = pa.schema([("hand_id", _I64), ("seat", _I16), ("passes", _I32),
                                ("passes_with_play", _I32)])

_REJECT_SCHEMA: Final = pa.schema([
    ("sha256", _STR), ("file", _STR), ("hand_index", _I32), ("line", _I32), ("stage", _STR),
    ("game", _STR), ("error", _STR), ("raw", _STR), ("rejected_at", pa.timestamp("us")),
])

# Streets (phases) by verb.  7 & 8's betting verbs are resolved by position (round 1 or 2).
_STREET_BY_VERB: Final = {
    Game.BIGTWO: {Verb.DEAL_HOLE.value: "deal", Verb.PLAY.value: "play", Verb.PASS.value: "play"},
    Game.RUMMOLI: {
        Verb.DEAL_HOLE.value: "deal", Verb.DEAL_WIDOW.value: "deal",
        Verb.EXCHANGE.value: "widow", Verb.PASS_WIDOW.value: "widow",
        Verb.BID.value: "auction", Verb.BID_PASS.value: "auction",
        Verb.AUCTION_WIN.value: "auction", Verb.BET_RAISE.value: "poker",
        Verb.CHECK_CALL.value: "poker", Verb.FOLD.value: "poker",
        Verb.SHOW_MUCK.value: "showdown", Verb.PLAY.value: "rummoli",
        Verb.CLAIM.value: "rummoli", Verb.IMPASSE.value: "rummoli",
    },
}
_BETTING: Final = frozenset({Verb.BET_RAISE.value, Verb.CHECK_CALL.value, Verb.FOLD.value})
_DEAL: Final = Verb.DEAL_HOLE.value
_UP: Final = Verb.TURN_UP.value
_SHOW: Final = Verb.SHOW_MUCK.value


def street_of(game: Game, verbs: tuple[str, ...]) -> list[str]:
    """The street (phase) of each action (given by verb code), for filtering and grouping.

    A label, not a rule check: the engine has already accepted the order.  7 & 8
    deals its third card between the two betting rounds, so a deal after the
    up-cards starts round 2 (``third``); a no-op takes the street before it.
    """
    streets: list[str] = []
    append = streets.append
    current = "deal"
    if game is not Game.SEVENEIGHT:
        by_verb = _STREET_BY_VERB[game]
        try:  # every verb names its street (the usual case): one look-up each, in C
            return list(map(by_verb.__getitem__, verbs))
        except KeyError:  # a verb without a street of its own takes the one before it
            pass
        get = by_verb.get
        for verb in verbs:
            current = get(verb, current)
            append(current)
        return streets
    seen_up = False
    for verb in verbs:
        if verb in _BETTING:
            if current != "round2":
                current = "round2" if current == "third" else "round1"
        elif verb == _DEAL:
            current = "third" if seen_up else "deal"
        elif verb == _UP:
            seen_up = True
            current = "up"
        elif verb == _SHOW:
            current = "showdown"
        append(current)
    return streets


_VERBS: Final = tuple(sorted(str(verb.value) for verb in Verb))
_STREET_NAMES: Final = tuple(sorted({*(street for streets in _STREET_BY_VERB.values()
                                       for street in streets.values()),
                                     "deal", "round1", "round2", "third", "up", "showdown"}))
_VERB_CODE: Final = {verb: code for code, verb in enumerate(_VERBS)}
_STREET_CODE: Final = {street: code for code, street in enumerate(_STREET_NAMES)}
"""The ``verb`` and ``street`` columns are collected as small codes into these names:
tables() makes the text columns with one ``take`` from the names, in C++, instead of
converting a Python string per action."""


def _verb_street_codes(game: Game, verbs: tuple[str, ...]) -> tuple[list[int], list[int]]:
    """The codes of the verbs and of their streets (:func:`street_of`): for a game whose
    verbs each name their street, two look-ups per verb in C; for 7 & 8 (streets by
    position) remembered by the verbs (hands repeat a few verb sequences).

    Not remembered for the other games: their distinct hands (a Rummoli file's 5,000 rounds
    hold some 3,200 verb sequences) mostly missed, and a miss cost the two look-ups plus
    the key's hashing and keeping."""
    street_codes = _STREET_CODE_BY_VERB.get(game)
    if street_codes is not None:
        try:  # every verb names its street (the usual case)
            return (list(map(_VERB_CODE.__getitem__, verbs)),
                    list(map(street_codes.__getitem__, verbs)))
        except KeyError:  # a verb without a street of its own takes the one before it
            pass
    known = _CODES[game]
    codes = known.get(verbs)
    if codes is None:
        codes = (list(map(_VERB_CODE.__getitem__, verbs)),
                 list(map(_STREET_CODE.__getitem__, street_of(game, verbs))))
        if len(known) >= 20_000:
            known.clear()
        known[verbs] = codes
    return codes


_CODES: Final[dict[Game, dict[tuple[str, ...], tuple[list[int], list[int]]]]] = {
    game: {} for game in Game}
_STREET_CODE_BY_VERB: Final = {game: {verb: _STREET_CODE[street] for verb, street in
                                      streets.items()} for game, streets in _STREET_BY_VERB.items()}
"""The street's code of each verb, for the games whose verbs name their street
(:data:`_STREET_BY_VERB`: not 7 & 8)."""


def _names_taken(names: tuple[str, ...], codes: list[object]) -> pa.Array:
    """The string column of ``codes`` into ``names``."""
    return pa.array(names, _STR).take(pa.array(np.array(codes, dtype=np.int8)))


_RULES_JSON: Final = BoundedCache[object, str](
    "analytics.warehouse.pipeline.rows.rules_json", 10_000)


def rules_json(rules: object) -> str:
    """Every knob of the hand's rule set (defaults included), as a JSON object; cached,
    and remembered by the rule set's identity (its own hash is a Python call; the reader
    shares one rule set per set of knobs)."""
    found = _RULES_JSON_BY_ID.get(id(rules))
    if found is not None and found[0] is rules:
        return found[1]
    text = _RULES_JSON.get(rules)
    if text is None:
        values = {}
        if rules is not None:
            for spec in fields(rules):  # type: ignore[arg-type]
                value = getattr(rules, spec.name)
                values[spec.name] = getattr(value, "value", value)
        text = _RULES_JSON.put(rules, json.dumps(values, sort_keys=True))
    _RULES_JSON_BY_ID[id(rules)] = (rules, text)  # held: its id is not reused meanwhile
    return text


_RULES_JSON_BY_ID: Final = BoundedCache[int, tuple[object, str]](
    "analytics.warehouse.pipeline.rows.rules_json_by_id", 10_000)


def _date(hand: HandHistory) -> dt.date | None:
    """``hand.date``, remembered by (year, month, day): hands of a day share it."""
    key = (hand.year, hand.month, hand.day)
    try:
        return _DATES[key]
    except KeyError:
        return _DATES.put(key, hand.date)


_DATES: Final = BoundedCache[tuple[int | None, int | None, int | None], dt.date | None](
    "analytics.warehouse.pipeline.rows.dates", 10_000)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


_HAND_COLUMNS: Final = ARROW_SCHEMAS["hands"].names
_SHOWDOWN_FIELDS: Final = operator.attrgetter("player", "cards", "category", "rank")
_AWARD_FIELDS: Final = operator.attrgetter("pot", "player", "amount")
_POT_ORDER: Final = {pot: order for order, pot in enumerate(RUMMOLI_POTS)}
"""Each Rummoli board pot's place in ``RUMMOLI_POTS`` (the board rows' ``pot_order``)."""
_POT_ORDERS: Final = range(len(RUMMOLI_POTS))
_EMPTY_BOARD: Final = (0,) * len(RUMMOLI_POTS)


def _poker_antes(hand: HandHistory, outcome: Outcome) -> int:
    """The antes a Rummoli round put into its poker pot: the first pot in board order, so
    each player's full ante, or all he paid when he was short of it (RULES.md 1)."""
    if not isinstance(hand.rules, RummoliRules):
        return 0
    paid = outcome.extra.get("antes", ())
    assert isinstance(paid, tuple)
    return sum(min(hand.rules.ante, int(chips)) for chips in paid)


def _player_names(hand: HandHistory, count: int) -> list[str]:
    """``hand.player_name(seat)`` for seats 1..count, looked up once per distinct names."""
    players = hand.players
    key = (players, count)
    names = _NAMES.get(key)
    if names is None:
        names = _NAMES.put(key, [hand.player_name(seat) for seat in range(1, count + 1)])
    return names


_NAMES: Final = BoundedCache[tuple[tuple[str, ...] | None, int], list[str]](
    "analytics.warehouse.pipeline.rows.names", 10_000)

_MADE_BY_TABLES: Final = frozenset({("actions", "hand_id"), ("actions", "seq"),
                                    ("seats", "hand_id")})
"""Columns :meth:`Batch.tables` makes from the hands' ids and row counts (no list per row)."""


_GAME_TEXT: Final = {game: str(game.value) for game in Game}
"""A game's text by member: a dict look-up, not the ``value`` property (a Python call)."""



FINALE_POT: Final = "finale"
"""The pot an end-of-game round plays for (its awards' ``pot``; side pots ``finale_side1``...)."""


def _finale_board(played: str, outcome: Outcome, before: Sequence[int],
                  after: Sequence[int], amounts: list[int], won_by: list[int | None]) -> None:
    """An end-of-game round's board rows: the pots it plays for (``played``: ``all``, or
    one pot's name) are taken by the finale's winner, their chips leaving the board as
    ``amount`` (none put in), rather than as antes below zero with no winner."""
    winner: int | None = None
    largest = 0
    for award in outcome.awards:
        if award.pot == FINALE_POT and (winner is None or award.amount > largest or (
                award.amount == largest and award.player < winner)):
            winner, largest = award.player, award.amount
    orders = range(len(RUMMOLI_POTS)) if played == "all" else (_POT_ORDER[played],)
    for order in orders:
        amounts[order] = before[order] - after[order]
        won_by[order] = winner if amounts[order] else None


@dataclass(slots=True)
class Batch:
    """Columns of the hands of one batch; ``add`` skips a hand already in the batch."""

    context: FileContext
    columns: dict[str, dict[str, list[object]]] = field(init=False)
    ids: set[int] = field(default_factory=set)
    duplicates: Counter[str] = field(default_factory=Counter)
    added: Counter[str] = field(default_factory=Counter)
    # ``hands`` rows as tuples (one append per hand), made columns by tables().
    hand_rows: list[tuple[object, ...]] = field(default_factory=list)
    # Equity work done for the whole batch when the tables are made (one kernel call each).
    pending: PendingRows = field(default_factory=PendingRows)
    # Rows of each hand in ``actions`` and in ``seats`` (every hand has both), in the order of
    # ``hand_rows``: tables() makes their hand_id columns (and ``actions.seq``) with numpy
    # from these, instead of a list holding the hand's id once per row.
    action_counts: list[int] = field(default_factory=list)
    seat_counts: list[int] = field(default_factory=list)
    # The PASS_TABLE's columns.
    pass_rows: dict[str, list[int]] = field(
        default_factory=lambda: {name: [] for name in PASS_SCHEMA.names})

    def __post_init__(self) -> None:
        self.columns = {name: {column: [] for column in schema.names
                               if (name, column) not in _MADE_BY_TABLES}
                        for name, schema in ARROW_SCHEMAS.items() if name != "hands"}

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, hand: HandHistory, outcome: Outcome) -> bool:
        """Add a replayed hand; return False when the batch already holds it."""
        kind = hand.game
        assert kind is not None  # replay() refuses hands without a game
        columns = action_columns(hand.actions)
        key = hand_id(hand, columns)
        game = _GAME_TEXT[kind]
        if key in self.ids:
            self.duplicates[game] += 1
            return False
        self.ids.add(key)
        self.added[game] += 1
        self._add_hand(key, game, hand, outcome, columns)
        names = _player_names(hand, hand.num_players)
        self._add_seats(game, hand, outcome, names)
        self._add_actions(kind, columns, hand.action_lines)
        cols = self.columns
        if outcome.showdown:
            row = cols["showdowns"]
            count = len(outcome.showdown)
            players, cards, categories, ranks = zip(*map(_SHOWDOWN_FIELDS, outcome.showdown),
                                                    strict=True)
            row["hand_id"].extend([key] * count)
            row["game"].extend([game] * count)
            row["player"].extend(players)
            row["cards"].extend(cards)
            row["category"].extend(categories)
            row["rank"].extend(ranks)
        if outcome.awards:
            row = cols["awards"]
            pots, players, amounts = zip(*map(_AWARD_FIELDS, outcome.awards), strict=True)
            row["hand_id"].extend([key] * len(pots))
            row["pot"].extend(pots)
            row["player"].extend(players)
            row["amount"].extend(amounts)
        if kind is Game.RUMMOLI:
            self._add_board(key, hand, outcome)
        elif kind is Game.BIGTWO:
            add_score_rows(cols["bigtwo_scores"], key, hand, outcome, names)
            self._add_passes(key, outcome)
        add_equity_rows(cols, key, hand, outcome, names, self.pending)
        return True

    def _add_hand(self, key: int, game: str, hand: HandHistory, outcome: Outcome,
                  columns: ActionColumns) -> None:
        context = self.context
        # In the order of ARROW_SCHEMAS["hands"].
        self.hand_rows.append((
            key, game, hand.variant, rules_json(hand.rules),
            hand.min_bet, hand.small_bet, hand.big_bet, hand.game_id, hand.round,
            _text(hand.hand), _text(hand.table), hand.event, _date(hand), hand.time,
            hand.time_zone, hand.currency, hand.num_players, hand.dealer, outcome.winner,
            len(columns.actors), hand.finale_pot, context.path, context.sha256, hand.line,
            hand.index, context.loaded_at,
        ))

    def _add_seats(self, game: str, hand: HandHistory, outcome: Outcome,
                   names: list[str]) -> None:
        row = self.columns["seats"]
        count = len(names)
        self.seat_counts.append(count)
        won = [0] * count
        pots_won = [0] * count
        if outcome.awards:
            pots: list[set[str]] = [set() for _ in range(count)]  # not set[str](): slow
            for award in outcome.awards:
                if 1 <= award.player <= count:
                    won[award.player - 1] += award.amount
                    if award.amount > 0:
                        pots[award.player - 1].add(award.pot)
            pots_won = [len(found) for found in pots]
        finishing = outcome.finishing_stacks or hand.finishing_stacks
        seats = range(1, count + 1)
        nets = outcome.nets
        nothing = [None] * count
        row["game"].extend([game] * count)
        row["seat"].extend(seats)
        row["player"].extend(names)
        row["starting_stack"].extend(hand.starting_stacks or nothing)
        row["ante"].extend(hand.antes or nothing)
        row["blind"].extend(hand.blinds_or_straddles or nothing)
        row["finishing_stack"].extend(finishing or nothing)
        row["net"].extend(nets)
        row["won"].extend(won)
        row["pots_won"].extend(pots_won)
        if outcome.finishing_order:
            place: list[int | None] = [None] * count
            for rank, seat in enumerate(outcome.finishing_order, start=1):
                if 1 <= seat <= count:  # a seat named twice keeps its last place
                    place[seat - 1] = rank
            row["place"].extend(place)
        else:
            row["place"].extend(nothing)
        # The engine names the winner where the game has one; none (a Rummoli impasse, a
        # score keeper's line with no player at 0 cards) is a hand nobody won.
        flags = [False] * count
        if outcome.winner is not None and 1 <= outcome.winner <= count:
            flags[outcome.winner - 1] = True
        row["winner"].extend(flags)

    def _add_actions(self, game: Game, columns: ActionColumns,
                     lines: tuple[int, ...] | range) -> None:
        """The hand's action rows; ``lines``: each action's source line (NULL when the hand
        does not know them: :meth:`~parsers.model.HandHistory.action_line`)."""
        row = self.columns["actions"]
        count = len(columns.actors)
        self.action_counts.append(count)
        row["actor"].extend(columns.actors)
        verb_codes, street_codes = _verb_street_codes(game, columns.verbs)
        row["verb"].extend(verb_codes)
        row["cards"].extend(columns.cards)
        row["amount"].extend(columns.amounts)
        row["target"].extend(columns.targets)
        row["pot"].extend(columns.pots)
        row["street"].extend(street_codes)
        row["line"].extend(lines if len(lines) == count else [None] * count)
        row["comment"].extend(columns.comments)

    def _add_passes(self, key: int, outcome: Outcome) -> None:
        """A Big Two game's rows of the :data:`PASS_TABLE`, from its replay's counts."""
        passes = cast("tuple[int, ...]", outcome.extra["passes"])
        row = self.pass_rows
        row["hand_id"].extend([key] * len(passes))
        row["seat"].extend(range(1, len(passes) + 1))
        row["passes"].extend(passes)
        row["passes_with_play"].extend(cast("tuple[int, ...]",
                                            outcome.extra["passes_with_play"]))

    def _add_board(self, key: int, hand: HandHistory, outcome: Outcome) -> None:
        row = self.columns["board"]
        count = len(RUMMOLI_POTS)
        # The replay checked that board_before holds the nine pots; board_after does.
        before = hand.board_before or _EMPTY_BOARD
        after = outcome.board_after
        # Each pot's total and its winner, the awards gone through once: the largest
        # share names the winner, a tie goes to the lower seat.
        amounts = [0] * count
        won_by: list[int | None] = [None] * count
        largest = [0] * count
        for award in outcome.awards:
            order = _POT_ORDER.get(award.pot)
            if order is None:  # auction, payments, impasse, side pots: not board pots
                continue
            amount, player = award.amount, award.player
            winner = won_by[order]
            if winner is None or amount > largest[order] or (
                    amount == largest[order] and player < winner):
                won_by[order], largest[order] = player, amount
            amounts[order] += amount
        if hand.finale_pot is not None and after:
            _finale_board(hand.finale_pot, outcome, before, after, amounts, won_by)
        row["hand_id"].extend([key] * count)
        row["pot"].extend(RUMMOLI_POTS)
        row["pot_order"].extend(_POT_ORDERS)
        row["before"].extend(before)
        if after:
            # Chips put in during the round (the antes, and any payment the rules send there).
            antes = [a + m - b for a, m, b in zip(after, amounts, before, strict=True)]
            # The board's poker pot is its antes: the bets the poker phase adds to it are
            # not board chips (they are in the awards, and a side pot's never reached this
            # row), so the pot takes what it held plus the antes and no more.
            antes[0] = _poker_antes(hand, outcome)
            amounts[0] = before[0] + antes[0] - after[0]
            row["antes"].extend(antes)
            row["after"].extend(after)
        else:
            row["antes"].extend([0] * count)
            row["after"].extend([None] * count)
        row["won_by"].extend(won_by)
        row["amount"].extend(amounts)

    def tables(self) -> dict[str, pa.Table]:
        """The batch as one Arrow table per warehouse table (types as in the schema), and its
        :data:`PASS_TABLE` when it holds Big Two games."""
        add_pending_rows(self.columns, self.pending)
        hands = self.hand_rows
        hand_columns = list(zip(*hands, strict=True)) if hands else [()] * len(_HAND_COLUMNS)
        columns: dict[str, dict[str, object]] = {name: {**table}
                                                 for name, table in self.columns.items()}
        columns["hands"] = dict(zip(_HAND_COLUMNS, hand_columns, strict=True))
        ids = np.array(hand_columns[0], dtype=np.int64)
        columns["actions"].update(_ids_and_seq(ids, self.action_counts))
        columns["seats"]["hand_id"] = np.repeat(ids, self.seat_counts)
        actions = self.columns["actions"]
        columns["actions"]["verb"] = _names_taken(_VERBS, actions["verb"])
        columns["actions"]["street"] = _names_taken(_STREET_NAMES, actions["street"])
        made = {
            name: pa.Table.from_pydict(columns[name], schema=schema)
            for name, schema in ARROW_SCHEMAS.items()
        }
        if self.pass_rows["hand_id"]:  # a batch of Big Two games
            made[PASS_TABLE] = pa.Table.from_pydict(self.pass_rows, schema=PASS_SCHEMA)
        return made


def _ids_and_seq(ids: np.ndarray, counts: list[int]) -> dict[str, np.ndarray]:
    """Each hand's id once per row, and the rows' numbers within their hand (0, 1, ...)."""
    repeats = np.array(counts, dtype=np.int64)
    starts = np.cumsum(repeats) - repeats
    seq = np.arange(int(repeats.sum()), dtype=np.int64) - np.repeat(starts, repeats)
    return {"hand_id": np.repeat(ids, repeats), "seq": seq.astype(np.int32)}


RAW_KEPT_BYTES: Final = 4096
"""The most of a rejected hand's text the ``rejects`` table keeps (its first bytes): enough
for any ordinary hand, and a file that is not a history at all (a file given by mistake,
a hostile upload) is not copied into the database whole."""


def kept_raw(raw: str) -> tuple[str, str | None]:
    """A rejected hand's text as stored: at most its first :data:`RAW_KEPT_BYTES` bytes of
    UTF-8 (cut at a character's start), and a note saying it was cut (None when whole)."""
    if len(raw) * 4 <= RAW_KEPT_BYTES:  # surely short enough: no encoding needed
        return raw, None
    data = raw.encode("utf-8", "surrogatepass")
    if len(data) <= RAW_KEPT_BYTES:
        return raw, None
    kept = data[:RAW_KEPT_BYTES].decode("utf-8", "ignore")
    return kept, (f"the hand's text is {len(data):,} bytes: rejects.raw keeps its first "
                  f"{RAW_KEPT_BYTES:,}")


def without_hands(tables: Mapping[str, pa.Table], ids: pa.Array) -> dict[str, pa.Table]:
    """A batch's ``tables`` without the rows of the hands ``ids`` (a table without a
    ``hand_id`` column kept whole): a batch's duplicates, or its rejected rounds, taken
    out of every table at once."""
    return {name: table.filter(pc.invert(pc.is_in(table["hand_id"], value_set=ids)))
            if "hand_id" in table.column_names else table for name, table in tables.items()}


def first_of_hands(tables: Mapping[str, pa.Table], seen: pa.Array
                   ) -> tuple[dict[str, pa.Table], Counter[str], pa.Array]:
    """A batch's ``tables`` without the hands ``seen`` (the ids of a run's earlier
    batches), those hands counted by game, and ``seen`` with this batch's hands added: how
    a run of batches (a writer's group of files, a lake's range) keeps the first of a hand
    given twice."""
    ids = tables["hands"]["hand_id"]
    repeated: Counter[str] = Counter()
    kept = dict(tables)
    if len(seen):
        again = pc.is_in(ids, value_set=seen)
        if pc.any(again).as_py():
            repeated.update(tables["hands"].filter(again)["game"].to_pylist())
            kept = without_hands(tables, seen)
            ids = kept["hands"]["hand_id"]
    return kept, repeated, pa.concat_arrays([seen, *ids.chunks])


def reject_table(context: FileContext, rejects: list[RejectRow]) -> pa.Table:
    """Rejected hands of one file as an Arrow table for the ``rejects`` table (a hand's
    text cut to :data:`RAW_KEPT_BYTES`, :func:`kept_raw`, the error saying so)."""
    rows = []
    for r in rejects:
        raw, cut = kept_raw(r.raw)
        rows.append({"sha256": context.sha256, "file": context.path,
                     "hand_index": r.hand_index, "line": r.line, "stage": r.stage,
                     "game": r.game, "error": r.error if cut is None else f"{r.error}\n({cut})",
                     "raw": raw, "rejected_at": context.loaded_at})
    return pa.Table.from_pylist(rows, schema=_REJECT_SCHEMA)
