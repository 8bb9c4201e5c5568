"""Canfield as in the Leeming book (RULES.md §2): a 13-card reserve, a base card whose rank starts
every foundation, four piles built down in alternate colours with wrapping (K on A), whole piles
moved, spaces filled from the reserve, draw 3 with unlimited redeals.

The reserve is dealt face up but squared, so only its top card is seen: the cards beneath it are
kept face down in the state (no policy can read them) and the next one turns up as the top leaves.

Filling a space from the reserve "at once" is a *forced move*: while a space and a reserve card
both exist, the reserve top into the space is the only legal move.  It shows in traces as a
``reserve_to_tableau`` move of its own and is counted in the moves column.

Worrying back (an option, off in the book preset): any foundation's top card, even a lone base
card, may return onto a pile where it builds down; never into a space.

Solvitaire's Canfield (preset ``solvitaire``, the rules of its published solvability figures,
Blake & Gent): any part of a pile's built run may move (``moves=any-part``), and a space is filled
at once from the reserve while it lasts, then by any card, the waste top or any part of a pile's
run (``space=reserve-then-any``); draw 3, unlimited redeals, no worrying back; and the
tableau's ranks run from the base card (``wrap=from-base``): Solvitaire counts ranks from the
base up, so a King goes on an Ace but nothing goes on a card of the base's rank (with base 7, no
6 on a 7), where the book's wrap goes all the way round.
"""

from __future__ import annotations

import numpy as np

from simsol.cards import STANDARD
from simsol.engine.jit import kernel
from simsol.engine.piles import (
    ALTERNATE_COLOURS,
    GRAB_ANY_PART,
    GRAB_TOP_OR_WHOLE,
    GRAB_WHOLE,
    PILE_MOVE_KINDS,
    RANK,
    RESERVE_TO_FOUNDATION,
    RESERVE_TO_TABLEAU,
    SPACE_ANY,
    SPACE_NONE,
    STOCK,
    SUCC_WRAP,
    SUIT,
    TO_FOUNDATION,
    WASTE_TO_FOUNDATION,
    WASTE_TO_TABLEAU,
    WORRY_BACK,
    add_move,
    apply_stock,
    apply_transfer,
    builds_on,
    deal_stock,
    fits_tops,
    foundation_for,
    gen_card_to_tableau,
    gen_stock_move,
    gen_tableau_moves,
    gen_to_foundation,
    may_go_on,
    play_reachable,
    reach_the_stock,
    reachable_index,
    stock_keeps_moves,
    swap_to_top,
    top,
    tops_mask,
    transfer,
    turn_up_top,
)
from simsol.engine.state import (
    M_CARD,
    M_DST,
    M_KIND,
    M_SPARE,
    M_SRC,
    V_FOUNDATION,
    game_counters,
)
from simsol.games.base import declare
from simsol.rules import Option

MOVE_READINGS = ("whole", "top-or-whole", "any-part")
SPACE_READINGS = ("reserve-at-once", "reserve-by-choice", "reserve-or-waste", "reserve-then-any")
OPTIONS = (
    Option("draw", 3, "cards turned from the stock at a time", values=(1, 3)),
    Option("redeals", None, "times the waste may be turned over (none = unlimited)",
           values=tuple(range(21)), none_ok=True),
    Option("moves", "whole", "what may move between piles: the whole pile (book), also its top "
           "card alone (the modern rule), or any part of its built run, top card to any card of "
           "it (Solvitaire)", choices=MOVE_READINGS),
    Option("space", "reserve-at-once", "how a space is filled: at once from the reserve, then by "
           "choice from the waste once the reserve is out (book); from the reserve when the "
           "player chooses, then the waste (the text's literal 'may'); from the reserve or "
           "the waste at any time; or at once from the reserve, then by any card, the waste top "
           "or (as 'moves' allows) cards from another pile, once the reserve is out (Solvitaire)",
           choices=SPACE_READINGS),
    Option("worrying_back", False, "a foundation's top card may come back onto a pile",
           boolean=True),
    Option("wrap", "around", "how the tableau's ranks wrap: all the way round, a King on an Ace "
           "and every card on the next (book); or counted from the base card, so a card of the "
           "base's rank takes nothing (Solvitaire)", choices=("around", "from-base")),
)
R_DRAW, R_REDEALS, R_MOVES, R_SPACE, R_WORRY, R_WRAP = range(len(OPTIONS))
WRAP_AROUND, WRAP_FROM_BASE = range(2)
MOVES_WHOLE, MOVES_TOP_OR_WHOLE, MOVES_ANY_PART = range(len(MOVE_READINGS))
SPACE_AT_ONCE, SPACE_BY_CHOICE, SPACE_RESERVE_OR_WASTE, SPACE_THEN_ANY = range(
    len(SPACE_READINGS))

