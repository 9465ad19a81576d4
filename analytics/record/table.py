"""A recorded table: its setup, the hand in progress, the journal, the finished hands.

A table lives in a folder (``data/recorded/`` by default) as two files:
``<name>.journal``, where every step is written (and fsynced) before the table
takes it (:mod:`analytics.record.journal`), and ``<name>.phhs``, the finished
hands, written by the parsers' writer.  When a hand is over it is appended to
the ``.phhs`` file, loaded into the warehouse at once (that one hand: the
warehouse loads a file in one transaction, so it never holds half a hand), and
the table goes on: the next button and the stacks carried over (7 & 8), the
board carried to the next round (Rummoli, until :meth:`RecordedTable.end_game` starts
the end-of-game finale), the running match score (Big Two).  :meth:`RecordedTable.open`
reads the journal back after a reload or a restart and finishes whatever a crash
interrupted.  One session at a time changes a table (:mod:`analytics.record.lock`): a
session whose table another changed meanwhile reads it again and is refused its step.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

import duckdb

from analytics.record.hand import HandInProgress, NextStep, StepKind, StepRefused
from analytics.record.journal import JournalError, append_entry, read_entries
from analytics.record.lock import table_lock
from analytics.rules.base import Outcome, RuleError
from analytics.simulate.bots_bigtwo import BOT_STYLES as BIGTWO_STYLES
from analytics.simulate.bots_rummoli import STYLES as RUMMOLI_STYLES
from analytics.simulate.bots_seveneight import BOT_STYLES as SEVENEIGHT_STYLES
from analytics.simulate.rummoli import finale_pots
from analytics.simulate.seveneight import blinds_in_order
from analytics.warehouse import WarehouseError, ingest
from analytics.warehouse.connection import project_root
from analytics.warehouse.loading import load_where_read
from parsers.actions import ActionSyntaxError, parse_action
from parsers.build import name_problem
from parsers.cards import Card
from parsers.errors import HandlabError
from parsers.fields import VARIANTS
from parsers.model import RUMMOLI_POTS, Action, GameRules, HandHistory
from parsers.reader import loads_hands
from parsers.rule_options import Betting, BigTwoRules, Game, RummoliRules, SevenEightRules
from parsers.writer import dumps_hand, format_action

__all__ = ["BOT_STYLE_NAMES", "DEFAULT_FOLDER", "FOLDER_VAR", "KEEP_WRITER", "FiledHand",
           "RecordedTable", "TableSetup",
           "bigtwo_setup", "recorded_folder", "rummoli_setup", "seveneight_setup",
           "table_names"]

DEFAULT_FOLDER: Final = Path("data") / "recorded"
"""Where tables are kept, relative to the project root."""

FOLDER_VAR: Final = "HANDLAB_RECORDED"
"""The environment variable naming another folder for the tables."""


def recorded_folder() -> Path:
    """The folder of the tables: ``$HANDLAB_RECORDED``, else ``data/recorded/``."""
    env = os.environ.get(FOLDER_VAR)
    return Path(env) if env else project_root() / DEFAULT_FOLDER

INGEST_WAIT: Final = 10.0
"""Seconds a finished hand waits for the warehouse while another process writes to it;
after that it stays in the file and is loaded with the table's next hand."""

KEEP_WRITER: Final = 60.0
"""Seconds the warehouse's write connection stays open after a filing, for the table's
next hand (``ingest``'s ``keep``): another process or thread asking for the database gets
it at once; this is the longest a process that cannot ask waits (the writer lease's
``UNASKED_RELEASE``)."""

REBUYS_FIELD: Final = "_rebuys"
"""The user field listing the players who rebought before a 7 & 8 hand (the simulator's)."""

MAX_CHIPS: Final = 10**15 - 1
"""The most chips a stack may hold (docs/format.md)."""

BOT_STYLE_NAMES: Final = {Game.SEVENEIGHT: tuple(SEVENEIGHT_STYLES),
                          Game.BIGTWO: tuple(BIGTWO_STYLES),
                          Game.RUMMOLI: tuple(RUMMOLI_STYLES)}
"""The bot styles each game offers, by name (the simulator's bots)."""

_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


