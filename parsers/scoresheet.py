"""Big Two score sheets: the plain-text sheet people keep at the table, read as games.

The format is the one of the public repository yawnoc/big-two-scorer (its README; MIT-0),
implemented here from that description.  One record per line:

- ``yyyy-mm-dd``: the date of the games below;
- ``F=<n>``: the fry threshold from here on (default 10);
- ``<P1> <P2> ...``: the players of the games below (no leading digit, no ``#`` or ``*``);
- ``<L1> <L2> ...``: one game, the cards each player had left, in name order; ``t`` after
  a number marks the player who takes on all losses;
- ``# ...``: a comment, on its own line or after any of the above.

Each losses line becomes an outcome-only Big Two game (:attr:`HandHistory.cards_left`,
``scoring = "zero_sum"`` with the sheet's ``fry_threshold``), numbered by its position among
the sheet's losses lines (good or bad), so a game keeps its number when games are appended
or a bad line is mended: the number is its ``hand`` label, part of its identity.  A bad line
is a :class:`SheetProblem` naming its line; the rest of the sheet is read.
docs/format.md ("Score sheets") has the details and the decisions.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from parsers.build import MAX_CARDS_LEFT, PLAYER_LIMITS, has_control
from parsers.caching import BoundedCache
from parsers.model import HandHistory
from parsers.rule_options import BigTwoRules, BigTwoScoring, Game

__all__ = [
    "SHEET_PROBE_BYTES",
    "SHEET_VARIANT",
    "ScoreSheet",
    "SheetGame",
    "SheetProblem",
    "decode_sheet",
    "looks_like_score_sheet",
    "read_score_sheet",
    "sheet_hands",
    "starts_like_score_sheet",
]

SHEET_VARIANT: Final = "B2"
"""The variant code of a sheet's games (Big Two)."""

_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_THRESHOLD: Final = re.compile(r"F\s*=\s*(\S*)\Z", re.IGNORECASE)
_HISTORY_LINE: Final = re.compile(r"(?:variant|format_version)\s*=", re.IGNORECASE)
"""A line only a history has: a key every hand names (``variant = "B2"``,
``format_version = 1``).  Any other line that is not a sheet's (a ``Total = 6`` row, a
``[2]`` or ``[table 2]`` heading) is a bad line of the sheet, reported with its number,
not a reason to read the whole file as TOML (which blamed its line 1)."""
_LOSS: Final = re.compile(r"(-?\d+)(t?)\Z")
_NUMBER_LINE: Final = re.compile(r"^[ \t]*-?\d+t?(?:[ \t]+-?\d+t?)+[ \t]*(?:#.*)?$", re.MULTILINE)
_UNDECODED: Final = re.compile("[\udc80-\udcff]")
"""A byte that was not UTF-8, as ``errors="surrogateescape"`` decodes it."""
_LOSS_WORDS: Final = re.compile(r"[ \t]*[-\d]")
"""A line that opens with a number: a losses line (names cannot start with a digit), so a
bad byte in it still leaves it its game number, and the games after it keep theirs."""
_MAX_THRESHOLD: Final = 2**31 - 1
_DEFAULT_THRESHOLD: Final = BigTwoRules().fry_threshold


@dataclass(frozen=True, slots=True)
class SheetGame:
    """One losses line: game number ``position`` (1-based, counting every losses line)."""

    position: int
    line: int
    text: str
    date: dt.date | None
    fry_threshold: int
    players: tuple[str, ...]
    cards_left: tuple[int, ...]
    takes_all_losses: int | None


@dataclass(frozen=True, slots=True)
class SheetProblem:
    """A bad line: where, what, and the game number when it is a losses line."""

    line: int
    text: str
    message: str
    position: int | None = None

    def describe(self, source: str) -> str:
        """``sheet.txt:12: game 7: what is wrong`` (the game part only for a losses line)."""
        game = f" game {self.position}:" if self.position is not None else ""
        return f"{source}:{self.line}:{game} {self.message}"


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """A sheet read: its games in order and its bad lines."""

    games: tuple[SheetGame, ...]
    problems: tuple[SheetProblem, ...]


