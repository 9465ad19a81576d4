"""Mutation fuzzing: broken histories of every game either load or are rejected at a line.

Valid hands from ``data/samples/`` are mutated (bits flipped, bytes, tokens and
lines dropped, duplicated, swapped or replaced, text truncated) and read back
through the reader and the rules engines.  The promise: every hand replays, or
is rejected with a ParseError (``hand.errors``) or a RuleError that names its
line; no other exception, and no case runs past a generous hang bound.  The
long run (100,000+ cases) is ``benchmarks/fuzz.py``; docs/reliability.md has
its figures.  The last tests here are the reproducers of the bugs it found.
"""

from __future__ import annotations

import functools
import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics import ingest
from analytics.rules import RuleError, replay
from parsers import loads_hands, read_hands
from parsers.rule_options import Game
from tests.mutate import KINDS, Mutation, hang_guard, load_seeds, mutate, run_case
from tests.test_warehouse_data import BIGTWO, SEVENEIGHT, phhs
from tests.test_warehouse_kill import check_consistent


@functools.cache
def seeds() -> list[tuple[str, bytes]]:
    return load_seeds()


mutations = st.lists(
    st.builds(Mutation, kind=st.sampled_from(KINDS), a=st.integers(0, 2**20),
              b=st.integers(0, 2**20), c=st.integers(0, 2**16)),
    min_size=1, max_size=4,
)
FUZZ = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_seeds_cover_every_game_and_are_valid() -> None:
    games: set[Game | None] = set()
    for name, data in seeds():
        counts = run_case(data)
        assert counts["parse"] == counts["rules"] == 0, name
        games.update(hand.game for hand in read_hands(io.BytesIO(data)))
    assert games == set(Game)


@pytest.fixture(scope="module")
def warm() -> None:
    """Read and replay every seed once: imports and the evaluator's JIT are not hangs."""
    for _, data in seeds():
        run_case(data)


@pytest.mark.slow
@FUZZ
@given(seed=st.integers(0, 10**6), edits=mutations, text=st.booleans())
def test_mutated_histories_load_or_are_rejected_at_a_line(warm: None, seed: int,
                                                         edits: list[Mutation],
                                                         text: bool) -> None:
    _, data = seeds()[seed % len(seeds())]
    with hang_guard():
        run_case(mutate(data, edits), text=text)  # raises FuzzFailure or Hang on a break


@pytest.mark.slow
@settings(max_examples=5, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(start=st.integers(0, 10**6), edits=st.lists(mutations, min_size=25, max_size=25))
def test_ingest_of_mutated_files_loads_whole_hands_or_rejects_them(
        tmp_path_factory: pytest.TempPathFactory, start: int,
        edits: list[list[Mutation]]) -> None:
    """Many mutated hands in one file: ingest loads exactly the hands that replay and
    rejects the rest; every hand in the database is complete (seats, actions)."""
    folder = tmp_path_factory.mktemp("fuzz")
    pieces = [mutate(seeds()[(start + n) % len(seeds())][1], case) + b"\n"
              for n, case in enumerate(edits)]
    data = b"".join(pieces)
    expected = {"ok": 0, "parse": 0, "rules": 0}
    for key, value in run_case(data, rows=False).items():
        expected[key] += value
    path = folder / "mutated.phhs"
    path.write_bytes(data)
    db = folder / "fuzz.duckdb"
    summary = ingest([path], db, workers=0)
    assert summary.hands == sum(expected.values())
    assert summary.rejected == expected["parse"] + expected["rules"]
    assert summary.loaded + summary.duplicates == expected["ok"]
    assert check_consistent(db) == summary.loaded


# Reproducers of what the fuzzer found (each crashed or named no line before its fix).

def test_integer_array_with_trailing_comma_is_read() -> None:
    """tomlsubset's fast path crashed with ValueError on ``[1, 2, ]`` (valid TOML)."""
    text = SEVENEIGHT.replace("starting_stacks = [100, 100, 100]",
                              "starting_stacks = [100, 100, 100, ]")
    (hand,) = loads_hands(text)
    assert hand.ok and hand.starting_stacks == (100, 100, 100)
    replay(hand)


@pytest.mark.parametrize("space", ["\x1c", "\u2003", "\x85"])
def test_unicode_space_in_an_integer_array_is_a_parse_error(space: str) -> None:
    """``[100,\\x1c100]``: the fast path's ``\\s`` matched it, then int() crashed."""
    text = SEVENEIGHT.replace("starting_stacks = [100, 100, 100]",
                              f"starting_stacks = [100,{space}100, 100]")
    (hand,) = loads_hands(text)
    assert not hand.ok and hand.errors[0].line == 6


@pytest.mark.parametrize("cut", ['"d dh p2 As', "actions = [", "players = ["])
def test_text_ending_inside_a_value_names_a_line(cut: str) -> None:
    """tomllib says "(at end of document)", with no line: the error now names the last one."""
    text = phhs(BIGTWO, SEVENEIGHT)
    truncated = text[: text.rindex(cut) + len(cut)]
    hands = loads_hands(truncated)
    assert hands[0].ok
    error = hands[-1].errors[0]
    assert error.line == truncated.count("\n") + 1, error
    assert "at the end of the hand" in str(error)


def test_round_beyond_32_bits_is_a_parse_error_not_an_ingest_crash(tmp_path: Path) -> None:
    """round = 3000000000 passed the reader and crashed ingest (Arrow int32 column)."""
    text = BIGTWO.replace("round = 1", "round = 3000000000")
    (hand,) = loads_hands(text)
    assert not hand.ok and "round" in str(hand.errors[0]) and hand.errors[0].line == 4
    path = tmp_path / "round.phh"
    path.write_text(phhs(BIGTWO, text), encoding="utf-8")
    summary = ingest([path], tmp_path / "r.duckdb", workers=0)
    assert (summary.loaded, summary.rejected) == (1, 1)
    with pytest.raises(RuleError):
        replay(hand)


def test_a_lay_of_an_unknown_card_is_a_rules_reject_on_every_path() -> None:
    """Session 17's find (issue #26): a Rummoli lay of ``??`` raised ValueError (negative
    shift count) in the full engine and stopped the ingest.  Now a RuleError at its line,
    by the reader and engines and by the ingest's own path (run_case checks both)."""
    tried = 0
    for name, data in seeds():
        text = data.decode("utf-8")
        bad = re.sub(r'"(p\d) pl [2-9TJQKA][cdhs]"', r'"\1 pl ??"', text, count=1)
        if not name.startswith("rummoli") or bad == text:
            continue  # another game, or an end-of-game round (no Rummoli phase)
        tried += 1
        hands = text.count("\n[") + 1
        assert run_case(bad.encode("utf-8")) == {"ok": hands - 1, "parse": 0, "rules": 1}
        (hand, *_) = loads_hands(bad, name="lay.phhs")
        with pytest.raises(RuleError, match="must be known") as caught:
            replay(hand)
        assert caught.value.line is not None and "pl ??" in bad.splitlines()[
            caught.value.line - 1]
    assert tried >= 12
