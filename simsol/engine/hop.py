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

The solver sees everything in the sampled world, which is the idea: a world is a guess at the
truth, and the solver's verdict in it is what a perfect player would get if the guess were
right.  Averaging over guesses is what Bjarnason, Fern and Tadepalli call hindsight
optimisation (ICAPS 2009).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simsol.engine import solver
from simsol.engine.binder import template
from simsol.engine.choice import allowed, move_score  # bound per game (binder.py)
from simsol.engine.jit import kernel
from simsol.engine.layout import Setting, own_slots
from simsol.engine.loop import apply_listed, is_won  # bound per game
from simsol.engine.search import sample_unseen, start_totals
from simsol.engine.solver import (  # bound per game
    MOST_FOUNDATION,
    SOLVABLE,
    UNKNOWN,
    proven_safe,
    solve,
)
from simsol.engine.state import (
    MAX_MOVES_LISTED,
    V_MOVES,
    Position,
    copy_position,
    make_position,
)
from simsol.engine.streams import GAME_STREAM, N_STREAMS, POLICY_STREAM, next_word

FALLBACKS = ("even", "progress", "none")
# The solver's settings come first, in its slots: the solver reads them as its own (its flags
# with its defaults, so a world is searched as the solver searches a deal).
HOP_SETTINGS = (
    Setting("nodes", 5_000, "positions the solver may visit in each sampled world, per "
            "candidate move", low=1, high=10**9),
    Setting("table_mb", 4, "megabytes of the solver's transposition table", low=1, high=16_384),
    Setting("depth", 400, "the longest line the solver searches in a world", low=1,
            high=100_000),
    *solver.SOLVER_SETTINGS[3:],
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
)
SOLVER_SLOTS = own_slots(HOP_SETTINGS)[:len(solver.SOLVER_SETTINGS)]
P_NODES, P_TABLE_MB, P_DEPTH = SOLVER_SLOTS[:3]
P_SAMPLES, P_FALLBACK, P_SEES_STOCK, P_HALVING = own_slots(HOP_SETTINGS)[len(SOLVER_SLOTS):]
assert SOLVER_SLOTS == own_slots(solver.SOLVER_SETTINGS)
assert [s.name for s in HOP_SETTINGS[:len(SOLVER_SLOTS)]] == [
    s.name for s in solver.SOLVER_SETTINGS]
EVEN, PROGRESS, NONE = range(len(FALLBACKS))
GAME_CARDS = 0  # the deck size (bound per game)


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
    search: solver.SolverWork


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
                   solver.make_work(game, policy))


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
def world_value(rules, move, policy, work):
    """What ``move`` is worth in the sampled world ``work.world`` (random streams ``work.rng``):
    1 if the solver wins from there, 0 if it proves the world lost, else the fallback's value."""
    scratch = work.scratch
    copy_position(work.world, scratch)
    apply_listed(scratch, rules, move, work.rng)
    if is_won(scratch):
        return 1.0
    verdict = solve(scratch, rules, work.rng, policy, work.search)
    if verdict == SOLVABLE:
        return 1.0
    if verdict != UNKNOWN or policy[P_FALLBACK] == NONE:
        return 0.0
    if policy[P_FALLBACK] == EVEN:
        return 0.5
    return 0.99 * work.search.meta[MOST_FOUNDATION] / GAME_CARDS


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
def judge_round(pos, rules, moves, n, policy, rng, work):
    """Deal ``samples`` worlds and add each live candidate's value in each to its total (every
    live candidate sees the same worlds)."""
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
            totals[i] += world_value(rules, moves[i], policy, work)


@template
def choose_hop(pos, rules, moves, n, policy, rng, work):
    """Sample ``samples`` worlds; in each, judge every allowed move by the solver; play the
    move with the best total (every candidate sees the same worlds; equal totals go to the
    heuristic's better move).  With ``halving``, the better half of the candidates goes on to
    another round of ``samples`` new worlds, until one is left: the worlds go to the moves
    still in doubt.  A single allowed move, or one the game proves safe from visible cards, is
    played without a search."""
    remember(pos, rng, work.seen, work.memory)
    totals = work.totals
    first, candidates = start_totals(moves, n, policy, totals)
    if candidates <= 1:
        return first
    safe = proven_safe(pos, rules, moves, n, policy)
    if safe >= 0 and allowed(moves, safe, policy):
        return safe
    for i in range(n):
        work.alive[i] = 1 if allowed(moves, i, policy) else 0
        work.scores[i] = move_score(pos, rules, moves[i], policy) if work.alive[i] else 0.0
    live = candidates
    while True:
        judge_round(pos, rules, moves, n, policy, rng, work)
        if policy[P_HALVING] == 0 or live <= 2:
            break
        keep = (live + 1) // 2
        for i in range(n):  # a candidate stays when fewer than ``keep`` rank above it
            if work.alive[i] == 0:
                continue
            above = 0
            for j in range(n):
                if j != i and work.alive[j] != 0 and better(totals, work.scores, j, i):
                    above += 1
            if above >= keep:
                work.alive[i] = 2  # out after this pass (2: still ranked against the others)
        live = 0
        for i in range(n):
            if work.alive[i] == 2:
                work.alive[i] = 0
            elif work.alive[i] == 1:
                live += 1
    best = -1
    for i in range(n):
        if work.alive[i] != 0 and (best < 0 or better(totals, work.scores, i, best)):
            best = i
    return best
