"""The ``seat_facts`` and ``hand_facts`` rows of hands, built from their own Arrow tables.

The one definition of the seat and hand facts (:func:`fact_tables`): the ingest's worker
processes run it on every batch they hand back, so the single writer only filters the
rows by its de-duplication and inserts them; the migrations' backfills and the bulk
writers run it over the stored tables, read as Arrow in chunks
(:mod:`analytics.warehouse.sql.facts`).  tests/fact_oracle.py writes the same definition as
SQL joins over the stored tables, the oracle the tests check it against row for row: each
step below names the SQL expression it computes, with DuckDB's semantics (``//``
truncates, ``%`` takes the dividend's sign, ``||`` with a NULL is NULL, ``string_agg``
skips NULLs and ``list`` keeps them).  Everything is vectorised: numpy over the rows,
pyarrow for the strings, no Python per hand.  What the shared evaluator and the Big Two
engine derive (the dealt hands' categories, the plays by kind, the passes) is here too
(:func:`dealt_categories`, :func:`play_kinds`, :func:`pass_counts`).

The facts hold one row per hand and one per seat.  Rows whose joins would not be one to
one (a hand id twice, a seat twice, two showdown or all-in rows for one seat), which the
engine never writes and the loader never stores, raise :class:`FactRowsError` naming the
hand: there is no second way to fill them.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from analytics.evaluator import EvaluationError, bigtwo_combo
from analytics.evaluator.bigtwo import BigTwoMaskKeys
from analytics.evaluator.categories import (
    card_byte_codes,
    poker_labels,
    seveneight_labels,
)
from analytics.evaluator.seveneight import (
    SevenEightCategory,
    seveneight_category_of,
    seveneight_rank_batch,
)
from analytics.rules.base import RuleError
from analytics.stats.bigtwo import game_passes
from analytics.warehouse.pipeline.grouping import (
    Bools,
    HandIndex,
    Ints,
    as_nullable,
    counts_where,
    first_repeat,
    first_where,
    hand_of_key,
    int_values,
    joined_strings,
    positions_in,
    runs_of,
    seat_keys,
    seat_of_key,
    single_chunk,
    valid_rows,
    values_at,
)
from analytics.warehouse.pipeline.rows import PASS_TABLE
from analytics.warehouse.sql.views import (
    GAMING_DAY_STARTS,
    NO_COMBINATION,
    PLAY_KIND_COLUMNS,
    SPLIT_COLUMNS,
    SPLIT_POTS,
)
from parsers.build import rules_of
from parsers.caching import BoundedCache
from parsers.cards import CARD_OF_TEXT, CODE_OF_TEXT, Card
from parsers.fields import KNOB_FIELDS
from parsers.model import Action, GameRules, Verb
from parsers.rule_options import BigTwoRules, Game

__all__ = ["FACT_TABLES", "PASS_COLUMNS", "FactRowsError", "award_part", "bigtwo_rules",
           "dealt_categories", "fact_tables", "pass_counts", "play_kind", "play_kinds",
           "rules_from_json", "with_dealt_categories"]

FACT_TABLES: Final = ("seat_facts", "hand_facts")
"""The tables :func:`fact_tables` builds, as the warehouse names them."""


class FactRowsError(ValueError):
    """Rows the fact tables cannot hold one row per hand and per seat of (a hand id twice,
    a seat twice, two showdown or all-in rows for one seat): never written by the engine
    nor stored by the loader, so a bug in handlab or a bulk write gone wrong.  The message
    names the hand (its file, line and position) and the table."""


_I16 = pa.int16()
_I32 = pa.int32()
_I64 = pa.int64()
_STR = pa.string()



def fact_tables(tables: Mapping[str, pa.Table], names: tuple[str, ...] = FACT_TABLES
                ) -> dict[str, pa.Table]:
    """The fact tables ``names`` (of :data:`FACT_TABLES`) of hands' tables (by warehouse
    name; rows in any order, each table's rows of the hands in ``hands``): ``seat_facts``
    (with the dealt categories: :func:`with_dealt_categories`, and Big Two's passes: a
    batch's own, its :data:`~analytics.warehouse.pipeline.rows.PASS_TABLE`, or else
    :func:`pass_counts`) ordered by game, day, hand and seat, and ``hand_facts`` ordered by
    game, day and hand.  ``hand_facts`` reads only ``hands`` and ``seats``.

    Raises :class:`FactRowsError` on rows with a hand id twice, a seat twice, or two
    showdown or all-in rows for one seat."""
    hands = tables["hands"]
    index = HandIndex(int_values(hands["hand_id"], fill=0))
    repeated = index.first_repeat()
    if repeated >= 0:
        raise _fault(hands, repeated, "its hand id is in the hands twice")
    labels = _hand_labels(hands)
    order = _hand_order(hands, labels.day)
    built: dict[str, pa.Table] = {}
    if "seat_facts" in names:
        seats = with_dealt_categories(_seat_rows(tables, index, labels, order))
        passes = _passes(tables, index, seats)
        if passes is not None:
            for name in passes.column_names:
                seats = seats.append_column(name, passes[name])
        built["seat_facts"] = seats
    if "hand_facts" in names:
        players = _hand_players(tables["seats"], index, hands.num_rows)
        built["hand_facts"] = _hand_facts(hands, labels, order, players)
    return built


def _fault(hands: pa.Table, at: int, problem: str) -> FactRowsError:
    """The error for the hand at position ``at`` of ``hands``: where it is, and what."""
    def value(name: str) -> object:
        return hands[name][at].as_py() if name in hands.column_names else "?"
    return FactRowsError(
        f"{value('source_file')}:{value('source_line')}: hand {value('source_index')} "
        f"(id {value('hand_id')}): {problem}; the fact tables hold one row per hand and per "
        "seat (the engine writes no such rows: a bug in handlab, or rows written in bulk "
        "without the ingest)")





@dataclass(frozen=True, slots=True)
class _HandLabels:
    """Per hand: views.STAKES, views.SESSION and views.DAY."""

    stakes: pa.Array
    session: pa.Array
    day: pa.Array


def _hand_labels(hands: pa.Table) -> _HandLabels:
    game = hands["game"]
    variant = hands["variant"]
    # STAKES: CASE bigtwo 'points' / small_bet set: variant small/big / else variant min m,
    # then the currency.
    bets = pc.binary_join_element_wise(
        variant, pc.binary_join_element_wise(pc.cast(hands["small_bet"], _STR),
                                             pc.cast(hands["big_bet"], _STR), "/"), " ")
    minimum = pc.binary_join_element_wise(
        variant, pc.cast(pc.fill_null(hands["min_bet"], 1), _STR), " min ")
    sizes = pc.if_else(pc.is_valid(hands["small_bet"]), bets, minimum)
    # || coalesce(' ' || nullif(currency, ''), '')
    currency = hands["currency"]
    named = pc.not_equal(pc.fill_null(currency, ""), "")  # never null
    sizes = pc.if_else(named, pc.binary_join_element_wise(sizes, currency, " "), sizes)
    stakes = pc.if_else(pc.fill_null(pc.equal(game, "bigtwo"), False), "points", sizes)
    # SESSION: coalesce(game_id, table_name || ' ' || GAMING_DAY, table_name, source_file).
    table_day = pc.binary_join_element_wise(hands["table_name"],
                                            pc.cast(_gaming_day(hands), _STR), " ")
    session = pc.coalesce(hands["game_id"], table_day, hands["table_name"],
                          hands["source_file"])
    # DAY: coalesce(played_on, CAST(loaded_at AS DATE)) (the timestamp's floor day).
    loaded = pc.cast(pc.floor_temporal(hands["loaded_at"], unit="day"), pa.date32())
    day = pc.coalesce(hands["played_on"], loaded)
    return _HandLabels(single_chunk(stakes), single_chunk(session), single_chunk(day))


def _gaming_day(hands: pa.Table) -> pa.ChunkedArray:
    """views.GAMING_DAY: ``played_on``, the day before for a hand played before 6:00."""
    early = pc.fill_null(pc.less(hands["played_time"], _GAMING_DAY_TIME), False)
    days = pc.cast(hands["played_on"], pa.int32())
    before = pc.cast(pc.subtract(days, pa.scalar(1, pa.int32())), pa.date32())
    return pc.if_else(early, before, hands["played_on"])


_GAMING_DAY_TIME: Final = pa.scalar(dt.time.fromisoformat(GAMING_DAY_STARTS), pa.time64("us"))


def _hand_order(hands: pa.Table, day: pa.Array) -> Ints:
    """Hand positions ordered by game, day, hand id (nulls last, as DuckDB sorts)."""
    keys = pa.table({"game": hands["game"], "day": day, "hand_id": hands["hand_id"]})
    return np.asarray(pc.sort_indices(keys, sort_keys=[
        ("game", "ascending"), ("day", "ascending"), ("hand_id", "ascending")]).to_numpy(),
        dtype=np.int64)


def _hand_facts(hands: pa.Table, labels: _HandLabels, order: Ints, players: pa.Array
                ) -> pa.Table:
    """The oracle's HANDS over the hands."""
    take = pa.array(order)
    return pa.table({
        "hand_id": hands["hand_id"].take(take), "game": hands["game"].take(take),
        "variant": hands["variant"].take(take), "rules": hands["rules"].take(take),
        "stakes": labels.stakes.take(take), "session": labels.session.take(take),
        "game_id": hands["game_id"].take(take), "day": labels.day.take(take),
        "num_players": hands["num_players"].take(take), "players": players.take(take),
    })


