"""The shared hand evaluator: standard poker, 7 & 8 Poker and Big Two.

Scalar functions take cards (or card text) and return ordered, typed values;
batch functions take integer arrays of card codes ``4 * rank + suit`` and
return integer values that order hands exactly as the scalar ones.  numba is
imported only when a poker batch function is first used.

Rules: shared/RULES.md; design and decisions: docs/evaluator.md.
"""

from analytics.evaluator._common import EvaluationError
from analytics.evaluator.bigtwo import (
    BigTwoCombo,
    BigTwoComparisonError,
    BigTwoKind,
    bigtwo_all_combos,
    bigtwo_beats,
    bigtwo_card_key,
    bigtwo_combo,
    bigtwo_rank_index,
)
from analytics.evaluator.describe import describe_hand
from analytics.evaluator.poker import (
    POKER_MAX_CARDS,
    POKER_MIN_CARDS,
    POKER_RANK_COUNT,
    PokerCategory,
    PokerRank,
    card_combinations,
    poker_category_of,
    poker_rank,
    poker_rank_batch,
    poker_value_of_mask,
)
from analytics.evaluator.seveneight import (
    SEVENEIGHT_TWO_CARD_CLASSES,
    SevenEightCategory,
    SevenEightRank,
    seveneight_best_two,
    seveneight_category_of,
    seveneight_rank,
    seveneight_rank_batch,
    seveneight_two_card_value,
)

__all__ = [
    "POKER_MAX_CARDS",
    "POKER_MIN_CARDS",
    "POKER_RANK_COUNT",
    "SEVENEIGHT_TWO_CARD_CLASSES",
    "BigTwoCombo",
    "BigTwoComparisonError",
    "BigTwoKind",
    "EvaluationError",
    "PokerCategory",
    "PokerRank",
    "SevenEightCategory",
    "SevenEightRank",
    "bigtwo_all_combos",
    "bigtwo_beats",
    "bigtwo_card_key",
    "bigtwo_combo",
    "bigtwo_rank_index",
    "card_combinations",
    "describe_hand",
    "poker_category_of",
    "poker_rank",
    "poker_rank_batch",
    "poker_value_of_mask",
    "seveneight_best_two",
    "seveneight_category_of",
    "seveneight_rank",
    "seveneight_rank_batch",
    "seveneight_two_card_value",
]
