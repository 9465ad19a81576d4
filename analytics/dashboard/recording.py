"""The Streamlit side of the Record and Play pages: the table, the step controls, the forms.

Drawing only: what may be done next, every check, the journal and the filing are
:mod:`analytics.record`'s.  A control offers exactly the engine's choices
(:class:`~analytics.record.hand.NextStep`); a click hands the chosen action to the
table, which refuses what the reader or the engine would not accept (the message is
shown, nothing changes).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any, Final

import streamlit as st

from analytics.dashboard import logic, ui
from analytics.dashboard.cards import cards_html, cards_words, chips_html, pot_words
from analytics.record.hand import NextStep, StepKind, StepRefused, deal_action, unseen_cards
from analytics.record.play import SeatView, new_bot_name, seat_view
from analytics.record.table import (
    BOT_STYLE_NAMES,
    MAX_CHIPS,
    FiledHand,
    RecordedTable,
    TableSetup,
    bigtwo_setup,
    rummoli_setup,
    seveneight_setup,
)
from analytics.warehouse.sql.views import betting_words
from parsers.cards import DECK, UNKNOWN, Card, parse_card
from parsers.model import DEALER, RUMMOLI_POTS, Action, Verb
from parsers.rule_options import (
    BigTwoDeal,
    BigTwoRules,
    BigTwoScoring,
    Claim,
    Finale,
    Game,
    RummoliRules,
    SevenEightRules,
)

__all__ = ["RummoliChoice", "SevenEightChoice", "TableChoice", "attempt", "bigtwo_knobs",
           "draw_end_game", "draw_filed", "draw_seats", "draw_step", "draw_view", "hand_title",
           "open_table", "remember", "rummoli_knobs", "setup_table", "seveneight_knobs", "take",
           "up_note"]

_TABLES: Final = "_record_tables"


def open_table(folder: Path, name: str) -> RecordedTable:
    """The table ``name``, kept for the session and read again from its journal when another
    session changed it (another tab, a restart, a reload while the bots played); its hands
    load where the dashboard reads (the database, or a lake)."""
    tables = st.session_state.setdefault(_TABLES, {})
    kept = tables.get(name)
    if isinstance(kept, RecordedTable) and kept.is_current:
        return kept
    ui.release_connection()  # opening may finish filing a hand: it writes
    opened = RecordedTable.open(folder, name)
    tables[name] = opened
    return opened


def remember(table: RecordedTable) -> None:
    """Keep ``table`` for the session (it knows how far it read its journal)."""
    st.session_state.setdefault(_TABLES, {})[table.setup.name] = table


def attempt(table: RecordedTable, step: Callable[[], FiledHand | None]) -> FiledHand | None:
    """Run one step of ``table`` (a record, show, undo or seat change) and return the hand it
    filed, if any.  When it is refused (not allowed, or another session moved the table on:
    the table has read its journal again) the page runs again and says why."""
    ui.release_connection()  # a finished hand is loaded into the warehouse: this run writes
    try:
        filed = step()
    except StepRefused as error:
        st.session_state["record_error"] = str(error)
        remember(table)
        st.rerun()
    st.session_state.pop("record_error", None)
    remember(table)
    return filed


def take(table: RecordedTable, step: Callable[[], FiledHand | None]) -> None:
    """Run one step of ``table`` (a record, show or undo) and draw the page again; show why
    when it is refused."""
    filed = attempt(table, step)
    if filed is not None:
        st.session_state["record_filed"] = filed.hand.hand
    st.rerun()


def hand_title(table: RecordedTable) -> str:
    """The heading of the hand in progress, named as its game names it (a 7 & 8 hand, a
    Big Two game, a Rummoli round): its number and step, and the pot a Rummoli finale
    round plays for."""
    hand = table.hand
    steps = f"step {len(hand.actions) + 1}" if hand is not None else "over"
    per = logic.PER[table.setup.game.value]
    pot = table.finale_pot
    if pot is None:
        return f"{per.capitalize()} {table.number} · {steps}"
    what = "the whole board" if pot == "all" else f"the {pot_words(pot)} pot"
    return f"Finale: poker for {what} · {per} {table.number} · {steps}"


_FINALE_WORDS: Final = {
    Finale.SINGLE: "all the chips on the board go into one pot and one round of poker is "
                   "played for it",
    Finale.PER_POT: "a round of poker is played for each pot with chips, smallest first",
    Finale.NONE: "no finale: the chips on the board stay there"}


def draw_end_game(table: RecordedTable, key: str) -> None:
    """The button that ends a Rummoli game between two rounds (RULES.md 1.7), saying what
    the table's ``finale`` knob does."""
    rules = table.setup.rules
    if not table.can_end_game or not isinstance(rules, RummoliRules):
        return
    st.caption(f"Ending the game: {_FINALE_WORDS[rules.finale]} (finale = "
               f"\"{rules.finale}\").")
    if st.button("End the game", key=f"{key}-endgame-{table.number}"):
        take(table, lambda: table.end_game())


