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

import contextlib
from collections.abc import Iterator
from typing import Final

from analytics.equity import (
    AllInResult,
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


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def add_equity_rows(columns: Columns, key: int, hand: HandHistory, outcome: Outcome) -> None:
    """Append the hand's equity rows (if its game has any) to the batch's ``columns``."""
    game = hand.game
    if game is Game.SEVENEIGHT:
        if allin_moment(hand) is not None:
            with _one_thread():
                result = allin_adjusted(hand, outcome, seed=seed_of(key))
            if result is not None:
                _add_allin(columns["allin_results"], key, hand, result)
    elif game is Game.RUMMOLI:
        # A few hundred samples run on this thread (rummoli_strength's serial kernel).
        strengths = rummoli_round_strengths(hand, outcome, samples=RUMMOLI_INGEST_SAMPLES,
                                            seed=seed_of(key))
        row = columns["rummoli_strength"]
        for entry in strengths:
            strength = entry.strength
            row["hand_id"].append(key)
            row["seat"].append(entry.seat)
            row["player"].append(hand.player_name(entry.seat))
            row["hand_size"].append(entry.hand_size)
            row["category"].append(entry.category)
            row["p_best"].append(strength.p_best)
            row["share"].append(strength.share)
            row["p_win"].append(strength.p_win)
            row["std_error"].append(strength.std_error)
            row["share_std_error"].append(strength.share_std_error)
            row["exact"].append(strength.exact)
            row["samples"].append(strength.deals)
            row["realised_share"].append(entry.realised_share)
            row["won_poker_pot"].append(entry.won_poker_pot)
    elif game is Game.BIGTWO:
        row = columns["bigtwo_features"]
        for features in bigtwo_game_features_fast(hand):
            row["hand_id"].append(key)
            row["seat"].append(features.seat)
            row["player"].append(hand.player_name(features.seat))
            row["cards"].append(features.cards)
            row["twos"].append(features.twos)
            row["aces"].append(features.aces)
            row["has_lead"].append(features.has_lead)
            row["pairs"].append(features.pairs)
            row["triples"].append(features.triples)
            row["five_card"].append(features.five_card)
            row["distinct_five_card_ranks"].append(features.distinct_five_card_ranks)


def _add_allin(row: dict[str, list[object]], key: int, hand: HandHistory,
               result: AllInResult) -> None:
    for player in result.players:
        row["hand_id"].append(key)
        row["seat"].append(player.seat)
        row["player"].append(hand.player_name(player.seat))
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
