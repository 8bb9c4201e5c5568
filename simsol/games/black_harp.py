"""Black Harp («Черная арфа») from the Fikhman book (RULES.md §4): the Klondike layout, any part of
a group may move, spaces take Kings, and the 24 cards in hand are used only when the tableau is
stuck: two cards go from the bottom of the hand to its top, the third is turned, and it is played
or goes back on top.

The hand keeps its cards in their held order, ``piles[HAND, 0]`` the bottom; the one turned card
lies face up in the ``turned`` pile until it is played or the next turn puts it back on top.  A
turned card that fits a foundation or a pile must be played: «Если же ни то, ни другое не
получается — перекладываете наверх своей кипы», it goes back only when it fits nowhere.
Since a card that goes back lands right behind the one turned before it, the hand is a fixed
cycle that each turn walks three cards along: with ``n`` cards, ``n / gcd(n, 3)`` turns show every
card that can come up, and the next turn would repeat a state already seen.  So after that many
turns in a row (no other move between them, which could make a card fit) the turning stops and
the game ends as "no progress": every card that came up fitted nowhere, the book's «замкнутый и
безвыходный круг».
"""

from __future__ import annotations

from simsol.cards import ACE
from simsol.engine.jit import kernel
from simsol.engine.piles import (
    ALTERNATE_COLOURS,
    GRAB_ANY_PART,
    PILE_MOVE_KINDS,
    SPACE_KINGS,
    STOCK,
    SUCC_UP,
    TO_FOUNDATION,
    WASTE_TO_FOUNDATION,
    WASTE_TO_TABLEAU,
    WHEN_READINGS,
    add_move,
    apply_transfer,
    gen_card_to_tableau,
    gen_tableau_moves,
    gen_to_foundation,
    holds_back,
)
from simsol.engine.state import M_KIND, NO_PROGRESS, V_END_HINT, game_counters
from simsol.games import klondike
from simsol.games.base import declare
from simsol.games.klondike import F0, NF, NT, T0
from simsol.games.klondike import STOCK_PILE as HAND
from simsol.games.klondike import WASTE as TURNED
from simsol.rules import Option

NAME = "black-harp"
TITLE = "Black Harp («Черная арфа»)"
SOURCE = "Fikhman (seed 004)"
RULES_VERSION = 2  # r2: a turned card that fits must be played
DECK, FOUNDATIONS, GREEDY_ORDER = klondike.DECK, klondike.FOUNDATIONS, klondike.GREEDY_ORDER
setup = klondike.setup  # the Klondike layout
# Klondike's features but ``strands`` (its last), which reads Klondike's stock and draw rule:
# the hand is no stock, and the weight's slot stays 0, so the kernel never computes it here.
FEATURES, feature_score = klondike.FEATURES[:-1], klondike.feature_score

OPTIONS = (
    Option("hand_when", "no-useful-move", "when the hand may be used: when no tableau card can go "
           "to a foundation and no move between piles turns up a card, empties a pile or frees a "
           "card for a foundation (a card that could only shuttle between two piles does not "
           "count), only when no card or group can move at all, or at any time",
           choices=WHEN_READINGS),
)
R_HAND_WHEN = 0

PRESETS = {"book": {}}
PRESET_DOCS = {"book": "any part of a group moves, Kings to spaces, the hand turned every third "
                       "card once the tableau is stuck"}

PILES = ("hand", "turned") + tuple(f"foundation{i + 1}" for i in range(NF)) + tuple(
    f"tableau{i + 1}" for i in range(NT))
# cycle_turns: hand states seen since the last move other than a turn
COUNTERS = game_counters("cycle_turns", scratch=("cycle_turns",))
INTERCHANGEABLE = klondike.INTERCHANGEABLE
# Klondike's split: the dead-end test proves deals lost here too (no relaxation to search)
SOLVER_DEFAULTS = {"last_share": klondike.SOLVER_DEFAULTS["last_share"]}
(CYCLE_TURNS,) = COUNTERS
NARROW_KINDS = PILE_MOVE_KINDS  # every move changes only its two piles (engine/loop.py)
PROGRESS_KINDS = ("to_foundation", "waste_to_foundation", "waste_to_tableau", "reveal")


