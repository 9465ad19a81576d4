"""The reader's texts of the action values, and the hand ids made from them.

The fast path keeps, with each action line it remembers, the text of each of its values
(:func:`parsers.fastpath._with_texts`: the verb's code, the cards in canonical notation, and
``repr()`` of every value, in the columns of :data:`parsers.model.ACTION_TEXTS`), and hands
them on as :attr:`parsers.model.ActionFields.texts`.  The hand's identity joins those texts
(:func:`analytics.warehouse.identity.field_columns`) instead of looking each value up and
making its ``repr()``.  They must be exactly the values' texts, whatever the lines: the same
key text, hand id and columns as the same fields without texts (and as the Action objects).
"""

from __future__ import annotations

import dataclasses
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analytics.warehouse import identity
from analytics.warehouse.identity import action_columns, field_columns, hand_id
from parsers import dumps_hand, fastpath
from parsers.actions import action_table
from parsers.knobs import Game
from parsers.model import ACTION_TEXTS, ActionFields, with_actions
from parsers.reader import hand_and_fields, hands_and_fields, iter_chunks
from tests.mutate import Mutation
from tests.test_reader_fastpath import (
    MUTATIONS,
    ROOT,
    as_file,
    mutated_canonical,
    repository_files,
    simulated,
)
from tests.test_reader_together import clear_caches, lines_of_a_game


def reference_texts(values: tuple[object, ...]) -> tuple[str | None, ...]:
    """The texts of one action's values (actor, verb, cards, amount, target, pot, comment),
    made the plain way."""
    actor, verb, cards, amount, target, pot, comment = values
    verb_text = str(verb.value)  # type: ignore[attr-defined]
    cards_text = "".join(str(card) for card in cards) if cards else None  # type: ignore[attr-defined]
    return (verb_text, cards_text, repr(actor), repr(verb_text), repr(target), repr(cards_text),
            repr(amount), repr(pot), repr(comment))


def without_texts(fields: ActionFields) -> ActionFields:
    return ActionFields(*[getattr(fields, spec.name) for spec in dataclasses.fields(fields)
                          if spec.init])


def check_fields(hand: object, fields: ActionFields | None) -> int:
    """The fields' texts are their values' texts, and the id and columns made from them are
    those made without; 1 when the fields had texts."""
    if fields is None or not fields.verbs:
        return 0
    assert fields.texts is not None
    assert len(fields.texts) == len(ACTION_TEXTS)
    rows = zip(fields.actors, fields.verbs, fields.cards, fields.amounts, fields.targets,
               fields.pots, fields.comments, strict=True)
    assert tuple(zip(*fields.texts, strict=True)) == tuple(map(reference_texts, rows))
    columns, plain = field_columns(fields), field_columns(without_texts(fields))
    assert columns.key is not None and plain.key is None
    assert columns == plain and tuple(columns.lines) == tuple(plain.lines)
    assert identity._actions_text(columns) == identity._actions_text(plain)
    whole = with_actions(hand, fields)  # type: ignore[arg-type]
    assert identity.canonical_key(hand, columns) == identity.canonical_key(whole)  # type: ignore[arg-type]
    assert hand_id(hand, columns) == hand_id(whole) == hand_id(hand, plain)  # type: ignore[arg-type]
    assert action_columns(whole.actions).key is None
    return 1


def check(data: bytes | str, source: str = "texts.phhs") -> int:
    """Every chunk of ``data`` read alone and read together, from empty line tables; the
    number of hands whose fields had texts."""
    stream: io.BytesIO | io.StringIO = (io.BytesIO(data) if isinstance(data, bytes)
                                        else io.StringIO(data))
    chunks = list(iter_chunks(stream, source))
    clear_caches()
    taken = sum(check_fields(*hand_and_fields(chunk, source)) for chunk in chunks)
    clear_caches()
    together = sum(check_fields(*found) for start in range(0, len(chunks), 7)
                   for found in hands_and_fields(chunks[start : start + 7], source))
    assert together == taken
    return taken


