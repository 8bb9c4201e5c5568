"""The letter T's rules (RULES.md §9), each pinned on a tiny hand-built position or deal."""

from __future__ import annotations

from collections import Counter

import numpy as np

from simsol.cards import card_text, parse_cards
from simsol.engine.state import V_FOUNDATION, V_PASSES, V_REDEALS
from simsol.games import get_game
from simsol.positions import Move, moves_from, parse_position, play
from simsol.rules import build_rules, encode_rules

LETTER_T = get_game("letter-t")
DEAL_STOCK = Move("stock", "stock", "aux1", 0, "")
GATHER = Move("stock", "aux1", "stock", 0, "")


def keys(position, **kw):
    return {m.key() for m in moves_from(LETTER_T, position, **kw)}


def texts(position, pile):
    return [card_text(c) for c in position.pile(pile)]


def dealt(first_twenty: str, rules=None):
    """The position after setup when the deal starts with the given 20 cards."""
    head = parse_cards(first_twenty)
    rest = Counter(int(c) for c in LETTER_T.deck.cards()) - Counter(head)
    deck = np.array(head + sorted(rest.elements()), dtype=np.uint8)
    position = parse_position(LETTER_T, "")
    position.vars[:] = 0
    encoded = encode_rules(LETTER_T, build_rules(LETTER_T, "book", rules))
    LETTER_T.setup(deck, encoded, position.state(), np.zeros(6, dtype=np.uint64))
    return position, deck


# Rows of 5: the middle column is the ace spots, the rest of the top row the king spots.
LAYOUT = """
K♠ 5♥ A♣ K♥ K♠
2♦ 3♦ A♣ 4♦ 5♦
6♦ 7♦ A♥ 8♦ 9♦
10♦ J♦ 3♠ Q♦ K♦
"""


def test_the_deal_keeps_bases_on_their_spots_and_sets_wrong_cards_aside():
    position, deck = dealt(LAYOUT)
    assert texts(position, "king_base1") == ["K♠"]
    assert texts(position, "king_base2") == ["K♥"]
    assert texts(position, "ace_base3") == ["A♣"]
    assert texts(position, "ace_base2") == ["A♥"]
    assert texts(position, "aside3") == []  # its A♥ is a base
    assert texts(position, "aside2") == ["A♣"]  # the second A♣: one base per suit
    assert texts(position, "aside4") == ["3♠"]  # not an ace, on an ace spot
    assert texts(position, "aside6") == ["5♥"]  # not a king, on a king spot
    assert texts(position, "aside8") == ["K♠"]  # the second K♠
    assert [texts(position, f"aux{i + 1}") for i in range(12)] == [
        ["2♦"], ["3♦"], ["4♦"], ["5♦"], ["6♦"], ["7♦"], ["8♦"], ["9♦"], ["10♦"], ["J♦"],
        ["Q♦"], ["K♦"]]
    assert position.vars[V_FOUNDATION] == 4 and position.vars[V_PASSES] == 1
    assert position.lens[0] == 84 and position.down[0] == 84
    assert position.pile("stock")[-1] == deck[20]  # dealt on, in order


def test_by_suit_spots_take_only_their_suit():
    position, _ = dealt(LAYOUT, {"spots": "by-suit"})
    assert texts(position, "king_base1") == ["K♠"]  # king spot 1 is the spades king's
    assert texts(position, "aside7") == ["K♥"]  # king spot 3 (right of the aces) is clubs'
    assert texts(position, "aside1") == ["A♣"]  # ace spot 1 (top) is spades'
    assert texts(position, "aside2") == ["A♣"]
    assert texts(position, "aside3") == ["A♥"]  # ace spot 3 is clubs'
    assert texts(position, "ace_base3") == [] and texts(position, "ace_base2") == []
    assert position.vars[V_FOUNDATION] == 1


def test_free_cards_go_only_to_the_bases():
    position = """
    ace_base1: A♠ 2♠
    king_base1: K♠ Q♠
    aside1: 3♠
    aside5: A♥
    aux1: J♠
    aux2: 3♠ 9♥
    aux3: K♥
    aux4: 10♥
    stock: (5♣)
    """
    assert keys(position) == {
        ("reserve_to_foundation", "aside1", "ace_base1", 1),
        ("reserve_to_foundation", "aside5", "ace_base2", 1),
        ("to_foundation", "aux1", "king_base1", 1),
        ("to_foundation", "aux3", "king_base2", 1),
    }  # the 3♠ under 9♥ is not free; no card goes onto an auxiliary pack


def test_a_card_may_fit_the_ace_base_and_the_king_base_of_its_suit():
    position = """
    ace_base1: A♠ 2♠ 3♠ 4♠ 5♠ 6♠
    king_base1: K♠ Q♠ J♠ 10♠ 9♠ 8♠
    aux1: 7♠
    """
    assert keys(position) == {("to_foundation", "aux1", "ace_base1", 1),
                              ("to_foundation", "aux1", "king_base1", 1)}


