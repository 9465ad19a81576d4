"""Cards: one notation and one integer coding for all three games.

Text notation is rank then suit: ``As``, ``Td``, ``2c``; ``??`` is a card nobody
saw.  On input ``10d`` means ``Td`` and the unicode suits ``♣♦♥♠`` (and their
outline forms) are accepted; output always uses the canonical two-character form.

For array work every known card has the integer code ``4 * rank + suit`` with
ranks ``2..A -> 0..12`` and suits ``c, d, h, s -> 0..3``; the unknown card has
code ``-1``.  Card objects are interned: there are exactly 53 of them, so parsing
is a dictionary look-up and identity comparison is safe.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

__all__ = [
    "CARD_OF_TEXT",
    "CARD_PIECES",
    "CODE_OF_TEXT",
    "DECK",
    "UNKNOWN",
    "Card",
    "CardError",
    "Rank",
    "Suit",
    "card_from_code",
    "cards_from_codes",
    "cards_to_codes",
    "format_cards",
    "parse_card",
    "parse_cards",
]


class CardError(ValueError):
    """A card or card list that cannot be read."""


class Rank(IntEnum):
    """Card ranks, ordered as in ordinary poker (deuce low, ace high)."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def symbol(self) -> str:
        """The one-character symbol: ``2``..``9``, ``T``, ``J``, ``Q``, ``K``, ``A``."""
        return RANK_SYMBOLS[self]

    @property
    def pips(self) -> int:
        """The face value 2..14 (ace 14)."""
        return int(self) + 2


class Suit(IntEnum):
    """Card suits in code order (clubs, diamonds, hearts, spades)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        """The one-letter symbol: ``c``, ``d``, ``h``, ``s``."""
        return SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are red; clubs and spades are black."""
        return self in (Suit.DIAMONDS, Suit.HEARTS)


