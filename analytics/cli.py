"""The ``handlab`` command line: validate, eval, simulate, ingest, serve.

Each command imports what it needs when it runs, so ``handlab --help`` is quick.
Exit codes: 0 all good, 1 some hands were rejected, 2 usage or I/O errors.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer
from rich.table import Table
from typer.core import TyperGroup

from analytics.commands import (
    SEED_HELP,
    check_table_size,
    checked_seed,
    players_ranges,
    terminal,
)
from analytics.commands.convert import convert
from analytics.commands.equity import equity
from analytics.commands.forget import forget
from analytics.commands.ingest import ingest
from analytics.commands.lake import lake
from analytics.commands.report import report
from analytics.commands.stats import stats
from analytics.words import counted
from parsers.build import PLAYER_LIMITS
from parsers.foreign import ForeignFormat
from parsers.model import HandHistory
from parsers.rule_options import GAME_NAMES, BigTwoRules, Finale, Game
from parsers.scoresheet import SheetProblem

if TYPE_CHECKING:
    from analytics.rules import Outcome
    from analytics.warehouse.pipeline.continuity import BoardChain
    from analytics.warehouse.pipeline.sources import SourceRef

class _CommandGroup(TyperGroup):
    """handlab's command group, whose usage errors read as typer's own.

    typer 0.29 checks a value with pydantic, and a value an enum does not have came out as
    "Invalid value for 'game': Value error, 'poker' is not one of ...": pydantic's prefix
    goes (typer's own message, and click's, is "'poker' is not one of ...").  The
    sub-commands' values are read inside :meth:`invoke`, so this one place serves them all.
    """

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.BadParameter as error:
            error.message = error.message.removeprefix(_PYDANTIC_PREFIX)
            raise


_PYDANTIC_PREFIX: Final = "Value error, "
"""How pydantic starts the message of a ValueError raised while checking a value."""

app = typer.Typer(
    name="handlab",
    cls=_CommandGroup,
    help="Hand-history analytics for Rummoli, Big Two and 7 & 8 Poker.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
)
console = terminal.console(stderr=True)
out = terminal.console()

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@app.command()
def version() -> None:
    """Print the handlab version."""
    from importlib.metadata import version as package_version

    out.print(package_version("handlab"))


_VALIDATED: Final = ("valid", "duplicate", "rejected")
"""What ``validate`` finds a hand to be, in its table's column order."""


@app.command()
def validate(
    paths: Annotated[list[str], typer.Argument(
        help="Files, folders (recursive), .zip or .gz of .phh/.phhs histories and Big Two "
             "score sheets: what ingest reads.")],
    rules: Annotated[bool, typer.Option(help="Also replay each hand by the rules.")] = True,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Only the summary and the files that could not be read, not "
        "each hand's problem.")] = False,
) -> None:
    """Check histories: syntax and structure, then (by default) the rules of play.

    The paths are read as ingest reads them: folders, zip members, gzip files and score
    sheets; links, pipes and devices inside a folder are skipped and named. Every problem
    is printed on a line of its own, as "FILE:LINE: hand N: what is wrong". A hand that
    repeats an earlier one (the same hand id, which ingest would skip) is reported as a
    duplicate. A file in another format (a poker site's export, CSV, JSON) or without any
    hand is an error. Exit code 1 when anything is rejected or no hand was found at all, 2
    when a path is missing or a file cannot be read.
    """
    from analytics.warehouse import SourceError
    from analytics.warehouse.pipeline.sources import expand

    try:
        refs = expand(paths)
    except SourceError as error:
        console.print(terminal.error(str(error)))
        raise typer.Exit(2) from None
    tally = _Tally(rules=rules, quiet=quiet)
    checked: set[str] = set()
    for ref in refs:
        if ref.name in checked:  # named twice (a folder and a file in it): ingest reads it once
            continue
        checked.add(ref.name)
        tally.source(ref)
    raise typer.Exit(tally.report())


def _say(text: str) -> None:
    """One line of ``validate``'s findings on standard output, as it is (no markup)."""
    out.print(text, soft_wrap=True)


