"""7 & 8 bots: choose the card to turn up, then bet, call or fold by equity.

Equity is exact and cheap: at first use, every three-card hand is valued by
the shared evaluator (``seveneight_rank_batch``) and, for each possible up
card ``u``, the hands that contain ``u`` are sorted.  An opponent showing ``u``
then has a known distribution of final hands (his hidden card and third card
are random), so the chance that a given final value of ours beats him is one
table look-up, ties counting half.  Before the third card our value is
averaged over our 50 possible third cards (also tabled per two-card holding
and up card).  Against several opponents the chances multiply (treating them
as independent, which ignores card removal: cheap and close enough for a bot).

Two styles (:data:`TIGHT`, :data:`LOOSE`) differ in thresholds, bluffing, bet
sizes, which card they show and whether they muck a beaten hand.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Final

import numpy as np

from analytics.evaluator import seveneight_rank_batch
from analytics.rules.seveneight.engine import SevenEightState
from parsers.cards import DECK, Card

__all__ = ["BOT_STYLES", "LOOSE", "TIGHT", "BotStyle", "Decision", "EquityTables",
           "SevenEightBot", "equity_tables"]


@dataclass(frozen=True, slots=True)
class EquityTables:
    """Look-up tables behind the bots' equity (see the module docstring).

    ``value3[key]`` is the evaluator value of the three cards with codes
    ``a < b < c``, ``key = (a * 52 + b) * 52 + c``; ``beat[u][v]`` the chance
    that final value ``v`` beats a player showing up card ``u``;
    ``round1[a * 52 + b][u]`` the same averaged over our third card for hole
    cards ``a < b``; ``shown[u]`` how strong a player showing ``u`` looks
    (his average chance against a random hand).
    """

    value3: dict[int, int]
    beat: list[list[float]]
    round1: list[list[float]]
    shown: list[float]


@cache
def equity_tables() -> EquityTables:
    """Build the equity tables once (exact enumeration; about 0.3 s)."""
    triples = np.array(list(combinations(range(52), 3)), dtype=np.int64)
    values = seveneight_rank_batch(triples).astype(np.int64)
    keys = (triples[:, 0] * 52 + triples[:, 1]) * 52 + triples[:, 2]
    value3 = dict(zip(keys.tolist(), values.tolist(), strict=True))
    top = int(values.max()) + 1
    every_value = np.arange(top)
    beat_rows: list[list[float]] = []
    beat_arrays = np.zeros((52, top))
    for up in range(52):
        holding = np.sort(values[(triples == up).any(axis=1)])
        below = np.searchsorted(holding, every_value, side="left")
        upto = np.searchsorted(holding, every_value, side="right")
        row = (below + upto) / (2.0 * len(holding))
        beat_arrays[up] = row
        beat_rows.append(row.tolist())
    # Our final value for each two-card holding (a < b) and each third card c.
    pair_codes = np.array(list(combinations(range(52), 2)), dtype=np.int64)
    finals = np.zeros((len(pair_codes), 50), dtype=np.int64)
    for index, (a, b) in enumerate(pair_codes.tolist()):
        thirds = [c for c in range(52) if c != a and c != b]
        finals[index] = [value3[_key(a, b, c)] for c in thirds]
    round1: list[list[float]] = [[] for _ in range(52 * 52)]
    means = np.stack([beat_arrays[up][finals].mean(axis=1) for up in range(52)], axis=1)
    for index, (a, b) in enumerate(pair_codes.tolist()):
        row = means[index].tolist()
        round1[a * 52 + b] = row
        round1[b * 52 + a] = row
    everyone = np.sort(values)
    overall = (np.searchsorted(everyone, values, side="left")
               + np.searchsorted(everyone, values, side="right")) / (2.0 * len(values))
    shown = [float(overall[(triples == up).any(axis=1)].mean()) for up in range(52)]
    return EquityTables(value3, beat_rows, round1, shown)


_CODES: Final = {id(card): card.code for card in DECK}
"""Card code by object id: cards are interned, and ``Card.code`` computes on every call."""


def _key(a: int, b: int, c: int) -> int:
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
        if a > b:
            a, b = b, a
    return (a * 52 + b) * 52 + c


@dataclass(frozen=True, slots=True)
class BotStyle:
    """How a bot plays.

    ``raise_at``: equity from which it bets or raises; ``call_factor``: it calls
    when ``equity * call_factor`` reaches the pot odds; ``bluff``: chance of
    betting anyway; ``sizes``: bet sizes as fractions of the pot after calling;
    ``show_strong``: turn up the card that looks stronger (else hide strength);
    ``muck_beaten``: muck at showdown when a shown hand already beats it.
    """

    name: str
    raise_at: float
    call_factor: float
    bluff: float
    sizes: tuple[float, ...]
    show_strong: bool
    muck_beaten: bool


TIGHT: Final = BotStyle("tight", raise_at=0.62, call_factor=0.9, bluff=0.02,
                        sizes=(0.5, 0.75), show_strong=False, muck_beaten=True)
LOOSE: Final = BotStyle("loose", raise_at=0.42, call_factor=1.5, bluff=0.12,
                        sizes=(0.5, 1.0, 1.5), show_strong=True, muck_beaten=False)
BOT_STYLES: Final = {"tight": TIGHT, "loose": LOOSE}
"""The bot styles by name."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A betting decision: ``kind`` is ``f``, ``cc`` or ``cbr`` (then ``amount`` is the total)."""

    kind: str
    amount: int = 0


