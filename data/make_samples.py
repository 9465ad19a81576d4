"""Regenerate the bundled sample histories in data/samples/ (deterministic).

Run: ``.venv/bin/python data/make_samples.py``.  The dashboard's default database
is built from these files on first use; tests check that every hand in them
replays cleanly, so a change of rules or simulator that breaks them is caught.
"""

from __future__ import annotations

from pathlib import Path

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from parsers import write_hands

SAMPLES = Path(__file__).resolve().parent / "samples"


def main() -> None:
    SAMPLES.mkdir(parents=True, exist_ok=True)
    plan = {
        # A six-handed no-limit cash game, a four-handed pot-limit one, and heads-up fixed limit.
        "seveneight-nl-6max.phhs": simulate_seveneight(1200, 6, 101),
        "seveneight-pl-4max.phhs": simulate_seveneight(500, 4, 102, variant="P78"),
        "seveneight-fl-headsup.phhs": simulate_seveneight(300, 2, 103, variant="F78"),
        # Big Two: a four-player club night and three-player matches under varied house rules.
        "bigtwo-club.phhs": simulate_bigtwo(400, 4, 201),
        "bigtwo-house-rules.phhs": simulate_bigtwo(150, 3, 202, random_knobs=True),
        # Rummoli: a five-player family game and a four-player game with manual claims.
        "rummoli-family.phhs": simulate_rummoli(240, 5, 301),
        "rummoli-manual-claims.phhs": simulate_rummoli(120, 4, 302, claim="manual",
                                                       finale="per_pot"),
    }
    for name, hands in plan.items():
        count = write_hands(hands, SAMPLES / name)
        print(f"{name}: {count} hands")


if __name__ == "__main__":
    main()
