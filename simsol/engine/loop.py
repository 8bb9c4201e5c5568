"""The game loop every game shares, and the entry points Python calls.

A game supplies its rules as compiled functions over a ``Position`` (engine/state.py):

* ``setup(deck, rules, pos, rng)`` lays out a shuffled deck;
* ``generate_stable(pos, rules, moves) -> n`` writes the legal moves that only a change outside
  the stock can change (its tableau's own moves), one row each (kind, source pile, destination
  pile, card count, card, spare), computed from visible cards;
* ``generate(pos, rules, moves, n) -> n`` appends the rest (the waste's, the stock's);
* ``keeps_moves(move)`` says whether the stable moves stay valid after ``move`` (a stock turn);
* ``apply(pos, rules, move, rng) -> progress`` plays one move and says whether it made
  irreversible progress (a card turned up, a card out of the stock or waste).

The loop owns everything else, so no game can forget it: the kept stable moves and when they
are stale, the move count, the win (every card on the foundations), the best foundation count
(a new high is progress; worrying back is not), the progress of the current pass, the loop
guard, the move cap and the trace.  Nothing here allocates per move.

The loop guard: every policy may play every legal move, and loops are stopped by the position.
The hashes of the positions played since the last progress are kept (engine/hashing.py); a move
that leads back to one of them is taken back and struck from the list, and the player chooses
again among the rest, so no player is ever offered a move into a position it has seen since its
last progress.  When every legal move repeats, the game ends as "no progress".  A game that
wanders ``IDLE_CAP`` moves without progress, each to a new position, is cut ("idle cap").
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simsol.engine.binder import _unbound, entry_template, template
from simsol.engine.hashing import new_seen, position_hash, seen_add, seen_clear
from simsol.engine.jit import allocating, kernel
from simsol.engine.state import (
    GAVE_UP,
    IDLE_CUT,
    MAX_MOVES_LISTED,
    MOVE_CAP,
    MOVE_COLUMNS,
    NO_PROGRESS,
    STUCK,
    V_BEST_FOUNDATION,
    V_END_HINT,
    V_FOUNDATION,
    V_MOVES,
    V_MOVES_KEPT,
    V_PASS_PROGRESS,
    V_PASSES,
    WON,
    Position,
    clear_position,
    copy_position,
    new_position,
)
from simsol.engine.streams import GAME_STREAM, N_STREAMS, deal_into, init_streams

# Moves without progress, each to a new position, before a game is cut ("idle cap").
IDLE_CAP = 200
DEFAULT_MAX_MOVES = 5000

game_setup = game_generate_stable = game_generate = game_apply = game_keeps_moves = _unbound
player_choose = _unbound
GAME_CARDS = 0  # the deck size: a game is won when every card is on the foundations
GAME_PILE_SALTS = np.zeros(1, dtype=np.uint64)  # the game's salts (engine/hashing.py)
GAME_STATE_VARS = np.zeros(0, dtype=np.int64)  # the counters that are part of its position


class Guard(NamedTuple):
    """The loop guard's space, made once per batch: the positions seen since the last progress,
    and the position and random streams before the move being tried, to take it back."""

    seen: object  # hashing.Seen
    before: Position
    rng_before: np.ndarray


@allocating
def new_guard(n_piles, capacity):
    return Guard(new_seen(), new_position(n_piles, capacity),
                 np.zeros(2 * N_STREAMS, dtype=np.uint64))


@template(compile_as=kernel(inline="always"))
def hash_of(pos):
    return position_hash(pos, GAME_PILE_SALTS, GAME_STATE_VARS)


@kernel(inline="always")
def strike(moves, n, i):
    """Take row ``i`` out of the first ``n`` rows, keeping the others' order."""
    for k in range(i, n - 1):
        for c in range(MOVE_COLUMNS):
            moves[k, c] = moves[k + 1, c]


@template(compile_as=kernel(inline="always"))
def list_moves(pos, rules, moves):
    """The legal moves of ``pos`` into ``moves``; the stable part is kept while it is valid.

    ``moves`` must be the array the last call for this position wrote (a copied position keeps
    no moves, see ``copy_position``)."""
    if pos.vars[V_MOVES_KEPT] > 0:
        n = pos.vars[V_MOVES_KEPT] - 1
    else:
        n = game_generate_stable(pos, rules, moves)
        pos.vars[V_MOVES_KEPT] = n + 1
    return game_generate(pos, rules, moves, n)


