"""Grandma's Patience («Бабушкин пасьянс») from the Fikhman book (RULES.md §5): two packs, 11
columns of 4 cards all face up, 8 foundations, any part of a group moves, a space takes any card
or group, and a 60-card bank turned one card at a time.

The book does not say what becomes of a bank card that fits nowhere [rebuilt]: it goes to a
face-up waste whose top stays available, and the bank is gone through ``redeals + 1`` times.
"""

from __future__ import annotations

from simsol.cards import ACE, DOUBLE
from simsol.engine.core import V_FOUNDATION, V_MOVES_KEPT, V_PASSES, V_WON
from simsol.engine.jit import kernel
from simsol.engine.piles import (
    ALTERNATE_COLOURS,
    GRAB_ANY_PART,
    PILE_MOVE_KINDS,
    SPACE_ANY,
    STOCK,
    SUCC_UP,
    TO_FOUNDATION,
    WASTE_TO_FOUNDATION,
    WASTE_TO_TABLEAU,
    apply_stock,
    apply_transfer,
    gen_card_to_tableau,
    gen_stock_move,
    gen_tableau_moves,
    gen_to_foundation,
)
from simsol.games.base import Game
from simsol.rules import Option

OPTIONS = (
    Option("redeals", 0, "times the waste may be turned over into a new bank (none = unlimited; "
           "the book does not say: one pass)", values=tuple(range(21)), none_ok=True),
)
R_REDEALS = 0

PRESETS = {
    "book": {},
    "two-passes": {"redeals": 1},
    "unlimited": {"redeals": None},
}
PRESET_DOCS = {
    "book": "the bank gone through once, one card at a time, unused cards to a waste",
    "two-passes": "the waste turned over once for a second pass through the bank",
    "unlimited": "the waste turned over as long as a pass makes progress",
}

BANK, WASTE = 0, 1
F0, PER_SUIT = 2, 2
NF = 4 * PER_SUIT
T0, NT = F0 + NF, 11
ROWS = 4
PILES = ("bank", "waste") + tuple(f"foundation{i + 1}" for i in range(NF)) + tuple(
    f"tableau{i + 1}" for i in range(NT))


@kernel
def setup(deck, rules, piles, lens, down, vars, rng):
    """Four rows of 11 cards face up, row under row; the other 60 cards face down in the bank."""
    k = 0
    for _ in range(ROWS):
        for p in range(T0, T0 + NT):
            piles[p, lens[p]] = deck[k]
            lens[p] += 1
            k += 1
    for i in range(deck.shape[0] - 1, k - 1, -1):
        piles[BANK, lens[BANK]] = deck[i]
        lens[BANK] += 1
    down[BANK] = lens[BANK]
    vars[V_PASSES] = 1


@kernel
def generate(piles, lens, down, vars, rules, moves):
    """Legal moves; the columns' own moves are kept from the last call while only the bank moved."""
    if vars[V_MOVES_KEPT] > 0:
        n = vars[V_MOVES_KEPT] - 1
    else:
        n = gen_to_foundation(piles, lens, down, T0, T0 + NT, F0, PER_SUIT, ACE, SUCC_UP, 13,
                              TO_FOUNDATION, moves, 0)
        n = gen_tableau_moves(piles, lens, down, T0, NT, GRAB_ANY_PART, ALTERNATE_COLOURS,
                              SUCC_UP, SPACE_ANY, F0, PER_SUIT, ACE, SUCC_UP, 13, moves, n)
        vars[V_MOVES_KEPT] = n + 1
    if lens[WASTE] > 0:
        n = gen_to_foundation(piles, lens, down, WASTE, WASTE + 1, F0, PER_SUIT, ACE, SUCC_UP, 13,
                              WASTE_TO_FOUNDATION, moves, n)
        n = gen_card_to_tableau(piles, lens, down, WASTE, T0, NT, ALTERNATE_COLOURS, SUCC_UP,
                                SPACE_ANY, WASTE_TO_TABLEAU, moves, n)
    return gen_stock_move(lens, vars, BANK, WASTE, 1, rules[R_REDEALS], moves, n)


@kernel
def apply(piles, lens, down, vars, rules, move, rng):
    if move[0] == STOCK:
        apply_stock(piles, lens, down, vars, move, BANK)
        return False
    vars[V_MOVES_KEPT] = 0
    apply_transfer(piles, lens, down, vars, move, F0, NF)
    if vars[V_FOUNDATION] == 104:
        vars[V_WON] = 1
    return move[1] == WASTE


GAME = Game(
    name="grandmas-patience",
    title="Grandma's Patience («Бабушкин пасьянс»)",
    source="Fikhman (seed 004)",
    deck=DOUBLE,
    options=OPTIONS,
    presets=PRESETS,
    preset_docs=PRESET_DOCS,
    piles=PILES,
    capacity=60,
    move_kinds=PILE_MOVE_KINDS,
    greedy_order=("to_foundation", "waste_to_foundation", "waste_to_tableau", "uncover",
                  "empty_pile", "stock"),
    setup=setup,
    generate=generate,
    apply=apply,
    foundation_piles=tuple(range(F0, F0 + NF)),
)
