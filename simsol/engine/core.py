"""The game loop every game shares, the move-choice kernel, and the batch runner.

A game supplies three compiled functions over one state layout (cards in a 2-D ``piles`` array,
``lens`` and face-down counts ``down`` per pile, and a small ``vars`` array of counters):

* ``setup(deck, rules, piles, lens, down, vars, rng)`` lays out a shuffled deck;
* ``generate(piles, lens, down, vars, rules, moves) -> n`` writes the legal moves, one row each
  (kind, source pile, destination pile, card count, card, spare), computed from visible cards.
  A game may keep the head of the list from its last call while only its stock moved
  (``vars[V_MOVES_KEPT]``, cleared by ``apply`` for every other move): the caller always hands
  the same ``moves`` array back for the same position;
* ``apply(piles, lens, down, vars, rules, move, rng) -> progress`` plays one move and says
  whether it made irreversible progress (a card turned up, a card out of the stock or waste, a
  new high on the foundations).

The loop here asks the policy to choose among the moves, enforces the move cap and the
no-progress cut, and optionally records a full trace.  Nothing in it allocates per move.
"""

from __future__ import annotations

import re
import types
from types import SimpleNamespace

import numpy as np

from simsol.deals import (
    GAME_STREAM,
    N_STREAMS,
    POLICY_STREAM,
    below,
    deal_into,
    init_streams,
    next_word,
    shuffle,
)
from simsol.engine.jit import allocating, entry, kernel

# How a game ended (the ``end`` column of every record).  "stuck": the rules allow no move;
# "gave up": they allow some, but the policy plays none of them.  New reasons are appended, so a
# stored code keeps its meaning.
WON, STUCK, NO_PROGRESS, MOVE_CAP, GAVE_UP = 0, 1, 2, 3, 4
END_REASONS = ("won", "stuck", "no progress", "move cap", "gave up")

# Indices into ``vars``: counters the loop and the shared pile helpers read and write.
V_FOUNDATION = 0  # cards on the foundations (or removed, in pairing games)
V_WON = 1  # set by a game's apply when the deal is won
V_PASSES = 2  # passes through the stock begun (1 at the start when there is a stock)
V_REDEALS = 3  # redeals used
V_PASS_PROGRESS = 4  # progress made during the current pass
V_END_HINT = 5  # why there is no move, when it is not plainly "stuck"
V_MOVES = 6
V_BEST_FOUNDATION = 7  # the highest foundation count so far (worrying back is not progress)
V_MOVES_KEPT = 8  # 1 + how many moves at the head of the list the game may keep next call
V_GAME = 9  # first index a game may use for its own counters
N_VARS = 16

# Columns of a move row.
M_KIND, M_SRC, M_DST, M_COUNT, M_CARD, M_SPARE = 0, 1, 2, 3, 4, 5
MOVE_COLUMNS = 6
MAX_MOVES_LISTED = 2048

# Moves without progress before a game is cut as looping ("no progress").
IDLE_CAP = 1000
DEFAULT_MAX_MOVES = 5000

# Policy arrays (float64), filled by simsol.policies.compile_policy:
P_TYPE, P_KINDS, P_TIES, P_SAMPLES, P_DEPTH, P_SEES_HIDDEN, P_ROLLOUT = range(7)
P_FEATURES = 7  # heuristic feature weights, N_FEATURES of them
N_FEATURES = 6
P_PRIORITY = P_FEATURES + N_FEATURES  # per move kind: greedy priority / heuristic kind weight
RANDOM, GREEDY, HEURISTIC, LOOKAHEAD = 0, 1, 2, 3
NEVER = -1.0  # a kind the policy never plays
# Move features a heuristic weighs (all read from visible state):
F_REVEAL, F_EMPTIES, F_HIDDEN_UNDER, F_CARDS, F_INTO_SPACE, F_SOURCE_LENGTH = range(N_FEATURES)
FEATURE_NAMES = ("reveal", "empties", "hidden_under", "cards", "into_space", "source_length")


