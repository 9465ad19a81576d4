"""Rummoli poker strength: the chance that a hand is the best poker hand at the table.

In Rummoli all 52 cards are dealt to the players and the widow (RULES.md
section 1), and each player's poker hand is the best five of all his cards.
For a player who knows only his own hand, the other players' hands and the
widow are a random split of the cards he cannot see; the widow's cards are dead
(after the exchange nobody plays them).  :func:`rummoli_strength` gives:

* ``p_best``: the probability that no other player holds a better hand (a tie
  for best counts: he at least shares the poker pot at a showdown);
* ``share``: the expected share of the poker pot if everyone showed down
  (1 for best alone, 1/k in a k-way tie);
* ``p_win``: best alone.

It enumerates every split of the unseen cards when there are at most ``budget``
(feasible only when few cards are unseen, e.g. a dealer who exchanged with
the widow knows the widow's cards: with two players the split is then known),
and otherwise deals ``samples`` random splits, with the standard errors.

**Hand sizes.** The deal goes round from the dealer's left, the widow last in
each turn, so with ``52 = q * (N + 1) + r`` the first ``r`` players in deal
order hold ``q + 1`` cards and the widow (last in every turn) holds ``q``
(everybody holds 13 with three players).  By default the opponents get the
sizes that leave the hero's own size consistent with this; after a widow
exchange the sizes move with the hands, so per-round figures
(:func:`rummoli_round_strengths`) take the real sizes from the history.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from analytics.equity.sampling import mean_std_error
from analytics.equity.seveneight import Method
from analytics.evaluator import EvaluationError, PokerCategory, poker_rank
from analytics.evaluator.lookup_tables import CATEGORY_BASES
from analytics.rules.base import Outcome
from parsers.caching import BoundedCache
from parsers.cards import DECK, Card, CardError, parse_cards
from parsers.model import HandHistory, Verb
from parsers.rule_options import Game

__all__ = [
    "RUMMOLI_BUDGET",
    "RUMMOLI_SAMPLES",
    "RummoliRoundColumns",
    "RummoliRoundDeal",
    "RummoliRoundStrength",
    "RummoliStrength",
    "poker_pot_winners",
    "rummoli_default_sizes",
    "rummoli_round_deal",
    "rummoli_round_strengths",
    "rummoli_round_strengths_many",
    "rummoli_strength",
    "warm_up",
]

# Enum members as module constants: reading ``Verb.MEMBER`` goes through the enum class.
_DEAL_HOLE: Final = Verb.DEAL_HOLE
_DEAL_WIDOW: Final = Verb.DEAL_WIDOW
_WIDOW_TAKEN: Final = (Verb.EXCHANGE, Verb.AUCTION_WIN)
_POKER_BEGUN: Final = (Verb.BET_RAISE, Verb.CHECK_CALL, Verb.FOLD, Verb.PLAY)

RUMMOLI_BUDGET: Final = 2_000_000
"""Enumerate exactly when there are at most this many splits of the unseen cards."""

RUMMOLI_SAMPLES: Final = 20_000
"""Default Monte Carlo samples (standard error of a probability <= 0.0036)."""

_SERIAL_SAMPLES: Final = 2_000
"""Up to this many samples run on the calling thread (the same numbers, no thread wake-ups)."""


@dataclass(frozen=True, slots=True)
class RummoliStrength:
    """How strong a Rummoli poker hand is against the unseen hands (see the module doc).

    ``std_error`` is that of ``p_best``, ``share_std_error`` that of ``share``;
    both 0 for an exact result.
    """

    p_best: float
    share: float
    p_win: float
    std_error: float
    share_std_error: float
    exact: bool
    deals: int


def rummoli_default_sizes(hand_size: int, players: int) -> tuple[tuple[int, ...], int]:
    """Opponents' hand sizes and the widow's size for a hand of ``hand_size`` among ``players``.

    Raises :class:`~analytics.evaluator.EvaluationError` when the hand size cannot
    occur with that many players (then give the sizes explicitly).
    """
    if not 2 <= players <= 8:
        raise EvaluationError(f"Rummoli is played by 2 to 8 players, not {players}")
    q, r = divmod(52, players + 1)
    if hand_size == q + 1 and r > 0:
        long_hands = r - 1
    elif hand_size == q:
        long_hands = r
    else:
        raise EvaluationError(
            f"with {players} players a Rummoli hand holds {q} or {q + 1} cards, not "
            f"{hand_size}")
    opponents = (q + 1,) * long_hands + (q,) * (players - 1 - long_hands)
    return opponents, q


def _cards(cards: str | Iterable[Card], what: str) -> tuple[Card, ...]:
    if isinstance(cards, str):
        try:
            parsed = parse_cards(cards)
        except CardError as error:
            raise EvaluationError(f"{what}: {error}") from error
    else:
        parsed = tuple(cards)
    if any(not card.is_known for card in parsed):
        raise EvaluationError(f"{what}: every card must be known (no ??)")
    return parsed


def rummoli_strength(
    hand: str | Iterable[Card],
    players: int,
    *,
    opponent_sizes: Sequence[int] | None = None,
    widow_size: int | None = None,
    widow: str | Iterable[Card] = (),
    method: Method = "auto",
    budget: int = RUMMOLI_BUDGET,
    samples: int = RUMMOLI_SAMPLES,
    seed: int = 0,
) -> RummoliStrength:
    """The chance that ``hand`` (5 to 26 cards) is the best poker hand at a table of ``players``.

    ``opponent_sizes`` and ``widow_size`` default to :func:`rummoli_default_sizes`;
    ``widow`` lists widow cards the player knows (his old hand after he
    exchanged with the widow), which are then out of the opponents' reach.
    ``method``/``budget``/``samples``/``seed`` as for
    :func:`~analytics.equity.seveneight.seveneight_equity`.
    """
    own = _cards(hand, "hand")
    known_widow = _cards(widow, "widow")
    hero = poker_rank(own).value  # checks 5..26 distinct known cards
    if opponent_sizes is None or widow_size is None:
        default_opponents, default_widow = rummoli_default_sizes(len(own), players)
        opponent_sizes = default_opponents if opponent_sizes is None else opponent_sizes
        widow_size = default_widow if widow_size is None else widow_size
    sizes = [int(size) for size in opponent_sizes]
    if len(sizes) != players - 1:
        raise EvaluationError(f"{players} players need {players - 1} opponent sizes,"
                              f" not {len(sizes)}")
    if any(not 5 <= size <= 26 for size in sizes):
        raise EvaluationError(f"opponents' hands hold 5 to 26 cards, not {sizes}")
    if len(own) + sum(sizes) + widow_size != 52:
        raise EvaluationError(f"hand {len(own)} + opponents {sum(sizes)} + widow {widow_size}"
                              " cards is not the 52 of the deck")
    if len(known_widow) > widow_size:
        raise EvaluationError(f"{len(known_widow)} known widow cards but the widow holds"
                              f" {widow_size}")
    seen = {card.code for card in own}
    if len(seen) != len(own) or any(card.code in seen for card in known_widow) or (
            len({card.code for card in known_widow}) != len(known_widow)):
        raise EvaluationError("a card is given twice")
    seen.update(card.code for card in known_widow)
    return _strength(hero, seen, sizes, method=method, budget=budget, samples=samples,
                     seed=seed)


def _strength(hero: int, seen: set[int], sizes: list[int], *, method: Method, budget: int,
              samples: int, seed: int) -> RummoliStrength:
    """The strength of a hand of value ``hero`` against opponents of ``sizes`` (validated)
    dealt from the cards not in ``seen`` (the hand and the widow cards it knows)."""
    from analytics.equity import kernels
    from analytics.evaluator.lookup_tables import table_array

    free = np.ones(52, dtype=np.bool_)
    free[list(seen)] = False
    pool = np.flatnonzero(free)
    table = table_array()
    deals = _deal_count(int(pool.size), tuple(sizes))
    if method not in ("auto", "exact", "monte_carlo"):
        raise EvaluationError(f"method is auto, exact or monte_carlo, not {method!r}")
    if method == "exact" or (method == "auto" and deals <= budget):
        out = np.zeros(3)
        count = kernels.rummoli_exact(np.array(sizes, dtype=np.int64), pool, hero, table, out)
        return RummoliStrength((out[1] + out[2]) / count, out[0] / count, out[1] / count,
                               0.0, 0.0, True, int(count))
    if samples < 2:
        raise EvaluationError("Monte Carlo needs at least 2 samples")
    owner = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    sums = np.zeros((kernels.CHUNKS, 4))
    kernel = (kernels.rummoli_monte_carlo_serial if samples <= _SERIAL_SAMPLES
              else kernels.rummoli_monte_carlo)
    kernel(owner, pool, len(sizes), hero, table, samples, seed, sums)
    return _estimate(sums, samples)


def _deal_count(pool: int, sizes: tuple[int, ...]) -> int:
    """How many ways there are to deal hands of ``sizes`` from ``pool`` cards (the rest dead)."""
    count = _DEAL_COUNTS.get((pool, sizes))
    if count is None:
        count = math.factorial(pool) // math.prod(math.factorial(s) for s in sizes) // (
            math.factorial(pool - sum(sizes)))
        _DEAL_COUNTS[pool, sizes] = count
    return count


_DEAL_COUNTS: Final = BoundedCache[tuple[int, tuple[int, ...]], int](
    "analytics.equity.rummoli.deal_counts", 10_000)


def _round_strengths(codes: list[int], sizes: tuple[int, ...], widow_size: int,
                     exchanger: int, *, budget: int, samples: int, seed: int
                     ) -> tuple[list[int], list[RummoliStrength]]:
    """Poker values and strengths of every player of a round in one kernel call.

    ``codes`` are the 52 cards: the players' hands in seat order (``sizes``), then the
    widow.  The same numbers as :func:`_strength` player by player (player ``number``
    seeded with ``seed + number``; ``exchanger`` is the number of the player who knows
    the widow, or -1), for ``samples`` up to :data:`_SERIAL_SAMPLES`.
    """
    from analytics.equity import kernels
    from analytics.evaluator.lookup_tables import table_array

    shape = _round_shape(sizes, widow_size, exchanger, budget)
    if samples < 2 and not shape.all_exact:
        raise EvaluationError("Monte Carlo needs at least 2 samples")
    out = np.empty((len(sizes), 8))
    # The codes (0..51) as one byte each: bytes() and a view of it cost less than
    # np.array() of a list.
    kernels.rummoli_round(np.frombuffer(bytes(codes), dtype=np.uint8), shape.sizes, exchanger,
                           shape.exact, table_array(), samples, seed, out)
    values = []
    strengths = []
    # Each row: value, p_best, share, p_win, std_error, share_std_error, exact, deals.
    for value, p_best, share, p_win, error, share_error, exact, deals in out.tolist():
        values.append(int(value))
        strengths.append(RummoliStrength(p_best, share, p_win, error, share_error, exact > 0,
                                         int(deals)))
    return values, strengths


@dataclass(frozen=True, slots=True)
class _RoundShape:
    """The kernel's arguments that depend on a round's hand sizes only."""

    sizes: npt.NDArray[np.int64]
    exact: npt.NDArray[np.bool_]
    all_exact: bool
    exact_list: tuple[bool, ...]


def _round_shape(sizes: tuple[int, ...], widow_size: int, exchanger: int,
                 budget: int) -> _RoundShape:
    """The hand sizes and which players are enumerated exactly (their deals are few), kept
    for the next round of the same shape (building the arrays cost more than a look-up)."""
    key = (sizes, widow_size, exchanger, budget)
    shape = _ROUND_SHAPES.get(key)
    if shape is None:
        exact = [_deal_count(52 - size - (widow_size if number == exchanger else 0),
                             sizes[:number] + sizes[number + 1:]) <= budget
                 for number, size in enumerate(sizes)]
        shape = _RoundShape(np.array(sizes, dtype=np.int64), np.array(exact, dtype=np.bool_),
                            all(exact), tuple(exact))
        shape.sizes.flags.writeable = False
        shape.exact.flags.writeable = False
        _ROUND_SHAPES[key] = shape
    return shape


_ROUND_SHAPES: Final = BoundedCache[tuple[tuple[int, ...], int, int, int], _RoundShape](
    "analytics.equity.rummoli.round_shapes", 10_000)


@functools.cache
def warm_up() -> None:
    """Load the round kernels into this process: numba, the kernels' machine code from
    numba's on-disk cache and the rank table (1-1.5 s of CPU the first time, nothing after).

    The ingest calls it before forking its workers: they then start with the kernels loaded
    instead of each loading them again on its first Rummoli round (their numbers do not
    depend on the process that loaded them).
    """
    # A three-player deal of the whole deck, two samples: the argument types of every
    # call, so it is the overload in use that is loaded (the ingest's: the batch kernel).
    _round_strengths(list(range(52)), (13, 13, 13), 13, -1, budget=RUMMOLI_BUDGET,
                     samples=2, seed=0)
    deal = RummoliRoundDeal((1, 2, 3), bytes(range(52)), (13, 13, 13), 13, -1)
    rummoli_round_strengths_many([deal], [0], samples=2)


def _estimate(sums: npt.NDArray[np.float64], samples: int) -> RummoliStrength:
    """A Monte Carlo strength from the per-chunk sums (shares, squares, wins, ties)."""
    share_sum, share_sq, wins, ties = sums.sum(axis=0).tolist()
    return _from_sums(share_sum, share_sq, wins, ties, samples)


def _from_sums(share_sum: float, share_sq: float, wins: float, ties: float,
               samples: int) -> RummoliStrength:
    """A Monte Carlo strength from the sums over all samples."""
    share = share_sum / samples
    p_best = (wins + ties) / samples
    share_var = max(share_sq / samples - share * share, 0.0)
    return RummoliStrength(
        p_best, share, wins / samples,
        mean_std_error(p_best, p_best * (1 - p_best), samples),
        mean_std_error(share, share_var, samples), False, samples)


def _category_label(value: int) -> str:
    """``poker_category_of(value).label``, without numpy (a bisection of a short list)."""
    return _CATEGORY_LABELS[bisect.bisect_right(CATEGORY_BASES, value) - 1]


_CATEGORY_LABELS: Final = tuple(category.label for category in PokerCategory)
"""Labels by category number (``PokerCategory(n).label``)."""


def _cards_text(cards: list[Card]) -> str:
    """``"".join(map(str, cards))``, by look-up for the interned cards."""
    try:
        return "".join(map(_CARD_TEXT.__getitem__, map(id, cards)))
    except KeyError:  # a Card built directly rather than interned
        return "".join(map(str, cards))


# Cards are interned (52 objects), so id() is a key that is stable within a process.
_CARD_TEXT: Final = {id(card): str(card) for card in DECK}


def _poker_value(cards: Sequence[Card]) -> int:
    """``poker_rank(cards).value`` without the checks and the best five (cards validated)."""
    from analytics.evaluator.kernels import rank_from_suit_masks
    from analytics.evaluator.lookup_tables import table_list

    sm = 0
    for card in cards:
        code = card.code
        sm |= 1 << ((code & 3) * 16 + (code >> 2))
    return int(rank_from_suit_masks(sm, table_list()))


@dataclass(frozen=True, slots=True)
class RummoliRoundStrength:
    """One player's poker strength in a Rummoli round, expected against realised.

    ``cards`` is the hand he played poker with (after any widow exchange).
    ``realised_share`` is his share of "best hand at the table" judged on every
    player's actual cards (1, 1/k for a k-way tie, 0); ``won_poker_pot`` whether
    he won chips from the ``poker`` pot (``finale`` in a finale round; None
    without the outcome).
    """

    seat: int
    cards: str
    hand_size: int
    category: str
    strength: RummoliStrength
    realised_share: float
    won_poker_pot: bool | None


def rummoli_round_strengths(
    hand: HandHistory,
    outcome: Outcome | None = None,
    *,
    budget: int = RUMMOLI_BUDGET,
    samples: int = RUMMOLI_SAMPLES,
    seed: int = 0,
) -> list[RummoliRoundStrength]:
    """Every dealt player's poker strength in a Rummoli round, from his own point of view.

    The hands are those after the widow exchange (``xw`` by the dealer or ``aw``
    by the auction winner); an exchanger knows the widow's cards (his old hand).
    Returns [] for a round whose cards are not all known or that is not Rummoli.
    """
    if hand.game is not Game.RUMMOLI:
        return []
    hands, widow, exchanger = _round_cards(hand)
    deal = _round_deal(hands, widow, exchanger)
    if deal is None:
        return []
    seats, sizes = deal.seats, deal.sizes
    if samples <= _SERIAL_SAMPLES:
        values, strengths = _round_strengths(list(deal.codes), sizes, deal.widow_size,
                                             deal.exchanger, budget=budget, samples=samples,
                                             seed=seed)
    else:  # many samples: player by player, each on numba's thread pool
        values = [_poker_value(hands[seat]) for seat in seats]
        widow_codes = {card.code for card in widow}
        strengths = []
        for number, seat in enumerate(seats):
            # As rummoli_strength(own, len(seats), opponent_sizes=..., widow_size=len(widow),
            # widow=widow if seat == exchanger else ()), without checking again what is checked.
            seen = {card.code for card in hands[seat]}
            if number == deal.exchanger:
                seen |= widow_codes
            strengths.append(_strength(
                values[number], seen, list(sizes[:number] + sizes[number + 1:]),
                method="auto", budget=budget, samples=samples, seed=seed + number))
    shares = _realised_shares(values)
    poker_winners = None if outcome is None else poker_pot_winners(outcome)
    # Positional arguments, in field order: keywords cost a frozen dataclass more.
    return [RummoliRoundStrength(seat, _cards_text(hands[seat]), size, _category_label(value),
                                 strength, share,
                                 None if poker_winners is None else seat in poker_winners)
            for seat, size, value, strength, share in zip(seats, sizes, values, strengths,
                                                          shares, strict=True)]


def poker_pot_winners(outcome: Outcome) -> set[int]:
    """The players who won chips from the poker pot (``finale`` in an end-of-game round)."""
    return {a.player for a in outcome.awards if a.pot in _POKER_POTS and a.amount > 0}


_POKER_POTS: Final = ("poker", "finale")


def _realised_shares(values: Sequence[int]) -> list[float]:
    """Each player's share of "best hand at the table" on the actual cards (1/k in a k-way
    tie for best, else 0), from the players' poker values."""
    best = max(values)
    tied = values.count(best)
    return [1.0 / tied if value == best else 0.0 for value in values]


