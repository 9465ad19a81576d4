"""Rummoli: each dealt player's round summarised, the rows its statistics are counted over.

The summary reads a round's ``hands``, ``seats``, ``actions`` and ``awards`` and gives one
row per seat (made when the round is loaded, and for the rounds a database held before, by
:func:`analytics.warehouse.pipeline.stat_summary.rummoli_summary`; tests/stat_oracle.py
writes it as one SQL query, the oracle the tests check it against):
the poker phase (calls facing a bet, raises, showdown, poker pot won), the widow (the
dealer's choice, the auction's bids and price) and the Rummoli phase (pay cards laid,
stops, cards left and chips paid for them, the Rummoli pot).  RULES.md section 1 is the
game; the engine has checked every action, so this only reads them:

* the poker phase's actions are ``actions.street = 'poker'``; there are no blinds, so a
  ``cc`` is a call when a ``cbr`` came before it in the round, else a check;
* the dealer chooses with ``xw`` (exchange) or ``pw`` (keep: the widow is auctioned);
  the players the auction asks answer ``ab`` (bid) or ``ap`` (pass); ``aw`` records the
  winning bid (its amount);
* the cards he held are those dealt to him, or the widow's when he took it (``xw``, or
  ``aw``: the exchanger and the winning bidder play the widow's cards);
* a **stop** is a card laid that the next card laid does not follow (the next card is
  not the next rank of the same suit): the run stopped on it.  The round's last card is
  not counted;
* the laying statistics count only rounds with a Rummoli phase (an end-of-game round,
  ``hands.finale_pot`` set, is poker only);
* the round's net by pot (:data:`POT_NETS`): the poker pot (its side pots and the
  finale's pot won, less his ante into it and his bets), the pay-card pots (won less his
  seven antes), the Rummoli pot (won, less his ante and his impasse payments) and the
  cards-left payments (received less paid); with the auction's chips they add up to his
  net.  His bets are what he paid in (every award less his net) less his antes: a full
  ante into each of the nine pots in board order while his stack lasts, none in an
  end-of-game round.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PAY_CARDS", "PAY_CARD_POTS", "POT_NETS", "RANKS"]

PAY_CARDS: Final = ("Ts", "Jd", "Qc", "Kh", "As", "Kd", "Ad")
"""The cards that win a pot when laid (RULES.md 1.3)."""

PAY_CARD_POTS: Final = ("TS", "JD", "QC", "KH", "AS", "AKD", "789")
"""The board's seven pay-card pots, in board order between ``poker`` and ``rummoli``."""

POT_NETS: Final = ("poker_net", "pay_cards_net", "rummoli_net", "payments_net")
"""The summary's net by pot (with ``auction_net``, they add up to the round's net)."""

RANKS: Final = "23456789TJQKA"
"""Card ranks from low to high (a stop is a card the next rank of its suit does not follow)."""
