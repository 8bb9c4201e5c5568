"""The 12x5 game (Mendelev, RULES.md §10; name unknown): 104 cards, 60 face up in 12 columns of
5, aces out and duplicate kings sent under the stock before play, single cards built down in
suit, a one-card stock with four passes.

«Когда использован весь ряд, на его место можно положить карту из колоды»: a used-up column
takes a card from the stock (``space_from``): by default the card just turned from it (on the
waste top, not yet covered), not an older waste card exposed again."""

from __future__ import annotations

import numpy as np

from simsol.cards import ACE, DOUBLE, KING
from simsol.engine.jit import kernel
from simsol.engine.piles import (
    GRAB_TOP,
    PILE_MOVE_KINDS,
    RANK,
    SAME_SUIT,
    SPACE_ANY,
    SPACE_NONE,
    STOCK,
    SUCC_UP,
    SUIT,
    TO_FOUNDATION,
    WASTE_TO_FOUNDATION,
    WASTE_TO_TABLEAU,
    add_move,
    apply_stock,
    apply_transfer,
    foundation_for,
    gen_card_to_tableau,
    gen_stock_move,
    gen_tableau_moves,
    gen_to_foundation,
    stock_keeps_moves,
)
from simsol.engine.state import V_FOUNDATION, V_PASSES, game_counters
from simsol.games.base import declare
from simsol.games.features import (
    FACE_UP_FEATURES,
    FACE_UP_RANGES,
    MOVABLE_AFTER,
    RANK_PLACE,
    face_up_score,
    movable_score,
)
from simsol.rules import Option

NAME = "twelve-by-five"
TITLE = "Twelve by five (the 60-card 12x5 game)"
SOURCE = "Mendelev (seed 001)"
DECK = DOUBLE
RULES_VERSION = 2  # r2: a space takes the card just turned, not an older waste card

SPACE_SOURCES = ("turned", "waste", "stock")
OPTIONS = (
    Option("redeals", 3, "times the waste may be turned over (none = unlimited)",
           values=tuple(range(21)), none_ok=True),
    Option("space_from", "turned", "what fills a used-up column: the card just turned from the "
           "stock while it lies uncovered on the waste (book: «карту из колоды»), any waste top "
           "(an older card exposed again too), or the stock's next card dealt straight into it",
           choices=SPACE_SOURCES),
)
R_REDEALS, R_SPACE_FROM = range(len(OPTIONS))
SPACE_FROM_TURNED, SPACE_FROM_WASTE, SPACE_FROM_STOCK = range(len(SPACE_SOURCES))

PRESETS = {"book": {}}
PRESET_DOCS = {"book": "one card at a time, four passes, spaces filled with the card just turned"}

MOVE_KINDS = PILE_MOVE_KINDS + ("stock_to_space",)
STOCK_TO_SPACE = len(PILE_MOVE_KINDS)
NARROW_KINDS = MOVE_KINDS  # every move changes only its two piles (engine/loop.py)
# Every kind, best first: a card freed for the foundations before one played up (the second of
# two equal cards may need the first's place), the waste's card onto a column or a space before
# a plain build, and a column emptied only when nothing else moves (a space takes only the card
# just turned).  Found by experiments/greedy_orders.py (README, players version 10).
GREEDY_ORDER = ("uncover", "to_foundation", "waste_to_tableau", "stock_to_space", "build",
                "waste_to_foundation", "stock", "empty_pile", "space_shift")
# Of two moves of a kind, greedy plays the one that leaves more column cards free to move.
GREEDY_TIES = "movable_after"
# Lookahead keeps the order greedy played before version 10: it judges a move by the cards its
# roll-outs put up within their depth, and the order above, which plays a card up only after
# freeing the next, puts up fewer in that time (1,000 deals of seed 2027: 9.60% against 6.60%,
# paired +3.0 points, +0.9 to +5.1; README, players version 11).
LOOKAHEAD_ORDER = ("to_foundation", "waste_to_foundation", "uncover", "waste_to_tableau",
                   "stock_to_space", "empty_pile", "build", "stock", "space_shift")
PROGRESS_KINDS = ("waste_to_foundation", "waste_to_tableau", "stock_to_space")  # a card out

