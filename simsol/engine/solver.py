"""The exact solver: a depth-first search over the game's own kernels that sees every card.

It answers "can this deal come out, with perfect play?", the top of the skill ladder.  It reads
what no honest player may: the face-down cards, the stock's order and the game's own future
randomness (Strata's reshuffles, read from the game's random stream), so every id it appears
in says so (``solver(sees-hidden-cards)``).

The search lists and plays moves with the same ``list_moves`` and ``apply_listed`` every player
uses, so a line it finds is a line of the real game.  Moves are tried in the policy's order of
kinds (the game's greedy order by default), listed order within a kind.  Where the game
proves a move safe (its ``safe_move``: Klondike's card to a foundation that no card can still
need), that move alone is tried.

Stock turns are compressed (the ``stock_macro`` setting, on by default).  The tableau's own
moves (the stable ones a game lists in ``generate_stable``) never touch the stock or the waste,
and a stock turn (a move ``keeps_moves`` keeps them through) never touches the tableau: played
in either order they reach the same position.  So after a stock turn the search tries only the
moves that are not stable (the waste's, the next turn); a tableau move is tried only where no
turn came just before it.  A position reached by a turn is a *draw state*; its children are
exactly the macro children "k turns, then a move that uses the stock or waste" of the position
the turns started from, searched one turn a level, so a winning line is still a list of
ordinary moves and every applied move, a turn too, counts as a node.  The turns go on until
the cycle comes back to a position already searched (the table sees it) or no turn is legal;
a redeal under a limit is an ordinary turn that raises the redeal count, which is part of the
key, so no line across a redeal is lost.  Why no line is lost: in any winning line a tableau
move right after a turn can be moved before the turn (with the moves it forces, such as
Canfield's filling of a space from the reserve, which holds the stock back until done) without
changing where the line goes; repeating that gives a winning line of the same length with no
tableau move right after a turn, and that line is a path of this search.  A draw state is
keyed apart from the same position searched in full (``DRAW_STATE_SALT``), and is skipped when
that position was searched in full already (its children are a subset).  A game declares
``STOCK_TURNS_COMMUTE = False`` where the argument fails (Grandma's Patience, whose bank a
tableau move may hold back), and keeps the plain search; games without ``keeps_moves`` have no
draw states.  tests/test_solver.py proves the commuting move by move on random play of every
game that relies on it, and compares the verdicts with the plain search's.

A transposition table keyed by the position hash (engine/hashing.py, with the game's scratch
counters and the game's random stream added: the solver sees the future too) keeps the
positions searched; it has a fixed size (``table_mb``, one for each lane, see below) and four
slots a bucket (one cache line, ``aligned_table``), an entry of a full bucket (chosen by the
key) overwritten, so memory stays flat whatever the deal count and a lost entry only costs a
second search, never a wrong answer.
The hash is kept pile by pile a level (a move of a narrow kind rehashes its two piles), and in
a game without scratch counters a position's moves are listed only once the table says it is
new.

The last search (the one that can prove a deal unsolvable, see ``restart_nodes`` below) keys a
position with the game's ``solver_pile_hash`` instead where the game has one, blind to what
cannot change a verdict: Klondike with partial runs keys its tableau by each pile's face-down
cards and root and the set of its other face-up cards, so positions that differ only by runs
swapped between twins are one (the proof beside ``klondike.solver_skips`` turns a line from one
into a line from the other).  A move between such twins keeps the key, so its child would be
taken for a repeat of its parent; ``twin_swap`` searches it once all the same, since the move
may free a card for its foundation that the other arrangement covers.  Fewer positions to
search out: of the 23 of 200 Klondike ``standard`` deals (seed 0) the default budget left
unknown, a budget of 16,000,000 (``table_mb=256``) proves 11 unsolvable against 6 with the
plain key, and both find the same 3 wins.  The short searches keep the plain key: within a
small budget it finds wins as often or more.

A game may prove some moves needless (its ``solver_skips``, a dominance rule with its proof
beside it): whenever a position can be won, it can be won by a line that does not begin with
such a move, so the search never tries one (``dominance``).  Klondike with partial runs leaves
out a run moved from a card onto that card's twin when the card it leaves on top cannot go up:
the later moves can be played with the two runs' places swapped instead (``klondike.py``).
Klondike also leaves out a whole pile moved into a space, the same position with two piles'
places traded (players version 19).

A game may prove a position lost whatever is played (its ``solver_dead``, with its proof
beside it; the ``dead_ends`` setting): the search then goes no further from it, and at the
root of a search the deal is unsolvable at once.  Klondike's (Black Harp's too) follows the
cards held in the piles, each of which can leave only onto a card that can some day be a top,
into a space or up; a card that can never go up loses the deal.  A position is tested once the
table says it is new (a lost one stays in the table, searched out), so a repeat costs no test.

A game may offer a relaxation (its ``solver_relax``, with its proof beside it): an easier game
in which every line of the real one can be played, so a deal whose relaxation cannot be won is
unsolvable.  Before its last search the solver searches the relaxation for ``relax_share`` of
the budget (a quarter by default; Klondike three quarters, all of the proof lane's share, since
players version 20: it proves the hardest lost deals, which the last search cannot within the
budget).  Klondike's opens the stock: every card of the stock and the waste may be played at
any time, so the stock's turns and its order drop out of the search (a card from the open waste
goes onto a pile only while a card that could go on it next can move, and once there the next
move but a safe one must put a card on it: players version 21, ``klondike.solver_skips``).
Of the 17 deals of 200 (Klondike ``standard``, seed 0) the default budget left unknown
before, the relaxation alone proves 6 unsolvable within 2,528 to 3.3 million positions, where
the real game's search needs 2.9 million to over 30 million.  A relaxation may be exact (the
game's ``RELAXES_EXACTLY``: Klondike's open stock when one card is turned at a time without a
redeal limit, since any card can then be turned to the waste's top): it then has the rest of
the budget in place of the last search, and its win is realized as a real line by turning the
stock before each card it takes (``realize_line``).  With ``reform`` on such a relaxation is the
game's reformulation as well (below), so it is not searched apart.

A game may offer an exact reformulation (its ``solver_reform``, with its proof beside it): the
same game with fewer moves and positions, searched in place of the real one (the ``reform``
setting), its winning line realized as the real game's by playing the moves it folded in
(``realize_line``).  Klondike's (and Canfield's, without worrying back), with three cards turned
at a time and no redeal limit, folds the stock's turns into the plays they lead to: a card of
the stock or the waste is played at once if some number of turns brings it to the waste's top,
and the positions that differ only by turns round the deck's cycle (every count of turned cards
that is a multiple of three, or all of them) are one.  Klondike's with one card a turn and no
redeal limit is its open stock, exact then (above): the restarts search it too, not only the
last search.  Measured on 200 deals of Klondike
``standard`` (seed 0, the default budget, ``python benchmarks/solver.py --game klondike --preset
standard --deals 200 [--opt reform=false]``): 190 decided against 185, the won deals' searches
about half as long.

The budget is split among searches (``restart_nodes``): ``last_share`` of it (half by default;
three quarters, the relaxation's share included, in Klondike and Black Harp, whose dead-end test
gives the last search proofs to find: a game's ``SOLVER_DEFAULTS``) to one last search that can
still prove a deal unsolvable, the rest among short ones, of
``restart_nodes`` positions times Luby's sequence, the first in the policy's order and every
later one in a shaken order (``move_rank``).  A depth-first search's time to a win varies
wildly with the order of its moves, so many short searches in different orders decide far more
deals than one long one; no restart can make a verdict wrong, since solvable is a line found and
unsolvable a search that ran out of positions.

The short searches and the proof (the relaxation, then the last search) run in two *lanes*,
each with its own levels, stack and table, and a search can stop when its allowance is spent
and go on later exactly where it stopped (``search_on``).  The short searches have the first
``alone`` positions to themselves (most deals are won there); from then on the lanes take
turns, the proof lane after each short search getting its due (``last_share`` to the short
searches' ``1 - last_share``), and either has the whole rest once the other is spent.  Run one
after the other (every short search first, as before players version 18), a deal only the proof
can decide paid the short searches' whole share first, and one only a short search wins paid
the proof's.  Measured on 200 deals of Klondike ``standard`` (seed 0, ``python
benchmarks/solver.py --game klondike --preset standard --deals 200 [--nodes N] [--opt
alone=1000000000000]``, the second the old order, which gives the same verdicts and positions as
version 17): at the default budget 96.0% decided at 0.062 s a deal against 95.0% at 0.070 s; at
16,000,000 positions 99.5% at 0.139 s against 99.5% at 0.275 s (README, *The short searches and
the proof take turns*).

Each deal ends with one of three verdicts:

* solvable: a winning line was found; the player then plays it through the ordinary loop, so
  the record is an ordinary win;
* unsolvable: every position reachable from the deal was searched without a win;
* unknown: the node budget (``nodes``) was spent, or the search was cut at ``depth`` moves or
  by its move stack, so the space was not exhausted.

The budget counts applied moves (positions visited, a repeat included), not seconds, so a
verdict is the same on every machine.

Measured before and after the compression, one run after the other (seed 0, one core of a
shared two-core machine, so the times are rough): ``python benchmarks/solver.py --game
klondike --preset standard --deals 20 --nodes 2000000 --table-mb 64`` decided 60% of the deals
before (mean 1.11 s a deal) and 70% after (0.60 s); ``--game canfield --preset solvitaire``
95% (0.18 s) and 100% (0.09 s); the deals both decided took about half the nodes.  On every
game's book rules at 200,000 nodes (``--deals 30 --nodes 200000 --table-mb 16``) the verdicts
stayed but for three Little Piano deals, solvable before and unknown now (another order of
search, the same budget), and no verdict turned from solvable to unsolvable or back.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simsol.engine.binder import _unbound, entry_template, template
from simsol.engine.hashing import counters_hash, mix64, pile_hash
from simsol.engine.jit import kernel
from simsol.engine.layout import NEVER, P_PRIORITY, Setting, own_slots
from simsol.engine.loop import (  # bound per game
    GAME_PILE_SALTS,
    GAME_STATE_VARS,
    apply_listed,
    is_narrow,
    is_won,
    list_moves,
)
from simsol.engine.piles import NO_RELAXATION, RELAXES_EXACTLY
from simsol.engine.state import (
    M_DST,
    M_KIND,
    M_SRC,
    MAX_MOVES_LISTED,
    MOVE_COLUMNS,
    N_VARS,
    UNKNOWN_END,
    UNSOLVABLE_END,
    V_END_HINT,
    V_FOUNDATION,
    V_GAME,
    V_MOVES,
    V_MOVES_KEPT,
    Position,
    clear_position,
    copy_position,
    new_position,
)
from simsol.engine.streams import GAME_STREAM, N_STREAMS, deal_into

SOLVER_SETTINGS = (
    Setting("nodes", 2_000_000, "positions the search may visit per deal before it answers "
            "unknown", low=1, high=10**12),
    Setting("table_mb", 64, "megabytes of each of the solver's two transposition tables (the "
            "restarts' and the proof's), per worker", low=1, high=16_384),
    Setting("depth", 2_000, "the longest line searched; a deal cut there is unknown",
            low=1, high=100_000),
    Setting("stock_macro", True, "after a stock turn only the moves that use the stock or waste "
            "are tried (the tableau's own moves commute with the turns; off: every move at "
            "every draw state, the plain search)", flag=True),
    Setting("restart_nodes", 1_000, "the shortest of the searches the budget less "
            "last_share is split among, in positions (0: one search); their lengths follow "
            "Luby's sequence (1, 1, 2, 1, 1, 2, 4, ...), each after the first in a shaken "
            "order, and one last search has last_share: a deal one order gets lost in, another "
            "may solve at once",
            low=0, high=10**12),
    Setting("last_share", 0.5, "the share of the budget kept for the last search, the one that "
            "can prove a deal unsolvable (the rest goes to the short searches; a game may "
            "default to more, its SOLVER_DEFAULTS: Klondike and Black Harp three quarters)",
            number=True, low=0.0, high=1.0),
    Setting("shake", 10.0, "how far a restart's shaken order may move a move, in kinds of the "
            "order (below 1: only within its kind; 10, nearly any order)", number=True),
    Setting("dominance", True, "leave out the moves the game's dominance rule proves needless "
            "(its solver_skips: Klondike with partial runs, a run moved from one card onto "
            "that card's twin when that frees no card for a foundation; Klondike, a whole pile "
            "moved into a space; Klondike with the stock open, any move but one onto the waste "
            "card just put on a pile)", flag=True),
    Setting("safe_moves", True, "play a move the game proves safe alone, without trying the "
            "others (its safe_move: Klondike's and Canfield's card to a foundation that no "
            "card can still want)", flag=True),
    Setting("dead_ends", True, "search no further from a position the game proves can never "
            "be won (its solver_dead: in Klondike and Black Harp, a card that can never leave "
            "its pile, or never go up)", flag=True),
    Setting("relax_share", 0.25, "the share of the budget for a search of the game's "
            "relaxation (its solver_relax: Klondike with every stock card open) before the last "
            "search: a deal the relaxation cannot win is unsolvable (0: none; a game may "
            "default to more, its SOLVER_DEFAULTS: Klondike three quarters, all of the proof's "
            "share)", number=True, low=0.0, high=1.0),
    Setting("reform", True, "search the game's exact reformulation in its place where it has "
            "one (its solver_reform: Klondike and Canfield with three cards a turn and no redeal "
            "limit, every card the stock's turns can bring up played at once, the turns round "
            "the deck's cycle one position; Klondike with one card a turn and no limit, the "
            "open stock)", flag=True),
    Setting("alone", 100_000, "positions the short searches have to themselves before the "
            "last search (and the relaxation before it) take turns with them, each its share "
            "of the budget (at least the short searches' share: one after the other)",
            low=0, high=10**12),
)
(P_NODES, P_TABLE_MB, P_DEPTH, P_STOCK_MACRO, P_RESTART_NODES, P_LAST_SHARE, P_SHAKE,
 P_DOMINANCE, P_SAFE_MOVES, P_DEAD_ENDS, P_RELAX_SHARE, P_REFORM,
 P_ALONE) = own_slots(SOLVER_SETTINGS)
game_setup = game_safe_move = game_keeps_moves = game_solver_skips = _unbound  # the game's
game_solver_pile_hash = game_solver_dead = game_solver_relax = _unbound  # kernels (binder.py)
game_solver_reform = _unbound
GAME_STOCK_MACRO = False  # the game's ``STOCK_TURNS_COMMUTE`` (binder.py)
GAME_HAS_SCRATCH = True  # the game has scratch counters (binder.py): the key needs the listing
# Salted into the key of a position reached by a stock turn (a "draw state", searched without
# the tableau's own moves), so that it never stands for the same position searched in full.
DRAW_STATE_SALT = np.uint64(0x5851F42D4C957F2D)
ROWS_PER_DEPTH = 64  # the move stack holds this many candidate moves a level on average
SLOTS_PER_BUCKET = 4
SOLVABLE, UNSOLVABLE, UNKNOWN = range(3)
VERDICTS = ("solvable", "unsolvable", "unknown")
PAUSED = 3  # a search whose budget is spent, kept to go on (``search_on``): never a verdict
NOT_BEGUN = 4  # no relaxation to search (``relaxation_start``)
IDLE, RELAXING, NEXT_LAST, PROVING, OVER = range(5)  # the proof lane's phase (``prove_on``)
REAL_RULES, RELAXED_RULES, REFORMED_RULES = range(3)  # the rules a lane's search plays
# SolverWork.meta: the table's epoch (one per search), the line's length, the next move of the
# line to play, the move count the next call must find, the last verdict, its nodes, and the
# most foundation cards any searched position had (how far the search got: the hop player's
# estimate of a world it could not decide), and how many positions were new to the table (the
# nodes less the repeats: benchmarks/solver.py); then where a paused search stands (its level,
# the top of its stack, whether it was cut, whether the position visited last waits to be
# listed, its order and whether its key is blind), the searches begun this deal, the lane's
# phase, the relaxation's positions left, whether the relaxation is exact, and the rules the
# lane's search plays.
(EPOCH, LINE_LENGTH, CURSOR, EXPECTED_MOVES, VERDICT, NODES, MOST_FOUNDATION, SEARCHED, DEPTH,
 TOP, CUT, PENDING, ATTEMPT, BLIND, ATTEMPTS, PHASE, RELAX_LEFT, EXACT, RULES_OF) = range(19)


class SolverWork(NamedTuple):
    """A lane's space, made once per batch: a position per level of the line being searched
    (with its random streams), the candidate moves of every level on one stack, the table, and
    the winning line once found."""

    piles: np.ndarray  # uint8[depth + 1, n_piles, capacity]
    lens: np.ndarray  # int64[depth + 1, n_piles]
    down: np.ndarray  # int64[depth + 1, n_piles]
    vars: np.ndarray  # int64[depth + 1, N_VARS]
    rngs: np.ndarray  # uint64[depth + 1, 2 * N_STREAMS]
    shares: np.ndarray  # uint64[depth + 1, n_piles + 1]: each pile's share of the hash, the sum
    rows: np.ndarray  # int64[stack rows, MOVE_COLUMNS]: the candidates of every level
    ranks: np.ndarray  # float64[stack rows]: where each row sorts (``move_rank``), while pushed
    first: np.ndarray  # int64[depth + 1]: where a level's candidates start on the stack
    count: np.ndarray  # int64[depth + 1]: how many it has
    tried: np.ndarray  # int64[depth + 1]: how many of them were tried
    listed: np.ndarray  # int64[MAX_MOVES_LISTED, MOVE_COLUMNS]: a level's moves as listed
    table: np.ndarray  # uint64[slots, 2]: the transposition table, each slot's key and the
    # search that wrote it (``aligned_table``: a bucket is one cache line)
    line: np.ndarray  # int64[depth, MOVE_COLUMNS]: the winning line
    path_keys: np.ndarray  # uint64[depth + 1]: the key of each level's position
    meta: np.ndarray  # int64[19]
    relaxed_rules: np.ndarray  # int64[options]: the rules of the game's relaxation
    reformed_rules: np.ndarray  # int64[options]: the rules of the game's reformulation


def table_slots(megabytes: float) -> int:
    """The largest power of two of slots (key and stamp) that fits in ``megabytes``."""
    slots = SLOTS_PER_BUCKET
    while slots * 2 * SLOT_BYTES <= megabytes * 2**20:
        slots *= 2
    return slots


SLOT_BYTES = 16  # a key and the stamp of the search that wrote it, two uint64
CACHE_LINE = SLOTS_PER_BUCKET * SLOT_BYTES  # 64 bytes: a bucket fills one line


def aligned_table(slots: int) -> np.ndarray:
    """An empty table of ``slots`` slots (key, stamp) whose buckets each fill one cache line.

    A bucket is probed at every position the search visits, and the table is far larger than
    the processor's cache, so each probe waits for memory; a bucket whose keys and stamps lie in
    one line waits once.  (numpy aligns a large array to 16 bytes only, hence the offset.)"""
    spare = np.zeros(2 * slots + CACHE_LINE // 8, dtype=np.uint64)
    offset = (-spare.ctypes.data % CACHE_LINE) // 8  # in uint64s
    return spare[offset:offset + 2 * slots].reshape(slots, 2)


class SolverLanes(NamedTuple):
    """The solver's two lanes (see ``solve``): the restarts' (which holds the deal's verdict and
    line) and the proof's, each with its own levels, stack and table, so that either can stop
    and go on while the other runs."""

    main: SolverWork
    proof: SolverWork


def make_work(game, policy) -> SolverLanes:
    return SolverLanes(make_lane(game, policy), make_lane(game, policy))


def make_lane(game, policy) -> SolverWork:
    depth = int(policy[P_DEPTH])
    slots = table_slots(policy[P_TABLE_MB])
    levels = depth + 1
    meta = np.zeros(19, dtype=np.int64)
    meta[EXPECTED_MOVES] = -1
    stack = max(levels * ROWS_PER_DEPTH, MAX_MOVES_LISTED)
    positions = levels + 1  # and one more: the relaxation's root (``relaxed_root``)
    return SolverWork(np.zeros((positions, game.n_piles, game.capacity), dtype=np.uint8),
                      np.zeros((positions, game.n_piles), dtype=np.int64),
                      np.zeros((positions, game.n_piles), dtype=np.int64),
                      np.zeros((positions, N_VARS), dtype=np.int64),
                      np.zeros((levels, 2 * N_STREAMS), dtype=np.uint64),
                      np.zeros((levels, game.n_piles + 1), dtype=np.uint64),
                      np.zeros((stack, MOVE_COLUMNS), dtype=np.int64),
                      np.zeros(stack, dtype=np.float64),
                      np.zeros(levels, dtype=np.int64), np.zeros(levels, dtype=np.int64),
                      np.zeros(levels, dtype=np.int64),
                      np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64),
                      aligned_table(slots),
                      np.zeros((depth, MOVE_COLUMNS), dtype=np.int64),
                      np.zeros(levels, dtype=np.uint64), meta,
                      np.zeros(len(game.options), dtype=np.int64),
                      np.zeros(len(game.options), dtype=np.int64))


@kernel(inline="always")
def level(work, d):
    return Position(work.piles[d], work.lens[d], work.down[d], work.vars[d])


@template(compile_as=kernel(inline="always"))
def level_hash(work, d, pos, rules, move, fresh, blind):
    """The position hash of level ``d``, kept pile by pile as the loop guard keeps it
    (engine/loop.py): the level's shares start as its parent's, and after a move of a narrow
    kind only its two piles are hashed again; after any other move (or ``fresh``) all.  With
    ``blind`` each pile's share is the game's ``solver_pile_hash``, which may be blind to what
    cannot change a verdict (see ``search``)."""
    shares = work.shares[d]
    n_piles = pos.lens.shape[0]
    if fresh or not is_narrow(move, n_piles):
        total = np.uint64(0)
        for p in range(n_piles):
            shares[p] = share_of(pos, rules, p, blind)
            total += shares[p]
        shares[n_piles] = total
    else:
        for c in range(n_piles + 1):
            shares[c] = work.shares[d - 1, c]
        src, dst = move[M_SRC], move[M_DST]
        shares[n_piles] -= shares[src]
        shares[src] = share_of(pos, rules, src, blind)
        shares[n_piles] += shares[src]
        if dst != src:
            shares[n_piles] -= shares[dst]
            shares[dst] = share_of(pos, rules, dst, blind)
            shares[n_piles] += shares[dst]
    return mix64(shares[n_piles] + counters_hash(pos, GAME_STATE_VARS))


@template(compile_as=kernel(inline="always"))
def share_of(pos, rules, p, blind):
    """Pile ``p``'s share of the key: the game's ``solver_pile_hash`` when ``blind``, else the
    plain ``pile_hash``."""
    if blind:
        return game_solver_pile_hash(pos, rules, p, GAME_PILE_SALTS[p])
    return pile_hash(pos, p, GAME_PILE_SALTS[p])


@template(compile_as=kernel(inline="always"))
def solver_key(pos, rng, position_hash):
    """The position hash (``position_hash``, from ``level_hash``), with what else decides a
    position's future for a player who sees everything: the game's scratch counters (a count
    kept for the game's own cut restricts the moves) and its random stream (the reshuffles to
    come).  Taken after the position's moves are listed, so the scratch a generator derives
    from the piles is the position's own (in a game without scratch counters the listing
    changes nothing the key reads, so ``solve`` takes the key first and lists the moves of new
    positions only)."""
    extra = np.uint64(0)
    for k in range(V_GAME, pos.vars.shape[0]):
        extra += mix64(np.uint64(pos.vars[k]) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(k))
    extra += mix64(rng[2 * GAME_STREAM + 1] + np.uint64(0xD1B54A32D192ED03))
    key = mix64(position_hash ^ extra)
    return key if key != 0 else np.uint64(1)


@kernel(inline="always")
def table_has(work, key, epoch):
    """True when this search has ``key`` in the table."""
    mask = np.uint64(work.table.shape[0] - 1)
    start = np.int64(key & mask) & ~(SLOTS_PER_BUCKET - 1)
    for j in range(SLOTS_PER_BUCKET):
        if work.table[start + j, 1] == epoch and work.table[start + j, 0] == key:
            return True
    return False


@kernel(inline="always")
def table_add(work, key, epoch):
    """Add ``key`` to the table; False when this search has it already."""
    mask = np.uint64(work.table.shape[0] - 1)
    start = np.int64(key & mask) & ~(SLOTS_PER_BUCKET - 1)
    free = -1
    for j in range(SLOTS_PER_BUCKET):
        slot = start + j
        if work.table[slot, 1] == epoch:
            if work.table[slot, 0] == key:
                return False
        elif free < 0:
            free = slot
    if free < 0:  # a full bucket: overwrite one, chosen by the key's top bits
        free = start + np.int64(key >> np.uint64(62))
    work.table[free, 0] = key
    work.table[free, 1] = epoch
    return True


@kernel(inline="always")
def move_rank(policy, rows, r, salt, shake):
    """Where row ``r`` sorts: its kind's priority, plus, in a shaken search (``salt`` not 0), a
    fraction of ``shake`` drawn from the move and the salt (the same on every machine)."""
    priority = policy[P_PRIORITY + rows[r, M_KIND]]
    if salt == 0:
        return priority
    x = salt
    for c in range(MOVE_COLUMNS):
        x = mix64(x ^ (np.uint64(rows[r, c]) + np.uint64(0x9E3779B97F4A7C15)))
    return priority + shake * (np.float64(x >> np.uint64(11)) / 9007199254740992.0)


@template(compile_as=kernel(inline="always"))
def proven_safe(pos, rules, moves, n, policy):
    """The row of the move the game proves safe (its ``safe_move``) among the ``n`` listed, or
    -1: none, or ``safe_moves`` is off."""
    if policy[P_SAFE_MOVES] == 0:
        return -1
    return game_safe_move(pos, rules, moves, n)


@template(compile_as=kernel(inline="always"))
def push_candidates(work, pos, rules, policy, n, top, skip, salt):
    """Copy the ``n`` listed moves the policy allows onto the stack at ``top``, best kind first
    (a stable insertion sort: listed order within a kind, or shaken by ``salt``, see
    ``move_rank``); return how many.  A move the game proves safe (``safe_move``) is pushed
    alone: no line is lost by playing it first.

    The first ``skip`` listed moves are left out, and not read: at a draw state, the tableau's
    own moves, which it does not list again (see ``solve``).  The safe move is looked for among
    the others."""
    safe = proven_safe(pos, rules, work.listed[skip:], n - skip, policy)
    safe = safe + skip if safe >= 0 else -1
    if safe >= 0 and policy[P_PRIORITY + work.listed[safe, M_KIND]] != NEVER:
        for c in range(MOVE_COLUMNS):
            work.rows[top, c] = work.listed[safe, c]
        return 1
    shake = policy[P_SHAKE]
    dominance = policy[P_DOMINANCE] != 0
    count = 0
    for i in range(skip, n):
        if policy[P_PRIORITY + work.listed[i, M_KIND]] == NEVER:
            continue
        if dominance and game_solver_skips(pos, rules, work.listed[i]):
            continue
        rank = move_rank(policy, work.listed, i, salt, shake)
        j = top + count
        while j > top and work.ranks[j - 1] > rank:
            for c in range(MOVE_COLUMNS):
                work.rows[j, c] = work.rows[j - 1, c]
            work.ranks[j] = work.ranks[j - 1]
            j -= 1
        for c in range(MOVE_COLUMNS):
            work.rows[j, c] = work.listed[i, c]
        work.ranks[j] = rank
        count += 1
    return count


@template
def solve(pos, rules, rng, policy, work):
    """Search from ``pos`` (random streams ``rng``) in the two lanes of ``work``; return the
    verdict, the winning line in ``work.main.line`` (``meta[LINE_LENGTH]`` moves) when solvable,
    and the positions visited by both lanes in ``work.main.meta[NODES]``.

    With ``restart_nodes`` the budget less its ``last_share`` goes to searches of
    ``restart_nodes`` times Luby's sequence (the main lane), the first in the policy's order and
    the others shaken (``move_rank``): a depth-first search's time to a win varies wildly with
    its order, so many short searches decide more deals than one long one.  Each starts with an
    empty table (a position the last one left half searched is no verdict), and any one that
    searches every reachable position proves the deal unsolvable.  The ``last_share`` goes to
    the proof lane (``prove_on``): the game's relaxation for up to ``relax_share`` of the budget,
    then one last shaken search that can prove the deal unsolvable.

    The restarts play alone for their first ``alone`` positions (most deals are won there);
    from then on the two lanes take turns, the proof lane after each restart getting its due,
    ``last_share`` to the restarts' ``1 - last_share``, and each lane the whole rest once the
    other is spent.  A deal that only the proof can decide so no longer waits for every
    restart first, and one that only a restart wins no longer waits for the proof.  With
    ``alone`` at least the restarts' share (as in hop's small worlds) the lanes run one after
    the other: every restart, then the relaxation, then the last search.
    """
    main = work.main
    proof = work.proof
    start_lane(main, pos)
    start_lane(proof, pos)
    budget = np.int64(policy[P_NODES])
    if policy[P_DEAD_ENDS] != 0 and game_solver_dead(pos, rules, main.rows[0], True):
        return settle(work, UNSOLVABLE, False)  # lost from the start (``fresh``: the move unread)
    unit = np.int64(policy[P_RESTART_NODES])
    kept = budget if unit == 0 else np.int64(budget * policy[P_LAST_SHARE])  # the proof lane's
    restarts_left = budget - kept
    alone = min(np.int64(policy[P_ALONE]), restarts_left)
    due = kept / max(restarts_left, 1)  # the proof lane's positions per restart's
    proof.meta[RELAX_LEFT] = np.int64(budget * policy[P_RELAX_SHARE])
    owed = 0.0  # positions the proof lane is owed for the restarts' since ``alone``
    while True:
        if budget - main.meta[NODES] - proof.meta[NODES] <= 0:
            return settle(work, UNKNOWN, False)
        if restarts_left > 0:
            attempt = main.meta[ATTEMPTS]
            main.meta[ATTEMPTS] += 1
            before = main.meta[NODES]
            length = min(unit * luby(attempt + 1), restarts_left)
            verdict = real_search(pos, rules, rng, policy, main, length, length, attempt, False)
            used = main.meta[NODES] - before
            restarts_left -= used
            if verdict != UNKNOWN:
                return settle(work, verdict, False)
            if restarts_left > 0 and main.meta[NODES] < alone:
                continue
            owed += used * due
            if restarts_left > 0 and owed < 1.0:
                continue
        if proof.meta[PHASE] == OVER:
            if restarts_left <= 0:
                return settle(work, UNKNOWN, False)
            continue
        allowed = np.int64(owed) if restarts_left > 0 else (
            budget - main.meta[NODES] - proof.meta[NODES])
        before = proof.meta[NODES]
        verdict = prove_on(pos, rules, rng, policy, work, allowed)
        owed -= proof.meta[NODES] - before
        if verdict == SOLVABLE or verdict == UNSOLVABLE:
            return settle(work, verdict, True)


@kernel(inline="always")
def start_lane(lane, pos):
    """A lane's counts, before a deal."""
    meta = lane.meta
    meta[NODES] = 0
    meta[SEARCHED] = 0
    meta[LINE_LENGTH] = 0
    meta[ATTEMPTS] = 0
    meta[PHASE] = IDLE
    meta[MOST_FOUNDATION] = pos.vars[V_FOUNDATION]


