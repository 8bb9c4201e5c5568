"""The hop player: hindsight optimisation over the worlds the player cannot tell apart.

At a decision with more than one move, the player deals the unseen cards again at random among
the unseen places (``sample_unseen``, as the look-ahead does: the sample depends only on which
cards are unseen and on what it remembers, never on where they lie) and draws a future for the
game's own randomness (Strata's reshuffles), ``samples`` times. In each sampled world every
candidate move is played and the exact solver (engine/solver.py) searches on from there with a
small budget of ``nodes`` positions: a world it wins counts 1, one it proves lost 0, and one it
could not decide half (``fallback = "even"``; ``"progress"`` counts how far its search got, the
most foundation cards of any position it reached as a share of the deck; ``"none"`` counts it
0). The move with the highest total is played; equal totals go to the heuristic's better move
(its weights, visible cards only). So where the budget decides no world, hop plays as the
heuristic does, and it departs from it where the solver sees a move win, or lose, in the worlds.

What the player may know: the face-up cards, how many lie face down in each pile, and every
card it has seen face up earlier in the deal, in the place the visible moves since have taken
it to (in Klondike, the stock's order once it has been turned through; in Canfield the same).
Only cards never seen are dealt at random.  The memory is forgotten when the game draws on its
own randomness (Strata's reshuffle: the player cannot follow where the cards went).  The two
packs of a two-pack game have their own card codes, so each copy is remembered where it went; a
deck with two equal codes would keep no memory (a face-down copy could be either).
``remember`` keeps this memory, move by move, from the visible cards alone; the sample depends
only on it and on which cards are unseen, never on where the unseen ones lie.

With ``lines`` the candidates are lines instead of single moves (lonelybot's hop loop judges
its candidates so): a move that makes no progress (a run moved between piles, a turn through a
stock already seen) leaves a position a solver that sees the world values as the one before it,
so judged alone such moves tie and the heuristic chooses.  ``list_lines`` searches, breadth
first, the positions reached by moves that make no progress and show no card never seen; every
move from them that does (or wins) ends a line.  Each line is judged as a move is, the best is
played through move by move (``follow_plan``), and a move the loop guard strikes sends hop back
to judging.

The solver sees everything in the sampled world, which is the idea: a world is a guess at the
truth, and the solver's verdict in it is what a perfect player would get if the guess were
right.  Averaging over guesses is what Bjarnason, Fern and Tadepalli call hindsight
optimisation (ICAPS 2009).
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from simsol.engine import solver
from simsol.engine.binder import entry_template, template
from simsol.engine.choice import allowed, move_score  # bound per game (binder.py)
from simsol.engine.jit import kernel
from simsol.engine.layout import Setting, own_slots
from simsol.engine.loop import apply_listed, hash_of, is_won, list_moves  # bound per game
from simsol.engine.search import sample_unseen, start_totals
from simsol.engine.solver import (  # bound per game
    MOST_FOUNDATION,
    SOLVABLE,
    UNKNOWN,
    next_of_line,
    proven_safe,
    solve,
)
from simsol.engine.state import (
    MAX_MOVES_LISTED,
    MOVE_COLUMNS,
    V_BEST_FOUNDATION,
    V_FOUNDATION,
    V_MOVES,
    V_MOVES_KEPT,
    Position,
    copy_position,
    make_position,
)
from simsol.engine.streams import GAME_STREAM, N_STREAMS, POLICY_STREAM, init_streams, next_word

FALLBACKS = ("even", "progress", "none")
# The solver's settings come first, in its slots: the solver reads them as its own (its flags
# with its defaults, so a world is searched as the solver searches a deal).
# Where a world's small budget is split otherwise than a deal's: no search of the game's
# relaxation, and half for the last search whatever the game (not its SOLVER_DEFAULTS).
HOP_SOLVER_DEFAULTS = {"relax_share": 0.0}
HOP_SETTINGS = (
    Setting("nodes", 5_000, "positions the solver may visit in each sampled world, per "
            "candidate move", low=1, high=10**9),
    Setting("table_mb", 4, "megabytes of the solver's transposition table", low=1, high=16_384),
    Setting("depth", 400, "the longest line the solver searches in a world", low=1,
            high=100_000),
    *(replace(s, default=HOP_SOLVER_DEFAULTS[s.name]) if s.name in HOP_SOLVER_DEFAULTS else s
      for s in solver.SOLVER_SETTINGS[3:]),
    Setting("samples", 4, "worlds sampled per decision", low=1, high=10_000),
    Setting("fallback", "even", "what a world the solver could not decide counts: half a win "
            "(even), how far its search got (progress: the share of cards it brought to the "
            "foundations), or nothing (none)", choices=FALLBACKS),
    Setting("sees_stock", False, "know the stock's order from the deal's start (lonelybot's hop "
            "player does; it reads hidden cards, so every id says so): only the tableau's "
            "face-down cards are dealt at random", flag=True, peeks=True),
    Setting("halving", False, "sequential halving: after each round of `samples` worlds keep "
            "the better half of the candidates and deal `samples` new worlds for them, until "
            "one is left (off: one round, every candidate judged in the same `samples` worlds)",
            flag=True),
    Setting("lines", False, "judge lines, not single moves (as lonelybot's hop does): every "
            "line of moves that make no progress and show no card never seen, ended by one "
            "that does (a card turned up, out of the stock or waste, a new card shown), is a "
            "candidate, and the best is played through", flag=True),
    Setting("closure", 2_000, "with `lines`: the most positions the search for lines may reach "
            "without progress", low=1, high=1_000_000),
)
SOLVER_SLOTS = own_slots(HOP_SETTINGS)[:len(solver.SOLVER_SETTINGS)]
P_NODES, P_TABLE_MB, P_DEPTH = SOLVER_SLOTS[:3]
(P_SAMPLES, P_FALLBACK, P_SEES_STOCK, P_HALVING, P_LINES,
 P_CLOSURE) = own_slots(HOP_SETTINGS)[len(SOLVER_SLOTS):]
assert SOLVER_SLOTS == own_slots(solver.SOLVER_SETTINGS)
assert [s.name for s in HOP_SETTINGS[:len(SOLVER_SLOTS)]] == [
    s.name for s in solver.SOLVER_SETTINGS]
EVEN, PROGRESS, NONE = range(len(FALLBACKS))
GAME_CARDS = 0  # the deck size (bound per game)


class LineWork(NamedTuple):
    """The search for lines (``lines``): the positions reached from a sampled world without
    progress, each as its parent and the move from it (rebuilt by replaying the path), the
    keys seen, the lines' ends, and the line being played."""

    root: Position  # the sampled world the lines are searched in
    node: Position  # a reached position, rebuilt from the root
    child: Position
    root_rng: np.ndarray
    rng: np.ndarray
    listed: np.ndarray  # int64[MAX_MOVES_LISTED, MOVE_COLUMNS]: a reached position's moves
    parent: np.ndarray  # int64[closure]: the position each was reached from (-1: the root)
    step: np.ndarray  # int64[closure, MOVE_COLUMNS]: the move from its parent
    path: np.ndarray  # int64[closure]: a path, rebuilt leaf first
    keys: np.ndarray  # uint64[power of two, at most half full]: positions and ends seen (0: free)
    end_node: np.ndarray  # int64[MAX_MOVES_LISTED]: where each line's last move is played
    end_move: np.ndarray  # int64[MAX_MOVES_LISTED, MOVE_COLUMNS]: its last move
    plan: np.ndarray  # int64[closure + 1, MOVE_COLUMNS]: the line being played
    meta: np.ndarray  # int64[3]: its length, the next move to play, the move count expected


