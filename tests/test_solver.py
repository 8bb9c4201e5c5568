"""The exact solver (engine/solver.py): its verdicts are sound, its winning lines are lines of the
real game, and the rules decide hand-built deals both ways."""

from __future__ import annotations

import numpy as np
import pytest

import simsol
from simsol.cards import RANK_NAMES, SUITS
from simsol.engine.state import END_REASONS
from simsol.games import game_names, get_game
from simsol.policies import build_policy
from simsol.positions import play_out
from simsol.trace import trace

SMALL = {"nodes": 30_000, "table_mb": 4}  # a budget a test can afford
VERDICT_ENDS = {"won", "unsolvable", "unknown"}


def ends(records) -> set[str]:
    return {END_REASONS[code] for code in np.unique(records["end"])}


@pytest.mark.parametrize("game_name", game_names())
def test_every_solvable_line_replays_to_a_won_game_and_no_won_deal_is_unsolvable(game_name):
    """Each solvable verdict's line is played through the ordinary loop (the players' ``apply``),
    so a line that did not win would end otherwise ("gave up", a cap).  And the solver is sound:
    no deal that an honest player won on the same deals is called unsolvable."""
    deals = 40
    solver = simsol.simulate(game_name, policy="solver", policy_options=SMALL, deals=deals,
                             seed=4, workers=1).data
    assert ends(solver) <= VERDICT_ENDS
    for policy in ("greedy", "heuristic"):
        honest = simsol.simulate(game_name, policy=policy, deals=deals, seed=4, workers=1).data
        won = honest["won"]
        assert not np.any(solver["end"][won] == END_REASONS.index("unsolvable")), policy


def test_the_solver_wins_a_line_every_card_once():
    """A traced solver game: every card exactly once at every step, ending won."""
    game = get_game("klondike")
    for deal in range(6):
        t = trace("klondike", policy="solver", policy_options=SMALL, seed=4, deal=deal)
        if t.won:
            break
    assert t.won
    deck = sorted(int(c) for c in game.deck.cards())
    for step in range(len(t.moves) + 1):
        assert sorted(t.cards_at(step)) == deck


def test_the_solver_is_labelled_as_seeing_every_card():
    policy = build_policy(get_game("klondike"), "solver")
    assert policy.id == "solver(sees-hidden-cards)"
    assert "UPPER BOUND" in policy.config.doc


def hearts_from_four_left(stock_hearts: str) -> str:
    """Klondike with every card up but the hearts from 4 on, which lie in the stock."""
    lines = [f"foundation{f + 1}: " + " ".join(r + SUITS[f] for r in RANK_NAMES[1:])
             for f in (0, 2, 3)]
    lines.append("foundation2: A♥ 2♥ 3♥")
    lines.append("stock: " + " ".join(f"({card})" for card in stock_hearts.split()))
    return "\n".join(lines)


# Turned one at a time the stock gives 5♥ 6♥ ... K♥ and then 4♥: one pass cannot get 5♥ out
# from under 6♥ (the King alone may take a space), a second pass can.
LAST_FOUR = hearts_from_four_left("4♥ K♥ Q♥ J♥ 10♥ 9♥ 8♥ 7♥ 6♥ 5♥")


@pytest.mark.parametrize("preset, verdict", [("draw1", "won"),
                                             ("draw1-single-pass", "unsolvable")])
def test_a_pass_limit_decides_a_deal(preset, verdict):
    end, _ = play_out(get_game("klondike"), LAST_FOUR, policy="solver", preset=preset)
    assert end == verdict


def test_an_unknown_is_not_a_loss():
    """A budget of one position decides nothing: the deal is unknown, never unsolvable."""
    end, _ = play_out(get_game("klondike"), LAST_FOUR, policy="solver", preset="draw1",
                      policy_options={"nodes": 1})
    assert end == "unknown"