@kernel
def choose(moves, n, policy):
    """Greedy: the move whose kind has the best (lowest) priority, the first generated on ties."""
    best = -1
    best_priority = 1e300
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
def move_score(move, policy, lens, down):
    """A heuristic's score of one move: its kind's weight plus weighted features of what it does
    to the visible position (face-down cards are only counted, never read)."""
    src = move[M_SRC]
    left = lens[src] - move[M_COUNT]
    score = policy[P_PRIORITY + move[M_KIND]]
    score += policy[P_FEATURES + F_REVEAL] * (left > 0 and left == down[src])
    score += policy[P_FEATURES + F_EMPTIES] * (left == 0)
    score += policy[P_FEATURES + F_HIDDEN_UNDER] * down[src]
    score += policy[P_FEATURES + F_CARDS] * move[M_COUNT]
    score += policy[P_FEATURES + F_INTO_SPACE] * (lens[move[M_DST]] == 0)
    score += policy[P_FEATURES + F_SOURCE_LENGTH] * lens[src]
    return score


@kernel
def choose_heuristic(moves, n, policy, lens, down, rng):
    """The allowed move with the highest score; ties go to the first or a random one."""
    best = -1
    best_score = -1e300
    ties = 0
    for i in range(n):
        if policy[P_PRIORITY + moves[i, M_KIND]] == NEVER:
            continue
        score = move_score(moves[i], policy, lens, down)
        if score > best_score:
            best, best_score, ties = i, score, 1
        elif score == best_score and policy[P_TIES] == 1:
            ties += 1
            if below(rng, POLICY_STREAM, ties) == 0:
                best = i
    return best


@kernel
def choose_fast(moves, n, policy, lens, down, rng):
    """One step of the non-searching policies (also the look-ahead's roll-out player)."""
    kind = policy[P_TYPE] if policy[P_TYPE] != LOOKAHEAD else policy[P_ROLLOUT]
    if kind == RANDOM:
        return choose_random(moves, n, policy, rng)
    if kind == HEURISTIC:
        return choose_heuristic(moves, n, policy, lens, down, rng)
    return choose(moves, n, policy)


@kernel
def copy_state(piles, lens, down, vars, to_piles, to_lens, to_down, to_vars):
    for p in range(lens.shape[0]):
        to_lens[p] = lens[p]
        to_down[p] = down[p]
        for i in range(lens[p]):
            to_piles[p, i] = piles[p, i]
    for i in range(vars.shape[0]):
        to_vars[i] = vars[i]


@kernel
def sample_hidden(piles, lens, down, rng, hidden):
    """Deal the face-down cards again at random among the face-down places: one world the
    player cannot tell from the real one.  The cards are sorted first, so the sample depends
    only on which cards are unseen, never on where they really lie."""
    count = 0
    for p in range(lens.shape[0]):
        for i in range(down[p]):
            hidden[count] = piles[p, i]
            count += 1
    for i in range(1, count):  # insertion sort: at most a hundred cards
        card = hidden[i]
        j = i - 1
        while j >= 0 and hidden[j] > card:
            hidden[j + 1] = hidden[j]
            j -= 1
        hidden[j + 1] = card
    shuffle(hidden, count, rng, POLICY_STREAM)
    count = 0
    for p in range(lens.shape[0]):
        for i in range(down[p]):
            piles[p, i] = hidden[count]
            count += 1


def _bound_per_game(*args):
    """Stands in for a game's kernel in the templates below; ``game_entries`` binds the real
    ``setup``, ``generate`` and ``apply`` of each game in their place."""
    raise NotImplementedError("templates run only through game_entries(game)")


game_setup = game_generate = game_apply = _bound_per_game


