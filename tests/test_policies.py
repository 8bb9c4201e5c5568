"""Policies: configurable, never reading hidden cards, ending every game, clear config errors."""

from __future__ import annotations

import numpy as np
import pytest

import simsol
from simsol.engine.layout import NEVER, P_PRIORITY
from simsol.engine.state import END_REASONS
from simsol.games import game_names, get_game
from simsol.policies import BUILT_IN, build_policy, load_policy_file
from simsol.positions import choice, parse_position
from simsol.rules import SimsolError
from simsol.trace import trace

HONEST = ("random", "greedy", "heuristic", "lookahead", "hop", "hop-halving", "hop-lines")
# The searching players with budgets small enough for a test ("hop-halving": hop with its
# sequential halving, whose later rounds deal more worlds; "hop-lines": hop judging lines,
# whose search for lines plays moves in a world of its own).
SMALL = {"lookahead": {"samples": 3, "depth": 15},
         "hop": {"samples": 2, "nodes": 40, "depth": 30},
         "hop-halving": {"samples": 2, "nodes": 40, "depth": 30, "halving": True},
         "hop-lines": {"samples": 2, "nodes": 40, "depth": 30, "lines": True, "closure": 60}}


def shuffled_hidden(game, position, seed):
    """The same visible position with its face-down cards dealt differently."""
    changed = parse_position(game, "")
    for name in ("piles", "lens", "down", "vars"):
        setattr(changed, name, getattr(position, name).copy())
    places = [(p, i) for p in range(game.n_piles) for i in range(position.down[p])]
    cards = [position.piles[p, i] for p, i in places]
    order = np.random.default_rng(seed).permutation(len(cards))
    for (p, i), k in zip(places, order):
        changed.piles[p, i] = cards[k]
    return changed, [position.piles[p, i] for p, i in places] != [changed.piles[p, i]
                                                                   for p, i in places]


def positions_along_a_deal(game_name, deal=3, every=9):
    """Real mid-game positions, taken from a traced deal."""
    game = get_game(game_name)
    t = trace(game_name, policy="greedy", seed=5, deal=deal)
    for step in range(0, len(t.moves) + 1, every):
        position = parse_position(game, "")
        position.piles = t.piles[step].copy()
        position.lens = t.lens[step].copy()
        position.down = t.down[step].copy()
        yield position


@pytest.mark.parametrize("game_name", game_names())
@pytest.mark.parametrize("policy", HONEST)
def test_a_policy_never_reads_a_face_down_card(game_name, policy):
    """The same visible position with different hidden cards gives the same choice."""
    game = get_game(game_name)
    options = SMALL.get(policy)
    compared = 0
    for number, position in enumerate(positions_along_a_deal(game_name)):
        if position.down.sum() < 2:
            continue
        for seed in range(2):
            other, differs = shuffled_hidden(game, position, 100 * number + seed)
            if not differs:
                continue
            compared += 1
            base = policy.partition("-")[0]
            assert choice(game, position, base, policy_options=options, seed=seed) == choice(
                game, other, base, policy_options=options, seed=seed)
    if game.name not in ("strata", "grandmas-patience", "letter-t", "twelve-by-five"):
        assert compared > 0  # the game has hidden cards mid-deal: something was compared


def test_peeking_does_read_hidden_cards_and_says_so():
    """The peeking mode is not honest, and its id says so wherever it is shown."""
    result = simsol.simulate("klondike", policy="peeking", deals=30, seed=2, workers=1)
    assert result.policy.id.endswith("(sees-hidden-cards)")
    assert "(sees-hidden-cards)" in result.table()["policy"][0]
    game = get_game("klondike")
    ace_under_first = """
    tableau1: (A♥) 9♠
    tableau2: (5♣) 9♣
    tableau3: 10♥
    """
    ace_under_second = ace_under_first.replace("(A♥)", "(X)").replace("(5♣)", "(A♥)").replace(
        "(X)", "(5♣)")
    shallow = {"depth": 1}
    assert choice(game, ace_under_first, "peeking", policy_options=shallow).src == "tableau1"
    assert choice(game, ace_under_second, "peeking", policy_options=shallow).src == "tableau2"
    # the honest look-ahead cannot tell the two positions apart
    assert choice(game, ace_under_first, "lookahead", policy_options=shallow) == choice(
        game, ace_under_second, "lookahead", policy_options=shallow)


