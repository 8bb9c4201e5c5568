"""Elevens («Одиннадцать очков», Leeming; RULES.md §3): the book's rules page is lost, so every
reading is an option.

``slots`` cards lie face up.  Two visible number cards whose values sum to 11 (A=1 ... 10) are
covered, i.e. removed, and each space is refilled from the stock top, the spaces in slot order.
Court cards go by ``faces``: ``triple`` (J, Q and K together, all three visible), ``single``
(each one covered alone at once: a forced move), ``cells`` (as triple, and a J, a Q and a K may
also be parked, one in each of three cells, where they stay available for a triple) or
``block`` (they never leave; Block Eleven).

Only visible cards make moves.  Cards of one rank are interchangeable (the slots are all alike),
so one move is offered per choice of ranks.  Every move removes cards or parks one for good,
so a game always ends.  The deal is won when every card is removed.  Once the stock
is out the rest always clears: each pair and triple removed takes equal numbers of its ranks, so
the visible cards left pair off exactly (tests/test_elevens.py checks this over many deals).  In
``block`` the court cards can never leave, so a deal is won when every number card is paired
off; the twelve court cards then fill twelve slots and are gathered up in one last move
(``gather_faces``), so ``block`` needs at least 12 slots.

No policy can change the end of a deal.  Any two moves open at once can be played in either
order with the same result (a court card parked and then taken by a triple leaves what taking
it from its slot leaves), and every move removes or parks cards, so by Newman's lemma each deal
has one end, however it is played.  The tests check this deal by deal (greedy against random).
"""

from __future__ import annotations

from simsol.cards import JACK, KING, STANDARD
from simsol.engine.jit import kernel
from simsol.engine.piles import RANK, add_move, deal_stock
from simsol.engine.state import M_CARD, M_KIND, M_SPARE, M_SRC, V_FOUNDATION
from simsol.games.base import declare
from simsol.rules import Option, SimsolError

NAME = "elevens"
TITLE = "Elevens («Одиннадцать очков»)"
SOURCE = "Leeming (seed 000; rules rebuilt)"
DECK = STANDARD

SLOT_COUNTS = (9, 10, 12, 13, 15, 16)
FACE_RULES = ("triple", "single", "cells", "block")
OPTIONS = (
    Option("slots", 9, "cards face up (9 = the 3x3 grid)", values=SLOT_COUNTS),
    Option("faces", "triple", "how J, Q, K leave: together as a triple, each alone at once, "
           "as a triple with three parking cells, or never", choices=FACE_RULES),
)
R_SLOTS, R_FACES = range(len(OPTIONS))
TRIPLE, SINGLE, CELLS, BLOCK = range(len(FACE_RULES))

PRESETS = {
    "book": {},
    "twelve": {"slots": 12},
    "thirteen": {"slots": 13},
    "faces-single": {"faces": "single"},
    "twelve-faces-single": {"slots": 12, "faces": "single"},
    "cells": {"faces": "cells"},
    "block-eleven": {"slots": 12, "faces": "block"},
}
PRESET_DOCS = {
    "book": "9 cards (3x3), pairs to 11, J+Q+K removed together",
    "twelve": "12 cards, J+Q+K removed together",
    "thirteen": "13 cards, J+Q+K removed together",
    "faces-single": "9 cards, each court card covered alone as it appears",
    "twelve-faces-single": "12 cards, each court card covered alone as it appears",
    "cells": "9 cards, J+Q+K together, one J, Q and K may wait in three cells",
    "block-eleven": "12 cards, court cards never leave (Block Eleven)",
}

MOVE_KINDS = ("single_face", "triple", "pair", "park", "gather_faces")
SINGLE_FACE, TRIPLE_MOVE, PAIR, PARK, GATHER_FACES = range(len(MOVE_KINDS))
GREEDY_ORDER = MOVE_KINDS
PROGRESS_KINDS = MOVE_KINDS  # every move takes cards out or parks a face card

STOCK, REMOVED = 0, 1
C0 = 2  # cells of the J, Q, K (cell1, cell2, cell3)
S0, MAX_SLOTS = 5, max(SLOT_COUNTS)
PILES = ("stock", "removed", "cell1", "cell2", "cell3") + tuple(
    f"slot{i + 1}" for i in range(MAX_SLOTS))
FOUNDATIONS = (REMOVED,)
FACE_RANKS = (1 << 11) | (1 << 12) | (1 << 13)
PACK = 32  # M_SPARE of a triple holds two piles: queen's + PACK * king's


def check_rules(values: dict) -> None:
    """Block Eleven needs a slot for each of the 12 court cards, or no deal can be won."""
    if values["faces"] == "block" and values["slots"] < 12:
        raise SimsolError(f"faces=block needs slots >= 12 (got {values['slots']}): the 12 court "
                          "cards never leave, so with fewer slots no deal can be won")


