"""The 7 & 8 block scanner: many chunks of the writer's layout to one :class:`SevenEightBlock`.

:func:`scan_seveneight` reads the chunks of a file (:func:`parsers.reader.iter_chunks`)
in bulk.  One regular expression per hand checks that its text has the writer's layout
(:mod:`parsers.writer`: the keys in their order, one space around ``=``, one action per
line) and cuts it into a few pieces.  Most pieces repeat from hand to hand -- the
stakes lines, the players and seats, the table and date, the action lines, the user
fields but the benchmark's ``_copy`` -- and are read once per distinct text, strictly
(anything but canonical numbers and strings without escapes is refused); the numbers
that change with every hand (stacks, winnings) are checked and converted for all hands
at once, in C.  Actions are read once per distinct line: the new lines of a batch in the
writer's strict form together (one regular expression, numpy over the pieces), any other
by the reader's own action parser.

A chunk outside that layout, or that the per-hand path
(:func:`parsers.reader.hand_from_chunk`) reads with a problem, or as a hand a block
cannot hold, is declined: the caller reads it there.  Declining costs speed, never
correctness; so the checks below only ever need to be sufficient, and each mirrors one
of :mod:`parsers.build` (player counts, list lengths, ranges, actors, cards dealt twice)
or of :class:`SevenEightBlock`'s scope.  tests/test_parsers_block.py checks that every
hand taken holds exactly the values :func:`tests.block_reference.block_from_hands` gives from the
per-hand path's reading.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from itertools import compress, repeat
from operator import attrgetter
from typing import Final

import numpy as np
import numpy.typing as npt

from parsers.actions import GAME_VERBS, ActionSyntaxError, parse_action
from parsers.block import MAX_ACTION_CARDS, NO_VALUE, VERB_CODE, SevenEightBlock
from parsers.build import MAX_CHIPS, PLAYER_LIMITS, visible_name
from parsers.caching import BoundedCache
from parsers.cards import RANK_SYMBOLS, SUIT_SYMBOLS, UNKNOWN
from parsers.model import Verb
from parsers.reader import Chunk
from parsers.rule_options import Game

__all__ = ["BLOCK_VARIANT_END", "scan_seveneight", "scan_texts"]

Ints = npt.NDArray[np.int64]

_LOW, _HIGH = PLAYER_LIMITS[Game.SEVENEIGHT]
_CACHE_LIMIT: Final = 100_000
"""Entries of each cache of distinct texts (cleared when full)."""

# ---- the strict forms, checked once per distinct text

# Canonical numbers only (no sign, underscore or leading zero), few enough digits to stay
# within the per-hand path's bounds: chips up to MAX_CHIPS (15 digits), counts below 2**31.
_CHIPS: Final = r"(?:0|[1-9][0-9]{0,14})"
_POSITIVE_CHIPS: Final = r"[1-9][0-9]{0,14}"
_COUNT: Final = r"(?:0|[1-9][0-9]{0,8})"
_STRING: Final = r'[^"\\\x00-\x1f\x7f-\x9f]*'
"""A TOML basic string's body without escapes or control characters (C0 and C1, which the
reader refuses in a name or a label, parsers.build.has_control): what the reader's
one-line forms take as it is."""
_CHIP_LIST: Final = rf"({_CHIPS}(?:, {_CHIPS})*)"
_USER_INT: Final = r"(?:0|-?[1-9][0-9]{0,15})"
_USER_KEY: Final = r"_[A-Za-z0-9_-]*"
_USER_VALUE: Final = (rf'(?:{_USER_INT}|"{_STRING}"|\[\]|\["{_STRING}"(?:, "{_STRING}")*\]'
                      rf"|\[{_USER_INT}(?:, {_USER_INT})*\])")
"""A user field's value: an integer, a string, an array of either (the simulator's ``_rebuys``)."""

_STAKES: Final = re.compile(
    'variant = "((?:[NP]|(F))78)"\n'
    rf"antes = \[{_CHIP_LIST}\]\n"
    rf"blinds_or_straddles = \[{_CHIP_LIST}\]\n"
    f"(?(2)small_bet = ({_POSITIVE_CHIPS})\nbig_bet = ({_POSITIVE_CHIPS})"
    f"|min_bet = ({_POSITIVE_CHIPS}))")
_PLAYERS: Final = re.compile(
    f'players = \\[("{_STRING}"(?:, "{_STRING}")*)\\]\n'
    rf"seats = \[{_CHIP_LIST}\]\n"
    f"seat_count = ({_COUNT})")
_TABLE: Final = re.compile(f'table = "({_STRING})"')
_TIME: Final = re.compile("([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])")
_DATE: Final = re.compile(f"day = ({_COUNT})\nmonth = ({_COUNT})\nyear = ({_COUNT})")
_USER_FIELD: Final = re.compile(f"({_USER_KEY}) = ({_USER_VALUE})")
_ACTION_LINE: Final = re.compile(f'  "({_STRING})')
_PLAIN_CHIP_LIST: Final = re.compile(_CHIP_LIST)
_LEADING_ZERO: Final = re.compile(" 0[0-9]")

# ---- the hand

_LINE: Final = "[^\n]*"
_HAND: Final = re.compile(
    "format_version = 1\n"
    f"(variant = {_LINE}\nantes = {_LINE}\nblinds_or_straddles = {_LINE}\n"
    f"(?:min_bet = {_LINE}|small_bet = {_LINE}\nbig_bet = {_LINE}))\n"
    r"starting_stacks = \[([0-9, ]+)\]\n"
    'actions = \\[\n([^\\]]*",\n)\\]\n'
    r"finishing_stacks = \[([0-9, ]+)\]\n"
    r"winnings = \[([0-9, ]+)\]\n"
    f"(players = {_LINE}\nseats = {_LINE}\nseat_count = {_LINE})\n"
    f"hand = ({_CHIPS})\n"
    # The time apart: it changes from hand to hand, the table and the date lines repeat.
    f"(table = {_LINE})\ntime = ({_LINE})\n(day = {_LINE}\nmonth = {_LINE}\nyear = {_LINE})"
    # The user fields, the last one apart when it is an integer (the benchmark's ``_copy``,
    # different in every hand): the others repeat.
    "((?:\n_[^\n]*)*?)"
    f"(?:\n({_USER_KEY}) = ({_USER_INT}))?"
    "\n?"
)
"""A whole hand in the writer's layout (its text without the table header), cut into: the
stakes lines, starting_stacks, the action lines, finishing_stacks, winnings, the players
lines, hand, the table line, the time's value, the date lines, the user field lines but a
last integer one, its key and its value.  The pieces that repeat from hand to hand (and
the times, of which there are 86,400) are only delimited here (a strict pattern costs the
engine twice the time): they are read strictly once per distinct text
(:meth:`~parsers.caching.BoundedCache.values_of`); the arrays of chips that change with
every hand are checked in bulk (:func:`_plain_lists`), the action lines one by one
(:class:`ActionTable`)."""


_REFUSED: Final = -1
"""The player count of a piece the block does not read: no hand has it, so it is declined."""

Stakes = tuple[int, str, int, int, int, str, str]
"""Player count, variant, min_bet, small_bet, big_bet (NO_VALUE when absent), the antes'
and the blinds' text."""