def _round_cards(hand: HandHistory) -> tuple[dict[int, list[Card]], list[Card], int | None]:
    """Each seat's cards, the widow's and who exchanged with it (seat, or None), as the
    poker phase begins: after the deal and any widow exchange."""
    actions = hand.actions
    return _round_cards_columns([action.actor for action in actions],
                                [action.verb for action in actions],
                                [action.cards for action in actions],
                                [action.target for action in actions])


def _round_cards_columns(actors: Sequence[int], verbs: Sequence[Verb],
                         cards: Sequence[tuple[Card, ...]], targets: Sequence[int | None]
                         ) -> tuple[dict[int, list[Card]], list[Card], int | None]:
    """:func:`_round_cards` of actions given as columns (each one's actor, verb, cards and
    target)."""
    hands: dict[int, list[Card]] = {}
    widow: list[Card] = []
    exchanger: int | None = None
    for index, verb in enumerate(verbs):
        if verb is _DEAL_HOLE:
            target = targets[index]
            if target is not None:
                hands.setdefault(target, []).extend(cards[index])
        elif verb is _DEAL_WIDOW:
            widow.extend(cards[index])
        elif verb in _WIDOW_TAKEN and actors[index] in hands:
            exchanger = actors[index]
            hands[exchanger], widow = widow, hands[exchanger]
        elif verb in _POKER_BEGUN:
            break  # the poker phase has begun: the hands are fixed
    return hands, widow, exchanger


