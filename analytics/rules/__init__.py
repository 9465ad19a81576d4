"""Rules engines: the one place the rules of the three games live.

``replay(hand)`` replays a parsed hand with its game's engine and returns the
:class:`Outcome`, or raises :class:`RuleError` at the first illegal step.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from analytics.rules.base import Outcome, PotAward, RuleError, ShowdownHand
from parsers.knobs import Game
from parsers.model import HandHistory

__all__ = ["Outcome", "PotAward", "RuleError", "ShowdownHand", "replay"]

_ENGINES = {
    Game.SEVENEIGHT: "analytics.rules.seveneight",
    Game.BIGTWO: "analytics.rules.bigtwo",
    Game.RUMMOLI: "analytics.rules.rummoli",
}


def replay(hand: HandHistory) -> Outcome:
    """Replay ``hand`` with its game's engine; raise :class:`RuleError` if it is illegal."""
    if hand.errors:
        raise RuleError(f"the hand has parse errors: {hand.errors[0]}", hand=hand)
    if hand.game is None:
        raise RuleError("the hand names no game", hand=hand)
    engine = _LOADED.get(hand.game)
    if engine is None:
        engine = _LOADED[hand.game] = import_module(_ENGINES[hand.game]).replay
    outcome: Outcome = engine(hand)
    return outcome


_LOADED: dict[Game, Callable[[HandHistory], Outcome]] = {}
"""Each engine's ``replay``, once imported (``import_module`` costs more than a replay step)."""
