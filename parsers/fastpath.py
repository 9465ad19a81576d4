"""The reader's fast path: a hand in the usual layout, with nothing to report, in one pass.

Most hands are written by :mod:`parsers.writer` (simulators, converters, handlab
itself): ``key = value`` header lines and an ``actions = [`` array with one
``  "action",`` per line, closed by ``]`` alone.  :func:`fast_hand` reads such a
hand with per-line caches -- header lines and action lines repeat from hand to
hand -- and checks the header in one go, without collecting problems: what depends
only on the header's keys, their order and the variant (its *layout*) is worked out once
per layout (:class:`_Shape`), and the hand is filled from the values by position.  The moment
anything is unusual (a line outside those shapes, any problem the general path
would report, a value outside the usual types) it returns None and the caller
takes the general path (:func:`parsers.tomlsubset.parse_document` then
:func:`parsers.build.build_hand`), which gives every message and position.

It must build exactly the hand the general path builds, field for field, action
lines included; tests/test_reader_fastpath.py compares the two over every file of
the repository, simulated hands and mutated ones.  So every check below mirrors
one in :mod:`parsers.build`, and every line is read by the same functions
:func:`~parsers.tomlsubset.parse_document` uses -- but a new action line of the writer's own
form, which :func:`writer_entry` reads into the very entry the action parser makes
(tests/test_parsers_writer_lines.py compares the two).

The ingest worker reads many hands at once (:func:`fast_hands_fields`): the header lines and
action lines none of them has seen before are read together first, for the writer's shapes
(:func:`_type_new_header_lines`, :func:`_writer_entries`), into the same caches; each hand
is then read as above, and any line they left out is read by the hand itself
(tests/test_reader_together.py compares the two readings).

A line table remembers with each line's entry the text of each of its values
(:func:`_with_texts`), which the hand's fields carry as :attr:`~parsers.model.ActionFields.texts`:
the hand's identity and rows are made from those texts instead of a look-up and a ``repr()``
per value (tests/test_reader_texts.py checks them against the values).
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from collections.abc import Sequence
from itertools import compress, filterfalse
from operator import attrgetter, itemgetter, not_
from typing import Any, Final, cast

from parsers.actions import (
    _TAKES_AMOUNT,
    _TAKES_DEAL,
    _TAKES_NOTHING,
    _TAKES_ONE_CARD,
    _TAKES_POT,
    _VERB_TABLES,
    MAX_DIGITS,
    ActionSyntaxError,
    ParsedAction,
    action_table,
    parse_into,
)
from parsers.build import MAX_CHIPS, PLAYER_LIMITS, _Problems, _read_rules, required_fields
from parsers.cards import CARD_OF_TEXT, CARD_PIECES, CODE_OF_TEXT, DECK, UNKNOWN, Card
from parsers.fastinit import indexed_constructor, positional_constructor, tuples_builder
from parsers.fields import GAME_FIELDS, KNOB_FIELDS, VARIANTS
from parsers.knobs import Betting, Game
from parsers.model import (
    ACTION_TEXTS,
    DEALER,
    FORMAT_VERSION,
    NO_ACTION_FIELDS,
    RUMMOLI_POTS,
    Action,
    ActionFields,
    GameRules,
    HandHistory,
    Verb,
)
from parsers.tomlsubset import (
    _ARRAY_END,
    _LINE_CACHE,
    _LINE_CACHE_LIMIT,
    Unsupported,
    _cached_line,
    _scalar,
    element_text,
)

__all__ = ["fast_hand", "fast_hand_fields", "fast_hands_fields"]

_MAX_COUNT: Final = 2**31 - 1
_INT_LISTS: Final = ("starting_stacks", "finishing_stacks", "winnings", "antes",
                     "blinds_or_straddles", "seats")
_STRINGS: Final = ("currency", "event", "author", "venue", "url", "city", "region", "country",
                   "time_zone", "game_id")
_COUNTS: Final = ("seat_count", "day", "month", "year", "round", "dealer")
_CHIPS: Final = ("min_bet", "small_bet", "big_bet")
_INT_TYPE: Final = frozenset({int})
_KNOB_TYPES: Final = frozenset({str, int, bool})


class _Plan:
    """What a variant's hands must and must not hold, worked out once per variant code."""

    __slots__ = ("allowed", "code", "default_rules", "forbidden", "game", "high", "knobs", "low",
                 "required", "signed")

    def __init__(self, code: str, game: Game, betting: Betting | None) -> None:
        self.code = code
        self.game = game
        self.allowed = GAME_FIELDS[game]
        self.knobs = tuple(KNOB_FIELDS[game])
        fixed_limit = betting is Betting.FIXED_LIMIT
        # As parsers.build._read_stakes: the fields each game requires and those its
        # structure does not use.
        self.required = frozenset(required_fields(game, fixed_limit))
        self.forbidden = frozenset(["min_bet"] if fixed_limit else ["small_bet", "big_bet"])
        self.low, self.high = PLAYER_LIMITS[game]
        # Big Two stacks are running point totals, which go below zero.
        self.signed = frozenset(("starting_stacks", "finishing_stacks")
                                if game is Game.BIGTWO else ())
        self.default_rules = None if self.knobs else _read_rules(game, {}, _Problems("", 0, 0, {}))


