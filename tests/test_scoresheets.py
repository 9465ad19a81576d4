"""Big Two score sheets (issue 29): reading, converting, loading and summarising them.

The acceptance test imports the example sheets of yawnoc/big-two-scorer
(tests/data/scoresheets/, MIT-0) and compares the score keeper's summary with the
summaries that repository published for them, every player and every column.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from pathlib import Path
from typing import Any, Final

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from analytics.rules import RuleError, replay
from analytics.rules.bigtwo.engine import real_loss, zero_sum_scores
from analytics.warehouse import ingest, reader
from analytics.warehouse.identity import hand_id
from analytics.warehouse.sql.scores import (
    SUMMARY_COLUMNS,
    bigtwo_score_summary,
    outcome_only_games,
)
from analytics.warehouse.sql.views import HandFilter
from parsers import loads_hands, read_hands, write_hands
from parsers.block_scan import scan_texts
from parsers.rule_options import BigTwoScoring
from parsers.scoresheet import looks_like_score_sheet, read_score_sheet, sheet_hands

SHEETS: Final = Path(__file__).parent / "data" / "scoresheets"
SAMPLES: Final = Path(__file__).parent.parent / "data" / "samples"
EXAMPLES: Final = ("simple.txt", "2023-03-03.txt")


def published(name: str) -> list[dict[str, str]]:
    """The summary yawnoc/big-two-scorer published for a sheet (its ``.tsv``)."""
    with open(SHEETS / f"{name}.tsv", encoding="utf-8", newline="") as stream:
        return list(csv.DictReader(stream, delimiter="\t"))


def summary_rows(db: Path, f: HandFilter | None = None) -> list[dict[str, Any]]:
    with reader(db) as con:
        frame = bigtwo_score_summary(con, f)
    assert tuple(frame.columns) == SUMMARY_COLUMNS
    return [dict(zip(SUMMARY_COLUMNS, row, strict=True))
            for row in frame.itertuples(index=False)]


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_give_the_published_summaries(tmp_path: Path, name: str) -> None:
    db = tmp_path / "w.duckdb"
    summary = ingest([SHEETS / name], db, workers=0)
    assert summary.rejected == 0 and summary.exit_code == 0
    ours = summary_rows(db)
    theirs = published(name)
    assert [row["name"] for row in ours] == [row["name"] for row in theirs]
    for mine, row in zip(ours, theirs, strict=True):
        for column in SUMMARY_COLUMNS[1:]:
            expected = row[column]
            got = mine[column]
            if column == "is_regular":
                assert bool(got) is (expected == "True"), (row["name"], column)
            elif column.endswith(("_fraction", "_per_game")):
                assert float(got) == float(expected), (row["name"], column, got, expected)
            else:
                assert int(got) == int(expected), (row["name"], column, got, expected)


def test_summary_by_hand_for_simple() -> None:
    """simple.txt worked by hand (RULES.md 2, zero_sum): a b c d play 0 11 12 13 (F = 10:
    b and c fried, d tripled) -> real losses 0 22 24 39, T = 85, scores 85 - 4 x loss;
    then 1 1 1 0 -> 1 1 1 0, T = 3; x takes on all losses in 3t 0 1 2 (T = 6) and in
    0t 1 1 1 (T = 3, although he won)."""
    games = sheet_hands(read_score_sheet((SHEETS / "simple.txt").read_text()).games)
    nets = [replay(game).nets for game in games]
    assert nets == [(85, -3, -11, -71), (-1, -1, -1, 3), (-18, 6, 6, 6), (-9, 3, 3, 3)]
    assert [game.takes_all_losses for game in games] == [None, None, 1, 1]


def test_sheet_lines_and_bad_lines() -> None:
    text = "\n".join([
        "1 2 3 4            # line 1: losses before any names",
        "2023-03-03  # a date",
        "F=11",
        "Ann Bo Cy Dee",
        "0 11 12 13",         # line 5: game 2 (F = 11: Bo fried 22, Cy 24, Dee 39)
        "0 1 2",              # line 6: game 3, three losses for four players
        "0t 1t 2 3",          # line 7: game 4, two takers
        "0 14 1 2",           # line 8: game 5, above 13
        "0 -1 1 2",           # line 9: game 6, below 0
        "Ann 2Bo Cy",         # line 10: a name with a leading digit
        "0 1 2",              # line 11: game 7, under a rejected names line
        "Ann Bo Cy  # three now",
        "5 0 5",              # line 13: game 8
        "5 0 5",              # line 14: game 9, the same game again: another game
        "F=0",                # line 15: a bad threshold
        "2023-02-30",         # line 16: not a date
        "Ann\x0cBo",           # line 17: a form feed separates words, it ends no line
        "0 1\r",               # line 18: game 10, a CRLF line end
        "",
    ])
    assert looks_like_score_sheet(text)
    sheet = read_score_sheet(text)
    assert [(p.line, p.position) for p in sheet.problems] == [
        (1, 1), (6, 3), (7, 4), (8, 5), (9, 6), (10, None), (11, 7), (15, None), (16, None)]
    messages = [p.describe("s.txt") for p in sheet.problems]
    assert messages[0] == "s.txt:1: game 1: a losses line before any line of player names"
    assert "3 losses for 4 players" in messages[1]
    assert "more than one player takes on all losses (Ann, Bo)" in messages[2]
    assert "14 is not 0 to 13" in messages[3] and "-1 is not 0 to 13" in messages[4]
    assert messages[5] == "s.txt:10: player name '2Bo' starts with a digit"
    assert "line 10" in messages[6]
    assert [(g.position, g.line, g.players, g.cards_left, g.fry_threshold)
            for g in sheet.games] == [
        (2, 5, ("Ann", "Bo", "Cy", "Dee"), (0, 11, 12, 13), 11),
        (8, 13, ("Ann", "Bo", "Cy"), (5, 0, 5), 11),
        (9, 14, ("Ann", "Bo", "Cy"), (5, 0, 5), 11),
        (10, 18, ("Ann", "Bo"), (0, 1), 11)]
    hands = sheet_hands(sheet.games)
    assert all(hand.date is not None and hand.date.isoformat() == "2023-03-03"
               for hand in hands)
    assert replay(hands[0]).nets == (85, -3, -11, -71)  # T = 85; 85 - 4 x (0, 22, 24, 39)
    assert hand_id(hands[1]) != hand_id(hands[2])  # identical lines, two games


def test_recogniser_tells_sheets_from_histories() -> None:
    for name in EXAMPLES:
        assert looks_like_score_sheet((SHEETS / name).read_text())
    for path in sorted(SAMPLES.glob("*.phhs")):
        with open(path, encoding="utf-8") as stream:
            assert not looks_like_score_sheet(stream.read(65536)), path
    assert not looks_like_score_sheet("Ann Bo Cy\n# no games\n")
    assert not looks_like_score_sheet('variant = "B2"\nAnn Bo\n0 5\n')
    assert not looks_like_score_sheet("\ufeffformat_version = 1\n0 5\n")
    # A row or a heading a sheet does not have is a bad line of it, not a history: one
    # "Total = 6" row made the whole sheet "malformed TOML" at its line 1.
    for stray in ("Total = 6", "Games = 2", "[table 2]", "[2]", "x = 1"):
        text = f"2023-03-03\nL T C En\n0 10 5 3\n2 7 5 0\n{stray}\n"
        assert looks_like_score_sheet(text), stray
        sheet = read_score_sheet(text)
        assert len(sheet.games) == 2 and [p.line for p in sheet.problems] == [5], stray
        # Between the names and the games, the names above it stay in force.
        text = f"L T C En\n{stray}\n0 10 5 3\n2 7 5 0\n"
        sheet = read_score_sheet(text)
        assert looks_like_score_sheet(text), stray
        assert [g.players for g in sheet.games] == [("L", "T", "C", "En")] * 2, stray
        assert [p.line for p in sheet.problems] == [2], stray
    assert looks_like_score_sheet("Ann Bo\nF = 3\n0 5\n")
    # A sheet written on Windows (CRLF), with a BOM, a lower-case f= or a total row.
    assert looks_like_score_sheet("2024-03-02\r\nAnn Bob Cy\r\n0 4 5\r\n6 0 10\r\n")
    assert looks_like_score_sheet("\ufeff2024-03-02\r\nAnn Bob Cy\r\n0 4 5\r\n")
    assert looks_like_score_sheet("f=8\nAnn Bob Cy\n0 4 5\n")
    total = "Ann Bob Cy\n0 4 5\n6 0 10\nTotal = 6 4 15\n1 0 3\n"
    assert looks_like_score_sheet(total)
    sheet = read_score_sheet(total)
    assert [g.cards_left for g in sheet.games] == [(0, 4, 5), (6, 0, 10), (1, 0, 3)]
    assert [p.describe("s.txt") for p in sheet.problems] == [
        "s.txt:4: 'Total = 6 4 15' is not a sheet line (a sheet holds dates, F=<n>, players' "
        "names and each game's cards left)"]
    assert read_score_sheet("f=8\nAnn Bob\n0 9\n").games[0].fry_threshold == 8


def test_outcome_only_games_round_trip_and_skip_the_fast_path(tmp_path: Path) -> None:
    games = sheet_hands(read_score_sheet((SHEETS / "2023-03-03.txt").read_text()).games)
    out = tmp_path / "sheet.phhs"
    assert write_hands(games, out) == len(games) == 10
    back = list(read_hands(out))
    assert back == games
    assert [hand_id(hand) for hand in back] == [hand_id(game) for game in games]
    text = out.read_text()
    assert [hand.hand for hand in back] == list(range(1, 11))
    # The 7 & 8 block scanner takes none of them.
    raws = ["\n".join(text.split("\n\n")[0].split("\n")[1:])]
    block, declined = scan_texts(raws, [2], [1], "x")
    assert len(block) == 0 and declined == [0]
    assert back[0].date is not None and back[0].players == ("L", "T", "C", "En")


@pytest.mark.parametrize(("header", "expected"), [
    ("cards_left = [0, 14]", "cards_left must be 0 to 13 per player, not 14"),
    ("cards_left = [0, -1]", "cards_left must hold integers"),
    ("cards_left = [0, 1, 2]", "cards_left has 3 entries, expected 2"),
    ("cards_left = [0, 3]\ntakes_all_losses = 3", "takes_all_losses must be a player number"),
    ("cards_left = [0, 3]\nas_recorded = 1", "as_recorded must be true or false"),
    ("as_recorded = true", "as_recorded belongs to an outcome-only game"),
    ("fry_threshold = 0", "knob fry_threshold must be 1 or more, not 0"),
])
def test_reader_checks_outcome_fields(header: str, expected: str) -> None:
    text = f'variant = "B2"\nplayers = ["a", "b"]\nactions = []\n{header}\n'
    (hand,) = loads_hands(text)
    assert any(expected in str(error) for error in hand.errors), hand.errors


def test_outcome_only_game_has_no_actions() -> None:
    (hand,) = loads_hands('variant = "B2"\nplayers = ["a", "b"]\ncards_left = [0, 3]\n'
                          'actions = ["d dh p1 3d"]\n')
    assert any("records no actions" in str(error) for error in hand.errors)


@pytest.mark.parametrize(("header", "rule"), [
    ("cards_left = [1, 3]", "one-winner"),
    ("cards_left = [0, 0]", "one-winner"),
    ('cards_left = [0, 3]\nscoring = "rank"', "outcome-only"),
    ('cards_left = [0, 3]\nscoring = "cards_with_twos"', "outcome-only"),
    ('cards_left = [0, 3]\ndeal = "all"', "outcome-only"),
    ("cards_left = [0, 3]\ntakes_all_losses = 1", "takes-all-losses"),
    ("cards_left = [0, 3]\nfinishing_stacks = [3, -4]", "finishing-stacks"),
])
def test_engine_refuses_impossible_outcomes(header: str, rule: str) -> None:
    (hand,) = loads_hands(f'variant = "B2"\nplayers = ["a", "b"]\nactions = []\n{header}\n')
    assert hand.ok, hand.errors
    with pytest.raises(RuleError) as caught:
        replay(hand)
    assert caught.value.rule == rule


def test_outcome_only_scores_by_hand() -> None:
    def nets(header: str) -> tuple[int, ...]:
        (hand,) = loads_hands(f'variant = "B2"\nplayers = ["a", "b", "c"]\nactions = []\n'
                              f'{header}\n')
        return replay(hand).nets

    # cards: 9 -> 9, 10 -> doubled, 13 -> tripled (none played).
    assert nets("cards_left = [0, 9, 10]") == (29, -9, -20)
    assert nets("cards_left = [0, 13, 5]") == (44, -39, -5)
    # fry_threshold moves the doubling point of cards scoring; 13 stays tripled.
    assert nets("cards_left = [0, 9, 13]\nfry_threshold = 9") == (57, -18, -39)
    assert nets("cards_left = [0, 12, 13]\nfry_threshold = 20") == (51, -12, -39)
    # zero_sum: real losses 0, 9, 20 (T = 29): 29 - 3 x loss.
    assert nets('cards_left = [0, 9, 10]\nscoring = "zero_sum"') == (29, 2, -31)
    # A threshold above 13 switches frying off, the triple too: 0, 12, 13 (T = 25).
    assert nets('cards_left = [0, 12, 13]\nscoring = "zero_sum"\nfry_threshold = 14') == (
        25, -11, -14)
    # The taker carries T = 29, the others 0.
    assert nets('cards_left = [0, 9, 10]\nscoring = "zero_sum"\ntakes_all_losses = 2') == (
        29, -58, 29)
    # A line kept as recorded without a winner still settles: 4 6 11 11 at F = 11.
    (hand,) = loads_hands('variant = "B2"\nplayers = ["a", "b", "c", "d"]\nactions = []\n'
                          'cards_left = [4, 6, 11, 11]\nscoring = "zero_sum"\n'
                          'fry_threshold = 11\nas_recorded = true\n')
    outcome = replay(hand)
    assert outcome.winner is None and outcome.nets == (38, 30, -34, -34)  # 4 6 22 22, T = 54


def test_reingest_and_a_grown_sheet_load_only_new_games(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    lines = (SHEETS / "2023-03-03.txt").read_text().splitlines()
    sheet = tmp_path / "sheet.txt"
    sheet.write_text("\n".join(lines[:8]) + "\n")  # the date, the names and five games
    first = ingest([sheet], db, workers=0)
    assert (first.loaded, first.exit_code) == (5, 0)
    again = ingest([sheet], db, workers=0)
    assert again.loaded == 0 and again.files[0].status == "already loaded"
    sheet.write_text("\n".join(lines) + "\n")  # the whole evening: ten games
    grown = ingest([sheet], db, workers=0)
    assert (grown.loaded, grown.duplicates) == (5, 5)
    assert summary_rows(db)[-1]["game_count"] == 40
    # Converted to the handlab format, the same games: nothing new either.
    runner = CliRunner()
    from analytics.cli import app

    out = tmp_path / "sheet.phhs"
    result = runner.invoke(app, ["convert", str(sheet), "--out", str(out)])
    assert result.exit_code == 0, result.output
    converted = ingest([out], db, workers=0)
    assert (converted.loaded, converted.duplicates) == (0, 10)


def test_bad_lines_are_rejected_and_the_rest_loads(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    sheet = tmp_path / "bad.txt"
    sheet.write_text("0 1 2 3\na b c d\n0 1 2 3\n0 1 2\n0t 1t 2 3\n1a b c d\n0 1 1 1\n")
    summary = ingest([sheet], db, workers=0)
    # Five losses lines (games: one loaded, four rejected) and one bad names line, which is
    # no game: a reject, but not a hand (it was counted as one).
    assert (summary.loaded, summary.rejected, summary.exit_code) == (1, 4, 1)
    assert (summary.hands, summary.bad_lines) == (5, 1)
    assert summary.files[0].refused_words == "4 hands rejected and 1 bad line"
    with reader(db) as con:
        rows = con.execute("SELECT hand_index, line, stage, error FROM rejects "
                           "ORDER BY line").fetchall()
    assert [(index, line) for index, line, _, _ in rows] == [
        (1, 1), (3, 4), (4, 5), (-6, 6), (5, 7)]
    assert all(error.startswith(f"{sheet}:{line}:") for _, line, _, error in rows)
    runner = CliRunner()
    from analytics.cli import app

    result = runner.invoke(app, ["ingest", str(sheet), "--db", str(tmp_path / "x.duckdb"),
                                 "-q"])
    assert result.exit_code == 1, result.output
    result = runner.invoke(app, ["convert", str(sheet), "--out", str(tmp_path / "b.phhs")])
    assert result.exit_code == 1 and f"{sheet}:5:" in "".join(result.output.split())
    assert len(list(read_hands(tmp_path / "b.phhs"))) == 1
    result = runner.invoke(app, ["convert", str(SAMPLES / "bigtwo-club.phhs"),
                                 "--out", str(tmp_path / "c.phhs")])
    assert result.exit_code == 2


def test_summary_mixes_played_games_and_filters(tmp_path: Path) -> None:
    """Played games count in the summary as their cards left say (cards scoring here), and
    the outcome-only ones are counted apart for the statistics that need the plays."""
    db = tmp_path / "w.duckdb"
    ingest([SHEETS / "simple.txt", SAMPLES / "bigtwo-club.phhs"], db, workers=0)
    with reader(db) as con:
        assert outcome_only_games(con) == 4
        played = con.execute("SELECT count(*) FROM hands WHERE game = 'bigtwo'").fetchall()[0][0]
        rows = bigtwo_score_summary(con)
        independent = _independent_summary(con)
        just_a = bigtwo_score_summary(con, HandFilter(players=("a",)))
    total = rows.iloc[-1]
    assert total["name"] == "*" and int(total["net_score"]) == 0
    assert int(total["game_count"]) == int(
        sum(row["game_count"] for _, row in rows.iloc[:-1].iterrows()))
    assert played > 4
    by_name = {row["name"]: (int(row["game_count"]), int(row["real_losses"]),
                             int(row["net_score"])) for _, row in rows.iterrows()}
    assert by_name == independent
    assert list(just_a["name"]) == ["a", "*"] and int(just_a.iloc[0]["net_score"]) == 84


def _independent_summary(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, int, int]]:
    """Games, real losses and zero-sum net per player computed here from seat_facts' cards
    left (played games) and the sheet's outcomes, by RULES.md's formula, not the table's."""
    totals: dict[str, list[int]] = {}
    games = con.execute("""
        SELECT h.hand_id, h.rules->>'fry_threshold', list(s.player ORDER BY s.seat),
               list(coalesce(x.cards_left, b.cards_left) ORDER BY s.seat),
               list(b.takes_all_losses ORDER BY s.seat)
        FROM hands h JOIN seats s USING (hand_id)
        JOIN seat_facts x ON x.hand_id = s.hand_id AND x.seat = s.seat
        JOIN bigtwo_scores b ON b.hand_id = s.hand_id AND b.seat = s.seat
        WHERE h.game = 'bigtwo' GROUP BY ALL
    """).fetchall()
    for _, threshold, players, left, takers in games:
        fry = int(threshold or 10)
        losses = [n if n < fry else 2 * n if n < 13 else 3 * n for n in left]
        table = sum(losses)
        if any(takers):
            losses = [table if taker else 0 for taker in takers]
        for player, loss in zip(players, losses, strict=True):
            entry = totals.setdefault(player, [0, 0, 0])
            entry[0] += 1
            entry[1] += loss
            entry[2] += table - len(players) * loss
    everyone = [sum(values[i] for values in totals.values()) for i in range(3)]
    return {**{name: (v[0], v[1], v[2]) for name, v in totals.items()},
            "*": (everyone[0], everyone[1], everyone[2])}