class _Tally:
    """What ``validate`` found so far: hands by game and verdict, files without hands, files
    that could not be read; the hands seen, by id, to name a repeat's first."""

    def __init__(self, *, rules: bool, quiet: bool) -> None:
        self.rules = rules
        self.quiet = quiet
        self.counts: Counter[tuple[str, str]] = Counter()
        self.first_seen: dict[int, str] = {}
        self.boards: dict[str, BoardChain] = {}  # each file's Rummoli rounds
        self.unread = 0  # files without any hand handlab reads
        self.failed = 0  # files that could not be read

    def source(self, ref: SourceRef) -> None:
        """Check one source as the ingest reads it (``pipeline.reading``), saying what is
        wrong with it or its hands."""
        from analytics.warehouse import SourceError
        from analytics.warehouse.pipeline.reading import source_format, source_hands

        if ref.skipped is not None:
            _say(f"skipped {ref.name}: {ref.skipped}")
            return
        if ref.problem is not None:
            self.failed += 1
            _say(f"{ref.name}: {ref.problem}")
            return
        hands = 0
        counted_before = Counter(self.counts)
        try:
            kind = source_format(ref)
            if isinstance(kind, ForeignFormat):
                self.unread += 1
                _say(f"{ref.name}: {kind.message}")
                return
            for item in source_hands(ref, kind):
                hands += 1
                self.hand(item, ref.name)
        except SourceError as error:
            # Ingest loads a source whole or not at all: its hands read before the damage
            # are not counted as valid, as ingest loads none of them.
            self.failed += 1
            self.counts = counted_before
            read = (f" (ingest loads a file whole: none of the {counted(hands, 'hand')} read "
                    "before this is loaded)" if hands else "")
            _say(f"{error}{read}")
            return
        if hands == 0:
            self.unread += 1
            _say(f"{ref.name}: no hands in this file")

    def hand(self, item: HandHistory | SheetProblem, name: str) -> None:
        """Count one hand (or a score sheet's bad line) and print its problem, if any."""
        if isinstance(item, SheetProblem):  # a losses line is a game; any other line none
            bad = "rejected" if item.position is not None else "bad line"
            self._count("bigtwo", bad, item.describe(name))
            return
        game = item.game.value if item.game else "unknown"
        problem = str(item.errors[0]) if item.errors else None
        outcome: Outcome | None = None
        if problem is None and self.rules:
            found = _replayed(item)
            problem, outcome = (found, None) if isinstance(found, str) else (None, found)
        if problem is not None:
            self._count(game, "rejected", problem)
            return
        from analytics.warehouse.identity import hand_id

        where = f"{name}:{item.line}: hand {item.index}"
        # The board first, as ingest's writer checks every round of a file, duplicates too.
        broken = self._board_break(item, outcome, name)
        if broken is not None:
            self._count(game, "rejected", f"{where}: {broken}")
            return
        first = self.first_seen.setdefault(hand_id(item), where)
        if first != where:
            self._count(game, "duplicate",
                        f"{where}: duplicate of {first} (ingest would skip it)")
            return
        self._count(game, "valid", None)

    def _board_break(self, hand: HandHistory, outcome: Outcome | None, name: str
                     ) -> str | None:
        """What breaks a Rummoli round's board beside the rounds of its game read so far
        in its file ``name`` (``pipeline.continuity``, as ingest checks it), or None."""
        if (outcome is None or outcome.board_after is None or hand.game_id is None
                or hand.round is None):
            return None
        from analytics.warehouse.pipeline.continuity import BOARD_RULE, BoardChain

        chain = self.boards.setdefault(name, BoardChain())
        problem = chain.add(hand.game_id, hand.round, hand.board_before or (0,) * 9,
                                  tuple(outcome.board_after))
        return None if problem is None else f"{problem} ({BOARD_RULE})"

    def _count(self, game: str, status: str, problem: str | None) -> None:
        self.counts[(game, status)] += 1
        if problem and not self.quiet:
            _say(problem)

    def report(self) -> int:
        """Print the table by game and what was not read; the exit code."""
        counts = self.counts
        if counts:
            console.print(_validated_table(counts))
        bad = sum(n for (_, status), n in counts.items() if status == "bad line")
        if bad:
            console.print(f"{counted(bad, 'bad line')} of score sheets that no game is on "
                          "(not counted as hands)")
        if self.unread:
            console.print(f"{counted(self.unread, 'file')} without any hand handlab reads")
        if self.failed:
            console.print(f"{counted(self.failed, 'file')} could not be read")
        if not counts:
            console.print("no hands found")
        if self.failed:
            return 2
        if self.unread or not counts or any(status in ("rejected", "bad line")
                                            for _, status in counts):
            return 1
        return 0


