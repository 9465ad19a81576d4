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
from analytics.rules.base import Outcome
from parsers.knobs import Game
from parsers.model import HandHistory

__all__ = ["RUMMOLI_INGEST_SAMPLES", "Columns", "add_equity_rows", "seed_of"]

RUMMOLI_INGEST_SAMPLES: Final = 128
"""Monte Carlo samples per player per Rummoli round at ingest (standard error of
``p_best`` at most 0.045; exact enumeration is used when it is cheap anyway)."""

_SEED_MASK: Final = (1 << 62) - 1

Columns = dict[str, dict[str, list[object]]]


def seed_of(hand_id: int) -> int:
    """The simulations' seed for a hand: its id folded to a non-negative 62-bit number."""
    return hand_id & _SEED_MASK


def add_equity_rows(columns: Columns, key: int, hand: HandHistory, outcome: Outcome,
                    names: Sequence[str] | None = None) -> None:
    """Append the hand's equity rows (if its game has any) to the batch's ``columns``.

    ``names`` are the players' names by seat (``hand.player_name``), when the caller has them.
    """
    game = hand.game
    if names is None:
        names = [hand.player_name(seat) for seat in range(1, hand.num_players + 1)]
    if game is Game.SEVENEIGHT:
        if allin_moment(hand) is not None:
            result = allin_adjusted(hand, outcome, seed=seed_of(key), threads=1)
            if result is not None:
                _add_allin(columns["allin_results"], key, hand, names, result)
    elif game is Game.RUMMOLI:
        # One kernel call for the whole round, on this thread.
        strengths = rummoli_round_strengths(hand, outcome, samples=RUMMOLI_INGEST_SAMPLES,
                                            seed=seed_of(key))
        if strengths:
            _add_strengths(columns["rummoli_strength"], key, hand, names, strengths)
    elif game is Game.BIGTWO:
        features = bigtwo_game_features_fast(hand)
        if features:
            _add_features(columns["bigtwo_features"], key, hand, names, features)


def _name(hand: HandHistory, names: Sequence[str], seat: int) -> str:
    return names[seat - 1] if 1 <= seat <= len(names) else hand.player_name(seat)


def _add_strengths(row: dict[str, list[object]], key: int, hand: HandHistory,
                   names: Sequence[str], strengths: list[RummoliRoundStrength]) -> None:
    count = len(strengths)
    values = [entry.strength for entry in strengths]
    row["hand_id"].extend([key] * count)
    row["seat"].extend([entry.seat for entry in strengths])
    row["player"].extend([_name(hand, names, entry.seat) for entry in strengths])
    row["hand_size"].extend([entry.hand_size for entry in strengths])
    row["category"].extend([entry.category for entry in strengths])
    row["p_best"].extend([strength.p_best for strength in values])
    row["share"].extend([strength.share for strength in values])
    row["p_win"].extend([strength.p_win for strength in values])
    row["std_error"].extend([strength.std_error for strength in values])
    row["share_std_error"].extend([strength.share_std_error for strength in values])
    row["exact"].extend([strength.exact for strength in values])
    row["samples"].extend([strength.deals for strength in values])
    row["realised_share"].extend([entry.realised_share for entry in strengths])
    row["won_poker_pot"].extend([entry.won_poker_pot for entry in strengths])


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
