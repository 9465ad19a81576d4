"""The block rows (analytics.warehouse.pipeline.block_rows) are exactly the per-hand path's.

Every 7 & 8 hand a block holds gets the id :func:`~analytics.warehouse.identity.hand_id`
gives it, and the tables of the hands taken are those of
:class:`~analytics.warehouse.pipeline.rows.Batch` (``add`` of each in order, then ``tables``),
compared with ``Table.equals`` and the schema.  The batch replay is another engineer's
work: the outcomes here are made from the per-hand replay (:func:`outcome_from_replays`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analytics.equity.allin import third_card_at  # noqa: E402
from analytics.rules import RuleError, replay  # noqa: E402
from analytics.rules.base import Outcome  # noqa: E402
from analytics.rules.seveneight.block import BlockOutcome  # noqa: E402
from analytics.simulate.seveneight import simulate_seveneight  # noqa: E402
from analytics.warehouse.identity import block_ids, hand_id  # noqa: E402
from analytics.warehouse.pipeline.block_rows import block_tables  # noqa: E402
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS, Batch, FileContext, street_of  # noqa: E402
from parsers.block import SevenEightBlock  # noqa: E402
from parsers.block_scan import scan_seveneight  # noqa: E402
from parsers.build import visible_name  # noqa: E402
from parsers.model import HandHistory  # noqa: E402
from parsers.reader import hand_from_chunk, iter_chunks  # noqa: E402
from parsers.rule_options import Game  # noqa: E402
from parsers.writer import dumps_hand  # noqa: E402
from tests.block_reference import block_from_hands  # noqa: E402

CONTEXT = FileContext("golden.phhs", "0" * 64, dt.datetime(2026, 1, 2, 3, 4, 5))
FILES = sorted({*(ROOT / "data" / "samples").glob("seveneight*.phh*"),
                *(ROOT / "tests" / "data" / "warehouse_rows").glob("*seveneight*.phh*")})
"""The repository's 7 & 8 files in the writer's layout, which blocks hold (the hand-written
ones of tests/data are in other layouts: the per-hand path reads them)."""
Item = tuple[int, HandHistory]


# ---- helpers -------------------------------------------------------------------------


def read_items(text: str, source: str = "test") -> list[Item]:
    """Every hand of ``text`` as the ingest worker reads it: (position, hand)."""
    import io

    items = []
    stream = io.BytesIO(text.encode("utf-8"))
    for position, chunk in enumerate(iter_chunks(stream, source)):
        hand = hand_from_chunk(chunk, source)
        items.append((position, hand))
    return items


def blockable(items: Iterable[Item], source: str = "test") -> list[Item]:
    """The items a block can hold (block_from_hands accepts them)."""
    kept = []
    for item in items:
        try:
            block_from_hands(source, [item])
        except ValueError:
            continue
        kept.append(item)
    return kept


def replayed(items: Sequence[Item]) -> list[Outcome | None]:
    """The per-hand replay of each item, None for a hand it refuses."""
    outcomes: list[Outcome | None] = []
    for _, hand in items:
        try:
            outcomes.append(replay(hand))
        except RuleError:
            outcomes.append(None)
    return outcomes


def outcome_from_replays(block: SevenEightBlock, outcomes: Sequence[Outcome | None]
                         ) -> BlockOutcome:
    """The :class:`BlockOutcome` of ``block`` made from per-hand outcomes: a hand refused
    (None) or with a pot other than ``main`` is not accepted (its values are zeros)."""
    accepted, winners = [], []
    per_seat: dict[str, list[int]] = {name: [] for name in (
        "nets", "won", "refunds", "contributions", "finishing_stacks")}
    awards: dict[str, list[int]] = {"offsets": [0], "players": [], "amounts": []}
    showdown: dict[str, list[object]] = {name: [] for name in (
        "players", "cards", "categories", "ranks")}
    showdown_offsets = [0]
    seats = block.seat_offsets.tolist()
    for hand, outcome in enumerate(outcomes):
        count = seats[hand + 1] - seats[hand]
        ok = outcome is not None and all(award.pot == "main" for award in outcome.awards)
        accepted.append(ok)
        if not ok or outcome is None:
            winners.append(-1)
            for values in per_seat.values():
                values.extend([0] * count)
            awards["offsets"].append(awards["offsets"][-1])
            showdown_offsets.append(showdown_offsets[-1])
            continue
        winners.append(-1 if outcome.winner is None else outcome.winner)
        per_seat["nets"].extend(outcome.nets)
        for name in ("won", "refunds", "contributions"):
            value = outcome.extra["winnings" if name == "won" else name]
            assert isinstance(value, tuple)
            per_seat[name].extend(value)
        assert outcome.finishing_stacks is not None
        per_seat["finishing_stacks"].extend(outcome.finishing_stacks)
        awards["players"].extend(award.player for award in outcome.awards)
        awards["amounts"].extend(award.amount for award in outcome.awards)
        awards["offsets"].append(awards["offsets"][-1] + len(outcome.awards))
        for shown in outcome.showdown:
            showdown["players"].append(shown.player)
            showdown["cards"].append(shown.cards)
            showdown["categories"].append(shown.category)
            showdown["ranks"].append(shown.rank)
        showdown_offsets.append(showdown_offsets[-1] + len(outcome.showdown))

    def ints(values: Sequence[object]) -> np.ndarray:
        return np.array(values, dtype=np.int64)

    return BlockOutcome(
        accepted=np.array(accepted, dtype=np.bool_), winners=ints(winners),
        nets=ints(per_seat["nets"]), won=ints(per_seat["won"]),
        refunds=ints(per_seat["refunds"]), contributions=ints(per_seat["contributions"]),
        finishing_stacks=ints(per_seat["finishing_stacks"]),
        award_offsets=ints(awards["offsets"]), award_players=ints(awards["players"]),
        award_amounts=ints(awards["amounts"]), showdown_offsets=ints(showdown_offsets),
        showdown_players=ints(showdown["players"]),
        showdown_cards=showdown["cards"],  # type: ignore[arg-type]
        showdown_categories=showdown["categories"],  # type: ignore[arg-type]
        showdown_ranks=ints(showdown["ranks"]))


def batch_tables(items: Sequence[Item], outcomes: Sequence[Outcome | None],
                 take: Iterable[int]) -> dict[str, pa.Table]:
    """The per-hand path's tables of hands ``take``."""
    batch = Batch(CONTEXT)
    for index in take:
        _, hand = items[index]
        outcome = outcomes[index]
        assert outcome is not None
        assert batch.add(hand, outcome)
    return batch.tables()