_PLANS: Final = {code: _Plan(code, v.game, v.betting) for code, v in VARIANTS.items()}

_Entry = tuple[Any, ...]
"""A line table's entry: a :data:`~parsers.actions.ParsedAction` and then the texts of its
values (:func:`_with_texts`, in the order of :data:`~parsers.model.ACTION_TEXTS`)."""
_LINE_TABLES: dict[tuple[str, int], dict[str, _Entry]] = {}
"""The parsed actions of one game and player count, by the array line that holds them (the
entries of :func:`parsers.actions.action_table` and their texts: one dictionary value holds
all an action needs, so a reader in another thread never sees half an entry)."""
_CODES: Final = itemgetter(7)
_RULES: dict[tuple[object, ...], GameRules] = {}
_RULES_LIMIT: Final = 1_000
# [(fields..., codes, texts...)], [line]
_NEW_ACTIONS: Final = tuples_builder(Action, ignored=1 + len(ACTION_TEXTS))
_NEW_FIELDS: Final = positional_constructor(ActionFields)
_ACTIONS_OPEN: Final = "actions = ["


_Read = tuple["_Shape", tuple[Any, ...], GameRules, tuple[tuple[str, Any], ...],
              list[_Entry], "range | list[int]"]


def fast_hand(lines: list[str], first_line: int, source: str, index: int,
              raw: str) -> HandHistory | None:
    """The hand in ``lines`` (the first is line ``first_line``), or None when the general path
    must read it: a shape this path does not know, or any problem to report."""
    read = _read(lines, first_line)
    if read is None:
        return None
    shape, values, rules, user_fields, entries, rows = read
    hand: HandHistory = shape.make(values, rules, _NEW_ACTIONS(entries, rows), user_fields,
                                   source, first_line, index, raw)
    return hand


def fast_hand_fields(lines: list[str], first_line: int, source: str, index: int,
                     raw: str) -> tuple[HandHistory, ActionFields] | None:
    """:func:`fast_hand` with the actions as columns: the hand without its actions (``actions``
    is empty) and their :class:`~parsers.model.ActionFields`, no :class:`Action` made
    (:func:`parsers.model.with_actions` makes the hand :func:`fast_hand` gives)."""
    read = _read(lines, first_line)
    return None if read is None else _with_fields(read, source, first_line, index, raw)


def fast_hands_fields(chunks: Sequence[tuple[list[str], int, int, str]], source: str
                      ) -> list[tuple[HandHistory, ActionFields] | None]:
    """:func:`fast_hand_fields` of each of ``chunks`` (its lines, first line, index and raw
    text), the same hands and fields, with the lines none of them has seen before read
    together first: the header lines (:func:`_type_new_header_lines`), then every hand's
    header, then the new action lines (:func:`_read_new_lines`), then each hand's actions
    from their line tables."""
    cuts = [_cut(lines) for lines, _, _, _ in chunks]
    _type_new_header_lines([cut[2] for cut in cuts if cut is not None])
    heads = [None if cut is None else _head_of(cut) for cut in cuts]
    _read_new_lines(heads, [lines for lines, _, _, _ in chunks])
    found: list[tuple[HandHistory, ActionFields] | None] = []
    for (lines, first_line, index, raw), head in zip(chunks, heads, strict=True):
        read = None if head is None else _finish(head, lines, first_line)
        found.append(None if read is None else _with_fields(read, source, first_line, index, raw))
    return found


def _with_fields(read: _Read, source: str, first_line: int, index: int, raw: str
                 ) -> tuple[HandHistory, ActionFields]:
    """The hand (without its actions) and the action columns of what :func:`_read` found."""
    shape, values, rules, user_fields, entries, rows = read
    hand: HandHistory = shape.make(values, rules, (), user_fields, source, first_line, index,
                                   raw)
    if not entries:
        return hand, NO_ACTION_FIELDS
    # One zip in C turns the shared per-line entries into columns, their texts' included.
    actors, verbs, cards, amounts, targets, pots, comments, _codes, *texts = zip(*entries,
                                                                                 strict=True)
    return hand, _NEW_FIELDS(actors, verbs, cards, amounts, targets, pots, comments,
                             rows if type(rows) is range else tuple(rows), tuple(texts))


def _read(lines: list[str], first_line: int) -> _Read | None:
    """What :func:`fast_hand` builds a hand from: its shape, the header's values, its rules,
    its user fields, and the parsed entry and line of each action; None for the general
    path."""
    head = _head(lines)
    return None if head is None else _finish(head, lines, first_line)


_Head = tuple["_Shape", tuple[Any, ...], GameRules, list[tuple[str, Any]], int, int, Game, int,
              dict[str, _Entry]]
