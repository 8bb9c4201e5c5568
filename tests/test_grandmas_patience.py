"""Grandma's Patience's rules (RULES.md §5), each pinned on a tiny hand-built position.

In the position notation a card written twice is the second pack's copy, so two-pack positions
read naturally.
"""

from __future__ import annotations

from simsol.engine.state import V_FOUNDATION
from simsol.games import get_game
from simsol.positions import moves_from, parse_position, play, play_out
from simsol.rules import build_rules
from simsol.trace import trace

GRANNY = get_game("grandmas-patience")


def legal(position, **kw):
    return moves_from(GRANNY, position, **kw)


def do(position, move, **kw):
    return play(GRANNY, position, move, **kw)


def keys(position, **kw):
    return {m.key() for m in legal(position, **kw)}


def of_kind(kind, position, **kw):
    return {k for k in keys(position, **kw) if k[0] == kind}


def no_spaces(position, first):
    """``position`` with columns ``first``..11 holding a King each: no spaces, no extra moves."""
    kings = ("K♠", "K♥", "K♣", "K♦") * 2
    return position + "".join(f"\ntableau{i}: {kings[i - first]}" for i in range(first, 12))


def test_deal_is_eleven_columns_of_four_face_up_and_a_bank_of_sixty():
    t = trace("grandmas-patience", seed=3, deal=0)
    lens = dict(zip(GRANNY.piles, t.lens[0]))
    down = dict(zip(GRANNY.piles, t.down[0]))
    assert [lens[f"tableau{i}"] for i in range(1, 12)] == [4] * 11
    assert [down[f"tableau{i}"] for i in range(1, 12)] == [0] * 11
    assert lens["bank"] == down["bank"] == 60 and lens["waste"] == 0
    assert GRANNY.deck.size == 104 and len(set(t.cards_at(0))) == 104


def test_only_the_exposed_card_goes_to_a_foundation_one_at_a_time():
    position = """
    tableau1: A♠ 5♥
    tableau2: 5♥ A♦
    """
    assert keys(position) == {
        ("to_foundation", "tableau2", "foundation7", 1),
        ("uncover", "tableau1", "tableau3", 1),  # 5♥ into a space frees A♠
        ("build", "tableau2", "tableau3", 1),
    }


def test_two_foundations_of_a_suit_both_take_their_next_card():
    position = parse_position(GRANNY, """
    foundation1: A♠ 2♠ 3♠ 4♠ 5♠
    foundation2: A♠ 2♠ 3♠ 4♠ 5♠
    tableau1: 6♠
    tableau2: 6♠
    """)
    assert of_kind("to_foundation", position) == {
        ("to_foundation", "tableau1", "foundation1", 1),
        ("to_foundation", "tableau2", "foundation1", 1),
    }
    do(position, legal(position)[0])
    assert of_kind("to_foundation", position) == {
        ("to_foundation", "tableau2", "foundation2", 1),
    }
    do(position, legal(position)[0])
    foundations = position.pile("foundation1") + position.pile("foundation2")
    assert len(set(foundations)) == 12  # the two copies of every card kept apart
    assert position.vars[V_FOUNDATION] == 12


def test_an_ace_starts_the_second_foundation_of_its_suit():
    position = """
    foundation1: A♠ 2♠
    tableau1: A♠
    tableau2: 3♠
    """
    assert of_kind("to_foundation", position) == {
        ("to_foundation", "tableau1", "foundation2", 1),
        ("to_foundation", "tableau2", "foundation1", 1),
    }


def test_a_group_or_any_part_of_it_moves_and_dealt_cards_are_no_group():
    position = no_spaces("""
    tableau1: 5♦ 10♥ 9♠ 8♥
    tableau2: 2♥ J♣
    tableau3: 4♣ 10♦
    tableau4: 6♦ 9♣
    tableau5: 6♠""", 6)
    assert keys(position) == {
        ("build", "tableau1", "tableau2", 3),  # 10♥ 9♠ 8♥ on J♣, 5♦ stays
        ("build", "tableau1", "tableau3", 2),  # 9♠ 8♥ on 10♦
        ("build", "tableau1", "tableau4", 1),  # 8♥ on 9♣
        ("build", "tableau3", "tableau2", 1),  # 10♦ on J♣
        ("build", "tableau4", "tableau3", 1),  # 9♣ on 10♦
    }


def test_a_space_takes_any_card_or_group_from_another_column():
    position = """
    tableau1: 5♠ 9♥ 8♣
    tableau3: K♦
    """
    assert keys(position) == {
        ("build", "tableau1", "tableau2", 2),  # 9♥ 8♣ into a space
        ("build", "tableau1", "tableau2", 1),  # 8♣ alone into a space
        ("space_shift", "tableau3", "tableau2", 1),  # a whole column: changes nothing
    }


def test_a_space_takes_one_bank_card():
    position = """
    bank: (2♦) (3♦)
    waste: 4♣ J♥
    tableau1: 7♠
    """
    assert keys(position) == {
        ("waste_to_tableau", "waste", "tableau2", 1),
        ("space_shift", "tableau1", "tableau2", 1),
        ("stock", "bank", "waste", 1),
    }


