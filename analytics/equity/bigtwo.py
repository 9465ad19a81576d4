"""Big Two deal strength: how likely a dealt hand is to go out first, and simple features.

:func:`bigtwo_deal_strength` deals the cards the hand's owner cannot see to the
other players at random, plays each deal to the first player out with the
simulator's bots (:mod:`analytics.simulate.bots_bigtwo`, the steady style by
default) through the rules engine (:class:`~analytics.rules.bigtwo.engine.BigTwoState`),
and reports the fraction of deals the hand went out first, with its binomial
standard error.  Every seat plays the same bot by default, and the order of
play is a circle whose first player is fixed by the lead card, so the hand's
own seat does not matter and it is dealt to seat 1.

:func:`bigtwo_features` counts what players look at when they pick up a hand:
2s, aces, the lead card, and the pairs, triples and five-card plays the hand
can make under the rules (from the evaluator's ``bigtwo_all_combos``).
:func:`bigtwo_game_features` gives them for every player of a recorded game.
:func:`bigtwo_features_fast` / :func:`bigtwo_game_features_fast` give the same
values by counting (binomials over rank and suit counts) instead of listing the
plays: about twenty times cheaper, which is what the warehouse stores per game.

A continuation costs a few milliseconds (one bot game, stopped at the first
player out), so the strength is meant for a chosen hand or a sample of hands;
the features are cheap enough to store for every player of every game.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from analytics.equity.sampling import mean_std_error
from analytics.evaluator import EvaluationError, bigtwo_all_combos, bigtwo_card_key
from analytics.evaluator.bigtwo import straight_runs
from parsers.caching import BoundedCache
from parsers.cards import DECK, Card, CardError, Rank, parse_cards
from parsers.model import HandHistory, Verb
from parsers.rule_options import BigTwoDeal, BigTwoRules, Game, Straights

__all__ = [
    "BIGTWO_SAMPLES",
    "BigTwoFeatures",
    "BigTwoStrength",
    "bigtwo_deal_strength",
    "bigtwo_features",
    "bigtwo_features_fast",
    "bigtwo_features_many",
    "bigtwo_game_deals",
    "bigtwo_game_features",
    "bigtwo_game_features_fast",
]

BIGTWO_SAMPLES: Final = 200
"""Default continuations (standard error <= 0.035)."""

_MAX_STEPS: Final = 2_000  # a game takes ~150 steps; more means a bot loop


@dataclass(frozen=True, slots=True)
class BigTwoStrength:
    """Estimated chance of going out first, with its standard error."""

    p_first: float
    std_error: float
    samples: int
    players: int
    style: str


@dataclass(frozen=True, slots=True)
class BigTwoFeatures:
    """Strength features of one dealt Big Two hand."""

    seat: int
    cards: int
    twos: int
    aces: int
    has_lead: bool
    """Holds the lead card (plays first)."""
    pairs: int
    """Pair plays available (a rank held three times gives three pairs)."""
    triples: int
    five_card: int
    """Five-card plays available (straights, flushes, full houses, fours, straight flushes)."""
    distinct_five_card_ranks: int
    """Ranks that some five-card play can shed (how much of the hand five-card plays reach)."""


def _hand(cards: str | Iterable[Card]) -> tuple[Card, ...]:
    if isinstance(cards, str):
        try:
            cards = parse_cards(cards)
        except CardError as error:
            raise EvaluationError(str(error)) from error
    hand = tuple(cards)
    if any(not card.is_known for card in hand) or len(set(hand)) != len(hand):
        raise EvaluationError("a Big Two hand needs distinct known cards")
    return hand


def bigtwo_features(cards: str | Iterable[Card], rules: BigTwoRules | None = None,
                    seat: int = 1) -> BigTwoFeatures:
    """Count the 2s, aces, the lead card and the plays a dealt hand can make."""
    rules = rules or BigTwoRules()
    hand = _hand(cards)
    combos = bigtwo_all_combos(hand, rules)
    five = [combo for combo in combos if combo.size == 5]
    five_ranks = {card.rank for combo in five for card in combo.cards}
    return BigTwoFeatures(
        seat=seat, cards=len(hand),
        twos=sum(1 for card in hand if card.rank is Rank.TWO),
        aces=sum(1 for card in hand if card.rank is Rank.ACE),
        has_lead=rules.lead in hand,
        pairs=sum(1 for combo in combos if combo.size == 2),
        triples=sum(1 for combo in combos if combo.size == 3),
        five_card=len(five), distinct_five_card_ranks=len(five_ranks))


def bigtwo_game_features(hand: HandHistory) -> list[BigTwoFeatures]:
    """Features of every player's dealt hand in a recorded Big Two game ([] otherwise)."""
    if hand.game is not Game.BIGTWO or not isinstance(hand.rules, BigTwoRules):
        return []
    dealt = _dealt(hand)
    return [bigtwo_features(dealt[seat], hand.rules, seat) for seat in sorted(dealt)]


