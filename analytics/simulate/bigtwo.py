"""Simulated Big Two sessions: matches of several games between bots.

A *match* is a run of games between the same players, seated in order of play,
with a running point total: each game's ``starting_stacks`` are the totals so far
and its ``finishing_stacks`` the totals after it.  Games share the match's
``game_id`` and are numbered by ``round``.  The clock moves on a few minutes per
game and a day or two between matches.  Everything is drawn from one
``random.Random(seed)``, so a seed always gives the same histories.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator, Sequence
from typing import Final

from analytics.evaluator import bigtwo_card_key
from analytics.rules.bigtwo.engine import DECK_SIZE, HAND_SIZE, BigTwoState, card_order
from analytics.simulate.bots_bigtwo import BigTwoBot, make_bot
from parsers.cards import DECK, Card
from parsers.model import DEALER, Action, HandHistory, Verb
from parsers.rule_options import (
    BigTwoDeal,
    BigTwoRules,
    BigTwoScoring,
    FlushOrder,
    Game,
    Straights,
)

__all__ = ["NAMES", "deal_hands", "random_rules", "simulate_bigtwo"]

NAMES: Final = ("Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu")
"""The recurring players; each match seats a few of them."""

TABLES: Final = ("Kitchen", "Porch", "Back room")

# Suit orders seen in the source text (RULES.md allows any permutation; these are the
# ones people play, and few distinct orders keep the bots' per-rules tables few).
_SUIT_ORDERS: Final = ("dchs", "cdhs", "cshd", "csdh")
_MAX_ACTIONS: Final = 2_000
"""A game of Big Two takes at most ~150 steps; more means a bot is stuck in a loop."""


def random_rules(rng: random.Random) -> BigTwoRules:
    """A rule set with every knob drawn at random (suit order from the common ones)."""
    return BigTwoRules(
        deal=rng.choice(list(BigTwoDeal)),
        lead_card=rng.choice(("3d", "3c")),
        suit_order=rng.choice(_SUIT_ORDERS),
        straights=rng.choice(list(Straights)),
        flush_order=rng.choice(list(FlushOrder)),
        four_card_plays=rng.random() < 0.5,
        scoring=rng.choice(_DRAWN_SCORINGS),
    )


_DRAWN_SCORINGS: Final = (BigTwoScoring.CARDS, BigTwoScoring.CARDS_WITH_TWOS, BigTwoScoring.RANK)
"""The scorings ``random_rules`` draws from: those of before ``zero_sum``, so that a seed
gives the sessions (and the bundled samples) it always gave; ``rules=`` plays any other."""


def deal_hands(rng: random.Random, players: int, rules: BigTwoRules) -> list[list[Card]]:
    """Shuffle and deal; with ``deal = "all"`` the leftovers go to the holder of the lead card."""
    deck = list(DECK)
    rng.shuffle(deck)
    if rules.deal is BigTwoDeal.THIRTEEN:
        return [deck[p * HAND_SIZE:(p + 1) * HAND_SIZE] for p in range(players)]
    base = DECK_SIZE // players
    hands = [deck[p * base:(p + 1) * base] for p in range(players)]
    leftovers = deck[players * base:]
    if leftovers:
        lead = rules.lead
        holder = next((p for p, hand in enumerate(hands) if lead in hand), None)
        if holder is None:
            # The lead card is itself left over: it goes, with the rest, to the holder of
            # the lowest card dealt (docs/rules-bigtwo.md).
            lowest = min((c for hand in hands for c in hand),
                         key=lambda c: bigtwo_card_key(c, rules))
            holder = next(p for p, hand in enumerate(hands) if lowest in hand)
        hands[holder].extend(leftovers)
    return hands


def _play_game(state: BigTwoState, bots: Sequence[BigTwoBot], rng: random.Random,
               actions: list[Action]) -> None:
    """Let the bots play ``state`` to the end, recording each step in ``actions``."""
    state.close_deal()
    while not state.is_over:
        if len(actions) > _MAX_ACTIONS:
            raise RuntimeError("a simulated Big Two game did not end (bot loop)")
        player = state.turn
        assert player is not None
        action = bots[player - 1].choose(state, rng)
        state.apply(action)
        actions.append(action)


def simulate_bigtwo(
    n: int,
    players: int = 4,
    seed: int = 0,
    *,
    rules: BigTwoRules | None = None,
    random_knobs: bool = False,
    games_per_match: int = 8,
    styles: Sequence[str] | None = None,
    start: dt.datetime | None = None,
) -> Iterator[HandHistory]:
    """Yield ``n`` simulated Big Two games, deterministic for ``seed``.

    ``rules`` fixes the knobs (default: RULES.md's defaults); ``random_knobs`` draws
    new knobs for every match instead.  ``styles`` names the bot style per seat
    (``steady``, ``aggressive``, ``random``); by default each seat gets steady or
    aggressive at random.  Each match lasts ``games_per_match`` games.
    """
    if not 2 <= players <= 4:
        raise ValueError(f"Big Two is played by 2 to 4 players, not {players}")
    if games_per_match < 1:
        raise ValueError("games_per_match must be at least 1")
    if styles is not None and len(styles) != players:
        raise ValueError(f"styles names {len(styles)} bots for {players} players")
    rng = random.Random(seed)
    clock = start or dt.datetime(2026, 1, 5, 19, 30)
    produced = 0
    match = 0
    while produced < n:
        match += 1
        names = tuple(rng.sample(NAMES, players))
        seat_styles = list(styles) if styles is not None else [
            rng.choice(("steady", "aggressive")) for _ in range(players)]
        bots = [make_bot(style) for style in seat_styles]
        match_rules = random_rules(rng) if random_knobs else (rules or BigTwoRules())
        table = rng.choice(TABLES)
        game_id = f"b2-{seed}-{match:05d}"
        totals = (0,) * players
        for round_number in range(1, games_per_match + 1):
            if produced >= n:
                return
            hand, outcome_totals = _one_game(rng, match_rules, bots, players, totals)
            produced += 1
            yield HandHistory(
                game=Game.BIGTWO, variant="B2", rules=match_rules, actions=hand,
                starting_stacks=totals, finishing_stacks=outcome_totals,
                players=names, hand=produced, table=table, game_id=game_id,
                round=round_number, time=clock.time(), day=clock.day, month=clock.month,
                year=clock.year,
            )
            totals = outcome_totals
            clock += dt.timedelta(seconds=rng.randint(150, 600))
        # The next match: another evening, a day or two later.
        clock = (clock + dt.timedelta(days=rng.randint(1, 2))).replace(
            hour=rng.randint(18, 20), minute=rng.choice((0, 15, 30, 45)), second=0)


def _one_game(rng: random.Random, rules: BigTwoRules, bots: Sequence[BigTwoBot], players: int,
              totals: tuple[int, ...]) -> tuple[tuple[Action, ...], tuple[int, ...]]:
    """Deal and play one game; return its actions and the point totals after it."""
    state = BigTwoState(rules, players)
    order = card_order(rules)
    actions: list[Action] = []
    for player, cards in enumerate(deal_hands(rng, players, rules), start=1):
        ordered = tuple(sorted(cards, key=order.__getitem__))
        state.deal(player, ordered)
        actions.append(Action(DEALER, Verb.DEAL_HOLE, cards=ordered, target=player))
    _play_game(state, bots, rng, actions)
    # The recorded totals are the engine's result, so the history replays to them.
    finishing = state.outcome(totals).finishing_stacks
    assert finishing is not None
    return tuple(actions), finishing