"""What :func:`_head` finds: the shape, the header's values, the rules, the header's (key,
value) pairs, where the actions array opens and closes, the game, the players, and their
line table (:data:`_LINE_TABLES`)."""


_Cut = tuple[int, int, list[str]]
"""Where a hand's actions array opens and closes, and its header's lines (:func:`_cut`)."""


def _cut(lines: list[str]) -> _Cut | None:
    """Where the actions array of ``lines`` opens and closes, and the lines around it (the
    header's); None for a hand without an actions array in the usual shape."""
    try:
        opening = lines.index(_ACTIONS_OPEN)
        closing = lines.index("]", opening + 1)
    except ValueError:
        return None  # no actions array in the usual shape
    header = lines[:opening] + lines[closing + 1 :]
    if header and not header[-1]:
        header.pop()  # the blank line between the hands of a file
    return opening, closing, header


def _head(lines: list[str]) -> _Head | None:
    """The header half of :func:`_read` (everything but the action lines); None for the
    general path."""
    cut = _cut(lines)
    return None if cut is None else _head_of(cut)


def _head_of(cut: _Cut) -> _Head | None:
    """:func:`_head` of a hand's :func:`_cut`."""
    opening, closing, header = cut
    cached = [*map(_TYPED_LINES.get, header)]
    # all(): every cached entry is a (key, value) pair, hence true; much cheaper than
    # ``None in cached``, which compares each pair with None through the rich comparison.
    found = (cast(list[tuple[str, Any]], cached) if all(cached)
             else _type_lines(header, cached))
    if not found:
        return None  # a line this path does not read, or no field at all
    keys, values = zip(*found, strict=True)
    layout = _LAYOUTS.get(keys)
    if layout is None:
        layout = _new_layout(keys)
    if not layout.usable:
        return None  # a key given twice, 'actions' in the header, or no variant
    shape = layout.shapes.get(values[layout.variant_at])
    if shape is None:
        shape = layout.shape(values[layout.variant_at])
    plan = shape.plan
    if plan is None:
        return None  # keys given twice, unknown, missing or forbidden for the variant
    players = _player_count(shape, values)
    if players < 0:
        return None
    rules = _rules(shape, values) if shape.knob_at else shape.default_rules
    if rules is None:
        return None
    game = plan.game
    return shape, values, rules, found, opening, closing, game, players, _line_table(game,
                                                                                     players)


def _finish(head: _Head, lines: list[str], first_line: int) -> _Read | None:
    """:func:`_read` of a hand whose header :func:`_head` has read: its action lines."""
    shape, values, rules, found, opening, closing, game, players, table = head
    actions = _actions(game, players, table, lines, opening + 1, closing, first_line)
    if actions is None:
        return None
    # User fields in the order of the text, as the general path gives them.
    user_fields = tuple([found[at] for at in shape.user_at]) if shape.user_at else ()
    return shape, values, rules, user_fields, actions[0], actions[1]


class _Shape:
    """A header of given keys in a given order, for one variant: what its hands need checked
    per hand, and the constructor that fills a hand from its values by position."""

    __slots__ = ("board_at", "count_at", "dealer_at", "default_rules", "knob_at", "knob_names",
                 "make", "plan", "sized", "unsigned", "user_at")

    def __init__(self, keys: tuple[str, ...], plan: _Plan | None) -> None:
        self.plan = plan
        self.user_at: tuple[int, ...] = ()
        self.knob_at: tuple[int, ...] = ()
        if plan is None:
            return
        position = {key: at for at, key in enumerate(keys)}
        # As fast_hand did with the hand's fields: only user fields beyond the variant's keys,
        # every required one, none of the forbidden ones (checked once per layout now).
        extra = position.keys() - plan.allowed
        if any(key[0] != "_" for key in extra) or not position.keys() >= plan.required or \
                not position.keys().isdisjoint(plan.forbidden):
            self.plan = None
            return
        self.user_at = tuple(at for at, key in enumerate(keys) if key[0] == "_")
        self.knob_names = tuple(key for key in plan.knobs if key in position)
        self.knob_at = tuple(position[key] for key in self.knob_names)
        # The number of players: the length of starting_stacks, else of players.
        counted = "starting_stacks" if "starting_stacks" in position else "players"
        self.count_at = position.get(counted, -1)
        if self.count_at < 0:
            self.plan = None  # no count: not low <= -1
            return
        sized = [position[key] for key in ("players", *_INT_LISTS) if key in position]
        unsigned = [position[key] for key in _INT_LISTS
                    if key in position and key not in plan.signed]
        if "board_before" in position:
            unsigned.append(position["board_before"])
        # itemgetter of two indexes or more gives a tuple (the first is repeated to be sure).
        self.sized = itemgetter(self.count_at, self.count_at, *sized)
        self.unsigned = itemgetter(unsigned[0], *unsigned) if unsigned else None
        self.board_at = position.get("board_before", -1)
        self.dealer_at = position.get("dealer", -1)
        self.default_rules = plan.default_rules
        if plan.knobs and not self.knob_at:
            self.default_rules = _read_rules(plan.game, {}, _Problems("", 0, 0, {}))
        hand_fields = {key: at for key, at in position.items()
                       if key[0] != "_" and key not in plan.knobs}
        self.make = indexed_constructor(HandHistory, hand_fields, {"game": plan.game})