@template(compile_as=kernel(inline="always"))
def apply_listed(pos, rules, move, rng):
    """Play a listed move: the game's ``apply``, after marking the kept moves stale if the move
    can change them.  Returns the game's progress flag."""
    if not game_keeps_moves(move):
        pos.vars[V_MOVES_KEPT] = 0
    return game_apply(pos, rules, move, rng)


@template(compile_as=kernel(inline="always"))
def is_won(pos):
    return pos.vars[V_FOUNDATION] == GAME_CARDS


class Trace(NamedTuple):
    """Every move of a deal and the position after it, one row per step (``piles[0]`` is the
    deal); arrays of no rows when not tracing."""

    moves: np.ndarray  # int64[steps - 1, MOVE_COLUMNS]
    piles: np.ndarray  # uint8[steps, n_piles, capacity]
    lens: np.ndarray  # int64[steps, n_piles]
    down: np.ndarray  # int64[steps, n_piles]


@kernel
def snapshot(step, pos, trace):
    for p in range(pos.lens.shape[0]):
        trace.lens[step, p] = pos.lens[p]
        trace.down[step, p] = pos.down[p]
        for i in range(pos.lens[p]):
            trace.piles[step, p, i] = pos.piles[p, i]


@template
def play_deal(deck, rules, policy, pos, moves, rng, work, guard, max_moves, trace):
    """Play one dealt deck to its end and return the end reason; ``pos.vars`` holds the counts."""
    clear_position(pos)
    game_setup(deck, rules, pos, rng)
    pos.vars[V_BEST_FOUNDATION] = pos.vars[V_FOUNDATION]
    if trace.moves.shape[0] > 0:
        snapshot(0, pos, trace)
    return play_on(rules, policy, pos, moves, rng, work, guard, max_moves, trace)


@template(compile_as=kernel(inline="always"))
def play_new(rules, policy, pos, moves, n, rng, work, guard):
    """Let the policy choose among the ``n`` listed moves and play its move, unless it leads
    back to a position seen since the last progress: then take it back, strike it from the
    list and let the policy choose again.

    Returns the row of the move played and whether it made progress; the row is -1 when the
    policy plays none of the moves left, -2 when every move repeated."""
    vars = pos.vars
    repeats = 0
    while True:
        pick = player_choose(pos, rules, moves, n, policy, rng, work)
        if pick < 0:
            return (-2 if n == 0 and repeats > 0 else -1), False
        copy_position(pos, guard.before)
        for k in range(rng.shape[0]):
            guard.rng_before[k] = rng[k]
        progress = apply_listed(pos, rules, moves[pick], rng)
        if vars[V_FOUNDATION] > vars[V_BEST_FOUNDATION]:
            vars[V_BEST_FOUNDATION] = vars[V_FOUNDATION]
            progress = True
        if progress:
            seen_clear(guard.seen)
            seen_add(guard.seen, hash_of(pos))
            return pick, True
        if seen_add(guard.seen, hash_of(pos)):
            return pick, False
        copy_position(guard.before, pos)  # a repeat: take it back (the list is listed afresh)
        for k in range(rng.shape[0]):
            rng[k] = guard.rng_before[k]
        strike(moves, n, pick)
        n -= 1
        repeats += 1


@template
def play_on(rules, policy, pos, moves, rng, work, guard, max_moves, trace):
    """Play ``pos`` to its end and return the end reason.

    No listed move: the game's hint ("stuck", or "no progress" when its rules refused a move
    for lack of progress).  Every listed move leads back to a position seen since the last
    progress: "no progress".  Moves left but the policy plays none of them: "gave up", so that
    "stuck" always means the rules allow no move.
    """
    vars = pos.vars
    tracing = trace.moves.shape[0] > 0
    idle = 0
    seen_clear(guard.seen)
    seen_add(guard.seen, hash_of(pos))
    while True:
        if is_won(pos):
            return WON
        if vars[V_MOVES] >= max_moves:
            return MOVE_CAP
        vars[V_END_HINT] = STUCK
        n = list_moves(pos, rules, moves)
        hint = vars[V_END_HINT]
        pick, progress = play_new(rules, policy, pos, moves, n, rng, work, guard)
        if pick == -2:
            return NO_PROGRESS
        if pick < 0:
            return hint if n == 0 else GAVE_UP
        vars[V_MOVES] += 1
        if tracing:
            for c in range(MOVE_COLUMNS):
                trace.moves[vars[V_MOVES] - 1, c] = moves[pick, c]
            snapshot(vars[V_MOVES], pos, trace)
        if progress:
            idle = 0
            vars[V_PASS_PROGRESS] = 1
        else:
            idle += 1
            if idle > IDLE_CAP:
                return IDLE_CUT