def _hand_players(seats: pa.Table, index: HandIndex, hands: int) -> pa.Array:
    """The oracle's HANDS' ``players`` per hand position: coalesce(list(player ORDER BY seat),
    []) over the hand's seats (NULL seats last, as DuckDB orders them)."""
    hand_at, in_batch = index.positions(seats["hand_id"])
    seat = int_values(seats["seat"], fill=np.iinfo(np.int64).max)
    kept = np.flatnonzero(in_batch)
    order = kept[np.lexsort((seat[kept], hand_at[kept]))]
    counts = np.bincount(hand_at[order], minlength=hands)
    offsets = pa.array(np.concatenate(([0], np.cumsum(counts))).astype(np.int32), _I32)
    return pa.ListArray.from_arrays(offsets, single_chunk(seats["player"]).take(pa.array(order)))


def _seat_rows(tables: Mapping[str, pa.Table], index: HandIndex, labels: _HandLabels,
               hand_order: Ints) -> pa.Table:
    """The oracle's SEATS over the hands (tests/fact_oracle.py)."""
    hands, seats = tables["hands"], tables["seats"]
    hand_at, in_batch = index.positions(seats["hand_id"])
    kept = np.flatnonzero(in_batch & valid_rows(seats["seat"]))
    seat = int_values(seats["seat"], fill=0)[kept]
    hand_at = hand_at[kept]
    keys = seat_keys(hand_at, seat)
    # ORDER BY h.game, day, s.hand_id, s.seat: the hand's rank, then the seat.
    rank = np.empty(len(hand_order), np.int64)
    rank[hand_order] = np.arange(len(hand_order))
    ranked = seat_keys(rank[hand_at], seat)
    order = np.argsort(ranked, kind="stable")
    kept, seat, hand_at, keys = kept[order], seat[order], hand_at[order], keys[order]
    # A rank is a hand's: two equal neighbours are one seat twice.
    twice = first_repeat(ranked[order])
    if twice >= 0:
        raise _fault(hands, int(hand_at[twice]), f"seat {seat[twice]} is in seats twice")
    rows = pa.array(kept)
    hand_rows = pa.array(hand_at)
    columns: dict[str, pa.Array | pa.ChunkedArray] = {"hand_id": seats["hand_id"].take(rows)}
    for name in ("game", "variant", "rules"):
        columns[name] = hands[name].take(hand_rows)
    columns["stakes"] = labels.stakes.take(hand_rows)
    columns["session"] = labels.session.take(hand_rows)
    for name in ("game_id", "round"):
        columns[name] = hands[name].take(hand_rows)
    columns["day"] = labels.day.take(hand_rows)
    for name in ("played_time", "source_index", "num_players", "dealer"):
        columns[name] = hands[name].take(hand_rows)
    columns["seat"] = seats["seat"].take(rows)
    columns["position"] = _positions(hands, hand_at, seat)
    for name in ("player", "net", "winner", "place"):
        columns[name] = seats[name].take(rows)
    columns.update(_acts(tables["actions"], index).of_seats(keys))
    shown = _joined(tables, "showdowns", "player", index, keys, ("cards", "category"))
    allin = _joined(tables, "allin_results", "seat", index, keys,
                    ("expected_net", "actual_net", "luck", "std_error"))
    columns["shown_size"] = _halves(shown["cards"])
    columns["shown_category"] = shown["category"]
    columns["all_in"] = allin[_MATCHED]
    for name in ("expected_net", "actual_net", "luck", "std_error"):
        columns["allin_" + name] = allin[name]
    columns["dealt_size"] = _halves(columns["dealt"])
    columns.update(_won(tables["awards"], hands, index, keys))
    return pa.table(columns)


