"""The category labels of stored card text (analytics.evaluator.categories), which the
warehouse stores per dealt hand and the dashboard computes for hands it holds: the scalar
evaluator's categories, for every hand size, from Python strings or Arrow arrays."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from analytics.evaluator import poker_rank, seveneight_rank
from analytics.evaluator.categories import card_text_codes, poker_labels, seveneight_labels
from parsers.cards import RANK_SYMBOLS, SUIT_SYMBOLS

CARDS = [rank + suit for rank in RANK_SYMBOLS for suit in SUIT_SYMBOLS]


def _hands(sizes: range, per_size: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return ["".join(CARDS[i] for i in rng.choice(52, size, replace=False))
            for size in sizes for _ in range(per_size)]


@pytest.mark.parametrize("arrow", [False, True])
def test_poker_labels_of_every_size_in_one_batch(arrow: bool) -> None:
    """Hands of 5 to 26 cards mixed in one call (evaluated padded, in one batch): each the
    scalar evaluator's category; other sizes and non-cards: None."""
    hands = _hands(range(5, 27), 40, seed=3)
    rng = np.random.default_rng(4)
    order = list(rng.permutation(len(hands)))
    mixed = [hands[i] for i in order] + ["AsKs", "", "AsKsQsJs??", "AsKsQsJsXx"]
    texts: object = pa.array(mixed) if arrow else mixed
    got = poker_labels(texts)
    expected = [poker_rank(h).category.label for h in mixed[:len(hands)]]
    assert list(got[:len(hands)]) == expected
    assert list(got[len(hands):]) == [None] * 4
    assert len(set(expected)) >= 6  # the draw covers most categories


def test_poker_labels_with_nulls_and_chunks() -> None:
    chunked = pa.chunked_array([["AsKsQsJsTs", None], ["2c2d2h5s5c9d"]])
    assert list(poker_labels(chunked)) == ["straight_flush", None, "full_house"]
    assert list(poker_labels([None, 3, "AsAdAcAh2c"])) == [None, None, "four_of_a_kind"]
    assert len(poker_labels([])) == 0


def test_seveneight_labels_of_two_and_three_cards() -> None:
    hands = _hands(range(2, 4), 300, seed=5)
    assert list(seveneight_labels(hands)) == [seveneight_rank(h).category.label for h in hands]
    assert list(seveneight_labels(pa.array(hands))) == list(seveneight_labels(hands))
    assert list(seveneight_labels(["7c", "7c8c2d4h", "7c??", None])) == [None] * 4


def test_card_text_codes_marks_what_is_not_cards() -> None:
    codes, valid = card_text_codes(["AsKd", "2c3h", "Zz2c", "??2c"], 2)
    assert codes[:2].tolist() == [[51, 45], [0, 6]]
    assert valid.tolist() == [True, True, False, False]
    with pytest.raises(ValueError, match="2 cards"):
        card_text_codes(["As"], 2)