def _stakes(text: str) -> Stakes:
    found = _STAKES.fullmatch(text)
    if found is None:
        return _REFUSED, "", NO_VALUE, NO_VALUE, NO_VALUE, "", ""
    variant, _, antes, blinds, small_bet, big_bet, min_bet = found.groups()
    count = antes.count(",") + 1
    if blinds.count(",") + 1 != count:
        count = _REFUSED
    return (count, variant, _number(min_bet), _number(small_bet), _number(big_bet), antes,
            blinds)


def _number(text: str | None) -> int:
    return NO_VALUE if text is None else int(text)


Players = tuple[int, tuple[str, ...], tuple[int, ...], int]
"""Player count, players, seats, seat_count."""


def _players(text: str) -> Players:
    found = _PLAYERS.fullmatch(text)
    if found is None:
        return _REFUSED, (), (), 0
    names = tuple(found.group(1)[1:-1].split('", "'))  # no quote inside a name
    seats = tuple(map(int, found.group(2).split(", ")))
    seat_count = int(found.group(3))
    # A blank, padded or repeated name, a repeated seat or one off the table: the general
    # reader says which (parsers.build's seating check).
    seated = (len(seats) == len(names) == len(set(names)) == len(set(seats))
              and all(visible_name(name) and name == name.strip() for name in names)
              and all(1 <= seat <= seat_count for seat in seats))
    return (len(names) if seated else _REFUSED), names, seats, seat_count