def draw_seats(table: RecordedTable, key: str, *, expanded: bool | None = None) -> None:
    """Between two hands (7 & 8), rounds (Rummoli) or games (Big Two): a busted player rebuys
    or leaves, anyone leaves, a new player sits down in an empty seat (the hand about to
    start is dealt again with them).  Big Two keeps scores: no rebuy, a newcomer starts at 0.
    At a table played against the bots (the Play page) the newcomer is a bot of the style
    chosen, any bot may leave, and the person's seat stays his (he rebuys when busted).
    The box is open when no hand is in progress, or when ``expanded`` says so."""
    if not table.can_reseat:
        return
    seating = table.seating
    scores = table.setup.game is Game.BIGTWO
    unit = "points" if scores else "chips"
    between = f"{logic.PER[table.setup.game.value]}s"
    bots = table.bot_styles
    # A new seating is a new box: the labels of a kept box would stay as first drawn.
    version = zlib.crc32(repr((seating, bots)).encode("utf-8"))
    title = f"Between {between}: {'seats' if scores else 'rebuys and seats'}"
    with st.expander(title, expanded=table.hand is None if expanded is None else expanded):
        seat = int(st.selectbox(
            "Seat", range(1, len(seating) + 1), key=f"{key}-seat-{table.number}-{version}",
            format_func=lambda s: _seat_label(table, s, unit)) or 1)
        name, chips = seating[seat - 1]
        base = f"{key}-seat{seat}-{table.number}"
        left, right = st.columns(2)
        if not name:
            _draw_join(table, seat, base, scores)
            return
        if not chips and not scores:
            stack = int(left.number_input(f"{name} rebuys for", 1, MAX_CHIPS, 100,
                                          key=f"{base}-rebuy-stack"))
            if left.button(f"{name} rebuys", key=f"{base}-rebuy", type="primary"):
                take(table, lambda: table.rebuy(seat, stack))
        if table.is_persons_seat(seat):
            right.caption("Your seat: *Leave this table* (above) ends your game.")
        elif right.button(f"{name} leaves the table", key=f"{base}-leave"):
            take(table, lambda: table.leave(seat))


def _seat_label(table: RecordedTable, seat: int, unit: str) -> str:
    """A seat in the box of seats: who sits there (a bot's style, "you") with how much."""
    name, chips = table.seating[seat - 1]
    if not name:
        return f"Seat {seat}: empty"
    bots = table.bot_styles
    who = ("you, " if table.is_persons_seat(seat)
           else f"{bots[seat - 1]} bot, " if bots else "")
    return f"Seat {seat}: {name} ({who}{chips} {unit})"


def _draw_join(table: RecordedTable, seat: int, base: str, scores: bool) -> None:
    """The empty ``seat``: a new player (at a table of bots: a bot of a chosen style) sits
    down with his buy-in (Big Two: a score of 0)."""
    playing_bots = bool(table.bot_styles)
    left, right = st.columns(2)
    if playing_bots:
        newcomer = left.text_input("Bot's name", value=new_bot_name(table), key=f"{base}-name")
        style = str(left.selectbox("Style", BOT_STYLE_NAMES[table.setup.game],
                                   key=f"{base}-style") or "")
    else:
        newcomer = left.text_input("New player's name", key=f"{base}-name")
        style = ""
    if scores:
        right.caption("Joins the match with a score of 0.")
        stack = 0
    else:
        stack = int(right.number_input("Buys in for", 1, MAX_CHIPS, 100, key=f"{base}-in"))
    label = "Seat the bot" if playing_bots else "Sits down"
    if st.button(label, key=f"{base}-join", disabled=not newcomer.strip()):
        take(table, lambda: table.join(seat, newcomer, stack, style))