class _Layout:
    """The keys of a header, in order: where the variant stands, and a shape per variant."""

    __slots__ = ("keys", "shapes", "usable", "variant_at")

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = keys
        self.shapes: dict[object, _Shape] = {}
        # A key given twice is not TOML; 'actions' belongs below the header.
        self.usable = len(set(keys)) == len(keys) and "actions" not in keys and "variant" in keys
        self.variant_at = keys.index("variant") if self.usable else 0

    def shape(self, variant: object) -> _Shape:
        """The shape for hands of ``variant`` (the typed value of the variant line: a code of
        :data:`_PLANS`), remembered."""
        plan = _PLANS.get(variant) if type(variant) is str else None
        if len(self.shapes) >= len(_PLANS) + 1:
            self.shapes.clear()
        shape = self.shapes[variant] = _Shape(self.keys, plan)
        return shape


_LAYOUTS: dict[tuple[str, ...], _Layout] = {}
"""By the keys of a header in order: writers use a handful of layouts, always the same."""
_LAYOUTS_LIMIT: Final = 1_000


def _new_layout(keys: tuple[str, ...]) -> _Layout:
    if len(_LAYOUTS) >= _LAYOUTS_LIMIT:
        _LAYOUTS.clear()
    layout = _LAYOUTS[keys] = _Layout(keys)
    return layout


_TYPED_LINES: dict[str, tuple[str, Any]] = {}
"""A header line's key and the value the hand holds for it (a tuple for an array, a time for
a time...), for lines whose value is right for their key whatever the hand; by line."""
_TYPED_LINES_LIMIT: Final = 65_536
"""Lines such as ``starting_stacks = [...]`` change from hand to hand: a file of 20,000
hands of 7 & 8 holds some 30,000 distinct header lines, and a cache that keeps clearing
misses most of them (a few MB at the limit)."""


def _type_lines(header: list[str], cached: list[tuple[str, Any] | None]
                ) -> list[tuple[str, Any]] | None:
    """Key and hand value of each header line (``cached``: each line's entry in
    :data:`_TYPED_LINES`, None for those not in it), or None when one is not a one-line ``key =
    value`` whose value :func:`_typed` accepts.  Blank and comment lines are skipped."""
    found: list[tuple[str, Any]] = []
    for line, pair in zip(header, cached, strict=True):
        if pair is None:
            stripped = line.strip()
            if not stripped or stripped[0] == "#":
                continue
            # Read as parse_document reads it, then typed as build_hand would.
            raw_pair = _LINE_CACHE.get(line) or _cached_line(line)
            if raw_pair is None:
                return None
            key, value = raw_pair
            typed = _typed(key, value)
            if typed is _REJECTED:
                return None
            if len(_TYPED_LINES) >= _TYPED_LINES_LIMIT:
                _TYPED_LINES.clear()
            # Interned: the hand is built with these keys as keyword arguments, and CPython
            # matches a keyword to its parameter by identity first; a key that is only equal
            # costs a string comparison with every parameter before it (some 40).
            pair = _TYPED_LINES[line] = (sys.intern(key), typed)
        found.append(pair)
    return found


_REJECTED: Final = object()
_KIND: Final[dict[str, str]] = {
    "format_version": "version", "variant": "variant", "hand": "hand", "table": "hand",
    "time": "time", "players": "players", "finale_pot": "finale_pot",
    "board_before": "int_list", **dict.fromkeys(_INT_LISTS, "int_list"),
    **dict.fromkeys(_STRINGS, "string"), **dict.fromkeys(_COUNTS, "count"),
    **dict.fromkeys(_CHIPS, "chips"),
    **{key: "knob" for knobs in KNOB_FIELDS.values() for key in knobs},
}


def _typed(key: str, value: Any) -> Any:
    """What ``build_hand`` makes of ``value`` under ``key`` when it reports no problem whatever
    the hand's game and players (checked per hand: lengths, signs, the dealer, knobs); else
    :data:`_REJECTED`."""
    kind = _KIND.get(key, "user" if key[0] == "_" else "unknown")
    kind_type = type(value)
    if kind in ("user", "knob"):
        return value
    if kind == "version":
        return value if kind_type is int and value == FORMAT_VERSION else _REJECTED
    if kind == "variant":
        return value if kind_type is str and value in _PLANS else _REJECTED
    if kind == "string":
        return value if kind_type is str else _REJECTED
    if kind == "count":
        return value if kind_type is int and 0 <= value <= _MAX_COUNT else _REJECTED
    if kind == "chips":
        return value if kind_type is int and 0 < value <= MAX_CHIPS else _REJECTED
    if kind == "hand":
        ok = kind_type is str or (kind_type is int and abs(value) <= MAX_CHIPS)
        return value if ok else _REJECTED
    if kind == "time":
        if kind_type is str:
            try:
                return dt.time.fromisoformat(value)
            except ValueError:
                return _REJECTED
        return value if kind_type is dt.time else _REJECTED
    if kind == "players":
        ok = kind_type is list and all(type(name) is str for name in value)
        return tuple(value) if ok else _REJECTED
    if kind == "int_list":
        ok = kind_type is list and {*map(type, value)} <= _INT_TYPE and (
            not value or (min(value) >= -MAX_CHIPS and max(value) <= MAX_CHIPS))
        return tuple(value) if ok else _REJECTED
    if kind == "finale_pot":
        return value if kind_type is str and (value == "all" or value in RUMMOLI_POTS) \
            else _REJECTED
    return _REJECTED  # 'actions' on one line, or a key no game knows