STOCK_PILE, WASTE_PILE = 0, 1
F0, NF = 2, 8
T0, NT, ROWS = 10, 12, 5
PILES = ("stock", "waste") + tuple(f"foundation{i + 1}" for i in range(NF)) + tuple(
    f"tableau{i + 1}" for i in range(NT))
FOUNDATIONS = range(F0, F0 + NF)
# kept_king_S: during setup, the cell of suit S's king that stays (-1: none yet), read as
# KEPT_KING + suit; with the stable moves, tops_take: a bit per face (card % 52) a column top
# takes, and spaces: the number of empty columns; just_turned: 1 while the waste top is the card
# last turned from the stock
COUNTERS = game_counters("kept_king_spades", "kept_king_hearts", "kept_king_clubs",
                         "kept_king_diamonds", "tops_take", "spaces", "just_turned",
                         scratch=("tops_take", "spaces"))
KEPT_KING, TOPS_TAKE, SPACES, JUST_TURNED = COUNTERS[0], COUNTERS[4], COUNTERS[5], COUNTERS[6]
keeps_moves = stock_keeps_moves


@kernel
def refill(piles, lens, vars, p, row):
    """Deal the stock's top card into a cell; the first king of a suit to arrive is kept."""
    lens[STOCK_PILE] -= 1
    card = piles[STOCK_PILE, lens[STOCK_PILE]]
    piles[p, row] = card
    if RANK[card] == KING and vars[KEPT_KING + SUIT[card]] < 0:
        vars[KEPT_KING + SUIT[card]] = p * ROWS + row


@kernel
def fix_layout(piles, lens, vars):
    """Aces out to the foundations, later-dealt duplicate kings under the stock, every place
    refilled from the stock; repeated until neither applies.

    It ends: a refill is either an ace (at most 8), a card that stays for good, or a duplicate
    king (at most 4 circulate), and the stock never holds fewer than 36 cards.
    """
    changed = True
    while changed:
        changed = False
        for row in range(ROWS):
            for p in range(T0, T0 + NT):
                card = piles[p, row]
                if RANK[card] == ACE:
                    f = foundation_for(card, piles, lens, F0, 2, ACE, SUCC_UP, 13)
                    piles[f, 0] = card
                    lens[f] = 1
                    vars[V_FOUNDATION] += 1
                    refill(piles, lens, vars, p, row)
                    changed = True
        for row in range(ROWS):
            for p in range(T0, T0 + NT):
                card = piles[p, row]
                if RANK[card] == KING and vars[KEPT_KING + SUIT[card]] != p * ROWS + row:
                    for i in range(lens[STOCK_PILE], 0, -1):
                        piles[STOCK_PILE, i] = piles[STOCK_PILE, i - 1]
                    piles[STOCK_PILE, 0] = card
                    lens[STOCK_PILE] += 1
                    refill(piles, lens, vars, p, row)
                    changed = True


@kernel
def setup(deck, rules, pos, rng):
    """Deal 5 rows of 12 face up, the other 44 cards to the stock, then fix the layout."""
    piles, lens, down, vars = pos
    for s in range(4):
        vars[KEPT_KING + s] = -1
    for k in range(NT * ROWS):
        p = T0 + k % NT
        piles[p, lens[p]] = deck[k]
        lens[p] += 1
        if RANK[deck[k]] == KING and vars[KEPT_KING + SUIT[deck[k]]] < 0:
            vars[KEPT_KING + SUIT[deck[k]]] = p * ROWS + k // NT
    for i in range(deck.shape[0] - 1, NT * ROWS - 1, -1):
        piles[STOCK_PILE, lens[STOCK_PILE]] = deck[i]
        lens[STOCK_PILE] += 1
    fix_layout(piles, lens, vars)
    for s in range(4):
        vars[KEPT_KING + s] = 0
    down[STOCK_PILE] = lens[STOCK_PILE]
    vars[V_PASSES] = 1


