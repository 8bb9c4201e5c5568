"""Strata («Персидский пасьянс», also called «безик»; Mendelev, RULES.md §8): 64 piquet cards
all face up in 8 columns, single cards built down in alternating colours, and two redeals that
gather and reshuffle every card not yet on the foundations.

The redeal comes only «Когда переложить уже ничего нельзя» (when nothing more can be moved): by
default it is offered only when no card can move (``redeal_when``)."""

from __future__ import annotations

import numpy as np

from simsol.cards import ACE, PIQUET_PAIR
from simsol.engine.jit import kernel
from simsol.engine.piles import (
    ALTERNATE_COLOURS,
    GRAB_TOP,
    PILE_MOVE_KINDS,
    SPACE_ANY,
    STOCK,
    TO_FOUNDATION,
    WHEN_READINGS,
    add_move,
    apply_transfer,
    gen_tableau_moves,
    gen_to_foundation,
    holds_back,
)
from simsol.engine.state import V_PASSES, V_REDEALS
from simsol.engine.streams import GAME_STREAM, shuffle
from simsol.games.base import declare
from simsol.games.features import (
    FACE_UP_FEATURES,
    FACE_UP_RANGES,
    MOVABLE_AFTER,
    PIQUET_PLACE,
    face_up_score,
    movable_score,
)
from simsol.rules import Option

NAME = "strata"
TITLE = "Strata («Персидский пасьянс», «безик»)"
SOURCE = "Mendelev (seed 001)"
DECK = PIQUET_PAIR
RULES_VERSION = 2  # r2: the redeal only once nothing can move; a build freeing a 7 is uncover
# Every kind, best first: a plain build before the redeal.
GREEDY_ORDER = ("to_foundation", "uncover", "empty_pile", "build", "stock", "space_shift")
# Of two moves of a kind, greedy plays the one that leaves more cards free to move (README).
GREEDY_TIES = "movable_after"
NARROW_KINDS = tuple(k for k in PILE_MOVE_KINDS if k != "stock")  # the redeal gathers every pile
PROGRESS_KINDS = ("stock",)  # the redeal

OPTIONS = (
    Option("redeals", 2, "times the cards left may be gathered and dealt again",
           values=tuple(range(21))),
    Option("shuffle_redeal", True, "the gathered cards are shuffled before the redeal (book); "
           "off: gathered column by column, each from its top-row card to its exposed card",
           boolean=True),
    Option("ace_on_seven", False, "an ace may be built on a 7 of the other colour (the ace is "
           "below the 7 in the foundation order); off: nothing goes on a 7", boolean=True),
    Option("redeal_when", "no-move", "when the redeal is offered: only when no card can move "
           "(book: «Когда переложить уже ничего нельзя»; a lone card shifted into a space does "
           "not count), once no move puts a card up, empties a column or frees a card for a "
           "foundation, or at any time", choices=WHEN_READINGS),
)
R_REDEALS, R_SHUFFLE, R_ACE_ON_SEVEN, R_REDEAL_WHEN = range(len(OPTIONS))

PRESETS = {"book": {}}
PRESET_DOCS = {"book": "two reshuffled redeals once nothing can move, single cards, spaces take "
                       "any card"}

# Piquet succession A, 7, 8, 9, 10, J, Q, K for the foundations; the tableau's is the same
# (a card goes on the next higher one) except that an ace goes on a 7 only by option.
SUCC_PIQUET = np.array([0, 7, 0, 0, 0, 0, 0, 8, 9, 10, 11, 12, 13, 0], dtype=np.int64)
SUCC_PIQUET_NO_ACE = np.array([0, 0, 0, 0, 0, 0, 0, 8, 9, 10, 11, 12, 13, 0], dtype=np.int64)
FULL = 8

F0, NF = 0, 8
T0, NT = 8, 8
PACK = 16  # the gathered cards during a redeal; empty between moves
PILES = tuple(f"foundation{i + 1}" for i in range(NF)) + tuple(
    f"tableau{i + 1}" for i in range(NT)) + ("pack",)
FOUNDATIONS = range(F0, F0 + NF)


