"""The fast path's per-layout shortcut (parsers/fastpath.py, ``_Layout``/``_Shape``).

The checks that depend only on a header's keys, their order and the variant (unknown,
missing, forbidden or repeated keys, where the user fields and knobs stand) are made once
per layout, and a hand is built from its values by position.  These hands reuse one
layout with other variants, other key orders, repeated keys and knob values of every
type, and must read exactly as the general path reads them.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers import fastpath
from tests.test_reader_fastpath import _canonical_samples, as_file, assert_same

_KNOB_VALUES = ("1", "0", "-1", "true", "1.0", '"auto"', '"manual"', '"single"', '"none"',
                "[1]", '"thirteen"', '"all"', '"3c"', '"dchs"', '"cdhs"', '"x"', "19:00:00")
_VARIANTS = ('"N78"', '"P78"', '"F78"', '"NRM"', '"PRM"', '"FRM"', '"B2"', '"X"', "1")


def _header_edit(text: str, rng: random.Random, kind: int) -> str:
    """``text`` with one change to its header lines (the actions array left as it is)."""
    lines = text.rstrip("\n").split("\n")
    opening = lines.index("actions = [")
    closing = lines.index("]", opening + 1)
    header = lines[:opening] + lines[closing + 1 :]
    if kind == 0:
        rng.shuffle(header)  # another order: another layout
    elif kind == 1:
        header.insert(rng.randrange(len(header) + 1), rng.choice(header))  # a key twice
    elif kind == 2:
        header = [f"variant = {rng.choice(_VARIANTS)}" if line.startswith("variant =")
                  else line for line in header]  # same keys, another variant
    else:
        knob = rng.choice(("ante", "claim", "finale", "deal", "lead_card", "suit_order",
                           "four_card_plays", "scoring", "straights", "flush_order"))
        header.insert(rng.randrange(len(header) + 1), f"{knob} = {rng.choice(_KNOB_VALUES)}")
    return "\n".join(header[:2] + lines[opening : closing + 1] + header[2:]) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_layouts_shared_by_edited_headers(pick: int, kinds: list[int]) -> None:
    texts = _canonical_samples()
    rng = random.Random(pick)
    base = texts[pick % len(texts)]
    edited = base
    for kind in kinds:
        edited = _header_edit(edited, rng, kind)
    # The plain hand, then the edited one, then both again: each layout met twice.
    assert_same(as_file([base, edited, base, edited]))


def test_every_canonical_sample_in_another_key_order() -> None:
    rng = random.Random(7)
    texts = [_header_edit(text, rng, 0) for text in _canonical_samples()]
    assert_same(as_file(texts + texts))


def test_layouts_are_remembered_and_bounded() -> None:
    texts = _canonical_samples()
    fastpath._LAYOUTS.clear()
    assert_same(as_file(texts))
    assert 0 < len(fastpath._LAYOUTS) <= fastpath._LAYOUTS_LIMIT
