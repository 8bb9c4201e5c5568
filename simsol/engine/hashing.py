"""The position hash and the table of positions seen since the last progress.

The hash is what stops loops without forbidding any kind of move: the loop keeps the hashes of
the positions played since the last irreversible progress, and a move that leads back to one of
them is not offered to the player (engine/loop.py).  A solver's transposition table needs the
same key, so it lives here, shared.

``position_hash`` reads every pile's cards and length, the face-down counts and the counters
that are part of the position (``SHARED_STATE_COUNTERS`` and the game's state counters, see
``game_counters``), never the loop's bookkeeping or a generator's scratch.  Each pile is hashed
on its own and the piles are added up, salted by the pile's index, except that the piles of an
interchangeable group (a game's tableau, where only the cards matter and not which of seven
places they lie in) share one salt: two positions that differ only by the order of those piles
are one position, so moving a pile into a space leads back to where the player was.

The seen table is open addressing over a power-of-two array with an epoch stamp per slot, so
emptying it after progress is one increment, not a sweep; no Python object is made per move.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simsol.engine.jit import allocating, kernel

SEEN_SLOTS = 1024  # a power of two, more than twice the positions kept (engine/loop.py IDLE_CAP)
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_PRIME = np.uint64(0x100000001B3)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@kernel(inline="always")
def mix64(x):
    """A 64-bit finaliser (MurmurHash3's fmix64): every input bit moves about half the output."""
    x ^= x >> np.uint64(33)
    x *= _M1
    x ^= x >> np.uint64(33)
    x *= _M2
    x ^= x >> np.uint64(33)
    return x


def pile_salts(n_piles: int, groups: tuple[tuple[int, ...], ...] = ()) -> np.ndarray:
    """A salt per pile: its own for a pile whose place matters, one per interchangeable group."""
    salts = np.array([(p + 1) * 0x9E3779B97F4A7C15 % 2**64 for p in range(n_piles)],
                     dtype=np.uint64)
    for g, group in enumerate(groups):
        for p in group:
            salts[p] = np.uint64((n_piles + g + 1) * 0xD1B54A32D192ED03 % 2**64)
    return salts


@kernel(inline="always")
def pile_hash(pos, p, salt):
    """One pile's share of the position hash: its cards, length and face-down count, salted."""
    return prefix_hash(pos, p, pos.lens[p], salt)


@kernel(inline="always")
def prefix_hash(pos, p, stop, salt):
    """The hash of pile ``p``'s first ``stop`` cards and its face-down count, salted: the whole
    pile's share when ``stop`` is its length."""
    x = salt ^ np.uint64(stop * 256 + pos.down[p])
    for i in range(stop):
        x = x * _PRIME + np.uint64(pos.piles[p, i])
    return mix64(x ^ salt)


@kernel(inline="always")
def root_and_set_hash(pos, p, salt):
    """One pile's share of a key that cannot tell which twin a run lies on (a game's
    ``solver_pile_hash``, engine/solver.py): its face-down cards and the root of its face-up run
    as ``pile_hash`` reads them, and each card above the root only as a member of a set, so the
    shares of a tableau add up to the same key wherever its runs lie, as long as each pile keeps
    its root.  Where building goes by colour and rank only, the runs then lie on the twins in
    one way or the other (which of two same-coloured cards of a rank each run lies on is all
    that is left), so positions with one key differ only by runs swapped between twins."""
    n, down = pos.lens[p], pos.down[p]
    total = prefix_hash(pos, p, min(n, down + 1), salt)  # the face-down cards and the root
    for i in range(down + 1, n):
        total += mix64(np.uint64(pos.piles[p, i]) * _GOLDEN + np.uint64(0x2545F4914F6CDD1D))
    return total


@kernel(inline="always")
def counters_hash(pos, state_vars):
    """The counters' share of the position hash."""
    total = np.uint64(0)
    for k in range(state_vars.shape[0]):
        slot = state_vars[k]
        total += mix64(np.uint64(pos.vars[slot]) * _GOLDEN + np.uint64(slot + 1))
    return total


@kernel
def position_hash(pos, salts, state_vars):
    """The 64-bit hash of ``pos``: its piles (cards, lengths, face-down counts) and the counters
    in ``state_vars``; ``salts`` from ``pile_salts``.  It is ``mix64`` of a plain sum of the
    piles' shares and the counters', so a loop that knows which piles a move changed can keep
    the sum up to date pile by pile (engine/loop.py)."""
    total = np.uint64(0)
    for p in range(pos.lens.shape[0]):
        total += pile_hash(pos, p, salts[p])
    return mix64(total + counters_hash(pos, state_vars))


class Seen(NamedTuple):
    """Hashes of the positions seen since the last progress (``meta``: the epoch, the count)."""

    keys: np.ndarray  # uint64[SEEN_SLOTS]
    stamps: np.ndarray  # int64[SEEN_SLOTS]: the epoch a slot was written in
    meta: np.ndarray  # int64[2]


@allocating
def new_seen():
    meta = np.zeros(2, dtype=np.int64)
    meta[0] = 1  # the first epoch: every slot (stamped 0) is free
    return Seen(np.zeros(SEEN_SLOTS, dtype=np.uint64), np.zeros(SEEN_SLOTS, dtype=np.int64), meta)


@kernel(inline="always")
def seen_clear(seen):
    """Forget every position (after progress): a new epoch makes every slot free."""
    seen.meta[0] += 1
    seen.meta[1] = 0


@kernel
def seen_add(seen, key):
    """Add ``key``; False when it was already there.  A full table forgets everything first."""
    if 2 * seen.meta[1] >= seen.keys.shape[0]:
        seen_clear(seen)
    mask = seen.keys.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    epoch = seen.meta[0]
    while seen.stamps[slot] == epoch:
        if seen.keys[slot] == key:
            return False
        slot = (slot + 1) & mask
    seen.stamps[slot] = epoch
    seen.keys[slot] = key
    seen.meta[1] += 1
    return True
