"""The 12x5 game's rules (RULES.md §10), each pinned on a tiny hand-built position or deal."""

from __future__ import annotations

from collections import Counter

import numpy as np

from simsol.cards import card_text, parse_card
from simsol.engine.state import V_FOUNDATION, V_GAME
from simsol.engine.streams import deal
from simsol.games import get_game
from simsol.positions import Move, moves_from, parse_position, play
from simsol.rules import build_rules, encode_rules

TWELVE = get_game("twelve-by-five")


def keys(position, **kw):
    return {m.key() for m in moves_from(TWELVE, position, **kw)}


def texts(position, pile):
    return [card_text(c) for c in position.pile(pile)]


def dealt(specials: dict[int, str]):
    """The position after setup for a deal with the given cards at the given deal indices (the
    layout is dealt row by row, 12 a row; index 60 is the stock's top); the other layout cards
    are ordinary (2 .. Q)."""
    faces = {k: parse_card(text) for k, text in specials.items()}
    left = Counter({face: 2 for face in range(52)}) - Counter(faces.values())
    ordinary = sorted(face for face in left.elements() if 2 <= face % 13 + 1 <= 12)
    others = iter(ordinary + sorted((left - Counter(ordinary)).elements()))
    order = [faces[k] if k in faces else next(others) for k in range(104)]
    seen: Counter = Counter()
    deck = []
    for face in order:
        deck.append(face + 52 * seen[face])
        seen[face] += 1
    deck = np.array(deck, dtype=np.uint8)
    assert sorted(deck) == sorted(TWELVE.deck.cards())
    position = parse_position(TWELVE, "")
    position.vars[:] = 0
    encoded = encode_rules(TWELVE, build_rules(TWELVE, "book"))
    TWELVE.setup(deck, encoded, position.state(), np.zeros(6, dtype=np.uint64))
    return position, deck


def test_aces_go_out_and_duplicate_kings_under_the_stock_until_neither_is_left():
    position, deck = dealt({
        0: "A♠",  # column 1, row 1
        2: "K♣",  # column 3, row 1: the first K♣ dealt stays
        13: "A♥",  # column 2, row 2
        30: "K♣",  # column 7, row 3: the later K♣ goes under the stock
        59: "K♦",  # column 12, row 5
        60: "A♦",  # refills A♠'s place: an ace again, out in the next round
        61: "5♠",  # refills A♥'s place
        62: "K♦",  # refills the K♣'s place: a K♦ dealt after the one in column 12
        63: "6♠",  # refills the A♦'s place
        64: "7♠",  # refills the second K♦'s place
    })
    assert [texts(position, f"foundation{i + 1}") for i in range(8)] == [
        ["A♠"], [], ["A♥"], [], [], [], ["A♦"], []]
    assert position.vars[V_FOUNDATION] == 3
    assert texts(position, "tableau1")[0] == "6♠"
    assert texts(position, "tableau2")[1] == "5♠"
    assert texts(position, "tableau3")[0] == "K♣"
    assert texts(position, "tableau7")[2] == "7♠"
    assert texts(position, "tableau12")[4] == "K♦"
    assert [len(position.pile(f"tableau{i + 1}")) for i in range(12)] == [5] * 12
    stock = texts(position, "stock")
    assert stock[:2] == ["K♦", "K♣"] and len(stock) == 41  # the first sent under is lowest
    assert position.pile("stock")[-1] == deck[65]
    assert position.down[0] == 41
    assert list(position.vars[V_GAME:]) == [0] * (16 - V_GAME)  # the setup's scratch is cleared


def test_single_cards_build_down_in_the_same_suit():
    position = """
    tableau1: 10♥ 10♠ 9♠
    tableau2: 10♠
    tableau3: J♠
    tableau4: 9♥
    """
    assert keys(position) == {
        ("build", "tableau1", "tableau2", 1),  # 9♠ on 10♠
        ("empty_pile", "tableau2", "tableau3", 1),  # 10♠ on J♠; 10♠ 9♠ may not move together
    }  # and no column card goes into a space


SPACE = """
stock: (3♣) (K♥)
waste: 8♣ 9♦
tableau1: 5♣
"""
JUST_TURNED = SPACE + "vars: just_turned=1"


def test_a_used_up_column_takes_the_card_just_turned():
    """«на его место можно положить карту из колоды»: the card just turned from the stock."""
    assert keys(JUST_TURNED) == {("waste_to_tableau", "waste", "tableau2", 1),
                                 ("stock", "stock", "waste", 1)}
    position = parse_position(TWELVE, SPACE)
    play(TWELVE, position, Move("stock", "stock", "waste", 1, ""))
    assert texts(position, "waste")[-1] == "K♥"
    assert ("waste_to_tableau", "waste", "tableau2", 1) in keys(position)


def test_not_an_older_waste_card_exposed_again():
    assert keys(SPACE) == {("stock", "stock", "waste", 1)}
    position = parse_position(TWELVE, JUST_TURNED.replace("tableau1: 5♣", "tableau1: 10♦"))
    play(TWELVE, position, Move("waste_to_tableau", "waste", "tableau1", 1, "9♦"))
    assert texts(position, "waste") == ["8♣"]
    assert ("waste_to_tableau", "waste", "tableau2", 1) not in keys(position)


def test_or_by_option_any_waste_top():
    assert keys(SPACE, rules={"space_from": "waste"}) == {
        ("waste_to_tableau", "waste", "tableau2", 1), ("stock", "stock", "waste", 1)}


