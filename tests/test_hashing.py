"""The position hash (engine/hashing.py): positions that differ in any card, count or counter that
is part of the position hash differently; scratch counters and the order of interchangeable
piles do not count.  Positions come from real play of every game."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from simsol.engine.binder import bind
from simsol.engine.loop import untraced
from simsol.engine.state import RECORD_DTYPE, SHARED_COUNTERS, V_GAME
from simsol.games import game_names, get_game
from simsol.players import BASES, SIMPLE, work_for
from simsol.runner import make_job, play_chunk
from simsol.trace import trace
from tests.conftest import game_presets


def positions(game_name, deals=3):
    """Positions from random play: every tenth step of a few deals."""
    for deal in range(deals):
        t = trace(game_name, policy="random", deal=deal, seed=3)
        for step in range(0, len(t.moves) + 1, 10):
            yield t.position(step)


def changed_copies(game, position):
    """Copies of ``position`` that differ from it in one thing each (a label, the copy)."""
    filled = [p for p in range(game.n_piles) if position.lens[p] > 0]
    for a, b in itertools.combinations(filled, 2):  # two different cards trade places
        top_a, top_b = position.lens[a] - 1, position.lens[b] - 1
        if position.piles[a, top_a] != position.piles[b, top_b]:
            other = position.copy()
            other.piles[a, top_a], other.piles[b, top_b] = (position.piles[b, top_b],
                                                            position.piles[a, top_a])
            yield f"tops of {game.piles[a]} and {game.piles[b]} swapped", other
            break
    for p in filled:
        other = position.copy()
        other.piles[p, 0] = (int(other.piles[p, 0]) + 1) % game.deck.size  # one card changed
        yield f"bottom card of {game.piles[p]}", other
        other = position.copy()
        other.lens[p] -= 1
        yield f"length of {game.piles[p]}", other
        other = position.copy()
        other.down[p] = (other.down[p] + 1) % (other.lens[p] + 1)
        yield f"face-down count of {game.piles[p]}", other
    for slot in game.state_vars:
        other = position.copy()
        other.vars[slot] += 1
        yield f"counter {slot}", other


@pytest.mark.parametrize("game_name", game_names())
def test_positions_differing_in_any_card_count_or_counter_hash_differently(game_name):
    game = get_game(game_name)
    tried = 0
    for position in positions(game_name):
        h = position.hash()
        assert position.copy().hash() == h  # the same position, the same hash
        for label, other in changed_copies(game, position):
            assert other.hash() != h, label
            tried += 1
    assert tried > 20


@pytest.mark.parametrize("game_name", game_names())
def test_scratch_counters_and_the_loop_bookkeeping_do_not_count(game_name):
    game = get_game(game_name)
    hashed = set(game.state_vars)
    position = next(positions(game_name, deals=1))
    h = position.hash()
    for slot in range(len(position.vars)):
        if slot not in hashed:
            other = position.copy()
            other.vars[slot] += 7
            name = SHARED_COUNTERS[slot] if slot < V_GAME else f"game counter {slot}"
            assert other.hash() == h, name
    stale = position.copy()  # cards beyond a pile's length are not part of it
    for p in range(game.n_piles):
        stale.piles[p, stale.lens[p]:] = 99
    assert stale.hash() == h


def swapped(position, a, b):
    other = position.copy()
    for array in (other.piles, other.lens, other.down):
        array[[a, b]] = array[[b, a]]
    return other


@pytest.mark.parametrize("game_name", ["klondike", "canfield", "black-harp",
                                       "grandmas-patience"])
def test_the_order_of_interchangeable_piles_does_not_count(game_name):
    game = get_game(game_name)
    (group,) = game.interchangeable
    a, b = group[0], group[-1]
    fixed = [p for p in range(game.n_piles) if p not in group]
    for position in itertools.islice(positions(game_name, deals=1), 5):
        if not (position.lens[a] == position.lens[b] and position.down[a] == position.down[b]
                and np.array_equal(position.piles[a, :position.lens[a]],
                                   position.piles[b, :position.lens[b]])):
            assert swapped(position, a, b).hash() == position.hash()
        x, y = fixed[0], fixed[1]
        if position.lens[x] != position.lens[y]:
            assert swapped(position, x, y).hash() != position.hash()


def test_strata_columns_keep_their_places():
    """Strata gathers its columns in order for the redeal, so their places matter."""
    game = get_game("strata")
    assert game.interchangeable == ()
    position = next(positions("strata", deals=1))
    assert swapped(position, 8, 9).hash() != position.hash()


@pytest.mark.parametrize("game_name, preset", game_presets())
def test_the_loop_guard_keeps_its_hash_and_takes_moves_back_exactly(game_name, preset):
    """The loop keeps each pile's share of the hash and saves only what a move can change
    (engine/loop.py).  With ``check`` set it compares, at every move, the kept hash with a hash
    of the whole position and, after every move it takes back, the position with the one before
    (raising on any difference): this proves the game's ``NARROW_KINDS``.  The records are the
    same as without the check, and the random player repeats often, so moves are taken back."""
    for policy in ("random", "greedy"):
        job = make_job(game_name, preset=preset, policy=policy, seed=11)
        args = job.chunk_args(0, 150)
        assert (play_chunk(*args) == play_chunk(*args, True)).all()


def test_a_kind_wrongly_declared_narrow_is_caught():
    """The check fails where it must: Elevens refills every space from the stock after each
    move, so claiming its kinds change only their two piles is false (its kinds' progress
    claims are dropped too, so that the guard keeps and checks the hash at every move)."""
    game = get_game("elevens")
    wrong = replace(game, name="elevens-claimed-narrow", narrow_kinds=game.move_kinds,
                    progress_kinds=())
    job = make_job("elevens", policy="greedy", seed=11)
    _, rules, policy, _, seed, first, count, max_moves = job.chunk_args(0, 20)
    out = np.zeros(count, dtype=RECORD_DTYPE)
    batch = bind(wrong, only=(SIMPLE,)).run_batch  # greedy's kernel alone: quicker to compile
    with pytest.raises(AssertionError, match="declared narrow"):
        batch(game.deck.cards(), game.n_piles, game.capacity, rules, policy,
              work_for(game, BASES["greedy"], policy), seed, first, max_moves, out, True,
              untraced(game.n_piles, game.capacity))
