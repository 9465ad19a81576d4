"""Simulated sessions of 7 & 8 Poker, played by bots through the rules engine.

:func:`simulate_seveneight` yields :class:`~parsers.model.HandHistory` objects
that replay cleanly and round-trip through the writer and reader.  A session
seats ``players`` people chosen from a fixed list of names, each with a bot
style; the button moves one seat each hand, stacks carry over, and a player
who goes broke rebuys to the starting stack before the next hand (the hand
records it in the user field ``_rebuys``).  A new session (new people, new
table, the next evening) starts every ``session_hands`` hands.  Everything is
drawn from one ``random.Random(seed)``: the same arguments give the same hands.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from typing import Final

from analytics.rules.seveneight.engine import STRUCTURES, Phase, SevenEightState
from analytics.simulate.bots_seveneight import BOT_STYLES, SevenEightBot
from parsers.caching import BoundedCache
from parsers.cards import DECK, Card
from parsers.model import DEALER, Action, HandHistory, Verb
from parsers.rule_options import Betting, Game, SevenEightRules

__all__ = ["NAMES", "TABLES", "blinds_in_order", "simulate_seveneight"]

NAMES: Final = ("Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu",
                "Max", "Ned", "Ola", "Pia", "Quin")
"""The recurring players (17, enough for the largest table)."""

TABLES: Final = ("Kitchen", "Den", "Attic", "Porch")
"""Where sessions are played."""

_RULES: Final = SevenEightRules()
_DEAL: Final = Verb.DEAL_HOLE


def simulate_seveneight(
    n: int,
    players: int,
    seed: int,
    *,
    variant: str = "N78",
    starting_stack: int = 200,
    blinds: tuple[int, int] = (1, 2),
    ante: int = 0,
    session_hands: int = 100,
    styles: tuple[str, ...] = ("tight", "loose"),
) -> Iterator[HandHistory]:
    """Yield ``n`` hands of 7 & 8 with ``players`` players each, deterministic for ``seed``.

    ``variant`` is ``N78`` (no limit, ``min_bet`` = big blind), ``P78`` (pot
    limit) or ``F78`` (fixed limit: ``small_bet`` = big blind, ``big_bet``
    twice that).  ``styles`` are the bot styles seated players are drawn from
    (:data:`~analytics.simulate.bots_seveneight.BOT_STYLES`).
    """
    if not 2 <= players <= 17:
        raise ValueError(f"7 & 8 is played by 2 to 17 players, not {players}")
    structure = STRUCTURES.get(variant)
    if structure is None:
        raise ValueError(f"unknown 7 & 8 variant {variant!r} (expected N78, P78 or F78)")
    small, big = blinds
    if not 0 < small <= big or starting_stack <= big + ante:
        raise ValueError("need 0 < small blind <= big blind < starting stack - ante")
    unknown = [s for s in styles if s not in BOT_STYLES]
    if unknown or not styles:
        raise ValueError(f"unknown bot styles {unknown} (expected some of {sorted(BOT_STYLES)})")
    bots = {name: SevenEightBot(BOT_STYLES[name]) for name in styles}
    rng = random.Random(seed)
    sizes = (big, 2 * big) if structure is Betting.FIXED_LIMIT else (big, big)
    clock = dt.datetime(2026, 1, 1, 19, 0) + dt.timedelta(days=rng.randrange(300))
    number = 0
    while number < n:
        # A new session: people, their styles, the table and the evening.
        names = rng.sample(NAMES, players)
        seated = [bots[styles[rng.randrange(len(styles))]] for _ in names]
        stacks = [starting_stack] * players
        table = TABLES[rng.randrange(len(TABLES))]
        clock = clock.replace(hour=19 + rng.randrange(3), minute=rng.randrange(60), second=0)
        button = rng.randrange(players)
        for _ in range(min(session_hands, n - number)):
            number += 1
            button = (button + 1) % players
            rebuys = [names[s] for s in range(players) if stacks[s] == 0]
            for seat in range(players):
                if stacks[seat] == 0:
                    stacks[seat] = starting_stack
            # PHH order: p1 is left of the button, pN the button.
            seats = [(button + 1 + i) % players for i in range(players)]
            hand_stacks = tuple(stacks[s] for s in seats)
            nets, actions, outcome_stacks, won = _play_hand(
                rng, [seated[s] for s in seats], hand_stacks, structure, sizes, small, big, ante)
            for i, seat in enumerate(seats):
                stacks[seat] += nets[i]
            user: tuple[tuple[str, object], ...] = (("_rebuys", rebuys),) if rebuys else ()
            fixed = structure is Betting.FIXED_LIMIT
            yield HandHistory(
                game=Game.SEVENEIGHT,
                variant=variant,
                rules=_RULES,
                actions=actions,
                starting_stacks=hand_stacks,
                antes=(ante,) * players,
                blinds_or_straddles=blinds_in_order(players, small, big),
                min_bet=None if fixed else big,
                small_bet=sizes[0] if fixed else None,
                big_bet=sizes[1] if fixed else None,
                finishing_stacks=outcome_stacks,
                winnings=won,
                players=tuple(names[s] for s in seats),
                seats=tuple(s + 1 for s in seats),
                seat_count=players,
                hand=number,
                table=table,
                time=clock.time(),
                day=clock.day,
                month=clock.month,
                year=clock.year,
                user_fields=user,
            )
            clock += dt.timedelta(seconds=rng.randrange(40, 180))
        clock += dt.timedelta(days=1)


_ACTIONS: Final = BoundedCache[tuple[int, ...], Action]("analytics.simulate.seveneight.actions",
                                                        100_000)


def _cached_action(actor: int, verb: Verb, cards: tuple[Card, ...], target: int | None) -> Action:
    """The same immutable Action object for the same step: building a frozen dataclass costs
    more than a dictionary look-up, and hands repeat these steps endlessly.  The key is made of
    plain integers (cards and verbs are singletons, so their ids identify them), which hash
    fastest."""
    key = (actor, id(verb), target or 0, *map(id, cards))
    action = _ACTIONS.get(key)
    if action is None:
        action = _ACTIONS.put(key, Action(actor, verb, cards, target=target))
    return action


def blinds_in_order(players: int, small: int, big: int) -> tuple[int, ...]:
    """The blinds array in PHH order (heads-up the button, p2, posts the small blind)."""
    if players == 2:
        return (big, small)
    return (small, big) + (0,) * (players - 2)


def _play_hand(
    rng: random.Random,
    bots: list[SevenEightBot],
    stacks: tuple[int, ...],
    structure: Betting,
    sizes: tuple[int, int],
    small: int,
    big: int,
    ante: int,
) -> tuple[tuple[int, ...], tuple[Action, ...], tuple[int, ...], tuple[int, ...]]:
    """Play one hand; return nets, actions, finishing stacks and chips won from pots."""
    count = len(stacks)
    state = SevenEightState(stacks, [ante] * count, blinds_in_order(count, small, big),
                            structure, sizes)
    deck = rng.sample(range(52), 3 * count)  # every card the hand can use, in deal order
    actions: list[Action] = []
    append = actions.append
    cached = _cached_action
    for player in range(count):
        hole = (DECK[deck[2 * player]], DECK[deck[2 * player + 1]])
        state.deal(player, hole)
        append(cached(DEALER, _DEAL, hole, player + 1))
    for player in range(count):
        first, second = state.holes[player]
        card = bots[player].choose_up((first, second), rng)
        state.turn_up(player, card)
        append(cached(player + 1, Verb.TURN_UP, (card,), None))
    next_card = 2 * count
    in_hand = state.in_hand
    phase = state.phase
    while phase is not Phase.OVER:
        if phase is Phase.DEAL_THIRD:
            for player in range(count):
                if in_hand[player]:
                    third: tuple[Card, ...] = (DECK[deck[next_card]],)
                    next_card += 1
                    state.deal(player, third)
                    append(cached(DEALER, _DEAL, third, player + 1))
        elif phase is Phase.SHOWDOWN:
            for player in range(count):
                if in_hand[player]:
                    shown = tuple(state.holes[player]) if bots[player].shows(state, player) else ()
                    state.show_or_muck(player, shown)
                    append(cached(player + 1, Verb.SHOW_MUCK, shown, None))
        else:
            actor = state.actor
            assert actor is not None
            decision = bots[actor].decide(state, rng)
            if decision.kind == "cbr":
                state.bet_or_raise_to(actor, decision.amount)
                append(Action(actor + 1, Verb.BET_RAISE, amount=decision.amount))
            elif decision.kind == "cc":
                state.check_or_call(actor)
                append(cached(actor + 1, Verb.CHECK_CALL, (), None))
            else:
                state.fold(actor)
                append(cached(actor + 1, Verb.FOLD, (), None))
        phase = state.phase
    outcome = state.outcome()
    won = outcome.extra["winnings"]
    assert isinstance(won, tuple)
    assert outcome.finishing_stacks is not None
    return outcome.nets, tuple(actions), outcome.finishing_stacks, won
