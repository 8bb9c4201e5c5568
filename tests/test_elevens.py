"""Elevens' rules (RULES.md §3), each pinned on a tiny hand-built position, plus the two claims the
module rests on: the rest clears once the stock is out, and the outcome ignores the policy."""

from __future__ import annotations

import numpy as np
import pytest

import simsol
from simsol.cards import parse_card
from simsol.engine.state import V_FOUNDATION
from simsol.games import get_game
from simsol.positions import moves_from, parse_position, play
from simsol.rules import SimsolError
from simsol.trace import trace

ELEVENS = get_game("elevens")


def keys(position, **kw):
    return {m.key() for m in moves_from(ELEVENS, position, **kw)}


def slots(*cards, stock=""):
    """A position with the given cards in slot1, slot2, ... and a face-down stock."""
    lines = [f"slot{i + 1}: {card}" for i, card in enumerate(cards)]
    if stock:
        lines.append("stock: " + " ".join(f"({card})" for card in stock.split()))
    return "\n".join(lines)


def test_pairs_sum_to_eleven_one_move_per_pair_of_ranks():
    position = slots("5♠", "6♥", "5♦", "10♣", "A♥", "9♠", "3♣", "4♦", "4♣", stock="2♦")
    assert keys(position) == {
        ("pair", "slot1", "removed", 2),  # 5 + 6 (either five: they are alike)
        ("pair", "slot5", "removed", 2),  # A + 10
    }


def test_equal_cards_do_not_pair_even_when_they_sum_to_ten_or_twelve():
    assert keys(slots("5♠", "5♥", "6♣", "6♦", "2♠", "8♥", stock="3♦")) == {
        ("pair", "slot1", "removed", 2)}
    assert keys(slots("5♠", "5♥", "6♣")) == {("pair", "slot1", "removed", 2)}
    assert keys(slots("5♠", "5♥", "9♣", "3♦", stock="4♦")) == set()


def test_stock_cards_are_never_paired_with():
    assert keys(slots("5♠", "10♥", stock="6♦ A♣")) == set()


def test_triple_needs_jack_queen_and_king_all_visible():
    assert keys(slots("J♠", "Q♥", "2♣", stock="K♦")) == set()
    assert keys(slots("J♠", "Q♥", "K♣", "K♦", stock="2♦")) == {("triple", "slot1", "removed", 3)}


def test_single_face_card_goes_alone_and_at_once():
    position = slots("Q♠", "6♥", "5♦", "K♣", stock="2♦")
    assert keys(position, preset="faces-single") == {("single_face", "slot1", "removed", 1)}
    assert keys(slots("Q♠", "3♥", stock="2♦"), preset="faces-single") == {
        ("single_face", "slot1", "removed", 1)}


def test_cells_park_one_of_each_court_rank():
    position = slots("J♠", "J♥", "Q♦", "3♣", stock="2♦")
    assert keys(position, preset="cells") == {
        ("park", "slot1", "cell1", 1), ("park", "slot3", "cell2", 1)}
    taken = position + "\ncell1: J♣"
    assert keys(taken, preset="cells") == {("park", "slot3", "cell2", 1)}


def test_cells_remove_a_full_set_from_cells_and_slots():
    mixed = slots("Q♦", "3♣", "K♠", stock="2♦") + "\ncell1: J♣"
    assert ("triple", "cell1", "removed", 3) in keys(mixed, preset="cells")
    parked = slots("3♣", stock="2♦") + "\ncell1: J♣\ncell2: Q♥\ncell3: K♠"
    position = parse_position(ELEVENS, parked)
    [move] = moves_from(ELEVENS, position, preset="cells")
    assert move.key() == ("triple", "cell1", "removed", 3)
    play(ELEVENS, position, move, preset="cells")
    assert [position.pile(f"cell{i}") for i in (1, 2, 3)] == [[], [], []]
    assert len(position.pile("removed")) == 3


