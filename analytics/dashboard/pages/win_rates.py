"""Win rates: per player and game with confidence intervals, cumulative results, by position
and visible card (7 & 8), by place, cards left and deal strength (Big Two), by part and
best-hand share against strength (Rummoli).

One tab per game, only the shown one drawn (``tab`` in the URL); each tab draws one of its
parts at a time (``logic.WIN_RATE_VIEWS``, the shown one in the URL as ``view``,
``view_bigtwo`` or ``view_rummoli``): per player, running totals and by position in every
game, then the game's own (7 & 8 by the card turned up; Big Two the score keeper's summary,
places and cards left, deal strength; Rummoli where the chips came from and the poker pot
against strength), so a visit draws one to three charts, not up to nine.

Units never mix (docs/dashboard.md): 7 & 8 in big blinds per 100 hands (each stake's chips
divided by its own big blind) with a table of chips per hand per stake level; Big Two in
points per game under one scoring rule at a time, Rummoli in chips per round under one
stakes and ante at a time (a picker when the filters keep several)."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analytics.dashboard import charts, logic, ui
from analytics.dashboard.hand_list import bar_list, picked_bar, picked_point
from analytics.warehouse.sql import views
from analytics.warehouse.sql.equity_views import BIGTWO_FEATURES
from analytics.warehouse.sql.views import RANK_LEVEL, SPLIT_PARTS, HandFilter
from analytics.words import counted
from parsers.rule_options import GAME_NAMES

_RANKS = list("23456789TJQKA")
# The knob each game's results are counted under, beside the game (views.level_of's words).
_LEVEL_WORDS = {"bigtwo": "scoring rule", "rummoli": "stakes and ante"}
# A Big Two place bar's stack (logic.place_label's words) -> the grid's statistic counting it.
_PLACE_STATS = {**{logic.place_label(k): f"place_{k}" for k in (1, 2, 3, 4)},
                logic.NOT_OUT: "not_out"}
_CLICK_PLAYER = "Click a bar to list the hands behind it."
# The parts of the Big Two and Rummoli tabs that are theirs alone (logic.WIN_RATE_VIEWS).
_SCORE_KEEPER, _PLACES = logic.WIN_RATE_VIEWS["bigtwo"][3:5]
_CHIPS_SPLIT = logic.WIN_RATE_VIEWS["rummoli"][3]


def _bar_hands(only: HandFilter, game: str, *, key: str, title: str,
               player: str | None, stat: str | None = None, split: str | None = None,
               split_value: str | None = None) -> None:
    """The hands behind a clicked bar: ``stat_views.stat_hands`` under the chart's filter
    (``only``), the seats that count towards ``stat`` (every seat of the bar without one,
    listed with its net alone: a statistic's counts mean nothing there), listed as the
    search page lists them."""
    behind: pd.DataFrame = ui.ask("stat_hands", only, game=game, player=player, stat=stat,
                                  split=split, split_value=split_value)
    if stat is not None:
        behind = behind[behind["counted"] > 0]
    else:
        behind = behind.drop(columns=["counted", "opportunities"], errors="ignore")
    bar_list(behind, title=title, key=key, name=f"{game}-{key}-hands")


def render() -> None:
    """Draw the page: one tab per game in the filtered data, only the shown tab's questions
    asked (the tab is in the URL as ``tab``)."""
    ctx = ui.context()
    st.title("Win rates")
    st.caption("7 & 8 in big blinds per 100 hands, Big Two in points per game under one "
               "scoring rule, Rummoli in chips per round under one stakes and ante, with 95 % "
               "confidence intervals: mean ± 1.96·sd/√n (a win fraction's: Wilson's).")
    results: pd.DataFrame = ui.ask("results_by_level")
    games = [g for g in ("seveneight", "bigtwo", "rummoli") if g in set(results["game"])]
    if not games:
        st.info("No hands match the filters.")
        return
    def draw(game: str) -> None:
        only = replace(ctx.filter, game=game)
        if game == "seveneight":
            _seveneight(results, only)
        else:
            _by_level(game, results, only)

    ui.shown_tab(games, [GAME_NAMES[g] for g in games], draw, key="tab")


def _cumulative(game: str, only: HandFilter, totals: pd.DataFrame, unit: str) -> None:
    """The running totals of the players chosen in a picker (at first the most active, and
    the biggest winner and loser), the title saying how many of how many."""
    names = sorted(str(p) for p in totals["player"])
    # One picker per scoring rule or stakes and ante: another's players are not this one's.
    level = "".join(f"_{knob}={value}" for knob, value in [*only.knobs, ("stakes", only.stakes)]
                    if value)
    chosen = st.multiselect("Players in the running totals", names,
                            default=logic.default_players(totals),
                            key=f"cum_players_{game}{level}")
    if not chosen:
        st.info("Choose players to draw their running totals.")
        return
    curves = ui.ask("results_over_time", replace(only, players=tuple(chosen)), game=game,
                    top=len(chosen), whole_round=True)
    ui.plotly_chart(charts.cumulative(curves, unit=unit, of=len(names),
                                      per=logic.PER[game]), key=f"cum_{game}")


def _seveneight(results: pd.DataFrame, only: HandFilter) -> None:
    """7 & 8, the part chosen in the tab's picker: big blinds per 100 hands per player with
    chips per stake level, running totals in big blinds with the all-in table, by position,
    or by the card turned up."""
    players, running, position, _ = logic.SEVENEIGHT_VIEWS
    view = _view("seveneight")
    rates = logic.seveneight_big_blinds(results)
    if view == players:
        _seveneight_players(results, rates, only)
    elif view == running:
        _seveneight_running(rates, only)
    elif view == position:
        _seveneight_position(only)
    else:
        _seveneight_up_card(only)


def _view(game: str) -> str:
    """The part of ``game``'s tab to draw (in the URL as ``view`` for 7 & 8, as links made
    before the other tabs had parts name it, ``view_<game>`` else)."""
    key = "view" if game == "seveneight" else f"view_{game}"
    return ui.shown_part(logic.WIN_RATE_VIEWS[game], key=key)


def _seveneight_players(results: pd.DataFrame, rates: pd.DataFrame, only: HandFilter) -> None:
    """Big blinds per 100 hands per player (chart and table; a bar lists his hands) and
    chips per stake level."""
    chosen = ui.plotly_chart(charts.bar_with_ci(
        rates, x="player", mean="bb_per_100",
        title="Win rate per player (big blinds per 100 hands)",
        y_title="big blinds per 100 hands"), key="ci_seveneight", on_select="rerun",
        selection_mode="points")
    st.caption(_CLICK_PLAYER)
    point = picked_point(chosen)
    if point is not None:
        _bar_hands(only, "seveneight", key="players_seveneight", title=str(point["x"]),
                   player=str(point["x"]))
    rates_table = logic.human_table(rates, logic.BB_HEADERS)
    ui.dataframe(rates_table, hide_index=True)
    ui.download_buttons(rates_table, "seveneight-win-rates", key="win_rates_seveneight")
    st.caption("A big blind is the stake's minimum bet (the small bet in fixed limit): each "
               "stake's chips are divided by its own big blind before they are added.")
    levels = logic.level_table(results, "seveneight")
    with st.expander("Result per hand at each stake level"):
        ui.dataframe(levels, hide_index=True)
        ui.download_buttons(levels, "seveneight-by-stakes", key="levels_seveneight")


def _seveneight_running(rates: pd.DataFrame, only: HandFilter) -> None:
    """The running totals in big blinds (all-in adjusted lines dashed) and the all-in
    table."""
    _cumulative("seveneight", only, rates[["player", "hands", "net_bb"]].rename(
        columns={"net_bb": "net"}), "big blinds")
    st.caption("Dashed: the all-in adjusted line. In a hand all in with cards to come it "
               "counts the expected result (equity × pots, computed on ingest) instead of the "
               "actual one; luck = actual − expected.")
    allin = logic.human_table(logic.allin_table(ui.ask("allin_totals", by_level=True)),
                              logic.ALLIN_HEADERS)
    ui.dataframe(allin, hide_index=True)
    ui.download_buttons(allin, "seveneight-allin", key="allin")


def _seveneight_position(only: HandFilter) -> None:
    """Big blinds per 100 hands by position, per table size."""
    by_seat = logic.in_big_blinds(ui.ask("by_position", only, by_level=True),
                                  ["players", "position"])
    _position_bars(charts.bar_with_ci(by_seat.assign(players=by_seat["players"].astype(str)),
                                      x="position", color="players", mean="bb_per_100",
                                      title="By position (colour: players at the table)",
                                      x_title=logic.POSITION_WORDS["seveneight"],
                                      y_title="big blinds per 100 hands"),
                   only, "seveneight", key="pos_seveneight")
    ui.download_buttons(logic.human_table(by_seat, logic.POSITION_BB_HEADERS),
                        "seveneight-positions", key="pos_seveneight")


def _position_bars(figure: go.Figure, only: HandFilter, game: str, *, key: str) -> None:
    """A chart of results by position (x: the position, colour: players at the table); a
    bar lists every seat of that position at tables of that size (``views.bar_hands`` over
    the seats ``views.by_position`` counts)."""
    chosen = ui.plotly_chart(figure, key=key, on_select="rerun", selection_mode="points")
    st.caption(_CLICK_PLAYER)
    bar = picked_bar(figure, chosen)
    if bar is not None:
        behind: pd.DataFrame = ui.ask("bar_hands", only, source="seat_facts", game=game,
                                      bar=(("players", int(bar.name)),
                                           ("position", int(bar.x))))
        bar_list(behind, title=f"Position {bar.x} at {bar.name}-player tables", key=key,
                 name=f"{game}-position-{bar.x}-of-{bar.name}-hands")


def _seveneight_up_card(only: HandFilter) -> None:
    """Big blinds per 100 hands by the rank of the card a player turned up, 2 to A (a bar
    lists the hands where a player turned up that rank)."""
    cards = logic.up_card_table(ui.ask("by_up_card", by_level=True))
    chosen = ui.plotly_chart(charts.bar_with_ci(cards, x="up_rank", mean="bb_per_100",
                                                title="By the card turned up",
                                                x_title="rank turned up", x_order=_RANKS,
                                                y_title="big blinds per 100 hands"),
                             key="up_card", on_select="rerun", selection_mode="points")
    st.caption(_CLICK_PLAYER)
    point = picked_point(chosen)
    if point is not None:
        rank = str(point["x"])
        _bar_hands(only, "seveneight", key="up_card", title=f"{rank} turned up",
                   player=None, split="up_rank", split_value=rank)
    ui.download_buttons(logic.human_table(cards, logic.UP_CARD_HEADERS),
                        "seveneight-up-card", key="up_card")


def _by_level(game: str, results: pd.DataFrame, only: HandFilter) -> None:
    """Big Two or Rummoli, the part picked, under one scoring rule or ante (a picker when
    there are several): every chart and table of the part is of that level's games alone.
    The score keeper's summary scores every Big Two game that counts cards left alike
    (zero-sum from the cards left), so it reads every rule's games and has no such picker."""
    players, running, position = logic.WIN_RATE_VIEWS[game][:3]
    view = _view(game)
    if view == _SCORE_KEEPER:
        _score_keeper(int(ui.ask("outcome_only_games", only)), only)
        return
    words = _LEVEL_WORDS[game]
    rows = results[results["game"] == game]
    levels = logic.game_levels(results, game)
    level = levels[0]
    if len(levels) > 1:
        level = st.selectbox(f"Results under the {words}", levels, key=f"level_{game}",
                             format_func=logic.level_value,
                             help=f"Points (chips) under one {words} are not those of another: "
                                  "each is shown on its own. Under rank scoring (finishing "
                                  "order) no points change hands: its results are games "
                                  "won.") or levels[0]
    narrowed = views.level_filter(only, game, level)
    unit, mean = logic.level_unit(game, level)
    at_level = rows[rows["level"] == level].assign(game=game)
    if view == players:
        _level_players(game, logic.level_results(at_level, game),
                       logic.level_table(at_level, game), narrowed, logic.level_words(level),
                       mean)
    elif view == running:
        totals = logic.level_results(at_level, game)[["player", "hands", "net"]]
        _cumulative(game, narrowed, totals, unit)
    elif view == position:
        _level_position(game, narrowed, level)
    elif game == "bigtwo":
        _bigtwo(view, narrowed, level)
    else:
        _rummoli(view, narrowed)