Table = tuple[bool, str]
"""Whether readable, table."""


def _table(text: str) -> Table:
    found = _TABLE.fullmatch(text)
    return (False, "") if found is None else (True, found.group(1))


Time = tuple[bool, dt.time]
"""Whether readable, time."""


def _time(text: str) -> Time:
    found = _TIME.fullmatch(text)
    if found is None:
        return False, dt.time()
    hour, minute, second = found.groups()
    return True, dt.time(int(hour), int(minute), int(second))


Date = tuple[bool, int, int, int]
"""Whether readable, day, month, year."""


def _date(text: str) -> Date:
    found = _DATE.fullmatch(text)
    if found is None:
        return False, 0, 0, 0
    day, month, year = map(int, found.groups())
    try:  # an impossible date is the per-hand path's error (parsers.build's date check)
        dt.date(year, month, day)
    except ValueError:
        return False, 0, 0, 0
    return True, day, month, year


UserFields = tuple[tuple[str, object], ...]
UserLines = tuple[bool, UserFields, frozenset[str]]
"""Whether readable, the (key, value) pairs, their keys."""


def _user_lines(text: str) -> UserLines:
    """The user field lines (each ``\\n_key = value``), unless a key is given twice (not TOML:
    the per-hand path reports it)."""
    fields = []
    for line in text[1:].split("\n") if text else ():
        found = _USER_FIELD.fullmatch(line)
        if found is None:
            return False, (), frozenset()
        fields.append((found.group(1), _user_value(found.group(2))))
    keys = frozenset(key for key, _ in fields)
    return len(keys) == len(fields), tuple(fields), keys


def _user_value(text: str) -> object:
    """A user field's value as the reader's one-line forms read it (arrays are lists)."""
    if text[0] == '"':
        return text[1:-1]
    if text == "[]":
        return []
    if text[:2] == '["':
        return text[2:-2].split('", "')
    if text[0] == "[":
        return [*map(int, text[1:-1].split(", "))]
    return int(text)


_STAKES_CACHE: Final = BoundedCache[str, Stakes]("parsers.block_scan.stakes", _CACHE_LIMIT)
_PLAYERS_CACHE: Final = BoundedCache[str, Players]("parsers.block_scan.players", _CACHE_LIMIT)
_TABLE_CACHE: Final = BoundedCache[str, Table]("parsers.block_scan.table", _CACHE_LIMIT)
_TIME_CACHE: Final = BoundedCache[str, Time]("parsers.block_scan.time", _CACHE_LIMIT)
"""Times by their text: at most 86,400 readable ones."""
_DATE_CACHE: Final = BoundedCache[str, Date]("parsers.block_scan.date", _CACHE_LIMIT)
_USER_CACHE: Final = BoundedCache[str, UserLines]("parsers.block_scan.user", _CACHE_LIMIT)

# ---- actions

_UNUSABLE: Final = 1_000
"""The reach of an action line the block cannot hold: more than any player count."""
_UNUSABLE_ROW: Final = (0, 0, NO_VALUE, NO_VALUE, _UNUSABLE, 0, NO_VALUE, NO_VALUE, NO_VALUE)
_DEAL: Final = VERB_CODE[Verb.DEAL_HOLE]
_BET: Final = VERB_CODE[Verb.BET_RAISE]