@dataclass(frozen=True, slots=True)
class TableSetup:
    """How a table plays: game, variant and knobs, the players in seat order.

    ``stacks`` are the starting stacks by seat (7 & 8) or the starting match
    score (Big Two, zeros); ``blinds`` the small and big blind and ``ante`` each
    player's ante (7 & 8).  ``bots`` names a bot style per seat for a table played
    against the bots (an empty style is the person at the screen); empty for a
    recorded table; these are the styles the table starts with (seat changes keep each
    seat's style now: :attr:`RecordedTable.bot_styles`).  ``seed`` shuffles the cards the
    computer deals there.
    """

    name: str
    variant: str
    rules: GameRules
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    blinds: tuple[int, int] = (0, 0)
    ante: int = 0
    bots: tuple[str, ...] = ()
    seed: int = 0
    min_bet: int = 1

    @property
    def game(self) -> Game:
        """The table's game."""
        return VARIANTS[self.variant].game

    def to_json(self) -> dict[str, object]:
        """The setup as a journal entry (the knobs as a header the reader reads back)."""
        knobs = dumps_hand(HandHistory(game=self.game, variant=self.variant, rules=self.rules,
                                       players=self.players, starting_stacks=self.stacks,
                                       dealer=1 if self.game is Game.RUMMOLI else None))
        return {"name": self.name, "variant": self.variant, "knobs": knobs,
                "players": list(self.players), "stacks": list(self.stacks),
                "blinds": list(self.blinds), "ante": self.ante, "bots": list(self.bots),
                "seed": self.seed, "min_bet": self.min_bet}

    @staticmethod
    def from_json(entry: dict[str, object]) -> TableSetup:
        """The setup of a journal's first entry."""
        variant = str(entry["variant"])
        rules: GameRules = SevenEightRules()  # 7 & 8 has no knobs besides its stakes
        if VARIANTS[variant].game is not Game.SEVENEIGHT:
            knobs = loads_hands(str(entry["knobs"]), name="the table's knobs")[0]
            if knobs.errors or knobs.rules is None:
                raise JournalError(f"the table's knobs do not read: {knobs.errors[:1]}")
            rules = knobs.rules
        return TableSetup(
            name=str(entry["name"]), variant=variant, rules=rules,
            players=tuple(map(str, _list(entry["players"]))),
            stacks=tuple(int(str(stack)) for stack in _list(entry["stacks"])),
            blinds=_pair(entry["blinds"]), ante=int(str(entry["ante"])),
            bots=tuple(map(str, _list(entry.get("bots", [])))), seed=int(str(entry["seed"])),
            min_bet=int(str(entry.get("min_bet", 1))))


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise JournalError(f"expected a list in the table's setup, got {value!r}")
    return value


def _pair(value: object) -> tuple[int, int]:
    first, second = map(int, map(str, _list(value)))
    return first, second


def _check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise StepRefused(f"{name!r} is not a table name: 1 to 40 letters, digits, - or _, "
                          "starting with a letter or digit")
    return name


def _check_players(players: Sequence[str]) -> tuple[str, ...]:
    """The players of a new table, each with a name of his own (as every history needs)."""
    for number, player in enumerate(players, start=1):
        problem = name_problem(player, f"player {number}")
        if problem is not None:
            raise StepRefused(problem)
        if player in players[:number - 1]:
            raise StepRefused(f"{player!r} is named twice: each player needs a name of his own")
    return tuple(players)


def seveneight_setup(name: str, players: Sequence[str], stack: int, *,
                     blinds: tuple[int, int] = (1, 2), ante: int = 0, variant: str = "N78",
                     bots: Sequence[str] = ()) -> TableSetup:
    """A 7 & 8 table: everyone starts with ``stack`` chips (the engine checks the rest)."""
    if variant not in ("N78", "P78", "F78"):
        raise StepRefused(f"{variant!r} is not a 7 & 8 variant (N78, P78 or F78)")
    return TableSetup(_check_name(name), variant, SevenEightRules(), _check_players(players),
                      (stack,) * len(players), blinds, ante, tuple(bots),
                      secrets.randbits(48))


def bigtwo_setup(name: str, players: Sequence[str], rules: BigTwoRules | None = None, *,
                 bots: Sequence[str] = ()) -> TableSetup:
    """A Big Two match: ``players`` in the order of play, the match score starting at 0."""
    return TableSetup(_check_name(name), "B2", rules or BigTwoRules(), _check_players(players),
                      (0,) * len(players), bots=tuple(bots), seed=secrets.randbits(48))


def rummoli_setup(name: str, players: Sequence[str], stack: int,
                  rules: RummoliRules | None = None, *, variant: str = "NRM", min_bet: int = 1,
                  bots: Sequence[str] = ()) -> TableSetup:
    """A Rummoli game: ordinary rounds, the deal passing clockwise, the board carried over,
    until :meth:`RecordedTable.end_game` plays the finale ``rules.finale`` says."""
    if variant not in ("NRM", "PRM", "FRM"):
        raise StepRefused(f"{variant!r} is not a Rummoli variant (NRM, PRM or FRM)")
    return TableSetup(_check_name(name), variant, rules or RummoliRules(), _check_players(players),
                      (stack,) * len(players), bots=tuple(bots), seed=secrets.randbits(48),
                      min_bet=min_bet)


def table_names(folder: Path) -> list[str]:
    """The tables kept in ``folder``, by name."""
    return sorted(path.stem for path in folder.glob("*.journal")) if folder.is_dir() else []


def _dated(header: HandHistory, now: dt.datetime) -> HandHistory:
    """``header`` with the time and date of ``now`` (to the second)."""
    return replace(header, time=now.time().replace(microsecond=0), day=now.day,
                   month=now.month, year=now.year)


@dataclass(frozen=True, slots=True)
class FiledHand:
    """A finished hand: as written to the ``.phhs`` file, its outcome, and what the warehouse
    said (``ingest`` is ``loaded`` or the problem; the hand is in the file either way)."""

    hand: HandHistory
    outcome: Outcome
    ingest: str