def _level_players(game: str, table: pd.DataFrame, shown: pd.DataFrame, only: HandFilter,
                   level: str, unit: str) -> None:
    """Big Two's or Rummoli's results per player under one level (``level`` in words): the
    chart (a bar lists his hands) and the table."""
    chosen = ui.plotly_chart(charts.bar_with_ci(table, x="player",
                                                title=f"Win rate per player ({level})",
                                                y_title=unit, per=f"{logic.PER[game]}s"),
                             key=f"ci_{game}", on_select="rerun", selection_mode="points")
    st.caption(_CLICK_PLAYER)
    point = picked_point(chosen)
    if point is not None:
        _bar_hands(only, game, key=f"players_{game}", title=f"{point['x']} ({level})",
                   player=str(point["x"]))
    ui.dataframe(shown, hide_index=True)
    ui.download_buttons(shown, f"{game}-win-rates", key=f"win_rates_{game}")


def _level_position(game: str, only: HandFilter, level: str) -> None:
    """Big Two's or Rummoli's results by position under one level, per table size."""
    by_seat = logic.with_confidence(ui.ask("by_position", only),
                                    fraction=level == RANK_LEVEL)
    by_seat = by_seat[by_seat["game"] == game]
    _position_bars(charts.bar_with_ci(by_seat.assign(players=by_seat["players"].astype(str)),
                                      x="position", color="players",
                                      title="By position (colour: players at the table)",
                                      x_title=logic.POSITION_WORDS[game],
                                      y_title=logic.level_unit(game, level)[1],
                                      per=f"{logic.PER[game]}s"),
                   only, game, key=f"pos_{game}")
    ui.download_buttons(logic.human_table(by_seat, logic.position_headers(game, level)),
                        f"{game}-positions", key=f"pos_{game}")


