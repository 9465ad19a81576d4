"""7 & 8 benchmarks: replay and simulation speed, against pokerkit in the same run.

Peer: pokerkit's ``HandHistory.loads(text)`` followed by a full replay
(``for state in hh: pass``) of no-limit hold'em hands played by random agents
with the same number of players and stacks.  We time, per hand and on one core:

* handlab replay of already-parsed 7 & 8 hands (``analytics.rules.seveneight.engine.replay``);
* handlab parse + replay (``parsers.loads_hands`` of the whole text, then replay);
* pokerkit loads + replay;
* the 7 & 8 simulator (bots, engine and HandHistory objects).

Each figure is the median CPU time of ``--repeats`` timed passes.  Usage::

    .venv/bin/python benchmarks/bench_seveneight.py [--hands 1000] [--players 6] [--repeats 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from analytics.rules.seveneight.engine import replay
from analytics.simulate.bots_seveneight import equity_tables
from analytics.simulate.seveneight import simulate_seveneight
from parsers import dumps_hands, loads_hands


def holdem_texts(count: int, players: int, stack: int, seed: int) -> list[str]:
    """PHH texts of no-limit hold'em hands played by random agents through pokerkit."""
    from pokerkit import Automation, HandHistory, NoLimitTexasHoldem

    automations = (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
    )
    game = NoLimitTexasHoldem(automations, True, 0, (1, 2), 2)
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        state = game((stack,) * players, players)
        while state.status:
            roll = rng.random()
            if state.can_fold() and roll < 0.25:
                state.fold()
            elif state.can_complete_bet_or_raise_to() and roll < 0.45:
                low = state.min_completion_betting_or_raising_to_amount
                high = state.max_completion_betting_or_raising_to_amount
                assert low is not None and high is not None
                state.complete_bet_or_raise_to(rng.randint(int(low), int(high)))
            else:
                state.check_or_call()
        texts.append(HandHistory.from_game_state(game, state).dumps())
    return texts


def median_seconds(work: Callable[[], object], repeats: int) -> float:
    """The median CPU time of ``repeats`` runs of ``work`` (this process only).

    CPU time rather than wall time: the benchmark machine is shared, and time
    spent waiting for a core says nothing about the code.
    """
    times = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    """Run the benchmarks and print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    count, players, repeats = args.hands, args.players, args.repeats
    from pokerkit import HandHistory as PokerkitHistory

    equity_tables()  # built once per process; not part of a simulation's per-hand cost
    hands = list(simulate_seveneight(count, players, args.seed))
    text = dumps_hands(hands)
    peer_count = max(count // 4, 50)
    peer_texts = holdem_texts(peer_count, players, 200, args.seed)
    ours_actions = sum(len(h.actions) for h in hands) / count
    peer_actions = statistics.mean(len(PokerkitHistory.loads(t).actions) for t in peer_texts)

    def peer() -> None:
        for peer_text in peer_texts:
            for _state in PokerkitHistory.loads(peer_text):
                pass

    def replay_only() -> None:
        for hand in hands:
            replay(hand)

    def parse_and_replay() -> None:
        for hand in loads_hands(text):
            replay(hand)

    def simulate() -> None:
        for _hand in simulate_seveneight(count, players, args.seed + 1):
            pass

    peer_rate = peer_count / median_seconds(peer, repeats)
    rates = {
        "replay (parsed hands)": count / median_seconds(replay_only, repeats),
        "parse + replay": count / median_seconds(parse_and_replay, repeats),
        "simulate": count / median_seconds(simulate, repeats),
    }
    print(f"{players} players; 7 & 8 N78: {count} hands, {ours_actions:.1f} actions/hand;"
          f" pokerkit NT: {peer_count} hands, {peer_actions:.1f} actions/hand;"
          f" median of {repeats}")
    print(f"  {'pokerkit loads + replay':24s} {peer_rate:9.0f} hands/s   1.0x")
    for name, rate in rates.items():
        print(f"  {name:24s} {rate:9.0f} hands/s {rate / peer_rate:5.1f}x")


if __name__ == "__main__":
    main()