@allocating
def no_trace(n_piles, capacity):
    return Trace(np.zeros((0, MOVE_COLUMNS), dtype=np.int64),
            np.zeros((0, n_piles, capacity), dtype=np.uint8),
            np.zeros((0, n_piles), dtype=np.int64), np.zeros((0, n_piles), dtype=np.int64))


@entry_template
def run_batch(unshuffled, n_piles, capacity, rules, policy, work, seed, first, max_moves, out):
    """Play deals ``first .. first+len(out)-1`` of ``seed``, one record each into ``out``
    (``RECORD_DTYPE``)."""
    deck = np.empty_like(unshuffled)
    pos = new_position(n_piles, capacity)
    moves = np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64)
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    trace = no_trace(n_piles, capacity)
    guard = new_guard(n_piles, capacity)
    for k in range(out.shape[0]):
        deal_into(deck, unshuffled, rng, seed, first + k)
        end = play_deal(deck, rules, policy, pos, moves, rng, work, guard, max_moves, trace)
        record = out[k]
        record["deal"] = first + k
        record["won"] = end == WON
        record["foundation"] = pos.vars[V_FOUNDATION]
        record["moves"] = pos.vars[V_MOVES]
        record["passes"] = pos.vars[V_PASSES]
        record["end"] = end


@entry_template
def trace_deal(unshuffled, rules, policy, work, seed, index, max_moves, trace, vars):
    """Play one deal recording every move and the position after it; returns the end reason."""
    deck = np.empty_like(unshuffled)
    n_piles, capacity = trace.piles.shape[1], trace.piles.shape[2]
    pos = Position(np.zeros((n_piles, capacity), dtype=np.uint8),
                   np.zeros(n_piles, dtype=np.int64), np.zeros(n_piles, dtype=np.int64), vars)
    moves = np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64)
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    deal_into(deck, unshuffled, rng, seed, index)
    return play_deal(deck, rules, policy, pos, moves, rng, work, new_guard(n_piles, capacity),
                     max_moves, trace)


@entry_template
def legal_moves(pos, rules, moves):
    """The legal moves of a given position into ``moves``; returns how many.

    The position keeps its own ``moves`` array between calls because the stable part of the
    list is kept from one call to the next (Klondike's tableau moves while only the stock
    turns)."""
    return list_moves(pos, rules, moves)


@entry_template
def pick_move(pos, rules, policy, work, seed, moves, game_key):
    """The move a policy picks in a given position (for tests of what policies may see);
    ``game_key`` replaces the key of the game's own random stream (its future reshuffles)."""
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    init_streams(rng, seed, 0)
    if game_key != 0:
        rng[2 * GAME_STREAM] = np.uint64(game_key)
    n = list_moves(pos, rules, moves)
    pick = player_choose(pos, rules, moves, n, policy, rng, work)
    out = np.full(MOVE_COLUMNS, -1, dtype=np.int64)
    if pick >= 0:
        for c in range(MOVE_COLUMNS):
            out[c] = moves[pick, c]
    return out


@entry_template
def play_position(pos, rules, policy, work, seed, max_moves, moves):
    """Play a given position to its end with a policy and return the end reason (for tests of
    how games end); the position is left as the game ended."""
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    init_streams(rng, seed, 0)
    n_piles, capacity = pos.piles.shape[0], pos.piles.shape[1]
    return play_on(rules, policy, pos, moves, rng, work, new_guard(n_piles, capacity), max_moves,
                   no_trace(n_piles, capacity))


@entry_template
def hash_position(pos):
    """The position hash of a given position (engine/hashing.py), for tests and tools."""
    return hash_of(pos)


@entry_template
def apply_move(pos, rules, move, rng):
    """Apply one listed move to a given position (for tests)."""
    return apply_listed(pos, rules, move, rng)

