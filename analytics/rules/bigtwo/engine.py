"""The Big Two rules engine (shared/RULES.md section 2; decisions in docs/rules-bigtwo.md).

:class:`BigTwoState` is one game in progress, built from the number of players
and the hand's :class:`~parsers.rule_options.BigTwoRules`.  Every step has a
``can_x`` (a yes/no answer), a ``verify_x`` (raises :class:`RuleError` with a
message a player understands) and ``x`` itself (verifies, then applies):
:meth:`~BigTwoState.deal`, :meth:`~BigTwoState.play` and
:meth:`~BigTwoState.pass_turn`.  :meth:`~BigTwoState.legal_plays` and
:meth:`~BigTwoState.legal_actions` list what the player to act may do; the bots
choose from them.

:func:`replay` replays a :class:`~parsers.model.HandHistory` and returns its
:class:`Outcome`, or raises :class:`RuleError` naming the action and the rule.

Hands are kept as 52-bit masks (bit ``card.code``), so "does he hold these
cards" and "remove them" are single integer operations; recognising a play is
the shared evaluator's job (``bigtwo_combo``), memoised per rule set because a
game keeps playing the same few hundred singles, pairs and runs.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

import numpy as np
import numpy.typing as npt

from analytics.evaluator import (
    BigTwoCombo,
    bigtwo_all_combos,
    bigtwo_card_key,
    bigtwo_combo,
)
from analytics.rules.base import (
    Outcome,
    PotAward,
    RuleError,
    permits,
)
from parsers.caching import BoundedCache
from parsers.cards import DECK, Card, Rank, format_cards
from parsers.model import DEALER, Action, HandHistory, Verb
from parsers.rule_options import BigTwoDeal, BigTwoRules, BigTwoScoring

__all__ = [
    "DECK_SIZE",
    "HAND_SIZE",
    "BigTwoState",
    "Phase",
    "PlayOption",
    "card_order",
    "cards_of_mask",
    "game_awards",
    "game_nets",
    "mask_of",
    "payment",
    "possible_takers",
    "prepare_plays",
    "real_loss",
    "replay",
    "taker_problem",
    "zero_sum_scores",
]

DECK_SIZE: Final = 52
HAND_SIZE: Final = 13
"""Cards per player with ``deal = "thirteen"``."""

# Card -> bit.  Card hashing goes through the enums' Python-level __hash__, so the hot
# paths look cards up by identity (the parser's cards are interned) and fall back to the
# value-keyed table for a card built by hand.
_BIT: Final[dict[Card, int]] = {card: 1 << card.code for card in DECK}
_BIT_BY_ID: Final[dict[int, int]] = {id(card): 1 << card.code for card in DECK}


def _bit(card: Card) -> int | None:
    """The card's bit, or None for ``??``."""
    bit = _BIT_BY_ID.get(id(card))
    return bit if bit is not None else _BIT.get(card)


def _known_bit(card: Card) -> int:
    """The bit of a known card, by identity when interned (hashing a card is slow)."""
    bit = _BIT_BY_ID.get(id(card))
    return bit if bit is not None else _BIT[card]
_TWOS_MASK: Final = sum(1 << card.code for card in DECK if card.rank is Rank.TWO)
_MAX_CACHED_PLAYS: Final = 100_000


def mask_of(cards: Iterable[Card]) -> int:
    """The 52-bit mask of known cards (bit ``card.code``); raises KeyError for ``??``."""
    mask = 0
    for card in cards:
        bit = _bit(card)
        if bit is None:
            raise KeyError("?? has no bit")
        mask |= bit
    return mask


