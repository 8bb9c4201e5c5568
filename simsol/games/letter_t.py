"""The letter T (Mendelev, RULES.md §9; Toni in other collections): 104 cards, an ace base and a
king base per suit, twelve auxiliary packs fed twelve cards at a time from the stock, and two
redeals that gather the packs and deal them again without shuffling.

The layout is 4 rows of 5 cells, dealt row by row.  The middle column holds the ace spots, the
other four cells of the top row the king spots, the 12 cells under the bar are auxiliary
(``aux1`` .. ``aux12`` in reading order).  The bases are kept by suit (``ace_base1`` is the
spades ace's base, ...): which spot of a kind a base lies on changes nothing in the game.

The redeal gathers «все вспомогательные карты и пакеты, от последнего до первого, рядами справа
налево»: the auxiliary cards and packs, row by row.  The wrong cards taken off the base spots lie
«сбоку» (at the side) and are named apart from the auxiliary ones («Эти снятые карты, а также
остальные, находящиеся под перекладиной буквы Т (вспомогательные)»), so by default they stay
where they are; ``gather_aside`` gathers them too.
"""

from __future__ import annotations

import numpy as np

from simsol.cards import ACE, DOUBLE, KING
from simsol.engine.jit import kernel
from simsol.engine.piles import (
    PILE_MOVE_KINDS,
    RANK,
    RESERVE_TO_FOUNDATION,
    STOCK,
    SUCC_UP,
    SUIT,
    TO_FOUNDATION,
    add_move,
    apply_transfer,
    deal_stock,
    foundation_for,
    turn_over,
)
from simsol.engine.state import V_FOUNDATION, V_PASSES, V_REDEALS
from simsol.games.base import declare
from simsol.rules import Option

NAME = "letter-t"
TITLE = "The letter T (Toni)"
SOURCE = "Mendelev (seed 001)"
DECK = DOUBLE
GREEDY_ORDER = ("to_foundation", "reserve_to_foundation", "stock")
# Dealing or gathering takes every pile; any other move changes only its two.
NARROW_KINDS = tuple(k for k in PILE_MOVE_KINDS if k != "stock")
PROGRESS_KINDS = PILE_MOVE_KINDS  # every move puts a card up, deals or gathers

SPOT_READINGS = ("any", "by-suit")
GATHER_READINGS = ("last-to-first", "first-to-last")
OPTIONS = (
    Option("redeals", 2, "times the auxiliary packs may be gathered and dealt again",
           values=tuple(range(21))),
    Option("spots", "any", "which base spot an ace or king may lie on: any spot of its kind, or "
           "spot i for suit i (spades, hearts, clubs, diamonds; aces top to bottom, kings left "
           "to right)", choices=SPOT_READINGS),
    Option("gather", "last-to-first", "the order the packs are picked up before the stack is "
           "turned over: aux12 first (book), so the next deal starts with aux12's bottom card; "
           "or aux1 first, so it starts with aux1's bottom card", choices=GATHER_READINGS),
    Option("gather_aside", False, "the cards set aside from the base spots are gathered too, "
           "picked up after the packs (so dealt last); off (book): only «вспомогательные карты "
           "и пакеты» are gathered, the set-aside cards stay free at the side", boolean=True),
)
R_REDEALS, R_SPOTS, R_GATHER, R_GATHER_ASIDE = range(len(OPTIONS))
SPOTS_ANY, SPOTS_BY_SUIT = range(len(SPOT_READINGS))
LAST_TO_FIRST, FIRST_TO_LAST = range(len(GATHER_READINGS))

PRESETS = {"book": {}}
PRESET_DOCS = {"book": "bases on any spot of their kind, two redeals gathered from the last pack"}

# Kings build down: SUCC_DOWN[r] is the rank that may follow r on a king base.
SUCC_DOWN = np.array([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], dtype=np.int64)

