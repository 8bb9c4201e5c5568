"""The position every kernel passes around, its shared counters, move rows and how games end.

A position is a ``Position`` named tuple of four arrays: the cards of every pile (``piles[p,
:lens[p]]``, bottom first, one byte a card), the pile lengths, the face-down counts (the first
``down[p]`` cards of pile ``p`` lie face down) and ``vars``, the counters.  A named tuple of
arrays costs nothing in numba (it is a struct of pointers passed by value) and keeps the four
arrays together, so no argument list can swap two of them.

The counters the loop and the shared pile helpers use have fixed slots (``V_...`` below); a game
declares its own by name with ``game_counters("kings_in_spaces", ...)``, which hands out the
slots after them, so no game picks slot numbers by hand and hand-written positions can set
them by name.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simsol.engine.jit import allocating, copy_block, kernel


class Position(NamedTuple):
    piles: np.ndarray  # uint8[n_piles, capacity]: cards bottom to top
    lens: np.ndarray  # int64[n_piles]
    down: np.ndarray  # int64[n_piles]: face-down cards at the bottom of each pile
    vars: np.ndarray  # int64[N_VARS]: the counters


# How a game ended (the ``end`` column of every record).  "stuck": the rules allow no move;
# "gave up": they allow some, but the policy plays none of them.  New reasons are appended, so a
# stored code keeps its meaning.
# "no progress": every legal move leads back to a position seen since the last progress (or the
# game's rules refused a move for lack of it); "idle cap": cut after ``IDLE_CAP`` moves without
# progress, each to a new position.  "unsolvable" and "unknown" are the solver's verdicts when
# it finds no winning line (engine/solver.py): the whole space searched, or its budget spent.
WON, STUCK, NO_PROGRESS, MOVE_CAP, GAVE_UP, IDLE_CUT, UNSOLVABLE_END, UNKNOWN_END = range(8)
END_REASONS = ("won", "stuck", "no progress", "move cap", "gave up", "idle cap", "unsolvable",
               "unknown")

# The shared counters.  The loop owns the ones marked (loop): no game writes them.
SHARED_COUNTERS = (
    "foundation",  # cards on the foundations (or removed, in pairing games)
    "passes",  # passes through the stock begun (1 at the start when there is a stock)
    "redeals",  # redeals used
    "pass_progress",  # (loop) progress made during the current pass
    "end_hint",  # why there is no move, when it is not plainly "stuck"
    "moves",  # (loop) moves played
    "best_foundation",  # (loop) the highest foundation count so far
    "moves_kept",  # (loop) 1 + the moves at the head of the list still valid, 0: none
)
(V_FOUNDATION, V_PASSES, V_REDEALS, V_PASS_PROGRESS, V_END_HINT, V_MOVES, V_BEST_FOUNDATION,
 V_MOVES_KEPT) = range(len(SHARED_COUNTERS))
V_GAME = len(SHARED_COUNTERS)  # the first slot of a game's own counters
N_VARS = 16


# The shared counters that are part of the position (the position hash reads them): the redeals
# counted against a limit.  The others are the loop's bookkeeping or follow from the piles.
SHARED_STATE_COUNTERS = (V_REDEALS,)


class Counters(tuple):
    """A game's own counters: their slots, in declared order, with the names kept, and which of
    them are part of the position (``state``) rather than scratch a move generator derives from
    the piles and keeps for the next call."""

    names: tuple[str, ...]
    state: tuple[int, ...]

    def by_name(self) -> dict[str, int]:
        return dict(zip(self.names, self))


def game_counters(*names: str, scratch: tuple[str, ...] = ()) -> Counters:
    """Slots for a game's own counters, declared by name: ``A, B = game_counters("a", "b")``.

    ``scratch`` names the ones that are not part of the position (a value the move generator
    computes from the piles, a count kept for a game's own cut); the position hash leaves them
    out, so two positions that differ only in scratch are the same position."""
    if V_GAME + len(names) > N_VARS:
        raise ValueError(f"at most {N_VARS - V_GAME} game counters, got {len(names)}")
    unknown = set(scratch) - set(names)
    if unknown:
        raise ValueError(f"scratch counters {sorted(unknown)} are not among {names}")
    counters = Counters(range(V_GAME, V_GAME + len(names)))
    counters.names = names
    counters.state = tuple(slot for slot, name in zip(counters, names) if name not in scratch)
    return counters


# Columns of a move row.
M_KIND, M_SRC, M_DST, M_COUNT, M_CARD, M_SPARE = range(6)
MOVE_COLUMNS = 6
MAX_MOVES_LISTED = 2048


@allocating
def new_position(n_piles, capacity):
    """An empty position (kernels fill it; ``copy_position`` copies one into it)."""
    return Position(np.zeros((n_piles, capacity), dtype=np.uint8),
                    np.zeros(n_piles, dtype=np.int64), np.zeros(n_piles, dtype=np.int64),
                    np.zeros(N_VARS, dtype=np.int64))


def make_position(n_piles: int, capacity: int) -> Position:
    """``new_position`` for Python callers (tests, hand-written positions, scratch space)."""
    return Position(np.zeros((n_piles, capacity), dtype=np.uint8),
                    np.zeros(n_piles, dtype=np.int64), np.zeros(n_piles, dtype=np.int64),
                    np.zeros(N_VARS, dtype=np.int64))


@kernel
def clear_position(pos):
    for p in range(pos.lens.shape[0]):
        pos.lens[p] = 0
        pos.down[p] = 0
    for i in range(pos.vars.shape[0]):
        pos.vars[i] = 0


@kernel
def copy_position(src, dst):
    """Copy ``src`` into ``dst``.  The copy has no kept moves: its move list is another array.
    The piles go as one block, their unused places too (``copy_block``): a loop over each pile's
    cards compiled to a copy a byte at a time, which took twice the cycles in a Klondike solver's
    node (the solver copies a position at every node, engine/solver.py)."""
    for p in range(src.lens.shape[0]):
        dst.lens[p] = src.lens[p]
        dst.down[p] = src.down[p]
    copy_block(dst.piles, src.piles)
    for i in range(src.vars.shape[0]):
        dst.vars[i] = src.vars[i]
    dst.vars[V_MOVES_KEPT] = 0


RECORD_DTYPE = np.dtype([
    ("deal", np.int64),
    ("won", np.bool_),
    ("foundation", np.int16),
    ("moves", np.int32),
    ("passes", np.int16),
    ("end", np.int8),
])