PRESETS = {
    "book": {},
    "worrying-back": {"worrying_back": True},
    "three-redeals": {"redeals": 3},
    "three-passes": {"redeals": 2},
    "draw1-single-pass": {"draw": 1, "redeals": 0},
    "standard": {"moves": "top-or-whole"},
    "solvitaire": {"moves": "any-part", "space": "reserve-then-any", "wrap": "from-base"},
}
PRESET_DOCS = {
    "book": "draw 3, unlimited redeals, whole piles move, spaces filled at once from the reserve",
    "worrying-back": "a foundation's top card may return to a pile (the book's 'good variant')",
    "three-redeals": "the waste turned over at most three times",
    "three-passes": "three passes in all (redeals=2, the English idiom)",
    "draw1-single-pass": "one card at a time, a single pass (Casino Canfield)",
    "standard": "the top card alone or the whole pile may move (the modern reading)",
    "solvitaire": "Solvitaire's rules (its solvability figures): any part of a pile's run moves, "
                  "a space filled at once from the reserve, then by any card, the tableau's "
                  "ranks counted from the base card",
}

NAME = "canfield"
TITLE = "Canfield («Кэнфилд»)"
SOURCE = "Leeming (seed 000)"
DECK = STANDARD
RULES_VERSION = 2  # r2: the solvitaire preset counts the tableau's ranks from the base (wrap)

STOCK_PILE, WASTE = 0, 1
F0, NF = 2, 4
RESERVE = 6
T0, NT = 7, 4
RESERVE_SIZE = 13
PILES = ("stock", "waste") + tuple(f"foundation{i + 1}" for i in range(NF)) + ("reserve",) + tuple(
    f"tableau{i + 1}" for i in range(NT))
FOUNDATIONS = range(F0, F0 + NF)
INTERCHANGEABLE = (range(T0, T0 + NT),)  # the tableau: only its cards matter, not their place
# The base card's rank (it starts every foundation); and, in the solver's reformulation only
# (``solver_reform``), where the turns have got to in the deck (0 in the game itself).
COUNTERS = game_counters("base_rank", "stock_offset")
BASE_RANK, STOCK_OFFSET = COUNTERS
keeps_moves = stock_keeps_moves
# The tableau's successions: row 0 wraps all the way round (SUCC_WRAP); row b counts from base
# rank b, so the rank below b (the last from the base) goes on nothing.
TABLEAU_SUCCS = np.array([SUCC_WRAP] + [np.where(np.arange(14) == (b + 11) % 13 + 1, 0, SUCC_WRAP)
                                        for b in range(1, 14)], dtype=np.int64)

# Worrying back followed at once by building the reserve or waste top on the returned card: the
# only worrying back greedy plays, so it never shuttles a card between foundation and pile (each
# one takes a card out of the reserve or waste for good).  Greedy keeps it as a last resort, for
# when the stock offers nothing more: played earlier it blocks a foundation and lowers the win rate.
MOVE_KINDS = PILE_MOVE_KINDS + ("worry_back_build",)
WORRY_BACK_BUILD = len(PILE_MOVE_KINDS)
NARROW_KINDS = PILE_MOVE_KINDS  # worrying back onto a build takes a third pile's card
GREEDY_ORDER = ("reserve_to_foundation", "to_foundation", "waste_to_foundation",
                "reserve_to_tableau", "empty_pile", "waste_to_tableau", "uncover", "stock",
                "worry_back_build", "build", "worry_back", "space_shift")
