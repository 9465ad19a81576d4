"""The Arrow tables a batch builds are exactly those of the recorded golden files.

``tests/data/warehouse_rows`` holds, for the sample histories and a few hundred
simulated hands of each game (stored as text, so the simulators may change), the
tables :class:`~analytics.warehouse.pipeline.rows.Batch` produced before the ingest's
per-hand work was made faster: every row, in order, every value, every hand id
(IDENTITY_VERSION 2 since issue #31, which changed nothing else but the Rummoli strength
estimates seeded by the id) and every equity estimate (seeded by hand id).  Any change
of the output, intended or not, fails here.  Regenerate only with a reason (a new
identity version, a schema change): ``python tests/test_warehouse_rows_golden.py``.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analytics.rules import RuleError, replay  # noqa: E402
from analytics.warehouse.pipeline.rows import ARROW_SCHEMAS, Batch, FileContext  # noqa: E402
from parsers import read_hands  # noqa: E402
from parsers.reader import hand_from_chunk, iter_chunks  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "warehouse_rows"
SOURCES = sorted(GOLDEN.glob("*.phhs")) + sorted((ROOT / "data" / "samples").glob("*.phhs"))
CONTEXT = FileContext("golden.phhs", "0" * 64, dt.datetime(2026, 1, 2, 3, 4, 5))


def batch_tables(path: Path) -> dict[str, pa.Table]:
    """Parse, replay and batch every valid hand of ``path`` (as ingest's workers do)."""
    name = path.name.removesuffix(".phhs")
    batch = Batch(CONTEXT)
    with path.open("rb") as stream:
        for chunk in iter_chunks(stream, name):
            hand = hand_from_chunk(chunk, name)
            if hand.errors:
                continue
            try:
                outcome = replay(hand)
            except RuleError:
                continue
            batch.add(hand, outcome)
    return batch.tables()


def differences(name: str, tables: dict[str, pa.Table]) -> list[str]:
    """What differs between ``tables`` and the golden tables of source ``name``."""
    found = []
    for table, schema in ARROW_SCHEMAS.items():
        actual = tables[table]
        golden = GOLDEN / f"{name}.{table}.parquet"
        expected = pq.read_table(golden) if golden.exists() else schema.empty_table()
        if actual.schema != schema:
            found.append(f"{table}: schema {actual.schema} is not {schema}")
        elif actual.num_rows != expected.num_rows:
            found.append(f"{table}: {actual.num_rows} rows, expected {expected.num_rows}")
        else:
            for column in schema.names:
                if not actual[column].equals(expected[column].cast(schema.field(column).type)):
                    first = next(i for i, (a, b) in enumerate(zip(
                        actual[column].to_pylist(), expected[column].to_pylist(), strict=True))
                        if a != b or type(a) is not type(b))
                    found.append(f"{table}.{column}: row {first} differs")
    return found


@pytest.mark.parametrize("source", [  # Big Two's house rules: 150 games, about 1.7 s
    pytest.param(path, marks=pytest.mark.slow) if path.name == "bigtwo-house-rules.phhs"
    else path for path in SOURCES], ids=lambda path: path.name)
def test_batch_tables_match_the_golden_tables(source: Path) -> None:
    """Also, for the bundled samples: every hand read strictly and replayed (none left out),
    each with the finishing stacks the file records (what tests/test_samples.py checked with
    a replay of its own).  (The simulated files hold hands the engines reject.)"""
    name = source.name.removesuffix(".phhs")
    tables = batch_tables(source)
    assert tables["hands"].num_rows >= 50
    assert differences(name, tables) == []
    if source.parent.name != "samples":
        return
    recorded = [hand.finishing_stacks for hand in read_hands(source, strict=True)]
    assert len(recorded) == tables["hands"].num_rows
    seats = tables["seats"].select(["hand_id", "finishing_stack"]).to_pylist()
    stacks: dict[int, list[int]] = {}
    for seat in seats:
        stacks.setdefault(seat["hand_id"], []).append(seat["finishing_stack"])
    for hand_id, finishing in zip(tables["hands"]["hand_id"].to_pylist(), recorded,
                                  strict=True):
        assert finishing is None or stacks[hand_id] == list(finishing), hand_id


def test_a_changed_value_is_caught() -> None:
    source = GOLDEN / "simulated-rummoli.phhs"
    tables = batch_tables(source)
    strength = tables["rummoli_strength"]
    index = strength.schema.get_field_index("p_best")
    values = strength["p_best"].to_pylist()
    values[7] = values[7] + 1e-12  # the smallest change of an estimate counts
    tables["rummoli_strength"] = strength.set_column(index, "p_best",
                                                     pa.array(values, pa.float64()))
    hands = tables["hands"]
    ids = hands["hand_id"].to_pylist()
    ids[0] ^= 1
    tables["hands"] = hands.set_column(0, "hand_id", pa.array(ids, pa.int64()))
    assert differences("simulated-rummoli", tables) == [
        "hands.hand_id: row 0 differs", "rummoli_strength.p_best: row 7 differs"]


def _regenerate() -> None:
    for source in SOURCES:
        name = source.name.removesuffix(".phhs")
        for table, data in batch_tables(source).items():
            target = GOLDEN / f"{name}.{table}.parquet"
            target.unlink(missing_ok=True)
            if data.num_rows:
                pq.write_table(data, target, compression="zstd")


if __name__ == "__main__":
    _regenerate()
