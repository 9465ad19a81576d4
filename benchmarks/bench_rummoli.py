"""Rummoli benchmarks: parse, replay, parse + replay and simulation, in one run.

There is no other Rummoli engine to race, so the peers are the stages of our
own pipeline measured side by side on the same simulated rounds:

* parse: ``parsers.loads_hands`` of the whole ``.phhs`` text;
* replay: ``analytics.rules.rummoli.engine.replay`` of the parsed rounds;
* parse + replay: both (what the ingest does per round, on one core);
* showdown scoring: the ``poker_rank`` calls a replay makes (one per hand shown),
  alone, to show the evaluator's share of the replay;
* simulate: ``simulate_rummoli`` (bots, engine, HandHistory objects).

Figures are rounds per second, the median of ``--repeats`` timed passes, with
ratios to parse + replay and to the ingest target of 2,000 rounds/s.  Usage::

    .venv/bin/python benchmarks/bench_rummoli.py [--rounds 2000] [--players 5] [--repeats 5]
"""

from __future__ import annotations

import argparse

from timing import Measure, measure, report

from analytics.evaluator import poker_rank
from analytics.rules.rummoli.engine import replay
from analytics.simulate.rummoli import simulate_rummoli
from parsers import Verb, dumps_hands, loads_hands

TARGET = 2_000
"""The ingest's end-to-end target, Rummoli rounds per second."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rounds, runs = args.rounds, args.repeats

    hands = list(simulate_rummoli(rounds, args.players, args.seed))
    text = dumps_hands(hands)
    parsed = loads_hands(text)
    shown = [action.cards for hand in parsed for action in hand.actions
             if action.verb is Verb.SHOW_MUCK and action.cards]
    actions = sum(len(hand.actions) for hand in parsed)
    print(f"{rounds} rounds of {args.players} players, {actions / rounds:.1f} actions and"
          f" {len(shown) / rounds:.2f} hands shown per round, {len(text) / rounds:.0f} bytes"
          " per round")

    def replay_all() -> None:
        for hand in parsed:
            replay(hand)

    def parse_and_replay() -> None:
        for hand in loads_hands(text):
            replay(hand)

    def score_showdowns() -> None:
        for cards in shown:
            poker_rank(cards)

    measures = [
        measure("parse (loads_hands)", rounds, lambda: loads_hands(text), runs),
        measure("replay (parsed rounds)", rounds, replay_all, runs),
        measure("parse + replay", rounds, parse_and_replay, runs),
        measure("showdown scoring (poker_rank)", rounds, score_showdowns, runs),
        measure("simulate (bots + engine)", rounds,
                lambda: list(simulate_rummoli(rounds, args.players, args.seed)), runs),
    ]
    report("Rummoli, rounds per second (median of runs)", measures, "parse + replay",
           unit="rounds/s")
    end_to_end = next(m for m in measures if m.name == "parse + replay")
    target = Measure("target", TARGET, 1.0)
    print(f"\nparse + replay vs the ingest target of {TARGET:,} rounds/s on one core:"
          f" {end_to_end.rate / target.rate:.2f}x")


if __name__ == "__main__":
    main()
