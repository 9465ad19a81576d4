"""The recorder: hands recorded step by step through the engines, filed, loaded, resumed."""

from __future__ import annotations

import datetime as dt
import itertools
import random
from dataclasses import replace
from pathlib import Path
from typing import Final

import pytest

from analytics.dashboard.recording import up_note
from analytics.record.hand import HandInProgress, StepKind, StepRefused, deal_action
from analytics.record.journal import JournalError, append_entry, read_entries
from analytics.record.play import (
    BOT_NAMES,
    automatic_action,
    is_persons_turn,
    seat_view,
    seated_bot_names,
)
from analytics.record.table import (
    RecordedTable,
    bigtwo_setup,
    rummoli_setup,
    seveneight_setup,
    table_names,
)
from analytics.rules import replay
from analytics.rules.bigtwo.engine import BigTwoState
from analytics.rules.seveneight.engine import SevenEightState
from analytics.warehouse import reader
from parsers import (
    DECK,
    RUMMOLI_POTS,
    UNKNOWN,
    Action,
    BigTwoRules,
    BigTwoScoring,
    Finale,
    RummoliRules,
    Verb,
    parse_cards,
)
from parsers.reader import read_hands

CLOCK = dt.datetime(2026, 12, 5, 20, 15)


def fixed_clock() -> dt.datetime:
    return CLOCK


def _act(player: int, verb: Verb, cards: str = "", amount: int | None = None) -> Action:
    return Action(player, verb, parse_cards(cards) if cards else (), amount)


def _table(folder: Path, ingest: Path | bool = False) -> RecordedTable:
    setup = seveneight_setup("kitchen", ["Ann", "Bo", "Cy"], 100, blinds=(1, 2))
    return RecordedTable.create(folder, setup, ingest_into=ingest, clock=fixed_clock)


# The README's example hand: p1 Ann (small blind), p2 Bo (big blind), p3 Cy (button).
README_HAND = [
    deal_action(1, parse_cards("7c8c")), deal_action(2, parse_cards("AsKs")),
    deal_action(3, parse_cards("5d9d")),
    _act(1, Verb.TURN_UP, "7c"), _act(2, Verb.TURN_UP, "As"), _act(3, Verb.TURN_UP, "9d"),
    _act(3, Verb.BET_RAISE, amount=6), _act(1, Verb.CHECK_CALL), _act(2, Verb.FOLD),
    deal_action(1, parse_cards("2c")), deal_action(3, parse_cards("Th")),
    _act(1, Verb.CHECK_CALL), _act(3, Verb.BET_RAISE, amount=10), _act(1, Verb.CHECK_CALL),
    _act(3, Verb.SHOW_MUCK, "5d9dTh"), _act(1, Verb.SHOW_MUCK, "7c8c2c"),
]


def test_a_seveneight_hand_is_recorded_filed_and_replays(tmp_path: Path) -> None:
    table = _table(tmp_path)
    steps = []
    filed = None
    for action in README_HAND:
        steps.append(table.next_step())
        filed = table.record(action)
    assert filed is not None
    # What the engine offered on the way, worked by hand: deal 2 to p1, p1 turns up one of
    # 7c 8c, p3 first to bet facing the big blind of 2 (raise to 4..100).
    assert (steps[0].kind, steps[0].player, steps[0].deal_count) == (StepKind.DEAL, 1, 2)
    assert steps[3].kind is StepKind.TURN_UP and set(steps[3].up_choices) == set(
        parse_cards("7c8c"))
    assert (steps[6].kind, steps[6].player, steps[6].call, steps[6].min_to,
            steps[6].max_to) == (StepKind.BET, 3, 2, 4, 100)
    assert (steps[9].kind, steps[9].deal_count) == (StepKind.DEAL, 1)
    assert (steps[11].kind, steps[11].player, steps[11].call) == (StepKind.BET, 1, 0)
    assert steps[14].kind is StepKind.SHOWDOWN
    # Pot 34 (6 + 2 + 6, then 10 + 10): Ann's seven-eight flush takes it.
    assert filed.hand.finishing_stacks == (118, 98, 84)
    assert filed.outcome.nets == (18, -2, -16)
    # The file round-trips through the reader and replays to the same result.
    read = list(read_hands(table.history_path))
    assert read == [filed.hand]
    assert replay(read[0]).nets == (18, -2, -16)
    # The table goes on: the button moves to seat 1, stacks carried over.
    hand = table.hand
    assert hand is not None
    assert hand.header.seats == (2, 3, 1)
    assert hand.header.starting_stacks == (98, 84, 118)
    assert hand.header.hand == 2 and hand.header.table == "kitchen"


def test_the_view_shows_each_rounds_bets_and_the_card_turned_up(tmp_path: Path) -> None:
    """What a player at the table sees of the README hand, worked by hand: the blinds (1,
    2) in front of p1 and p2, then p3's raise to 6 and p1's call; nothing between the
    rounds; round 2's bet of 10.  His own hand shows which card the others see."""
    table = _table(tmp_path)
    bets, pots = [], []
    for action in README_HAND[:14]:
        hand = table.hand
        assert hand is not None
        bets.append(seat_view(hand, 0).bets)
        pots.append(seat_view(hand, 0).pot)
        table.record(action)
    # The pot holds the blinds from the start: 3, then 3 + 6 (p3), 8 (p1's call), ...
    assert pots[:10] == [3] * 7 + [9, 14, 14] and pots[13] == 24
    assert bets[0] == bets[6] == (1, 2, 0)  # the blinds, from the deal to p3's turn
    assert bets[7] == (1, 2, 6) and bets[8] == (6, 2, 6)  # p3 raises to 6, p1 calls
    assert bets[9] == (0, 0, 0)  # round 1 is over, round 2's cards are being dealt
    assert bets[12] == (0, 0, 0) and bets[13] == (0, 0, 10)  # p1 checks, p3 bets 10
    hand = table.hand
    assert hand is not None
    mine = seat_view(hand, 0)  # p1's own seat: 7c 8c 2c, the 7c turned up
    assert mine.up[0] == parse_cards("7c")[0] and UNKNOWN not in mine.cards[0]
    assert mine.cards[2][0] == UNKNOWN and parse_cards("9d")[0] in mine.cards[2]
    assert up_note(mine, 0) == "<small>7♣ up</small>"  # his own cards: which one is up
    assert up_note(mine, 2) == ""  # p3's face-down cards already tell
    assert up_note(seat_view(hand, None), 2) == "<small>9♦ up</small>"  # the recorder


