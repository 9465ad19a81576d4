"""``handlab equity GAME CARDS...``: equity and hand strength from the command line.

Examples::

    handlab equity seveneight 7c8c AsKs                 # observer, round 1: exact
    handlab equity seveneight 7c8c As?? 5d??            # p1's view: up cards and ??
    handlab equity seveneight 7c8c2d AsKsQh --street 2  # round 2, every card known
    handlab equity seveneight 7c8c AsKs --dead 9d9h --monte-carlo --samples 1000000
    handlab equity rummoli 2d3d4d4s6d6s8cTsJhQdKh --players 4
    handlab equity bigtwo 3d4c5h6s7d8c8d8h9s9cKdKc2s --players 4 --samples 200

Exit codes: 0 done, 2 bad input.
"""

from __future__ import annotations

from typing import Annotated, Final

import typer

from analytics.commands import (
    SEED_HELP,
    check_table_size,
    checked_seed,
    players_ranges,
    terminal,
)
from analytics.words import counted
from parsers.rule_options import Game

__all__ = ["DEFAULT_PLAYERS", "TABLE_GAMES", "equity"]

TABLE_GAMES: Final = (Game.RUMMOLI, Game.BIGTWO)
"""The games whose one hand is rated at a table of ``--players``."""
DEFAULT_PLAYERS: Final = 4

_out = terminal.console()
_err = terminal.console(stderr=True)


def equity(
    game: Annotated[Game, typer.Argument(help="seveneight, rummoli or bigtwo.")],
    hands: Annotated[list[str], typer.Argument(
        help="seveneight: one hand per player (7c8c, As?? for an unseen card, three cards in"
             " round 2); rummoli, bigtwo: the one hand to rate.")],
    dead: Annotated[str, typer.Option(
        "--dead", help="seveneight: cards out of play. rummoli: widow cards you know.")] = "",
    street: Annotated[int | None, typer.Option(
        "--street", min=1, max=2, help="seveneight: betting round (default: inferred).")] = None,
    players: Annotated[int | None, typer.Option(
        "--players", "-p", help=f"Players at the table: {players_ranges(*TABLE_GAMES)} "
        f"(default {DEFAULT_PLAYERS}); 7 & 8 has one per hand given.")] = None,
    exact: Annotated[bool, typer.Option(
        "--exact", help="seveneight, rummoli: enumerate, however long.")] = False,
    monte_carlo: Annotated[bool, typer.Option("--monte-carlo", help="Simulate.")] = False,
    samples: Annotated[int | None, typer.Option(
        "--samples", "-n", min=2, help="Monte Carlo samples / bot continuations.")] = None,
    seed: Annotated[int, typer.Option(
        "--seed", "-s", callback=checked_seed, help=SEED_HELP)] = 0,
) -> None:
    """Equity of a 7 & 8 spot, Rummoli poker strength, or Big Two deal strength."""
    from analytics.equity.seveneight import Method
    from analytics.evaluator import EvaluationError

    if exact and monte_carlo:
        _err.print(terminal.error("choose --exact or --monte-carlo, not both"))
        raise typer.Exit(2)
    _refuse_unused(game, dead=dead, street=street, players=players, exact=exact)
    table = DEFAULT_PLAYERS if players is None else players
    if game in TABLE_GAMES:
        check_table_size(game, table)
    method: Method = "exact" if exact else "monte_carlo" if monte_carlo else "auto"
    try:
        if game is Game.SEVENEIGHT:
            from analytics.equity.seveneight import DEFAULT_SAMPLES, seveneight_equity

            result = seveneight_equity(hands, dead=dead, street=street, method=method,
                                       samples=samples or DEFAULT_SAMPLES, seed=seed)
            _out.print(result.describe([f"p{i + 1} {h}" for i, h in enumerate(hands)]))
        elif game is Game.RUMMOLI:
            from analytics.equity.rummoli import RUMMOLI_SAMPLES, rummoli_strength

            _one_hand(hands)
            strength = rummoli_strength(hands[0], table, widow=dead, method=method,
                                        samples=samples or RUMMOLI_SAMPLES, seed=seed)
            how = (f"exact, {counted(strength.deals, 'deal')}" if strength.exact
                   else f"Monte Carlo, {counted(strength.deals, 'sample')}")
            _out.print(f"best at the table: {100 * strength.p_best:.3f}%"
                       f" +/- {100 * strength.std_error:.3f}%  (alone {100 * strength.p_win:.3f}%,"
                       f" pot share {100 * strength.share:.3f}%; {how})")
        else:
            from analytics.equity.bigtwo import (
                BIGTWO_SAMPLES,
                bigtwo_deal_strength,
                bigtwo_features,
            )

            _one_hand(hands)
            features = bigtwo_features(hands[0])
            first = bigtwo_deal_strength(hands[0], table, samples=samples or BIGTWO_SAMPLES,
                                         seed=seed)
            _out.print(f"goes out first: {100 * first.p_first:.1f}%"
                       f" +/- {100 * first.std_error:.1f}%"
                       f" ({counted(first.samples, 'continuation')}, {first.style} bots)")
            _out.print(f"2s {features.twos}, aces {features.aces}, pairs {features.pairs},"
                       f" triples {features.triples}, five-card plays {features.five_card}")
    except (EvaluationError, ValueError) as error:
        _err.print(terminal.error(str(error)))
        raise typer.Exit(2) from None


def _refuse_unused(game: Game, *, dead: str, street: int | None, players: int | None,
                   exact: bool) -> None:
    """A usage error for an option ``game`` has no use for: each was silently ignored (an
    ``--exact`` Big Two estimate was Monte Carlo all the same)."""
    if street is not None and game is not Game.SEVENEIGHT:
        raise typer.BadParameter("only 7 & 8 has betting rounds", param_hint="'--street'")
    if dead and game is Game.BIGTWO:
        raise typer.BadParameter("only 7 & 8 (cards out of play) and Rummoli (widow cards "
                                 "you know) take dead cards", param_hint="'--dead'")
    if exact and game is Game.BIGTWO:
        raise typer.BadParameter("a Big Two deal's strength is only estimated, by bot "
                                 "continuations (--samples of them)", param_hint="'--exact'")
    if players is not None and game is Game.SEVENEIGHT:
        raise typer.BadParameter("7 & 8 has one player per hand given",
                                 param_hint="'--players' / '-p'")


def _one_hand(hands: list[str]) -> None:
    if len(hands) != 1:
        raise ValueError(f"give the one hand to rate, not {len(hands)} (separate cards without"
                         " spaces: AsKd...)")