def _replayed(hand: HandHistory) -> Outcome | str:
    """The rules engine's outcome of ``hand``, or why it refuses it; a bug met on the way
    is this hand's internal error, not the run's end."""
    from analytics.rules import RuleError, replay

    try:
        return replay(hand)
    except RuleError as error:
        return str(error)
    except Exception as error:  # a bug in handlab: this hand, not the run
        return (f"{hand.source}:{hand.line}: hand {hand.index}: internal error:"
                f" {type(error).__name__}: {error} (a bug in handlab, not a"
                " fault of the hand)")


def _validated_table(counts: Counter[tuple[str, str]]) -> Table:
    """``validate``'s table: hands valid, duplicated and rejected by game (and all games, as
    ingest's table, when there are several)."""
    table = Table(title="handlab validate")
    table.add_column("game")
    for column in ("valid", "duplicates", "rejected"):
        table.add_column(column, justify="right")
    games = sorted({game for game, status in counts if status != "bad line"})
    for game in games:
        table.add_row(GAME_NAMES.get(game, game),
                      *(f"{counts[(game, status)]:,}" for status in _VALIDATED))
    if len(games) > 1:  # as ingest's table: the files' total
        table.add_row("all", *(f"{sum(n for (_, s), n in counts.items() if s == status):,}"
                               for status in _VALIDATED))
    return table


@app.command("eval")
def eval_command(
    game: Annotated[Game, typer.Argument(help="rummoli (poker ranks), bigtwo or seveneight.")],
    cards: Annotated[list[str], typer.Argument(help="Cards, e.g. As Kd or AsKd.")],
    rule: Annotated[list[str] | None, typer.Option(
        "--rule", "-r", metavar="NAME=VALUE",
        help="Big Two: a house rule as a history's header writes it, e.g. "
             "four_card_plays=true, straights=vietnamese, suit_order=cdhs (repeatable).")
    ] = None,
) -> None:
    """Evaluate cards with the shared evaluator: category and rank."""
    from analytics.evaluator.describe import describe_hand as describe

    try:
        rules = _eval_rules(game, rule or [])
        out.print(describe(game.value, " ".join(cards), rules))
    except ValueError as error:
        console.print(terminal.error(str(error)))
        raise typer.Exit(2) from None


def _eval_rules(game: Game, pairs: list[str]) -> BigTwoRules | None:
    """The Big Two rules of ``--rule KNOB=VALUE`` pairs, each value read as the format reads
    it (``true``, ``8``; a bare word as text), checked by the reader's own rules
    (:func:`parsers.build.rules_of`); None without pairs."""
    import tomllib

    from parsers.build import rules_of

    if not pairs:
        return None
    if game is not Game.BIGTWO:
        raise ValueError("--rule applies to Big Two only: the other games' hands rank alike "
                         "under every house rule")
    values: dict[str, object] = {}
    for pair in pairs:
        knob, equals, text = pair.partition("=")
        if not equals or not knob.strip():
            raise ValueError(f"--rule {pair!r}: expected KNOB=VALUE, e.g. four_card_plays=true")
        try:
            values[knob.strip()] = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            values[knob.strip()] = text.strip()
    rules = rules_of(Game.BIGTWO, values)
    assert isinstance(rules, BigTwoRules)
    return rules


