"""Cards drawn as cards: small, self-contained HTML snippets (no images, no network).

Each card is an inline-block ``<span>`` with its rank and suit symbol, red for
hearts and diamonds; a card nobody saw is drawn face down.  The snippets carry
their own inline styles so they look the same in the dashboard
(``st.html``/``st.markdown``) and in an exported HTML report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape
from typing import Final

from parsers.cards import Card, parse_cards
from parsers.model import RUMMOLI_POT_WORDS

__all__ = ["RUMMOLI_POT_WORDS", "card_html", "cards_html", "cards_words", "chips_html",
           "pot_code", "pot_words"]

_SUITS: Final = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
_RED: Final = frozenset("dh")
_BASE: Final = ("display:inline-block;min-width:2.1em;padding:0.25em 0.3em;margin:0 0.15em;"
                "border:1px solid #999;border-radius:0.35em;background:#fff;"
                "font-family:Georgia,serif;font-weight:bold;text-align:center;"
                "box-shadow:1px 1px 2px rgba(0,0,0,0.15);")
_BACK: Final = ("display:inline-block;min-width:2.1em;padding:0.25em 0.3em;margin:0 0.15em;"
                "border:1px solid #345;border-radius:0.35em;color:#fff;text-align:center;"
                "background:repeating-linear-gradient(45deg,#2b4c7e,#2b4c7e 4px,#3b5c8e 4px,"
                "#3b5c8e 8px);")


def card_html(card: Card | str, *, faded: bool = False) -> str:
    """One card as an HTML span; ``faded`` draws it greyed (a folded or laid card)."""
    text = str(card)
    face = _face(text)
    if face is None:
        return f'<span class="hl-card hl-back" style="{_BACK}" title="unseen card">?</span>'
    color = "#c0392b" if text[1] in _RED else "#1b1b1b"
    opacity = "opacity:0.45;" if faded else ""
    return (f'<span class="hl-card" style="{_BASE}color:{color};{opacity}" '
            f'title="{escape(text)}">{escape(face)}</span>')


def _face(text: str) -> str | None:
    """What a card's face shows (``10♠`` for ``Ts``); None for a card nobody saw."""
    if text == "??" or len(text) != 2:
        return None
    return ("10" if text[0] == "T" else text[0]) + _SUITS.get(text[1], "?")


def cards_html(cards: Iterable[Card | str] | str, *, faded: bool = False,
               empty: str = "—") -> str:
    """Several cards side by side; ``cards`` may be card text (``AsKd``) or cards."""
    items: Iterable[Card | str] = parse_cards(cards) if isinstance(cards, str) else cards
    html = "".join(card_html(card, faded=faded) for card in items)
    return f'<span class="hl-cards">{html}</span>' if html else escape(empty)


def cards_words(cards: Iterable[Card | str]) -> str:
    """Cards as plain text a person reads, for a button or a list (``10♠ 10♥``), where
    HTML cards cannot go; an unseen card is ``?``."""
    return " ".join(_face(str(card)) or "?" for card in cards)


def chips_html(amount: int | None, *, label: str = "") -> str:
    """A chip count as a small pill (``label`` before it), or a dash when unknown."""
    shown = "—" if amount is None else f"{amount:,}"
    prefix = f"{escape(label)} " if label else ""
    return ('<span style="display:inline-block;padding:0.1em 0.5em;border-radius:1em;'
            f'background:#f3e9c6;border:1px solid #c9b46b;">{prefix}{shown}</span>')


_SIDE: Final = re.compile(r"(?:(.+)_)?side(\d+)")
_OTHER_POTS: Final = {"main": "main pot", "payments": "end-of-round payments"}


def pot_words(pot: str) -> str:
    """A pot as people name it: Rummoli's by their cards (``10♠``, ``7-8-9``), a poker
    hand's ``main pot`` and ``side pot 2`` (``poker side pot 1`` in Rummoli), Rummoli's
    cards-left ``payments`` as ``end-of-round payments``; any other name (``auction``,
    ``impasse``) as stored."""
    if pot in RUMMOLI_POT_WORDS:
        return RUMMOLI_POT_WORDS[pot]
    side = _SIDE.fullmatch(pot)
    if side is not None:
        owner = f"{RUMMOLI_POT_WORDS.get(side[1], side[1])} " if side[1] else ""
        return f"{owner}side pot {side[2]}"
    return _OTHER_POTS.get(pot, pot)


_POT_CODES: Final = {words: code for code, words in RUMMOLI_POT_WORDS.items()}


def pot_code(words: str) -> str:
    """The stored name of a Rummoli pot :func:`pot_words` named (a chart's clicked bar);
    a name that is no pot's words comes back as it is."""
    return _POT_CODES.get(words, words)
