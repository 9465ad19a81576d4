"""Seat changes at a table played against the bots (the Play page): a bot is seated in an
empty seat with the style chosen and plays from the next hand on, any bot leaves, a busted
bot or person rebuys, the person's seat stays his; the same ``rebuy``/``leave``/``join`` of
:class:`RecordedTable` the Record page calls, journalled and read back."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from analytics.record.hand import StepKind, StepRefused
from analytics.record.play import BOT_NAMES, automatic_action, is_persons_turn, new_bot_name
from analytics.record.table import (
    BOT_STYLE_NAMES,
    RecordedTable,
    TableSetup,
    bigtwo_setup,
    rummoli_setup,
    seveneight_setup,
)
from analytics.rules import replay
from parsers import Action, Game
from parsers.reader import read_hands
from tests.test_record import README_HAND, fixed_clock

PERSON_STYLE = {Game.SEVENEIGHT: "loose", Game.BIGTWO: "steady", Game.RUMMOLI: "bold"}
"""How the tests make the person's moves: as a bot of this style would."""


def _persons_move(table: RecordedTable, rng: random.Random) -> Action:
    """The person's move, chosen by a bot of :data:`PERSON_STYLE` standing in for him."""
    bots = table.carry.bots
    table.carry.bots = [style or PERSON_STYLE[table.setup.game] for style in bots]
    try:
        action = automatic_action(table, rng)
    finally:
        table.carry.bots = bots
    assert action is not None
    return action


def _step(table: RecordedTable, rng: random.Random) -> None:
    """One step: the dealer's or a bot's through ``automatic_action``, which gives None exactly
    when the person is to act (then the person's move)."""
    action = automatic_action(table, rng)
    assert (action is None) == is_persons_turn(table)
    table.record(action if action is not None else _persons_move(table, rng))


def _play_hand(table: RecordedTable, rng: random.Random) -> None:
    goal = len(table.filed) + 1
    while len(table.filed) < goal and table.hand is not None:
        _step(table, rng)


def _bust_cy_the_bot(folder: Path) -> RecordedTable:
    """The README hand at a table of bots: you (Ann) call Cy's all-in and bust him."""
    setup = seveneight_setup("botden", ["Ann", "Bo", "Cy"], 16, blinds=(1, 2),
                             bots=("", "tight", "loose"))
    table = RecordedTable.create(folder, setup, ingest_into=False, clock=fixed_clock)
    for action in README_HAND:
        table.record(action)
    assert table.seating == (("Ann", 34), ("Bo", 14), ("Cy", 0))
    return table


def test_a_bot_leaves_and_a_new_bot_plays_from_the_next_hand(tmp_path: Path) -> None:
    table = _bust_cy_the_bot(tmp_path)
    assert table.bot_styles == ("", "tight", "loose") and table.is_persons_seat(1)
    with pytest.raises(StepRefused, match="your seat stays yours"):
        table.leave(1)
    table.leave(2)  # Bo, the tight bot, goes with his 14 chips; Cy has none: no hand
    assert table.bot_styles == ("", "", "loose") and table.hand is None
    assert new_bot_name(table) == "Ada"  # not Ann, Bo or Cy: they played here
    with pytest.raises(StepRefused, match="joins a table played against the bots"):
        table.join(2, "Ada", 30)  # a person: only bots join a table of bots
    with pytest.raises(StepRefused, match="not 'sharp'"):
        table.join(2, "Ada", 30, "sharp")
    with pytest.raises(StepRefused, match="not a new player"):
        table.join(2, "Cy", 30, "tight")
    table.join(2, "Ada", 30, "tight")
    hand = table.hand
    assert hand is not None and table.number == 2
    assert table.bot_styles == ("", "tight", "loose")
    assert hand.header.players == ("Ada", "Ann") and hand.header.seats == (2, 1)
    again = RecordedTable.open(tmp_path, "botden", ingest_into=False, clock=fixed_clock)
    assert again.carry == table.carry and again.steps == table.steps
    assert again.bot_styles == ("", "tight", "loose")
    # Ada acts by herself (the computer's move), the person when it is his turn.
    rng = random.Random(2)
    acted: set[int] = set()
    while len(table.filed) < 2:
        step = table.next_step()
        if step.kind is not StepKind.DEAL and not is_persons_turn(table):
            acted.add(step.player)
        _step(table, rng)
    assert 1 in acted  # p1 is Ada, seat 2
    filed = table.filed[-1].hand
    assert filed.players == ("Ada", "Ann")
    assert replay(filed).nets == table.filed[-1].outcome.nets
    assert list(read_hands(table.history_path)) == [f.hand for f in table.filed]


def test_a_busted_bot_rebuys_and_keeps_its_style(tmp_path: Path) -> None:
    table = _bust_cy_the_bot(tmp_path)
    table.rebuy(3, 40)
    assert table.bot_styles == ("", "tight", "loose")
    hand = table.hand
    assert hand is not None and hand.header.players == ("Bo", "Cy", "Ann")
    assert dict(hand.header.user_fields) == {"_rebuys": ["Cy"]}
    again = RecordedTable.open(tmp_path, "botden", ingest_into=False, clock=fixed_clock)
    assert again.carry == table.carry and again.steps == table.steps
    _play_hand(table, random.Random(5))
    assert sum(stack for _, stack in table.seating) == 3 * 16 + 40