PROGRESS_KINDS = ("reserve_to_foundation", "reserve_to_tableau", "waste_to_foundation",
                  "waste_to_tableau", "worry_back_build")  # a card leaves the reserve or the waste


@kernel
def setup(deck, rules, pos, rng):
    """13 cards to the reserve (the 13th on top), the base card to its foundation, 4 to the
    tableau, 34 to the stock."""
    piles, lens, down, vars = pos
    for k in range(RESERVE_SIZE):
        piles[RESERVE, k] = deck[k]
    lens[RESERVE] = RESERVE_SIZE
    down[RESERVE] = RESERVE_SIZE - 1
    base = deck[RESERVE_SIZE]
    piles[F0 + SUIT[base], 0] = base
    lens[F0 + SUIT[base]] = 1
    vars[BASE_RANK] = RANK[base]
    vars[V_FOUNDATION] = 1
    for t in range(NT):
        piles[T0 + t, 0] = deck[RESERVE_SIZE + 1 + t]
        lens[T0 + t] = 1
    deal_stock(deck, RESERVE_SIZE + NT + 1, piles, lens, down, vars, STOCK_PILE)


@kernel(inline="always")
def tableau_succ(vars, rules):
    """The tableau's succession under the ``wrap`` rule (a row of ``TABLEAU_SUCCS``)."""
    return TABLEAU_SUCCS[vars[BASE_RANK] if rules[R_WRAP] == WRAP_FROM_BASE else 0]


@kernel
def gen_worrying_back(piles, lens, down, helper, plain, succ, moves, n):
    """Foundation tops back onto a pile: plain moves (when ``plain``), and the compound
    ``worry_back_build`` wherever ``helper``'s top card would then build on the returned card.
    Never into a space: spaces take only reserve or waste cards."""
    helper_card = top(piles, lens, helper) if lens[helper] > down[helper] else -1
    for f in range(F0, F0 + NF):
        if lens[f] == 0:
            continue
        card = top(piles, lens, f)
        helps = helper_card >= 0 and builds_on(helper_card, card, ALTERNATE_COLOURS, succ)
        if not (plain or helps):
            continue
        for dst in range(T0, T0 + NT):
            if not may_go_on(piles, lens, down, dst, card, ALTERNATE_COLOURS, succ):
                continue
            if plain:
                n = add_move(moves, n, WORRY_BACK, f, dst, 1, card)
            if helps:
                added = add_move(moves, n, WORRY_BACK_BUILD, f, dst, 2, card)
                if added > n:
                    moves[n, M_SPARE] = helper
                n = added
    return n


@kernel(inline="always")
def reserve_fills_at_once(lens, rules):
    """A space now would be filled at once from the reserve (the book's and Solvitaire's
    readings, while the reserve lasts)."""
    return lens[RESERVE] > 0 and (rules[R_SPACE] == SPACE_AT_ONCE
                                  or rules[R_SPACE] == SPACE_THEN_ANY)


@kernel(inline="always")
def space_to_fill(lens, rules):
    """The space the reserve must fill at once, or -1."""
    if reserve_fills_at_once(lens, rules):
        for t in range(T0, T0 + NT):
            if lens[t] == 0:
                return t
    return -1