@kernel(inline="always")
def settle(work, verdict, proved):
    """The deal's verdict, with what the two lanes did gathered in the main lane's meta: the
    winning line (the proof lane's when ``proved``), the positions visited and searched, and
    the most cards up in any position of the real game."""
    main = work.main
    proof = work.proof
    if verdict != SOLVABLE:
        main.meta[LINE_LENGTH] = 0
    elif proved:
        length = proof.meta[LINE_LENGTH]
        for k in range(length):
            for c in range(MOVE_COLUMNS):
                main.line[k, c] = proof.line[k, c]
        main.meta[LINE_LENGTH] = length
    main.meta[NODES] += proof.meta[NODES]
    main.meta[SEARCHED] += proof.meta[SEARCHED]
    main.meta[MOST_FOUNDATION] = max(main.meta[MOST_FOUNDATION], proof.meta[MOST_FOUNDATION])
    return verdict


@template
def prove_on(pos, rules, rng, policy, work, quota):
    """Take the proof lane (``work.proof``) on by at most ``quota`` positions: SOLVABLE or
    UNSOLVABLE when it decides the deal, UNKNOWN when it is over undecided (its one search cut
    at ``depth``, without restarts: ``restart_nodes=0``), else PAUSED (``quota`` spent).

    Its phases: the game's relaxation of ``pos`` (its ``solver_relax``, a game in which every
    line of the real one can be played, with its proof beside it) for at most the lane's
    ``RELAX_LEFT`` positions, whose UNSOLVABLE proves the deal unsolvable; then the last search
    of the real game (``real_start``: its reformulation where it has one), shaken and keyed
    blind to twins, whose verdict is the deal's (a cut one, at ``depth``, is begun again in
    another order).  Where the game says the relaxation is exact (``RELAXES_EXACTLY``:
    Klondike's open stock when one card is turned at a time without a limit, since any card
    can then be turned to the waste's top) it is the same game with fewer positions, so it has
    the lane to itself, and a win is the real game's too, its line realized with the stock's
    turns (``realize_line``).  A game whose relaxation is exact offers it as its reformulation
    too, so with ``reform`` on it is not searched as a relaxation.  The relaxation's positions
    count in the budget; its foundation count (``MOST_FOUNDATION``, the hop player's estimate)
    is the relaxed game's, so is not kept."""
    lane = work.proof
    meta = lane.meta
    spent = 0
    while True:
        phase = meta[PHASE]
        before = meta[NODES]
        most = meta[MOST_FOUNDATION]
        if phase == IDLE:
            verdict = relaxation_start(pos, rules, rng, policy, lane)
            if verdict == NOT_BEGUN:
                meta[PHASE] = NEXT_LAST
                continue
            meta[PHASE] = RELAXING
            phase = RELAXING
        elif phase == NEXT_LAST:
            attempt = work.main.meta[ATTEMPTS]
            work.main.meta[ATTEMPTS] += 1
            verdict = real_start(pos, rules, rng, policy, lane, attempt, True)
            meta[PHASE] = PROVING
            phase = PROVING
        else:
            allowed = quota - spent
            if phase == RELAXING and meta[RELAX_LEFT] < allowed:
                allowed = meta[RELAX_LEFT]
            if allowed <= 0:
                return PAUSED
            verdict = search_on(lane_rules(rules, lane), policy, lane, allowed)
        used = meta[NODES] - before
        spent += used
        if phase == RELAXING:
            meta[MOST_FOUNDATION] = most
            meta[RELAX_LEFT] -= used
            if verdict == PAUSED and meta[RELAX_LEFT] > 0:
                if spent >= quota:
                    return PAUSED
                continue
            if verdict == UNSOLVABLE:
                return UNSOLVABLE
            if verdict == SOLVABLE and meta[EXACT] != 0 and realize_line(pos, rules, rng, lane):
                return SOLVABLE
            meta[LINE_LENGTH] = 0  # a relaxed win, a cut or the share spent: say nothing
            meta[PHASE] = NEXT_LAST
            continue
        if verdict == PAUSED:
            if spent >= quota:
                return PAUSED
            continue
        verdict = real_end(pos, rules, rng, lane, verdict)
        if verdict != UNKNOWN:
            return verdict
        if policy[P_RESTART_NODES] == 0:  # one search, cut at ``depth``: the lane is over
            meta[PHASE] = OVER
            return UNKNOWN
        meta[PHASE] = NEXT_LAST  # cut at ``depth``: another order


