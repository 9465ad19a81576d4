"""A hand being recorded: its header, the actions so far, and what may come next.

Nothing here knows a rule.  Every step is checked twice before it is taken: the
hand with the new action is written with the parsers' writer and read back (the
reader's structural checks: syntax, cards dealt twice; what it reads must equal
what was written), then replayed by the game's rules engine from the start.  A
step either passes both and becomes part of the hand, or is refused with the
engine's or the reader's message.  What the next step may be (:class:`NextStep`)
is what the engine's legal-action queries say: the bet sizes of its betting
round, the cards it lets a player turn up, the Big Two plays that beat the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final

from analytics.rules import replay
from analytics.rules.base import Outcome, RuleError
from analytics.rules.bigtwo.engine import BigTwoState, possible_takers
from analytics.rules.bigtwo.engine import Phase as BigTwoPhase
from analytics.rules.rummoli.engine import state_from_hand
from analytics.rules.rummoli.state import RummoliState
from analytics.rules.seveneight.engine import Phase, SevenEightState
from parsers.cards import DECK, UNKNOWN, Card
from parsers.errors import HandlabError
from parsers.model import DEALER, Action, HandHistory, Verb
from parsers.reader import loads_hands
from parsers.rule_options import BigTwoRules, BigTwoScoring, Game
from parsers.writer import dumps_hand

__all__ = ["RECORDABLE", "EngineState", "HandInProgress", "NextStep", "StepKind",
           "StepRefused", "deal_action", "unseen_cards"]

EngineState = SevenEightState | BigTwoState | RummoliState
"""The rules engines' states the recorder drives."""

RECORDABLE: Final = frozenset({Game.SEVENEIGHT, Game.BIGTWO, Game.RUMMOLI})
"""Games the recorder drives (docs/recording.md)."""


class StepRefused(HandlabError):
    """A step the reader or the rules engine does not accept; the message says why."""


class StepKind(StrEnum):
    """What a hand waits for."""

    DEAL = "deal"  # the dealer gives ``player`` ``deal_count`` cards
    TURN_UP = "turn_up"  # 7 & 8: ``player`` turns one hole card up
    BET = "bet"  # fold, check or call, bet or raise
    SHOWDOWN = "showdown"  # show or muck
    PLAY = "play"  # Big Two: play a combination or pass
    CHOOSE = "choose"  # Rummoli: one of the engine's ``choices`` (amounts within a range)
    TAKER = "taker"  # Big Two, zero_sum: who (of ``waiting``), if anyone, takes all losses
    OVER = "over"


@dataclass(frozen=True, slots=True)
class NextStep:
    """What the hand waits for, as the rules engine says.

    ``player`` is the 1-based player concerned (0 once the hand is over).  DEAL:
    ``deal_count`` cards, the most the engine accepts in one deal to him.
    TURN_UP: ``up_choices`` are his known hole cards the engine lets him turn up;
    ``hidden`` counts his unknown (``??``) cards (then any unseen card may be
    named).  BET: ``call`` (0 = check) and ``min_to``/``max_to`` (None when he
    may not bet or raise).  SHOWDOWN: ``holding`` are his cards, ``hidden`` of them
    unknown: they must be named to be shown.  PLAY: ``plays`` are the
    combinations that beat the table (weakest first), ``can_pass``, and
    ``holding`` his cards.  ``waiting`` lists every player the engine waits for when
    several may act in any order (the deal, turning up, the showdown); ``player`` is
    the first of them.  CHOOSE (Rummoli): ``choices`` are the engine's legal actions (the
    widow, the auction, the betting, the showdown, the lays, claims, an impasse); a bet or
    bid may be any amount from ``min_to`` to ``max_to``, and ``call`` is what a check or
    call puts in.  A Rummoli DEAL to player 0 is the widow's; ``deal_count`` 0 there means
    any number (the engine checks the sizes once the whole deck is out).  TAKER: a Big Two
    game under ``zero_sum`` scoring is over, and the recorder says who takes on all losses
    (RULES.md 2), one of ``waiting`` (the winner, the player before him), or nobody.
    """

    kind: StepKind
    player: int = 0
    deal_count: int = 0
    up_choices: tuple[Card, ...] = ()
    hidden: int = 0
    call: int = 0
    min_to: int | None = None
    max_to: int | None = None
    holding: tuple[Card, ...] = ()
    plays: tuple[tuple[Card, ...], ...] = ()
    can_pass: bool = False
    waiting: tuple[int, ...] = ()
    choices: tuple[Action, ...] = ()


