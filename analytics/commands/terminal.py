"""The command line's consoles: whatever they print reads as it was written.

Paths, players' names, cards and filters come from the user, and any of them may hold
``[b]`` or ``[/x]`` (or ``:smile:``).  A console that reads rich markup would style such
text, drop it, or raise ``MarkupError`` half-way through a command (after an ingest had
written its hands).  So every console of the command line comes from :func:`console`:
markup, emoji codes and highlighting are off for its messages and its tables' titles and
cells alike, and what is styled on purpose is styled by a :class:`~rich.text.Text`
(:func:`error`, :func:`styled`), never by markup mixed into the words.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

__all__ = ["console", "error", "os_error_words", "styled"]


def console(*, stderr: bool = False) -> Console:
    """A console (standard error with ``stderr``) that prints text as it is: no markup,
    no emoji codes, no highlighting."""
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False)


def error(message: str | BaseException) -> Text:
    """``error: message``, the prefix in red, ``message`` exactly as given; an operating
    system's error as ``PATH: what went wrong`` (not ``[Errno 13] Permission denied: 'PATH'``)."""
    return styled("error:", "red", f" {os_error_words(message)}"
                  if isinstance(message, OSError) else f" {message}")


def os_error_words(error: OSError) -> str:
    """An operating system's error in words: ``/sys/x.csv: permission denied``."""
    if not error.strerror:
        return str(error)
    reason = error.strerror[:1].lower() + error.strerror[1:]
    return f"{error.filename}: {reason}" if error.filename is not None else reason


def styled(text: str, style: str, rest: str = "") -> Text:
    """``text`` in ``style`` followed by ``rest`` unstyled, both exactly as given."""
    return Text.assemble((text, style), rest)