class ActionTable:
    """Every action line seen, parsed once, as a row of values: actor, verb code, target,
    amount, reach, card count, three card codes (the block's columns); and its card text.
    Rows start at 1.

    ``reach`` is the highest player an action names (actor or target), which the hand
    must have; :data:`_UNUSABLE` for a line the per-hand path reports or a block does not
    hold (a comment, ``??``, more than :data:`MAX_ACTION_CARDS` cards).

    The new lines of a batch in the writer's strict form are read together
    (:func:`strict_rows`); any other goes through :func:`_parsed`, the reader's own
    action parser, one line at a time.
    """

    def __init__(self) -> None:
        self._rows: dict[str, int] = {}
        self._values: Ints = np.empty((1024, len(_UNUSABLE_ROW)), dtype=np.int64)
        self._values[0] = _UNUSABLE_ROW
        self._texts: npt.NDArray[np.object_] = np.full(1024, None, dtype=object)
        self._size = 1

    def rows(self, lines: list[str]) -> npt.NDArray[np.intp]:
        """The row of each action line (its text up to the closing ``",``)."""
        count = len(lines)
        # 0 (no line's row) for a line not seen yet.
        found = np.fromiter(map(self._rows.get, lines, repeat(0)), dtype=np.intp, count=count)
        new = np.flatnonzero(found == 0).tolist()
        if not new:
            return found
        new_lines = [*map(lines.__getitem__, new)]
        # Each distinct new line once (a block of new hands repeats many of its lines).
        missing = [*dict.fromkeys(new_lines)]
        if len(self._rows) + len(missing) > _CACHE_LIMIT:
            self.__init__()  # type: ignore[misc]
            self._add([*dict.fromkeys(lines)])
            return np.fromiter(map(self._rows.__getitem__, lines), dtype=np.intp, count=count)
        self._add(missing)
        found[new] = [*map(self._rows.__getitem__, new_lines)]
        return found

    def _add(self, lines: list[str]) -> None:
        """Parse lines not seen before (distinct) and give them the next rows."""
        values, texts, taken = strict_rows(lines)
        if not taken.all():
            declined = [*compress(lines, ~taken)]
            others = [*map(line_row, declined)]
            # The strict lines first, then the others, each in the order of ``lines``.
            lines = [*compress(lines, taken), *declined]
            values = np.concatenate((values, np.array([row for row, _ in others],
                                                      dtype=np.int64)))
            texts = [*texts, *(text for _, text in others)]
        start, end = self._size, self._size + len(lines)
        if end > len(self._values):
            capacity = max(end, 2 * len(self._values))
            grown = np.empty((capacity, len(_UNUSABLE_ROW)), dtype=np.int64)
            grown[:start] = self._values[:start]
            grown_texts = np.full(capacity, None, dtype=object)
            grown_texts[:start] = self._texts[:start]
            self._values, self._texts = grown, grown_texts
        self._values[start:end] = values
        self._texts[start:end] = texts
        self._size = end
        self._rows.update(zip(lines, range(start, end), strict=True))

    def arrays(self) -> tuple[Ints, npt.NDArray[np.object_]]:
        """The rows' values and card texts, as arrays (views of the table: valid until the
        next call of :meth:`rows`)."""
        return self._values[:self._size], self._texts[:self._size]


def line_row(line: str) -> tuple[tuple[int, ...], str | None]:
    """The row and card text of one action line (its text up to the closing ``",``), read by
    :func:`_parsed`."""
    # ``  "text`` is the writer's form; any other (a comment after the string, a line end
    # inside...) is left to the per-hand path.
    plain = _ACTION_LINE.fullmatch(line)
    return _parsed(plain.group(1)) if plain else (_UNUSABLE_ROW, None)


def _parsed(text: str) -> tuple[tuple[int, ...], str | None]:
    """One action's row of :class:`ActionTable` and its card text."""
    try:
        # The most players: whether the hand has the players the action names is checked per
        # hand (the parse depends on the player count for nothing else).
        action = parse_action(text, Game.SEVENEIGHT, _HIGH)
    except ActionSyntaxError:
        return _UNUSABLE_ROW, None
    cards = action.cards
    if (action.pot is not None or action.comment is not None
            or len(cards) > MAX_ACTION_CARDS or any(card is UNKNOWN for card in cards)):
        return _UNUSABLE_ROW, None
    codes = [card.code for card in cards] + [NO_VALUE] * (MAX_ACTION_CARDS - len(cards))
    target = NO_VALUE if action.target is None else action.target
    row = (action.actor, VERB_CODE[action.verb], target,
           NO_VALUE if action.amount is None else action.amount, max(action.actor, target),
           len(cards), *codes)
    # As block_from_hands writes them: canonical notation (``10d`` is ``Td``), None for none.
    return row, "".join(map(str, cards)) if cards else None


# ---- new action lines in the writer's strict form, read together