def looks_like_score_sheet(text: str) -> bool:
    """Whether ``text`` is a score sheet rather than a history (or anything else): it holds
    a line of two or more whole numbers (a game), and no line is one only a history has
    (:data:`_HISTORY_LINE`).  Bad sheet lines (a ``Total = 6`` row, a ``[table 2]``
    heading) do not stop it being a sheet: they are reported, with their line, when it is
    read.  Lines may end in ``\r\n``."""
    lines = text.splitlines()
    if _NUMBER_LINE.search("\n".join(lines)) is None:
        return False
    return not any(_HISTORY_LINE.match(raw.split("#", 1)[0].strip().lstrip("\ufeff"))
                   for raw in lines)


SHEET_PROBE_BYTES: Final = 64 * 1024
"""How much of a source decides whether it is a score sheet: a history names its variant in
its first lines."""


def starts_like_score_sheet(head: bytes) -> bool:
    """Whether a source whose first bytes are ``head`` is a score sheet: the whole lines of
    its first :data:`SHEET_PROBE_BYTES`, decoded, by :func:`looks_like_score_sheet`.  The
    ingest's plan and migration 13's re-reading decide by this alone."""
    head = head[:SHEET_PROBE_BYTES]
    if len(head) == SHEET_PROBE_BYTES:
        head = head[:head.rfind(b"\n") + 1]  # whole lines only
    return looks_like_score_sheet(head.decode("utf-8", errors="replace"))


def read_score_sheet(text: str) -> ScoreSheet:
    """The games and bad lines of a sheet's text (a leading byte-order mark is skipped).

    Bytes that were not UTF-8, decoded with ``errors="surrogateescape"``
    (:func:`decode_sheet`), make their line a bad line."""
    games: list[SheetGame] = []
    problems: list[SheetProblem] = []
    date: dt.date | None = None
    threshold = _DEFAULT_THRESHOLD
    names: tuple[str, ...] | None = None
    names_problem: int | None = None  # the line of the rejected names line now in force
    position = 0
    undecoded = _UNDECODED.search(text) is not None
    # Lines end at "\n" (and a "\r" before it), as the file's line numbers count them.
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        raw = raw.removesuffix("\r")
        if undecoded and _UNDECODED.search(raw.split("#", 1)[0]):  # (a comment may hold any)
            game = _LOSS_WORDS.match(raw) is not None
            position += game  # a losses line still takes its game number
            problems.append(SheetProblem(
                number, raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                "not valid UTF-8", position if game else None))
            if not game:  # names, most likely: the games under it have none
                names, names_problem = None, number
            continue
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        tokens = line.split()
        if all(_LOSS.match(token) for token in tokens):
            position += 1
            found = _game(tokens, names, names_problem, position)
            if isinstance(found, str):
                problems.append(SheetProblem(number, raw, found, position))
            else:
                left, taker = found
                assert names is not None
                games.append(SheetGame(position, number, raw, date, threshold, names, left,
                                       taker))
        elif _DATE.match(line):
            try:
                date = dt.date.fromisoformat(line)
            except ValueError:
                problems.append(SheetProblem(number, raw, f"{line!r} is not a date"))
        elif line[:1] in ("F", "f") and "=" in line:
            value = _threshold(line)
            if isinstance(value, str):
                problems.append(SheetProblem(number, raw, value))
            else:
                threshold = value
        elif "=" in line or line.startswith("["):  # a total row, a heading: the names stay
            problems.append(SheetProblem(
                number, raw, f"{line!r} is not a sheet line (a sheet holds dates, F=<n>, "
                             "players' names and each game's cards left)"))
        elif _LOSS.match(tokens[0]):  # a game's losses with a typo: the names stay in force
            position += 1
            bad = next(token for token in tokens if not _LOSS.match(token))
            problems.append(SheetProblem(
                number, raw, f"{bad!r} is not a number of cards left (a line opening with a "
                             "number is a game's losses)", position))
        else:
            problem = _names_problem(tokens)
            if problem is None:
                names, names_problem = tuple(tokens), None
            else:
                names, names_problem = None, number
                problems.append(SheetProblem(number, raw, problem))
    return ScoreSheet(tuple(games), tuple(problems))


def decode_sheet(data: bytes) -> str:
    """A sheet's bytes as text: UTF-8, any other byte kept as a lone surrogate so that
    :func:`read_score_sheet` rejects its line and reads the rest."""
    return data.decode("utf-8", errors="surrogateescape")


