"""One-line descriptions of hands, for ``handlab eval GAME CARDS...``."""

from __future__ import annotations

from typing import Final

from analytics.evaluator._common import EvaluationError
from analytics.evaluator.bigtwo import bigtwo_combo
from analytics.evaluator.poker import POKER_RANK_COUNT, poker_rank
from analytics.evaluator.seveneight import SEVENEIGHT_TWO_CARD_CLASSES, seveneight_rank
from parsers.cards import CardError, parse_cards
from parsers.knobs import BigTwoRules

__all__ = ["GAMES", "describe_hand"]

_ALIASES: Final = {
    "poker": "poker",
    "rummoli": "poker",
    "seveneight": "seveneight",
    "7and8": "seveneight",
    "78": "seveneight",
    "bigtwo": "bigtwo",
    "big2": "bigtwo",
}
GAMES: Final = tuple(_ALIASES)
"""Game names :func:`describe_hand` accepts (``rummoli`` means its poker hand)."""


def describe_hand(game: str, cards: str, rules: BigTwoRules | None = None) -> str:
    """Describe a hand in one line: category and rank.

    ``game`` is ``poker`` (or ``rummoli``), ``seveneight`` or ``bigtwo`` (see
    :data:`GAMES`); ``cards`` is card text such as ``"As Ks Qs Js Ts"``.
    ``rules`` applies to Big Two only (default rules otherwise).

    >>> describe_hand("poker", "AsKsQsJsTs")
    'straight flush (rank 7462 of 7462): As Ks Qs Js Ts'

    Raises ``ValueError`` with a readable message for an unknown game, unreadable
    cards or a wrong number of cards.
    """
    normalised = _ALIASES.get(game.strip().lower().replace("&", "and").replace(" ", ""))
    if normalised is None:
        raise ValueError(f"unknown game {game!r}: expected one of {', '.join(GAMES)}")
    try:
        hand = parse_cards(cards)
    except CardError as error:
        raise EvaluationError(str(error)) from error
    if normalised == "poker":
        rank = poker_rank(hand)
        best = " ".join(str(card) for card in rank.best_five)
        return f"{rank.category.text} (rank {rank.value} of {POKER_RANK_COUNT}): {best}"
    if normalised == "seveneight":
        hand78 = seveneight_rank(hand)
        text = (
            f"{hand78.category.text} (rank {hand78.two_card_value} of "
            f"{SEVENEIGHT_TWO_CARD_CLASSES}, value {hand78.value}): "
            + " ".join(str(card) for card in hand78.best_two)
        )
        if hand78.third is not None:
            text += f", third card {hand78.third}"
        return text
    play = bigtwo_combo(hand, rules or BigTwoRules())
    if play is None:
        raise ValueError(f"{cards!r} is not a legal Big Two combination under these rules")
    return f"{play.kind.text} (key {play.key}): " + " ".join(str(card) for card in play.cards)