def test_or_by_option_the_next_stock_card():
    assert keys(JUST_TURNED, rules={"space_from": "stock"}) == {
        ("stock_to_space", "stock", "tableau2", 1), ("stock", "stock", "waste", 1)}
    position = parse_position(TWELVE, SPACE)
    move = Move("stock_to_space", "stock", "tableau2", 1, "")
    assert play(TWELVE, position, move, rules={"space_from": "stock"})
    assert texts(position, "tableau2") == ["K♥"] and position.down[1] == 0
    assert texts(position, "stock") == ["3♣"] and position.down[0] == 1


def test_the_rules_id_says_version_2():
    assert build_rules(TWELVE).id == "twelve-by-five:book@r2"


def test_four_passes():
    position = """
    waste: 9♦ 8♣
    tableau1: K♠
    tableau2: K♠
    tableau3: K♥
    tableau4: K♥
    tableau5: K♣
    tableau6: K♣
    tableau7: K♦
    tableau8: K♦
    tableau9: 5♠
    tableau10: 5♠
    tableau11: 5♥
    tableau12: 5♥
    """
    assert keys(position + "vars: redeals=2") == {("stock", "waste", "stock", 2)}
    assert keys(position + "vars: redeals=3") == set()
    assert keys(position + "vars: redeals=3", rules={"redeals": 4}) == {
        ("stock", "waste", "stock", 2)}


def test_every_fixed_layout_has_no_ace_and_one_king_a_suit_at_most():
    encoded = encode_rules(TWELVE, build_rules(TWELVE, "book"))
    for index in range(300):
        position = parse_position(TWELVE, "")
        position.vars[:] = 0
        TWELVE.setup(deal(TWELVE.deck.cards(), 9, index), encoded, position.state(),
                     np.zeros(6, dtype=np.uint64))
        layout = [c for i in range(12) for c in position.pile(f"tableau{i + 1}")]
        assert len(layout) == 60 and all(c % 13 != 0 for c in layout)
        kings = [c % 52 // 13 for c in layout if c % 13 == 12]
        assert len(kings) == len(set(kings))
        assert position.lens[0] + position.vars[V_FOUNDATION] == 44


def test_the_heuristic_plays_up_first_the_card_that_frees_the_next():
    """3♠ and 3♣ both go up; under 3♣ lies the 4♣ that follows it (``next_free``)."""
    from simsol.positions import choice
    position = """
    stock: (5♥)
    foundation1: A♠ 2♠
    foundation5: A♣ 2♣
    tableau1: 9♦ 3♠
    tableau2: 4♣ 3♣
    """
    assert choice(TWELVE, position, "greedy", policy_options={"ties_by": "listed"}).src == (
        "tableau1")
    assert choice(TWELVE, position, "greedy").src == "tableau2"  # its tie rule: movable_after
    assert choice(TWELVE, position, "heuristic", policy_options={"ties": "first"}).src == (
        "tableau2")
    assert choice(TWELVE, position, "heuristic", policy_options={
        "ties": "first", "weight.next_free": 0, "weight.movable_after": 0}).src == "tableau1"


def test_the_heuristic_can_weigh_how_free_a_move_leaves_the_columns():
    """Either 5♠ may go on 6♠: the one on tableau1 shows 9♥, which goes on 10♥, the one on
    tableau3 shows K♦, which goes nowhere (``movable_after`` 1 against 0)."""
    from simsol.positions import choice
    position = """
    tableau1: 9♥ 5♠
    tableau2: 6♠
    tableau3: K♦ 5♠
    tableau4: 10♥
    """
    assert choice(TWELVE, position, "greedy").src == "tableau1"
    assert choice(TWELVE, position, "heuristic", policy_options={
        "ties": "first", "weight.movable_after": -1}).src == "tableau3"
    assert choice(TWELVE, position, "heuristic", policy_options={
        "ties": "first", "weight.movable_after": 1}).src == "tableau1"


def test_greedy_plays_the_build_that_leaves_more_cards_free():
    """Either 5♠ may go on 6♠, both plain builds: the one listed first (tableau1's) shows K♦,
    which goes nowhere, the other shows 9♥, which goes on 10♥; greedy's tie rule
    (``GREEDY_TIES``, ``movable_after``) plays the second."""
    from simsol.positions import choice
    position = """
    tableau1: K♦ 5♠
    tableau2: 6♠
    tableau3: 9♥ 5♠
    tableau4: 10♥
    """
    assert choice(TWELVE, position, "greedy").src == "tableau3"
    assert choice(TWELVE, position, "greedy", policy_options={"ties_by": "listed"}).src == (
        "tableau1")


def test_lookahead_plays_and_rolls_out_by_the_games_lookahead_order():
    """Its roll-outs judge a move by the cards put up within their depth, so it keeps the order
    that plays cards up first (``LOOKAHEAD_ORDER``); greedy and the heuristic play
    ``GREEDY_ORDER``, and a user's ``order`` still wins."""
    from simsol.engine.layout import P_PRIORITY
    from simsol.policies import build_policy
    kinds = list(TWELVE.move_kinds)
    lookahead = build_policy(TWELVE, "lookahead")
    assert lookahead.config.order == TWELVE.lookahead_order != TWELVE.greedy_order
    assert lookahead.id == "lookahead"
    priority = {kind: lookahead.array[P_PRIORITY + kinds.index(kind)] for kind in kinds}
    assert priority["to_foundation"] > priority["uncover"] > priority["build"]
    heuristic = build_policy(TWELVE, "heuristic").array
    assert heuristic[P_PRIORITY + kinds.index("uncover")] > heuristic[
        P_PRIORITY + kinds.index("to_foundation")]
    mine = build_policy(TWELVE, "lookahead", {"order": "uncover,to_foundation"})
    assert mine.config.order[:2] == ("uncover", "to_foundation")