@dataclass(frozen=True, slots=True)
class RummoliRoundDeal:
    """A round's cards as the strength kernel takes them (:func:`rummoli_round_deal`).

    ``codes`` are the 52 card codes, one byte each: the hands in seat order
    (``seats``, ``sizes``), then the widow (``widow_size`` cards).  ``exchanger`` is
    the number (0-based, in ``seats``) of the player who knows the widow, or -1.
    """

    seats: tuple[int, ...]
    codes: bytes
    sizes: tuple[int, ...]
    widow_size: int
    exchanger: int


def rummoli_round_deal(hand: HandHistory) -> RummoliRoundDeal | None:
    """The cards of a Rummoli round for :func:`rummoli_round_strengths_many`, or None when
    :func:`rummoli_round_strengths` gives [] (not Rummoli, cards not all known).

    Raises :class:`~analytics.evaluator.EvaluationError` where it raises.
    """
    if hand.game is not Game.RUMMOLI:
        return None
    return _round_deal(*_round_cards(hand))


def _round_deal(hands: dict[int, list[Card]], widow: list[Card],
                exchanger: int | None) -> RummoliRoundDeal | None:
    seats = sorted(hands)
    # Every card's code, the hands in seat order then the widow (unknown cards are -1).
    codes = [card.code for seat in seats for card in hands[seat]]
    codes += [card.code for card in widow]
    if len(hands) < 2 or len(codes) != 52 or min(codes) < 0:
        return None
    if len(set(codes)) != 52:
        raise EvaluationError("a card is dealt twice")
    sizes = tuple([len(hands[seat]) for seat in seats])
    if not 5 <= min(sizes) <= max(sizes) <= 26:
        raise EvaluationError("Rummoli hands hold 5 to 26 cards")
    number_of = seats.index(exchanger) if exchanger is not None else -1
    return RummoliRoundDeal(tuple(seats), bytes(codes), sizes, len(widow), number_of)


