"""Compiled helpers shared by the pile games: card facts, building checks, moving cards, the stock.

Piles hold cards bottom to top in ``piles[p, :lens[p]]``; the first ``down[p]`` of them are face
down.  Rank succession is a lookup table ``succ`` (``succ[r]`` is the rank that may follow ``r``,
0 for none), so ordinary, wrapping (K->A) and piquet (A->7) sequences share one code path for
both foundation and tableau building.
"""

from __future__ import annotations

import numpy as np

from simsol.engine.jit import kernel
from simsol.engine.state import (
    M_CARD,
    M_COUNT,
    M_DST,
    M_KIND,
    M_SPARE,
    M_SRC,
    V_FOUNDATION,
    V_PASS_PROGRESS,
    V_PASSES,
    V_REDEALS,
)

RANK = np.array([c % 13 + 1 for c in range(256)], dtype=np.int64)
SUIT = np.array([(c % 52) // 13 for c in range(256)], dtype=np.int64)
RED = np.array([((c % 52) // 13) % 2 for c in range(256)], dtype=np.int64)

# Rank successions.
SUCC_UP = np.array([0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0], dtype=np.int64)
SUCC_WRAP = np.array([0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1], dtype=np.int64)

# ``gen_wanted_to_foundation``'s mask of wanted faces when a game does not keep one: all of them.
ANY_FACE = -1

# How tableau cards build on each other.
ALTERNATE_COLOURS, SAME_SUIT, ANY_SUIT = 0, 1, 2

# Which part of a built group may move between piles.
GRAB_WHOLE, GRAB_ANY_PART, GRAB_TOP, GRAB_TOP_OR_WHOLE = 0, 1, 2, 3

# What an empty pile accepts (from a given source).
SPACE_NONE, SPACE_KINGS, SPACE_ANY = 0, 1, 2

# Move kinds shared by the pile games (policies name them; see simsol.policies).
PILE_MOVE_KINDS = (
    "to_foundation",  # a tableau card to a foundation
    "waste_to_foundation",  # the waste top (or the turned hand card) to a foundation
    "reserve_to_foundation",
    "reveal",  # a tableau move that uncovers a face-down card
    "reserve_to_tableau",
    "waste_to_tableau",
    "uncover",  # a tableau move that exposes a face-up card that can go to a foundation
    "empty_pile",  # a tableau move that empties its pile
    "build",  # any other move between piles (part of a group, leaving face-up cards)
    "space_shift",  # a pile's whole content moved into a space
    "worry_back",  # a foundation's top card back onto a pile
    "stock",  # turn cards from the stock, or redeal
)
(TO_FOUNDATION, WASTE_TO_FOUNDATION, RESERVE_TO_FOUNDATION, REVEAL, RESERVE_TO_TABLEAU,
 WASTE_TO_TABLEAU, UNCOVER, EMPTY_PILE, BUILD, SPACE_SHIFT, WORRY_BACK,
 STOCK) = range(len(PILE_MOVE_KINDS))

# When a game offers the move it falls back on once the piles are done (Black Harp's hand,
# Grandma's bank, Strata's redeal), read from texts such as «Когда переложить уже ничего
# нельзя»: once no move between piles is useful (none puts a card up, turns a card, empties a
# pile or frees a card for a foundation: a card that could only shuttle between piles does not
# count); only when no card can move at all (a lone card shifted into a space changes nothing and
# does not count); or at any time, as the player judges.
WHEN_READINGS = ("no-useful-move", "no-move", "any-time")
WHEN_NO_USEFUL_MOVE, WHEN_NO_MOVE, WHEN_ANY_TIME = range(len(WHEN_READINGS))


@kernel(inline="always")
def stock_keeps_moves(move):
    """A stock turn leaves the tableau's own moves as they were (the usual ``keeps_moves``)."""
    return move[M_KIND] == STOCK


@kernel
def top(piles, lens, p):
    return piles[p, lens[p] - 1]


@kernel
def face_up(lens, down, p):
    """True when pile ``p`` has a face-up top card."""
    return lens[p] > down[p]


@kernel
def builds_on(card, onto, build, succ):
    """May ``card`` be placed on ``onto`` in the tableau (building down)?"""
    if succ[RANK[card]] != RANK[onto]:
        return False
    if build == ALTERNATE_COLOURS:
        return RED[card] != RED[onto]
    if build == SAME_SUIT:
        return SUIT[card] == SUIT[onto]
    return True


@kernel
def group_start(piles, lens, down, p, build, succ):
    """Index of the lowest card of the built group at the top of pile ``p`` (face-up cards only)."""
    i = lens[p] - 1
    while i > down[p] and builds_on(piles[p, i], piles[p, i - 1], build, succ):
        i -= 1
    return i


@kernel
def foundation_for(card, piles, lens, f0, per_suit, base_rank, succ, full):
    """The foundation ``card`` may go to, or -1.

    Foundations are grouped by suit, ``per_suit`` of them each (2 in two-pack games): pile
    ``f0 + suit * per_suit + k``.  Which physical pile an ace starts makes no difference to the
    game, so fixing it by suit leaves one move to offer and one pile to check.  A base-rank card
    goes to its suit's first empty foundation; other cards follow the succession until ``full``.
    """
    rank = RANK[card]
    first = f0 + SUIT[card] * per_suit
    for f in range(first, first + per_suit):
        if lens[f] == 0:
            if rank == base_rank:
                return f
        elif lens[f] < full and succ[RANK[piles[f, lens[f] - 1]]] == rank:
            return f
    return -1


@kernel
def add_move(moves, n, kind, src, dst, count, card):
    if n < moves.shape[0]:
        moves[n, M_KIND] = kind
        moves[n, M_SRC] = src
        moves[n, M_DST] = dst
        moves[n, M_COUNT] = count
        moves[n, M_CARD] = card
        moves[n, M_SPARE] = 0
        return n + 1
    return n


@kernel(inline="always")
def gen_to_foundation(piles, lens, down, lo, hi, f0, per_suit, base_rank, succ, full, kind,
                      moves, n):
    """Moves of the top card of each pile in ``lo..hi-1`` to a foundation.  Over several piles
    the faces the foundations want are found first (``wanted_faces``, one look at each
    foundation) and only tops among them are looked at; one pile's top is looked at directly.
    Inlined: as a call it cost Klondike's greedy about 5% of its speed (measured 2026-12-07)."""
    wanted = ANY_FACE
    if hi - lo > 1:
        wanted = wanted_faces(piles, lens, f0, 4 * per_suit, per_suit, base_rank, succ, full)
    return gen_wanted_to_foundation(piles, lens, down, lo, hi, wanted, f0, per_suit, base_rank,
                                    succ, full, kind, moves, n)


@kernel(inline="always")
def wanted_faces(piles, lens, f0, nf, per_suit, base_rank, succ, full):
    """A bit per card face (``card % 52``) that one of the foundations ``f0 .. f0+nf-1`` takes
    now (``per_suit`` of them a suit, as ``foundation_for`` lays them out)."""
    wanted = np.int64(0)
    for f in range(f0, f0 + nf):
        if lens[f] == 0:
            wanted |= 1 << ((f - f0) // per_suit * 13 + base_rank - 1)
        elif lens[f] < full:
            below = piles[f, lens[f] - 1]
            rank = succ[RANK[below]]
            if rank > 0:
                wanted |= 1 << (SUIT[below] * 13 + rank - 1)
    return wanted


@kernel(inline="always")
def gen_wanted_to_foundation(piles, lens, down, lo, hi, wanted, f0, per_suit, base_rank, succ,
                             full, kind, moves, n):
    """``gen_to_foundation`` for a game that knows ``wanted``, a bit per card face (``card %
    52``) that some foundation takes now: a top whose bit is clear is passed over without a look
    at the foundations.  In the two-pack games the look (two foundations a suit, a branch the
    processor mostly guesses wrong) was a sixth of a greedy move's time in Little Piano."""
    for p in range(lo, hi):
        if face_up(lens, down, p):
            card = top(piles, lens, p)
            if (wanted >> np.int64(card % 52)) & 1 == 0:  # (a uint8 shift overflows, JIT off)
                continue
            f = foundation_for(card, piles, lens, f0, per_suit, base_rank, succ, full)
            if f >= 0:
                n = add_move(moves, n, kind, p, f, 1, card)
    return n


@kernel
def build_key(onto, build):
    """What a card offers to build on: rank and colour, rank and suit, or rank alone (< 64)."""
    if build == ALTERNATE_COLOURS:
        return RANK[onto] * 2 + RED[onto]
    if build == SAME_SUIT:
        return RANK[onto] * 4 + SUIT[onto]
    return RANK[onto]


@kernel
def wanted_key(card, build, succ):
    """The ``build_key`` of the cards ``card`` may go on, or -1 when it goes on none."""
    onto_rank = succ[RANK[card]]
    if onto_rank == 0:
        return -1
    if build == ALTERNATE_COLOURS:
        return onto_rank * 2 + 1 - RED[card]
    if build == SAME_SUIT:
        return onto_rank * 4 + SUIT[card]
    return onto_rank


NO_KEY = 63  # ``tops_keys``' lane for a pile whose top takes no build (every ``build_key`` < 63)
KEYS_A_WORD = 10  # six-bit lanes in one int64


@kernel(inline="always")
def tops_keys(piles, lens, down, t0, nt, build, closed):
    """A bit per ``build_key`` the tops offer (``tops_mask``), and each tableau pile's
    ``build_key`` in a six-bit lane (``NO_KEY`` where its top takes no build: empty, face down
    or ``closed``), piles ``t0 .. t0+9`` in one word and the next ten in another (a tableau has
    at most 20 piles), so the move listing tests a card against every top with shifts, not a
    chain of loads (``top_key``)."""
    mask = 0
    first = np.int64(0)
    second = np.int64(0)
    for i in range(nt):
        p = t0 + i
        key = np.int64(NO_KEY)
        if lens[p] > down[p] and (closed >> i) & 1 == 0:
            key = build_key(piles[p, lens[p] - 1], build)
            mask |= 1 << key
        if i < KEYS_A_WORD:
            first |= key << np.int64(6 * i)
        else:
            second |= key << np.int64(6 * (i - KEYS_A_WORD))
    return mask, (first, second)


@kernel(inline="always")
def top_key(keys, i):
    """Lane ``i`` of ``tops_keys``: the ``build_key`` of the ``i``-th pile's top, or ``NO_KEY``."""
    if i < KEYS_A_WORD:
        return (keys[0] >> np.int64(6 * i)) & NO_KEY
    return (keys[1] >> np.int64(6 * (i - KEYS_A_WORD))) & NO_KEY


@kernel(inline="always")
def fits_tops(card, mask, build, succ):
    """Does ``card`` fit one of the tops whose ``build_key`` bits are set in ``mask``
    (``tops_mask``)?  One test instead of a look at every pile."""
    return key_fits(wanted_key(card, build, succ), mask)


@kernel(inline="always")
def key_fits(key, mask):
    """Does a card whose ``wanted_key`` is ``key`` fit one of the tops in ``mask``?"""
    return key >= 0 and (mask >> key) & 1 == 1


@kernel(inline="always")
def tops_mask(piles, lens, down, t0, nt, build, closed=0):
    """A bit per ``build_key`` offered by the tableau's face-up tops, to test a card in one step
    (a pile whose bit is set in ``closed`` offers none, see ``gen_tableau_moves``)."""
    return tops_keys(piles, lens, down, t0, nt, build, closed)[0]  # (the lanes: dead code here)


@kernel
def space_takes(card, space):
    return space == SPACE_ANY or (space == SPACE_KINGS and RANK[card] == 13)


@kernel
def may_go_on(piles, lens, down, dst, card, build, succ):
    return lens[dst] > down[dst] and builds_on(card, piles[dst, lens[dst] - 1], build, succ)


@kernel
def gen_card_to_tableau(piles, lens, down, src, t0, nt, build, succ, space, kind, moves, n,
                        closed=0, dead=0, space_last=False):
    """Moves of the top card of ``src`` onto each tableau pile it fits (or one space);
    ``closed``, ``dead`` and ``space_last`` as in ``gen_tableau_moves``."""
    card = top(piles, lens, src)
    to_space = space_takes(card, space)
    for dst in range(t0, t0 + nt):
        if lens[dst] == 0:
            if to_space and not space_last and (dead >> (dst - t0)) & 1 == 0:
                n = add_move(moves, n, kind, src, dst, 1, card)
                to_space = False  # all spaces are alike: offer one
        elif (closed >> (dst - t0)) & 1 == 0 and may_go_on(piles, lens, down, dst, card, build,
                                                           succ):
            n = add_move(moves, n, kind, src, dst, 1, card)
    if to_space and space_last:
        dst = open_space(lens, t0, nt, dead)
        if dst >= 0:
            n = add_move(moves, n, kind, src, dst, 1, card)
    return n


@kernel(inline="always")
def open_space(lens, t0, nt, dead):
    """The first empty tableau pile that takes a card (not ``dead``), or -1."""
    for p in range(t0, t0 + nt):
        if lens[p] == 0 and (dead >> (p - t0)) & 1 == 0:
            return p
    return -1


@kernel(inline="always")
def classify_tableau_move(piles, lens, down, src, start, dst_empty, f0, per_suit, base_rank,
                          fsucc, full, dead=0, t0=0):
    """The kind of moving ``src``'s cards from index ``start`` up (``fsucc``: the foundations'
    succession, which decides whether the card left exposed can go up).  Emptying a pile whose
    bit is set in ``dead`` (``src - t0``) is a plain ``build``: its place takes nothing after."""
    if start == down[src] and down[src] > 0:
        return REVEAL
    if start == 0:
        if dst_empty:
            return SPACE_SHIFT
        return BUILD if (dead >> (src - t0)) & 1 else EMPTY_PILE
    if foundation_for(piles[src, start - 1], piles, lens, f0, per_suit, base_rank, fsucc,
                      full) >= 0:
        return UNCOVER
    return BUILD


@kernel(inline="always")
def holds_back(moves, n, reading):
    """Does one of the ``n`` listed moves between piles keep the fallback move (see
    ``WHEN_READINGS``) from being offered under ``reading``?"""
    if reading == WHEN_ANY_TIME:
        return False
    for i in range(n):
        kind = moves[i, M_KIND]
        if reading == WHEN_NO_MOVE:
            if kind != SPACE_SHIFT:
                return True
        elif kind == TO_FOUNDATION or kind == REVEAL or kind == UNCOVER or kind == EMPTY_PILE:
            return True
    return False


@kernel
def gen_tableau_moves(piles, lens, down, t0, nt, grab, build, succ, space, f0, per_suit, base_rank,
                      fsucc, full, moves, n, closed=0, dead=0, closed_to_space=True,
                      space_last=False):
    """Moves between tableau piles: which cards may go is ``grab``, what a space takes ``space``;
    ``succ`` is the tableau's succession, ``fsucc`` the foundations'.

    The sealed packs (games/sealed_packs.py) set the rest, which other games leave out (numba
    then compiles their defaults in as constants): ``closed`` has a bit per pile (``p - t0``)
    whose face-up top takes no builds (a turned pack card), and its card goes into a space only
    with ``closed_to_space``; ``dead`` a bit per pile that takes nothing once empty (its place
    stays empty); ``space_last`` lists a card's move into a space after its builds, into the
    first open space, rather than in that pile's place."""
    mask, keys = tops_keys(piles, lens, down, t0, nt, build, closed)
    space_at = open_space(lens, t0, nt, dead)  # the first space that takes a card, or -1
    for src in range(t0, t0 + nt):
        if not face_up(lens, down, src):
            continue
        last = lens[src] - 1
        lowest = last if grab == GRAB_TOP else group_start(piles, lens, down, src, build, succ)
        src_to_space = space_at >= 0 and (closed_to_space or (closed >> (src - t0)) & 1 == 0)
        for start in range(lowest, last + 1):
            if grab == GRAB_WHOLE and start != lowest:
                break
            if grab == GRAB_TOP and start != last:
                continue
            if grab == GRAB_TOP_OR_WHOLE and start != lowest and start != last:
                continue
            card = piles[src, start]
            want = wanted_key(card, build, succ)  # the key of the tops it builds on
            fits = key_fits(want, mask)
            to_space = src_to_space and space_takes(card, space)
            if not (fits or to_space):
                continue
            for dst in range(t0, t0 + nt):
                if dst == src:
                    continue
                if lens[dst] == 0:
                    if not to_space or space_last or (dead >> (dst - t0)) & 1:
                        continue
                    to_space = False  # all spaces are alike: offer one
                elif top_key(keys, dst - t0) != want:  # (``builds_on``, by key)
                    continue
                kind = classify_tableau_move(piles, lens, down, src, start, lens[dst] == 0,
                                             f0, per_suit, base_rank, fsucc, full, dead, t0)
                n = add_move(moves, n, kind, src, dst, lens[src] - start, card)
            if to_space and space_last:
                kind = classify_tableau_move(piles, lens, down, src, start, True, f0, per_suit,
                                             base_rank, fsucc, full, dead, t0)
                n = add_move(moves, n, kind, src, space_at, lens[src] - start, card)
    return n


@kernel(inline="always")
def gen_stock_move(lens, vars, stock, waste, draw, redeals, moves, n):
    """Turn ``draw`` cards, or redeal when the stock is out and the limit allows it.

    With unlimited redeals (``redeals < 0``) the redeal is always offered; the loop guard ends
    the game once the redeal (and every other move) only leads back to a position seen since
    the last progress.  A redeal under a limit is marked (``M_SPARE`` 1) so that ``apply_stock``
    counts it: the redeals used are part of the position only when they are limited.
    """
    if lens[stock] > 0:
        return add_move(moves, n, STOCK, stock, waste, min(draw, lens[stock]), -1)
    if lens[waste] == 0:
        return n
    if redeals >= 0 and vars[V_REDEALS] >= redeals:
        return n
    n = add_move(moves, n, STOCK, waste, stock, lens[waste], -1)
    moves[n - 1, M_SPARE] = redeals >= 0
    return n


OPEN_STOCK = 0  # ``draw`` in a solver's relaxation only (``open_the_stock``): every card open
# What a game's ``solver_relax`` returns: no relaxation; one (a game in which every real line can
# be played); one that is exact (it wins exactly when the real game does, and its line becomes
# the real game's by playing the stock's turns in between: engine/solver.py)
NO_RELAXATION, RELAXES, RELAXES_EXACTLY = range(3)


@kernel(inline="always")
def open_the_stock(pos, rules, relaxed, stock, waste, r_draw):
    """A solver's relaxation of a stock game (``solver_relax``, engine/solver.py): the stock's
    cards put into the waste, and ``relaxed`` the rules with ``draw`` (slot ``r_draw``) set to
    ``OPEN_STOCK``, under which the game lists every waste card's moves and no stock turn.
    Every line of the real game is a line of this one (drop its stock turns and redeals; a
    waste top is a waste card), whatever the draw or the redeal limit, so a position it cannot
    win the real game cannot either."""
    rules_with(rules, relaxed, r_draw, OPEN_STOCK)
    deck_into_waste(pos, stock, waste)
    return RELAXES


@kernel(inline="always")
def rules_with(rules, changed, slot, value):
    """``changed`` gets ``rules`` with option ``slot`` set to ``value``."""
    for k in range(rules.shape[0]):
        changed[k] = rules[k]
    changed[slot] = value


@kernel(inline="always")
def deck_into_waste(pos, stock, waste):
    """The stock's cards onto the waste, its top first, all face up: the waste then holds every
    card in the order the turns bring them round (the waste from its bottom, then the stock
    from its top)."""
    piles, lens, down, vars = pos
    while lens[stock] > 0:
        piles[waste, lens[waste]] = piles[stock, lens[stock] - 1]
        lens[waste] += 1
        lens[stock] -= 1
    down[stock] = 0
    down[waste] = 0


@kernel(inline="always")
def reach_the_stock(pos, rules, reformed, stock, waste, r_draw, r_redeals, v_offset):
    """A solver's exact reformulation of a stock game (``solver_reform``, engine/solver.py),
    where ``draw`` turns more than one card at a time and the waste may be turned over without a
    limit: the same game with the stock's turns folded into the plays they lead to.  The stock's
    and the waste's cards lie in one pile, ``waste``, in the order the turns bring them round
    (the waste from its bottom, then the stock from its top: the *deck*); how many of them are
    turned (the real waste's length) is counter ``v_offset`` (``reached_offset``), and a card of
    the deck is played straight from there if some number of turns brings it to the top of the
    real waste (``reachable_card``).  ``reformed`` gets the rules with ``draw`` (slot
    ``r_draw``) negated, which says so to the game's kernels.  False (nothing changed) where
    the game is not so: one card a turn (the open stock is exact then), or a redeal limit (which
    cards come up then depends on the redeals left)."""
    draw = rules[r_draw]
    if draw <= 1 or rules[r_redeals] >= 0:
        return False
    rules_with(rules, reformed, r_draw, -draw)
    turned = pos.lens[waste]
    deck_into_waste(pos, stock, waste)
    pos.vars[v_offset] = reached_offset(turned, pos.lens[waste], draw)
    return True


@kernel(inline="always")
def reached_offset(turned, cards, draw):
    """The reformulation's counter for ``turned`` cards of the deck's ``cards`` turned (see
    ``reach_the_stock``): 0 where the turns go round through the deck's start, every ``draw``
    cards (``turned`` a multiple of ``draw``, or the whole deck), for every such count leads by
    turns to every other and so to one future; else ``turned`` + 1, off that cycle until the
    next redeal.  One position, one key: the real game's positions that differ only by turns
    round that cycle are one here."""
    if turned % draw == 0 or turned == cards:
        return 0
    return turned + 1


@kernel(inline="always")
def reachable_card(i, cards, offset, draw):
    """Card ``i`` (from the bottom) of a reformulated deck of ``cards`` (``reach_the_stock``)
    can come to the waste's top by turns from counter ``offset``: it is the last card of a
    turn, counted from the deck's start (``i + 1`` a multiple of ``draw``) or the deck's last,
    or, off the cycle, the top now or the last card of a later turn of this pass."""
    if (i + 1) % draw == 0 or i == cards - 1:
        return True
    turned = offset - 1
    return offset > 0 and i + 1 >= turned and (i + 1 - turned) % draw == 0


@kernel(inline="always")
def reachable_index(k, cards, offset, draw):
    """The place in a reformulated deck of ``cards`` (``reach_the_stock``) of its ``k``-th card
    in the order the turns bring them from counter ``offset`` (from the waste's top now, round
    the deck), or -1 where no turns bring that card up (``reachable_card``): a game lists the
    deck's moves over ``k`` in ``range(cards)``."""
    i = (offset - 2 + k) % cards if offset > 0 else k
    return i if reachable_card(i, cards, offset, draw) else -1


@kernel(inline="always")
def play_reachable(piles, lens, vars, waste, card, draw, v_offset):
    """Play ``card`` from a reformulated deck (``reach_the_stock``): the turns that bring it to
    the waste's top, then take it (put on top, to be moved by the move's transfer); the counter
    becomes the turned count it leaves, the cards below it."""
    i = index_of(piles, lens, waste, card)
    bring_index_to_top(piles, lens, waste, i)
    vars[v_offset] = reached_offset(i, lens[waste] - 1, draw)


@kernel(inline="always")
def bring_to_top(piles, lens, p, card):
    """Move ``card`` to the top of pile ``p``, the cards above it one place down (their order
    kept, so an open waste played from in any order holds its cards in one order)."""
    bring_index_to_top(piles, lens, p, index_of(piles, lens, p, card))


@kernel(inline="always")
def index_of(piles, lens, p, card):
    """Where ``card`` lies in pile ``p`` (it must be there), looked for from the top."""
    i = lens[p] - 1
    while piles[p, i] != card:
        i -= 1
    return i


@kernel(inline="always")
def bring_index_to_top(piles, lens, p, i):
    """Move card ``i`` of pile ``p`` to its top, the cards above it one place down."""
    card = piles[p, i]
    for j in range(i, lens[p] - 1):
        piles[p, j] = piles[p, j + 1]
    piles[p, lens[p] - 1] = card


@kernel(inline="always")
def swap_to_top(piles, lens, p, i):
    """Swap card ``i`` of pile ``p`` with its top (done twice, undone): an open waste's card
    listed by the kernels that read a pile's top."""
    top_i = lens[p] - 1
    piles[p, i], piles[p, top_i] = piles[p, top_i], piles[p, i]


@kernel(inline="always")
def taker_bit(card, build, succ):
    """The bit of the ``build_key`` of the cards ``card`` may go on (none when it goes on
    none): or-ed over the cards that could move, a mask of the cards something could go on."""
    key = wanted_key(card, build, succ)
    return 1 << key if key >= 0 else 0


@kernel(inline="always")
def deal_stock(deck, dealt, piles, lens, down, vars, stock):
    """The deck's cards from ``dealt`` on face down in pile ``stock``, the deck's next card on
    top; the first pass begun."""
    for i in range(deck.shape[0] - 1, dealt - 1, -1):
        piles[stock, lens[stock]] = deck[i]
        lens[stock] += 1
    down[stock] = lens[stock]
    vars[V_PASSES] = 1


@kernel(inline="always")
def transfer(piles, lens, src, dst, count):
    """Move the top ``count`` cards of ``src`` onto ``dst``, keeping their order."""
    base = lens[src] - count
    for i in range(count):
        piles[dst, lens[dst] + i] = piles[src, base + i]
    lens[dst] += count
    lens[src] = base


@kernel(inline="always")
def turn_over(piles, lens, src, dst, count):
    """Move ``count`` cards one by one from the top of ``src`` to ``dst`` (their order reverses)."""
    for _ in range(count):
        piles[dst, lens[dst]] = piles[src, lens[src] - 1]
        lens[dst] += 1
        lens[src] -= 1


@kernel(inline="always")
def turn_up_top(lens, down, p):
    """Turn the top card of ``p`` face up if it is face down; True when a card was turned."""
    if lens[p] > 0 and down[p] >= lens[p]:
        down[p] = lens[p] - 1
        return True
    return False


@kernel(inline="always")
def apply_stock(piles, lens, down, vars, move, stock):
    """Turn cards from the stock to the waste, or redeal (the waste turned over as the stock)."""
    if move[M_SRC] == stock:
        turn_over(piles, lens, stock, move[M_DST], move[M_COUNT])
    else:
        turn_over(piles, lens, move[M_SRC], stock, move[M_COUNT])
        vars[V_REDEALS] += move[M_SPARE]  # counted only under a limit (``gen_stock_move``)
        vars[V_PASSES] += 1
        vars[V_PASS_PROGRESS] = 0
    down[stock] = lens[stock]


@kernel(inline="always")
def apply_transfer(piles, lens, down, vars, move, f0, nf):
    """Move cards between piles, keep the foundation count, turn up an uncovered card.

    Returns True when a face-down card was turned up (progress).
    """
    src = move[M_SRC]
    dst = move[M_DST]
    count = move[M_COUNT]
    transfer(piles, lens, src, dst, count)
    if f0 <= dst < f0 + nf:
        vars[V_FOUNDATION] += count
    if f0 <= src < f0 + nf:
        vars[V_FOUNDATION] -= count
    return turn_up_top(lens, down, src)