PLAN_LENGTH, PLAN_CURSOR, PLAN_EXPECTED = range(3)  # LineWork.meta
END_SALT = np.uint64(0x2545F4914F6CDD1D)  # keys a line's end apart from a reached position


def make_line_work(game, policy) -> LineWork:
    closure = int(policy[P_CLOSURE]) if policy[P_LINES] == 1 else 1
    slots = 4  # at most half full: every position reached and every line's end, and the root
    while policy[P_LINES] == 1 and slots < 2 * (closure + MAX_MOVES_LISTED + 1):
        slots *= 2
    meta = np.zeros(3, dtype=np.int64)
    meta[PLAN_EXPECTED] = -1
    return LineWork(*(make_position(game.n_piles, game.capacity) for _ in range(3)),
                    np.zeros(2 * N_STREAMS, dtype=np.uint64),
                    np.zeros(2 * N_STREAMS, dtype=np.uint64),
                    np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64),
                    np.zeros(closure, dtype=np.int64),
                    np.zeros((closure, MOVE_COLUMNS), dtype=np.int64),
                    np.zeros(closure, dtype=np.int64), np.zeros(slots, dtype=np.uint64),
                    np.zeros(MAX_MOVES_LISTED, dtype=np.int64),
                    np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64),
                    np.zeros((closure + 1, MOVE_COLUMNS), dtype=np.int64), meta)