def test_scoring_knob_in_replayed_games_agrees_between_paths() -> None:
    """Simulated games under zero_sum with another threshold replay, with and without a
    player who takes on all losses, and the scores sum to 0.  Only the winner and the
    player before him in turn may take them on (RULES.md 2); anyone else is refused."""
    from analytics.rules.bigtwo import engine as bigtwo
    from analytics.simulate.bigtwo import simulate_bigtwo
    from parsers.rule_options import BigTwoRules

    rules = BigTwoRules(scoring=BigTwoScoring.ZERO_SUM, fry_threshold=7)
    seen = 0
    for game in simulate_bigtwo(30, 4, 5, rules=rules):
        full = bigtwo.replay(game)
        assert sum(full.nets) == 0
        winner = full.winner
        assert winner is not None
        before = (winner - 2) % 4 + 1
        for seat in range(1, 5):
            with_taker = dataclasses.replace(game, takes_all_losses=seat,
                                             finishing_stacks=None)
            if seat not in (winner, before):
                with pytest.raises(RuleError, match=rf"p{seat} cannot take on all losses: "
                                   rf"only p{winner} \(who went out.* or p{before} \("):
                    bigtwo.replay(with_taker)
                continue
            taker = bigtwo.replay(with_taker)
            assert sum(taker.nets) == 0
            left = full.extra["cards_left"]
            assert isinstance(left, tuple)
            assert [net < 0 for net in taker.nets] == [other == seat and any(left)
                                                      for other in range(1, 5)]
        seen += 1
    assert seen == 30


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 13), min_size=2, max_size=4), st.integers(1, 20), st.data())
def test_zero_sum_scores_sum_to_zero(left: list[int], threshold: int,
                                     data: st.DataObject) -> None:
    """Everyone pays his real loss to every other player: the scores sum to 0, each is what
    the others pay him less what he pays them, and a taker moves the losses, not the total."""
    taker = data.draw(st.none() | st.integers(1, len(left)))
    losses, scores = zero_sum_scores(left, threshold, taker)
    assert sum(scores) == 0
    assert sum(losses) == sum(real_loss(count, threshold) for count in left)
    for me, score in enumerate(scores):
        others = sum(loss for other, loss in enumerate(losses) if other != me)
        assert score == others - (len(left) - 1) * losses[me]
    names = ", ".join(f'"p{number}"' for number in range(1, len(left) + 1))
    (hand,) = loads_hands(
        f'variant = "B2"\nplayers = [{names}]\nactions = []\nscoring = "zero_sum"\n'
        f"fry_threshold = {threshold}\ncards_left = {left!r}\nas_recorded = true\n"
        + (f"takes_all_losses = {taker}\n" if taker else ""))
    assert replay(hand).nets == scores