def bigtwo_features_fast(cards: str | Iterable[Card], rules: BigTwoRules | None = None,
                         seat: int = 1) -> BigTwoFeatures:
    """:func:`bigtwo_features` computed by counting instead of listing the plays (same values).

    Pairs and triples are ``C(n, 2)`` and ``C(n, 3)`` per rank; straights (and
    straight flushes) the product of the counts of each valid run's ranks;
    flushes ``C(n, 5)`` per suit minus the runs that suit holds whole (those are
    straight flushes, counted with the runs); full houses ``C(t, 3) C(p, 2)`` per
    pair of ranks; four of a kind one play per kicker.  The per-rank counts come from
    tables indexed by the bytes of the hand's 52-bit mask, and the straights a hand's
    ranks allow from a table indexed by those ranks (built once per straights rule).
    """
    rules = rules or BigTwoRules()
    hand = _hand(cards) if isinstance(cards, str) else tuple(cards)
    seen = _fast_mask(hand)
    if seen < 0:
        seen = _checked_mask(hand)
    return _features_of_mask(seen, len(hand), _rule_tables(rules), seat)


_BIT_BY_ID: Final = {id(card): 1 << card.code for card in DECK}
"""Each interned card's bit, by identity (hashing a card goes through its enums: slow)."""


def _fast_mask(cards: Sequence[Card]) -> int:
    """The mask of ``cards`` when they are interned, known and distinct; else -1."""
    try:
        # Summing bits is or-ing them when no card repeats; a repeat carries, so the bit
        # count comes out short.
        mask = sum(map(_BIT_BY_ID.__getitem__, map(id, cards)))
    except KeyError:  # ?? or a card built by hand
        return -1
    return mask if mask.bit_count() == len(cards) else -1


def _checked_mask(cards: Iterable[Card]) -> int:
    """The mask of ``cards``, card by card; raises at an unknown or repeated card."""
    seen = 0
    for card in cards:
        code = card.code
        if code < 0 or seen >> code & 1:
            raise EvaluationError("a Big Two hand needs distinct known cards")
        seen |= 1 << code
    return seen


# The hand's mask (bit 4 * rank + suit) is read a byte, two ranks, at a time: each byte
# value's entry in the table for its position adds that byte's share of every count into
# fields of one integer (see _byte_entry), so seven look-ups and a sum give them all.
# Fields, by their lowest bit.  Rank bit masks of the ranks held n >= 1, 2, 3 and 4 times:
_HELD: Final = 0
_PAIRED: Final = 13
_TRIPLED: Final = 26
_QUADS: Final = 39
_SUITS: Final = 52  # four 13-bit rank masks, one per suit, 13 bits apart
# Sums over the ranks of C(n, 2), C(n, 3) and C(n, 2) * C(n, 3), wide enough for 13 ranks
# of 4 cards (78, 52 and 312 at most):
_PAIR_COUNT: Final = 104
_TRIPLE_COUNT: Final = 112
_FULL_OVERLAP: Final = 120
_PAIR_MASK: Final = 0xFF
_TRIPLE_MASK: Final = 0xFF
_OVERLAP_MASK: Final = 0xFFF
_RANKS_MASK: Final = (1 << 13) - 1