class HopWork(NamedTuple):
    """Scratch space, made once per batch: a sampled world, the position after a candidate,
    its random streams, the unseen cards, a total per candidate, the player's memory of the
    cards it has seen, and the solver's own space."""

    world: Position
    scratch: Position
    rng: np.ndarray
    hidden: np.ndarray
    totals: np.ndarray
    scores: np.ndarray  # float64[MAX_MOVES_LISTED]: the heuristic's score of each candidate
    alive: np.ndarray  # uint8[MAX_MOVES_LISTED]: 1 for a candidate still judged
    seen: np.ndarray  # uint8[256]: 1 for a card seen face up this deal
    memory: np.ndarray  # int64[3]: whether the game allows a memory; the game stream's counter;
    # the stock's pile, or -1 (the player does not see the stock: ``sees_stock`` off)
    search: solver.SolverLanes
    lines: LineWork


REMEMBERS, LAST_DRAW, STOCK_SEEN = range(3)  # HopWork.memory


def make_work(game, policy) -> HopWork:
    cards = game.deck.cards()
    memory = np.zeros(3, dtype=np.int64)
    memory[REMEMBERS] = len(set(cards.tolist())) == cards.size  # one card of each kind
    sees_stock = policy[P_SEES_STOCK] == 1 and "stock" in game.piles
    memory[STOCK_SEEN] = game.piles.index("stock") if sees_stock else -1
    return HopWork(make_position(game.n_piles, game.capacity),
                   make_position(game.n_piles, game.capacity),
                   np.zeros(2 * N_STREAMS, dtype=np.uint64),
                   np.zeros(game.deck.size, dtype=np.uint8),
                   np.zeros(MAX_MOVES_LISTED, dtype=np.float64),
                   np.zeros(MAX_MOVES_LISTED, dtype=np.float64),
                   np.zeros(MAX_MOVES_LISTED, dtype=np.uint8),
                   np.zeros(256, dtype=np.uint8), memory,
                   solver.make_work(game, policy), make_line_work(game, policy))


@kernel
def remember(pos, rng, seen, memory):
    """Add the cards face up now to the cards seen this deal.  Forgotten at a deal's first move
    and whenever the game has drawn on its random stream since the last move (a reshuffle); a
    game with two cards of a kind keeps no memory.  With ``sees_stock`` the stock's cards count
    as seen, where they lie (a peek: the id says so)."""
    draws = np.int64(rng[2 * GAME_STREAM + 1])
    if pos.vars[V_MOVES] == 0 or draws != memory[LAST_DRAW] or memory[REMEMBERS] == 0:
        for card in range(seen.shape[0]):
            seen[card] = 0
    memory[LAST_DRAW] = draws
    if memory[REMEMBERS] == 0:
        return
    for p in range(pos.lens.shape[0]):
        for i in range(pos.down[p], pos.lens[p]):
            seen[pos.piles[p, i]] = 1
    stock = memory[STOCK_SEEN]
    if stock >= 0:
        for i in range(pos.lens[stock]):
            seen[pos.piles[stock, i]] = 1