@pytest.mark.slow
def test_migration_9_fills_the_scores_of_games_held(tmp_path: Path) -> None:
    """A database at version 8 holding played Big Two games gets their bigtwo_scores rows
    from migration 9: the rows the ingest itself writes.  (The house rules' sample holds games
    scored by cards and by rank; the club's 400 more games of one rule set added 3 s.)"""
    from analytics.warehouse.connection import writer
    from analytics.warehouse.sql.schema import migrate

    db = tmp_path / "w.duckdb"
    ingest([SAMPLES / "bigtwo-house-rules.phhs"], db, workers=0)
    query = "SELECT * FROM bigtwo_scores ORDER BY hand_id, seat"
    rules = ("SELECT (SELECT list(rules ORDER BY hand_id) FROM hands), "
             "(SELECT list(rules ORDER BY hand_id, seat) FROM seat_facts), "
             "(SELECT list(rules ORDER BY hand_id) FROM hand_facts)")
    with writer(db) as con:
        loaded = con.execute(query).fetchall()
        knobs = con.execute(rules).fetchall()
        assert '"fry_threshold": 10, "lead_card"' in str(knobs)
        con.execute("DROP TABLE bigtwo_scores")
        for table in ("hands", "seat_facts", "hand_facts"):  # as version 8 wrote them
            con.execute(f"UPDATE {table} SET rules = replace(rules, '\"fry_threshold\": 10, ', '')")
        assert "fry_threshold" not in str(con.execute(rules).fetchall())
        con.execute("DELETE FROM schema_version WHERE version >= 9")  # as version 8 was
        assert migrate(con, target=9) == [9]
        assert con.execute(query).fetchall() == loaded
        assert con.execute(rules).fetchall() == knobs
        ranked = con.execute("SELECT count(*) FROM hands WHERE game = 'bigtwo' AND "
                             "rules->>'scoring' = 'rank'").fetchall()[0][0]
        scored = con.execute("SELECT count(DISTINCT hand_id) FROM bigtwo_scores").fetchall()[0][0]
        games = con.execute("SELECT count(*) FROM hands WHERE game = 'bigtwo'").fetchall()[0][0]
    assert len(loaded) > 0 and ranked > 0 and scored == games - ranked