def test_illegal_steps_are_refused_and_change_nothing(tmp_path: Path) -> None:
    table = _table(tmp_path)
    for action in README_HAND[:6]:
        table.record(action)
    before = table.steps[:]
    refused = [
        _act(1, Verb.CHECK_CALL),  # p3 is to act first
        _act(3, Verb.BET_RAISE, amount=3),  # below the minimum raise to 4
        _act(3, Verb.BET_RAISE, amount=101),  # more than he has
        deal_action(1, parse_cards("Qd")),  # no card is dealt during betting
    ]
    for action in refused:
        with pytest.raises(StepRefused):
            table.record(action)
    assert table.steps == before
    assert sum("add" in entry for entry in read_entries(table.journal_path)) == 6
    # A card dealt twice is refused by the reader's check.
    fresh = _table(tmp_path / "other")
    fresh.record(deal_action(1, parse_cards("7c8c")))
    with pytest.raises(StepRefused, match="dealt twice"):
        fresh.record(deal_action(2, parse_cards("7cKs")))
    with pytest.raises(StepRefused):  # three cards in the first deal
        fresh.record(deal_action(2, parse_cards("AsKsQs")))


def test_undo_takes_back_the_last_step_and_survives_a_reload(tmp_path: Path) -> None:
    table = _table(tmp_path)
    for action in README_HAND[:8]:
        table.record(action)
    assert table.next_step().player == 2
    table.undo()
    table.undo()
    assert table.next_step().kind is StepKind.BET and table.next_step().player == 3
    table.record(_act(3, Verb.CHECK_CALL))
    again = RecordedTable.open(tmp_path, "kitchen", ingest_into=False, clock=fixed_clock)
    assert again.steps == table.steps
    assert again.hand is not None and again.hand.actions[-1] == _act(3, Verb.CHECK_CALL)
    fresh = _table(tmp_path / "new")
    with pytest.raises(StepRefused, match="nothing to undo"):
        fresh.undo()


def test_hidden_cards_stay_unknown_until_shown(tmp_path: Path) -> None:
    table = _table(tmp_path)
    hidden = (UNKNOWN, UNKNOWN)
    table.record(deal_action(1, parse_cards("7c8c")))  # the recorder's own cards
    table.record(deal_action(2, hidden))
    table.record(deal_action(3, hidden))
    table.record(_act(1, Verb.TURN_UP, "7c"))
    step = table.next_step()
    assert step.kind is StepKind.TURN_UP and step.hidden == 2 and step.up_choices == ()
    with pytest.raises(StepRefused):  # Ann holds 7c
        table.record(_act(2, Verb.TURN_UP, "7c"))
    table.record(_act(2, Verb.TURN_UP, "As"))
    table.record(_act(3, Verb.TURN_UP, "9d"))
    for action in (_act(3, Verb.BET_RAISE, amount=6), _act(1, Verb.CHECK_CALL),
                   _act(2, Verb.FOLD)):
        table.record(action)
    table.record(deal_action(1, parse_cards("2c")))
    table.record(deal_action(3, (UNKNOWN,)))
    for action in (_act(1, Verb.CHECK_CALL), _act(3, Verb.BET_RAISE, amount=10),
                   _act(1, Verb.CHECK_CALL)):
        table.record(action)
    step = table.next_step()
    assert step.kind is StepKind.SHOWDOWN and step.waiting == (1, 3)
    assert table.hand is not None
    state = table.hand.state()
    assert isinstance(state, SevenEightState)
    assert state.holes[2] == [parse_cards("9d")[0], UNKNOWN, UNKNOWN]
    with pytest.raises(StepRefused):  # showing needs his unknown cards named
        table.record(_act(3, Verb.SHOW_MUCK, "9d5dTh"))
    with pytest.raises(StepRefused):  # 2c is Ann's
        table.show(3, parse_cards("5d2c"))
    table.show(3, parse_cards("5dTh"))
    filed = table.show(1)
    assert filed is not None
    hand = filed.hand
    assert hand.finishing_stacks == (118, 98, 84)
    texts = [action.notation() for action in hand.actions]
    assert texts[:3] == ["d dh p1 7c8c", "d dh p2 ????", "d dh p3 9d5d"]
    assert "d dh p3 Th" in texts and "p2 f" in texts
    assert list(read_hands(table.history_path)) == [hand]
    # The reveal rewrote the deals: a reload reads the same hand back.
    again = RecordedTable.open(tmp_path, "kitchen", ingest_into=False, clock=fixed_clock)
    assert [f.hand for f in again.filed] == [hand]


def test_resume_after_a_crash_while_filing(tmp_path: Path) -> None:
    db = tmp_path / "hands.duckdb"
    table = _table(tmp_path, ingest=db)
    for action in README_HAND[:-1]:
        table.record(action)
    journal = table.journal_path
    # The crash: the last step journalled, the filing begun, half the hand appended.
    append_entry(journal, {"add": README_HAND[-1].notation()})
    append_entry(journal, {"filing": 1, "offset": 0})
    table.history_path.write_text("[1]\nformat_version = 1\nvariant = \"N7")
    with journal.open("a") as stream:
        stream.write('{"filed": 1, "ingest"')  # a torn last line
    again = RecordedTable.open(tmp_path, "kitchen", ingest_into=db, clock=fixed_clock)
    assert len(again.filed) == 1 and again.filed[0].ingest == "loaded"
    assert again.filed[0].hand.finishing_stacks == (118, 98, 84)
    assert list(read_hands(again.history_path)) == [again.filed[0].hand]
    assert again.hand is not None and again.number == 2
    # Opening once more does not file or load anything twice.
    third = RecordedTable.open(tmp_path, "kitchen", ingest_into=db, clock=fixed_clock)
    assert len(list(read_hands(third.history_path))) == 1
    with reader(db) as con:
        row = con.execute("select count(*) from hands").fetchone()
    assert row == (1,)
    assert table_names(tmp_path) == ["kitchen"]


