"""Pot settlement for the betting games: uncalled chips, main and side pots, odd chips.

Game-agnostic, used by 7 & 8 and by Rummoli's poker phase.  Players are
**0-based indices** into the per-player sequences; the :class:`PotAward`
objects produced name player ``index + 1`` (the ``pN`` of the history).

Three steps, or :func:`settle` for all of them:

1. :func:`build_pots` takes each player's total contribution to the hand
   (antes, blinds, bets of every round) and who is still in (not folded).  The
   chips of the largest contribution that nobody matched are *uncalled* and go
   back to that player (``refunds``).  The rest is layered into a main pot and
   side pots, each with the players still in who contributed to its level;
   folded players' chips stay in the pots they reached.  ``dead`` chips,
   contributed by nobody in particular (Rummoli's antes and carry-over in the
   poker pot), join the main pot.
2. :func:`award_pots` gives each pot to the best eligible hand.  ``strengths``
   holds one comparable integer per player (higher is better, equal is a tie)
   or None for a player who does not contest (folded, or mucked at showdown).
   A pot with one eligible player goes to him without looking at strengths.
   Equal best hands split a pot equally; the odd chips go one each to the
   winners that come first in ``odd_chip_order`` (7 & 8: from the button's
   left; Rummoli: from the dealer's left).
3. Nets: ``won + refund - contribution`` per player (:attr:`Settlement.nets`).

Example (Rummoli poker pot: 9 chips of antes on the board, p2 folded)::

    result = settle(contributions=[10, 4, 10], in_hand=[True, False, True],
                    strengths=[7421, None, 7421], odd_chip_order=[1, 2, 0], dead=9,
                    main="poker", side="poker_side")
    result.awards  # (PotAward('poker', 3, 17), PotAward('poker', 1, 16))
    result.nets    # (6, -4, 7): sums to the dead chips (9), which came from the board
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from analytics.rules.base import PotAward

__all__ = ["NoContenderError", "Pot", "PotLayout", "Settlement", "award_pots", "build_pots",
           "settle"]


class NoContenderError(ValueError):
    """A pot none of whose eligible players contests it (all of them mucked)."""


@dataclass(frozen=True, slots=True)
class Pot:
    """One pot: its name (``main``, ``side1``, ...), its chips and who may win it (indices)."""

    name: str
    amount: int
    eligible: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PotLayout:
    """The pots of a hand and the uncalled chips returned to each player."""

    pots: tuple[Pot, ...]
    refunds: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Settlement:
    """The result of :func:`settle`.

    ``won[i]`` is what player ``i`` won from pots, ``refunds[i]`` his uncalled
    chips returned, ``nets[i] = won[i] + refunds[i] - contributions[i]``.  The
    nets sum to the dead money.
    """

    pots: tuple[Pot, ...]
    refunds: tuple[int, ...]
    awards: tuple[PotAward, ...]
    won: tuple[int, ...]
    nets: tuple[int, ...]


def build_pots(
    contributions: Sequence[int],
    in_hand: Sequence[bool],
    dead: int = 0,
    *,
    main: str = "main",
    side: str = "side",
) -> PotLayout:
    """Return uncalled chips and layer the rest into pots named ``main``, ``side1``, ``side2``...

    ``contributions[i]`` is everything player ``i`` put in during the hand;
    ``in_hand[i]`` is False if he folded.  At least one player must be in.
    Chips of folded players above every live player's level (which correct
    betting never leaves once uncalled chips are returned) join the last pot.
    """
    count = len(contributions)
    if len(in_hand) != count:
        raise ValueError("contributions and in_hand must have one entry per player")
    if not any(in_hand):
        raise ValueError("at least one player must still be in to build pots")
    paid = list(contributions)
    refunds = [0] * count
    # Uncalled chips: the largest contribution beyond the second largest goes back.
    top, first, second = 0, -1, -1
    for player, chips in enumerate(paid):
        if chips > first:
            top, first, second = player, chips, first
        elif chips > second:
            second = chips
    if first > second >= 0:
        refunds[top] = first - second
        paid[top] = second
    live = [i for i in range(count) if in_hand[i]]
    live_levels = {paid[i] for i in live}
    if len(live_levels) == 1:
        # The usual case: everybody still in put in the same; one pot holds everything.
        return PotLayout((Pot(main, sum(paid) + dead, tuple(live)),), tuple(refunds))
    levels = sorted(live_levels)
    last = len(levels) - 1
    pots: list[Pot] = []
    previous = 0
    # List comprehensions rather than generators in sum(): the same sums, in less time.
    for number, level in enumerate(levels):
        if number == last:
            amount = sum([max(0, c - previous) for c in paid])
        else:
            amount = sum([max(0, min(c, level) - previous) for c in paid])
        if number == 0:
            amount += dead
        if amount > 0 or number == 0:
            name = main if not pots else f"{side}{len(pots)}"
            pots.append(Pot(name, amount, tuple([i for i in live if paid[i] >= level])))
        previous = level
    return PotLayout(tuple(pots), tuple(refunds))


def award_pots(
    pots: Sequence[Pot],
    strengths: Sequence[int | None],
    odd_chip_order: Sequence[int],
) -> tuple[PotAward, ...]:
    """Award every pot to its best eligible hand(s); see the module docstring.

    ``odd_chip_order`` lists player indices in the order odd chips are handed
    out (it must contain every possible winner).  Raises :class:`NoContenderError`
    when a pot has several eligible players and none of them has a strength.
    """
    rank_in_order: dict[int, int] | None = None  # made for the first tie only
    awards: list[PotAward] = []
    for pot in pots:
        name, total, eligible = pot.name, pot.amount, pot.eligible
        if total == 0:
            continue
        if len(eligible) == 1:
            awards.append(PotAward(name, eligible[0] + 1, total))
            continue
        contenders = [p for p in eligible if strengths[p] is not None]
        if not contenders:
            names = ", ".join(f"p{p + 1}" for p in eligible)
            raise NoContenderError(f"nobody contests the {name} pot of {total}"
                                   f" (eligible: {names}; all mucked)")
        best = max([strengths[p] or 0 for p in contenders])
        winners = [p for p in contenders if strengths[p] == best]
        if len(winners) > 1:  # a stable sort of one winner changes nothing
            if rank_in_order is None:
                rank_in_order = {player: position
                                 for position, player in enumerate(odd_chip_order)}
            ranks = rank_in_order
            winners.sort(key=lambda p: ranks.get(p, len(ranks) + p))
        share, odd = divmod(total, len(winners))
        for position, player in enumerate(winners):
            amount = share + 1 if position < odd else share
            if amount:
                awards.append(PotAward(name, player + 1, amount))
    return tuple(awards)


def settle(
    contributions: Sequence[int],
    in_hand: Sequence[bool],
    strengths: Sequence[int | None],
    odd_chip_order: Sequence[int],
    dead: int = 0,
    *,
    main: str = "main",
    side: str = "side",
) -> Settlement:
    """Build the pots, award them and compute every player's net; see the module docstring."""
    usual = _settle_one_pot(contributions, in_hand, strengths, odd_chip_order, dead, main)
    if usual is not None:
        return usual
    layout = build_pots(contributions, in_hand, dead, main=main, side=side)
    awards = award_pots(layout.pots, strengths, odd_chip_order)
    won = [0] * len(contributions)
    for award in awards:
        won[award.player - 1] += award.amount
    refunds = layout.refunds
    nets = tuple([w + r - c for w, r, c in zip(won, refunds, contributions, strict=True)])
    return Settlement(layout.pots, refunds, awards, tuple(won), nets)


