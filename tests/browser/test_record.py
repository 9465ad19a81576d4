"""Recording and playing in real Chromium: what only a browser shows, each once.  A 7 & 8
hand recorded by clicking (the set-up form, the card picker, a face-down deal, a named card
turned up, the bet box's + button, the betting and showdown buttons) through a reload and
a server killed in the middle of the hand, a new server finishing it from the journal; the
end of a Big Two game (play and pass) and of a Rummoli round (lays, the nine pots, the
finale) clicked from a journal holding the rest; a busted player's rebuy picked in the
Record page's box of seats; on the Play page a bot leaves, a new bot sits down and a busted
bot rebuys, the bots play the next hand with you and it opens in the Hand replayer with
every card.  Each file read back and replayed, each hand in the warehouse.  What the pages
decide (each game's form and picker, undo, seat changes of every game, the bots' hands of
every game, the finale on the Play page) is checked headless in
tests/test_dashboard_record.py.  Screenshots go to tests/artifacts/screenshots/ (record-*.png,
play-*.png)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from analytics.record.hand import StepKind, deal_action, unseen_cards
from analytics.record.table import (
    RecordedTable,
    bigtwo_setup,
    rummoli_setup,
    seveneight_setup,
)
from analytics.rules import replay
from analytics.warehouse import ingest, reader
from analytics.warehouse.identity import hand_id, hand_id_hex
from parsers import Action, HandHistory, Verb, parse_cards
from parsers.actions import parse_action
from parsers.cards import UNKNOWN
from parsers.reader import read_hands
from parsers.rule_options import Game
from tests.browser.conftest import ROOT, SCREENSHOTS, new_page, rerun, settle
from tests.browser.server import streamlit_server
from tests.test_record import README_HAND

pytestmark = pytest.mark.browser


def _main(page: Any) -> Any:
    return page.locator('[data-testid="stMain"]')


def _button(page: Any, name: str) -> Any:
    return _main(page).get_by_role("button", name=name, exact=True)


def _click(page: Any, name: str) -> None:
    """Click the button ``name`` and wait until the script run the click starts is over."""
    rerun(page, _button(page, name).click)


def _gone(page: Any, name: str) -> None:
    """Wait until the page, redrawn, no longer offers the button ``name``."""
    expect(_button(page, name)).to_have_count(0, timeout=60_000)


def _has_button(page: Any, name: str) -> bool:
    return bool(_button(page, name).count())


def _wait_text(page: Any, text: str) -> None:
    _main(page).get_by_text(text).first.wait_for()
    settle(page)


def _shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def _hands_in(db: Path, table: str) -> int:
    # reader(): the server keeps its write connection between hands and lets go when asked.
    with reader(db) as con:
        row = con.execute("select count(*) from hands where table_name = ?", [table]).fetchone()
    assert row is not None
    return int(row[0])


def _step(page: Any) -> int:
    """The step number in the table's heading ("Hand 1 · step 12", "Game 1 · step 40",
    "Finale: ... · round 2 · step 3"), 0 when there is none."""
    found = re.search(r"(?:[Hh]and|[Gg]ame|[Rr]ound) \d+ · step (\d+)", _main(page).inner_text())
    return int(found.group(1)) if found else 0


MOVED_ON = """([done, before]) => {
  const text = document.querySelector('[data-testid="stMain"]')?.innerText ?? "";
  const step = /(?:[Hh]and|[Gg]ame|[Rr]ound) \\d+ · step (\\d+)/.exec(text);
  return text.toLowerCase().includes(done.toLowerCase()) || (step !== null && +step[1] > before);
}"""
"""In the page: ``done`` shows, or the table's step is later than ``before``."""


def _click_and_wait(page: Any, name: str, done: str) -> None:
    """Click ``name`` and wait until the table has moved on (a later step) or ``done`` shows."""
    before = _step(page)
    _click(page, name)
    try:
        page.wait_for_function(MOVED_ON, arg=[done, before], polling=100)
    except PlaywrightTimeout:
        raise AssertionError(f"nothing happened after clicking {name!r}") from None
    settle(page)