def with_dealt_categories(seats: pa.Table) -> pa.Table:
    """``seats`` (the seat rows :func:`fact_tables` builds) with the dealt hands'
    categories (:func:`dealt_categories`) and the Big Two plays by kind
    (:func:`play_kinds`) appended.

    The workers compute them (:func:`fact_tables`), so the writer needs no evaluator: the
    poker kernel runs on the calling thread (``parallel=False``), never on numba's OpenMP
    pool, which GNU OpenMP forbids in a worker forked from a process that has used it."""
    categories = _seveneight_dealt_categories(seats)
    derived = [categories]
    if categories is None:
        # The Big Two plays by kind too (none in a batch of 7 & 8 seats: the insert leaves
        # the columns NULL).
        derived = [dealt_categories(seats.select(["game", "dealt"])), play_kinds(seats)]
    for table in derived:
        if table is not None:
            for name in table.column_names:
                seats = seats.append_column(name, table[name])
    return seats


_SEVENEIGHT_LABELS: Final = pa.array([category.label for category in SevenEightCategory],
                                     _STR)
_TWO_CARDS, _THREE_CARDS = 4, 6  # bytes of a dealt text of two, three cards


def _seveneight_dealt_categories(seats: pa.Table) -> pa.Table | None:
    """:func:`dealt_categories` of seat rows that are all 7 & 8
    seats dealt two or three known cards (or none: NULL), read from the dealt column's
    buffer with one evaluator call per size and no Python object per seat; None for any
    other rows (the general function then labels them).

    A 7 & 8 seat is labelled when its dealt text is all cards: the first two
    (``dealt_two_category``) and, with three, all three (``dealt_three_category``)."""
    game, dealt = single_chunk(seats["game"]), single_chunk(seats["dealt"])
    if not pa.types.is_string(dealt.type):  # the buffer read below is int32 offsets'
        return None
    if game.null_count or not pc.all(pc.equal(game, "seveneight")).as_py():
        return None
    valid = valid_rows(dealt)
    rows = np.flatnonzero(valid)
    lengths = int_values(pc.binary_length(dealt), fill=0)[rows]
    three = lengths == _THREE_CARDS
    if not ((lengths == _TWO_CARDS) | three).all():
        return None
    offsets = np.frombuffer(dealt.buffers()[1], np.int32)[dealt.offset:]
    data = dealt.buffers()[2]
    text = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    # Each dealt text's six bytes (a two-card text's last two are read, then not used).
    at = offsets[rows].astype(np.int64)[:, None] + np.arange(_THREE_CARDS)
    raw = text[np.minimum(at, len(text) - 1)].reshape(len(rows), 3, 2)
    two_codes, two_cards = card_byte_codes(raw[:, :2])
    three_codes, three_cards = card_byte_codes(raw[three])
    if not (two_cards.all() and three_cards.all()):
        return None  # not all cards (``??``, other text): the general function's work
    two_category = np.full(len(valid), -1, np.int64)
    three_category = np.full(len(valid), -1, np.int64)
    if len(rows):
        two_category[rows] = seveneight_category_of(
            seveneight_rank_batch(np.ascontiguousarray(two_codes)))
    if three.any():
        three_category[rows[three]] = seveneight_category_of(
            seveneight_rank_batch(np.ascontiguousarray(three_codes)))
    return pa.table({
        "dealt_two_category": _SEVENEIGHT_LABELS.take(as_nullable(two_category)),
        "dealt_three_category": _SEVENEIGHT_LABELS.take(as_nullable(three_category)),
        "dealt_poker_category": pa.nulls(len(valid), _STR)})