_PLAYER: Final = "|".join(map(str, range(_HIGH, 0, -1)))
"""A player's number, 1 to the most players, without a leading zero (longest first)."""
_STRICT_CARDS: Final = "(?:[2-9TJQKA][cdhs])"
_STRICT_LINES: Final = re.compile(
    rf'^  "(?:d|p({_PLAYER})) (dh|up|sm|cbr|cc|f)(?: p({_PLAYER}))?'
    rf"(?: ({_STRICT_CARDS}{{1,{MAX_ACTION_CARDS}}})| ([1-9][0-9]{{0,14}}))?$"
    "|^.*$", re.MULTILINE)
"""Each line of the joined new lines: actor number (empty for the dealer), verb, target,
cards and amount when in the strict form (canonical cards, an amount without a leading
zero); an empty verb for any other line.  The form is loose about which verb takes what
(one pattern for all verbs): :func:`strict_rows` checks that per verb."""
_STRICTVERB_CODES: Final = {str(verb.value): VERB_CODE[verb]
                             for verb in GAME_VERBS[Game.SEVENEIGHT]}
_VERB_KINDS: Final = len(VERB_CODE)


def _per_verb(values: dict[Verb, int], default: int) -> Ints:
    """A table of one value per verb code."""
    table = np.full(_VERB_KINDS, default, dtype=np.int64)
    for verb, value in values.items():
        table[VERB_CODE[verb]] = value
    return table


# What each verb takes, as parse_action_parts reads it (7 & 8's verbs; others are never strict).
_FEWEST_CARDS: Final = _per_verb({Verb.DEAL_HOLE: 1, Verb.TURN_UP: 1}, 0)
_MOST_CARDS: Final = _per_verb({Verb.DEAL_HOLE: MAX_ACTION_CARDS, Verb.TURN_UP: 1,
                                Verb.SHOW_MUCK: MAX_ACTION_CARDS}, 0)
_RANK_OF_BYTE: Final = np.full(256, -1, dtype=np.int64)
_RANK_OF_BYTE[np.frombuffer(RANK_SYMBOLS.encode(), dtype=np.uint8)] = np.arange(13)
_SUIT_OF_BYTE: Final = np.full(256, -1, dtype=np.int64)
_SUIT_OF_BYTE[np.frombuffer(SUIT_SYMBOLS.encode(), dtype=np.uint8)] = np.arange(4)
_DIGIT: Final = ord("0")


def strict_rows(lines: list[str]) -> tuple[Ints, list[str | None], npt.NDArray[np.bool_]]:
    """The rows and card texts (:class:`ActionTable`'s) of the ``lines`` in the writer's
    strict form, in order, and which lines those are (the others are for :func:`_parsed`):
    one regular expression over the joined lines, then numpy over their
    pieces.

    A line is taken only when :func:`_parsed` is sure to give the same: the actor's token
    and the verb agree (``d`` with ``dh``), the verb has its arguments (a target and one to
    three cards for ``dh``, one card for ``up``, up to three for ``sm``, a positive amount
    for ``cbr``, nothing for ``cc`` and ``f``), and no card is given twice.
    """
    count = len(lines)
    joined = "\n".join(lines)
    found = _STRICT_LINES.findall(joined) if joined.count("\n") == count - 1 else []
    if len(found) != count or not count:  # a line break inside a line: each one alone
        return (np.zeros((0, len(_UNUSABLE_ROW)), dtype=np.int64), [],
                np.zeros(count, dtype=np.bool_))
    actor_texts, verb_texts, target_texts, card_texts, amount_texts = zip(*found, strict=True)
    verbs = np.fromiter(map(_STRICTVERB_CODES.get, verb_texts, repeat(-1)), dtype=np.int64,
                        count=count)
    actors = _numbers(actor_texts, count)
    targets = _numbers(target_texts, count)
    cards = np.frombuffer("".join(map(str.ljust, card_texts, repeat(2 * MAX_ACTION_CARDS),
                                      repeat("-"))).encode(), dtype=np.uint8
                          ).reshape(count, MAX_ACTION_CARDS, 2)
    ranks, suits = _RANK_OF_BYTE[cards[:, :, 0]], _SUIT_OF_BYTE[cards[:, :, 1]]
    codes = np.where(ranks >= 0, 4 * ranks + suits, NO_VALUE)
    card_counts = (codes >= 0).sum(axis=1)
    has_amount = np.fromiter(map(bool, amount_texts), dtype=np.bool_, count=count)
    amounts = np.full(count, NO_VALUE, dtype=np.int64)
    if has_amount.any():
        amounts[has_amount] = [*map(int, compress(amount_texts, has_amount))]
    known = np.maximum(verbs, 0)
    deal = verbs == _DEAL
    good = ((verbs >= 0) & ((actors == 0) == deal) & ((targets > 0) == deal)
            & (has_amount == (verbs == _BET))
            & (card_counts >= _FEWEST_CARDS[known]) & (card_counts <= _MOST_CARDS[known]))
    first, second, third = codes.T
    good &= ~(((first == second) | (first == third)) & (first >= 0))
    good &= ~((second == third) & (second >= 0))
    targets[targets == 0] = NO_VALUE
    rows = np.column_stack((actors, verbs, targets, amounts, np.maximum(actors, targets),
                            card_counts, codes))[good]
    # The canonical form is the text _parsed makes of the cards: the line's own.
    texts = [text or None for text in compress(card_texts, good)]
    return rows, texts, good


