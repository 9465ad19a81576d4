"""Equities computed on ingest: the rows of ``allin_results``, ``rummoli_strength`` and
``bigtwo_features`` for one replayed hand (in the worker, beside its other rows).

* 7 & 8: :func:`analytics.equity.allin_adjusted` for hands all in with cards to
  come (the others are turned down by a cheap scan of the actions);
* Rummoli: :func:`analytics.equity.rummoli_round_strengths` with
  :data:`RUMMOLI_INGEST_SAMPLES` Monte Carlo samples per player (the standard
  errors are stored with the estimates);
* Big Two: :func:`analytics.equity.bigtwo_game_features_fast` (the values of
  ``bigtwo_game_features``, by counting).

Simulations are seeded from the hand's id (:func:`seed_of`), so loading the
same hand again gives the same rows.  Kernels run on one thread here: ingest
already runs one worker per core, and a parallel launch for a few hundred
samples costs more than it saves (the rare Monte Carlo all-in of five or more
players is limited to one numba thread).  Columns: docs/schema.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from analytics.equity import (
    AllInResult,
    BigTwoFeatures,
    RummoliRoundStrength,
    allin_adjusted,
    allin_moment,
    bigtwo_game_features_fast,
    rummoli_round_strengths,
)
from analytics.equity.allin import AllInSpot, allin_adjusted_many, allin_spot
from analytics.equity.bigtwo import bigtwo_features_many, bigtwo_game_deals
from analytics.equity.rummoli import (
    RummoliRoundDeal,
    poker_pot_winners,
    rummoli_round_deal,
    rummoli_round_strengths_many,
)
from analytics.rules.base import Outcome
from parsers.model import HandHistory
from parsers.rule_options import BigTwoRules, Game

__all__ = ["RUMMOLI_INGEST_SAMPLES", "Columns", "PendingRows", "add_equity_rows",
           "add_pending_rows", "seed_of"]

RUMMOLI_INGEST_SAMPLES: Final = 128
"""Monte Carlo samples per player per Rummoli round at ingest (standard error of
``p_best`` at most 0.045; exact enumeration is used when it is cheap anyway)."""

_SEED_MASK: Final = (1 << 62) - 1

Columns = dict[str, dict[str, list[object]]]


def seed_of(hand_id: int) -> int:
    """The simulations' seed for a hand: its id folded to a non-negative 62-bit number."""
    return hand_id & _SEED_MASK


@dataclass(slots=True)
class PendingRows:
    """A batch's equity work left for :func:`add_pending_rows`, in the order of its hands:
    7 & 8 all-in spots (hand id, hand, names by seat, spot), solved by one kernel call,
    and each Big Two seat's dealt hand (hand id, seat, player, mask, cards, rule set),
    counted by one kernel call; each Rummoli round's cards (hand id, cards, its players'
    names and whether each won the poker pot, in the deal's seat order), its strengths
    computed by one kernel call.

    A Rummoli entry holds no reference to the round's :class:`HandHistory`: a batch of
    thousands of rounds would otherwise keep every round's actions alive until the batch
    ends, and the worker's full garbage collections, which walk every live object, cost
    more than the rest of the round's equity rows (~150 µs a round, 2,500-round batches).
    """

    allins: list[tuple[int, HandHistory, Sequence[str], AllInSpot]] = field(
        default_factory=list)
    bigtwo: list[tuple[int, int, str, int, int, BigTwoRules]] = field(default_factory=list)
    rummoli: list[tuple[int, RummoliRoundDeal, list[str], list[bool]]] = field(
        default_factory=list)


