"""Klondike as in the Leeming book (RULES.md §1): draw 3, unlimited redeals, whole runs only,
and the book's space rule (Kings only until all four Kings are placed)."""

from __future__ import annotations

from simsol.cards import ACE, STANDARD
from simsol.engine.jit import kernel
from simsol.engine.piles import (
    ALTERNATE_COLOURS,
    GRAB_ANY_PART,
    GRAB_WHOLE,
    PILE_MOVE_KINDS,
    RANK,
    SPACE_ANY,
    SPACE_KINGS,
    STOCK,
    SUCC_UP,
    SUIT,
    TO_FOUNDATION,
    WASTE_TO_FOUNDATION,
    WASTE_TO_TABLEAU,
    WORRY_BACK,
    apply_stock,
    apply_transfer,
    gen_card_to_tableau,
    gen_stock_move,
    gen_tableau_moves,
    gen_to_foundation,
    stock_keeps_moves,
)
from simsol.engine.state import V_PASSES, game_counters
from simsol.games.base import declare
from simsol.rules import Option

SPACE_READINGS = ("kings-then-any", "kings-then-any-literal", "kings")
OPTIONS = (
    Option("draw", 3, "cards turned from the stock at a time", values=(1, 3)),
    Option("redeals", None, "times the waste may be turned over (none = unlimited)",
           values=tuple(range(0, 21)), none_ok=True),
    Option("partial_runs", False, "a part of a face-up run may move (the book: whole run only)",
           boolean=True),
    Option("space", "kings-then-any", "what an empty pile takes: Kings until every King is at a "
           "pile's root or on a foundation (book), until four Kings were moved into spaces "
           "(literal), or Kings only", choices=SPACE_READINGS),
    Option("worrying_back", False, "a foundation's top card may come back to the tableau",
           boolean=True),
)
R_DRAW, R_REDEALS, R_PARTIAL, R_SPACE, R_WORRY = range(len(OPTIONS))
SPACE_KINGS_THEN_ANY, SPACE_LITERAL, SPACE_KINGS_ONLY = range(len(SPACE_READINGS))

PRESETS = {
    "book": {},
    "three-redeals": {"redeals": 3},
    "three-passes": {"redeals": 2},
    "draw1-single-pass": {"draw": 1, "redeals": 0},
    "draw1": {"draw": 1},
    "standard": {"partial_runs": True, "space": "kings"},
}
PRESET_DOCS = {
    "book": "draw 3, unlimited redeals, whole runs only, Kings until all four are placed",
    "three-redeals": "the waste turned over at most three times (the book's limit)",
    "three-passes": "three passes in all (redeals=2, the English idiom)",
    "draw1-single-pass": "one card at a time, a single pass",
    "draw1": "one card at a time, unlimited redeals",
    "standard": "the usual modern rules: partial runs move, spaces take Kings only",
}

NAME = "klondike"
TITLE = "Klondike («Клондайк»)"
SOURCE = "Leeming (seed 000)"
DECK = STANDARD
# Every kind, best first: a build or a worrying back only once the stock has nothing more.
GREEDY_ORDER = ("to_foundation", "waste_to_foundation", "reveal", "waste_to_tableau", "uncover",
                "empty_pile", "stock", "build", "worry_back", "space_shift")

STOCK_PILE, WASTE = 0, 1
F0, NF = 2, 4
T0, NT = 6, 7
PILES = ("stock", "waste") + tuple(f"foundation{i + 1}" for i in range(NF)) + tuple(
    f"tableau{i + 1}" for i in range(NT))
FOUNDATIONS = range(F0, F0 + NF)
INTERCHANGEABLE = (range(T0, T0 + NT),)  # the tableau: only its cards matter, not their place
COUNTERS = game_counters("kings_in_spaces")  # bit mask of the suits whose King went to a space
(KINGS_IN_SPACES,) = COUNTERS
keeps_moves = stock_keeps_moves
NARROW_KINDS = PILE_MOVE_KINDS  # every move changes only its two piles (engine/loop.py)
PROGRESS_KINDS = ("waste_to_foundation", "waste_to_tableau", "reveal")  # a card leaves the waste or
# one is turned up


@kernel
def setup(deck, rules, pos, rng):
    """Deal row by row: a face-up card then face-down cards to its right; 24 cards stay in stock."""
    piles, lens, down, vars = pos
    k = 0
    for row in range(NT):
        for p in range(T0 + row, T0 + NT):
            piles[p, lens[p]] = deck[k]
            lens[p] += 1
            k += 1
        down[T0 + row] = row
    for i in range(deck.shape[0] - 1, k - 1, -1):
        piles[STOCK_PILE, lens[STOCK_PILE]] = deck[i]
        lens[STOCK_PILE] += 1
    down[STOCK_PILE] = lens[STOCK_PILE]
    vars[V_PASSES] = 1


