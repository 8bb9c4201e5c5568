"""The look-ahead player: sampled worlds the player cannot tell from the real one, each candidate
move played out in each of them by a simple roll-out player.

With ``sees_hidden`` the search runs on the one real world instead (an upper-bound mode that is
labelled as such wherever it appears).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simsol.engine.binder import template
from simsol.engine.choice import HEURISTIC_SETTINGS, MODES, allowed, pick_simple
from simsol.engine.jit import kernel
from simsol.engine.layout import Setting, own_slots
from simsol.engine.loop import apply_listed, is_won, list_moves  # bound per game (binder.py)
from simsol.engine.state import (
    MAX_MOVES_LISTED,
    MOVE_COLUMNS,
    V_FOUNDATION,
    Position,
    copy_position,
    make_position,
)
from simsol.engine.streams import GAME_STREAM, N_STREAMS, POLICY_STREAM, next_word, shuffle

LOOKAHEAD_SETTINGS = HEURISTIC_SETTINGS + (
    Setting("samples", 8, "sampled worlds per decision", low=1, high=10_000),
    Setting("depth", 40, "roll-out moves after each candidate", low=1, high=10_000),
    Setting("rollout", "heuristic", "the player that plays the roll-outs", choices=MODES),
    Setting("sees_hidden", False, "search the real cards instead of sampled ones (an upper "
            "bound: it sees every face-down card)", flag=True, peeks=True),
)
_, P_SAMPLES, P_DEPTH, P_ROLLOUT, P_SEES_HIDDEN = own_slots(LOOKAHEAD_SETTINGS)


class LookaheadWork(NamedTuple):
    """Scratch space, made once per batch: a sampled world, the position a roll-out plays on,
    its move list and random streams, the unseen cards, and a total per candidate."""

    world: Position
    scratch: Position
    moves: np.ndarray
    rng: np.ndarray
    hidden: np.ndarray
    totals: np.ndarray


def make_work(game, policy) -> LookaheadWork:
    return LookaheadWork(make_position(game.n_piles, game.capacity),
                         make_position(game.n_piles, game.capacity),
                         np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64),
                         np.zeros(2 * N_STREAMS, dtype=np.uint64),
                         np.zeros(game.deck.size, dtype=np.uint8),
                         np.zeros(MAX_MOVES_LISTED, dtype=np.float64))


@kernel
def sort_cards(cards, count):
    """Sort the first ``count`` cards in place (insertion sort: at most a hundred cards), so
    that a sample drawn from them depends only on which cards they are."""
    for i in range(1, count):
        card = cards[i]
        j = i - 1
        while j >= 0 and cards[j] > card:
            cards[j + 1] = cards[j]
            j -= 1
        cards[j + 1] = card


@kernel
def sample_unseen(pos, rng, hidden, seen):
    """Deal the face-down cards never seen again at random among their places (the places of
    the seen ones are known, so they stay): one world the player cannot tell from the real one.
    The cards are sorted first, so the sample depends only on which cards are unseen."""
    count = 0
    for p in range(pos.lens.shape[0]):
        for i in range(pos.down[p]):
            if seen[pos.piles[p, i]] == 0:
                hidden[count] = pos.piles[p, i]
                count += 1
    sort_cards(hidden, count)
    shuffle(hidden, count, rng, POLICY_STREAM)
    count = 0
    for p in range(pos.lens.shape[0]):
        for i in range(pos.down[p]):
            if seen[pos.piles[p, i]] == 0:
                pos.piles[p, i] = hidden[count]
                count += 1


NOTHING_SEEN = np.zeros(256, dtype=np.uint8)  # the look-ahead remembers nothing


@kernel
def sample_hidden(pos, rng, hidden):
    """Deal every face-down card again at random among the face-down places (the look-ahead's
    world: it remembers nothing it has seen)."""
    sample_unseen(pos, rng, hidden, NOTHING_SEEN)


@kernel
def start_totals(moves, n, policy, totals):
    """Zero a total per listed move; return the first allowed move (-1: none) and how many
    moves are allowed (a search is needed only where there are two or more)."""
    candidates = 0
    first = -1
    for i in range(n):
        totals[i] = 0.0
        if allowed(moves, i, policy):
            candidates += 1
            if first < 0:
                first = i
    return first, candidates


@template
def choose_lookahead(pos, rules, moves, n, policy, rng, work):
    """Sample the unseen cards ``samples`` times; in each sampled world play every allowed
    move, then the roll-out player for up to ``depth`` moves, and score the cards played out
    (a win counts double).  The move with the best total wins; every candidate sees the same
    worlds.  The game's future randomness (a reshuffle) is sampled as well, never read.  With
    ``sees_hidden`` the real cards and the real future are used (an upper-bound mode)."""
    totals = work.totals
    first, candidates = start_totals(moves, n, policy, totals)
    if candidates <= 1:
        return first
    sees_hidden = policy[P_SEES_HIDDEN] == 1
    samples = 1 if sees_hidden else int(policy[P_SAMPLES])
    scratch = work.scratch
    for _ in range(samples):
        copy_position(pos, work.world)
        future = np.uint64(0)  # the game's own future randomness (Strata's reshuffles) ...
        if not sees_hidden:
            sample_hidden(work.world, rng, work.hidden)
            future = next_word(rng, POLICY_STREAM)  # ... is sampled too, unless it may be seen
        for i in range(n):
            if not allowed(moves, i, policy):
                continue
            copy_position(work.world, scratch)
            for k in range(rng.shape[0]):
                work.rng[k] = rng[k]
            if not sees_hidden:  # a sampled future, independent of the real one
                work.rng[2 * GAME_STREAM] = future
                work.rng[2 * GAME_STREAM + 1] = 0
            apply_listed(scratch, rules, moves[i], work.rng)
            for _ in range(int(policy[P_DEPTH])):
                if is_won(scratch):
                    break
                m = list_moves(scratch, rules, work.moves)
                pick = pick_simple(policy[P_ROLLOUT], scratch, rules, work.moves, m, policy,
                                   work.rng, 0.0)
                if pick < 0:
                    break
                apply_listed(scratch, rules, work.moves[pick], work.rng)
            totals[i] += scratch.vars[V_FOUNDATION] * (1 + is_won(scratch))
    best = first
    for i in range(n):
        if allowed(moves, i, policy) and totals[i] > totals[best]:
            best = i
    return best

