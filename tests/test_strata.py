"""Strata's rules (RULES.md §8), each pinned on a tiny hand-built position."""

from __future__ import annotations

import numpy as np

from simsol.cards import card_text
from simsol.engine.binder import bind
from simsol.engine.state import V_PASSES, V_REDEALS
from simsol.engine.streams import N_STREAMS, init_streams
from simsol.games import get_game
from simsol.positions import choice, moves_from, parse_position
from simsol.rules import build_rules, encode_rules
from simsol.trace import trace

STRATA = get_game("strata")


def keys(position, **kw):
    return {m.key() for m in moves_from(STRATA, position, **kw)}


def test_seven_follows_the_ace_on_the_foundation():
    position = """
    foundation1: A♠
    tableau1: 8♠
    tableau2: 7♠
    """
    assert ("to_foundation", "tableau2", "foundation1", 1) in keys(position)
    assert ("to_foundation", "tableau1", "foundation1", 1) not in keys(position)


def test_an_ace_goes_on_a_seven_only_by_option():
    position = """
    tableau1: A♦
    tableau2: 7♠
    tableau3: K♠
    tableau4: K♠
    tableau5: K♥
    tableau6: K♥
    tableau7: K♣
    tableau8: K♣
    vars: redeals=2
    """
    assert keys(position) == {("to_foundation", "tableau1", "foundation7", 1)}
    assert keys(position, rules={"ace_on_seven": True}) == {
        ("to_foundation", "tableau1", "foundation7", 1),
        ("empty_pile", "tableau1", "tableau2", 1),
    }


def test_single_cards_build_down_in_alternate_colours_in_the_piquet_order():
    position = """
    tableau1: K♠ 10♦ 9♠
    tableau2: J♣
    tableau3: 10♥
    tableau4: 8♥
    tableau5: 7♣
    tableau6: K♦
    tableau7: K♦
    tableau8: K♣
    vars: redeals=2
    """
    assert keys(position) == {
        ("build", "tableau1", "tableau3", 1),  # 9♠ on 10♥, never 10♦ 9♠ onto J♣
        ("empty_pile", "tableau3", "tableau2", 1),  # 10♥ on J♣
        ("empty_pile", "tableau4", "tableau1", 1),  # 8♥ on 9♠
        ("empty_pile", "tableau5", "tableau4", 1),  # 7♣ on 8♥ (7 is one below 8)
    }


def test_a_space_takes_any_exposed_card():
    position = """
    tableau1: K♠ 10♦
    tableau2: 9♣
    vars: redeals=2
    """
    assert keys(position) == {
        ("build", "tableau1", "tableau3", 1),  # 10♦ into a space (one offered)
        ("space_shift", "tableau2", "tableau3", 1),
        ("empty_pile", "tableau2", "tableau1", 1),  # 9♣ on 10♦
    }


# Nothing can move: every column a King, no space.
KINGS = "\n".join(f"tableau{i + 1}: K{suit}" for i, suit in enumerate("♠♠♥♥♣♣♦♦"))
REDEAL = ("stock", "pack", "tableau1", 0)


def test_the_redeal_is_offered_until_two_are_used():
    assert REDEAL in keys(KINGS)
    assert REDEAL in keys(KINGS + "\nvars: redeals=1")
    assert REDEAL not in keys(KINGS + "\nvars: redeals=2")
    assert REDEAL in keys(KINGS + "\nvars: redeals=2", rules={"redeals": 3})


def test_the_redeal_waits_until_no_card_can_move():
    """«Когда переложить уже ничего нельзя»: not while a card can go up or onto a column."""
    to_foundation = KINGS.replace("tableau8: K♦", "tableau8: K♦ 7♠") + "\nfoundation1: A♠"
    assert keys(to_foundation) == {("to_foundation", "tableau8", "foundation1", 1)}
    # Q♦ may go on a black King, freeing nothing: as in the deal 1, where greedy redealt
    onto_column = KINGS.replace("tableau8: K♦", "tableau8: K♦ Q♦")
    assert keys(onto_column) == {("build", "tableau8", f"tableau{i}", 1)
                                 for i in (1, 2, 5, 6)}
    for position in (to_foundation, onto_column):
        assert REDEAL in keys(position, rules={"redeal_when": "any-time"})
    assert REDEAL not in keys(to_foundation, rules={"redeal_when": "no-useful-move"})
    assert REDEAL in keys(onto_column, rules={"redeal_when": "no-useful-move"})


