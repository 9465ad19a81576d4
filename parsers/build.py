"""Turning one parsed TOML document into a :class:`HandHistory`, collecting every problem.

Structure only: required fields, types, knobs, array lengths, action syntax,
cards dealt twice.  Each problem becomes a :class:`ParseError` with the line of
the field or action it concerns.
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
import re
import unicodedata
import zoneinfo
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any, Final

from parsers.actions import ActionSyntaxError, action_table, parse_into
from parsers.errors import ParseError
from parsers.fields import GAME_FIELDS, KNOB_FIELDS, VARIANTS
from parsers.model import FORMAT_VERSION, RUMMOLI_POTS, Action, GameRules, HandHistory
from parsers.rule_options import (
    GAME_NAMES,
    Betting,
    BigTwoRules,
    Game,
    RummoliRules,
    SevenEightRules,
)
from parsers.tomlsubset import Document

__all__ = ["PLAYER_LIMITS", "build_hand", "escape_controls", "has_control", "name_problem",
           "rules_of", "visible_name"]

PLAYER_LIMITS: Final = {Game.SEVENEIGHT: (2, 17), Game.RUMMOLI: (2, 8), Game.BIGTWO: (2, 4)}
"""Fewest and most players per game (RULES.md)."""

MAX_CHIPS: Final = 10**15 - 1
"""The largest chip amount or stack accepted; keeps every sum within 64 bits."""

_GAME_NAMES: Final = {Game.SEVENEIGHT: "7 & 8", Game.RUMMOLI: "Rummoli", Game.BIGTWO: "Big Two"}
_INT_LISTS: Final = ("starting_stacks", "finishing_stacks", "winnings", "antes",
                     "blinds_or_straddles", "seats")
_STRINGS: Final = ("currency", "event", "author", "venue", "url", "city", "region", "country",
                   "time_zone", "game_id")
_COUNTS: Final = ("seat_count", "day", "month", "year", "round", "dealer")
_MAX_COUNT: Final = 2**31 - 1
"""The largest count (round number, seat count, ...): the warehouse stores them as 32-bit."""
_CHIPS: Final = ("min_bet", "small_bet", "big_bet")


class _Problems:
    """Collects errors for one hand, each located at a line."""

    def __init__(self, source: str, index: int, start_line: int, lines: dict[str, int],
                 header: str | None = None) -> None:
        self.source = source
        self.header = header
        self.index = index
        self.start_line = start_line
        self.lines = lines
        self.errors: list[ParseError] = []

    def add(self, message: str, *, key: str | None = None, line: int | None = None,
            where: str | None = None) -> None:
        if line is None:
            line = self.lines.get(key, self.start_line) if key else self.start_line
        self.errors.append(
            ParseError(message, source=self.source, line=line, hand_index=self.index,
                       field=where or key, hand_header=self.header)
        )


_INT_TYPE: Final = frozenset({int})
_STR_TYPE: Final = frozenset({str})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _type_name(value: object) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number with a fraction",
             str: "a string", list: "an array", dict: "a table"}
    return names.get(type(value), type(value).__name__)


def build_hand(doc: Document, *, source: str, index: int, start_line: int, raw: str,
               header: str | None = None) -> HandHistory:
    """Validate ``doc`` and build the hand; problems go to ``HandHistory.errors`` (each
    naming the hand's table ``header`` too, when it has one)."""
    values = doc.values
    problems = _Problems(source, index, start_line, doc.lines, header)
    fields: dict[str, Any] = {}

    version = values.get("format_version", FORMAT_VERSION)
    if not _is_int(version):
        problems.add(f"must be the integer {FORMAT_VERSION} (a whole number, no quotes), not "
                     f"{_type_name(version)} {version!r}", key="format_version")
    elif version != FORMAT_VERSION:
        problems.add(f"format version {version!r} is not supported (this handlab reads "
                     f"version {FORMAT_VERSION})", key="format_version")

    variant_value = values.get("variant")
    variant = VARIANTS.get(variant_value) if isinstance(variant_value, str) else None
    if variant is None:
        if variant_value is None:
            problems.add("missing required field 'variant'", where="variant")
        else:
            problems.add(f"unknown variant {variant_value!r} (expected one of: "
                         f"{', '.join(VARIANTS)})", key="variant")
        return _finish(None, str(variant_value or ""), None, fields, (), problems, raw)
    game = variant.game

    allowed = GAME_FIELDS[game]
    # Usually every key is allowed or a user field: one set difference says so.
    extra = values.keys() - allowed
    for key in values if extra and not all(k.startswith("_") for k in extra) else ():
        if key.startswith("_") or key in allowed:
            continue
        owner = next((g for g, keys in KNOB_FIELDS.items() if key in keys), None)
        if owner is not None:
            problems.add(f"{key!r} is a {_GAME_NAMES[owner]} knob, not a {_GAME_NAMES[game]} one",
                         key=key)
        else:
            problems.add(f"unknown field {key!r} (user fields start with '_')", key=key)

    _read_scalars(values, fields, problems)
    rules = _read_rules(game, values, problems)
    players = _player_count(game, values, fields, problems)
    _read_stakes(game, variant.betting is Betting.FIXED_LIMIT,
                 values, fields, problems, players)
    _check_seating(fields, problems)

    actions, fields["action_lines"] = _read_actions(game, values, doc.element_lines.get("actions"),
                                                    problems, players)
    if game is Game.BIGTWO:
        _read_outcome(values, fields, problems, players, actions)
    fields["user_fields"] = tuple((k, v) for k, v in values.items() if k.startswith("_"))
    return _finish(game, variant.code, rules, fields, actions, problems, raw)


def _finish(game: Game | None, variant: str, rules: GameRules | None, fields: dict[str, Any],
            actions: tuple[Action, ...], problems: _Problems, raw: str) -> HandHistory:
    values = _HAND_DEFAULTS.copy()  # every field, in order, at its default
    values.update(fields)
    values.update(
        game=game, variant=variant, rules=rules, actions=actions,
        source=problems.source, line=problems.start_line, index=problems.index, raw=raw,
        errors=(tuple(sorted(problems.errors, key=lambda error: error.line or 0))
                if problems.errors else ()),
    )
    hand = HandHistory(*values.values())  # every field, in declaration order
    return hand


_HAND_DEFAULTS: Final[dict[str, Any]] = {
    spec.name: None if spec.default is dataclasses.MISSING else spec.default
    for spec in dataclasses.fields(HandHistory)
}


def _read_scalars(values: dict[str, Any], fields: dict[str, Any], problems: _Problems) -> None:
    for key in _STRINGS:
        if key in values:
            value = values[key]
            if isinstance(value, str) and has_control(value):
                problems.add(f"{key} {value!r} holds a control character", key=key)
            elif isinstance(value, str):
                fields[key] = value
            else:
                problems.add(f"{key} must be a string, not {_type_name(value)}", key=key)
    for key in _COUNTS:
        if key in values:
            value = values[key]
            if _is_int(value) and 0 <= value <= _MAX_COUNT:
                fields[key] = value
            else:
                problems.add(f"{key} must be a whole number from 0 to {_MAX_COUNT}, "
                             f"not {value!r}", key=key)
    for key in ("hand", "table"):
        if key in values:
            value = values[key]
            if isinstance(value, str) and has_control(value):
                problems.add(f"{key} {value!r} holds a control character", key=key)
            elif isinstance(value, str) or (_is_int(value) and abs(value) <= MAX_CHIPS):
                fields[key] = value
            else:
                problems.add(f"{key} must be a string or an integer, not {_type_name(value)}",
                             key=key)
    _check_date(fields, problems)
    _check_time_zone(fields, problems)
    if "time" in values:
        value = values["time"]
        if isinstance(value, dt.time):
            fields["time"] = value
        elif isinstance(value, str):
            try:
                fields["time"] = dt.time.fromisoformat(value)
            except ValueError:
                problems.add(f"time must be a local time like 20:15:00, not {value!r}", key="time")
        else:
            problems.add(f"time must be a local time like 20:15:00, not {_type_name(value)}",
                         key="time")
    if "players" in values:
        names = values["players"]
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            fields["players"] = tuple(names)
        else:
            problems.add("players must be an array of strings", key="players")


def _check_date(fields: dict[str, Any], problems: _Problems) -> None:
    """``year``, ``month`` and ``day`` make a real date, as far as they are given: year 1 to
    9999, month 1 to 12, and a day the month has (February 29 only in a leap year, or any
    year when the year is not given).  A hand with an impossible date is refused: stored
    without one it would move to the day it was loaded."""
    year, month, day = fields.get("year"), fields.get("month"), fields.get("day")
    ranges = (("year", year, 1, 9999), ("month", month, 1, 12), ("day", day, 1, 31))
    bad = False
    for key, value, low, high in ranges:
        if value is not None and not low <= value <= high:
            problems.add(f"{key} must be {low} to {high}, not {value}", key=key)
            bad = True
    if bad or day is None or month is None:
        return
    length = calendar.monthrange(2000 if year is None else year, month)[1]  # 2000: a leap year
    if day > length:
        in_year = "" if year is None else f" {year}"
        given = "" if year is None else f", year {year}"
        problems.add(f"day {day}, month {month}{given} is not a date ({calendar.month_name[month]}"
                     f"{in_year} has {length} days)", key="day", where="day/month/year")


_TIME_ZONES: list[frozenset[str]] = []
"""The IANA names of the time zones this Python knows, found once (a scan of the time zone
database) when a hand first gives a ``time_zone``."""


def _check_time_zone(fields: dict[str, Any], problems: _Problems) -> None:
    """``time_zone`` is an IANA name (``Europe/Amsterdam``), one the time zone database
    knows; without a database (none installed) any name is taken."""
    name = fields.get("time_zone")
    if name is None:
        return
    if not _TIME_ZONES:
        _TIME_ZONES.append(frozenset(zoneinfo.available_timezones()))
    if _TIME_ZONES[0] and name not in _TIME_ZONES[0]:
        problems.add(f"{name!r} is not an IANA time zone name (as in 'Europe/Amsterdam')",
                     key="time_zone")


def _knob(enum_or_type: object, key: str, value: object, problems: _Problems) -> object:
    if isinstance(enum_or_type, type) and issubclass(enum_or_type, StrEnum):
        choices = [member.value for member in enum_or_type]
        if isinstance(value, str) and value in choices:
            return enum_or_type(value)
        problems.add(f"{value!r} is not a value of knob {key} (expected one of: "
                     f"{', '.join(choices)})", key=key)
        return None
    if enum_or_type is bool:
        if isinstance(value, bool):
            return value
        problems.add(f"knob {key} must be true or false, not {value!r}", key=key)
        return None
    if enum_or_type is int:
        if _is_int(value):
            return value
        problems.add(f"knob {key} must be an integer, not {value!r}", key=key)
        return None
    if isinstance(value, str):
        return value
    problems.add(f"knob {key} must be a string, not {_type_name(value)}", key=key)
    return None


def _knob_value_problem(key: str, value: object) -> str | None:
    """Constraints on string knobs that their type alone does not express."""
    if key == "lead_card" and value not in ("3d", "3c"):
        return f"{value!r} is not a value of knob lead_card (expected one of: 3d, 3c)"
    if key == "suit_order" and (not isinstance(value, str) or sorted(value) != sorted("cdhs")):
        return f"{value!r} is not a value of knob suit_order (expected the letters c d h s in" \
               " some order, lowest first, as in 'dchs')"
    if key == "ante" and isinstance(value, int) and value < 0:
        return f"knob ante must be 0 or more, not {value}"
    if key == "fry_threshold" and isinstance(value, int) and value < 1:
        return f"knob fry_threshold must be 1 or more, not {value}"
    return None


def _read_rules(game: Game, values: dict[str, Any], problems: _Problems) -> GameRules | None:
    knobs: dict[str, object] = {}
    failed = False
    for key, kind in KNOB_FIELDS[game].items():
        if key not in values:
            continue
        value = _knob(kind, key, values[key], problems)
        problem = _knob_value_problem(key, value) if value is not None else None
        if problem is not None:
            problems.add(problem, key=key)
        if value is None or problem is not None:
            failed = True
            continue
        knobs[key] = value
    if failed:
        return None
    factory: Callable[..., GameRules] = {
        Game.RUMMOLI: RummoliRules, Game.BIGTWO: BigTwoRules, Game.SEVENEIGHT: SevenEightRules
    }[game]
    return factory(**knobs)


def rules_of(game: Game, values: Mapping[str, object]) -> GameRules:
    """The rule set of ``game`` from knob values as a history's header writes them (enum
    values as text, whole numbers, true or false), checked as the reader checks a header;
    a knob left out keeps its default.  Raises ValueError with every problem in the
    reader's words, an unknown knob among them."""
    problems = _Problems("", 0, 0, {})
    for key in values:
        if key not in KNOB_FIELDS[game]:
            known = ", ".join(KNOB_FIELDS[game]) or "none"
            problems.add(f"{key!r} is not a knob of {GAME_NAMES[game]} (its knobs: {known})")
    rules = _read_rules(game, dict(values), problems)
    if problems.errors or rules is None:
        raise ValueError("; ".join(error.message for error in problems.errors))
    return rules


def _player_count(game: Game, values: dict[str, Any], fields: dict[str, Any],
                  problems: _Problems) -> int:
    stacks = values.get("starting_stacks")
    names = fields.get("players")
    if stacks is None and names is None:
        required = "starting_stacks" if game is not Game.BIGTWO else "players or starting_stacks"
        problems.add(f"missing required field {required!r} (it gives the number of players)",
                     where="starting_stacks")
        return 0
    count = len(stacks) if isinstance(stacks, list) else len(names or ())
    low, high = PLAYER_LIMITS[game]
    if not low <= count <= high:
        problems.add(f"{_GAME_NAMES[game]} is played by {low} to {high} players, not {count}",
                     key="starting_stacks" if stacks is not None else "players")
    if names is not None and len(names) != count:
        problems.add(f"players has {len(names)} names for {count} players", key="players")
    return count


def _check_seating(fields: dict[str, Any], problems: _Problems) -> None:
    """Each player has a name and one seat: a blank name, a name given to two players or a
    seat given to two (or beyond ``seat_count``) is a problem (one player at two seats
    would be counted twice in every statistic)."""
    names = fields.get("players")
    first_with: dict[str, int] = {}
    for number, name in enumerate(names or (), start=1):
        problem = name_problem(name, f"p{number}")
        if problem is not None:
            problems.add(problem, key="players")
        elif name in first_with:
            problems.add(f"{name!r} is the name of p{first_with[name]} and p{number}: each"
                         " player sits at one seat", key="players")
        first_with.setdefault(name, number)
    seats = fields.get("seats")
    seat_count = fields.get("seat_count")
    first_at: dict[int, int] = {}
    for number, seat in enumerate(seats or (), start=1):
        if seat < 1 or (seat_count is not None and seat > seat_count):
            top = f"1..{seat_count}" if seat_count is not None else "1 or more"
            problems.add(f"p{number}'s seat {seat} is not a seat of the table ({top})",
                         key="seats")
        elif seat in first_at:
            problems.add(f"seat {seat} is given to p{first_at[seat]} and p{number}",
                         key="seats")
        first_at.setdefault(seat, number)


_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f]")
"""C0 and C1 control characters: an escape sequence in a name or a label is printed as it
is by a terminal, which acts on it (clears the screen, retitles the window, recolours)."""


