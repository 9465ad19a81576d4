"""Playing against the bots: the computer deals and the bots act through the same recorder.

A table played against the bots is a :class:`~analytics.record.table.RecordedTable`
whose setup names a bot style per seat (an empty style is the person at the
screen); between hands bots leave and new ones sit down through the table's ``leave``
and ``join``, so the computer reads each seat's style now (``RecordedTable.bot_styles``).
:func:`automatic_action` gives the next step when it is not the person's: the dealer's
cards (a shuffle fixed by the table's seed and the hand
number, so a reload deals the same cards) or the move of the bot to act, chosen
by the simulator's bots (analytics/simulate/bots_*.py) from the engine's state.
The actions go through :meth:`RecordedTable.record` like any recorded step, so
the history holds every card, and the hand lands in the statistics.

:func:`seat_view` is what the person sees: his own cards, the cards turned up or
shown, how many cards the others hold, the pot or the trick.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from analytics.record.hand import HandInProgress, StepKind, deal_action, unseen_cards
from analytics.record.table import BOT_STYLE_NAMES, RecordedTable
from analytics.rules.bigtwo.engine import BigTwoState, cards_of_mask
from analytics.rules.rummoli.engine import state_from_hand
from analytics.rules.rummoli.state import Phase as RummoliPhase
from analytics.rules.rummoli.state import RummoliState
from analytics.rules.seveneight.engine import SevenEightState
from analytics.simulate.bigtwo import deal_hands
from analytics.simulate.bots_bigtwo import make_bot
from analytics.simulate.bots_rummoli import STYLES as RUMMOLI_STYLES
from analytics.simulate.bots_rummoli import RummoliBot
from analytics.simulate.bots_seveneight import BOT_STYLES as SEVENEIGHT_STYLES
from analytics.simulate.bots_seveneight import SevenEightBot
from analytics.simulate.rummoli import deal_round
from parsers.cards import DECK, UNKNOWN, Card
from parsers.model import DEALER, Action, Verb
from parsers.rule_options import BigTwoRules, Game

__all__ = ["BOT_NAMES", "BOT_STYLE_NAMES", "SeatView", "automatic_action", "is_persons_turn",
           "new_bot_name", "player_of_seat", "seat_view", "seated_bot_names"]

BOT_NAMES: Final = ("Ada", "Bix", "Cog", "Dot", "Eon", "Fiz", "Gig", "Hex", "Ivo", "Jax",
                    "Kip", "Lux", "Max", "Nib", "Orb", "Pix")
"""The bots' names, in the order the Play page seats them."""


def seated_bot_names(person: str, count: int) -> list[str]:
    """The names of ``count`` bots sitting down with ``person``: the first of
    :data:`BOT_NAMES` but the person's own (a table refuses a name given twice, as it is
    written, and the person only chose one)."""
    return [bot for bot in BOT_NAMES if bot != person][:count]


def new_bot_name(table: RecordedTable) -> str:
    """A name for a bot joining ``table``: the first of :data:`BOT_NAMES` nobody at the
    table has had (seated now, at the start, or in a filed hand), so that a new bot's play
    never counts in the statistics of one that left; ``Bot<N>`` once those run out."""
    used = {*table.setup.players, *(name for name, _ in table.seating)}
    for filed in table.filed:
        used.update(filed.hand.players or ())
    return next((name for name in BOT_NAMES if name not in used),
                next(f"Bot{n}" for n in range(1, len(used) + 2) if f"Bot{n}" not in used))


def _seat_of(hand: HandInProgress, player: int) -> int:
    """The 0-based seat of the hand's ``player`` (7 & 8 hands list their seats)."""
    seats = hand.header.seats
    return seats[player - 1] - 1 if seats is not None else player - 1


def player_of_seat(hand: HandInProgress, seat: int) -> int | None:
    """The hand's player number of 0-based ``seat`` (None when he sits out)."""
    seats = hand.header.seats
    if seats is None:
        return seat + 1
    return seats.index(seat + 1) + 1 if seat + 1 in seats else None


def _shuffle(table: RecordedTable) -> list[Card]:
    """The deck of the hand in progress, shuffled by the table's seed and the hand number."""
    deck = list(DECK)
    random.Random(f"{table.setup.seed}-{table.number}").shuffle(deck)
    return deck


def _dealt_cards(table: RecordedTable, hand: HandInProgress, player: int,
                 count: int) -> tuple[Card, ...]:
    if hand.game is Game.RUMMOLI:  # the simulator's deal, one card at a time, then the widow
        actions: list[Action] = []
        rng = random.Random(f"{table.setup.seed}-{table.number}")
        deal_round(state_from_hand(hand.header), rng, actions)
        verb = Verb.DEAL_WIDOW if player == 0 else Verb.DEAL_HOLE
        return next(a.cards for a in actions if a.verb is verb and (a.target or 0) == player)
    if isinstance(hand.header.rules, BigTwoRules):
        rng = random.Random(f"{table.setup.seed}-{table.number}")
        return tuple(deal_hands(rng, hand.header.num_players, hand.header.rules)[player - 1])
    unseen = {card.code for card in unseen_cards(hand.actions)}
    return tuple([card for card in _shuffle(table) if card.code in unseen][:count])


