"""What every rules engine shares: the error it raises and the outcome it derives.

Each game's engine (``seveneight``, ``bigtwo``, ``rummoli``) replays a parsed
:class:`~parsers.model.HandHistory` action by action.  The first illegal step
raises :class:`RuleError`, which names the hand, the action (index and source
line) and the rule broken in words a player understands.  A hand that replays
cleanly gives an :class:`Outcome`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from parsers.errors import HandlabError
from parsers.model import Action, HandHistory, actor_name
from parsers.writer import format_action

__all__ = ["Outcome", "PotAward", "RuleError", "ShowdownHand", "permits"]


class RuleError(HandlabError):
    """An illegal or inconsistent step in a hand history.

    ``str(error)`` reads like ``games.phhs:57: hand 3: actions[12] 'p3 cbr 6':
    raise to 6 is below the minimum raise to 8``.  ``action_index`` is None for
    problems with the hand as a whole (for example chips that do not balance).
    """

    def __init__(
        self,
        message: str,
        *,
        hand: HandHistory | None = None,
        action_index: int | None = None,
        action: Action | None = None,
        rule: str | None = None,
    ) -> None:
        self.message = message
        self.source = hand.source if hand is not None else "<hand>"
        self.hand_index = hand.index if hand is not None else None
        self.action_index = action_index
        self.action_text = format_action(action) if action is not None else None
        line = (hand.action_line(action_index)
                if hand is not None and action_index is not None else None)
        self.line = line if line else (hand.line if hand is not None else None)
        self.rule = rule
        super().__init__(str(self))

    def located(self, hand: HandHistory, action_index: int | None = None,
                action: Action | None = None) -> RuleError:
        """This error placed in ``hand`` (at action ``action_index`` when given).

        Engines raise errors without knowing where the hand came from; ``replay``
        re-raises them through this so every message names the file, line and action.
        """
        return RuleError(self.message, hand=hand, action_index=action_index, action=action,
                         rule=self.rule)

    def __str__(self) -> str:
        parts = [self.source + (f":{self.line}" if self.line is not None else "")]
        if self.hand_index is not None:
            parts.append(f"hand {self.hand_index}")
        if self.action_index is not None:
            parts.append(f"actions[{self.action_index}] {self.action_text!r}")
        parts.append(self.message)
        return ": ".join(parts)

    def __reduce__(self) -> tuple[object, ...]:
        # Errors cross process boundaries in parallel ingest: keep the rendered fields.
        return (_rebuild_rule_error, (self.message, self.source, self.hand_index,
                                      self.action_index, self.action_text, self.line, self.rule))


def _rebuild_rule_error(message: str, source: str, hand_index: int | None,
                        action_index: int | None, action_text: str | None, line: int | None,
                        rule: str | None) -> RuleError:
    error = RuleError.__new__(RuleError)
    error.message, error.source, error.hand_index = message, source, hand_index
    error.action_index, error.action_text, error.line, error.rule = (
        action_index, action_text, line, rule)
    Exception.__init__(error, str(error))
    return error


def permits(verify: Callable[..., object], *args: object) -> bool:
    """True when ``verify(*args)`` raises no :class:`RuleError`: the ``can_x`` of a ``verify_x``."""
    try:
        verify(*args)
    except RuleError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class PotAward:
    """Chips (or points) a player won from one pot.

    ``pot`` names the pot: ``main``, ``side1``, ``side2``... for betting games,
    a Rummoli pot name (``poker``, ``TS``, ... ``rummoli``), ``auction`` or
    ``payments`` for Rummoli's side transfers, ``game`` for Big Two.
    """

    pot: str
    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class ShowdownHand:
    """A hand shown down, re-scored by the shared evaluator.

    ``rank`` orders hands within the game (higher is better); ``category`` is the
    evaluator's category name (``flush``, ``seven_eight``, ...).
    """

    player: int
    cards: str
    category: str
    rank: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a replayed hand comes to.

    ``nets[i]`` is player ``i + 1``'s net result in chips (points for Big Two).
    Conservation: 7 & 8 and Big Two nets sum to 0; for Rummoli the nets plus
    the change of the board sum to 0.  ``board_after`` is the Rummoli board
    after the round (same order as ``RUMMOLI_POTS``); ``finishing_order`` lists
    Big Two players in the order they went out.
    """

    nets: tuple[int, ...]
    awards: tuple[PotAward, ...] = ()
    showdown: tuple[ShowdownHand, ...] = ()
    finishing_stacks: tuple[int, ...] | None = None
    board_after: tuple[int, ...] | None = None
    finishing_order: tuple[int, ...] = ()
    winner: int | None = None
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    def describe(self) -> str:
        """One line per player: ``p1 +12``."""
        return ", ".join(f"{actor_name(i + 1)} {net:+d}" for i, net in enumerate(self.nets))
