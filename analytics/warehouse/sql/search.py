"""Hand search: the hands matching the dashboard's filters and what a person looks for.

One question, :func:`search_hands`, over ``hand_facts`` (the filters) with a condition per
criterion (the category shown down, the pot, all in, showdown, a Big Two combination
played, a Rummoli pot won, starred or tagged), every value bound and every identifier
taken from a whitelist.  With players chosen, the per-seat criteria (category, all in,
combination, pot won) ask about their seats.  The results carry the hand's id in hex
and a link that opens it in the replayer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import duckdb
import pandas as pd

from analytics.evaluator import PokerCategory, SevenEightCategory
from analytics.stats.definitions import unit_sql
from analytics.warehouse.identity import hand_id_hex
from analytics.warehouse.sql.views import (
    PLAY_KIND_COLUMNS,
    HandFilter,
    current_hand_id,
    hand_facts_where,
    in_latest_order,
    latest_first,
    query_frame,
)
from parsers.model import RUMMOLI_POTS

__all__ = ["CATEGORY_ORDER", "POTS_WON", "HandSearch", "categories_at_least",
           "describe_hands", "pot_units", "search_hands"]

CATEGORY_ORDER: Final = {
    "seveneight": tuple(c.label for c in SevenEightCategory),
    "rummoli": tuple(c.label for c in PokerCategory),
}
"""Showdown categories from the weakest to the strongest, per game that shows down."""


def categories_at_least(game: str, category: str) -> tuple[str, ...]:
    """``category`` and every stronger one of ``game`` ("full house or better")."""
    order = CATEGORY_ORDER[game]
    return order[order.index(category):]


@dataclass(frozen=True, slots=True)
class HandSearch:
    """What a search looks for besides the filters; empty fields do not filter.

    ``categories``: a shown-down hand of one of them; ``min_pot``/``max_pot``: the chips
    won from the hand's pots, counted in ``pot_unit`` (a currency the hands' stakes declare,
    or ``chips`` where they declare none: :func:`pot_units`), which either bound needs, as
    50 dollars and 50 yen are no comparable pots: a hand in another unit, or a Big Two
    game (played for points, no pot), is left out; ``all_in``: all in with cards to come
    (7 & 8 alone can be); ``combination``: a Big Two kind played (a
    ``views.PLAY_KIND_COLUMNS`` key); ``pot_won``: a Rummoli pot someone won chips from
    (:data:`POTS_WON`: ``poker`` with its side pots, and the end-of-game ``finale``);
    ``tag``: a label kept on the hand (in any case); ``hand_id``: one hand, by the id
    shown everywhere (:func:`~analytics.warehouse.identity.parse_hand_id` reads it)."""

    categories: tuple[str, ...] = ()
    min_pot: int | None = None
    max_pot: int | None = None
    pot_unit: str | None = None
    all_in: bool | None = None
    showdown: bool | None = None
    combination: str | None = None
    pot_won: str | None = None
    starred: bool | None = None
    tag: str | None = None
    hand_id: int | None = None

    def __post_init__(self) -> None:
        if (self.min_pot is not None or self.max_pot is not None) and not self.pot_unit:
            raise ValueError("a pot bound needs the unit it counts in (pot_unit: a "
                             "currency, or 'chips')")
        if self.combination is not None and self.combination not in PLAY_KIND_COLUMNS:
            raise ValueError(f"unknown combination {self.combination!r} (expected one of "
                             f"{', '.join(PLAY_KIND_COLUMNS)})")
        if self.pot_won is not None and self.pot_won not in POTS_WON:
            raise ValueError(f"unknown pot {self.pot_won!r} (expected one of "
                             f"{', '.join(POTS_WON)})")


POTS_WON: Final = (*RUMMOLI_POTS, "finale")
"""The Rummoli pots a search can ask who won: the board's, and the finale's (the chips the
board held at the game's end, played for in one last poker hand)."""


def _seat(condition: str, f: HandFilter) -> str:
    """A seat of the hand (of the chosen players, if any) meets ``condition`` (on ``s``)."""
    mine = " AND list_contains($players, s.player)" if f.players else ""
    return (f"EXISTS (SELECT 1 FROM seat_facts s WHERE s.hand_id = x.hand_id "
            f"AND s.day = x.day AND {condition}{mine})")


def search_hands(con: duckdb.DuckDBPyConnection, f: HandFilter, *,
                 search: HandSearch = HandSearch(), limit: int = 500) -> pd.DataFrame:
    """The hands matching ``f`` and ``search``, the latest first (at most ``limit``): id
    (and in hex), game, day, time, session, players, pot, the note's star and tags, and
    ``replay``: the replayer's link."""
    cond, params = hand_facts_where(f)
    conditions = [cond]
    if search.categories:
        conditions.append(_seat("list_contains($categories, s.shown_category)", f))
        params["categories"] = list(search.categories)
    if search.all_in is not None:
        conditions.append(("" if search.all_in else "NOT ") + _seat("s.all_in", f))
    if search.showdown is not None:
        conditions.append(("" if search.showdown else "NOT ")
                          + _seat("s.shown_size IS NOT NULL", f))
    if search.combination is not None:
        conditions.append(_seat(f"s.{PLAY_KIND_COLUMNS[search.combination]} > 0", f))
    if search.pot_won is not None:
        mine = (" AND list_contains($players, p.player)" if f.players else "")
        conditions.append(
            "EXISTS (SELECT 1 FROM awards a JOIN seats p ON p.hand_id = a.hand_id "
            "AND p.seat = a.player WHERE a.hand_id = x.hand_id "
            # the poker pot with its side pots (poker_side1, ...), the finale's per pot too
            "AND (a.pot = $pot_won OR starts_with(a.pot, $pot_won || '_')) "
            f"AND a.amount > 0{mine})")
        params["pot_won"] = search.pot_won
    if search.starred is not None:
        conditions.append(("" if search.starred else "NOT ") + "coalesce(n.starred, FALSE)")
    if search.tag:
        # As people type it: "review" finds the hands tagged "Review".
        conditions.append("list_contains(list_transform(n.tags, lambda t: lower(t)), lower($tag))")
        params["tag"] = search.tag.strip()
    if search.hand_id is not None:  # an id from before migration 13 finds its hand too
        conditions.append("x.hand_id = $hand_id")
        params["hand_id"] = current_hand_id(con, search.hand_id)
    by_pot = search.min_pot is not None or search.max_pot is not None
    if by_pot:  # in one unit: a Big Two game's points are no pot
        conditions.append(f"x.game <> 'bigtwo' AND {unit_sql('x.stakes')} = $pot_unit")
        params["pot_unit"] = search.pot_unit
        conditions.append("w.pot BETWEEN coalesce($min_pot, w.pot) AND coalesce($max_pot, w.pot)")
        params |= {"min_pot": search.min_pot, "max_pot": search.max_pot}
    pot_join = ("JOIN (SELECT hand_id, sum(won) AS pot FROM seats GROUP BY hand_id) w "
                "ON w.hand_id = x.hand_id" if by_pot else "")
    found = in_latest_order(f"""
        SELECT x.hand_id, x.game, x.day, x.session, x.players, x.stakes, n.starred, n.tags
        FROM hand_facts x LEFT JOIN hand_notes n ON n.hand_id = x.hand_id {pot_join}
        WHERE {" AND ".join(conditions)}""", "*") + " LIMIT $limit"
    return _described(con, found, params | {"limit": limit}, order=latest_first("f"))


def pot_units(con: duckdb.DuckDBPyConnection, f: HandFilter) -> list[str]:
    """The units the pots of the hands matching ``f`` count in (a currency their stakes
    declare, else ``chips``; Big Two's games have no pot), those of the most hands first:
    what :attr:`HandSearch.pot_unit` can be."""
    if f.game == "bigtwo":
        return []
    cond, params = hand_facts_where(f)
    # The unit read from each distinct stakes label, not from every hand (a fifth of the
    # CPU over a million hands).
    found = query_frame(con, f"""
        WITH labels AS (SELECT x.stakes, count(*) AS hands FROM hand_facts x
                        WHERE {cond} AND x.game <> 'bigtwo' GROUP BY x.stakes)
        SELECT {unit_sql('stakes')} AS unit, sum(hands) AS hands FROM labels
        GROUP BY unit ORDER BY hands DESC, unit""", params)
    return [str(unit) for unit in found["unit"]]


def describe_hands(con: duckdb.DuckDBPyConnection, hand_ids: Sequence[int]) -> pd.DataFrame:
    """The hands ``hand_ids`` as :func:`search_hands` lists them (the same columns), in the
    order given: how the lists of hands behind a statistic, a session, a point or a bar
    show them (the latest first, or a player's hands in order of play)."""
    found = """
        SELECT x.hand_id, x.game, x.day, x.session, x.players, x.stakes, n.starred, n.tags,
               t.played_time
        FROM hand_facts x JOIN hands t ON t.hand_id = x.hand_id
        LEFT JOIN hand_notes n ON n.hand_id = x.hand_id
        WHERE list_contains($hand_ids, x.hand_id)"""
    return _described(con, found, {"hand_ids": [int(h) for h in hand_ids]},
                      order="list_position($hand_ids, f.hand_id)")


_UNIT: Final = f"CASE WHEN f.game = 'bigtwo' THEN 'points' ELSE {unit_sql('f.stakes')} END"
"""A listed hand's unit, its pot's and its nets': Big Two's points, else the currency its
stakes declare, else chips."""


def _described(con: duckdb.DuckDBPyConnection, found: str, params: dict[str, object], *,
               order: str) -> pd.DataFrame:
    """The rows of a list of hands: ``found`` (SQL of hand_facts rows with their notes and
    the hand's ``played_time``) with the players, the pot, the star and tags, the hex id
    and the replayer's link, in the ``order`` (SQL over ``found f``) the caller gives."""
    sql = f"""
        WITH found AS ({found})
        SELECT f.hand_id, f.game, f.day, f.played_time AS time, f.session,
               array_to_string(f.players, ', ') AS players,
               (SELECT sum(won) FROM seats s WHERE s.hand_id = f.hand_id) AS pot,
               {_UNIT} AS unit,
               coalesce(f.starred, FALSE) AS starred, coalesce(f.tags, []) AS tags
        FROM found f ORDER BY {order}
    """
    rows = query_frame(con, sql, params)
    ids = [hand_id_hex(int(value)) for value in rows["hand_id"]]
    rows.insert(1, "id", ids)
    rows["replay"] = [f"replayer?hand={hand}" for hand in ids]
    return rows