@pytest.mark.parametrize("path", list(repository_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_repository_files(path: object) -> None:
    check(path.read_bytes(), str(path))  # type: ignore[attr-defined]


@pytest.mark.parametrize("game", ["bigtwo", "rummoli", "seveneight"])
def test_simulated_hands(game: str) -> None:
    texts = [dumps_hand(hand) for hand in simulated()[game][::3]]
    assert check(as_file(texts)) == len(texts)


def test_odd_lines_and_one_action() -> None:
    """Lines the writer never writes (comments, other spellings of cards, unknown cards,
    amounts with leading zeros) take the general reading, and a hand of one action has
    columns of one item ("(x,)")."""
    text = dumps_hand(simulated()["seveneight"][0])
    lines = text.split("\n")
    opening, closing = lines.index("actions = ["), lines.index("]")
    edited = [line.replace('",', ' # a note",', 1) if row % 3 == 0 else
              line.replace("T", "10", 1) if row % 3 == 1 else line
              for row, line in enumerate(lines[opening + 1 : closing])]
    odd = "\n".join([*lines[: opening + 1], *edited, *lines[closing:]])
    one = "\n".join([*lines[: opening + 1], lines[opening + 1], *lines[closing:]])
    big_two = dumps_hand(simulated()["bigtwo"][0])
    unknown = big_two.replace('"d dh p1 ', '"d dh p1 ??', 1)
    assert check(as_file([odd, one, odd, unknown, big_two])) >= 4


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), MUTATIONS)
def test_mutated_canonical_hands(pick: int, mutations: list[Mutation]) -> None:
    check(mutated_canonical(pick, mutations))


@settings(max_examples=300, deadline=None)
@given(lines_of_a_game())
def test_lines_remembered_with_their_values_texts(found: tuple[Game, int, list[str]]) -> None:
    """Each line a line table takes, one at a time (``_new_line``) or together
    (``_read_new_lines``' ``_writer_entries``), holds the texts of its values."""
    game, count, lines = found
    table: dict[str, tuple[object, ...]] = {}
    texts = action_table(game, count)
    for line in lines:
        entry = fastpath._new_line(table, texts, game, count, line)
        if entry is not None and entry is not fastpath._BLANK:
            assert entry[8:] == reference_texts(entry[:7]), line
            assert table[line] is entry
    for line, parsed in zip(lines, fastpath._writer_entries(lines, game, count), strict=True):
        if parsed is not None:
            entry = fastpath._with_texts(parsed, fastpath._writer_cards_text(line)
                                         if parsed[2] else None)
            assert entry[:8] == parsed and entry[8:] == reference_texts(parsed[:7]), line


def test_a_changed_column_drops_the_texts() -> None:
    """``dataclasses.replace`` of a column gives fields without texts (made afresh), not
    texts of the old values."""
    chunk = next(iter_chunks(io.StringIO(as_file([dumps_hand(simulated()["rummoli"][0])])),
                             "s"))
    _, fields = hand_and_fields(chunk, "s")
    assert fields is not None and fields.texts is not None
    changed = dataclasses.replace(fields, amounts=tuple(
        None if amount is None else amount + 1 for amount in fields.amounts))
    assert changed.texts is None
    assert field_columns(changed).key is None


def test_the_comparison_notices_a_wrong_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks can fail: an entry whose amount text is off is caught."""
    right = fastpath._with_texts

    def amount_off(parsed: tuple[object, ...], cards_text: str | None = None
                   ) -> tuple[object, ...]:
        entry = right(parsed, cards_text)  # type: ignore[arg-type]
        return (*entry[:14], repr(parsed[3]) + "0", *entry[15:])

    monkeypatch.setattr(fastpath, "_with_texts", amount_off)
    with pytest.raises(AssertionError):
        check(as_file([dumps_hand(hand) for hand in simulated()["rummoli"][:5]]))
