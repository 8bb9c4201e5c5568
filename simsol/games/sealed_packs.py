"""What Little Piano and Diplomatic share (RULES.md §6-7): ten columns over sealed packs.

Two packs, eight aces built up in suit to K; columns built down in alternate colours, one card
at a time; the stock turned one card at a time in a single pass; then, as an option, the *last
reserve*: the waste turned over (order kept) and three cards from it face up, each one used
replaced from it.

State model.  Each column is one pile: its sealed pack face down at the bottom (``down[p]``
cards), the original card face up on it and what is built on that.  ``vars[UNSEALED]`` has a
bit per column whose original column has been used up; from then on, while face-down cards
remain under it, the column's single face-up card is a *turned pack card*: it may leave to a
foundation or onto a column («кладем ее на базовую или на один из вспомогательных столбцов»;
into a space only with ``pack_card_to_space``) but nothing is built on it, and when it has left
the next pack card is turned.  The pack's last card, once turned (``down[p] == 0``), is an ordinary
column; when that is used up too, its place takes any free card.

The book says of a used-up column built on an original card "его место остается пустым" (its
place stays empty): the pack under it is unsealed instead, so the place itself never takes a
card.  The one unclear case is a column dealt without a pack (Diplomatic's tenth; Little Piano
with ``pack=0``), marked in ``vars[PACKLESS]``: used up, its place stays empty for good
(``used_up_column=stays-empty``, the default) or, read as a pack of no cards used up, takes any
free card (``takes-any``).

The rescue is a ``stock`` move (waste -> stock) offered once the stock is out; the three reserve
places then refill from the turned-over waste, which is no longer turned to a waste.  «Если ни
одной из этих трех карт выложить уже нельзя, пасьянс не вышел»: once no reserve card can be
played the game is lost, whatever the columns could still do (``reserve_end``); when the reserve
is used up to its last card, the columns play on.

The columns' moves come from the shared generator (``gen_tableau_moves``), told which tops are
turned pack cards (``closed``) and which places stay empty (``dead``): a move between columns
is a ``reveal`` when it turns a pack card, ``uncover`` when it frees a card for a foundation,
``empty_pile`` when it empties a column that then takes any card, and otherwise ``build`` (so
is emptying a column whose place stays empty), or ``space_shift`` (a lone card into a space).
"""

from __future__ import annotations

from simsol.cards import ACE, DOUBLE
from simsol.engine.jit import kernel
from simsol.engine.piles import (
    ALTERNATE_COLOURS,
    GRAB_TOP,
    PILE_MOVE_KINDS,
    RESERVE_TO_FOUNDATION,
    RESERVE_TO_TABLEAU,
    SPACE_ANY,
    STOCK,
    SUCC_UP,
    TO_FOUNDATION,
    WASTE_TO_FOUNDATION,
    WASTE_TO_TABLEAU,
    add_move,
    apply_stock,
    fits_tops,
    foundation_for,
    gen_card_to_tableau,
    gen_stock_move,
    gen_tableau_moves,
    gen_wanted_to_foundation,
    open_space,
    stock_keeps_moves,
    tops_mask,
    transfer,
    wanted_faces,
)
from simsol.engine.state import V_FOUNDATION, V_REDEALS, game_counters
from simsol.games.base import declare
from simsol.rules import Option

