"""The numba kernel of the lean replay's laying phase (:func:`analytics.rules.rummoli_lean.
_lean_laying`, claim = auto): one round's Rummoli phase on card codes and bit masks.

Importing this module imports numba; the kernel compiles on its first call and is cached
on disk next to this file when a cache directory is writable (see
:func:`analytics.evaluator._kernels.cached_jit`).  It runs on the calling thread only (no
``parallel=True``): the ingest loads it before forking its workers
(:func:`analytics.equity.rummoli.warm_up`).

Every step below is ``_lean_laying``'s (and its ``_pots_won_by``, ``_award``,
``_end_round``, ``_impasse``), in the same order and with the same conditions, the awards
in the same order.  Where ``_lean_laying`` gives up, the kernel gives up too (-1), and so
where it cannot be sure of the same answer (a negative stack, more awards than its
buffer holds): the caller then runs ``_lean_laying`` itself, which decides.
tests/test_rules_rummoli_kernel.py checks the two on every round of the lean replay's
tests.  Constants that live in other modules (the pot numbers, the card masks) are passed
in as the ``tables`` argument, not read as globals: numba bakes globals into the cached
machine code, and its cache only watches this file.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from analytics.evaluator._kernels import cached_jit

# The layout of the ``tables`` argument (see rummoli_lean._KERNEL_TABLES).
CARD_POT = 0
"""52 entries: the pot a pay card wins (its number in RUMMOLI_POTS), -1 for the others."""
FLAGS = 52
"""52 entries: 1 if the card may win a pot (pay cards, 7s, 8s, 9s), 2 if a pay card."""
SUIT_SEQ = 104
"""4 entries: each suit's 7-8-9 as a mask."""
RANK_MASKS = 108
"""13 entries: each rank's four cards as a mask."""
OTHER_COLOUR = 121
"""4 entries: by the suit of the card just laid, the colour to switch to."""
AKD_MASK = 125
AKD_POT = 126
SEVEN_EIGHT_NINE_POT = 127
RUMMOLI_POT = 128
TABLES_SIZE = 129

# The layout of the ``packed`` argument: int64 items (little-endian), then bytes.
N = 0
OPENER = 1
PLAYS = 2
"""How many actions from the laying's first are plays of one card."""
IMPASSE_NEXT = 3
"""1 if the action after those plays is the dealer's impasse, else 0."""
HANDS = 4
"""Then n hands (masks), n stacks and the nine pots; then a byte per play's card code and
a byte per play's actor."""

# The layout of the ``out`` argument.
COUNT = 0
"""The number of awards."""
WINNER = 1
"""Who laid his last card (1-based), 0 at an impasse."""
OUT_HANDS = 2
"""Then n hands, n stacks, the nine pots, and three items per award (pot, 1-based player,
amount)."""

# The pot numbers of the side transfers in the ``awards`` output (not RUMMOLI_POTS').
PAYMENTS = -1
IMPASSE = -2


@cached_jit()
def _popcount(mask: int) -> int:  # pragma: no cover - compiled
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@cached_jit()
def _lowest(mask: int) -> int:  # pragma: no cover - compiled
    """The lowest set bit's position (mask > 0)."""
    position = 0
    while not (mask >> position) & 1:
        position += 1
    return position


@cached_jit()
def _award(player: int, pot: int, stacks: Any, board: Any, awards: Any,
           count: int) -> int:  # pragma: no cover - compiled
    """_award's: the pot's chips to ``player`` if it holds any; the new award count."""
    amount = board[pot]
    if amount != 0:
        board[pot] = 0
        stacks[player] += amount
        awards[3 * count] = pot
        awards[3 * count + 1] = player + 1
        awards[3 * count + 2] = amount
        count += 1
    return count


@cached_jit()
def _item(packed: Any, index: int) -> Any:  # pragma: no cover - compiled
    """The int64 item ``index`` of ``packed`` (little-endian)."""
    value = np.uint64(0)
    at = 8 * index
    for byte in range(8):
        value |= np.uint64(packed[at + byte]) << np.uint64(8 * byte)
    return np.int64(value)


