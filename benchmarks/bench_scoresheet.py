"""Big Two score sheets: importing a sheet of 10,000 games (issue 29: under 2 s).

Run: ``.venv/bin/python benchmarks/bench_scoresheet.py [games] [runs]``.  A sheet of
``games`` games (default 10,000: date lines, a fry threshold, names lines of 2 to 4
players, losses lines with a taker now and then, comments) is written once; each run
imports it with ``handlab``'s ingest into a fresh database, in this process (``-j 0``) as
the command does for a file this size, and reading and converting it alone are timed
too.  Every figure is the median of ``runs`` timings after a warm-up, and the import's CPU
time (``time.process_time``: every thread of this process) is given too, which a shared,
loaded machine disturbs less than the wall clock; the verdict line compares the median
import (wall clock) with the 2 s target.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from timing import measure

from analytics.warehouse import ingest, reader
from parsers.scoresheet import read_score_sheet, sheet_hands

TARGET_SECONDS = 2.0
NAMES = ("Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal")


def make_sheet(games: int, seed: int = 29) -> str:
    """A plausible sheet: a new date every 40 games, a new table every 8."""
    rng = random.Random(seed)
    lines = ["# a benchmark sheet", "F=10"]
    players: list[str] = []
    for game in range(games):
        if game % 40 == 0:
            lines.append(f"2026-{1 + game // 40 // 28 % 12:02d}-{1 + game // 40 % 28:02d}")
        if game % 8 == 0:
            players = rng.sample(NAMES, rng.choice((2, 3, 4, 4, 4)))
            lines.append(" ".join(players))
        left = [rng.randint(1, 13) for _ in players]
        left[rng.randrange(len(players))] = 0
        losses = [str(count) for count in left]
        if rng.random() < 0.02:
            losses[rng.randrange(len(players))] += "t"
        lines.append(" ".join(losses) + ("  # a note" if rng.random() < 0.05 else ""))
    return "\n".join(lines) + "\n"


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as folder:
        sheet = Path(folder) / "sheet.txt"
        text = make_sheet(games)
        sheet.write_text(text)
        print(f"sheet: {games:,} games, {len(text):,} bytes")
        counter = iter(range(10**6))

        def import_sheet() -> None:
            db = Path(folder) / f"w{next(counter)}.duckdb"
            summary = ingest([sheet], db, workers=0)
            assert summary.loaded == games and summary.rejected == 0, summary.files

        measures = [
            measure("read sheet", games, lambda: read_score_sheet(text), runs),
            measure("read + convert to games", games,
                    lambda: sheet_hands(read_score_sheet(text).games), runs),
            measure("import (ingest into a new database)", games, import_sheet, runs),
        ]
        cpu = []
        for _ in range(runs):
            start = time.process_time()
            import_sheet()
            cpu.append(time.process_time() - start)
        with reader(Path(folder) / "w0.duckdb") as con:
            held = con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
        assert held == games
    for found in measures:
        print(f"{found.name:40s} {found.seconds:8.3f} s  {found.rate:12,.0f} games/s")
    cpu_seconds = sorted(cpu)[len(cpu) // 2]
    print(f"{'import, CPU seconds (all threads)':40s} {cpu_seconds:8.3f} s  "
          f"{games / cpu_seconds:12,.0f} games/s")
    seconds = measures[-1].seconds
    verdict = "met" if seconds < TARGET_SECONDS else "NOT met"
    print(f"target: {games:,} games imported in under {TARGET_SECONDS:.0f} s: {verdict} "
          f"({seconds:.2f} s, median of {runs}; {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