STOCK_PILE = 0
ACE_BASE0, KING_BASE0 = 1, 5  # four each, by suit
ASIDE0, NASIDE = 9, 8  # the wrong cards taken off the 8 base spots (ace spots first)
AUX0, NAUX = 17, 12
FOUNDATIONS = range(ACE_BASE0, ACE_BASE0 + 8)
PILES = ("stock",) + tuple(f"ace_base{i + 1}" for i in range(4)) + tuple(
    f"king_base{i + 1}" for i in range(4)) + tuple(f"aside{i + 1}" for i in range(NASIDE)) + tuple(
    f"aux{i + 1}" for i in range(NAUX))


@kernel
def to_base(card, piles, lens, vars, spot, aside):
    """Lay a card dealt on a base spot: it starts its suit's base, or goes aside."""
    if spot >= 0 and lens[spot] == 0:
        piles[spot, 0] = card
        lens[spot] = 1
        vars[V_FOUNDATION] += 1
    else:
        piles[aside, 0] = card
        lens[aside] = 1


@kernel
def setup(deck, rules, pos, rng):
    """Deal 4 rows of 5; free the base spots of wrong cards; the other 84 cards are the stock."""
    piles, lens, down, vars = pos
    by_suit = rules[R_SPOTS] == SPOTS_BY_SUIT
    aux = AUX0
    for k in range(20):
        card = deck[k]
        row, col = k // 5, k % 5
        if col == 2:  # an ace spot
            fits = RANK[card] == ACE and (not by_suit or SUIT[card] == row)
            to_base(card, piles, lens, vars, ACE_BASE0 + SUIT[card] if fits else -1,
                    ASIDE0 + row)
        elif row == 0:  # a king spot
            spot = col if col < 2 else col - 1
            fits = RANK[card] == KING and (not by_suit or SUIT[card] == spot)
            to_base(card, piles, lens, vars, KING_BASE0 + SUIT[card] if fits else -1,
                    ASIDE0 + 4 + spot)
        else:
            piles[aux, 0] = card
            lens[aux] = 1
            aux += 1
    deal_stock(deck, 20, piles, lens, down, vars, STOCK_PILE)


@kernel(inline="always")
def wanted_faces(piles, lens):
    """A bit per face (``card % 52``) some base takes next: aces' up, kings' down."""
    mask = 0
    for suit in range(4):
        for base, start, step in ((ACE_BASE0 + suit, ACE, 1), (KING_BASE0 + suit, KING, -1)):
            if lens[base] == 0:
                mask |= 1 << (suit * 13 + start - 1)
            elif lens[base] < 13:
                mask |= 1 << (suit * 13 + RANK[piles[base, lens[base] - 1]] - 1 + step)
    return mask


@kernel
def gen_to_bases(piles, lens, lo, hi, wanted, kind, moves, n):
    """Moves of the top card of each pile in ``lo..hi-1`` to an ace base or a king base."""
    for p in range(lo, hi):
        if lens[p] > 0 and (wanted >> np.int64(piles[p, lens[p] - 1] % 52)) & 1:
            card = piles[p, lens[p] - 1]
            f = foundation_for(card, piles, lens, ACE_BASE0, 1, ACE, SUCC_UP, 13)
            if f >= 0:
                n = add_move(moves, n, kind, p, f, 1, card)
            f = foundation_for(card, piles, lens, KING_BASE0, 1, KING, SUCC_DOWN, 13)
            if f >= 0:
                n = add_move(moves, n, kind, p, f, 1, card)
    return n