@template(compile_as=kernel(inline="always"))
def judge_scratch(rules, policy, work):
    """What the position ``work.scratch`` of a sampled world is worth: 1 if the solver wins from
    there, 0 if it proves the world lost, else the fallback's value."""
    scratch = work.scratch
    if is_won(scratch):
        return 1.0
    verdict = solve(scratch, rules, work.rng, policy, work.search)
    if verdict == SOLVABLE:
        return 1.0
    if verdict != UNKNOWN or policy[P_FALLBACK] == NONE:
        return 0.0
    if policy[P_FALLBACK] == EVEN:
        return 0.5
    return 0.99 * work.search.main.meta[MOST_FOUNDATION] / GAME_CARDS


@template(compile_as=kernel(inline="always"))
def world_value(rules, move, policy, work):
    """What ``move`` is worth in the sampled world ``work.world`` (random streams ``work.rng``)."""
    copy_position(work.world, work.scratch)
    apply_listed(work.scratch, rules, move, work.rng)
    return judge_scratch(rules, policy, work)


@template(compile_as=kernel(inline="always"))
def line_value(rules, e, policy, work):
    """What line ``e`` is worth in the sampled world ``work.world``: its moves replayed there
    (they show no unseen card, so they are legal in every world), then the solver's verdict."""
    copy_position(work.world, work.scratch)
    lines = work.lines
    for k in range(walk_back(lines, lines.end_node[e]) - 1, -1, -1):
        apply_listed(work.scratch, rules, lines.step[lines.path[k]], work.rng)
    apply_listed(work.scratch, rules, lines.end_move[e], work.rng)
    return judge_scratch(rules, policy, work)


@kernel(inline="always")
def walk_back(lines, k):
    """The path from the root to reached position ``k`` into ``lines.path``, leaf first;
    returns its length (the root's is 0)."""
    length = 0
    while k > 0:
        lines.path[length] = k
        length += 1
        k = lines.parent[k]
    return length


@kernel(inline="always")
def key_added(keys, key):
    """Add ``key`` to the open-addressed set ``keys``; False when it was there already."""
    key = key if key != 0 else np.uint64(1)
    mask = keys.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    while keys[slot] != 0:
        if keys[slot] == key:
            return False
        slot = (slot + 1) & mask
    keys[slot] = key
    return True


@kernel(inline="always")
def shows_unseen(pos, seen):
    """Whether a card never seen lies face up: the move that led here showed it."""
    for p in range(pos.lens.shape[0]):
        for i in range(pos.down[p], pos.lens[p]):
            if seen[pos.piles[p, i]] == 0:
                return True
    return False


