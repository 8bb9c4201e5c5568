"""Strata's rules (RULES.md §8), each pinned on a tiny hand-built position."""

from __future__ import annotations

import numpy as np

from simsol.cards import card_text
from simsol.engine.streams import N_STREAMS, init_streams
from simsol.engine.binder import bind
from simsol.engine.state import V_PASSES, V_REDEALS
from simsol.players import SIMPLE
from simsol.games import get_game
from simsol.positions import moves_from, parse_position
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
        ("tableau_other", "tableau1", "tableau3", 1),  # 9♠ on 10♥, never 10♦ 9♠ onto J♣
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
        ("tableau_other", "tableau1", "tableau3", 1),  # 10♦ into a space (one offered)
        ("space_shift", "tableau2", "tableau3", 1),
        ("empty_pile", "tableau2", "tableau1", 1),  # 9♣ on 10♦
    }


def test_the_redeal_is_offered_until_two_are_used():
    position = "tableau1: K♠ 10♦"
    assert ("stock", "pack", "tableau1", 0) in keys(position)
    assert ("stock", "pack", "tableau1", 0) in keys(position + "\nvars: redeals=1")
    assert ("stock", "pack", "tableau1", 0) not in keys(position + "\nvars: redeals=2")
    assert ("stock", "pack", "tableau1", 0) in keys(position + "\nvars: redeals=2",
                                                     rules={"redeals": 3})


LEFT = """
foundation1: A♠ 7♠
tableau1: K♠ Q♥ J♠ 10♥
tableau2: 9♠ 8♥ 7♣ A♥ 10♣
tableau3: K♥ Q♠
tableau4: J♦ 10♠
"""  # 13 cards left


def redeal(rules=None, index=0):
    """The columns after one redeal of LEFT, playing the game stream of deal ``index``."""
    position = parse_position(STRATA, LEFT)
    encoded = encode_rules(STRATA, build_rules(STRATA, "book", rules))
    rows = position.legal_rows(encoded)
    move = next(row for row in rows if STRATA.move_kinds[row[0]] == "stock")
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    init_streams(rng, 7, index)
    assert bind(STRATA, SIMPLE).apply_move(position.state(), encoded, move.copy(), rng)
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