def _name(view: SeatView, player: int) -> str:
    names = view.names
    return names[player - 1] if 0 < player <= len(names) else f"p{player}"


def draw_view(view: SeatView, step: NextStep, *, title: str) -> None:
    """The table as ``view`` sees it: each player's chips or score and cards, the pot or
    the trick, whose turn it is; what each player has put in during the betting under way
    (7 & 8, Rummoli's poker phase: "put in", a posted blind too, which is no bet) and who
    folded there; which 7 & 8 card is turned up for
    everyone (:func:`up_note`)."""
    rows = []
    for index, name in enumerate(view.names):
        player = index + 1
        turn = "▶ " if step.kind is not StepKind.OVER and player == step.player else ""
        out = "" if view.in_hand[index] else " (out)"
        mine = " (you)" if view.me == player else ""
        bet = view.bets[index] if view.bets else 0
        folded = bool(view.folded) and view.folded[index]
        in_front = (chips_html(bet, label="put in") if bet else "") + (
            " <small>folded</small>" if folded else "")
        rows.append(
            f"<tr><td><b>{escape(turn + name)}</b>{escape(mine + out)}</td>"
            f"<td>{chips_html(view.stacks[index], label=view.stacks_are)}</td>"
            f"<td>{cards_html(view.cards[index], empty='no cards')}</td>"
            f"<td>{up_note(view, index)}</td>"
            f"<td>{in_front}</td></tr>")
    middle = (f"<p>Pot {chips_html(view.pot)}</p>" if view.trick_player is None and view.pot
              else "")
    if view.trick_player is not None:
        middle = (f"<p>To beat: {cards_html(view.trick)} by "
                  f"{escape(_name(view, view.trick_player))}</p>")
    if view.board:
        pots = " ".join(chips_html(chips, label=pot_words(pot))
                        for pot, chips in zip(RUMMOLI_POTS, view.board, strict=True))
        middle += f"<p>Board: {pots}</p>"
    if view.laid:
        middle += f"<p>Laid: {cards_html(view.laid)}</p>"
    st.markdown(f"#### {title}")  # hand_title: words of the code, no name
    st.html(f'<table class="hl-record">{"".join(rows)}</table>{middle}')


def up_note(view: SeatView, index: int) -> str:
    """``J♥ up`` beside a 7 & 8 hand whose cards the viewer sees whole (his own, or every
    hand to the recorder): which of them the table sees; "" where the face-down cards
    already tell."""
    up, cards = view.up[index], view.cards[index]
    if up is None or len(cards) < 2 or UNKNOWN in cards:
        return ""
    return f"<small>{escape(cards_words([up]))} up</small>"


def draw_filed(filed: FiledHand) -> None:
    """The last finished hand: every player's result and what the warehouse said."""
    hand = filed.hand
    names = hand.players or ()
    results = ", ".join(f"{ui.literal(names[i]) if i < len(names) else f'p{i + 1}'} {net:+d}"
                        for i, net in enumerate(filed.outcome.nets))
    per = logic.PER[hand.game.value] if hand.game is not None else "hand"
    over = f"{per.capitalize()} {hand.hand} is over: {results}. Written to the table's file"
    if filed.ingest.startswith("not loaded:"):
        # The next hand that loads takes the whole file, this one with it (RecordedTable).
        st.warning(f"{over}, but not into the warehouse yet: {ui.literal(filed.ingest)}. The "
                   f"next {per} that loads brings it in; until then the statistics and the "
                   "Hand replayer do not show it.")
    elif filed.ingest.startswith("not loaded"):  # a table kept out of the warehouse
        st.success(f"{over}.")
    else:
        st.success(f"{over}; warehouse: {ui.literal(filed.ingest)}. The Hand replayer shows "
                   "it with every card.")
    shown = [f"{escape(names[s.player - 1] if 0 < s.player <= len(names) else '')}: "
             f"{cards_html(s.cards)} ({escape(logic.category_text(s.category))})"
             for s in filed.outcome.showdown]
    if shown:
        st.html("<p>" + " · ".join(shown) + "</p>")


