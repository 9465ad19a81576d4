"""Big Two passes: the engine's counts (``Outcome.extra``) against ``legal_plays``.

The engine counts each player's passes and those he made holding a play that beats the
trick as it applies a pass (:meth:`BigTwoState.can_beat`, which walks his plays of the
trick's size strongest first and skips for good the ones he no longer holds).  These tests
replay simulated games of 2 to 4 players under every scoring and the other knobs and
count again, independently, by listing the plays at every pass
(:meth:`BigTwoState.legal_plays`, which lists the beating plays when a trick is on the
table): a divergence anywhere fails.  ``can_beat`` is also asked at every turn facing a
trick, from the table of every play (a state that never lists plays) and from the player's
own plays (a state whose plays the bots' way listed), and must agree with the list.
"""

from __future__ import annotations

import pytest

from analytics.rules.bigtwo import engine as bigtwo
from analytics.rules.bigtwo.engine import BigTwoState, prepare_plays
from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.stats.bigtwo import game_passes
from parsers import HandHistory
from parsers.model import Verb
from parsers.rule_options import BigTwoDeal, BigTwoRules, BigTwoScoring, FlushOrder, Straights

SETTINGS = {
    "cards": BigTwoRules(),
    "cards_with_twos": BigTwoRules(scoring=BigTwoScoring.CARDS_WITH_TWOS),
    "rank": BigTwoRules(scoring=BigTwoScoring.RANK),
    "zero_sum": BigTwoRules(scoring=BigTwoScoring.ZERO_SUM, fry_threshold=7),
    "four_card_plays": BigTwoRules(four_card_plays=True, lead_card="3c", suit_order="cdhs"),
    "deal_all": BigTwoRules(deal=BigTwoDeal.ALL, straights=Straights.VIETNAMESE,
                            flush_order=FlushOrder.SUIT_FIRST),
    "malaysian": BigTwoRules(straights=Straights.MALAYSIAN, suit_order="hdcs",
                             scoring=BigTwoScoring.RANK, four_card_plays=True),
}
GAMES_EACH = 15  # per setting and table size: 7 x 3 x 15 = 315 games


def listed_passes(hand: HandHistory) -> list[tuple[int, int]]:
    """Per player (passes, passes holding a beating play), counted by listing his legal
    plays at each pass; can_beat is checked against the list at every turn facing a trick,
    on a state that lists and on one that never does."""
    rules = hand.rules
    assert isinstance(rules, BigTwoRules)
    listing = BigTwoState(rules, hand.num_players)
    asking = BigTwoState(rules, hand.num_players)
    passes = [0] * hand.num_players
    with_play = [0] * hand.num_players
    for action in hand.actions:
        if listing.turn is not None and listing.table is not None:
            holds = bool(listing.legal_plays())
            assert listing.can_beat() is holds, (hand.game_id, action)
            assert asking.can_beat() is holds, (hand.game_id, action)
            if action.verb is Verb.PASS:
                passes[action.actor - 1] += 1
                with_play[action.actor - 1] += holds
        listing.apply(action)
        asking.apply(action)
    return list(zip(passes, with_play, strict=True))


# make check keeps four players (the most passes) under every setting.
@pytest.mark.parametrize("players", [pytest.param(2, marks=pytest.mark.slow),
                                     pytest.param(3, marks=pytest.mark.slow), 4])
@pytest.mark.parametrize("setting", SETTINGS)
def test_the_replays_pass_counts_are_the_listed_ones(setting: str, players: int) -> None:
    rules = SETTINGS[setting]
    prepare_plays(rules)  # the "asking" state walks the table of every play
    games = list(simulate_bigtwo(GAMES_EACH, players, 20 + players, rules=rules))
    held = 0
    for hand in games:
        outcome = bigtwo.replay(hand)
        counted = list(zip(outcome.extra["passes"], outcome.extra["passes_with_play"],  # type: ignore[call-overload]
                           strict=True))
        expected = listed_passes(hand)
        assert counted == expected, hand.game_id
        assert game_passes(rules, players, hand.actions) == expected, hand.game_id
        held += sum(found for _, found in expected)
    assert sum(count for hand in games for count, _ in listed_passes(hand)) > held > 0


@pytest.mark.slow  # 10 s of CPU; make check keeps the seven settings above at four players
def test_random_knobs_pass_counts_are_the_listed_ones() -> None:
    """Knobs drawn afresh for every match (simulate_bigtwo's random_knobs)."""
    for players in (2, 3, 4):
        for hand in simulate_bigtwo(40, players, 7, random_knobs=True, games_per_match=2):
            outcome = bigtwo.replay(hand)
            assert list(zip(outcome.extra["passes"], outcome.extra["passes_with_play"],  # type: ignore[call-overload]
                            strict=True)) == listed_passes(hand), hand.game_id