@kernel
def generate_stable(pos, rules, moves):
    """The moves not involving the waste (only the forced one while a space waits)."""
    piles, lens, down, vars = pos
    base = vars[BASE_RANK]
    space = space_to_fill(lens, rules)
    if space >= 0:  # forced: the reserve top fills the space
        return add_move(moves, 0, RESERVE_TO_TABLEAU, RESERVE, space, 1, top(piles, lens, RESERVE))
    n = gen_to_foundation(piles, lens, down, RESERVE, RESERVE + 1, F0, 1, base, SUCC_WRAP, 13,
                          RESERVE_TO_FOUNDATION, moves, 0)
    n = gen_to_foundation(piles, lens, down, T0, T0 + NT, F0, 1, base, SUCC_WRAP, 13,
                          TO_FOUNDATION, moves, n)
    succ = tableau_succ(vars, rules)
    if lens[RESERVE] > down[RESERVE]:
        n = gen_card_to_tableau(piles, lens, down, RESERVE, T0, NT, ALTERNATE_COLOURS,
                                succ, SPACE_ANY, RESERVE_TO_TABLEAU, moves, n)
    grab = GRAB_WHOLE
    if rules[R_MOVES] == MOVES_TOP_OR_WHOLE:
        grab = GRAB_TOP_OR_WHOLE
    elif rules[R_MOVES] == MOVES_ANY_PART:
        grab = GRAB_ANY_PART
    # pile to space only under Solvitaire's reading, once the reserve is out (before, a space
    # is filled at once from the reserve: the forced move above)
    pile_space = SPACE_ANY if rules[R_SPACE] == SPACE_THEN_ANY else SPACE_NONE
    n = gen_tableau_moves(piles, lens, down, T0, NT, grab, ALTERNATE_COLOURS, succ,
                          pile_space, F0, 1, base, SUCC_WRAP, 13, moves, n)
    if rules[R_WORRY]:
        n = gen_worrying_back(piles, lens, down, RESERVE, True, succ, moves, n)
    return n


@kernel
def generate(pos, rules, moves, n):
    """The waste's moves and the stock (none while the reserve must fill a space); in the
    solver's reformulation (``draw`` negative, ``solver_reform``) the moves of every card some
    turns bring up, and no stock turn."""
    piles, lens, down, vars = pos
    if space_to_fill(lens, rules) >= 0:
        return n
    if rules[R_DRAW] < 0:
        draw, cards, offset = -rules[R_DRAW], lens[WASTE], vars[STOCK_OFFSET]
        tops = tops_mask(piles, lens, down, T0, NT, ALTERNATE_COLOURS)
        succ = tableau_succ(vars, rules)
        any_card = waste_fills_a_space(lens, rules)
        for k in range(cards):
            i = reachable_index(k, cards, offset, draw)
            if i >= 0 and (any_card or may_move(piles, lens, vars, piles[WASTE, i], tops, succ)):
                swap_to_top(piles, lens, WASTE, i)  # its moves as if it lay on top
                n = waste_top_moves(pos, rules, moves, n)
                swap_to_top(piles, lens, WASTE, i)
        return n
    if lens[WASTE] > 0:
        n = waste_top_moves(pos, rules, moves, n)
    return gen_stock_move(lens, vars, STOCK_PILE, WASTE, rules[R_DRAW], rules[R_REDEALS],
                          moves, n)


@kernel(inline="always")
def may_move(piles, lens, vars, card, tops, succ):
    """``card``, from the waste, has a move to its foundation or onto a face-up top (``tops``,
    the ``tops_mask``): the reformulation lists the moves of such deck cards only, the others
    having none while no space takes a waste card (``waste_fills_a_space``).  With worrying
    back, which the reformulation leaves out, a card brought back could take one more."""
    return foundation_for(card, piles, lens, F0, 1, vars[BASE_RANK], SUCC_WRAP, 13) >= 0 or (
        fits_tops(card, tops, ALTERNATE_COLOURS, succ))


@kernel(inline="always")
def waste_fills_a_space(lens, rules):
    """A space waits that the waste may fill: the reserve is empty, or the rules let the waste
    fill one while it is not."""
    if lens[RESERVE] > 0 and rules[R_SPACE] != SPACE_RESERVE_OR_WASTE:
        return False
    for p in range(T0, T0 + NT):
        if lens[p] == 0:
            return True
    return False


@kernel(inline="always")
def waste_top_moves(pos, rules, moves, n):
    """The waste top's moves: to its foundation, onto a pile, into a space where the waste may
    fill one, and with worrying back onto a card brought back for it."""
    piles, lens, down, vars = pos
    n = gen_to_foundation(piles, lens, down, WASTE, WASTE + 1, F0, 1, vars[BASE_RANK], SUCC_WRAP,
                          13, WASTE_TO_FOUNDATION, moves, n)
    waste_space = lens[RESERVE] == 0 or rules[R_SPACE] == SPACE_RESERVE_OR_WASTE
    succ = tableau_succ(vars, rules)
    n = gen_card_to_tableau(piles, lens, down, WASTE, T0, NT, ALTERNATE_COLOURS, succ,
                            SPACE_ANY if waste_space else SPACE_NONE, WASTE_TO_TABLEAU, moves, n)
    if rules[R_WORRY]:
        n = gen_worrying_back(piles, lens, down, WASTE, False, succ, moves, n)
    return n


