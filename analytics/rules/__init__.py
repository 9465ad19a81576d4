"""Rules engines: the one place the rules of the three games live.

``replay(hand)`` replays a parsed hand with its game's engine and returns the
:class:`Outcome`, or raises :class:`RuleError` at the first illegal step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from analytics.rules.base import Outcome, PotAward, RuleError, ShowdownHand
from analytics.rules.bigtwo.engine import replay as replay_bigtwo
from analytics.rules.rummoli.engine import replay as replay_rummoli
from analytics.rules.seveneight.engine import replay as replay_seveneight
from parsers.model import HandHistory
from parsers.rule_options import Game

__all__ = ["Outcome", "PotAward", "RuleError", "ShowdownHand", "replay"]

_REPLAYS: Final[dict[Game, Callable[[HandHistory], Outcome]]] = {
    Game.SEVENEIGHT: replay_seveneight,
    Game.BIGTWO: replay_bigtwo,
    Game.RUMMOLI: replay_rummoli,
}
"""Each game's engine."""


def replay(hand: HandHistory) -> Outcome:
    """Replay ``hand`` with its game's engine; raise :class:`RuleError` if it is illegal."""
    if hand.errors:
        raise RuleError(f"the hand has parse errors: {hand.errors[0]}", hand=hand)
    if hand.game is None:
        raise RuleError("the hand names no game", hand=hand)
    return _REPLAYS[hand.game](hand)