def is_persons_turn(table: RecordedTable) -> bool:
    """True when the hand waits for the person at the screen."""
    hand = table.hand
    step = table.next_step()
    if hand is None or step.kind in (StepKind.OVER, StepKind.DEAL) or step.player == DEALER:
        return False
    return table.bot_styles[_seat_of(hand, step.player)] == ""


def automatic_action(table: RecordedTable, rng: random.Random) -> Action | None:
    """The next action when the dealer or a bot is to act; None when the person is to act
    or the table is over."""
    hand = table.hand
    step = table.next_step()
    if hand is None or step.kind is StepKind.OVER:
        return None
    if step.kind is StepKind.DEAL:
        return deal_action(step.player, _dealt_cards(table, hand, step.player, step.deal_count))
    if step.choices and step.choices[0].actor == DEALER:  # a Rummoli impasse
        return step.choices[0]
    style = table.bot_styles[_seat_of(hand, step.player)]
    if not style:
        return None
    state = hand.state()
    if isinstance(state, BigTwoState):
        return make_bot(style).choose(state, rng)
    if isinstance(state, RummoliState):
        return RummoliBot(RUMMOLI_STYLES[style], rng).act(state, step.player)
    bot = SevenEightBot(SEVENEIGHT_STYLES[style])
    index = step.player - 1
    if step.kind is StepKind.TURN_UP:
        first, second = state.holes[index]
        return Action(step.player, Verb.TURN_UP, (bot.choose_up((first, second), rng),))
    if step.kind is StepKind.SHOWDOWN:
        shown = tuple(state.holes[index]) if bot.shows(state, index) else ()
        return Action(step.player, Verb.SHOW_MUCK, shown)
    decision = bot.decide(state, rng)
    if decision.kind == "cbr":
        return Action(step.player, Verb.BET_RAISE, amount=decision.amount)
    return Action(step.player, Verb.CHECK_CALL if decision.kind == "cc" else Verb.FOLD)


@dataclass(frozen=True, slots=True)
class SeatView:
    """What the person in ``seat`` sees of the hand in progress.

    ``cards[i]`` are player ``i + 1``'s cards as the person sees them (``??`` for
    a card he may not see); ``up`` the 7 & 8 up cards; ``stacks`` the chips behind
    (7 & 8, Rummoli) or the match score (Big Two); ``pot`` the chips in the middle;
    ``trick`` the Big Two play to beat and ``trick_player`` who made it; ``board``
    the nine Rummoli pots (``RUMMOLI_POTS`` order) and ``laid`` the cards laid so far;
    ``bets`` the chips each player has put in during the betting round under way (7 & 8's
    blinds from the deal on, Rummoli's antes not; none between rounds and in Big Two);
    ``folded`` who has folded in Rummoli's poker betting (he plays on in the laying
    phase); ``stacks_are`` the word shown before a stack that is not chips (Big Two's ``score``).
    """

    names: tuple[str, ...]
    cards: tuple[tuple[Card, ...], ...]
    up: tuple[Card | None, ...]
    stacks: tuple[int, ...]
    in_hand: tuple[bool, ...]
    pot: int
    trick: tuple[Card, ...]
    trick_player: int | None
    me: int | None
    board: tuple[int, ...] = ()
    laid: tuple[Card, ...] = ()
    bets: tuple[int, ...] = ()
    folded: tuple[bool, ...] = ()
    stacks_are: str = ""


def seat_view(hand: HandInProgress, seat: int | None) -> SeatView:
    """The hand in progress as the person in 0-based ``seat`` sees it (None: as the recorder
    of a live game sees it, every card entered)."""
    me = player_of_seat(hand, seat) if seat is not None else None
    everything = seat is None
    state = hand.state()
    names = hand.header.players or ()
    if isinstance(state, SevenEightState):
        betting = state.betting
        stacks = tuple(betting.stacks) if betting is not None else tuple(state.stacks)
        cards = tuple(
            tuple(holes) if everything or player + 1 == me or state.shown[player] is not None
            else tuple(card if card is state.up_cards[player] else UNKNOWN for card in holes)
            for player, holes in enumerate(state.holes))
        return SeatView(names, cards, tuple(state.up_cards), stacks, tuple(state.in_hand),
                        state.pot, (), None, me,
                        bets=state.round_bets)
    if isinstance(state, RummoliState):
        counts = tuple(state.hand_mask(p).bit_count() for p in range(1, state.n + 1))
        cards = tuple(state.hand_of(p) if everything or p == me else (UNKNOWN,) * counts[p - 1]
                      for p in range(1, state.n + 1))
        laid = 0
        for mask in state.laid_by:
            laid |= mask
        return SeatView(names, cards, (None,) * state.n, state.chips_behind(),
                        tuple(count > 0 or state.phase is RummoliPhase.DEAL
                              for count in counts), 0, (), None, me,
                        tuple(state.board), cards_of_mask(laid), bets=state.poker_bets(),
                        folded=state.poker_folded())
    counts = tuple(state.card_count(p) for p in range(1, state.players + 1))
    cards = tuple(state.cards_of(p) if everything or p == me else (UNKNOWN,) * counts[p - 1]
                  for p in range(1, state.players + 1))
    starting = hand.header.starting_stacks or (0,) * state.players
    return SeatView(names, cards, (None,) * state.players, tuple(starting),
                    tuple(count > 0 or not state.plays for count in counts), 0,
                    state.table_cards if state.table is not None else (),
                    state.table_player if state.table is not None else None, me,
                    stacks_are="score")