def _byte_entry(position: int, value: int) -> int:
    """Byte ``position`` of a hand's mask (ranks ``2 * position`` and one more) as fields."""
    entry = 0
    for half in (0, 1):
        rank = 2 * position + half
        suits = value >> (4 * half) & 15
        n = suits.bit_count()
        if rank >= 13 or not n:
            continue
        bit = 1 << rank
        entry |= bit << _HELD
        if n >= 2:
            entry |= bit << _PAIRED
        if n >= 3:
            entry |= bit << _TRIPLED
        if n == 4:
            entry |= bit << _QUADS
        for suit in range(4):
            if suits >> suit & 1:
                entry |= bit << (_SUITS + 13 * suit)
        pairs, triples = math.comb(n, 2), math.comb(n, 3)
        entry += (pairs << _PAIR_COUNT) + (triples << _TRIPLE_COUNT) \
            + (pairs * triples << _FULL_OVERLAP)
    return entry


_BYTE_TABLES: Final = tuple([_byte_entry(position, value) for value in range(256)]
                            for position in range(7))


def _features_of_mask(seen: int, size: int, tables: _RuleTables, seat: int) -> BigTwoFeatures:
    """The features of the hand whose cards are the bits of ``seen`` (``size`` of them)."""
    held_runs_by_ranks, runs, lead_code = tables
    fields = sum(map(list.__getitem__, _BYTE_TABLES, seen.to_bytes(7, "little")))
    held = fields >> _HELD & _RANKS_MASK
    paired = fields >> _PAIRED & _RANKS_MASK
    all_pairs = fields >> _PAIR_COUNT & _PAIR_MASK
    triples = fields >> _TRIPLE_COUNT & _TRIPLE_MASK
    # reached: bit mask of the ranks some five-card play can shed
    reached, held_runs = held_runs_by_ranks[held]
    five = 0
    for a, b, c, d, e in held_runs:  # straights: one play per choice of suits
        five += ((seen >> a & 15).bit_count() * (seen >> b & 15).bit_count()
                 * (seen >> c & 15).bit_count() * (seen >> d & 15).bit_count()
                 * (seen >> e & 15).bit_count())
    for offset in (_SUITS, _SUITS + 13, _SUITS + 26, _SUITS + 39):
        suit = fields >> offset & _RANKS_MASK
        suited = suit.bit_count()
        if suited >= 5:
            five, reached = _add_flushes(suit, suited, runs, five, reached)
    if triples:
        # Full houses: each triple with a pair of another rank, C(t, 3) * C(p, 2).
        five += triples * all_pairs - (fields >> _FULL_OVERLAP & _OVERLAP_MASK)
        if paired.bit_count() >= 2:  # a triple and a pair of another rank
            reached |= paired
    if size > 4:
        quads = (fields >> _QUADS & _RANKS_MASK).bit_count()
        if quads:  # four of a kind, with any one other card
            five += quads * (size - 4)
            reached |= held
    features = BigTwoFeatures(
        seat, size, (seen >> _TWO_SHIFT & 15).bit_count(), (seen >> _ACE_SHIFT & 15).bit_count(),
        bool(seen >> lead_code & 1), all_pairs, triples, five,
        reached.bit_count())
    return features


