"""Canfield's rules (RULES.md §2), each pinned on a tiny hand-built position."""

from __future__ import annotations

import pytest

import simsol
from simsol.cards import card_text
from simsol.games import get_game
from simsol.positions import Move, moves_from, parse_position, play, play_out
from simsol.trace import trace

CANFIELD = get_game("canfield")
BASE = "vars: base_rank=8"


def keys(position, **kw):
    return {m.key() for m in moves_from(CANFIELD, position, **kw)}


def kinds(position, kind, **kw):
    return {k for k in keys(position, **kw) if k[0] == kind}


def texts(position, pile):
    return [card_text(c) for c in position.pile(pile)]


def test_the_deal():
    t = trace("canfield", seed=3, deal=0, max_moves=1)
    lens = dict(zip(CANFIELD.piles, t.lens[0]))
    down = dict(zip(CANFIELD.piles, t.down[0]))
    assert (lens["reserve"], down["reserve"]) == (13, 12)  # only the reserve's top is seen
    assert (lens["stock"], down["stock"]) == (34, 34)
    assert [lens[f"tableau{i}"] for i in range(1, 5)] == [1, 1, 1, 1]
    assert sum(lens[f"foundation{i}"] for i in range(1, 5)) == 1  # the base card
    shown = t.render(0)
    assert "reserve: [12 face down] " in shown and "stock: [34 face down]" in shown


def test_foundations_build_up_from_the_base_rank_and_wrap():
    position = BASE + """
    foundation1: 8♠ 9♠ 10♠ J♠ Q♠ K♠
    tableau1: A♠
    tableau2: 8♥
    tableau3: A♥
    tableau4: 9♥
    """
    assert kinds(position, "to_foundation") == {("to_foundation", "tableau1", "foundation1", 1),
                                                ("to_foundation", "tableau2", "foundation2", 1)}


# Base 8: 7♥ may go on 8♠ only when the tableau wraps all the way round; K♥ on A♠ either way.
WRAPS = BASE + """
foundation1: 8♦
tableau1: 8♠
tableau2: 7♥
tableau3: A♠
tableau4: K♥
waste: 7♦
"""


@pytest.mark.parametrize("preset, seven_on_eight", [("book", True), ("solvitaire", False)])
def test_the_tableau_wraps_all_round_in_the_book_and_from_the_base_in_solvitaire(
        preset, seven_on_eight):
    """The book's tableau wraps all the way round; Solvitaire counts ranks from the base card
    (``wrap=from-base``), so the rank below the base, the last, goes on no card, from a pile or
    from the waste, while a King still goes on an Ace (base 8: A is the sixth rank, K the fifth)."""
    moves = keys(WRAPS, preset=preset)
    onto_eight = {m for m in moves if m[2] == "tableau1"}
    assert bool(onto_eight) == seven_on_eight
    if seven_on_eight:
        assert {m[1] for m in onto_eight} == {"tableau2", "waste"}
    assert any(m[1] == "tableau4" and m[2] == "tableau3" for m in moves)


def test_a_full_foundation_takes_nothing_more():
    full = "8♠ 9♠ 10♠ J♠ Q♠ K♠ A♠ 2♠ 3♠ 4♠ 5♠ 6♠ 7♠"
    # the second 8♠ is another pack's copy: only the 13-card limit can refuse it
    assert kinds(BASE + f"\nfoundation1: {full}\ntableau1: 8♠", "to_foundation") == set()
    assert kinds(BASE + f"\nfoundation1: {full[:-3]}\ntableau1: 7♠", "to_foundation") == {
        ("to_foundation", "tableau1", "foundation1", 1)}


def test_tableau_builds_down_in_alternate_colours_and_wraps_king_on_ace():
    position = BASE + """
    reserve: (2♣) K♠
    waste: K♥
    tableau1: A♥
    tableau2: A♣
    tableau3: 5♦
    tableau4: 4♠
    """
    assert kinds(position, "reserve_to_tableau") == {
        ("reserve_to_tableau", "reserve", "tableau1", 1)}  # K♠ on A♥, not on A♣
    assert kinds(position, "waste_to_tableau") == {("waste_to_tableau", "waste", "tableau2", 1)}
    assert kinds(position, "empty_pile") == {("empty_pile", "tableau4", "tableau3", 1)}


def test_nothing_is_ever_built_on_the_reserve():
    position = BASE + "\nreserve: (2♣) 9♠\nwaste: 8♥\ntableau1: 8♦\ntableau2: 3♣\ntableau3: 4♣"
    assert all(m.dst != "reserve" for m in moves_from(CANFIELD, position))


