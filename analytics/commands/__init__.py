"""``handlab`` sub-commands that live in their own modules (registered by analytics.cli)."""

from __future__ import annotations

import datetime as dt

import typer

__all__ = ["parse_day"]


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
