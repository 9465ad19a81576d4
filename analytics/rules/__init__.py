"""Rules engines: the one place the rules of the three games live.

``replay(hand)`` replays a parsed hand with its game's engine and returns the
:class:`Outcome`, or raises :class:`RuleError` at the first illegal step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from analytics.rules import bigtwo, rummoli, seveneight
from analytics.rules.base import Outcome, PotAward, RuleError, ShowdownHand
from parsers.knobs import Game
from parsers.model import ActionFields, HandHistory, with_actions

__all__ = ["Outcome", "PotAward", "RuleError", "ShowdownHand", "replay", "replay_fields"]


def _with_actions_made(engine: Callable[[HandHistory], Outcome]
                       ) -> Callable[[HandHistory, ActionFields], Outcome]:
    """``engine`` for a hand read without its actions: the hand with its actions made."""
    return lambda hand, fields: engine(with_actions(hand, fields))


_REPLAYS: Final[dict[Game, Callable[[HandHistory], Outcome]]] = {
    Game.SEVENEIGHT: seveneight.replay,
    Game.BIGTWO: bigtwo.replay,
    Game.RUMMOLI: rummoli.replay,
}
"""Each game's engine."""

_FIELD_REPLAYS: Final[dict[Game, Callable[[HandHistory, ActionFields], Outcome]]] = {
    Game.SEVENEIGHT: _with_actions_made(seveneight.replay),
    Game.BIGTWO: bigtwo.replay_fields,  # the lean replay reads the columns itself
    Game.RUMMOLI: _with_actions_made(rummoli.replay),
}
"""Each game's engine for a hand read without its actions."""


def replay(hand: HandHistory) -> Outcome:
    """Replay ``hand`` with its game's engine; raise :class:`RuleError` if it is illegal."""
    if hand.errors:
        raise RuleError(f"the hand has parse errors: {hand.errors[0]}", hand=hand)
    if hand.game is None:
        raise RuleError("the hand names no game", hand=hand)
    return _REPLAYS[hand.game](hand)


def replay_fields(hand: HandHistory, fields: ActionFields) -> Outcome:
    """:func:`replay` of a hand read without its actions (``hand.actions`` is empty), whose
    actions are ``fields`` (:func:`parsers.reader.hand_and_fields`, the ingest worker's
    form): an engine that reads the columns itself (Big Two's lean replay) gets them, the
    others the hand with its actions made (:func:`parsers.model.with_actions`)."""
    if hand.game is not None and not hand.errors:
        return _FIELD_REPLAYS[hand.game](hand, fields)
    return replay(with_actions(hand, fields))