@cached_jit()
def lay_round(packed: Any, tables: Any, out: Any) -> int:  # pragma: no cover - compiled
    """The laying phase of one round (``packed``: see HANDS), as ``_lean_laying`` plays it:
    the number of actions it takes (the plays, and the impasse if declared), or -1 where
    ``_lean_laying`` gives up or the kernel cannot be sure.  The hands, stacks and pots
    after it, the awards and the winner are written into ``out`` (see OUT_HANDS)."""
    n = _item(packed, N)
    plays = _item(packed, PLAYS)
    for index in range(2 * n + 9):
        out[OUT_HANDS + index] = _item(packed, HANDS + index)
    hands = out[OUT_HANDS:OUT_HANDS + n]
    stacks = out[OUT_HANDS + n:OUT_HANDS + 2 * n]
    board = out[OUT_HANDS + 2 * n:OUT_HANDS + 2 * n + 9]
    awards = out[OUT_HANDS + 2 * n + 9:]
    lays = 8 * (HANDS + 2 * n + 9)
    capacity = awards.shape[0] // 3
    for player in range(n):
        if stacks[player] < 0:
            return -1
    # Each code's holder, then -1 for the four codes after the aces.
    holder = np.full(56, -1, np.int64)
    for player in range(n):
        hand = hands[player]
        for card in range(52):
            if (hand >> card) & 1:
                holder[card] = player
    laid = np.zeros(n, np.int64)
    count = 0
    turn = _item(packed, OPENER)
    hand = hands[turn]
    allowed = 0
    if hand != 0:
        allowed = hand & tables[RANK_MASKS + (_lowest(hand) >> 2)]
    expected: Any = -2  # an int64 after the first card (the next code)
    for at in range(plays):
        if np.int64(packed[lays + plays + at]) - 1 != turn:
            return -1
        code = np.int64(packed[lays + at])
        if code != expected and (code > 51 or expected >= 0
                                 or not (allowed >> code) & 1):
            return -1
        bit = np.int64(1) << code
        hand = hands[turn] ^ bit
        hands[turn] = hand
        holder[code] = -1
        flags = tables[FLAGS + code]
        if flags & 1:
            done = laid[turn] | bit
            laid[turn] = done
            seq = tables[SUIT_SEQ + (code & 3)]
            if flags & 2 or done & seq == seq:
                if count + 2 > capacity:
                    return -1
                if flags & 2:  # _pots_won_by
                    pot = tables[CARD_POT + code]
                    if pot >= 0:
                        count = _award(turn, pot, stacks, board, awards, count)
                    elif done & tables[AKD_MASK] == tables[AKD_MASK]:
                        count = _award(turn, tables[AKD_POT], stacks, board, awards, count)
                if bit & seq and done & seq == seq:
                    count = _award(turn, tables[SEVEN_EIGHT_NINE_POT], stacks, board, awards,
                                   count)
        if hand == 0:  # _end_round
            if count + n + 1 > capacity:
                return -1
            count = _award(turn, tables[RUMMOLI_POT], stacks, board, awards, count)
            total = 0
            for other in range(n):
                other_hand = hands[other]
                if other == turn or other_hand == 0:
                    continue
                pay = min(_popcount(other_hand), stacks[other])
                if pay != 0:
                    stacks[other] -= pay
                    total += pay
                    awards[3 * count] = PAYMENTS
                    awards[3 * count + 1] = other + 1
                    awards[3 * count + 2] = -pay
                    count += 1
            if total != 0:
                stacks[turn] += total
                awards[3 * count] = PAYMENTS
                awards[3 * count + 1] = turn + 1
                awards[3 * count + 2] = total
                count += 1
            out[COUNT] = count
            out[WINNER] = turn + 1
            return at + 1
        following = code + 4
        next_holder = holder[following]
        if next_holder >= 0:
            turn = next_holder
            expected = following
            continue
        colour = tables[OTHER_COLOUR + (code & 3)]
        found = False
        for step in range(n):
            other = (turn + step) % n
            of_colour = hands[other] & colour
            if of_colour != 0:
                turn = other
                allowed = of_colour & tables[RANK_MASKS + (_lowest(of_colour) >> 2)]
                expected = -2
                found = True
                break
        if not found:  # _impasse: the dealer's "d im" must come next, and last
            if at + 1 != plays or _item(packed, IMPASSE_NEXT) == 0 or count + n > capacity:
                return -1
            for player in range(n):
                pay = min(_popcount(hands[player]), stacks[player])
                if pay != 0:
                    stacks[player] -= pay
                    board[tables[RUMMOLI_POT]] += pay
                    awards[3 * count] = IMPASSE
                    awards[3 * count + 1] = player + 1
                    awards[3 * count + 2] = -pay
                    count += 1
            out[COUNT] = count
            out[WINNER] = 0
            return at + 2
    return -1


