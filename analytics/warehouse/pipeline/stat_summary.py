"""The seats' summaries the statistics of 7 & 8 and Rummoli are counted over.

:func:`seveneight_summary` (each seat's betting) and :func:`rummoli_summary` (each seat's
round: poker phase, widow, laying, net by pot) are their one definition: numpy and Arrow
over a batch's (or the stored) ``hands``, ``seats``, ``actions`` and ``awards``, one row
per seat (how the actions are read: :mod:`analytics.stats.seveneight`,
:mod:`analytics.stats.rummoli`).  The statistics' own counts are SQL over these rows
(:mod:`analytics.stats.definitions`, by :mod:`~analytics.warehouse.pipeline.stat_rows`).
tests/stat_oracle.py writes the same summaries as SQL queries, the oracle the tests check
these against column by column; the steps below name the SQL they compute, with DuckDB's
semantics (``arg_min`` skips a NULL argument, ``any_value`` a NULL value, ``string_agg``
and ``sum`` NULLs; ``instr`` of an empty text is 1).  Made here rather than in SQL: the
queries cost a worker more than reading, replaying and making rows of a 7 & 8 hand.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics.stats.rummoli import PAY_CARD_POTS, PAY_CARDS
from analytics.stats.seveneight import POSITIONS, RANKS
from analytics.warehouse.pipeline.grouping import (
    Bools,
    HandIndex,
    Ints,
    as_nullable,
    counts_where,
    first_where,
    int_values,
    joined_strings,
    positions_in,
    run_starts,
    runs_of,
    seat_keys,
    single_chunk,
    valid_rows,
    values_at,
)
from parsers.rule_options import Game

__all__ = ["rummoli_summary", "seveneight_summary"]

_VERBS: Final = pa.array(["cbr", "cc", "f", "dh", "up", "sm"])
_CBR, _CC, _FOLD, _DH, _UP, _SM = range(6)
_BET_VERBS: Final = pa.array(["cbr", "cc", "f"])
"""The verbs a ``bet`` row has, by code (its first three)."""
_STREETS: Final = pa.array(["round1", "round2", "deal", "third"])
_ROUND1, _ROUND2, _DEAL, _THIRD = range(4)
_POSITION_NAMES: Final = pa.array([None, *POSITIONS])
_BIG_BLIND, _SMALL_BLIND, _EARLY, _LATE, _BUTTON = (
    POSITIONS.index(name) + 1 for name in ("big blind", "small blind", "early", "late", "button"))
_RANK_TEXTS: Final = pa.array(list(RANKS))
_NONE: Final = -1


def seveneight_summary(tables: Mapping[str, pa.Table]) -> pa.Table:
    """One row per seat of the 7 & 8 hands of ``tables`` (``hands``, ``seats``, ``actions``;
    any game's rows, in any order): ``hand_id``, ``seat``, ``position``, ``up_rank``,
    ``big_blind`` and the summary columns, in the order of the hands and their seats."""
    hands = tables["hands"]
    hands = hands.filter(pc.fill_null(pc.equal(hands["game"], Game.SEVENEIGHT.value), False))
    index = HandIndex(int_values(hands["hand_id"], fill=0))
    seats = _Seats(tables["seats"], index, hands.num_rows)
    actions = _Actions(tables["actions"], index, _VERBS, _STREETS)
    columns: dict[str, pa.Array | pa.ChunkedArray] = {
        "hand_id": seats.table["hand_id"].take(seats.rows),
        "seat": seats.table["seat"].take(seats.rows),
        "position": _positions(seats, int_values(hands["num_players"], fill=_NONE)),
    }
    cards = _cards(actions, seats)
    columns["up_rank"] = pc.utf8_slice_codeunits(cards.pop("up_card"), 0, 1)
    # CASE WHEN big > 0 THEN big ELSE coalesce(min_bet, small_bet, 1) END
    fallback = int_values(pc.coalesce(hands["min_bet"], hands["small_bet"],
                                      pa.scalar(1, pa.int64())), fill=1)
    columns["big_blind"] = pa.array(np.where(seats.big > 0, seats.big,
                                             fallback[seats.hand_at]))
    columns.update(_betting(actions, seats, hands.num_rows))
    columns["saw_round2"] = cards.pop("saw_round2")
    columns["showdown"] = cards.pop("showdown")
    columns["won"] = seats.table["won"].take(seats.rows)
    columns["up_rank_value"] = _rank_values(columns["up_rank"])
    columns["down_rank_value"] = _rank_values(pc.utf8_slice_codeunits(cards.pop("down"), 0, 1))
    return pa.table(columns)


class _Seats:
    """``s`` (and 7 & 8's ``big``): the seats of the indexed hands sorted by (hand, seat),
    their ``coalesce(blind, 0)``, their hand's largest blind, what they posted of their
    blind (all of it, or a short stack's all: ``posted``) and their hand's largest post."""

    def __init__(self, table: pa.Table, index: HandIndex, hands: int) -> None:
        hand_at, in_batch = index.positions(table["hand_id"])
        rows = np.flatnonzero(in_batch & valid_rows(table["seat"]))
        seat = int_values(table["seat"], fill=0)[rows]
        keys = seat_keys(hand_at[rows], seat)
        order = np.argsort(keys, kind="stable")
        self.table = table
        self.rows = pa.array(rows[order])
        self.hand_at: Ints = hand_at[rows][order]
        self.seat: Ints = seat[order]
        self.keys: Ints = keys[order]
        self.blind: Ints = int_values(table["blind"], fill=0)[rows][order]
        self.big: Ints = _hand_maxima(self.hand_at, self.blind, hands)
        # least(blind, starting_stack - coalesce(ante, 0)): an unknown stack covers it.
        stack = table["starting_stack"].take(self.rows)
        behind = (int_values(stack, fill=0)
                  - int_values(table["ante"].take(self.rows), fill=0))
        self.posted: Ints = np.where(valid_rows(stack), np.minimum(self.blind, behind),
                                     self.blind)
        self.most_posted: Ints = _hand_maxima(self.hand_at, self.posted, hands)


def _hand_maxima(hand_at: Ints, values: Ints, hands: int) -> Ints:
    """Per row, the largest of ``values`` over the rows of its hand (``hand_at``)."""
    largest = np.full(hands, np.iinfo(np.int64).min, np.int64)
    np.maximum.at(largest, hand_at, values)
    return largest[hand_at]


class _Actions:
    """A batch's actions of one game's hands: codes of their verbs (of ``verbs``) and
    streets (of ``streets``), -1 for any other and for every action of another hand;
    their hand positions, ``seq``, actor, and cards' length in cards."""

    def __init__(self, table: pa.Table, index: HandIndex, verbs: pa.Array,
                 streets: pa.Array) -> None:
        self.table = table
        hand_at, in_batch = index.positions(table["hand_id"])
        self.hand_at: Ints = hand_at
        self.verb: Ints = np.where(in_batch, int_values(
            pc.index_in(table["verb"], value_set=verbs), fill=_NONE), _NONE)
        self.street: Ints = int_values(pc.index_in(table["street"], value_set=streets),
                                       fill=_NONE)
        self.seq: Ints = int_values(table["seq"], fill=np.iinfo(np.int64).max)
        self.actor: Ints = int_values(table["actor"], fill=0)
        self.has_actor: Bools = valid_rows(table["actor"])
        self.halves: Ints = int_values(pc.utf8_length(table["cards"]), fill=0) // 2
        self.has_cards: Bools = valid_rows(table["cards"])


def _by_seat(keys: Ints, rows_keys: Ints, seq: Ints) -> tuple[Ints, Ints, int, Ints]:
    """Rows grouped by their (hand, seat) keys ``rows_keys``, in ``seq`` order within a
    group: the rows' order, each row's group (in that order), the number of groups, and
    the group of each seat of ``keys`` (-1 for none)."""
    order = np.lexsort((seq, rows_keys))
    starts, group = runs_of(rows_keys[order])
    return order, group, len(starts), positions_in(rows_keys[order][starts], keys)


def _raises_before(raised: Bools, partition: Ints) -> Ints:
    """sum(raised) OVER (PARTITION BY partition ORDER BY ...) - raised: the raises before
    each row of its partition (rows sorted by partition, then in order)."""
    raises = raised.astype(np.int64)
    starts, group = runs_of(partition)
    before = np.cumsum(raises) - raises
    return before - before[starts][group]


def _seated(actions: _Actions, rows: Ints, dealing: int) -> tuple[Ints, Ints]:
    """``rows`` and their seats: CASE WHEN verb = 'dh' (code ``dealing``) THEN target ELSE
    actor END, the rows without one left out (a NULL seat matches no seat)."""
    dealt = actions.verb[rows] == dealing
    target = actions.table["target"]
    seat = np.where(dealt, int_values(target, fill=0)[rows], actions.actor[rows])
    has_seat = np.where(dealt, valid_rows(target)[rows], actions.has_actor[rows])
    return rows[has_seat], seat[has_seat]


def _betting(actions: _Actions, seats: _Seats, hands: int) -> dict[str, pa.Array]:
    """The ``bet``, ``raisers``, ``per`` and ``cbets`` parts, per seat of ``seats``."""
    # bet: the cbr, cc and f of rounds 1 and 2, with raises_before = sum(verb = 'cbr') OVER
    # (PARTITION BY hand_id, street ORDER BY seq) - (verb = 'cbr').
    verb, street = actions.verb, actions.street
    rows = np.flatnonzero((verb >= 0) & (verb <= _FOLD)
                          & ((street == _ROUND1) | (street == _ROUND2)))
    round2 = street[rows] == _ROUND2
    partition = actions.hand_at[rows] * 2 + round2
    order = np.lexsort((actions.seq[rows], partition))
    rows, round2, partition = rows[order], round2[order], partition[order]
    bet_verb = verb[rows]
    raises_before = _raises_before(bet_verb == _CBR, partition)
    hand_at, actor, has_actor = actions.hand_at[rows], actions.actor[rows], actions.has_actor[rows]
    # raisers: arg_min / arg_max(actor, seq) FILTER (street = 'round1' AND verb = 'cbr').
    first_raiser = np.full(hands, _NONE, np.int64)
    last_raiser = np.full(hands, _NONE, np.int64)
    raised = np.flatnonzero(~round2 & (bet_verb == _CBR) & has_actor)
    owners = hand_at[raised]
    first = run_starts(owners)
    last = np.append(first[1:], len(owners))[:len(first)] - 1
    first_raiser[owners[first]] = actor[raised[first]]
    last_raiser[owners[last]] = actor[raised[last]]
    # per: bet JOIN s USING (hand_id, seat), grouped by seat, in seq order.
    keys = seat_keys(hand_at, actor)
    seat_at = positions_in(seats.keys, keys)
    kept = np.flatnonzero(has_actor & (seat_at >= 0))
    order, group, groups, at = _by_seat(seats.keys, keys[kept], actions.seq[rows][kept])
    kept = kept[order]
    kind, second, facing = bet_verb[kept], round2[kept], raises_before[kept]
    # A check costs nothing: owed only when his post is below the hand's largest (a big
    # blind all in for less makes the bet his post: docs/rules-seveneight.md, Betting 1).
    owed = seats.posted[seat_at[kept]] < seats.most_posted[seat_at[kept]]
    first_round = ~second

    def count(mask: Bools) -> pa.Array:  # coalesce(count(*) FILTER (WHERE mask), 0)
        return pa.array(values_at(counts_where(group, mask, groups), at, 0))

    def first_of(mask: Bools) -> Ints:  # the bet row of arg_min(..., seq) FILTER (mask)
        return values_at(first_where(group, mask, groups), at, _NONE)

    def verb_at(row: Ints) -> pa.Array:
        return _BET_VERBS.take(as_nullable(np.where(row >= 0, kind[np.maximum(row, 0)], _NONE)
                                           if len(kind) else row))

    columns = {
        "r1_acts": count(first_round),
        "r1_raises": count(first_round & (kind == _CBR)),
        "r1_calls": count(first_round & (kind == _CC) & ((facing > 0) | owed)),
        "r1_folds": count(first_round & (kind == _FOLD)),
        "r2_raises": count(second & (kind == _CBR)),
        "r2_calls": count(second & (kind == _CC) & (facing > 0)),
        "r2_folds": count(second & (kind == _FOLD)),
        "facing_one_raise": verb_at(first_of(first_round & (facing == 1))),
        "facing_two_raises": verb_at(first_of(first_round & (facing == 2))),
        "first_raiser": pa.array(first_raiser[seats.hand_at] == seats.seat),
        "last_raiser": pa.array(last_raiser[seats.hand_at] == seats.seat),
    }
    opening = first_of(second)
    columns["first_r2_verb"] = verb_at(opening)
    opening_facing = np.where(opening >= 0, facing[np.maximum(opening, 0)]
                              if len(facing) else 0, _NONE)
    columns["first_r2_facing"] = pa.array(opening_facing, mask=opening < 0)
    # cbets: the hand's last raiser of round 1 whose first action of round 2 was a bet,
    # facing none; facing_cbet: another seat's first action facing one bet in round 2.
    bettor = (last_raiser[seats.hand_at] == seats.seat) & (opening >= 0) & (opening_facing == 0)
    bettor &= np.where(opening >= 0, kind[np.maximum(opening, 0)] == _CBR
                       if len(kind) else False, False)
    cbettor = np.full(hands, _NONE, np.int64)
    cbettor[seats.hand_at[bettor]] = seats.seat[bettor]
    faced = cbettor[seats.hand_at]
    facing_bet = first_of(second & (facing == 1))
    columns["facing_cbet"] = verb_at(np.where((faced != _NONE) & (faced != seats.seat),
                                              facing_bet, _NONE))
    return columns


def _cards(actions: _Actions, seats: _Seats) -> dict[str, pa.Array]:
    """The ``cards`` part per seat: ``saw_round2``, ``showdown``, the ``up_card`` and the
    ``down`` card (of the two dealt, the one not turned up)."""
    # GROUP BY hand_id, CASE WHEN verb = 'dh' THEN target ELSE actor END
    rows, seat = _seated(actions, np.flatnonzero(actions.verb >= _DH), _DH)
    order, group, groups, at = _by_seat(seats.keys, seat_keys(actions.hand_at[rows], seat),
                                        actions.seq[rows])
    rows = rows[order]
    kind, street = actions.verb[rows], actions.street[rows]
    dealt = kind == _DH
    cards = single_chunk(actions.table["cards"]).take(pa.array(rows))
    has_cards = valid_rows(cards)
    taken = as_nullable(at)
    # string_agg(cards, '' ORDER BY seq) FILTER (verb = 'dh' AND street = 'deal')
    two = joined_strings(cards, group, dealt & (street == _DEAL) & has_cards, groups).take(taken)
    # any_value(cards) FILTER (verb = 'up')
    up_card = cards.take(as_nullable(first_where(group, (kind == _UP) & has_cards, groups))
                         ).take(taken)
    # CASE WHEN substr(two, 1, 2) = up_card THEN substr(two, 3, 2) ELSE substr(two, 1, 2) END
    head = pc.utf8_slice_codeunits(two, 0, 2)
    turned = pc.fill_null(pc.equal(head, up_card), False)
    return {
        "saw_round2": pa.array(values_at(
            counts_where(group, dealt & (street == _THIRD), groups) > 0, at, False)),
        "showdown": pa.array(values_at(counts_where(group, kind == _SM, groups) > 0, at, False)),
        "up_card": up_card,
        "down": pc.if_else(turned, pc.utf8_slice_codeunits(two, 2, 4), head),
    }


def _positions(seats: _Seats, players: Ints) -> pa.Array:
    """``fixed`` and ``middle``: the big blind (the largest blind, when there is one; two
    equal blinds: the second, or heads-up the first, as PHH lists them), the small blind
    (any other blind), the button (the last seat), and the others in seat order, the first
    half early and the rest late."""
    largest = (seats.big > 0) & (seats.blind == seats.big)
    ties = np.flatnonzero(largest)
    first = np.full(len(players), np.iinfo(np.int64).max, np.int64)
    last = np.full(len(players), np.iinfo(np.int64).min, np.int64)
    np.minimum.at(first, seats.hand_at[ties], seats.seat[ties])
    np.maximum.at(last, seats.hand_at[ties], seats.seat[ties])
    heads_up = players[seats.hand_at] == 2
    big_seat = np.where(heads_up, first[seats.hand_at], last[seats.hand_at])
    fixed = np.where(largest & (seats.seat == big_seat), _BIG_BLIND,
                     np.where(seats.blind > 0, _SMALL_BLIND,
                              np.where(seats.seat == players[seats.hand_at], _BUTTON, 0)))
    free = np.flatnonzero(fixed == 0)
    starts, group = runs_of(seats.hand_at[free])
    rank = np.arange(len(free)) - starts[group] + 1  # row_number() OVER (... ORDER BY seat)
    total = np.bincount(group, minlength=len(starts))[group]
    fixed[free] = np.where(rank <= total // 2, _EARLY, _LATE)
    return _POSITION_NAMES.take(pa.array(fixed))


def _rank_values(first: pa.Array | pa.ChunkedArray) -> pa.Array:
    """instr(RANKS, x) of one-character texts ``x``: the rank's place from 1, 0 for no rank,
    1 for an empty text, NULL for NULL."""
    place = int_values(pc.index_in(first, value_set=_RANK_TEXTS), fill=_NONE) + 1
    empty = int_values(pc.utf8_length(first), fill=1) == 0
    return pa.array(np.where(empty, 1, place), mask=~valid_rows(first))


# -- Rummoli ----------------------------------------------------------------------------

_RUMMOLI_VERBS: Final = pa.array(["cbr", "cc", "f", "pl", "dh", "sm", "xw", "pw", "ab", "ap",
                                  "aw", "dw"])
(_R_CBR, _R_CC, _R_FOLD, _R_PL, _R_DH, _R_SM, _R_XW, _R_PW, _R_AB, _R_AP, _R_AW,
 _R_DW) = range(12)
_RUMMOLI_STREETS: Final = pa.array(["poker", "rummoli"])
_POKER, _LAYING = range(2)
_PAY_CARD_TEXTS: Final = pa.array(list(PAY_CARDS))
# The award parts the summary sums (besides every award, ``awarded``), by pot.
_POKER_WON, _RUMMOLI_WON, _AUCTION, _PAYMENTS, _IMPASSE, _PAY_WON = range(6)


def rummoli_summary(tables: Mapping[str, pa.Table]) -> pa.Table:
    """One row per seat of the Rummoli rounds of ``tables`` (``hands``, ``seats``,
    ``actions``, ``awards``; any game's rows, in any order): ``hand_id``, ``seat``,
    ``position`` and the round's summary (:mod:`analytics.stats.rummoli`)."""
    hands = tables["hands"]
    hands = hands.filter(pc.fill_null(pc.equal(hands["game"], Game.RUMMOLI.value), False))
    index = HandIndex(int_values(hands["hand_id"], fill=0))
    seats = _Seats(tables["seats"], index, hands.num_rows)
    hand_at, keys = seats.hand_at, seats.keys
    actions = _Actions(tables["actions"], index, _RUMMOLI_VERBS, _RUMMOLI_STREETS)
    columns: dict[str, pa.Array | pa.ChunkedArray] = {
        "hand_id": seats.table["hand_id"].take(seats.rows),
        "seat": seats.table["seat"].take(seats.rows),
        "position": _rummoli_positions(hands, hand_at, seats.seat)}
    acts = _rummoli_acts(actions, keys)
    laying = pc.is_null(hands["finale_pot"]).to_numpy(zero_copy_only=False)[hand_at]
    columns["dealt"] = pa.array(acts.pop("dealt"))
    columns["laying"] = pa.array(laying)
    columns.update(_rummoli_bets(actions, keys))
    won = _rummoli_won(tables["awards"], index, keys)
    columns["showdown"] = pa.array(acts.pop("showdown"))
    columns["poker_won"] = pa.array(won[_POKER_WON])
    for name in ("exchanged", "widow_choice", "bid", "asked", "auctions_won", "winning_bids"):
        columns[name] = pa.array(acts[name])
    columns["auction_net"] = pa.array(won[_AUCTION])
    columns.update(_rummoli_lays(actions, keys))
    widow = _widow_cards(actions, hands.num_rows)[hand_at]
    took_widow = acts["exchanged"] + acts["auctions_won"] > 0
    columns["cards_left"] = pa.array(np.where(took_widow, widow, acts["dealt_cards"])
                                     - acts["laid_cards"])
    columns["chips_paid"] = pa.array(won["chips_paid"])
    columns["rummoli_won"] = pa.array(won[_RUMMOLI_WON])
    columns.update(_pot_nets(hands, laying, seats, won))
    return pa.table(columns)


def _rummoli_bets(actions: _Actions, keys: Ints) -> dict[str, pa.Array]:
    """``poker`` and ``bets``: per seat, his raises, his calls facing a raise (a ``cc``
    after a ``cbr`` of the round's poker phase) and all his actions there (``poker_acts``:
    checks and folds too; none when the antes put him all in, or everyone else was)."""
    verb = actions.verb
    rows = np.flatnonzero((verb >= 0) & (verb <= _R_FOLD) & (actions.street == _POKER))
    # sum(verb = 'cbr') OVER (PARTITION BY hand_id ORDER BY seq) - (verb = 'cbr')
    order = np.lexsort((actions.seq[rows], actions.hand_at[rows]))
    rows = rows[order]
    facing = _raises_before(verb[rows] == _R_CBR, actions.hand_at[rows])
    rows, facing = rows[actions.has_actor[rows]], facing[actions.has_actor[rows]]
    seat_rows = seat_keys(actions.hand_at[rows], actions.actor[rows])
    order, group, groups, at = _by_seat(keys, seat_rows, actions.seq[rows])
    kind, facing = verb[rows][order], facing[order]
    return {"raises": pa.array(values_at(counts_where(group, kind == _R_CBR, groups), at, 0)),
            "calls": pa.array(values_at(counts_where(group, (kind == _R_CC) & (facing > 0),
                                                     groups), at, 0)),
            "poker_acts": pa.array(values_at(counts_where(group, kind >= 0, groups), at, 0))}


def _rummoli_lays(actions: _Actions, keys: Ints) -> dict[str, pa.Array]:
    """``laid`` and ``lays``: per seat, the pay cards he laid and his stops (a card laid
    that the round's next card laid does not follow: not the next rank of its suit)."""
    rows = np.flatnonzero((actions.verb == _R_PL) & (actions.street == _LAYING))
    rows = rows[np.lexsort((actions.seq[rows], actions.hand_at[rows]))]
    cards = single_chunk(actions.table["cards"]).take(pa.array(rows))
    # lead(cards) OVER (PARTITION BY hand_id ORDER BY seq): the next row of the same hand.
    hand_at = actions.hand_at[rows]
    has_next = np.append(hand_at[1:] == hand_at[:-1], False) if len(rows) else hand_at > 0
    valid = valid_rows(cards)
    next_valid = np.append(valid[1:], False) & has_next if len(rows) else valid
    rank = int_values(pc.index_in(pc.utf8_slice_codeunits(cards, 0, 1),
                                  value_set=_RANK_TEXTS), fill=_NONE) + 1
    rank = np.where(int_values(pc.utf8_length(cards), fill=1) == 0, 1, rank)  # instr of ''
    suit = int_values(pc.dictionary_encode(pc.utf8_slice_codeunits(cards, 1, 2)).indices,
                      fill=_NONE)  # equal texts, equal codes
    follows = np.zeros(len(rows), np.bool_)
    if len(rows):
        follows[:-1] = (suit[1:] == suit[:-1]) & (rank[1:] == rank[:-1] + 1)
    stop = next_valid & valid & ~follows
    pay = pc.fill_null(pc.is_in(cards, value_set=_PAY_CARD_TEXTS), False).to_numpy(
        zero_copy_only=False)
    kept = actions.has_actor[rows]
    seat_rows = seat_keys(hand_at, actions.actor[rows])[kept]
    order, group, groups, at = _by_seat(keys, seat_rows, actions.seq[rows][kept])
    return {"pay_cards": pa.array(values_at(counts_where(group, pay[kept][order], groups),
                                            at, 0)),
            "stops": pa.array(values_at(counts_where(group, stop[kept][order], groups), at, 0))}


def _rummoli_acts(actions: _Actions, keys: Ints) -> dict[str, Ints | Bools]:
    """``acts``: per seat (the dealt player of a ``dh``, else the actor), whether he was
    dealt, showed down, bid or was asked in the auction; his widow choices, exchanges,
    auctions won and winning bids; the cards dealt to him and laid by him."""
    verb = actions.verb
    rows, seat = _seated(actions, np.flatnonzero(np.isin(
        verb, (_R_DH, _R_SM, _R_XW, _R_PW, _R_AB, _R_AP, _R_AW, _R_PL))), _R_DH)
    order, group, groups, at = _by_seat(keys, seat_keys(actions.hand_at[rows], seat),
                                        actions.seq[rows])
    rows = rows[order]
    kind = verb[rows]

    def count(mask: Bools) -> Ints:
        return values_at(counts_where(group, mask, groups), at, 0)

    def total(values: Ints, mask: Bools) -> Ints:  # coalesce(sum(...) FILTER (mask), 0)
        sums = np.zeros(groups, np.int64)
        np.add.at(sums, group[mask], values[mask])
        return values_at(sums, at, 0)

    amount = int_values(actions.table["amount"], fill=0)[rows]
    has_amount = valid_rows(actions.table["amount"])[rows]
    halves, has_cards = actions.halves[rows], actions.has_cards[rows]
    return {
        "dealt": count(kind == _R_DH) > 0,
        "showdown": count(kind == _R_SM) > 0,
        "exchanged": count(kind == _R_XW),
        "widow_choice": count((kind == _R_XW) | (kind == _R_PW)),
        "bid": count(kind == _R_AB) > 0,
        "asked": count((kind == _R_AB) | (kind == _R_AP) | (kind == _R_AW)) > 0,
        "auctions_won": count(kind == _R_AW),
        "winning_bids": total(amount, (kind == _R_AW) & has_amount),
        "dealt_cards": total(halves, (kind == _R_DH) & has_cards),
        "laid_cards": total(halves, (kind == _R_PL) & has_cards),
    }


def _widow_cards(actions: _Actions, hands: int) -> Ints:
    """``widow``: per hand, coalesce(sum(length(cards) // 2) FILTER (verb = 'dw'), 0)."""
    rows = np.flatnonzero((actions.verb == _R_DW) & actions.has_cards)
    cards = np.zeros(hands, np.int64)
    np.add.at(cards, actions.hand_at[rows], actions.halves[rows])
    return cards


def _award_part(pot: str | None) -> int:
    """The summary's part of an award of ``pot`` (-1: none but ``awarded``)."""
    if pot is None:
        return _NONE
    if pot == "poker" or pot.startswith("finale") or (
            len(pot) >= 10 and pot.startswith("poker") and pot[6:10] == "side"):
        return _POKER_WON  # 'poker', LIKE 'poker_side%', LIKE 'finale%'
    parts = {"rummoli": _RUMMOLI_WON, "auction": _AUCTION, "payments": _PAYMENTS,
             "impasse": _IMPASSE}
    return parts.get(pot, _PAY_WON if pot in PAY_CARD_POTS else _NONE)


def _rummoli_won(awards: pa.Table, index: HandIndex, keys: Ints) -> dict[object, Ints]:
    """``won``: per seat, the awards by part, ``chips_paid`` (what he paid to payments and
    the impasse) and ``awarded`` (every award), 0 for none."""
    hand_at, in_batch = index.positions(awards["hand_id"])
    rows = np.flatnonzero(in_batch & valid_rows(awards["player"]) & valid_rows(awards["amount"]))
    codes = pc.dictionary_encode(single_chunk(awards["pot"]), null_encoding="encode")
    parts = np.array([_award_part(pot) for pot in codes.dictionary.to_pylist()] or [_NONE],
                     dtype=np.int64)[int_values(codes.indices, fill=0)][rows]
    amount = int_values(awards["amount"], fill=0)[rows]
    at = positions_in(keys, seat_keys(hand_at[rows], int_values(awards["player"], fill=0)[rows]))
    kept = at >= 0
    at, parts, amount = at[kept], parts[kept], amount[kept]

    def total(mask: Bools) -> Ints:
        sums = np.zeros(len(keys), np.int64)
        np.add.at(sums, at[mask], amount[mask])
        return sums

    won: dict[object, Ints] = {part: total(parts == part) for part in range(6)}
    paid = ((parts == _PAYMENTS) | (parts == _IMPASSE)) & (amount < 0)
    won["chips_paid"] = -total(paid)
    won["awarded"] = total(np.ones(len(at), np.bool_))
    return won


def _pot_nets(hands: pa.Table, laying: Bools, seats: _Seats, won: dict[object, Ints]
              ) -> dict[str, pa.Array]:
    """``paid`` and the round's net by pot: his antes (a full ante into each of the nine
    pots while his stack lasts, none in an end-of-game round) and his bets (what he paid
    in, every award less his net, less his antes) against what each pot paid him."""
    ante = _antes(hands)[seats.hand_at]
    stack = seats.table["starting_stack"].take(seats.rows)
    antes = np.where(laying, np.minimum(9 * ante, np.where(
        valid_rows(stack), int_values(stack, fill=0), 9 * ante)), 0)
    net = seats.table["net"].take(seats.rows)
    paid_in = won["awarded"] - int_values(net, fill=0)
    no_net = ~valid_rows(net)
    return {
        "poker_net": pa.array(won[_POKER_WON] - (paid_in - antes) - np.minimum(ante, antes),
                              mask=no_net),
        "pay_cards_net": pa.array(won[_PAY_WON] - np.minimum(7 * ante,
                                                             np.maximum(antes - ante, 0))),
        "rummoli_net": pa.array(won[_RUMMOLI_WON] + won[_IMPASSE]
                                - np.maximum(antes - 8 * ante, 0)),
        "payments_net": pa.array(won[_PAYMENTS]),
    }


def _antes(hands: pa.Table) -> Ints:
    """coalesce(CAST(json_extract(rules, '$.ante') AS BIGINT), 1) of each hand: read once
    per distinct rules text."""
    codes = pc.dictionary_encode(single_chunk(hands["rules"]), null_encoding="encode")
    antes = [_ante(text) for text in codes.dictionary.to_pylist()] or [1]
    return np.array(antes, np.int64)[int_values(codes.indices, fill=0)]


def _ante(text: str | None) -> int:
    ante = json.loads(text).get("ante") if text is not None else None
    return 1 if ante is None else int(ante)


def _rummoli_positions(hands: pa.Table, hand_at: Ints, seat: Ints) -> pa.Array:
    """'dealer' for the dealer, else the seat counted from his left (the seat itself when
    there is no dealer): CAST(((seat - dealer - 1 + num_players) % num_players) + 1 AS
    VARCHAR)."""
    dealer_column = hands["dealer"].take(pa.array(hand_at))
    dealer = int_values(dealer_column, fill=0)
    has_dealer = valid_rows(dealer_column)
    players_column = hands["num_players"].take(pa.array(hand_at))
    players = int_values(players_column, fill=0)
    counted = valid_rows(players_column) & (players != 0)
    turned = np.fmod(seat - dealer - 1 + players, np.where(counted, players, 1)) + 1
    number = np.where(has_dealer, turned, seat)
    texts = pc.cast(pa.array(number), pa.string())
    known = ~has_dealer | counted
    texts = pc.if_else(pa.array(known), texts, pa.nulls(len(seat), pa.string()))
    return pc.if_else(pa.array(has_dealer & (seat == dealer)), "dealer", texts)
