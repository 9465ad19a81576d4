"""The equity engine: exact and simulated expectations for the three games.

* 7 & 8 equity street by street (:func:`seveneight_equity`), exact by
  enumeration of the unseen cards or Monte Carlo with standard errors;
* all-in adjusted results of 7 & 8 hands (:func:`allin_adjusted`);
* Rummoli poker strength: the chance a hand is the best at the table
  (:func:`rummoli_strength`, per round :func:`rummoli_round_strengths`);
* Big Two deal strength from bot continuations and hand features
  (:func:`bigtwo_deal_strength`, :func:`bigtwo_features`);
* exact theory tables and a goodness-of-fit test (:mod:`analytics.equity.theory`).

numba is imported only when a computation first needs a kernel.  Design and
decisions: docs/equity.md.
"""

from analytics.equity.allin import AllInPlayer, AllInResult, allin_adjusted, allin_moment
from analytics.equity.bigtwo import (
    BigTwoFeatures,
    BigTwoStrength,
    bigtwo_deal_strength,
    bigtwo_features,
    bigtwo_features_fast,
    bigtwo_game_features,
    bigtwo_game_features_fast,
)
from analytics.equity.rummoli import (
    RummoliRoundStrength,
    RummoliStrength,
    rummoli_default_sizes,
    rummoli_round_strengths,
    rummoli_strength,
)
from analytics.equity.seveneight import (
    EquityResult,
    seveneight_equity,
    seveneight_view,
)
from analytics.equity.theory import (
    GoodnessOfFit,
    bigtwo_twos_counts,
    goodness_of_fit,
    poker_category_counts,
    poker_category_probabilities,
    seveneight_three_card_counts,
    seveneight_two_card_counts,
    seveneight_visible_card_table,
)

__all__ = [
    "AllInPlayer",
    "AllInResult",
    "BigTwoFeatures",
    "BigTwoStrength",
    "EquityResult",
    "GoodnessOfFit",
    "RummoliRoundStrength",
    "RummoliStrength",
    "allin_adjusted",
    "allin_moment",
    "bigtwo_deal_strength",
    "bigtwo_features",
    "bigtwo_features_fast",
    "bigtwo_game_features",
    "bigtwo_game_features_fast",
    "bigtwo_twos_counts",
    "goodness_of_fit",
    "poker_category_counts",
    "poker_category_probabilities",
    "rummoli_default_sizes",
    "rummoli_round_strengths",
    "rummoli_strength",
    "seveneight_equity",
    "seveneight_three_card_counts",
    "seveneight_two_card_counts",
    "seveneight_view",
    "seveneight_visible_card_table",
]