@template
def relaxation_start(pos, rules, rng, policy, lane):
    """Begin the search of the game's relaxation of ``pos`` in ``lane`` (see ``prove_on``), or
    NOT_BEGUN: the game has none, its share is nothing, or it is exact and ``reform`` is on."""
    root = relaxed_root(lane)
    copy_position(pos, root)
    relaxation = game_solver_relax(root, rules, lane.relaxed_rules)
    exact = relaxation == RELAXES_EXACTLY
    if relaxation == NO_RELAXATION or (exact and policy[P_REFORM] != 0) or (
            lane.meta[RELAX_LEFT] <= 0):
        return NOT_BEGUN
    if exact:  # the same game: the lane is its own
        lane.meta[RELAX_LEFT] = np.int64(policy[P_NODES])
    lane.meta[EXACT] = exact
    lane.meta[RULES_OF] = RELAXED_RULES
    return search_start(root, lane.relaxed_rules, rng, policy, lane, 0, True)


@template
def real_search(pos, rules, rng, policy, work, budget, slices, attempt, last):
    """One whole search of the real game from ``pos``, of at most ``budget`` positions, shaken
    by ``attempt`` and keyed blind when ``last`` (``real_start``), taken on ``slices`` positions
    a call (a restart: all in one; ``search_in_slices``: fewer, to check that pausing changes
    nothing)."""
    verdict = real_start(pos, rules, rng, policy, work, attempt, last)
    left = budget
    while verdict == PAUSED and left > 0:
        before = work.meta[NODES]
        verdict = search_on(lane_rules(rules, work), policy, work, min(slices, left))
        left -= work.meta[NODES] - before
    return real_end(pos, rules, rng, work, UNKNOWN if verdict == PAUSED else verdict)