def _player_count(shape: _Shape, values: tuple[Any, ...]) -> int:
    """The number of players, after the checks of ``build_hand`` that depend on it (array
    lengths, signs, the dealer); -1 when it would report a problem."""
    count = len(values[shape.count_at])
    plan = cast(_Plan, shape.plan)
    if not plan.low <= count <= plan.high or len({*map(len, shape.sized(values))}) != 1:
        return -1
    if shape.unsigned is not None:
        lowest = [*map(min, filter(None, shape.unsigned(values)))]
        if lowest and min(lowest) < 0:
            return -1
    if shape.board_at >= 0 and len(values[shape.board_at]) != len(RUMMOLI_POTS):
        return -1
    if shape.dealer_at >= 0 and not 1 <= values[shape.dealer_at] <= count:
        return -1
    return count


def _rules(shape: _Shape, values: tuple[Any, ...]) -> GameRules | None:
    """The hand's rules, one shared (frozen) object per distinct set of knobs."""
    knobs = [values[at] for at in shape.knob_at]
    types = [*map(type, knobs)]
    if not _KNOB_TYPES.issuperset(types):
        return None  # (and a list would not make a key)
    # The types are part of the key: 1 == True, but only one of them is a valid ante.
    key = (shape.knob_names, *types, *knobs)
    rules = _RULES.get(key)
    if rules is None:
        plan = cast(_Plan, shape.plan)
        problems = _Problems("", 0, 0, {})
        rules = _read_rules(plan.game, dict(zip(shape.knob_names, knobs, strict=True)),
                            problems)
        if rules is None or problems.errors:
            return None
        if len(_RULES) >= _RULES_LIMIT:
            _RULES.clear()
        _RULES[key] = rules
    return rules


def _line_table(game: Game, players: int) -> dict[str, _Entry]:
    """The line table (:data:`_LINE_TABLES`) of ``game`` and ``players``, made when new."""
    table = _LINE_TABLES.get((game._value_, players))
    if table is None:
        table = _LINE_TABLES[game._value_, players] = {}
    return table


def _actions(game: Game, players: int, table: dict[str, _Entry], lines: list[str],
             start: int, end: int, first_line: int
             ) -> tuple[list[_Entry], range | list[int]] | None:
    """The parsed entry and the line of each action on ``lines[start:end]`` (the lines of the
    array; ``table``: the line table of ``game`` and ``players``), or None when the general
    path would read them otherwise or report a problem."""
    element_lines = lines[start:end]
    cached = [*map(table.get, element_lines)]
    entries = cast(list[_Entry], cached)
    rows: range | list[int] = range(first_line + start, first_line + end)
    if not all(cached):  # entries are tuples, hence true: see fast_hand
        texts = action_table(game, players)
        # Only the lines not seen before, found in C: a new round has a handful (its deals)
        # among some 45, and a loop over them all cost a fifth of reading such a round.
        blank = False
        for offset in [*compress(range(len(cached)), map(not_, cached))]:
            entry = cached[offset] = _new_line(table, texts, game, players,
                                               element_lines[offset])
            if entry is None:
                return None
            # _new_line never remembers _BLANK, so blank lines are among these every time.
            blank = blank or entry is _BLANK
        if blank:  # blank or comment lines: no action, but they take up a row
            rows = [row for row, entry in zip(rows, entries, strict=True) if entry is not _BLANK]
            entries = [entry for entry in entries if entry is not _BLANK]
    dealt = [*filter(None, map(_CODES, entries))]
    if len(dealt) > 1 and len(set().union(*dealt)) != sum(map(len, dealt)):
        return None  # a card dealt twice
    return entries, rows


_BLANK: Final[ParsedAction] = (DEALER, Verb.NOOP, (), None, None, None, None, None)
"""Stands for a blank or comment line inside the array (compared by identity)."""