_CHECK_CALL: Final = Decision("cc")
_FOLD: Final = Decision("f")


class SevenEightBot:
    """A bot of one :class:`BotStyle`; it reads the engine state and never breaks a rule."""

    __slots__ = ("style", "tables")

    def __init__(self, style: BotStyle) -> None:
        self.style = style
        self.tables = equity_tables()

    def choose_up(self, hole: tuple[Card, Card], rng: random.Random) -> Card:
        """Which of the two hole cards to turn face up."""
        shown = self.tables.shown
        first, second = hole
        if rng.random() < 0.15:  # be unpredictable now and then
            return first if rng.random() < 0.5 else second
        first_looks_stronger = shown[first.code] >= shown[second.code]
        return first if first_looks_stronger == self.style.show_strong else second

    def equity(self, state: SevenEightState, player: int) -> float:
        """Chance of beating every opponent still in, given their up cards."""
        tables = self.tables
        codes = _CODES
        hole = [codes[id(card)] for card in state.holes[player]]
        in_hand = state.in_hand
        ups = [codes[id(card)] for q, card in enumerate(state.up_cards)
               if q != player and in_hand[q] and card is not None]
        chance = 1.0
        if len(hole) == 2:
            row = tables.round1[hole[0] * 52 + hole[1]]
            for up in ups:
                chance *= row[up]
        else:
            value = tables.value3[_key(hole[0], hole[1], hole[2])]
            beat = tables.beat
            for up in ups:
                chance *= beat[up][value]
        return chance

    def decide(self, state: SevenEightState, rng: random.Random) -> Decision:
        """Fold, check/call or bet/raise for the player to act."""
        betting = state.betting
        legal = betting.legal_actions() if betting is not None else None
        if betting is None or legal is None:
            raise ValueError("the bot was asked to bet when nobody is to act")
        style = self.style
        equity = self.equity(state, legal.player)
        call = legal.call
        pot = state.pot
        if legal.min_to is not None and legal.max_to is not None and (
            equity >= style.raise_at or rng.random() < style.bluff
        ):
            fraction = style.sizes[rng.randrange(len(style.sizes))]
            target = betting.current_bet + int(fraction * (pot + call))
            return Decision("cbr", max(legal.min_to, min(legal.max_to, target)))
        if call == 0 or equity * style.call_factor * (pot + call) >= call:
            return _CHECK_CALL
        return _FOLD

    def shows(self, state: SevenEightState, player: int) -> bool:
        """At showdown: show (True) or muck.  Mucks only when beaten by a shown hand that
        is in every pot this player could win, so mucking never gives away a side pot."""
        if not self.style.muck_beaten:
            return True
        tables = self.tables
        hole = state.holes[player]
        mine = tables.value3[_key(hole[0].code, hole[1].code, hole[2].code)]
        contributions = state.contributions
        for other, cards in enumerate(state.shown):
            if cards is None or other == player:
                continue
            theirs = tables.value3[_key(cards[0].code, cards[1].code, cards[2].code)]
            if theirs > mine and contributions[other] >= contributions[player]:
                return False
        return True
