"""One session at a time changes a table: an exclusive lock beside its journal.

Every change of a table (a step, a show, undo, a seat change, ending the game, filing a
finished hand) and reading its journal back take :func:`table_lock`, so two sessions (two
tabs, a reload while the bots play, two servers) never interleave their journal lines and
a filing under way is never taken for a crash's.  Between processes it is ``fcntl.flock``
on ``<name>.journal.lock``: the kernel lets it go when the process dies, so a crash leaves
no stale lock.  Between the threads of one process (Streamlit's sessions) a lock per table
comes first; the thread holding it may take it again (a table opened inside its own
filing), and :func:`table_lock` says whether a hold is the first.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from analytics.record.hand import StepRefused

__all__ = ["LOCK_WAIT", "TableBusy", "lock_path", "table_lock"]

LOCK_WAIT: Final = 60.0
"""Seconds a session waits for another to finish changing the table (the longest change is
a filing: up to ``INGEST_WAIT`` for the warehouse, then the load) before it gives up."""

POLL: Final = 0.02
"""Seconds between two tries of the file lock while another process holds it."""


class TableBusy(StepRefused):
    """Another session held the table for longer than :data:`LOCK_WAIT`."""


@dataclass(slots=True)
class _Hold:
    """This process's hold on one table: the threads' lock, how deep the holding thread has
    taken it, and the open lock file (the file lock) while it is held."""

    mutex: threading.RLock = field(default_factory=threading.RLock)
    depth: int = 0
    descriptor: int | None = None


_HOLDS: dict[Path, _Hold] = {}
_HOLDS_GUARD = threading.Lock()


def lock_path(journal: Path) -> Path:
    """The lock file of the table whose journal is ``journal``: ``<name>.journal.lock``."""
    return journal.with_name(journal.name + ".lock")


@contextmanager
def table_lock(journal: Path, wait: float = LOCK_WAIT) -> Iterator[bool]:
    """Hold the table of ``journal`` for a change; yield True for the thread's first hold
    (a crash's unfinished filing is only finished there).  Raises :class:`TableBusy` when
    another session keeps it for ``wait`` seconds."""
    hold = _hold(journal)
    deadline = time.monotonic() + wait
    if not hold.mutex.acquire(timeout=max(wait, 0.0)):
        raise _busy(journal)
    try:
        if hold.depth == 0:
            hold.descriptor = _lock_file(lock_path(journal), deadline)
        hold.depth += 1
        try:
            yield hold.depth == 1
        finally:
            hold.depth -= 1
            if hold.depth == 0 and hold.descriptor is not None:
                os.close(hold.descriptor)  # the last descriptor closed lets go of the lock
                hold.descriptor = None
    finally:
        hold.mutex.release()


def _hold(journal: Path) -> _Hold:
    with _HOLDS_GUARD:
        return _HOLDS.setdefault(journal.resolve(), _Hold())


def _lock_file(path: Path, deadline: float) -> int:
    """The open lock file at ``path``, locked (``flock``) before ``deadline``."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(descriptor)
                raise _busy(path) from None
            time.sleep(POLL)
        else:
            return descriptor


def _busy(path: Path) -> TableBusy:
    return TableBusy(f"the table {path.name.split('.')[0]!r} is busy: another session is "
                     "changing it (filing a hand?); try again in a moment")


def _forget_in_child() -> None:
    """A forked child closes its copies of the held lock files (without unlocking: the lock
    belongs to the parent's open file, which the child would otherwise keep locked)."""
    global _HOLDS_GUARD
    _HOLDS_GUARD = threading.Lock()
    for hold in _HOLDS.values():
        if hold.descriptor is not None:
            os.close(hold.descriptor)
        hold.descriptor, hold.depth = None, 0
        hold.mutex = threading.RLock()


os.register_at_fork(after_in_child=_forget_in_child)