def _new_line(table: dict[str, _Entry], texts: dict[str, ParsedAction], game: Game,
              players: int, line: str) -> _Entry | None:
    """Read an array line not seen before as ``_fast_multiline_strings`` does, and remember it
    in ``table``; :data:`_BLANK` for a blank or comment line, None for any other shape."""
    parsed = writer_entry(line, game, players)
    cards_text = _writer_cards_text(line) if parsed is not None and parsed[2] else None
    if parsed is None:
        text = element_text(line)
        if text is None:
            stripped = line.strip()
            if _ARRAY_END.match(line) or (stripped and stripped[0] != "#"):
                return None  # the array ends here, or a shape of the general scanner
            return _BLANK
        parsed = texts.get(text)
        if parsed is None:
            try:
                parsed = parse_into(texts, text, game, players)
            except ActionSyntaxError:
                return None
    if len(table) >= _LINE_CACHE_LIMIT:
        table.clear()
    entry = table[line] = _with_texts(parsed, cards_text)
    return entry


_CARD_TEXTS: Final = [*map(str, sorted(DECK, key=attrgetter("code"))), str(UNKNOWN)]
"""Each card's text by its code, the unknown card's (code -1) last (``Card.__str__`` is a
Python call)."""
_CARD_CODE: Final = attrgetter("code")
_VERB_TEXTS: Final = {verb._value_: (str(verb._value_), repr(str(verb._value_))) for verb in Verb}
_VALUE_TEXTS: dict[tuple[object, ...], tuple[str, ...]] = {}
"""``repr()`` of an entry's actor, target, amount, pot and comment, by those values and the
verb (the parser's ints, strings and None, whose equal values have equal texts): the new
lines of a hand are mostly deals, which share them."""
_VALUE_TEXTS_LIMIT: Final = 10_000


def _with_texts(parsed: ParsedAction, cards_text: str | None = None) -> _Entry:
    """The line table's entry of ``parsed``: it and the texts of its values (the columns of
    :data:`~parsers.model.ACTION_TEXTS`), made once per line, not once per hand.
    ``cards_text``: the cards' canonical text when the caller has it (a line of the writer's
    form holds it), else made from the cards."""
    actor, verb, cards, amount, target, pot, comment, _codes = parsed
    verb_text, verb_literal = _VERB_TEXTS[verb._value_]  # not .value: a Python-level property
    key = (actor, verb_text, target, amount, pot, comment)
    found = _VALUE_TEXTS.get(key)
    if found is None:
        if len(_VALUE_TEXTS) >= _VALUE_TEXTS_LIMIT:
            _VALUE_TEXTS.clear()
        found = _VALUE_TEXTS[key] = (repr(actor), repr(target), repr(amount), repr(pot),
                                     repr(comment))
    if cards:
        if cards_text is None:
            cards_text = "".join(map(_CARD_TEXTS.__getitem__, map(_CARD_CODE, cards)))
        cards_literal = repr(cards_text)
    else:
        cards_text, cards_literal = None, "None"
    actor_literal, target_literal, amount_literal, pot_literal, comment_literal = found
    return (actor, verb, cards, amount, target, pot, comment, _codes, verb_text, cards_text,
            actor_literal, verb_literal, target_literal, cards_literal, amount_literal,
            pot_literal, comment_literal)


def _writer_cards_text(line: str) -> str:
    """The cards' text of an element line of the writer's form that holds cards
    (:data:`_WRITER_ELEMENT`): its last token, canonical cards without separators."""
    return line[line.rindex(" ") + 1 : -2]


# ---- new action lines in the writer's form, read without the general action parser's layers

_WRITER_ELEMENT: Final = re.compile(
    r'  "(?:d|p([1-9])) ([a-z]+)(?: p([1-9]))?(?: ([0-9A-Za-z]+))?",')
"""An element line of the writer's form: actor (its number; None for the dealer), verb,
target, one argument token (cards without separators, an amount or a pot): what
:func:`writer_entry` reads when the verb, its arguments and the players agree."""
# The writer's cards and nothing else: the reader's other spellings and ``??`` are left to
# the general action parser.
_CARD: Final = CARD_OF_TEXT.__getitem__
_CODE: Final = CODE_OF_TEXT.__getitem__
_POTS: Final = frozenset(RUMMOLI_POTS)