@template
def list_lines(pos, rules, moves, n, policy, rng, work):
    """The candidate lines from ``pos``: a breadth-first search, in one sampled world, over
    the moves that make no progress and show no card never seen; every move that does (or wins)
    ends a line.  Such moves are played alike in every world the player cannot tell apart (they
    read only visible cards and touch no unseen one), so the lines are the player's own, not
    the world's.  A line's end that leads where another's does is left out (the shorter is
    kept), and so is a position reached twice.  The first moves are the loop's ``n`` listed
    ``moves`` (a move the loop guard struck is not among them), the later ones listed afresh;
    only moves the policy allows are played.  Returns how many lines there are, each ended by
    ``lines.end_move[e]`` played at reached position ``lines.end_node[e]``, the heuristic's
    score of that last move in ``work.scores``."""
    lines = work.lines
    root = lines.root
    copy_position(pos, root)
    sample_unseen(root, rng, work.hidden, work.seen)
    for k in range(rng.shape[0]):
        lines.root_rng[k] = rng[k]
    lines.root_rng[2 * GAME_STREAM] = next_word(rng, POLICY_STREAM)  # a sampled future
    lines.root_rng[2 * GAME_STREAM + 1] = 0
    for k in range(lines.keys.shape[0]):
        lines.keys[k] = 0
    key_added(lines.keys, hash_of(root))
    lines.parent[0] = -1
    reached = 1
    ends = 0
    head = 0
    while head < reached:
        node = lines.node
        copy_position(root, node)
        listed = moves
        m = n
        if head > 0:
            for k in range(rng.shape[0]):
                lines.rng[k] = lines.root_rng[k]
            for k in range(walk_back(lines, head) - 1, -1, -1):
                apply_listed(node, rules, lines.step[lines.path[k]], lines.rng)
            node.vars[V_MOVES_KEPT] = 0  # the kept moves were another array's
            listed = lines.listed
            m = list_moves(node, rules, listed)
        for i in range(m):
            if not allowed(listed, i, policy):
                continue
            child = lines.child
            copy_position(node, child)
            for k in range(rng.shape[0]):
                lines.rng[k] = lines.root_rng[k]
            progress = apply_listed(child, rules, listed[i], lines.rng)
            ended = (progress or child.vars[V_FOUNDATION] > node.vars[V_BEST_FOUNDATION]
                     or is_won(child) or lines.rng[2 * GAME_STREAM + 1] != 0
                     or shows_unseen(child, work.seen))
            key = hash_of(child)
            if ended:
                if ends < lines.end_node.shape[0] and key_added(lines.keys, key ^ END_SALT):
                    lines.end_node[ends] = head
                    for c in range(MOVE_COLUMNS):
                        lines.end_move[ends, c] = listed[i, c]
                    work.scores[ends] = move_score(node, rules, listed[i], policy)
                    ends += 1
            elif reached < lines.parent.shape[0] and key_added(lines.keys, key):
                lines.parent[reached] = head
                for c in range(MOVE_COLUMNS):
                    lines.step[reached, c] = listed[i, c]
                reached += 1
        head += 1
    return ends


@kernel(inline="always")
def follow_plan(pos, moves, n, lines):
    """The row of the planned line's next move, when the last move played was the plan's and
    the next is listed; -1 otherwise (the plan is dropped)."""
    meta = lines.meta
    if meta[PLAN_EXPECTED] == pos.vars[V_MOVES] and meta[PLAN_CURSOR] < meta[PLAN_LENGTH]:
        return next_of_line(pos, moves, n, lines.plan, meta, PLAN_CURSOR, PLAN_EXPECTED)
    meta[PLAN_EXPECTED] = -1
    return -1


@kernel(inline="always")
def make_plan(pos, moves, n, lines, e):
    """Plan line ``e`` and return the row of its first move (listed: the root's moves are the
    loop's own)."""
    length = walk_back(lines, lines.end_node[e])
    for k in range(length):
        for c in range(MOVE_COLUMNS):
            lines.plan[k, c] = lines.step[lines.path[length - 1 - k], c]
    for c in range(MOVE_COLUMNS):
        lines.plan[length, c] = lines.end_move[e, c]
    lines.meta[PLAN_LENGTH] = length + 1
    lines.meta[PLAN_CURSOR] = 0
    lines.meta[PLAN_EXPECTED] = pos.vars[V_MOVES]
    return follow_plan(pos, moves, n, lines)


@kernel(inline="always")
def better(totals, scores, i, j):
    """True when candidate ``i`` ranks above ``j``: a higher total, or on equal totals the
    heuristic's higher score, or on both equal the earlier listed."""
    if totals[i] != totals[j]:
        return totals[i] > totals[j]
    if scores[i] != scores[j]:
        return scores[i] > scores[j]
    return i < j