def assert_same_tables(actual: dict[str, pa.Table], expected: dict[str, pa.Table]) -> None:
    assert list(actual) == list(expected) == list(ARROW_SCHEMAS)
    for name, table in expected.items():
        found = actual[name]
        assert found.schema == table.schema == ARROW_SCHEMAS[name], name
        assert found.num_rows == table.num_rows, name
        for column in table.schema.names:
            assert found[column].equals(table[column]), (
                name, column, found[column].to_pylist()[:20], table[column].to_pylist()[:20])
        assert found.equals(table), name


def check_items(items: Sequence[Item], take_every: int = 1) -> int:
    """Check ids and tables (all-in rows included) of ``items`` (blockable);
    ``take_every``: take only every so many hands of those the block may take.  Returns
    the number of hands taken."""
    block = block_from_hands("test", items)
    outcomes = replayed(items)
    outcome = outcome_from_replays(block, outcomes)
    ids = block_ids(block)
    assert ids.dtype == np.int64
    expected_ids = [hand_id(hand) for _, hand in items]
    assert ids.tolist() == expected_ids
    free = np.flatnonzero(outcome.accepted)
    # Distinct hands only (the caller's business): the first of each id.
    _, first = np.unique(ids[free], return_index=True)
    take = free[np.sort(first)][::take_every]
    tables = block_tables(block, outcome, take, ids, CONTEXT)
    assert_same_tables(tables, batch_tables(items, outcomes, take.tolist()))
    return len(take)


def simulated(variant: str, players: int, count: int, seed: int) -> list[Item]:
    hands = simulate_seveneight(count, players, seed, variant=variant, session_hands=25)
    text = "\n".join(f"[{number}]\n{dumps_hand(hand)}" for number, hand in
                     enumerate(hands, start=1))
    return read_items(text)


# ---- tests ---------------------------------------------------------------------------


def test_the_repository_files_are_found() -> None:
    names = {path.name for path in FILES}
    assert {"seveneight-nl-6max.phhs", "simulated-seveneight.phhs"} <= names


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_every_repository_file(path: Path) -> None:
    items = blockable(read_items(path.read_text(encoding="utf-8"), path.name))
    assert len(items) >= 300
    check_items(items)
    check_items(items, take_every=3)


@pytest.mark.parametrize("variant", ["N78", "P78", "F78"])
@pytest.mark.parametrize("players", [2, 3, 5, 9, 17])
def test_simulated_hands(variant: str, players: int) -> None:
    items = blockable(simulated(variant, players, 40, seed=players))
    assert len(items) == 40
    assert check_items(items) > 0
    check_items(items, take_every=2)