USED_UP_READINGS = ("stays-empty", "takes-any")
STAYS_EMPTY, TAKES_ANY = range(len(USED_UP_READINGS))
RESERVE_END_READINGS = ("no-reserve-move", "no-move")
NO_RESERVE_MOVE, NO_MOVE = range(len(RESERVE_END_READINGS))
# Both games read these options at these indices; Little Piano adds ``pack`` after them.
SHARED_OPTIONS = (
    Option("last_reserve", True, "when the stock is out the waste is turned over once (order "
           "kept) and three of its cards lie face up, each used one replaced from it",
           boolean=True),
    Option("used_up_column", "stays-empty", "what the place of a used-up column dealt without a "
           "sealed pack takes: nothing (the book: 'its place stays empty') or any free card "
           "(as a used-up pack's place)", choices=USED_UP_READINGS),
    Option("reserve_end", "no-reserve-move", "when the game after the rescue is lost: as soon "
           "as none of the three reserve cards can be played (book: «Если ни одной из этих трех "
           "карт выложить уже нельзя, пасьянс не вышел»), or only when nothing at all can move "
           "(the columns play on)", choices=RESERVE_END_READINGS),
    Option("pack_card_to_space", False, "a turned pack card may also go into an empty place; "
           "off (book): to a foundation or onto a column only («кладем ее на базовую или на "
           "один из вспомогательных столбцов»)", boolean=True),
)
R_LAST_RESERVE, R_USED_UP, R_RESERVE_END, R_PACK_TO_SPACE, R_PACK = range(5)

STOCK_PILE, WASTE = 0, 1
R0, NR = 2, 3
F0, NF = 5, 8
T0, NT = 13, 10
PILES = (("stock", "waste") + tuple(f"reserve{i + 1}" for i in range(NR))
         + tuple(f"foundation{i + 1}" for i in range(NF))
         + tuple(f"tableau{i + 1}" for i in range(NT)))
FOUNDATIONS = range(F0, F0 + NF)
SOURCE = "Mendelev (seed 001)"
DECK = DOUBLE
RULES_VERSION = 2  # r2: the game ends with the last reserve; pack cards not into spaces
# Every kind, best first: shifting a card between columns before the next stock card.
GREEDY_ORDER = ("to_foundation", "waste_to_foundation", "reserve_to_foundation", "reveal",
                "reserve_to_tableau", "waste_to_tableau", "uncover", "empty_pile", "build",
                "stock", "space_shift")
# unsealed: a bit per column whose original column is used up, its pack unsealed; packless: a
# bit per column dealt without a sealed pack; kept with the stable moves (see generate_stable):
# need, the faces the foundations take, build_mask, the build keys the columns offer, and space.
COUNTERS = game_counters("unsealed", "packless", "need", "build_mask", "space",
                         scratch=("need", "build_mask", "space"))
UNSEALED, PACKLESS, NEED, BUILD_MASK, SPACE = COUNTERS
keeps_moves = stock_keeps_moves
# The rescue refills every reserve place and a reserve card's place is refilled from the stock;
# any other move changes only its two piles.
NARROW_KINDS = tuple(k for k in PILE_MOVE_KINDS
                     if k not in ("stock", "reserve_to_foundation", "reserve_to_tableau"))
PROGRESS_KINDS = ("stock", "reserve_to_foundation", "reserve_to_tableau", "waste_to_foundation",
                  "waste_to_tableau", "reveal")  # a card out of the reserve, the waste or a pack


@kernel(inline="always")
def closed_columns(lens, down, vars):
    """A bit per column (``p - T0``) whose face-up top is a turned pack card: nothing is built on
    it, and it goes into a space only with ``pack_card_to_space``."""
    closed = 0
    for p in range(T0, T0 + NT):
        if down[p] > 0 and lens[p] > down[p]:
            closed |= vars[UNSEALED] & (1 << (p - T0))
    return closed


@kernel(inline="always")
def dead_columns(vars, rules):
    """A bit per column whose place, used up, takes nothing (a packless original column's)."""
    return vars[PACKLESS] if rules[R_USED_UP] == STAYS_EMPTY else 0


@kernel
def generate_stable(pos, rules, moves):
    """The columns' own moves (to the foundations, then single cards onto other columns or into
    the first open space), and what the foundations, the columns and a space take (kept for
    the waste's and the reserve's moves, and read by the solver's key)."""
    piles, lens, down, vars = pos
    closed, dead = closed_columns(lens, down, vars), dead_columns(vars, rules)
    vars[NEED] = wanted_faces(piles, lens, F0, NF, 2, ACE, SUCC_UP, 13)
    vars[BUILD_MASK] = tops_mask(piles, lens, down, T0, NT, ALTERNATE_COLOURS, closed)
    vars[SPACE] = open_space(lens, T0, NT, dead)
    n = gen_wanted_to_foundation(piles, lens, down, T0, T0 + NT, vars[NEED], F0, 2, ACE, SUCC_UP,
                                 13, TO_FOUNDATION, moves, 0)
    return gen_tableau_moves(piles, lens, down, T0, NT, GRAB_TOP, ALTERNATE_COLOURS, SUCC_UP,
                             SPACE_ANY, F0, 2, ACE, SUCC_UP, 13, moves, n, closed, dead,
                             rules[R_PACK_TO_SPACE] != 0, True)