def test_a_last_step_that_lost_its_newline_is_left_out_every_time(tmp_path: Path) -> None:
    """A torn write that kept the whole step but not its newline: reading the journal left
    it out only if it did not parse, while the next write cut it off, so the first reload
    filed the hand and the second could not open the table ("the hand is not finished")."""
    table = RecordedTable.create(tmp_path, seveneight_setup("torn", ["A", "B", "C"], 50,
                                                            bots=["loose"] * 3),
                                 ingest_into=False)
    rng = random.Random(1)
    while True:  # up to the step that ends hand 1, not taking it
        action = automatic_action(table, rng)
        assert action is not None and table.hand is not None
        if table.hand.with_action(action).is_over:
            break
        table.record(action)
    journal = table.journal_path
    entries = read_entries(journal)
    journal.write_bytes(journal.read_bytes() + b'{"add":"%s"}' % action.notation().encode())
    assert read_entries(journal) == entries  # the torn step left out
    first = RecordedTable.open(tmp_path, "torn", ingest_into=False)
    assert first.number == 1 and not first.filed  # hand 1 still to finish
    second = RecordedTable.open(tmp_path, "torn", ingest_into=False)
    assert second.number == 1 and second.hand is not None
    filed = second.record(action)  # the step taken again, and kept this time
    assert filed is not None and filed.hand.hand == 1
    assert RecordedTable.open(tmp_path, "torn", ingest_into=False).filed[0].hand == filed.hand


def test_a_finished_hand_is_in_the_warehouse_at_once(tmp_path: Path) -> None:
    db = tmp_path / "hands.duckdb"
    table = _table(tmp_path, ingest=db)
    for action in README_HAND:
        filed = table.record(action)
    assert filed is not None and filed.ingest == "loaded"
    with reader(db) as con:
        rows = con.execute("select count(*), min(game) from hands").fetchall()
    assert rows == [(1, "seveneight")]


