"""Simulated Rummoli sessions: games of several rounds played by bots, as hand histories.

:func:`simulate_rummoli` plays ``n`` rounds in all, deterministically for a seed:
games of ``rounds_per_game`` ordinary rounds (the deal rotating clockwise, the
board and the stacks carrying over) ending with the end-of-game poker per the
``finale`` knob.  Each round is a :class:`~parsers.model.HandHistory` with
``players`` (names), ``seats``, ``table``, ``game_id``/``round``, ``dealer``,
``board_before``, a plausible clock (``time``/``day``/``month``/``year``) and
``finishing_stacks``; write them with :func:`parsers.write_hands`.

A player with no chips sits out: the round's ``players``, ``seats`` and
``starting_stacks`` list only the players who play it (``seats`` keeps each one's
seat number at the table).  A game ends early when fewer than two players have
chips; then there is no finale and the board's chips stay unplayed.  The same holds
in the middle of a ``per_pot`` finale: once one player holds every chip off the
board the game is over and the pots not played for yet stay on the board.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

from analytics.rules.rummoli.cards import NINE_POTS
from analytics.rules.rummoli.state import Phase, RummoliState
from analytics.simulate.bots_rummoli import STYLES, RummoliBot
from parsers.cards import DECK
from parsers.model import DEALER, RUMMOLI_POTS, Action, HandHistory, Verb
from parsers.rule_options import Betting, Claim, Finale, Game, RummoliRules

__all__ = ["NAMES", "RummoliOptions", "deal_round", "finale_pots", "play_round",
           "simulate_rummoli"]

NAMES: Final = ("Ann", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu")
"""The recurring players: each game seats a subset of them."""

_VARIANT_BETTING: Final = {"NRM": Betting.NO_LIMIT, "PRM": Betting.POT_LIMIT,
                           "FRM": Betting.FIXED_LIMIT}


@dataclass(frozen=True, slots=True)
class RummoliOptions:
    """Options of :func:`simulate_rummoli` (pass them as keyword arguments).

    ``styles`` lists the bot styles seats are drawn from (names of
    :data:`~analytics.simulate.bots_rummoli.STYLES`).  ``min_bet`` None leaves
    the format's default (1); ``small_bet`` is the fixed bet of ``FRM``.
    """

    variant: str = "NRM"
    ante: int = 1
    claim: str = "auto"
    finale: str = "single"
    rounds_per_game: int = 8
    starting_stack: int = 60
    min_bet: int | None = None
    small_bet: int = 2
    table: str = "Kitchen"
    styles: tuple[str, ...] = ("cautious", "bold")
    start: dt.datetime = field(default_factory=lambda: dt.datetime(2026, 1, 2, 19, 30))

    def __post_init__(self) -> None:
        if self.variant not in _VARIANT_BETTING:
            raise ValueError(f"variant must be one of {', '.join(_VARIANT_BETTING)}, not"
                             f" {self.variant!r}")
        unknown = [s for s in self.styles if s not in STYLES]
        if unknown or not self.styles:
            raise ValueError(f"unknown bot styles {unknown} (known: {', '.join(STYLES)})")
        if self.rounds_per_game < 1 or self.starting_stack < 1:
            raise ValueError("rounds_per_game and starting_stack must be at least 1")


def deal_round(state: RummoliState, rng: random.Random, actions: list[Action]) -> None:
    """Shuffle and deal one card at a time from the dealer's left, the widow after the dealer."""
    deck = list(range(52))
    rng.shuffle(deck)
    n, dealer = state.n, state.dealer - 1
    hands: list[list[int]] = [[] for _ in range(n + 1)]  # the widow is hands[n]
    order = [(dealer + 1 + i) % n for i in range(n)] + [n]
    for position, code in enumerate(deck):
        hands[order[position % (n + 1)]].append(code)
    for index in order:
        cards = tuple(DECK[c] for c in sorted(hands[index]))
        if index == n:
            action = Action(DEALER, Verb.DEAL_WIDOW, cards=cards)
        else:
            action = Action(DEALER, Verb.DEAL_HOLE, cards=cards, target=index + 1)
        state.apply(action)
        actions.append(action)


def play_round(state: RummoliState, bots: Sequence[RummoliBot], rng: random.Random) -> list[Action]:
    """Deal and play ``state``'s round to its end with ``bots[i]`` as player ``i + 1``.

    Returns the actions in order; ``state`` holds the result.
    """
    actions: list[Action] = []
    deal_round(state, rng, actions)
    apply = state.apply
    while True:
        phase = state.phase
        if phase is Phase.OVER:
            break
        if phase is Phase.IMPASSE:
            action = Action(DEALER, Verb.IMPASSE)
        else:
            player = state.turn
            assert player is not None
            action = bots[player - 1].act(state, player)
        apply(action)
        actions.append(action)
        if action.verb is Verb.PLAY and state.claimable():
            layer = action.actor
            for pot in bots[layer - 1].claims(state, layer):
                claim = Action(layer, Verb.CLAIM, pot=pot)
                apply(claim)
                actions.append(claim)
    return actions