def _deal(page: Any, who: str, cards: list[str]) -> None:
    """Pick ``cards`` for ``who`` and deal them."""
    _wait_text(page, f"to {who}")
    for number, card in enumerate(cards, start=1):
        picked = f": {number} of {len(cards)} picked"
        for _ in range(3):  # a click on a page being redrawn can be lost: click again
            _click(page, card)
            try:
                _main(page).get_by_text(picked).first.wait_for(timeout=10_000)
                break
            except PlaywrightTimeout:
                continue
        _wait_text(page, picked)
    _click(page, "Deal these cards")


def _start_table(page: Any, server: str, name: str, players: str) -> None:
    """A 7 & 8 table (the form's first game) started by its form."""
    page.goto(f"{server}/record")
    page.get_by_role("heading", name="Record a game").wait_for()
    settle(page)
    _main(page).get_by_label("Table name (letters, digits, - and _)").fill(name)
    players_box = _main(page).get_by_label("Players in seat order (commas between names)")
    players_box.fill(players)
    rerun(page, lambda: players_box.press("Tab"))
    _click(page, "Start the table")
    page.wait_for_url(re.compile(rf"table={name}"))
    settle(page)


def _journal(folder: Path, name: str) -> RecordedTable:
    """The table ``name`` as the page left it, to enter steps the way the page does (its
    ``record``) without clicking each one; the page reads the journal again on its next run."""
    return RecordedTable.open(folder, name, ingest_into=False)


def test_a_seveneight_hand_recorded_by_clicking_through_a_reload_and_a_crash(
        chromium: Any, tmp_path: Path) -> None:
    """The README's 7 & 8 hand recorded by clicking.  A reload in the middle of the hand (the
    table is in the URL, the hand in the journal), then the server is killed (SIGKILL: a
    crash, no clean shutdown) and a new server over the same folder and warehouse, opened at
    the same URL, finds the hand where it was and the hand is finished by clicking, checked
    against the result worked by hand.  Killed again once the hand is filed (the writer kept
    open for the next hand), the warehouse still holds it once.  Steps that would only click
    a widget clicked already (Cy's deal, the third cards and their betting) go through the
    recorder the page calls."""
    db = tmp_path / "restart.duckdb"
    ingest([ROOT / "data" / "samples" / "seveneight-fl-headsup.phhs"], db, workers=0)
    folder = tmp_path / "recorded"
    env = {"HANDLAB_RECORDED": str(folder)}
    page = new_page(chromium, viewport={"width": 1400, "height": 1000})
    try:
        with streamlit_server(db, tmp_path / "first.log", env=env) as first:
            _start_table(page, first.url, "kitchen", "Ann, Bo, Cy")
            _deal(page, "Ann", ["7♣", "8♣"])
            _shot(page, "record-deal")
            _wait_text(page, "to Bo")
            _click(page, "Face down (??)")
            _wait_text(page, "to Cy")
            _journal(folder, "kitchen").record(deal_action(3, parse_cards("5d9d")))
            page.reload()
            _wait_text(page, "Ann turns a card up")
            _click(page, "Turn up 7♣")
            _wait_text(page, "Bo turns a card up")
            _click(page, "A♠")  # Bo's cards are unknown: the card he turns up is named
            _click(page, "Turn up the picked card")
            _wait_text(page, "Cy turns a card up")
            before = _step(page)
            first.process.kill()  # a crash: nothing runs after the last click's step
            first.process.wait(timeout=15)
        assert before == 6
        where = urlsplit(page.url)
        assert where.query == "table=kitchen"
        with streamlit_server(db, tmp_path / "second.log", env=env) as second:
            page.goto(f"{second.url}{where.path}?{where.query}")
            _wait_text(page, "Cy turns a card up")
            assert _step(page) == before  # the hand where it was, nothing twice
            _shot(page, "record-restarted")
            _click(page, "Turn up 9♦")
            _wait_text(page, "Cy to act")
            _shot(page, "record-bet")
            for _ in range(2):  # the box starts at the engine's minimum raise, to 4
                rerun(page, _main(page).get_by_test_id("stNumberInputStepUp").click)
            _click(page, "Bet/raise to 6")
            _wait_text(page, "Ann to act")
            _click(page, "Call 5")  # her small blind of 1 is in
            _wait_text(page, "Bo to act")
            _click(page, "Fold")
            _wait_text(page, "to Ann")
            table = _journal(folder, "kitchen")
            for text in ("d dh p1 2c", "d dh p3 Th", "p1 cc", "p3 cbr 2", "p1 cc"):
                table.record(parse_action(text, Game.SEVENEIGHT, 3))
            page.reload()
            _wait_text(page, "Who shows or mucks now")
            _click_and_wait(page, "Show", "is over")  # Ann first: her cards are known
            _click_and_wait(page, "Show", "is over")  # then Cy's
            _wait_text(page, "Hand 1 is over")
            _shot(page, "record-filed")
            assert second.alive(), second.output()
            # Pot 18 (6 + 6 + 2, then 2 + 2): Ann's seven-eight flush takes it.
            hands = list(read_hands(folder / "kitchen.phhs"))
            assert len(hands) == 1
            assert [a.notation() for a in hands[0].actions[:5]] == [
                "d dh p1 7c8c", "d dh p2 ????", "d dh p3 5d9d", "p1 up 7c", "p2 up As"]
            assert hands[0].finishing_stacks == (210, 198, 192)
            assert replay(hands[0]).nets == (10, -2, -8)
            assert _hands_in(db, "kitchen") == 1
            _wait_text(page, "Hand 2")  # the table goes on with the next button
            # A second crash with the writer kept open for the next hand: the committed hand
            # is in the write-ahead log, the next hand waits at its first step.
            second.process.kill()
            second.process.wait(timeout=15)
        assert _hands_in(db, "kitchen") == 1
        table = RecordedTable.open(folder, "kitchen", ingest_into=False)
        assert table.number == 2 and table.hand is not None and not table.hand.actions
    finally:
        page.context.close()