@app.command()
def simulate(
    game: Annotated[Game, typer.Argument(help="The game to simulate.")],
    hands: Annotated[int, typer.Option("--hands", "-n", min=1, help="Hands/games/rounds.")] = 1000,
    players: Annotated[int, typer.Option(
        "--players", "-p", help=f"Players at the table: {players_ranges(*PLAYER_LIMITS)}.")] = 4,
    seed: Annotated[int, typer.Option("--seed", "-s", callback=checked_seed,
                                      help=SEED_HELP)] = 1,
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Folder to write into.")] = Path("."),
    finale: Annotated[Finale | None, typer.Option(
        help="Rummoli only: how each game's leftover board is played off (default single).")
    ] = None,
) -> None:
    """Play hands with the bots and write them as a .phhs file (deterministic for a seed).

    The file is named by everything that makes its hands (game, players, seed, hands, any
    finale): a run with other arguments never replaces an earlier one. Arguments are
    checked first; a failed run leaves no file behind.
    """
    check_table_size(game, players)
    if out_dir.suffix.lower() in (".phh", ".phhs") or out_dir.is_file():
        raise typer.BadParameter(f"{out_dir} is {'a file' if out_dir.is_file() else 'a file name'}"
                                 ": --out names the folder to write into (the file is named "
                                 "by the run's arguments)", param_hint="--out")
    options: dict[str, object] = {}
    if finale is not None:
        if game is not Game.RUMMOLI:
            raise typer.BadParameter("only Rummoli has a finale", param_hint="'--finale'")
        options["finale"] = finale.value
    target = out_dir / simulated_name(game, players, seed, hands, finale)
    try:
        written = _write_simulated(game, hands, players, seed, options, target)
    except (ValueError, OSError) as error:
        console.print(terminal.error(error))
        raise typer.Exit(2) from None
    console.print(f"wrote {counted(written, f'{GAME_NAMES[game]} hand')} to {target}")


def simulated_name(game: Game, players: int, seed: int, hands: int,
                   finale: Finale | None) -> str:
    """The file name of a simulated run: every argument that makes its hands, so that two
    runs share a name only when they write the same hands (``seveneight-p6-seed7-n1000``,
    ``rummoli-p5-seed1-n1000-per_pot``)."""
    suffix = f"-{finale.value}" if finale is not None else ""
    return f"{game.value}-p{players}-seed{seed}-n{hands}{suffix}.phhs"


def _write_simulated(game: Game, hands: int, players: int, seed: int,
                     options: dict[str, object], target: Path) -> int:
    """Simulate into a temporary file beside ``target`` and rename it to ``target`` once
    every hand is written; on any failure the temporary file is removed."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from analytics.simulate import simulate as run_simulator
    from parsers import write_hands

    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        # The console reads no markup (names are text): the column gets its style as such.
        with Progress(TextColumn("{task.description}", style="progress.description",
                                 markup=False), BarColumn(),
                      MofNCompleteColumn(), TimeRemainingColumn(), console=console) as progress:
            task = progress.add_task(f"simulating {game.value}", total=hands)

            def tracked() -> Iterator[HandHistory]:
                for hand in run_simulator(game, hands, players, seed, **options):
                    progress.advance(task)
                    yield hand

            written = write_hands(tracked(), temporary)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return written


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind; localhost unless you mean it.")] = (
        "127.0.0.1"),
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port.")] = 8501,
    headless: Annotated[bool, typer.Option(help="Do not open a browser.")] = False,
    lake: Annotated[str | None, typer.Option(
        "--lake", help="Read this Parquet lake (a folder or an fsspec URL such as "
        "s3://bucket/lake) instead of a database (also $HANDLAB_LAKE).")] = None,
) -> None:
    """Open the dashboard (building the default database from the bundled samples if needed)."""
    from analytics.warehouse import WarehouseError
    from analytics.warehouse.connection import LAKE_ENV_VAR

    _require_free_address(host, port)
    lake_dir = lake if lake is not None else (os.environ.get(LAKE_ENV_VAR) or None)
    try:
        if lake_dir is not None:  # a lake must exist: a typo must not serve an empty one
            from analytics.warehouse.lake.catalogue import catalogue

            database = catalogue(lake_dir)
        else:
            database = _prepare_database()
    except (WarehouseError, OSError) as error:
        console.print(terminal.error(error))
        raise typer.Exit(2) from None
    served = f"lake {lake_dir}" if lake_dir is not None else f"database {database}"
    console.print(f"handlab: dashboard on http://{host}:{port} ({served})")
    # Streamlit always runs headless (its first-run e-mail prompt would block a fresh
    # machine); handlab opens the browser itself once the server answers.
    # serve.py: app.py with the warm-up at start (analytics/dashboard/startup.py).
    command = [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "serve.py"),
               "--server.address", host, "--server.port", str(port),
               "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    environment = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
                       HANDLAB_DB=str(database))
    if lake_dir is not None:  # each script run reads the lake's newest manifest
        from analytics.warehouse.lake.store import open_store

        environment[LAKE_ENV_VAR] = open_store(lake_dir).location("")
    server = subprocess.Popen(command, cwd=PROJECT_ROOT, env=environment,
                              preexec_fn=_end_with_parent)
    # Stopped by a service manager or a closed terminal, handlab stops its server too (it
    # was left running, the port taken, with init as its parent).  The handlers go with the
    # server: left in place, a process that ran serve in-process (a test) kept one, and the
    # pool workers it forked later ignored their pool's SIGTERM.
    previous = {stop: signal.signal(stop, lambda *_: server.terminate())
                for stop in (signal.SIGTERM, signal.SIGHUP)}
    try:
        if not headless:
            _open_when_ready(
                f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}", server)
        try:
            code = server.wait()
        except KeyboardInterrupt:
            server.terminate()
            code = server.wait()
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)
    raise typer.Exit(code)


def _end_with_parent() -> None:
    """In the server's process, before Streamlit starts: on Linux the kernel sends it
    SIGTERM when handlab's process dies, even by ``kill -9`` (as the ingest's workers)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PDEATHSIG