@template
def real_start(pos, rules, rng, policy, work, attempt, last):
    """Begin a search of the real game from ``pos``, or of its exact reformulation where the
    game has one and ``reform`` is on (its ``solver_reform``: the same game with fewer moves,
    whose winning line becomes the real game's with the moves it folded in played between,
    ``real_end``)."""
    if policy[P_REFORM] != 0:
        root = relaxed_root(work)
        copy_position(pos, root)
        if game_solver_reform(root, rules, work.reformed_rules):
            work.meta[RULES_OF] = REFORMED_RULES
            return search_start(root, work.reformed_rules, rng, policy, work, attempt, last)
    work.meta[RULES_OF] = REAL_RULES
    return search_start(pos, rules, rng, policy, work, attempt, last)


@template
def real_end(pos, rules, rng, work, verdict):
    """A real search's verdict, its line realized where it searched the reformulation (the
    moves it folded in played between); a line that would not realize (never expected: the
    replay tests would say) is no win: UNKNOWN."""
    if verdict == SOLVABLE and work.meta[RULES_OF] != REAL_RULES and not realize_line(
            pos, rules, rng, work):
        work.meta[LINE_LENGTH] = 0
        return UNKNOWN
    return verdict


@kernel(inline="always")
def lane_rules(rules, work):
    """The rules the lane's current search plays: the real game's, its relaxation's or its
    reformulation's (``meta[RULES_OF]``)."""
    if work.meta[RULES_OF] == RELAXED_RULES:
        return work.relaxed_rules
    if work.meta[RULES_OF] == REFORMED_RULES:
        return work.reformed_rules
    return rules


