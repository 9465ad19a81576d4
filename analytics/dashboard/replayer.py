"""The hand replayer's model: a stored hand rebuilt, then its state after every action.

The warehouse keeps every hand's header, seats and actions
(:func:`analytics.warehouse.sql.views.hand_detail`); :func:`hand_from_detail` turns
them back into a :class:`~parsers.model.HandHistory`, and :func:`replay_steps`
feeds it action by action to its game's rules engine, reading chips, pots and
the board from the engine's state (the one place the rules live), while the
cards each player holds are followed from the actions themselves.  A last
``settle`` step shows the engine's :class:`~analytics.rules.Outcome`.

Equities: :func:`stored_equities` turns the rows the ingest stored for the hand
(:func:`analytics.warehouse.sql.equity_views.hand_equities`) into one
:class:`StoredEquities`: per seat a short text and a number, and the first step
they apply to (7 & 8: the all-in point, just before the third cards; Rummoli:
once the widow is settled, when the hands are the ones played for the poker pot;
Big Two: once dealt).  :func:`StoredEquities.provider` fills each
:class:`Step`'s ``equities`` slot (one value per seat, None where unknown) from
that step on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import pandas as pd

from analytics.dashboard.cards import cards_words, pot_words
from analytics.equity import allin_moment
from analytics.rules import Outcome, PotAward, RuleError, replay
from analytics.rules.pots import Pot, build_pots
from analytics.warehouse.pipeline.fact_rows import rules_from_json
from analytics.words import counted
from parsers.cards import Card, parse_cards
from parsers.model import DEALER, Action, HandHistory, Verb
from parsers.rule_options import (
    BigTwoRules,
    Game,
)
from parsers.writer import format_action

__all__ = ["UNCALLED", "EquityProvider", "Step", "StoredEquities", "chips_unit",
           "hand_from_detail", "pots_text", "replay_steps", "rules_from_json", "steps_frame",
           "stored_equities"]

EquityProvider = Callable[[HandHistory], Sequence[tuple[float | None, ...] | None]]
"""Given a hand, one tuple of equities (per seat, None when unknown) per step."""

_VERB_WORDS: Final = {
    Verb.DEAL_HOLE: "is dealt", Verb.BET_RAISE: "bets/raises to", Verb.CHECK_CALL: "checks/calls",
    Verb.FOLD: "folds", Verb.SHOW_MUCK: "shows", Verb.TURN_UP: "turns up",
    Verb.DEAL_WIDOW: "deals the widow", Verb.EXCHANGE: "exchanges his hand for the widow",
    Verb.PASS_WIDOW: "keeps his hand: the widow is auctioned", Verb.BID: "bids",
    Verb.BID_PASS: "passes in the auction", Verb.AUCTION_WIN: "wins the auction at",
    Verb.CLAIM: "claims", Verb.IMPASSE: "declares an impasse", Verb.PLAY: "plays",
    Verb.PASS: "passes", Verb.NOOP: "(note)",
}


@dataclass(frozen=True, slots=True)
class Step:
    """The hand after one action (``index`` -1: before the first; ``len(actions)``: settled).

    Per seat (index 0 is ``p1``): ``holding`` the cards held now (as dealt and
    not yet played; ``??`` unseen), ``visible`` the cards others can see (7 & 8
    up card, shown hands), ``out`` how he left the hand, "" while in (7 & 8:
    "folded", "mucked" at the showdown; a Rummoli round: "folded the poker pot", "mucked
    the poker pot", and he plays on in the laying phase), ``dead`` whether his cards are out
    of play (folded or mucked at 7 & 8 and in a Rummoli finale), ``stacks`` chips behind
    (None for Big Two, which is played for points), ``committed`` chips put in this hand so
    far.
    ``pot`` is the chips in the middle (7 & 8; Rummoli: bets of the poker phase),
    ``board`` the nine Rummoli pots, ``table`` the cards on the table (Big Two's
    last play, Rummoli's cards laid in the current run).  ``pots`` are 7 & 8's main and
    side pots as the dealer has made them at the end of the betting rounds over so far,
    when a player all in for less makes more than one (else empty), then a bet nobody
    called (:data:`UNCALLED`); the bets of the round in progress join them when it ends.
    """

    index: int
    notation: str
    actor: str
    street: str
    words: str
    holding: tuple[tuple[str, ...], ...]
    visible: tuple[tuple[str, ...], ...]
    out: tuple[str, ...]
    dead: tuple[bool, ...]
    stacks: tuple[int | None, ...]
    committed: tuple[int, ...]
    pot: int | None
    board: tuple[int, ...] | None
    table: tuple[str, ...]
    nets: tuple[int, ...] | None = None
    equities: tuple[float | None, ...] | None = field(default=None)
    pots: tuple[Pot, ...] = ()


def _missing(value: object) -> bool:
    """SQL NULL as pandas hands it over: None, NA, NaT or a float NaN."""
    return value is None or value is pd.NA or value is pd.NaT or (
        isinstance(value, float) and value != value)


def _int_or_none(value: object) -> int | None:
    return None if _missing(value) else int(str(value))


def _str_or_none(value: object) -> str | None:
    return None if _missing(value) else str(value)


def _column(frame: pd.DataFrame, name: str) -> tuple[int, ...] | None:
    values = [_int_or_none(v) for v in frame[name]] if name in frame else []
    if not values or any(v is None for v in values):
        return None
    return tuple(v for v in values if v is not None)


def hand_from_detail(detail: dict[str, pd.DataFrame]) -> HandHistory:
    """Rebuild a hand from the warehouse rows of :func:`~analytics.warehouse.sql.views.hand_detail`.

    The result replays exactly like the history it was loaded from (the
    warehouse stores every action with its cards, amount, target and pot).
    """
    head = detail["hand"].iloc[0]
    seats = detail["seats"].sort_values("seat")
    game = Game(str(head["game"]))
    actions = []
    lines: list[int | None] = []  # each action's line in its file, when stored
    for row in detail["actions"].itertuples(index=False):
        cards_text = _str_or_none(row.cards)
        actions.append(Action(
            actor=_int_or_none(row.actor) or 0, verb=Verb(str(row.verb)),
            cards=parse_cards(cards_text) if cards_text else (),
            amount=_int_or_none(row.amount), target=_int_or_none(row.target),
            pot=_str_or_none(row.pot), comment=_str_or_none(row.comment)))
        lines.append(_int_or_none(row.line))
    board = detail.get("board")
    scores = detail.get("scores")
    left: tuple[int, ...] | None = None
    taker: int | None = None
    if game is Game.BIGTWO and scores is not None and not scores.empty and bool(
            scores["outcome_only"].all()):
        # An outcome-only game (a score sheet's line): its cards left, who took on all losses.
        left = tuple(int(v) for v in scores.sort_values("seat")["cards_left"])
        taker = next((int(seat) for seat, flag in zip(
            scores["seat"], scores["takes_all_losses"], strict=True) if bool(flag)), None)
    board_before = None
    if game is Game.RUMMOLI and board is not None and not board.empty:
        board_before = tuple(int(v) for v in board.sort_values("pot_order")["before"].tolist())
    return HandHistory(
        game=game, variant=str(head["variant"]),
        rules=rules_from_json(game, _str_or_none(head["rules"])),
        actions=tuple(actions), action_lines=(tuple(line for line in lines if line is not None)
                                              if None not in lines else ()),
        starting_stacks=_column(seats, "starting_stack") if game is not Game.BIGTWO else None,
        antes=_column(seats, "ante"), blinds_or_straddles=_column(seats, "blind"),
        min_bet=_int_or_none(head["min_bet"]), small_bet=_int_or_none(head["small_bet"]),
        big_bet=_int_or_none(head["big_bet"]),
        players=tuple(str(p) for p in seats["player"]),
        game_id=_str_or_none(head["game_id"]), round=_int_or_none(head["round"]),
        dealer=_int_or_none(head["dealer"]), board_before=board_before,
        finale_pot=_str_or_none(head["finale_pot"]),
        table=_str_or_none(head["table_name"]), currency=_str_or_none(head.get("currency")),
        cards_left=left, takes_all_losses=taker,
        as_recorded=True if left is not None and left.count(0) != 1 else None,
    )


def _new_state(hand: HandHistory) -> Any:
    """The game's engine state at the start of the hand (duck-typed: the engines differ)."""
    if hand.game is Game.SEVENEIGHT:
        from analytics.rules.seveneight.engine import SevenEightState

        return SevenEightState.from_hand(hand)
    if hand.game is Game.RUMMOLI:
        from analytics.rules.rummoli.engine import state_from_hand

        return state_from_hand(hand)
    from analytics.rules.bigtwo.engine import BigTwoState

    assert isinstance(hand.rules, BigTwoRules)
    return BigTwoState(hand.rules, hand.num_players)


def _chips(game: Game, state: Any, n: int, start: Sequence[int] | None
           ) -> tuple[tuple[int | None, ...], tuple[int, ...], int | None,
                      tuple[int, ...] | None]:
    """Stacks, chips committed this hand, pot and board as the engine state has them now."""
    if game is Game.BIGTWO:
        return (None,) * n, (0,) * n, None, None
    if game is Game.SEVENEIGHT:
        # Stacks from the round in progress (it holds the bets); what is missing from the
        # starting stacks is in the pot (the state's ``pot`` until the prizes are paid).
        betting = state.betting
        stacks = list(betting.stacks if betting is not None else state.stacks)
        committed = tuple(s - now for s, now in zip(start or stacks, stacks, strict=True))
        return tuple(stacks), committed, sum(committed), None
    # Rummoli: a poker round in progress holds the stacks and the bets.
    stacks = list(state.chips_behind())
    bets = sum(state.poker_bets())
    # Put in: what left the stack less what came back as a prize (pots, payments, the
    # auction price: the awards so far), so a winner's is never negative; an uncalled bet
    # handed back is no prize, so it is no longer counted once it is back.
    received = [0] * n
    for award in state.awards:
        if award.amount > 0 and 1 <= award.player <= n:
            received[award.player - 1] += award.amount
    committed = tuple(s - now + got
                      for s, now, got in zip(start or stacks, stacks, received, strict=True))
    return tuple(stacks), committed, bets, tuple(int(c) for c in state.board)


UNCALLED: Final = "uncalled"
"""The name :func:`replay_steps` gives the chips of a bet nobody matched, beside the pots
(``eligible``: the one they go back to), so that the pots and it add up to the pot."""


def _side_pots(game: Game, state: Any) -> tuple[Pot, ...]:
    """7 & 8's pots made from the betting rounds over so far (the engine brings its
    ``contributions`` up to date as each ends), when an all-in for less makes more than
    one; a bet nobody matched is no pot: it follows them as :data:`UNCALLED`."""
    if game is not Game.SEVENEIGHT or not any(state.in_hand):
        return ()
    layout = build_pots(state.contributions, state.in_hand)
    if len(layout.pots) < 2:
        return ()
    back = tuple(Pot(UNCALLED, chips, (player,))
                 for player, chips in enumerate(layout.refunds) if chips)
    return (*layout.pots, *back)


def replay_steps(hand: HandHistory, equities: EquityProvider | None = None,
                 streets: Sequence[str] | None = None) -> list[Step]:
    """The state before the first action, after each action, and settled at the end.

    Raises :class:`~analytics.rules.RuleError` when the hand does not replay
    (a hand in the warehouse always does: the ingest replayed it).
    """
    if hand.game is None:
        raise RuleError("the hand names no game", hand=hand)
    game = hand.game
    n = hand.num_players
    outcome: Outcome = replay(hand)
    state = _new_state(hand)
    start = tuple(hand.starting_stacks) if hand.starting_stacks is not None else None
    holding: list[list[str]] = [[] for _ in range(n)]
    visible: list[list[str]] = [[] for _ in range(n)]
    out = [""] * n
    dead = [False] * n
    # A Rummoli fold or muck gives up the poker pot only: his cards are laid later (but in
    # the finale, a poker round alone).
    pot_only = game is Game.RUMMOLI and hand.finale_pot is None
    widow: list[str] = []
    table: list[str] = []
    steps: list[Step] = []

    def snapshot(index: int, notation: str, actor: str, street: str, words: str) -> Step:
        stacks, committed, pot, board = _chips(game, state, n, start)
        return Step(index, notation, actor, street, words,
                    tuple(tuple(h) for h in holding), tuple(tuple(v) for v in visible),
                    tuple(out), tuple(dead), stacks, committed, pot, board, tuple(table),
                    pots=_side_pots(game, state))

    steps.append(snapshot(-1, "", "", "start", _START_WORDS[game] if hand.cards_left is None
                          else "A score sheet's line: no deal or plays were recorded."))
    for index, action in enumerate(hand.actions):
        state.apply(action)
        seat = action.actor - 1
        cards = [str(card) for card in action.cards]
        verb = action.verb
        if verb is Verb.DEAL_HOLE and action.target is not None:
            holding[action.target - 1].extend(cards)
        elif verb is Verb.DEAL_WIDOW:
            widow = cards
        elif verb in (Verb.EXCHANGE, Verb.AUCTION_WIN):
            holding[seat], widow = sorted(widow, key=_card_order), holding[seat]
        elif verb is Verb.TURN_UP:
            visible[seat] = cards
        elif verb is Verb.FOLD or (verb is Verb.SHOW_MUCK and not cards):
            out[seat] = ("folded" if verb is Verb.FOLD else "mucked") + (
                " the poker pot" if pot_only else "")
            dead[seat] = not pot_only
        elif verb is Verb.SHOW_MUCK:
            visible[seat] = cards
        elif verb is Verb.PLAY:
            _remove(holding[seat], action.cards)
            # Big Two shows the last play; Rummoli the current run, as far as it fits.
            table = cards if game is Game.BIGTWO else [*table, *cards][-12:]
        elif verb is Verb.PASS and game is Game.BIGTWO and getattr(state, "table", 1) is None:
            table = []  # everybody passed: the trick is over
        actor = "dealer" if action.actor == DEALER else hand.player_name(action.actor)
        street = streets[index] if streets is not None and index < len(streets) else ""
        steps.append(snapshot(index, format_action(action), actor, street,
                              _words(actor, action, hand)))
    final_stacks: tuple[int | None, ...] = (
        tuple(outcome.finishing_stacks) if outcome.finishing_stacks is not None and start
        else (None,) * n)
    won = _settled_words(hand, outcome)
    last = steps[-1]
    recorded = ""
    if hand.cards_left is not None:  # an outcome-only game: only its cards left are known
        left = ", ".join(f"{hand.player_name(seat)} {count}"
                         for seat, count in enumerate(hand.cards_left, start=1))
        taker = (f"; {hand.player_name(hand.takes_all_losses)} takes on all losses"
                 if hand.takes_all_losses is not None else "")
        recorded = f"Outcome only (a score sheet's line), cards left: {left}{taker}. "
    put_in = _settled_put_in(outcome, last.committed)
    if game is Game.SEVENEIGHT:  # a bet nobody called came back: say so, as dealers do
        won += _returned_words(hand, last.committed, put_in)
    steps.append(Step(len(hand.actions), "", "", "settled",
                      f"{recorded}Settled: {won}.", last.holding,
                      last.visible, last.out, last.dead, final_stacks,
                      put_in,
                      0 if last.pot is not None else None,
                      tuple(outcome.board_after) if outcome.board_after is not None else None,
                      last.table, nets=tuple(outcome.nets), pots=last.pots))
    if equities is not None:
        values = list(equities(hand))
        steps = [_with_equities(step, values[i] if i < len(values) else None)
                 for i, step in enumerate(steps)]
    return steps


_START_WORDS: Final = {
    Game.SEVENEIGHT: "Before the first action: antes and blinds in.",
    Game.RUMMOLI: "Before the first action: the antes on the board's pots.",
    Game.BIGTWO: "Before the deal.",
}
"""What the step before the first action says, per game."""


def _returned_words(hand: HandHistory, committed: Sequence[int], put_in: Sequence[int]
                    ) -> str:
    """The uncalled chips each player got back once the betting ended (what he had put in
    during the hand less what he put in once settled): ``Ola gets 278 uncalled chips
    back``, or nothing."""
    back = [(seat, before - after) for seat, (before, after)
            in enumerate(zip(committed, put_in, strict=True), start=1) if before > after]
    if hand.currency:
        return "".join(f", {hand.player_name(seat)} gets {chips:,} {hand.currency} back "
                       "(uncalled)" for seat, chips in back)
    return "".join(f", {hand.player_name(seat)} gets {counted(chips, 'uncalled chip')} back"
                   for seat, chips in back)


def _settled_words(hand: HandHistory, outcome: Outcome) -> str:
    """How the hand ends, in words: each award (``Cy takes 18 chips (main pot)``, ``Bo pays
    2 chips (auction)``); for Big Two who went out, in order, and each player's points."""
    if hand.game is not Game.BIGTWO:
        awards = [_award_words(hand, award) for award in outcome.awards if award.amount]
        return ", ".join(awards) or "nothing changes hands"
    names = [hand.player_name(player) for player in outcome.finishing_order]
    order = (f"{names[0]} goes out first" + (f", then {', '.join(names[1:])}"
                                             if len(names) > 1 else "")
             if names else "nobody goes out")
    if not any(outcome.nets):
        return f"{order}; no points change hands"
    points = ", ".join(f"{hand.player_name(seat)} {net:+,}"
                       for seat, net in enumerate(outcome.nets, start=1))
    return f"{order}; points: {points}"


def _award_words(hand: HandHistory, award: PotAward) -> str:
    """One award of a 7 & 8 hand or a Rummoli round: who takes or pays how many chips, from
    or to which pot (``cards.pot_words``)."""
    verb = "takes" if award.amount > 0 else "pays"
    amount = abs(award.amount)
    chips = f"{amount:,} {hand.currency}" if hand.currency else counted(amount, "chip")
    return f"{hand.player_name(award.player)} {verb} {chips} ({pot_words(award.pot)})"


def chips_unit(hand: HandHistory) -> str:
    """What a hand's chips are counted in: its declared currency (``USD``), else chips;
    Big Two's points."""
    if hand.game is Game.BIGTWO:
        return "points"
    return hand.currency or "chips"


def _settled_put_in(outcome: Outcome, committed: tuple[int, ...]) -> tuple[int, ...]:
    """Chips each player put in, once the hand is settled: what he received (his positive
    awards: pots won, payments, the auction price) less his net.  That counts antes, bets
    that were called, payments and the auction price he paid, and not an uncalled bet that
    came back; Big Two (points, no chips) keeps ``committed``."""
    if outcome.finishing_stacks is None:
        return committed
    received = [0] * len(outcome.nets)
    for award in outcome.awards:
        if award.amount > 0 and 1 <= award.player <= len(received):
            received[award.player - 1] += award.amount
    return tuple(r - int(n) for r, n in zip(received, outcome.nets, strict=True))


def _with_equities(step: Step, values: tuple[float | None, ...] | None) -> Step:
    return replace(step, equities=values)


def _card_order(text: str) -> int:
    return parse_cards(text)[0].code


def _remove(held: list[str], cards: Sequence[Card]) -> None:
    """Take played cards out of a holding (an unseen ``??`` holding loses one unseen card)."""
    for card in cards:
        text = str(card)
        if text in held:
            held.remove(text)
        elif "??" in held:
            held.remove("??")


def _words(actor: str, action: Action, hand: HandHistory) -> str:
    """The action in words: ``Ann bets/raises to 6``, ``dealer deals Bo A♠ K♦``."""
    verb = action.verb
    cards = cards_words(action.cards)
    if verb is Verb.DEAL_HOLE and action.target is not None:
        text = f"{actor} deals {hand.player_name(action.target)} {cards}"
    else:
        text = f"{actor} {_VERB_WORDS.get(verb, verb.value)}"
        if action.amount is not None:
            text += f" {action.amount}"
        if cards:
            text += f" {cards}"
        if action.pot:
            text += f" {pot_words(action.pot)}"
    if verb is Verb.SHOW_MUCK and not action.cards:
        text = f"{actor} mucks"
    if action.comment:
        text += f" ({action.comment})"
    return text


def pots_text(pots: Sequence[Pot], players: Sequence[str]) -> str:
    """Pots in words, each with its chips and who can win it: ``main pot 150 (Ola, Bo,
    Cy); side pot 1 200 (Bo, Cy)``; "" for none."""
    return "; ".join(
        f"{pot_words(pot.name)} {pot.amount:,} ("
        + ("back to " if pot.name == UNCALLED else "")
        + f"{', '.join(players[i] if i < len(players) else f'p{i + 1}' for i in pot.eligible)})"
        for pot in pots)


def steps_frame(steps: Sequence[Step], players: Sequence[str], unit: str = "chips"
                ) -> pd.DataFrame:
    """The steps as a table (one row per step): step, action, words, pot, and per player his
    stack, chips put in (in ``unit``: :func:`chips_unit`) and cards (in words: ``7♥ Q♥``),
    for download and for the page's action list."""
    rows = []
    chips = any(v is not None for step in steps for v in step.stacks)
    side_pots = any(step.pots for step in steps)
    for step in steps:
        row: dict[str, object] = {"step": step.index + 1, "action": step.notation,
                                  "words": step.words}
        if chips:  # Big Two is played for points: no pot, stacks nor chips put in
            row[f"pot ({unit})"] = step.pot
        if side_pots:
            row[f"pots ({unit})"] = pots_text(step.pots, players)
        for seat, name in enumerate(players):
            if chips:
                row[f"{name} stack ({unit})"] = (step.stacks[seat] if seat < len(step.stacks)
                                                 else None)
                row[f"{name} put in ({unit})"] = (step.committed[seat]
                                                  if seat < len(step.committed) else None)
            row[f"{name} cards"] = (cards_words(step.holding[seat])
                                    if seat < len(step.holding) else "")
        rows.append(row)
    return pd.DataFrame(rows)



# After the last of these the Rummoli hands are the ones played for the poker pot.
_WIDOW_SETTLED: Final = frozenset({Verb.DEAL_HOLE, Verb.DEAL_WIDOW, Verb.EXCHANGE,
                                   Verb.PASS_WIDOW, Verb.BID, Verb.BID_PASS, Verb.AUCTION_WIN})


@dataclass(frozen=True, slots=True)
class StoredEquities:
    """The equities stored for one hand, as the replayer shows them.

    ``cells`` per seat (index 0 is ``p1``): the text shown, empty for a seat with
    nothing stored (a 7 & 8 player who folded before the all-in); ``values`` the
    headline number (7 & 8 equity, Rummoli expected share, Big Two 2s held) or None;
    ``from_step`` the position in the step list from which they apply; ``heading``
    the column's title and ``note`` what the numbers mean; ``table`` the stored rows.
    """

    heading: str
    from_step: int
    cells: tuple[str, ...]
    values: tuple[float | None, ...]
    note: str
    table: pd.DataFrame = field(compare=False)

    def provider(self, hand: HandHistory) -> Sequence[tuple[float | None, ...] | None]:
        """One entry per step for :func:`replay_steps`: None before :attr:`from_step`."""
        steps = len(hand.actions) + 2
        unknown = (None,) * len(self.values)
        return [self.values if i >= self.from_step else unknown for i in range(steps)]


def stored_equities(hand: HandHistory, equities: dict[str, pd.DataFrame]
                    ) -> StoredEquities | None:
    """What the warehouse stored for ``hand`` (frames of ``hand_equities``), or None when
    nothing is stored (a 7 & 8 hand not all in with cards to come, a round whose cards
    are not all known)."""
    n = hand.num_players
    if hand.game is Game.SEVENEIGHT:
        rows = equities.get("allin")
        moment = allin_moment(hand)
        if rows is None or rows.empty or moment is None:
            return None
        return _build(rows, n, moment, "equity at the all-in", _allin_cell, "equity",
                      "Equity when all in with cards to come (win + share of ties, "
                      f"{_method(rows)}); adjusted = equity × pots − chips put in, beside "
                      "the actual result. Luck = actual − adjusted.")
    if hand.game is Game.RUMMOLI:
        rows = equities.get("rummoli")
        if rows is None or rows.empty:
            return None
        settled = [i for i, a in enumerate(hand.actions) if a.verb in _WIDOW_SETTLED]
        start = settled[-1] + 1 if settled else 0
        return _build(rows, n, start, "poker strength", _rummoli_cell, "share",
                      "Each player's poker hand judged from his own cards (and the widow's "
                      "if he took it): chance nobody holds better ± 1.96 standard errors, "
                      "best-hand share: the share of the poker pot his hand would take if "
                      f"every hand showed down, {_method(rows)}; on all cards = that share on "
                      "everyone's actual cards, folded or not (not the pot he won).")
    rows = equities.get("bigtwo")
    if rows is None or rows.empty:
        return None
    dealt = [i for i, a in enumerate(hand.actions) if a.verb is Verb.DEAL_HOLE]
    start = dealt[-1] + 1 if dealt else 0
    return _build(rows, n, start, "deal features", _bigtwo_cell, "twos",
                  "What each dealt hand holds: 2s, aces, the lead card, and the pair, "
                  "triple and five-card plays it can make under this game's rules.")


def _method(rows: pd.DataFrame) -> str:
    exact = bool(rows["exact"].all())
    if exact:
        return "exact: every deal of the unseen cards"
    count = "deals" if "deals" in rows else "samples"
    return f"Monte Carlo, {int(rows[count].max()):,} samples"


def _build(rows: pd.DataFrame, n: int, start: int, heading: str,
           cell: Callable[[pd.Series], str], value: str, note: str) -> StoredEquities:
    cells = [""] * n
    values: list[float | None] = [None] * n
    for _, row in rows.iterrows():
        seat = int(row["seat"]) - 1
        if 0 <= seat < n:
            cells[seat] = cell(row)
            values[seat] = float(row[value])
    return StoredEquities(heading, start, tuple(cells), tuple(values), note,
                          rows.drop(columns=["hand_id"], errors="ignore"))


def _allin_cell(row: pd.Series) -> str:
    error = f" ± {1.96 * float(row['std_error']):.1f}" if not bool(row["exact"]) else ""
    return (f"{float(row['equity']):.1%} · adjusted {float(row['expected_net']):+.1f}{error} "
            f"vs actual {int(row['actual_net']):+d}")


def _rummoli_cell(row: pd.Series) -> str:
    # Exact or not as stored (a Monte Carlo error of 0, from before migration 15, is not
    # an exact result).
    spread = " (exact)" if bool(row["exact"]) else f" ± {1.96 * float(row['std_error']):.0%}"
    return (f"{str(row['category']).replace('_', ' ')} · best {float(row['p_best']):.0%}"
            f"{spread} · best-hand share {float(row['share']):.2f} (on all cards "
            f"{float(row['realised_share']):.2f})")


def _bigtwo_cell(row: pd.Series) -> str:
    lead = " · holds the lead" if bool(row["has_lead"]) else ""
    return (f"2s {int(row['twos'])} · aces {int(row['aces'])} · pairs {int(row['pairs'])} · "
            f"triples {int(row['triples'])} · five-card {int(row['five_card'])}{lead}")
