"""Reader speed: handlab's streaming reader against tomllib and pokerkit's PHH loader.

Run: ``.venv/bin/python benchmarks/bench_parse.py [hands]``.  All three read the
same number of hands of similar size (pokerkit reads no-limit hold'em hands of
the same length, since it does not know our games).
"""

from __future__ import annotations

import io
import sys
import tomllib
from pathlib import Path

from timing import HOLDEM, measure, report

from parsers import dumps_hand, read_hands
from parsers.reader import iter_chunks

ROOT = Path(__file__).resolve().parent.parent



def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    (hand,) = read_hands(ROOT / "tests" / "data" / "valid" / "seveneight.phh")
    one = dumps_hand(hand)
    ours = "".join(f"[{n}]\n{one}\n" for n in range(1, count + 1))
    print(f"{count} hands of {len(one)} bytes")

    def handlab_read() -> int:
        return sum(1 for h in read_hands(io.StringIO(ours)) if h.ok)

    def tomllib_read() -> int:
        chunks = iter_chunks(io.StringIO(ours), "x")
        return sum(1 for chunk in chunks if tomllib.loads("\n".join(chunk.lines)))

    measures = [
        measure("handlab read_hands (typed hands)", count, handlab_read),
        measure("tomllib (TOML only, untyped)", count, tomllib_read),
    ]
    try:
        import pokerkit

        small = max(count // 10, 50)
        measures.append(
            measure("pokerkit HandHistory.loads", small,
                    lambda: [pokerkit.HandHistory.loads(HOLDEM) for _ in range(small)], runs=3)
        )
    except ImportError:
        print("pokerkit not installed: `pip install -e '.[bench]'` to compare")
    report("Reading hand histories (median of runs)", measures, baseline=measures[-1].name)


if __name__ == "__main__":
    main()