RANKS = "23456789TJQKA"
"""The ranks in the reader's notation, two to ace."""


def _pass_or_lead_the_weakest(table: RecordedTable) -> None:
    """The step the Big Two test clicks: pass when allowed, else play the weakest play (the
    page's preselected choice)."""
    step = table.next_step()
    assert step.kind is StepKind.PLAY
    if step.can_pass:
        table.record(Action(step.player, Verb.PASS))
    else:
        table.record(Action(step.player, Verb.PLAY, step.plays[0]))


def test_the_end_of_a_bigtwo_game_by_clicking(server: str, browser_page: Any,
                                              browser_recorded: Path, browser_db: Path) -> None:
    """Each player dealt a suit; Cy holds 3d and leads, the others pass, so he leads every
    trick alone.  The recorder the page calls takes the deals and the tricks until Cy leads
    with two cards left; the page clicks the rest (play, pass) and files the game."""
    page = browser_page
    setup = bigtwo_setup("porch", ["Ann", "Bo", "Cy", "Dee"])
    table = RecordedTable.create(browser_recorded, setup, ingest_into=False)
    for player, suit in ((1, "s"), (2, "h"), (3, "d"), (4, "c")):
        table.record(deal_action(player, parse_cards("".join(r + suit for r in RANKS))))
    while (step := table.next_step()).can_pass or len(step.holding) > 2:
        _pass_or_lead_the_weakest(table)
    page.goto(f"{server}/record?table=porch")
    _wait_text(page, "Cy holds")
    _shot(page, "record-bigtwo")
    for _ in range(10):
        if _main(page).get_by_text("Game 1 is over").count():
            break
        _click_and_wait(page, "Pass" if _has_button(page, "Pass") else "Play",
                        "Game 1 is over")
    _wait_text(page, "Game 1 is over")
    _shot(page, "record-bigtwo-filed")
    games = list(read_hands(browser_recorded / "porch.phhs"))
    assert len(games) == 1
    assert replay(games[0]).nets == (-39, -39, 117, -39)
    assert _hands_in(browser_db, "porch") == 1


