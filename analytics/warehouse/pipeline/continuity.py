"""A Rummoli game's board carried from round to round (RULES.md 1.6: pots not won stay on
the board and carry to the next round), checked as rounds are loaded.

Each round replays alone: its ``board_before`` is whatever the history says.  Only beside
the round before it can a board be wrong: a round that begins with 50 chips its game's
last round never left would pay chips that were never on the table.  So the rounds of a
game (``game_id``) in one file are checked against each other, in any order:

* a round's ``board_before`` must be the board after the game's round before it;
* its board after must be the ``board_before`` of the game's next round.

A round that breaks either, or repeats a round number with another board, is a rules
reject naming the pots that differ; the round seen first stands.  A rejected round is no
neighbour: the round after it is not checked on that side.  Rounds without a ``game_id``
or ``round`` are not linked to any other.
Handlab's decision: the check stays inside a file, where a game's rounds are (the
recorder and the simulator write a game to one file); game ids are not unique across
files (two simulations of one seed share them, a table's name is its recorded game's
id), so rounds of two files are never compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from analytics.rules.rummoli.engine import board_difference
from analytics.warehouse.pipeline.rows import FileContext, RejectRow, without_hands

__all__ = ["BOARD_RULE", "BoardChain", "board_breaks"]

BOARD_RULE: Final = "RULES.md 1.6: pots not won stay on the board and carry to the next round"


@dataclass(frozen=True, slots=True)
class _Round:
    """One round's board: the nine pots before its antes and after it, in board order."""

    before: tuple[int, ...]
    after: tuple[int, ...]


class BoardChain:
    """The rounds of a file's Rummoli games seen so far, by game and round (the first of
    two alike), each new one checked against its neighbours (the module's rule)."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, int], _Round] = {}

    def add(self, game_id: str, number: int, before: tuple[int, ...],
            after: tuple[int, ...]) -> str | None:
        """Check round ``number`` of ``game_id`` (its board ``before`` its antes and
        ``after`` it) and keep it; or say what breaks the chain (it is not kept)."""
        board = _Round(tuple(before), tuple(after))
        same = self._known.get((game_id, number))
        if same is not None and same != board:
            return (f"round {number} of game {game_id!r} is given twice, with other boards "
                    "(the first one stands)")
        earlier = self._known.get((game_id, number - 1))
        differs = None if earlier is None else board_difference(earlier.after, board.before)
        if differs is not None:
            return (f"board_before does not continue round {number - 1} of game "
                    f"{game_id!r}: {differs}")
        later = self._known.get((game_id, number + 1))
        differs = None if later is None else board_difference(
            board.after, later.before, left_words="this round leaves",
            begins_words="it begins with")
        if differs is not None:
            return (f"round {number + 1} of game {game_id!r}, seen before, does not begin "
                    f"with the board this round leaves: {differs}")
        self._known.setdefault((game_id, number), board)
        return None


def board_breaks(chain: BoardChain, tables: Mapping[str, pa.Table], context: FileContext
                 ) -> tuple[dict[str, pa.Table], list[RejectRow]]:
    """The batch ``tables`` of a file without the Rummoli rounds whose board does not
    continue their game's, by ``chain`` (the file's rounds seen so far, this batch's then
    added), and those rounds' rejects."""
    hands = tables["hands"]
    rummoli = hands.filter(pc.and_(pc.equal(hands["game"], "rummoli"),
                                   pc.and_(pc.is_valid(hands["game_id"]),
                                           pc.is_valid(hands["round"]))))
    if rummoli.num_rows == 0:
        return dict(tables), []
    boards = _boards(tables["board"])
    rejects: list[RejectRow] = []
    broken: list[int] = []
    # In the file's order, as validate reads them: the round seen first stands.
    order = pc.sort_indices(rummoli, [("source_index", "ascending")])
    for row in rummoli.take(order).to_pylist():
        board = boards.get(int(row["hand_id"]))
        if board is None:
            continue
        game, number = str(row["game_id"]), int(row["round"])
        problem = chain.add(game, number, board.before, board.after)
        if problem is None:
            continue
        broken.append(int(row["hand_id"]))
        index, line = int(row["source_index"]), row["source_line"]
        rejects.append(RejectRow(
            hand_index=index, line=line, stage="rules", game="rummoli",
            error=f"{context.path}:{line}: hand {index}: {problem} ({BOARD_RULE})",
            raw=f"(round {number} of game {game}: see {context.path}, line {line})"))
    if not broken:
        return dict(tables), []
    return without_hands(tables, pa.array(broken, pa.int64())), rejects


def _boards(board: pa.Table) -> dict[int, _Round]:
    """Each hand's nine pots before and after, from ``board`` rows (one per pot)."""
    rows: dict[int, tuple[list[int], list[int]]] = {}
    for hand, order, before, after in zip(*(board[name].to_pylist() for name in (
            "hand_id", "pot_order", "before", "after")), strict=True):
        befores, afters = rows.setdefault(int(hand), ([0] * 9, [0] * 9))
        befores[order] = int(before)
        afters[order] = int(after or 0)
    return {hand: _Round(tuple(b), tuple(a)) for hand, (b, a) in rows.items()}