@template
def realize_line(pos, rules, rng, work):
    """Turn the relaxation's winning line (in ``work.line``) into the real game's from ``pos``:
    before each of its moves that the real position does not list, play the game's stock turn
    (the listed move ``keeps_moves`` keeps the stable moves through), at most twice round the
    cards.  True, with the real line in ``work.line``, when it ends in a won game; False (the
    line lost) when a move never comes up or the line outgrows ``depth``."""
    meta = work.meta
    planned = meta[LINE_LENGTH]
    for k in range(planned):  # the stack is free once the search is over
        for c in range(MOVE_COLUMNS):
            work.rows[k, c] = work.line[k, c]
    cur = level(work, 0)
    copy_position(pos, cur)
    for k in range(rng.shape[0]):
        work.rngs[0, k] = rng[k]
    length = 0
    most_turns = 2 * pos.piles.shape[1] + 2
    for k in range(planned):
        turns = 0
        played = False
        while not played:
            n = list_moves(cur, rules, work.listed)
            row = listed_row(work.listed, n, work.rows, k)
            played = row >= 0
            if not played:
                row = stock_turn_row(work.listed, n)
                turns += 1
                if row < 0 or turns > most_turns:
                    return False
            if length >= work.line.shape[0]:
                return False
            for c in range(MOVE_COLUMNS):
                work.line[length, c] = work.listed[row, c]
            apply_listed(cur, rules, work.line[length], work.rngs[0])
            length += 1
    meta[LINE_LENGTH] = length
    return is_won(cur)