def writer_entry(line: str, game: Game, players: int) -> ParsedAction | None:
    """The :data:`ParsedAction` of an element line of the writer's form, as
    :func:`parsers.actions.parse_action_parts` makes it from the line's text (which
    ``element_text`` gives: the form holds no quote, backslash or control character); None
    when it is not one (any problem included), for the general reading to say what it is.

    Only what the action parser is sure to accept is taken: a known verb of the game, the
    dealer's verbs by ``d`` and the others by a player, players and targets within
    ``players``, and exactly the arguments the verb takes (canonical cards, none twice; a
    whole number of at most 15 digits, above 0 for ``cbr``; a pot name)."""
    found = _WRITER_ELEMENT.fullmatch(line)
    if found is None:
        return None
    actor_digit, verb_text, target_digit, argument = found.groups()
    kind = _VERB_TABLES[game._value_].get(verb_text)  # not .value: a Python-level property
    if kind is None:
        return None
    verb, dealer_verb, takes = kind
    actor = DEALER if actor_digit is None else int(actor_digit)
    if (actor == DEALER) != dealer_verb or actor > players:
        return None
    if target_digit is not None:
        if takes != _TAKES_DEAL:
            return None
        target = int(target_digit)
        if target > players or argument is None:
            return None
        dealt = _writer_cards(argument)
        if dealt is None:
            return None
        return actor, verb, dealt[0], None, target, None, None, dealt[1]
    if takes == _TAKES_NOTHING:
        return None if argument is not None else (actor, verb, (), None, None, None, None, None)
    if argument is None:
        # Only sm takes nothing (a muck): pl, dw, dh and up need cards, the others a value.
        return (actor, verb, (), None, None, None, None, None) \
            if verb is Verb.SHOW_MUCK else None
    if takes == _TAKES_AMOUNT:
        if not argument.isdigit() or len(argument) > MAX_DIGITS:  # [0-9A-Za-z]: ASCII
            return None
        amount = int(argument)
        if amount == 0 and verb is Verb.BET_RAISE:
            return None
        return actor, verb, (), amount, None, None, None, None
    if takes == _TAKES_POT:
        return (actor, verb, (), None, None, argument, None, None) if argument in _POTS \
            else None
    if takes == _TAKES_DEAL:
        return None  # dh without a target
    shown = _writer_cards(argument)
    if shown is None or (takes == _TAKES_ONE_CARD and len(shown[0]) != 1):
        return None
    return (actor, verb, shown[0], None, None, None, None,
            shown[1] if verb is Verb.DEAL_WIDOW else None)


def _writer_cards(token: str) -> tuple[tuple[Card, ...], tuple[int, ...]] | None:
    """The cards of a token of canonical cards without separators and their codes; None for
    any other token, or one that gives a card twice."""
    if len(token) % 2:
        return None
    pieces = CARD_PIECES.findall(token)
    try:
        codes = tuple(map(_CODE, pieces))
    except KeyError:
        return None
    if len(set(codes)) != len(codes):
        return None
    return tuple(map(_CARD, pieces)), codes


# ---- the new action lines of many hands, read together

def _read_new_lines(heads: Sequence[_Head | None], lines: Sequence[list[str]]) -> None:
    """Put the entries of the action lines of the hands of ``heads`` (:func:`_head` of each of
    ``lines``; None for a hand the general path reads) that their line tables do not hold yet
    into those tables, each table's new lines read together (:func:`_writer_entries`).  Only
    a cache is filled: a line this leaves out (one not of the writer's form, or any problem)
    is read by :func:`_new_line` when its hand's actions are, and gives what it gave before.
    """
    new: dict[int, tuple[Game, int, dict[str, _Entry], dict[str, None]]] = {}
    for head, hand_lines in zip(heads, lines, strict=True):
        if head is None:
            continue
        _, _, _, _, opening, closing, game, players, table = head
        missing = [*filterfalse(table.__contains__, hand_lines[opening + 1 : closing])]
        if missing:
            found = new.get(id(table))
            if found is None:
                found = new[id(table)] = (game, players, table, {})
            found[3].update(dict.fromkeys(missing))
    for game, players, table, wanted in new.values():
        if len(wanted) > _LINE_CACHE_LIMIT:
            continue  # more than the table holds: left to the hands
        if len(table) + len(wanted) > _LINE_CACHE_LIMIT:
            # As _new_line does when the table is full (the lines the hands share that this
            # drops are read again by them).
            table.clear()
        texts = [*wanted]
        table.update({text: _with_texts(entry, _writer_cards_text(text) if entry[2] else None)
                      for text, entry in zip(texts, _writer_entries(texts, game, players),
                                             strict=True) if entry is not None})


_WRITER_LINES: Final = re.compile(
    r'^(?:  "(?:d|p([1-9])) ([a-z]+)(?: p([1-9]))?(?: ([0-9A-Za-z]+))?",|.*)$', re.MULTILINE)
""":data:`_WRITER_ELEMENT` over lines joined by line breaks, a match for every line: the
groups of a line of the writer's form, and only empty groups (no verb) for any other."""
_CODE_OR_NONE: Final = CODE_OF_TEXT.get
_CARD_OR_NONE: Final = CARD_OF_TEXT.get


