"""Hands in the writer's own layout, and edits of them: shared by the reader, block and
pipeline tests.

:func:`simulated` holds over a thousand simulated hands of each game (every variant,
player count and rule option; :func:`simulated_game` one game's, :func:`simulated_at` a
few of them without simulating the rest), :func:`as_file` writes hand texts as
``bench_ingest`` does, :func:`line_edits` and :func:`mutated_canonical` spoil canonical
hands line by line or byte by byte (:mod:`tests.mutate`), :func:`repository_files` lists
every history file of the repository.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from hypothesis import strategies as st

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from parsers import HandHistory, dumps_hand
from tests.mutate import INTERESTING, KINDS, Mutation, apply

ROOT = Path(__file__).resolve().parent.parent


def repository_files() -> Iterator[Path]:
    """Every file under tests/data, the docs' history files and the samples."""
    yield from sorted(p for p in (ROOT / "tests" / "data").rglob("*") if p.is_file())
    yield from sorted(p for p in (ROOT / "docs").rglob("*.phh*") if p.is_file())
    yield from sorted(p for p in (ROOT / "data" / "samples").glob("*") if p.is_file())


Run = tuple[int, Callable[[], Iterator[HandHistory]]]
"""A simulator run: how many hands it yields, and the call that yields them."""


def _runs(game: str) -> list[Run]:
    """The runs whose hands, in order, are ``simulated()[game]``: every variant, player
    count and knob set (Big Two games are slow to simulate: fewer of them)."""
    if game == "seveneight":
        return [(120, functools.partial(simulate_seveneight, 120, players, 40 + i,
                                        variant=variant, ante=i % 2))
                for i, (variant, players) in enumerate(
                    (v, p) for v in ("N78", "P78", "F78") for p in (2, 4, 7, 17))]
    if game == "bigtwo":
        return [(70, functools.partial(simulate_bigtwo, 70, players, players, random_knobs=True))
                for players in (2, 3, 4)]
    if game == "rummoli":
        return [(70, functools.partial(simulate_rummoli, 70, 2 + i % 7, 60 + i, variant=variant,
                                       finale=finale, claim=claim))
                for i, (variant, finale, claim) in enumerate(
                    (v, f, c) for v in ("NRM", "PRM", "FRM") for f in ("single", "per_pot", "none")
                    for c in ("auto", "manual"))]
    raise ValueError(f"no simulated hands of {game!r}")


GAMES = ("seveneight", "bigtwo", "rummoli")


@functools.cache
def simulated_game(game: str) -> list[HandHistory]:
    """Every simulated hand of ``game`` (1,440 of 7 & 8, 210 of Big Two, 1,260 of
    Rummoli), simulated once per process."""
    return [hand for _, run in _runs(game) for hand in run()]


def simulated() -> dict[str, list[HandHistory]]:
    """Over a thousand hands of each game, with every variant, player count and knob set
    (Big Two games are slow to simulate: fewer of them)."""
    return {game: simulated_game(game) for game in GAMES}


def simulated_at(game: str, positions: Iterable[int]) -> list[HandHistory]:
    """The hands at ``positions`` (ascending) of ``simulated()[game]``, each run simulated
    only as far as the last hand taken from it (the simulators yield hand by hand)."""
    wanted = list(positions)
    assert wanted == sorted(wanted), wanted
    picked: list[HandHistory] = []
    first = 0
    for count, run in _runs(game):
        inside = [at - first for at in wanted if first <= at < first + count]
        if inside:
            hands, taken = run(), 0
            for offset in inside:
                picked.append(next(itertools.islice(hands, offset - taken, None)))
                taken = offset + 1
        first += count
    assert len(picked) == len(wanted), (game, wanted)
    return picked


def as_file(texts: list[str], extra: str = "") -> str:
    """Hand texts as a .phhs file, as bench_ingest writes them (each with a user field)."""
    return "\n".join(f"[{n + 1}]\n{text}{extra}_copy = {n}\n" for n, text in enumerate(texts))


@functools.cache
def canonical_samples() -> list[str]:
    """A few canonical hands of each game, knobs and user fields included."""
    picked = [dumps_hand(h) for game in GAMES for h in simulated_at(
        game, range(0, sum(count for count, _ in _runs(game)), 251)[:3])]
    return [text + '_note = "x"\n_n = 1\n' if i % 3 == 0 else text
            for i, text in enumerate(picked)]


_LINE_EDITS = (
    "", "   ", "# a comment", "  # indented comment", "]", "  ]", "[", "actions = [",
    "actions = []", 'actions = ["p1 cc"]', "_user = true", "_user = 1.5", "x = 1",
    "format_version = 2", "format_version = true", 'variant = "B2"', 'variant = "N78"',
    'variant = "XX"', "dealer = 0", "dealer = 99", "time = 25:00:00", 'time = "19:05:00"',
    "time = 19:05:00.5", "seats = [1, 2]", "starting_stacks = [-1, 5]", "min_bet = 0",
    "small_bet = 2", "big_bet = 4", "ante = true", "ante = 1", "ante = -1", 'claim = "x"',
    "four_card_plays = 1", 'suit_order = "cdhx"', 'lead_card = "3c"', "players = [1, 2]",
    'players = ["a"]', "hand = true", "hand = 1.0", 'table = ["x"]', 'finale_pot = "TS"',
    'finale_pot = "zz"', "board_before = [0, 0]", "round = -1", "year = 99999999999",
    '  "p1 cc",', '  "d dh p1 AsAs",', '  "d dh p9 As",', '  "p1 xx",', '  "p1 cc" ,',
    '  "p1 cc", # c', '  "",', '  "# note",', '  "p1 \\u0063c",', "  'p1 cc',", '  "p1 cc"',
    "\t\"p1 f\",",
)


def line_edits(text: str) -> Iterator[str]:
    """``text`` with each line in turn dropped, doubled, edited or preceded by an odd line."""
    lines = text.split("\n")
    for row, line in enumerate(lines):
        yield "\n".join(lines[:row] + lines[row + 1 :])
        yield "\n".join(lines[:row] + [line] + lines[row:])
        yield "\n".join(lines[:row] + [" " + line] + lines[row + 1 :])
        yield "\n".join(lines[:row] + [line + " # c"] + lines[row + 1 :])
        yield "\n".join(lines[:row] + [line.replace(" = ", "=")] + lines[row + 1 :])
    rng = random.Random(len(text))
    for edit in _LINE_EDITS:
        for row in rng.sample(range(len(lines)), min(3, len(lines))):
            yield "\n".join(lines[:row] + [edit] + lines[row:])
            yield "\n".join(lines[:row] + [edit] + lines[row + 1 :])


MUTATIONS = st.lists(st.builds(Mutation, st.sampled_from(KINDS), st.integers(0, 10**6),
                               st.integers(0, 10**6), st.integers(0, len(INTERESTING) * 8)),
                     min_size=1, max_size=3)
"""One to three byte or token mutations (tests/mutate.py) for :func:`mutated_canonical`."""


def mutated_canonical(pick: int, mutations: list[Mutation]) -> bytes:
    """Two neighbouring canonical sample hands (``pick``, cycling) as one file, mutated."""
    texts = canonical_samples()
    data = as_file([texts[pick % len(texts)], texts[(pick + 1) % len(texts)]]).encode()
    for mutation in mutations:
        data = apply(data, mutation)
    return data