@dataclass(slots=True)
class _Carry:
    """What passes from one hand to the next: stacks or scores by seat, the last button;
    whether the Rummoli game is in its finale (``finale``) or over (``ended``); who sits in
    each seat (``names``, "" for an empty seat), who rebought before the next hand
    (``rebuys``), and at a table played against the bots each seat's bot style (``bots``:
    "" for the person at the screen and for an empty seat; empty at a recorded table)."""

    stacks: list[int]
    board: list[int]  # the Rummoli board (RUMMOLI_POTS order)
    button: int  # seat index (0-based) of the last hand's button (at first: the seat
    # before the last, so the last seat deals the first hand and seat 1 is p1); the
    # Rummoli dealer's seat
    number: int = 0
    finale: bool = False
    ended: bool = False
    names: list[str] = field(default_factory=list)
    rebuys: list[str] = field(default_factory=list)
    bots: list[str] = field(default_factory=list)


@dataclass(slots=True)
class RecordedTable:
    """One table being recorded or played; see the module docstring.

    ``steps`` is the hand in progress after each of its steps (the first is the
    hand as dealt-to-nobody), so undo drops the last.  ``ingest_into`` is the
    database to load finished hands into (None: where the dashboard reads, the lake
    ``$HANDLAB_LAKE`` names or the database, :func:`~analytics.warehouse.loading.load_where_read`;
    False: none, the hands only go to the file); ``keep_writer`` how long its write
    connection stays open for the next hand (:data:`KEEP_WRITER`; 0: closed each time).
    ``journal_size`` is the journal's length as this instance last read or wrote it: a
    longer journal means another session changed the table (:attr:`is_current`).
    """

    folder: Path
    setup: TableSetup
    ingest_into: Path | str | bool | None = None
    clock: Callable[[], dt.datetime] = dt.datetime.now
    keep_writer: float = KEEP_WRITER
    steps: list[HandInProgress] = field(default_factory=list)
    filed: list[FiledHand] = field(default_factory=list)
    carry: _Carry = field(default_factory=lambda: _Carry([], [], 0))
    journal_size: int = 0
    taker_given: bool = False
    """Whether the hand in progress, a finished Big Two game under ``zero_sum``, has been
    told who takes on all losses (:meth:`take_losses`): until then it waits for it."""

    # -- files ------------------------------------------------------------------------

    @property
    def journal_path(self) -> Path:
        """The table's journal."""
        return self.folder / f"{self.setup.name}.journal"

    @property
    def history_path(self) -> Path:
        """The table's finished hands."""
        return self.folder / f"{self.setup.name}.phhs"

    @property
    def is_current(self) -> bool:
        """True while no other session has changed the table since this instance read its
        journal (the journal is as long as this instance left it)."""
        try:
            return self.journal_path.stat().st_size == self.journal_size
        except OSError:
            return False

    def _write(self, entry: dict[str, object]) -> None:
        """Journal ``entry`` (the table's lock held) and note the journal's new length."""
        append_entry(self.journal_path, entry)
        self.journal_size = self.journal_path.stat().st_size

    @contextmanager
    def _changing(self) -> Iterator[None]:
        """Hold the table's lock for one change.  When another session changed the table
        since this instance read it, the change was chosen on a table that is gone: read
        the journal again and refuse it (:class:`StepRefused`)."""
        with table_lock(self.journal_path) as first:
            if not self.is_current:
                self._load(read_entries(self.journal_path), first)
                raise StepRefused("the table moved on (another tab or session changed it): "
                                  "reload to see where it is now")
            yield

    # -- opening ----------------------------------------------------------------------

    @classmethod
    def create(cls, folder: Path, setup: TableSetup, *,
               ingest_into: Path | str | bool | None = None,
               clock: Callable[[], dt.datetime] = dt.datetime.now) -> RecordedTable:
        """A new table in ``folder``; its first hand starts at once (raises
        :class:`StepRefused` when the name is taken or the engine rejects the setup)."""
        folder.mkdir(parents=True, exist_ok=True)
        table = cls(folder, setup, ingest_into, clock)
        table.carry = _Carry(list(setup.stacks), [0] * len(RUMMOLI_POTS),
                             len(setup.players) - 2, names=list(setup.players),
                             bots=list(setup.bots))
        first = table._next_header()  # checked before anything is written
        if first is None:
            raise StepRefused("the table needs at least two players with chips")
        HandInProgress.start(first)
        with table_lock(table.journal_path):  # two sessions creating one name: one wins
            if table.journal_path.exists():
                raise StepRefused(f"a table named {setup.name!r} exists already")
            table._write({"setup": setup.to_json()})
            table._start(first)
        return table

    @classmethod
    def open(cls, folder: Path, name: str, *, ingest_into: Path | str | bool | None = None,
             clock: Callable[[], dt.datetime] = dt.datetime.now) -> RecordedTable:
        """The table ``name`` as its journal left it; finishes filing a hand a crash
        interrupted and starts the next hand when none is in progress.  Reads under the
        table's lock: a filing another session has under way is waited for, never done
        again.  Raises :class:`JournalError` naming the file and line of an entry that does
        not read or of a step the rules engine refuses."""
        path = folder / f"{_check_name(name)}.journal"
        path.stat()  # no such table: FileNotFoundError, before a lock file is made for it
        with table_lock(path) as first:
            entries = read_entries(path)
            if not entries or "setup" not in entries[0]:
                raise JournalError(f"{path}:1: the journal does not start with the table's "
                                   "setup")
            setup_entry = entries[0]["setup"]
            assert isinstance(setup_entry, dict)
            setup = TableSetup.from_json(setup_entry)
            if setup.name != name:  # its file and lock go by the setup's name
                raise JournalError(f"{path}:1: this is the journal of the table "
                                   f"{setup.name!r} (its setup says so), renamed or copied: "
                                   f"a table's journal is read under its own name "
                                   f"({setup.name}.journal)")
            table = cls(folder, setup, ingest_into, clock)
            table._load(entries, first)
        return table

    def _load(self, entries: list[dict[str, object]], first: bool) -> None:
        """Take the journal's ``entries`` again from the table's setup on (the lock held).
        The thread's ``first`` hold also finishes filing a hand a crash interrupted and
        starts the next hand when none is in progress (both write); a hold inside another
        (a table opened in the middle of its own filing) leaves them to that one."""
        setup = self.setup
        self.carry = _Carry(list(setup.stacks), [0] * len(RUMMOLI_POTS),
                            len(setup.players) - 2, names=list(setup.players),
                            bots=list(setup.bots))
        self.steps, self.filed = [], []
        self.journal_size = self.journal_path.stat().st_size
        replay = _Replay(self)
        for number, entry in enumerate(entries[1:], start=2):
            replay.take(entry, number)
        replay.verify()
        if not first:
            return
        if self.steps and self._ends(self.steps[-1]):
            self._file(replay.filing)  # the crash came while (or before) filing it
        elif not self.steps:
            header = self._next_header()
            if header is not None:
                self._start(header)

    # -- the hand in progress ---------------------------------------------------------

    @property
    def hand(self) -> HandInProgress | None:
        """The hand in progress (None when the table is over: :attr:`over_reason` says why)."""
        return self.steps[-1] if self.steps else None

    @property
    def number(self) -> int:
        """The number of the hand in progress (or of the last hand)."""
        return self.carry.number

    def next_step(self) -> NextStep:
        """What the hand in progress waits for (OVER when the table is over); a finished
        Big Two game under ``zero_sum`` scoring first waits for who takes on all losses
        (TAKER, :meth:`take_losses`) when a person records the table (no bots)."""
        hand = self.hand
        if hand is None:
            return NextStep(StepKind.OVER)
        if self._awaits_taker(hand):
            return NextStep(StepKind.TAKER, waiting=hand.taker_choices())
        return hand.next_step()

    def _awaits_taker(self, hand: HandInProgress) -> bool:
        """Whether ``hand`` is over and waits for :meth:`take_losses`: a zero_sum Big Two
        game of a table without bots (the Play page's games file with nobody taking on
        the losses: a bot neither fails to stop a player nor forgets to announce)."""
        return (not self.taker_given and not any(self.bot_styles) and hand.is_over
                and bool(hand.taker_choices()))

    def take_losses(self, taker: int | None) -> FiledHand:
        """Say who takes on all losses (``taker``, a player of the game; None: nobody) in the
        finished zero_sum Big Two game the table waits for (TAKER), and file it."""
        with self._changing():
            hand = self._current()
            if not self._awaits_taker(hand):
                raise StepRefused("no game waits for who takes on all losses")
            after = hand.with_taker(taker)
            self._write({"taker": taker or 0})
            self.steps.append(after)
            self.taker_given = True
            return self._file(None)

    @property
    def can_undo(self) -> bool:
        """True when the hand in progress has a step to undo."""
        return len(self.steps) > 1

    def record(self, action: Action) -> FiledHand | None:
        """Take ``action`` (raises :class:`StepRefused` when it is not allowed); when it
        ends the hand, file it and start the next; return the filed hand then."""
        with self._changing():
            hand = self._current()
            after = hand.with_action(action)
            self._write({"add": format_action(action)})
            self.steps.append(after)
            return self._file(None) if self._ends(after) else None

    def show(self, player: int, hidden: Sequence[Card] = ()) -> FiledHand | None:
        """``player`` shows his cards, naming those recorded as ``??`` (``hidden``, in the
        order he was dealt them): the deals are rewritten with them, then the show."""
        with self._changing():
            hand = self._current()
            after = hand.show(player, hidden)
            if after.actions[:-1] == hand.actions:
                self._write({"add": format_action(after.actions[-1])})
            else:
                self._write({"set": [format_action(a) for a in after.actions]})
            self.steps.append(after)
            return self._file(None) if self._ends(after) else None

    def _ends(self, hand: HandInProgress) -> bool:
        """Whether ``hand`` is finished and to be filed now (not waiting for who takes on
        all losses)."""
        return hand.is_over and not self._awaits_taker(hand)

    def undo(self) -> None:
        """Take back the last step of the hand in progress."""
        with self._changing():
            if not self.can_undo:
                raise StepRefused("nothing to undo in this hand")
            self._write({"undo": True})
            self.steps.pop()
            self.taker_given = False

    def _current(self) -> HandInProgress:
        hand = self.hand
        if hand is None:
            raise StepRefused(f"the table is over: {self.over_reason}")
        return hand

    @property
    def over_reason(self) -> str:
        """Why the table is over (when :attr:`hand` is None), in words for the page."""
        left = sum(self.carry.board) if self.setup.game is Game.RUMMOLI else 0
        staying = f"; {left} chips stay on the board" if left else ""
        if self.carry.ended:
            return f"the game was ended without a finale{staying}"
        if self.setup.game is Game.BIGTWO:
            return "fewer than two players are seated: someone joins to play on"
        if sum(stack > 0 for stack in self.carry.stacks) < 2:
            return f"fewer than two players have chips left{staying}"
        return "the game's finale has been played"

    # -- seats between hands ----------------------------------------------------------

    @property
    def can_reseat(self) -> bool:
        """True when players may rebuy, leave or join (:meth:`rebuy`, :meth:`leave`,
        :meth:`join`): between two hands (none in progress, or the one in progress has no
        step yet): 7 & 8 hands, Big Two games, ordinary Rummoli rounds (not once the game
        has ended: its finale is for the players who built the board)."""
        hand = self.hand
        if hand is not None and hand.actions:
            return False
        return self.setup.game is not Game.RUMMOLI or not (self.carry.finale
                                                             or self.carry.ended)

    @property
    def seating(self) -> tuple[tuple[str, int], ...]:
        """Each seat's player ("" when the seat is empty) and chips, in seat order."""
        return tuple(zip(self.carry.names, self.carry.stacks, strict=True))

    @property
    def bot_styles(self) -> tuple[str, ...]:
        """At a table played against the bots, each seat's bot style now, in seat order (""
        for the person at the screen and for an empty seat); empty at a recorded table.
        Seat changes update it: a bot seated between hands plays from the next hand on."""
        return tuple(self.carry.bots)

    def is_persons_seat(self, seat: int) -> bool:
        """True when 1-based ``seat`` is the person's at a table played against the bots."""
        carry = self.carry
        return (bool(carry.bots) and 1 <= seat <= len(carry.names)
                and bool(carry.names[seat - 1]) and not carry.bots[seat - 1])

    def rebuy(self, seat: int, stack: int) -> None:
        """The busted player in 1-based ``seat`` buys ``stack`` chips before the next hand
        (the hand lists him in its ``_rebuys`` user field, as the simulator's hands do); 7 & 8
        and Rummoli (a Big Two score is no stack: nobody rebuys)."""
        with self._changing():
            name, chips = self._seated(seat)
            if self.setup.game is Game.BIGTWO:
                raise StepRefused("a Big Two match keeps a score, not chips: nobody rebuys")
            if chips:
                raise StepRefused(f"{name} has {chips} chips: only a player with none rebuys")
            self._reseat(seat, name, stack)

    def leave(self, seat: int) -> None:
        """The player in 1-based ``seat`` leaves the table with his chips (Big Two: his match
        score is final); the seat is empty.  Rummoli: what he anted stays on the board.  At a
        table played against the bots only a bot leaves this way (the person leaves the
        table itself; his seat stays his)."""
        with self._changing():
            self._seated(seat)
            if self.is_persons_seat(seat):
                raise StepRefused("your seat stays yours: leave the table to stop playing")
            self._reseat(seat, "", 0)

    def join(self, seat: int, name: str, stack: int, bot: str = "") -> None:
        """``name`` sits down in the empty 1-based ``seat`` with ``stack`` chips (Big Two:
        ``stack`` is 0, the score he joins the match with, as everyone's at its start).  At a
        table played against the bots the newcomer is a bot of style ``bot`` (one of
        :data:`BOT_STYLE_NAMES` for the game); at a recorded table ``bot`` stays empty."""
        with self._changing():
            if self.setup.game is Game.BIGTWO and stack:
                raise StepRefused(f"a new Big Two player joins the match with a score of 0, "
                                  f"not {stack}")
            if not 1 <= seat <= len(self.carry.names) or self.carry.names[seat - 1]:
                raise StepRefused(f"seat {seat} is not an empty seat of this table")
            name = name.strip()
            if name_problem(name, "the player") is not None or name in self.carry.names:
                raise StepRefused(f"{name!r} is not a new player's name (one not seated yet)")
            styles = BOT_STYLE_NAMES[self.setup.game]
            if self.carry.bots and bot not in styles:
                raise StepRefused("only a bot joins a table played against the bots, of style "
                                  f"{' or '.join(styles)}" + (f", not {bot!r}" if bot else ""))
            if bot and not self.carry.bots:
                raise StepRefused("a recorded table seats people, not bots")
            self._reseat(seat, name, stack, bot)

    def _seated(self, seat: int) -> tuple[str, int]:
        if not 1 <= seat <= len(self.carry.names) or not self.carry.names[seat - 1]:
            raise StepRefused(f"nobody sits in seat {seat}")
        return self.carry.names[seat - 1], self.carry.stacks[seat - 1]

    def _reseat(self, seat: int, name: str, stack: int, bot: str = "") -> None:
        """Seat ``name`` (a bot of style ``bot``, when given) with ``stack`` chips in ``seat``
        ("" and 0: empty it), then deal the hand about to start again with the new seating
        (its number stays)."""
        if not self.can_reseat:
            raise StepRefused("seats change only between two hands: finish or undo the hand "
                              "in progress first")
        if name and self.setup.game is not Game.BIGTWO and not 1 <= stack <= MAX_CHIPS:
            raise StepRefused(f"a stack is 1 to {MAX_CHIPS} chips, not {stack}")
        before = (self.carry.names[seat - 1], self.carry.stacks[seat - 1],
                  list(self.carry.rebuys), list(self.carry.bots))
        number = self.carry.number if self.hand is not None else self.carry.number + 1
        self._seat(seat, name, stack, bot)
        header = self._next_header(number)
        try:  # checked before anything is written
            hand = HandInProgress.start(header) if header is not None else None
        except StepRefused:
            (self.carry.names[seat - 1], self.carry.stacks[seat - 1], self.carry.rebuys,
             self.carry.bots) = before
            raise
        change: dict[str, object] = {"seat": seat, "player": name, "stack": stack,
                                     **({"bot": bot} if bot else {})}
        if header is None or hand is None:  # fewer than two with chips: no hand for now
            self._write({**change, "last": number - 1})
            self.carry.number, self.steps = number - 1, []
        else:
            self._write({**change, "start": number, "header": dumps_hand(header)})
            self.carry.number, self.steps = number, [hand]

    def _seat(self, seat: int, name: str, stack: int, bot: str = "") -> None:
        """The seat change alone, on the carry (also when the journal is read back)."""
        carry = self.carry
        if carry.bots and (bot or not name):  # a bot joins or anyone leaves; a rebuy keeps it
            carry.bots[seat - 1] = bot
        rebought = bool(name) and name == carry.names[seat - 1] and not carry.stacks[seat - 1]
        if carry.names[seat - 1] in carry.rebuys and not rebought:
            carry.rebuys.remove(carry.names[seat - 1])  # he rebought, then left
        if rebought and name not in carry.rebuys:
            carry.rebuys.append(name)
        carry.names[seat - 1], carry.stacks[seat - 1] = name, stack

    # -- the Rummoli finale -----------------------------------------------------------

    @property
    def finale_pot(self) -> str | None:
        """The pot the Rummoli round in progress plays for in the finale (``all`` for the
        whole board), None in an ordinary round."""
        hand = self.hand
        return hand.header.finale_pot if hand is not None else None

    @property
    def can_end_game(self) -> bool:
        """True when :meth:`end_game` may be called: a Rummoli game between two ordinary
        rounds (the round in progress has no step yet)."""
        hand = self.hand
        return (self.setup.game is Game.RUMMOLI and hand is not None and not hand.actions
                and not self.carry.finale)

    def end_game(self) -> None:
        """End the Rummoli game (RULES.md 1.7): the round about to start becomes the first
        finale round, for the pots ``finale_pots`` (the simulator's) names for the board
        and the ``finale`` knob; with no pot to play for (``finale = "none"`` or an empty
        board) the table is over at once.  Raises :class:`StepRefused` unless
        :attr:`can_end_game`."""
        with self._changing():
            if not self.can_end_game:
                if self.setup.game is Game.RUMMOLI and self.hand is None:
                    raise StepRefused(f"the game is over already: {self.over_reason}")
                raise StepRefused("only a Rummoli game between two ordinary rounds can end: "
                                  "finish or undo the round in progress first")
            assert isinstance(self.setup.rules, RummoliRules)
            pots = finale_pots(self.setup.rules.finale, self.carry.board)
            number = self.carry.number
            if not pots:
                self._write({"end": number})
                self.steps = []
                self.carry.ended = True
                return
            header = self._next_rummoli(number, pots[0])
            assert header is not None  # the round in progress has two players with chips
            hand = HandInProgress.start(header)
            self._write({"start": number, "header": dumps_hand(header)})
            self.steps = [hand]
            self.carry.finale = True

    # -- the next hand ----------------------------------------------------------------

    def _next_header(self, number: int | None = None) -> HandHistory | None:
        """The header of the next hand (of hand ``number``, by default the one after the
        last), or None when fewer than two players have chips."""
        setup = self.setup
        now = self.clock()
        number = self.carry.number + 1 if number is None else number
        if setup.game is Game.BIGTWO:
            return self._next_bigtwo(number, now)
        if setup.game is Game.RUMMOLI:
            return self._next_rummoli(number, None)
        stacks = self.carry.stacks
        count = len(stacks)
        with_chips = [seat for seat in range(count) if stacks[seat] > 0]
        if len(with_chips) < 2:
            return None
        button = next(seat % count for seat in range(self.carry.button + 1,
                                                     self.carry.button + 1 + count)
                      if stacks[seat % count] > 0)
        seats = [seat % count for seat in range(button + 1, button + 1 + count)
                 if stacks[seat % count] > 0]
        n = len(seats)
        small, big = setup.blinds
        fixed = VARIANTS[setup.variant].betting is Betting.FIXED_LIMIT
        return _dated(HandHistory(
            game=Game.SEVENEIGHT, variant=setup.variant, rules=setup.rules,
            starting_stacks=tuple(stacks[s] for s in seats), antes=(setup.ante,) * n,
            blinds_or_straddles=blinds_in_order(n, small, big),
            min_bet=None if fixed else big, small_bet=big if fixed else None,
            big_bet=2 * big if fixed else None,
            players=tuple(self.carry.names[s] for s in seats),
            seats=tuple(s + 1 for s in seats), seat_count=count, hand=number, table=setup.name,
            user_fields=((REBUYS_FIELD, list(self.carry.rebuys)),) if self.carry.rebuys
            else ()), now)

    def _next_bigtwo(self, number: int, now: dt.datetime) -> HandHistory | None:
        """The next game of the Big Two match: the seated players in seat order with their
        running scores; None with fewer than two seated.  The game names its ``seats`` once
        the seating is no longer the table's first (someone left or joined)."""
        setup, carry = self.setup, self.carry
        seated = [seat for seat, name in enumerate(carry.names) if name]
        if len(seated) < 2:
            return None
        changed = tuple(carry.names) != setup.players
        return _dated(HandHistory(
            game=Game.BIGTWO, variant=setup.variant, rules=setup.rules,
            starting_stacks=tuple(carry.stacks[s] for s in seated),
            players=tuple(carry.names[s] for s in seated),
            seats=tuple(s + 1 for s in seated) if changed else None,
            seat_count=len(carry.names) if changed else None,
            game_id=setup.name, round=number, hand=number, table=setup.name), now)

    def _next_rummoli(self, number: int, finale_pot: str | None) -> HandHistory | None:
        """The next Rummoli round: an ordinary one (``finale_pot`` None) until the game ends,
        then the finale's next pot; None when the game is over or fewer than two players
        have chips (a ``per_pot`` finale's pots not played for yet stay on the board)."""
        carry = self.carry
        if carry.ended:
            return None
        if carry.finale and finale_pot is None:
            assert isinstance(self.setup.rules, RummoliRules)
            pots = finale_pots(self.setup.rules.finale, carry.board)
            if not pots:
                return None
            finale_pot = pots[0]
        with_chips = [seat for seat, stack in enumerate(carry.stacks) if stack > 0]
        if len(with_chips) < 2:
            return None
        return _dated(self._rummoli_header(with_chips, number, finale_pot), self.clock())

    def _rummoli_header(self, with_chips: list[int], number: int,
                        finale_pot: str | None) -> HandHistory:
        """A Rummoli round: the players with chips in seat order, the deal one seat on."""
        setup, carry = self.setup, self.carry
        count = len(carry.stacks)
        dealer = next(seat % count for seat in range(carry.button + 1, carry.button + 1 + count)
                      if carry.stacks[seat % count] > 0)
        fixed = VARIANTS[setup.variant].betting is Betting.FIXED_LIMIT
        board = tuple(carry.board)
        return HandHistory(
            game=Game.RUMMOLI, variant=setup.variant, rules=setup.rules,
            starting_stacks=tuple(carry.stacks[s] for s in with_chips),
            min_bet=None if fixed else setup.min_bet, small_bet=setup.min_bet if fixed else None,
            players=tuple(carry.names[s] for s in with_chips),
            seats=tuple(s + 1 for s in with_chips), seat_count=count, hand=number,
            table=setup.name, game_id=setup.name, round=number,
            dealer=with_chips.index(dealer) + 1, board_before=board if any(board) else None,
            finale_pot=finale_pot,
            user_fields=((REBUYS_FIELD, list(carry.rebuys)),) if carry.rebuys else ())

    def _start(self, header: HandHistory) -> None:
        hand = HandInProgress.start(header)
        self._write({"start": self.carry.number + 1, "header": dumps_hand(header)})
        self.carry.number += 1
        self.steps = [hand]
        self.taker_given = False

    # -- filing -----------------------------------------------------------------------

    def _file(self, offset: int | None) -> FiledHand:
        """Append the finished hand to the ``.phhs`` file (at ``offset`` when a filing was
        begun before a crash), load it into the warehouse, start the next hand; the table's
        lock held throughout, so no other session finds the filing half done."""
        hand = self.steps[-1].finished()
        path = self.history_path
        if offset is None:
            offset = path.stat().st_size if path.exists() else 0
            self._write({"filing": self.carry.number, "offset": offset})
        text = ("\n" if offset else "") + f"[{self.carry.number}]\n" + dumps_hand(hand)
        with path.open("ab") as stream:
            stream.truncate(offset)  # a torn append before a crash goes
            stream.seek(offset)
            stream.write(text.encode("utf-8"))
            stream.flush()
            os.fsync(stream.fileno())
        message = self._ingest(hand)
        self._write({"filed": self.carry.number, "ingest": message})
        filed = self._filed(hand, message)
        header = self._next_header()
        if header is not None:
            self._start(header)
        else:
            self.steps = []
        return filed

    def _filed(self, hand: HandHistory, message: str) -> FiledHand:
        """Carry the finished ``hand`` over to the table: stacks or scores, the button."""
        outcome = HandInProgress(replace(hand, actions=()), hand.actions).outcome()
        finishing = hand.finishing_stacks or ()
        if hand.seats is not None:
            for seat, stack in zip(hand.seats, finishing, strict=True):
                self.carry.stacks[seat - 1] = stack
            self.carry.button = hand.seats[(hand.dealer or len(hand.seats)) - 1] - 1
            if outcome.board_after is not None:
                self.carry.board = list(outcome.board_after)
        else:
            self.carry.stacks = list(finishing)
        self.carry.rebuys = []
        filed = FiledHand(hand, outcome, message)
        self.filed.append(filed)
        self.steps = []
        return filed

    def _ingest(self, hand: HandHistory) -> str:
        """Load ``hand`` alone into the warehouse; ``loaded`` or what went wrong.

        When an earlier hand of the table could not be loaded (the warehouse was busy),
        the whole ``.phhs`` file is loaded instead: the warehouse skips the hands it holds,
        so the missing ones come in and nothing twice.
        """
        if self.ingest_into is False:
            return "not loaded (no warehouse for this table)"
        # A successful load after a failed one loads the whole file, so the table is behind
        # exactly when the last hand's load failed.
        behind = bool(self.filed) and self.filed[-1].ingest.startswith("not loaded")
        staging = self.folder / ".ingest"
        staging.mkdir(exist_ok=True)
        # A name of this filing's own: no other filing writes or deletes it under this one.
        path = staging / f"{self.setup.name}-{self.carry.number}-{secrets.token_hex(4)}.phh"
        if behind:
            path = path.with_suffix(".phhs")
            path.write_bytes(self.history_path.read_bytes())
        else:
            path.write_text(dumps_hand(hand), encoding="utf-8")
        label = (f"recorded: {self.setup.name}.phhs" if behind
                 else f"recorded: {self.setup.name}.phhs hand {self.carry.number}")
        names = {str(path): label}
        try:
            if isinstance(self.ingest_into, str | Path):
                summary = ingest([path], self.ingest_into, workers=0, names=names,
                                 wait=INGEST_WAIT, keep=self.keep_writer)
            else:
                summary = load_where_read([path], names=names, wait=INGEST_WAIT,
                                          keep=self.keep_writer)
        except (WarehouseError, OSError, duckdb.Error) as error:
            return f"not loaded: {error}"
        finally:
            path.unlink(missing_ok=True)
        if summary.errors or summary.rejected:
            problem = next((f.message for f in summary.files if f.message), "rejected")
            return f"not loaded: {problem}"
        return "loaded" if summary.loaded else "already loaded"


