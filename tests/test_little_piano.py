"""Little Piano's rules (RULES.md §6), which Diplomatic shares, each pinned on a tiny position.

Empty columns not named in a position are used-up packs' places: they take any free card.
"""

from __future__ import annotations

from simsol.cards import RANK_NAMES, card_text
from simsol.engine.layout import NEVER, P_PRIORITY
from simsol.games import get_game
from simsol.policies import build_policy
from simsol.positions import moves_from, parse_position, play
from simsol.rules import build_rules
from simsol.trace import trace

PIANO = get_game("little-piano")
UNSEALED = PIANO.var_names["unsealed"]


def keys(position, **kw):
    return {m.key() for m in moves_from(PIANO, position, **kw)}


def onto(position, dst, **kw):
    return {k for k in keys(position, **kw) if k[2] == dst}


def move(position, src, dst, **kw):
    [found] = [m for m in moves_from(PIANO, position, **kw) if (m.src, m.dst) == (src, dst)]
    return found


def cards(position, pile):
    return [card_text(c) for c in position.pile(pile)]


SEALED = """
waste: 4♦
tableau1: (5♠) (8♥) (9♣) 8♦
tableau2: 9♠
tableau3: 10♥
tableau4: 7♣
tableau5: Q♣
"""


def test_a_sealed_pack_turns_one_card_at_a_time_and_is_not_built_on_until_its_last():
    position = parse_position(PIANO, SEALED)
    # the original card takes builds; moving it away uses its column up and unseals the pack
    assert onto(position, "tableau1") == {("empty_pile", "tableau4", "tableau1", 1)}
    assert play(PIANO, position, move(position, "tableau1", "tableau2"))
    assert cards(position, "tableau1") == ["5♠", "8♥", "9♣"]
    assert position.face_down("tableau1") == 2
    assert position.vars[UNSEALED] == 1
    # 9♣ is turned: it may leave, but nothing (not even 8♦) is built on it
    assert onto(position, "tableau1") == set()
    assert {k for k in keys(position) if k[1] == "tableau1"} == {
        ("reveal", "tableau1", "tableau3", 1)}
    # only once it has left is the next card turned
    assert play(PIANO, position, move(position, "tableau1", "tableau3"))
    assert (cards(position, "tableau1"), position.face_down("tableau1")) == (["5♠", "8♥"], 1)
    assert onto(position, "tableau1") == set()  # 7♣ may not go on the turned 8♥
    play(PIANO, position, move(position, "tableau1", "tableau3"))  # 8♥ on 9♣
    # the pack's last card, turned, is an ordinary column
    assert (cards(position, "tableau1"), position.face_down("tableau1")) == (["5♠"], 0)
    assert onto(position, "tableau1") == {("waste_to_tableau", "waste", "tableau1", 1)}
    # used up completely, the pack's place takes any free card
    play(PIANO, position, move(position, "tableau1", "tableau6"))
    assert ("waste_to_tableau", "waste", "tableau1", 1) in onto(position, "tableau1")
    assert ("build", "tableau2", "tableau1", 1) in onto(position, "tableau1")  # 8♦
    assert ("waste_to_tableau", "waste", "tableau1", 1) not in keys(SEALED.replace("8♦", "6♦"))


def test_a_turned_pack_card_goes_into_a_space_only_by_option():
    """«кладем ее на базовую или на один из вспомогательных столбцов»: a foundation or a
    column, not an empty place."""
    position = "tableau1: (5♠) (8♥) K♣\ntableau2: 9♠\nvars: unsealed=1"
    assert {k for k in keys(position) if k[1] == "tableau1"} == set()
    assert {k for k in keys(position, rules={"pack_card_to_space": True}) if k[1] == "tableau1"} \
        == {("reveal", "tableau1", "tableau3", 1)}
    # the original card on a sealed pack is a column's card: it may go into a space
    original = "tableau1: (5♠) (8♥) K♣\ntableau2: 9♠"
    assert ("reveal", "tableau1", "tableau3", 1) in keys(original)


def test_a_turned_pack_card_may_go_to_a_foundation_and_the_next_turns():
    position = parse_position(PIANO, "foundation1: A♠ 2♠\ntableau1: (7♥) 3♠\nvars: unsealed=1")
    assert onto(position, "tableau1") == set()
    [to_foundation] = [m for m in moves_from(PIANO, position) if m.kind == "to_foundation"]
    assert play(PIANO, position, to_foundation)
    assert (cards(position, "tableau1"), position.face_down("tableau1")) == (["7♥"], 0)


