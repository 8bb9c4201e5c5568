"""Players' features shared by the games whose tableau lies face up (the 12x5 game, Grandma's
Patience, Strata): what a good player weighs there beyond the shared features of
engine/choice.py, read from face-up cards, the waste (turned face up, so seen) and the
foundations only.

A game lists ``FACE_UP_FEATURES`` in its ``FEATURES`` and calls ``face_up_score`` from its
``feature_score`` with its layout (its first tableau pile and count, its foundations, how its
cards build, and each rank's place in its foundations' succession: ``RANK_PLACE`` for A to K,
``PIQUET_PLACE`` for Strata's A, 7, 8, ..., K); the weights sit at ``policy[slot + k]`` in the
order below.
"""

from __future__ import annotations

import numpy as np

from simsol.engine.jit import kernel
from simsol.engine.piles import RANK, SUIT, build_key, builds_on, wanted_key

# A rank's place in the foundations' succession (1: the base): A to K, and piquet's A, 7, ..., K.
RANK_PLACE = np.arange(14, dtype=np.int64)
PIQUET_PLACE = np.array([0, 1, 0, 0, 0, 0, 0, 2, 3, 4, 5, 6, 7, 8], dtype=np.int64)

FACE_UP_FEATURES = (
    ("next_free", "after the move the card it leaves on top of its pile (or the waste) can go "
                  "to a foundation"),
    ("up_distance", "for a card put on a pile: how many cards of its suit must still go up "
                    "before a foundation can take it (0: it could go up now)"),
    ("covers_distance", "for a card put on a pile: how many cards must still go up before a "
                        "foundation can take the card it covers (small: it buries a card the "
                        "foundations want soon)"),
    ("opens", "after the move the card it leaves on top of its pile takes the waste top or "
              "another pile's top card: a split or a shift that frees a card to move"),
)

# A game whose columns' exposed cards move one at a time may add this one (Strata, the 12x5
# game): how free the table stays.  In Strata the redeal waits for a table where no card can
# move, in the 12x5 game a card with nowhere to go is stuck until the foundations take it.
MOVABLE_AFTER = ("movable_after", "after the move, how many columns' exposed cards could still "
                 "move: to a foundation, onto another column, or, where the game lets a column's "
                 "card into a space, from a column of two or more into one (0: none can)")

# ``simsol tune`` searches these two past whole kinds: a move that frees a card may be worth
# playing before the stock (the kinds are ``KIND_GAP``, 100, apart).
FACE_UP_RANGES = {"next_free": (-300.0, 300.0), "opens": (-300.0, 300.0)}


@kernel(inline="always")
def distance_up(lens, card, f0, per_suit, grown, place):
    """Cards of ``card``'s suit still to go up before one of its foundations (ace up, ``per_suit``
    of them from ``f0 + suit * per_suit``) takes it; ``grown`` is a foundation the move raises
    by one (-1: none), ``place`` each rank's place in the succession.  13 when every foundation
    of the suit is past it."""
    best = 13
    first = f0 + SUIT[card] * per_suit
    for f in range(first, first + per_suit):
        gap = place[RANK[card]] - 1 - lens[f] - (f == grown)
        if 0 <= gap < best:
            best = gap
    return best


@kernel(inline="always")
def face_up_score(pos, move, policy, slot, t0, nt, f0, nf, per_suit, waste, build, succ,
                  place):
    """The weighted ``FACE_UP_FEATURES`` of one move (``build`` and ``succ``: how tableau cards
    build, as in engine/piles.py; ``waste``: the waste pile, -1 for none; ``place``: each rank's
    place in the foundations' succession)."""
    piles, lens, down, vars = pos
    src, dst, count, card = move[1], move[2], move[3], move[4]
    if card < 0:  # the stock
        return 0.0
    score = 0.0
    grown = dst if f0 <= dst < f0 + nf else -1
    left = lens[src] - count
    exposed = int(piles[src, left - 1]) if left > down[src] and (
        t0 <= src < t0 + nt or src == waste) else -1
    # A feature weighted 0 is not computed (greedy's tie rule weighs one feature, the built-in
    # heuristics two or three): its term would add 0.0 and cost a scan of the foundations.
    if policy[slot] != 0.0 and exposed >= 0:
        score += policy[slot] * (distance_up(lens, exposed, f0, per_suit, grown, place) == 0)
    if t0 <= dst < t0 + nt:
        if policy[slot + 1] != 0.0:
            score += policy[slot + 1] * distance_up(lens, card, f0, per_suit, -1, place)
        if policy[slot + 2] != 0.0 and lens[dst] > 0:
            score += policy[slot + 2] * distance_up(lens, int(piles[dst, lens[dst] - 1]), f0,
                                                    per_suit, -1, place)
    if policy[slot + 3] != 0.0 and exposed >= 0 and src != waste:
        opens = waste >= 0 and lens[waste] > 0 and builds_on(piles[waste, lens[waste] - 1],
                                                             exposed, build, succ)
        for p in range(t0, t0 + nt):
            if p != src and p != dst and lens[p] > down[p]:
                opens |= builds_on(piles[p, lens[p] - 1], exposed, build, succ)
        score += policy[slot + 3] * opens
    return score


@kernel(inline="always")
def movable_score(pos, move, policy, slot, t0, nt, f0, per_suit, build, succ, place, to_space):
    """The weighted ``MOVABLE_AFTER`` of one move, its weight at ``policy[slot]`` (0 for the
    stock, and not computed while the weight is 0)."""
    if policy[slot] == 0.0 or move[4] < 0:
        return 0.0
    return policy[slot] * movable_after(pos, move, t0, nt, f0, per_suit, build, succ, place,
                                        to_space)


@kernel(inline="always")
def movable_after(pos, move, t0, nt, f0, per_suit, build, succ, place, to_space):
    """How many columns' exposed cards could move once ``move`` (of a single card) is made: to a
    foundation (``place``: each rank's place in their succession), onto another column's exposed
    card (``build``, ``succ``), or with ``to_space`` from a column of two or more into a space."""
    piles, lens, down, vars = pos
    src, dst, count, card = move[1], move[2], move[3], move[4]
    spaces = 0
    offered = 0
    for p in range(t0, t0 + nt):
        left = lens[p] - count * (p == src) + count * (p == dst)
        if left == 0:
            spaces += 1
        elif left > down[p]:
            offered |= 1 << build_key(card if p == dst else piles[p, left - 1], build)
    movable = 0
    for p in range(t0, t0 + nt):
        left = lens[p] - count * (p == src) + count * (p == dst)
        if left == 0 or left == down[p]:
            continue
        if to_space and spaces > 0 and left > 1:
            movable += 1
            continue
        exposed = card if p == dst else piles[p, left - 1]
        key = wanted_key(exposed, build, succ)
        if key >= 0 and (offered >> key) & 1 == 1:
            movable += 1
        elif distance_up(lens, exposed, f0, per_suit, dst, place) == 0:
            movable += 1
    return movable
