"""7 & 8 Poker equity: each player's share of the pot, exact or by Monte Carlo.

A *spot* lists the players still in, each with the cards known so far (``??``
for a card that exists but is not seen) and ``dead`` cards known to be out of
play (folded hands shown, burnt cards).  A player's hand is completed to three
cards: in betting round 1 the third card is still to come; in round 2 it is
dealt but may be unseen.  Either way it is drawn from the unseen cards, so the
two rounds differ only in what is known (RULES.md section 3: the hand is the
best two of three cards; equal hands split the pot).

Equity is the expected share of a pot all the players contest: an outright win
counts 1, a k-way tie 1/k.  :func:`seveneight_equity` enumerates every deal of
the unseen cards when there are at most ``budget`` of them; otherwise it deals
``samples`` random completions and reports the standard error of each estimate.

The evaluator's three-card values are precomputed into a flat table indexed by
``a * 2704 + b * 52 + c`` (140,608 entries, 0.5 MB): a value is one load, which
is what makes enumeration fast.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from analytics.equity.sampling import mean_std_error
from analytics.evaluator import EvaluationError, seveneight_rank_batch
from analytics.words import counted
from parsers.cards import UNKNOWN, Card, CardError, format_cards, parse_cards

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_SAMPLES",
    "EquityResult",
    "Method",
    "SevenEightSpot",
    "seveneight_deals",
    "seveneight_equity",
    "seveneight_spot",
    "seveneight_table",
    "seveneight_view",
    "single_slot_owners",
]

DEFAULT_BUDGET: Final = 5_000_000
"""Enumerate exactly when a spot has at most this many deals (about 0.1-0.3 s here)."""

DEFAULT_SAMPLES: Final = 200_000
"""Monte Carlo samples when a spot is too large to enumerate (standard error <= 0.0012)."""

Method = Literal["auto", "exact", "monte_carlo"]


@dataclass(frozen=True, slots=True)
class EquityResult:
    """Each player's expected share of the pot, in the order the players were given.

    ``equity[i] = win[i] + (share of ties)``; the equities sum to 1.  For an
    exact result ``std_error`` is all zeros and ``deals`` is the number of deals
    enumerated; for Monte Carlo ``deals`` is the number of samples and
    ``std_error[i]`` the standard error of ``equity[i]``.
    """

    equity: tuple[float, ...]
    win: tuple[float, ...]
    tie: tuple[float, ...]
    std_error: tuple[float, ...]
    exact: bool
    deals: int

    def describe(self, names: Sequence[str] | None = None) -> str:
        """One line per player: ``p1  62.71%  (win 60.10%, tie 5.22%)``."""
        lines = []
        for i, equity in enumerate(self.equity):
            name = names[i] if names is not None else f"p{i + 1}"
            text = f"{name:>6s} {100 * equity:7.3f}%  (win {100 * self.win[i]:.3f}%,"
            text += f" tie {100 * self.tie[i]:.3f}%)"
            if not self.exact:
                text += f"  +/- {100 * self.std_error[i]:.3f}%"
            lines.append(text)
        how = (f"exact, {counted(self.deals, 'deal')}" if self.exact
               else f"Monte Carlo, {counted(self.deals, 'sample')} (+/- is one standard error)")
        return "\n".join([*lines, how])


@dataclass(frozen=True, slots=True)
class SevenEightSpot:
    """A checked spot, ready for the kernels.

    ``cards`` is (players, 3) int64: known codes first in each row, then -1 for
    each slot to fill.  ``owner``/``pos`` name the row and column of each slot;
    ``pool`` holds the unseen codes the slots are filled from.
    """

    cards: npt.NDArray[np.int64]
    owner: npt.NDArray[np.int64]
    pos: npt.NDArray[np.int64]
    pool: npt.NDArray[np.int64]
    street: int

    @property
    def single_slot(self) -> bool:
        """True when every player has at most one card to come (the fast exact path)."""
        return single_slot_owners(self.owner.tolist())

    @property
    def deals(self) -> int:
        """How many equally likely deals exact enumeration visits."""
        return seveneight_deals(self.pool.size, np.bincount(self.owner,
                                                            minlength=self.cards.shape[0]))


def single_slot_owners(owners: Sequence[int]) -> bool:
    """:attr:`SevenEightSpot.single_slot` from the slots' owners (one entry per card to come):
    some card to come (with none, the general kernel scores the one deal) and no player
    owning two."""
    return bool(owners) and len(set(owners)) == len(owners)


def seveneight_deals(pool_size: int, slots_per_player: Iterable[int]) -> int:
    """Number of deals: each player in turn draws his unordered slots from what is left."""
    total = 1
    left = pool_size
    for count in slots_per_player:
        total *= math.comb(left, int(count))
        left -= int(count)
    return total


@cache
def seveneight_table() -> npt.NDArray[np.int32]:
    """The 7 & 8 value of every ordered triple of distinct codes, flat: ``a * 2704 + b * 52 + c``.

    Entries with a repeated code are 0 (never looked up).
    """
    grids = np.meshgrid(np.arange(52), np.arange(52), np.arange(52), indexing="ij")
    a, b, c = (grid.ravel() for grid in grids)
    distinct = (a != b) & (a != c) & (b != c)
    table = np.zeros(52 ** 3, dtype=np.int32)
    triples = np.stack([a[distinct], b[distinct], c[distinct]], axis=1)
    table[np.flatnonzero(distinct)] = seveneight_rank_batch(triples)
    table.flags.writeable = False
    return table


def _as_cards(cards: str | Iterable[Card | None], what: str) -> tuple[Card, ...]:
    if isinstance(cards, str):
        try:
            return parse_cards(cards)
        except CardError as error:
            raise EvaluationError(f"{what}: {error}") from error
    return tuple(UNKNOWN if card is None else card for card in cards)


def seveneight_spot(
    hands: Sequence[str | Iterable[Card | None]],
    dead: str | Iterable[Card] = (),
    street: int | None = None,
) -> SevenEightSpot:
    """Check a spot and turn it into arrays (see :func:`seveneight_equity` for the arguments)."""
    if len(hands) < 2:
        raise EvaluationError("equity needs at least two players")
    if len(hands) > 17:
        raise EvaluationError(f"7 & 8 is played by 2 to 17 players, not {len(hands)}")
    parsed = [_as_cards(hand, f"player {i + 1}") for i, hand in enumerate(hands)]
    dead_cards = _as_cards(dead, "dead cards")
    if any(not card.is_known for card in dead_cards):
        raise EvaluationError("dead cards must be known (?? is not a dead card)")
    longest = max(len(hand) for hand in parsed)
    if street is None:
        street = 2 if longest == 3 else 1
    if street not in (1, 2):
        raise EvaluationError(f"street is 1 (first betting round) or 2 (second), not {street}")
    limit = 2 if street == 1 else 3
    seen: set[int] = set()
    for card in dead_cards:
        if card.code in seen:
            raise EvaluationError(f"card {card} is given twice")
        seen.add(card.code)
    rows = np.full((len(parsed), 3), -1, dtype=np.int64)
    owner: list[int] = []
    pos: list[int] = []
    for i, hand in enumerate(parsed):
        if len(hand) > limit:
            raise EvaluationError(
                f"player {i + 1} has {len(hand)} cards ({format_cards(hand)}); in betting round"
                f" {street} a player holds at most {limit}"
                + (" (the third card is still to come)" if street == 1 else ""))
        known = [card for card in hand if card.is_known]
        for card in known:
            if card.code in seen:
                raise EvaluationError(f"card {card} is given twice")
            seen.add(card.code)
        rows[i, :len(known)] = [card.code for card in known]
        for column in range(len(known), 3):
            owner.append(i)
            pos.append(column)
    pool = np.array([code for code in range(52) if code not in seen], dtype=np.int64)
    if len(owner) > pool.size:
        raise EvaluationError(f"{len(owner)} cards are still to come but only {pool.size} are"
                              " unseen")
    return SevenEightSpot(rows, np.array(owner, dtype=np.int64), np.array(pos, dtype=np.int64),
                          pool, street)


def seveneight_equity(
    hands: Sequence[str | Iterable[Card | None]],
    *,
    dead: str | Iterable[Card] = (),
    street: int | None = None,
    method: Method = "auto",
    budget: int = DEFAULT_BUDGET,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> EquityResult:
    """Each player's equity (win plus share of ties) in a 7 & 8 spot.

    ``hands`` has one entry per player still in: his cards as text (``"7c8c"``,
    ``"As??"``, ``"7c8c2d"``) or as :class:`~parsers.cards.Card` objects, known
    cards and ``??`` for cards dealt but unseen.  Missing cards up to three are
    still to come.  ``dead`` cards are out of play (folded players' known cards).
    ``street`` 1 is the first betting round (at most two cards per player; the
    third cards are to come), 2 the second (third cards dealt, seen or ``??``);
    None infers it (2 when some player shows three cards).

    From one player's point of view, give his two cards, the opponents' up cards
    followed by ``??``, e.g. ``["7c8c", "As??"]``.  An observer who saw every
    hole card gives them all: ``["7c8c", "AsKs"]``.

    ``method`` ``auto`` enumerates exactly when the spot has at most ``budget``
    deals and otherwise draws ``samples`` Monte Carlo deals (seeded by ``seed``:
    the same seed gives the same estimate on any machine and thread count).
    Raises :class:`~analytics.evaluator.EvaluationError` (a ``ValueError``) for
    a spot that cannot occur.
    """
    spot = seveneight_spot(hands, dead, street)
    return equity_of_spot(spot, method=method, budget=budget, samples=samples, seed=seed)


def equity_of_spot(spot: SevenEightSpot, *, method: Method = "auto",
                   budget: int = DEFAULT_BUDGET, samples: int = DEFAULT_SAMPLES,
                   seed: int = 0) -> EquityResult:
    """:func:`seveneight_equity` for a spot already checked by :func:`seveneight_spot`."""
    from analytics.equity import kernels

    if method not in ("auto", "exact", "monte_carlo"):
        raise EvaluationError(f"method is auto, exact or monte_carlo, not {method!r}")
    table = seveneight_table()
    players = spot.cards.shape[0]
    exact = method == "exact" or (method == "auto" and spot.deals <= budget)
    if exact:
        eq = np.zeros(players)
        win = np.zeros(players)
        tie = np.zeros(players)
        if spot.single_slot:
            deals = kernels.single_slot_exact(single_slot_values(spot), spot.owner, NO_POTS,
                                               NO_AMOUNTS, eq, win, tie)
        else:
            deals = kernels.seveneight_exact(spot.cards.copy(), spot.owner, spot.pos,
                                              spot.pool, table, eq, win, tie)
        return EquityResult(_tuple(eq / deals), _tuple(win / deals), _tuple(tie / deals),
                            (0.0,) * players, True, int(deals))
    if samples < 2:
        raise EvaluationError("Monte Carlo needs at least 2 samples")
    shape = (kernels.CHUNKS, players)
    sums, squares, wins, ties = (np.zeros(shape) for _ in range(4))
    kernels.seveneight_monte_carlo(spot.cards.copy(), spot.owner, spot.pos, spot.pool, table,
                                    samples, seed, sums, squares, wins, ties)
    mean = sums.sum(axis=0) / samples
    variance = np.maximum(squares.sum(axis=0) / samples - mean * mean, 0.0)
    std_error = [mean_std_error(float(m), float(v), samples)
                 for m, v in zip(mean, variance, strict=True)]
    return EquityResult(_tuple(mean), _tuple(wins.sum(axis=0) / samples),
                        _tuple(ties.sum(axis=0) / samples), tuple(std_error), False, samples)


NO_POTS: Final = np.zeros((0, 0), dtype=np.bool_)
NO_AMOUNTS: Final = np.zeros(0, dtype=np.float64)


def single_slot_values(spot: SevenEightSpot) -> npt.NDArray[np.int64]:
    """(players, pool) values: player i's hand if he is dealt pool card j (constant rows for
    players with nothing to come).  Requires :attr:`SevenEightSpot.single_slot`."""
    table = seveneight_table()
    cards = spot.cards
    base = cards[:, 0] * 2704 + cards[:, 1] * 52
    values: npt.NDArray[np.int64] = table[base[:, None] + spot.pool[None, :]].astype(np.int64)
    complete = cards[:, 2] >= 0
    if complete.any():
        values[complete] = table[base[complete] + cards[complete, 2]][:, None]
    return values


def _tuple(values: npt.NDArray[np.float64]) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


def seveneight_view(
    holes: Sequence[Sequence[Card]],
    up_cards: Sequence[Card | None],
    street: int,
    viewer: int | None = None,
) -> list[tuple[Card, ...]]:
    """The hands as one person sees them, ready for :func:`seveneight_equity`.

    ``holes[i]`` are player i's cards in the order dealt (two, or three in round
    2); ``up_cards[i]`` the card he turned up.  ``viewer`` None is an observer
    who sees every hole card (the all-in showdown view); ``viewer = i`` sees his
    own cards and the others' up cards only.  Street 1 drops the third cards.
    """
    view: list[tuple[Card, ...]] = []
    for i, hole in enumerate(holes):
        cards = tuple(hole[:2] if street == 1 else hole[:3])
        if viewer is not None and i != viewer:
            up = up_cards[i]
            hidden = len(cards) - (1 if up is not None else 0)
            cards = ((up,) if up is not None else ()) + (UNKNOWN,) * hidden
        view.append(cards)
    return view