PILE = BASE + """
tableau1: 10♠ 9♥ 8♣
tableau2: J♥
tableau3: 9♦
tableau4: 3♣
reserve: (2♣) 5♦
"""


def tableau_moves(position, **kw):
    return {k for k in keys(position, **kw) if k[1].startswith("tableau")
            and k[2].startswith("tableau")}


def test_book_moves_only_whole_piles():
    assert tableau_moves(PILE) == {("empty_pile", "tableau1", "tableau2", 3)}


def test_standard_moves_the_top_card_alone_or_the_whole_pile():
    assert tableau_moves(PILE, preset="standard") == {("empty_pile", "tableau1", "tableau2", 3),
                                                      ("build", "tableau1", "tableau3", 1)}


PART = BASE + """
tableau1: 10♠ 9♥ 8♣
tableau2: J♥
tableau3: 9♦
tableau4: 10♣
reserve: (2♣) 5♦
"""


def test_any_part_moves_every_part_of_the_run_the_others_do_not():
    """9♥ 8♣ onto 10♣ is a part of the run that is neither its top card nor the whole pile."""
    whole = ("empty_pile", "tableau1", "tableau2", 3)
    top = ("build", "tableau1", "tableau3", 1)
    part = ("build", "tableau1", "tableau4", 2)
    def from_first(**kw):
        return {k for k in tableau_moves(PART, **kw) if k[1] == "tableau1"}

    assert from_first() == {whole}
    assert from_first(rules={"moves": "top-or-whole"}) == {whole, top}
    assert from_first(rules={"moves": "any-part"}) == {whole, top, part}
    assert from_first(preset="solvitaire") == {whole, top, part}
    position = parse_position(CANFIELD, PART)
    play(CANFIELD, position, Move(*part, "9♥"), rules={"moves": "any-part"})
    assert texts(position, "tableau1") == ["10♠"]
    assert texts(position, "tableau4") == ["10♣", "9♥", "8♣"]


def test_the_solvitaire_preset():
    assert CANFIELD.presets["solvitaire"] == {"moves": "any-part", "space": "reserve-then-any",
                                              "wrap": "from-base"}
    defaults = {o.name: o.default for o in CANFIELD.options}
    assert (defaults["draw"], defaults["redeals"], defaults["worrying_back"]) == (3, None, False)


SPACE = BASE + """
reserve: (4♦) (6♣) J♠
waste: 9♦
tableau1: 10♣
tableau2: Q♥
tableau4: 7♠
"""


def test_a_space_is_filled_at_once_from_the_reserve():
    assert keys(SPACE) == {("reserve_to_tableau", "reserve", "tableau3", 1)}  # nothing else
    position = parse_position(CANFIELD, SPACE)
    assert play(CANFIELD, position, Move("reserve_to_tableau", "reserve", "tableau3", 1, "J♠"))
    assert texts(position, "tableau3") == ["J♠"]
    assert position.face_down("reserve") == 1  # the next reserve card is turned up


def test_solvitaire_fills_a_space_at_once_from_the_reserve_while_it_lasts():
    forced = {("reserve_to_tableau", "reserve", "tableau3", 1)}
    assert keys(SPACE, rules={"space": "reserve-then-any"}) == forced
    assert keys(SPACE, preset="solvitaire") == forced


OUT = BASE + """
waste: 3♥ 9♦
tableau1: 10♣
tableau2: Q♥ J♣
tableau4: 7♠
"""


def into_space(position, **kw):
    return {(k[1], k[3]) for k in keys(position, **kw) if k[2] == "tableau3"}


def test_solvitaire_fills_a_space_with_any_card_once_the_reserve_is_out():
    """Not only the waste top: any pile's card, or (with any-part moves) any part of its run."""
    assert into_space(OUT) == {("waste", 1)}  # the book: the waste top only
    assert into_space(OUT, rules={"space": "reserve-or-waste"}) == {("waste", 1)}
    assert into_space(OUT, rules={"space": "reserve-then-any"}) == {
        ("waste", 1), ("tableau1", 1), ("tableau2", 2), ("tableau4", 1)}  # whole piles
    assert into_space(OUT, preset="solvitaire") == {
        ("waste", 1), ("tableau1", 1), ("tableau2", 1), ("tableau2", 2), ("tableau4", 1)}
    position = parse_position(CANFIELD, OUT)
    [move] = [m for m in moves_from(CANFIELD, position, preset="solvitaire")
              if m.src == "tableau2" and m.dst == "tableau3" and m.count == 1]
    play(CANFIELD, position, move, preset="solvitaire")
    assert texts(position, "tableau3") == ["J♣"] and texts(position, "tableau2") == ["Q♥"]


