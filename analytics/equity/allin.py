"""All-in adjusted results for 7 & 8 hands (PokerTracker's "all-in equity adjusted winnings").

When the betting is over before the third cards are dealt, and two or more
players are still in, nothing the players do any more changes the result:
only the cards do.  At that moment each player's *expected* result is his
equity in every pot he is eligible for times its chips; the difference between
his actual result and the expected one is luck, which is what separating luck
from skill means.

**Which hands.** A hand qualifies when the third cards were dealt and no bet,
call, check or fold followed them: the betting closed in round 1 with at most
one player left holding chips (everyone else all in), so round 2 had no action.
A hand whose round 2 was played, an all-in in round 2 (no card to come) and a
hand won by folds do not qualify: their actual result is their expected one.

**The moment.** The hand is replayed with the 7 & 8 rules engine
(:class:`~analytics.rules.seveneight.engine.SevenEightState`) up to the first third
card; its contributions, who is still in and the hole cards are read there.

**Pots.** :func:`analytics.rules.pots.build_pots` returns uncalled chips and
layers the rest into a main pot and side pots; each pot's equity is computed
among its own eligible players, in one enumeration for all pots.

**Which cards are known.** The hole cards of the players still in (an all-in
showdown shows them); ``??`` cards and the third cards are drawn from the
unseen cards.  A folded player's up card, turned up for the whole table, is out of the
deck; his other cards are not used by default, as in PokerTracker and Hold'em Manager,
where they are not known; pass ``use_folded_cards=True`` to treat them as dead too.

Exact enumeration covers every hand with up to four players all in
(``4 x 3`` known cards: 3.3 million deals); more players, or unseen hole cards
that push the count above ``budget``, use Monte Carlo with a standard error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from analytics.equity.seveneight import (
    DEFAULT_BUDGET,
    SevenEightSpot,
    seveneight_deals,
    seveneight_table,
    single_slot_owners,
    single_slot_values,
)
from analytics.rules.base import Outcome
from analytics.rules.pots import build_pots
from analytics.rules.seveneight.engine import SevenEightState
from parsers.cards import UNKNOWN, Card
from parsers.model import HandHistory, Verb
from parsers.rule_options import Game

__all__ = ["ALLIN_SAMPLES", "AllInPlayer", "AllInResult", "AllInSpot", "allin_adjusted",
           "allin_adjusted_many", "allin_moment", "allin_spot", "third_card_at"]

ALLIN_SAMPLES = 100_000
"""Monte Carlo samples for an all-in too large to enumerate (5 or more players)."""

_BETTING = frozenset({Verb.BET_RAISE, Verb.CHECK_CALL, Verb.FOLD})


@dataclass(frozen=True, slots=True)
class AllInPlayer:
    """One player still in at the all-in moment.

    Chips: ``contributed`` (everything he put in, uncalled chips included),
    ``refund`` (uncalled chips returned), ``expected_won`` (expected chips from
    the pots), ``actual_won`` (chips he won from the pots).  Nets: ``expected_net
    = expected_won + refund - contributed``, ``actual_net`` (the replay's net) and
    ``luck = actual_net - expected_net``.  ``equity`` is ``expected_won`` as a
    share of all the pots; ``std_error`` is that of ``expected_won`` (0 when exact).
    """

    seat: int
    contributed: int
    refund: int
    equity: float
    expected_won: float
    actual_won: int
    expected_net: float
    actual_net: int
    luck: float
    std_error: float


@dataclass(frozen=True, slots=True)
class AllInResult:
    """The all-in moment of a hand and each contesting player's expected and actual result."""

    players: tuple[AllInPlayer, ...]
    pot: int
    """Chips in the pots at the all-in moment (uncalled chips already returned)."""
    pots: int
    """Number of pots (main pot plus side pots)."""
    exact: bool
    deals: int
    """Deals enumerated, or Monte Carlo samples."""


def allin_moment(hand: HandHistory) -> int | None:
    """Index of the first third-card deal if ``hand`` qualifies (see the module doc), else None.

    Cheap: one pass over the actions, no replay; most hands are turned down here.
    """
    if hand.game is not Game.SEVENEIGHT:
        return None
    actions = hand.actions
    return third_card_at([action.verb for action in actions],
                         [action.cards for action in actions])


def third_card_at(verbs: Sequence[Verb], cards: Sequence[tuple[Card, ...]]) -> int | None:
    """:func:`allin_moment` of a 7 & 8 hand's actions given as columns (each one's verb and
    cards, one sequence per field)."""
    # From the end back to the last betting action: the third cards are dealt together
    # (nothing happens between them), so the hand qualifies exactly when some third card
    # comes after the last bet, call, check or fold.  Most hands stop after a step or two.
    third = None
    deal, betting = Verb.DEAL_HOLE, _BETTING
    for index in range(len(verbs) - 1, -1, -1):
        verb = verbs[index]
        if verb in betting:
            break
        if verb is deal and len(cards[index]) == 1:
            third = index
    return third


def allin_adjusted(
    hand: HandHistory,
    outcome: Outcome | None = None,
    *,
    use_folded_cards: bool = False,
    budget: int = DEFAULT_BUDGET,
    samples: int = ALLIN_SAMPLES,
    seed: int = 0,
    threads: int | None = None,
) -> AllInResult | None:
    """Expected against actual results of a 7 & 8 hand all in with cards to come, else None.

    ``outcome`` is the rules engine's :class:`~analytics.rules.base.Outcome` of
    the hand (its nets are the actual results); without it the hand is replayed.
    ``threads`` limits the numba threads of a Monte Carlo estimate (the exact
    enumerations run on the calling thread anyway); the result does not depend on it.
    Raises :class:`~analytics.rules.base.RuleError` for a hand that does not replay.
    """
    spot = allin_spot(hand, outcome, use_folded_cards=use_folded_cards)
    if spot is None:
        return None
    return _solve(spot, budget, samples, seed, threads)


@dataclass(frozen=True, slots=True)
class AllInSpot:
    """A qualifying hand at its all-in moment, ready to be solved (:func:`allin_spot`).

    Plain lists, no arrays: many spots are solved together by :func:`allin_adjusted_many`,
    which stacks them into arrays once.  Per contestant (in seat order): ``rows`` his
    known hole cards' codes, -1 for each card to come; per card to come: ``owner`` (the
    contestant's row) and ``pos`` (its column); ``pool`` the codes the cards to come are
    drawn from; per pot with chips: ``eligible`` (by contestant) and ``amounts``.
    """

    contestants: tuple[int, ...]
    contributions: tuple[int, ...]
    refunds: tuple[int, ...]
    nets: tuple[int, ...]
    total: int
    rows: tuple[tuple[int, ...], ...]
    owner: tuple[int, ...]
    pos: tuple[int, ...]
    pool: tuple[int, ...]
    slots: tuple[int, ...]
    eligible: tuple[tuple[bool, ...], ...]
    amounts: tuple[int, ...]

    @property
    def deals(self) -> int:
        """Deals an exact enumeration goes through (:attr:`SevenEightSpot.deals`)."""
        return seveneight_deals(len(self.pool), self.slots)

    def is_single_slot(self) -> bool:
        """Each contestant has at most one card to come (:attr:`SevenEightSpot.single_slot`)."""
        return single_slot_owners(self.owner)


def allin_spot(hand: HandHistory, outcome: Outcome | None = None, *,
               use_folded_cards: bool = False) -> AllInSpot | None:
    """The hand's all-in moment as an :class:`AllInSpot`, None when it does not qualify."""
    third = allin_moment(hand)
    if third is None:
        return None
    if outcome is None:
        from analytics.rules import replay

        outcome = replay(hand)
    moment = _moment_from_outcome(hand, outcome, third) or _moment_from_replay(hand, third)
    contributions, in_hand, holes = moment
    n = len(in_hand)
    contestants = [p for p in range(n) if in_hand[p]]
    layout = build_pots(contributions, in_hand)
    pots = [pot for pot in layout.pots if pot.amount > 0]

    # Cards: each contestant's known hole cards, then slots for ?? and the third card.
    rows: list[tuple[int, ...]] = []
    seen: set[int] = set()
    owner: list[int] = []
    pos: list[int] = []
    slots: list[int] = []
    for row, player in enumerate(contestants):
        known = [code for code in holes[player] if code >= 0]
        rows.append((*known, *[-1] * (3 - len(known))))
        seen.update(known)
        slots.append(3 - len(known))
        for column in range(len(known), 3):
            owner.append(row)
            pos.append(column)
    if use_folded_cards:
        for player in range(n):
            if not in_hand[player]:
                seen.update(code for code in holes[player] if code >= 0)
    # A folded player's up card was turned up for the whole table: it is out of the deck
    # (his down card stays unseen, as trackers take folded cards).
    for action in hand.actions[:third]:
        if action.verb is Verb.TURN_UP and 1 <= action.actor <= n \
                and not in_hand[action.actor - 1]:
            seen.update(card.code for card in action.cards if card.code >= 0)
    return AllInSpot(
        contestants=tuple(contestants), contributions=contributions,
        refunds=tuple(layout.refunds), nets=tuple(outcome.nets),
        total=sum(pot.amount for pot in pots), rows=tuple(rows), owner=tuple(owner),
        pos=tuple(pos), pool=tuple([code for code in range(52) if code not in seen]),
        slots=tuple(slots),
        eligible=tuple([tuple([player in pot.eligible for player in contestants])
                        for pot in pots]),
        amounts=tuple([pot.amount for pot in pots]))


def allin_adjusted_many(spots: Sequence[AllInSpot], seeds: Sequence[int], *,
                        budget: int = DEFAULT_BUDGET, samples: int = ALLIN_SAMPLES,
                        threads: int | None = None) -> list[AllInResult]:
    """:func:`allin_adjusted` of many spots (``seeds[i]`` is spot i's ``seed``), the same
    results: the exact single-slot spots (nearly all of them) are enumerated by one kernel
    call over arrays stacked once, instead of a call and a few arrays per spot."""
    results: list[AllInResult | None] = [None] * len(spots)
    stacked = [index for index, spot in enumerate(spots)
               if spot.is_single_slot() and spot.deals <= budget]
    for index, (expected, deals) in zip(stacked, _single_slot_many([spots[i] for i in stacked]),
                                        strict=True):
        results[index] = _result(spots[index], expected, [0.0] * len(expected), True, deals)
    for index, spot in enumerate(spots):
        if results[index] is None:
            results[index] = _solve(spot, budget, samples, seeds[index], threads)
    return [result for result in results if result is not None]


def _single_slot_many(spots: Sequence[AllInSpot]) -> list[tuple[list[float], int]]:
    """Exact single-slot enumerations of ``spots`` by one kernel call: each spot's expected
    chips per contestant (already divided by the deals, as :func:`_solve` does) and deals."""
    if not spots:
        return []
    from analytics.equity import kernels

    players = [0]
    pools = [0]
    owners = [0]
    pot_starts = [0]
    width = max(len(spot.rows) for spot in spots)
    for spot in spots:
        players.append(players[-1] + len(spot.rows))
        pools.append(pools[-1] + len(spot.pool))
        owners.append(owners[-1] + len(spot.owner))
        pot_starts.append(pot_starts[-1] + len(spot.amounts))
    cards = np.array([row for spot in spots for row in spot.rows], dtype=np.int64)
    pool = np.array([code for spot in spots for code in spot.pool], dtype=np.int64)
    owner = np.array([row for spot in spots for row in spot.owner], dtype=np.int64)
    eligible = np.array([(*flags, *[False] * (width - len(flags)))
                         for spot in spots for flags in spot.eligible],
                        dtype=np.bool_).reshape(pot_starts[-1], width)
    amounts = np.array([amount for spot in spots for amount in spot.amounts],
                       dtype=np.float64)
    expected = np.zeros(players[-1])
    deals = np.zeros(len(spots), dtype=np.int64)
    kernels.single_slot_exact_many(
        cards, np.array(players, dtype=np.int64), pool, np.array(pools, dtype=np.int64),
        owner, np.array(owners, dtype=np.int64), eligible, amounts,
        np.array(pot_starts, dtype=np.int64), seveneight_table(), expected, deals)
    deal_counts: list[int] = deals.tolist()
    # Each spot's sums divided by its deals in one array operation, as _solve's ``/=``.
    expected /= np.repeat(deals, np.diff(players))
    values: list[float] = expected.tolist()
    return [(values[players[i]:players[i + 1]], deal_counts[i]) for i in range(len(spots))]


def _solve(spot: AllInSpot, budget: int, samples: int, seed: int,
           threads: int | None) -> AllInResult:
    """Enumerate (or, above ``budget`` deals, estimate) one spot's expected chips."""
    from analytics.equity import kernels

    # The arrays are built from Python lists in one call each: an all-in hand has a few
    # players, and element-wise numpy stores cost more than the equity kernel itself.
    m = len(spot.contestants)
    cards = np.array(spot.rows, dtype=np.int64).reshape(m, 3)
    pool = np.array(spot.pool, dtype=np.int64)
    owner_array = np.array(spot.owner, dtype=np.int64)
    pos_array = np.array(spot.pos, dtype=np.int64)
    eligible = np.array(spot.eligible, dtype=np.bool_).reshape(len(spot.amounts), m)
    amounts = np.array(spot.amounts, dtype=np.float64)

    seven = SevenEightSpot(cards, owner_array, pos_array, pool, 1)
    deals = spot.deals  # seven.deals, without numpy
    expected = np.zeros(m)
    errors = np.zeros(m)
    exact = deals <= budget
    if exact:
        if spot.is_single_slot():  # seven.single_slot, from the lists we have
            unused = np.zeros(m)
            deals = kernels.single_slot_exact(single_slot_values(seven), owner_array, eligible,
                                               amounts, expected, unused, unused)
        else:
            deals = kernels.seveneight_pots(cards, owner_array, pos_array, pool,
                                             seveneight_table(), eligible, amounts, expected)
        expected /= deals
    else:
        shape = (kernels.CHUNKS, m)
        sums, squares = np.zeros(shape), np.zeros(shape)
        with _numba_threads(threads):
            kernels.seveneight_pots_monte_carlo(cards, owner_array, pos_array, pool,
                                                 seveneight_table(), eligible, amounts,
                                                 samples, seed, sums, squares)
        expected = sums.sum(axis=0) / samples
        variance = np.maximum(squares.sum(axis=0) / samples - expected ** 2, 0.0)
        errors = np.sqrt(variance / (samples - 1))
        deals = samples
    # Python floats, as float() of each
    return _result(spot, expected.tolist(), errors.tolist(), exact, int(deals))


def _result(spot: AllInSpot, expected_values: Sequence[float], error_values: Sequence[float],
            exact: bool, deals: int) -> AllInResult:
    """The spot's players' expected and actual results from their expected chips."""
    players = []
    total = spot.total
    for row, player in enumerate(spot.contestants):
        contributed = spot.contributions[player]
        refund = spot.refunds[player]
        actual_net = spot.nets[player]
        expected_won = expected_values[row]
        expected_net = expected_won + refund - contributed
        players.append(AllInPlayer(
            seat=player + 1, contributed=contributed, refund=refund,
            equity=expected_won / total if total else 0.0, expected_won=expected_won,
            actual_won=actual_net + contributed - refund, expected_net=expected_net,
            actual_net=actual_net, luck=actual_net - expected_net,
            std_error=error_values[row]))
    return AllInResult(tuple(players), total, len(spot.amounts), exact, deals)


@contextlib.contextmanager
def _numba_threads(threads: int | None) -> Iterator[None]:
    """Run the block with at most ``threads`` numba threads (None: as configured)."""
    if threads is None:
        yield
        return
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, before))
    try:
        yield
    finally:
        numba.set_num_threads(before)