def test_bank_is_turned_one_card_at_a_time_onto_the_waste():
    position = parse_position(GRANNY, "bank: (2♦) (3♦) (9♣)\ntableau1: 5♠ 7♠")
    (turn,) = [m for m in legal(position) if m.kind == "stock"]
    assert turn.key() == ("stock", "bank", "waste", 1)
    do(position, turn)
    assert len(position.pile("waste")) == 1 and position.face_down("waste") == 0
    assert len(position.pile("bank")) == position.face_down("bank") == 2


def test_book_is_one_pass_two_passes_turns_the_waste_over_once():
    position = "waste: 2♦ 3♦\ntableau1: 5♠ 7♠"
    assert of_kind("stock", position) == set()
    redeal = ("stock", "waste", "bank", 2)
    assert of_kind("stock", position, preset="two-passes") == {redeal}
    assert of_kind("stock", position + "\nvars: redeals=1", preset="two-passes") == set()
    assert of_kind("stock", position + "\nvars: redeals=7 pass_progress=1",
                   preset="unlimited") == {redeal}


def test_unlimited_redeals_are_offered_and_the_guard_ends_the_game():
    position = parse_position(GRANNY, "waste: 2♦ 3♦\ntableau1: 5♠ 7♠\nvars: pass_progress=0")
    assert of_kind("stock", position, preset="unlimited") != set()
    end, _ = play_out(GRANNY, position, preset="unlimited")
    assert end == "no progress"


def test_building_is_down_in_alternate_colours_for_bank_cards_too():
    position = no_spaces("""
    waste: 8♦
    tableau1: 4♠ 9♠
    tableau2: 4♥ 9♥
    tableau3: 4♣ 9♣""", 4)
    assert keys(position) == {
        ("waste_to_tableau", "waste", "tableau1", 1),
        ("waste_to_tableau", "waste", "tableau3", 1),
    }


def test_a_bank_card_goes_up_only_by_way_of_a_column():
    """«Подкладывать тузы наверх и переносить нужные карты на них можно только снизу столбцов»:
    the turned bank card goes onto a column (here into the space), not straight up."""
    position = "bank: (2♦)\nwaste: A♥\ntableau1: 7♠\nfoundation1: A♠"
    assert keys(position) == {
        ("waste_to_tableau", "waste", "tableau2", 1),
        ("space_shift", "tableau1", "tableau2", 1),
        ("stock", "bank", "waste", 1),
    }
    assert ("waste_to_foundation", "waste", "foundation3", 1) in keys(
        position, rules={"bank_to_foundation": True})
    assert ("waste_to_foundation", "waste", "foundation1", 1) not in keys(
        position.replace("A♥", "2♠"))
    assert ("waste_to_foundation", "waste", "foundation1", 1) in keys(
        position.replace("A♥", "2♠"), rules={"bank_to_foundation": True})


# 5♥ goes up from a column: a useful move, which holds the bank back.
COLUMNS_BUSY = no_spaces("""
bank: (2♦) (3♦)
foundation3: A♥ 2♥ 3♥ 4♥
tableau1: 9♣ 5♥
tableau2: 10♦ 6♠
tableau3: 2♣""", 4)


def test_the_bank_waits_until_the_columns_are_done():
    """«Когда в столбцах перегруппировка завершится или зайдет в тупик, беритесь за банк»."""
    assert keys(COLUMNS_BUSY) == {("to_foundation", "tableau1", "foundation3", 1),
                                  ("build", "tableau1", "tableau2", 1)}
    assert ("stock", "bank", "waste", 1) in keys(COLUMNS_BUSY, rules={"bank_when": "any-time"})
    done = COLUMNS_BUSY.replace("foundation3: A♥ 2♥ 3♥ 4♥", "foundation3: A♥ 2♥ 3♥")
    assert keys(done) == {("build", "tableau1", "tableau2", 1),  # 5♥ on 6♠: no use
                          ("stock", "bank", "waste", 1)}
    assert keys(done, rules={"bank_when": "no-move"}) == {
        ("build", "tableau1", "tableau2", 1)}


def test_the_rules_id_says_version_2():
    assert build_rules(GRANNY).id == "grandmas-patience:book@r2"


def test_a_split_that_frees_a_card_is_told_apart():
    """Both 8♥s can go onto 9♣; the one on tableau2 leaves a 9♠ that takes tableau4's 8♦
    (``opens``), the one on tableau1 a K♣ nothing takes.  A split waits behind the bank unless
    it frees something: weighed past a kind, ``opens`` plays that one first."""
    from simsol.positions import choice
    position = """
    bank: (5♥)
    tableau1: K♣ 8♥
    tableau2: 9♠ 8♥
    tableau3: 9♣
    tableau4: 2♣ 8♦
    """
    first = {"ties": "first"}
    assert choice(GRANNY, position, "heuristic", policy_options=first).src == "bank"
    assert choice(GRANNY, position, "heuristic", policy_options={
        **first, "weight.opens": 150}).src == "tableau2"
