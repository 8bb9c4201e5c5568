"""Klondike as in the Leeming book (RULES.md §1): draw 3, unlimited redeals, whole runs only,
and the book's space rule (Kings only until all four Kings are placed)."""

from __future__ import annotations

import numpy as np

from simsol.cards import ACE, STANDARD
from simsol.engine.hashing import pile_hash, root_and_set_hash
from simsol.engine.jit import kernel
from simsol.engine.piles import (
    ALTERNATE_COLOURS,
    BUILD,
    GRAB_ANY_PART,
    GRAB_WHOLE,
    OPEN_STOCK,
    PILE_MOVE_KINDS,
    RANK,
    RELAXES_EXACTLY,
    SPACE_ANY,
    SPACE_KINGS,
    SPACE_SHIFT,
    STOCK,
    SUCC_UP,
    SUIT,
    TO_FOUNDATION,
    WASTE_TO_FOUNDATION,
    WASTE_TO_TABLEAU,
    WORRY_BACK,
    apply_stock,
    apply_transfer,
    bring_to_top,
    build_key,
    deal_stock,
    gen_card_to_tableau,
    gen_stock_move,
    gen_tableau_moves,
    gen_to_foundation,
    open_the_stock,
    play_reachable,
    reach_the_stock,
    reachable_index,
    stock_keeps_moves,
    swap_to_top,
    taker_bit,
    top,
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
# The bit mask of the suits whose King went to a space; in the solver's reformulation only
# (``solver_reform``), where the turns have got to in the deck; and with the stock open only (the
# solver's relaxation), the waste card just put on a pile that awaits its use (``solver_skips``).
# The last two are 0 in the game itself.
COUNTERS = game_counters("kings_in_spaces", "stock_offset", "awaiting")
KINGS_IN_SPACES, STOCK_OFFSET, AWAITING = COUNTERS
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
    deal_stock(deck, k, piles, lens, down, vars, STOCK_PILE)


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
    """The waste's moves, worrying back, then the stock.  With the stock open (``OPEN_STOCK``,
    the solver's relaxation) every waste card's moves and no stock turn; in the solver's
    reformulation (``draw`` negative, ``solver_reform``) the moves of every card some turns
    bring up, and no stock turn."""
    piles, lens, down, vars = pos
    no_turns = rules[R_DRAW] <= OPEN_STOCK  # the open stock, or the reformulation
    if rules[R_DRAW] < 0:
        n = reachable_waste_moves(pos, rules, moves, n)
    elif no_turns:
        n = open_waste_moves(pos, rules, moves, n)
    else:
        n = waste_top_moves(pos, rules, moves, n, 0, 0)
    if rules[R_WORRY]:
        space = space_rule(piles, lens, down, vars, rules[R_SPACE])
        for f in range(F0, F0 + NF):
            if lens[f] > 0:
                n = gen_card_to_tableau(piles, lens, down, f, T0, NT, ALTERNATE_COLOURS, SUCC_UP,
                                        space, WORRY_BACK, moves, n)
    if no_turns:
        return n
    return gen_stock_move(lens, vars, STOCK_PILE, WASTE, rules[R_DRAW], rules[R_REDEALS],
                          moves, n)


@kernel(inline="always")
def waste_top_moves(pos, rules, moves, n, closed, dead):
    """The waste top's moves: to its foundation, onto a pile and into a space (but those whose
    bits are set in ``closed`` and ``dead``)."""
    piles, lens, down, vars = pos
    if lens[WASTE] == 0:
        return n
    n = gen_to_foundation(piles, lens, down, WASTE, WASTE + 1, F0, 1, ACE, SUCC_UP, 13,
                          WASTE_TO_FOUNDATION, moves, n)
    space = space_rule(piles, lens, down, vars, rules[R_SPACE])
    return gen_card_to_tableau(piles, lens, down, WASTE, T0, NT, ALTERNATE_COLOURS, SUCC_UP,
                               space, WASTE_TO_TABLEAU, moves, n, closed, dead)


@kernel(inline="always")
def reachable_waste_moves(pos, rules, moves, n):
    """The moves of each card of the reformulated deck that turns can bring to the waste's top
    (``reachable_card``), in the order the turns bring them: this pass's, then the next's."""
    piles, lens, down, vars = pos
    draw, cards, offset = -rules[R_DRAW], lens[WASTE], vars[STOCK_OFFSET]
    wanted = wanted_now(piles, lens, down, vars, rules)
    for k in range(cards):
        i = reachable_index(k, cards, offset, draw)
        if i >= 0 and wanted & bit(piles[WASTE, i]):
            swap_to_top(piles, lens, WASTE, i)  # its moves as if it lay on top
            n = waste_top_moves(pos, rules, moves, n, 0, 0)
            swap_to_top(piles, lens, WASTE, i)
    return n


@kernel(inline="always")
def wanted_now(piles, lens, down, vars, rules):
    """By bit, the cards a foundation, a face-up pile top or a space could take now (every card
    where a space takes any): a card of the waste has moves only if it is one."""
    wanted = np.uint64(0)
    space = False
    for suit in range(NF):
        if lens[F0 + suit] < 13:
            wanted |= bit(suit * 13 + lens[F0 + suit])
    for p in range(T0, T0 + NT):
        if lens[p] == 0:
            space = True
        elif lens[p] > down[p] and RANK[piles[p, lens[p] - 1]] > 1:
            onto = piles[p, lens[p] - 1]
            for suit in range(NF):
                if suit % 2 != SUIT[onto] % 2:
                    wanted |= bit(suit * 13 + RANK[onto] - 2)
    if space:
        if space_rule(piles, lens, down, vars, rules[R_SPACE]) == SPACE_ANY:
            return ALL_UP
        wanted |= KINGS
    return wanted


@kernel(inline="always")
def open_waste_moves(pos, rules, moves, n):
    """The moves of every waste card, with the stock open (``solver_relax``): each to its
    foundation, and onto a pile only while some card could go on it next (a face-up card of
    the tableau that can move, a waste card, a foundation's top with worrying back); with
    Kings-only spaces, into a space on the same terms.  Why no win is lost: with every waste
    card open, a card taken from the waste onto a pile (or a King into a space) serves only as
    a place for the next card; in a winning line, put it there just before the first move that
    uses it (a card onto it, or itself or a run holding it moved on: the card then goes there
    straight from the waste, or up from it); the moves between stay legal, since its pile's
    top (or the space) was only the freer for it, and then that card can go on it.  (Under the
    book's spaces a King put in a space counts towards opening the spaces to any card, so
    there it may always go.)"""
    piles, lens, down, vars = pos
    takers = 0  # a bit per build key some movable card wants (``wanted_key``)
    for p in range(T0, T0 + NT):
        for i in range(down[p], lens[p] if rules[R_PARTIAL] else min(down[p] + 1, lens[p])):
            takers |= taker_bit(piles[p, i], ALTERNATE_COLOURS, SUCC_UP)
    for i in range(lens[WASTE]):
        takers |= taker_bit(piles[WASTE, i], ALTERNATE_COLOURS, SUCC_UP)
    if rules[R_WORRY]:
        for f in range(F0, F0 + NF):
            if lens[f] > 0:
                takers |= taker_bit(piles[f, lens[f] - 1], ALTERNATE_COLOURS, SUCC_UP)
    every = (1 << NT) - 1
    for i in range(lens[WASTE] - 1, -1, -1):
        wanted = (takers >> build_key(piles[WASTE, i], ALTERNATE_COLOURS)) & 1
        swap_to_top(piles, lens, WASTE, i)
        n = waste_top_moves(pos, rules, moves, n, 0 if wanted else every,
                            every if not wanted and rules[R_SPACE] == SPACE_KINGS_ONLY else 0)
        swap_to_top(piles, lens, WASTE, i)
    return n


# What a good player weighs beyond the shared features (engine/choice.py), read from visible cards
# only: the face-up tableau cards, the waste (dealt face up, so seen) and the foundations.
FEATURES = (
    ("safe_up", "a card to a foundation that no tableau card can still want: an ace or a two, or "
                "both cards of the other colour one rank lower are up already"),
    ("king_for_space", "a move that empties a pile while a King lies ready to take the space "
                       "(the waste top, or a King on face-down cards)"),
    ("next_free", "after the move a card the foundations want next, and safe to play up, is free: "
                  "the card it leaves on top of its pile (or the waste), or the next card of "
                  "the suit it plays up"),
    ("up_distance", "for a card put on a pile: how many cards of its suit must still go up "
                    "before a foundation can take it (0: it could go up now)"),
    ("opens_reveal", "after the move a run lying on face-down cards can move (so turn one): the "
                     "card it leaves on top, or the card it plays from the waste, takes its root"),
    ("opens_waste", "after the move the waste top fits the card the move leaves on top of its "
                    "pile, or the card it plays from the waste"),
    ("dest_hidden", "face-down cards under the pile it builds on (building there buries them "
                    "deeper)"),
    ("hold_back", "a card to a foundation that a card of the other colour one rank lower, not "
                  "up yet, may still want to build on, when playing it turns no face-down card"),
    ("strands", "a card played from the waste that leaves cards the foundations or a pile's top "
                "could take now out of reach of every later turn of the stock: how many (draw 3, "
                "unlimited redeals; the stock's order counts once it has been turned through, "
                "seen, and before that only the waste's cards)"),
)

# The built-in heuristic plays as a good player does (tested against greedy in test_klondike.py):
# a card a tableau card may still want stays off the foundations until nothing better is left
# but the stock; a pile is emptied only for a King that waits for the space; and a move that
# only shows a card for the foundations waits behind the stock.  These weigh whole kinds
# (``KIND_GAP`` is 100), so ``simsol tune`` searches them in ranges as wide.
HEURISTIC_WEIGHTS = {"hold_back": -400.0, "king_for_space": 300.0}
HEURISTIC_KINDS = {"empty_pile": -300.0, "uncover": -250.0}
# Three quarters of the solver's budget for its proof (the open stock, then the last search),
# which can prove a deal lost (the dead-end test and the open stock give it proofs): on 200
# deals of Klondike standard (seed 0, 2,000,000 positions, players version 12's search) 185
# decided against 183 with half (README).  And the open stock may use all of it (players
# version 20; a quarter of the budget before): it proves the hardest lost deals, which the last
# search cannot within the budget.  Klondike standard, 1,000 deals of each of seeds 1 and 2 at
# 16,000,000 positions: 1,989 decided against 1,982 (README, *The open stock's share*).
SOLVER_DEFAULTS = {"last_share": 0.75, "relax_share": 0.75}
FEATURE_RANGES = {"hold_back": (-600.0, 600.0), "strands": (-600.0, 600.0),
                  "king_for_space": (-300.0, 300.0), "next_free": (-300.0, 300.0),
                  "opens_reveal": (-300.0, 300.0), "opens_waste": (-300.0, 300.0)}


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


@kernel(inline="always")
def wanted_up(lens, card, dst):
    """``card`` fits its suit's foundation once the move to ``dst`` is played (a card played up
    to that foundation raises it by one)."""
    f = F0 + SUIT[card]
    return RANK[card] == lens[f] + 1 + (dst == f)


@kernel(inline="always")
def next_up(lens, card, other):
    """``other`` is the next card of ``card``'s suit, safe to play up once ``card`` is."""
    return SUIT[other] == SUIT[card] and RANK[other] == RANK[card] + 1 and safe_up(lens, other)


@kernel(inline="always")
def takes(onto, card):
    """``card`` builds on ``onto`` (one rank lower, the other colour)."""
    return RANK[onto] == RANK[card] + 1 and SUIT[onto] % 2 != SUIT[card] % 2


@kernel(inline="always")
def after_move(piles, lens, down, move):
    """The two cards a move newly shows (-1 for none): the one it leaves on top of its source
    (face up: a pile's, the waste's or a foundation's), and the one it plays from the waste (or
    a foundation) onto a pile, a new top to build on (a card moved between piles was on top
    already)."""
    src, dst, count = move[1], move[2], move[3]
    left = lens[src] - count
    exposed = int(piles[src, left - 1]) if left > down[src] else -1
    played = move[4] if src < T0 and dst >= T0 else -1
    return exposed, played


@kernel(inline="always")
def bit(card):
    """``card``'s bit in a mask of cards (one pack: 52 bits)."""
    return np.uint64(1) << np.uint64(card)


@kernel(inline="always")
def turn_tops(piles, lens, lw, draw, known):
    """Bit mask (by card) of the cards the stock can bring to the top of the waste with no card
    played, when the waste holds its first ``lw`` cards: its top, the top card of each of this
    pass's turns and of the next pass's (every later pass repeats the next one).  The next pass
    turns the waste from its bottom, then the stock from its top.  Unless ``known`` (the stock
    was turned through, so its order was seen), the stock's cards are left out."""
    ls = lens[STOCK_PILE]
    mask = np.uint64(0)
    if lw > 0:
        mask |= bit(piles[WASTE, lw - 1])
    if not known:
        ls = 0
    for k in range(ls):  # this pass: the stock's top first
        if k % draw == draw - 1 or k == ls - 1:
            mask |= bit(piles[STOCK_PILE, ls - 1 - k])
    for k in range(lw + ls):  # the next pass
        if k % draw == draw - 1 or (known and k == lw + ls - 1):
            card = piles[WASTE, k] if k < lw else piles[STOCK_PILE, ls - 1 - (k - lw)]
            mask |= bit(card)
    return mask


@kernel(inline="always")
def playable_now(piles, lens, down, mask):
    """How many cards of ``mask`` a foundation or a face-up pile top could take now."""
    count = 0
    while mask:
        low = mask & (~mask + np.uint64(1))
        mask ^= low
        card = 0
        while low > np.uint64(1):
            low >>= np.uint64(1)
            card += 1
        fits = RANK[card] == lens[F0 + SUIT[card]] + 1
        for p in range(T0, T0 + NT):
            fits |= lens[p] > down[p] and takes(piles[p, lens[p] - 1], card)
        count += fits
    return count


@kernel(inline="always")
def strands(piles, lens, down, vars, draw, card):
    """The ``strands`` feature of playing ``card`` off the waste: how many cards playable now it
    puts out of the stock's reach.  Taking a card out of the waste shifts every later card of
    the next pass one place, so with three turned at a time other cards come up on top; a card
    no pass brings up any more is lost until play changes the waste again.  A player who has
    turned the stock through knows its order (as hop's memory does); a player in the first pass
    knows only the waste.  Scored with unlimited redeals only: there a card passed up comes
    round again, while under a limit every pass declined is one fewer to play (measured: three
    redeals, the tuned weights with ``strands`` at -400 won 6.9% of 200,000 deals against 12.8%)."""
    known = vars[V_PASSES] > 1
    before = turn_tops(piles, lens, lens[WASTE], draw, known)
    after = turn_tops(piles, lens, lens[WASTE] - 1, draw, known)
    return playable_now(piles, lens, down, before & ~after & ~bit(card))


@kernel
def feature_score(pos, rules, move, policy, slot):
    piles, lens, down, vars = pos
    score = 0.0
    src, dst, card = move[1], move[2], move[4]
    if policy[slot + 8] != 0.0 and src == WASTE and rules[R_DRAW] > 1 and rules[R_REDEALS] < 0:
        score += policy[slot + 8] * strands(piles, lens, down, vars, rules[R_DRAW], card)
    if F0 <= dst < F0 + NF:
        safe = safe_up(lens, card)
        score += policy[slot] * safe
        turns = src >= T0 and lens[src] - 1 == down[src] and down[src] > 0
        score += policy[slot + 7] * (not safe and not turns)
    if policy[slot + 1] != 0.0 and src >= T0 and lens[src] == move[3]:
        score += policy[slot + 1] * king_waiting(piles, lens, down)
    if move[0] == STOCK:
        return score
    exposed, played = after_move(piles, lens, down, move)
    if policy[slot + 2] != 0.0:
        free = exposed >= 0 and wanted_up(lens, exposed, dst) and safe_up(lens, exposed)
        if F0 <= dst < F0 + NF and not free:  # the next card of the suit on a top
            for p in range(T0, T0 + NT):
                if p != src and lens[p] > down[p]:
                    free |= next_up(lens, card, piles[p, lens[p] - 1])
            waste = lens[WASTE] - (src == WASTE)
            if waste > 0:
                free |= next_up(lens, card, piles[WASTE, waste - 1])
        score += policy[slot + 2] * free
    if dst >= T0:
        score += policy[slot + 3] * (RANK[card] - lens[F0 + SUIT[card]] - 1)
        score += policy[slot + 6] * down[dst]
    if policy[slot + 4] != 0.0:
        for p in range(T0, T0 + NT):
            if p != src and 0 < down[p] < lens[p]:
                root = piles[p, down[p]]
                if (exposed >= 0 and src >= T0 and takes(exposed, root)) or (
                        played >= 0 and takes(played, root)):
                    score += policy[slot + 4]
    if policy[slot + 5] != 0.0:
        waste = lens[WASTE] - (src == WASTE)
        if waste > 0:
            top = piles[WASTE, waste - 1]
            if (exposed >= 0 and src >= T0 and takes(exposed, top)) or (
                    played >= 0 and takes(played, top)):
                score += policy[slot + 5]
    return score


@kernel(inline="always")
def no_card_needs(lens, card, worrying_back):
    """No card can still need ``card`` on the tableau: it is an ace or a two, or both cards of
    the other colour one rank lower are up (nothing else may be built on it); with worrying
    back, also the other suit of its colour two ranks lower (so neither of those can be brought
    back onto it to hold that card)."""
    if not safe_up(lens, card):
        return False
    if not worrying_back or RANK[card] <= 2:
        return True
    twin = (SUIT[card] + 2) % NF  # the other suit of the same colour (suits ♠♥♣♦)
    return lens[F0 + twin] >= RANK[card] - 2


@kernel
def safe_move(pos, rules, moves, n):
    """The solver's safe move: a tableau card to its foundation that no card can still need
    (engine/solver.py).  A waste card only when one card is turned at a time: with three, taking
    one out of the waste changes which cards the next pass turns up, which may be worse."""
    piles, lens, down, vars = pos
    for i in range(n):
        src, dst = moves[i, 1], moves[i, 2]
        if not F0 <= dst < F0 + NF:
            continue
        if src < T0 and not (src == WASTE and 0 <= rules[R_DRAW] <= 1):
            continue
        if no_card_needs(lens, moves[i, 4], rules[R_WORRY]):
            return i
    return -1


@kernel(inline="always")
def solver_skips(pos, rules, move):
    """The solver's dominance rule (engine/solver.py): with partial runs, never move a run from
    one face-up card A onto A's twin A' (the other card of A's colour and rank, on top of its
    pile) when A, left on top, cannot go to a foundation: kind ``build`` onto a card.  (A run
    whose foot lies on a face-up card can only lie on A or A', so every such move is one.)

    Why no win is lost.  Take a winning line with the fewest such moves; say one is its first
    move, from position Q.  Play the rest of the line from Q instead, with the runs on A and A'
    swapped: whatever the line puts on, or takes from, the run on A (or A itself) is put on, or
    taken from, the run on A' (or A'), and the other way round.  Building depends only on a
    card's colour and rank, so every move stays legal (a twin swap of another pair stays one,
    freeing the same card), and each position is the line's with the two runs swapped; the
    face-down cards, the stock, the waste and the foundations are the same.  That holds until
    the line plays A (or A') up, which needs it on top: if in the swapped position the other run
    lies on A, move that run onto A' first (it fits there, and A can then go up: an ``uncover``,
    not a left-out move), after which the positions are the same; and a move in the line that
    puts a run from one twin onto the other leaves the swapped position equal to the line's, so
    it is dropped.  The new line wins with one such move fewer: a contradiction.  So a line with
    the fewest of them never begins with one, and the safe foundation moves and the stock-turn
    compression (engine/solver.py) only reorder a line, keeping its moves' kinds.
    tests/test_solver.py has a deal won only through a twin swap that frees a card, and compares
    the verdicts with ``dominance=false``.  Whole runs only (the book): a run moves from its
    root, so no move is a ``build``.

    Under every rule set, never move a whole pile into a space (``space_shift``), unless under
    the literal reading of the spaces' rule it is a King's first move into a space (which counts
    towards opening the spaces).  The position it leads to is the one it leaves with two piles
    of the tableau trading places, and no rule of Klondike tells one pile's place from
    another's (the position hash already keys them alike, ``INTERCHANGEABLE``): in a winning
    line with the fewest such moves and twin moves together, a first move that is a shift can
    be dropped, the two piles' names traded in the rest, and the line still wins with one left-
    out move fewer (the twin argument above adds none: a whole pile stays a whole pile).  Left
    in, a shift cost a position each time it was tried, and in the last search, whose key is
    blind to twins, its child (the same key) was searched again as a twin move: the last search
    alone proved deal 34 of seed 0 lost in 382,841 positions with the shifts and 72,879 without
    (README, *The exact solver*).

    With the stock open (the solver's relaxation, ``open_waste_moves``), a waste card W put on
    a pile must be used next: every move but one that puts a card on W (from the waste, the
    tableau, or a foundation when worrying back) is left out while W awaits (``awaiting``, set
    by ``apply``; the game's safe moves are played all the same, see engine/solver.py).  Why
    no win is lost: by the argument beside ``open_waste_moves``, a winning line may put W on
    its pile just before the first move that uses W (a card onto it; where that first move
    takes W itself on, or up, W goes there straight from the waste and the move onto the pile
    is dropped), so some winning line uses each waste card it puts on a pile at its next move
    but for safe moves, which only move a foundation move earlier (between the two at most);
    and where that use is a twin move the argument above drops it, which leaves W unused, so
    its move onto the pile is dropped too.  Which card awaits is part of the position (a
    counter, in the key), so the table never takes a position with a card awaiting for the
    same cards with none.  Under the book's spaces a King put in a space counts towards opening
    the spaces, so it is not a mere place: none awaits after it.  Left out, a waste card lying
    on a pile unused while the search plays elsewhere multiplied the open stock's positions:
    the relaxation alone proved deal 805 of seed 1 lost in 10,776,191 positions without this
    and 618,479 with it (README, *The exact solver*)."""
    waiting = pos.vars[AWAITING]
    if waiting != 0 and not (move[2] >= T0 and on_top(pos.piles, pos.lens, move[2], waiting - 1)):
        return True  # with the stock open, a move that does not use the waste card awaiting
    if move[0] == SPACE_SHIFT:
        return not (rules[R_SPACE] == SPACE_LITERAL and RANK[move[4]] == 13 and (
            pos.vars[KINGS_IN_SPACES] >> SUIT[move[4]]) & 1 == 0)
    return rules[R_PARTIAL] != 0 and move[0] == BUILD and pos.lens[move[2]] > 0


@kernel(inline="always")
def solver_pile_hash(pos, rules, p, salt):
    """The solver's key with partial runs (engine/solver.py): a tableau pile's face-down cards
    and its root, and its other face-up cards only as a set (``root_and_set_hash``), so two
    positions that differ only by runs swapped between twins share a key.  They are won or lost
    together: the proof beside ``solver_skips`` turns a line from one into a line from the
    other.  Whole runs only, the plain hash: a run lying on a card may never leave it."""
    if rules[R_PARTIAL] == 0 or p < T0:
        return pile_hash(pos, p, salt)
    return root_and_set_hash(pos, p, salt)


ALL_UP = np.uint64((1 << 52) - 1)  # every card on the foundations, by bit
KINGS = np.uint64(sum(1 << (suit * 13 + 12) for suit in range(NF)))  # the four Kings, by bit


@kernel
def solver_dead(pos, rules, move, fresh):
    """The solver's dead-end test (engine/solver.py): True when some card can never reach its
    foundation, whatever is played.

    Only the *held* cards of the tableau are tracked, each pile's face-down cards and its root
    (the lowest face-up card).  A held card can leave its pile only once every card above it
    has: onto a card of the other colour one rank higher that can some day be a pile's top
    while it waits (not beneath it in its own pile), into a space if it is a King (or, under
    the book's spaces, any card once every King is placed, which cannot be while a King lies
    beneath it), or up, once the card below it in its suit is up, which cannot be while that
    card lies beneath it.  A card of the stock or the waste can be a pile's top only once put
    on one that can (or in a space); one up for good never again.  ``cannot_all_go_up`` grows
    the sets of cards that may leave and may go up from the position until nothing changes; a
    card left out can never go up, so the deal is lost.  Why it is sound: take any
    line of play and the first time each card leaves its place or goes up; what it needed then
    happened earlier, so by induction along the line every event of it is in the grown sets.

    Play only ever takes freedoms away through a card played up that may not come back (without
    worrying back): it is no longer a place to build on.  So past the root the test is run only
    after such a move, and only when a card that could have gone on it still may need to (one
    not up, nor face up above a pile's root; an ace or a two needs no card to go on)."""
    piles, lens, down, vars = pos
    kings_only = rules[R_SPACE] == SPACE_KINGS_ONLY
    if not kings_only and space_rule(piles, lens, down, vars, rules[R_SPACE]) == SPACE_ANY:
        return False  # a space takes any card now, so any card may leave: nothing is held
    return dead_end(piles, lens, down, move, fresh, rules[R_WORRY] != 0, kings_only)


@kernel(inline="always")
def dead_end(piles, lens, down, move, fresh, worrying_back, kings_only):
    """``solver_dead`` for the Klondike layout (Black Harp's too), the rules given."""
    if not fresh:
        if worrying_back or not F0 <= move[2] < F0 + NF or RANK[move[4]] < 3:
            return False
        if not child_waits(piles, lens, down, move[4]):
            return False
    return cannot_all_go_up(piles, lens, down, worrying_back, kings_only)


@kernel(inline="always")
def child_waits(piles, lens, down, card):
    """A card that could go on ``card`` (the other colour, a rank lower) may have needed it to
    leave its place or to become a top: it is not up, nor face up above its pile's root, nor
    held with the card below it in its suit up (it then leaves by going up), and the other
    card it could go on (``card``'s twin) is not face up on the tableau.  Otherwise the test
    grows the same sets as in the position before the move, which passed it."""
    held, roots, above_root = tableau_masks(piles, lens, down)
    twin = bit((SUIT[card] + 2) % NF * 13 + RANK[card] - 1)
    if twin & (roots | above_root):
        return False
    for suit in range(NF):
        child = suit * 13 + RANK[card] - 2
        if suit % 2 == SUIT[card] % 2 or lens[F0 + suit] > RANK[card] - 2:
            continue  # the same colour, or up already
        if bit(child) & above_root or (bit(child) & held and lens[F0 + suit] == RANK[card] - 2):
            continue
        return True
    return False


@kernel(inline="always")
def tableau_masks(piles, lens, down):
    """By bit, the tableau's held cards (face down, or a pile's root), its roots, and its face-up
    cards above the roots."""
    held = np.uint64(0)
    roots = np.uint64(0)
    above_root = np.uint64(0)
    for p in range(T0, T0 + NT):
        for i in range(lens[p]):
            if i < down[p]:
                held |= bit(piles[p, i])
            elif i == down[p]:
                held |= bit(piles[p, i])
                roots |= bit(piles[p, i])
            else:
                above_root |= bit(piles[p, i])
    return held, roots, above_root


@kernel(inline="always")
def parent_on_top(card, beneath, tops):
    """A card ``card`` could go on may some day be a pile's top (``tops``) while ``card`` waits
    in its pile: it is not ``beneath`` it there."""
    rank, suit = RANK[card], SUIT[card]
    for other in range(NF):
        b = bit(other * 13 + rank)  # the card of suit ``other`` one rank higher
        if other % 2 != suit % 2 and tops & b and not beneath & b:
            return True
    return False


@kernel
def cannot_all_go_up(piles, lens, down, worrying_back, kings_only):
    """See ``solver_dead``: grow, from what is known now to a fixed point, the cards that may
    leave their place (``leave``), may be a pile's top some day (``tops``) and may go up
    (``up``).  A face-up card above a root is a top (or in a run that can move) already; a card
    of the stock or the waste (or a foundation's, with worrying back) can become one only on a
    card that can (or in a space); a card up for good never can."""
    held, _, tops = tableau_masks(piles, lens, down)
    up = np.uint64(0)
    for suit in range(NF):
        for r in range(lens[F0 + suit]):
            up |= bit(suit * 13 + r)
    loose = ALL_UP & ~held & ~tops & (ALL_UP if worrying_back else ~up)
    leave = ~held
    changed = True
    while changed:
        changed = False
        for card in range(52):  # the cards not held
            b = bit(card)
            if held & b:
                continue
            if not up & b and (RANK[card] == 1 or up & (b >> np.uint64(1))):
                up |= b
                changed = True
            if loose & b and not tops & b and (RANK[card] == 13 or not kings_only or parent_on_top(
                    card, np.uint64(0), tops)):
                tops |= b
                changed = True
        for p in range(T0, T0 + NT):
            beneath = np.uint64(0)
            for i in range(min(down[p] + 1, lens[p])):
                beneath |= bit(piles[p, i])
            for i in range(min(down[p], lens[p] - 1), -1, -1):  # the root, then down the pile
                card = piles[p, i]
                b = bit(card)
                beneath &= ~b
                if not tops & b:
                    tops |= b
                    changed = True
                rank = RANK[card]
                below_up = rank == 1 or (up & (b >> np.uint64(1))) != 0
                below_held = rank > 1 and (beneath & (b >> np.uint64(1))) != 0
                moves_off = rank == 13 or parent_on_top(card, beneath, tops) or (
                    not kings_only and not beneath & KINGS)
                if not leave & b and (moves_off or (below_up and not below_held)):
                    leave |= b
                    changed = True
                if not up & b and below_up and (moves_off or not below_held):
                    up |= b
                    changed = True
                if not leave & b:
                    break  # the cards beneath can never be uncovered
    return (up & ALL_UP) != ALL_UP


@kernel(inline="always")
def awaiting_after(piles, lens, vars, rules, move):
    """The ``awaiting`` counter after ``move`` with the stock open: the code + 1 of a waste card
    it puts on a pile (none for a King into a space under the book's spaces), kept through
    other moves until a card goes on that card or it leaves its place; 0 for none (see
    ``solver_skips``)."""
    src, dst, card = move[1], move[2], move[4]
    if src == WASTE and dst >= T0:
        if lens[dst] == 0 and RANK[card] == 13 and rules[R_SPACE] != SPACE_KINGS_ONLY:
            return 0
        return card + 1
    waiting = vars[AWAITING]
    if waiting != 0 and (on_top(piles, lens, src, waiting - 1) or (
            dst >= T0 and on_top(piles, lens, dst, waiting - 1))):
        return 0  # it leaves, or a card goes on it
    return waiting


@kernel(inline="always")
def on_top(piles, lens, p, card):
    """``card`` lies on top of pile ``p``."""
    return lens[p] > 0 and top(piles, lens, p) == card


@kernel
def apply(pos, rules, move, rng):
    piles, lens, down, vars = pos
    if move[0] == STOCK:
        apply_stock(piles, lens, down, vars, move, STOCK_PILE)
        return False
    src, dst, card = move[1], move[2], move[4]
    if rules[R_DRAW] == OPEN_STOCK:
        vars[AWAITING] = awaiting_after(piles, lens, vars, rules, move)
    if src == WASTE and rules[R_DRAW] < 0:
        play_reachable(piles, lens, vars, WASTE, card, -rules[R_DRAW], STOCK_OFFSET)
    elif src == WASTE and rules[R_DRAW] == OPEN_STOCK:
        bring_to_top(piles, lens, WASTE, card)
    if dst >= T0 and lens[dst] == 0 and RANK[card] == 13:
        vars[KINGS_IN_SPACES] |= 1 << SUIT[card]
    turned = apply_transfer(piles, lens, down, vars, move, F0, NF)
    return turned or src == WASTE


@kernel
def solver_relax(pos, rules, relaxed):
    """The solver's relaxation (engine/solver.py): the stock open, every card of the stock and
    the waste playable at any time (``open_the_stock``, the proof beside it).  Exact when one
    card is turned at a time without a redeal limit: each card of the stock and the waste then
    comes to the waste's top in turn, every pass, and turning changes nothing else, so any
    card of them can be played at any time in the real game too (the order the others are
    left in never matters, for the same reason)."""
    relaxation = open_the_stock(pos, rules, relaxed, STOCK_PILE, WASTE, R_DRAW)
    return RELAXES_EXACTLY if open_stock_is_exact(rules) else relaxation


@kernel(inline="always")
def open_stock_is_exact(rules):
    """One card a turn without a redeal limit: every card of the stock and the waste can be
    turned to the waste's top at any time, so the open stock is the game itself."""
    return rules[R_DRAW] == 1 and rules[R_REDEALS] < 0


@kernel
def solver_reform(pos, rules, reformed):
    """The solver's exact reformulation (engine/solver.py): with three cards turned at a time and
    no redeal limit, the stock's turns folded into the plays they lead to (``reach_the_stock``).
    A line of the real game is one of this game with its turns dropped (a play from the waste
    is of a card the turns since the last play brought up, from where the deck was turned to;
    the tableau's moves never touch the deck); a line of this game is a real one with, before
    each play from the deck, the turns that bring its card up.  With one card a turn and no
    redeal limit it is the open stock (``solver_relax``, exact then: any card of the deck can be
    turned up at any time)."""
    if open_stock_is_exact(rules):
        open_the_stock(pos, rules, reformed, STOCK_PILE, WASTE, R_DRAW)
        return True
    return reach_the_stock(pos, rules, reformed, STOCK_PILE, WASTE, R_DRAW, R_REDEALS,
                           STOCK_OFFSET)


GAME = declare(globals())