def test_block_court_cards_never_leave():
    rules = {"faces": "block", "slots": 12}
    assert keys(slots("J♠", "Q♥", "K♣", "4♦", "7♣", stock="2♦"), rules=rules) == {
        ("pair", "slot4", "removed", 2)}
    assert keys(slots("J♠", "Q♥", "K♣", "K♦", stock="2♦"), rules=rules) == set()


def test_block_is_won_when_only_court_cards_are_left():
    rules = {"faces": "block", "slots": 12}
    assert keys(slots("J♠", "Q♥", stock="2♦"), rules=rules) == set()  # not while cards remain
    position = parse_position(ELEVENS, end_position("J♠", "4♦", "Q♥", "7♣"))
    [pair] = moves_from(ELEVENS, position, rules=rules)
    play(ELEVENS, position, pair, rules=rules)
    [gather] = moves_from(ELEVENS, position, rules=rules)
    assert gather.key() == ("gather_faces", "slot1", "removed", 2)
    play(ELEVENS, position, gather, rules=rules)
    assert position.vars[V_FOUNDATION] == 52 and position.won


def test_block_needs_a_slot_for_every_court_card():
    with pytest.raises(SimsolError, match="faces=block needs slots >= 12") as error:
        simsol.simulate("elevens", rules={"faces": "block"}, deals=1)
    assert "\n" not in str(error.value)
    simsol.simulate("elevens", rules={"faces": "block", "slots": 13}, deals=2, workers=1)


def test_spaces_refill_in_slot_order_from_the_stock_top():
    cards = ("6♥", "2♣", "5♦", "3♠", "4♠", "2♦", "3♦", "4♦", "10♥")
    position = parse_position(ELEVENS, slots(*cards, stock="8♠ 9♦ 3♥"))
    [move] = moves_from(ELEVENS, position)
    assert move.key() == ("pair", "slot3", "removed", 2)  # named by its lower card, the 5
    assert play(ELEVENS, position, move)
    assert [position.pile(f"slot{i}") for i in (1, 2, 3)] == [
        [parse_card("3♥")], [parse_card("2♣")], [parse_card("9♦")]]
    assert position.pile("stock") == [parse_card("8♠")]
    assert position.face_down("stock") == 1
    assert position.vars[V_FOUNDATION] == 2


def end_position(*left):
    """The stock out, the cards ``left`` in the slots and every other card removed."""
    every = [f"{rank}{suit}" for suit in "♠♥♣♦"
             for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    removed = " ".join(text for text in every if text not in left)
    return slots(*left) + "\nremoved: " + removed


def test_stock_out_then_the_rest_clears_and_wins():
    position = parse_position(ELEVENS, end_position("4♦", "7♣", "J♦", "Q♣", "K♥"))
    while not position.won:
        moves = moves_from(ELEVENS, position)
        assert moves
        play(ELEVENS, position, moves[0])
    assert position.vars[V_FOUNDATION] == 52


def test_nothing_to_do_is_lost():
    t = trace("elevens", seed=2026, deal=0)
    assert t.end == "stuck" and not t.moves


@pytest.mark.parametrize("preset", ["book", "twelve", "faces-single", "cells", "block-eleven"])
def test_once_the_stock_is_out_the_rest_always_clears(preset):
    """The claim behind "won when the stock runs out": no deal is lost with an empty stock."""
    for deal in range(150):
        t = trace("elevens", preset=preset, policy="random", seed=3, deal=deal, max_moves=100)
        assert t.end in ("won", "stuck")
        assert t.won == (t.lens[-1][ELEVENS.piles.index("stock")] == 0), deal


@pytest.mark.parametrize("preset", list(ELEVENS.presets))
def test_the_outcome_does_not_depend_on_the_policy(preset):
    greedy = simsol.simulate("elevens", preset=preset, policy="greedy", deals=300, seed=4,
                             workers=1).data
    random = simsol.simulate("elevens", preset=preset, policy="random", deals=300, seed=4,
                             workers=1).data
    assert np.array_equal(greedy["won"], random["won"])
    assert np.array_equal(greedy["foundation"], random["foundation"])
