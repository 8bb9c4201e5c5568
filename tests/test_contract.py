"""The contract every game, preset and policy keeps (DESIGN.md, tests 1 and 4).

Each card exactly once at every step of a trace, every game ends, the traced game and the batch
kernel agree, and records do not depend on seed handling, chunking or worker count.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np
import pytest

import simsol
from simsol.engine.state import END_REASONS
from simsol.games import get_game
from simsol.policies import FAST_POLICIES
from simsol.trace import trace
from tests.conftest import game_preset_policies, game_presets

DEALS = (0, 1, 2)
# The look-ahead wanders through Grandma's Patience's deal 1 for about twenty seconds (400 moves,
# each searched); deals 0 and 2 take about three: those two there.
FEWER_DEALS = {("grandmas-patience", "lookahead"): (0, 2)}


def deals_for(game, policy):
    return FEWER_DEALS.get((game, policy), DEALS)


def batch_records(game, preset, policy, deals):
    """The batch kernel's records of ``deals``: one run of them all when they are 0, 1, 2."""
    if deals == DEALS:
        return simsol.simulate(game, preset=preset, policy=policy, deals=len(DEALS), seed=11,
                               workers=1).data
    return np.concatenate([simsol.simulate(game, preset=preset, policy=policy, deals=1,
                                           first=deal, seed=11, workers=1).data
                           for deal in deals])


@lru_cache(maxsize=None)
def _searched(game, preset, policy, deal):
    return trace(game, preset=preset, policy=policy, seed=11, deal=deal)


def traced(game, preset, policy, deal):
    """The traced game.  A searching player's is played once for both tests that read it (a
    trace is deterministic, and neither test changes it): the look-ahead plays Grandma's
    Patience for minutes.  The fast players' are cheap to play again, and not kept."""
    if policy in FAST_POLICIES:
        return trace(game, preset=preset, policy=policy, seed=11, deal=deal)
    return _searched(game, preset, policy, deal)


@pytest.mark.parametrize("game,preset,policy", game_preset_policies())
def test_every_card_exactly_once_and_games_end(game, preset, policy):
    the_game = get_game(game)
    deck = Counter(int(c) for c in the_game.deck.cards())
    for deal in deals_for(game, policy):
        t = traced(game, preset, policy, deal)
        assert t.end in END_REASONS
        assert len(t.moves) <= 5000
        for step in range(len(t.moves) + 1):
            assert Counter(t.cards_at(step)) == deck, f"deal {deal} step {step}"
            assert np.all(t.down[step] <= t.lens[step])
        played = sum(int(t.lens[-1][f]) for f in the_game.foundation_piles)
        assert played == t.foundation or the_game.foundation_piles == ()
        assert t.won == (t.foundation == the_game.deck.size) or the_game.foundation_piles == ()


@pytest.mark.parametrize("game,preset,policy", game_preset_policies())
def test_trace_matches_batch_records(game, preset, policy):
    deals = deals_for(game, policy)
    for deal, record in zip(deals, batch_records(game, preset, policy, deals)):
        t = traced(game, preset, policy, deal)
        assert (record["won"], record["foundation"], record["moves"], record["passes"]) == (
            t.won, t.foundation, len(t.moves), t.passes)


@pytest.mark.parametrize("game,preset", game_presets())
def test_records_independent_of_chunking_and_workers(game, preset):
    one = simsol.simulate(game, preset=preset, deals=24, seed=5, workers=1, chunk_size=24).data
    small = simsol.simulate(game, preset=preset, deals=24, seed=5, workers=1, chunk_size=5).data
    forked = simsol.simulate(game, preset=preset, deals=24, seed=5, workers=2, chunk_size=7).data
    assert np.array_equal(one, small)
    assert np.array_equal(one, forked)
    tail = simsol.simulate(game, preset=preset, deals=10, seed=5, first=14, workers=1).data
    assert np.array_equal(one[14:], tail)


@pytest.mark.parametrize("game", sorted({g for g, _ in game_presets()}))
def test_seed_changes_the_deals(game):
    a = simsol.simulate(game, deals=30, seed=1, workers=1).data
    b = simsol.simulate(game, deals=30, seed=2, workers=1).data
    assert not np.array_equal(a[["won", "foundation", "moves"]], b[["won", "foundation", "moves"]])
