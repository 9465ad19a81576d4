"""The Hand types page's counting: Big Two deal partitions on card codes against a walk over
each hand's text, every play counted by kind exactly (``views.play_kinds``) against the
plays classified one by one, and the 7 & 8 showdowns of one game."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from analytics.dashboard import logic
from analytics.equity.bigtwo_theory import MOST_OF_A_RANK
from analytics.evaluator import BigTwoKind
from analytics.warehouse import ENV_VAR
from analytics.warehouse.sql import views
from analytics.warehouse.sql.views import HandFilter
from tests.test_dashboard_app import count_rows, open_app
from tests.test_dashboard_data import dashboard_con, dashboard_db
from tests.test_facts import reference_kinds

__all__ = ["dashboard_con", "dashboard_db"]

_RANKS = "23456789TJQKA"
_SUITS = "cdhs"
_EVERYTHING = 10**7  # a sample larger than the data: every play


def _random_deals(sizes: tuple[int, ...], hands: int, seed: int) -> pd.DataFrame:
    """Random Big Two deals of the given sizes as the warehouse stores them: card text."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(hands):
        size = int(rng.choice(sizes))
        codes = rng.permutation(52)[:size]
        rows.append("".join(_RANKS[c >> 2] + _SUITS[c & 3] for c in codes))
    return pd.DataFrame({"cards": rows, "rules": "{}"})


def _walked(dealt: pd.DataFrame, size: int, what: str) -> list[int]:
    """The partition counted one hand at a time on its text (the page's former way)."""
    hands = [cards for cards in dealt["cards"] if len(cards) == 2 * size]
    if what == "most":
        labels = [MOST_OF_A_RANK[max(max(c[0::2].count(r) for r in set(c[0::2])), 1) - 1]
                  for c in hands]
        return [labels.count(label) for label in MOST_OF_A_RANK]
    twos = [c[0::2].count("2") for c in hands]
    return [twos.count(t) for t in range(5)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_partitions_on_codes_equal_the_walk_over_each_hands_text(seed: int) -> None:
    dealt = _random_deals((13, 17, 18, 26), 3_000, seed)
    for size in (13, 17, 18, 26):
        for what in ("most", "twos"):
            observed, theory = logic.bigtwo_partition_counts(dealt, size, what)
            assert list(observed.index) == list(theory.index)
            assert observed.tolist() == _walked(dealt, size, what), (size, what)
            assert observed.name == "observed" and observed.dtype == "int64"


def test_partitions_of_crowded_deals() -> None:
    """Four of a kind and all four 2s, which random deals of 13 rarely hold."""
    dealt = pd.DataFrame({"cards": ["2c2d2h2s" + "3c4d5h6s7c8d9hTsJc",
                                    "AcAdAhAs" + "KcKdKhQsQcQdJhJsTc",
                                    "3c3d3h" + "4c5d6h7s8c9dThJsQcKd"],
                          "rules": "{}"})
    most, _ = logic.bigtwo_partition_counts(dealt, 13, "most")
    twos, _ = logic.bigtwo_partition_counts(dealt, 13, "twos")
    assert most.tolist() == _walked(dealt, 13, "most") == [0, 0, 1, 2]
    assert twos.tolist() == _walked(dealt, 13, "twos") == [2, 0, 0, 0, 1]


FILTERS = [HandFilter(), HandFilter(players=("Cy",)), HandFilter(game="bigtwo"),
           HandFilter(knobs=(("suit_order", "dchs"),)), HandFilter(players=("nobody",))]


@pytest.mark.parametrize("f", FILTERS, ids=str)
def test_every_play_is_counted_once(dashboard_con: duckdb.DuckDBPyConnection,
                                    f: HandFilter) -> None:
    played = views.play_kinds(dashboard_con, f)
    every = views.plays(dashboard_con, f, sample=_EVERYTHING)  # one row per play
    assert int(played["hands"].sum()) == len(every)
    # Kinds per player: the stored counts give what categorising every play one by one gives.
    one_by_one = (every.assign(category=reference_kinds(every["cards"], every["rules"]))
                  .groupby(["player", "category"]).size().rename("hands").reset_index())
    pd.testing.assert_frame_equal(played, one_by_one.astype({"hands": "int64"}),
                                  check_dtype=False)
    assert played["hands"].dtype == "int64"
    if len(every):
        assert "not a combination" not in set(played["category"])


def test_showdown_types_of_one_game(dashboard_con: duckdb.DuckDBPyConnection) -> None:
    everything = views.showdown_types(dashboard_con, HandFilter())
    for game in ("seveneight", "rummoli", "bigtwo"):
        one = views.showdown_types(dashboard_con, HandFilter(), game=game)
        expected = everything[everything["game"] == game].reset_index(drop=True)
        # (no rows, e.g. Big Two: DuckDB's empty text columns come as object)
        pd.testing.assert_frame_equal(one, expected, check_dtype=len(one) > 0)
    assert len(views.showdown_types(dashboard_con, HandFilter(), game="seveneight")) > 0


def test_the_plays_expander_counts_every_big_two_play(dashboard_db: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Closed on a first visit (the page does not count the plays); opened, it counts every
    play of the filtered hands."""
    monkeypatch.setenv(ENV_VAR, str(dashboard_db))
    at = open_app("hand_types", game="bigtwo")
    assert "Combinations played" in [h.value for h in at.main.subheader]
    assert not any("combinations played" in str(c.proto.spec) for c in at.get("plotly_chart"))
    at.session_state["bigtwo_plays"] = True  # what a click on the expander does
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    played = at.dataframe[-1].value
    assert list(played["category"]) == [kind.label.replace("_", " ") for kind in BigTwoKind]
    assert played["hands"].sum() == count_rows(  # the table's header for the observed count
        dashboard_db, "SELECT count(*) FROM actions a JOIN hands h USING (hand_id) "
                      "WHERE h.game = 'bigtwo' AND a.verb = 'pl'")