def _numbers(texts: Sequence[str], count: int) -> Ints:
    """The numbers (one or two digits; 0 for an empty text) of ``texts``, converted in C."""
    digits = np.frombuffer("".join(map(str.rjust, texts, repeat(2), repeat("0"))).encode(),
                           dtype=np.uint8).reshape(count, 2).astype(np.int64) - _DIGIT
    numbers: Ints = digits[:, 0] * 10 + digits[:, 1]
    return numbers


_ACTIONS: Final = ActionTable()


# ---- the scan


def scan_seveneight(chunks: Sequence[Chunk], source: str) -> tuple[SevenEightBlock, list[int]]:
    """The block of the 7 & 8 hands of ``chunks`` in the writer's layout, and the positions (in
    ``chunks``, ascending) of the chunks it declines, for the per-hand path
    (:func:`parsers.reader.hand_from_chunk`).  Every hand taken holds exactly what
    :func:`tests.block_reference.block_from_hands` makes of the per-hand path's reading; a chunk
    that path reads with a problem, or as anything a block cannot hold, is declined.
    Never raises for the chunks' text."""
    # Testing the variant line first (BLOCK_VARIANT_END) spares a batch of other games the
    # joins.
    raws = [("\n".join(lines) if chunk.problem is None and len(lines := chunk.lines) > 1
             and lines[1].endswith(BLOCK_VARIANT_END) else None) for chunk in chunks]
    return scan_texts(raws, [*map(_FIRST_LINE, chunks)], [*map(_INDEX, chunks)], source)


BLOCK_VARIANT_END: Final = '78"'
"""How the writer's variant line (a hand's second) ends for every variant a block reads: a
hand or a text without it has nothing for the scanner."""

_FIRST_LINE: Final = attrgetter("first_line")
_INDEX: Final = attrgetter("index")


def scan_texts(raws: Sequence[str | None], first_lines: Sequence[int], indexes: Sequence[int],
               source: str) -> tuple[SevenEightBlock, list[int]]:
    """:func:`scan_seveneight` of the chunks whose joined lines are ``raws`` (None for a chunk
    with a problem, or one to decline anyway), first lines ``first_lines`` and hand indexes
    ``indexes``: the caller that has the hands' texts without :class:`Chunk` objects
    (:class:`parsers.reader.HandTexts`) scans them as they are."""
    taken: list[int] = []
    found: list[tuple[str | None, ...]] = []
    match = _HAND.fullmatch
    for position, raw in enumerate(raws):
        if raw is not None:
            hand = match(raw)
            if hand is not None:
                taken.append(position)
                found.append(hand.groups())
    while True:
        block_or_bad = _block(source, raws, first_lines, indexes, taken, found)
        if isinstance(block_or_bad, SevenEightBlock):
            break
        # Hands with a problem the pattern does not show: drop them and build again (every
        # check is per hand, so the others still pass).
        keep = [True] * len(taken)
        for row in block_or_bad:
            keep[row] = False
        taken = [*compress(taken, keep)]
        found = [*compress(found, keep)]
    declined = sorted(set(range(len(raws))).difference(taken))
    return block_or_bad, declined