@pytest.mark.parametrize("game_name", game_names())
def test_every_policy_ends_every_game(game_name):
    for policy in BUILT_IN:
        options = {"lookahead": {"samples": 2, "depth": 10}, "hop": SMALL["hop"],
                   "solver": {"nodes": 20_000}}.get(BUILT_IN[policy].base)
        result = simsol.simulate(game_name, policy=policy, policy_options=options, deals=4,
                                 seed=9, workers=1)
        assert len(result.data) == 4
        assert set(result.records["end"]) <= set(END_REASONS)


def test_policy_options_change_the_policy_and_its_id():
    game = get_game("klondike")
    plain = build_policy(game, "heuristic")
    tuned = build_policy(game, "heuristic", {"weight.reveal": 9, "ties": "first"})
    assert plain.id == "heuristic"
    assert tuned.id == "heuristic[weight.reveal=9.0,ties=first]"
    assert not np.array_equal(plain.array, tuned.array)


def test_greedy_order_can_be_changed():
    game = get_game("klondike")
    position = """
    stock: (5♠)
    waste: 9♦
    foundation1: A♠
    tableau1: 2♠
    tableau2: 10♠
    """
    assert choice(game, position, "greedy").kind == "to_foundation"
    assert choice(game, position, "greedy",
                  policy_options={"order": "waste_to_tableau,to_foundation"}).kind == (
        "waste_to_tableau")
    assert choice(game, position, "greedy", policy_options={"order": "stock"}).kind == "stock"


def test_heuristic_prefers_the_pile_with_more_hidden_cards():
    game = get_game("klondike")
    position = """
    tableau1: (2♣) 9♠
    tableau2: (3♣) (4♣) (5♣) 9♣
    tableau3: 10♥
    """
    assert choice(game, position, "greedy").src == "tableau1"  # first generated
    assert choice(game, position, "heuristic", policy_options={"ties": "first"}).src == "tableau2"


def test_greedy_can_break_ties_within_a_kind_by_a_feature():
    """Both 9s may go on 10♥ (the same kind); listed first is tableau1's, but rated by
    ``hidden_under`` the one over three face-down cards."""
    game = get_game("klondike")
    position = """
    tableau1: (2♣) 9♠
    tableau2: (3♣) (4♣) (5♣) 9♣
    tableau3: 10♥
    """
    assert choice(game, position, "greedy").src == "tableau1"
    assert choice(game, position, "greedy", policy_options={"ties_by": "hidden_under"}).src == (
        "tableau2")
    assert build_policy(game, "greedy", {"ties_by": "hidden_under"}).id == (
        "greedy[ties_by=hidden_under]")


def test_a_games_tie_rule_is_its_greedys_default():
    strata = get_game("strata")
    assert strata.greedy_ties == "movable_after"
    assert build_policy(strata, "greedy").id == "greedy"
    assert build_policy(strata, "greedy", {"ties_by": "listed"}).id == "greedy[ties_by=listed]"
    assert get_game("klondike").greedy_ties == "listed"


@pytest.mark.parametrize("value,message", [
    ("hiden_under", "did you mean 'hidden_under'"),
    ("movable_after", "feature for ties_by in klondike"),  # another game's feature
])
def test_a_tie_feature_the_game_lacks_is_refused(value, message):
    with pytest.raises(SimsolError, match=message):
        build_policy(get_game("klondike"), "greedy", {"ties_by": value})


@pytest.mark.parametrize("options,message", [
    ({"weight.revael": 1}, "did you mean 'reveal'"),
    ({"weigth.reveal": 1}, "unknown policy setting"),
    ({"weight.reveal": "lots"}, "must be a number"),
    ({"ties": "coin"}, "allowed: first, random"),
    ({"samples": 0}, "whole number 1..10000"),
    ({"rollout": "lookahead"}, "allowed: random, greedy, heuristic"),
    ({"order": "to_fondation"}, "did you mean 'to_foundation'"),
])
def test_configuration_errors_get_a_clear_message(options, message):
    with pytest.raises(SimsolError, match=message):
        build_policy(get_game("klondike"), "lookahead", options)