@dataclass(slots=True)
class _Game:
    """A game in progress: who sits where, with how many chips, and the board."""

    number: int
    names: list[str]
    bots: list[RummoliBot]
    stacks: list[int]
    dealer_seat: int
    board: list[int]
    round: int = 0

    def seated(self) -> list[int]:
        """Seat indices of the players with chips (the others sit out)."""
        return [seat for seat, stack in enumerate(self.stacks) if stack > 0]

    def pass_deal(self) -> None:
        """The deal passes one seat clockwise, to the next player with chips."""
        seats = len(self.stacks)
        for step in range(1, seats + 1):
            seat = (self.dealer_seat + step) % seats
            if self.stacks[seat] > 0:
                self.dealer_seat = seat
                return


class _Session:
    def __init__(self, players: int, seed: int, options: RummoliOptions) -> None:
        if not 2 <= players <= 8:
            raise ValueError(f"Rummoli is played by 2 to 8 players, not {players}")
        self.players = players
        self.seed = seed
        self.options = options
        self.rng = random.Random(seed)
        self.clock = options.start
        self.rules = RummoliRules(ante=options.ante, claim=Claim(options.claim),
                                  finale=Finale(options.finale))
        self.betting = _VARIANT_BETTING[options.variant]

    def new_game(self, number: int) -> _Game:
        rng, options = self.rng, self.options
        names = rng.sample(NAMES, self.players)
        bots = [RummoliBot(STYLES[rng.choice(options.styles)], random.Random(rng.getrandbits(64)))
                for _ in names]
        # Game nights a week apart; the first deal goes to a random seat.
        self.clock = options.start + dt.timedelta(days=7 * (number - 1))
        return _Game(number, names, bots, [options.starting_stack] * self.players,
                     rng.randrange(self.players), [0] * NINE_POTS)

    def play(self, game: _Game, finale_pot: str | None) -> HandHistory:
        options = self.options
        seats = game.seated()
        stacks = [game.stacks[s] for s in seats]
        dealer = seats.index(game.dealer_seat) + 1
        board_before = tuple(game.board)
        fixed = self.betting is Betting.FIXED_LIMIT
        state = RummoliState(stacks, dealer, rules=self.rules, betting=self.betting,
                             min_bet=options.small_bet if fixed else (options.min_bet or 1),
                             board_before=board_before, finale_pot=finale_pot)
        actions = play_round(state, [game.bots[s] for s in seats], self.rng)
        outcome = state.outcome()
        assert outcome.finishing_stacks is not None and outcome.board_after is not None
        for seat, stack in zip(seats, outcome.finishing_stacks, strict=True):
            game.stacks[seat] = stack
        game.board = list(outcome.board_after)
        game.round += 1
        when = self.clock
        self.clock += dt.timedelta(seconds=self.rng.randint(100, 420))
        hand = HandHistory(
            game=Game.RUMMOLI, variant=options.variant, rules=self.rules, actions=tuple(actions),
            starting_stacks=tuple(stacks), finishing_stacks=outcome.finishing_stacks,
            min_bet=None if fixed else options.min_bet, small_bet=options.small_bet if fixed
            else None, players=tuple(game.names[s] for s in seats),
            seats=tuple(s + 1 for s in seats), seat_count=self.players, table=options.table,
            game_id=f"s{self.seed}-g{game.number:03d}", round=game.round, dealer=dealer,
            board_before=board_before if any(board_before) else None, finale_pot=finale_pot,
            time=when.time().replace(microsecond=0), day=when.day, month=when.month,
            year=when.year,
        )
        game.pass_deal()
        return hand


def finale_pots(finale: Finale, board: Sequence[int]) -> list[str]:
    """The end-of-game rounds still to play for this board, in order: the ``finale_pot`` of
    each (``all`` for ``single``; none for ``none`` or an empty board)."""
    if finale is Finale.NONE or not any(board):
        return []
    if finale is Finale.SINGLE:
        return ["all"]
    # per_pot: each pot with chips, smallest first (ties in board order).
    return [RUMMOLI_POTS[i] for i in sorted((i for i in range(NINE_POTS) if board[i]),
                                            key=lambda i: (board[i], i))]


def simulate_rummoli(n: int, players: int, seed: int, **options: object) -> Iterator[HandHistory]:
    """Yield ``n`` simulated Rummoli rounds of ``players`` players, deterministic for ``seed``.

    Options are the fields of :class:`RummoliOptions` (``variant``, ``ante``,
    ``claim``, ``finale``, ``rounds_per_game``, ``starting_stack``, ``min_bet``,
    ``small_bet``, ``table``, ``styles``, ``start``); an unknown option raises
    TypeError.  Each game plays up to ``rounds_per_game`` ordinary rounds, fewer
    when the budget of ``n`` rounds runs short (one round is kept for the
    finale), then its finale.  With ``per_pot`` the session's last game may be
    cut short by the budget in the middle of its finale rounds.
    """
    config = RummoliOptions(**options)  # type: ignore[arg-type]
    session = _Session(players, seed, config)
    finale = session.rules.finale
    reserve = 0 if finale is Finale.NONE else 1
    produced = 0
    number = 0
    while produced < n:
        number += 1
        game = session.new_game(number)
        budget = n - produced
        ordinary = min(config.rounds_per_game, max(1, budget - reserve))
        for _ in range(ordinary):
            if len(game.seated()) < 2:
                break
            yield session.play(game, None)
            produced += 1
        if len(game.seated()) < 2:
            continue
        for pot in finale_pots(finale, game.board):
            # A per_pot finale can leave one player with every chip off the board: he has
            # no one to play the next pot against, so the game is over (its chips stay).
            if produced >= n or len(game.seated()) < 2:
                break
            yield session.play(game, pot)
            produced += 1
