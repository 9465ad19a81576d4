"""Big Two: each player's passes in one game, and those he made holding a beating play.

``pass_with_play`` (:mod:`analytics.stats.definitions`) counts the passes a player made
while he held a legal play that beats the last play of the trick, over all his passes.
The rules engine counts both as it applies each pass (:meth:`BigTwoState.can_beat`, the
rule :meth:`~BigTwoState.legal_plays` follows: as many cards as the trick's lead, stronger
than its last play; RULES.md 2 has no bombs, so a four of a kind never beats a single), so
every replay's outcome carries them (``extra["passes"]``, ``extra["passes_with_play"]``):
the ingest takes them from its one replay.  The leader of a trick may not pass, so every
pass faces a play.  :func:`game_passes` replays a stored game's actions for the same counts.
"""

from __future__ import annotations

from collections.abc import Iterable

from analytics.rules.bigtwo.engine import BigTwoState
from parsers.model import Action
from parsers.rule_options import BigTwoRules

__all__ = ["game_passes"]


def game_passes(rules: BigTwoRules, players: int, actions: Iterable[Action]
                ) -> list[tuple[int, int]]:
    """Per player 1..``players``: (passes, passes made holding a play that beats the
    trick), as the engine counts them while it applies ``actions``.  Raises
    :class:`~analytics.rules.base.RuleError` on an action the engine refuses (a stored game
    never has one)."""
    state = BigTwoState(rules, players)
    for action in actions:
        state.apply(action)
    return list(zip(state.pass_counts[1:], state.passes_with_play[1:], strict=True))
