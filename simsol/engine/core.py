"""The game loop every game shares, the move-choice kernel, and the batch runner.

A game supplies three compiled functions over one state layout (cards in a 2-D ``piles`` array,
``lens`` and face-down counts ``down`` per pile, and a small ``vars`` array of counters):

* ``setup(deck, rules, piles, lens, down, vars, rng)`` lays out a shuffled deck;
* ``generate(piles, lens, down, vars, rules, moves) -> n`` writes the legal moves, one row each
  (kind, source pile, destination pile, card count, card, spare), computed from visible cards;
* ``apply(piles, lens, down, vars, rules, move, rng) -> progress`` plays one move and says
  whether it made irreversible progress (a card turned up, a card out of the stock or waste, a
  new high on the foundations).

The loop here asks the policy to choose among the moves, enforces the move cap and the
no-progress cut, and optionally records a full trace.  Nothing in it allocates per move.
"""

from __future__ import annotations

from simsol.engine.jit import entry, kernel
import numpy as np

from simsol.deals import N_STREAMS, POLICY_STREAM, below, deal_into

# How a game ended (the ``end`` column of every record).
WON, STUCK, NO_PROGRESS, MOVE_CAP = 0, 1, 2, 3
END_REASONS = ("won", "stuck", "no progress", "move cap")

# Indices into ``vars``: counters the loop and the shared pile helpers read and write.
V_FOUNDATION = 0  # cards on the foundations (or removed, in pairing games)
V_WON = 1  # set by a game's apply when the deal is won
V_PASSES = 2  # passes through the stock begun (1 at the start when there is a stock)
V_REDEALS = 3  # redeals used
V_PASS_PROGRESS = 4  # progress made during the current pass
V_END_HINT = 5  # why there is no move, when it is not plainly "stuck"
V_MOVES = 6
V_BEST_FOUNDATION = 7  # the highest foundation count so far (worrying back is not progress)
V_GAME = 8  # first index a game may use for its own counters
N_VARS = 16

# Columns of a move row.
M_KIND, M_SRC, M_DST, M_COUNT, M_CARD, M_SPARE = 0, 1, 2, 3, 4, 5
MOVE_COLUMNS = 6
MAX_MOVES_LISTED = 2048

# Moves without progress before a game is cut as looping ("no progress").
IDLE_CAP = 1000
DEFAULT_MAX_MOVES = 5000

# Policy arrays: [type, number of move kinds, priority of kind 0, ...]; priority -1 = never.
P_TYPE, P_KINDS, P_PRIORITY = 0, 1, 2
RANDOM, GREEDY = 0, 1
NEVER = -1


@kernel
def choose(moves, n, policy):
    """Greedy choice: the move whose kind has the best (lowest) priority, first generated on ties."""
    best = -1
    best_priority = 1 << 30
    for i in range(n):
        priority = policy[P_PRIORITY + moves[i, M_KIND]]
        if priority != NEVER and priority < best_priority:
            best = i
            best_priority = priority
    return best


@kernel
def choose_random(moves, n, policy, rng):
    """Uniform over the moves whose kind the policy allows."""
    allowed = 0
    for i in range(n):
        if policy[P_PRIORITY + moves[i, M_KIND]] != NEVER:
            allowed += 1
    if allowed == 0:
        return -1
    pick = below(rng, POLICY_STREAM, allowed)
    for i in range(n):
        if policy[P_PRIORITY + moves[i, M_KIND]] != NEVER:
            if pick == 0:
                return i
            pick -= 1
    return -1


@kernel
def snapshot(step, piles, lens, down, tr_piles, tr_lens, tr_down):
    for p in range(piles.shape[0]):
        tr_lens[step, p] = lens[p]
        tr_down[step, p] = down[p]
        for i in range(lens[p]):
            tr_piles[step, p, i] = piles[p, i]