@dataclass(frozen=True, slots=True)
class RummoliRoundColumns:
    """The strengths of many rounds' players, one list per field, round after round and
    seat after seat within a round (see :class:`RummoliStrength` and
    :class:`RummoliRoundStrength` for the fields)."""

    hand_size: list[int]
    category: list[str]
    p_best: list[float]
    share: list[float]
    p_win: list[float]
    std_error: list[float]
    share_std_error: list[float]
    exact: list[bool]
    deals: list[int]
    realised_share: list[float]


def rummoli_round_strengths_many(
    deals: Sequence[RummoliRoundDeal],
    seeds: Sequence[int],
    *,
    budget: int = RUMMOLI_BUDGET,
    samples: int = _SERIAL_SAMPLES,
) -> RummoliRoundColumns:
    """:func:`rummoli_round_strengths` of many rounds (``deals[i]`` seeded ``seeds[i]``) in
    one kernel call, as columns: the same numbers, for ``samples`` up to 2,000 (the
    rounds' Monte Carlo runs on the calling thread; more raises EvaluationError)."""
    from analytics.equity import kernels
    from analytics.evaluator.lookup_tables import table_array

    if samples > _SERIAL_SAMPLES:
        raise EvaluationError(f"at most {_SERIAL_SAMPLES} samples per round in a batch,"
                              f" not {samples}")
    sizes: list[int] = []
    exact: list[bool] = []
    starts = [0]
    for deal in deals:
        shape = _round_shape(deal.sizes, deal.widow_size, deal.exchanger, budget)
        if samples < 2 and not shape.all_exact:
            raise EvaluationError("Monte Carlo needs at least 2 samples")
        sizes += deal.sizes
        exact += shape.exact_list
        starts.append(len(sizes))
    out = np.empty((len(sizes), 8))
    if deals:
        kernels.rummoli_round_many(
            np.frombuffer(b"".join([deal.codes for deal in deals]), dtype=np.uint8),
            np.array(sizes, dtype=np.int64), np.array(starts, dtype=np.int64),
            np.array([deal.exchanger for deal in deals], dtype=np.int64),
            np.array(exact, dtype=np.bool_), table_array(), samples,
            np.array(seeds, dtype=np.int64), out)
    # Each row: value, p_best, share, p_win, std_error, share_std_error, exact, deals.
    floats, p_best, share, p_win, error, share_error, exact_flags, counts = out.T.tolist()
    values = [int(value) for value in floats]
    realised: list[float] = []
    for first, last in itertools.pairwise(starts):
        realised += _realised_shares(values[first:last])
    return RummoliRoundColumns(
        sizes, [_category_label(value) for value in values], p_best, share, p_win, error,
        share_error, [flag > 0 for flag in exact_flags], [int(count) for count in counts],
        realised)
