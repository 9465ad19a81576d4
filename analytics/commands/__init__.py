"""``handlab`` sub-commands that live in their own modules (registered by analytics.cli)."""

from __future__ import annotations

import datetime as dt
from difflib import get_close_matches
from pathlib import Path
from typing import TYPE_CHECKING, Final

import typer

from parsers.build import PLAYER_LIMITS
from parsers.rule_options import GAME_NAMES, Game

if TYPE_CHECKING:
    import duckdb

    from analytics.warehouse.sql.views import HandFilter

__all__ = ["SEED_HELP", "SEED_MAX", "STAKES_HELP", "check_table_size", "checked_seed",
           "data_source", "day_range", "no_match_hints", "parse_day", "players_ranges",
           "refuse_unused", "stakes_label"]

STAKES_HELP: Final = ("Stakes as the dashboard names them, e.g. 'no limit, big blind 2' (or "
                      "the label, 'N78 min 2').")
"""``--stakes``' help, the same for every command that takes it."""


def stakes_label(con: duckdb.DuckDBPyConnection, text: str) -> str:
    """The stakes label ``text`` names, as a person types it (``views.stakes_named``);
    ``text`` itself when it names none (then no hand matches, which the caller says); a
    ValueError when its words fit several (7 & 8's and Rummoli's ``fixed limit 2/4``)."""
    from analytics.warehouse.sql import views

    options = views.filter_options(con)
    labels = options.loc[options["kind"] == "stakes", "value"].astype(str)
    named = views.stakes_named(labels, text)
    if len(named) > 1:
        raise ValueError(f"--stakes {text!r} fits {' and '.join(named)}: give the label")
    return named[0] if named else text

SEED_MAX: Final = 2**63 - 1
"""The largest ``--seed`` a command takes (the smallest is 0): the equity kernels (numba)
hold a seed in 64 bits and stopped at a larger one with a typing error; ``simulate``
takes the same range, so one seed serves both."""

SEED_HELP: Final = "Random seed, a whole number from 0 to 2^63 - 1."


def checked_seed(seed: int) -> int:
    """``--seed``'s callback: ``seed``, or a usage error for one outside 0 to
    :data:`SEED_MAX` (in words: typer's ``min``/``max`` would print the 19-digit range in
    the help, wrapped mid-number at 80 columns)."""
    if not 0 <= seed <= SEED_MAX:
        raise typer.BadParameter(f"{seed} is not a seed: give a whole number from 0 to 2^63 - 1 "
                                 f"({SEED_MAX})")
    return seed


def parse_day(text: str | None, option: str) -> dt.date | None:
    """A ``--from``/``--to`` day as typed (``YYYY-MM-DD``); a usage error naming ``option``
    for anything else."""
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a date (YYYY-MM-DD)",
                                 param_hint=option) from None


def data_source(db: Path | None, lake: str | None = None) -> str:
    """What a command reads, as a user named it or the defaults chose it: ``lake``, else
    ``db``, else ``$HANDLAB_LAKE``, else the database file (``resolve_db``)."""
    import os

    from analytics.warehouse.connection import LAKE_ENV_VAR, resolve_db

    if lake is not None:
        return lake
    if db is None and os.environ.get(LAKE_ENV_VAR):
        return os.environ[LAKE_ENV_VAR]
    return str(resolve_db(db))


def day_range(date_from: str | None, date_to: str | None
              ) -> tuple[dt.date | None, dt.date | None]:
    """``--from`` and ``--to`` as days; a usage error for a first day after the last (no
    hand could match: a mistake, not an empty answer)."""
    first, last = parse_day(date_from, "--from"), parse_day(date_to, "--to")
    if first is not None and last is not None and first > last:
        raise typer.BadParameter(f"{first} is after --to {last}: no day is in both",
                                 param_hint="--from")
    return first, last


def refuse_unused(given: dict[str, bool], needs: str) -> None:
    """A usage error naming each option of ``given`` (option: whether it was given) that
    was given without ``needs``, which they are for: an option is refused, not ignored."""
    unused = [option for option, was_given in given.items() if was_given]
    if unused:
        raise typer.BadParameter(f"{' and '.join(unused)} {'is' if len(unused) == 1 else 'are'}"
                                 f" for {needs} only", param_hint=unused[0])


def players_ranges(*games: Game) -> str:
    """How many play each of ``games``, for a ``--players`` help: ``Rummoli 2-8, Big Two
    2-4`` (:data:`~parsers.build.PLAYER_LIMITS`)."""
    return ", ".join(f"{GAME_NAMES[game]} {PLAYER_LIMITS[game][0]}-{PLAYER_LIMITS[game][1]}"
                     for game in games)


def check_table_size(game: Game, players: int) -> None:
    """A usage error of ``--players`` unless ``game`` is played by ``players``: each game
    has its own range, which one option's ``min``/``max`` cannot say."""
    low, high = PLAYER_LIMITS[game]
    if not low <= players <= high:
        raise typer.BadParameter(f"{GAME_NAMES[game]} is played by {low} to {high} players, "
                                 f"not {players}", param_hint="'--players' / '-p'")


def no_match_hints(con: duckdb.DuckDBPyConnection, hand_filter: HandFilter) -> list[str]:
    """Why a filter matched no hand, where the database can tell: each player, house rule
    or stake it names that no hand has (with the close names it does have), and days
    outside those loaded.  A misspelt name or rule is the usual cause; [] when every value
    exists and only their combination matches nothing."""
    from analytics.dashboard.filters import options_from_frame
    from analytics.warehouse.sql import views

    options = options_from_frame(views.filter_options(con))
    hints = [_unknown("player", name, options.players) for name in hand_filter.players
             if name not in options.players]
    rules: dict[str, list[str]] = {}
    for text in options.knobs:
        name, _, value = text.partition("=")
        rules.setdefault(name, []).append(value)
    for name, value in hand_filter.knobs:
        if value not in rules.get(name, ()):
            known = rules.get(name)
            hints.append(f"no hand has the house rule {name} = {value}" + (
                f"; the database has {name} = {', '.join(known)}" if known
                else f"; no hand in the database sets {name}"))
    if hand_filter.stakes and hand_filter.stakes not in options.stakes:
        hints.append(f"no hand is played at stakes {hand_filter.stakes!r}; the database has "
                     + "; ".join(sorted(map(views.stakes_choice, options.stakes))))
    first, last = options.first_day, options.last_day
    if first is not None and last is not None and (
            (hand_filter.date_from is not None and hand_filter.date_from > last)
            or (hand_filter.date_to is not None and hand_filter.date_to < first)):
        hints.append(f"the hands loaded were played from {first} to {last}")
    return hints


def _unknown(kind: str, value: str, known: tuple[str, ...]) -> str:
    """``no player 'ann'; did you mean Ann?``: the closest names when some are close."""
    close = [name for name in known if name.casefold() == value.casefold()] or (
        get_close_matches(value, known, n=3, cutoff=0.6))
    return f"no {kind} {value!r}" + (f"; did you mean {' or '.join(close)}?" if close else "")
