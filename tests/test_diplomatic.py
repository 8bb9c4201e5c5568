"""Diplomatic (RULES.md §7): Little Piano's rules (tests/test_little_piano.py) on its own deal,
with the tenth column dealt without a sealed pack and the rescue as a preset."""

from __future__ import annotations

from simsol.games import get_game
from simsol.positions import moves_from
from simsol.rules import build_rules
from simsol.trace import trace

DIPLOMATIC = get_game("diplomatic")
COLUMNS = [DIPLOMATIC.piles.index(f"tableau{i + 1}") for i in range(10)]
STOCK = DIPLOMATIC.piles.index("stock")


def keys(position, **kw):
    return {m.key() for m in moves_from(DIPLOMATIC, position, **kw)}


def test_the_deal_has_nine_to_no_face_down_cards_under_one_face_up():
    t = trace("diplomatic", policy="greedy", seed=3, deal=0)
    assert [int(t.lens[0][p]) for p in COLUMNS] == list(range(10, 0, -1))
    assert [int(t.down[0][p]) for p in COLUMNS] == list(range(9, -1, -1))
    assert t.lens[0][STOCK] == t.down[0][STOCK] == 49


# Every column but the tenth filled; the tenth, dealt without a pack, is used up.
TENTH_USED_UP = """
waste: 7♦
tableau1: K♠
tableau2: K♠
tableau3: K♥
tableau4: K♥
tableau5: K♣
tableau6: K♣
tableau7: K♦
tableau8: K♦
tableau9: 8♣
vars: packless=512
"""


def test_a_used_up_column_without_a_pack_stays_empty():
    assert {k for k in keys(TENTH_USED_UP) if k[2] == "tableau10"} == set()


def test_the_takes_any_reading_lets_it_take_any_free_card():
    moves = keys(TENTH_USED_UP, rules={"used_up_column": "takes-any"})
    assert {k for k in moves if k[2] == "tableau10"} == {
        ("waste_to_tableau", "waste", "tableau10", 1), ("space_shift", "tableau1", "tableau10", 1),
        ("space_shift", "tableau2", "tableau10", 1), ("space_shift", "tableau3", "tableau10", 1),
        ("space_shift", "tableau4", "tableau10", 1), ("space_shift", "tableau5", "tableau10", 1),
        ("space_shift", "tableau6", "tableau10", 1), ("space_shift", "tableau7", "tableau10", 1),
        ("space_shift", "tableau8", "tableau10", 1), ("space_shift", "tableau9", "tableau10", 1)}


def test_emptying_the_packless_column_is_no_move_for_greedy():
    """It frees nothing and kills a column: classed with the shuttles greedy never plays."""
    position = TENTH_USED_UP.replace("waste: 7♦", "tableau10: 7♥")  # 7♥ may go on 8♣
    assert ("build", "tableau10", "tableau9", 1) in keys(position)
    assert ("empty_pile", "tableau10", "tableau9", 1) in keys(
        position, rules={"used_up_column": "takes-any"})


def test_the_rescue_is_in_book_and_not_in_no_rescue():
    position = "waste: 9♦ 3♣\ntableau1: K♠\ntableau2: K♥"
    rescue = ("stock", "waste", "stock", 2)
    assert rescue in keys(position)
    assert rescue not in keys(position, preset="no-rescue")


def test_the_game_ends_with_the_last_reserve_and_pack_cards_keep_out_of_spaces():
    """Little Piano's rules, read here too (tests/test_little_piano.py has them in full)."""
    reserve_dead = "reserve1: 9♦\nfoundation1: A♠\ntableau1: 2♠\nvars: redeals=1 packless=1023"
    assert keys(reserve_dead) == set()
    assert keys(reserve_dead, rules={"reserve_end": "no-move"}) == {
        ("to_foundation", "tableau1", "foundation1", 1)}
    turned = "tableau1: (5♠) (8♥) K♣\nvars: unsealed=1"
    assert keys(turned) == set()
    assert keys(turned, rules={"pack_card_to_space": True}) == {
        ("reveal", "tableau1", "tableau2", 1)}


def test_the_rules_id_says_version_2():
    assert build_rules(DIPLOMATIC).id == "diplomatic:book@r2"