@kernel
def play_deal(setup, generate, apply, deck, rules, policy, piles, lens, down, vars, moves, rng,
              max_moves, tr_moves, tr_piles, tr_lens, tr_down):
    """Play one dealt deck to its end and return the end reason; ``vars`` holds the counters."""
    for p in range(lens.shape[0]):
        lens[p] = 0
        down[p] = 0
    for i in range(vars.shape[0]):
        vars[i] = 0
    setup(deck, rules, piles, lens, down, vars, rng)
    vars[V_BEST_FOUNDATION] = vars[V_FOUNDATION]
    tracing = tr_moves.shape[0] > 0
    if tracing:
        snapshot(0, piles, lens, down, tr_piles, tr_lens, tr_down)
    idle = 0
    while True:
        if vars[V_WON]:
            return WON
        if vars[V_MOVES] >= max_moves:
            return MOVE_CAP
        vars[V_END_HINT] = STUCK
        n = generate(piles, lens, down, vars, rules, moves)
        if policy[P_TYPE] == RANDOM:
            pick = choose_random(moves, n, policy, rng)
        else:
            pick = choose(moves, n, policy)
        if pick < 0:
            return vars[V_END_HINT]
        progress = apply(piles, lens, down, vars, rules, moves[pick], rng)
        vars[V_MOVES] += 1
        if tracing:
            for c in range(MOVE_COLUMNS):
                tr_moves[vars[V_MOVES] - 1, c] = moves[pick, c]
            snapshot(vars[V_MOVES], piles, lens, down, tr_piles, tr_lens, tr_down)
        if vars[V_FOUNDATION] > vars[V_BEST_FOUNDATION]:
            vars[V_BEST_FOUNDATION] = vars[V_FOUNDATION]
            progress = True
        if progress:
            idle = 0
            vars[V_PASS_PROGRESS] = 1
        else:
            idle += 1
            if idle > IDLE_CAP:
                return NO_PROGRESS


@entry
def run_batch(setup, generate, apply, unshuffled, n_piles, capacity, rules, policy, seed, first,
              count, max_moves, won, foundation, n_moves, passes, end):
    """Play deals ``first .. first+count-1`` of ``seed``, writing one record each."""
    deck = np.empty_like(unshuffled)
    piles = np.zeros((n_piles, capacity), dtype=np.uint8)
    lens = np.zeros(n_piles, dtype=np.int64)
    down = np.zeros(n_piles, dtype=np.int64)
    vars = np.zeros(N_VARS, dtype=np.int64)
    moves = np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64)
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    no_moves = np.zeros((0, MOVE_COLUMNS), dtype=np.int64)
    no_piles = np.zeros((0, n_piles, capacity), dtype=np.uint8)
    no_counts = np.zeros((0, n_piles), dtype=np.int64)
    for k in range(count):
        deal_into(deck, unshuffled, rng, seed, first + k)
        end[k] = play_deal(setup, generate, apply, deck, rules, policy, piles, lens, down, vars,
                           moves, rng, max_moves, no_moves, no_piles, no_counts, no_counts)
        won[k] = end[k] == WON
        foundation[k] = vars[V_FOUNDATION]
        n_moves[k] = vars[V_MOVES]
        passes[k] = vars[V_PASSES]


@entry
def trace_deal(setup, generate, apply, unshuffled, n_piles, capacity, rules, policy, seed, index,
               max_moves, tr_moves, tr_piles, tr_lens, tr_down, vars):
    """Play one deal recording every move and the state after it; returns the end reason."""
    deck = np.empty_like(unshuffled)
    piles = np.zeros((n_piles, capacity), dtype=np.uint8)
    lens = np.zeros(n_piles, dtype=np.int64)
    down = np.zeros(n_piles, dtype=np.int64)
    moves = np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64)
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    deal_into(deck, unshuffled, rng, seed, index)
    return play_deal(setup, generate, apply, deck, rules, policy, piles, lens, down, vars, moves,
                     rng, max_moves, tr_moves, tr_piles, tr_lens, tr_down)


@entry
def legal_moves(generate, piles, lens, down, vars, rules):
    """The legal moves of a given position (for tests and the move-by-move display)."""
    moves = np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64)
    n = generate(piles, lens, down, vars, rules, moves)
    return moves[:n].copy()


@entry
def apply_move(apply, piles, lens, down, vars, rules, move, rng):
    """Apply one move to a given position (for tests)."""
    return apply(piles, lens, down, vars, rules, move, rng)
