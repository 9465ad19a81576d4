"""Rummoli simulator: every round replays, round-trips and continues its game's board."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.rules.rummoli.engine import check_board_continuity, replay
from analytics.simulate.rummoli import NAMES, simulate_rummoli
from parsers import RUMMOLI_POTS, HandHistory, dumps_hands, loads_hands


@settings(max_examples=12, deadline=None)
@given(
    players=st.integers(2, 8),
    seed=st.integers(0, 10_000),
    variant=st.sampled_from(["NRM", "PRM", "FRM"]),
    claim=st.sampled_from(["auto", "manual"]),
    finale=st.sampled_from(["single", "per_pot", "none"]),
    ante=st.integers(0, 2),
)
def test_simulated_rounds_replay_and_round_trip(players: int, seed: int, variant: str,
                                                claim: str, finale: str, ante: int) -> None:
    hands = list(simulate_rummoli(14, players, seed, variant=variant, claim=claim,
                                  finale=finale, ante=ante, rounds_per_game=4,
                                  starting_stack=25))
    assert len(hands) == 14
    back = loads_hands(dumps_hands(hands))
    assert back == hands
    for previous, hand in itertools.pairwise(back):
        outcome = replay(hand)
        assert outcome.finishing_stacks == hand.finishing_stacks
        if previous.game_id == hand.game_id:
            check_board_continuity(previous, hand)
        else:
            assert hand.round == 1 and hand.board_before is None
    assert replay(back[0]).finishing_stacks == back[0].finishing_stacks


def test_same_seed_same_session_and_different_seed_differs() -> None:
    first = list(simulate_rummoli(10, 5, 42))
    assert first == list(simulate_rummoli(10, 5, 42))
    assert first != list(simulate_rummoli(10, 5, 43))


def test_games_rotate_the_deal_carry_stacks_and_end_with_the_finale() -> None:
    hands = list(simulate_rummoli(20, 4, 9, rounds_per_game=6))
    assert sum(1 for h in hands if h.finale_pot == "all") >= 2
    games: dict[str, list[int]] = {}
    for hand in hands:
        assert hand.game_id is not None and hand.round is not None
        games.setdefault(hand.game_id, []).append(hand.round)
    for rounds in games.values():
        assert rounds == list(range(1, len(rounds) + 1))
    for previous, hand in itertools.pairwise(hands):
        if previous.game_id != hand.game_id:
            # A game closes with its finale, unless busts left fewer than two players.
            assert previous.finishing_stacks is not None
            solvent = sum(1 for stack in previous.finishing_stacks if stack > 0)
            assert previous.finale_pot == "all" or solvent < 2
            continue
        assert previous.finishing_stacks is not None and previous.seats is not None
        assert hand.seats is not None and hand.starting_stacks is not None
        carried = {seat: stack for seat, stack in
                   zip(previous.seats, previous.finishing_stacks, strict=True) if stack > 0}
        assert dict(zip(hand.seats, hand.starting_stacks, strict=True)) == carried
        # The deal passes clockwise to the next seated player.
        assert previous.dealer is not None and hand.dealer is not None
        old_seat = previous.seats[previous.dealer - 1]
        new_seat = hand.seats[hand.dealer - 1]
        later = [s for s in hand.seats if s > old_seat]
        assert new_seat == (later[0] if later else hand.seats[0])
        assert hand.players is not None and set(hand.players) <= set(NAMES)
        assert (hand.year, hand.month, hand.day) >= (previous.year, previous.month, previous.day)


def test_broke_players_sit_out() -> None:
    shrunk = [h for h in simulate_rummoli(60, 6, 1, starting_stack=12, rounds_per_game=20)
              if h.seat_count is not None and h.num_players < h.seat_count]
    assert shrunk
    for hand in shrunk:
        assert hand.starting_stacks is not None and min(hand.starting_stacks) > 0


def test_per_pot_finale_plays_smallest_pots_first() -> None:
    hands = list(simulate_rummoli(40, 3, 4, finale="per_pot", rounds_per_game=5))
    finales = [h for h in hands if h.finale_pot is not None]
    assert finales
    for hand in finales:
        assert hand.board_before is not None and hand.finale_pot is not None
        chips = hand.board_before[RUMMOLI_POTS.index(hand.finale_pot)]
        assert chips == min(c for c in hand.board_before if c)
        assert not any(a.verb.value == "pl" for a in hand.actions)


def test_unknown_options_are_refused() -> None:
    with pytest.raises(TypeError):
        list(simulate_rummoli(1, 3, 0, colour="red"))
    with pytest.raises(ValueError, match="variant"):
        list(simulate_rummoli(1, 3, 0, variant="N78"))
    with pytest.raises(ValueError, match="2 to 8"):
        list(simulate_rummoli(1, 9, 0))


def _cut_short_finales(hands: list[HandHistory]) -> int:
    """Games whose per_pot finale stopped with chips still on the board because one player
    held every other chip (the case that crashed the simulator)."""
    cut = 0
    for position, hand in enumerate(hands):
        following = hands[position + 1] if position + 1 < len(hands) else None
        # The session's last round may be cut by the budget, not by the game's end.
        if following is None or following.game_id == hand.game_id or hand.finale_pot is None:
            continue
        board = replay(hand).board_after
        assert hand.finishing_stacks is not None and board is not None
        if any(board) and sum(stack > 0 for stack in hand.finishing_stacks) == 1:
            cut += 1
    return cut


@pytest.mark.slow
def test_per_pot_finale_ends_the_game_when_one_player_holds_every_chip() -> None:
    # Short stacks make a game's finale pots worth more than the stacks: in many of these
    # seeds a finale round leaves one player with every chip off the board.  The game is
    # over there (docs/rules-rummoli.md); the session goes on with the next game.
    cut = 0
    for seed in range(60):
        hands = list(simulate_rummoli(30, 3, seed, finale="per_pot", rounds_per_game=3,
                                      starting_stack=20))
        assert len(hands) == 30
        for hand in hands:
            assert hand.num_players >= 2
        cut += _cut_short_finales(hands)
    assert cut >= 3, cut  # the case happened, and was handled


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(0, 1_000_000),
       stack=st.integers(5, 60), rounds=st.integers(1, 10))
def test_per_pot_sessions_never_seat_fewer_than_two(players: int, seed: int, stack: int,
                                                    rounds: int) -> None:
    hands = list(simulate_rummoli(25, players, seed, finale="per_pot",
                                  rounds_per_game=rounds, starting_stack=stack))
    assert len(hands) == 25
    assert all(hand.num_players >= 2 for hand in hands)