@kernel(inline="always")
def listed_row(moves, n, line, k):
    """The row among the ``n`` listed of ``line``'s move ``k``, or -1."""
    for i in range(n):
        if same_move(moves, i, line, k):
            return i
    return -1


@template(compile_as=kernel(inline="always"))
def stock_turn_row(moves, n):
    """The row of the listed stock turn (or redeal), or -1."""
    for i in range(n):
        if game_keeps_moves(moves[i]):
            return i
    return -1


@kernel(inline="always")
def relaxed_root(work):
    """The position past the deepest level, which ``search`` never reaches: the relaxation's
    root, copied to level 0 when its search starts."""
    return level(work, work.piles.shape[0] - 1)


@kernel(inline="always")
def luby(i):
    """Term ``i`` (from 1) of Luby's sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ...:
    the restart lengths that lose at most a log factor against the best fixed length for any
    distribution of search times (Luby, Sinclair & Zuckerman 1993)."""
    k = np.int64(1)
    while (np.int64(1) << k) - 1 < i:
        k += 1
    while (np.int64(1) << k) - 1 != i:
        i -= (np.int64(1) << (k - 1)) - 1
        k = np.int64(1)
        while (np.int64(1) << k) - 1 < i:
            k += 1
    return np.int64(1) << (k - 1)