def _require_free_address(host: str, port: int) -> None:
    """Exit 2 unless ``host`` resolves to an address of this machine on which ``port`` is
    free: checked before "dashboard on http://..." is announced, instead of the server's
    traceback after it.  The probe binds as the server will (SO_REUSEADDR), and closes."""
    import socket

    try:
        family, kind, protocol, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        console.print(terminal.error(f"--host {host}: no such host ({reason})"))
        raise typer.Exit(2) from None
    with socket.socket(family, kind, protocol) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            import errno

            console.print(terminal.error(
                f"port {port} on {host} is in use (another dashboard?): choose another "
                "with --port" if error.errno == errno.EADDRINUSE
                else f"cannot serve on {host} port {port}: {error.strerror}"))
            raise typer.Exit(2) from None


def _prepare_database() -> Path:
    """The dashboard's database, built (kernels compiled, samples loaded) with a spinner and
    a progress bar when it does not exist yet.

    An existing one is opened once first: a folder or a file that is no DuckDB database
    raises :class:`~analytics.warehouse.WarehouseNotADatabase` here, before the server
    starts, not as a traceback of its first page.  One that an ingest holds is the
    dashboard's to wait for."""
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from analytics.warehouse import WarehouseBusy
    from analytics.warehouse.connection import current_version, resolve_db
    from analytics.warehouse.pipeline.run import IngestProgress, ensure_database

    path = resolve_db()
    if path.exists():
        with contextlib.suppress(WarehouseBusy):
            current_version(path)
        return path
    console.print("handlab: first start: building the database from data/samples/")
    with Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn(),
                  TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("starting", total=None)

        def report(step: IngestProgress) -> None:
            bar.update(task, total=max(step.bytes_total, 1), completed=step.bytes_done)

        return ensure_database(progress=report,
                               announce=lambda step: bar.update(task, description=step))


def _open_when_ready(url: str, server: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Open ``url`` in the user's browser as soon as the server's health check answers."""
    import time
    import urllib.request
    import webbrowser

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as response:
                if response.status == 200:
                    webbrowser.open(url)
                    return
        except OSError:
            time.sleep(0.3)


# The commands whose modules live in analytics.commands (each imports its work when it runs).
for _command in (ingest, forget, report, equity, convert, stats):
    app.command(_command.__name__)(_command)
app.add_typer(lake, name="lake")


def main() -> None:
    """Entry point for ``python -m analytics.cli``."""
    app()


if __name__ == "__main__":
    main()