def add_equity_rows(columns: Columns, key: int, hand: HandHistory, outcome: Outcome,
                    names: Sequence[str] | None = None,
                    pending: PendingRows | None = None) -> None:
    """Append the hand's equity rows (if its game has any) to the batch's ``columns``.

    ``names`` are the players' names by seat (``hand.player_name``), when the caller has them.
    With ``pending``, a 7 & 8 all-in spot, a Big Two game's deals or a Rummoli round's
    cards are put there instead, to be solved with the batch's others by
    :func:`add_pending_rows` (the same rows, in the same order).
    """
    game = hand.game
    if names is None:
        names = [hand.player_name(seat) for seat in range(1, hand.num_players + 1)]
    if game is Game.SEVENEIGHT:
        if allin_moment(hand) is not None:
            if pending is not None:
                spot = allin_spot(hand, outcome)
                if spot is not None:
                    pending.allins.append((key, hand, names, spot))
                return
            result = allin_adjusted(hand, outcome, seed=seed_of(key), threads=1)
            if result is not None:
                _add_allin(columns["allin_results"], key, hand, names, result)
    elif game is Game.RUMMOLI:
        if pending is not None:
            deal = rummoli_round_deal(hand)
            if deal is not None:
                winners = poker_pot_winners(outcome)
                seats = deal.seats
                pending.rummoli.append((key, deal, [_name(hand, names, seat) for seat in seats],
                                        [seat in winners for seat in seats]))
            return
        # One kernel call for the whole round, on this thread.
        strengths = rummoli_round_strengths(hand, outcome, samples=RUMMOLI_INGEST_SAMPLES,
                                            seed=seed_of(key))
        if strengths:
            _add_strengths(columns["rummoli_strength"], key, hand, names, strengths)
    elif game is Game.BIGTWO:
        if pending is not None and isinstance(hand.rules, BigTwoRules):
            rules = hand.rules
            pending.bigtwo.extend([(key, seat, _name(hand, names, seat), mask, size, rules)
                                   for seat, mask, size in bigtwo_game_deals(hand)])
            return
        features = bigtwo_game_features_fast(hand)
        if features:
            _add_features(columns["bigtwo_features"], key, hand, names, features)


def add_pending_rows(columns: Columns, pending: PendingRows) -> None:
    """Do the ``pending`` work of a batch and append its rows; empties ``pending``."""
    if pending.allins:
        allins = pending.allins
        results = allin_adjusted_many([entry[3] for entry in allins],
                                      [seed_of(entry[0]) for entry in allins], threads=1)
        row = columns["allin_results"]
        for (key, hand, names, _), result in zip(allins, results, strict=True):
            _add_allin(row, key, hand, names, result)
        allins.clear()
    if pending.bigtwo:
        _add_features_many(columns["bigtwo_features"], pending.bigtwo)
        pending.bigtwo.clear()
    if pending.rummoli:
        _add_strengths_many(columns["rummoli_strength"], pending.rummoli)
        pending.rummoli.clear()


def _add_features_many(row: dict[str, list[object]],
                       seats: list[tuple[int, int, str, int, int, BigTwoRules]]) -> None:
    """Big Two feature rows of many seats: one kernel call, then one extend per column."""
    keys, numbers, players, masks, sizes, rules = zip(*seats, strict=True)
    counted = bigtwo_features_many(masks, sizes, rules)
    twos, aces, leads, pairs, triples, five, distinct = counted.T.tolist()
    row["hand_id"].extend(keys)
    row["seat"].extend(numbers)
    row["player"].extend(players)
    row["cards"].extend(sizes)
    row["twos"].extend(twos)
    row["aces"].extend(aces)
    row["has_lead"].extend([lead == 1 for lead in leads])
    row["pairs"].extend(pairs)
    row["triples"].extend(triples)
    row["five_card"].extend(five)
    row["distinct_five_card_ranks"].extend(distinct)


def _name(hand: HandHistory, names: Sequence[str], seat: int) -> str:
    return names[seat - 1] if 1 <= seat <= len(names) else hand.player_name(seat)