_OVER: Final = NextStep(StepKind.OVER)


def unseen_cards(actions: Sequence[Action]) -> tuple[Card, ...]:
    """The cards of the deck that no action of the hand names yet, in deck order."""
    seen = {card.code for action in actions for card in action.cards if card.is_known}
    return tuple(card for card in DECK if card.code not in seen)


@dataclass(frozen=True, slots=True)
class HandInProgress:
    """A hand's header (a :class:`HandHistory` without actions) and its actions so far.

    Immutable: :meth:`with_action` and :meth:`with_actions` return the next
    hand, so undo is keeping the previous one.  Build the first with
    :meth:`start`, which checks the header.
    """

    header: HandHistory
    actions: tuple[Action, ...] = ()
    known: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    """The engine state and next step once worked out (a click asks for them several
    times; only what reads the state, never changes it, may use them)."""

    @staticmethod
    def start(header: HandHistory) -> HandInProgress:
        """A new hand of ``header`` (its actions are dropped); raises :class:`StepRefused`
        when the reader or the engine rejects the header."""
        hand = HandInProgress(replace(header, actions=()))
        if header.game not in RECORDABLE:
            raise StepRefused(f"the recorder does not record {header.game} hands yet")
        hand.checked(())
        return hand

    @property
    def game(self) -> Game:
        """The hand's game."""
        assert self.header.game is not None
        return self.header.game

    @property
    def history(self) -> HandHistory:
        """The hand so far as a :class:`HandHistory`."""
        return replace(self.header, actions=self.actions)

    def state(self) -> EngineState:
        """The engine's state after the actions so far (replayed from the start once)."""
        state = self.known.get("state")
        if state is None:
            state = self.known["state"] = _engine_state(self.history)
        assert isinstance(state, SevenEightState | BigTwoState | RummoliState)
        return state

    def checked(self, actions: tuple[Action, ...]) -> EngineState:
        """The engine state after ``actions``; raises :class:`StepRefused` unless the reader
        reads the hand with them back as written and the engine accepts every step."""
        hand = replace(self.header, actions=actions)
        text = dumps_hand(hand)
        read = loads_hands(text, name="the recorded hand")
        if len(read) != 1 or read[0].errors:
            problem = read[0].errors[0] if read and read[0].errors else "it is not one hand"
            raise StepRefused(str(problem))
        if read[0] != hand:
            raise StepRefused("the hand would not read back as recorded")
        try:
            return _engine_state(hand)
        except RuleError as error:
            raise StepRefused(error.message) from None

    def with_action(self, action: Action) -> HandInProgress:
        """The hand after ``action``; raises :class:`StepRefused` when it is not allowed."""
        if self.next_step().kind is StepKind.OVER:
            raise StepRefused("the hand is over")
        return self.with_actions((*self.actions, action))

    def with_actions(self, actions: tuple[Action, ...]) -> HandInProgress:
        """The hand with ``actions`` instead (a reveal rewrites earlier deals), checked."""
        state = self.checked(actions)
        return HandInProgress(self.header, actions, {"state": state})

    def next_step(self) -> NextStep:
        """What the hand waits for, from the engine's legal-action queries."""
        step = self.known.get("step")
        if step is None:
            state = self.state()
            if isinstance(state, SevenEightState):
                step = _seveneight_next(state)
            elif isinstance(state, BigTwoState):
                step = _bigtwo_next(state, self.actions)
            else:
                step = _rummoli_next(state)
            self.known["step"] = step
        assert isinstance(step, NextStep)
        return step

    @property
    def is_over(self) -> bool:
        """True once the engine says the hand is finished."""
        return self.next_step().kind is StepKind.OVER

    def outcome(self) -> Outcome:
        """The finished hand's outcome (raises :class:`StepRefused` before the end)."""
        state = self.state()
        try:
            if isinstance(state, BigTwoState):
                return state.outcome(self.header.starting_stacks, self.header.takes_all_losses)
            return state.outcome()
        except RuleError as error:
            raise StepRefused(error.message) from None

    def finished(self) -> HandHistory:
        """The complete hand with its finishing stacks (and 7 & 8 winnings) as the engine
        derives them; replayed once more as a whole, as ingest will."""
        outcome = self.outcome()
        won = outcome.extra.get("winnings")
        hand = replace(self.history, finishing_stacks=outcome.finishing_stacks,
                       winnings=tuple(won) if isinstance(won, tuple) else None)
        try:
            replay(hand)
        except RuleError as error:  # pragma: no cover - the same engine accepted every step
            raise StepRefused(error.message) from None
        return hand

    def taker_choices(self) -> tuple[int, ...]:
        """Who may take on all losses in this finished Big Two game under ``zero_sum``
        scoring (RULES.md 2: the winner, for going out without announcing his last card,
        or the player before him, for not stopping him); none for any other hand."""
        state = self.state()
        rules = self.header.rules
        if (not isinstance(state, BigTwoState) or not isinstance(rules, BigTwoRules)
                or rules.scoring is not BigTwoScoring.ZERO_SUM or not state.is_over):
            return ()
        return possible_takers(state.players, state.finishing_order[0])

    def with_taker(self, taker: int | None) -> HandInProgress:
        """The finished hand with ``taker`` (None: nobody) taking on all losses; raises
        :class:`StepRefused` for a player :meth:`taker_choices` does not offer."""
        if taker is not None and taker not in self.taker_choices():
            raise StepRefused(f"p{taker} cannot take on all losses here (RULES.md 2)")
        return HandInProgress(replace(self.header, takes_all_losses=taker), self.actions,
                              {"state": self.state()})

    def holding(self, player: int) -> tuple[Card, ...]:
        """The cards ``player`` holds now as recorded (``??`` where unknown)."""
        return _holding(self.state(), player)

    def reveal(self, player: int, cards: Sequence[Card]) -> tuple[Action, ...]:
        """The actions with ``player``'s unknown (``??``) dealt cards named ``cards``, in the
        order he was dealt them: at a physical table cards stay hidden until shown."""
        names = list(cards)
        state = self.state()
        if not isinstance(state, SevenEightState):
            raise StepRefused("Big Two deals are recorded in full: there is nothing to reveal")
        holding = list(state.holes[player - 1])  # an up card fills the first ?? slot
        if holding.count(UNKNOWN) != len(names):
            raise StepRefused(f"p{player} holds {holding.count(UNKNOWN)} unknown cards, "
                              f"not {len(names)}")
        full = [names.pop(0) if card is UNKNOWN else card for card in holding]
        rewritten: list[Action] = []
        for action in self.actions:
            if action.verb is Verb.DEAL_HOLE and action.target == player:
                dealt, full = tuple(full[:len(action.cards)]), full[len(action.cards):]
                action = replace(action, cards=dealt)
            rewritten.append(action)
        return tuple(rewritten)

    def show(self, player: int, hidden: Sequence[Card] = ()) -> HandInProgress:
        """The hand after ``player`` shows his cards, naming his ``hidden`` ones."""
        actions = self.reveal(player, hidden) if hidden else self.actions
        shown = _holding(_engine_state(replace(self.header, actions=actions)), player)
        # (a fresh state: the revealed deals are not this hand's)
        return self.with_actions((*actions, Action(player, Verb.SHOW_MUCK, shown)))