def _positions(hands: pa.Table, hand_at: Ints, seat: Ints) -> pa.Array:
    """CASE WHEN game = 'rummoli' AND dealer IS NOT NULL
    THEN ((seat - dealer - 1 + num_players) % num_players) + 1 ELSE seat END."""
    dealer_column = hands["dealer"].take(pa.array(hand_at))
    rummoli = pc.fill_null(pc.equal(hands["game"].take(pa.array(hand_at)), "rummoli"),
                           False).to_numpy(zero_copy_only=False)
    turned = rummoli & valid_rows(dealer_column)
    dealer = int_values(dealer_column, fill=0)
    players = int_values(hands["num_players"].take(pa.array(hand_at)), fill=1)
    players = np.where(turned & (players != 0), players, 1)
    position = np.where(turned, np.fmod(seat - dealer - 1 + players, players) + 1, seat)
    return pa.array(position.astype(np.int16))


_MATCHED: Final = "_matched"


@dataclass(frozen=True, slots=True)
class _Acts:
    """The oracle's SEATS' ``acts``: per (hand, seat) group of the dh/up/pl actions, sorted by
    key: ``up``, ``up_rank``, ``cards_left`` and ``dealt``, and the group's ``pl`` cards
    (``play_counts`` of them from ``play_starts`` in ``play_cards``)."""

    keys: Ints
    up: Bools
    up_rank: pa.Array
    cards_left: Ints
    has_cards_left: Bools
    dealt: pa.Array
    play_cards: pa.Array
    play_starts: Ints
    play_counts: Ints

    def of_seats(self, keys: Ints) -> dict[str, pa.Array]:
        """The columns of seats ``keys``: a seat without such actions has ``up`` false,
        no ``plays`` (an empty list) and NULL for the others (the SQL's LEFT JOIN)."""
        at = positions_in(self.keys, keys)
        taken = as_nullable(at)
        counts = values_at(self.play_counts, at, 0)
        offsets = _offsets(counts)
        rows = np.arange(int(offsets[-1]), dtype=np.int64) + np.repeat(
            values_at(self.play_starts, at, 0) - offsets[:-1], counts)
        return {
            "up": pa.array(values_at(self.up, at, False)),
            "up_rank": self.up_rank.take(taken),
            "cards_left": pa.array(values_at(self.cards_left, at, 0),
                                   mask=~values_at(self.has_cards_left, at, False)),
            "dealt": self.dealt.take(taken),
            # coalesce(plays, []): a seat's list, empty when it played nothing.
            "plays": pa.ListArray.from_arrays(pa.array(offsets, _I32),
                                              self.play_cards.take(pa.array(rows))),
        }


_ACT_VERBS: Final = pa.array(["dh", "up", "pl"])
_DH, _UP, _PL = range(3)


