"""Win rates: per player and game with confidence intervals, cumulative results, by position
and visible card (7 & 8), by place, cards left and deal strength (Big Two), by part and
poker-pot share against strength (Rummoli)."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from analytics.dashboard import charts, logic, ui
from analytics.warehouse.equity_views import BIGTWO_FEATURES
from analytics.warehouse.views import SPLIT_PARTS, HandFilter

_UNITS = {"bigtwo": "points", "rummoli": "chips", "seveneight": "chips"}
_NAMES = {"seveneight": "7 & 8", "bigtwo": "Big Two", "rummoli": "Rummoli"}


def render() -> None:
    """Draw the page: one tab per game in the filtered data, only the shown tab's questions
    asked (the tab is in the URL as ``tab``)."""
    ctx = ui.context()
    st.title("Win rates")
    st.caption("Mean result per hand (7 & 8), game (Big Two, points) or round (Rummoli) with "
               "95 % confidence intervals: mean ± 1.96·sd/√n.")
    results = logic.with_confidence(ui.ask("player_results"))
    games = [g for g in ("seveneight", "bigtwo", "rummoli") if g in set(results["game"])]
    if not games:
        st.info("No hands match the filters.")
        return
    ui.download_buttons(results, "win-rates", key="win_rates")
    # Tabs that track the shown one (bound to the URL) run only its questions: plain tabs
    # draw every game's charts on every run, three times the work over a million hands.
    tabs = st.tabs([_NAMES[g] for g in games], key="tab", bind="query-params")
    for tab, game in zip(tabs, games, strict=True):
        if tab.open is False:
            continue
        with tab:
            _game(game, results[results["game"] == game],
                  replace(ctx.filter, game=game))


def _game(game: str, rows: pd.DataFrame, only: HandFilter) -> None:
    """One game's tab: win rates, running results, by position, the game's own charts.
    ``only`` is the filter narrowed to the game, for questions that span every game."""
    st.plotly_chart(charts.bar_with_ci(rows, x="player", title="Win rate per player",
                                       y_title=f"mean {_UNITS[game]} per hand"),
                    key=f"ci_{game}")
    st.dataframe(rows, hide_index=True)
    st.plotly_chart(charts.cumulative(ui.ask("cumulative_net", game=game),
                                      unit=_UNITS[game]), key=f"cum_{game}")
    if game == "seveneight":
        st.caption("Dashed: the all-in adjusted line. In a hand all in with cards "
                   "to come it counts the expected result (equity × pots, computed "
                   "on ingest) instead of the actual one; luck = actual − expected.")
        allin = logic.allin_table(ui.ask("allin_totals"))
        st.dataframe(allin, hide_index=True)
        ui.download_buttons(allin, "seveneight-allin", key="allin")
    by_seat = logic.with_confidence(ui.ask("by_position", only))
    st.plotly_chart(charts.bar_with_ci(by_seat, x="position", color="players",
                                       title="By position (colour: players at the "
                                             "table)"),
                    key=f"pos_{game}")
    ui.download_buttons(by_seat, f"{game}-positions", key=f"pos_{game}")
    if game == "seveneight":
        _seveneight()
    elif game == "bigtwo":
        _bigtwo()
    else:
        _rummoli()


def _seveneight() -> None:
    cards = logic.with_confidence(ui.ask("by_up_card"))
    order = {rank: i for i, rank in enumerate("23456789TJQKA")}
    cards = cards.sort_values("up_rank", key=lambda s: s.map(order))
    st.plotly_chart(charts.bar_with_ci(cards, x="up_rank", title="By the card turned up"),
                    key="up_card")
    ui.download_buttons(cards, "seveneight-up-card", key="up_card")


def _bigtwo() -> None:
    sheets = int(ui.ask("outcome_only_games"))
    _score_keeper(sheets)
    st.subheader("Places and cards left")
    places: pd.DataFrame = ui.ask("bigtwo_places")
    places = places.assign(place=places["place"].astype("Int64").astype(str)
                           .replace("<NA>", "not out"))
    st.plotly_chart(charts.grouped_bars(places, x="player", y="games", color="place",
                                        title="Games by finishing place", barmode="stack"),
                    key="places")
    st.dataframe(places, hide_index=True)
    ui.download_buttons(places, "bigtwo-places", key="places")
    left: pd.DataFrame = ui.ask("bigtwo_cards_left")
    st.plotly_chart(charts.cards_left(left), key="cards_left")
    ui.download_buttons(left, "bigtwo-cards-left", key="cards_left")

    st.subheader("Result by deal strength")
    names = {name: words for name, (_, words) in BIGTWO_FEATURES.items()}
    feature = st.selectbox("Deal feature", list(names), format_func=names.__getitem__,
                           key="bigtwo_feature") or "twos"
    table = logic.feature_table(ui.ask("bigtwo_feature_results", feature=feature))
    st.plotly_chart(charts.bar_with_ci(table, x="bin", color="player",
                                       title=f"Score per game by {names[feature]}",
                                       y_title="mean points per game"),
                    key="bigtwo_feature_chart")
    st.caption("The features are counted from each player's dealt cards when the game is "
               "loaded (docs/schema.md, bigtwo_features); first_share is the share of games "
               "he went out first. Bars: mean ± 95 % CI." + _without_sheets(sheets, "deal"))
    st.dataframe(table, hide_index=True)
    ui.download_buttons(table, f"bigtwo-by-{feature}", key="bigtwo_feature")


def _without_sheets(sheets: int, what: str) -> str:
    """The caption's note on the outcome-only games a statistic cannot count."""
    if not sheets:
        return ""
    return (f" {sheets:,} outcome-only game(s) (score sheets) record no {what} and are left "
            "out here, not counted as zeros.")