@dataclass(slots=True)
class _Replay:
    """A journal read back into ``table``, entry by entry, nothing written: the offset of a
    filing begun and not finished (``filing``), and for each step of the hand in progress
    the journal line of the hand's start and of each of its actions (``lines``), so that a
    step the rules engine refuses is named by its line."""

    table: RecordedTable
    filing: int | None = None
    lines: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def path(self) -> Path:
        """The journal."""
        return self.table.journal_path

    def take(self, entry: dict[str, object], number: int) -> None:
        """Take ``entry``, line ``number`` of the journal, again; the hand in progress is
        checked by its engine before anything replaces or files it."""
        if not {"add", "set", "undo"}.intersection(entry):
            self.verify()
        try:
            self._redo(entry, number)
        except (HandlabError, ActionSyntaxError, KeyError, ValueError, IndexError) as error:
            raise JournalError(f"{self.path}:{number}: {error}") from None

    def verify(self) -> None:
        """Replay the hand in progress through its rules engine; a step it refuses raises
        :class:`JournalError` naming the step's journal line (two sessions wrote the
        table at once, before the lock, or the file was edited)."""
        hand = self.table.hand
        if hand is None or not self.lines:
            return
        try:
            hand.state()
        except RuleError as error:
            lines, index = self.lines[-1], error.action_index
            line = lines[index + 1] if index is not None and index + 1 < len(lines) else lines[0]
            step = f"the step {error.action_text!r} is refused: " if error.action_text else ""
            raise JournalError(f"{self.path}:{line}: {step}{error.message}") from None

    def _redo(self, entry: dict[str, object], number: int) -> None:
        table, carry = self.table, self.table.carry
        if "seat" in entry:
            table._seat(int(str(entry["seat"])), str(entry["player"]),
                        int(str(entry["stack"])), str(entry.get("bot", "")))
        if "last" in entry:  # a seat change left fewer than two players with chips
            table.steps, self.lines = [], []
            carry.number = int(str(entry["last"]))
        elif "start" in entry:
            header = loads_hands(str(entry["header"]), name="a journalled header")[0]
            table.steps, self.lines = [HandInProgress(header)], [(number,)]
            table.taker_given = False
            carry.number = int(str(entry["start"]))
            carry.finale = header.finale_pot is not None
        elif "end" in entry:
            table.steps, self.lines = [], []
            carry.ended = True
        elif "add" in entry:
            hand = table.steps[-1]
            action = parse_action(str(entry["add"]), hand.game, hand.header.num_players)
            table.steps.append(HandInProgress(hand.header, (*hand.actions, action)))
            self.lines.append((*self.lines[-1], number))
        elif "set" in entry:
            self._redo_set(entry["set"], number)
        elif "undo" in entry:
            if len(table.steps) < 2:
                raise JournalError("nothing to undo in this hand")
            table.steps.pop()
            self.lines.pop()
            table.taker_given = False
        elif "taker" in entry:  # who takes on all losses in a finished zero_sum game
            taker = int(str(entry["taker"]))
            table.steps.append(table.steps[-1].with_taker(taker or None))
            self.lines.append(self.lines[-1])
            table.taker_given = True
        elif "filing" in entry:
            self.filing = int(str(entry["offset"]))
        elif "filed" in entry:
            table._filed(table.steps[-1].finished(), str(entry.get("ingest", "")))
            self.filing, self.lines = None, []

    def _redo_set(self, texts: object, number: int) -> None:
        """A step that rewrote the hand (a reveal): an action kept keeps its line."""
        hand, lines = self.table.steps[-1], self.lines[-1]
        if not isinstance(texts, list):
            raise JournalError(f"expected a list of actions, got {texts!r}")
        actions = tuple(parse_action(str(text), hand.game, hand.header.num_players)
                        for text in texts)
        self.table.steps.append(HandInProgress(hand.header, actions))
        self.lines.append((lines[0], *(
            lines[index + 1] if index < len(hand.actions) and hand.actions[index] == action
            else number for index, action in enumerate(actions))))