def has_control(text: str) -> bool:
    """Whether ``text`` holds a C0 or C1 control character (a tab or a newline too: names and
    labels are one line)."""
    return _CONTROL.search(text) is not None


def escape_controls(text: str) -> str:
    """``text`` with each C0 or C1 control character written as ``\\xNN``: a file name
    printed or stored as it can be read, never acted on by a terminal."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


_INVISIBLE: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Unicode categories that show nothing on their own: controls, format characters (a
zero-width space), spaces and separators, combining marks."""
_BLANK_LETTERS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols drawn as blanks (Hangul fillers, the blank Braille pattern)."""


def name_problem(name: str, who: str) -> str | None:
    """Why ``name`` cannot be a player's name (``who``: how the message names the player,
    ``p2``), or None: it shows nothing, holds a control character, or begins or ends with a
    space.  The reader's rule, which the recorder asks of a table's players too."""
    if not visible_name(name):
        return f"{who} has no name (only spaces or invisible characters: {name!r})"
    if has_control(name):
        return (f"{who}'s name {name!r} holds a control character (a terminal would act on "
                "it: move, recolour, retitle)")
    if name != name.strip():
        return (f"{who}'s name {name!r} begins or ends with a space: write {name.strip()!r} "
                "(else it would be another player)")
    return None


def visible_name(name: str) -> bool:
    """Whether ``name`` shows something: a character that is not a space, a control, a
    format character or a combining mark, nor drawn as a blank."""
    return any(unicodedata.category(char) not in _INVISIBLE and char not in _BLANK_LETTERS
               for char in name)


def _int_list(key: str, value: object, count: int, problems: _Problems,
              length: int | None = None, *, signed: bool = False) -> tuple[int, ...] | None:
    expected = count if length is None else length
    if not isinstance(value, list):
        problems.add(f"{key} must be an array of integers, not {_type_name(value)}", key=key)
        return None
    low = -MAX_CHIPS if signed else 0
    # The usual case, checked in C: only ints (bool is a subclass, not int itself), in range.
    if {*map(type, value)} <= _INT_TYPE and (
            not value or (low <= min(value) and max(value) <= MAX_CHIPS)):
        bad = []
    else:
        bad = [v for v in value if not _is_int(v) or not low <= v <= MAX_CHIPS]
    if bad:
        what = "whole numbers of chips" if any(isinstance(v, float) for v in bad) else "integers"
        problems.add(f"{key} must hold {what} from {low} to {MAX_CHIPS}, not {bad[0]!r}",
                     key=key)
        return None
    if len(value) != expected:
        problems.add(f"{key} has {len(value)} entries, expected {expected}", key=key)
        return None
    return tuple(value)


def _default_blinds(players: int) -> tuple[int, ...]:
    """RULES.md 3's blinds, small 1 and big 2, as ``blinds_or_straddles``: ``p1`` and ``p2``
    post them (heads-up the button ``p2`` the small blind, ``p1`` the big)."""
    if players == 2:
        return (2, 1)
    return (1, 2, *(0,) * (players - 2))


def required_fields(game: Game, fixed_limit: bool) -> list[str]:
    """The stakes fields a hand of ``game`` must state, in the order they are checked."""
    if game is Game.SEVENEIGHT:
        return ["starting_stacks", *(["small_bet", "big_bet"] if fixed_limit else ["min_bet"])]
    if game is Game.RUMMOLI:
        return ["starting_stacks", "dealer", *(["small_bet"] if fixed_limit else [])]
    return []


def _read_stakes(game: Game, fixed_limit: bool, values: dict[str, Any], fields: dict[str, Any],
                 problems: _Problems, players: int) -> None:
    for key in _INT_LISTS:
        if key in values:
            # Big Two stacks are running point totals, which go below zero.
            signed = game is Game.BIGTWO and key in ("starting_stacks", "finishing_stacks")
            fields[key] = _int_list(key, values[key], players, problems, signed=signed)
    for key in _CHIPS:
        if key in values:
            value = values[key]
            if _is_int(value) and 0 < value <= MAX_CHIPS:
                fields[key] = value
            else:
                problems.add(f"{key} must be a whole number of chips above 0, not {value!r}",
                             key=key)
    if game is Game.SEVENEIGHT and players >= 2:  # RULES.md 3's defaults, stated or not
        if "antes" not in values:
            fields["antes"] = (0,) * players
        if "blinds_or_straddles" not in values:
            fields["blinds_or_straddles"] = _default_blinds(players)
    for key in required_fields(game, fixed_limit):
        if key not in values:
            problems.add(f"missing required field {key!r} for {_GAME_NAMES[game]}", where=key)
    forbidden = ["min_bet"] if fixed_limit else ["small_bet", "big_bet"]
    for key in forbidden:
        if key in values:
            structure = "fixed-limit" if fixed_limit else "no-limit and pot-limit"
            problems.add(f"{key} is not used in {structure} variants", key=key)
    dealer = fields.get("dealer")
    if dealer is not None and not 1 <= dealer <= players:
        problems.add(f"dealer {dealer} is not a player (expected 1..{players})", key="dealer")
    if "board_before" in values:
        fields["board_before"] = _int_list("board_before", values["board_before"], players,
                                           problems, length=len(RUMMOLI_POTS))
    if "finale_pot" in values:
        pot = values["finale_pot"]
        if pot == "all" or pot in RUMMOLI_POTS:
            fields["finale_pot"] = pot
        else:
            problems.add(f"finale_pot must be 'all' or a pot name ({' '.join(RUMMOLI_POTS)}),"
                         f" not {pot!r}", key="finale_pot")


MAX_CARDS_LEFT: Final = 13
"""The most cards an outcome-only Big Two game records for a player (13 dealt each)."""


def _read_outcome(values: dict[str, Any], fields: dict[str, Any], problems: _Problems,
                  players: int, actions: tuple[Action, ...]) -> None:
    """Big Two's outcome-only fields (docs/format.md): ``cards_left`` (0 to 13 per player;
    the game then has no actions), ``takes_all_losses`` (a player number) and
    ``as_recorded`` (a boolean).  Whether the cards left make a finished game is the rules
    engine's question."""
    if "cards_left" in values:
        left = _int_list("cards_left", values["cards_left"], players, problems)
        if left is not None:
            high = next((count for count in left if count > MAX_CARDS_LEFT), None)
            if high is not None:
                problems.add(f"cards_left must be 0 to {MAX_CARDS_LEFT} per player, not {high}",
                             key="cards_left")
            else:
                fields["cards_left"] = left
        if actions:
            problems.add("an outcome-only game (cards_left) records no actions: "
                         f"found {len(actions)}", key="actions")
    if "takes_all_losses" in values:
        taker = values["takes_all_losses"]
        if _is_int(taker) and 1 <= taker <= max(players, 1):
            fields["takes_all_losses"] = taker
        else:
            problems.add(f"takes_all_losses must be a player number 1..{players}, not {taker!r}",
                         key="takes_all_losses")
    if "as_recorded" in values:
        value = values["as_recorded"]
        if isinstance(value, bool):
            fields["as_recorded"] = value
        else:
            problems.add(f"as_recorded must be true or false, not {value!r}", key="as_recorded")
    if "as_recorded" in values and "cards_left" not in values:
        problems.add("as_recorded belongs to an outcome-only game (cards_left)",
                     key="as_recorded")


