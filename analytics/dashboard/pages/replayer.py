"""Hand replayer: pick any hand and step through it, cards drawn as cards, chips and pots
updated after every action (equities where known)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from html import escape
from typing import Any, Final

import pandas as pd
import streamlit as st

from analytics.dashboard import logic, ui
from analytics.dashboard.cards import cards_html, chips_html, pot_words
from analytics.dashboard.replayer import (
    UNCALLED,
    Step,
    StoredEquities,
    chips_unit,
    hand_from_detail,
    replay_steps,
    steps_frame,
    stored_equities,
)
from analytics.rules.pots import Pot
from analytics.warehouse import writer
from analytics.warehouse.annotations import HandNote, hand_note, set_hand_note, tags_from_text
from analytics.warehouse.identity import hand_id_hex, parse_hand_id
from analytics.warehouse.sql.views import level_of
from parsers.model import RUMMOLI_POTS, HandHistory
from parsers.rule_options import GAME_NAMES, Game


@st.cache_data(max_entries=64, show_spinner=False)
def _steps(db: str, version: tuple[int, str, int], hand_id: int
           ) -> tuple[HandHistory, list[Step], pd.DataFrame, StoredEquities | None]:
    detail: dict[str, pd.DataFrame] = ui.ask("hand_detail", hand_id=hand_id)
    hand = hand_from_detail(detail)
    streets = [str(s) for s in detail["actions"]["street"]]
    stored = stored_equities(hand, ui.ask("hand_equities", hand_id=hand_id))
    steps = replay_steps(hand, streets=streets,
                         equities=stored.provider if stored is not None else None)
    return hand, steps, detail["hand"], stored


def _label(row: Mapping[Hashable, Any]) -> str:
    """A picker label; unique, since the picker tells options apart by their text."""
    day = row["day"].date() if hasattr(row["day"], "date") else row["day"]
    clock = f" {row['played_time']}" if pd.notna(row["played_time"]) else ""
    where = row["session"] if pd.notna(row["session"]) else ""
    number = f" r{int(row['round'])}" if pd.notna(row["round"]) else ""
    winner = f" · won by {row['winner']}" if pd.notna(row["winner"]) else ""
    game = GAME_NAMES.get(str(row["game"]), str(row["game"]))
    return (f"{day}{clock} · {game} · {where}{number} · {row['players']}{winner} "
            f"· {hand_id_hex(int(row['hand_id']))}")


def _seats_html(hand: HandHistory, step: Step, stored: StoredEquities | None) -> str:
    """The seats at ``step``: the columns the game has (Big Two is played for points: no
    stack, no chips put in)."""
    chips = hand.game is not Game.BIGTWO
    unit = chips_unit(hand)
    rows = []
    # The column shows from the step the stored figures apply to; before it, a dash.
    shown = stored is not None and step.equities is not None and any(
        v is not None for v in step.equities)
    for seat in range(hand.num_players):
        name = escape(hand.player_name(seat + 1))
        holding = cards_html(step.holding[seat], faded=step.dead[seat])
        visible = cards_html(step.visible[seat], empty="")
        stack = step.stacks[seat] if seat < len(step.stacks) else None
        net = "" if step.nets is None else f"{step.nets[seat]:+d}"
        out = f" ({step.out[seat]})" if step.out[seat] else ""
        cells = [f"<b>{name}</b>{out}", holding]
        if chips:  # Big Two has no cards face up nor a showdown, nor chips
            cells.append(visible)
            cells += [chips_html(stack) if stack is not None else "",
                      str(step.committed[seat]) if stack is not None else ""]
        cells.append(net)
        if stored is not None:
            text = stored.cells[seat] if shown else "—"
            cells.append(escape(text or "not in the all-in"))
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    heads = ["player", "cards held",
             *(["face up / shown", f"stack ({unit})", f"put in ({unit})"] if chips else []),
             f"result ({unit})"]
    if stored is not None:
        heads.append(escape(stored.heading))
    head = "".join(f"<th style='text-align:left;padding:4px 10px'>{h}</th>" for h in heads)
    return ("<table class='hl-seats' style='border-collapse:collapse;font-size:1.05em'>"
            f"<tr>{head}</tr>{''.join(rows)}</table>")


def _eligible_names(hand: HandHistory, pots: tuple[Pot, ...]) -> list[str]:
    return [", ".join(hand.player_name(i + 1) for i in pot.eligible) for pot in pots]


def _middle_html(hand: HandHistory, step: Step) -> str:
    parts = []
    if step.pot is not None and hand.game is not None and hand.game.value == "seveneight":
        parts.append(chips_html(step.pot, label="pot"))
        if step.pots:  # an all-in for less: the main and side pots, who can win each
            pills = " ".join(
                f"<span title='{escape(who)}'>"
                f"{chips_html(pot.amount, label=pot_words(pot.name) + ':')}"
                f" <small>{'back to ' if pot.name == UNCALLED else ''}{escape(who)}</small>"
                "</span>"
                for pot, who in zip(step.pots, _eligible_names(hand, step.pots), strict=True))
            paid = " (paid out)" if step.street == "settled" else ""
            parts.append(f"<div>Pots{paid}: {pills}</div>")
    if step.board is not None:
        pots = " ".join(chips_html(chips, label=pot_words(name))
                        for name, chips in zip(RUMMOLI_POTS, step.board, strict=True))
        parts.append(f"<div>Board: {pots}</div>")
        if step.pot:
            parts.append(chips_html(step.pot, label="bets"))
    if step.table:
        label = "On the table" if hand.game is not None and hand.game.value == "bigtwo" \
            else "Laid"
        parts.append(f"<div>{label}: {cards_html(step.table)}</div>")
    return "<div class='hl-middle' style='margin:0.6em 0'>" + "".join(parts) + "</div>"


# Why a hand has no stored equities, per game (a comment: Streamlit's magic would draw a
# bare string of a page script).
_NONE_STORED: Final = {
    Game.SEVENEIGHT: "Equities: none for this hand. They are stored for a 7 & 8 hand all in "
                     "with cards to come. Chips and pots are the rules engine's.",
    Game.RUMMOLI: "Poker strengths: none for this round. They are stored for a Rummoli round "
                  "whose dealt cards are all known. Chips and pots are the rules engine's.",
    Game.BIGTWO: "Deal features: none for this game. Points are the rules engine's."}


def _equity_notes(stored: StoredEquities | None, position: int, hand_id: int,
                  hand: HandHistory) -> None:
    """What the equity column means, or why there is none (Big Two's are deal features)."""
    game = hand.game
    if stored is None:
        if hand.cards_left is not None:  # a score sheet's line
            st.caption("Deal features: none, as a score sheet records only the cards each "
                       "player had left, not the deal.")
        elif game is not None:
            st.caption(_NONE_STORED[game])
        return
    when = ("" if position >= stored.from_step
            else f" (shown from step {stored.from_step}, ")
    if when:
        when += "when they apply)"
    what = "Deal features" if game is Game.BIGTWO else "Stored equities"
    st.caption(f"{what}{when}: {stored.note}")
    with st.expander(f"{what} of this hand"):
        table = logic.stored_equity_table(game.value, stored.table) if game is not None \
            else stored.table
        ui.dataframe(table, hide_index=True)
        ui.download_buttons(table, f"hand-{hand_id_hex(hand_id)}-equities", key="hand_equities")


def _notes(db: str, hand_id: int) -> None:
    """The hand's star, tags and note: shown, and kept (in their own table) when saved."""
    with ui.reading(db) as con:  # not cached: a save must show at once
        kept = hand_note(con, hand_id)
    # The widgets take their first value from the session state, not from `value=`: a widget
    # whose `value=` changes after a save is a new widget to Streamlit, and its box could
    # come up empty.
    keys = {"star": f"note_star_{hand_id}", "tags": f"note_tags_{hand_id}",
            "text": f"note_text_{hand_id}"}
    st.session_state.setdefault(keys["star"], kept.starred)
    st.session_state.setdefault(keys["tags"], ", ".join(kept.tags))
    st.session_state.setdefault(keys["text"], kept.note)
    with st.form(f"notes_{hand_id}"):
        st.markdown("**Star, tags and note** (kept by the hand's id: they outlive re-ingests)")
        starred = st.checkbox("Starred", key=keys["star"])
        tags = st.text_input("Tags, separated by commas", key=keys["tags"])
        note = st.text_area("Note", key=keys["text"])
        saved = st.form_submit_button("Save", icon=":material/bookmark:")
    if saved:
        ui.release_connection()  # this process writes: DuckDB refuses it while it reads
        with writer(db) as con:
            set_hand_note(con, hand_id, HandNote(starred, tags_from_text(tags), note))
        st.success("Saved.")
    elif not kept.empty:
        star = "★ " if kept.starred else ""
        st.caption(f"Kept: {star}{ui.literal(', '.join(kept.tags))}")


def _move(key: str, to: int, last: int) -> None:
    st.session_state[key] = max(0, min(last, to))


def render() -> None:
    """Draw the picker and the chosen hand at the chosen step."""
    ctx = ui.context()
    st.title("Hand replayer")
    hands: pd.DataFrame = ui.ask("hand_list", limit=500)
    wanted = st.query_params.get("hand")
    # The short hex id shown everywhere, or the decimal form older links carry.
    hand_id = parse_hand_id(wanted) if wanted is not None else None
    if hand_id is not None:  # a link saved before migration 13 names the hand's old id
        hand_id = int(ui.ask("current_hand_id", hand_id=hand_id))
    if hands.empty and hand_id is None:
        st.info("No hands match the filters.")
        return
    ids = [int(h) for h in hands["hand_id"]]
    # Plain records: indexing an iterrows() Series cost more than the list's own query.
    labels = {int(r["hand_id"]): _label(r) for r in hands.to_dict("records")}
    if hand_id is not None and hand_id not in labels:
        ids.insert(0, hand_id)
        labels[hand_id] = f"hand {hand_id_hex(hand_id)} (from the link)"
    # Seed the picker from the link once; afterwards the widget's own state rules, so a
    # changing default can never swap the hand under the user.
    if st.session_state.get("replayer_hand") not in labels:
        st.session_state["replayer_hand"] = hand_id if hand_id is not None else ids[0]
    chosen = st.selectbox("Hand (the 500 most recent matching the filters)", ids,
                          format_func=lambda i: labels.get(i, str(i)), key="replayer_hand")
    if chosen is None:
        return
    shown_id = hand_id_hex(int(chosen))
    if st.query_params.get("hand") != shown_id:
        st.query_params["hand"] = shown_id
    try:
        hand, steps, head, stored = _steps(ctx.db, ctx.version, int(chosen))
    except (IndexError, KeyError):
        st.error(f"There is no hand {shown_id} in the database.")
        return
    info = head.iloc[0]
    level = level_of(str(info["game"]), str(info["stakes"]), str(info["rules"]))
    source = ui.literal(logic.short_name(str(info["source_file"])))
    st.caption(f"{GAME_NAMES.get(str(info['game']), info['game'])} · "
               f"{logic.level_words(level)} · "
               f"hand id `{shown_id}` · from {source} "
               f"(hand {info['source_index']}, line {info['source_line']})",
               help=f"File: {ui.literal(info['source_file'])}")
    last = len(steps) - 1
    key = f"replayer_step_{chosen}"
    if key not in st.session_state:
        st.session_state[key] = last
    # Callbacks move the step before the script runs, so every button's state is current.
    at = int(st.session_state[key])
    back, forward, start, end = st.columns(4)
    # Material icons ship with Streamlit, so they draw even where no emoji font is installed.
    back.button("Back", key="step_back", icon=":material/chevron_left:", disabled=at <= 0,
                on_click=_move, args=(key, at - 1, last))
    forward.button("Next", key="step_next", icon=":material/chevron_right:",
                   disabled=at >= last, on_click=_move, args=(key, at + 1, last))
    start.button("Start", key="step_start", icon=":material/first_page:", on_click=_move,
                 args=(key, 0, last))
    end.button("End", key="step_end", icon=":material/last_page:", on_click=_move,
               args=(key, last, last))
    position = st.slider("Step", 0, last, key=key)
    step = steps[position]
    notation = f" · `{step.notation}`" if step.notation else ""
    st.markdown(f"**Step {position} of {last}** · {step.street}{notation} — "
                f"{ui.literal(step.words)}")
    st.html(_seats_html(hand, step, stored) + _middle_html(hand, step))
    _equity_notes(stored, position, chosen, hand)
    _notes(ctx.db, int(chosen))
    table = steps_frame(steps, [hand.player_name(s + 1) for s in range(hand.num_players)],
                        chips_unit(hand))
    with st.expander("All steps"):
        ui.dataframe(table, hide_index=True)
        ui.download_buttons(table, f"hand-{shown_id}", key="hand_steps")


render()
