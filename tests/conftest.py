"""Shared fixtures: every (game, preset, policy) combination the contract tests cover."""

from __future__ import annotations

from simsol.games import game_names, get_game
from simsol.policies import FAST_POLICIES, POLICY_DOCS


def game_presets():
    return [(name, preset) for name in game_names() for preset in get_game(name).presets]


def game_preset_policies():
    """Every fast policy on every preset; the searching ones (the same kernel whatever the
    preset, and slow where games wander, as Grandma's Patience) on each game's book rules.  The
    solver and the hop player have tests of their own (tests/test_solver.py, tests/test_hop.py),
    with budgets small enough for a test."""
    return [(name, preset, policy) for name, preset in game_presets() for policy in POLICY_DOCS
            if (policy in FAST_POLICIES or preset == "book") and policy not in ("solver", "hop")]