# Ann: every club and 2-6 of diamonds; Bo (the dealer): every heart and 2-5 of spades; the
# widow the 17 cards left.  Both hold a royal flush, so the poker pot is split and Ann,
# left of the dealer, lays first: every club in turn (Q♣ wins its pot, 7-8-9 of clubs the
# 789 pot), then, the ace ending the suit, 2-6 of diamonds, and her hand is empty.
RUMMOLI_ANN = parse_cards("".join(r + "c" for r in RANKS) + "2d3d4d5d6d")
RUMMOLI_BO = parse_cards("".join(r + "h" for r in RANKS) + "2s3s4s5s")
RUMMOLI_PREFERENCE = (Verb.PASS_WIDOW, Verb.BID_PASS, Verb.CHECK_CALL, Verb.SHOW_MUCK,
                      Verb.PLAY, Verb.IMPASSE)
"""The choices the round takes, the first of these the engine offers ("Keep the hand",
"Pass (no bid)", "Check" or "Call N", a show, the first "Lay", an impasse)."""


def _rummoli_choice(table: RecordedTable) -> Action:
    """The choice :data:`RUMMOLI_PREFERENCE` names for the step the table waits for."""
    step = table.next_step()
    assert step.kind is StepKind.CHOOSE
    return next(action for verb in RUMMOLI_PREFERENCE for action in step.choices
                if action.verb is verb and (verb is not Verb.SHOW_MUCK or action.cards))


def test_the_end_of_a_rummoli_round_by_clicking_and_the_finale(
        server: str, browser_page: Any, browser_recorded: Path, browser_db: Path) -> None:
    """The recorder the page calls deals the round and takes its choices until Ann holds her
    last two cards; the page lays them (a lay's button), files the round, and the game ends
    by its button: the next round becomes the finale for the whole board."""
    page = browser_page
    table = RecordedTable.create(browser_recorded, rummoli_setup("hall", ["Ann", "Bo"], 100),
                                 ingest_into=False)  # the Record form's Rummoli defaults
    table.record(deal_action(1, RUMMOLI_ANN))
    table.record(deal_action(2, RUMMOLI_BO))
    hand = table.hand
    assert hand is not None
    table.record(deal_action(0, unseen_cards(hand.actions)))  # the widow: the cards left
    while len((step := table.next_step()).holding) > 2 or not any(
            action.verb is Verb.PLAY for action in step.choices):
        table.record(_rummoli_choice(table))
    page.goto(f"{server}/record?table=hall")
    _wait_text(page, "Ann to act")
    _shot(page, "record-rummoli-lays")
    for _ in range(6):
        if _main(page).get_by_text("Round 1 is over").count():
            break
        lay = next((b for b in _main(page).get_by_role("button").all_inner_texts()
                    if b.startswith("Lay ")), None)
        if lay is None:  # the page is still being redrawn
            settle(page)
            continue
        _click_and_wait(page, lay, "Round 1 is over")
    _wait_text(page, "Round 1 is over")
    _shot(page, "record-rummoli-filed")
    rounds = list(read_hands(browser_recorded / "hall.phhs"))
    assert len(rounds) == 1
    outcome = replay(rounds[0])
    # Worked by hand: 9 antes each; the poker pot (2) split; Ann wins Q♣ (2), 7-8-9 (2),
    # the Rummoli pot (2) and one chip for each of Bo's 17 cards.
    assert outcome.nets == (-9 + 1 + 2 + 2 + 2 + 17, -9 + 1 - 17)
    assert outcome.board_after == (0, 2, 2, 0, 2, 2, 2, 0, 0)
    assert rounds[0].finishing_stacks == outcome.finishing_stacks == (115, 75)
    lays = [a.notation() for a in rounds[0].actions if a.verb is Verb.PLAY]
    assert lays[:3] == ["p1 pl 2c", "p1 pl 3c", "p1 pl 4c"]
    assert lays[-2:] == ["p1 pl 5d", "p1 pl 6d"]  # the two the page laid
    assert _hands_in(browser_db, "hall") == 1
    # The game ends: the next round becomes the finale for the whole board.
    _wait_text(page, "End the game")
    _click(page, "End the game")
    _wait_text(page, "Finale: poker for the whole board")
    _shot(page, "record-rummoli-finale")


