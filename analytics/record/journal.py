"""The recorder's journal: one JSON object per line, each on disk before the step it records.

:func:`append_entry` writes a line and fsyncs the file before it returns, so the
caller changes its state only once the step is safe: a browser reload or a server
restart reads the journal back (:func:`read_entries`) and is where it was.  A crash
in the middle of a write leaves at most a torn last line, which is the step that
never happened: it is left out when read, and cut off before the next write.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from parsers.errors import HandlabError

__all__ = ["JournalError", "append_entry", "read_entries"]


class JournalError(HandlabError):
    """A journal line that cannot be read (other than a torn last line)."""


def append_entry(path: Path, entry: Mapping[str, object]) -> None:
    """Append ``entry`` as one JSON line to ``path`` and fsync it (file and, when new, folder)."""
    line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
    new = not path.exists()
    with path.open("ab") as stream:
        if stream.tell() and not _ends_with_newline(path):
            stream.truncate(_complete_length(path))  # a torn last line goes
        stream.write(line.encode("utf-8"))
        stream.flush()
        os.fsync(stream.fileno())
    if new:
        _sync_folder(path.parent)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as stream:
        stream.seek(-1, os.SEEK_END)
        return stream.read(1) == b"\n"


def _complete_length(path: Path) -> int:
    """The length of the file up to and with its last newline."""
    data = path.read_bytes()
    return data.rfind(b"\n") + 1


def _sync_folder(folder: Path) -> None:
    """Make a new file's directory entry durable (where the platform allows it)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - not every platform opens folders
        return
    try:
        os.fsync(descriptor)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(descriptor)


def read_entries(path: Path) -> list[dict[str, object]]:
    """Every complete entry of the journal at ``path``, in order.

    A last line without its newline is a write the crash cut short, even when what
    was written parses: it is left out, as :func:`append_entry` cuts it off, so that a
    step is read back exactly when the next write keeps it.  Any other unreadable line
    raises :class:`JournalError` naming the file and line.
    """
    data = path.read_bytes()
    lines = data.split(b"\n")[:-1]  # the last piece: "" or the torn line
    entries: list[dict[str, object]] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except ValueError:
            raise JournalError(f"{path}:{number}: not a journal entry") from None
        if not isinstance(entry, dict):
            raise JournalError(f"{path}:{number}: not a journal entry")
        entries.append(entry)
    return entries