def _threshold(line: str) -> int | str:
    """The fry threshold of an ``F=<n>`` line, or what is wrong with it."""
    match = _THRESHOLD.match(line)
    if match is None or not match.group(1).isdigit():
        return f"{line!r} is not a fry threshold line (F=<whole number>)"
    value = int(match.group(1))
    if not 1 <= value <= _MAX_THRESHOLD:
        return f"the fry threshold must be from 1 to {_MAX_THRESHOLD}, not {value}"
    return value


def _names_problem(tokens: list[str]) -> str | None:
    """What is wrong with a line of player names, or None."""
    low, high = PLAYER_LIMITS[Game.BIGTWO]
    digit = next((name for name in tokens if name[0].isdigit()), None)
    if digit is not None:
        return f"player name {digit!r} starts with a digit"
    starred = next((name for name in tokens if "*" in name), None)
    if starred is not None:
        return f"player name {starred!r} holds '*' (the summary's total row)"
    control = next((name for name in tokens if has_control(name)), None)
    if control is not None:
        return f"player name {control!r} holds a control character"
    if not low <= len(tokens) <= high:
        return (f"Big Two is played by {low} to {high} players, not {len(tokens)} "
                f"({_listed(tokens)})")
    if len(set(tokens)) != len(tokens):
        return f"a player is named twice ({_listed(tokens)})"
    return None


_LISTED: Final = 20
"""How many names a message lists (a names line may hold thousands)."""


def _listed(names: Sequence[str]) -> str:
    """``names`` for a message: the first :data:`_LISTED`, then how many in all."""
    shown = " ".join(names[:_LISTED])
    return shown if len(names) <= _LISTED else f"{shown} ... ({len(names)} names)"


def _game(tokens: list[str], names: tuple[str, ...] | None, names_problem: int | None,
          position: int) -> tuple[tuple[int, ...], int | None] | str:
    """The cards left and the taker (1-based) of a losses line, or what is wrong with it."""
    if names is None:
        if names_problem is not None:
            return f"the names line above it (line {names_problem}) was rejected"
        return "a losses line before any line of player names"
    if len(tokens) != len(names):
        return (f"{len(tokens)} losses for {len(names)} players ({_listed(names)})")
    left: list[int] = []
    takers: list[int] = []
    for player, token in enumerate(tokens, start=1):
        match = _LOSS.match(token)
        assert match is not None
        value = int(match.group(1))
        if not 0 <= value <= MAX_CARDS_LEFT:
            return f"{names[player - 1]}'s loss {value} is not 0 to {MAX_CARDS_LEFT} cards"
        if match.group(2):
            takers.append(player)
        left.append(value)
    if len(takers) > 1:
        return ("more than one player takes on all losses ("
                + ", ".join(names[p - 1] for p in takers) + ")")
    return tuple(left), takers[0] if takers else None


_RULES: Final = BoundedCache[int, BigTwoRules]("parsers.scoresheet.rules", 256)


def _rules(threshold: int) -> BigTwoRules:
    """One shared rule set per fry threshold (the reader shares its rule sets too)."""
    rules = _RULES.get(threshold)
    if rules is None:
        rules = _RULES.put(threshold, BigTwoRules(scoring=BigTwoScoring.ZERO_SUM,
                                                  fry_threshold=threshold))
    return rules


def sheet_hands(games: Iterable[SheetGame], source: str = "<sheet>") -> list[HandHistory]:
    """The sheet's games as outcome-only Big Two games of the handlab format: players and
    date carried over, ``hand`` (and the index) the game's number in the sheet, and
    ``as_recorded`` set on a line without exactly one winner (the score keeper's record
    stands, as the sheet's own scorer takes it)."""
    hands: list[HandHistory] = []
    for game in games:
        date = game.date
        winners = game.cards_left.count(0)
        hands.append(HandHistory(
            game=Game.BIGTWO, variant=SHEET_VARIANT, rules=_rules(game.fry_threshold),
            players=game.players, hand=game.position,
            year=date.year if date else None, month=date.month if date else None,
            day=date.day if date else None,
            cards_left=game.cards_left, takes_all_losses=game.takes_all_losses,
            as_recorded=True if winners != 1 else None,
            source=source, line=game.line, index=game.position, raw=game.text))
    return hands