def test_a_lone_card_shifting_into_a_space_does_not_hold_the_redeal_back():
    position = KINGS.replace("tableau8: K♦", "")
    assert keys(position) == {("space_shift", f"tableau{i}", "tableau8", 1)
                              for i in range(1, 8)} | {REDEAL}


def test_a_build_that_frees_a_seven_for_its_ace_is_uncover():
    """A→7 is the foundations' succession: freeing the 7 frees a card for a foundation."""
    position = """
    foundation1: A♠
    tableau1: K♥ 7♠ 8♦
    tableau2: 9♣
    tableau3: K♠
    tableau4: K♥
    tableau5: K♣
    tableau6: K♣
    tableau7: K♦
    tableau8: K♦
    """
    assert keys(position) == {("uncover", "tableau1", "tableau2", 1)}
    assert choice(STRATA, position).key() == ("uncover", "tableau1", "tableau2", 1)


def position_at(t, step):
    """The position of trace ``t`` after ``step`` moves, with the redeals used so far."""
    position = t.position(step)
    position.vars[V_REDEALS] = sum(m.kind == "stock" for m in t.moves[:step])
    return position


def test_played_games_redeal_only_when_no_card_can_move():
    """The issue's case: deal 0 played at random redealt at move 13 with 8♣ fitting its
    foundation.  Every redeal of these games comes when nothing else but a shift can move."""
    redeals = 0
    for deal in range(4):
        t = trace("strata", policy="random", deal=deal)
        for step, move in enumerate(t.moves):
            if move.kind == "stock":
                redeals += 1
                assert {k[0] for k in keys(position_at(t, step))} <= {"stock", "space_shift"}
    assert redeals > 0


def test_the_rules_id_says_version_2():
    assert build_rules(STRATA).id == "strata:book@r2"


LEFT = """
foundation1: A♠ 7♠
tableau1: K♠ Q♥ J♠ 10♥
tableau2: 9♠ 8♥ 7♣ A♥ 10♣
tableau3: K♥ Q♠
tableau4: J♦ 10♠
"""  # 13 cards left


def redeal(rules=None, index=0):
    """The columns after one redeal of LEFT, playing the game stream of deal ``index`` (LEFT has
    moves left: the redeal is taken as if any time would do)."""
    position = parse_position(STRATA, LEFT)
    rules = {"redeal_when": "any-time"} | (rules or {})
    encoded = encode_rules(STRATA, build_rules(STRATA, "book", rules))
    rows = position.legal_rows(encoded)
    move = next(row for row in rows if STRATA.move_kinds[row[0]] == "stock")
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    init_streams(rng, 7, index)
    assert bind(STRATA).apply_move(position.state(), encoded, move.copy(), rng)
    assert position.pile("foundation1") == parse_position(STRATA, LEFT).pile("foundation1")
    assert position.vars[V_REDEALS] == 1 and position.vars[V_PASSES] == 2
    return [[card_text(c) for c in position.pile(f"tableau{i + 1}")] for i in range(8)]


def test_unshuffled_redeal_gathers_column_by_column_and_deals_rows_of_eight():
    assert redeal({"shuffle_redeal": False}) == [
        ["K♠", "10♣"], ["Q♥", "K♥"], ["J♠", "Q♠"], ["10♥", "J♦"], ["9♠", "10♠"],
        ["8♥"], ["7♣"], ["A♥"],
    ]


def test_shuffled_redeal_is_reproducible_and_reorders_the_cards():
    first = redeal()
    assert first == redeal()
    assert first != redeal({"shuffle_redeal": False})
    assert first != redeal(index=1)
    assert [len(column) for column in first] == [2, 2, 2, 2, 2, 1, 1, 1]
    flat = sorted(c for column in first for c in column)
    assert flat == sorted(c for column in redeal({"shuffle_redeal": False}) for c in column)


