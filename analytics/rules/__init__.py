"""Rules engines: the one place the rules of the three games live.

``replay(hand)`` replays a parsed hand with its game's engine and returns the
:class:`Outcome`, or raises :class:`RuleError` at the first illegal step.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from analytics.rules.base import Outcome, PotAward, RuleError, ShowdownHand
from parsers.knobs import Game
from parsers.model import ActionFields, HandHistory, with_actions

__all__ = ["Outcome", "PotAward", "RuleError", "ShowdownHand", "replay", "replay_fields"]

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


def replay_fields(hand: HandHistory, fields: ActionFields) -> Outcome:
    """:func:`replay` of a hand read without its actions (``hand.actions`` is empty), whose
    actions are ``fields`` (:func:`parsers.reader.hand_and_fields`, the ingest worker's
    form): an engine that reads the columns itself (Big Two's lean replay) gets them, the
    others the hand with its actions made (:func:`parsers.model.with_actions`)."""
    if hand.game is not None and not hand.errors:
        engine = _LOADED_FIELDS.get(hand.game)
        if engine is None:
            module = import_module(_ENGINES[hand.game])
            engine = _LOADED_FIELDS[hand.game] = getattr(module, "replay_fields", None) or (
                lambda hand, fields: module.replay(with_actions(hand, fields)))
        return engine(hand, fields)
    return replay(with_actions(hand, fields))


_LOADED_FIELDS: dict[Game, Callable[[HandHistory, ActionFields], Outcome]] = {}
"""Each engine's ``replay_fields`` (or ``replay`` of the hand with its actions), once found."""