def test_replayer_rebuilds_a_sheet_game(tmp_path: Path) -> None:
    """The hand replayer rebuilds an outcome-only game from the warehouse (its cards left
    from bigtwo_scores) and settles it as the ingest did."""
    from analytics.dashboard.replayer import hand_from_detail, replay_steps
    from analytics.warehouse.sql import views

    db = tmp_path / "w.duckdb"
    ingest([SHEETS / "simple.txt"], db, workers=0)
    games = sheet_hands(read_score_sheet((SHEETS / "simple.txt").read_text()).games)
    with reader(db) as con:
        for game in games:
            rebuilt = hand_from_detail(views.hand_detail(con, hand_id(game)))
            assert (rebuilt.cards_left, rebuilt.takes_all_losses) == (
                game.cards_left, game.takes_all_losses)
            steps = replay_steps(rebuilt)
            assert steps[-1].nets == replay(game).nets
            assert "cards left" in steps[-1].words
            assert steps[0].words == "A score sheet's line: no deal or plays were recorded."


def test_fry_threshold_moves_the_doubling_of_played_games() -> None:
    """Played games under ``cards`` scoring with fry_threshold 7: each loser pays L, 2L
    from 7 on, 3L with 13 (none played), as counted here from the cards left."""
    from analytics.rules.bigtwo import engine as bigtwo
    from analytics.simulate.bigtwo import simulate_bigtwo
    from parsers.rule_options import BigTwoRules

    doubled = 0
    for game in simulate_bigtwo(40, 3, 11, rules=BigTwoRules(fry_threshold=7)):
        full = bigtwo.replay(game)
        left = full.extra["cards_left"]
        assert isinstance(left, tuple)
        paid = [0 if n == 0 else 3 * n if n == 13 else 2 * n if n >= 7 else n for n in left]
        assert full.nets == tuple(sum(paid) if seat == full.winner else -paid[seat - 1]
                                  for seat in range(1, 4))
        doubled += sum(7 <= n < 13 for n in left)
    assert doubled > 0


