"""A fork server for kill -9 tests: a Python process that imports once, then forks one job
per line of its input, so a round costs a fork, not a Python start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LOOP = """
print("ready", flush=True)
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        os._exit(run(line.split()))
    print(pid, flush=True)
    print(os.waitpid(pid, 0)[1], flush=True)
"""
"""The server's loop, after the caller's script: that script imports ``os`` and ``sys`` and
defines ``run(words) -> int`` (the forked child's exit code)."""


class ForkServer:
    """``start(*words)`` forks ``run(words)`` in the server and returns the child's pid;
    ``wait()`` its status as :func:`os.waitpid` gives it."""

    def __init__(self, script: str, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", script + LOOP, *args], cwd=ROOT, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert self.readline() == "ready"

    def readline(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def start(self, *words: object) -> int:
        assert self.process.stdin is not None
        self.process.stdin.write(" ".join(map(str, words)) + "\n")
        self.process.stdin.flush()
        return int(self.readline())

    def wait(self) -> int:
        return int(self.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (the fork server reaps its children at once, so a child
    killed or finished is gone, never a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