def _settle_one_pot(
    contributions: Sequence[int],
    in_hand: Sequence[bool],
    strengths: Sequence[int | None],
    odd_chip_order: Sequence[int],
    dead: int,
    main: str,
) -> Settlement | None:
    """:func:`settle` for the usual hand, where one pot holds everything; None otherwise.

    The usual hand: once the uncalled chips go back, every player still in has
    put in the same, and the pot has a contender.  The steps and their results
    are those of :func:`build_pots` and :func:`award_pots` (the general path,
    which also raises their errors); this only skips the layering into levels,
    the intermediate objects and the per-pot look-ups, which cost more than a
    7 & 8 hand's whole betting.
    """
    count = len(contributions)
    if len(in_hand) != count or not count:
        return None
    ordered = sorted(contributions)
    if ordered[0] < 0:
        return None
    # Uncalled chips: the largest contribution beyond the second largest goes back.
    first = ordered[-1]
    second = ordered[-2] if count > 1 else -1
    paid = list(contributions)
    refunds = [0] * count
    if first > second >= 0:
        top = paid.index(first)
        refunds[top] = first - second
        paid[top] = second
    eligible = [player for player in range(count) if in_hand[player]]
    if not eligible or len({paid[player] for player in eligible}) != 1:
        return None  # nobody in, or side pots: the general path
    amount = sum(paid) + dead
    won = [0] * count
    awards: list[PotAward] = []
    if len(eligible) == 1:
        if amount:
            awards.append(PotAward(main, eligible[0] + 1, amount))
            won[eligible[0]] = amount
    elif amount:
        contenders = [player for player in eligible if strengths[player] is not None]
        if not contenders:
            return None  # the general path raises NoContenderError
        best = max([strengths[player] or 0 for player in contenders])
        winners = [player for player in contenders if strengths[player] == best]
        if len(winners) > 1:
            rank_in_order = {player: position for position, player in enumerate(odd_chip_order)}
            winners.sort(key=lambda p: rank_in_order.get(p, len(rank_in_order) + p))
        share, odd = divmod(amount, len(winners))
        for position, player in enumerate(winners):
            chips = share + (1 if position < odd else 0)
            if chips:
                awards.append(PotAward(main, player + 1, chips))
                won[player] += chips
    nets = tuple([w + r - c for w, r, c in zip(won, refunds, contributions, strict=True)])
    return Settlement((Pot(main, amount, tuple(eligible)),), tuple(refunds),
                      tuple(awards), tuple(won), nets)
