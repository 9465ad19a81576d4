"""Big Two deal strength: how likely a dealt hand is to go out first, and simple features.

:func:`bigtwo_deal_strength` deals the cards the hand's owner cannot see to the
other players at random, plays each deal to the first player out with the
simulator's bots (:mod:`analytics.simulate.bots_bigtwo`, the steady style by
default) through the rules engine (:class:`~analytics.rules.bigtwo.BigTwoState`),
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

from analytics.evaluator import EvaluationError, bigtwo_all_combos, bigtwo_card_key
from analytics.evaluator.bigtwo import _runs
from parsers.cards import DECK, Card, CardError, Rank, parse_cards
from parsers.knobs import BigTwoDeal, BigTwoRules, Game, Straights
from parsers.model import HandHistory, Verb

__all__ = [
    "BIGTWO_SAMPLES",
    "BigTwoFeatures",
    "BigTwoStrength",
    "bigtwo_deal_strength",
    "bigtwo_features",
    "bigtwo_features_fast",
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
    pair of ranks; four of a kind one play per kicker.
    """
    rules = rules or BigTwoRules()
    if isinstance(cards, str):
        cards = _hand(cards)
    ranks = [0] * 13
    suits = [0, 0, 0, 0]  # rank bit masks, per suit
    seen = 0
    size = 0
    for card in cards:
        code = card.code
        if code < 0 or seen >> code & 1:
            raise EvaluationError("a Big Two hand needs distinct known cards")
        seen |= 1 << code
        size += 1
        ranks[code >> 2] += 1
        suits[code & 3] |= 1 << (code >> 2)
    held = 0
    for rank, n in enumerate(ranks):
        if n:
            held |= 1 << rank
    reached = 0  # bit mask of the ranks some five-card play can shed
    five = 0
    runs = _run_masks(rules.straights)
    for mask, members in runs:
        if held & mask == mask:
            a, b, c, d, e = members
            five += ranks[a] * ranks[b] * ranks[c] * ranks[d] * ranks[e]
            reached |= mask
    for suit in suits:
        suited = suit.bit_count()
        if suited < 5:
            continue
        whole = [mask for mask, _ in runs if suit & mask == mask]  # straight flushes
        five += math.comb(suited, 5) - len(whole)
        with_rank = math.comb(suited - 1, 4)  # five-card sets of the suit holding a given card
        for rank in range(13):
            bit = 1 << rank
            if suit & bit and with_rank > sum(1 for mask in whole if mask & bit):
                reached |= bit
    pair_ways = [_PAIRS[n] for n in ranks]
    all_pairs = sum(pair_ways)
    paired = 0
    for rank, n in enumerate(ranks):
        if n >= 2:
            paired |= 1 << rank
    for rank, n in enumerate(ranks):
        if n >= 3:
            others = all_pairs - pair_ways[rank]
            if others:
                five += _TRIPLES[n] * others
                reached |= paired | (1 << rank)
        if n == 4 and size > 4:
            five += size - 4
            reached |= held
    return BigTwoFeatures(
        seat=seat, cards=size, twos=ranks[int(Rank.TWO)], aces=ranks[int(Rank.ACE)],
        has_lead=bool(seen >> _lead_code(rules.lead_card) & 1), pairs=all_pairs,
        triples=sum(_TRIPLES[n] for n in ranks), five_card=five,
        distinct_five_card_ranks=reached.bit_count())


_PAIRS: Final = tuple(math.comb(n, 2) for n in range(5))
_TRIPLES: Final = tuple(math.comb(n, 3) for n in range(5))


@functools.cache
def _lead_code(lead_card: str) -> int:
    return parse_cards(lead_card)[0].code


@functools.cache
def _run_masks(straights: Straights) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The valid straights as (bit mask of ranks, ranks), for counting."""
    return tuple((sum(1 << rank for rank in run), tuple(sorted(run)))
                 for run in _runs(straights))


def _dealt(hand: HandHistory) -> dict[int, list[Card]]:
    dealt: dict[int, list[Card]] = {}
    for action in hand.actions:
        if action.verb is Verb.DEAL_HOLE and action.target is not None:
            dealt.setdefault(action.target, []).extend(action.cards)
    return dealt


def bigtwo_game_features_fast(hand: HandHistory) -> list[BigTwoFeatures]:
    """:func:`bigtwo_game_features` by :func:`bigtwo_features_fast` (the same values)."""
    if hand.game is not Game.BIGTWO or not isinstance(hand.rules, BigTwoRules):
        return []
    dealt = _dealt(hand)
    return [bigtwo_features_fast(dealt[seat], hand.rules, seat) for seat in sorted(dealt)]


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
    from analytics.rules.bigtwo import BigTwoState, card_order, prepare_plays
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
    return BigTwoStrength(p, math.sqrt(p * (1 - p) / (samples - 1)), samples, players, style)