@kernel(inline="always")
def space_rule(piles, lens, down, vars, reading):
    """What a space takes now, under the chosen reading of the book's rule."""
    if reading == SPACE_KINGS_ONLY:
        return SPACE_KINGS
    if reading == SPACE_LITERAL:
        return SPACE_ANY if vars[KINGS_IN_SPACES] == 15 else SPACE_KINGS
    placed = 0
    for f in range(F0, F0 + NF):
        placed += lens[f] == 13
    for t in range(T0, T0 + NT):
        placed += lens[t] > 0 and down[t] == 0 and RANK[piles[t, 0]] == 13
    return SPACE_ANY if placed == 4 else SPACE_KINGS


@kernel
def generate_stable(pos, rules, moves):
    """The tableau's own moves: to the foundations and between piles."""
    piles, lens, down, vars = pos
    n = gen_to_foundation(piles, lens, down, T0, T0 + NT, F0, 1, ACE, SUCC_UP, 13, TO_FOUNDATION,
                          moves, 0)
    grab = GRAB_ANY_PART if rules[R_PARTIAL] else GRAB_WHOLE
    space = space_rule(piles, lens, down, vars, rules[R_SPACE])
    return gen_tableau_moves(piles, lens, down, T0, NT, grab, ALTERNATE_COLOURS, SUCC_UP, space,
                             F0, 1, ACE, SUCC_UP, 13, moves, n)


@kernel
def generate(pos, rules, moves, n):
    """The waste's moves, worrying back, then the stock."""
    piles, lens, down, vars = pos
    if lens[WASTE] > 0:
        n = gen_to_foundation(piles, lens, down, WASTE, WASTE + 1, F0, 1, ACE, SUCC_UP, 13,
                              WASTE_TO_FOUNDATION, moves, n)
        space = space_rule(piles, lens, down, vars, rules[R_SPACE])
        n = gen_card_to_tableau(piles, lens, down, WASTE, T0, NT, ALTERNATE_COLOURS, SUCC_UP,
                                space, WASTE_TO_TABLEAU, moves, n)
    if rules[R_WORRY]:
        space = space_rule(piles, lens, down, vars, rules[R_SPACE])
        for f in range(F0, F0 + NF):
            if lens[f] > 0:
                n = gen_card_to_tableau(piles, lens, down, f, T0, NT, ALTERNATE_COLOURS, SUCC_UP,
                                        space, WORRY_BACK, moves, n)
    return gen_stock_move(lens, vars, STOCK_PILE, WASTE, rules[R_DRAW], rules[R_REDEALS],
                          moves, n)


# What a good player weighs beyond the shared features (engine/choice.py), read from visible cards.
FEATURES = (
    ("safe_up", "a card to a foundation that no tableau card can still want: an ace or a two, or "
                "both cards of the other colour one rank lower are up already"),
    ("king_for_space", "a move that empties a pile while a King lies ready to take the space "
                       "(the waste top, or a King on face-down cards)"),
)


@kernel(inline="always")
def safe_up(lens, card):
    """No card of the other colour one rank lower can still want to go on ``card``."""
    rank = RANK[card]
    if rank <= 2:
        return True
    for suit in range(NF):
        if suit % 2 != SUIT[card] % 2 and lens[F0 + suit] < rank - 1:
            return False
    return True


@kernel(inline="always")
def king_waiting(piles, lens, down):
    """A King on top of the waste, or at the foot of a pile's face-up cards over face-down ones."""
    if lens[WASTE] > 0 and RANK[piles[WASTE, lens[WASTE] - 1]] == 13:
        return True
    for p in range(T0, T0 + NT):
        if 0 < down[p] < lens[p] and RANK[piles[p, down[p]]] == 13:
            return True
    return False


@kernel
def feature_score(pos, rules, move, policy, slot):
    piles, lens, down, vars = pos
    score = 0.0
    if policy[slot] != 0.0 and F0 <= move[2] < F0 + NF:
        score += policy[slot] * safe_up(lens, move[4])
    src = move[1]
    if policy[slot + 1] != 0.0 and src >= T0 and lens[src] == move[3]:
        score += policy[slot + 1] * king_waiting(piles, lens, down)
    return score


@kernel
def apply(pos, rules, move, rng):
    piles, lens, down, vars = pos
    if move[0] == STOCK:
        apply_stock(piles, lens, down, vars, move, STOCK_PILE)
        return False
    src, dst, card = move[1], move[2], move[4]
    if dst >= T0 and lens[dst] == 0 and RANK[card] == 13:
        vars[KINGS_IN_SPACES] |= 1 << SUIT[card]
    turned = apply_transfer(piles, lens, down, vars, move, F0, NF)
    return turned or src == WASTE


GAME = declare(globals())