def _writer_entries(lines: list[str], game: Game, players: int) -> list[ParsedAction | None]:
    """:func:`writer_entry` of each of ``lines`` (none holds a line break), read together:
    one regular expression over the joined lines, then the cards of all of them with one
    regular expression and two look-ups in C, so each line costs a few of Python's steps."""
    joined = "\n".join(lines)
    found = _WRITER_LINES.findall(joined)
    if len(found) != len(lines):  # a line break inside a line: not the reader's lines
        return [writer_entry(line, game, players) for line in lines]
    verbs = _VERB_TABLES[game._value_]
    entries: list[ParsedAction | None] = [None] * len(lines)
    # The lines whose cards are read below: (where, actor, verb, target, size, codes kept).
    carded: list[tuple[int, int, Verb, int | None, int, bool]] = []
    tokens: list[str] = []
    at = -1
    for actor_digit, verb_text, target_digit, argument in found:
        at += 1
        kind = verbs.get(verb_text)  # '' (no match) is no verb
        if kind is None:
            continue
        verb, dealer_verb, takes = kind
        actor = int(actor_digit) if actor_digit else DEALER
        if (actor == DEALER) != dealer_verb or actor > players:
            continue
        if target_digit:
            if takes != _TAKES_DEAL or not argument or len(argument) % 2:
                continue
            target = int(target_digit)
            if target > players:
                continue
            carded.append((at, actor, verb, target, len(argument) // 2, True))
            tokens.append(argument)
        elif takes == _TAKES_NOTHING:
            if not argument:
                entries[at] = (actor, verb, (), None, None, None, None, None)
        elif not argument:
            if verb is Verb.SHOW_MUCK:
                entries[at] = (actor, verb, (), None, None, None, None, None)
        elif takes == _TAKES_AMOUNT:
            if argument.isdigit() and len(argument) <= MAX_DIGITS:
                amount = int(argument)
                if amount or verb is not Verb.BET_RAISE:
                    entries[at] = (actor, verb, (), amount, None, None, None, None)
        elif takes == _TAKES_POT:
            if argument in _POTS:
                entries[at] = (actor, verb, (), None, None, argument, None, None)
        elif takes != _TAKES_DEAL and not len(argument) % 2 and (
                takes != _TAKES_ONE_CARD or len(argument) == 2):
            carded.append((at, actor, verb, None, len(argument) // 2,
                           verb is Verb.DEAL_WIDOW))
            tokens.append(argument)
    if not carded:
        return entries
    # Every token is of even length, so the joined tokens' pieces fall on their cards.
    pieces = CARD_PIECES.findall("".join(tokens))
    # (Any: None for a piece that is no card, which the checks below find.)
    codes: list[Any] = [*map(_CODE_OR_NONE, pieces)]
    cards: list[Any] = [*map(_CARD_OR_NONE, pieces)]
    # A piece that is no canonical card: the lines are checked one by one (ints, not the
    # cards: a Card's comparison with None would be a Python call).
    checked = None not in codes
    start = 0
    for where, actor, verb, dealt_to, size, keep in carded:
        end = start + size
        line_codes = tuple(codes[start:end])
        start = end
        if (checked or None not in line_codes) and len(set(line_codes)) == size:
            entries[where] = (actor, verb, tuple(cards[start - size : start]), None, dealt_to,
                              None, None, line_codes if keep else None)
    return entries


_HEADER_LINES: Final = re.compile(
    r'^(?:([A-Za-z0-9_-]+) = (?:(-?(?:0|[1-9][0-9]{0,17}))'
    r'|(\[(?:(?:-?(?:0|[1-9][0-9]{0,17}), )*-?(?:0|[1-9][0-9]{0,17}))?\])'
    r'|("[^"\\\x00-\x1f\x7f]*")|([0-9]{2}:[0-9]{2}:[0-9]{2}|true|false))|.*)$',
    re.MULTILINE)
"""The writer's header lines, over lines joined by line breaks, a match for every line: the
key, then the value's text in one of four groups (an integer, an array of integers, a
string, a time or boolean), or only empty groups for any other line (which the hands' own
reading types, or declines)."""


def _type_new_header_lines(headers: Sequence[list[str]]) -> None:
    """Put the typed values of the header lines of ``headers`` that :data:`_TYPED_LINES` does
    not hold yet into it, read together: what :func:`_type_lines` would put there for each
    line of the writer's shapes (``key = 12``, ``key = [0, -3]``, ``key = "text"``, ``key =
    19:05:00``, ``key = true``); any other line, and one whose value ``_typed`` refuses, is
    left to it.  Only a cache is filled, as in :func:`_read_new_lines`."""
    wanted: dict[str, None] = {}
    for header in headers:
        wanted.update(dict.fromkeys(filterfalse(_TYPED_LINES.__contains__, header)))
    if not wanted or len(wanted) > _TYPED_LINES_LIMIT:
        return
    lines = [*wanted]
    found = _HEADER_LINES.findall("\n".join(lines))
    if len(found) != len(lines):  # a line break inside a line: not the reader's lines
        return
    if len(_TYPED_LINES) + len(lines) > _TYPED_LINES_LIMIT:
        _TYPED_LINES.clear()  # as _type_lines does when it is full
    value: Any
    for line, (key, number, numbers, text, word) in zip(lines, found, strict=True):
        if not key:
            continue
        # As parsers.tomlsubset._cached_line reads these shapes.
        if number:
            value = int(number)
        elif numbers:
            inside = numbers[1:-1]
            value = [*map(int, inside.split(","))] if inside else []
        elif text:
            value = text[1:-1]
        else:
            try:
                value = _scalar(word)
            except Unsupported:
                continue
        typed = _typed(key, value)
        if typed is not _REJECTED:
            _TYPED_LINES[line] = (sys.intern(key), typed)