@kernel
def setup(deck, rules, pos, rng):
    """The first ``slots`` cards face up in slot order; the rest is the stock, next card on top."""
    piles, lens, down, vars = pos
    n_slots = rules[R_SLOTS]
    for s in range(n_slots):
        piles[S0 + s, 0] = deck[s]
        lens[S0 + s] = 1
    deal_stock(deck, n_slots, piles, lens, down, vars, STOCK)


@kernel
def generate(pos, rules, moves, n):
    """One move per choice of ranks, from one scan of the slots (and the cells)."""
    piles, lens, down, vars = pos
    faces = rules[R_FACES]
    present = 0  # bit r: a card of rank r lies in a slot
    where = 0  # 4 bits per rank: the first slot holding it
    first = 0  # the first slot holding a card
    visible = 0
    for s in range(rules[R_SLOTS] - 1, -1, -1):
        if lens[S0 + s] > 0:
            first = s
            visible += 1
            rank = RANK[piles[S0 + s, 0]]
            present |= 1 << rank
            where = (where & ~(15 << (4 * rank))) | (s << (4 * rank))
    if faces == SINGLE and present & FACE_RANKS:
        for rank in range(JACK, KING + 1):
            if (present >> rank) & 1:
                slot = S0 + ((where >> (4 * rank)) & 15)
                return add_move(moves, n, SINGLE_FACE, slot, REMOVED, 1, piles[slot, 0])
    if faces == TRIPLE or faces == CELLS:
        jqk = 0  # the pile of each court card for the triple: a slot first, else its cell
        for rank in range(JACK, KING + 1):
            if (present >> rank) & 1:
                pile = S0 + ((where >> (4 * rank)) & 15)
            elif faces == CELLS and lens[C0 + rank - JACK] > 0:
                pile = C0 + rank - JACK
            else:
                jqk = -1
                break
            jqk |= pile << (8 * (rank - JACK))
        if jqk >= 0:
            jack = jqk & 255
            n = add_move(moves, n, TRIPLE_MOVE, jack, REMOVED, 3, piles[jack, 0])
            moves[n - 1, M_SPARE] = ((jqk >> 8) & 255) + PACK * (jqk >> 16)
    for low in range(1, 6):
        if (present >> low) & 1 and (present >> (11 - low)) & 1:
            slot = S0 + ((where >> (4 * low)) & 15)
            n = add_move(moves, n, PAIR, slot, REMOVED, 2, piles[slot, 0])
            moves[n - 1, M_SPARE] = S0 + ((where >> (4 * (11 - low))) & 15)
    if faces == CELLS:
        for rank in range(JACK, KING + 1):
            if (present >> rank) & 1 and lens[C0 + rank - JACK] == 0:
                slot = S0 + ((where >> (4 * rank)) & 15)
                n = add_move(moves, n, PARK, slot, C0 + rank - JACK, 1, piles[slot, 0])
    if faces == BLOCK and lens[STOCK] == 0 and present != 0 and present & ~FACE_RANKS == 0:
        n = add_move(moves, n, GATHER_FACES, S0 + first, REMOVED, visible,
                     piles[S0 + first, 0])
    return n


@kernel(inline="always")
def remove(piles, lens, vars, pile):
    """The top card of ``pile`` (a slot or a cell) onto the removed pile."""
    lens[pile] -= 1
    piles[REMOVED, lens[REMOVED]] = piles[pile, lens[pile]]
    lens[REMOVED] += 1
    vars[V_FOUNDATION] += 1


@kernel
def apply(pos, rules, move, rng):
    """Remove or park the move's cards, refill the spaces in slot order from the stock top."""
    piles, lens, down, vars = pos
    kind, src = move[M_KIND], move[M_SRC]
    if kind == PARK:
        cell = C0 + RANK[move[M_CARD]] - JACK
        piles[cell, 0] = piles[src, 0]
        lens[cell] = 1
        lens[src] = 0
    elif kind == GATHER_FACES:
        for s in range(rules[R_SLOTS]):
            if lens[S0 + s] > 0:
                remove(piles, lens, vars, S0 + s)
    else:
        remove(piles, lens, vars, src)
        if kind == PAIR:
            remove(piles, lens, vars, move[M_SPARE])
        elif kind == TRIPLE_MOVE:
            remove(piles, lens, vars, move[M_SPARE] % PACK)
            remove(piles, lens, vars, move[M_SPARE] // PACK)
    n_slots = rules[R_SLOTS]
    for s in range(n_slots):
        if lens[S0 + s] == 0 and lens[STOCK] > 0:
            lens[STOCK] -= 1
            piles[S0 + s, 0] = piles[STOCK, lens[STOCK]]
            lens[S0 + s] = 1
    down[STOCK] = lens[STOCK]
    return True


GAME = declare(globals())