def _block(source: str, raws: Sequence[str | None], first_lines: Sequence[int],
           indexes: Sequence[int], taken: list[int], found: list[tuple[str | None, ...]]
           ) -> SevenEightBlock | list[int]:
    """The block of the matched hands (at ``taken`` in ``raws``, ``first_lines`` and
    ``indexes``), or the rows (in ``taken``) of those that cannot be in it."""
    if not taken:
        return _empty(source)
    (stakes_texts, starting, action_texts, finishing, winnings, players_texts, hand_numbers,
     table_texts, time_texts, date_texts, user_texts, last_keys, last_values) = zip(
        *found, strict=True)
    n = len(taken)
    (counts, variants, min_bets, small_bets, big_bets, antes, blinds) = zip(
        *_STAKES_CACHE.values_of(stakes_texts, _stakes), strict=True)
    (player_counts, players, seats, seat_counts) = zip(
        *_PLAYERS_CACHE.values_of(players_texts, _players), strict=True)
    (table_readable, tables) = zip(*_TABLE_CACHE.values_of(table_texts, _table), strict=True)
    (time_readable, times) = zip(*_TIME_CACHE.values_of(time_texts, _time), strict=True)
    (date_readable, days, months, years) = zip(*_DATE_CACHE.values_of(date_texts, _date),
                                               strict=True)
    changing: tuple[tuple[str, ...], ...] = (starting, finishing, winnings)
    if not all(map(_plain_lists, changing)):
        return _unplain_rows(changing)
    seat_count = np.array(counts, dtype=np.int64)
    bad = (seat_count < _LOW) | (seat_count > _HIGH) | ~(
        np.array(table_readable) & np.array(time_readable) & np.array(date_readable))
    bad |= np.array(player_counts, dtype=np.int64) != seat_count
    for texts in changing:
        bad |= np.array([*map(str.count, texts, repeat(","))], dtype=np.int64) + 1 != seat_count
    user_fields, user_bad = _user_fields(user_texts, last_keys, last_values)
    if user_bad:
        bad[user_bad] = True
    if bad.any():
        return [*np.flatnonzero(bad).tolist()]

    seat_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(seat_count, out=seat_offsets[1:])
    per_seat = [*map(_ints, (starting, antes, blinds, finishing, winnings))]
    if max(map(np.max, per_seat)) > MAX_CHIPS:
        # 16 digits or more (numpy's conversion saturates): beyond the per-hand path's range.
        bad |= np.logical_or.reduce([np.maximum.reduceat(values, seat_offsets[:-1]) > MAX_CHIPS
                                     for values in per_seat])

    # Actions: the text of every action line of the block, in order.
    action_counts = np.array([*map(str.count, action_texts, repeat('",\n'))], dtype=np.int64)
    lines = "".join(action_texts).split('",\n')
    lines.pop()
    rows = _ACTIONS.rows(lines)
    table, card_texts = _ACTIONS.arrays()
    values = table[rows]
    action_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(action_counts, out=action_offsets[1:])
    starts = action_offsets[:-1]
    bad |= np.maximum.reduceat(values[:, 4], starts) > seat_count
    bad |= _dealt_twice(values, action_counts, n)
    if bad.any():
        return [*np.flatnonzero(bad).tolist()]

    lines_of = np.array([*map(first_lines.__getitem__, taken)], dtype=np.int64)
    min_bet = np.array(min_bets, dtype=np.int64)
    # The first action's row: after the header's six lines (seven with small_bet and
    # big_bet) and the ``actions = [`` line.
    first_rows = np.where(min_bet == NO_VALUE, 8, 7)
    action_lines = (np.repeat(lines_of + first_rows - starts, action_counts)
                    + np.arange(len(rows), dtype=np.int64))
    starting_stacks, antes_, blinds_, finishing_stacks, winnings_ = per_seat
    return SevenEightBlock(
        source=source,
        positions=np.array(taken, dtype=np.int64),
        indexes=np.array([*map(indexes.__getitem__, taken)], dtype=np.int64),
        lines=lines_of,
        raws=[*map(raws.__getitem__, taken)],  # type: ignore[list-item]  # taken: all str
        variants=[*variants],
        min_bets=min_bet,
        small_bets=np.array(small_bets, dtype=np.int64),
        big_bets=np.array(big_bets, dtype=np.int64),
        seat_offsets=seat_offsets,
        players=[*players],
        seats=[*seats],
        seat_counts=np.array(seat_counts, dtype=np.int64),
        hand_numbers=_ints(hand_numbers),
        tables=[*tables],
        times=[*times],
        days=np.array(days, dtype=np.int64),
        months=np.array(months, dtype=np.int64),
        years=np.array(years, dtype=np.int64),
        user_fields=user_fields,
        starting_stacks=starting_stacks,
        antes=antes_,
        blinds=blinds_,
        finishing_stacks=finishing_stacks,
        winnings=winnings_,
        action_offsets=action_offsets,
        actors=values[:, 0].copy(),
        verbs=values[:, 1].astype(np.int8),
        targets=values[:, 2].copy(),
        amounts=values[:, 3].copy(),
        card_counts=values[:, 5].astype(np.int8),
        cards=values[:, 6:].astype(np.int8),
        card_texts=card_texts[rows].tolist(),
        action_lines=action_lines,
    )