def _bigtwo(view: str, only: HandFilter, level: str) -> None:
    """Big Two's own parts under one scoring rule (``only``, ``level``): places and cards
    left, or deal strength (the score keeper's summary is drawn by :func:`_by_level`)."""
    if view == _PLACES:
        _places(only, level)
    else:
        _deal_strength(only, level)


def _places(only: HandFilter, level: str) -> None:
    """Games by finishing place per player (a bar lists its games), and the cards left."""
    places = logic.bigtwo_place_table(ui.ask("bigtwo_places", only))
    figure = charts.places(places, logic.places_title(level))
    chosen = ui.plotly_chart(figure, key="places", on_select="rerun", selection_mode="points")
    bar = picked_bar(figure, chosen)
    if bar is not None:
        _bar_hands(only, "bigtwo", key="places", title=f"{bar.x}, {bar.name}",
                   player=bar.x, stat=_PLACE_STATS[bar.name])
    st.caption(f"Every game counts once per player. {logic.places_words(level)} "
               f"{_CLICK_PLAYER}")
    place_table = logic.human_table(places, logic.PLACE_HEADERS)
    ui.dataframe(place_table, hide_index=True)
    ui.download_buttons(place_table, "bigtwo-places", key="places")
    left: pd.DataFrame = ui.ask("bigtwo_cards_left", only)
    if left.empty:  # finishing order: every game is played out to its last player
        st.caption("No cards left to count: scored by finishing order, every game is played "
                   "on until one player is left holding his cards.")
        return
    ui.plotly_chart(charts.cards_left(left), key="cards_left")
    ui.download_buttons(logic.human_table(left, logic.CARDS_LEFT_HEADERS),
                        "bigtwo-cards-left", key="cards_left")


