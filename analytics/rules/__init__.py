"""Rules engines: the one place the rules of the three games live.

``replay(hand)`` replays a parsed hand with its game's engine and returns the
:class:`Outcome`, or raises :class:`RuleError` at the first illegal step.
"""

from __future__ import annotations

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
    engine = import_module(_ENGINES[hand.game])
    outcome: Outcome = engine.replay(hand)
    return outcome
