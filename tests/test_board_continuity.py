"""A Rummoli game's board carried from round to round (RULES.md 1.6), checked by ingest and
validate within a file (analytics/warehouse/pipeline/continuity.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from analytics.cli import app
from analytics.rules import replay
from analytics.simulate.rummoli import simulate_rummoli
from analytics.warehouse import ingest
from parsers import write_hands
from parsers.model import HandHistory

RUNNER = CliRunner()


def _game(rounds: int = 4) -> list[HandHistory]:
    """The first ``rounds`` rounds of one simulated Rummoli game, each on the board the
    round before left (the rounds after the first have chips on it)."""
    hands = list(simulate_rummoli(rounds, 3, 17, rounds_per_game=rounds))
    assert len({hand.game_id for hand in hands}) == 1
    assert all(hand.board_before for hand in hands[1:])
    return hands


def _padded(hand: HandHistory, pot: int, chips: int) -> HandHistory:
    """``hand`` beginning with ``chips`` more on the board's ``pot``-th pot (its recorded
    results dropped, so the round replays alone as it did with the real board)."""
    board = list(hand.board_before or (0,) * 9)
    board[pot] += chips
    return dataclasses.replace(hand, board_before=tuple(board), finishing_stacks=None,
                               winnings=None)


def test_a_round_beginning_with_chips_never_left_is_rejected(tmp_path: Path) -> None:
    """Round 2 begins with 50 chips more in the Rummoli pot than round 1 left: ingest
    rejects it naming the pot and both counts and loads the others (a rejected round is
    no neighbour: round 3 is not checked against it, so one typo rejects one round), and
    validate says the same."""
    rounds = _game()
    rounds[1] = _padded(rounds[1], 8, 50)
    path = tmp_path / "game.phhs"
    write_hands(rounds, path)
    db = tmp_path / "g.duckdb"
    summary = ingest([path], db, workers=0)
    assert (summary.loaded, summary.rejected) == (3, 1)
    with duckdb.connect(str(db), read_only=True) as con:
        [(index, stage, error)] = con.execute(
            "SELECT hand_index, stage, error FROM rejects").fetchall()
        rounds_loaded = con.execute("SELECT list(round ORDER BY round) FROM hands").fetchall()
    assert (index, stage) == (2, "rules")
    after = replay(rounds[0]).board_after
    assert after is not None
    left = after[8]  # round 1's Rummoli pot, as it left it
    assert error.endswith(
        f"hand 2: board_before does not continue round 1 of game {rounds[0].game_id!r}: "
        f"Rummoli: it left {left}, this round begins with {left + 50} (RULES.md 1.6: pots "
        "not won stay on the board and carry to the next round)")
    assert rounds_loaded == [([1, 3, 4],)]
    result = RUNNER.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert "hand 2: board_before does not continue round 1" in result.output.replace("\n", " ")


def test_a_round_read_after_its_next_one_is_checked_against_it(tmp_path: Path) -> None:
    """The rounds in reverse order: round 1, read last, does not leave the board the
    (tampered) round 2 began with; the one seen first stands, in validate and ingest."""
    rounds = _game(2)
    rounds[1] = _padded(rounds[1], 1, 7)
    path = tmp_path / "reversed.phhs"
    write_hands(rounds[::-1], path)
    result = RUNNER.invoke(app, ["validate", str(path)])
    said = " ".join(result.output.split())
    assert result.exit_code == 1
    assert (f"hand 2: round 2 of game {rounds[0].game_id!r}, seen before, does not begin "
            "with the board this round leaves: 10♠: this round leaves") in said
    db = tmp_path / "r.duckdb"
    ingest([path], db, workers=0)  # ingest keeps the same round, as validate said
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT round FROM hands").fetchall() == [(2,)]
        assert con.execute("SELECT hand_index FROM rejects").fetchall() == [(2,)]


def test_rounds_of_two_files_are_not_compared(tmp_path: Path) -> None:
    """Game ids are not unique across files (a simulation's seed makes them): the same
    game's round 2, tampered, alone in another file loads."""
    rounds = _game(2)
    write_hands(rounds[:1], tmp_path / "one.phhs")
    write_hands([_padded(rounds[1], 8, 50)], tmp_path / "two.phhs")
    summary = ingest([tmp_path / "one.phhs", tmp_path / "two.phhs"], tmp_path / "d.duckdb",
                     workers=0)
    assert (summary.loaded, summary.rejected) == (2, 0)


@pytest.mark.parametrize("finale", ["single", "per_pot", "none"])
def test_simulated_games_keep_their_boards(tmp_path: Path, finale: str) -> None:
    """Every simulated game's rounds continue one another, finales included."""
    path = tmp_path / "sim.phhs"
    write_hands(simulate_rummoli(120, 4, 5, finale=finale, rounds_per_game=6), path)
    summary = ingest([path], tmp_path / "s.duckdb", workers=0)
    assert summary.rejected == 0 and summary.loaded == 120


@pytest.mark.parametrize("order", [(0, 1, 2), (0, 2, 1)])
def test_a_round_given_twice_with_other_boards_is_rejected(tmp_path: Path,
                                                           order: tuple[int, ...]) -> None:
    """Round 3 twice, the second beginning on another board, beside round 4: whatever the
    order, the second round 3 is rejected and the first stands (it loaded or not with the
    file's order)."""
    rounds = _game(4)
    third, padded, fourth = rounds[2], _padded(rounds[2], 1, 5), rounds[3]
    given = [third, padded, fourth]
    path = tmp_path / "twice.phhs"
    write_hands([*rounds[:2], *(given[i] for i in order)], path)
    summary = ingest([path], tmp_path / "t.duckdb", workers=0)
    assert (summary.loaded, summary.rejected) == (4, 1)
    result = RUNNER.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    hand = 3 + order.index(1)  # the padded round 3, where the file holds it
    assert f"hand {hand}: round 3 of game {rounds[0].game_id!r} is given twice, with other " \
           "boards (the first one stands)" in said


def test_validate_checks_a_duplicate_round_s_board_as_ingest_does(tmp_path: Path) -> None:
    """A file holding round 2 (also in another file read first: a duplicate), then a round
    3 that does not continue it: ingest checks every round of the file, duplicates too,
    and rejects round 3; validate passed the file (a duplicate never joined its chain)."""
    rounds = _game(3)
    write_hands([rounds[1]], tmp_path / "a.phhs")
    write_hands([rounds[0], rounds[1], _padded(rounds[2], 8, 9)], tmp_path / "b.phhs")
    summary = ingest([tmp_path / "a.phhs", tmp_path / "b.phhs"], tmp_path / "v.duckdb",
                     workers=0)
    assert summary.rejected == 1
    result = RUNNER.invoke(app, ["validate", str(tmp_path / "a.phhs"),
                                 str(tmp_path / "b.phhs")])
    assert result.exit_code == 1
    assert "hand 3: board_before does not continue round 2" in " ".join(result.output.split())


def test_a_lake_rejects_the_round_the_database_rejects(tmp_path: Path) -> None:
    """A Parquet lake's ingest checks a range's rounds as the single writer checks a file's:
    the padded round is a reject of the lake too, its other rounds loaded."""
    from analytics.warehouse.lake.engine import ingest_lake

    rounds = _game()
    rounds[1] = _padded(rounds[1], 8, 50)
    path = tmp_path / "game.phhs"
    write_hands(rounds, path)
    summary = ingest_lake([path], tmp_path / "lake", engine="local", workers=0)
    assert (summary.loaded, summary.rejected) == (3, 1)
    rejects = [str(item.message) for item in summary.files]
    assert any("hand 2: board_before does not continue round 1" in text for text in rejects)