def test_with_a_lake_a_finished_hand_goes_into_the_lake(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages leave ``ingest_into`` to where the dashboard reads: with a lake, every
    recorded hand failed ("hands is not a table": it went to the lake's read-only
    catalogue) while the page said it was in the replayer."""
    from analytics.warehouse.lake.catalogue import catalogue

    lake = tmp_path / "lake"
    monkeypatch.setenv("HANDLAB_LAKE", str(lake))
    setup = seveneight_setup("kitchen", ["Ann", "Bo", "Cy"], 100, blinds=(1, 2))
    table = RecordedTable.create(tmp_path / "rec", setup, clock=fixed_clock)
    for action in README_HAND:
        filed = table.record(action)
    assert filed is not None and filed.ingest == "loaded"
    with reader(catalogue(lake)) as con:
        rows = con.execute("select count(*), min(game) from hands").fetchall()
    assert rows == [(1, "seveneight")]


def _deck_in_quarters() -> list[tuple[object, ...]]:
    cards = list(DECK)
    random.Random(5).shuffle(cards)
    return [tuple(cards[13 * p:13 * (p + 1)]) for p in range(4)]


def test_a_bigtwo_match_is_recorded_with_the_engines_plays(tmp_path: Path) -> None:
    setup = bigtwo_setup("porch", ["Ann", "Bo", "Cy", "Dee"])
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    for game in range(2):
        hands = _deck_in_quarters() if game == 0 else list(reversed(_deck_in_quarters()))
        for player, cards in enumerate(hands, start=1):
            step = table.next_step()
            assert (step.kind, step.player, step.deal_count) == (StepKind.DEAL, player, 13)
            table.record(deal_action(player, cards))  # type: ignore[arg-type]
        filed = None
        while filed is None:
            step = table.next_step()
            assert step.kind is StepKind.PLAY
            hand = table.hand
            assert hand is not None
            state = hand.state()
            assert isinstance(state, BigTwoState)
            expected = {tuple(o.combo.cards[::-1]) for o in state.legal_plays()}
            assert set(step.plays) == expected
            # Pass when allowed, else lead the weakest play: a game the leader runs out.
            if step.can_pass:
                filed = table.record(Action(step.player, Verb.PASS))
            else:
                filed = table.record(Action(step.player, Verb.PLAY, step.plays[0]))
        # The holder of 3d led every trick alone and went out; the others hold 13 each:
        # cards scoring, 13 left pays triple (39 each).
        winner = filed.outcome.winner
        assert winner is not None
        nets = [117 if p == winner else -39 for p in range(1, 5)]
        assert list(filed.outcome.nets) == nets
        assert list(read_hands(table.history_path))[game] == filed.hand
    first, second = (f.hand for f in table.filed)
    assert second.starting_stacks == first.finishing_stacks
    assert (first.round, second.round, second.game_id) == (1, 2, "porch")


def to_the_last_play(table: RecordedTable) -> None:
    """Deal :func:`_deck_in_quarters` and play until the game is over: the holder of 3d
    leads the weakest play, the others pass, until he goes out."""
    for player, cards in enumerate(_deck_in_quarters(), start=1):
        table.record(deal_action(player, cards))  # type: ignore[arg-type]
    while table.next_step().kind is StepKind.PLAY:
        step = table.next_step()
        verb = Verb.PASS if step.can_pass else Verb.PLAY
        table.record(Action(step.player, verb, () if step.can_pass else step.plays[0]))


def test_a_zero_sum_game_asks_who_takes_on_all_losses(tmp_path: Path) -> None:
    """Under zero_sum scoring a player may take on all losses (RULES.md 2: the winner, for
    not announcing his last card, or the player before him, for not stopping him): the
    recorder could not say so.  A finished zero_sum game now waits for it (TAKER), offers
    those two or nobody, files the game with it, and keeps the question over a reload."""
    rules = BigTwoRules(scoring=BigTwoScoring.ZERO_SUM)
    setup = bigtwo_setup("den", ["Ann", "Bo", "Cy", "Dee"], rules)
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    to_the_last_play(table)
    step = table.next_step()
    assert step.kind is StepKind.TAKER and not table.filed  # nothing filed yet
    hand = table.hand
    assert hand is not None
    state = hand.state()
    assert isinstance(state, BigTwoState)
    winner = state.finishing_order[0]
    before = (winner - 2) % 4 + 1
    assert step.waiting == (winner, before)
    other = next(p for p in range(1, 5) if p not in step.waiting)
    with pytest.raises(StepRefused):
        table.take_losses(other)
    again = RecordedTable.open(tmp_path, "den", ingest_into=False)  # a reload: still asked
    assert again.next_step().kind is StepKind.TAKER
    filed = again.take_losses(before)
    assert filed.hand.takes_all_losses == before
    # Real losses 0 and 39 for the three others (13 left, tripled): T = 117; the taker
    # carries T, the others 0: scores T - 4 x loss.
    assert list(filed.outcome.nets) == [117 if p != before else 117 - 4 * 117
                                        for p in range(1, 5)]
    assert list(read_hands(again.history_path)) == [filed.hand]
    assert replay(filed.hand).nets == filed.outcome.nets
    assert again.next_step().kind is StepKind.DEAL  # the next game
    # Nobody: the game as scored without a taker.
    other_table = RecordedTable.create(tmp_path, replace(setup, name="den2"),
                                       ingest_into=False, clock=fixed_clock)
    to_the_last_play(other_table)
    plain = other_table.take_losses(None)
    assert plain.hand.takes_all_losses is None
    assert list(plain.outcome.nets) == [117 if p == winner else -39 for p in range(1, 5)]
    # Cards scoring asks nothing: the game files with its last play.
    cards = RecordedTable.create(tmp_path, bigtwo_setup("den3", ["Ann", "Bo", "Cy", "Dee"]),
                                 ingest_into=False, clock=fixed_clock)
    to_the_last_play(cards)
    assert len(cards.filed) == 1 and cards.next_step().kind is StepKind.DEAL


def test_bigtwo_refuses_a_play_that_does_not_beat_the_table(tmp_path: Path) -> None:
    rules = BigTwoRules(scoring=BigTwoScoring.CARDS)
    table = RecordedTable.create(tmp_path, bigtwo_setup("den", ["Ann", "Bo"], rules),
                                 ingest_into=False, clock=fixed_clock)
    table.record(deal_action(1, parse_cards("3d4d5d6d7d8d9dTdJdQdKdAd2d")))
    with pytest.raises(StepRefused):  # the deal must hold 13 cards each
        table.record(deal_action(2, parse_cards("3c4c")))
    table.record(deal_action(2, parse_cards("3c4c5c6c7c8c9cTcJcQcKcAc2c")))
    step = table.next_step()
    assert step.player == 1 and not step.can_pass
    assert all(parse_cards("3d")[0] in play for play in step.plays)
    table.record(Action(1, Verb.PLAY, parse_cards("3d")))
    with pytest.raises(StepRefused, match="does not hold"):
        table.record(Action(2, Verb.PLAY, parse_cards("4d")))
    with pytest.raises(StepRefused, match="a play must have as many"):
        table.record(Action(2, Verb.PLAY, parse_cards("3c4c5c6c7c")))
    assert table.next_step().plays[0] == parse_cards("3c")  # c beats d (dchs order)
    table.record(Action(2, Verb.PLAY, parse_cards("4c")))
    with pytest.raises(StepRefused, match="does not beat"):
        table.record(Action(1, Verb.PLAY, parse_cards("4d")))  # 4d < 4c
    assert table.next_step().plays[0] == parse_cards("5d")


def test_the_bots_play_through_the_recorder_and_the_person_sees_only_his_cards(
        tmp_path: Path) -> None:
    setup = seveneight_setup("attic", ["You", "Bo", "Cy"], 200,
                             bots=("", "tight", "loose"))
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    rng = random.Random(3)
    while table.next_step().kind is StepKind.DEAL:
        action = automatic_action(table, rng)
        assert action is not None
        table.record(action)
    assert is_persons_turn(table) and automatic_action(table, rng) is None
    hand = table.hand
    assert hand is not None
    view = seat_view(hand, 0)
    me = view.me
    assert me is not None
    mine = view.cards[me - 1]
    assert UNKNOWN not in mine and len(mine) == 2
    assert all(cards == (UNKNOWN, UNKNOWN) for p, cards in enumerate(view.cards) if p != me - 1)
    # Play the hand out: the person always checks or calls.
    while len(table.filed) == 0:
        action = automatic_action(table, rng)
        if action is None:
            step = table.next_step()
            action = (Action(step.player, Verb.SHOW_MUCK, step.holding)
                      if step.kind is StepKind.SHOWDOWN else
                      Action(step.player, Verb.TURN_UP, step.up_choices[:1])
                      if step.kind is StepKind.TURN_UP else Action(step.player,
                                                                   Verb.CHECK_CALL))
        table.record(action)
    hand_played = table.filed[0].hand
    assert UNKNOWN not in {c for a in hand_played.actions for c in a.cards}
    assert replay(hand_played).nets == table.filed[0].outcome.nets
    assert sum(table.carry.stacks) == 600


def test_a_bigtwo_game_against_the_bots(tmp_path: Path) -> None:
    setup = bigtwo_setup("lounge", ["You", "Bo", "Cy", "Dee"],
                         bots=("", "steady", "aggressive", "random"))
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    rng = random.Random(9)
    while not table.filed:
        action = automatic_action(table, rng)
        if action is None:
            step = table.next_step()
            action = (Action(step.player, Verb.PASS) if step.can_pass
                      else Action(step.player, Verb.PLAY, step.plays[0]))
        table.record(action)
    game = table.filed[0]
    assert sum(game.outcome.nets) == 0
    assert list(read_hands(table.history_path)) == [game.hand]
    following = table.hand
    assert following is not None
    view = seat_view(following, 0)  # the match score carried into game 2, said to be one
    assert view.stacks == game.hand.finishing_stacks and view.stacks_are == "score"
    hand = HandInProgress(table.filed[0].hand, ())
    assert hand.header.players == ("You", "Bo", "Cy", "Dee")


@pytest.mark.parametrize("seed", range(4))
def test_bot_tables_file_what_replays_and_reopen_where_they_were(tmp_path: Path,
                                                                  seed: int) -> None:
    """Whole tables of bots through the recorder: the file reads back as the hands filed and
    replays to their results, the stacks carry over, and after any number of steps (with
    undos among them) reopening the journal gives the same table."""
    rng = random.Random(seed)
    setups = [
        seveneight_setup("t78", ["Ann", "Bo", "Cy", "Dee"], 60, blinds=(1, 2),
                         variant=("N78", "P78", "F78")[seed % 3],
                         bots=("tight", "loose", "loose", "tight")),
        bigtwo_setup("tb2", ["Ann", "Bo", "Cy"],
                     BigTwoRules(scoring=list(BigTwoScoring)[seed % len(BigTwoScoring)]),
                     bots=("random", "steady", "aggressive")),
    ]
    for setup in setups:
        table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
        stop = rng.randrange(40, 200)
        for step in range(400):
            if len(table.filed) >= 3 or table.hand is None:
                break
            if table.can_undo and rng.random() < 0.05:
                table.undo()
            else:
                action = automatic_action(table, rng)
                assert action is not None
                table.record(action)
            if step == stop:
                again = RecordedTable.open(tmp_path, setup.name, ingest_into=False,
                                           clock=fixed_clock)
                assert again.steps == table.steps
                assert [f.hand for f in again.filed] == [f.hand for f in table.filed]
                assert again.carry == table.carry
        read = list(read_hands(table.history_path))
        assert read == [filed.hand for filed in table.filed]
        for hand, filed in zip(read, table.filed, strict=True):
            assert replay(hand).nets == filed.outcome.nets
        # Chips are conserved at the table, Big Two points sum to zero.
        assert sum(table.carry.stacks) == sum(setup.stacks)


def test_a_hand_the_warehouse_could_not_take_comes_in_with_the_next(tmp_path: Path) -> None:
    db = tmp_path / "hands.duckdb"
    blocked = tmp_path / "not-a-database"
    blocked.mkdir()  # a folder: the warehouse cannot open it
    table = _table(tmp_path, ingest=blocked)
    for action in README_HAND:
        filed = table.record(action)
    assert filed is not None and filed.ingest.startswith("not loaded")
    assert list(read_hands(table.history_path)) == [filed.hand]  # the file has it anyway
    again = RecordedTable.open(tmp_path, "kitchen", ingest_into=db, clock=fixed_clock)
    rng = random.Random(1)
    while len(again.filed) < 2:
        again.record(_next_by_calling(again, rng))
    assert again.filed[-1].ingest == "loaded"
    with reader(db) as con:
        assert con.execute("select count(*) from hands").fetchone() == (2,)


def _next_by_calling(table: RecordedTable, rng: random.Random) -> Action:
    """The dealer's cards at random, then every player checks or calls and shows."""
    hand = table.hand
    assert hand is not None
    step = table.next_step()
    if step.kind is StepKind.DEAL:
        unseen = [card for card in DECK if card not in
                  {c for a in hand.actions for c in a.cards}]
        return deal_action(step.player, rng.sample(unseen, step.deal_count))
    if step.kind is StepKind.TURN_UP:
        return Action(step.player, Verb.TURN_UP, step.up_choices[:1])
    if step.kind is StepKind.SHOWDOWN:
        return Action(step.player, Verb.SHOW_MUCK, step.holding)
    return Action(step.player, Verb.CHECK_CALL)


SEEDS: Final = (11, 12)
"""The deals of the recorded Rummoli rounds."""


@pytest.mark.parametrize("seed", range(2))
def test_rummoli_rounds_through_the_recorder(tmp_path: Path, seed: int) -> None:
    """Rummoli rounds of bots, every step through the recorder: the file reads back and
    replays, the board carries to the next round, the deal passes clockwise, chips and the
    board together are conserved, and the journal reopens to the same table."""
    # The deal's seed fixed too (a new table draws one at random): the same rounds each run.
    setup = replace(rummoli_setup("parlour", ["Ann", "Bo", "Cy", "Dee"], 80,
                                  bots=("cautious", "bold", "bold", "cautious")),
                    seed=SEEDS[seed])
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    rng = random.Random(seed)
    first = table.next_step()
    assert (first.kind, first.player, first.waiting) == (StepKind.DEAL, 1, (1, 2, 3, 4))
    calls = folds = 0
    while len(table.filed) < 3 and table.hand is not None:
        step = table.next_step()
        if step.kind is StepKind.CHOOSE:
            assert step.choices  # the engine's legal actions
        action = automatic_action(table, rng)
        assert action is not None
        hand = table.hand
        assert hand is not None
        shown = seat_view(hand, None)
        done = table.record(action)
        if action.verb is Verb.CHECK_CALL and done is None:
            # What the "Call N" button says is what the call puts in, in front of him.
            now = table.hand
            assert now is not None
            later = seat_view(now, None)
            seat = action.actor - 1
            assert shown.stacks[seat] - later.stacks[seat] == step.call
            if later.bets:  # the betting goes on
                assert later.bets[seat] - shown.bets[seat] == step.call
                assert later.bets[seat] == max(later.bets) or later.stacks[seat] == 0
            calls += step.call > 0
        if action.verb is Verb.FOLD and done is None and table.next_step().min_to:
            now = table.hand
            assert now is not None
            folds += seat_view(now, None).folded[action.actor - 1]
    assert calls and folds  # some call put chips in; a fold in the betting is shown
    rounds = list(read_hands(table.history_path))
    assert rounds == [filed.hand for filed in table.filed]
    for before, after in itertools.pairwise(rounds):
        assert after.board_before == replay(before).board_after or (
            after.board_before is None and not any(replay(before).board_after or ()))
        assert after.dealer is not None and before.dealer is not None
    assert [r.dealer for r in rounds] == [4, 1, 2]
    total = sum(table.carry.stacks) + sum(table.carry.board)
    assert total == 4 * 80
    again = RecordedTable.open(tmp_path, "parlour", ingest_into=False, clock=fixed_clock)
    assert again.carry == table.carry and again.steps == table.steps


def _play_rummoli(table: RecordedTable, rng: random.Random, rounds: int) -> None:
    """Let the bots play ``rounds`` more rounds (fewer when the table is over)."""
    goal = len(table.filed) + rounds
    while len(table.filed) < goal and table.hand is not None:
        action = automatic_action(table, rng)
        assert action is not None
        table.record(action)


def _smallest_first(board: tuple[int, ...]) -> list[str]:
    """The per_pot finale's order worked out by hand: pots with chips, fewest chips first,
    ties in board order (RULES.md 1.7)."""
    ranked = sorted((chips, index) for index, chips in enumerate(board) if chips)
    return [RUMMOLI_POTS[index] for _, index in ranked]


@pytest.mark.parametrize("seed", range(3))
def test_a_per_pot_finale_plays_each_pot_smallest_first(tmp_path: Path, seed: int) -> None:
    """Ending the game turns the round about to start into the finale: one poker round per
    pot with chips, smallest first, each round's ``finale_pot`` naming it; the board empties
    pot by pot, the file replays, the journal reopens anywhere, and the table is over."""
    setup = replace(rummoli_setup("finale", ["Ann", "Bo", "Cy", "Dee"], 80,
                                  RummoliRules(finale=Finale.PER_POT),
                                  bots=("cautious", "bold", "bold", "cautious")),
                    seed=seed)  # the deals too, not only the bots' choices
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    rng = random.Random(seed)
    _play_rummoli(table, rng, 2)
    assert table.can_end_game and table.finale_pot is None
    board = tuple(table.carry.board)
    order = _smallest_first(board)
    assert order, "two rounds leave chips on the board"
    ordinary = len(table.filed)
    table.end_game()
    assert table.number == ordinary + 1  # the round not begun became the finale's first
    assert not table.can_end_game and table.finale_pot == order[0]
    while table.hand is not None:
        _play_rummoli(table, rng, 1)
        again = RecordedTable.open(tmp_path, "finale", ingest_into=False, clock=fixed_clock)
        assert again.carry == table.carry and again.steps == table.steps
    finale = [filed.hand for filed in table.filed[ordinary:]]
    assert [hand.finale_pot for hand in finale] == order[:len(finale)]
    for hand in finale:
        assert hand.board_before is not None
        chips = hand.board_before[RUMMOLI_POTS.index(hand.finale_pot or "")]
        after = replay(hand).board_after
        assert after is not None and after[RUMMOLI_POTS.index(hand.finale_pot or "")] == 0
        assert sum(hand.board_before) - sum(after) == chips  # only its own pot is played
    with pytest.raises(StepRefused, match="the game is over already: "):
        table.end_game()
    if len(finale) == len(order):
        assert not any(table.carry.board)
        assert table.over_reason == "the game's finale has been played"
    else:  # one player won every chip off the board: the other pots stay
        assert "fewer than two players" in table.over_reason
    rounds = list(read_hands(table.history_path))
    assert rounds == [filed.hand for filed in table.filed]
    for hand, filed in zip(rounds, table.filed, strict=True):
        assert replay(hand).nets == filed.outcome.nets
    assert sum(table.carry.stacks) + sum(table.carry.board) == 4 * 80
    with pytest.raises(StepRefused, match="the table is over"):
        table.record(Action(1, Verb.FOLD))


def test_a_single_finale_plays_the_whole_board_in_one_round(tmp_path: Path) -> None:
    setup = rummoli_setup("single", ["Ann", "Bo", "Cy"], 60,
                          bots=("bold", "cautious", "bold"))  # finale = "single" by default
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    rng = random.Random(5)
    _play_rummoli(table, rng, 1)
    board = sum(table.carry.board)
    assert board > 0
    table.end_game()
    assert table.finale_pot == "all"
    header = table.steps[0].header
    assert header.finale_pot == "all" and header.round == 2 and header.dealer == 1
    _play_rummoli(table, rng, 1)
    last = table.filed[-1]
    assert last.hand.finale_pot == "all" and not any(table.carry.board)
    assert sum(last.outcome.nets) == board  # the players won the whole board between them
    assert table.hand is None and table.next_step().kind is StepKind.OVER
    again = RecordedTable.open(tmp_path, "single", ingest_into=False, clock=fixed_clock)
    assert again.hand is None and again.carry == table.carry


def test_ending_a_game_is_refused_mid_round_and_without_a_finale_ends_at_once(
        tmp_path: Path) -> None:
    setup = replace(rummoli_setup("nofinale", ["Ann", "Bo"], 40,
                                  RummoliRules(finale=Finale.NONE), bots=("bold", "bold")),
                    seed=4)  # a deal in which nobody goes broke in the first round
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    rng = random.Random(2)
    table.record(automatic_action(table, rng) or Action(0, Verb.PASS))  # the first deal
    assert not table.can_end_game
    with pytest.raises(StepRefused, match="finish or undo"):
        table.end_game()
    table.undo()
    _play_rummoli(table, rng, 1)
    assert table.can_end_game, table.over_reason
    left = sum(table.carry.board)
    table.end_game()
    assert table.hand is None and table.carry.ended and len(table.filed) == 1
    assert table.over_reason == ("the game was ended without a finale"
                                 + (f"; {left} chips stay on the board" if left else ""))
    again = RecordedTable.open(tmp_path, "nofinale", ingest_into=False, clock=fixed_clock)
    assert again.hand is None and again.carry == table.carry
    seveneight = _table(tmp_path)
    assert not seveneight.can_end_game
    with pytest.raises(StepRefused):
        seveneight.end_game()


def _bust_cy(folder: Path) -> RecordedTable:
    """The README hand with 16 chips each: Cy (seat 3) bets all-in and loses them all."""
    setup = seveneight_setup("seats", ["Ann", "Bo", "Cy"], 16, blinds=(1, 2))
    table = RecordedTable.create(folder, setup, ingest_into=False, clock=fixed_clock)
    for action in README_HAND:
        table.record(action)
    assert table.seating == (("Ann", 34), ("Bo", 14), ("Cy", 0))
    return table


def test_a_busted_player_rebuys_and_the_hand_lists_him(tmp_path: Path) -> None:
    table = _bust_cy(tmp_path)
    assert table.can_reseat
    hand = table.hand
    assert hand is not None and hand.header.players == ("Bo", "Ann")  # Cy sits out
    with pytest.raises(StepRefused, match="only a player with none"):
        table.rebuy(2, 50)
    table.rebuy(3, 40)
    hand = table.hand
    assert hand is not None and table.number == 2
    # The button moves from Cy (seat 3) to Ann (seat 1): p1 is Bo, p2 Cy, p3 Ann.
    assert hand.header.players == ("Bo", "Cy", "Ann")
    assert hand.header.seats == (2, 3, 1) and hand.header.starting_stacks == (14, 40, 34)
    assert dict(hand.header.user_fields) == {"_rebuys": ["Cy"]}
    again = RecordedTable.open(tmp_path, "seats", ingest_into=False, clock=fixed_clock)
    assert again.carry == table.carry and again.steps == table.steps
    rng = random.Random(3)
    while len(table.filed) < 3:
        table.record(_next_by_calling(table, rng))
    read = list(read_hands(table.history_path))
    assert read == [filed.hand for filed in table.filed]
    assert [dict(h.user_fields).get("_rebuys") for h in read] == [None, ["Cy"], None]
    for hand_read, filed in zip(read, table.filed, strict=True):
        assert replay(hand_read).nets == filed.outcome.nets
    assert sum(stack for _, stack in table.seating) == 3 * 16 + 40


def test_players_leave_and_join_between_hands_only(tmp_path: Path) -> None:
    table = _bust_cy(tmp_path)
    table.leave(3)  # Cy goes home
    table.leave(2)  # so does Bo, with his 14 chips: Ann alone has chips
    assert table.hand is None and table.number == 1
    assert table.over_reason == "fewer than two players have chips left"
    assert table.seating == (("Ann", 34), ("", 0), ("", 0))
    with pytest.raises(StepRefused, match="not an empty seat"):
        table.join(1, "Dee", 20)
    with pytest.raises(StepRefused, match="not a new player"):
        table.join(2, "Ann", 20)
    with pytest.raises(StepRefused, match="a stack is 1 to"):
        table.join(2, "Dee", 0)
    table.join(2, "Dee", 25)
    hand = table.hand
    assert hand is not None and table.number == 2  # the table goes on with hand 2
    assert hand.header.players == ("Dee", "Ann") and hand.header.seats == (2, 1)
    assert hand.header.user_fields == () and hand.header.seat_count == 3
    again = RecordedTable.open(tmp_path, "seats", ingest_into=False, clock=fixed_clock)
    assert again.carry == table.carry and again.steps == table.steps
    rng = random.Random(4)
    table.record(_next_by_calling(table, rng))  # the first card of hand 2 is dealt
    assert not table.can_reseat
    with pytest.raises(StepRefused, match="between two hands"):
        table.join(3, "Eve", 30)
    with pytest.raises(StepRefused, match="between two hands"):
        table.leave(2)
    while len(table.filed) < 2:
        table.record(_next_by_calling(table, rng))
    filed = table.filed[-1].hand
    assert filed.players == ("Dee", "Ann") and filed.seats == (2, 1)
    assert replay(filed).nets == table.filed[-1].outcome.nets
    assert table.seating[:2] == (("Ann", (filed.finishing_stacks or ())[1]),
                                 ("Dee", (filed.finishing_stacks or ())[0]))
    assert sum(filed.finishing_stacks or ()) == 34 + 25


@pytest.mark.parametrize("seed", range(3))
def test_random_rebuys_leaves_and_joins_keep_the_books(tmp_path: Path, seed: int) -> None:
    """Hands of calling stations with seats changing at random between them: the chips at the
    table are the buy-ins less what leavers took, hands are numbered without a gap, each
    hand's ``_rebuys`` names who rebought since the last, the file replays, and the journal
    reopens to the same table after every change."""
    rng = random.Random(seed)
    setup = seveneight_setup("churn", ["Ann", "Bo", "Cy", "Dee"], 12, blinds=(1, 2))
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    bought, taken, newcomers = 4 * 12, 0, iter(f"New{i}" for i in range(100))
    expected_rebuys: list[list[str]] = []
    rebought: list[str] = []
    while len(table.filed) < 12:
        if table.can_reseat and (table.hand is None or rng.random() < 0.5):
            seat = rng.randrange(1, 5)
            name, chips = table.seating[seat - 1]
            if not name:
                stack = rng.randrange(5, 30)
                table.join(seat, next(newcomers), stack)
                bought += stack
            elif not chips and rng.random() < 0.7:
                stack = rng.randrange(5, 30)
                table.rebuy(seat, stack)
                bought += stack
                rebought.append(name)
            else:
                table.leave(seat)
                taken += chips
                if name in rebought:
                    rebought.remove(name)
            again = RecordedTable.open(tmp_path, "churn", ingest_into=False, clock=fixed_clock)
            assert again.carry == table.carry and again.steps == table.steps
            assert sum(stack for _, stack in table.seating) == bought - taken
            continue
        if table.hand is None:
            continue  # fewer than two with chips: the next turn changes a seat
        before = len(table.filed)
        table.record(_next_by_calling(table, rng))
        if len(table.filed) > before:
            expected_rebuys.append(rebought)
            rebought = []
    read = list(read_hands(table.history_path))
    assert read == [filed.hand for filed in table.filed]
    assert [hand.hand for hand in read] == list(range(1, 13))
    assert [dict(hand.user_fields).get("_rebuys", []) for hand in read] == expected_rebuys
    for hand, filed in zip(read, table.filed, strict=True):
        assert replay(hand).nets == filed.outcome.nets
        assert hand.seat_count == 4
    assert sum(stack for _, stack in table.seating) == bought - taken


def people_play(table: RecordedTable, rng: random.Random, rounds: int) -> None:
    """``rounds`` more Rummoli rounds of a recorded table, the simulator's bots standing in
    for the people at it (its journal keeps the table as set up: no bots)."""
    bots = table.carry.bots
    table.carry.bots = ["bold"] * len(table.carry.names)
    try:
        _play_rummoli(table, rng, rounds)
    finally:
        table.carry.bots = bots


@pytest.mark.parametrize("seed", [2, 5])
def test_rummoli_players_leave_rebuy_and_join_between_rounds(tmp_path: Path,
                                                             seed: int) -> None:
    """Seats change between two ordinary rounds: the board carries on untouched, a leaver
    takes his chips, a busted player rebuys (the round lists him in ``_rebuys``), a newcomer
    sits in an empty seat; chips at the table plus the board are the buy-ins less what
    leavers took; every round replays and follows the last one's board; no change once the
    game has ended."""
    # A fixed seed for the computer's deals: the same rounds on every run.
    setup = replace(rummoli_setup("club", ["Ann", "Bo", "Cy", "Dee"], 20), seed=seed)
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    rng = random.Random(seed)
    bought, taken = 4 * 20, 0
    people_play(table, rng, 1)
    board = list(table.carry.board)
    name, chips = table.seating[1]
    table.leave(2)
    taken += chips
    hand = table.hand
    assert hand is not None and name not in (hand.header.players or ())
    assert 2 not in (hand.header.seats or ()) and hand.header.seat_count == 4
    assert list(hand.header.board_before or [0] * 9) == board  # the board stays
    with pytest.raises(StepRefused, match="a stack is 1 to"):
        table.join(2, "Eve", 0)
    table.join(2, "Eve", 20)
    bought += 20
    hand = table.hand
    assert hand is not None and (hand.header.players or ()).count("Eve") == 1
    seats = hand.header.seats or ()
    assert (hand.header.starting_stacks or ())[seats.index(2)] == 20
    again = RecordedTable.open(tmp_path, "club", ingest_into=False, clock=fixed_clock)
    assert again.carry == table.carry and again.steps == table.steps
    while not any(name and not chips for name, chips in table.seating):
        assert table.hand is not None, "a player busts before the table is over"
        people_play(table, rng, 1)
    seat = next(s for s, (name, chips) in enumerate(table.seating, 1) if name and not chips)
    busted = table.seating[seat - 1][0]
    with pytest.raises(StepRefused, match="only a player with none"):
        table.rebuy(next(s for s, (n, c) in enumerate(table.seating, 1) if c), 5)
    table.rebuy(seat, 15)
    bought += 15
    hand = table.hand
    assert hand is not None and dict(hand.header.user_fields) == {"_rebuys": [busted]}
    assert sum(table.carry.stacks) + sum(table.carry.board) == bought - taken
    people_play(table, rng, 1)
    rounds = list(read_hands(table.history_path))
    assert rounds == [filed.hand for filed in table.filed]
    for before, after in itertools.pairwise(rounds):
        assert list(after.board_before or [0] * 9) == list(replay(before).board_after or [])
    for round_read, filed in zip(rounds, table.filed, strict=True):
        assert replay(round_read).nets == filed.outcome.nets
    assert sum(table.carry.stacks) + sum(table.carry.board) == bought - taken
    if table.can_end_game:
        table.end_game()
        assert not table.can_reseat
        with pytest.raises(StepRefused, match="between two hands"):
            table.leave(1)


def test_bigtwo_players_leave_and_join_between_games(tmp_path: Path) -> None:
    """A Big Two match goes on when a player leaves (his score is final, the others' carry
    on) and when one joins an empty seat with a score of 0; nobody rebuys; the games name
    their seats once the seating changed, replay, and the scores stay zero-sum."""
    table = RecordedTable.create(tmp_path, bigtwo_setup("match", ["Ann", "Bo", "Cy", "Dee"]),
                                 ingest_into=False, clock=fixed_clock)
    quarters = _deck_in_quarters()

    def play_game(count: int) -> None:
        for player in range(1, count + 1):
            table.record(deal_action(player, quarters[player - 1]))  # type: ignore[arg-type]
        filed = None
        while filed is None:
            step = table.next_step()
            filed = table.record(Action(step.player, Verb.PASS) if step.can_pass
                                 else Action(step.player, Verb.PLAY, step.plays[0]))

    play_game(4)
    first = table.filed[-1].hand
    assert first.seats is None  # the table's first seating: as before
    with pytest.raises(StepRefused, match="nobody rebuys"):
        table.rebuy(2, 10)
    bo_final = table.seating[1][1]
    table.leave(2)
    hand = table.hand
    assert hand is not None and hand.header.players == ("Ann", "Cy", "Dee")
    assert hand.header.seats == (1, 3, 4) and hand.header.seat_count == 4
    assert hand.header.starting_stacks == tuple(
        (first.finishing_stacks or ())[s - 1] for s in (1, 3, 4))
    play_game(3)
    with pytest.raises(StepRefused, match="score of 0"):
        table.join(2, "Eve", 5)
    table.join(2, "Eve", 0)
    hand = table.hand
    assert hand is not None and hand.header.players == ("Ann", "Eve", "Cy", "Dee")
    assert (hand.header.starting_stacks or ())[1] == 0 and hand.header.seats == (1, 2, 3, 4)
    again = RecordedTable.open(tmp_path, "match", ingest_into=False, clock=fixed_clock)
    assert again.carry == table.carry and again.steps == table.steps
    play_game(4)
    games = list(read_hands(table.history_path))
    assert games == [filed.hand for filed in table.filed]
    assert [len(g.players or ()) for g in games] == [4, 3, 4]
    for game, filed in zip(games, table.filed, strict=True):
        assert replay(game).nets == filed.outcome.nets
    assert sum(score for _, score in table.seating) + bo_final == 0  # cards scoring
    for seat in (1, 2, 3):
        table.leave(seat)
    assert table.hand is None and "fewer than two players are seated" in table.over_reason


@pytest.mark.parametrize("players", [["Ann", "Ann", "Cy"], ["Ann", " ", "Cy"],
                                     ["Ann", "\u200b", "Cy"], ["Ann", "B\x1b[2Jo", "Cy"],
                                     ["Ann", " Bo", "Cy"]])
def test_a_table_needs_a_name_of_his_own_for_each_player(players: list[str]) -> None:
    """Every history gives each player a name of his own (parsers.build): the set-up says
    so before the first hand, for each game, instead of a refused first step; a name the
    reader refuses (invisible, a control character, a space at an end) is refused here."""
    refused = r"named twice|has no name|control character|begins or ends with a space"
    with pytest.raises(StepRefused, match=refused):
        seveneight_setup("kitchen", players, 100)
    with pytest.raises(StepRefused, match=refused):
        bigtwo_setup("porch", players)
    with pytest.raises(StepRefused, match=refused):
        rummoli_setup("den", players, 50)


def test_the_bots_never_take_the_name_the_person_chose() -> None:
    """"Ada" typed as one's name was refused as named twice: the first bot is Ada."""
    assert seated_bot_names("Hero", 3) == list(BOT_NAMES[:3])
    assert seated_bot_names("Ada", 3) == ["Bix", "Cog", "Dot"]
    setup = seveneight_setup("t", ["Ada", *seated_bot_names("Ada", 3)], 100,
                             bots=["", "loose", "loose", "loose"])
    assert setup.players == ("Ada", "Bix", "Cog", "Dot")


def test_a_renamed_journal_is_named_not_a_crash(tmp_path: Path) -> None:
    """A journal copied under another name opened the original's files (or crashed the page
    with FileNotFoundError when there was none): it is refused, naming the table it is."""
    table = _table(tmp_path)
    table.record(README_HAND[0])
    copy = tmp_path / "renamed.journal"
    copy.write_bytes(table.journal_path.read_bytes())
    entries = read_entries(table.journal_path)
    with pytest.raises(JournalError, match=r"renamed.journal:1: this is the journal of the "
                                           r"table 'kitchen'"):
        RecordedTable.open(tmp_path, "renamed", ingest_into=False)
    assert read_entries(table.journal_path) == entries  # the original untouched