def test_worker_pool_loads_a_sheet_as_inline(tmp_path: Path) -> None:
    inline, pooled = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    sources = [SHEETS / "2023-03-03.txt", SHEETS / "simple.txt"]
    assert ingest(sources, inline, workers=0).loaded == 14
    assert ingest(sources, pooled, workers=2).loaded == 14
    rows = []
    for db in (inline, pooled):
        with reader(db) as con:
            rows.append(con.execute("SELECT * EXCLUDE (loaded_at) FROM hands "
                                    "ORDER BY hand_id").fetchall())
            rows.append(con.execute("SELECT * FROM bigtwo_scores ORDER BY hand_id, seat")
                        .fetchall())
    assert rows[0] == rows[2] and rows[1] == rows[3]


def test_a_bad_line_that_is_no_game_is_no_hand(tmp_path: Path) -> None:
    """A sheet of one game and a ``Total`` row: one hand read and loaded, nothing rejected,
    one bad line (in the rejects, the file partial, exit code 1), in the database, in a
    lake and in the Upload page's summary alike; "2 hands read" counted the row."""
    from analytics.cli import app
    from analytics.dashboard import logic
    from analytics.warehouse.lake.engine import ingest_lake
    from analytics.warehouse.sql import queries, views

    sheet = tmp_path / "total.txt"
    sheet.write_text("a b\n0 5\nTotal = 0 5\n")
    single = ingest([sheet], tmp_path / "w.duckdb", workers=0)
    lake = ingest_lake([sheet], tmp_path / "lake", engine="local", workers=0)
    for summary in (single, lake):
        counts = (summary.hands, summary.loaded, summary.rejected, summary.bad_lines)
        assert counts == (1, 1, 0, 1)
        assert (summary.files[0].status, summary.exit_code) == ("partial", 1)
    table = logic.upload_table(single.files, {})
    assert table["bad lines"].tolist() == [1]
    assert table["status"].tolist() == ["bad lines in the sheet"]  # as the Overview says
    with reader(tmp_path / "w.duckdb") as con:  # the Overview's files and data quality
        files = logic.files_table(queries.files(con))
        by_file = views.rejects_by_file(con)
    assert files["status"].tolist() == ["bad lines in the sheet"]
    assert (int(by_file["rejected"].sum()), int(by_file["bad_lines"].sum())) == (0, 1)
    said = CliRunner().invoke(app, ["validate", str(sheet)])  # as ingest counts it
    assert said.exit_code == 1
    assert "1 bad line of score sheets" in " ".join(said.output.split())
    # Big Two: valid 1, duplicates 0, rejected 0 (it said rejected 1).
    assert re.search(r"Big Two\s*│\s*1\s*│\s*0\s*│\s*0\s*│", said.output), said.output
    verdict = logic.upload_verdict(table)
    assert verdict.level == "warning" and "1 bad line in score sheets" in verdict.text
    assert "bad lines" not in logic.upload_table(
        ingest([SHEETS / "simple.txt"], tmp_path / "x.duckdb", workers=0).files, {})