def _acts(actions: pa.Table, index: HandIndex) -> _Acts:
    # The verbs the SQL filters on as codes (-1: any other, or NULL), in one pass.
    code = int_values(pc.index_in(actions["verb"], value_set=_ACT_VERBS), fill=-1)
    wanted = np.flatnonzero(code >= 0)
    code = code[wanted]
    dh = code == _DH
    # GROUP BY hand_id, CASE WHEN verb = 'dh' THEN target ELSE actor END (a NULL seat
    # groups apart and matches no seat: dropped here).
    seat = np.where(dh, int_values(actions["target"], fill=0)[wanted],
                    int_values(actions["actor"], fill=0)[wanted])
    has_seat = np.where(dh, valid_rows(actions["target"])[wanted],
                        valid_rows(actions["actor"])[wanted])
    hand_at, in_batch = index.positions(actions["hand_id"])
    keys = seat_keys(hand_at[wanted], seat)
    seq = int_values(actions["seq"], fill=np.iinfo(np.int64).max)[wanted]
    # Grouped by key, ORDER BY seq within a group (NULL seqs last, as DuckDB orders them).
    kept = np.flatnonzero(in_batch[wanted] & has_seat)
    order = kept[np.lexsort((seq[kept], keys[kept]))]
    keys, code = keys[order], code[order]
    # Only the cards are read as Arrow: the rows kept, in group order.
    cards = single_chunk(actions["cards"]).take(pa.array(wanted[order]))
    is_dh, is_up, is_pl = code == _DH, code == _UP, code == _PL
    starts, group = runs_of(keys)
    groups = len(starts)
    has_cards = valid_rows(cards)
    # up: count(*) FILTER (verb = 'up') > 0.
    up = counts_where(group, is_up, groups) > 0
    # up_rank: any_value(substr(cards, 1, 1)) FILTER (verb = 'up'): the first non-null.
    first = first_where(group, is_up & has_cards, groups)
    up_rank = pc.utf8_slice_codeunits(cards.take(as_nullable(first)), 0, 1)
    # cards_left: sum of +len // 2 (dh) and -(len // 2) (pl); NULL without a non-null term.
    halves = int_values(pc.utf8_length(cards), fill=0) // 2
    counted = (is_dh | is_pl) & has_cards
    terms = np.where(counted, np.where(is_dh, halves, -halves), 0)
    left = _group_sums(group, terms, groups)
    # dealt: string_agg(cards, '' ORDER BY seq) FILTER (verb = 'dh'), NULLs skipped.
    dealt = joined_strings(cards, group, is_dh & has_cards, groups)
    # plays: list(cards ORDER BY seq) FILTER (verb = 'pl'), NULLs kept.
    play_counts = counts_where(group, is_pl, groups)
    return _Acts(keys[starts], up, up_rank, left, counts_where(group, counted, groups) > 0,
                 dealt, cards.filter(pa.array(is_pl)), _offsets(play_counts)[:-1],
                 play_counts)


def _joined(tables: Mapping[str, pa.Table], name: str, seat_name: str, index: HandIndex,
            keys: Ints, names: tuple[str, ...]) -> dict[str, pa.Array]:
    """LEFT JOIN table ``name`` ON hand_id and ``seat_name`` = seat: its ``names`` columns
    per seat key, and ``_matched``; :class:`FactRowsError` when a seat matches two rows."""
    table = tables[name]
    hand_at, in_batch = index.positions(table["hand_id"])
    kept = np.flatnonzero(in_batch & valid_rows(table[seat_name]))
    own = seat_keys(hand_at[kept], int_values(table[seat_name], fill=0)[kept])
    order = np.argsort(own, kind="stable")
    own = own[order]
    twice = first_repeat(own)
    if twice >= 0:
        key = int(own[twice])
        raise _fault(tables["hands"], hand_of_key(key),
                     f"seat {seat_of_key(key)} has two rows in {name}")
    found = _lookup(own, keys)
    rows = pa.array(kept[order]).take(found)
    joined: dict[str, pa.Array] = {column: single_chunk(table[column].take(rows))
                                   for column in names}
    joined[_MATCHED] = pc.is_valid(found)
    return joined


def _won(awards: pa.Table, hands: pa.Table, index: HandIndex, keys: Ints
         ) -> dict[str, pa.Array]:
    """The oracle's WON: a Rummoli seat's awards summed per part (NULL: no award in the part)."""
    hand_at, in_batch = index.positions(awards["hand_id"])
    rummoli = pc.fill_null(pc.equal(hands["game"], "rummoli"), False).to_numpy(
        zero_copy_only=False)
    kept = np.flatnonzero(in_batch & rummoli[hand_at] & valid_rows(awards["player"]))
    own = seat_keys(hand_at[kept], int_values(awards["player"], fill=0)[kept])
    order = np.argsort(own, kind="stable")
    own, kept = own[order], kept[order]
    starts, group = runs_of(own)
    groups = len(starts)
    found = _lookup(own[starts], keys)
    amount_column = awards["amount"].take(pa.array(kept))
    amounts = int_values(amount_column, fill=0)
    has_amount = valid_rows(amount_column)
    part_of = _parts(awards["pot"].take(pa.array(kept)))
    won: dict[str, pa.Array] = {}
    for part, column in SPLIT_COLUMNS.items():
        counted = (part_of == part) & has_amount
        sums = _group_sums(group, np.where(counted, amounts, 0), groups)
        none = counts_where(group, counted, groups) == 0
        won[column] = pa.array(sums, mask=none).take(found)
    return won


# ---- what the shared evaluator and the Big Two engine derive -------------------------


def rules_from_json(game: Game | str, text: str | None) -> GameRules:
    """The rule set of ``game`` from the warehouse's JSON of knobs (missing knobs: defaults)."""
    values: dict[str, Any] = json.loads(text) if text else {}
    game = Game(game)
    known = KNOB_FIELDS[game]
    return rules_of(game, {name: value for name, value in values.items() if name in known})


# A play's kind as the position of its column in views.PLAY_KIND_COLUMNS.
_KIND_CODES: Final = {label: number for number, label in enumerate(PLAY_KIND_COLUMNS)}
_KIND_LABELS: Final = tuple(PLAY_KIND_COLUMNS)
_KINDS: Final = len(_KIND_CODES)
_NO_KIND: Final = _KIND_CODES[NO_COMBINATION]


def bigtwo_rules(knobs: str | None) -> BigTwoRules:
    """The Big Two rule set of the warehouse's JSON of knobs, enums typed (the evaluator
    compares enum members, so ``"sg_hk"`` as plain text would not count 2-6 and A-5 as
    runs); cached: a warehouse holds a handful of rule sets."""
    return _RULE_SETS.get_or_make(knobs, _bigtwo_rules_of)