def _deal_strength(only: HandFilter, level: str) -> None:
    """Points per game (under rank scoring the win fraction) by a feature of the deal
    (picked), per player; a bar lists its games."""
    sheets = int(ui.ask("outcome_only_games", only))
    names = {name: words for name, (_, words) in BIGTWO_FEATURES.items()}
    feature = st.selectbox("Deal feature", list(names), format_func=names.__getitem__,
                           key="bigtwo_feature") or "twos"
    table = logic.feature_table(ui.ask("bigtwo_feature_results", only, feature=feature), level)
    mean = logic.level_unit("bigtwo", level)[1]
    figure = charts.bar_with_ci(table, x="bin", color="player",
                                title=f"{mean.capitalize()} by {names[feature]}",
                                x_title=names[feature], y_title=mean, per="games")
    chosen = ui.plotly_chart(figure, key="bigtwo_feature_chart", on_select="rerun",
                             selection_mode="points")
    st.caption("The features are counted from each player's dealt cards when the game is "
               "loaded (docs/schema.md). Bars: mean ± 95 % CI. "
               + _CLICK_PLAYER + _without_sheets(sheets, "deal"))
    bar = picked_bar(figure, chosen)
    if bar is not None:
        behind: pd.DataFrame = ui.ask("bigtwo_feature_hands", only, feature=feature,
                                      player=bar.name, bin=bar.x)
        bar_list(behind, title=f"{bar.name}, {names[feature]}: {bar.x}",
                 key="bigtwo_feature", name=f"bigtwo-{feature}-{bar.x}-hands")
    shown = logic.human_table(table, logic.feature_headers(names[feature], level))
    ui.dataframe(shown, hide_index=True)
    ui.download_buttons(shown, f"bigtwo-by-{feature}", key="bigtwo_feature")


def _without_sheets(sheets: int, what: str) -> str:
    """The caption's note on the outcome-only games a statistic cannot count."""
    if not sheets:
        return ""
    return (f" {counted(sheets, 'outcome-only game')} (score sheets) record no {what} "
            "and are left out here, not counted as zeros.")