def _holding(state: EngineState, player: int) -> tuple[Card, ...]:
    if isinstance(state, SevenEightState):
        return tuple(state.holes[player - 1])
    if isinstance(state, RummoliState):
        return state.hand_of(player)
    return state.cards_of(player)


def _engine_state(hand: HandHistory) -> EngineState:
    """A fresh engine state with every action of ``hand`` applied (raises RuleError)."""
    state: EngineState
    if hand.game is Game.SEVENEIGHT:
        state = SevenEightState.from_hand(hand)
    elif hand.game is Game.RUMMOLI:
        state = state_from_hand(hand)
    elif isinstance(hand.rules, BigTwoRules):
        try:
            state = BigTwoState(hand.rules, hand.num_players)
        except RuleError as error:
            raise error.located(hand) from None
    else:
        raise RuleError(f"the recorder does not record {hand.game} hands yet", hand=hand)
    for index, action in enumerate(hand.actions):
        try:
            state.apply(action)
        except RuleError as error:
            raise error.located(hand, index, action) from None
    if isinstance(state, BigTwoState) and state.phase is BigTwoPhase.DEAL and all(
            state.dealt[1:]):
        try:  # everybody has his cards: the engine checks the deal and gives the lead
            state.close_deal()
        except RuleError as error:
            last = len(hand.actions) - 1
            raise error.located(hand, last, hand.actions[last]) from None
    return state