def _bigtwo_rules_of(knobs: str | None) -> BigTwoRules:
    rules = rules_from_json(Game.BIGTWO, knobs)
    assert isinstance(rules, BigTwoRules)
    return rules


def _mask_keys(knobs: str | None) -> BigTwoMaskKeys:
    return _MASK_KEYS.get_or_make(knobs, lambda text: BigTwoMaskKeys(bigtwo_rules(text)))


_RULE_SETS: Final = BoundedCache[str | None, BigTwoRules](
    "analytics.warehouse.pipeline.fact_rows.rule_sets", 64)
_MASK_KEYS: Final = BoundedCache[str | None, BigTwoMaskKeys](
    "analytics.warehouse.pipeline.fact_rows.mask_keys", 64)
_PLAY_KINDS: Final = BoundedCache[tuple[str | None, str | None], int](
    "analytics.warehouse.pipeline.fact_rows.play_kinds", 65_536)
"""Each distinct (play, rule set) pair's kind: the same few hundred plays come up again and
again."""


def play_kind(cards: str | None, knobs: str | None) -> str:
    """The kind of one Big Two play (``single`` ... ``straight_flush``, the
    :class:`~analytics.evaluator.BigTwoKind` label) under the warehouse's JSON of knobs
    ``knobs``; ``views.NO_COMBINATION`` for cards that make no combination under them.

    Never raises on a stored play: a NULL, an unknown (``??``) or repeated card, or a text
    that is no cards at all counts as no combination too (the engine stores none of them,
    but a page or a migration must not stop at one odd row).
    """
    return _KIND_LABELS[_PLAY_KINDS.get_or_make((cards, knobs), _kind_code)]


def _kind_code(pair: tuple[str | None, str | None]) -> int:
    """:func:`play_kind` of a (cards, knobs) pair as the position of the kind in
    ``views.PLAY_KIND_COLUMNS`` (remembered in :data:`_PLAY_KINDS`).

    A text in the writer's form (every stored play) is read to a card mask and classified
    by the mask (``BigTwoMaskKeys``, a few microseconds; ``bigtwo_combo`` took some twenty,
    a cost every new play paid in every worker); any other text goes to ``bigtwo_combo``,
    which reads the other notations ``parse_cards`` knows, so the kinds are its kinds.
    """
    cards, knobs = pair
    if cards is None:
        return _NO_KIND
    mask = 0
    if not len(cards) & 1:
        code_of = CODE_OF_TEXT  # the writer's texts (format_cards): two characters a card
        for at in range(0, len(cards), 2):
            code = code_of.get(cards[at:at + 2])
            if code is None:
                mask = -1  # another notation, ??, or no card: the evaluator decides
                break
            bit = 1 << code
            if mask & bit:
                return _NO_KIND  # a card twice
            mask |= bit
    else:
        mask = -1
    if mask >= 0:
        kind = _mask_keys(knobs).kind(mask)
        return _NO_KIND if kind is None else _KIND_CODES[kind.label]
    try:
        combo = bigtwo_combo(cards, bigtwo_rules(knobs))
    except EvaluationError:  # unknown or repeated cards, or no cards at all
        return _NO_KIND
    return _NO_KIND if combo is None else _KIND_CODES[combo.kind.label]


# play_kinds classifies every (rule set, text) pair of the batch's dictionaries when there are
# at most this many per play (plus the slack), else only the pairs that occur (np.unique).
_LOOKUP_FACTOR: Final = 4
_LOOKUP_SLACK: Final = 1024


