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
wanders ``IDLE_CAP`` moves without progress, each to a new position, is cut ("idle cap"), unless
its player plays a line it planned (the solver: its line is finite and never repeats).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simsol.engine.binder import _unbound, entry_template, template
from simsol.engine.hashing import (
    counters_hash,
    mix64,
    new_seen,
    pile_hash,
    position_hash,
    seen_add,
    seen_clear,
)
from simsol.engine.jit import allocating, kernel
from simsol.engine.layout import P_PLANS
from simsol.engine.state import (
    GAVE_UP,
    IDLE_CUT,
    M_DST,
    M_KIND,
    M_SRC,
    MAX_MOVES_LISTED,
    MOVE_CAP,
    MOVE_COLUMNS,
    NO_PROGRESS,
    STUCK,
    UNKNOWN_END,
    UNSOLVABLE_END,
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
from simsol.engine.streams import GAME_STREAM, N_STREAMS, POLICY_STREAM, deal_into, init_streams

# Moves without progress, each to a new position, before a game is cut ("idle cap").
IDLE_CAP = 200
DEFAULT_MAX_MOVES = 5000

game_setup = game_generate_stable = game_generate = game_apply = game_keeps_moves = _unbound
player_choose = _unbound
GAME_CARDS = 0  # the deck size: a game is won when every card is on the foundations
GAME_PILE_SALTS = np.zeros(1, dtype=np.uint64)  # the game's salts (engine/hashing.py)
GAME_STATE_VARS = np.zeros(0, dtype=np.int64)  # the counters that are part of its position
GAME_NARROW = np.zeros(1, dtype=np.uint8)  # by kind: 1 where a move changes only its two piles
GAME_PROGRESS = np.zeros(1, dtype=np.uint8)  # by kind: 1 where a move always makes progress


class Guard(NamedTuple):
    """The loop guard's space, made once per batch: the positions seen since the last progress,
    each pile's share of the current position's hash, and what the move being tried changes
    (to take it back).

    Two declarations of the game make it cheap, and neither is needed for correctness:
    * a move of a ``PROGRESS_KINDS`` kind always makes progress, so it can never be taken back
      and nothing is saved for it; after progress the new position is hashed only when a move
      that might be taken back follows (``pending``);
    * a move of a ``NARROW_KINDS`` kind changes no pile but its source and destination, so only
      those two are saved and rehashed; after any other move the shares are stale until needed.
    A move of a progress kind that makes none stops the run with an error.  With ``check`` set
    the loop also proves the narrow kinds, move by move: every kept hash against a hash of the
    whole position, every taken-back move's position against the one before it
    (tests/test_hashing.py runs it for every game)."""

    seen: object  # hashing.Seen
    before: Position  # the position before the move: its changed piles and its counters
    rng_before: np.ndarray
    shares: np.ndarray  # uint64[n_piles + 1]: each pile's share of the hash, then their sum
    flags: np.ndarray  # bool[3]: CHECK, PENDING, STALE


CHECK, PENDING, STALE = range(3)  # Guard.flags: prove as it goes; a hash to add; shares stale


@allocating
def new_guard(n_piles, capacity, check):
    flags = np.zeros(3, dtype=np.bool_)
    flags[CHECK] = check
    return Guard(new_seen(), new_position(n_piles, capacity),
                 np.zeros(2 * N_STREAMS, dtype=np.uint64), np.zeros(n_piles + 1, dtype=np.uint64),
                 flags)


@template(compile_as=kernel(inline="always"))
def hash_of(pos):
    return position_hash(pos, GAME_PILE_SALTS, GAME_STATE_VARS)


@template(compile_as=kernel(inline="always"))
def share_all(guard, pos):
    """Every pile's share of the hash afresh."""
    n_piles = pos.lens.shape[0]
    total = np.uint64(0)
    for p in range(n_piles):
        guard.shares[p] = pile_hash(pos, p, GAME_PILE_SALTS[p])
        total += guard.shares[p]
    guard.shares[n_piles] = total
    guard.flags[STALE] = False


@template(compile_as=kernel(inline="always"))
def share_pile(guard, pos, p):
    """Pile ``p``'s share afresh, the sum kept up to date."""
    total = guard.shares[pos.lens.shape[0]] - guard.shares[p]
    guard.shares[p] = pile_hash(pos, p, GAME_PILE_SALTS[p])
    guard.shares[pos.lens.shape[0]] = total + guard.shares[p]


@template(compile_as=kernel(inline="always"))
def kept_hash(guard, pos):
    """The position hash from the kept shares and the counters (equal to ``hash_of(pos)``)."""
    if guard.flags[STALE]:
        share_all(guard, pos)
    key = mix64(guard.shares[pos.lens.shape[0]] + counters_hash(pos, GAME_STATE_VARS))
    if guard.flags[CHECK] and key != hash_of(pos):
        raise AssertionError("the loop guard's kept hash differs from the position's: a move of "
                             "a kind declared narrow changed a third pile")
    return key


@template(compile_as=kernel(inline="always"))
def is_narrow(move, n_piles):
    return (GAME_NARROW[move[M_KIND]] != 0 and 0 <= move[M_SRC] < n_piles
            and 0 <= move[M_DST] < n_piles)


@kernel(inline="always")
def save_pile(src, dst, p):
    dst.lens[p] = src.lens[p]
    dst.down[p] = src.down[p]
    for i in range(src.lens[p]):
        dst.piles[p, i] = src.piles[p, i]


@template(compile_as=kernel(inline="always"))
def save_before(guard, pos, move, rng):
    """Keep what ``move`` can change, to take it back: its two piles or the whole position,
    the counters, and the random streams the game draws from (not the player's)."""
    if is_narrow(move, pos.lens.shape[0]):
        save_pile(pos, guard.before, move[M_SRC])
        save_pile(pos, guard.before, move[M_DST])
        for k in range(pos.vars.shape[0]):
            guard.before.vars[k] = pos.vars[k]
    else:
        copy_position(pos, guard.before)
    for k in range(rng.shape[0]):
        guard.rng_before[k] = rng[k]


@template(compile_as=kernel(inline="always"))
def share_move(guard, pos, move):
    """The shares after ``move``: its two piles afresh, or all of them stale after a wide move."""
    if guard.flags[STALE]:
        return
    if is_narrow(move, pos.lens.shape[0]):
        share_pile(guard, pos, move[M_SRC])
        if move[M_DST] != move[M_SRC]:
            share_pile(guard, pos, move[M_DST])
    else:
        guard.flags[STALE] = True


@template(compile_as=kernel(inline="always"))
def take_back(guard, pos, move, rng):
    """Undo ``move`` from what ``save_before`` kept (the player's random stream stays drawn)."""
    if is_narrow(move, pos.lens.shape[0]):
        save_pile(guard.before, pos, move[M_SRC])
        save_pile(guard.before, pos, move[M_DST])
        for k in range(pos.vars.shape[0]):
            pos.vars[k] = guard.before.vars[k]
        pos.vars[V_MOVES_KEPT] = 0  # the list was struck: its head is no longer the kept moves
    else:
        copy_position(guard.before, pos)
    share_move(guard, pos, move)
    for k in range(rng.shape[0]):
        if k // 2 != POLICY_STREAM:
            rng[k] = guard.rng_before[k]


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
def play_listed(pos, rules, move, rng):
    """``apply_listed`` in the game loop: a new best foundation count is progress as well."""
    progress = apply_listed(pos, rules, move, rng)
    if pos.vars[V_FOUNDATION] > pos.vars[V_BEST_FOUNDATION]:
        pos.vars[V_BEST_FOUNDATION] = pos.vars[V_FOUNDATION]
        progress = True
    return progress


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


@template(compile_as=kernel(inline="always"))
def start_deal(deck, rules, pos, rng, trace):
    """Lay out a dealt deck (``pos.vars`` then holds the counts from zero)."""
    clear_position(pos)
    game_setup(deck, rules, pos, rng)
    pos.vars[V_BEST_FOUNDATION] = pos.vars[V_FOUNDATION]
    if trace.moves.shape[0] > 0:
        snapshot(0, pos, trace)


@template(compile_as=kernel(inline="always"))
def play_new(rules, policy, pos, moves, n, rng, work, guard):
    """Let the policy choose among the ``n`` listed moves and play its move, unless it leads
    back to a position seen since the last progress: then take it back, strike it from the
    list and let the policy choose again.

    Returns the row of the move played and whether it made progress; the row is -1 when the
    policy plays none of the moves left, -2 when every move repeated."""
    repeats = 0
    flags = guard.flags
    while True:
        pick = player_choose(pos, rules, moves, n, policy, rng, work)
        if pick < 0:
            return (-2 if n == 0 and repeats > 0 else -1), False
        move = moves[pick]
        if policy[P_PLANS] != 0:  # a planned line (the solver's) is repeat-free by its search
            return pick, play_listed(pos, rules, move, rng)
        sure = GAME_PROGRESS[move[M_KIND]] != 0
        if not sure:  # it might be taken back: the position it leaves must be known
            if flags[PENDING]:
                seen_add(guard.seen, kept_hash(guard, pos))
                flags[PENDING] = False
            save_before(guard, pos, move, rng)
        key_before = hash_of(pos) if flags[CHECK] else np.uint64(0)
        progress = play_listed(pos, rules, move, rng)
        share_move(guard, pos, move)
        if progress:
            seen_clear(guard.seen)
            flags[PENDING] = True
            return pick, True
        if sure:
            raise AssertionError("a move of a kind declared to make progress made none")
        if seen_add(guard.seen, kept_hash(guard, pos)):
            return pick, False
        take_back(guard, pos, move, rng)  # a repeat: the list is listed afresh next time
        if flags[CHECK] and kept_hash(guard, pos) != key_before:
            raise AssertionError("a move taken back by the loop guard left another position")
        strike(moves, n, pick)
        n -= 1
        repeats += 1


@template
def play_deals(unshuffled, deck, seed, first, out, rules, policy, pos, moves, rng, work, guard,
               max_moves, trace):
    """Play deals ``first .. first+len(out)-1`` of ``seed`` to their ends, one record each into
    ``out``; with an ``out`` of no rows, play ``pos`` on as it stands instead
    (``play_position``).  Returns the last game's end reason.

    How a game ends.  No listed move: the game's hint ("stuck", or "no progress" when its rules
    refused a move for lack of progress).  Every listed move leads back to a position seen since
    the last progress: "no progress".  Moves left but the policy plays none of them: "gave up",
    so that "stuck" always means the rules allow no move.

    The deals' loop and the moves' loop are one compiled function, written out in one body.  A
    call into a compiled function takes a reference to every array it is passed, and ``work``
    holds every player's space (about a hundred arrays): a function called once a deal cost two
    hundred reference counts a deal, half the time of an Elevens deal; and a loop inlined from
    another function (numba's ``inline``) compiled seconds slower a game."""
    dealing = out.shape[0] > 0
    vars = pos.vars
    tracing = trace.moves.shape[0] > 0
    end = 0
    for k in range(max(out.shape[0], 1)):
        if dealing:
            deal_into(deck, unshuffled, rng, seed, first + k)
            start_deal(deck, rules, pos, rng, trace)
        idle = 0
        seen_clear(guard.seen)
        guard.flags[PENDING] = True  # the position now is added when a move might lead back
        guard.flags[STALE] = True
        while True:
            if is_won(pos):
                end = WON
                break
            if vars[V_MOVES] >= max_moves:
                end = MOVE_CAP
                break
            vars[V_END_HINT] = STUCK
            n = list_moves(pos, rules, moves)
            hint = vars[V_END_HINT]
            pick, progress = play_new(rules, policy, pos, moves, n, rng, work, guard)
            if pick == -2:
                end = NO_PROGRESS
                break
            if pick < 0:
                end = vars[V_END_HINT]  # a searching player's verdict (the solver's)
                if end != UNSOLVABLE_END and end != UNKNOWN_END:
                    end = hint if n == 0 else GAVE_UP
                break
            vars[V_MOVES] += 1
            if tracing:
                for c in range(MOVE_COLUMNS):
                    trace.moves[vars[V_MOVES] - 1, c] = moves[pick, c]
                snapshot(vars[V_MOVES], pos, trace)
            if progress:
                idle = 0
                vars[V_PASS_PROGRESS] = 1
            elif policy[P_PLANS] == 0:  # a planned line (the solver's) is finite, never repeats
                idle += 1
                if idle > IDLE_CAP:
                    end = IDLE_CUT
                    break
        if dealing:
            record = out[k]
            record["deal"] = first + k
            record["won"] = end == WON
            record["foundation"] = vars[V_FOUNDATION]
            record["moves"] = vars[V_MOVES]
            record["passes"] = vars[V_PASSES]
            record["end"] = end
    return end


@allocating
def no_trace(n_piles, capacity):
    return Trace(np.zeros((0, MOVE_COLUMNS), dtype=np.int64),
            np.zeros((0, n_piles, capacity), dtype=np.uint8),
            np.zeros((0, n_piles), dtype=np.int64), np.zeros((0, n_piles), dtype=np.int64))


def untraced(n_piles: int, capacity: int) -> Trace:
    """``no_trace`` made in Python: the ``trace`` of a ``run_batch`` that records nothing."""
    return Trace(np.zeros((0, MOVE_COLUMNS), dtype=np.int64),
                 np.zeros((0, n_piles, capacity), dtype=np.uint8),
                 np.zeros((0, n_piles), dtype=np.int64), np.zeros((0, n_piles), dtype=np.int64))


@entry_template
def run_batch(unshuffled, n_piles, capacity, rules, policy, work, seed, first, max_moves, out,
              check, trace):
    """Play deals ``first .. first+len(out)-1`` of ``seed``, one record each into ``out``
    (``RECORD_DTYPE``); ``check`` proves the loop guard's bookkeeping move by move (tests).

    ``trace`` records every move and the position after it (one deal, ``simsol show`` and the
    tests), or has no rows (``untraced``): one entry point for both, since each entry point
    that plays deals links and optimizes the whole loop again (seconds a game to compile)."""
    deck = np.empty_like(unshuffled)
    pos = new_position(n_piles, capacity)
    moves = np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64)
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    guard = new_guard(n_piles, capacity, check)
    if out.shape[0] > 0:  # no rows would mean "play ``pos`` as it stands" (play_position)
        play_deals(unshuffled, deck, seed, first, out, rules, policy, pos, moves, rng, work,
                   guard, max_moves, trace)


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
def play_position(pos, rules, policy, work, seed, max_moves, moves, unshuffled, no_records):
    """Play a given position to its end with a policy and return the end reason (for tests of
    how games end); the position is left as the game ended.  ``unshuffled`` (the game's deck)
    and ``no_records`` (records of no rows) come from Python as ``run_batch``'s do, and the
    first deal is an ``int64`` as there (a literal 0 would be typed ``Literal[int](0)``), so
    that ``play_deals`` is compiled once for both: a second copy costs seconds a game."""
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    init_streams(rng, seed, 0)
    n_piles, capacity = pos.piles.shape[0], pos.piles.shape[1]
    guard = new_guard(n_piles, capacity, True)  # a tool's slow path: prove the guard as it goes
    return play_deals(unshuffled, np.empty_like(unshuffled), seed, np.int64(0), no_records, rules,
                      policy, pos, moves, rng, work, guard, max_moves,
                      no_trace(n_piles, capacity))


@entry_template
def hash_position(pos):
    """The position hash of a given position (engine/hashing.py), for tests and tools."""
    return hash_of(pos)


@entry_template
def apply_move(pos, rules, move, rng):
    """Apply one listed move to a given position (for tests)."""
    return apply_listed(pos, rules, move, rng)

