"""Properties: what the writer writes, the reader reads back exactly."""

from __future__ import annotations

import io
import tomllib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers import dumps_hand, dumps_hands, loads_hands, read_hands, write_hands
from parsers.model import HandHistory
from tests.strategies import hands


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_read_write_round_trip(hand: HandHistory) -> None:
    text = dumps_hand(hand)
    (back,) = loads_hands(text)
    assert back.errors == ()
    assert back == hand


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hands(), min_size=1, max_size=5))
def test_many_hands_round_trip_through_a_stream(batch: list[HandHistory]) -> None:
    buffer = io.StringIO()
    assert write_hands(batch, buffer) == len(batch)
    back = list(read_hands(io.StringIO(buffer.getvalue())))
    assert back == batch
    assert [hand.index for hand in back] == list(range(1, len(batch) + 1))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_written_text_is_valid_toml_with_the_same_values(hand: HandHistory) -> None:
    """The writer's output means the same to tomllib as to our fast reader."""
    text = dumps_hand(hand)
    document = tomllib.loads(text)
    assert document["variant"] == hand.variant
    assert len(document["actions"]) == len(hand.actions)
    assert tomllib.loads(dumps_hands([hand]))["1"] == document


def test_write_to_path(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    (hand,) = loads_hands('variant = "B2"\nplayers = ["a", "b"]\nactions = []\n')
    write_hands([hand], folder / "one.phh")
    assert (folder / "one.phh").read_text().startswith("format_version = 1\n")
    write_hands([hand, hand], folder / "two.phhs")
    assert [h.index for h in read_hands(folder / "two.phhs")] == [1, 2]