@kernel
def generate(pos, rules, moves, n):
    """Free cards go only to the bases; when none can, deal twelve (or redeal, the stock out)."""
    piles, lens, down, vars = pos
    wanted = wanted_faces(piles, lens)
    n = gen_to_bases(piles, lens, AUX0, AUX0 + NAUX, wanted, TO_FOUNDATION, moves, n)
    n = gen_to_bases(piles, lens, ASIDE0, ASIDE0 + NASIDE, wanted, RESERVE_TO_FOUNDATION, moves, n)
    if n > 0:
        return n
    if lens[STOCK_PILE] > 0:
        return add_move(moves, n, STOCK, STOCK_PILE, AUX0, 0, -1)
    if vars[V_REDEALS] < rules[R_REDEALS]:
        first = ASIDE0 if rules[R_GATHER_ASIDE] else AUX0  # the aside piles lie just below
        for p in range(first, AUX0 + NAUX):
            if lens[p] > 0:
                return add_move(moves, n, STOCK, AUX0, STOCK_PILE, 0, -1)
    return n


# What a good player weighs here beyond the shared features: the moves are nearly forced, and
# what tells them apart is the card a move leaves on top of its pack (every card here is face
# up, the stock aside).
FEATURES = (
    ("next_free", "after the move the card it leaves on top of its pack goes to a base (one the "
                  "move raised included): a card the bases want next becomes free"),
    ("exposed_distance", "how many cards must still go to the bases before one takes the card "
                         "the move leaves on top of its pack (13 when none will)"),
)

# The built-in heuristic plays from the pack whose next card the bases want soonest (20,000
# deals of seed 2027: 21.95% with it, 19.44% without; greedy 19.98%).
HEURISTIC_WEIGHTS = {"exposed_distance": -1.0}


@kernel(inline="always")
def distance_to_base(lens, card, grown):
    """Cards of ``card``'s suit still to go before its ace base (up) or king base (down) takes
    it; ``grown``: a base the move raises by one."""
    suit, rank = SUIT[card], RANK[card]
    ace, king = ACE_BASE0 + suit, KING_BASE0 + suit
    up = rank - 1 - lens[ace] - (ace == grown)
    down = 13 - lens[king] - (king == grown) - rank
    best = 13
    if 0 <= up < best:
        best = up
    if 0 <= down < best:
        best = down
    return best


@kernel
def feature_score(pos, rules, move, policy, slot):
    piles, lens, down, vars = pos
    src = move[1]
    if move[0] == STOCK:
        return 0.0
    distance = 13 if lens[src] < 2 else distance_to_base(lens, piles[src, lens[src] - 2], move[2])
    return policy[slot] * (distance == 0) + policy[slot + 1] * distance


@kernel
def deal_twelve(piles, lens, down):
    """One card from the stock onto each auxiliary pack in turn, aux1 first."""
    for p in range(AUX0, AUX0 + NAUX):
        if lens[STOCK_PILE] == 0:
            break
        turn_over(piles, lens, STOCK_PILE, p, 1)
    down[STOCK_PILE] = lens[STOCK_PILE]


@kernel
def gather(piles, lens, down, vars, order, aside):
    """Pick the packs up face up one onto another (then, with ``aside``, the cards set aside),
    turn the stack over: it is the new stock.

    Turning the stack over reverses it, so the stock is the packs each read top to bottom,
    the last one picked up first: the set-aside cards, picked up last, lie at its bottom.
    """
    if aside:
        for p in range(ASIDE0, ASIDE0 + NASIDE):
            turn_over(piles, lens, p, STOCK_PILE, lens[p])
    for i in range(NAUX):
        p = AUX0 + i if order == LAST_TO_FIRST else AUX0 + NAUX - 1 - i
        turn_over(piles, lens, p, STOCK_PILE, lens[p])
    down[STOCK_PILE] = lens[STOCK_PILE]
    vars[V_REDEALS] += 1
    vars[V_PASSES] += 1


@kernel
def apply(pos, rules, move, rng):
    piles, lens, down, vars = pos
    if move[0] == STOCK:
        if move[1] == STOCK_PILE:
            deal_twelve(piles, lens, down)
        else:
            gather(piles, lens, down, vars, rules[R_GATHER], rules[R_GATHER_ASIDE])
        return True
    apply_transfer(piles, lens, down, vars, move, ACE_BASE0, 8)
    return True


GAME = declare(globals())
