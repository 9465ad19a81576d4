"""The ingest worker's column form of a hand's actions gives exactly what the Actions give.

``parsers.reader.hand_and_fields`` reads a hand the fast path takes without an
:class:`~parsers.model.Action` per action line: the hand comes without its actions and
they come as :class:`~parsers.model.ActionFields` columns, which the 7 & 8 replay
(``analytics.rules.replay_fields``), the hand's id (``identity.field_columns``) and the
batch rows (``Batch.add(hand, outcome, fields)``) read.  Every chunk below is read both
ways and compared: the hand (``with_actions`` gives the reader's hand, field for field,
every action's line), the columns, the id, the replay's outcome or error (message, rule,
line, action), and every Arrow table of a batch.  Over the repository's files, simulated
hands of the three games (all-in and side-pot hands included), hands with one action
altered, line edits of canonical hands and hypothesis-driven byte mutations.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import io
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics.rules import replay, replay_fields
from analytics.warehouse.identity import ActionColumns, action_columns, field_columns, hand_id
from analytics.warehouse.rows import Batch, FileContext
from parsers import HandHistory, dumps_hand
from parsers.model import ActionFields, with_actions
from parsers.reader import hand_and_fields, hand_from_chunk, iter_chunks
from tests.mutate import Mutation
from tests.test_reader_fastpath import (
    MUTATIONS,
    ROOT,
    _canonical_samples,
    as_file,
    line_edits,
    mutated_canonical,
    repository_files,
    signature,
    simulated,
)
from tests.test_rules_golden import _mutated, _simulated, result

_CONTEXT = FileContext("fields.phhs", "0" * 64, dt.datetime(2026, 1, 1))


def _plain(columns: ActionColumns | ActionFields) -> tuple[object, ...]:
    """Every column, the lines as a tuple (the reader gives a range); not the texts the
    reader or the identity keep beside them (compared by the hand ids)."""
    values = [getattr(columns, spec.name) for spec in dataclasses.fields(columns)
              if spec.compare]
    return (*values[:-1], tuple(values[-1]))


def check(data: bytes | str, source: str = "fields.phhs") -> int:
    """Read every chunk of ``data`` both ways and compare; the number read as columns."""
    stream: io.BytesIO | io.StringIO = (io.BytesIO(data) if isinstance(data, bytes)
                                        else io.StringIO(data))
    as_columns = 0
    whole_batch, fields_batch = Batch(_CONTEXT), Batch(_CONTEXT)
    for chunk in iter_chunks(stream, source):
        whole = hand_from_chunk(chunk, source)
        hand, fields = hand_and_fields(chunk, source)
        if fields is None:
            assert signature(hand) == signature(whole)
            continue
        as_columns += 1
        assert hand.actions == () and not whole.errors
        full = with_actions(hand, fields)
        assert signature(full) == signature(whole) and full == whole
        assert _plain(fields) == _plain(ActionFields.of(whole.actions))
        columns = field_columns(fields)
        assert _plain(columns) == _plain(action_columns(whole.actions))
        assert hand_id(hand, columns) == hand_id(whole)
        expected = result(replay, whole)
        assert result(functools.partial(replay_fields, fields=fields), hand) == expected
        if expected[0] == "outcome":
            outcome = replay(whole)
            assert whole_batch.add(whole, outcome) == fields_batch.add(hand, outcome, fields)
    if len(whole_batch):
        whole_tables, fields_tables = whole_batch.tables(), fields_batch.tables()
        assert whole_tables.keys() == fields_tables.keys()
        for name, table in whole_tables.items():
            assert table.equals(fields_tables[name]), name
    return as_columns


@pytest.mark.parametrize("path", list(repository_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_repository_files(path: Path) -> None:
    check(path.read_bytes(), str(path))


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bigtwo", "rummoli", "seveneight"])
def test_simulated_hands(game: str) -> None:
    texts = [dumps_hand(hand) for hand in simulated()[game][::2]]
    assert check(as_file(texts)) == len(texts)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bigtwo", "rummoli", "seveneight"])
def test_valid_hands_of_many_shapes_and_altered_ones(game: str) -> None:
    """Short stacks (side pots, all-in hands with the equity rows), and each hand with one
    action dropped, duplicated, swapped or altered (mostly illegal: the full engine's
    errors), its stated figures off or left out."""
    rng = random.Random(f"fields-{game}")
    hands: list[HandHistory] = []
    # Every other Big Two game: its full engine is slow, and the shapes repeat.
    for hand in list(_simulated(game))[:: 2 if game == "bigtwo" else 1]:
        hands.append(hand)
        if hand.actions:
            hands.append(_mutated(hand, rng, rng.choice(("any", "sized"))))
        if hand.finishing_stacks is not None and rng.random() < 0.2:
            changed = (hand.finishing_stacks[0] + 1, *hand.finishing_stacks[1:])
            hands.append(dataclasses.replace(hand, finishing_stacks=changed))
            hands.append(dataclasses.replace(hand, finishing_stacks=None, winnings=None))
    # A hand dealing a card twice is the general path's (it reports the card).
    assert check(as_file([dumps_hand(hand) for hand in hands])) >= 0.9 * len(hands)


@pytest.mark.slow
def test_line_edits_of_canonical_hands() -> None:
    taken = 0
    for text in _canonical_samples():
        taken += check(as_file(list(line_edits(text))))
    assert taken > 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), MUTATIONS)
def test_mutated_canonical_hands(pick: int, mutations: list[Mutation]) -> None:
    check(mutated_canonical(pick, mutations))


def test_the_comparison_notices_a_wrong_column(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: columns with an amount off are caught."""
    text = as_file([dumps_hand(hand) for hand in simulated()["seveneight"][:30]])
    import parsers.fastpath as fastpath

    original = fastpath._NEW_FIELDS

    def amounts_off(*columns: object) -> ActionFields:
        fields: ActionFields = original(*columns)
        amounts = tuple(None if a is None else a + 1 for a in fields.amounts)
        return dataclasses.replace(fields, amounts=amounts)

    monkeypatch.setattr(fastpath, "_NEW_FIELDS", amounts_off)
    with pytest.raises(AssertionError):
        check(text)