def _add_flushes(suit: int, suited: int, runs: tuple[tuple[int, tuple[int, ...]], ...],
                 five: int, reached: int) -> tuple[int, int]:
    """Add the flushes of one suit of ``suited`` >= 5 cards (rank mask ``suit``)."""
    whole = [mask for mask, _ in runs if suit & mask == mask]  # straight flushes
    five += math.comb(suited, 5) - len(whole)
    if not whole:  # every card of the suit is in some flush
        return five, reached | suit
    with_rank = math.comb(suited - 1, 4)  # five-card sets of the suit holding a given card
    for rank in range(13):
        bit = 1 << rank
        if suit & bit and with_rank > sum(1 for mask in whole if mask & bit):
            reached |= bit
    return five, reached


_TWO_SHIFT: Final = 4 * int(Rank.TWO)
_ACE_SHIFT: Final = 4 * int(Rank.ACE)


@functools.cache
def _lead_code(lead_card: str) -> int:
    return parse_cards(lead_card)[0].code


@functools.cache
def _run_masks(straights: Straights) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The valid straights as (bit mask of ranks, shifts of their ranks in a hand's mask)."""
    return tuple((sum(1 << rank for rank in run), tuple(4 * rank for rank in sorted(run)))
                 for run in straight_runs(straights))


@functools.cache
def _held_runs(straights: Straights) -> tuple[tuple[int, tuple[tuple[int, ...], ...]], ...]:
    """By bit mask of the ranks a hand holds: the ranks its straights cover, and the shifts
    of each straight's ranks in the hand's mask (8,192 entries, built once per rule)."""
    runs = _run_masks(straights)
    table = []
    for held in range(1 << 13):
        whole = [(mask, shifts) for mask, shifts in runs if held & mask == mask]
        covered = 0
        for mask, _ in whole:
            covered |= mask
        table.append((covered, tuple(shifts for _, shifts in whole)))
    return tuple(table)


_RuleTables = tuple[tuple[tuple[int, tuple[tuple[int, ...], ...]], ...],
                    tuple[tuple[int, tuple[int, ...]], ...], int]
"""What the counting needs of a rule set: :func:`_held_runs`, :func:`_run_masks` and the
lead card's code."""


def _rule_tables(rules: BigTwoRules) -> _RuleTables:
    """The rule set's tables, looked up by identity (the reader shares one rules object
    among the hands with the same knobs; hashing one hashes its enums in Python)."""
    found = _TABLES_BY_ID.get(id(rules))
    if found is None or found[0] is not rules:
        found = (rules, (_held_runs(rules.straights), _run_masks(rules.straights),
                         _lead_code(rules.lead_card)))
        _TABLES_BY_ID[id(rules)] = found  # holds ``rules``: its id is not reused meanwhile
    return found[1]


_TABLES_BY_ID: Final = BoundedCache[int, tuple[BigTwoRules, _RuleTables]](
    "analytics.equity.bigtwo.tables_by_id", 1_000)


def _dealt(hand: HandHistory) -> dict[int, list[Card]]:
    dealt: dict[int, list[Card]] = {}
    for target, cards in _deals(hand):
        if target is not None:
            dealt.setdefault(target, []).extend(cards)
    return dealt


_Deal = tuple[int | None, tuple[Card, ...]]
"""A deal action's target seat and cards."""


def _deals(hand: HandHistory) -> list[_Deal]:
    """The target and cards of each of the hand's deals, in order (a game has some fifty
    plays and passes besides: picked out in one comprehension)."""
    return [(action.target, action.cards) for action in hand.actions
            if action.verb is _DEAL_HOLE]


_DEAL_HOLE: Final = Verb.DEAL_HOLE  # a global: ``Verb.DEAL_HOLE`` goes through the enum class


def bigtwo_game_features_fast(hand: HandHistory) -> list[BigTwoFeatures]:
    """:func:`bigtwo_game_features` by :func:`bigtwo_features_fast` (the same values)."""
    if hand.game is not Game.BIGTWO or not isinstance(hand.rules, BigTwoRules):
        return []
    tables = _rule_tables(hand.rules)
    return [_features_of_mask(mask, size, tables, seat)
            for seat, mask, size in bigtwo_game_deals(hand)]


def bigtwo_game_deals(hand: HandHistory) -> list[tuple[int, int, int]]:
    """Each seat's dealt hand as (seat, bit mask of its cards, number of cards), seats in
    order: what :func:`bigtwo_game_features_fast` counts, for :func:`bigtwo_features_many`.
    Empty for a hand that is not Big Two; raises :class:`EvaluationError` where
    :func:`bigtwo_game_features_fast` does (an unknown or repeated card)."""
    if hand.game is not Game.BIGTWO or not isinstance(hand.rules, BigTwoRules):
        return []
    deals = _deals(hand)
    dealt: dict[int, tuple[int, int]] = {}  # seat -> (mask, cards), for one deal per seat
    for seat, cards in deals:
        if seat is None:
            continue
        seen = _fast_mask(cards)
        if seen < 0 or seat in dealt:  # ??, a card twice, or a seat dealt to twice
            return _game_deals_by_lists(hand)
        dealt[seat] = (seen, len(cards))
    return [(seat, *dealt[seat]) for seat in sorted(dealt)]


def _game_deals_by_lists(hand: HandHistory) -> list[tuple[int, int, int]]:
    """:func:`bigtwo_game_deals` for any deals: each seat's cards gathered first, checked
    card by card (an unknown or repeated card raises, seats in order)."""
    deals = []
    for seat, cards in sorted(_dealt(hand).items()):
        seen = _fast_mask(cards)
        if seen < 0:
            seen = _checked_mask(cards)
        deals.append((seat, seen, len(cards)))
    return deals


_RUN_SLOTS: Final = 16  # valid straights of a rule set: 10 at most


def bigtwo_features_many(masks: Sequence[int], sizes: Sequence[int],
                         rules: Sequence[BigTwoRules]) -> npt.NDArray[np.int64]:
    """The features of many dealt hands by one kernel call (the values of
    :func:`bigtwo_features_fast`): hand i holds the cards of bit mask ``masks[i]``
    (:func:`bigtwo_game_deals`), ``sizes[i]`` of them, under ``rules[i]``.  Row i: twos,
    aces, has_lead (0 or 1), pairs, triples, five_card, distinct_five_card_ranks."""
    from analytics.equity import kernels

    out = np.zeros((len(masks), 7), dtype=np.int64)
    if not masks:
        return out
    # The distinct rule sets (by identity: the reader shares one per set of knobs), one
    # row each in the tables of straights and lead cards.
    rule_sets = {id(rule_set): rule_set for rule_set in rules}
    row_of = {key: row for row, key in enumerate(rule_sets)}
    run_masks = np.zeros((len(rule_sets), _RUN_SLOTS), dtype=np.int64)
    run_counts = np.zeros(len(rule_sets), dtype=np.int64)
    leads = np.zeros(len(rule_sets), dtype=np.int64)
    for row, rule_set in enumerate(rule_sets.values()):
        runs = [mask for mask, _ in _run_masks(rule_set.straights)]
        run_masks[row, :len(runs)] = runs
        run_counts[row] = len(runs)
        leads[row] = _lead_code(rule_set.lead_card)
    rows = np.array([row_of[id(rule_set)] for rule_set in rules], dtype=np.int64)
    kernels.bigtwo_features_many(np.array(masks, dtype=np.int64),
                                  np.array(sizes, dtype=np.int64), rows, leads[rows],
                                  run_masks, run_counts, _TWO_SHIFT, _ACE_SHIFT, out)
    return out


def _opponent_sizes(hand_size: int, players: int, rules: BigTwoRules) -> tuple[int, int]:
    """(cards per opponent, leftover cards that go to the holder of the lead card)."""
    if rules.deal is BigTwoDeal.THIRTEEN:
        if hand_size != 13:
            raise EvaluationError(f'with deal = "thirteen" a hand has 13 cards, not {hand_size}')
        return 13, 0
    base, extra = divmod(52, players)
    if hand_size == base:
        return base, extra
    if hand_size == base + extra and extra:
        return base, 0
    raise EvaluationError(f'with deal = "all" and {players} players a hand has {base}'
                          + (f" or {base + extra}" if extra else "") + f" cards, not {hand_size}")


def _deal_rest(rest: list[Card], players: int, per: int, leftovers: int,
               rules: BigTwoRules, hero: Sequence[Card]) -> list[list[Card]]:
    """Opponents' hands from the shuffled ``rest``; leftovers as the simulator deals them."""
    hands = [list(rest[i * per:(i + 1) * per]) for i in range(players - 1)]
    extra = rest[(players - 1) * per:(players - 1) * per + leftovers]
    if extra:
        lead = rules.lead
        everyone = [list(hero), *hands]
        holder = next((p for p, cards in enumerate(everyone) if lead in cards), None)
        if holder is None:  # the lead card is itself left over: the lowest card dealt decides
            lowest = min((c for cards in everyone for c in cards),
                         key=lambda c: bigtwo_card_key(c, rules))
            holder = next(p for p, cards in enumerate(everyone) if lowest in cards)
        if holder == 0:
            raise _HeroWouldGrow
        hands[holder - 1].extend(extra)
    return hands


class _HeroWouldGrow(Exception):
    """The deal would give the hand the leftovers: not a deal consistent with its size."""


def bigtwo_deal_strength(
    cards: str | Iterable[Card],
    players: int = 4,
    rules: BigTwoRules | None = None,
    *,
    samples: int = BIGTWO_SAMPLES,
    seed: int = 0,
    style: str = "steady",
) -> BigTwoStrength:
    """The chance that ``cards``, as dealt, go out first; simulated with ``style`` bots.

    The unseen cards are dealt at random to ``players - 1`` opponents (with
    ``deal = "all"``, leftovers to the holder of the lead card, as the simulator
    deals; deals that would give them to this hand are redrawn), and every seat
    is played by a bot of ``style`` until the first player goes out.
    """
    from analytics.rules.bigtwo.engine import BigTwoState, card_order, prepare_plays
    from analytics.simulate.bots_bigtwo import make_bot

    rules = rules or BigTwoRules()
    if not 2 <= players <= 4:
        raise EvaluationError(f"Big Two is played by 2 to 4 players, not {players}")
    if samples < 2:
        raise EvaluationError("the estimate needs at least 2 samples")
    hero = _hand(cards)
    per, leftovers = _opponent_sizes(len(hero), players, rules)
    prepare_plays(rules)  # builds the table of plays once, not after a dozen games
    order = card_order(rules)
    own = set(hero)
    rest = [card for card in DECK if card not in own]
    bots = [make_bot(style) for _ in range(players)]
    rng = random.Random(seed)
    first = 0
    played = 0
    attempts = 0
    while played < samples:
        attempts += 1
        if attempts > 20 * samples:
            raise EvaluationError("no consistent deal found for this hand")
        rng.shuffle(rest)
        try:
            others = _deal_rest(rest, players, per, leftovers, rules, hero)
        except _HeroWouldGrow:
            continue
        state = BigTwoState(rules, players)
        for seat, dealt in enumerate([list(hero), *others], start=1):
            state.deal(seat, sorted(dealt, key=order.__getitem__))
        state.close_deal()
        steps = 0
        while not state.finishing_order:
            steps += 1
            if steps > _MAX_STEPS:
                raise RuntimeError("a simulated Big Two continuation did not end (bot loop)")
            turn = state.turn
            assert turn is not None
            state.apply(bots[turn - 1].choose(state, rng))
        first += state.finishing_order[0] == 1
        played += 1
    p = first / samples
    return BigTwoStrength(p, mean_std_error(p, p * (1 - p), samples), samples, players, style)
