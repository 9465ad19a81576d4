"""The ``actions`` rows' verb and street codes
(analytics.warehouse.pipeline.rows._verb_street_codes).

For the games whose verbs name their street (Big Two, Rummoli) the codes are looked up per
verb, not remembered by the verb sequence; 7 & 8's streets go by position.  Either way the
codes are those of :func:`~analytics.warehouse.pipeline.rows.street_of`'s streets, a verb without a
street of its own (a no-op) taking the one before it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.warehouse.pipeline import rows
from parsers.model import Verb
from parsers.rule_options import Game

VERB_TEXTS = sorted(str(verb.value) for verb in Verb)


def expected(game: Game, verbs: tuple[str, ...]) -> tuple[list[int], list[int]]:
    return ([rows._VERB_CODE[verb] for verb in verbs],
            [rows._STREET_CODE[street] for street in rows.street_of(game, verbs)])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(Game)), st.lists(st.sampled_from(VERB_TEXTS), max_size=60),
       st.integers(0, 2))
def test_codes_are_those_of_the_streets(game: Game, verbs: list[str], repeat: int) -> None:
    for _ in range(repeat + 1):  # the second time from what 7 & 8 remembers
        assert rows._verb_street_codes(game, tuple(verbs)) == expected(game, tuple(verbs))


def test_each_game_s_own_verbs() -> None:
    """Each game's usual verbs (every one naming its street: looked up), then with a no-op
    among them (taking the street before it)."""
    for game, by_verb in rows._STREET_BY_VERB.items():
        verbs = tuple(by_verb) * 3
        assert rows._verb_street_codes(game, verbs) == expected(game, verbs)
        with_noop = (*verbs[:5], str(Verb.NOOP.value), *verbs[5:])
        assert rows._verb_street_codes(game, with_noop) == expected(game, with_noop)
        assert len(set(expected(game, verbs)[1])) > 1
