"""Numbers written for people: "1 hand", "1,200 hands", never "1 hands" or "hand(s)".

One small, dependency-free module, so that the command line (which imports little, to
start fast) and the dashboard count their nouns the same way.
"""

from __future__ import annotations

__all__ = ["counted"]


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun`` as a person writes them: "1 hand", "1,200 hands" (``plural``
    for a noun whose plural is not ``noun`` + "s")."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