STUCK = """
stock: (5♣) (4♣) (3♣) (2♣) (Q♦) (J♦) (10♦) (9♦) (8♦) (7♦) (6♦) (5♦) (4♦)
aux1: 9♥
aux3: 8♥
aside2: 2♥
"""


def test_twelve_are_dealt_only_when_stuck_one_on_each_auxiliary_spot():
    assert keys(STUCK) == {DEAL_STOCK.key()}
    position = parse_position(LETTER_T, STUCK)
    assert play(LETTER_T, position, DEAL_STOCK)
    assert [texts(position, f"aux{i + 1}") for i in range(12)] == [
        ["9♥", "4♦"], ["5♦"], ["8♥", "6♦"], ["7♦"], ["8♦"], ["9♦"], ["10♦"], ["J♦"], ["Q♦"],
        ["2♣"], ["3♣"], ["4♣"]]
    assert texts(position, "stock") == ["5♣"] and position.down[0] == 1
    assert play(LETTER_T, position, DEAL_STOCK)  # the last card alone, onto aux1
    assert texts(position, "aux1") == ["9♥", "4♦", "5♣"] and position.lens[0] == 0


PACKS = """
aux1: 2♥ 3♥
aux2: 4♥
aux5: 5♥ 6♥ 7♥
aux12: 8♥ 9♥
aside1: 10♣
"""


def test_the_gather_runs_from_the_last_pack_to_the_first_then_turns_the_stack():
    position = parse_position(LETTER_T, PACKS)
    assert keys(PACKS) == {GATHER.key()}
    assert play(LETTER_T, position, GATHER)
    # Picked up aux12 first (at the bottom of the stack), aux1 last; turned over, aux12's bottom
    # card is on top of the new stock (the stock is listed bottom first).
    assert texts(position, "stock") == ["3♥", "2♥", "4♥", "7♥", "6♥", "5♥", "9♥", "8♥"]
    assert position.down[0] == 8 and position.vars[V_REDEALS] == 1
    assert position.vars[V_PASSES] == 2
    assert texts(position, "aside1") == ["10♣"]  # set-aside cards stay where they are
    assert play(LETTER_T, position, DEAL_STOCK)
    assert [texts(position, f"aux{i + 1}") for i in range(8)] == [
        ["8♥"], ["9♥"], ["5♥"], ["6♥"], ["7♥"], ["4♥"], ["2♥"], ["3♥"]]


def test_the_other_gather_order_starts_the_next_deal_with_the_first_pack():
    position = parse_position(LETTER_T, PACKS)
    assert play(LETTER_T, position, GATHER, rules={"gather": "first-to-last"})
    assert texts(position, "stock") == ["9♥", "8♥", "7♥", "6♥", "5♥", "4♥", "3♥", "2♥"]


def test_the_cards_set_aside_stay_out_of_the_redeal_but_may_be_gathered_by_option():
    """The book gathers «все вспомогательные карты и пакеты»; the set-aside cards lie apart."""
    position = parse_position(LETTER_T, PACKS)
    assert play(LETTER_T, position, GATHER, rules={"gather_aside": True})
    # picked up after the packs, so at the bottom of the new stock: dealt last
    assert texts(position, "stock") == ["10♣", "3♥", "2♥", "4♥", "7♥", "6♥", "5♥", "9♥", "8♥"]
    assert texts(position, "aside1") == [] and position.down[0] == 9
    only_aside = "aside1: 10♣\naside6: 4♦"
    assert keys(only_aside) == set()
    assert keys(only_aside, rules={"gather_aside": True}) == {GATHER.key()}


def test_two_redeals_then_the_game_is_lost():
    assert keys(PACKS + "vars: redeals=1") == {GATHER.key()}
    assert keys(PACKS + "vars: redeals=2") == set()
    assert keys(PACKS + "vars: redeals=2", rules={"redeals": 3}) == {GATHER.key()}



def test_the_heuristic_plays_the_copy_that_frees_the_next_card():
    """Both 5♠s fit the spades' ace base; the one on aux2 lies on the 6♠ the base wants next
    (``exposed_distance``), the one on aux1 on a 9♥ (greedy plays the first listed)."""
    from simsol.positions import choice
    position = """
    stock: (5♣)
    ace_base1: A♠ 2♠ 3♠ 4♠
    aux1: 9♥ 5♠
    aux2: 6♠ 5♠
    """
    assert choice(LETTER_T, position, "greedy").src == "aux1"
    assert choice(LETTER_T, position, "heuristic", policy_options={"ties": "first"}).src == "aux2"
    assert choice(LETTER_T, position, "heuristic", policy_options={
        "ties": "first", "weight.exposed_distance": 0}).src == "aux1"
