"""Run every benchmark, one after the other, each in its own process (``make bench``).

Each script measures handlab against its peers side by side and prints medians and
ratios; the figures recorded in docs/performance.md come from these scripts.
Pass ``--quick`` for smaller sizes (a smoke run that still prints every ratio).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

FULL: list[list[str]] = [
    ["bench_parse.py", "20000"],
    ["bench_evaluator.py"],
    ["bench_seveneight.py"],
    ["bench_bigtwo.py"],
    ["bench_simulate.py"],
    ["bench_rummoli.py"],
    ["bench_ingest.py"],
]
QUICK: list[list[str]] = [
    ["bench_parse.py", "2000"],
    ["bench_evaluator.py", "--hands", "200000", "--repeats", "3"],
    ["bench_seveneight.py", "--hands", "300", "--repeats", "3"],
    ["bench_bigtwo.py", "200", "3"],
    ["bench_simulate.py"],
    ["bench_rummoli.py", "--rounds", "300", "--repeats", "3"],
    ["bench_ingest.py", "--hands", "20000", "--games", "1000", "--rounds", "1000"],
]


def main() -> int:
    plan = QUICK if "--quick" in sys.argv[1:] else FULL
    failures = 0
    for script, *arguments in plan:
        path = HERE / script
        if not path.exists():
            print(f"== {script}: not present, skipped")
            continue
        print(f"\n== {script} {' '.join(arguments)}", flush=True)
        failures += subprocess.call([sys.executable, str(path), *arguments], cwd=HERE) != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