_Moment = tuple[tuple[int, ...], list[bool], list[list[int]]]
"""Contributions, who is still in, and each player's hole cards as codes (-1 for ``??``)."""


def _moment_from_outcome(hand: HandHistory, outcome: Outcome, third: int) -> _Moment | None:
    """Contributions, who is in and the hole cards' codes, read without a replay.

    With no betting after the third cards, the engine's final contributions
    (``outcome.extra["contributions"]``) are those of the all-in moment, the
    players still in are those dealt a third card, and the hole cards are the
    deal with any ``??`` replaced by the card turned up.  None when the outcome
    does not carry the contributions (then the hand is replayed).
    """
    contributions = outcome.extra.get("contributions")
    n = hand.num_players
    if not isinstance(contributions, tuple) or len(contributions) != n:
        return None
    # Codes, not cards: a card compared by ``in`` calls the dataclass's __eq__ in Python.
    holes: list[list[int]] = [[] for _ in range(n)]
    deal, turn_up = Verb.DEAL_HOLE, Verb.TURN_UP
    actions = hand.actions
    for action in actions[:third]:
        verb = action.verb
        if verb is deal:
            if action.target is not None:
                holes[action.target - 1] = [card.code for card in action.cards]
        elif verb is turn_up and action.cards:
            hole = holes[action.actor - 1]
            code = action.cards[0].code
            if code not in hole and _UNKNOWN_CODE in hole:
                hole[hole.index(_UNKNOWN_CODE)] = code
    in_hand = [False] * n
    for action in actions[third:]:
        if action.verb is deal and action.target is not None:
            in_hand[action.target - 1] = True
    return tuple([int(c) for c in contributions]), in_hand, holes


def _moment_from_replay(hand: HandHistory, third: int) -> _Moment:
    """The same, from the rules engine replayed up to the first third card."""
    state = SevenEightState.from_hand(hand)
    for action in hand.actions[:third]:
        state.apply(action)
    return (tuple(state.contributions), list(state.in_hand),
            [[card.code for card in hole] for hole in state.holes])


_UNKNOWN_CODE: Final = UNKNOWN.code