def _seveneight_next(state: SevenEightState) -> NextStep:
    legal = state.legal_actions()
    phase = legal.phase
    if phase is Phase.OVER:
        return _OVER
    if legal.betting is not None:
        bet = legal.betting
        return NextStep(StepKind.BET, bet.player + 1, call=bet.call, min_to=bet.min_to,
                        max_to=bet.max_to)
    index = legal.players[0]
    waiting = tuple(player + 1 for player in legal.players)
    holes = tuple(state.holes[index])
    hidden = holes.count(UNKNOWN)
    if phase is Phase.DEAL or phase is Phase.DEAL_THIRD:
        count = next(k for k in range(1, 53) if state.can_deal(index, (UNKNOWN,) * k))
        return NextStep(StepKind.DEAL, index + 1, deal_count=count, waiting=waiting)
    if phase is Phase.TURN_UP:
        ups = tuple(card for card in holes if card.is_known and state.can_turn_up(index, card))
        return NextStep(StepKind.TURN_UP, index + 1, up_choices=ups, hidden=hidden,
                        holding=holes, waiting=waiting)
    return NextStep(StepKind.SHOWDOWN, index + 1, hidden=hidden, holding=holes,
                    waiting=waiting)


def _bigtwo_next(state: BigTwoState, actions: Sequence[Action]) -> NextStep:
    if state.is_over:
        return _OVER
    if state.phase is BigTwoPhase.DEAL:
        target = next(p for p in range(1, state.players + 1) if not state.dealt[p])
        unseen = unseen_cards(actions)
        count = next(k for k in range(len(unseen), 0, -1)
                     if state.can_deal(target, unseen[:k]))
        return NextStep(StepKind.DEAL, target, deal_count=count)
    player = state.turn
    assert player is not None
    plays = tuple(option.combo.cards[::-1] for option in state.legal_plays())
    return NextStep(StepKind.PLAY, player, holding=state.cards_of(player), plays=plays,
                    can_pass=state.can_pass(player))


def _rummoli_next(state: RummoliState) -> NextStep:
    choices = tuple(state.legal_actions())
    if not choices:
        return _OVER
    if choices[0].verb is Verb.DEAL_HOLE:
        dealt = [p for p in range(1, state.n + 1) if not state.hand_mask(p)]
        return NextStep(StepKind.DEAL, dealt[0] if dealt else 0, waiting=tuple(dealt))
    bet = state.bet_range() or state.bid_range()
    player = state.turn or choices[0].actor
    return NextStep(StepKind.CHOOSE, player, choices=choices, call=state.to_call(),
                    min_to=bet[0] if bet else None, max_to=bet[1] if bet else None,
                    holding=state.hand_of(player) if player else ())


def deal_action(player: int, cards: Sequence[Card]) -> Action:
    """``d dh pN CARDS``: the dealer gives ``cards`` to ``player`` (0: ``d dw CARDS``, the
    Rummoli widow's)."""
    if player == 0:
        return Action(DEALER, Verb.DEAL_WIDOW, tuple(cards))
    return Action(DEALER, Verb.DEAL_HOLE, tuple(cards), target=player)