def _steady(element: Any) -> None:
    """Wait until ``element`` stays where it is for 0.15 s: the box of seats moved 40 px
    up as the box around it finished opening, after the click had aimed at it, and the
    click left it focused but shut."""
    where = element.bounding_box()
    for _ in range(40):
        time.sleep(0.15)
        now = element.bounding_box()
        if now == where:
            return
        where = now


def _pick_seat(page: Any, seat: int, then: str) -> None:
    """Pick ``seat`` in the box of seats (again when a redraw lost the pick) until ``then``
    shows."""
    seat_box = _main(page).locator('[data-testid="stSelectbox"]', has_text="Seat")
    seat_box.wait_for()
    settle(page)
    _steady(seat_box)
    # In the middle of the window: at its bottom edge (the Record page's box, under the card
    # picker) the list of seats had no room to open below it and no option showed.
    seat_box.evaluate("box => box.scrollIntoView({block: 'center'})")
    option = page.get_by_role("option", name=re.compile(rf"^Seat {seat}\b"))
    for _ in range(6):
        _steady(seat_box)
        seat_box.click()
        # The option is clicked, not typed: typing into a list still opening was kept as
        # filter text ("Seat 2Seat 2") and Enter then picked nothing.
        try:  # a rerun landing as the box opens may close it: open it again
            option.first.wait_for(timeout=3_000)
            # Not the page's 60 s: a click Playwright cannot land (the list redrawn under
            # it) is a failed try, tried again.
            rerun(page, lambda: option.first.click(timeout=3_000))
            _main(page).get_by_text(then).first.wait_for(timeout=10_000)
            return
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
            continue
    _wait_text(page, then)


def test_a_busted_player_rebuys_by_clicking(server: str, browser_page: Any,
                                            browser_recorded: Path) -> None:
    """On the Record page the box of seats is closed while the next hand waits: opened, Cy's
    seat picked (its option clicked), his rebuy at the box's stack of 100 clicked."""
    page = browser_page
    setup = seveneight_setup("den78", ["Ann", "Bo", "Cy"], 16, blinds=(1, 2))
    table = RecordedTable.create(browser_recorded, setup, ingest_into=False)
    for action in README_HAND:  # Cy bets his 16 chips and loses them
        table.record(action)
    page.goto(f"{server}/record?table=den78")
    _wait_text(page, "Hand 2 · step 1")
    _main(page).get_by_text("Between hands: rebuys and seats").click()
    _pick_seat(page, 3, "Cy rebuys for")
    _shot(page, "record-rebuy")
    _click(page, "Cy rebuys")
    _gone(page, "Cy rebuys")  # the page is redrawn: Cy has chips, so no rebuy is offered
    _wait_text(page, "Ann leaves the table")  # a new seating: the box starts at seat 1
    _shot(page, "record-rebuy-done")
    again = RecordedTable.open(browser_recorded, "den78", ingest_into=False)
    hand = again.hand
    assert hand is not None and hand.header.players == ("Bo", "Cy", "Ann")
    assert hand.header.starting_stacks == (14, 100, 34)
    assert dict(hand.header.user_fields) == {"_rebuys": ["Cy"]}


def _play_until_over(page: Any, limit: int) -> None:
    """Play the person's moves until the hand is filed (or the table is over)."""
    for _ in range(limit):
        if _has_button(page, "Next hand") or _main(page).get_by_text(
                "The table is over").count():
            return
        buttons = _main(page).get_by_role("button").all_inner_texts()
        choice = next((name for name in ("Pass", "Check", "Show") if name in buttons), None)
        choice = choice or next(
            (b for b in buttons if b.startswith((
                "Call", "Turn up", "Play", "Lay ", "Show ", "Keep the hand",
                "Pass (no bid)", "Impasse"))), None)
        if choice is None:
            settle(page)  # the bots are moving
            continue
        _click_and_wait(page, choice, "is over")
    raise AssertionError("the hand did not end")