RANK_SYMBOLS: Final = "23456789TJQKA"
SUIT_SYMBOLS: Final = "cdhs"


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card, or the unknown card ``??`` when ``rank`` and ``suit`` are None.

    Do not construct cards directly in hot code: use :func:`parse_card`,
    :func:`card_from_code` or :data:`DECK`, which return the interned instances.
    """

    rank: Rank | None
    suit: Suit | None
    code: int = field(init=False, repr=False, compare=False)
    """``4 * rank + suit``, or -1 for the unknown card (computed once: hot loops read it)."""

    def __post_init__(self) -> None:
        code = -1 if self.rank is None or self.suit is None else 4 * self.rank + self.suit
        object.__setattr__(self, "code", code)

    @property
    def is_known(self) -> bool:
        """False for ``??``."""
        return self.code >= 0

    def __str__(self) -> str:
        if self.rank is None or self.suit is None:
            return "??"
        return RANK_SYMBOLS[self.rank] + SUIT_SYMBOLS[self.suit]

    def __repr__(self) -> str:
        return f"Card({self})"


UNKNOWN: Final = Card(None, None)
DECK: Final[tuple[Card, ...]] = tuple(Card(Rank(code // 4), Suit(code % 4)) for code in range(52))
"""The 52 known cards in code order: ``DECK[c].code == c``."""
CARD_OF_TEXT: Final[dict[str, Card]] = {str(card): card for card in DECK}
"""The 52 known cards by their canonical text (``As``, ``Td``): the writer's notation only,
for quick paths that leave any other spelling, and ``??``, to :func:`parse_cards`."""
CODE_OF_TEXT: Final[dict[str, int]] = {text: card.code for text, card in CARD_OF_TEXT.items()}
"""The code of each known card by its canonical text."""
CARD_PIECES: Final = re.compile("..", re.DOTALL)
"""Consecutive two-character pieces, one per card of a canonical text without separators
(DOTALL: a line break is a character like any other, so an even-length text gives exactly
its slices [0:2], [2:4], ...)."""

_UNICODE_SUITS: Final = {
    "♣": "c", "♧": "c",
    "♦": "d", "♢": "d",
    "♥": "h", "♡": "h",
    "♠": "s", "♤": "s",
}

_BY_TEXT: dict[str, Card] = {"??": UNKNOWN}
for _card in DECK:
    _text = str(_card)
    _BY_TEXT[_text] = _card
    _BY_TEXT[_text[0] + _text[1].upper()] = _card
    _BY_TEXT[_text[0].lower() + _text[1]] = _card
    _BY_TEXT[_text[0].lower() + _text[1].upper()] = _card
    if _text[0] == "T":
        for _suit_text in (_text[1], _text[1].upper()):
            _BY_TEXT["10" + _suit_text] = _card
    for _uni, _ascii in _UNICODE_SUITS.items():
        if _ascii == _text[1]:
            _BY_TEXT[_text[0] + _uni] = _card
            _BY_TEXT[_text[0].lower() + _uni] = _card
            if _text[0] == "T":
                _BY_TEXT["10" + _uni] = _card

# One card token: a rank (10 or one symbol) then a suit (letter or unicode), or ??.
_TOKEN = re.compile(r"\?\?|(?:10|[2-9TJQKAtjqka])[cdhsCDHS♣♧♦♢♥♡♠♤]")
_WORD = re.compile(r"[^ ,\t]+")


def parse_card(text: str) -> Card:
    """Read one card (``As``, ``10d``, ``Q♥``, ``??``); raise :class:`CardError` otherwise."""
    card = _BY_TEXT.get(text)
    if card is None:
        card = _BY_TEXT.get(text.strip())
        if card is None:
            raise CardError(
                f"{text!r} is not a card (expected rank 2-9/T/J/Q/K/A then suit c/d/h/s, or ??)"
            )
    return card


def _scan(text: str) -> Iterator[Card]:
    position = 0
    length = len(text)
    while position < length:
        char = text[position]
        if char in " ,\t":
            position += 1
            continue
        match = _TOKEN.match(text, position)
        if match is None:  # the word it stands in (up to a separator), as written
            word = _WORD.match(text, position)
            snippet = word.group()[:12] if word else char
            raise CardError(f"{snippet!r} at position {position + 1} of {text!r} is not a card"
                            " (a rank 2-9, T or 10, J, Q, K, A, then a suit c, d, h, s)")
        yield _BY_TEXT[match.group()]
        position = match.end()


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read a card list written with or without separators: ``AsKd``, ``As Kd``, ``10d 9♠``.

    The empty string gives the empty tuple.  Duplicates are not checked here:
    whether a card may appear twice is a question for the caller.
    """
    # Fast path: the canonical unseparated form our writer produces, cut into two-character
    # pieces and looked up in C (a comprehension of slices cost 1.7x as much for a deal).
    if len(text) % 2 == 0 and " " not in text:
        try:
            return tuple(map(_CARD_OF_TEXT, CARD_PIECES.findall(text)))
        except KeyError:
            pass
    return tuple(_scan(text))


_CARD_OF_TEXT: Final = _BY_TEXT.__getitem__


def format_cards(cards: Iterable[Card], separator: str = "") -> str:
    """Write cards in canonical notation, by default without separators (``AsKd``)."""
    return separator.join(str(card) for card in cards)


def card_from_code(code: int) -> Card:
    """The card with integer code ``code`` (0..51), or :data:`UNKNOWN` for -1."""
    if code == -1:
        return UNKNOWN
    if not 0 <= code < 52:
        raise CardError(f"card code {code} is out of range 0..51")
    return DECK[code]


def cards_from_codes(codes: Iterable[int]) -> tuple[Card, ...]:
    """Cards from integer codes."""
    return tuple(card_from_code(int(code)) for code in codes)


def cards_to_codes(cards: Iterable[Card]) -> list[int]:
    """Integer codes of cards (-1 for unknown)."""
    return [card.code for card in cards]