@kernel(inline="always")
def tableau_succ(rules):
    """The tableau's succession: an ace goes on a 7 only with ``ace_on_seven``."""
    return SUCC_PIQUET if rules[R_ACE_ON_SEVEN] else SUCC_PIQUET_NO_ACE


@kernel
def deal_rows(piles, lens, count):
    """Deal the ``count`` cards of the pack (bottom first) row by row into the 8 columns."""
    for k in range(count):
        p = T0 + k % NT
        piles[p, lens[p]] = piles[PACK, k]
        lens[p] += 1
    lens[PACK] = 0


@kernel
def setup(deck, rules, pos, rng):
    """Eight rows of eight, all face up."""
    piles, lens, down, vars = pos
    for k in range(deck.shape[0]):
        piles[PACK, k] = deck[k]
    deal_rows(piles, lens, deck.shape[0])
    vars[V_PASSES] = 1


@kernel
def generate(pos, rules, moves, n):
    """Exposed cards to the foundations or onto a card one higher of the other colour (or into a
    space); the redeal while one is left and, by ``redeal_when``, no other move holds it back."""
    piles, lens, down, vars = pos
    succ = tableau_succ(rules)
    n = gen_to_foundation(piles, lens, down, T0, T0 + NT, F0, 2, ACE, SUCC_PIQUET, FULL,
                          TO_FOUNDATION, moves, n)
    n = gen_tableau_moves(piles, lens, down, T0, NT, GRAB_TOP, ALTERNATE_COLOURS, succ, SPACE_ANY,
                          F0, 2, ACE, SUCC_PIQUET, FULL, moves, n)
    if vars[V_REDEALS] < rules[R_REDEALS] and not holds_back(moves, n, rules[R_REDEAL_WHEN]):
        n = add_move(moves, n, STOCK, PACK, T0, 0, -1)
    return n


@kernel
def redeal(piles, lens, vars, shuffled, rng):
    """Gather every column (left to right, each top row first), shuffle, deal in rows of 8."""
    count = 0
    for p in range(T0, T0 + NT):
        for i in range(lens[p]):
            piles[PACK, count] = piles[p, i]
            count += 1
        lens[p] = 0
    lens[PACK] = count
    if shuffled:
        shuffle(piles[PACK], count, rng, GAME_STREAM)
    deal_rows(piles, lens, count)
    vars[V_REDEALS] += 1
    vars[V_PASSES] += 1


@kernel
def apply(pos, rules, move, rng):
    piles, lens, down, vars = pos
    if move[0] == STOCK:
        redeal(piles, lens, vars, rules[R_SHUFFLE], rng)
        return True
    apply_transfer(piles, lens, down, vars, move, F0, NF)
    return False


# What a good player weighs here (simsol/games/features.py): every card lies face up, so which
# card a move frees, and how soon the foundations want the card it buries, tell apart the builds
# greedy plays in listed order (two packs: most cards have two places to go).  And
# ``movable_after``, how many exposed cards could still move: the redeal waits for a table where
# none can, and most games end in a shuttle instead, so how free a move leaves the table decides
# the game (the tuned weight is positive: keeping cards free pays, see README).  Greedy breaks
# ties by it (``GREEDY_TIES`` above); the built-in heuristic weighs it and ``next_free`` (players
# version 10), the shipped ``tuned`` table all of them.
FEATURES = FACE_UP_FEATURES + (MOVABLE_AFTER,)
FEATURE_RANGES = FACE_UP_RANGES
HEURISTIC_WEIGHTS = {"next_free": 50.0, "movable_after": 1.0}


@kernel
def feature_score(pos, rules, move, policy, slot):
    succ = tableau_succ(rules)
    return (face_up_score(pos, move, policy, slot, T0, NT, F0, NF, 2, -1, ALTERNATE_COLOURS,
                          succ, PIQUET_PLACE)
            + movable_score(pos, move, policy, slot + 4, T0, NT, F0, 2, ALTERNATE_COLOURS, succ,
                            PIQUET_PLACE, True))


GAME = declare(globals())