@kernel
def generate_stable(pos, rules, moves):
    """The columns' own moves, and what the column tops and spaces take (for the waste's)."""
    piles, lens, down, vars = pos
    n = gen_to_foundation(piles, lens, down, T0, T0 + NT, F0, 2, ACE, SUCC_UP, 13, TO_FOUNDATION,
                          moves, 0)
    n = gen_tableau_moves(piles, lens, down, T0, NT, GRAB_TOP, SAME_SUIT, SUCC_UP, SPACE_NONE,
                          F0, 2, ACE, SUCC_UP, 13, moves, n)
    tops_take, spaces = 0, 0
    for p in range(T0, T0 + NT):
        if lens[p] == 0:
            spaces += 1
        elif RANK[piles[p, lens[p] - 1]] > ACE:
            tops_take |= 1 << np.int64(piles[p, lens[p] - 1] % 52 - 1)  # (a uint8, JIT off)
    vars[TOPS_TAKE] = tops_take
    vars[SPACES] = spaces
    return n


@kernel
def generate(pos, rules, moves, n):
    """The waste top's moves, a stock card into a space, then the stock."""
    piles, lens, down, vars = pos
    reading = rules[R_SPACE_FROM]
    from_waste = reading == SPACE_FROM_WASTE or (reading == SPACE_FROM_TURNED
                                                 and vars[JUST_TURNED] == 1)
    if lens[WASTE_PILE] > 0:
        card = piles[WASTE_PILE, lens[WASTE_PILE] - 1]
        n = gen_to_foundation(piles, lens, down, WASTE_PILE, WASTE_PILE + 1, F0, 2, ACE, SUCC_UP,
                              13, WASTE_TO_FOUNDATION, moves, n)
        if (vars[TOPS_TAKE] >> (card % 52)) & 1 or (from_waste and vars[SPACES] > 0):
            n = gen_card_to_tableau(piles, lens, down, WASTE_PILE, T0, NT, SAME_SUIT, SUCC_UP,
                                    SPACE_ANY if from_waste else SPACE_NONE, WASTE_TO_TABLEAU,
                                    moves, n)
    if reading == SPACE_FROM_STOCK and lens[STOCK_PILE] > 0 and vars[SPACES] > 0:
        for p in range(T0, T0 + NT):
            if lens[p] == 0:
                n = add_move(moves, n, STOCK_TO_SPACE, STOCK_PILE, p, 1, -1)
                break
    return gen_stock_move(lens, vars, STOCK_PILE, WASTE_PILE, 1, rules[R_REDEALS], moves, n)


# What a good player weighs here (simsol/games/features.py): every card lies face up, so which
# card a move frees, and how soon the foundations want the card it buries, tell moves apart.
# And how many column cards could still move after it (``movable_after``, as in Strata; a column
# card never goes into a space here), which the built-in heuristic leaves at 0.
FEATURES = FACE_UP_FEATURES + (MOVABLE_AFTER,)
FEATURE_RANGES = FACE_UP_RANGES
# The built-in heuristic plays greedy's order, first the move that frees a card for the
# foundations, then the one that leaves more cards free (README, players version 10); the
# shared features it leaves out mean nothing on a face-up table or misled it here.
HEURISTIC_WEIGHTS = {"next_free": 50.0, "movable_after": 1.0, "reveal": 0.0, "hidden_under": 0.0,
                     "empties": 0.0, "source_length": 0.0}


@kernel
def feature_score(pos, rules, move, policy, slot):
    return (face_up_score(pos, move, policy, slot, T0, NT, F0, NF, 2, WASTE_PILE, SAME_SUIT,
                          SUCC_UP, RANK_PLACE)
            + movable_score(pos, move, policy, slot + 4, T0, NT, F0, 2, SAME_SUIT, SUCC_UP,
                            RANK_PLACE, False))


@kernel
def apply(pos, rules, move, rng):
    piles, lens, down, vars = pos
    if move[0] == STOCK:
        apply_stock(piles, lens, down, vars, move, STOCK_PILE)
        vars[JUST_TURNED] = move[1] == STOCK_PILE
        return False
    src = move[1]
    apply_transfer(piles, lens, down, vars, move, F0, NF)
    if src == WASTE_PILE:
        vars[JUST_TURNED] = 0  # the card below was turned before it
    down[STOCK_PILE] = lens[STOCK_PILE]
    return src == WASTE_PILE or src == STOCK_PILE


GAME = declare(globals())
