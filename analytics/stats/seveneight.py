"""7 & 8: each seat's betting summary, the rows its statistics are counted over.

The summary is one row per seat, made from the hand's ``hands``, ``seats`` and ``actions``
when the hand is loaded (and for the hands a database held before) by
:func:`analytics.warehouse.pipeline.stat_summary.seveneight_summary`; tests/stat_oracle.py
writes it as one SQL query, the oracle the tests check it against.  Its columns
(:data:`SUMMARY_COLUMNS`) are what the definitions of :mod:`analytics.stats.definitions`
read.

How the actions are read (RULES.md section 3; the engine has checked them):

* Round 1 is the betting after the up cards, round 2 the betting after the third card
  (``actions.street`` ``round1`` / ``round2``).  Blinds and antes are posted, not acted.
* A raise is a ``cbr`` action: the first of a round is a bet (round 2) or the first raise
  over the blinds (round 1).  An all-in for less than a full raise is a ``cbr`` too and
  counts as a raise; it does not reopen the betting, so a player who already acted may
  only call or fold it, and that call or fold is counted facing it.
* A ``cc`` is a call when the player owed chips: a raise came before it in the round, or
  (round 1) he posted less than the most anyone posted (a big blind all in for less makes
  the bet what he posted).  Otherwise it is a check.
* He had a decision in round 1 when he has an action in it (``r1_acts``): not in a walk
  (everyone folds to his big blind), nor when he was all in before it.
* He was still in when round 2 began when he was dealt a third card (the engine deals one
  to every player still in, all-in players included); he went to showdown when he has an
  ``sm`` action (shown or mucked: the engine asks every player still in at the end).
"""

from __future__ import annotations

from typing import Final

__all__ = ["POSITIONS", "RANKS", "SUMMARY_COLUMNS"]

RANKS: Final = "23456789TJQKA"
"""Card ranks from low to high (the up card's rank is its position here, 1-based)."""

POSITIONS: Final = ("small blind", "big blind", "early", "late", "button")
"""The positions a 7 & 8 seat is split by (:data:`SUMMARY`'s ``position``)."""

SUMMARY_COLUMNS: Final = ("r1_acts", "r1_raises", "r1_calls", "r1_folds", "r2_raises",
                          "r2_calls",
                          "r2_folds", "facing_one_raise", "facing_two_raises", "first_raiser",
                          "last_raiser", "first_r2_verb", "first_r2_facing", "facing_cbet",
                          "saw_round2", "showdown", "won", "up_rank_value", "down_rank_value")
"""The summary columns the statistics' SQL reads (besides the seat's identity)."""
