"""Play the bots: 7 & 8, Big Two or Rummoli against the simulator's bots, recorded like a live
game; between hands a bot is seated or leaves, a busted player rebuys."""

from __future__ import annotations

import functools
import os
import random
import secrets
import time

import streamlit as st

from analytics.dashboard import logic, recording, ui
from analytics.record.hand import StepKind, StepRefused
from analytics.record.play import (
    BOT_STYLE_NAMES,
    automatic_action,
    is_persons_turn,
    player_of_seat,
    seat_view,
    seated_bot_names,
)
from analytics.record.table import RecordedTable, TableSetup, recorded_folder
from parsers.rule_options import Game

# (Comments, not docstrings: a page is a script, and Streamlit's "magic" would show a bare
# string on the page.)
# Seconds the table waits before each bot's move, so a person can follow the play
# ($HANDLAB_BOT_PAUSE: the browser tests play faster).
PAUSE = float(os.environ.get("HANDLAB_BOT_PAUSE", "0.6"))
DEFAULT_NAME = "Hero"
GAMES = {"7 & 8": Game.SEVENEIGHT, "Big Two": Game.BIGTWO, "Rummoli": Game.RUMMOLI}


def _setup_form() -> TableSetup | None:
    game = GAMES[st.radio("Game", list(GAMES), horizontal=True, key="play_game")]
    # "Hero", as trackers name the user: "You" made the replayer say "You takes 15 chips".
    you = st.text_input("Your name", value=DEFAULT_NAME, key="play_you",
                        help="Your seat's name in the histories and on every page.")
    most = 4 if game is Game.BIGTWO else 8
    seats = int(st.number_input("Seats (you and the bots)", 2, most, min(4, most),
                                key=f"play_seats_{game}"))
    styles = BOT_STYLE_NAMES[game]
    you = you.strip() or DEFAULT_NAME
    bot_names = seated_bot_names(you, seats - 1)
    columns = st.columns(seats - 1)
    bots = [column.selectbox(f"{bot_names[i]}'s style", styles, index=i % len(styles),
                             key=f"play_style_{game}_{i}")
            for i, column in enumerate(columns)]
    players = [you, *bot_names]
    # The second and a random suffix: two sit-downs in one second get tables of their own.
    name = f"play-{int(time.time())}-{secrets.token_hex(3)}"
    choice: recording.TableChoice
    if game is Game.SEVENEIGHT:
        choice = recording.seveneight_knobs("play")
    elif game is Game.RUMMOLI:
        choice = recording.rummoli_knobs("play", claims=False)
    else:
        choice = recording.bigtwo_knobs("play")
    if st.button("Sit down", type="primary", key="play_start"):
        return recording.setup_table(name, players, choice, bots=("", *bots))
    return None


def render() -> None:
    """Draw the page: set up a table, then play it; the bots move by themselves."""
    ui.context()  # the sidebar
    folder = recorded_folder()
    st.title("Play the bots")
    name = st.query_params.get("table")
    if not name or not (folder / f"{name}.journal").exists():
        st.caption("You see your own cards and what is shown; every hand is recorded with "
                   "all its cards, lands in the statistics and can be replayed afterwards.")
        setup = _setup_form()
        if setup is not None:
            ui.release_connection()
            try:
                RecordedTable.create(folder, setup)  # loads where the dashboard reads
            except StepRefused as error:
                st.error(ui.literal(error))
                return
            st.query_params["table"] = setup.name
            st.rerun()
        return
    table = recording.open_table(folder, name)
    if st.button("Leave this table", key="play_leave"):
        del st.query_params["table"]
        st.rerun()
    _play(table)


def _play(table: RecordedTable) -> None:
    error = st.session_state.get("record_error")
    if error:
        st.error(f"Not allowed: {ui.literal(error)}")
    seen = st.session_state.get(f"play_seen_{table.setup.name}", 0)
    if table.filed and len(table.steps) > 1:  # a hand under way: its result was seen
        seen = table.filed[-1].hand.hand  # (a tab opened in the middle of the next hand)
    if table.filed and table.filed[-1].hand.hand != seen:
        recording.draw_filed(table.filed[-1])
        if table.hand is None:
            st.info(f"The table is over: {table.over_reason}.")
            recording.draw_seats(table, "play", expanded=True)
            return
        label = ("Play the finale" if table.finale_pot is not None
                 else f"Next {logic.PER[table.setup.game.value]}")
        if st.button(label, type="primary", key=f"play_next_{table.number}"):
            st.session_state[f"play_seen_{table.setup.name}"] = table.filed[-1].hand.hand
            st.rerun()
        recording.draw_end_game(table, "play")
        recording.draw_seats(table, "play", expanded=True)
        return
    hand = table.hand
    if hand is None:
        st.info(f"The table is over: {table.over_reason}.")
        recording.draw_seats(table, "play", expanded=True)
        return
    board = st.empty()
    rng = random.Random()
    while True:
        hand = table.hand
        step = table.next_step()
        if hand is None:
            break
        with board.container():
            recording.draw_view(seat_view(hand, 0), step, title=recording.hand_title(table))
        action = automatic_action(table, rng)
        if action is None:
            break
        if step.kind is not StepKind.DEAL:
            time.sleep(PAUSE)
        filed = recording.attempt(table, functools.partial(table.record, action))
        if filed is not None:
            st.rerun()  # the hand's result first
    if hand is None or not is_persons_turn(table):
        st.rerun()
    me = player_of_seat(hand, 0)
    recording.draw_step(table, step, seat_player=me, key="play")


render()