def _replayer_shows_every_card(page: Any, server: str, hand: HandHistory) -> None:
    """Open ``hand`` in the Hand replayer by its id (the last step shown) and check that every
    card dealt to each player is drawn face up in his row, and no card face down."""
    page.goto(f"{server}/replayer?hand={hand_id_hex(hand_id(hand))}")
    page.get_by_role("heading", name="Hand replayer").first.wait_for()
    settle(page)
    seats = _main(page).locator(".hl-seats")
    seats.wait_for()
    assert not _main(page).get_by_text("There is no hand").count()
    rows = seats.locator("tr").all()[1:]  # the heading row first
    assert len(rows) == hand.num_players
    for player, row in enumerate(rows, start=1):
        html = row.inner_html()
        assert hand.player_name(player) in html
        dealt = [card for action in hand.actions if action.verb is Verb.DEAL_HOLE
                 and action.target == player for card in action.cards]
        assert dealt and UNKNOWN not in dealt
        for card in dealt:
            assert f'title="{card}"' in html, (player, card)
    assert "hl-back" not in seats.inner_html()


def test_the_play_page_seats_a_bot_and_its_hand_opens_in_the_replayer(
        server: str, browser_page: Any, browser_recorded: Path) -> None:
    """Between two hands on the Play page Bo the bot leaves, a new bot (Ada) sits down in his
    seat and busted Cy rebuys, by clicking; the next hand is played against them, filed
    with every card, and opens in the Hand replayer with every card face up."""
    page = browser_page
    setup = seveneight_setup("botden78", ["Hero", "Bo", "Cy"], 16, blinds=(1, 2),
                             bots=("", "tight", "loose"))
    table = RecordedTable.create(browser_recorded, setup, ingest_into=False)
    for action in README_HAND:  # you call Cy's all-in and bust him
        table.record(action)
    page.goto(f"{server}/play?table=botden78")
    _wait_text(page, "Hand 1 is over")  # the box of seats is open between hands
    _pick_seat(page, 2, "Bo leaves the table")
    _shot(page, "play-seats")
    _click(page, "Bo leaves the table")
    _gone(page, "Bo leaves the table")
    _pick_seat(page, 2, "Seat the bot")
    # The name box may draw before its value lands (a CI run read ''): wait for the value.
    expect(_main(page).get_by_label("Bot's name")).to_have_value("Ada", timeout=30_000)
    chips = _main(page).get_by_label("Buys in for")
    chips.fill("30")
    rerun(page, lambda: chips.press("Enter"))
    _shot(page, "play-seat-a-bot")
    _click(page, "Seat the bot")
    _gone(page, "Seat the bot")
    _pick_seat(page, 3, "Cy rebuys for")
    _click(page, "Cy rebuys")
    _gone(page, "Cy rebuys")
    _wait_text(page, "Your seat:")  # a new seating: the box starts at seat 1, yours
    _shot(page, "play-seats-changed")
    again = RecordedTable.open(browser_recorded, "botden78", ingest_into=False)
    assert again.seating == (("Hero", 34), ("Ada", 30), ("Cy", 100))
    assert again.bot_styles == ("", "tight", "loose")
    _click(page, "Next hand")
    _wait_text(page, "Hand 2 · step")  # the computer deals, the bots play up to you
    _play_until_over(page, 40)
    _shot(page, "play-bot-seated-over")
    hands = list(read_hands(browser_recorded / "botden78.phhs"))
    assert len(hands) == 2
    played = hands[1]
    assert played.players == ("Ada", "Cy", "Hero") and played.seats == (2, 3, 1)
    assert dict(played.user_fields) == {"_rebuys": ["Cy"]}
    assert sum(replay(played).nets) == 0
    _replayer_shows_every_card(page, server, played)
    _shot(page, "play-hand-in-replayer")