@kernel(inline="always")
def nothing_builds_on(lens, card, base, succ):
    """No card can ever be built on ``card``: both cards of the other colour that the tableau's
    succession ``succ`` puts on it are on their foundations (which build up from ``base``)."""
    for rank in range(1, 14):
        if succ[rank] != RANK[card]:
            continue
        for suit in range(NF):
            if suit % 2 != SUIT[card] % 2 and (rank - base) % 13 >= lens[F0 + suit]:
                return False
    return True


@kernel
def safe_move(pos, rules, moves, n):
    """The solver's safe move (engine/solver.py): a tableau card to its foundation when no card
    can ever be built on it (``nothing_builds_on``; without worrying back, a card up stays up).

    Why no win is lost: such a card has nothing on it and nothing can ever go on it, so in any
    winning line it only waits, or moves on its own or on top of a run, until it goes up.  Play
    it up first and the rest of the line without its own moves: every other move stays legal
    (a run that carried it moves from the same card without it), and each position is the
    line's with that card on its foundation instead.  Not when it is the last card of its pile
    while the reserve must fill a space at once (the reserve's top would go into the space
    sooner, where the line may have wanted it elsewhere); not from the reserve (its next card
    shows sooner, and a space filled later takes another card) nor from the waste (which card a
    later pass turns up would change)."""
    piles, lens, down, vars = pos
    if rules[R_WORRY]:
        return -1
    base = vars[BASE_RANK]
    succ = tableau_succ(vars, rules)
    forced_fill = reserve_fills_at_once(lens, rules)
    for i in range(n):
        src = moves[i, M_SRC]
        if moves[i, M_KIND] != TO_FOUNDATION or not T0 <= src < T0 + NT:
            continue
        if lens[src] == 1 and forced_fill:
            continue
        if nothing_builds_on(lens, moves[i, M_CARD], base, succ):
            return i
    return -1


@kernel
def apply(pos, rules, move, rng):
    """Play a move; progress when a card leaves the reserve or the waste."""
    piles, lens, down, vars = pos
    kind = move[M_KIND]
    if kind == STOCK:
        apply_stock(piles, lens, down, vars, move, STOCK_PILE)
        return False
    src = move[M_SRC]
    if kind == WORRY_BACK_BUILD:
        dst = move[M_DST]
        helper = move[M_SPARE]
        transfer(piles, lens, src, dst, 1)
        vars[V_FOUNDATION] -= 1
        transfer(piles, lens, helper, dst, 1)
        turn_up_top(lens, down, helper)
        return True
    if src == WASTE and rules[R_DRAW] < 0:
        play_reachable(piles, lens, vars, WASTE, move[M_CARD], -rules[R_DRAW], STOCK_OFFSET)
    apply_transfer(piles, lens, down, vars, move, F0, NF)
    return src == WASTE or src == RESERVE


@kernel
def solver_reform(pos, rules, reformed):
    """The solver's exact reformulation (engine/solver.py), as Klondike's: with three cards
    turned at a time, no redeal limit and no worrying back, the stock's turns folded into the
    plays they lead to (``reach_the_stock``).  A line of the real game is one of this game with
    its turns dropped: a turn is legal only while no space waits for the reserve, and so is a
    play of this game from the deck, and the turns touch nothing but the deck, which no other
    move touches.  A line of this game is a real one with, before each play from the deck, the
    turns that bring its card up.  (With worrying back a card brought back may take the
    waste's top at once, a move this game does not fold in.)"""
    if rules[R_WORRY]:
        return False
    return reach_the_stock(pos, rules, reformed, STOCK_PILE, WASTE, R_DRAW, R_REDEALS,
                           STOCK_OFFSET)


GAME = declare(globals())