def test_emptying_a_pile_makes_the_reserve_fill_it_next():
    position = parse_position(CANFIELD, BASE + """
    reserve: (4♦) (6♣) J♠
    tableau1: 10♣
    tableau2: Q♥
    tableau3: K♦
    tableau4: 9♥
    """)
    play(CANFIELD, position, Move("empty_pile", "tableau4", "tableau1", 1, "9♥"))
    assert keys(position) == {("reserve_to_tableau", "reserve", "tableau4", 1)}


def test_space_by_choice_takes_the_reserve_but_never_the_waste_or_a_pile():
    moves = keys(SPACE, rules={"space": "reserve-by-choice"})
    into_space = {k for k in moves if k[2] == "tableau3"}
    assert into_space == {("reserve_to_tableau", "reserve", "tableau3", 1)}
    assert ("waste_to_tableau", "waste", "tableau1", 1) in moves  # other moves go on meanwhile


def test_space_reserve_or_waste_reading():
    moves = keys(SPACE, rules={"space": "reserve-or-waste"})
    assert {k for k in moves if k[2] == "tableau3"} == {
        ("reserve_to_tableau", "reserve", "tableau3", 1),
        ("waste_to_tableau", "waste", "tableau3", 1)}


def test_after_the_reserve_the_waste_may_fill_a_space_but_no_pile_may():
    position = BASE + """
    waste: 3♥ 9♦
    tableau1: 10♣
    tableau2: Q♥
    tableau4: 7♠
    """
    assert {k for k in keys(position) if k[2] == "tableau3"} == {
        ("waste_to_tableau", "waste", "tableau3", 1)}
    assert ("stock", "waste", "stock", 2) in keys(position + "vars: pass_progress=1")


def test_only_the_waste_top_is_playable():
    position = BASE + """
    waste: 9♠ 3♦
    foundation1: 8♠
    tableau1: 10♥
    tableau2: K♣
    tableau3: K♠
    tableau4: Q♣
    """
    assert keys(position + "vars: pass_progress=1") == {("stock", "waste", "stock", 2)}


WORRY = BASE + """
foundation2: 8♥ 9♥ 10♥
reserve: (2♣) 9♣
waste: 9♠
tableau1: J♣
tableau2: J♠
tableau3: 4♦
tableau4: 5♦
"""


def test_worrying_back_only_in_the_preset_that_allows_it():
    back = {("worry_back", "foundation2", "tableau1", 1),
            ("worry_back", "foundation2", "tableau2", 1)}
    assert kinds(WORRY, "worry_back") == set()
    assert kinds(WORRY, "worry_back_build") == set()
    assert kinds(WORRY, "worry_back", preset="worrying-back") == back
    assert kinds(WORRY, "worry_back", rules={"worrying_back": True}) == back


def test_worrying_back_never_fills_a_space():
    position = BASE + "\nfoundation2: 8♥ 9♥\nwaste: 3♠"
    assert kinds(position, "worry_back", preset="worrying-back") == set()


def test_greedy_worries_back_only_to_build_the_reserve_or_waste_top_on_it():
    moves = kinds(WORRY, "worry_back_build", preset="worrying-back")
    assert moves == {("worry_back_build", "foundation2", dst, 2)
                     for dst in ("tableau1", "tableau2")}  # 10♥ back, then 9♣ or 9♠ on it
    position = parse_position(CANFIELD, WORRY)
    [first] = [m for m in moves_from(CANFIELD, position, preset="worrying-back")
               if m.kind == "worry_back_build"][:1]
    assert play(CANFIELD, position, first, preset="worrying-back")
    assert texts(position, first.dst)[-2] == "10♥"
    assert position.vars[0] == 2  # one card fewer on the foundations
    order = CANFIELD.greedy_order  # last resorts, after the stock; plain worrying back last
    assert order.index("stock") < order.index("worry_back_build") < order.index("worry_back")


REDEAL = BASE + "\nwaste: 9♣ 5♦\ntableau1: 2♥\ntableau2: 2♦\ntableau3: K♥\ntableau4: K♦\n"


@pytest.mark.parametrize("preset,used,offered", [
    ("three-redeals", 2, True), ("three-redeals", 3, False),
    ("three-passes", 1, True), ("three-passes", 2, False),
    ("draw1-single-pass", 0, False),
])
def test_redeal_limit_edges(preset, used, offered):
    moves = kinds(REDEAL + f"vars: redeals={used} pass_progress=1", "stock", preset=preset)
    assert (("stock", "waste", "stock", 2) in moves) == offered