def test_short_stacks_make_all_in_hands_with_their_equity_rows() -> None:
    hands = simulate_seveneight(200, 4, 3, starting_stack=12)
    items = blockable(read_items("\n".join(f"[{n}]\n{dumps_hand(h)}"
                                           for n, h in enumerate(hands, start=1))))
    allins = sum(third_card_at([action.verb for action in hand.actions],
                               [action.cards for action in hand.actions]) is not None
                 for _, hand in items)
    assert 0 < allins < len(items)
    block = block_from_hands("test", items)
    outcome = outcome_from_replays(block, replayed(items))
    tables = block_tables(block, outcome, np.flatnonzero(outcome.accepted), block_ids(block),
                          CONTEXT)
    assert tables["allin_results"].num_rows > 0
    check_items(items)


def test_no_hand_taken_gives_empty_tables() -> None:
    items = blockable(simulated("N78", 3, 10, seed=1))
    block = block_from_hands("test", items)
    outcome = outcome_from_replays(block, replayed(items))
    tables = block_tables(block, outcome, np.zeros(0, dtype=np.int64), block_ids(block),
                          CONTEXT)
    assert_same_tables(tables, batch_tables(items, replayed(items), []))


def test_hands_not_accepted_are_left_to_the_per_hand_path() -> None:
    items = blockable(simulated("P78", 4, 12, seed=5))
    block = block_from_hands("test", items)
    outcomes = replayed(items)
    refused: list[Outcome | None] = [None if index % 3 == 0 else outcome
                                     for index, outcome in enumerate(outcomes)]
    outcome = outcome_from_replays(block, refused)
    assert not outcome.accepted[::3].any()
    take = np.flatnonzero(outcome.accepted)
    assert_same_tables(block_tables(block, outcome, take, block_ids(block), CONTEXT),
                       batch_tables(items, refused, take.tolist()))


def test_an_empty_block() -> None:
    block = block_from_hands("test", [])
    outcome = outcome_from_replays(block, [])
    assert block_ids(block).tolist() == []
    assert_same_tables(block_tables(block, outcome, np.zeros(0, dtype=np.int64),
                                    block_ids(block), CONTEXT), Batch(CONTEXT).tables())


def test_streets_match_street_of_on_odd_orders() -> None:
    # Verbs in orders no legal hand has (a bet before any deal, a no-op first, a deal
    # after a show): the block's streets still follow street_of.
    from analytics.warehouse.pipeline import block_rows
    from parsers.block import BLOCK_VERBS

    rng = np.random.default_rng(3)
    codes = rng.integers(0, len(BLOCK_VERBS), size=400).astype(np.int8)
    offsets = np.array([0, 0, 1, 7, 40, 41, 150, 400], dtype=np.int64)
    fake = dataclasses.replace(_tiny_block(), verbs=codes, action_offsets=offsets)
    streets = block_rows._streets(fake)
    for start, end in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True):
        verbs = tuple(str(BLOCK_VERBS[code].value) for code in codes[start:end].tolist())
        expected = street_of(Game.SEVENEIGHT, verbs)
        assert [block_rows._STREETS[code] for code in streets[start:end].tolist()] == expected


def _tiny_block() -> SevenEightBlock:
    return block_from_hands("test", blockable(simulated("N78", 2, 1, seed=1)))


# ---- ids of unusual header values ----------------------------------------------------

_LETTERS = "ab'\"\\é€\U0001f600x"
_TEXT = st.text(alphabet=st.sampled_from(_LETTERS + " \u00a0\t"), max_size=8)
_NAME = st.text(alphabet=st.sampled_from(_LETTERS), min_size=1, max_size=8)
_USER_VALUE = st.one_of(st.integers(-(2**63), 2**63 - 1), _TEXT, st.booleans(),
                        st.lists(_TEXT, max_size=2))


_DATES = st.dates(dt.date(1900, 1, 1), dt.date(2100, 12, 31))
"""Real dates only: the reader refuses an impossible one (parsers.build)."""


@st.composite
def dressed(draw: st.DrawFn, hand: HandHistory) -> HandHistory:
    """``hand`` with other names, table, number, time and user fields."""
    count = hand.num_players
    # Each player a name of his own (parsers.build refuses a blank, padded or repeated one).
    names = draw(st.lists(_NAME.map(str.strip).filter(visible_name), min_size=count,
                          max_size=count, unique=True))
    user = draw(st.lists(st.tuples(st.sampled_from(["_a", "_note", "_x1"]), _USER_VALUE),
                         max_size=3, unique_by=lambda pair: pair[0]))
    date = draw(_DATES)
    return dataclasses.replace(
        hand, players=tuple(names),
        table=draw(_NAME),  # a block holds text tables only (block_from_hands)
        hand=draw(st.integers(0, 10**12)),
        time=draw(st.times()), day=date.day, month=date.month, year=date.year,
        user_fields=tuple(user))