@kernel(inline="always")
def salt_of(attempt):
    """The order of search ``attempt``: 0 (the policy's order) for the first, else a shake."""
    if attempt == 0:
        return np.uint64(0)
    return mix64(np.uint64(attempt) * np.uint64(0xD6E8FEB86659FD93))


@template
def search_start(pos, rules, rng, policy, work, attempt, last):
    """Begin a depth-first search from ``pos`` in ``work``: its moves ordered by ``attempt``
    (``salt_of``), keyed blind to twins (the game's ``solver_pile_hash``) when it is the
    ``last`` search and ``dominance`` is on; see ``solve``.  SOLVABLE when ``pos`` is won,
    else PAUSED: ``search_on`` takes it on."""
    meta = work.meta
    meta[EPOCH] += 1
    epoch = np.uint32(meta[EPOCH] & 0xFFFFFFFF)
    root = level(work, 0)
    copy_position(pos, root)
    for k in range(rng.shape[0]):
        work.rngs[0, k] = rng[k]
    meta[LINE_LENGTH] = 0
    if is_won(root):
        return SOLVABLE
    n = list_moves(root, rules, work.listed)
    blind = last and policy[P_DOMINANCE] != 0
    work.path_keys[0] = solver_key(root, work.rngs[0],
                                   level_hash(work, 0, root, rules, work.listed[0], True, blind))
    table_add(work, work.path_keys[0], epoch)
    work.first[0] = 0
    work.count[0] = push_candidates(work, root, rules, policy, n, 0, 0, salt_of(attempt))
    work.tried[0] = 0
    meta[DEPTH] = 0
    meta[TOP] = work.count[0]
    meta[CUT] = 0
    meta[PENDING] = 0
    meta[ATTEMPT] = attempt
    meta[BLIND] = blind
    return PAUSED


@template
def search_on(rules, policy, work, budget):
    """Take the search begun in ``work`` (``search_start``) on by at most ``budget`` positions:
    SOLVABLE (the line in ``work.line``), UNSOLVABLE (every position reachable searched),
    UNKNOWN (cut at ``depth`` or by the move stack), or PAUSED: the budget spent, the search
    kept where it stopped (the last position visited not yet listed, ``PENDING``), so that a
    later call goes on exactly as one longer call would have."""
    meta = work.meta
    epoch = np.uint32(meta[EPOCH] & 0xFFFFFFFF)
    max_depth = work.line.shape[0]
    streams = work.rngs.shape[1]
    salt = salt_of(meta[ATTEMPT])
    blind = meta[BLIND] != 0
    dead_ends = policy[P_DEAD_ENDS] != 0  # the root was tested once, in ``solve``
    macro = GAME_STOCK_MACRO and policy[P_STOCK_MACRO] != 0
    d = meta[DEPTH]
    top = meta[TOP]
    cut = meta[CUT] != 0
    pending = meta[PENDING] != 0
    nodes = 0
    n = 0
    while True:
        if pending:  # the position visited last, before the pause
            pending = False
            row = work.first[d] + work.tried[d] - 1
            child = level(work, d + 1)
            draw = macro and game_keeps_moves(work.rows[row])
        else:
            if work.tried[d] == work.count[d]:
                if d == 0:
                    return UNKNOWN if cut else UNSOLVABLE
                top = work.first[d]
                d -= 1
                continue
            row = work.first[d] + work.tried[d]
            work.tried[d] += 1
            parent = level(work, d)
            child = level(work, d + 1)
            copy_position(parent, child)
            draw = macro and game_keeps_moves(work.rows[row])
            if draw:  # the stable moves are the parent's: only the rest is listed (see above)
                child.vars[V_MOVES_KEPT] = parent.vars[V_MOVES_KEPT]
            for k in range(streams):
                work.rngs[d + 1, k] = work.rngs[d, k]
            apply_listed(child, rules, work.rows[row], work.rngs[d + 1])
            nodes += 1
            meta[NODES] += 1
            if child.vars[V_FOUNDATION] > meta[MOST_FOUNDATION]:
                meta[MOST_FOUNDATION] = child.vars[V_FOUNDATION]
            if is_won(child):
                for k in range(d + 1):
                    chosen = work.first[k] + work.tried[k] - 1
                    for c in range(MOVE_COLUMNS):
                        work.line[k, c] = work.rows[chosen, c]
                meta[LINE_LENGTH] = d + 1
                return SOLVABLE
            if nodes >= budget:
                meta[DEPTH] = d
                meta[TOP] = top
                meta[CUT] = cut
                meta[PENDING] = 1
                return PAUSED
        if GAME_HAS_SCRATCH:  # listed first: the key reads the scratch counters it sets
            n = list_moves(child, rules, work.listed)
        key = solver_key(child, work.rngs[d + 1],
                         level_hash(work, d + 1, child, rules, work.rows[row], False, blind))
        skip = 0
        if draw:  # a draw state: searched in full already, or now without the stable moves
            if table_has(work, key, epoch):
                continue
            key ^= DRAW_STATE_SALT
            key = key if key != 0 else np.uint64(1)
            skip = child.vars[V_MOVES_KEPT] - 1
        if not table_add(work, key, epoch) and not twin_swap(work, d, key):
            continue
        if dead_ends and game_solver_dead(child, rules, work.rows[row], False):
            continue  # no win lies beyond it: searched out (tested once, a repeat is not)
        work.path_keys[d + 1] = key
        meta[SEARCHED] += 1
        if not GAME_HAS_SCRATCH:  # listed only for a position not searched before
            n = list_moves(child, rules, work.listed)
        if d + 1 >= max_depth:
            cut = True
            continue
        if top + n > work.rows.shape[0]:
            cut = True
            continue
        d += 1
        work.first[d] = top
        work.count[d] = push_candidates(work, child, rules, policy, n, top, skip, salt)
        work.tried[d] = 0
        top += work.count[d]