def test_a_played_deal_uses_at_most_three_deals_and_replays_identically():
    for deal in range(3):
        a = trace("strata", policy="random", seed=3, deal=deal)
        b = trace("strata", policy="random", seed=3, deal=deal)
        assert a.passes <= 3
        assert [m.key() for m in a.moves] == [m.key() for m in b.moves]
        assert np.array_equal(a.piles, b.piles)


def test_the_face_up_features_count_places_in_the_piquet_order():
    """Strata's foundations go A, 7, 8, ...: over A♠ 7♠ the 8♠ is next (0 cards to go), the 9♠
    one away, where counting ranks from A to K would say 5 and 6."""
    from simsol.cards import parse_card
    from simsol.games.features import PIQUET_PLACE, RANK_PLACE, distance_up
    lens = np.zeros(17, dtype=np.int64)
    lens[0] = 2  # foundation1: A♠ 7♠
    eight, nine = parse_card("8♠"), parse_card("9♠")
    assert distance_up(lens, eight, 0, 2, -1, PIQUET_PLACE) == 0
    assert distance_up(lens, nine, 0, 2, -1, PIQUET_PLACE) == 1
    assert distance_up(lens, nine, 0, 2, 0, PIQUET_PLACE) == 0  # the move raises foundation1
    assert distance_up(lens, eight, 0, 2, -1, RANK_PLACE) == 5


def test_the_heuristic_weighs_which_card_a_build_buries():
    """8♥ may go on 9♠ (one card from going up, over A♠ 7♠) or on 9♣ (three away): both plain
    builds, which greedy plays in listed order; ``covers_distance`` tells them apart."""
    position = """
    foundation1: A♠ 7♠
    tableau1: 9♠
    tableau2: 9♣
    tableau3: K♦ 8♥
    tableau4: K♠
    tableau5: K♣
    tableau6: K♥
    tableau7: K♠
    tableau8: K♣
    """
    keep_soon_free = {"ties": "first", "weight.covers_distance": 1}
    assert choice(STRATA, position, "greedy").dst == "tableau1"
    assert choice(STRATA, position, "heuristic", policy_options=keep_soon_free).dst == "tableau2"
    assert choice(STRATA, position, "heuristic", policy_options={
        "ties": "first", "weight.covers_distance": -1}).dst == "tableau1"


def test_the_tuned_player_can_steer_towards_a_dead_table():
    """The redeal waits until no card can move.  8♥ or 8♦ may go on 9♠; moving 8♥ shows 10♣,
    which goes on J♥, moving 8♦ shows K♥ and leaves no card that can move (``movable_after``
    0 against 1), so the redeal comes next."""
    position = """
    tableau1: 10♣ 8♥
    tableau2: 9♠
    tableau3: K♥ 8♦
    tableau4: J♥
    tableau5: K♠
    tableau6: K♣
    tableau7: K♠
    tableau8: K♣
    """
    assert choice(STRATA, position, "greedy").src == "tableau1"
    assert choice(STRATA, position, "heuristic", policy_options={
        "ties": "first", "weight.movable_after": -1}).src == "tableau3"
    assert choice(STRATA, position, "heuristic", policy_options={
        "ties": "first", "weight.movable_after": 1}).src == "tableau1"


def test_greedy_plays_the_build_that_leaves_more_cards_free():
    """8♦ or 8♥ may go on 9♠, both plain builds: the one listed first (tableau1's) shows K♥
    and leaves no card that can move, the other shows 10♣, which goes on J♥; greedy's tie rule
    (``GREEDY_TIES``, ``movable_after``) plays the second."""
    position = """
    tableau1: K♥ 8♦
    tableau2: 9♠
    tableau3: 10♣ 8♥
    tableau4: J♥
    tableau5: K♠
    tableau6: K♣
    tableau7: K♠
    tableau8: K♣
    """
    assert choice(STRATA, position, "greedy").src == "tableau3"
    assert choice(STRATA, position, "greedy", policy_options={"ties_by": "listed"}).src == (
        "tableau1")