def test_a_used_up_packs_place_takes_any_free_card_and_only_one_space_is_offered():
    position = """
    waste: 7♦
    tableau1: K♠
    tableau2: K♠
    tableau3: K♥
    tableau4: K♥
    tableau5: K♣
    tableau6: K♣
    tableau7: K♦
    tableau8: K♦
    """
    assert {k for k in keys(position) if k[0] == "waste_to_tableau"} == {
        ("waste_to_tableau", "waste", "tableau9", 1)}
    assert {k for k in keys(position) if k[1] == "tableau3"} == {
        ("space_shift", "tableau3", "tableau9", 1)}


def test_a_cards_move_into_a_space_is_listed_after_its_builds():
    """Greedy plays the first move of its best kind in listed order: a card's builds come before
    its move into the first open space (the shared generator's ``space_last``), whatever the
    columns' order."""
    position = "tableau1: 10♥ 8♦\ntableau3: 9♠\ntableau4: Q♣"
    assert [m.key() for m in moves_from(PIANO, position) if m.src == "tableau1"] == [
        ("build", "tableau1", "tableau3", 1), ("build", "tableau1", "tableau2", 1)]


def test_building_is_down_by_one_in_alternate_colours():
    position = """
    tableau1: 8♠
    tableau2: 9♠
    tableau3: 9♥
    tableau4: 10♥
    tableau5: 7♥
    tableau6: 10♣
    tableau7: 9♦
    tableau8: 8♦
    tableau9: J♣
    tableau10: J♦
    """
    assert keys(position) == {
        ("empty_pile", "tableau1", "tableau3", 1),  # 8♠ on 9♥
        ("empty_pile", "tableau1", "tableau7", 1),  # 8♠ on 9♦
        ("empty_pile", "tableau2", "tableau4", 1),  # 9♠ on 10♥
        ("empty_pile", "tableau3", "tableau6", 1),  # 9♥ on 10♣
        ("empty_pile", "tableau4", "tableau9", 1),  # 10♥ on J♣
        ("empty_pile", "tableau5", "tableau1", 1),  # 7♥ on 8♠
        ("empty_pile", "tableau6", "tableau10", 1),  # 10♣ on J♦
        ("empty_pile", "tableau7", "tableau6", 1),  # 9♦ on 10♣
        ("empty_pile", "tableau8", "tableau2", 1),  # 8♦ on 9♠
    }


def test_only_one_card_moves_at_a_time():
    position = """
    tableau1: 9♠ 8♥
    tableau2: 10♦
    tableau3: 9♣
    """
    # 9♠ 8♥ may not go onto 10♦ together; 8♥ alone is a shuttle (build)
    assert {k for k in keys(position) if k[1] == "tableau1"} == {
        ("build", "tableau1", "tableau3", 1), ("build", "tableau1", "tableau4", 1)}


def test_greedy_shifts_cards_between_columns_before_the_next_stock_card():
    greedy = build_policy(PIANO, "greedy").array
    priority = {kind: greedy[P_PRIORITY + PIANO.move_kinds.index(kind)]
                for kind in ("build", "space_shift", "stock")}
    assert NEVER not in priority.values()
    assert priority["build"] < priority["stock"] < priority["space_shift"]


def test_two_pack_foundations_take_both_aces_of_a_suit():
    position = """
    foundation1: A♠ 2♠
    tableau1: A♠
    tableau2: 3♠
    tableau3: 2♥
    """
    assert {k for k in keys(position) if k[0] == "to_foundation"} == {
        ("to_foundation", "tableau1", "foundation2", 1),
        ("to_foundation", "tableau2", "foundation1", 1)}
    position = parse_position(PIANO, "foundation1: A♠ 2♠\nfoundation2: A♠\ntableau1: 2♠")
    assert move(position, "tableau1", "foundation2").kind == "to_foundation"


def test_all_104_cards_on_the_foundations_win():
    lines = [f"foundation{2 * s + k + 1}: " + " ".join(r + suit for r in RANK_NAMES[1:])
             for s, suit in enumerate("♠♥♣♦") for k in range(2)]
    lines[-1] = lines[-1].removesuffix(" K♦")
    position = parse_position(PIANO, "\n".join(lines) + "\ntableau1: K♦")
    play(PIANO, position, move(position, "tableau1", "foundation8"))
    assert position.won


def test_the_stock_turns_one_card_at_a_time_onto_a_free_waste_top():
    position = parse_position(PIANO, "stock: (2♣) (3♦) (A♥)\ntableau1: 4♠")
    assert {k for k in keys(position) if k[0] == "stock"} == {("stock", "stock", "waste", 1)}
    play(PIANO, position, move(position, "stock", "waste"))
    assert cards(position, "waste") == ["A♥"]
    assert ("waste_to_foundation", "waste", "foundation3", 1) in keys(position)
    play(PIANO, position, move(position, "stock", "waste"))
    assert ("waste_to_tableau", "waste", "tableau1", 1) in keys(position)  # 3♦ on 4♠