def _read_actions(game: Game, values: dict[str, Any], element_lines: Sequence[int] | None,
                  problems: _Problems, players: int
                  ) -> tuple[tuple[Action, ...], tuple[int, ...] | range]:
    """The hand's actions and the line of each (its key's line for all when the document
    does not say), each problem added to ``problems`` (that action left out)."""
    texts = values.get("actions")
    if texts is None:
        problems.add("missing required field 'actions'", where="actions")
        return (), ()
    if not isinstance(texts, list) or not (
            {*map(type, texts)} <= _STR_TYPE or all(isinstance(t, str) for t in texts)):
        problems.add("actions must be an array of strings", key="actions")
        return (), ()
    key_line = problems.lines.get("actions", problems.start_line)
    lines = (element_lines if element_lines is not None and len(element_lines) == len(texts)
             else (key_line,) * len(texts))
    actions: list[Action] = []
    append = actions.append
    left_out: list[int] = []
    dealt: dict[int, int] = {}
    # Parsed once per distinct text (per game and player count), the action itself shared:
    # per hand, only a look-up.
    table = action_table(game, players)
    get = table.get
    for number, text in enumerate(texts):
        entry = get(text)
        if entry is None:
            try:
                entry = parse_into(table, text, game, players)
            except ActionSyntaxError as error:
                problems.add(str(error), line=lines[number], where=f"actions[{number}]")
                left_out.append(number)
                continue
        action, codes = entry
        if codes is not None:
            line = lines[number]
            if dealt.keys().isdisjoint(codes):
                for code in codes:
                    dealt[code] = line
            else:
                for card in action.cards:
                    if not card.is_known:
                        continue
                    if card.code in dealt:
                        problems.add(f"card {card} is dealt twice (first on line "
                                     f"{dealt[card.code]})", line=line,
                                     where=f"actions[{number}]")
                    else:
                        dealt[card.code] = line
        append(action)
    if left_out:
        lines = [line for number, line in enumerate(lines) if number not in left_out]
    return tuple(actions), lines if isinstance(lines, range) else tuple(lines)

