"""How a game ends (the ``end`` of every record), pinned on hand-built positions played out
through the game loop: "stuck" only when the rules allow no move, "gave up" when they allow
some but the policy plays none of them, "no progress" when the game refused a redeal for lack
of progress and nothing else is left."""

from __future__ import annotations

import simsol
from simsol.engine.state import END_REASONS
from simsol.games import get_game
from simsol.positions import moves_from, play_out
from simsol.trace import trace

STRATA = get_game("strata")
KLONDIKE = get_game("klondike")

# Kings fill the other columns: nothing goes on a King and there is no space.
KINGS = "\ntableau4: K♠\ntableau5: K♥\ntableau6: K♥\ntableau7: K♣\ntableau8: K♣\nvars: redeals=2"
# 8♥ may go onto either black 9: moves the rules allow, none of which greedy plays.
SHUTTLE = "tableau1: K♠ 8♥\ntableau2: 9♠\ntableau3: 9♣" + KINGS
# Nothing can move at all.
DEAD = "tableau1: K♠ 8♥\ntableau2: K♦\ntableau3: K♦" + KINGS


def test_the_end_reasons_keep_their_codes_and_gave_up_is_new():
    assert END_REASONS == ("won", "stuck", "no progress", "move cap", "gave up")


def test_stuck_means_the_rules_allow_no_move():
    end, final = play_out(STRATA, DEAD)
    assert end == "stuck" and moves_from(STRATA, final) == []


def test_a_policy_that_declines_every_legal_move_gives_up():
    end, final = play_out(STRATA, SHUTTLE)
    assert end == "gave up"
    assert {m.kind for m in moves_from(STRATA, final)} == {"tableau_other"}
    end, _ = play_out(STRATA, SHUTTLE, policy="random", max_moves=50)
    assert end == "move cap"  # a player that takes the moves shuttles on


# The stock is out and the last pass made no progress: the redeal is refused.
NO_REDEAL = """
waste: 2♦ 3♦
tableau1: (4♣) K♠ Q♥
tableau2: K♦
tableau3: K♣
tableau4: K♥
tableau5: (5♣) 9♠
tableau6: (6♣) 9♣
tableau7: (7♣) 5♥
vars: pass_progress=0
"""


def test_no_progress_when_the_redeal_is_refused_and_nothing_else_can_move():
    end, final = play_out(KLONDIKE, NO_REDEAL)
    assert end == "no progress" and moves_from(KLONDIKE, final) == []


def test_gave_up_when_moves_are_left_after_the_refused_redeal():
    # A space: Kings may shift into it, which changes nothing and greedy never plays.
    position = NO_REDEAL.replace("tableau2: K♦\n", "").replace("(4♣) K♠", "K♠")
    end, final = play_out(KLONDIKE, position)
    assert end == "gave up"
    assert {m.kind for m in moves_from(KLONDIKE, final)} == {"space_shift"}


def test_strata_deal_4_without_redeals_gives_up_with_moves_left():
    """The issue's case: greedy made no move although 7♣ may go on 8♥ (and J♣ on Q♦ after it
    frees A♠); it was recorded as stuck."""
    t = trace("strata", rules={"redeals": 0}, deal=4)
    assert t.end == "gave up" and not t.moves


def test_run_tables_count_gave_up_apart():
    result = simsol.simulate("strata", rules={"redeals": 0}, deals=20, seed=0, workers=1)
    row = result.table().iloc[0]
    ends = list(result.records["end"])
    assert row["gave_up"] == ends.count("gave up") > 0
    assert row["stuck"] == ends.count("stuck")
    assert row["wins"] + row["stuck"] + row["no_progress"] + row["gave_up"] + row["capped"] == 20