def test_a_recorded_table_seats_no_bot(tmp_path: Path) -> None:
    setup = seveneight_setup("people", ["Ann", "Bo", "Cy"], 16, blinds=(1, 2))
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    assert table.bot_styles == () and not table.is_persons_seat(1)
    table.leave(3)
    with pytest.raises(StepRefused, match="seats people, not bots"):
        table.join(3, "Ada", 20, "tight")
    table.join(3, "Dee", 20)
    assert table.seating[2] == ("Dee", 20)


def test_a_new_bots_name_is_one_never_seen_at_the_table(tmp_path: Path) -> None:
    players = ["You", *BOT_NAMES[:3]]
    table = RecordedTable.create(
        tmp_path, bigtwo_setup("names", players, bots=("", "steady", "steady", "random")),
        ingest_into=False, clock=fixed_clock)
    assert new_bot_name(table) == BOT_NAMES[3]
    _play_hand(table, random.Random(1))
    table.leave(2)  # Ada goes: her name stays hers, in the statistics
    assert new_bot_name(table) == BOT_NAMES[3]
    table.join(2, BOT_NAMES[3], 0, "aggressive")
    table.leave(2)  # before a hand: he played nowhere, the name is free again
    assert new_bot_name(table) == BOT_NAMES[3]
    crowd = seveneight_setup("crowd", ["You", *BOT_NAMES], 20, bots=("",) + ("tight",) * 16)
    crowded = RecordedTable.create(tmp_path, crowd, ingest_into=False, clock=fixed_clock)
    assert new_bot_name(crowded) == "Bot1"


SETUPS = {
    Game.SEVENEIGHT: lambda: seveneight_setup("churn", ["You", "Ada", "Bix", "Cog"], 12,
                                              blinds=(1, 2),
                                              bots=("", "tight", "loose", "loose")),
    Game.BIGTWO: lambda: bigtwo_setup("churn", ["You", "Ada", "Bix", "Cog"],
                                      bots=("", "steady", "aggressive", "random")),
    Game.RUMMOLI: lambda: rummoli_setup("churn", ["You", "Ada", "Bix", "Cog"], 15,
                                        bots=("", "bold", "cautious", "bold")),
}


@pytest.mark.parametrize("game", list(SETUPS))
@pytest.mark.parametrize("seed", range(2))
def test_random_seat_changes_at_a_table_of_bots_keep_the_books(tmp_path: Path, game: Game,
                                                               seed: int) -> None:
    """Hands at a table of bots with bots seated, leaving and rebuying at random between
    them: the computer moves exactly the bots' seats, the chips at the table (and on the
    Rummoli board) are the buy-ins less what leavers took (Big Two: the scores sum to zero
    with the leavers'), the file replays, and the journal reopens to the same table (the
    styles included) after every change."""
    rng = random.Random(seed)
    setup: TableSetup = SETUPS[game]()
    table = RecordedTable.create(tmp_path, setup, ingest_into=False, clock=fixed_clock)
    bought, taken = sum(setup.stacks), 0
    changes, changed_before = 0, -1  # changed_before: the hand a change last came before
    for _ in range(4000):
        if len(table.filed) >= 6 or (game is Game.RUMMOLI and table.hand is None
                                     and table.carry.ended):
            break
        if table.can_reseat and (table.hand is None or changed_before != table.number
                                 or rng.random() < 0.3):
            seat = rng.randrange(1, 5)
            name, chips = table.seating[seat - 1]
            if not name:
                stack = 0 if game is Game.BIGTWO else rng.randrange(5, 20)
                style = rng.choice(BOT_STYLE_NAMES[game])
                table.join(seat, new_bot_name(table), stack, style)
                bought += stack
                assert table.bot_styles[seat - 1] == style
            elif not chips and game is not Game.BIGTWO and (
                    table.is_persons_seat(seat) or rng.random() < 0.6):
                stack = rng.randrange(5, 20)
                table.rebuy(seat, stack)
                bought += stack
            elif not table.is_persons_seat(seat):
                table.leave(seat)
                taken += chips
                assert table.bot_styles[seat - 1] == ""
            else:
                continue
            changes, changed_before = changes + 1, table.number
            again = RecordedTable.open(tmp_path, "churn", ingest_into=False, clock=fixed_clock)
            assert again.carry == table.carry and again.steps == table.steps
            board = sum(table.carry.board) if game is Game.RUMMOLI else 0
            assert sum(stack for _, stack in table.seating) + board == bought - taken
            continue
        if table.hand is None:
            continue
        _step(table, rng)
    assert changes and table.filed
    read = list(read_hands(table.history_path))
    assert read == [filed.hand for filed in table.filed]
    for hand, filed in zip(read, table.filed, strict=True):
        assert replay(hand).nets == filed.outcome.nets
    board = sum(table.carry.board) if game is Game.RUMMOLI else 0
    assert sum(stack for _, stack in table.seating) + board == bought - taken