def cards_of_mask(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, in code order."""
    cards: list[Card] = []
    while mask:
        low = mask & -mask
        cards.append(DECK[low.bit_length() - 1])
        mask ^= low
    return tuple(cards)


def card_order(rules: BigTwoRules) -> dict[Card, int]:
    """Each card's Big Two strength 0..51 under ``rules`` (the evaluator's card key), as a table."""
    found = _CARD_ORDERS.get(rules)
    if found is None:
        found = _CARD_ORDERS.put(rules, {card: bigtwo_card_key(card, rules) for card in DECK})
    return found


_CARD_ORDERS: Final = BoundedCache[BigTwoRules, dict[Card, int]](
    "analytics.rules.bigtwo.engine.card_orders", 1_000)


def _sorted_text(mask: int, rules: BigTwoRules) -> str:
    """Cards of a mask for messages, weakest first in Big Two order (how players sort a hand)."""
    return format_cards(sorted(cards_of_mask(mask), key=card_order(rules).__getitem__))


_MAX_PLAY_RULES: Final = 64
"""The most rule sets of plays (:func:`_play_rules`) whose memos are kept at once: four
knobs decide a play, so a few in practice."""
_PLAYS: Final = BoundedCache[BigTwoRules, BoundedCache[int, BigTwoCombo]](
    "analytics.rules.bigtwo.engine.plays", _MAX_PLAY_RULES)
"""Memo of recognised plays: play rules -> mask -> combo.  Only legal plays are stored (about
23,000 per rule set)."""


def _plays_memo(play_rules: BigTwoRules) -> BoundedCache[int, BigTwoCombo]:
    """The memo of recognised plays under ``play_rules``."""
    memo = _PLAYS.get(play_rules)
    if memo is None:
        memo = _PLAYS.put(play_rules, BoundedCache(
            f"analytics.rules.bigtwo.engine.plays[{_play_knobs(play_rules)}]", _MAX_CACHED_PLAYS))
    return memo


def _play_knobs(play_rules: BigTwoRules) -> str:
    """The knobs that decide a play, as text (the names of the caches per rule set)."""
    return ",".join(str(getattr(getattr(play_rules, knob), "value", getattr(play_rules, knob)))
                    for knob in ("suit_order", "straights", "flush_order", "four_card_plays"))


def _recognise(mask: int, cards: Sequence[Card], rules: BigTwoRules,
               memo: dict[int, BigTwoCombo]) -> BigTwoCombo | None:
    combo = memo.get(mask)
    if combo is None:
        combo = bigtwo_combo(cards, rules)
        if combo is not None:
            memo[mask] = combo
    return combo


@dataclass(frozen=True, slots=True)
class PlayOption:
    """A play a player could make: the combination, its card mask, size and strength.

    ``strength`` is the evaluator's key (``combo.key``): within one size a larger
    strength beats a smaller one, equal strengths do not beat each other.
    """

    combo: BigTwoCombo
    mask: int
    strength: tuple[int, ...]
    size: int


def _option(combo: BigTwoCombo) -> PlayOption:
    return PlayOption(combo, mask_of(combo.cards), combo.key, len(combo.cards))


class _Universe:
    """Every legal play of the whole deck under one rule set.

    Built from the evaluator's ``bigtwo_all_combos`` (about half a second); a
    player's possible plays are then the universe's plays whose mask is a subset of
    his hand, found with one vectorised test per player per game instead of asking
    the evaluator to enumerate each hand (about 0.6 ms per 13 cards).
    """

    def __init__(self, rules: BigTwoRules) -> None:
        self.options = [_option(combo) for combo in bigtwo_all_combos(DECK, rules)]
        self.masks: npt.NDArray[np.uint64] = np.array([o.mask for o in self.options],
                                                      dtype=np.uint64)
        # By size, strongest first: what :meth:`BigTwoState.can_beat` walks down.
        by_size: dict[int, list[PlayOption]] = {}
        for option in self.options:
            by_size.setdefault(option.size, []).append(option)
        self.ladders = {size: _Ladder.of(options) for size, options in by_size.items()}

    def within(self, hand: int) -> list[PlayOption]:
        """The plays made only of cards in ``hand``, weakest first within each size."""
        outside = np.uint64(~hand & ((1 << DECK_SIZE) - 1))
        hits = np.flatnonzero((self.masks & outside) == 0)
        options = self.options
        return [options[i] for i in hits.tolist()]


@dataclass(frozen=True, slots=True)
class _Ladder:
    """Plays of one size, strongest first, as :meth:`BigTwoState.can_beat` asks about them:
    their masks (as an array too, tested in one step, when there are many: the some 20,000
    five-card plays) and their strengths weakest first (to count the plays that beat a
    strength by bisection)."""

    masks: list[int]
    array: npt.NDArray[np.uint64] | None
    rising: list[tuple[int, ...]]

    @staticmethod
    def of(options: Iterable[PlayOption]) -> _Ladder:
        """The ladder of ``options`` (plays of one size)."""
        strongest = sorted(options, key=_strength, reverse=True)
        masks = [option.mask for option in strongest]
        return _Ladder(masks, np.array(masks, dtype=np.uint64) if len(masks) > _WALKED_PLAYS
                       else None, [option.strength for option in reversed(strongest)])

    def beating(self, strength: tuple[int, ...]) -> int:
        """How many of the plays beat a play of ``strength`` (:func:`_beats`): the first
        ones."""
        rising = self.rising
        return len(rising) - bisect_right(rising, strength)

    def first_held(self, hand: int, start: int, stop: int) -> int:
        """The position of the first play from ``start`` on, before ``stop``, made only of
        cards in ``hand``; ``stop`` when there is none (``start`` when it is not before
        ``stop``)."""
        masks, outside = self.masks, ~hand
        if start >= stop or not masks[start] & outside:  # held: the one found last time
            return start
        if self.array is None:
            start += 1
            while start < stop and masks[start] & outside:
                start += 1
            return start
        held = (self.array[start:stop] & np.uint64(outside & ((1 << DECK_SIZE) - 1))) == 0
        first = int(held.argmax())
        return start + first if held[first] else stop


_WALKED_PLAYS: Final = 100
"""Plays of one size a :class:`_Ladder` walks in Python (cheaper than a vectorised test for
so few): the singles, pairs, triples and fours."""
_NO_PLAYS: Final = _Ladder([], None, [])


def _strength(option: PlayOption) -> tuple[int, ...]:
    return option.strength


def _beats(option: PlayOption, table: BigTwoCombo) -> bool:
    """The one rule of what beats the last play of a trick (RULES.md 2, no bombs): as many
    cards, and a larger strength (the evaluator's key)."""
    return option.size == len(table.cards) and option.strength > table.key


def _single_beaters(play_rules: BigTwoRules) -> dict[int, int]:
    """By a single's card bit, the mask of the cards whose single beats it (:func:`_beats`):
    :meth:`BigTwoState.can_beat` answers a single with one mask test."""
    found = _SINGLE_BEATERS.get(play_rules)
    if found is None:
        singles = [_option(combo) for combo in
                   (bigtwo_combo((card,), play_rules) for card in DECK) if combo is not None]
        found = _SINGLE_BEATERS.put(play_rules, {
            table.mask: sum([option.mask for option in singles if _beats(option, table.combo)])
            for table in singles})
    return found


_SINGLE_BEATERS: Final = BoundedCache[BigTwoRules, dict[int, int]](
    "analytics.rules.bigtwo.engine.single_beaters", _MAX_PLAY_RULES)


_UNIVERSES: Final = BoundedCache[BigTwoRules, _Universe](
    "analytics.rules.bigtwo.engine.universes", 4)
"""Every legal play by rule set: some 23,000 plays (7 MB) each, so only a few are kept: those
of the first rule sets to reach :data:`_UNIVERSE_AFTER` games.  A rule set met once they are
all taken enumerates each hand instead (2 ms a game) rather than empty the cache: with more
rule sets than places, taking turns, every game would build its table again (0.5 s)."""
_GAMES_SEEN: Final = BoundedCache[BigTwoRules, int]("analytics.rules.bigtwo.engine.games_seen",
                                                    _MAX_PLAY_RULES)
_UNIVERSE_AFTER: Final = 12
"""Games under one rule set after which its universe pays for itself (0.5 s vs 2 ms/game)."""


def _hand_options(hands: Sequence[int], rules: BigTwoRules) -> list[list[PlayOption]]:
    """Every possible play of each hand, weakest first within each size."""
    universe = _UNIVERSES.get(rules)
    if universe is None:
        seen = _GAMES_SEEN[rules] = _GAMES_SEEN.get(rules, 0) + 1
        if seen >= _UNIVERSE_AFTER and len(_UNIVERSES) < _UNIVERSES.limit:
            universe = _UNIVERSES[rules] = _Universe(rules)
    if universe is not None:
        return [universe.within(hand) for hand in hands]
    return [[_option(c) for c in bigtwo_all_combos(cards_of_mask(hand), rules)] for hand in hands]


def prepare_plays(rules: BigTwoRules) -> None:
    """Build the table of every play under ``rules`` now (about half a second).

    Otherwise it is built after a dozen games under the same rules; a long
    simulation or a benchmark can pay the cost up front.
    """
    play_rules = _play_rules(rules)
    if play_rules not in _UNIVERSES:
        _UNIVERSES[play_rules] = _Universe(play_rules)


_PLAY_RULES: Final = BoundedCache[BigTwoRules, BigTwoRules](
    "analytics.rules.bigtwo.engine.play_rules", 1_000)


def _play_rules(rules: BigTwoRules) -> BigTwoRules:
    """The rules with only the knobs that decide what a play is and what it beats.

    Deal, lead card and scoring do not change a play, so games that differ only
    in those share the memo of recognised plays and the universe.
    """
    found = _PLAY_RULES.get(rules)
    if found is None:
        found = _PLAY_RULES[rules] = BigTwoRules(
            suit_order=rules.suit_order, straights=rules.straights,
            flush_order=rules.flush_order, four_card_plays=rules.four_card_plays)
    return found


def payment(cards_left: int, cards_dealt: int, twos_left: int, scoring: BigTwoScoring,
            fry_threshold: int = 10) -> int:
    """Points a loser pays the winner under ``cards`` or ``cards_with_twos`` scoring
    (RULES.md 2, Scoring; docs/rules-bigtwo.md).

    One point per card left, doubled with ``fry_threshold`` (default 10) or more left,
    tripled when he played no card at all; with ``cards_with_twos`` each unplayed 2
    doubles the payment again (the doublings multiply: two 2s pay x4).  ``rank`` (and
    ``zero_sum``, settled by :func:`zero_sum_scores`) pay nothing here.
    """
    if scoring is _SCORING_RANK or scoring is _SCORING_ZERO_SUM or cards_left == 0:
        return 0
    if cards_left == cards_dealt:
        points = 3 * cards_left
    elif cards_left >= fry_threshold:
        points = 2 * cards_left
    else:
        points = cards_left
    if scoring is _SCORING_CARDS_WITH_TWOS:
        points <<= twos_left
    return points


def real_loss(cards_left: int, fry_threshold: int) -> int:
    """A player's *real loss* under ``zero_sum`` scoring (RULES.md 2): L cards left with
    L < F, 2L with F <= L < 13 (fried), else 3L; a threshold above 13 switches frying off."""
    if cards_left < fry_threshold:
        return cards_left
    if cards_left < HAND_SIZE:
        return 2 * cards_left
    return 3 * cards_left


def zero_sum_scores(cards_left: Sequence[int], fry_threshold: int,
                    takes_all_losses: int | None = None
                    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each player's real loss and score for one game under ``zero_sum`` scoring.

    With T the table's total real loss and n players, a player's score is T - n x his real
    loss: everyone pays his real loss to every other player, so the scores sum to 0.  A
    player ``takes_all_losses`` (1-based) carries T as his real loss and the others 0.
    """
    losses = [real_loss(left, fry_threshold) for left in cards_left]
    total = sum(losses)
    if takes_all_losses is not None:
        losses = [total if player == takes_all_losses else 0
                  for player in range(1, len(losses) + 1)]
    count = len(losses)
    return tuple(losses), tuple([total - count * loss for loss in losses])


def possible_takers(players: int, winner: int) -> tuple[int, int]:
    """Who may take on all losses in a played game that ``winner`` (1-based) ended by going
    out (RULES.md 2): the winner, for going out without announcing his last card, and the
    player before him in turn, for failing to stop him going out on it."""
    return winner, (winner - 2) % players + 1


def taker_problem(players: int, winner: int, taker: int) -> str | None:
    """What is wrong with naming ``taker`` (1-based) as the player who takes on all losses
    in a played game that ``winner`` ended by going out; None when nothing is
    (:func:`possible_takers`).  (A score sheet does not record the order of play, so its
    games are taken as written.)"""
    allowed = possible_takers(players, winner)
    if taker in allowed:
        return None
    before = allowed[1]
    return (f"p{taker} cannot take on all losses: only p{winner} (who went out, for not "
            f"announcing his last card) or p{before} (the player before him in turn, for not "
            "stopping him) can")


def game_nets(rules: BigTwoRules, left: Sequence[int], dealt: Sequence[int],
              twos: Sequence[int], winner: int | None, takes_all_losses: int | None
              ) -> tuple[int, ...]:
    """The points of one finished game, per player: the scoring of played and outcome-only
    games.  ``left``, ``dealt`` and ``twos`` are per player (cards left, cards dealt, 2s
    left); ``winner`` the first player out."""
    scoring = rules.scoring
    if scoring is _SCORING_ZERO_SUM:
        return zero_sum_scores(left, rules.fry_threshold, takes_all_losses)[1]
    if takes_all_losses is not None:
        raise RuleError(f"takes_all_losses is a rule of zero_sum scoring, not of {scoring.value}",
                        rule="takes-all-losses")
    nets = [0] * len(left)
    if winner is None:
        return tuple(nets)
    for player in range(1, len(left) + 1):
        if player != winner:
            owed = payment(left[player - 1], dealt[player - 1], twos[player - 1], scoring,
                           rules.fry_threshold)
            nets[player - 1] = -owed
            nets[winner - 1] += owed
    return tuple(nets)


def game_awards(nets: Sequence[int], rules: BigTwoRules, winner: int | None
                ) -> tuple[PotAward, ...]:
    """What each player received from the game: the winner's points (``cards`` scorings),
    every positive score (``zero_sum``: several players may come out ahead)."""
    if rules.scoring is _SCORING_ZERO_SUM:
        return tuple([PotAward("game", player, net)
                      for player, net in enumerate(nets, start=1) if net > 0])
    if winner is not None and nets[winner - 1]:
        return (PotAward("game", winner, nets[winner - 1]),)
    return ()


class Phase(Enum):
    """Where a game stands."""

    DEAL = "deal"
    PLAY = "play"
    OVER = "over"


# Enum members as module constants: reading ``Enum.MEMBER`` goes through the enum
# class's descriptor (about ten times a global's cost) on every hot-path comparison.
_PHASE_DEAL: Final = Phase.DEAL
_PHASE_OVER: Final = Phase.OVER
_PHASE_PLAY: Final = Phase.PLAY
_SCORING_CARDS_WITH_TWOS: Final = BigTwoScoring.CARDS_WITH_TWOS
_SCORING_RANK: Final = BigTwoScoring.RANK
_SCORING_ZERO_SUM: Final = BigTwoScoring.ZERO_SUM
_VERB_DEAL_HOLE: Final = Verb.DEAL_HOLE
_VERB_NOOP: Final = Verb.NOOP
_VERB_PASS: Final = Verb.PASS
_VERB_PLAY: Final = Verb.PLAY


class BigTwoState:
    """One game of Big Two: the deal, then plays and passes until it is decided.

    Players are 1..N in the order of play.  ``turn`` is the player to act (None
    while dealing and once the game is over); ``table`` is the last play of the
    current trick (None when the player to act leads).
    """

    def __init__(self, rules: BigTwoRules, players: int) -> None:
        if not 2 <= players <= 4:
            raise RuleError(f"Big Two is played by 2 to 4 players, not {players}", rule="players")
        self.rules = rules
        self.players = players
        self.hands = [0] * (players + 1)  # index 0 unused: players are 1-based
        self.dealt = [0] * (players + 1)
        self.phase = _PHASE_DEAL
        self.turn: int | None = None
        self.table: BigTwoCombo | None = None
        self.table_mask = 0
        self.table_cards: tuple[Card, ...] = ()  # as played, for messages
        self.table_player: int | None = None
        self.passes = 0
        self.finishing_order: list[int] = []
        self.required_card: Card | None = None
        self.plays = 0
        self.tricks = 0
        self._all_dealt = 0
        self._opened: tuple[int, Card] | None = None  # _opening()'s answer for this deal
        self._play_rules = _play_rules(rules)
        self._memo = _plays_memo(self._play_rules)
        # Per player, his possible plays by size; built on the first legal_plays() call
        # and pruned as cards go (a play that needs a card already played never returns).
        self._options: list[dict[int, list[PlayOption]]] | None = None
        self._pruned = [-1] * (players + 1)  # the hand each player's options were pruned for
        # can_beat's plays by (player << 3 | size), strongest first, and how many of the
        # first he does not hold (hands only shrink once play begins: never again).
        self._ladders: dict[int, tuple[_Ladder, int]] = {}
        # Per player (index 0 unused): his passes, and those made holding a beating play.
        self._single_beaters = _single_beaters(self._play_rules)
        self.pass_counts = [0] * (players + 1)
        self.passes_with_play = [0] * (players + 1)
        self._in_count = players
        # Cards per player, and the leftovers the holder of the lead card gets.
        if rules.deal is BigTwoDeal.ALL:
            self._base, self._extra = divmod(DECK_SIZE, players)
        else:
            self._base, self._extra = HAND_SIZE, 0

    # -- queries ---------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the game is decided."""
        return self.phase is _PHASE_OVER

    @property
    def leading(self) -> bool:
        """True when the player to act leads a trick (nothing on the table)."""
        return self.table is None

    def cards_of(self, player: int) -> tuple[Card, ...]:
        """The cards player ``player`` holds, weakest first in Big Two order."""
        return tuple(sorted(cards_of_mask(self.hands[player]),
                            key=card_order(self.rules).__getitem__))

    def card_count(self, player: int) -> int:
        """How many cards ``player`` holds."""
        return self.hands[player].bit_count()

    @property
    def players_in(self) -> int:
        """How many players still hold cards."""
        return self._in_count

    def in_play(self) -> list[int]:
        """Players who still hold cards, in order of play."""
        return [p for p in range(1, self.players + 1) if self.hands[p]]

    def _next_in(self, player: int) -> int:
        """The first player after ``player`` in order of play who still holds cards."""
        n = self.players
        nxt = player % n + 1
        if self.hands[nxt]:  # the usual case, without the loop
            return nxt
        nxt = player
        for _ in range(n):
            nxt = nxt % n + 1
            if self.hands[nxt]:
                return nxt
        return player

    def _name(self, player: int) -> str:
        return f"p{player}"

    # -- the deal --------------------------------------------------------------------

    def _deal_limit(self) -> int:
        return self._base + self._extra

    def verify_deal(self, player: int, cards: Sequence[Card]) -> None:
        """Raise :class:`RuleError` unless ``cards`` may be dealt to ``player`` now."""
        self._verify_deal(player, cards)

    def _verify_deal(self, player: int, cards: Sequence[Card]) -> int:
        if self.phase is not _PHASE_DEAL:
            raise RuleError("cards are dealt before the first play, not during the game",
                            rule="deal-order")
        if not 1 <= player <= self.players:
            raise RuleError(f"p{player} is not a player (this game has {self.players})",
                            rule="players")
        try:
            # The usual deal: interned cards, none dealt before.  Summing bits is or-ing
            # them when no card repeats; a repeat carries, so the bit count comes out short.
            mask = sum(map(_BIT_BY_ID.__getitem__, map(id, cards)))
        except KeyError:
            mask = -1
        if mask < 0 or mask.bit_count() != len(cards) or mask & self._all_dealt:
            # Card by card: raises at the first bad card, or masks cards built by hand.
            mask = self._deal_mask(cards)
        total = self.dealt[player] + len(cards)
        if total > self._deal_limit():
            raise RuleError(
                f"{self._name(player)} would hold {total} cards; {self._deal_rule_text()}",
                rule="deal-size")
        return mask

    def _deal_mask(self, cards: Sequence[Card]) -> int:
        """The mask of dealt ``cards``, checked card by card (raises at the first bad card)."""
        mask = 0
        for card in cards:
            bit = _BIT_BY_ID.get(id(card)) or _bit(card)
            if bit is None:
                raise RuleError("?? cannot be dealt in Big Two: a replay must know every card",
                                rule="unknown-card")
            if bit & self._all_dealt or bit & mask:
                raise RuleError(f"card {card} is dealt twice", rule="deal-duplicate")
            mask |= bit
        return mask

    def _deal_rule_text(self) -> str:
        if self.rules.deal is BigTwoDeal.THIRTEEN:
            return 'with deal = "thirteen" every player gets 13'
        if self._extra:
            return (f'with deal = "all" and {self.players} players every player gets '
                    f"{self._base} and the holder of the lead card {self.rules.lead_card} "
                    f"{self._base + self._extra}")
        return f'with deal = "all" and {self.players} players every player gets {self._base}'

    def can_deal(self, player: int, cards: Sequence[Card]) -> bool:
        """Whether ``cards`` may be dealt to ``player`` now."""
        return permits(self.verify_deal, player, cards)

    def deal(self, player: int, cards: Sequence[Card]) -> None:
        """Deal ``cards`` face down to ``player`` (``d dh pN CARDS``)."""
        mask = self._verify_deal(player, cards)
        self.hands[player] |= mask
        self._all_dealt |= mask
        self.dealt[player] += len(cards)
        self._opened = None

    def _opening(self) -> tuple[int, Card]:
        """Check the finished deal; return who plays first and the card he must play.

        The first play asks up to three times; the answer is kept until the next deal.
        """
        opened = self._opened
        if opened is None:
            opened = self._opened = self._find_opening()
        return opened

    def _find_opening(self) -> tuple[int, Card]:
        rules = self.rules
        lead = rules.lead
        lead_bit = _known_bit(lead)
        if lead_bit & self._all_dealt:
            required = lead
        else:
            # RULES.md: the lead card was not dealt, so the lowest card dealt leads.
            dealt = cards_of_mask(self._all_dealt)
            if not dealt:
                raise RuleError("no cards were dealt before the first play", rule="deal-size")
            required = min(dealt, key=card_order(rules).__getitem__)
        bit = _known_bit(required)
        holder = next(p for p in range(1, self.players + 1) if self.hands[p] & bit)
        for player in range(1, self.players + 1):
            expected = self._base + (self._extra if player == holder else 0)
            if self.dealt[player] != expected:
                raise RuleError(
                    f"{self._name(player)} was dealt {self.dealt[player]} cards; "
                    f"{self._deal_rule_text()}", rule="deal-size")
        return holder, required

    def close_deal(self) -> None:
        """End the deal: check hand sizes, give the turn to the holder of the lead card.

        :meth:`play` and :meth:`pass_turn` call it on the first play; the simulator
        calls it after dealing so that the bots can ask whose turn it is.
        """
        if self.phase is not _PHASE_DEAL:
            return
        holder, required = self._opening()
        self.phase = _PHASE_PLAY
        self.turn = holder
        self.required_card = required

    # -- plays and passes ---------------------------------------------------------------

    def _check_turn(self, player: int) -> None:
        if self.phase is _PHASE_OVER:
            winner = self.finishing_order[0]
            raise RuleError(f"the game is over: {self._name(winner)} has gone out",
                            rule="game-over")
        if not 1 <= player <= self.players:
            raise RuleError(f"p{player} is not a player (this game has {self.players})",
                            rule="players")
        if self.phase is _PHASE_DEAL:
            holder, required = self._opening()
            if player != holder:
                raise RuleError(
                    f"{self._name(holder)} holds the lead card {required} and plays first, "
                    f"not {self._name(player)}", rule="first-player")
            return
        if player != self.turn:
            if not self.hands[player]:
                raise RuleError(f"{self._name(player)} has gone out and plays no more",
                                rule="turn")
            raise RuleError(f"it is p{self.turn}'s turn, not {self._name(player)}'s",
                            rule="turn")

    def verify_play(self, player: int, cards: Sequence[Card]) -> BigTwoCombo:
        """Raise :class:`RuleError` unless ``player`` may play ``cards`` now; return the play."""
        return self._verify_play(player, cards)[0]

    def _verify_play(self, player: int, cards: Sequence[Card]) -> tuple[BigTwoCombo, int]:
        if player != self.turn:  # also when dealing or over: turn is None then
            self._check_turn(player)
        mask = 0
        for card in cards:
            bit = _BIT_BY_ID.get(id(card)) or _bit(card)
            if bit is None:
                raise RuleError("?? cannot be played: a replay must know every card",
                                rule="unknown-card")
            mask |= bit
        if len(cards) != mask.bit_count():
            raise RuleError("the same card appears twice in one play", rule="hold")
        missing = mask & ~self.hands[player]
        if missing:
            raise RuleError(f"{self._name(player)} does not hold "
                            f"{_sorted_text(missing, self.rules)}", rule="hold")
        combo = _recognise(mask, cards, self._play_rules, self._memo)
        if combo is None:
            text = format_cards(cards)
            if len(cards) == 4 and not self.rules.four_card_plays:
                raise RuleError(f"{text}: four-card plays are not allowed "
                                "(four_card_plays = false)", rule="combination")
            raise RuleError(f"{text} is not a Big Two combination", rule="combination")
        required = self.required_card if self.phase is _PHASE_PLAY else self._opening()[1]
        if self.plays == 0 and required is not None and not _known_bit(required) & mask:
            if required == self.rules.lead:
                raise RuleError(f"the first play must contain the lead card {required}",
                                rule="lead-card")
            raise RuleError(f"the first play must contain {required}, the lowest card dealt "
                            f"(the lead card {self.rules.lead} was not dealt)", rule="lead-card")
        table = self.table
        if table is not None:
            if len(table.cards) != len(cards):
                raise RuleError(
                    f"the trick was led with {len(table.cards)} card"
                    f"{'s' if len(table.cards) > 1 else ''}; a play must have as many, "
                    f"not {len(cards)}", rule="size")
            # Same size and same rules by construction, so the evaluator's keys compare
            # directly (bigtwo_beats re-checks both, which costs more than the play).
            if combo.key <= table.key:
                raise RuleError(f"{format_cards(cards)} does not beat "
                                f"{format_cards(self.table_cards or table.cards)}", rule="beat")
        return combo, mask

    def can_play(self, player: int, cards: Sequence[Card]) -> bool:
        """Whether ``player`` may play ``cards`` now."""
        return permits(self.verify_play, player, cards)

    def play(self, player: int, cards: Sequence[Card]) -> BigTwoCombo:
        """``pN pl CARDS``: play a combination; the game ends when a player goes out."""
        combo, mask = self._verify_play(player, cards)
        if self.phase is _PHASE_DEAL:
            self.close_deal()
        self._apply_play(player, combo, mask)
        self.table_cards = tuple(cards)
        return combo

    def _apply_play(self, player: int, combo: BigTwoCombo, mask: int) -> None:
        hands = self.hands
        left = hands[player] = hands[player] & ~mask
        self.plays += 1
        self.table = combo
        self.table_mask = mask
        self.table_player = player
        self.passes = 0
        if left:
            following = player % self.players + 1
            # The next player usually still holds cards: no search.
            self.turn = following if hands[following] else self._next_in(player)
            return
        # He has gone out.
        self.finishing_order.append(player)
        self._in_count -= 1
        if self.rules.scoring is not _SCORING_RANK:
            self.phase = _PHASE_OVER
        elif self._in_count <= 1:
            # rank scoring: the last player left takes the last place.
            self.finishing_order.extend(self.in_play())
            self.phase = _PHASE_OVER
        if self.phase is _PHASE_OVER:
            self.turn = None
            return
        self.turn = self._next_in(player)

    def verify_pass(self, player: int) -> None:
        """Raise :class:`RuleError` unless ``player`` may pass now (not when he leads)."""
        if player != self.turn:
            self._check_turn(player)
        if self.table is None:
            raise RuleError(f"{self._name(player)} leads the trick and may not pass",
                            rule="leader-pass")

    def can_pass(self, player: int) -> bool:
        """Whether ``player`` may pass now."""
        return permits(self.verify_pass, player)

    def pass_turn(self, player: int) -> None:
        """``pN ps``: pass.  When every other player still in has passed, the trick ends."""
        self.verify_pass(player)
        self._passed(player)

    def _passed(self, player: int) -> None:
        """Apply a pass that :meth:`verify_pass` allows, counted (and whether he held a
        beating play: :meth:`can_beat`, asked before the pass)."""
        self.pass_counts[player] += 1
        if self.can_beat():
            self.passes_with_play[player] += 1
        self.passes += 1
        # The trick ends once everybody still in, other than its last player, has passed
        # in succession.  If that player has gone out (rank scoring), all still in must
        # pass, and the lead falls to the next player still in after him.
        needed = self._in_count
        hands = self.hands
        if self.table_player is not None and hands[self.table_player]:
            needed -= 1
        following = player % self.players + 1
        self.turn = following if hands[following] else self._next_in(player)
        if self.passes >= needed:
            self.table = None
            self.table_mask = 0
            self.table_player = None
            self.passes = 0
            self.tricks += 1

    # -- what may be done ------------------------------------------------------------------

    def _player_options(self, player: int) -> dict[int, list[PlayOption]]:
        if self._options is None:
            self._options = [{}]
            for options in _hand_options(self.hands[1:], self._play_rules):
                by_size: dict[int, list[PlayOption]] = {}
                for option in options:
                    by_size.setdefault(option.size, []).append(option)
                self._options.append(by_size)
        return self._options[player]

    def legal_plays(self) -> list[PlayOption]:
        """The plays the player to act may make, weakest first within each size.

        Computed from the player's plays at the deal, so it is cheap to call at
        every turn.
        """
        if self.phase is _PHASE_DEAL:
            self.close_deal()
        player = self.turn
        if player is None:
            return []
        hand = self.hands[player]
        by_size = self._player_options(player)
        if self._pruned[player] != hand:
            # Cards went since the last look: drop the plays that needed them.
            for size, group in by_size.items():
                by_size[size] = [o for o in group if o.mask & hand == o.mask]
            self._pruned[player] = hand
        table = self.table
        if table is not None:
            return list(self._beating(player, table))
        options = [o for size in sorted(by_size) for o in by_size[size]]
        if self.plays == 0 and self.required_card is not None:
            bit = _known_bit(self.required_card)
            options = [o for o in options if o.mask & bit]
        return options

    def _beating(self, player: int, table: BigTwoCombo) -> Iterator[PlayOption]:
        """The plays ``player`` holds that beat ``table`` (:func:`_beats`), for
        :meth:`legal_plays`."""
        hand = self.hands[player]
        return (o for o in self._player_options(player).get(len(table.cards), ())
                if _beats(o, table) and o.mask & hand == o.mask)

    def can_beat(self) -> bool:
        """Whether the player to act holds a play that beats the last play of the trick
        (:meth:`legal_plays` would list one; False when he leads or nobody is to act).

        Asked at every pass (the ``passes_with_play`` of :meth:`outcome`), so it lists
        nothing: a single is one mask test; otherwise, of the plays of the trick's size
        strongest first (:class:`_Ladder`), those that beat it are the first ones (counted
        by bisection), and the question is whether he holds one of them.  As his hand only
        shrinks, the first plays he does not hold are skipped for good."""
        player, table = self.turn, self.table
        if player is None or table is None:
            return False
        size = len(table.cards)
        hand = self.hands[player]
        if size == 1:
            return bool(hand & self._single_beaters[self.table_mask])
        if hand.bit_count() < size:
            return False  # too few cards for a play of the trick's size
        slot = player << 3 | size
        found = self._ladders.get(slot)
        ladder, skipped = (self._ladder(player, size), 0) if found is None else found
        beating = ladder.beating(table.key)
        skipped = ladder.first_held(hand, skipped, beating)
        self._ladders[slot] = (ladder, skipped)
        return skipped < beating

    def _ladder(self, player: int, size: int) -> _Ladder:
        """The plays of ``size`` cards that ``player`` may hold (or some he no longer does),
        for :meth:`can_beat`: every play of that size, from the table of every play, when
        there is one and the player's own plays are not listed yet (:meth:`legal_plays`,
        the bots); else his own."""
        universe = _UNIVERSES.get(self._play_rules)
        if universe is not None and self._options is None:
            return universe.ladders.get(size, _NO_PLAYS)
        return _Ladder.of(self._player_options(player).get(size, ()))

    def legal_actions(self) -> list[Action]:
        """The actions open to the player to act: a pass when allowed, then every play."""
        plays = self.legal_plays()
        player = self.turn
        if player is None:
            return []
        actions = [] if self.table is None else [Action(player, _VERB_PASS)]
        # combo.cards lists the strongest first; histories list a play weakest first.
        actions += [Action(player, _VERB_PLAY, cards=o.combo.cards[::-1]) for o in plays]
        return actions

    def apply(self, action: Action) -> None:
        """Apply one history action (deal, play, pass; no-ops are ignored)."""
        verb = action.verb
        if verb is _VERB_PLAY:
            self.play(action.actor, action.cards)
        elif verb is _VERB_PASS:
            self.pass_turn(action.actor)
        elif verb is _VERB_DEAL_HOLE:
            if action.actor != DEALER or action.target is None:
                raise RuleError("only the dealer deals cards", rule="deal-order")
            self.deal(action.target, action.cards)
        elif verb is not _VERB_NOOP:
            raise RuleError(f"{verb.value!r} is not a Big Two action", rule="verb")

    # -- the result ------------------------------------------------------------------------

    def outcome(self, starting_stacks: Sequence[int] | None = None,
                takes_all_losses: int | None = None) -> Outcome:
        """Points, winner and finishing order of the finished game (``takes_all_losses``:
        the player who takes on all losses, ``zero_sum`` scoring)."""
        if self.phase is not _PHASE_OVER:
            raise RuleError(self._unfinished_text(), rule="incomplete")
        rules = self.rules
        winner = self.finishing_order[0]
        if takes_all_losses is not None and rules.scoring is _SCORING_ZERO_SUM:
            problem = taker_problem(self.players, winner, takes_all_losses)
            if problem is not None:
                raise RuleError(problem, rule="takes-all-losses")
        players = range(1, self.players + 1)
        left = [self.hands[p].bit_count() for p in players]
        nets = game_nets(rules, left, self.dealt[1:], [(self.hands[p] & _TWOS_MASK).bit_count()
                                                      for p in players], winner, takes_all_losses)
        if sum(nets) != 0:  # conservation: what the winner receives is what the others pay
            raise RuleError(f"points do not balance: {sum(nets)} left over", rule="conservation")
        base = starting_stacks if starting_stacks is not None else (0,) * self.players
        return Outcome(
            nets=nets,
            awards=game_awards(nets, rules, winner),
            finishing_stacks=tuple(s + n for s, n in zip(base, nets, strict=True)),
            finishing_order=tuple(self.finishing_order),
            winner=winner,
            extra={"cards_left": tuple(left), "plays": self.plays, "tricks": self.tricks,
                   "passes": tuple(self.pass_counts[1:]),
                   "passes_with_play": tuple(self.passes_with_play[1:])},
        )

    def _unfinished_text(self) -> str:
        if self.phase is _PHASE_DEAL:
            return "the game is not finished: no card was played"
        counts = ", ".join(f"p{p} {self.card_count(p)}" for p in self.in_play())
        if self.rules.scoring is _SCORING_RANK:
            return (f"the game is not finished: with scoring = \"rank\" play goes on until "
                    f"one player is left (cards left: {counts})")
        return f"the game is not finished: nobody has gone out (cards left: {counts})"


def replay(hand: HandHistory) -> Outcome:
    """Replay a Big Two game; return its outcome or raise :class:`RuleError`.

    Checks every deal, play and pass, that the game was played to its end, and
    any ``finishing_stacks`` (``starting_stacks``, or 0s, plus the points) and
    ``winnings`` (what the winner received) the history states.

    The outcome's ``extra`` holds each player's cards left, the numbers of plays and
    tricks, and his passes and ``passes_with_play`` (those made holding a play that
    beats the trick: :meth:`BigTwoState.can_beat`).
    """
    if hand.errors:
        raise RuleError(f"the hand has parse errors: {hand.errors[0]}", hand=hand, rule="parse")
    rules = hand.rules
    if not isinstance(rules, BigTwoRules):
        raise RuleError("not a Big Two hand (no Big Two rules)", hand=hand, rule="game")
    if hand.cards_left is not None:
        return _replay_outcome_only(hand, rules)
    try:
        state = BigTwoState(rules, hand.num_players)
    except RuleError as error:
        raise error.located(hand) from None
    _play_all(state, hand)
    try:
        outcome = state.outcome(hand.starting_stacks, hand.takes_all_losses)
    except RuleError as error:
        last = len(hand.actions) - 1
        raise error.located(hand, last if last >= 0 else None,
                            hand.actions[last] if last >= 0 else None) from None
    _check_stated(hand, outcome)
    return outcome


def _play_all(state: BigTwoState, hand: HandHistory) -> None:
    """Apply every action of ``hand`` to ``state``, as :meth:`BigTwoState.apply` would.

    A play or pass that is plainly legal (the player to act, after the first
    play; interned cards he holds, no card twice, a combination already
    recognised, the trick's size and stronger than the table) is applied
    straight away.  Everything else goes through :meth:`~BigTwoState.play`,
    :meth:`~BigTwoState.pass_turn` or :meth:`~BigTwoState.apply`, which check it
    in full and raise the :class:`RuleError` a player reads.  The guards only
    ever send more actions to the full checks, never fewer.
    """
    bit_by_id = _BIT_BY_ID
    memo = state._memo
    hands = state.hands
    play, pass_turn, apply = state.play, state.pass_turn, state.apply
    for index, action in enumerate(hand.actions):
        try:
            verb = action.verb
            if verb is _VERB_PLAY:
                player = action.actor
                cards = action.cards
                if player == state.turn and state.plays:
                    mask = 0
                    for card in cards:
                        bit = bit_by_id.get(id(card))
                        if bit is None:
                            mask = -1
                            break
                        mask |= bit
                    combo = memo.get(mask) if mask > 0 else None
                    if (combo is not None and mask.bit_count() == len(cards)
                            and not mask & ~hands[player]):
                        table = state.table
                        if table is None or (len(table.cards) == len(cards)
                                             and combo.key > table.key):
                            state._apply_play(player, combo, mask)
                            state.table_cards = cards
                            continue
                play(player, cards)
            elif verb is _VERB_PASS:
                player = action.actor
                if player == state.turn and state.table is not None:
                    state._passed(player)
                else:
                    pass_turn(player)
            else:
                apply(action)
        except RuleError as error:
            raise error.located(hand, index, action) from None


def _replay_outcome_only(hand: HandHistory, rules: BigTwoRules) -> Outcome:
    """The outcome of an outcome-only game (``cards_left``, no plays: a score sheet's line).

    Checked: the scoring counts cards (``cards`` or ``zero_sum``: the 2s left and the order
    of going out are not recorded), 13 cards were dealt each, and exactly one player has 0
    cards left -- unless ``as_recorded`` keeps a score keeper's line as written.  The
    stated ``finishing_stacks`` and ``winnings`` are checked as for a played game.
    """
    left = hand.cards_left
    assert left is not None
    if rules.scoring not in (BigTwoScoring.CARDS, _SCORING_ZERO_SUM):
        raise RuleError(f"an outcome-only game is scored by its cards left (scoring cards or "
                        f"zero_sum), not {rules.scoring.value}: the 2s left and the order of "
                        "going out are not recorded", hand=hand, rule="outcome-only")
    if rules.deal is not BigTwoDeal.THIRTEEN:
        raise RuleError("an outcome-only game records 13 cards dealt each (deal = thirteen)",
                        hand=hand, rule="outcome-only")
    if len(left) != hand.num_players:
        raise RuleError(f"cards_left has {len(left)} entries for {hand.num_players} players",
                        hand=hand, rule="outcome-only")
    winners = [player for player, count in enumerate(left, start=1) if count == 0]
    if len(winners) != 1 and not hand.as_recorded:
        raise RuleError(f"an outcome-only game has one winner with 0 cards left, not "
                        f"{len(winners)} (as_recorded = true keeps a score sheet's line as "
                        "written)", hand=hand, rule="one-winner")
    winner = winners[0] if len(winners) == 1 else None
    players = len(left)
    try:
        nets = game_nets(rules, left, (HAND_SIZE,) * players, (0,) * players, winner,
                         hand.takes_all_losses)
    except RuleError as error:
        raise error.located(hand) from None
    base = hand.starting_stacks if hand.starting_stacks is not None else (0,) * players
    outcome = Outcome(
        nets=nets, awards=game_awards(nets, rules, winner),
        finishing_stacks=tuple(s + n for s, n in zip(base, nets, strict=True)),
        finishing_order=(winner,) if winner is not None else (), winner=winner,
        extra={"cards_left": tuple(left), "plays": 0, "tricks": 0, "passes": (0,) * players,
               "passes_with_play": (0,) * players})
    _check_stated(hand, outcome)
    return outcome


def _check_stated(hand: HandHistory, outcome: Outcome) -> None:
    """Compare the history's ``finishing_stacks`` and ``winnings`` with the replay's."""
    stated = hand.finishing_stacks
    derived = outcome.finishing_stacks
    if stated is not None and derived is not None and stated != derived:
        wrong = next(i for i, (a, b) in enumerate(zip(stated, derived, strict=True)) if a != b)
        start = hand.starting_stacks[wrong] if hand.starting_stacks is not None else 0
        raise RuleError(
            f"points do not balance: finishing_stacks give p{wrong + 1} {stated[wrong]}, "
            f"the game gives {derived[wrong]} ({start} {outcome.nets[wrong]:+d})",
            hand=hand, rule="finishing-stacks")
    if hand.winnings is not None:
        won = [0] * len(outcome.nets)
        for award in outcome.awards:
            won[award.player - 1] += award.amount
        if tuple(won) != hand.winnings:
            raise RuleError(f"winnings {list(hand.winnings)} do not match the game's {won}",
                            hand=hand, rule="winnings")