def choose_lookahead(piles, lens, down, vars, rules, moves, n, policy, rng,
                     scratch_piles, scratch_lens, scratch_down, scratch_vars, scratch_moves,
                     world_piles, world_down, world_lens, world_vars, scratch_rng, hidden, totals):
    """Sample the unseen cards ``P_SAMPLES`` times; in each sampled world play every allowed
    move, then the roll-out policy for up to ``P_DEPTH`` moves, and score the cards played out
    (a win counts double).  The move with the best total wins; every candidate sees the same
    worlds.  The game's future randomness (a reshuffle) is sampled as well, never read.  With
    ``P_SEES_HIDDEN`` the real cards and the real future are used (an upper-bound mode)."""
    candidates = 0
    first = -1
    for i in range(n):
        totals[i] = 0.0
        if policy[P_PRIORITY + moves[i, M_KIND]] != NEVER:
            candidates += 1
            if first < 0:
                first = i
    if candidates <= 1:
        return first
    samples = 1 if policy[P_SEES_HIDDEN] == 1 else int(policy[P_SAMPLES])
    for _ in range(samples):
        copy_state(piles, lens, down, vars, world_piles, world_lens, world_down, world_vars)
        future = np.uint64(0)  # the game's own future randomness (Strata's reshuffles) ...
        if policy[P_SEES_HIDDEN] != 1:
            sample_hidden(world_piles, world_lens, world_down, rng, hidden)
            future = next_word(rng, POLICY_STREAM)  # ... is sampled too, unless it may be seen
        for i in range(n):
            if policy[P_PRIORITY + moves[i, M_KIND]] == NEVER:
                continue
            copy_state(world_piles, world_lens, world_down, world_vars,
                       scratch_piles, scratch_lens, scratch_down, scratch_vars)
            for r in range(n):  # the list the game may keep part of between calls
                for c in range(MOVE_COLUMNS):
                    scratch_moves[r, c] = moves[r, c]
            for k in range(rng.shape[0]):
                scratch_rng[k] = rng[k]
            if policy[P_SEES_HIDDEN] != 1:  # a sampled future, independent of the real one
                scratch_rng[2 * GAME_STREAM] = future
                scratch_rng[2 * GAME_STREAM + 1] = 0
            game_apply(scratch_piles, scratch_lens, scratch_down, scratch_vars, rules, moves[i],
                       scratch_rng)
            for _ in range(int(policy[P_DEPTH])):
                if scratch_vars[V_WON]:
                    break
                m = game_generate(scratch_piles, scratch_lens, scratch_down, scratch_vars, rules,
                                  scratch_moves)
                pick = choose_fast(scratch_moves, m, policy, scratch_lens, scratch_down,
                                   scratch_rng)
                if pick < 0:
                    break
                game_apply(scratch_piles, scratch_lens, scratch_down, scratch_vars, rules,
                           scratch_moves[pick], scratch_rng)
            totals[i] += scratch_vars[V_FOUNDATION] * (1 + scratch_vars[V_WON])
    best = first
    for i in range(n):
        if policy[P_PRIORITY + moves[i, M_KIND]] != NEVER and totals[i] > totals[best]:
            best = i
    return best


@kernel
def snapshot(step, piles, lens, down, tr_piles, tr_lens, tr_down):
    for p in range(piles.shape[0]):
        tr_lens[step, p] = lens[p]
        tr_down[step, p] = down[p]
        for i in range(lens[p]):
            tr_piles[step, p, i] = piles[p, i]


def choose_move(piles, lens, down, vars, rules, moves, n, policy, rng, work):
    """The policy's pick among the ``n`` listed moves (-1: none); ``work`` is ``make_work``'s."""
    if policy[P_TYPE] == LOOKAHEAD:
        return choose_lookahead(piles, lens, down, vars, rules, moves, n, policy, rng, work[0],
                                work[1], work[2], work[3], work[4], work[5], work[6], work[7],
                                work[8], work[9], work[10], work[11])
    return choose_fast(moves, n, policy, lens, down, rng)