@kernel(inline="always")
def hand_cycle(cards):
    """Turns, three cards apart, after which a hand of ``cards`` cards shows its first again."""
    return cards if cards % 3 else cards // 3


@kernel
def turn_hand(piles, lens, down):
    """Put the turned card back on top, move two cards from the bottom to the top, turn the next."""
    if lens[TURNED] > 0:
        piles[HAND, lens[HAND]] = piles[TURNED, 0]
        lens[HAND] += 1
        lens[TURNED] = 0
    n = lens[HAND]
    moved = 2 % n  # with one or two cards the two moves bring the bottom card round again
    first = piles[HAND, 0]
    second = piles[HAND, 1]
    turned = piles[HAND, moved]
    for i in range(moved + 1, n):
        piles[HAND, i - moved - 1] = piles[HAND, i]
    if moved == 2:
        piles[HAND, n - 3] = first
        piles[HAND, n - 2] = second
    lens[HAND] = n - 1
    down[HAND] = n - 1
    piles[TURNED, 0] = turned
    lens[TURNED] = 1


@kernel
def generate(pos, rules, moves, n):
    """A turned card that fits goes up or onto a pile, and nothing else may be done; otherwise
    the tableau moves, then the next turn.  Nothing is kept between calls: a turn may bring up a
    card that fits, and then the tableau's moves are not offered."""
    piles, lens, down, vars = pos
    if lens[TURNED] > 0:
        n = gen_to_foundation(piles, lens, down, TURNED, TURNED + 1, F0, 1, ACE, SUCC_UP, 13,
                              WASTE_TO_FOUNDATION, moves, n)
        n = gen_card_to_tableau(piles, lens, down, TURNED, T0, NT, ALTERNATE_COLOURS, SUCC_UP,
                                SPACE_KINGS, WASTE_TO_TABLEAU, moves, n)
        if n > 0:
            return n
    n = gen_to_foundation(piles, lens, down, T0, T0 + NT, F0, 1, ACE, SUCC_UP, 13, TO_FOUNDATION,
                          moves, n)
    n = gen_tableau_moves(piles, lens, down, T0, NT, GRAB_ANY_PART, ALTERNATE_COLOURS,
                          SUCC_UP, SPACE_KINGS, F0, 1, ACE, SUCC_UP, 13, moves, n)
    cards = lens[HAND] + lens[TURNED]
    if holds_back(moves, n, rules[R_HAND_WHEN]) or cards == 0:
        return n
    if vars[CYCLE_TURNS] >= hand_cycle(cards):
        vars[V_END_HINT] = NO_PROGRESS
        return n
    return add_move(moves, n, STOCK, HAND, TURNED, 1, -1)


@kernel
def apply(pos, rules, move, rng):
    piles, lens, down, vars = pos
    if move[M_KIND] == STOCK:
        turn_hand(piles, lens, down)
        vars[CYCLE_TURNS] += 1
        return False
    src, dst = move[1], move[2]
    progress = apply_transfer(piles, lens, down, vars, move, F0, NF) or src == TURNED or (
        F0 <= dst < F0 + NF)
    # Any move but a turn may make a card fit that fitted nowhere when it came up, so the cycle
    # is counted again from here (a card lying turned counts as seen).
    vars[CYCLE_TURNS] = 1 if lens[TURNED] > 0 else 0
    return progress


@kernel
def solver_dead(pos, rules, move, fresh):
    """The solver's dead-end test: Klondike's (``klondike.solver_dead``, the proof beside it), on
    the same layout and builds, with spaces that take Kings only and no worrying back.  The
    hand's cards count as the stock's do there: loose, a pile's top only once put on one."""
    piles, lens, down, vars = pos
    return klondike.dead_end(piles, lens, down, move, fresh, False, True)


GAME = declare(globals())
