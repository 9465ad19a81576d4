"""The Monte Carlo standard error (analytics.equity.sampling): a small chance estimated
from a few samples is never reported as certain, and its 95 % interval covers the true
value about as often as it says, counted exactly over the binomial distribution."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from scipy.stats import binom

from analytics.equity import rummoli_strength
from analytics.equity.sampling import mean_std_error
from tests.migrated import assert_migrated_again


@pytest.mark.parametrize("samples", [128, 1000])
@pytest.mark.parametrize("chance", [0.0005, 0.002, 0.006, 0.03, 0.1, 0.5])
def test_the_interval_covers_small_and_large_chances(samples: int, chance: float) -> None:
    """Exact coverage of mean +/- 1.96 standard errors over every count of successes.
    With the sample's error alone a 0.2 % chance at 128 samples was covered 23 % of the
    time (every sample missing it reads "0 +/- 0")."""
    covered = 0.0
    for successes in range(samples + 1):
        mean = successes / samples
        error = mean_std_error(mean, mean * (1 - mean), samples)
        assert error > 0
        covered += binom.pmf(successes, samples, chance) * (abs(mean - chance)
                                                            <= 1.96 * error)
    assert covered >= 0.88, covered


def test_the_error_is_the_samples_own_unless_they_all_agree() -> None:
    assert mean_std_error(0.25, 0.1875, 101) == pytest.approx(math.sqrt(0.1875 / 100))
    assert mean_std_error(0.0, 0.0, 128) == pytest.approx(math.sqrt(2 / 132 * 130 / 132 / 132))
    assert mean_std_error(1.0, 0.0, 128) == pytest.approx(mean_std_error(0.0, 0.0, 128))


def test_a_rummoli_hand_that_never_wins_in_128_deals_is_not_certain() -> None:
    """8h7dTh7h5dKh9s3c at six players: best about 0.2 % of deals (a reviewer's 400,000
    samples); 128 deals of seed 0 give none, and the error says it is not certain."""
    strength = rummoli_strength("8h7dTh7h5dKh9s3c", 6, samples=128, seed=0)
    assert not strength.exact
    if strength.p_best == 0:
        assert strength.std_error == pytest.approx(mean_std_error(0.0, 0.0, 128))
    assert strength.std_error > 0 and strength.share_std_error > 0


def test_a_stored_monte_carlo_strength_is_never_called_exact(tmp_path: Path) -> None:
    """The replayer labels a strength by the stored ``exact`` (it read an error of 0 as
    exact: "best 0% (exact)" under "Monte Carlo, 128 samples"), and migration 15 gives the
    rows a database stored with an error of 0 the error the ingest now stores."""
    from analytics.dashboard.replayer import stored_equities
    from analytics.simulate.rummoli import simulate_rummoli
    from analytics.warehouse import ingest
    from parsers import write_hands

    rounds = list(simulate_rummoli(30, 6, 5))
    write_hands(rounds, tmp_path / "rounds.phhs")
    db = tmp_path / "r.duckdb"
    ingest([tmp_path / "rounds.phhs"], db, workers=0)
    expected = assert_migrated_again(db, 15, ["rummoli_strength"], [
        "UPDATE rummoli_strength SET std_error = 0, share_std_error = 0 "
        "WHERE NOT exact AND p_best IN (0, 1)"])["rummoli_strength"]
    sampled = expected[~expected["exact"]]
    assert len(sampled) > 0 and (sampled["std_error"] > 0).all()
    agreed = sampled["p_best"].isin([0.0, 1.0])
    assert agreed.any()  # rows whose samples all agreed: the errors changed
    row = sampled[agreed].iloc[0]
    hand = rounds[0]  # the cells go by seat: any round of six seats draws them
    shown = stored_equities(hand, {"rummoli": expected[expected["hand_id"] == row["hand_id"]]})
    assert shown is not None
    cell = shown.cells[int(row["seat"]) - 1]
    assert "(exact)" not in cell and " ± " in cell, cell
