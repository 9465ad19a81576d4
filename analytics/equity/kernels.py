"""numba kernels of the equity engine: exact enumeration and Monte Carlo over card codes.

Importing this module imports numba; each kernel compiles on its first call and
is cached on disk when a cache directory is writable (as the evaluator's
kernels are).  The Python wrappers in :mod:`analytics.equity.seveneight` and
:mod:`analytics.equity.rummoli` validate input and import this module lazily.

Both games share one shape of problem: some players hold known cards and some
*slots* still to be filled from a pool of unseen cards.  Slot ``s`` belongs to
player ``owner[s]``; the slots of one player are consecutive.  The exact kernels
walk every way of filling the slots, where the cards a player receives form an
unordered set (so a player's slots take increasing pool positions), which visits
every equally likely deal exactly once.  The Monte Carlo kernels deal the slots
from a partial Fisher-Yates shuffle of the pool.

Random numbers come from splitmix64 streams, one per chunk of samples, seeded
from ``(seed, chunk)``: the result depends on the seed only, not on how many
threads numba runs.

Caution: the poker kernels compile the evaluator's
:func:`~analytics.evaluator.kernels.rank_from_suit_masks` into this file's
machine code.  numba's disk cache only watches this file, so after an edit of
the evaluator's core, touch this file (or clear ``__pycache__``) to recompile.
"""

from __future__ import annotations

from typing import Any, Final

import numba
import numpy as np

from analytics.equity.sampling import mean_std_error
from analytics.evaluator.kernels import cached_jit as _jit
from analytics.evaluator.kernels import rank_from_suit_masks

CHUNKS: Final = 64
"""Monte Carlo samples are split into this many independent streams (fixed, for determinism)."""


# Inlined into the Rummoli kernels (numba's IR inlining): called, it cost a call with the
# table passed on the stack and a status check per hand valued, and the draw loop around it
# kept fewer values in registers.  Compiled only into its callers, whose cache holds it.
_rank = numba.njit(inline="always", nogil=True)(rank_from_suit_masks)


_mean_std_error = _jit()(mean_std_error)
"""``sampling.mean_std_error``, compiled for the kernels."""