_BASE_HANDS = list(simulate_seveneight(6, 3, 9, variant="F78"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_ids_of_any_header_values(data: st.DataObject) -> None:
    hands = [data.draw(dressed(hand)) for hand in _BASE_HANDS]
    text = "\n".join(f"[{n}]\n{dumps_hand(hand)}" for n, hand in enumerate(hands, start=1))
    items = blockable(read_items(text))
    assert len(items) == len(hands)
    block = block_from_hands("test", items)
    expected = [hand_id(hand) for _, hand in items]
    assert block_ids(block).tolist() == expected
    # The scanner's block.
    scanned = scanned_block(text)
    by_position = dict(zip((position for position, _ in items), expected, strict=True))
    assert block_ids(scanned).tolist() == [by_position[position]
                                           for position in scanned.positions.tolist()]


_PLAIN = "abé€\U0001f600x '"
"""Letters the scanner reads as they are (no escapes)."""
_PLAIN_TEXT = st.text(alphabet=st.sampled_from(_PLAIN), max_size=6)
_PLAIN_INT = st.integers(-(10**15), 10**15)
_PLAIN_USER_VALUE = st.one_of(_PLAIN_INT, _PLAIN_TEXT, st.lists(_PLAIN_TEXT, max_size=2),
                              st.lists(_PLAIN_INT, max_size=2))


@st.composite
def scannable(draw: st.DrawFn, hand: HandHistory) -> HandHistory:
    """``hand`` with other names, table, number, time (whole seconds) and user fields, of
    the values the scanner reads (no escapes, no booleans)."""
    count = hand.num_players
    names = draw(st.lists(_PLAIN_TEXT.map(str.strip).filter(visible_name), min_size=count,
                          max_size=count, unique=True))
    user = draw(st.lists(st.tuples(st.sampled_from(["_a", "_note", "_x1", "_copy"]),
                                   _PLAIN_USER_VALUE),
                         max_size=4, unique_by=lambda pair: pair[0]))
    date = draw(_DATES)
    return dataclasses.replace(
        hand, players=tuple(names), table=draw(_PLAIN_TEXT), hand=draw(st.integers(0, 10**12)),
        time=draw(st.times()).replace(microsecond=0), day=date.day, month=date.month,
        year=date.year, user_fields=tuple(user))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_scanned_ids_of_any_header_values(data: st.DataObject) -> None:
    # The scanner's block of values it reads from their texts.
    hands = [data.draw(scannable(hand)) for hand in _BASE_HANDS]
    text = "\n".join(f"[{n}]\n{dumps_hand(hand)}" for n, hand in enumerate(hands, start=1))
    items = blockable(read_items(text))
    assert len(items) == len(hands)
    scanned = scanned_block(text)
    assert len(scanned) == len(hands)
    assert block_ids(scanned).tolist() == [hand_id(hand) for _, hand in items]


def scanned_block(text: str) -> SevenEightBlock:
    """The scanner's block of the hands of ``text`` (those it takes)."""
    import io

    chunks = list(iter_chunks(io.BytesIO(text.encode("utf-8")), "test"))
    return scan_seveneight(chunks, "test")[0]


@pytest.mark.parametrize("variant", ["N78", "P78", "F78"])
def test_ids_of_scanned_hands(variant: str) -> None:
    # Hands as the writer writes them, with user fields before and after the last integer
    # one, or none: the scanner's block's ids are the per-hand path's.
    hands = []
    for number, hand in enumerate(simulate_seveneight(40, 4, 11, variant=variant)):
        users: tuple[tuple[str, object], ...] = (
            (), (("_copy", number),), (("_rebuys", ["Eli"]), ("_copy", -number)),
            (("_note", "x"), ("_n", [1, 2]), ("_copy", 10**15 + number)),
            (("_rebuys", []),), (("_copy", number), ("_note", "last")))[number % 6]
        hands.append(dataclasses.replace(hand, user_fields=users))
    text = "\n".join(f"[{n}]\n{dumps_hand(hand)}" for n, hand in enumerate(hands, start=1))
    items = blockable(read_items(text))
    scanned = scanned_block(text)
    assert len(scanned) == len(items) == len(hands)
    assert block_ids(scanned).tolist() == [hand_id(hand) for _, hand in items]


def test_a_block_of_hands_of_many_player_counts() -> None:
    items = [item for players in (2, 17, 3, 2, 6) for item in
             blockable(simulated("F78", players, 6, seed=players))[:4]]
    assert check_items([(position, hand) for position, (_, hand) in enumerate(items)]) > 0