@template
def judge_round(pos, rules, moves, n, policy, rng, work, lines):
    """Deal ``samples`` worlds and add each live candidate's value in each to its total (every
    live candidate sees the same worlds): the ``n`` listed moves, or with ``lines`` the ``n``
    lines."""
    totals = work.totals
    for _ in range(int(policy[P_SAMPLES])):
        copy_position(pos, work.world)
        sample_unseen(work.world, rng, work.hidden, work.seen)
        future = next_word(rng, POLICY_STREAM)  # the game's own randomness, sampled, never read
        for i in range(n):
            if work.alive[i] == 0:
                continue
            for k in range(rng.shape[0]):
                work.rng[k] = rng[k]
            work.rng[2 * GAME_STREAM] = future
            work.rng[2 * GAME_STREAM + 1] = 0
            if lines:
                totals[i] += line_value(rules, i, policy, work)
            else:
                totals[i] += world_value(rules, moves[i], policy, work)


@template
def choose_hop(pos, rules, moves, n, policy, rng, work):
    """Sample ``samples`` worlds; in each, judge every allowed move by the solver; play the
    move with the best total (every candidate sees the same worlds; equal totals go to the
    heuristic's better move).  With ``halving``, the better half of the candidates goes on to
    another round of ``samples`` new worlds, until one is left: the worlds go to the moves
    still in doubt.  A single allowed move, or one the game proves safe from visible cards, is
    played without a search.  With ``lines`` the candidates are lines (``list_lines``), and
    the chosen line is played through, move by move, unless the loop strikes one of them."""
    remember(pos, rng, work.seen, work.memory)
    use_lines = policy[P_LINES] != 0
    if use_lines:
        planned = follow_plan(pos, moves, n, work.lines)
        if planned >= 0:
            return planned
    totals = work.totals
    first, candidates = start_totals(moves, n, policy, totals)
    if candidates <= 1:
        return first
    safe = proven_safe(pos, rules, moves, n, policy)
    if safe >= 0 and allowed(moves, safe, policy):
        return safe
    count = 0
    if use_lines:
        count = list_lines(pos, rules, moves, n, policy, rng, work)
        use_lines = count > 0  # no line ends in progress: judge the moves as they are
    if use_lines:
        for i in range(count):
            work.alive[i] = 1
            totals[i] = 0.0
    else:
        count = n
        for i in range(n):
            work.alive[i] = 1 if allowed(moves, i, policy) else 0
            work.scores[i] = move_score(pos, rules, moves[i], policy) if work.alive[i] else 0.0
    live = 0
    for i in range(count):
        live += work.alive[i]
    while True:
        judge_round(pos, rules, moves, count, policy, rng, work, use_lines)
        if policy[P_HALVING] == 0 or live <= 2:
            break
        keep = (live + 1) // 2
        for i in range(count):  # a candidate stays when fewer than ``keep`` rank above it
            if work.alive[i] == 0:
                continue
            above = 0
            for j in range(count):
                if j != i and work.alive[j] != 0 and better(totals, work.scores, j, i):
                    above += 1
            if above >= keep:
                work.alive[i] = 2  # out after this pass (2: still ranked against the others)
        live = 0
        for i in range(count):
            if work.alive[i] == 2:
                work.alive[i] = 0
            elif work.alive[i] == 1:
                live += 1
    best = -1
    for i in range(count):
        if work.alive[i] != 0 and (best < 0 or better(totals, work.scores, i, best)):
            best = i
    if use_lines:
        return make_plan(pos, moves, n, work.lines, best)
    return best


@entry_template
def hop_lines(pos, rules, policy, work, seed, moves):
    """The candidate lines hop judges in a given position (``list_lines``, for tests): their
    count; each line's moves are read back from ``work.lines`` (``line_moves``)."""
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    init_streams(rng, seed, 0)
    n = list_moves(pos, rules, moves)
    remember(pos, rng, work.seen, work.memory)
    return list_lines(pos, rules, moves, n, policy, rng, work)


def line_moves(lines: LineWork, e: int) -> list[np.ndarray]:
    """Line ``e``'s moves, first to last, from the work ``hop_lines`` filled."""
    path = []
    k = int(lines.end_node[e])
    while k > 0:
        path.append(lines.step[k].copy())
        k = int(lines.parent[k])
    return path[::-1] + [lines.end_move[e].copy()]
