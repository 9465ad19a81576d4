"""Big Two: each player's passes in one game, and those he made holding a beating play.

``pass_with_play`` (:mod:`analytics.stats.definitions`) counts the passes a player made
while he held a legal play that beats the last play of the trick, over all his passes.
Whether he held one is the rules engine's answer (:meth:`BigTwoState.can_beat`, the rule
:meth:`~BigTwoState.legal_plays` follows: as many cards as the trick's lead, stronger
than its last play; RULES.md 2 has no bombs, so a four of a kind never beats a single).
The leader of a trick may not pass, so every pass faces a play.  The game is replayed
once, from its deal, and the question is asked just before each pass.
"""

from __future__ import annotations

from collections.abc import Iterable

from analytics.rules.bigtwo import BigTwoState
from parsers.knobs import BigTwoRules
from parsers.model import Action, Verb

__all__ = ["game_passes"]


def game_passes(rules: BigTwoRules, players: int, actions: Iterable[Action]
                ) -> list[tuple[int, int]]:
    """Per player 1..``players``: (passes, passes made holding a play that beats the
    trick).  Raises :class:`~analytics.rules.base.RuleError` on an action the engine
    refuses (a stored game never has one)."""
    state = BigTwoState(rules, players)
    passes = [0] * (players + 1)
    with_play = [0] * (players + 1)
    for action in actions:
        if action.verb is Verb.PASS:
            passes[action.actor] += 1
            if state.turn == action.actor and state.can_beat():
                with_play[action.actor] += 1
        state.apply(action)
    return list(zip(passes[1:], with_play[1:], strict=True))
