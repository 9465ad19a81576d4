"""One-line descriptions of hands, for ``handlab eval GAME CARDS...``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from analytics.evaluator._common import EvaluationError
from analytics.evaluator.bigtwo import BigTwoCombo, BigTwoKind, bigtwo_combo
from analytics.evaluator.poker import POKER_RANK_COUNT, PokerCategory, poker_rank
from analytics.evaluator.seveneight import SEVENEIGHT_TWO_CARD_CLASSES, seveneight_rank
from parsers.cards import Card, CardError, Rank, Suit, parse_cards
from parsers.rule_options import BigTwoRules

__all__ = ["GAMES", "bigtwo_words", "describe_hand"]

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
    'royal flush (rank 7462 of 7462): A♠ K♠ Q♠ J♠ 10♠'
    >>> describe_hand("bigtwo", "3d 3c")
    'pair of 3s, 3♣ high: 3♣ 3♦'

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
        return (f"{_poker_words(rank.category, rank.best_five)} (rank {rank.value} of "
                f"{POKER_RANK_COUNT}): {_cards(rank.best_five)}")
    if normalised == "seveneight":
        hand78 = seveneight_rank(hand)
        text = (f"{hand78.category.text} (rank {hand78.two_card_value} of "
                f"{SEVENEIGHT_TWO_CARD_CLASSES}): {_cards(hand78.best_two)}")
        if hand78.third is not None:
            text += f", third card {_card(hand78.third)} (breaks ties)"
        return text
    chosen = rules or BigTwoRules()
    play = bigtwo_combo(hand, chosen)
    if play is None:
        raise ValueError(f"{cards!r} is no Big Two play: {_why_no_play(len(hand), chosen)}")
    words = bigtwo_words(play)
    return words if play.kind is BigTwoKind.SINGLE else f"{words}: {_cards(play.cards)}"


_STRAIGHTS_WORDS: Final = {"sg_hk": "3-4-5-6-7 up to 10-J-Q-K-A, 2-3-4-5-6 and A-2-3-4-5, "
                                    "none round the corner",
                           "vietnamese": "3-4-5-6-7 up to 10-J-Q-K-A only",
                           "malaysian": "3-4-5-6-7 up to 10-J-Q-K-A, then A-2-3-4-5 and "
                                        "2-3-4-5-6"}


def _why_no_play(size: int, rules: BigTwoRules) -> str:
    """Why ``size`` cards that the evaluator refuses are no play under ``rules`` (RULES.md
    2), in words: the sizes a play has, or what a play of this size must be."""
    if size == 4 and not rules.four_card_plays:
        return ("four cards make a play only with four_card_plays = true (two pairs, or four "
                "of a kind without a fifth card)")
    if size not in (1, 2, 3, 4, 5):
        sizes = "1, 2, 3, 4 or 5" if rules.four_card_plays else "1, 2, 3 or 5"
        return f"a play has {sizes} cards, not {size}"
    must = {2: "a pair (two cards of one rank)",
            3: "three of a kind",
            4: "two pairs or four of a kind",
            5: (f"a straight (straights = {rules.straights.value}: "
                f"{_STRAIGHTS_WORDS[rules.straights.value]}), a flush, a full house, four of a "
                "kind with one more card, or a straight flush")}
    return f"{size} cards make a play only as {must[size]}"


_SUIT_SIGNS: Final = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_FACES: Final = {Rank.TEN: "10", Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king",
                 Rank.ACE: "ace"}


def _card(card: Card) -> str:
    """A card as people write it: ``10♥``, ``A♠``, ``3♣``."""
    if card.rank is None or card.suit is None:
        return "??"
    rank = "10" if card.rank is Rank.TEN else card.rank.symbol
    return f"{rank}{_SUIT_SIGNS[card.suit]}"


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(_card(card) for card in cards)


def _rank(rank: Rank | None) -> str:
    """A rank in words: ``3``, ``10``, ``jack``, ``ace``."""
    assert rank is not None
    return _FACES.get(rank, rank.symbol)


def _ranks(rank: Rank | None) -> str:
    """A rank in the plural: ``3s``, ``10s``, ``jacks``, ``aces``."""
    return f"{_rank(rank)}s"


def _groups(cards: tuple[Card, ...]) -> list[Rank | None]:
    """The ranks of the cards, the most numerous first (then the higher)."""
    counts: dict[Rank | None, int] = {}
    for card in cards:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    return sorted(counts, key=lambda r: (counts[r], -1 if r is None else int(r)), reverse=True)


def _poker_words(category: PokerCategory, five: tuple[Card, ...]) -> str:
    """``two pair, aces and 7s``, ``straight, 5 high``: the category and what makes it."""
    ranks = _groups(five)
    top = five[0].rank  # best_five is strongest first (the 5 of a five-high straight)
    words = {
        PokerCategory.HIGH_CARD: f"high card, {_rank(ranks[0])} high",
        PokerCategory.PAIR: f"pair of {_ranks(ranks[0])}",
        PokerCategory.TWO_PAIR: f"two pair, {_ranks(ranks[0])} and {_ranks(ranks[1])}",
        PokerCategory.THREE_OF_A_KIND: f"three of a kind, {_ranks(ranks[0])}",
        PokerCategory.STRAIGHT: f"straight, {_rank(top)} high",
        PokerCategory.FLUSH: f"flush, {_rank(ranks[0])} high",
        PokerCategory.FULL_HOUSE: f"full house, {_ranks(ranks[0])} over {_ranks(ranks[1])}",
        PokerCategory.FOUR_OF_A_KIND: f"four of a kind, {_ranks(ranks[0])}",
        PokerCategory.STRAIGHT_FLUSH: ("royal flush" if top is Rank.ACE
                                       else f"straight flush, {_rank(top)} high"),
    }
    return words[category]


def bigtwo_words(play: BigTwoCombo) -> str:
    """A Big Two play in words, with what decides it against a play of its kind:
    ``pair of 3s, 3♣ high``, ``full house, 8s over 4s``, ``flush in ♥, ace high``."""
    cards = play.cards  # strongest first in Big Two order (the 2 of 2-3-4-5-6)
    ranks = _groups(cards)
    high = _card(cards[0])
    kind = play.kind
    if kind is BigTwoKind.SINGLE:
        return f"single {high}"
    if kind is BigTwoKind.PAIR:
        return f"pair of {_ranks(ranks[0])}, {high} high"
    if kind is BigTwoKind.TRIPLE:
        return f"three {_ranks(ranks[0])}"
    if kind is BigTwoKind.TWO_PAIRS:
        return f"two pairs, {_ranks(cards[0].rank)} and {_ranks(cards[3].rank)}, {high} high"
    if kind is BigTwoKind.FOUR_OF_A_KIND:
        others = [card for card in cards if card.rank != ranks[0]]
        return f"four {_ranks(ranks[0])}" + (f" with {_card(others[0])}" if others else "")
    if kind is BigTwoKind.FULL_HOUSE:
        return f"full house, {_ranks(ranks[0])} over {_ranks(ranks[1])}"
    if kind is BigTwoKind.FLUSH:
        assert cards[0].suit is not None
        return f"flush in {_SUIT_SIGNS[cards[0].suit]}, {_rank(cards[0].rank)} high"
    run = "-".join(_card(card)[:-1] for card in _run_order(cards))
    name = "straight flush" if kind is BigTwoKind.STRAIGHT_FLUSH else "straight"
    return f"{name} {run}, {high} high"


def _run_order(cards: tuple[Card, ...]) -> list[Card]:
    """The cards of a straight from its bottom to its top as people say it (A-2-3-4-5,
    2-3-4-5-6, 3-4-5-6-7 ... 10-J-Q-K-A)."""
    ranks = {card.rank for card in cards}
    ordered = sorted(cards, key=lambda c: -1 if c.rank is None else int(c.rank))
    if Rank.ACE in ranks and Rank.TWO in ranks:  # A-2-3-4-5: the ace at the bottom
        return ordered[-1:] + ordered[:-1]
    return ordered