def test_unlimited_redeals_are_always_offered():
    """The loop guard, not the rules, ends a game whose redeal leads nowhere."""
    assert ("stock", "waste", "stock", 2) in keys(REDEAL + "vars: pass_progress=0")
    end, _ = play_out(CANFIELD, REDEAL)
    assert end == "no progress"


def test_draw_three_or_one():
    stock = BASE + "\nstock: (2♣) (3♣) (4♣) (5♣) (6♣)\ntableau1: 2♥"
    assert kinds(stock, "stock") == {("stock", "stock", "waste", 3)}
    assert kinds(stock, "stock", preset="draw1-single-pass") == {("stock", "stock", "waste", 1)}
    position = parse_position(CANFIELD, stock)
    play(CANFIELD, position, Move("stock", "stock", "waste", 3, ""))
    assert texts(position, "waste") == ["6♣", "5♣", "4♣"]  # 4♣ on top, playable


def test_last_card_wins():
    suits = "♠♥♣♦"
    ranks = ["8", "9", "10", "J", "Q", "K", "A", "2", "3", "4", "5", "6", "7"]
    lines = [f"foundation{i + 1}: " + " ".join(r + s for r in ranks) for i, s in enumerate(suits)]
    position = parse_position(CANFIELD, BASE + "\n" + "\n".join(lines[:3]) + "\nfoundation4: "
                              + " ".join(r + "♦" for r in ranks[:-1]) + "\nwaste: 7♦")
    assert play(CANFIELD, position, Move("waste_to_foundation", "waste", "foundation4", 1, "7♦"))
    assert position.vars[0] == 52 and position.vars[1] == 1


@pytest.mark.parametrize("preset", list(CANFIELD.presets))
def test_greedy_never_loops(preset):
    records = simsol.simulate("canfield", preset=preset, deals=300, seed=3, workers=1).data
    assert records["moves"].max() < 1000  # a loop would run to the idle cap


# Base 8: 10♥ can go up, and the cards that could be built on it are the black 9s.
SAFE_UP = BASE + """
foundation1: 8♠ 9♠
foundation2: 8♥ 9♥
foundation3: CLUBS
reserve: (2♦) 3♦
tableau1: UNDER10♥
tableau2: 4♦
tableau3: 6♦
tableau4: 7♦
"""


@pytest.mark.parametrize("clubs, under, reserve, preset, safe", [
    ("8♣ 9♣", "5♦ ", True, "book", True),       # both black 9s up: nothing can go on 10♥
    ("8♣", "5♦ ", True, "book", False),          # 9♣ may still want to go on it
    ("8♣ 9♣", "", True, "book", False),          # its pile's last card: the reserve fills it
    ("8♣ 9♣", "", False, "book", True),          # ... unless the reserve is out
    ("8♣ 9♣", "5♦ ", True, "worrying-back", False),  # a 9 could come back down
    ("8♣ 9♣", "", True, "solvitaire", False),    # Solvitaire fills a space at once too
])
def test_the_solvers_safe_move_is_a_tableau_card_nothing_can_go_on(clubs, under, reserve,
                                                                    preset, safe):
    """The solver plays such a card up alone (``safe_move``); a card from the reserve never."""
    from simsol.rules import build_rules, encode_rules
    text = SAFE_UP.replace("CLUBS", clubs).replace("UNDER", under)
    if not reserve:
        text = text.replace("reserve: (2♦) 3♦\n", "")
    position = parse_position(CANFIELD, text)
    rules = encode_rules(CANFIELD, build_rules(CANFIELD, preset))
    rows = position.legal_rows(rules)
    pick = CANFIELD.safe_move(position.state(), rules, rows, len(rows))
    if safe:
        assert (CANFIELD.piles[rows[pick][1]], CANFIELD.piles[rows[pick][2]]) == (
            "tableau1", "foundation2")
    else:
        assert pick == -1
    up_from_reserve = parse_position(CANFIELD, text.replace("3♦", "10♥").replace(
        "UNDER", "").replace("tableau1: 5♦ 10♥", "tableau1: 5♦").replace("tableau1: 10♥",
                                                                       "tableau1: 5♦"))
    rows = up_from_reserve.legal_rows(rules)
    assert any(CANFIELD.piles[row[1]] == "reserve" and row[2] == CANFIELD.piles.index(
        "foundation2") for row in rows) == reserve
    assert CANFIELD.safe_move(up_from_reserve.state(), rules, rows, len(rows)) == -1