@pytest.mark.parametrize("policy,options", [
    ("greedy", {"weight.reveal": 3}), ("greedy", {"ties": "random"}),
    ("heuristic", {"samples": 4}), ("random", {"order": "stock"}),
])
def test_a_setting_the_player_does_not_read_is_refused(policy, options):
    """A setting that would change nothing is an error, not silently ignored."""
    with pytest.raises(SimsolError, match=f"does nothing for '{policy}'"):
        build_policy(get_game("klondike"), policy, options)


def test_unknown_policy_suggests_the_closest():
    with pytest.raises(SimsolError, match="did you mean 'heuristic'"):
        build_policy(get_game("klondike"), "heuristc")


def test_policies_from_a_toml_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text("""
[policies.careful]
base = "heuristic"
ties = "first"
weight = { reveal = 8, empties = -1 }

[policies.deep]
base = "lookahead"
samples = 4
depth = 20
""")
    mine = load_policy_file(path)
    assert set(mine) == {"careful", "deep"}
    result = simsol.simulate("klondike", policy="careful", policies=mine, deals=50, seed=1,
                             workers=1)
    # a user's policy carries all its settings in its id, so no number loses its player
    assert result.policy.id.startswith("careful[") and "weight.reveal=8.0" in result.policy.id
    path.write_text("[policies.bad]\nbase = 'smart'\n")
    with pytest.raises(SimsolError, match="needs base"):
        load_policy_file(path)
    path.write_text("[policies.bad]\nbase = 'greedy'\nflavour = 1\n")
    with pytest.raises(SimsolError, match="unknown policy setting"):
        load_policy_file(path)


def test_lookahead_never_reads_the_games_future_reshuffles():
    """In Strata a redeal reshuffles from the game's own stream: the honest look-ahead samples
    that future, so its choice cannot depend on the real one.  The redeal is offered at any
    time here, so that it is a candidate in every position (by the book it waits for a table
    where nothing moves, which greedy's short games never reach); the player that sees the
    future does choose by it in these positions."""
    game = get_game("strata")
    rules = {"redeal_when": "any-time"}
    options = {"samples": 3, "depth": 25}
    keys = (1, 987654321, 2**40 + 7)
    compared = seen = 0
    for position in positions_along_a_deal("strata", deal=1, every=1):
        picks = {choice(game, position, "lookahead", rules=rules, policy_options=options,
                        seed=4, game_key=key) for key in keys}
        assert len(picks) == 1
        compared += 1
        seen += len({choice(game, position, "peeking", rules=rules, policy_options=options,
                            seed=4, game_key=key) for key in keys}) > 1
    assert compared > 3 and seen > 0


def test_hop_never_reads_the_games_future_reshuffles():
    """The hop player's worlds draw their own future, as the look-ahead's do (above)."""
    game = get_game("strata")
    rules = {"redeal_when": "any-time"}
    compared = 0
    for position in positions_along_a_deal("strata", deal=1, every=3):
        picks = {choice(game, position, "hop", rules=rules, policy_options=SMALL["hop"], seed=4,
                        game_key=key) for key in (1, 987654321, 2**40 + 7)}
        assert len(picks) == 1
        compared += 1
    assert compared > 3


@pytest.mark.parametrize("game_name", game_names())
def test_the_greedy_order_names_every_kind_the_game_makes(game_name):
    """Nothing is off by default: every kind random play meets is ranked by the game's own
    order (kinds left out would still be played, last, but unranked by the game's author)."""
    game = get_game(game_name)
    seen = {m.kind for deal in range(6)
            for m in trace(game_name, policy="random", deal=deal, seed=5).moves}
    assert seen <= set(game.greedy_order), seen - set(game.greedy_order)
    greedy = build_policy(game, "greedy").array
    assert all(greedy[P_PRIORITY + game.move_kinds.index(kind)] != NEVER for kind in seen)


def test_a_kind_switched_off_is_never_played():
    t = trace("klondike", policy="random", deal=3, seed=1,
              policy_options={"kind.stock": "never"})
    assert "stock" not in {m.kind for m in t.moves}
    with pytest.raises(SimsolError, match="move kind"):
        simsol.simulate("klondike", deals=1, workers=1, policy_options={"kind.stok": "never"})