def _score_keeper(sheets: int) -> None:
    """The score keeper's summary (analytics.warehouse.scores): per player games, wins,
    fries, real losses and zero-sum net score, their per-game values, regular players
    marked; three scatter plots against real losses per game, the net score's with the
    theoretical line."""
    st.subheader("Score keeper's summary")
    summary: pd.DataFrame = ui.ask("bigtwo_score_summary")
    if summary.empty:
        st.info("No Big Two games scored by cards left match the filters.")
        return
    table = logic.score_keeper_table(summary)
    st.dataframe(table, hide_index=True)
    line = logic.zero_sum_line(summary, ui.ask("seats_per_game"))
    st.caption("Real loss: the cards left, doubled when fried (fry_threshold or more left, "
               "default 10), tripled with 13; net score: zero-sum, every player pays his real "
               "loss to every other (scores sum to 0). Regular (✓): at least a quarter of all "
               "games. Played games and score sheets count alike"
               + (f"; {sheets:,} of the games are outcome-only (score sheets)." if sheets
                  else ".") + " Fractions and per-game values to 4 decimals.")
    ui.download_buttons(table, "bigtwo-score-keeper", key="score_keeper")
    columns = st.columns(3)
    for column, y in zip(columns, charts.SCORE_AXES, strict=True):
        with column:
            st.plotly_chart(charts.score_scatter(summary, y, line), key=f"score_{y}")
    if line is not None:
        seats, average = line
        st.caption(f"Dashed: the theoretical net score per game s = {seats:g}(l* − l), with "
                   f"l* = {average:.4g} the average player's real losses per game and "
                   f"{seats:g} players per game (T − n·l with T = n·l*).")


def _rummoli() -> None:
    split = logic.split_table(ui.ask("rummoli_split"), list(SPLIT_PARTS))
    st.plotly_chart(charts.split_bars(split, list(SPLIT_PARTS)), key="split")
    st.caption("Chips per round from the poker pot, the pay-card pots, the Rummoli pot, the "
               "auction and the end-of-round payments; 'antes and bets' is what was paid in, "
               "so the parts add up to the net.")
    st.dataframe(split, hide_index=True)
    ui.download_buttons(split, "rummoli-split", key="split")

    st.subheader("Poker pot: realised against expected from strength")
    shares = logic.share_vs_expected(ui.ask("rummoli_share_by_player"))
    st.plotly_chart(charts.share_vs_expected(shares), key="rummoli_share")
    st.caption("Expected: each round's chance of holding the best poker hand at the table "
               "(ties shared), judged from the player's own cards when loaded; realised: the "
               "same on everyone's actual cards. The interval is realised − expected ± "
               "1.96·sd/√rounds: one that leaves out 0 is more than the luck of the deal.")
    st.dataframe(shares, hide_index=True)
    ui.download_buttons(shares, "rummoli-poker-share", key="rummoli_share")
    calibration = logic.calibration_table(ui.ask("rummoli_calibration"))
    st.plotly_chart(charts.calibration(calibration), key="rummoli_calibration")
    st.caption("Rounds in ten bins of expected share: a calibrated strength estimate puts "
               "every bin's realised share on the diagonal (within its interval).")
    st.dataframe(calibration, hide_index=True)
    ui.download_buttons(calibration, "rummoli-calibration", key="rummoli_calibration")


render()
