"""The Record and Play pages rendered headless (Streamlit's AppTest): the engine's choices
drawn, a click taking a step, the bots moving until it is the person's turn."""

from __future__ import annotations

import random
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analytics.dashboard.cards import cards_words
from analytics.record.hand import deal_action
from analytics.record.play import automatic_action, is_persons_turn
from analytics.record.table import (
    FOLDER_VAR,
    RecordedTable,
    bigtwo_setup,
    rummoli_setup,
    seveneight_setup,
)
from analytics.rules import replay
from analytics.warehouse import ENV_VAR
from parsers import Action, BigTwoRules, HandHistory, RummoliRules, Verb, parse_cards
from parsers.cards import DECK, UNKNOWN
from parsers.reader import read_hands
from parsers.rule_options import Game
from tests.test_dashboard_data import dashboard_db
from tests.test_record import README_HAND, people_play, to_the_last_play

__all__ = ["dashboard_db"]  # the fixture, re-exported for pytest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGES = "analytics/dashboard/pages"
RANKS = "23456789TJQKA"
"""The ranks in the reader's notation, two to ace."""


@pytest.fixture
def folder(dashboard_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "own.duckdb"
    shutil.copy(dashboard_db, copy)
    monkeypatch.setenv(ENV_VAR, str(copy))
    monkeypatch.setenv(FOLDER_VAR, str(tmp_path / "recorded"))
    monkeypatch.setenv("HANDLAB_BOT_PAUSE", "0")
    return tmp_path / "recorded"


def open_page(page: str, table: str) -> AppTest:
    """The dashboard's ``page`` opened on the recorded ``table``, with no exception."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.query_params["table"] = table
    at.switch_page(f"{PAGES}/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> str:
    return " ".join(str(m.value) for m in at.markdown) + " ".join(
        str(c.value) for c in at.caption)


def test_the_record_page_names_a_player_as_typed(folder: Path) -> None:
    """A player named as Markdown (bold, a link) is named as typed in the steps: his name
    reaches st.markdown escaped (``ui.literal``), where html.escape left it Markdown."""
    RecordedTable.create(folder, seveneight_setup("den", ["**Ann**", "[Bo](https://x.example)"],
                                                  50), ingest_into=False)
    at = open_page("record", "den")
    assert "Deal 2 cards to \\*\\*Ann\\*\\*" in _texts(at)


def test_the_record_page_offers_the_engines_choices_and_takes_a_step(folder: Path) -> None:
    RecordedTable.create(folder, seveneight_setup("den", ["Ann", "Bo"], 50), ingest_into=False)
    at = open_page("record", "den")
    assert "Deal 2 cards to Ann" in _texts(at)
    for card in ("7c", "8c"):
        at.button(key=f"record-1-0-deal-{card}").click().run()
    assert "2 of 2 picked" in _texts(at)
    # Every other card is now disabled: two are all the engine takes.
    assert at.button(key="record-1-0-deal-As").disabled
    at.button(key="record-1-0-dealgo").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Deal 2 cards to Bo" in _texts(at)
    table = RecordedTable.open(folder, "den", ingest_into=False)
    assert table.hand is not None and table.hand.actions[0].notation() == "d dh p1 7c8c"


def test_the_play_page_lets_the_bots_move_until_the_persons_turn(folder: Path) -> None:
    setup = bigtwo_setup("lounge", ["You", "Bo", "Cy", "Dee"],
                         bots=("", "steady", "steady", "steady"))
    RecordedTable.create(folder, setup, ingest_into=False)
    at = open_page("play", "lounge")
    table = RecordedTable.open(folder, "lounge", ingest_into=False)
    step = table.next_step()
    # The computer dealt, the bots played up to the person (p1), who now sees his plays.
    assert step.kind.value == "play" and step.player == 1
    hand = table.hand
    assert hand is not None
    base = f"play-1-{len(hand.actions)}"
    plays = at.selectbox(key=f"{base}-plays")
    assert list(plays.options) == [cards_words(play) for play in step.plays]  # "10♠ 10♥"
    assert bool([b for b in at.button if b.key == f"{base}-pass"]) == step.can_pass


def test_the_record_page_deals_a_rummoli_round_and_offers_the_widow(folder: Path) -> None:
    RecordedTable.create(folder, rummoli_setup("hall", ["Ann", "Bo"], 40), ingest_into=False)
    table = RecordedTable.open(folder, "hall", ingest_into=False)
    cards = list(DECK)
    for player, share in ((1, cards[0:18]), (2, cards[18:35])):
        table.record(deal_action(player, share))
    at = open_page("record", "hall")
    assert "Deal 17 cards to the widow" in _texts(at)
    at.button(key="record-1-2-dealgo").click().run()  # the 17 cards left: no picking
    assert not at.exception, [e.value for e in at.exception]
    # The widow: the dealer (Bo, the last seat) exchanges or keeps his hand, as the engine
    # allows; each choice is a button.
    labels = {button.label for button in at.button if button.key and "-choice" in button.key}
    again = RecordedTable.open(folder, "hall", ingest_into=False)
    expected = {"Keep the hand"} | ({"Exchange with the widow"} if any(
        a.verb.value == "xw" for a in again.next_step().choices) else set())
    assert labels == expected


def test_the_record_page_ends_a_rummoli_game_with_its_finale(folder: Path) -> None:
    setup = rummoli_setup("parlour", ["Ann", "Bo", "Cy"], 60,
                          bots=("bold", "cautious", "bold"))  # finale = "single"
    table = RecordedTable.create(folder, setup, ingest_into=False)
    rng = random.Random(5)
    while not table.filed:
        action = automatic_action(table, rng)
        assert action is not None
        table.record(action)
    assert any(table.carry.board)
    at = open_page("record", "parlour")
    assert "one round of poker is played for it" in _texts(at)
    at.button(key="record-endgame-2").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Finale: poker for the whole board · round 2 · step 1" in _texts(at)
    assert not [b for b in at.button if b.key == "record-endgame-2"]  # ended once
    again = RecordedTable.open(folder, "parlour", ingest_into=False)
    assert again.finale_pot == "all"


def test_the_record_page_takes_a_rebuy_between_hands(folder: Path) -> None:
    table = RecordedTable.create(folder, seveneight_setup("den", ["Ann", "Bo", "Cy"], 16),
                                 ingest_into=False)
    for action in README_HAND:
        table.record(action)
    assert table.seating[2] == ("Cy", 0)
    at = open_page("record", "den")
    next(box for box in at.selectbox if box.label == "Seat").set_value(3).run()
    at.number_input(key="record-seat3-2-rebuy-stack").set_value(30).run()
    at.button(key="record-seat3-2-rebuy").click().run()
    assert not at.exception, [e.value for e in at.exception]
    again = RecordedTable.open(folder, "den", ingest_into=False)
    hand = again.hand
    assert hand is not None and hand.header.players == ("Bo", "Cy", "Ann")
    assert hand.header.starting_stacks == (14, 30, 34)
    assert dict(hand.header.user_fields) == {"_rebuys": ["Cy"]}


def test_the_record_page_changes_seats_between_rummoli_rounds(folder: Path) -> None:
    setup = replace(rummoli_setup("club", ["Ann", "Bo", "Cy"], 40), seed=3)  # fixed deals
    table = RecordedTable.create(folder, setup, ingest_into=False)
    people_play(table, random.Random(3), 1)
    board = table.carry.board
    at = open_page("record", "club")
    assert any(e.label == "Between rounds: rebuys and seats" for e in at.expander)
    next(box for box in at.selectbox if box.label == "Seat").set_value(2).run()
    at.button(key="record-seat2-2-leave").click().run()
    assert not at.exception, [e.value for e in at.exception]
    next(box for box in at.selectbox if box.label == "Seat").set_value(2).run()
    at.text_input(key="record-seat2-2-name").set_value("Eve").run()
    at.number_input(key="record-seat2-2-in").set_value(25).run()
    at.button(key="record-seat2-2-join").click().run()
    assert not at.exception, [e.value for e in at.exception]
    again = RecordedTable.open(folder, "club", ingest_into=False)
    hand = again.hand
    assert hand is not None and again.seating[1] == ("Eve", 25)
    assert "Bo" not in (hand.header.players or ()) and "Eve" in (hand.header.players or ())
    assert list(hand.header.board_before or [0] * 9) == board  # the board carried on


def test_the_record_page_changes_seats_between_bigtwo_games(folder: Path) -> None:
    RecordedTable.create(folder, bigtwo_setup("match", ["Ann", "Bo", "Cy", "Dee"]),
                         ingest_into=False)
    at = open_page("record", "match")
    assert any(e.label == "Between games: seats" for e in at.expander)
    assert not [b for b in at.button if b.key is not None and "rebuy" in b.key]
    next(box for box in at.selectbox if box.label == "Seat").set_value(2).run()
    at.button(key="record-seat2-1-leave").click().run()
    assert not at.exception, [e.value for e in at.exception]
    hand = RecordedTable.open(folder, "match", ingest_into=False).hand
    assert hand is not None and hand.header.players == ("Ann", "Cy", "Dee")
    next(box for box in at.selectbox if box.label == "Seat").set_value(2).run()
    assert "Joins the match with a score of 0." in _texts(at)
    at.text_input(key="record-seat2-1-name").set_value("Eve").run()
    at.button(key="record-seat2-1-join").click().run()
    assert not at.exception, [e.value for e in at.exception]
    hand = RecordedTable.open(folder, "match", ingest_into=False).hand
    assert hand is not None and hand.header.players == ("Ann", "Eve", "Cy", "Dee")
    assert hand.header.starting_stacks == (0, 0, 0, 0) and hand.header.seats == (1, 2, 3, 4)


def test_the_play_page_seats_and_removes_bots_between_hands(folder: Path) -> None:
    """The Play page's box of seats calls the Record page's ``leave``/``join``/``rebuy``: a bot
    leaves, a new bot of the chosen style sits down, a busted bot rebuys; the person's seat
    offers no leave."""
    setup = seveneight_setup("botden", ["You", "Bo", "Cy"], 16, bots=("", "tight", "loose"))
    table = RecordedTable.create(folder, setup, ingest_into=False)
    for action in README_HAND:  # you call Cy's all-in and bust him
        table.record(action)
    at = open_page("play", "botden")
    assert "Hand 1 is over" in " ".join(str(s.value) for s in at.success)
    assert any(e.label == "Between hands: rebuys and seats" for e in at.expander)
    seats = next(box for box in at.selectbox if box.label == "Seat")
    assert seats.options == ["Seat 1: You (you, 34 chips)", "Seat 2: Bo (tight bot, 14 chips)",
                             "Seat 3: Cy (loose bot, 0 chips)"]
    assert not [b for b in at.button if b.key == "play-seat1-2-leave"]  # your seat stays
    assert "Your seat" in _texts(at)
    seats.set_value(2).run()
    at.button(key="play-seat2-2-leave").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "fewer than two players have chips left" in " ".join(str(i.value) for i in at.info)
    # No hand to come (Cy has no chips): the table stays at hand 1 until someone sits down.
    next(box for box in at.selectbox if box.label == "Seat").set_value(2).run()
    assert at.text_input(key="play-seat2-1-name").value == "Ada"  # a name new to the table
    at.selectbox(key="play-seat2-1-style").set_value("loose").run()
    at.number_input(key="play-seat2-1-in").set_value(30).run()
    at.button(key="play-seat2-1-join").click().run()
    assert not at.exception, [e.value for e in at.exception]
    next(box for box in at.selectbox if box.label == "Seat").set_value(3).run()
    at.number_input(key="play-seat3-2-rebuy-stack").set_value(20).run()
    at.button(key="play-seat3-2-rebuy").click().run()
    assert not at.exception, [e.value for e in at.exception]
    again = RecordedTable.open(folder, "botden", ingest_into=False)
    assert again.seating == (("You", 34), ("Ada", 30), ("Cy", 20))
    assert again.bot_styles == ("", "loose", "loose")
    hand = again.hand
    assert hand is not None and hand.header.players == ("Ada", "Cy", "You")
    assert dict(hand.header.user_fields) == {"_rebuys": ["Cy"]}
    # Next hand: the computer deals and the bots, Ada among them, play up to your turn.
    at.button(key="play_next_2").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = RecordedTable.open(folder, "botden", ingest_into=False)
    assert table.number == 2 and table.hand is not None and table.hand.actions
    assert is_persons_turn(table)


def test_the_play_page_seats_a_bot_between_bigtwo_games(folder: Path) -> None:
    """Big Two keeps scores: a bot leaves with its score, a new bot joins with 0; no rebuy."""
    setup = bigtwo_setup("lounge", ["You", "Ada", "Bix", "Cog"],
                         bots=("", "steady", "aggressive", "random"))
    table = RecordedTable.create(folder, setup, ingest_into=False)
    rng = random.Random(4)
    while not table.filed:
        action = automatic_action(table, rng)
        if action is None:  # you: pass when you may, else the weakest play
            step = table.next_step()
            action = (Action(step.player, Verb.PASS) if step.can_pass
                      else Action(step.player, Verb.PLAY, step.plays[0]))
        table.record(action)
    scores = [score for _, score in table.seating]
    at = open_page("play", "lounge")
    assert any(e.label == "Between games: seats" for e in at.expander)
    assert not [b for b in at.button if b.key is not None and "rebuy" in b.key]
    next(box for box in at.selectbox if box.label == "Seat").set_value(3).run()
    at.button(key="play-seat3-2-leave").click().run()
    assert not at.exception, [e.value for e in at.exception]
    next(box for box in at.selectbox if box.label == "Seat").set_value(3).run()
    assert "Joins the match with a score of 0." in _texts(at)
    assert at.text_input(key="play-seat3-2-name").value == "Dot"
    at.selectbox(key="play-seat3-2-style").set_value("random").run()
    at.button(key="play-seat3-2-join").click().run()
    assert not at.exception, [e.value for e in at.exception]
    again = RecordedTable.open(folder, "lounge", ingest_into=False)
    assert again.seating == (("You", scores[0]), ("Ada", scores[1]), ("Dot", 0),
                             ("Cog", scores[3]))
    assert again.bot_styles == ("", "steady", "random", "random")
    hand = again.hand
    assert hand is not None and hand.header.players == ("You", "Ada", "Dot", "Cog")


def test_the_record_page_offers_no_face_down_rummoli_deal(folder: Path) -> None:
    """A Rummoli deal names every card (docs/recording.md): no "Face down" button, and the
    page says why; a 7 & 8 deal offers it."""
    RecordedTable.create(folder, rummoli_setup("nook", ["Ann", "Bo"], 40), ingest_into=False)
    at = open_page("record", "nook")
    assert "Deal 17 or 18 cards to Ann" in _texts(at)
    assert "no face-down cards" in _texts(at)
    assert not [b for b in at.button if b.key == "record-1-0-dealhidden"]
    RecordedTable.create(folder, seveneight_setup("nook78", ["Ann", "Bo"], 40),
                         ingest_into=False)
    at = open_page("record", "nook78")
    assert [b for b in at.button if b.key == "record-1-0-dealhidden"]
    assert "no face-down cards" not in _texts(at)


def test_the_play_page_lets_a_busted_rummoli_bot_rebuy(folder: Path) -> None:
    """Between Rummoli rounds on the Play page a busted bot rebuys (the next round lists it
    in ``_rebuys``) and the board carries on."""
    setup = replace(rummoli_setup("snug", ["You", "Ada", "Bix", "Cog"], 12,
                                  bots=("", "bold", "bold", "cautious")), seed=7)
    table = RecordedTable.create(folder, setup, ingest_into=False)
    rng = random.Random(7)
    busted = None
    for _ in range(20_000):
        if table.hand is not None and not table.hand.actions:  # between two rounds
            if table.seating[0][1] == 0:
                table.rebuy(1, 12)  # you, busted: back in (the test wants a bot out)
                continue
            busted = next((s for s in (2, 3, 4) if table.seating[s - 1][1] == 0), None)
            if busted is not None:
                break
        action = automatic_action(table, rng)
        if action is None:  # your move: as a bold bot would
            table.carry.bots[0] = "bold"
            action = automatic_action(table, rng)
            table.carry.bots[0] = ""
        assert action is not None
        table.record(action)
    assert busted is not None, "no bot busted"
    name = table.seating[busted - 1][0]
    board = list(table.carry.board)
    number = table.number
    at = open_page("play", "snug")
    assert any(e.label == "Between rounds: rebuys and seats" for e in at.expander)
    next(box for box in at.selectbox if box.label == "Seat").set_value(busted).run()
    at.number_input(key=f"play-seat{busted}-{number}-rebuy-stack").set_value(20).run()
    at.button(key=f"play-seat{busted}-{number}-rebuy").click().run()
    assert not at.exception, [e.value for e in at.exception]
    again = RecordedTable.open(folder, "snug", ingest_into=False)
    assert again.seating[busted - 1] == (name, 20)
    assert again.bot_styles == setup.bots
    hand = again.hand
    assert hand is not None and dict(hand.header.user_fields) == {"_rebuys": [name]}
    assert list(hand.header.board_before or [0] * 9) == board


@pytest.mark.slow
def test_the_record_form_starts_bigtwo_and_rummoli_tables_and_their_pickers_deal(
        folder: Path) -> None:
    """The Record page's set-up form for the two games the browser tests start from a journal
    (tests/browser/test_record.py starts a 7 & 8 table by this form): Big Two deals every
    player 13 (three players: the whole deck would give the lead card's holder a fourteenth,
    which the picker does not ask for), Rummoli keeps RULES.md's knobs and its picker takes
    18 cards for a player of two (17 or 18: no count named), none more.  (The picker's
    clicks for a count the engine names: the 7 & 8 test above and the browser's.)"""
    at = _set_up("porch", "Big Two", "Ann, Bo, Cy")
    assert "Deal 13 cards to Ann" in _texts(at)
    table = RecordedTable.open(folder, "porch", ingest_into=False)
    assert table.setup.game is Game.BIGTWO and table.setup.players == ("Ann", "Bo", "Cy")
    assert table.setup.rules == BigTwoRules() and table.setup.stacks == (0, 0, 0)
    _deal_first_by_picker(at, folder, "porch", [f"{rank}s" for rank in "23456789TJQKA"],
                          refused="2h")  # Ann's 13 spades

    at = _set_up("hall", "Rummoli", "Ann, Bo")
    table = RecordedTable.open(folder, "hall", ingest_into=False)
    assert table.setup.game is Game.RUMMOLI and table.setup.rules == RummoliRules()
    assert (table.setup.variant, table.setup.stacks, table.setup.min_bet) == (
        "NRM", (100, 100), 1)
    assert "Deal 17 or 18 cards to Ann" in _texts(at)
    _deal_first_by_picker(at, folder, "hall", [f"{rank}c" for rank in "23456789TJQKA"]
                          + [f"{rank}d" for rank in "23456"], refused="7d")
    assert "Deal 17 or 18 cards to Bo" in _texts(at)


def _set_up(table: str, game: str, players: str) -> AppTest:
    """The Record page's set-up form filled in for a table of ``game`` and started."""
    at = open_page("record", table)
    at.radio(key="record_game").set_value(game).run()
    at.text_input(key="record_name").set_value(table)
    at.text_input(key="record_players").set_value(players).run()
    at.button(key="record_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _deal_first_by_picker(at: AppTest, folder: Path, table: str, cards: list[str], *,
                          refused: str) -> None:
    """Click ``cards`` in the first player's picker: then every one is picked, ``refused``
    can be clicked no more, and the deal recorded holds exactly those cards."""
    for card in cards:
        at.button(key=f"record-1-0-deal-{card}").click().run()
    picked = len(cards)
    assert f"{picked} of {picked} picked" in _texts(at)
    assert at.button(key=f"record-1-0-deal-{refused}").disabled
    at.button(key="record-1-0-dealgo").click().run()
    assert not at.exception, [e.value for e in at.exception]
    hand = RecordedTable.open(folder, table, ingest_into=False).hand
    assert hand is not None and hand.actions == (deal_action(1, parse_cards("".join(cards))),)


def test_the_record_page_deals_the_last_bigtwo_hand_in_one_click_and_plays(
        folder: Path) -> None:
    """The last Big Two player is dealt the cards left in one click, nothing picked; then the
    holder of 3d leads with the plays box's first (weakest) play and the next player
    passes, each a button."""
    table = RecordedTable.create(folder, bigtwo_setup("porch", ["Ann", "Bo", "Cy", "Dee"]),
                                 ingest_into=False)
    for player, suit in ((1, "s"), (2, "h"), (3, "d")):
        table.record(deal_action(player, parse_cards("".join(r + suit for r in RANKS))))
    at = open_page("record", "porch")
    assert "The 13 cards left in the deck." in _texts(at)
    at.button(key="record-1-3-dealgo").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = RecordedTable.open(folder, "porch", ingest_into=False)
    hand = table.hand
    assert hand is not None and hand.actions[3] == deal_action(
        4, parse_cards("".join(r + "c" for r in RANKS)))
    step = table.next_step()
    assert step.player == 3 and not step.can_pass  # Cy holds 3d: he leads
    assert at.selectbox(key="record-1-4-plays").value == step.plays[0]
    at.button(key="record-1-4-play").click().run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="record-1-5-pass").click().run()
    assert not at.exception, [e.value for e in at.exception]
    hand = RecordedTable.open(folder, "porch", ingest_into=False).hand
    assert hand is not None and hand.actions[4:] == (
        Action(3, Verb.PLAY, tuple(step.plays[0])), Action(4, Verb.PASS))


def test_the_record_page_takes_back_the_last_step(folder: Path) -> None:
    """Undo on the Record page: the last step leaves the journal (a reload would not bring it
    back) and the page offers that step again; the step entered again is kept."""
    table = RecordedTable.create(folder, seveneight_setup("den", ["Ann", "Bo", "Cy"], 100),
                                 ingest_into=False)
    for action in README_HAND[:8]:  # up to Ann's call of Cy's raise to 6
        table.record(action)
    at = open_page("record", "den")
    assert "Bo to act" in _texts(at)
    at.button(key="record_undo_8").click().run()
    assert not at.exception, [e.value for e in at.exception]
    hand = RecordedTable.open(folder, "den", ingest_into=False).hand
    assert hand is not None and hand.actions == tuple(README_HAND[:7])
    assert "Ann to act" in _texts(at) and at.button(key="record-1-7-call").label == "Call 5"
    at.button(key="record-1-7-call").click().run()
    assert not at.exception, [e.value for e in at.exception]
    hand = RecordedTable.open(folder, "den", ingest_into=False).hand
    assert hand is not None and hand.actions == tuple(README_HAND[:8])


PERSONS_EXACT = ("Pass", "Check", "Show")
PERSONS_STARTS = ("Call", "Turn up", "Play", "Lay ", "Show ", "Keep the hand",
                  "Pass (no bid)", "Impasse")
"""The person's buttons the Play tests click, the first found (the browser tests' order)."""


NEXT_BUTTONS = frozenset({"Next hand", "Next game", "Next round", "Play the finale"})
"""The Play page's button after a filed hand: each game names its own (a 7 & 8 hand, a Big
Two game, a Rummoli round)."""


def _play_until_over(at: AppTest, limit: int) -> None:
    """Click the person's moves on the Play page until the hand is filed (one of
    :data:`NEXT_BUTTONS` shows) or the table is over; the bots move in each run."""
    for _ in range(limit):
        labels = [b.label for b in at.button]
        over = " ".join(str(i.value) for i in at.info)
        if NEXT_BUTTONS.intersection(labels) or "table is over" in over:
            return
        choice = next((name for name in PERSONS_EXACT if name in labels), None) or next(
            (label for label in labels if label.startswith(PERSONS_STARTS)), None)
        assert choice is not None, labels
        next(b for b in at.button if b.label == choice).click().run()
        assert not at.exception, [e.value for e in at.exception]
    raise AssertionError("the hand did not end")


def _play_one_hand(folder: Path, game: str, limit: int, **chosen: object
                   ) -> tuple[AppTest, Path, HandHistory]:
    """Set up a table of ``game`` by the Play page's form (``chosen``: a value for the form's
    selectbox of each key), sit down and play against the bots (at most ``limit`` of your
    moves) until the hand is over; the page, the table's history file and the one hand it
    holds."""
    at = open_page("play", "none")
    at.radio(key="play_game").set_value(game).run()
    for key, value in chosen.items():
        at.selectbox(key=key).set_value(value).run()
    at.button(key="play_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    name = at.query_params["table"]
    history = folder / f"{name[0] if isinstance(name, list) else name}.phhs"
    _play_until_over(at, limit)
    hands = list(read_hands(history))
    assert len(hands) == 1
    return at, history, hands[0]


def test_the_record_page_asks_who_takes_on_all_losses_in_a_zero_sum_game(
        folder: Path) -> None:
    """A finished zero_sum Big Two game waits on the Record page for who, if anyone, takes
    on all losses: nobody, the winner or the player before him; filing it files the game
    with the one picked."""
    from parsers.rule_options import BigTwoScoring

    setup = bigtwo_setup("den", ["Ann", "Bo", "Cy", "Dee"],
                         BigTwoRules(scoring=BigTwoScoring.ZERO_SUM))
    table = RecordedTable.create(folder, setup, ingest_into=False)
    to_the_last_play(table)
    step = table.next_step()
    at = open_page("record", "den")
    base = f"record-{table.number}-{len(table.hand.actions) if table.hand else 0}"
    choice = at.radio(key=f"{base}-taker")
    assert choice.options == ["nobody", *(
        f"{name} ({why})" for name, why in zip(
            [setup.players[p - 1] for p in step.waiting],
            ["for going out without announcing his last card",
             "for not stopping him going out on it"],
            strict=True))]
    choice.set_value(step.waiting[1]).run()
    at.button(key=f"{base}-takergo").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (filed,) = read_hands(folder / "den.phhs")
    assert filed.takes_all_losses == step.waiting[1]


def test_the_play_page_shows_posted_blinds_as_put_in_not_bet(folder: Path) -> None:
    """A blind is posted, not bet: the chips in front of the blinds before anyone acts are
    "put in" (they read "bet 1" and "bet 2")."""
    at = open_page("play", "none")
    at.radio(key="play_game").set_value("7 & 8").run()
    at.button(key="play_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = next(h.proto.body for h in at.get("html") if "hl-record" in h.proto.body)
    assert "put in 1<" in table and "put in 2<" in table
    assert ">bet " not in table


@pytest.mark.parametrize("variant", ["N78", "F78"])
def test_the_play_page_sits_you_down_and_plays_a_seveneight_hand(folder: Path,
                                                                  variant: str) -> None:
    """Sit down at 7 & 8 by the form, with the betting chosen as on the Record page, and
    play the hand out against the bots: the file holds every card (the computer deals), the
    hand is of that betting, and it replays to nets adding up to 0."""
    _, _, hand = _play_one_hand(folder, "7 & 8", 40, play_variant=variant)
    assert hand.variant == variant
    assert UNKNOWN not in {card for action in hand.actions for card in action.cards}
    assert sum(replay(hand).nets) == 0


def test_the_play_page_plays_a_bigtwo_game(folder: Path) -> None:
    """A Big Two game against the bots by the Play page's buttons, filed: it replays, with a
    winner and scores adding up to 0."""
    at, _, game = _play_one_hand(folder, "Big Two", 120)
    outcome = replay(game)
    assert sum(outcome.nets) == 0 and outcome.winner is not None
    # Named as Big Two players name it: a game, not a hand.
    assert " ".join(str(s.value) for s in at.success).startswith("Game 1 is over")
    assert "Next game" in [b.label for b in at.button]


@pytest.mark.slow
def test_the_play_page_plays_a_rummoli_round_and_its_finale(folder: Path) -> None:
    """A Rummoli round against the bots, then *End the game* and *Play the finale*: one poker
    round (finale ``single``) for the whole board, which goes to the players."""
    at, history, first = _play_one_hand(folder, "Rummoli", 200)
    assert " ".join(str(s.value) for s in at.success).startswith("Round 1 is over")
    outcome = replay(first)
    assert outcome.board_after is not None
    assert sum(outcome.nets) + sum(outcome.board_after) == 0  # the board starts empty
    at.button(key="play-endgame-2").click().run()
    assert not at.exception, [e.value for e in at.exception]
    if not any(outcome.board_after):  # nothing to play for: the table is over at once
        assert "The table is over" in " ".join(str(i.value) for i in at.info)
        return
    at.button(key="play_next_2").click().run()
    assert not at.exception, [e.value for e in at.exception]
    if "finale has been played" not in " ".join(str(i.value) for i in at.info):
        # (Unless the bots played it out before your turn, all in one run here.)
        assert "Finale: poker for the whole board" in _texts(at)
        _play_until_over(at, 100)
    assert "finale has been played" in " ".join(str(i.value) for i in at.info)
    rounds = list(read_hands(history))
    assert [r.finale_pot for r in rounds] == [None, "all"]
    finale = replay(rounds[1])
    assert rounds[1].board_before == outcome.board_after
    assert finale.board_after is not None and not any(finale.board_after)
    assert sum(finale.nets) == sum(outcome.board_after)  # the board went to the players


def test_a_hand_the_warehouse_did_not_take_is_a_warning_not_a_success(
        folder: Path, tmp_path: Path) -> None:
    """A finished hand whose load failed was shown in green, pointing to the replayer that
    could not show it (a lake's recorded hands, all of them)."""
    not_a_database = tmp_path / "a-folder.duckdb"
    not_a_database.mkdir()
    setup = seveneight_setup("botden", ["You", "Bo", "Cy"], 16, bots=("", "tight", "loose"))
    table = RecordedTable.create(folder, setup, ingest_into=not_a_database)
    for action in README_HAND:
        filed = table.record(action)
    assert filed is not None and filed.ingest.startswith("not loaded:")
    at = open_page("play", "botden")
    assert not at.success
    warning = " ".join(str(w.value) for w in at.warning)
    assert "Hand 1 is over" in warning and "not into the warehouse yet" in warning
    assert "The next hand that loads brings it in" in warning


def test_the_record_form_takes_a_fry_threshold(folder: Path) -> None:
    """A score sheet can say its fry threshold (F=8) and the recorder could not: a recorded
    game and the same game imported from a sheet scored differently.  The form asks for it
    under every scoring by cards left, and the table's rules keep it."""
    at = open_page("record", "den")
    at.radio(key="record_game").set_value("Big Two").run()
    at.number_input(key="record-fry").set_value(8).run()
    at.text_input(key="record_name").set_value("den")
    at.text_input(key="record_players").set_value("Ann, Bo, Cy").run()
    at.button(key="record_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = RecordedTable.open(folder, "den", ingest_into=False)
    assert table.setup.rules == BigTwoRules(fry_threshold=8)


def test_a_tab_opened_in_the_middle_of_a_hand_shows_that_hand(folder: Path) -> None:
    """A new tab on a table whose next hand was under way showed the last hand's result and
    a "Next hand" button, which went back into the hand already being played."""
    setup = seveneight_setup("den", ["You", "Bo", "Cy"], 16, bots=("", "tight", "loose"))
    table = RecordedTable.create(folder, setup, ingest_into=False)
    for action in README_HAND:
        table.record(action)
    rng = random.Random(3)
    for _ in range(3):  # the next hand's deals
        deal = automatic_action(table, rng)
        assert deal is not None
        table.record(deal)
    at = open_page("play", "den")
    assert not [s for s in at.success if "Hand 1 is over" in str(s.value)]
    assert not [b for b in at.button if str(b.key).startswith("play_next_")]