def play_deal(deck, rules, policy, piles, lens, down, vars, moves, rng,
              max_moves, tr_moves, tr_piles, tr_lens, tr_down, work):
    """Play one dealt deck to its end and return the end reason; ``vars`` holds the counters."""
    for p in range(lens.shape[0]):
        lens[p] = 0
        down[p] = 0
    for i in range(vars.shape[0]):
        vars[i] = 0
    game_setup(deck, rules, piles, lens, down, vars, rng)
    vars[V_BEST_FOUNDATION] = vars[V_FOUNDATION]
    if tr_moves.shape[0] > 0:
        snapshot(0, piles, lens, down, tr_piles, tr_lens, tr_down)
    return play_on(rules, policy, piles, lens, down, vars, moves, rng, max_moves, tr_moves,
                   tr_piles, tr_lens, tr_down, work)


def play_on(rules, policy, piles, lens, down, vars, moves, rng, max_moves, tr_moves, tr_piles,
            tr_lens, tr_down, work):
    """Play the position in the arrays to its end and return the end reason.

    No listed move: the game's hint ("stuck", or "no progress" when it refused a redeal or a
    turn for lack of progress).  Moves listed but the policy plays none of them: "gave up", so
    that "stuck" always means the rules allow no move.
    """
    tracing = tr_moves.shape[0] > 0
    idle = 0
    while True:
        if vars[V_WON]:
            return WON
        if vars[V_MOVES] >= max_moves:
            return MOVE_CAP
        vars[V_END_HINT] = STUCK
        n = game_generate(piles, lens, down, vars, rules, moves)
        pick = choose_move(piles, lens, down, vars, rules, moves, n, policy, rng, work)
        if pick < 0:
            return vars[V_END_HINT] if n == 0 else GAVE_UP
        progress = game_apply(piles, lens, down, vars, rules, moves[pick], rng)
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


@allocating
def make_work(n_piles, capacity, deck_size):
    """The scratch arrays a look-ahead player needs, made once per batch."""
    return (np.zeros((n_piles, capacity), dtype=np.uint8), np.zeros(n_piles, dtype=np.int64),
            np.zeros(n_piles, dtype=np.int64), np.zeros(N_VARS, dtype=np.int64),
            np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64),
            np.zeros((n_piles, capacity), dtype=np.uint8), np.zeros(n_piles, dtype=np.int64),
            np.zeros(n_piles, dtype=np.int64), np.zeros(N_VARS, dtype=np.int64),
            np.zeros(2 * N_STREAMS, dtype=np.uint64), np.zeros(deck_size, dtype=np.uint8),
            np.zeros(MAX_MOVES_LISTED, dtype=np.float64))


def run_batch(unshuffled, n_piles, capacity, rules, policy, seed, first,
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
    work = make_work(n_piles, capacity, unshuffled.shape[0])
    for k in range(count):
        deal_into(deck, unshuffled, rng, seed, first + k)
        end[k] = play_deal(deck, rules, policy, piles, lens, down, vars,
                           moves, rng, max_moves, no_moves, no_piles, no_counts, no_counts, work)
        won[k] = end[k] == WON
        foundation[k] = vars[V_FOUNDATION]
        n_moves[k] = vars[V_MOVES]
        passes[k] = vars[V_PASSES]


def trace_deal(unshuffled, n_piles, capacity, rules, policy, seed, index,
               max_moves, tr_moves, tr_piles, tr_lens, tr_down, vars):
    """Play one deal recording every move and the state after it; returns the end reason."""
    deck = np.empty_like(unshuffled)
    piles = np.zeros((n_piles, capacity), dtype=np.uint8)
    lens = np.zeros(n_piles, dtype=np.int64)
    down = np.zeros(n_piles, dtype=np.int64)
    moves = np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64)
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    deal_into(deck, unshuffled, rng, seed, index)
    work = make_work(n_piles, capacity, unshuffled.shape[0])
    return play_deal(deck, rules, policy, piles, lens, down, vars, moves, rng, max_moves,
                     tr_moves, tr_piles, tr_lens, tr_down, work)


