"""Grandma's Patience («Бабушкин пасьянс») from the Fikhman book (RULES.md §5): two packs, 11
columns of 4 cards all face up, 8 foundations, any part of a group moves, a space takes any card
or group, and a 60-card bank turned one card at a time.

The book does not say what becomes of a bank card that fits nowhere [rebuilt]: it goes to a
face-up waste whose top stays available, and the bank is gone through ``redeals + 1`` times.

Two readings of the text are options.  Cards go up «только снизу столбцов и строго по одной»
(only from the bottom of the columns) and the bank is described only as a supply for the
columns («дополняйте ими столбцы»), so by default a bank card goes onto a column, not straight to
a foundation (``bank_to_foundation``).  «Когда в столбцах перегруппировка завершится или зайдет в
тупик, беритесь за банк»: by default the bank is drawn once no move between columns is useful
(``bank_when``, read as Black Harp's hand).
"""

from __future__ import annotations

from simsol.cards import ACE, DOUBLE
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
    WHEN_READINGS,
    apply_stock,
    apply_transfer,
    deal_stock,
    gen_card_to_tableau,
    gen_stock_move,
    gen_tableau_moves,
    gen_to_foundation,
    holds_back,
    stock_keeps_moves,
)
from simsol.engine.state import game_counters
from simsol.games.base import declare
from simsol.games.features import FACE_UP_FEATURES, FACE_UP_RANGES, RANK_PLACE, face_up_score
from simsol.rules import Option

NAME = "grandmas-patience"
TITLE = "Grandma's Patience («Бабушкин пасьянс»)"
SOURCE = "Fikhman (seed 004)"
DECK = DOUBLE
CAPACITY = 60
RULES_VERSION = 2  # r2: bank cards onto the columns only; the bank drawn once columns are done
# Every kind, best first: a plain build (splitting a group without freeing a card) only once
# the bank is drawn: played before, such builds wander among positions that lead nowhere.
GREEDY_ORDER = ("to_foundation", "waste_to_foundation", "waste_to_tableau", "uncover",
                "empty_pile", "stock", "build", "space_shift")

OPTIONS = (
    Option("redeals", 0, "times the waste may be turned over into a new bank (none = unlimited; "
           "the book does not say: one pass)", values=tuple(range(21)), none_ok=True),
    Option("bank_to_foundation", False, "the turned bank card may go straight to a foundation; "
           "off (book): cards go up only from the bottom of the columns, the bank card onto a "
           "column first", boolean=True),
    Option("bank_when", "no-useful-move", "when the bank may be drawn: once no column card can "
           "go up and no move between columns empties one or frees a card for a foundation "
           "(book: when the regrouping is done or stuck), only when no column card can move at "
           "all, or at any time", choices=WHEN_READINGS),
)
R_REDEALS, R_BANK_TO_FOUNDATION, R_BANK_WHEN = range(len(OPTIONS))

PRESETS = {
    "book": {},
    "two-passes": {"redeals": 1},
    "unlimited": {"redeals": None},
}
PRESET_DOCS = {
    "book": "the bank drawn once the columns are done, one card at a time onto the columns, "
            "unused cards to a waste; one pass",
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
FOUNDATIONS = range(F0, F0 + NF)
# bank_held, with the stable moves: 1 while a move between columns holds the bank back
COUNTERS = game_counters("bank_held", scratch=("bank_held",))
# The built-in heuristic's shared preference for moving from the longer pile splits long groups
# for nothing here (5,000 deals of seed 3: 0.74% with it, 1.68% without; greedy 1.02%).
HEURISTIC_WEIGHTS = {"source_length": 0.0}
INTERCHANGEABLE = (range(T0, T0 + NT),)
(BANK_HELD,) = COUNTERS
keeps_moves = stock_keeps_moves
# A move between columns may hold the bank back (``bank_when``), so a bank card turned after it
# is not always the same as one turned before it: the exact solver keeps to its plain search.
STOCK_TURNS_COMMUTE = False
NARROW_KINDS = PILE_MOVE_KINDS  # every move changes only its two piles (engine/loop.py)
PROGRESS_KINDS = ("waste_to_foundation", "waste_to_tableau")  # a card leaves the waste


@kernel
def setup(deck, rules, pos, rng):
    """Four rows of 11 cards face up, row under row; the other 60 cards face down in the bank."""
    piles, lens, down, vars = pos
    k = 0
    for _ in range(ROWS):
        for p in range(T0, T0 + NT):
            piles[p, lens[p]] = deck[k]
            lens[p] += 1
            k += 1
    deal_stock(deck, k, piles, lens, down, vars, BANK)


@kernel
def generate_stable(pos, rules, moves):
    """The columns' own moves, and whether one of them holds the bank back (``bank_when``)."""
    piles, lens, down, vars = pos
    n = gen_to_foundation(piles, lens, down, T0, T0 + NT, F0, PER_SUIT, ACE, SUCC_UP, 13,
                          TO_FOUNDATION, moves, 0)
    n = gen_tableau_moves(piles, lens, down, T0, NT, GRAB_ANY_PART, ALTERNATE_COLOURS, SUCC_UP,
                          SPACE_ANY, F0, PER_SUIT, ACE, SUCC_UP, 13, moves, n)
    vars[BANK_HELD] = holds_back(moves, n, rules[R_BANK_WHEN])
    return n


@kernel
def generate(pos, rules, moves, n):
    """The waste top's moves, then the bank unless a move between columns holds it back."""
    piles, lens, down, vars = pos
    if lens[WASTE] > 0:
        if rules[R_BANK_TO_FOUNDATION]:
            n = gen_to_foundation(piles, lens, down, WASTE, WASTE + 1, F0, PER_SUIT, ACE, SUCC_UP,
                                  13, WASTE_TO_FOUNDATION, moves, n)
        n = gen_card_to_tableau(piles, lens, down, WASTE, T0, NT, ALTERNATE_COLOURS, SUCC_UP,
                                SPACE_ANY, WASTE_TO_TABLEAU, moves, n)
    if vars[BANK_HELD]:
        return n
    return gen_stock_move(lens, vars, BANK, WASTE, 1, rules[R_REDEALS], moves, n)


# What a good player weighs here (simsol/games/features.py): a group split is worth playing when
# the card it leaves on top frees another card (``opens``) or can go up (``next_free``).
FEATURES = FACE_UP_FEATURES
FEATURE_RANGES = FACE_UP_RANGES


@kernel
def feature_score(pos, rules, move, policy, slot):
    return face_up_score(pos, move, policy, slot, T0, NT, F0, NF, PER_SUIT, WASTE,
                         ALTERNATE_COLOURS, SUCC_UP, RANK_PLACE)


@kernel
def apply(pos, rules, move, rng):
    piles, lens, down, vars = pos
    if move[0] == STOCK:
        apply_stock(piles, lens, down, vars, move, BANK)
        return False
    apply_transfer(piles, lens, down, vars, move, F0, NF)
    return move[1] == WASTE


GAME = declare(globals())
