"""How a game ends (the ``end`` of every record), pinned on hand-built positions played out
through the game loop: "stuck" only when the rules allow no move, "no progress" when every legal
move leads back to a position seen since the last progress, "gave up" when moves are left but
the policy plays none of them (only a policy with a kind switched off does that)."""

from __future__ import annotations

import pytest

import simsol
from simsol.engine.state import END_REASONS, V_MOVES
from simsol.games import get_game
from simsol.policies import BUILT_IN
from simsol.positions import moves_from, parse_position, play_out
from simsol.trace import trace

STRATA = get_game("strata")
KLONDIKE = get_game("klondike")
SEARCH_OPTIONS = {"lookahead": {"samples": 2, "depth": 5}, "solver": {"nodes": 20_000},
                  "hop": {"samples": 1, "nodes": 40}}

# Kings fill the other columns: nothing goes on a King and there is no space.
KINGS = "\ntableau4: K♠\ntableau5: K♥\ntableau6: K♥\ntableau7: K♣\ntableau8: K♣\nvars: redeals=2"
# 8♥ may go onto either black 9, and back: a shuttle that leads nowhere.
SHUTTLE = "tableau1: K♠ 8♥\ntableau2: 9♠\ntableau3: 9♣" + KINGS
# Nothing can move at all.
DEAD = "tableau1: K♠ 8♥\ntableau2: K♦\ntableau3: K♦" + KINGS


def options(policy):
    return SEARCH_OPTIONS.get(BUILT_IN[policy].base)


def test_the_end_reasons_keep_their_codes():
    assert END_REASONS == ("won", "stuck", "no progress", "move cap", "gave up", "idle cap",
                           "unsolvable", "unknown")


def test_stuck_means_the_rules_allow_no_move():
    end, final = play_out(STRATA, DEAD)
    assert end == "stuck" and moves_from(STRATA, final) == []


@pytest.mark.parametrize("policy", list(BUILT_IN))
def test_a_shuttle_ends_as_no_progress_for_every_policy(policy):
    """The solver, which searches before it plays, finds the shuttle leads nowhere."""
    end, final = play_out(STRATA, SHUTTLE, policy=policy, policy_options=options(policy))
    assert end == ("unsolvable" if policy == "solver" else "no progress")
    assert {m.kind for m in moves_from(STRATA, final)} == {"build"}  # the moves were there


def test_a_policy_with_a_kind_switched_off_gives_up():
    end, final = play_out(STRATA, SHUTTLE, policy_options={"kind.build": "never"})
    assert end == "gave up"
    assert {m.kind for m in moves_from(STRATA, final)} == {"build"}


# The stock is out: the redeal is offered (unlimited redeals), but it and the turn after it
# only lead back to this very position.
NO_REDEAL = """
waste: 2♦ 3♦
tableau1: (4♣) K♠ Q♥
tableau2: K♦
tableau3: K♣
tableau4: K♥
tableau5: (5♣) 9♠
tableau6: (6♣) 9♣
tableau7: (7♣) 5♥
"""


@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic"])
def test_no_progress_when_the_redeal_only_leads_back(policy):
    assert {m.kind for m in moves_from(KLONDIKE, parse_position(KLONDIKE, NO_REDEAL))} == {
        "stock"}
    end, final = play_out(KLONDIKE, NO_REDEAL, policy=policy)
    assert end == "no progress"
    # The redeal was played; the turn after it, back to the start, was taken back.
    assert (final.lens[0], final.lens[1], final.vars[V_MOVES]) == (2, 0, 1)


def test_a_king_shifted_into_a_space_leads_back_to_the_same_position():
    """The tableau's piles are interchangeable: a pile moved whole into a space is the position
    the player was in, so it ends as no progress rather than shuttling the King round."""
    position = NO_REDEAL.replace("tableau2: K♦\n", "").replace("(4♣) K♠", "K♠")
    assert "space_shift" in {m.kind for m in moves_from(KLONDIKE,
                                                        parse_position(KLONDIKE, position))}
    end, _ = play_out(KLONDIKE, position)
    assert end == "no progress"


def test_strata_deal_4_greedy_now_plays_the_build_it_refused():
    """The issue's case: greedy made no move although 7♣ may go on 8♥ (and J♣ on Q♦ after it
    frees A♠); it was recorded as stuck, then as gave up.  It now plays the build and what it
    frees."""
    t = trace("strata", rules={"redeals": 0}, deal=4)
    first = [(m.kind, m.card) for m in t.moves[:3]]
    assert first == [("build", "7♣"), ("uncover", "J♣"), ("to_foundation", "A♠")]
    assert t.end in ("no progress", "stuck", "won")


def test_run_tables_count_every_end_apart():
    result = simsol.simulate("strata", rules={"redeals": 0}, deals=40, seed=0, workers=1,
                             policy_options={"kind.build": "never"})
    row = result.table().iloc[0]
    ends = list(result.records["end"])
    assert row["gave_up"] == ends.count("gave up") > 0
    assert row["stuck"] == ends.count("stuck")
    assert row["no_progress"] == ends.count("no progress")
    assert (row["wins"] + row["stuck"] + row["no_progress"] + row["gave_up"] + row["capped"]
            + row["idle_cap"] == 40)