@kernel
def generate(pos, rules, moves, n):
    """The waste's and the reserve's moves, then the stock or the rescue; none once the rescue is
    over (``reserve_end``)."""
    piles, lens, down, vars = pos
    need = vars[NEED]
    closed, dead = closed_columns(lens, down, vars), dead_columns(vars, rules)
    columns = n
    for src in range(WASTE, R0 + NR):
        if lens[src] > 0 and (need >> (piles[src, lens[src] - 1] % 52)) & 1 == 1:
            f = foundation_for(piles[src, lens[src] - 1], piles, lens, F0, 2, ACE, SUCC_UP, 13)
            kind = WASTE_TO_FOUNDATION if src == WASTE else RESERVE_TO_FOUNDATION
            n = add_move(moves, n, kind, src, f, 1, piles[src, lens[src] - 1])
    build_mask, space = vars[BUILD_MASK], vars[SPACE]
    for src in range(WASTE, R0 + NR):  # a card that fits no top, no space open, has no move
        if lens[src] > 0 and (space >= 0 or fits_tops(piles[src, lens[src] - 1], build_mask,
                                                       ALTERNATE_COLOURS, SUCC_UP)):
            kind = WASTE_TO_TABLEAU if src == WASTE else RESERVE_TO_TABLEAU
            n = gen_card_to_tableau(piles, lens, down, src, T0, NT, ALTERNATE_COLOURS, SUCC_UP,
                                    SPACE_ANY, kind, moves, n, closed, dead, True)
    if vars[V_REDEALS] == 0:  # after the rescue the stock only refills the reserve
        return gen_stock_move(lens, vars, STOCK_PILE, WASTE, 1, rules[R_LAST_RESERVE], moves, n)
    if (n == columns and rules[R_RESERVE_END] == NO_RESERVE_MOVE
            and lens[R0] + lens[R0 + 1] + lens[R0 + 2] > 0):
        return 0  # no reserve card can be played: the game is lost
    return n


@kernel(inline="always")
def refill(piles, lens, down, r):
    """Put the stock's top card face up into the empty reserve place ``r``."""
    if lens[r] == 0 and lens[STOCK_PILE] > 0:
        transfer(piles, lens, STOCK_PILE, r, 1)
        down[STOCK_PILE] = lens[STOCK_PILE]


@kernel
def apply(pos, rules, move, rng):
    """Play a move; a column whose last face-up card left turns its next pack card."""
    piles, lens, down, vars = pos
    kind, src, dst = move[0], move[1], move[2]
    if kind == STOCK:
        apply_stock(piles, lens, down, vars, move, STOCK_PILE)
        if src == WASTE:  # the rescue: the turned-over waste deals the last reserve
            for r in range(R0, R0 + NR):
                refill(piles, lens, down, r)
        return True
    transfer(piles, lens, src, dst, 1)
    if F0 <= dst < F0 + NF:
        vars[V_FOUNDATION] += 1
    if src < T0:
        if src >= R0:
            refill(piles, lens, down, src)
        return True
    if lens[src] == down[src] and down[src] > 0:
        vars[UNSEALED] |= 1 << (src - T0)
        down[src] -= 1
        return True
    return False


def sealed_pack_game(names: dict):
    """The ``Game`` a sealed-pack module declares in ``names``, over the shared kernels here."""
    return declare(globals(), **{key: names[key] for key in (
        "NAME", "TITLE", "OPTIONS", "PRESETS", "PRESET_DOCS", "setup")})