def _add_strengths_many(
        row: dict[str, list[object]],
        rounds: list[tuple[int, RummoliRoundDeal, list[str], list[bool]]]) -> None:
    """Rummoli strength rows of many rounds: one kernel call, then one extend per column
    (the rows :func:`_add_strengths` appends round by round)."""
    solved = rummoli_round_strengths_many([entry[1] for entry in rounds],
                                          [seed_of(entry[0]) for entry in rounds],
                                          samples=RUMMOLI_INGEST_SAMPLES)
    hand_ids, seats, players, won = row["hand_id"], row["seat"], row["player"], []
    for key, deal, names, winners in rounds:
        hand_ids.extend([key] * len(names))
        seats.extend(deal.seats)
        players.extend(names)
        won.extend(winners)
    row["hand_size"].extend(solved.hand_size)
    row["category"].extend(solved.category)
    row["p_best"].extend(solved.p_best)
    row["share"].extend(solved.share)
    row["p_win"].extend(solved.p_win)
    row["std_error"].extend(solved.std_error)
    row["share_std_error"].extend(solved.share_std_error)
    row["exact"].extend(solved.exact)
    row["samples"].extend(solved.deals)
    row["realised_share"].extend(solved.realised_share)
    row["won_poker_pot"].extend(won)


def _add_strengths(row: dict[str, list[object]], key: int, hand: HandHistory,
                   names: Sequence[str], strengths: list[RummoliRoundStrength]) -> None:
    # One pass appending to every column: a round has 2 to 8 rows, and fourteen list
    # comprehensions (one per column) cost about twice as much for so few.
    hand_ids, seats, players = row["hand_id"], row["seat"], row["player"]
    sizes, categories, p_best, share = (row["hand_size"], row["category"], row["p_best"],
                                        row["share"])
    p_win, std_error, share_std_error = row["p_win"], row["std_error"], row["share_std_error"]
    exact, samples = row["exact"], row["samples"]
    realised_share, won_poker_pot = row["realised_share"], row["won_poker_pot"]
    for entry in strengths:
        strength = entry.strength
        hand_ids.append(key)
        seats.append(entry.seat)
        players.append(_name(hand, names, entry.seat))
        sizes.append(entry.hand_size)
        categories.append(entry.category)
        p_best.append(strength.p_best)
        share.append(strength.share)
        p_win.append(strength.p_win)
        std_error.append(strength.std_error)
        share_std_error.append(strength.share_std_error)
        exact.append(strength.exact)
        samples.append(strength.deals)
        realised_share.append(entry.realised_share)
        won_poker_pot.append(entry.won_poker_pot)


def _add_features(row: dict[str, list[object]], key: int, hand: HandHistory,
                  names: Sequence[str], features: Sequence[BigTwoFeatures]) -> None:
    for item in features:
        row["hand_id"].append(key)
        row["seat"].append(item.seat)
        row["player"].append(_name(hand, names, item.seat))
        row["cards"].append(item.cards)
        row["twos"].append(item.twos)
        row["aces"].append(item.aces)
        row["has_lead"].append(item.has_lead)
        row["pairs"].append(item.pairs)
        row["triples"].append(item.triples)
        row["five_card"].append(item.five_card)
        row["distinct_five_card_ranks"].append(item.distinct_five_card_ranks)


def _add_allin(row: dict[str, list[object]], key: int, hand: HandHistory,
               names: Sequence[str], result: AllInResult) -> None:
    for player in result.players:
        row["hand_id"].append(key)
        row["seat"].append(player.seat)
        row["player"].append(_name(hand, names, player.seat))
        row["contributed"].append(player.contributed)
        row["refund"].append(player.refund)
        row["equity"].append(player.equity)
        row["expected_won"].append(player.expected_won)
        row["actual_won"].append(player.actual_won)
        row["expected_net"].append(player.expected_net)
        row["actual_net"].append(player.actual_net)
        row["luck"].append(player.luck)
        row["std_error"].append(player.std_error)
        row["pot"].append(result.pot)
        row["pots"].append(result.pots)
        row["exact"].append(result.exact)
        row["deals"].append(result.deals)