_SUIT_FACES: Final = {"s": "♠", "h": ":red[♥]", "d": ":red[♦]", "c": "♣"}


def _toggle(key: str, text: str) -> None:
    """Pick ``text`` or drop it (a button's callback: it runs before the rerun draws)."""
    picked: list[str] = st.session_state.setdefault(key, [])
    if text in picked:
        picked.remove(text)
    else:
        picked.append(text)


def _card_picker(label: str, options: Sequence[Card], count: int, key: str) -> list[Card]:
    """A grid of the 52 cards (a row per suit): a click picks or drops a card; only
    ``options`` can be picked, at most ``count`` of them."""
    picked: list[str] = st.session_state.setdefault(f"{key}-picked", [])
    allowed = {str(card) for card in options}
    st.caption(f"{label}: {len(picked)} of {count} picked"
               + (f" ({' '.join(picked)})" if picked else ""))
    for suit, face in _SUIT_FACES.items():
        for column, rank in zip(st.columns(13), "23456789TJQKA", strict=True):
            text = rank + suit
            chosen = text in picked
            usable = chosen or (text in allowed and len(picked) < count)
            shown = ("10" if rank == "T" else rank) + face
            column.button(shown, key=f"{key}-{text}", disabled=not usable,
                          type="primary" if chosen else "secondary", width="stretch",
                          on_click=_toggle, args=(f"{key}-picked", text))
    return [parse_card(text) for text in picked]


