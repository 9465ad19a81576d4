"""The ``handlab`` command line: validate, eval, simulate, ingest, serve.

Each command imports what it needs when it runs, so ``handlab --help`` is quick.
Exit codes: 0 all good, 1 some hands were rejected, 2 usage or I/O errors.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from importlib import import_module
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from parsers.knobs import Game

app = typer.Typer(
    name="handlab",
    help="Hand-history analytics for Rummoli, Big Two and 7 & 8 Poker.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console(stderr=True)
out = Console()

PROJECT_ROOT = Path(__file__).resolve().parent.parent
HISTORY_SUFFIXES = (".phh", ".phhs")


def _history_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.suffix in HISTORY_SUFFIXES))
        elif path.exists():
            files.append(path)
        else:
            console.print(f"[red]error:[/red] {path}: no such file or folder")
            raise typer.Exit(2)
    return files


@app.command()
def version() -> None:
    """Print the handlab version."""
    from importlib.metadata import version as package_version

    out.print(package_version("handlab"))


@app.command()
def validate(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders of .phh/.phhs histories.")],
    rules: Annotated[bool, typer.Option(help="Also replay each hand by the rules.")] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the summary.")] = False,
) -> None:
    """Check histories: syntax and structure, then (by default) the rules of play.

    Every problem is printed as ``file:line: hand N: what is wrong``.
    """
    from analytics.rules import RuleError, replay
    from parsers import read_hands

    counts: Counter[tuple[str, str]] = Counter()
    for path in _history_files(paths):
        for hand in read_hands(path):
            game = hand.game.value if hand.game else "unknown"
            problem: str | None = str(hand.errors[0]) if hand.errors else None
            if problem is None and rules:
                try:
                    replay(hand)
                except RuleError as error:
                    problem = str(error)
            counts[(game, "rejected" if problem else "valid")] += 1
            if problem and not quiet:
                out.print(problem, markup=False, highlight=False)
    table = Table(title="handlab validate")
    table.add_column("game")
    table.add_column("valid", justify="right")
    table.add_column("rejected", justify="right")
    for game in sorted({game for game, _ in counts}):
        table.add_row(game, str(counts[(game, "valid")]), str(counts[(game, "rejected")]))
    console.print(table)
    if any(status == "rejected" for _, status in counts):
        raise typer.Exit(1)


@app.command("eval")
def eval_command(
    game: Annotated[Game, typer.Argument(help="rummoli (poker ranks), bigtwo or seveneight.")],
    cards: Annotated[list[str], typer.Argument(help="Cards, e.g. As Kd or AsKd.")],
) -> None:
    """Evaluate cards with the shared evaluator: category and rank."""
    describe = import_module("analytics.evaluator.describe").describe_hand
    try:
        out.print(describe(game.value, " ".join(cards)))
    except ValueError as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from None


@app.command()
def simulate(
    game: Annotated[Game, typer.Argument(help="The game to simulate.")],
    hands: Annotated[int, typer.Option("--hands", "-n", min=1, help="Hands/games/rounds.")] = 1000,
    players: Annotated[int, typer.Option("--players", "-p", min=2, max=17)] = 4,
    seed: Annotated[int, typer.Option("--seed", "-s")] = 1,
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Folder to write into.")] = Path("."),
) -> None:
    """Play hands with the bots and write them as a .phhs file (deterministic for a seed)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from parsers import write_hands

    module = import_module(f"analytics.simulate.{game.value}")
    simulator = getattr(module, f"simulate_{game.value}")
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{game.value}-p{players}-seed{seed}.phhs"
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console) as progress:
        task = progress.add_task(f"simulating {game.value}", total=hands)

        def tracked() -> object:
            for hand in simulator(hands, players, seed):
                progress.advance(task)
                yield hand

        try:
            written = write_hands(tracked(), target)  # type: ignore[arg-type]
        except ValueError as error:
            console.print(f"[red]error:[/red] {error}")
            raise typer.Exit(2) from None
    console.print(f"wrote {written} {game.value} hands to {target}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind; localhost unless you mean it.")] = (
        "127.0.0.1"),
    port: Annotated[int, typer.Option(help="Port.")] = 8501,
    headless: Annotated[bool, typer.Option(help="Do not open a browser.")] = False,
) -> None:
    """Open the dashboard (building the default database from the bundled samples if needed)."""
    database = _prepare_database()
    console.print(f"handlab: dashboard on http://{host}:{port} (database {database})")
    # Streamlit always runs headless (its first-run e-mail prompt would block a fresh
    # machine); handlab opens the browser itself once the server answers.
    command = [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "app.py"),
               "--server.address", host, "--server.port", str(port),
               "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    environment = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
                       HANDLAB_DB=str(database))
    server = subprocess.Popen(command, cwd=PROJECT_ROOT, env=environment)
    if not headless:
        _open_when_ready(f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}",
                         server)
    try:
        code = server.wait()
    except KeyboardInterrupt:
        server.terminate()
        code = server.wait()
    raise typer.Exit(code)


def _prepare_database() -> Path:
    """The dashboard's database, built (kernels compiled, samples loaded) with a spinner and
    a progress bar when it does not exist yet."""
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from analytics.warehouse.connection import resolve_db
    from analytics.warehouse.ingest import IngestProgress, ensure_database

    if resolve_db().exists():
        return ensure_database()
    console.print("handlab: first start: building the database from data/samples/")
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
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


def _register_optional_commands() -> None:
    """Commands whose modules live in analytics.commands (added as features land)."""
    for name in ("ingest", "report", "equity", "stats"):
        try:
            module = import_module(f"analytics.commands.{name}")
        except ModuleNotFoundError as error:
            if error.name in (f"analytics.commands.{name}", "analytics.commands"):
                continue
            raise
        app.command(name)(getattr(module, name))


_register_optional_commands()


def main() -> None:
    """Entry point for ``python -m analytics.cli``."""
    app()


if __name__ == "__main__":
    main()