def _ints(texts: Sequence[str]) -> Ints:
    """The integers of ``texts`` (each canonical numbers separated by ``, ``), in order, by one
    conversion in C."""
    return np.fromstring(",".join(texts), dtype=np.int64, sep=",")


def _plain_lists(texts: Sequence[str]) -> bool:
    """Whether every text (digits, commas and spaces) is canonical numbers separated by ``, ``,
    checked on their joined text by a few scans in C."""
    joined = ", ".join(texts)
    commas = joined.count(",")
    return (joined.count(" ") == commas == joined.count(", ") and ", ," not in joined
            and joined[0] != "," and joined[-1] != " " and _LEADING_ZERO.search(joined) is None
            and not (joined[0] == "0" and joined[1:2].isdigit()))


def _unplain_rows(lists: tuple[tuple[str, ...], ...]) -> list[int]:
    """The rows of the hands with an array of chips that is not canonical numbers."""
    plain = _PLAIN_CHIP_LIST.fullmatch
    return sorted({row for texts in lists for row, text in enumerate(texts)
                   if plain(text) is None})


def _user_fields(texts: Sequence[str], last_keys: Sequence[str | None],
                 last_values: Sequence[str | None]) -> tuple[list[UserFields], list[int]]:
    """Each hand's user fields, and the rows of the hands whose user fields the block does
    not read (a key given twice, another form)."""
    firsts = _USER_CACHE.values_of(texts, _user_lines)
    if all(last_keys):  # the usual case: every hand ends with an integer field
        numbers = _ints(last_values).tolist()  # type: ignore[arg-type]
    else:
        numbers = [0 if value is None else int(value) for value in last_values]
    fields: list[UserFields] = []
    bad: list[int] = []
    append = fields.append
    for row, ((readable, given, keys), key, number) in enumerate(
            zip(firsts, last_keys, numbers, strict=True)):
        if key is None:
            append(given)
        else:
            append((*given, (key, number)))
            readable = readable and key not in keys
        if not readable:
            bad.append(row)
    return fields, bad


def _dealt_twice(values: Ints, action_counts: Ints, n: int) -> npt.NDArray[np.bool_]:
    """Whether each hand deals a card twice (the per-hand path reports it)."""
    hands = np.repeat(np.arange(n, dtype=np.int64), action_counts)
    deals = values[:, 1] == _DEAL
    cards = values[deals, 6:]
    keys = (hands[deals, None] * 52 + cards)[cards >= 0]
    keys.sort()
    twice = keys[1:][keys[1:] == keys[:-1]] // 52
    bad = np.zeros(n, dtype=bool)
    bad[twice] = True
    return bad


def _empty(source: str) -> SevenEightBlock:
    """The block of no hands."""
    none = np.zeros(0, dtype=np.int64)
    return SevenEightBlock(
        source=source, positions=none, indexes=none, lines=none, raws=[], variants=[],
        min_bets=none, small_bets=none, big_bets=none, seat_offsets=np.zeros(1, np.int64),
        players=[], seats=[], seat_counts=none, hand_numbers=none, tables=[], times=[],
        days=none, months=none, years=none, user_fields=[], starting_stacks=none, antes=none,
        blinds=none, finishing_stacks=none, winnings=none,
        action_offsets=np.zeros(1, np.int64), actors=none, verbs=np.zeros(0, np.int8),
        targets=none, amounts=none, card_counts=np.zeros(0, np.int8),
        cards=np.zeros((0, MAX_ACTION_CARDS), np.int8), card_texts=[], action_lines=none)
