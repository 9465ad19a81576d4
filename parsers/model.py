"""Typed, immutable hand-history objects shared by the three games.

A :class:`HandHistory` is what the reader yields and the writer writes; the
rules engines replay its :class:`Action` list.  Equality ignores where a hand was
read from (source, line numbers, raw text), so ``read(write(h)) == h``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from parsers.cards import Card
from parsers.errors import ParseError
from parsers.rule_options import BigTwoRules, Game, RummoliRules, SevenEightRules

__all__ = [
    "DEALER",
    "FORMAT_VERSION",
    "RUMMOLI_POTS",
    "RUMMOLI_POT_WORDS",
    "Action",
    "GameRules",
    "HandHistory",
    "Verb",
    "actor_name",
]

FORMAT_VERSION: Final = 1
"""The version of the handlab format this package reads and writes."""

DEALER: Final = 0
"""Actor number of the dealer ``d``; players are 1..N (``p1``..``pN``)."""

RUMMOLI_POTS: Final = ("poker", "TS", "JD", "QC", "KH", "AS", "AKD", "789", "rummoli")
"""The nine Rummoli pots, in the order of the ``board_before`` array."""

RUMMOLI_POT_WORDS: Final = dict(zip(RUMMOLI_POTS, (
    "poker", "10♠", "J♦", "Q♣", "K♥", "A♠", "A♦ K♦", "7-8-9", "Rummoli"), strict=True))
"""Rummoli's nine pots as players name them, by the cards that win them, in board order
(the file and the warehouse store ``TS``, ``AKD``, ``789``...)."""

GameRules = RummoliRules | BigTwoRules | SevenEightRules


class Verb(StrEnum):
    """Action verbs.  PHH's verbs where the meaning is the same, handlab's own otherwise."""

    # PHH verbs
    DEAL_HOLE = "dh"  # d dh pN CARDS: cards dealt face down to a player
    BET_RAISE = "cbr"  # pN cbr AMOUNT: bet, or raise to AMOUNT (a total for the round)
    CHECK_CALL = "cc"  # pN cc
    FOLD = "f"  # pN f
    SHOW_MUCK = "sm"  # pN sm [CARDS]: show cards, or muck when none are given
    NOOP = ""  # an empty or commentary-only action
    # 7 & 8
    TURN_UP = "up"  # pN up CARD: the hole card the player turns face up
    # Rummoli
    DEAL_WIDOW = "dw"  # d dw CARDS: the widow's cards
    EXCHANGE = "xw"  # pN xw: the dealer exchanges his hand for the widow
    PASS_WIDOW = "pw"  # pN pw: the dealer keeps his hand; the widow is auctioned
    BID = "ab"  # pN ab AMOUNT: an auction bid
    BID_PASS = "ap"  # pN ap: passes in the auction
    AUCTION_WIN = "aw"  # pN aw AMOUNT: wins the auction at AMOUNT, pays the dealer, exchanges
    CLAIM = "cl"  # pN cl POT: claims a pot (claim = manual)
    IMPASSE = "im"  # d im: nobody holds a card of the required colour
    # Big Two and Rummoli's card phase
    PLAY = "pl"  # pN pl CARDS: plays (Big Two) or lays (Rummoli) cards
    PASS = "ps"  # pN ps: passes (Big Two)


def actor_name(actor: int) -> str:
    """``d`` for the dealer, ``pN`` for player N."""
    return "d" if actor == DEALER else f"p{actor}"


@dataclass(frozen=True, slots=True)
class Action:
    """One step of a hand: who did what, with which cards or chips.

    ``actor`` is 0 for the dealer and N for player ``pN``.  ``target`` is the
    player dealt to by ``d dh pN``.  An action is a value: the reader shares one object
    among every hand that holds the same text, and where it stands in its source is the
    hand's (:meth:`HandHistory.action_line`).
    """

    actor: int
    verb: Verb
    cards: tuple[Card, ...] = ()
    amount: int | None = None
    target: int | None = None
    pot: str | None = None
    comment: str | None = None

    def notation(self) -> str:
        """The action in handlab/PHH notation, e.g. ``p2 cbr 6`` or ``d dh p1 AsKd``."""
        from parsers.writer import format_action  # local: writer imports this module

        return format_action(self)


@dataclass(frozen=True, slots=True)
class HandHistory:
    """One hand (7 & 8), game (Big Two) or round (Rummoli) as recorded.

    The fields mirror the format (docs/format.md).  When the reader found
    problems, ``errors`` lists them and the other fields hold what could be
    read; such a hand must not be replayed.  ``source``, ``line``, ``action_lines``,
    ``index``, ``raw`` and ``errors`` describe where the hand came from and are not part
    of equality.
    """

    game: Game | None
    variant: str
    rules: GameRules | None
    actions: tuple[Action, ...] = ()
    format_version: int = FORMAT_VERSION
    # Chips and stakes (PHH)
    starting_stacks: tuple[int, ...] | None = None
    antes: tuple[int, ...] | None = None
    blinds_or_straddles: tuple[int, ...] | None = None
    min_bet: int | None = None
    small_bet: int | None = None
    big_bet: int | None = None
    finishing_stacks: tuple[int, ...] | None = None
    winnings: tuple[int, ...] | None = None
    currency: str | None = None
    # Who, where, when (PHH)
    players: tuple[str, ...] | None = None
    seats: tuple[int, ...] | None = None
    seat_count: int | None = None
    hand: int | str | None = None
    table: int | str | None = None
    event: str | None = None
    author: str | None = None
    venue: str | None = None
    url: str | None = None
    city: str | None = None
    region: str | None = None
    country: str | None = None
    time: dt.time | None = None
    time_zone: str | None = None
    day: int | None = None
    month: int | None = None
    year: int | None = None
    # handlab additions
    dealer: int | None = None
    game_id: str | None = None
    round: int | None = None
    board_before: tuple[int, ...] | None = None
    finale_pot: str | None = None
    cards_left: tuple[int, ...] | None = None
    takes_all_losses: int | None = None
    as_recorded: bool | None = None
    user_fields: tuple[tuple[str, object], ...] = ()
    # Provenance (not part of equality)
    source: str = field(default="<string>", compare=False)
    line: int = field(default=1, compare=False)
    action_lines: tuple[int, ...] | range = field(default=(), compare=False, repr=False)
    index: int = field(default=1, compare=False)
    raw: str = field(default="", compare=False, repr=False)
    errors: tuple[ParseError, ...] = field(default=(), compare=False)

    def action_line(self, index: int) -> int | None:
        """The source line of action ``index``; None when the hand's actions were not read
        from a text with their lines (made by a program, or replaced since)."""
        lines = self.action_lines
        if len(lines) != len(self.actions) or not 0 <= index < len(lines):
            return None
        return lines[index]

    @property
    def ok(self) -> bool:
        """True when the hand was read without errors."""
        return not self.errors

    @property
    def outcome_only(self) -> bool:
        """True for a Big Two game recorded by its outcome only (``cards_left``, no plays)."""
        return self.cards_left is not None

    @property
    def num_players(self) -> int:
        """The number of players: the length of ``starting_stacks``, else of ``players``."""
        for sizes in (self.starting_stacks, self.players):
            if sizes is not None:
                return len(sizes)
        return 0

    @property
    def date(self) -> dt.date | None:
        """The date of play when ``year``, ``month`` and ``day`` are all given; None when one
        is not.  The reader refuses an impossible date; a hand made with one raises
        ValueError here rather than lose its date (stored without it, the hand would move
        to the day it was loaded)."""
        if self.year is None or self.month is None or self.day is None:
            return None
        try:
            return dt.date(self.year, self.month, self.day)
        except ValueError as error:
            raise ValueError(f"year {self.year}, month {self.month}, day {self.day} is not a"
                             f" date: {error}") from None

    def player_name(self, seat: int) -> str:
        """The name of player ``seat`` (1-based), or ``pN`` when names are not recorded."""
        if self.players is not None and 1 <= seat <= len(self.players) and self.players[seat - 1]:
            return self.players[seat - 1]
        return f"p{seat}"