def _score_keeper(sheets: int, only: HandFilter) -> None:
    """The score keeper's summary (analytics.warehouse.sql.scores): per player games, wins,
    fries, real losses and zero-sum net score, their per-game values, regular players
    marked; three scatter plots against real losses per game, the net score's with the
    theoretical line."""
    st.subheader("Score keeper's summary")
    summary: pd.DataFrame = ui.ask("bigtwo_score_summary", only)
    if summary.empty:
        st.info("No Big Two games scored by cards left match the filters.")
        return
    table = logic.score_keeper_table(summary)
    ui.dataframe(table, hide_index=True, column_config={  # "to 4 decimals", 0.3100 too
        logic.SCORE_KEEPER_HEADERS[name]: st.column_config.NumberColumn(format="%.4f")
        for name in ("win_fraction", "fry_fraction", "real_losses_per_game",
                     "net_score_per_game")})
    line = logic.zero_sum_line(summary, ui.ask("seats_per_game", only))
    st.caption("Real loss: the cards left, doubled when fried (the fry threshold or more "
               "left: 10 unless the house rule fry_threshold says otherwise), tripled with "
               "13; net score: zero-sum, every player pays his real loss to every other "
               "(scores sum to 0). Regular (✓): at least a quarter of all games. Played "
               "games and score sheets count alike; "
               + logic.SCORE_KEEPER_NOTE.removesuffix(".")
               + (f"; {sheets:,} of the games are outcome-only (score sheets)." if sheets
                  else ".") + " " + logic.TABLE_ROW_NOTE
               + " Fractions and per-game values to 4 decimals.")
    ui.download_buttons(table, "bigtwo-score-keeper", key="score_keeper")
    columns = st.columns(3)
    for column, y in zip(columns, charts.SCORE_AXES, strict=True):
        with column:
            ui.plotly_chart(charts.score_scatter(summary, y, line), key=f"score_{y}")
    if line is not None:
        st.caption(logic.zero_sum_words(line))


def _rummoli(view: str, only: HandFilter) -> None:
    """Rummoli's own parts under one stakes and ante (``only``): where the chips came from, and
    the best hand against strength."""
    if view == _CHIPS_SPLIT:
        _split(only)
    else:
        _poker_pot(only)


def _split(only: HandFilter) -> None:
    """Chips per round by where they came from, per player."""
    split = logic.split_table(ui.ask("rummoli_split", only), list(SPLIT_PARTS))
    unit = logic.filter_unit(only)  # the level's currency, or chips
    ui.plotly_chart(charts.split_bars(split, list(SPLIT_PARTS), unit), key="split")
    st.caption(logic.split_words(SPLIT_PARTS, unit))
    split_table = logic.human_table(split, logic.split_headers(list(SPLIT_PARTS), unit))
    ui.dataframe(split_table, hide_index=True)
    ui.download_buttons(split_table, "rummoli-split", key="split")


def _poker_pot(only: HandFilter) -> None:
    """The best-hand share (the poker pot's share at a showdown of every hand) realised
    against expected from strength, per player and in bins of expected share."""
    st.subheader("Best poker hand: realised against expected from strength")
    shares = logic.share_vs_expected(ui.ask("rummoli_share_by_player", only))
    ui.plotly_chart(charts.share_vs_expected(shares), key="rummoli_share")
    st.caption("The best-hand share is the poker pot's share a player's hand would take if "
               "every hand showed down (1 for the best, 1/k in a k-way tie), folded or not: "
               "it measures the strength estimate, not the pots won (those are the table's "
               "'poker pots won'). Expected: judged from the player's own cards when "
               "loaded; realised: on everyone's actual cards. The interval is realised − "
               "expected ± 1.96·sd/√rounds: one that leaves out 0 is more than the luck of "
               "the deal.")
    shown = logic.human_table(shares, logic.SHARE_HEADERS, decimals=3)
    ui.dataframe(shown, hide_index=True)
    ui.download_buttons(shown, "rummoli-poker-share", key="rummoli_share")
    calibration = logic.calibration_table(ui.ask("rummoli_calibration", only))
    ui.plotly_chart(charts.calibration(calibration), key="rummoli_calibration")
    st.caption("Rounds in ten bins of expected share: a calibrated strength estimate puts "
               "every bin's realised share on the diagonal (within its interval).")
    shown = logic.human_table(calibration, logic.CALIBRATION_HEADERS, decimals=3)
    ui.dataframe(shown, hide_index=True)
    ui.download_buttons(shown, "rummoli-calibration", key="rummoli_calibration")


render()
