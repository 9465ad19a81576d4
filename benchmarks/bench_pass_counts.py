"""Big Two's ``pass_with_play`` from stored rows: CPU per game of ``fact_rows.pass_counts``.

Run: ``.venv/bin/python benchmarks/bench_pass_counts.py [games] [runs]``.  ``games``
simulated four-player games (default 2,000) are loaded once into a scratch database; each
run replays them all from their ``actions`` rows with the rules engine, as migration 12's
backfill and ``facts.fill_missing`` do (the ingest counts the passes in its one replay and
pays none of this), and the best CPU time of ``runs`` (``time.process_time``, which a shared
machine disturbs less than the wall clock) is given per game.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from timing import best_cpu

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.warehouse import ingest, reader
from analytics.warehouse.pipeline.fact_rows import pass_counts
from parsers import write_hands


def main(games: int = 2000, runs: int = 3) -> None:
    with tempfile.TemporaryDirectory() as folder:
        inputs = Path(folder) / "in"
        inputs.mkdir()
        write_hands(simulate_bigtwo(games, 4, 5), inputs / "b.phhs")
        db = Path(folder) / "b.duckdb"
        ingest([inputs], db, workers=0)
        with reader(db) as con:
            rows = con.sql("SELECT hand_id, seat, game, rules, num_players "
                           "FROM seat_facts").to_arrow_table()
            actions = con.sql("SELECT hand_id, seq, actor, verb, cards, target "
                              "FROM actions").to_arrow_table()
    seconds = best_cpu(lambda: pass_counts(rows, actions), runs, warm_up=True)
    print(f"pass_counts: {games} four-player games, best of {runs}: "
          f"{seconds / games * 1e6:.0f} us CPU per game")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
