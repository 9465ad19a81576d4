"""Record: a live game entered step by step, offering only what the rules engine allows."""

from __future__ import annotations

import streamlit as st

from analytics.dashboard import recording, ui
from analytics.record.hand import StepRefused
from analytics.record.play import seat_view
from analytics.record.table import RecordedTable, TableSetup, recorded_folder, table_names

# (Comments, not docstrings: a page is a script, and Streamlit's "magic" would show a bare
# string on the page.)
NEW = "New table…"
GAMES = {"7 & 8": "seveneight", "Big Two": "bigtwo", "Rummoli": "rummoli"}


def _new_table_form() -> TableSetup | None:
    game = st.radio("Game", list(GAMES), horizontal=True, key="record_game")
    name = st.text_input("Table name (letters, digits, - and _)", key="record_name")
    players_text = st.text_input("Players in seat order (commas between names)",
                                 key="record_players")
    players = [p.strip() for p in players_text.split(",") if p.strip()]
    choice: recording.TableChoice
    if GAMES[game] == "seveneight":
        choice = recording.seveneight_knobs("record")
    elif GAMES[game] == "rummoli":
        choice = recording.rummoli_knobs("record")
    else:
        choice = recording.bigtwo_knobs("record", deal_knob=False)
    if st.button("Start the table", type="primary", key="record_start",
                 disabled=not name or len(players) < 2):
        return recording.setup_table(name, players, choice)
    return None


def render() -> None:
    """Draw the page: choose or start a table, then record its hands step by step."""
    ui.context()  # the sidebar
    folder = recorded_folder()
    st.title("Record a game")
    st.caption("Enter a game as it is played at the table. Only what the rules engine allows "
               "is offered; every step is saved at once, so a reload goes on where you were. "
               f"Finished hands go to `{folder.name}/<table>.phhs` and into the statistics.")
    names = table_names(folder)
    wanted = st.query_params.get("table")
    options = [*names, NEW]
    index = options.index(wanted) if wanted in options else len(options) - 1
    choice = st.selectbox("Table", options, index=index, key=f"record_table_{wanted}")
    if choice == NEW:
        if "table" in st.query_params:
            del st.query_params["table"]
        setup = _new_table_form()
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
    st.query_params["table"] = choice
    table = recording.open_table(folder, choice)
    _record(table)


def _record(table: RecordedTable) -> None:
    error = st.session_state.get("record_error")
    if error:
        st.error(f"Not allowed: {ui.literal(error)}")
    filed_number = st.session_state.get("record_filed")
    if table.filed and table.filed[-1].hand.hand == filed_number:
        recording.draw_filed(table.filed[-1])
    hand = table.hand
    if hand is None:
        st.info(f"The table is over: {table.over_reason}.")
        recording.draw_seats(table, "record")
        return
    step = table.next_step()
    recording.draw_view(seat_view(hand, None), step, title=recording.hand_title(table))
    recording.draw_step(table, step, key="record")
    st.divider()
    recording.draw_end_game(table, "record")
    recording.draw_seats(table, "record")
    if st.button("Undo the last step", key=f"record_undo_{len(hand.actions)}",
                 disabled=not table.can_undo):
        recording.take(table, lambda: table.undo())
    with st.expander(f"The hand so far ({len(hand.actions)} actions)"):
        st.code("\n".join(action.notation() for action in hand.actions) or "(no action yet)",
                language=None)


render()