def test_bytes_that_are_not_utf8_spoil_only_their_line(tmp_path: Path) -> None:
    sheet = tmp_path / "bytes.txt"
    sheet.write_bytes(b"a b\n0 5\n0 \xff\n1 0  # caf\xe9\nJ\xf6 b\n5 0\n")
    summary = ingest([sheet], tmp_path / "w.duckdb", workers=0)
    assert (summary.loaded, summary.rejected, summary.exit_code) == (2, 2, 1)
    assert (summary.hands, summary.bad_lines, summary.files[0].status) == (4, 1, "partial")
    with reader(tmp_path / "w.duckdb") as con:
        rows = con.execute("SELECT hand_index, line, error FROM rejects ORDER BY line"
                           ).fetchall()
        games = con.execute("SELECT source_index FROM hands ORDER BY 1").fetchall()
    assert [(index, line) for index, line, _ in rows] == [(2, 3), (-5, 5), (4, 6)]
    assert "not valid UTF-8" in rows[0][2] and "not valid UTF-8" in rows[1][2]
    assert "line 5" in rows[2][2]
    assert games == [(1,), (3,)]  # the comment's byte spoils nothing


@pytest.mark.slow
def test_upload_page_loads_a_sheet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A score sheet uploaded on the dashboard's Upload page loads like one named to
    ``handlab ingest`` (recognised by its content, stored under its uploaded name)."""
    from streamlit.testing.v1 import AppTest

    from analytics.warehouse import ENV_VAR

    db = tmp_path / "up.duckdb"
    ingest([SAMPLES / "bigtwo-club.phhs"], db, workers=0)
    monkeypatch.setenv(ENV_VAR, str(db))
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"),
                           default_timeout=180)
    at.run()
    at.switch_page("analytics/dashboard/pages/upload.py").run()
    at.file_uploader(key="upload_files").set_value(
        ("2023-03-03.txt", (SHEETS / "2023-03-03.txt").read_bytes(), "text/plain"))
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert list(table["file"]) == ["upload: 2023-03-03.txt"]
    assert list(table["loaded"]) == [10]


@pytest.mark.parametrize("name", EXAMPLES)
def test_stats_command_has_the_score_keepers_columns(tmp_path: Path, name: str) -> None:
    """``handlab stats bigtwo --out`` carries issue #29's columns, each player's row the
    published summary's (the ``*`` table row is the summary's own, not a player's)."""
    from analytics.cli import app

    db = tmp_path / "w.duckdb"
    ingest([SHEETS / name], db, workers=0)
    out = tmp_path / "stats.csv"
    result = CliRunner().invoke(app, ["stats", "bigtwo", "--db", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    with open(out, encoding="utf-8-sig", newline="") as stream:  # a spreadsheet's CSV
        rows = {row["player"]: row for row in csv.DictReader(stream)}
    theirs = {row["name"]: row for row in published(name) if row["name"] != "*"}
    assert set(rows) == set(theirs)
    for player, row in theirs.items():
        for column in SUMMARY_COLUMNS[1:]:
            got, expected = rows[player][column], row[column]
            if column == "is_regular":
                assert got == expected, (player, column)
            else:
                assert float(got) == float(expected), (player, column, got, expected)


def test_a_lake_reads_a_sheet_as_a_sheet_and_names_a_foreign_file(tmp_path: Path) -> None:
    """``ingest --lake`` read a score sheet as TOML (every line a reject) and a poker
    site's export as broken hands: it now decides what a source holds as the database's
    ingest does, and loads the same games."""
    from analytics.warehouse.lake.catalogue import open_lake
    from analytics.warehouse.lake.engine import ingest_lake

    export = tmp_path / "stars.txt"
    export.write_text("PokerStars Hand #254446474436: Hold'em No Limit ($0.01/$0.02 USD) - "
                      "2024/12/01 12:00:00 ET\nTable 'Aase II' 6-max Seat #3 is the button\n")
    sources = [SHEETS / "simple.txt", export]
    single = ingest(sources, tmp_path / "w.duckdb", workers=0)
    summary = ingest_lake(sources, tmp_path / "lake", engine="local", workers=0)
    files = {f.name: (f.status, f.loaded, f.rejected, f.message) for f in summary.files}
    assert files == {f.name: (f.status, f.loaded, f.rejected, f.message) for f in single.files}
    assert files[str(SHEETS / "simple.txt")][:3] == ("loaded", single.loaded, 0)
    assert "looks like a PokerStars hand history" in str(files[str(export)][3])
    con = open_lake(tmp_path / "lake")
    try:
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(single.loaded,)]
    finally:
        con.close()


def test_the_report_shows_no_empty_2s_table_for_sheets(tmp_path: Path) -> None:
    """A score sheet records no deal: the report's Big Two section has no "By 2s held"
    table for its rule (it had an empty one, with no word why), the rest as ever."""
    from analytics.reports import build_report
    from analytics.warehouse.sql.views import HandFilter

    db = tmp_path / "w.duckdb"
    ingest([SHEETS / "simple.txt"], db, workers=0)
    with reader(db) as con:
        tables = build_report(con, HandFilter()).tables()
    assert not [name for name in tables if name.startswith("By 2s held")]
    assert "Cards left at the end (scoring: zero-sum)" in tables


def test_a_line_with_two_players_at_zero_is_won_by_nobody(tmp_path: Path) -> None:
    """The line "0 0 1 2" (kept as recorded) counted a win for a and for b in the score
    keeper's totals while the results counted none: a win is going out alone, in both; a
    database that counted it (before migration 20) is mended when it is opened."""
    from analytics.warehouse.sql.stat_views import player_rows
    from tests.migrated import assert_migrated_again

    sheet = tmp_path / "night.txt"
    sheet.write_text("a b c d\n0 1 2 3\n0 0 1 2\n2 0 4 4\n", encoding="utf-8")
    db = tmp_path / "night.duckdb"
    assert ingest([sheet], db, workers=0).loaded == 3
    with reader(db) as con:
        totals = bigtwo_score_summary(con).set_index("name")["win_count"].to_dict()
        wins = player_rows(con, HandFilter(), game="bigtwo").set_index("player")["wins"]
    assert totals == {"a": 1, "b": 1, "c": 0, "d": 0, "*": 2}
    assert wins.to_dict() == {"a": 1, "b": 1, "c": 0, "d": 0}
    assert_migrated_again(db, 20, ["bigtwo_scores"], [
        "UPDATE bigtwo_scores SET won = cards_left = 0"])


def test_a_game_or_round_nobody_won_is_no_win_of_anyone(tmp_path: Path) -> None:
    """A score keeper's line with no player at 0 cards, and a Rummoli round ended by an
    impasse, are won by nobody (format.md, RULES.md), but the seats took a win for each
    player ahead: the report's wins counted 2 in 2 games nobody won.  A database that
    counted them (before migration 21) is mended when it is opened."""
    from analytics import reports
    from tests.migrated import assert_migrated_again

    sheet = tmp_path / "nowin.txt"
    sheet.write_text("2024-09-01\nAnn Bo Cy\n1 2 5\n0 0 4\n", encoding="utf-8")
    rummoli = Path(__file__).resolve().parents[1] / "data" / "samples" / "rummoli-family.phhs"
    db = tmp_path / "nowin.duckdb"
    assert ingest([sheet, rummoli], db, workers=0).loaded == 242
    with reader(db) as con:
        impasses = con.execute("SELECT count(*) FROM hands WHERE game = 'rummoli' AND "
                               "winner IS NULL").fetchall()[0][0]
        wins = con.execute("SELECT count(*) FILTER (WHERE s.winner), count(*) FILTER (WHERE "
                           "x.winner) FROM seats s JOIN seat_facts x USING (hand_id, seat) "
                           "JOIN hands h USING (hand_id) WHERE h.winner IS NULL").fetchall()
        players = reports.report_tables(con, HandFilter())["players"]
    assert impasses > 0  # the sample's impasses, beside the sheet's two games
    assert wins == [(0, 0)]
    sheet_wins = players[(players["game"] == "bigtwo")].set_index("player")["wins"]
    assert sheet_wins.to_dict() == {"Ann": 0, "Bo": 0, "Cy": 0}
    assert_migrated_again(db, 21, ["seats", "seat_facts"], [
        f"UPDATE {table} SET winner = net > 0 WHERE hand_id IN "
        "(SELECT hand_id FROM hands WHERE winner IS NULL)" for table in ("seats", "seat_facts")])


def test_a_typo_in_a_losses_line_keeps_the_names_and_the_game_numbers(tmp_path: Path) -> None:
    """``3 O 5`` (a letter O for a 0) was read as a names line: "player name '3' starts
    with a digit", every game under it refused, and the typo mended, the games after it
    took other numbers and loaded again (6 games held for 4). It is a bad losses line now:
    it takes its number, the names stay, and the mended sheet adds only the mended game;
    the score keeper's nets are the sheet's own (Ann 0, Bo +6, Cy -6)."""
    from analytics.warehouse.sql.stat_views import player_rows

    text = "2024-08-01\nAnn Bo Cy\n0 4 2\n{}\nAnn Bo Cy\n0 2 2\n5 0 1\n"
    before, after = tmp_path / "before.txt", tmp_path / "after.txt"
    before.write_text(text.format("3 O 5"), encoding="utf-8")
    after.write_text(text.format("3 0 5"), encoding="utf-8")
    sheet = read_score_sheet(before.read_text(encoding="utf-8"))
    assert [game.position for game in sheet.games] == [1, 3, 4]
    (problem,) = sheet.problems
    assert (problem.line, problem.position) == (4, 2)
    assert problem.message.startswith("'O' is not a number of cards left")
    db = tmp_path / "sheet.duckdb"
    assert (ingest([before], db, workers=0).loaded, ingest([after], db, workers=0).loaded) == (3, 1)
    with reader(db) as con:
        nets = player_rows(con, HandFilter(), game="bigtwo").set_index("player")["net"]
    assert nets.to_dict() == {"Ann": 0, "Bo": 6, "Cy": -6}


def test_a_names_line_of_thousands_is_named_in_a_short_message() -> None:
    """A names line of 100,000 names gave a 400,000-character reason, printed and stored."""
    names = " ".join(f"p{n}" for n in range(100_000))
    (problem,) = read_score_sheet(f"{names}\n").problems
    assert "p19 ... (100000 names)" in problem.message and len(problem.message) < 300


def test_convert_decides_what_a_sheet_is_as_the_ingest_does(tmp_path: Path) -> None:
    """A sheet whose first game line is longer than the ingest's probe (64 KiB): the ingest
    and validate read it as histories, convert read the whole text as a sheet and wrote a
    game.  Convert decides by the same first 64 KiB now."""
    from analytics.cli import app
    from parsers.scoresheet import SHEET_PROBE_BYTES

    sheet = tmp_path / "huge.txt"
    long_line = " ".join(["1"] * SHEET_PROBE_BYTES)
    sheet.write_text(f"2024-01-01\nAnn Bo\n{long_line}\n0 3\n", encoding="utf-8")
    assert ingest([sheet], tmp_path / "w.duckdb", workers=0).loaded == 0
    result = CliRunner().invoke(app, ["convert", str(sheet), "--out", str(tmp_path / "h.phhs")])
    assert result.exit_code == 2 and "not a Big Two score sheet" in " ".join(result.output.split())
    assert not (tmp_path / "h.phhs").exists()


def test_convert_writes_nothing_when_no_game_is_valid(tmp_path: Path) -> None:
    """A sheet whose every game is bad was converted into an empty history file."""
    from analytics.cli import app

    sheet = tmp_path / "bad.txt"
    sheet.write_text("Ann Bo Cy\n0 1\n", encoding="utf-8")  # two losses for three
    result = CliRunner().invoke(app, ["convert", str(sheet), "--out", str(tmp_path / "h.phhs")])
    assert result.exit_code == 1 and "no game to write" in " ".join(result.output.split())
    assert not (tmp_path / "h.phhs").exists()