def test_one_pass_only_without_the_last_reserve():
    position = "waste: 9♦ 3♣\ntableau1: K♠"
    assert not {k for k in keys(position, rules={"last_reserve": False}) if k[0] == "stock"}


RESCUE = """
waste: 9♦ 3♣ 5♥ 7♠ 6♣
tableau1: 4♦
"""


def test_last_reserve_turns_the_waste_over_in_order_and_keeps_three_cards_free():
    assert {k for k in keys(RESCUE) if k[0] == "stock"} == {("stock", "waste", "stock", 5)}
    assert not {k for k in keys("stock: (2♥)" + RESCUE) if k[1] == "waste" and k[0] == "stock"}
    position = parse_position(PIANO, RESCUE)
    assert play(PIANO, position, move(position, "waste", "stock"))
    assert [cards(position, f"reserve{i}") for i in (1, 2, 3)] == [["9♦"], ["3♣"], ["5♥"]]
    assert cards(position, "stock") == ["6♣", "7♠"] and position.face_down("stock") == 2
    assert cards(position, "waste") == []
    free = {k[1] for k in keys(position) if k[1].startswith("reserve")}
    assert free == {"reserve1", "reserve2", "reserve3"}  # all three may go into the space
    assert not {k for k in keys(position) if k[0] == "stock"}  # the rescue comes once
    # each used card is replaced from the turned-over waste, in its order
    play(PIANO, position, move(position, "reserve2", "tableau1"))
    assert cards(position, "reserve2") == ["7♠"]
    play(PIANO, position, move(position, "reserve2", "tableau2"))
    assert cards(position, "reserve2") == ["6♣"] and cards(position, "stock") == []
    play(PIANO, position, move(position, "reserve1", "tableau3"))
    assert cards(position, "reserve1") == []  # the deck is out: the reserve dwindles


# After the rescue: 2♠ could go up from a column, but no reserve card can be played.
RESERVE_DEAD = """
reserve1: 9♦
reserve2: 2♣
foundation1: A♠
tableau1: 2♠
tableau2: K♥
vars: redeals=1 packless=1023
"""


def test_the_game_is_lost_once_no_reserve_card_can_be_played():
    """«Если ни одной из этих трех карт выложить уже нельзя, пасьянс не вышел»."""
    assert keys(RESERVE_DEAD) == set()
    assert keys(RESERVE_DEAD, rules={"reserve_end": "no-move"}) == {
        ("to_foundation", "tableau1", "foundation1", 1)}
    # 3♠ could follow 2♠ up, but only after a column move: the game is lost all the same
    assert keys(RESERVE_DEAD.replace("9♦", "3♠")) == set()
    playable = RESERVE_DEAD.replace("9♦", "Q♠")  # Q♠ on K♥
    assert keys(playable) == {("to_foundation", "tableau1", "foundation1", 1),
                              ("reserve_to_tableau", "reserve1", "tableau2", 1)}
    used_up = "foundation1: A♠\ntableau1: 2♠\ntableau2: K♥\nvars: redeals=1 packless=1023"
    assert keys(used_up) == {("to_foundation", "tableau1", "foundation1", 1)}  # columns play on


def test_the_game_is_lost_when_nothing_in_the_last_reserve_or_elsewhere_moves():
    position = "reserve1: 9♦\nreserve3: 2♣\ntableau1: K♠\nvars: redeals=1 packless=1023"
    assert keys(position) == set()
    assert keys(position.replace("K♠", "10♠")) == {
        ("reserve_to_tableau", "reserve1", "tableau1", 1)}


def test_the_deal_puts_a_sealed_pack_under_each_original_card():
    for preset, pack in (("book", 3), ("pack2", 2), ("pack4", 4)):
        t = trace("little-piano", preset=preset, policy="greedy", seed=3, deal=0)
        columns = [PIANO.piles.index(f"tableau{i + 1}") for i in range(10)]
        assert [int(t.lens[0][p]) for p in columns] == [pack + 1] * 10
        assert [int(t.down[0][p]) for p in columns] == [pack] * 10
        stock = PIANO.piles.index("stock")
        assert t.lens[0][stock] == t.down[0][stock] == 104 - 10 * (pack + 1)



def test_the_waste_is_not_refilled_when_its_top_is_played():
    position = parse_position(PIANO, "stock: (2♣)\nwaste: 3♦\ntableau1: 4♠")
    play(PIANO, position, move(position, "waste", "tableau1"))
    assert cards(position, "waste") == [] and position.face_down("stock") == 1


def test_the_rules_id_says_version_2():
    assert build_rules(PIANO).id == "little-piano:book@r2"