def draw_step(table: RecordedTable, step: NextStep, *, seat_player: int | None = None,
              key: str) -> None:
    """The controls of the next step.  ``seat_player`` limits them to that player's own
    decisions (the Play page; None on the Record page, where the recorder enters all)."""
    hand = table.hand
    if hand is None or step.kind is StepKind.OVER:
        return
    view = seat_view(hand, None)
    who = _name(view, step.player)
    number = table.number
    base = f"{key}-{number}-{len(hand.actions)}"
    if step.kind is StepKind.DEAL:
        unseen = unseen_cards(hand.actions)
        if step.deal_count or step.player == 0:  # a count, or the widow: the rest
            count = step.deal_count or len(unseen)
            sizes = {count}
        else:  # a Rummoli hand: the 52 cards over the players and the widow (RULES.md 1.2)
            hands = hand.header.num_players + 1
            sizes = {len(DECK) // hands, -(-len(DECK) // hands)}
            count = max(sizes)
        whom = "the widow" if step.player == 0 else who
        many = " or ".join(map(str, sorted(sizes)))
        st.markdown(f"**Deal {many} card{'s' if count > 1 else ''} to {ui.literal(whom)}**")
        if hand.game is Game.RUMMOLI and step.player:
            st.caption("Every card is named (no face-down cards): who holds each card "
                       "decides the Rummoli phase. A player at the table enters the round "
                       "after it, when every card has been laid, counted or turned over.")
        cards = _card_picker("Cards dealt", unseen, count, f"{base}-deal")
        if len(unseen) == count and not cards:
            cards = list(unseen)  # the rest of the deck: nothing to pick
            st.caption(f"The {len(unseen)} cards left in the deck.")
        left, right = st.columns(2)
        if left.button("Deal these cards", key=f"{base}-dealgo", type="primary",
                       disabled=len(cards) not in sizes):
            take(table, lambda: table.record(deal_action(step.player, cards)))
        if isinstance(hand.header.rules, SevenEightRules) and right.button(
                "Face down (??)", key=f"{base}-dealhidden"):
            hidden = (UNKNOWN,) * step.deal_count
            take(table, lambda: table.record(deal_action(step.player, hidden)))
        return
    if seat_player is not None and step.player != seat_player:
        return
    if step.kind is StepKind.TURN_UP:
        st.markdown(f"**{ui.literal(who)} turns a card up**")
        columns = st.columns(max(2, len(step.up_choices) + (1 if step.hidden else 0)))
        for column, card in zip(columns, step.up_choices, strict=False):
            if column.button(f"Turn up {cards_words([card])}", key=f"{base}-up{card}"):
                take(table, _doing(table, Action(step.player, Verb.TURN_UP, (card,))))
        if step.hidden:
            named = _card_picker("The card turned up", unseen_cards(hand.actions), 1,
                                 f"{base}-upname")
            if columns[-1].button("Turn up the picked card", key=f"{base}-upgo",
                                  disabled=not named):
                take(table, _doing(table, Action(step.player, Verb.TURN_UP, tuple(named))))
        return
    if step.kind is StepKind.BET:
        _betting(table, step, who, base)
        return
    if step.kind is StepKind.SHOWDOWN:
        _showdown(table, step, view, base, seat_player)
        return
    if step.kind is StepKind.CHOOSE:
        _choices(table, step, who, base)
        return
    if step.kind is StepKind.TAKER:
        _taker(table, step, view, base)
        return
    _bigtwo_play(table, step, who, base)


def _taker(table: RecordedTable, step: NextStep, view: SeatView, base: str) -> None:
    """Who, if anyone, takes on all losses in the zero_sum game just finished (RULES.md 2):
    nobody, the winner (he went out without announcing his last card) or the player before
    him (he did not stop him going out)."""
    winner, before = step.waiting
    why = {winner: "for going out without announcing his last card",
           before: "for not stopping him going out on it"}
    st.markdown(f"**The game is over: {ui.literal(_name(view, winner))} went out first.** "
                "Under zero-sum scoring, does a player take on all losses?")
    taker = st.radio("Takes on all losses", [0, *step.waiting], key=f"{base}-taker",
                     format_func=lambda p: "nobody" if p == 0 else
                     f"{_name(view, p)} ({why[p]})")
    if st.button("File the game", key=f"{base}-takergo", type="primary"):
        take(table, lambda: table.take_losses(taker or None))


def _doing(table: RecordedTable, action: Action) -> Callable[[], FiledHand | None]:
    return lambda: table.record(action)


def _betting(table: RecordedTable, step: NextStep, who: str, base: str) -> None:
    st.markdown(f"**{ui.literal(who)} to act**")
    fold, call, raise_to, go = st.columns(4)
    if fold.button("Fold", key=f"{base}-fold"):
        take(table, _doing(table, Action(step.player, Verb.FOLD)))
    label = "Check" if step.call == 0 else f"Call {step.call}"
    if call.button(label, key=f"{base}-call", type="primary"):
        take(table, _doing(table, Action(step.player, Verb.CHECK_CALL)))
    if step.min_to is not None and step.max_to is not None:
        amount = raise_to.number_input(
            f"Bet or raise to ({step.min_to}-{step.max_to})", min_value=step.min_to,
            max_value=step.max_to, value=step.min_to, step=1, key=f"{base}-amount")
        if go.button(f"Bet/raise to {int(amount)}", key=f"{base}-raise"):
            take(table, _doing(table, Action(step.player, Verb.BET_RAISE,
                                             amount=int(amount))))


def _showdown(table: RecordedTable, step: NextStep, view: SeatView, base: str,
              seat_player: int | None) -> None:
    hand = table.hand
    assert hand is not None
    player = step.player
    if seat_player is None and len(step.waiting) > 1:
        player = st.radio("Who shows or mucks now", step.waiting, horizontal=True,
                          format_func=lambda p: _name(view, p), key=f"{base}-who")
    holding = hand.holding(player)
    hidden = holding.count(UNKNOWN)
    st.html(f"<p><b>{escape(_name(view, player))}</b> holds {cards_html(holding)}</p>")
    named: list[Card] = []
    if hidden:
        named = _card_picker(f"Name the {hidden} hidden card{'s' if hidden > 1 else ''} "
                             "(in the order dealt)", unseen_cards(hand.actions), hidden,
                             f"{base}-reveal{player}")
    show, muck = st.columns(2)
    if show.button("Show", key=f"{base}-show{player}", type="primary",
                   disabled=len(named) != hidden):
        take(table, lambda: table.show(player, named))
    if muck.button("Muck", key=f"{base}-muck{player}"):
        take(table, _doing(table, Action(player, Verb.SHOW_MUCK)))


_CHOICE_WORDS: Final = {
    Verb.EXCHANGE: "Exchange with the widow", Verb.PASS_WIDOW: "Keep the hand",
    Verb.BID_PASS: "Pass (no bid)", Verb.FOLD: "Fold",
    Verb.IMPASSE: "Impasse: nobody can lay", Verb.PASS: "Pass"}


def _choice_label(action: Action, call: int) -> str:
    """The words on a Rummoli choice's button (``call``: what a check or call puts in)."""
    if action.verb is Verb.PLAY:
        return f"Lay {cards_words(action.cards)}"
    if action.verb is Verb.SHOW_MUCK:
        return f"Show {cards_words(action.cards)}" if action.cards else "Muck"
    if action.verb is Verb.CLAIM:
        return f"Claim {pot_words(action.pot or '')}"
    if action.verb is Verb.AUCTION_WIN:
        return f"Wins the auction at {action.amount}"
    if action.verb is Verb.CHECK_CALL:
        return f"Call {call}" if call else "Check"
    return _CHOICE_WORDS.get(action.verb, action.notation())


def _choices(table: RecordedTable, step: NextStep, who: str, base: str) -> None:
    """One button per engine choice; a bet or bid with an amount in the engine's range."""
    st.markdown(f"**{ui.literal(who)} to act**" if step.player != DEALER else "**The dealer**")
    if step.holding:
        st.html(f"<p>{escape(who)} holds {cards_html(step.holding)}</p>")
    plain = [a for a in step.choices if a.verb not in (Verb.BET_RAISE, Verb.BID)]
    columns = st.columns(max(2, min(6, len(plain))))
    for index, action in enumerate(plain):
        if columns[index % len(columns)].button(_choice_label(action, step.call),
                                                 key=f"{base}-choice{index}"):
            take(table, _doing(table, action))
    ranged = next((a for a in step.choices if a.verb in (Verb.BET_RAISE, Verb.BID)), None)
    if ranged is not None and step.min_to is not None and step.max_to is not None:
        word = "Bid" if ranged.verb is Verb.BID else "Bet/raise to"
        left, right = st.columns(2)
        amount = int(left.number_input(f"{word} ({step.min_to}-{step.max_to})",
                                       min_value=step.min_to, max_value=step.max_to,
                                       value=step.min_to, step=1, key=f"{base}-amount"))
        if right.button(f"{word} {amount}", key=f"{base}-ranged"):
            take(table, _doing(table, Action(ranged.actor, ranged.verb, amount=amount)))


def _bigtwo_play(table: RecordedTable, step: NextStep, who: str, base: str) -> None:
    st.html(f"<p><b>{escape(who)}</b> holds {cards_html(step.holding)}</p>")
    choice = st.selectbox(f"Plays that {'lead' if not step.can_pass else 'beat the table'} "
                          f"({len(step.plays)})", step.plays, format_func=cards_words,
                          index=0 if step.plays else None, key=f"{base}-plays")
    play, passing = st.columns(2)
    if play.button("Play", key=f"{base}-play", type="primary", disabled=choice is None):
        assert choice is not None
        take(table, _doing(table, Action(step.player, Verb.PLAY, tuple(choice))))
    if step.can_pass and passing.button("Pass", key=f"{base}-pass"):
        take(table, _doing(table, Action(step.player, Verb.PASS)))


@dataclass(frozen=True, slots=True)
class SevenEightChoice:
    """What a 7 & 8 set-up form asked: variant, starting stack, blinds, ante."""

    variant: str
    stack: int
    blinds: tuple[int, int]
    ante: int = 0


@dataclass(frozen=True, slots=True)
class RummoliChoice:
    """What the Rummoli set-up form asked: knobs, variant, stack, minimum bet."""

    rules: RummoliRules
    variant: str
    stack: int
    min_bet: int


TableChoice = SevenEightChoice | RummoliChoice | BigTwoRules
"""What a set-up form asked, by game (Big Two: its knobs)."""


def setup_table(name: str, players: Sequence[str], choice: TableChoice, *,
                bots: Sequence[str] = ()) -> TableSetup | None:
    """The table a set-up form asked for; None (the reason shown) when it is refused."""
    try:
        if isinstance(choice, SevenEightChoice):
            return seveneight_setup(name, players, choice.stack, blinds=choice.blinds,
                                    ante=choice.ante, variant=choice.variant, bots=bots)
        if isinstance(choice, RummoliChoice):
            return rummoli_setup(name, players, choice.stack, choice.rules,
                                 variant=choice.variant, min_bet=choice.min_bet, bots=bots)
        return bigtwo_setup(name, players, choice, bots=bots)
    except (StepRefused, ValueError) as error:
        st.error(ui.literal(error))
        return None


def seveneight_knobs(key: str) -> SevenEightChoice:
    """The 7 & 8 table a set-up form asks for (Record and Play): the betting, the starting
    stack, the blinds and an ante."""
    left, middle, right, last = st.columns(4)
    variant = _betting_choice(left, "Betting", ("N78", "P78", "F78"), f"{key}_variant")
    stack = int(middle.number_input("Starting stack", 1, 10**9, 200, key=f"{key}_stack"))
    small = int(right.number_input("Small blind", 1, 10**6, 1, key=f"{key}_small"))
    big = int(last.number_input("Big blind", 1, 10**6, 2, key=f"{key}_big"))
    ante = int(st.number_input("Ante", 0, 10**6, 0, key=f"{key}_ante"))
    return SevenEightChoice(variant, stack, (small, big), ante)


def _betting_choice(column: Any, label: str, variants: tuple[str, ...], key: str) -> str:
    """A variant of ``variants`` chosen in ``column`` by its betting, in words (``no
    limit``, ``pot limit``, ``fixed limit``); the first until one is chosen."""
    return str(column.selectbox(label, variants, key=key, format_func=betting_words)
               or variants[0])


def rummoli_knobs(key: str, *, claims: bool = True) -> RummoliChoice:
    """The Rummoli knobs a table is set up with.  Without ``claims`` pots are won as laid
    (the Play page: the bots claim only automatically)."""
    left, middle, right, last = st.columns(4)
    variant = _betting_choice(left, "Poker betting", ("NRM", "PRM", "FRM"), f"{key}-rvariant")
    stack = int(middle.number_input("Starting chips", 10, 10**6, 100, key=f"{key}-rstack"))
    ante = int(right.number_input("Ante (per pot)", 1, 10**4, 1, key=f"{key}-rante"))
    min_bet = int(last.number_input("Minimum bet", 1, 10**4, 1, key=f"{key}-rmin"))
    claim_column, finale_column = st.columns(2)
    claim = (claim_column.selectbox("Pots are won", list(Claim), format_func=str,
                                    key=f"{key}-rclaim")
             if claims else Claim.AUTO) or Claim.AUTO
    finale = finale_column.selectbox("End of game (finale)", list(Finale), format_func=str,
                                     key=f"{key}-rfinale") or Finale.SINGLE
    return RummoliChoice(RummoliRules(ante=ante, claim=claim, finale=finale), variant,
                         stack, min_bet)


def bigtwo_knobs(key: str, *, deal_knob: bool = True) -> BigTwoRules:
    """The Big Two knobs a table is set up with (the others keep RULES.md's defaults).
    Without ``deal_knob`` every player is dealt 13 (the Record page: a deal of the whole
    deck to three players gives one of them a card more, which its picker does not ask)."""
    left, middle, right = st.columns(3)
    scoring = left.selectbox("Scoring", list(BigTwoScoring), format_func=str,
                             key=f"{key}-scoring")
    deal = (middle.selectbox("Deal", list(BigTwoDeal), format_func=str, key=f"{key}-deal")
            if deal_knob else BigTwoDeal.THIRTEEN)
    lead = right.selectbox("Lead card", ("3d", "3c"), key=f"{key}-lead")
    four = st.checkbox("Four-card plays", key=f"{key}-four")
    fry = BigTwoRules().fry_threshold
    if scoring is not BigTwoScoring.RANK:  # every scoring by cards left doubles a fry
        fry = int(st.number_input(
            "Fried from this many cards left", min_value=1, max_value=52, value=fry,
            key=f"{key}-fry", help="A loser holding this many cards or more pays double "
            "(RULES.md 2: 10 by default; more than a hand holds switches frying off)."))
    return BigTwoRules(deal=deal or BigTwoDeal.THIRTEEN, lead_card=lead or "3d",
                       scoring=scoring or BigTwoScoring.CARDS, four_card_plays=four,
                       fry_threshold=fry)