@_jit()
def _splitmix(state: Any) -> Any:  # pragma: no cover - jitted
    # One step of splitmix64: returns (new state, 64 random bits).
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@_jit()
def _below(bits: Any, n: int) -> int:  # pragma: no cover - jitted
    # A number in 0..n-1 from 64 random bits (Lemire's multiply-shift on the top 32 bits;
    # the bias, below n / 2**32, is far under any standard error we report).
    return int(((bits >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@_jit()
def _chunk_samples(samples: int, chunks: int, c: int) -> int:  # pragma: no cover - jitted
    """How many of ``samples`` fall to chunk ``c`` of ``chunks`` (the first ones take the rest)."""
    return samples // chunks + (1 if c < samples % chunks else 0)


@_jit()
def _draw(state: Any, deck: Any, s: int) -> Any:  # pragma: no cover - jitted
    """Slot ``s`` of a random deal: swap a uniformly chosen card of ``deck[s:]`` into
    ``deck[s]`` (one Fisher-Yates step); returns (new state, the card)."""
    state, bits = _splitmix(state)
    j = s + _below(bits, deck.shape[0] - s)
    card = deck[j]
    deck[j] = deck[s]
    deck[s] = card
    return state, card


@_jit()
def _stream_start(seed: int, chunk: int) -> Any:  # pragma: no cover - jitted
    state = np.uint64(seed) * np.uint64(0xD1B54A32D192ED03) + np.uint64(chunk + 1)
    state, _ = _splitmix(state)
    return state


# --------------------------------------------------------------------------- 7 & 8


@_jit()
def _seveneight_score(cards: Any, table3: Any, vals: Any, eq: Any, win: Any,
                      tie: Any, sq: Any) -> None:  # pragma: no cover - jitted
    # Value every player's three cards, find the best, credit win / tie shares.
    m = cards.shape[0]
    best = -1
    ties = 0
    for i in range(m):
        v = table3[cards[i, 0] * 2704 + cards[i, 1] * 52 + cards[i, 2]]
        vals[i] = v
        if v > best:
            best = v
            ties = 1
        elif v == best:
            ties += 1
    share = 1.0 / ties
    for i in range(m):
        if vals[i] == best:
            eq[i] += share
            sq[i] += share * share
            if ties == 1:
                win[i] += 1.0
            else:
                tie[i] += 1.0


@_jit()
def _walk_deals(cards: Any, owner: Any, pos: Any, pool: Any, table3: Any, eligible: Any,
                amounts: Any, eq: Any, win: Any, tie: Any,
                pots: bool) -> int:  # pragma: no cover - jitted
    """Every deal of ``pool`` cards into the slots, each scored; returns the number of deals.

    ``cards`` is (m, 3): known codes, slots overwritten in place.  A player's cards
    form a set, so his slots take increasing pool positions and every equally likely
    deal is visited once.  Without ``pots`` a deal credits equity shares, outright
    wins and shared wins to ``eq``/``win``/``tie``; with ``pots`` it credits the chips
    of each pot (``eligible``, ``amounts``) to ``eq``.
    """
    m = cards.shape[0]
    vals = np.empty(m, dtype=np.int64)
    sq = np.zeros(m, dtype=np.float64)
    n_slots = owner.shape[0]
    n_pool = pool.shape[0]
    if n_slots == 0:
        if pots:
            _pots_score(cards, table3, vals, eligible, amounts, eq)
        else:
            _seveneight_score(cards, table3, vals, eq, win, tie, sq)
        return 1
    idx = np.full(n_slots, -1, dtype=np.int64)
    low = np.zeros(n_slots, dtype=np.int64)
    used = np.zeros(n_pool, dtype=np.bool_)
    deals = 0
    d = 0
    while d >= 0:
        j = idx[d]
        if j >= 0:
            used[j] = False
            j += 1
        else:
            j = low[d]
        while j < n_pool and used[j]:
            j += 1
        if j >= n_pool:
            idx[d] = -1
            d -= 1
            continue
        idx[d] = j
        used[j] = True
        cards[owner[d], pos[d]] = pool[j]
        if d == n_slots - 1:
            if pots:
                _pots_score(cards, table3, vals, eligible, amounts, eq)
            else:
                _seveneight_score(cards, table3, vals, eq, win, tie, sq)
            deals += 1
        else:
            d += 1
            # A player's own cards form a set: take them in increasing pool order.
            low[d] = j + 1 if owner[d] == owner[d - 1] else 0
            idx[d] = -1
    return deals


@_jit()
def seveneight_exact(cards: Any, owner: Any, pos: Any, pool: Any, table3: Any, eq: Any,
                     win: Any, tie: Any) -> int:  # pragma: no cover - jitted
    """Enumerate every deal of ``pool`` cards into the slots; return the number of deals.

    ``cards`` is (m, 3): known codes, slots overwritten in place.  ``eq``, ``win``
    and ``tie`` (length m) receive sums over deals (equity shares, outright
    wins, shared wins).
    """
    no_pots = np.zeros((0, cards.shape[0]), dtype=np.bool_)
    return _walk_deals(cards, owner, pos, pool, table3, no_pots, np.zeros(0), eq, win, tie,
                       False)


@_jit(parallel=True)
def seveneight_monte_carlo(cards: Any, owner: Any, pos: Any, pool: Any, table3: Any,
                           samples: int, seed: int, eq: Any, sq: Any, win: Any,
                           tie: Any) -> None:  # pragma: no cover - jitted
    """Deal ``samples`` random completions; per-chunk sums go to rows of eq/sq/win/tie.

    ``eq``, ``sq``, ``win``, ``tie`` are (CHUNKS, m): sums of the equity share,
    of its square (for the standard error), of outright wins and of shared wins.
    """
    m = cards.shape[0]
    n_slots = owner.shape[0]
    chunks = eq.shape[0]
    for c in numba.prange(chunks):
        count = _chunk_samples(samples, chunks, c)
        state = _stream_start(seed, c)
        mine = cards.copy()
        deck = pool.copy()
        vals = np.empty(m, dtype=np.int64)
        for _ in range(count):
            for s in range(n_slots):
                state, card = _draw(state, deck, s)
                mine[owner[s], pos[s]] = card
            _seveneight_score(mine, table3, vals, eq[c], win[c], tie[c], sq[c])


@_jit()
def _pots_score(cards: Any, table3: Any, vals: Any, eligible: Any, amounts: Any,
                expected: Any) -> None:  # pragma: no cover - jitted
    # Value every hand, then share each pot among its best eligible hands.
    for i in range(cards.shape[0]):
        vals[i] = table3[cards[i, 0] * 2704 + cards[i, 1] * 52 + cards[i, 2]]
    _pots_values(vals, eligible, amounts, expected)


@_jit()
def seveneight_pots(cards: Any, owner: Any, pos: Any, pool: Any, table3: Any,
                    eligible: Any, amounts: Any, expected: Any) -> int:  # pragma: no cover
    """Exact expected winnings from several pots: sum over deals of each player's chips.

    ``eligible`` is (pots, m) booleans, ``amounts`` the chips of each pot;
    ``expected`` (length m) receives the sum over all deals of what each player
    wins (divide by the returned number of deals).  Split pots are shared equally.
    """
    unused = np.zeros(cards.shape[0], dtype=np.float64)
    return _walk_deals(cards, owner, pos, pool, table3, eligible, amounts, expected, unused,
                       unused, True)


# --------------------------------------------------------------------------- Rummoli


@_jit()
def _rummoli_score(masks: Any, hero: int, table: Any) -> float:  # pragma: no cover - jitted
    # The hero's share of "best at the table": 1, 1/t when t hands tie for best, 0 if beaten.
    ties = 1
    for i in range(masks.shape[0]):
        v = _rank(masks[i], table)
        if v > hero:
            return 0.0
        if v == hero:
            ties += 1
    return 1.0 / ties


@_jit()
def _next_combination(comb: Any, level: int, size: int, n: int) -> bool:  # pragma: no cover
    # The next size-subset of range(n) in lexicographic order, in place; False at the end.
    i = size - 1
    while i >= 0 and comb[level, i] == n - size + i:
        i -= 1
    if i < 0:
        return False
    comb[level, i] += 1
    for k in range(i + 1, size):
        comb[level, k] = comb[level, k - 1] + 1
    return True


@_jit()
def rummoli_exact(sizes: Any, pool: Any, hero: int, table: Any,
                  out: Any) -> int:  # pragma: no cover - jitted
    """Enumerate every deal of opponents' hands from ``pool``; return the number of deals.

    Opponent ``o`` gets ``sizes[o]`` cards; leftover pool cards are the widow's
    unknown cards (dead).  Each opponent's hand runs through the combinations
    of the cards the earlier opponents left (no dead ends, unlike a card-by-card
    search).  ``out`` receives [sum of shares, outright wins, ties for best].
    """
    levels = sizes.shape[0]
    n_pool = pool.shape[0]
    bits = np.empty(n_pool, dtype=np.int64)
    for j in range(n_pool):
        code = pool[j]
        bits[j] = np.int64(1) << ((code & 3) * 16 + (code >> 2))
    widest = 1
    for o in range(levels):
        widest = max(widest, sizes[o])
    avail = np.empty((levels, n_pool), dtype=np.int64)
    count = np.empty(levels, dtype=np.int64)
    comb = np.zeros((levels, widest), dtype=np.int64)
    masks = np.zeros(levels, dtype=np.int64)
    taken = np.zeros(n_pool, dtype=np.bool_)
    for j in range(n_pool):
        avail[0, j] = j
    count[0] = n_pool
    for i in range(sizes[0]):
        comb[0, i] = i
    deals = 0
    o = 0
    while True:
        mask = np.int64(0)
        for i in range(sizes[o]):
            mask |= bits[avail[o, comb[o, i]]]
        masks[o] = mask
        if o < levels - 1:
            # The next opponent draws from what this one left.
            for i in range(count[o]):
                taken[i] = False
            for i in range(sizes[o]):
                taken[comb[o, i]] = True
            k = 0
            for i in range(count[o]):
                if not taken[i]:
                    avail[o + 1, k] = avail[o, i]
                    k += 1
            count[o + 1] = k
            o += 1
            for i in range(sizes[o]):
                comb[o, i] = i
            continue
        share = _rummoli_score(masks, hero, table)
        out[0] += share
        if share == 1.0:
            out[1] += 1.0
        elif share > 0.0:
            out[2] += 1.0
        deals += 1
        while o >= 0 and not _next_combination(comb, o, sizes[o], count[o]):
            o -= 1
        if o < 0:
            return deals


@_jit()
def _suit_bit(code: int) -> Any:  # pragma: no cover - jitted
    # Card ``code``'s bit in a hand's suit masks (rank_from_suit_masks's input).
    return np.int64(1) << ((code & 3) * 16 + (code >> 2))


@_jit()
def _rummoli_chunk(bits: Any, deck: Any, sizes: Any, hero: int, table: Any,
                   count: int, seed: int, c: int, out: Any) -> None:  # pragma: no cover
    """``count`` random deals of chunk ``c`` (its own stream) added to ``out[c]``.

    ``bits`` are the pool's cards as suit-mask bits (:func:`_suit_bit`, in pool order);
    opponent ``o`` gets the next ``sizes[o]`` slots of the deal.  ``deck`` (as long as
    ``bits``) is scratch space the caller owns: a round draws 2 deals per chunk, so
    allocating it per chunk cost as much as the deals.  The deck starts as ``bits`` in
    every chunk.  It holds bits rather than card codes because a dealt card is only ever
    or-ed into its holder's mask: the same shuffle, without turning codes into bits.

    The hero's share is 0 if any opponent beats him, else 1 / (1 + opponents tying with
    him), as :func:`_rummoli_score` computes it.  Each opponent is valued as soon as his
    hand is dealt, none once one has beaten the hero; in the chunk's last deal the dealing
    stops there too (nothing reads the stream or the deck after it): the same numbers.
    """
    # The slots and positions are unsigned: an index numba cannot prove non-negative costs
    # a wrap-around fix-up per access (two per draw).  The same numbers as _draw/_below.
    n_pool = np.uint64(bits.shape[0])
    one, high = np.uint64(1), np.uint64(32)
    opponents = sizes.shape[0]
    state = _stream_start(seed, c)
    deck[:] = bits
    for k in range(count):
        last = k == count - 1
        ties = 1
        beaten = False
        s = np.uint64(0)
        for o in range(opponents):
            mask: Any = np.int64(0)  # Any: mypy would take it for a numpy scalar
            for _ in range(sizes[o]):
                # One Fisher-Yates step (as _draw): a uniform card of deck[s:] to deck[s].
                state, random = _splitmix(state)
                j = s + (((random >> high) * (n_pool - s)) >> high)
                bit = deck[j]
                deck[j] = deck[s]
                deck[s] = bit
                mask |= bit
                s += one
            if not beaten:
                value = _rank(mask, table)
                if value > hero:
                    beaten = True
                    if last:
                        break
                elif value == hero:
                    ties += 1
        share = 0.0 if beaten else 1.0 / ties
        out[c, 0] += share
        out[c, 1] += share * share
        if share == 1.0:
            out[c, 2] += 1.0
        elif share > 0.0:
            out[c, 3] += 1.0


@_jit()
def _owner_sizes(owner: Any, n_opponents: int) -> Any:  # pragma: no cover - jitted
    # Each opponent's number of slots, from ``owner`` (np.repeat(np.arange(n), sizes)).
    sizes = np.zeros(n_opponents, dtype=np.int64)
    for s in range(owner.shape[0]):
        sizes[owner[s]] += 1
    return sizes


@_jit()
def _pool_bits(pool: Any) -> Any:  # pragma: no cover - jitted
    bits = np.empty_like(pool)
    for j in range(pool.shape[0]):
        bits[j] = _suit_bit(pool[j])
    return bits


@_jit(parallel=True)
def rummoli_monte_carlo(owner: Any, pool: Any, n_opponents: int, hero: int, table: Any,
                        samples: int, seed: int, out: Any) -> None:  # pragma: no cover
    """Random deals of the opponents' hands; ``out`` is (CHUNKS, 4): shares, squares, wins, ties.

    Slot ``s`` of a deal goes to opponent ``owner[s]`` (``n_opponents`` opponents, each
    one's slots together and in order: ``np.repeat(np.arange(n), sizes)``)."""
    chunks = out.shape[0]
    sizes = _owner_sizes(owner, n_opponents)
    bits = _pool_bits(pool)
    for c in numba.prange(chunks):
        count = _chunk_samples(samples, chunks, c)
        _rummoli_chunk(bits, np.empty_like(bits), sizes, hero, table, count, seed, c, out)


@_jit()
def rummoli_monte_carlo_serial(owner: Any, pool: Any, n_opponents: int, hero: int, table: Any,
                               samples: int, seed: int, out: Any) -> None:  # pragma: no cover
    """:func:`rummoli_monte_carlo` on the calling thread (the same result): for a few
    hundred samples, waking the thread pool costs more than the work."""
    chunks = out.shape[0]
    sizes = _owner_sizes(owner, n_opponents)
    bits = _pool_bits(pool)
    deck = np.empty_like(bits)
    for c in range(chunks):
        count = _chunk_samples(samples, chunks, c)
        _rummoli_chunk(bits, deck, sizes, hero, table, count, seed, c, out)


@_jit()
def _rummoli_round_row(row: Any, sums: Any, count: int, exact: bool) -> None:  # pragma: no cover
    # A player's strength from his sums, into row[1:8] (see rummoli_round); the same
    # operations, in the same order, as RummoliStrength's Python constructors did.
    share_sum, second, third, fourth = sums[0], sums[1], sums[2], sums[3]
    if exact:  # sums: shares, outright wins, ties
        row[1] = (second + third) / count
        row[2] = share_sum / count
        row[3] = second / count
        row[4] = 0.0
        row[5] = 0.0
        row[6] = 1.0
    else:  # sums: shares, their squares, outright wins, ties
        share = share_sum / count
        p_best = (third + fourth) / count
        share_var = max(second / count - share * share, 0.0)
        row[1] = p_best
        row[2] = share
        row[3] = third / count
        row[4] = _mean_std_error(p_best, p_best * (1 - p_best), count)
        row[5] = _mean_std_error(share, share_var, count)
        row[6] = 0.0
    row[7] = count


@_jit()
def rummoli_round(cards: Any, sizes: Any, exchanger: int, exact: Any, table: Any,
                  samples: int, seed: int, out: Any) -> None:  # pragma: no cover - jitted
    """Every player's strength in one Rummoli round, in one call (on the calling thread).

    ``cards`` holds all 52 codes: the players' hands one after another (``sizes[p]``
    cards each, in seat order), then the widow.  Player ``p`` sees his own hand, and
    the widow too when ``p == exchanger``; the unseen cards, in increasing code order,
    are dealt to the other players in seat order (the rest is the widow's).  The
    numbers are those of :func:`rummoli_exact` (``exact[p]``) or
    :func:`rummoli_monte_carlo_serial` with seed ``seed + p``, player by player.

    ``out[p]`` (players x 8) receives player ``p``'s hand value, then his strength:
    ``p_best, share, p_win, std_error, share_std_error``, 1.0 if exact else 0.0, and the
    number of deals (see ``RummoliStrength``).  Computing the strength here, not from
    the sums in Python, spares the caller a Python object per number.
    """
    players = sizes.shape[0]
    start = 0
    for p in range(players):
        mask: Any = np.int64(0)
        for i in range(start, start + sizes[p]):
            mask |= _suit_bit(cards[i])
        out[p, 0] = _rank(mask, table)
        start += sizes[p]
    widow_start = start
    # Scratch space for every player (a pool is at most 47 cards): one allocation each.
    sums = np.zeros((CHUNKS, 4))
    total = np.zeros(4)
    seen = np.zeros(52, dtype=np.bool_)
    pool = np.empty(52, dtype=np.int64)
    bits = np.empty(52, dtype=np.int64)
    deck = np.empty(52, dtype=np.int64)
    opponent_sizes = np.empty(players - 1, dtype=np.int64)
    start = 0
    for p in range(players):
        seen[:] = False
        for i in range(start, start + sizes[p]):
            seen[cards[i]] = True
        if p == exchanger:
            for i in range(widow_start, 52):
                seen[cards[i]] = True
        start += sizes[p]
        n_pool = 0
        for code in range(52):
            if not seen[code]:
                pool[n_pool] = code
                bits[n_pool] = _suit_bit(code)
                n_pool += 1
        k = 0
        for o in range(players):
            if o != p:
                opponent_sizes[k] = sizes[o]
                k += 1
        hero = int(out[p, 0])
        total[:] = 0.0
        if exact[p]:
            count = rummoli_exact(opponent_sizes, pool[:n_pool], hero, table, total)
            _rummoli_round_row(out[p], total, count, True)
            continue
        sums[:, :] = 0.0
        for c in range(CHUNKS):
            _rummoli_chunk(bits[:n_pool], deck[:n_pool], opponent_sizes, hero, table,
                           _chunk_samples(samples, CHUNKS, c), seed + p, c, sums)
        for c in range(CHUNKS):  # added up chunk after chunk, as sums.sum(axis=0) does
            for k in range(4):
                total[k] += sums[c, k]
        _rummoli_round_row(out[p], total, samples, False)


@_jit()
def rummoli_round_many(cards: Any, sizes: Any, starts: Any, exchangers: Any, exact: Any,
                       table: Any, samples: int, seeds: Any,
                       out: Any) -> None:  # pragma: no cover - jitted
    """:func:`rummoli_round` for many rounds in one call (the same numbers, round by round).

    Round ``r``'s 52 codes are ``cards[52 r: 52 r + 52]``; its players are rows
    ``starts[r]:starts[r + 1]`` of ``sizes``, ``exact`` and ``out``; ``exchangers[r]``
    and ``seeds[r]`` are its ``exchanger`` and ``seed``.  One call per batch of rounds
    instead of one per round: a call's argument checks cost as much as a small round.
    """
    for r in range(exchangers.shape[0]):
        first, last = starts[r], starts[r + 1]
        rummoli_round(cards[52 * r:52 * r + 52], sizes[first:last], exchangers[r],
                      exact[first:last], table, samples, seeds[r], out[first:last])


@_jit(parallel=True)
def seveneight_pots_monte_carlo(cards: Any, owner: Any, pos: Any, pool: Any, table3: Any,
                                eligible: Any, amounts: Any, samples: int, seed: int,
                                sums: Any, squares: Any) -> None:  # pragma: no cover
    """Monte Carlo version of :func:`seveneight_pots`: per-chunk sums and squares, (CHUNKS, m)."""
    m = cards.shape[0]
    n_slots = owner.shape[0]
    chunks = sums.shape[0]
    for c in numba.prange(chunks):
        count = _chunk_samples(samples, chunks, c)
        state = _stream_start(seed, c)
        mine = cards.copy()
        deck = pool.copy()
        vals = np.empty(m, dtype=np.int64)
        won = np.zeros(m, dtype=np.float64)
        for _ in range(count):
            for s in range(n_slots):
                state, card = _draw(state, deck, s)
                mine[owner[s], pos[s]] = card
            for i in range(m):
                won[i] = 0.0
            _pots_score(mine, table3, vals, eligible, amounts, won)
            for i in range(m):
                sums[c, i] += won[i]
                squares[c, i] += won[i] * won[i]


# One card to come for each player (the common case: every all-in, and any spot where
# the hole cards are known) is enumerated from a precomputed (players, pool) table of
# each player's value with each possible card: a leaf is then a few loads from a small
# array instead of look-ups scattered over the 0.5 MB three-card table.


@_jit()
def _pots_values(vals: Any, eligible: Any, amounts: Any, expected: Any) -> None:  # pragma: no cover
    m = vals.shape[0]
    for p in range(eligible.shape[0]):
        best = -1
        ties = 0
        for i in range(m):
            if eligible[p, i]:
                if vals[i] > best:
                    best = vals[i]
                    ties = 1
                elif vals[i] == best:
                    ties += 1
        share = amounts[p] / ties
        for i in range(m):
            if eligible[p, i] and vals[i] == best:
                expected[i] += share


@_jit()
def _count_around(sorted_values: Any, values_last: Any, idx: Any, depth: int,
                  b: int) -> Any:  # pragma: no cover - jitted
    # How many of the cards still available give the last player a value below, equal to
    # and above b: binary search in his sorted values, then take out the cards in use.
    n_pool = sorted_values.shape[0]
    lo = np.searchsorted(sorted_values, b, side="left")
    hi = np.searchsorted(sorted_values, b, side="right")
    below = lo
    equal = hi - lo
    above = n_pool - hi
    for q in range(depth):
        v = values_last[idx[q]]
        if v < b:
            below -= 1
        elif v == b:
            equal -= 1
        else:
            above -= 1
    return below, equal, above


@_jit()
def _finish_equity(values: Any, vals: Any, last: int, sorted_last: Any, idx: Any, depth: int,
                   eq: Any, win: Any, tie: Any) -> None:  # pragma: no cover - jitted
    # Every card the last player may still get, at once: the others' best b is fixed.
    m = vals.shape[0]
    b = -1
    t = 0
    for i in range(m):
        if i != last:
            if vals[i] > b:
                b = vals[i]
                t = 1
            elif vals[i] == b:
                t += 1
    below, equal, above = _count_around(sorted_last, values[last], idx, depth, b)
    eq[last] += above
    win[last] += above
    if equal > 0:
        share = equal / (t + 1)
        eq[last] += share
        tie[last] += equal
        for i in range(m):
            if i != last and vals[i] == b:
                eq[i] += share
                tie[i] += equal
    if below > 0:
        share = below / t
        for i in range(m):
            if i != last and vals[i] == b:
                eq[i] += share
                if t == 1:
                    win[i] += below
                else:
                    tie[i] += below


@_jit()
def _finish_pots(values: Any, vals: Any, last: int, sorted_last: Any, idx: Any, depth: int,
                 eligible: Any, amounts: Any, expected: Any) -> None:  # pragma: no cover
    # As _finish_equity, pot by pot, crediting chips.
    m = vals.shape[0]
    available = sorted_last.shape[0] - depth
    for p in range(eligible.shape[0]):
        b = -1
        t = 0
        for i in range(m):
            if i != last and eligible[p, i]:
                if vals[i] > b:
                    b = vals[i]
                    t = 1
                elif vals[i] == b:
                    t += 1
        amount = amounts[p]
        if not eligible[p, last]:
            share = amount * available / t
            for i in range(m):
                if i != last and eligible[p, i] and vals[i] == b:
                    expected[i] += share
            continue
        if t == 0:
            expected[last] += amount * available
            continue
        below, equal, above = _count_around(sorted_last, values[last], idx, depth, b)
        expected[last] += amount * (above + equal / (t + 1))
        share = amount * (equal / (t + 1) + below / t)
        for i in range(m):
            if i != last and eligible[p, i] and vals[i] == b:
                expected[i] += share


@_jit()
def single_slot_exact(values: Any, slotted: Any, eligible: Any, amounts: Any, eq: Any,
                      win: Any, tie: Any) -> int:  # pragma: no cover - jitted
    """Exact enumeration when each player has at most one card to come.

    ``values`` is (m, pool): player i's hand value if he gets pool card j (a
    constant row for a player with nothing to come); ``slotted`` lists the
    players with a card to come (at least one).  With no pots (``eligible`` has
    0 rows) the equity shares, outright wins and ties are summed into eq/win/tie;
    with pots, eq receives each player's chips won.  Returns the number of deals.

    The cards of all slotted players but the last are enumerated; the last
    player's card is then counted, not enumerated: against the others' best
    hand, a binary search in his sorted values says for how many of the cards
    left he wins, ties or loses.  A heads-up spot costs one pass over the pool.
    """
    m = values.shape[0]
    n_pool = values.shape[1]
    k = slotted.shape[0]
    last = slotted[k - 1]
    sorted_last = np.sort(values[last])
    vals = np.empty(m, dtype=np.int64)
    for i in range(m):
        vals[i] = values[i, 0]
    pots = eligible.shape[0] > 0
    depth = k - 1
    idx = np.full(max(depth, 1), -1, dtype=np.int64)
    if depth == 0:
        if pots:
            _finish_pots(values, vals, last, sorted_last, idx, 0, eligible, amounts, eq)
        else:
            _finish_equity(values, vals, last, sorted_last, idx, 0, eq, win, tie)
        return int(n_pool)
    used = np.zeros(n_pool, dtype=np.bool_)
    prefixes = 0
    d = 0
    while d >= 0:
        j = idx[d]
        if j >= 0:
            used[j] = False
        j += 1
        while j < n_pool and used[j]:
            j += 1
        if j >= n_pool:
            idx[d] = -1
            d -= 1
            continue
        idx[d] = j
        used[j] = True
        player = slotted[d]
        vals[player] = values[player, j]
        if d == depth - 1:
            if pots:
                _finish_pots(values, vals, last, sorted_last, idx, depth, eligible, amounts, eq)
            else:
                _finish_equity(values, vals, last, sorted_last, idx, depth, eq, win, tie)
            prefixes += 1
        else:
            d += 1
    return int(prefixes * (n_pool - depth))


@_jit()
def single_slot_exact_many(cards: Any, players: Any, pool: Any, pools: Any, owner: Any,
                           owners: Any, eligible: Any, amounts: Any, pots: Any, table3: Any,
                           expected: Any, deals: Any) -> None:  # pragma: no cover - jitted
    """:func:`single_slot_exact` with pots for many spots stacked: spot s has the card
    rows ``players[s]:players[s + 1]`` of ``cards`` (its contestants), the pool codes
    ``pools[s]:pools[s + 1]``, the slotted rows ``owners[s]:owners[s + 1]`` of ``owner``
    and the pots ``pots[s]:pots[s + 1]`` of ``eligible`` (padded with False) and
    ``amounts``.  Each spot's chips won are summed into its rows of ``expected`` and its
    deals stored in ``deals[s]``: the values of one call per spot with the values of
    ``seveneight.single_slot_values``, without a call and its arrays per spot.
    """
    for s in range(deals.shape[0]):
        first = players[s]
        m = players[s + 1] - first
        spot_pool = pool[pools[s]:pools[s + 1]]
        n_pool = spot_pool.shape[0]
        values = np.empty((m, n_pool), dtype=np.int64)
        for i in range(m):
            base = cards[first + i, 0] * 2704 + cards[first + i, 1] * 52
            third = cards[first + i, 2]
            for j in range(n_pool):
                values[i, j] = table3[base + (third if third >= 0 else spot_pool[j])]
        spot_eligible = np.ascontiguousarray(eligible[pots[s]:pots[s + 1], :m])
        unused = np.zeros(m)
        deals[s] = single_slot_exact(values, owner[owners[s]:owners[s + 1]], spot_eligible,
                                     amounts[pots[s]:pots[s + 1]],
                                     expected[first:first + m], unused, unused)


@_jit()
def _choose(n: int, k: int) -> int:  # pragma: no cover - jitted
    """C(n, k) for the small counts of a Big Two hand (0 when k > n)."""
    if k < 0 or k > n:
        return 0
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


@_jit()
def bigtwo_features_many(masks: Any, sizes: Any, rules: Any, leads: Any, run_masks: Any,
                         run_counts: Any, two_shift: int, ace_shift: int,
                         out: Any) -> None:  # pragma: no cover - jitted
    """``bigtwo._features_of_mask`` of many dealt hands: hand h's cards are the bits
    (``4 * rank + suit``) of ``masks[h]``, ``sizes[h]`` of them, under rule set
    ``rules[h]`` (its valid straights: the first ``run_counts[r]`` rank masks of
    ``run_masks[r]``) with lead card code ``leads[h]``.  Row h of ``out``: twos, aces,
    has lead (0/1), pairs, triples, five-card plays, distinct five-card ranks.
    """
    counts = np.zeros(13, dtype=np.int64)
    suits = np.zeros(4, dtype=np.int64)
    for h in range(masks.shape[0]):
        seen = masks[h]
        held = 0
        paired = 0
        quads = 0
        all_pairs = 0
        triples = 0
        overlap = 0
        for suit in range(4):
            suits[suit] = 0
        for rank in range(13):
            n = 0
            for suit in range(4):
                if seen >> (4 * rank + suit) & 1:
                    n += 1
                    suits[suit] |= 1 << rank
            counts[rank] = n
            if n >= 1:
                held |= 1 << rank
            if n >= 2:
                paired |= 1 << rank
            if n == 4:
                quads += 1
            pairs_here = _choose(n, 2)
            triples_here = _choose(n, 3)
            all_pairs += pairs_here
            triples += triples_here
            overlap += pairs_here * triples_here
        r = rules[h]
        reached = 0
        five = 0
        for i in range(run_counts[r]):  # straights: one play per choice of suits
            run = run_masks[r, i]
            if held & run == run:
                reached |= run
                product = 1
                for rank in range(13):
                    if run >> rank & 1:
                        product *= counts[rank]
                five += product
        for suit in range(4):
            suit_mask = suits[suit]
            suited = 0
            for rank in range(13):
                suited += suit_mask >> rank & 1
            if suited < 5:
                continue
            whole = 0  # straight flushes of the suit
            for i in range(run_counts[r]):
                if suit_mask & run_masks[r, i] == run_masks[r, i]:
                    whole += 1
            five += _choose(suited, 5) - whole
            if whole == 0:  # every card of the suit is in some flush
                reached |= suit_mask
                continue
            with_rank = _choose(suited - 1, 4)  # five-card sets of the suit holding a card
            for rank in range(13):
                if suit_mask >> rank & 1:
                    in_straight_flushes = 0
                    for i in range(run_counts[r]):
                        run = run_masks[r, i]
                        if suit_mask & run == run and run >> rank & 1:
                            in_straight_flushes += 1
                    if with_rank > in_straight_flushes:
                        reached |= 1 << rank
        if triples:
            # Full houses: each triple with a pair of another rank.
            five += triples * all_pairs - overlap
            paired_ranks = 0
            for rank in range(13):
                paired_ranks += paired >> rank & 1
            if paired_ranks >= 2:
                reached |= paired
        size = sizes[h]
        if size > 4 and quads:  # four of a kind, with any one other card
            five += quads * (size - 4)
            reached |= held
        distinct = 0
        for rank in range(13):
            distinct += reached >> rank & 1
        out[h, 0] = counts[two_shift // 4]
        out[h, 1] = counts[ace_shift // 4]
        out[h, 2] = seen >> leads[h] & 1
        out[h, 3] = all_pairs
        out[h, 4] = triples
        out[h, 5] = five
        out[h, 6] = distinct


# --------------------------------------------------------------------------- theory


@_jit()
def no_straight_flush_ranks(table: Any, nxt: Any, sizes: Any,
                            classes: Any) -> Any:  # pragma: no cover - jitted
    """The ranks 2..K of :func:`analytics.equity.theory._no_straight_flush`'s programme.

    ``table`` is (suit state, class, cards) after the ace; each rank takes every
    subset of suits (``nxt``: next suit state or -1 for a straight flush,
    ``sizes``: cards in the subset, ``classes``: class after a rank held m times).
    """
    for _ in range(12):
        new = np.zeros_like(table)
        degrees = table.shape[2]
        for state in range(table.shape[0]):
            for cls in range(table.shape[1]):
                empty = True
                for degree in range(degrees):
                    if table[state, cls, degree] != 0:
                        empty = False
                        break
                if empty:
                    continue
                for subset in range(16):
                    target = nxt[state, subset]
                    if target < 0:
                        continue
                    m = sizes[subset]
                    after = classes[cls, m]
                    for degree in range(degrees - m):
                        new[target, after, degree + m] += table[state, cls, degree]
        table = new
    return table