def legal_moves(piles, lens, down, vars, rules, moves):
    """Write the legal moves of a given position into ``moves`` and return how many.

    The position keeps its own ``moves`` array between calls because a game may keep part of the
    list from one call to the next (Klondike's tableau moves while only the stock turns)."""
    return game_generate(piles, lens, down, vars, rules, moves)


def pick_move(piles, lens, down, vars, rules, policy, seed, moves, game_key):
    """The move a policy picks in a given position (for tests of what policies may see);
    ``game_key`` replaces the key of the game's own random stream (its future reshuffles)."""
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    init_streams(rng, seed, 0)
    if game_key != 0:
        rng[2 * GAME_STREAM] = np.uint64(game_key)
    work = make_work(lens.shape[0], piles.shape[1], 128)
    n = game_generate(piles, lens, down, vars, rules, moves)
    pick = choose_move(piles, lens, down, vars, rules, moves, n, policy, rng, work)
    return moves[pick].copy() if pick >= 0 else np.full(MOVE_COLUMNS, -1, dtype=np.int64)


def apply_move(piles, lens, down, vars, rules, move, rng):
    """Apply one move to a given position (for tests)."""
    return game_apply(piles, lens, down, vars, rules, move, rng)


def play_position(piles, lens, down, vars, rules, policy, seed, max_moves, moves):
    """Play a given position to its end with a policy and return the end reason (for tests of
    how games end); the arrays are left as the game ended."""
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    init_streams(rng, seed, 0)
    no_moves = np.zeros((0, MOVE_COLUMNS), dtype=np.int64)
    no_piles = np.zeros((0, lens.shape[0], piles.shape[1]), dtype=np.uint8)
    no_counts = np.zeros((0, lens.shape[0]), dtype=np.int64)
    work = make_work(lens.shape[0], piles.shape[1], 128)
    return play_on(rules, policy, piles, lens, down, vars, moves, rng, max_moves, no_moves,
                   no_piles, no_counts, no_counts, work)


KERNEL_TEMPLATES = (choose_lookahead, choose_move, play_on, play_deal)
ENTRY_TEMPLATES = (run_batch, trace_deal, legal_moves, pick_move, apply_move, play_position)
_BOUND: dict[str, SimpleNamespace] = {}


def game_entries(game) -> SimpleNamespace:
    """The compiled entry points (``run_batch``, ``trace_deal``, ``legal_moves``, ``pick_move``,
    ``apply_move``, ``play_position``) for one game, cached on disk.

    Each game gets its own copies of the templates above (the game loop, the look-ahead and the
    entry points), with its kernels bound as the globals ``game_setup``, ``game_generate`` and
    ``game_apply`` and qualified names of its own.  Passing the kernels as arguments instead
    would put every game's kernels into one shared cache index, which numba cannot write back
    once another game's kernels are not loaded.
    """
    if game.name not in _BOUND:
        namespace = dict(globals(), game_setup=game.setup, game_generate=game.generate,
                         game_apply=game.apply)
        suffix = re.sub(r"\W", "_", game.name)

        def bound(template, decorate):
            function = types.FunctionType(template.__code__, namespace, template.__name__,
                                          template.__defaults__)
            function.__qualname__ = f"{template.__name__}_{suffix}"
            namespace[template.__name__] = decorate(function)
            return namespace[template.__name__]

        for template in KERNEL_TEMPLATES:  # choose_move runs every move: inline it
            bound(template, kernel(inline="always" if template is choose_move else "never"))
        entries = {template.__name__: bound(template, entry) for template in ENTRY_TEMPLATES}
        _BOUND[game.name] = SimpleNamespace(**entries)
    return _BOUND[game.name]