def play_kinds(rows: pa.Table) -> pa.Table | None:
    """The Big Two plays of seat rows (``game``, ``rules``, ``plays``) counted per kind, one
    row each: the columns of ``views.PLAY_KIND_COLUMNS`` (0 where a Big Two seat played
    none of a kind, NULL for the other games); None when no row is a Big Two seat (the
    insert then leaves the columns NULL).

    Each distinct play under each rule set is classified once (:func:`play_kind`): the
    plays and rule sets are dictionary-encoded, and the codes of the distinct pairs counted
    per seat.
    """
    at = _bigtwo_rows(rows)
    if at is None:
        return None
    taken = pa.array(at, type=pa.int64())
    plays = rows["plays"].combine_chunks().take(taken)
    counts = pc.fill_null(pc.list_value_length(plays), 0).to_numpy(zero_copy_only=False)
    owner = np.repeat(np.arange(len(at), dtype=np.int64), counts)
    texts = pc.dictionary_encode(pc.list_flatten(plays))
    knobs = pc.dictionary_encode(rows["rules"].combine_chunks().take(taken))
    text_codes = pc.fill_null(texts.indices, -1).to_numpy(zero_copy_only=False)
    knob_codes = pc.fill_null(knobs.indices, -1).to_numpy(zero_copy_only=False)
    # A pair's number: (rule set + 1) * width + text + 1 (0: a NULL, as dictionary codes -1).
    width = len(texts.dictionary) + 1
    pair = (knob_codes[owner] + 1) * width + text_codes + 1
    text_of = [None, *texts.dictionary.to_pylist()]
    knobs_of = [None, *knobs.dictionary.to_pylist()]
    if len(knobs_of) * width <= _LOOKUP_FACTOR * len(pair) + _LOOKUP_SLACK:
        # Few rule sets (a batch has one or two): every pair's kind, looked up by number.
        # The NULL rule set's row only when a seat has no rules (a Big Two hand always has
        # them): else it would classify every play a second time, under the default rules.
        null_rules = bool((knob_codes < 0).any())
        kinds = [*_PLAY_KINDS.values_of([(text, rules) for number, rules in enumerate(knobs_of)
                                         if number or null_rules for text in text_of],
                                        _kind_code)]
        if not null_rules:  # the NULL rule set's row: no play
            kinds[:0] = [_NO_KIND] * len(text_of)
        kind = np.array(kinds, dtype=np.int64)[pair]
    else:  # many: only the pairs that occur
        pairs, inverse = np.unique(pair, return_inverse=True)
        kind = np.array(_PLAY_KINDS.values_of([(text_of[number % width],
                                                knobs_of[number // width])
                                               for number in pairs.tolist()], _kind_code),
                        dtype=np.int64)[inverse.reshape(-1)]
    per_seat = np.bincount(owner * _KINDS + kind,
                           minlength=len(at) * _KINDS).reshape(len(at), _KINDS)
    columns = {}
    for number, column in enumerate(PLAY_KIND_COLUMNS.values()):
        values = np.zeros(rows.num_rows, dtype=np.int32)
        values[at] = per_seat[:, number]
        mask = np.ones(rows.num_rows, dtype=np.bool_)
        mask[at] = False
        columns[column] = pa.array(values, type=pa.int32(), mask=mask)
    return pa.table(columns)


def _bigtwo_rows(rows: pa.Table) -> npt.NDArray[np.int64] | None:
    """The positions of the Big Two seats among seat rows (``game``); None when there are
    none."""
    game = rows["game"].combine_chunks()
    at = np.flatnonzero(pc.fill_null(pc.equal(game, "bigtwo"), False)
                        .to_numpy(zero_copy_only=False))
    return at if len(at) else None


PASS_COLUMNS: Final = ("passes", "passes_with_play")
"""A Big Two seat's passes and those made holding a play that beats the trick
(:mod:`analytics.stats.bigtwo`; migration 12's columns of ``seat_facts``)."""

_PASS_VERBS: Final = {"dh": Verb.DEAL_HOLE, "pl": Verb.PLAY, "ps": Verb.PASS}


def pass_counts(rows: pa.Table, actions: pa.Table) -> pa.Table | None:
    """The :data:`PASS_COLUMNS` of seat rows (``hand_id``, ``seat``, ``game``, ``rules``,
    ``num_players``), one row each, from their hands' ``actions`` (``hand_id``, ``seq``,
    ``actor``, ``verb``, ``cards``, ``target``; other hands' rows are ignored): each Big
    Two game replayed by the rules engine (:func:`analytics.stats.bigtwo.game_passes`); 0
    for a seat that never passed (an outcome-only game has no actions), NULL for the other
    games and for a game the engine refuses (a stored game never is refused).  None when
    no row is a Big Two seat (the insert then leaves the columns NULL)."""
    at = _bigtwo_rows(rows)
    if at is None:
        return None
    taken = pa.array(at, type=pa.int64())
    hand_ids = rows["hand_id"].combine_chunks().take(taken).to_pylist()
    games = dict(zip(hand_ids, zip(rows["rules"].combine_chunks().take(taken).to_pylist(),
                                   rows["num_players"].combine_chunks().take(taken)
                                   .to_pylist(), strict=True), strict=True))
    keep = pc.and_(pc.is_in(actions["hand_id"], value_set=pa.array(list(games), pa.int64())),
                   pc.is_in(actions["verb"], value_set=pa.array(list(_PASS_VERBS))))
    acts = actions.filter(keep).sort_by([("hand_id", "ascending"), ("seq", "ascending")])
    by_hand: dict[int, list[Action]] = {hand: [] for hand in games}
    # A batch repeats the same singles and pairs and every player's passes: each action
    # made once (a third of the time went to reading cards and making actions).
    made: dict[tuple[int, str, str | None, int | None], Action] = {}
    for hand, actor, verb, cards, target in zip(
            *(acts[name].to_pylist() for name in ("hand_id", "actor", "verb", "cards",
                                                  "target")), strict=True):
        key = (actor, verb, cards, target)
        action = made.get(key)
        if action is None:
            action = made[key] = Action(actor, _PASS_VERBS[verb], _cards(cards), target=target)
        by_hand[hand].append(action)
    counted: dict[int, list[tuple[int, int]] | None] = {}
    for hand, (knobs, players) in games.items():
        try:
            counted[hand] = game_passes(bigtwo_rules(knobs), players, by_hand[hand])
        except RuleError:
            counted[hand] = None
    seats = rows["seat"].combine_chunks().take(taken).to_pylist()
    columns = {}
    for number, column in enumerate(PASS_COLUMNS):
        values: list[int | None] = [None] * rows.num_rows
        for row, hand, seat in zip(at.tolist(), hand_ids, seats, strict=True):
            found = counted[hand]
            if found is not None and 1 <= seat <= len(found):
                values[row] = found[seat - 1][number]
        columns[column] = pa.array(values, type=pa.int32())
    return pa.table(columns)


def _passes(tables: Mapping[str, pa.Table], index: HandIndex, seats: pa.Table
            ) -> pa.Table | None:
    """The :data:`PASS_COLUMNS` of the seat rows ``seats``: from the batch's
    :data:`~analytics.warehouse.pipeline.rows.PASS_TABLE` when it has one (what its replays counted;
    NULL for the seats of the other games), else by :func:`pass_counts` (stored rows, which
    no replay brought).  None when no row is a Big Two seat."""
    counted = tables.get(PASS_TABLE)
    if counted is None:
        return pass_counts(seats, tables["actions"])
    if counted.num_rows == 0:
        return None
    hand_at, _ = index.positions(seats["hand_id"])
    keys = seat_keys(hand_at, int_values(seats["seat"], fill=0))
    joined = _joined(tables, PASS_TABLE, "seat", index, keys, PASS_COLUMNS)
    return pa.table({name: joined[name] for name in PASS_COLUMNS})


def _cards(text: str | None) -> tuple[Card, ...]:
    """The cards of a stored action's text (the writer's two characters a card)."""
    if not text:
        return ()
    card_of = CARD_OF_TEXT
    return tuple([card_of[text[at:at + 2]] for at in range(0, len(text), 2)])


def dealt_categories(rows: pa.Table) -> pa.Table:
    """The dealt hands' categories of seat rows (``game``, ``dealt``), one row each:
    ``dealt_two_category`` and ``dealt_three_category`` (7 & 8: the first two cards, all
    three when three were dealt) and ``dealt_poker_category`` (Rummoli: the best five of the
    hand).  Only hands whose every dealt card is known (no ``??``) are labelled."""
    dealt = rows["dealt"].combine_chunks()
    known = pc.fill_null(pc.invert(pc.match_substring(dealt, "??")), False)
    labels = {name: np.full(rows.num_rows, None, dtype=object) for name in _CATEGORY_COLUMNS}
    at, texts = _texts(rows["game"], dealt, known, "seveneight")
    if len(at):
        labels["dealt_two_category"][at] = seveneight_labels(
            pc.utf8_slice_codeunits(texts, 0, 4))
        three = pc.if_else(pc.equal(pc.utf8_length(texts), 6), texts,
                           pa.scalar(None, pa.string()))
        labels["dealt_three_category"][at] = seveneight_labels(three)
    at, texts = _texts(rows["game"], dealt, known, "rummoli")
    if len(at):
        # On this thread: the ingest's workers and writer must never start numba's pool.
        labels["dealt_poker_category"][at] = poker_labels(texts, parallel=False)
    return pa.table({name: pa.array(column, type=pa.string())
                     for name, column in labels.items()})


_CATEGORY_COLUMNS: Final = ("dealt_two_category", "dealt_three_category",
                            "dealt_poker_category")


def _texts(game: pa.ChunkedArray, dealt: pa.StringArray, known: pa.Array, name: str
           ) -> tuple[npt.NDArray[np.intp], pa.StringArray]:
    """The positions and dealt texts of game ``name``'s seats whose dealt cards are all
    known."""
    mask = pc.and_(pc.equal(game.combine_chunks(), name), known)
    at = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
    return at, dealt.take(pa.array(at, type=pa.int64()))



# ---- small vector helpers ------------------------------------------------------------









def _lookup(sorted_keys: Ints, keys: Ints) -> pa.Array:
    """Position of each of ``keys`` in ``sorted_keys`` (unique), null where absent."""
    if len(sorted_keys) == 0:
        return pa.nulls(len(keys), _I64)
    return as_nullable(positions_in(sorted_keys, keys))




def _offsets(counts: Ints) -> Ints:
    """The n + 1 offsets of lists of ``counts`` items."""
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets



def _group_sums(group: Ints, terms: Ints, groups: int) -> Ints:
    """Exact int64 sums of ``terms`` per group."""
    sums = np.zeros(groups, np.int64)
    np.add.at(sums, group, terms)
    return sums



def _parts(pots: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.object_]:
    """The part (a key of views.SPLIT_COLUMNS) each award pot counts towards."""
    codes = pc.dictionary_encode(single_chunk(pots), null_encoding="encode")
    names: npt.NDArray[np.object_] = np.array(
        [award_part(pot) for pot in codes.dictionary.to_pylist()], dtype=object)
    parts: npt.NDArray[np.object_] = names[codes.indices.to_numpy(zero_copy_only=False)]
    return parts


def award_part(pot: str | None) -> str | None:
    """The award part of a pot (tests/fact_oracle.py's ``split_condition`` in SQL): the pots
    ``views.SPLIT_POTS`` names go to their part, other pots LIKE 'poker_side%' (``_`` is any
    one character) to the poker pot, the rest to the finale; a NULL pot to none (every
    condition is NULL)."""
    if pot is None:
        return None
    if pot in SPLIT_POTS:
        return SPLIT_POTS[pot]
    side = len(pot) >= len("poker_side") and pot.startswith("poker") and pot[6:10] == "side"
    return "poker pot" if side else "finale"




def _halves(cards: pa.Array | pa.ChunkedArray) -> pa.Array:
    """length(cards) // 2 (NULL for NULL)."""
    return pc.cast(pc.divide(pc.utf8_length(single_chunk(cards)), 2), _I16)