@kernel(inline="always")
def twin_swap(work, d, key):
    """The move from level ``d`` kept the key: the game's blind key cannot tell the child from
    its parent (a run moved onto its twin, see above), so the child is searched all the same,
    once: not when the parent too was reached so (that would go back and forth).  Why no win is
    lost: the dominance rule tries a twin move only when the card it leaves on top can go up,
    and a line from an arrangement the table took for its class's searched one is, by the proof
    beside ``klondike.solver_skips``, the searched arrangement's line with at most such a move
    before each of those cards goes up."""
    return key == work.path_keys[d] and (d == 0 or work.path_keys[d] != work.path_keys[d - 1])


@kernel(inline="always")
def same_move(moves, i, line, k):
    for c in range(MOVE_COLUMNS):
        if moves[i, c] != line[k, c]:
            return False
    return True


@template
def choose_solver(pos, rules, moves, n, policy, rng, work):
    """The solver as a player: at the start of a deal (or anywhere its line was left), solve
    from the position, then play the winning line move by move through the ordinary loop.
    Unsolvable or unknown: no move, and the verdict as the end hint (the record's end)."""
    meta = work.main.meta
    if pos.vars[V_MOVES] != meta[EXPECTED_MOVES]:
        meta[VERDICT] = solve(pos, rules, rng, policy, work)
        meta[CURSOR] = 0
        meta[EXPECTED_MOVES] = pos.vars[V_MOVES]
    if meta[VERDICT] != SOLVABLE or meta[CURSOR] >= meta[LINE_LENGTH]:
        meta[EXPECTED_MOVES] = -1
        if meta[VERDICT] == UNSOLVABLE:
            pos.vars[V_END_HINT] = UNSOLVABLE_END
        elif meta[VERDICT] == UNKNOWN:
            pos.vars[V_END_HINT] = UNKNOWN_END
        return -1
    return next_of_line(pos, moves, n, work.main.line, meta, CURSOR, EXPECTED_MOVES)
    # -1 only when the line's move is not listed: never expected (the replay tests would say)


@kernel(inline="always")
def next_of_line(pos, moves, n, line, meta, cursor, expected):
    """The row of ``line``'s move ``meta[cursor]`` among the ``n`` listed, the cursor moved on
    and the next call expected after this move (``meta[expected]``); -1 and no call expected
    when it is not listed.  The solver and hop's lines play their planned lines so."""
    k = meta[cursor]
    for i in range(n):
        if same_move(moves, i, line, k):
            meta[cursor] = k + 1
            meta[expected] = pos.vars[V_MOVES] + 1
            return i
    meta[expected] = -1
    return -1


@template(compile_as=kernel(inline="always"))
def dealt(unshuffled, n_piles, capacity, rules, seed, index):
    """Deal ``index`` of ``seed``, laid out: its position and random streams."""
    deck = np.empty_like(unshuffled)
    pos = new_position(n_piles, capacity)
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    deal_into(deck, unshuffled, rng, seed, index)
    clear_position(pos)
    game_setup(deck, rules, pos, rng)
    return pos, rng


@entry_template
def solve_deal(unshuffled, n_piles, capacity, rules, policy, work, seed, index, out):
    """Solve deal ``index`` of ``seed`` without playing it (benchmarks/solver.py): ``out`` gets
    the verdict, the positions visited and the winning line's length."""
    pos, rng = dealt(unshuffled, n_piles, capacity, rules, seed, index)
    out[0] = solve(pos, rules, rng, policy, work)
    out[1] = work.main.meta[NODES]
    out[2] = work.main.meta[LINE_LENGTH]


@entry_template
def search_in_slices(unshuffled, n_piles, capacity, rules, policy, work, seed, index, slices,
                     out):
    """One last search of deal ``index`` of ``seed`` (the proof lane's, in the policy's order,
    no relaxation) within the budget, taken on ``slices`` positions a call (``search_on``)
    until it ends: ``out`` gets the verdict, the positions visited and the line's length.
    tests/test_solver.py checks that the pauses change nothing."""
    pos, rng = dealt(unshuffled, n_piles, capacity, rules, seed, index)
    lane = work.proof
    start_lane(lane, pos)
    out[0] = real_search(pos, rules, rng, policy, lane, np.int64(policy[P_NODES]), slices, 0,
                         True)
    out[1] = lane.meta[NODES]
    out[2] = lane.meta[LINE_LENGTH]


def deal_solver(game_name: str, preset: str | None, options: dict | None = None,
                rules: dict | None = None):
    """Solve deals one at a time without playing them (benchmarks/solver.py, tests), under
    ``preset`` with the option values ``rules`` on top: returns ``solve(seed, deal) ->
    (verdict, positions visited, winning line's length)``, the space made once."""
    from simsol.engine.binder import bind
    from simsol.games import get_game
    from simsol.policies import build_policy
    from simsol.rules import build_rules, encode_rules
    game = get_game(game_name)
    encoded = encode_rules(game, build_rules(game, preset, rules))
    policy = build_policy(game, "solver", options)
    work = policy.config.player.make_work(game, policy.array)  # the solver's own, not the loop's
    entry = bind(game).solve_deal
    cards = game.deck.cards()
    out = np.zeros(3, dtype=np.int64)

    def solve_one(seed: int, deal: int) -> tuple[str, int, int]:
        entry(cards, game.n_piles, game.capacity, encoded, policy.array, work, seed, deal, out)
        return VERDICTS[out[0]], int(out[1]), int(out[2])
    return solve_one
