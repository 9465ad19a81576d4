"""The numba kernel of :func:`analytics.rules.seveneight.block.replay_block`: a straight-line
7 & 8 replay of the usual legal shapes over every hand of a block.

Importing this module imports numba; the kernel compiles on its first call and is cached
on disk next to this file when a cache directory is writable (see
:func:`analytics.evaluator.kernels.cached_jit`).  It runs on the calling thread only (no
``parallel=True``): the ingest forks its workers after loading it.

It plays the usual shapes (two cards each, one turned up, a betting round as
:class:`analytics.rules.betting.BettingRound` plays it, the third card, a second
round, the showdown) and settles as the full engine does
(:func:`analytics.rules.pots.settle`, side pots too); any other shape it declines, and the
engine (:func:`analytics.rules.seveneight.engine.replay`) then decides
(tests/test_rules_seveneight_block.py checks every accepted hand's outcome against it).
Where the engine would raise (a shown hand with a repeated card makes the evaluator raise,
a pot nobody contests) or where int64 could overflow (2**60 chips or more on the table, a
bet size of 2**62 or more: the pot-limit bound adds up to three times the chips), the
kernel declines too.
Constants that live in other modules (verb codes, ``CANNOT_ACT``, ``FIXED_LIMIT_MAX_BETS``)
are passed in as arguments, not read as globals: numba bakes globals into the cached
machine code, and its cache only watches this file.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from analytics.evaluator.kernels import cached_jit

# Indexes into the ``verb_codes`` argument (the block's code of each verb the replay reads).
_DEAL = 0
_BET_RAISE = 1
_CHECK_CALL = 2
_FOLD = 3
_SHOW = 4
_UP = 5

# Betting structures (``structures`` argument); -1 is not a 7 & 8 variant.
NO_LIMIT = 0
POT_LIMIT = 1
FIXED_LIMIT = 2

MAX_PLAYERS = 17


@cached_jit()
def _betting_round(actors: Any, verbs: Any, amounts: Any, index: int, end: int, stacks: Any,
                   committed: Any, in_hand: Any, faced: Any, order: Any, n: int,
                   structure: int, min_bet: int, pot: int, verb_codes: Any, cannot_act: int,
                   max_bets: int) -> int:
    """A betting round of the usual shape (each in turn checks, calls, folds, bets or raises
    as :class:`analytics.rules.betting.BettingRound` allows) on actions ``index:end`` of the
    block (the hand's last action is ``end - 1``): updates ``stacks``, ``committed`` and
    ``in_hand`` (first ``n`` entries); the index of the first action after the round, or -1
    (not a shape it plays)."""
    current = committed[0]
    for p in range(1, n):
        current = max(current, committed[p])
    last_raise = min_bet
    bets = 1 if current >= min_bet else 0
    # faced: the bet level each player last acted on, -1 before he acts, cannot_act once
    # he has folded or is all in.
    players_in = 0
    live = 0
    for p in range(n):
        if in_hand[p]:
            players_in += 1
        if in_hand[p] and stacks[p] > 0:
            faced[p] = -1
            live += 1
        else:
            faced[p] = cannot_act
    fixed = structure == FIXED_LIMIT
    pot_limit = structure == POT_LIMIT
    pos = n - 1  # scanning starts at order[0]
    while True:
        if players_in <= 1 or live == 0:
            return index
        if live == 1:
            last = -1
            for k in range(n):
                if in_hand[order[k]] and stacks[order[k]] > 0:
                    last = order[k]
                    break
            if last < 0:
                return -1  # cannot happen (live counts such players): decline, never guess
            if committed[last] >= current:
                return index
        player = -1
        for step in range(1, n + 1):
            at = (pos + step) % n
            if faced[order[at]] < current:
                pos = at
                player = order[at]
                break
        if player < 0:
            return index
        if index >= end:
            return -1
        if actors[index] - 1 != player:
            return -1
        verb = verbs[index]
        if verb == verb_codes[_CHECK_CALL]:
            paid = min(current - committed[player], stacks[player])
            stacks[player] -= paid
            committed[player] += paid
            if stacks[player]:
                faced[player] = current
            else:
                live -= 1
                faced[player] = cannot_act
        elif verb == verb_codes[_FOLD]:
            in_hand[player] = False
            players_in -= 1
            live -= 1
            faced[player] = cannot_act
        elif verb == verb_codes[_BET_RAISE]:
            amount = amounts[index]
            if amount < 0:  # no amount (-1)
                return -1
            reach = committed[player] + stacks[player]
            if amount <= current or reach <= current or amount > reach:
                return -1
            mark = faced[player]
            if mark >= 0 and current - mark < last_raise:
                return -1
            if fixed:
                if bets >= max_bets or amount != min(current + min_bet, reach):
                    return -1
            else:
                if amount < min(current + last_raise, reach):
                    return -1
                if pot_limit:
                    in_round = 0
                    for p in range(n):
                        in_round += committed[p]
                    if amount > current + max(pot + in_round + current - committed[player],
                                              last_raise):
                        return -1
            callable_ = False
            for k in range(n):
                other = order[k]
                if other != player and in_hand[other] and (
                        committed[other] + stacks[other] > current):
                    callable_ = True
                    break
            if not callable_:
                return -1
            stacks[player] -= amount - committed[player]
            committed[player] = amount
            if stacks[player]:
                faced[player] = amount
            else:
                live -= 1
                faced[player] = cannot_act
            if amount - current >= last_raise:
                last_raise = amount - current
                bets += 1
            current = amount
        else:
            return -1
        index += 1


@cached_jit()
def _same_cards(cards: Any, row: int, count: int, hole: Any, hole_count: int) -> bool:
    """Whether action ``row``'s ``count`` cards are the hole's cards as a multiset (the
    replay's ``sorted(map(id, cards)) == sorted(map(id, hole))``)."""
    if count != hole_count:
        return False
    for k in range(count):
        card = cards[row, k]
        shown = 0
        held = 0
        for j in range(count):
            if cards[row, j] == card:
                shown += 1
            if hole[j] == card:
                held += 1
        if shown != held:
            return False
    return True


@cached_jit()
def replay_hands(structures: Any, size1s: Any, size2s: Any, seat_offsets: Any, starting: Any,
                 antes: Any, blinds: Any, stated_finishing: Any, stated_winnings: Any,
                 action_offsets: Any, actors: Any, verbs: Any, targets: Any, amounts: Any,
                 card_counts: Any, cards: Any, values3: Any, categories3: Any,
                 verb_codes: Any, cannot_act: int, max_bets: int) -> Any:
    """The replay of every hand; see :class:`~analytics.rules.seveneight.block.BlockOutcome`
    for the outputs (``showdown_actions``: the action of each shown hand, whose card text is
    the showdown row's; ``showdown_categories``: category codes).

    ``structures``: per hand, the variant's structure (-1: not 7 & 8); ``size1s``/``size2s``:
    the bet size of rounds 1 and 2 (-1: none); ``values3``/``categories3``: the evaluator's
    value and category code of each ordered card triple (52, 52, 52).
    """
    hands = len(structures)
    seats = len(starting)
    accepted = np.zeros(hands, dtype=np.bool_)
    winners = np.full(hands, -1, dtype=np.int64)
    nets = np.zeros(seats, dtype=np.int64)
    won = np.zeros(seats, dtype=np.int64)
    refunds = np.zeros(seats, dtype=np.int64)
    contributions = np.zeros(seats, dtype=np.int64)
    finishing = np.zeros(seats, dtype=np.int64)
    award_offsets = np.zeros(hands + 1, dtype=np.int64)
    # Awards: one per seat for one pot; hands with side pots may need more (grown then).
    award_players = np.empty(seats, dtype=np.int64)
    award_amounts = np.empty(seats, dtype=np.int64)
    award_pots = np.empty(seats, dtype=np.int64)
    showdown_offsets = np.zeros(hands + 1, dtype=np.int64)
    showdown_players = np.empty(seats, dtype=np.int64)  # at most one row per seat
    showdown_actions = np.empty(seats, dtype=np.int64)
    showdown_ranks = np.empty(seats, dtype=np.int64)
    showdown_categories = np.empty(seats, dtype=np.int64)
    # Scratch, per hand.
    holes = np.full((MAX_PLAYERS, 3), -1, dtype=np.int64)
    hole_counts = np.zeros(MAX_PLAYERS, dtype=np.int64)
    marks = np.zeros(MAX_PLAYERS, dtype=np.bool_)
    stacks = np.zeros(MAX_PLAYERS, dtype=np.int64)
    committed = np.zeros(MAX_PLAYERS, dtype=np.int64)
    in_hand = np.zeros(MAX_PLAYERS, dtype=np.bool_)
    faced = np.zeros(MAX_PLAYERS, dtype=np.int64)
    shown_at = np.zeros(MAX_PLAYERS, dtype=np.int64)
    paid = np.zeros(MAX_PLAYERS, dtype=np.int64)
    hand_won = np.zeros(MAX_PLAYERS, dtype=np.int64)
    strengths = np.zeros(MAX_PLAYERS, dtype=np.int64)
    hand_refunds = np.zeros(MAX_PLAYERS, dtype=np.int64)
    winner_list = np.zeros(MAX_PLAYERS, dtype=np.int64)
    order1 = np.zeros(MAX_PLAYERS, dtype=np.int64)
    order2 = np.arange(MAX_PLAYERS).astype(np.int64)
    awards = 0
    shows = 0
    for h in range(hands):
        award_offsets[h + 1] = awards
        showdown_offsets[h + 1] = shows
        s0 = seat_offsets[h]
        n = seat_offsets[h + 1] - s0
        a0 = action_offsets[h]
        a1 = action_offsets[h + 1]
        structure = structures[h]
        size1 = size1s[h]
        size2 = size2s[h]
        # ---- the header
        if structure < 0 or size1 <= 0 or size2 <= 0 or not 2 <= n <= MAX_PLAYERS:
            continue
        if size1 >= cannot_act or size2 >= cannot_act:
            continue  # int64 sums could overflow (see the module); the engine has ints
        total = 0
        bad = False
        for p in range(n):
            stack = starting[s0 + p]
            if stack <= 0 or stack >= cannot_act or antes[s0 + p] < 0 or blinds[s0 + p] < 0:
                bad = True
                break
            total += stack
            if total >= cannot_act >> 2:
                bad = True
                break
        if bad:
            continue
        # ---- first deal and turn-ups
        if a1 - a0 < 2 * n:
            continue
        for p in range(n):
            marks[p] = False
        for k in range(n):
            row = a0 + k
            target = targets[row]
            if (verbs[row] != verb_codes[_DEAL] or not 0 < target <= n
                    or card_counts[row] != 2 or marks[target - 1]):
                bad = True
                break
            marks[target - 1] = True
            holes[target - 1, 0] = cards[row, 0]
            holes[target - 1, 1] = cards[row, 1]
            hole_counts[target - 1] = 2
        if bad:
            continue
        for p in range(n):
            marks[p] = False
        for k in range(n, 2 * n):
            row = a0 + k
            player = actors[row] - 1
            if (verbs[row] != verb_codes[_UP] or not 0 <= player < n or marks[player]
                    or card_counts[row] != 1):
                bad = True
                break
            card = cards[row, 0]
            # A block's cards are all known (no ??).
            if holes[player, 0] != card and holes[player, 1] != card:
                bad = True
                break
            marks[player] = True
        if bad:
            continue
        # ---- antes then blinds, each all in when short
        behind = 0
        for p in range(n):
            stack = starting[s0 + p] - min(antes[s0 + p], starting[s0 + p])
            posted = min(blinds[s0 + p], stack)
            stacks[p] = stack - posted
            committed[p] = posted
            in_hand[p] = True
            behind += stack
        if n == 2:
            order1[0] = 1
            order1[1] = 0
        else:
            for k in range(n - 2):
                order1[k] = k + 2
            order1[n - 2] = 0
            order1[n - 1] = 1
        index = _betting_round(actors, verbs, amounts, a0 + 2 * n, a1, stacks, committed,
                               in_hand, faced, order1, n, structure, size1, total - behind,
                               verb_codes, cannot_act, max_bets)
        if index < 0:
            continue
        players_in = 0
        for p in range(n):
            if in_hand[p]:
                players_in += 1
        if players_in > 1:
            # ---- the third card
            end = index + players_in
            if end > a1:
                continue
            for p in range(n):
                marks[p] = not in_hand[p]
            for row in range(index, end):
                target = targets[row]
                if (verbs[row] != verb_codes[_DEAL] or not 0 < target <= n
                        or marks[target - 1] or card_counts[row] != 1):
                    bad = True
                    break
                marks[target - 1] = True
                holes[target - 1, 2] = cards[row, 0]
                hole_counts[target - 1] = 3
            if bad:
                continue
            index = end
            behind = 0
            for p in range(n):
                committed[p] = 0
                behind += stacks[p]
            index = _betting_round(actors, verbs, amounts, index, a1, stacks, committed,
                                   in_hand, faced, order2, n, structure, size2, total - behind,
                                   verb_codes, cannot_act, max_bets)
            if index < 0:
                continue
        for p in range(n):
            shown_at[p] = -1
        players_in = 0
        for p in range(n):
            if in_hand[p]:
                players_in += 1
        if players_in > 1:
            # ---- the showdown
            end = index + players_in
            if end > a1:
                continue
            for p in range(n):
                marks[p] = not in_hand[p]
            for row in range(index, end):
                player = actors[row] - 1
                if verbs[row] != verb_codes[_SHOW] or not 0 <= player < n or marks[player]:
                    bad = True
                    break
                marks[player] = True
                count = card_counts[row]
                if count:
                    if not _same_cards(cards, row, count, holes[player], hole_counts[player]):
                        bad = True
                        break
                    shown_at[player] = row
            if bad:
                continue
            index = end
        if index != a1:
            continue
        # ---- settlement (SevenEightState.outcome: pots.settle with build_pots and
        # award_pots): uncalled chips back, then a main pot and side pots, odd chips from
        # the button's left (player order)
        top = 0
        for p in range(n):
            contributions[s0 + p] = starting[s0 + p] - stacks[p]
            paid[p] = contributions[s0 + p]
            hand_refunds[p] = 0
            hand_won[p] = 0
            if paid[p] > paid[top]:
                top = p
        second = -1
        for p in range(n):
            if p != top and paid[p] > second:
                second = paid[p]
        if paid[top] > second:
            hand_refunds[top] = paid[top] - second
            paid[top] = second
        # The showdown rows (players still in who showed, in player order) and their
        # strengths (-1: does not contest).
        shown_here = shows
        contenders = 0
        for p in range(n):
            strengths[p] = -1
            row = shown_at[p]
            if players_in == 1 or not in_hand[p] or row < 0:
                continue
            a = cards[row, 0]
            b = cards[row, 1]
            c = cards[row, 2]
            if a in (b, c) or b == c:
                bad = True  # the evaluator raises for a repeated card
                break
            value = values3[a, b, c]
            strengths[p] = value
            contenders += 1
            showdown_players[shown_here] = p + 1
            showdown_actions[shown_here] = row
            showdown_ranks[shown_here] = value
            showdown_categories[shown_here] = categories3[a, b, c]
            shown_here += 1
        if bad or (players_in > 1 and contenders == 0):
            continue  # (nobody contests: the full engine raises)
        if len(award_players) - awards < n * n:  # room for every pot's every winner
            award_players = _grown(award_players, awards + n * n)
            award_amounts = _grown(award_amounts, awards + n * n)
            award_pots = _grown(award_pots, awards + n * n)
        awarded = _award_pots(paid, in_hand, strengths, n, hand_won, award_players,
                              award_amounts, award_pots, awards, winner_list)
        if awarded < 0:
            continue  # a pot nobody contests: the full engine raises
        for p in range(n):
            seat = s0 + p
            net = hand_won[p] + hand_refunds[p] - contributions[seat]
            finish = starting[seat] + net
            if finish != stated_finishing[seat] or hand_won[p] != stated_winnings[seat]:
                bad = True
                break
            nets[seat] = net
            finishing[seat] = finish
            won[seat] = hand_won[p]
            refunds[seat] = hand_refunds[p]
        if bad:
            continue
        accepted[h] = True
        # Outcome.winner: the first award of the main pot (there is none when the main pot
        # holds no chips); the main pot's awards come first.
        winners[h] = (award_players[awards] if awarded > awards and award_pots[awards] == 0
                      else -1)
        awards = awarded
        shows = shown_here
        award_offsets[h + 1] = awards
        showdown_offsets[h + 1] = shows
    return (accepted, winners, nets, won, refunds, contributions, finishing,
            award_offsets, award_players[:awards].copy(), award_amounts[:awards].copy(),
            award_pots[:awards].copy(), showdown_offsets, showdown_players[:shows].copy(),
            showdown_actions[:shows].copy(), showdown_ranks[:shows].copy(),
            showdown_categories[:shows].copy())


@cached_jit()
def _grown(values: Any, size: int) -> Any:
    """``values`` copied into a longer array (at least ``size``, twice its length)."""
    bigger = np.empty(max(size, 2 * len(values)), dtype=values.dtype)
    bigger[:len(values)] = values
    return bigger


@cached_jit()
def _award_pots(paid: Any, in_hand: Any, strengths: Any, n: int, hand_won: Any,
                award_players: Any, award_amounts: Any, award_pots: Any, awards: int,
                winner_list: Any) -> int:
    """:func:`analytics.rules.pots.build_pots` (after the uncalled chips: ``paid``) and
    :func:`~analytics.rules.pots.award_pots` with the player order as the odd-chip order:
    writes the awards from row ``awards`` on (pot number 0 for ``main``, k for ``side<k>``)
    and adds them to ``hand_won``; the row after the last award, or -1 where a pot with
    several eligible players has no contender (``NoContenderError``)."""
    # The levels are the distinct contributions of the players still in, lowest first;
    # a pot is the chips of every player between the previous level and this one (the
    # last takes everything above: folded players' chips beyond every level).
    previous = 0
    below = -1  # the last level taken
    pots = 0
    number = 0
    while True:
        level = -1
        for p in range(n):
            if in_hand[p] and paid[p] > below and (level < 0 or paid[p] < level):
                level = paid[p]
        if level < 0:
            return awards
        last = True
        for p in range(n):
            if in_hand[p] and paid[p] > level:
                last = False
                break
        amount = 0
        for p in range(n):
            top = paid[p] if last else min(paid[p], level)
            if top > previous:
                amount += top - previous
        if amount > 0 or number == 0:
            pot = pots
            pots += 1
            if amount > 0:
                count = 0
                eligible = 0
                only = -1
                best = -1
                for p in range(n):
                    if not in_hand[p] or paid[p] < level:
                        continue
                    eligible += 1
                    only = p
                    value = strengths[p]
                    if value < 0:
                        continue
                    if value > best:
                        best = value
                        winner_list[0] = p
                        count = 1
                    elif value == best:
                        winner_list[count] = p
                        count += 1
                if eligible == 1:  # one player may win it: his, shown or not
                    winner_list[0] = only
                    count = 1
                elif count == 0:
                    return -1
                share = amount // count
                odd = amount - share * count
                for k in range(count):  # winners in player order: odd chips first
                    chips = share + 1 if k < odd else share
                    if chips:
                        player = winner_list[k]
                        award_players[awards] = player + 1
                        award_amounts[awards] = chips
                        award_pots[awards] = pot
                        awards += 1
                        hand_won[player] += chips
        number += 1
        previous = level
        below = level
