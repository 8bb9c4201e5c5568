"""The player bases: a table with one row per base, the only place a new player is added.

A base names the kernel that chooses its moves (``"module:function"``, a function with the
signature ``choose(pos, rules, moves, n, policy, rng, work) -> index`` of the listed move, -1
for none), the settings it reads (``Setting`` rows declared beside that kernel, which also give
their policy-array slots, see engine/layout.py), whether it plays move kinds by a priority order
and weighs the heuristic features, and how to make its scratch space.  The loop, the policies,
the command line and the listings all read this table; adding a base (MCTS, a solver) is one
kernel module plus one row here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from simsol.engine import choice, hop, search, solver
from simsol.engine.layout import P_OWN, P_PRIORITY, Setting


@dataclass(frozen=True)
class Base:
    name: str
    doc: str
    kernel: str  # "module:function" of its move choice
    mode: int = choice.GREEDY  # for the simple kernel: which simple player it is
    settings: tuple[Setting, ...] = ()
    ordered: bool = True  # plays kinds by a priority order (``order``, ``kind.NAME``)
    weighted: bool = False  # weighs the heuristic features (``weight.NAME``)
    searching: bool = False  # slow: fewer deals in tests, small chunks in runs
    sees_hidden: bool = False  # reads face-down cards and the stock: labelled in every id
    plans_lines: bool = False  # plays a whole line it searched: no idle cap (engine/loop.py)
    rolls_out: bool = False  # judges moves by roll-outs: plays a game's ``LOOKAHEAD_ORDER``
    chunk: int | None = None  # the most deals a chunk holds (None: by ``searching``, runner.py)
    make_work: Callable = field(default=choice.no_work)

    def setting(self, name: str) -> Setting | None:
        return {s.name: s for s in self.settings}.get(name)

    @property
    def kernel_index(self) -> int:
        """Its kernel's place in ``KERNELS``: the policy array's ``P_KERNEL``."""
        return KERNELS.index(self.kernel)


# Raised whenever a change to how the players play moves their results (as a game's
# RULES_VERSION is for its rules): stored results record it, so old and new never mix.
# 2: every kind of move open to every player, loops stopped by the position hash.
# 3: the heuristic's per-game features and kind weights, tuned tables per preset
#    (["GAME:PRESET"]), Klondike's, 12x5's and Grandma's book tables re-tuned.
# 4: the solver's stock-turn compression (under the same budget it decides other deals); the
#    hop player added.  Random, greedy, heuristic, tuned and lookahead play exactly as in 3.
# 5: the solver restarts in shaken orders (``restart_nodes``) and keys Klondike with partial
#    runs by its face-down cards and roots (``game_key``), so under the same budget it decides
#    other deals, and hop, which asks it, plays otherwise.  The other players play as in 3.
# 6: the solver searches the moves within a Klondike class (5 took them for repeats and so
#    called some solvable deals unsolvable); the solver's and hop's results move.
# 7: Klondike's class key replaced by a dominance rule (``solver_skips``: no twin swap that
#    frees no card); the solver's and hop's Klondike results move, Canfield and the rest play
#    as in 6.
# 8: Canfield's safe move (a tableau card up that nothing can go on, played alone by the solver
#    and by hop without a search); the solver's and hop's Canfield results move, the rest play
#    as in 7.
# 9: the solver's last search keys Klondike with partial runs blind to which twin a run lies on
#    (``solver_pile_hash``); the solver's and hop's results with partial runs move, the book's
#    Klondike and every other game play as in 8.
# 10: greedy breaks ties within its best kind by a feature where the game says so
#    (``GREEDY_TIES``: Strata's and the 12x5 game's ``movable_after``); the 12x5 game's greedy
#    order and both games' built-in heuristic weights changed with it (its tuned table keeps
#    the order it was tuned on).  Greedy, heuristic and every search in those two games play
#    otherwise (the solver tries the 12x5 game's kinds in the new order); the other eight games
#    and every tuned table play as in 9.
# 11: lookahead in the 12x5 game plays and rolls out by the game's old greedy order
#    (``LOOKAHEAD_ORDER``): version 10's order, better for greedy and the heuristic, made its
#    roll-outs poorer judges.  Lookahead and peeking in that game play otherwise; every other
#    player and game as in 10.
# 12: the solver's dead-end test (``solver_dead``: in Klondike and Black Harp, a card that can
#    never leave its pile or go up ends the search there); the solver's and hop's results in
#    those two games move, every other game and player plays as in 11.
# 13: the solver searches a game's relaxation before its last search (``solver_relax``:
#    Klondike with every stock card open; a deal the relaxation cannot win is unsolvable) and
#    keeps three quarters of its budget, not half, for the last search; the solver's results
#    move in every game (first noted as Klondike's only; see 15), every other player (hop too:
#    its settings keep the old split and no relaxation) plays as in 12.
# 14: Klondike's open stock is exact when one card is turned without a redeal limit
#    (``RELAXES_EXACTLY``): it has the rest of the budget in place of the last search and its
#    wins are realized as real lines; the solver's results under those rules move, every other
#    rule set, game and player plays as in 13.
# 15: the solver's last search keeps half the budget again in every game but Klondike and Black
#    Harp (a game's ``SOLVER_DEFAULTS``; version 13 gave every game three quarters, which
#    decided fewer deals where no dead-end test proves deals lost: on 200 deals of each game's
#    book rules at 200,000 positions, Strata 91.5% against 96.0%, the 12x5 game 14.0% against
#    19.0%, Canfield 62.0% against 64.0%); the solver in the other eight games plays as in 12,
#    Klondike and Black Harp as in 14 (version 13 moved Black Harp's and the eight games' solver
#    results too, which its note above did not say).
# 16: the solver searches a game's exact reformulation in its place (``solver_reform``: Klondike
#    and Canfield with three cards a turn and no redeal limit, every card the stock's turns can
#    bring up played at once, and the turns round the deck's cycle one position; Canfield
#    without worrying back), so the solver's and hop's results under those rules move; every
#    other rule set, game and player plays as in 15.
# 17: Klondike's open stock, exact under one card a turn without a redeal limit, is that rule
#    set's reformulation too: the solver's restarts and last search and hop's worlds search it
#    (version 16 searched it only in the solver's last search, and hop never), so the solver's
#    and hop's results under those rules move; every other rule set, game and player plays as
#    in 16.
# 18: the solver's short searches and its proof (the relaxation and the last search) take
#    turns after the short searches' first ``alone`` positions, each in its own lane and table,
#    where version 17 ran every short search first; the solver's results move in every game
#    (its budget is spent otherwise), hop's worlds (5,000 positions, short searches' share 2,500,
#    under ``alone``) search as in 17, and every other player plays as in 17.
# 19: Klondike's solver never moves a whole pile into a space (``klondike.solver_skips``: the
#    same position with two piles' places traded), under every Klondike rule set but a King's
#    first such move under the literal reading of the spaces' rule; the solver's and hop's
#    results in Klondike move, every other game and player plays as in 18.
# 20: Klondike's solver may search its relaxation (the open stock) for three quarters of the
#    budget, all of the proof's share, where it had a quarter (its ``SOLVER_DEFAULTS``); the
#    solver's results in Klondike move under the rule sets whose relaxation is not exact (three
#    cards a turn, or a redeal limit); hop's worlds search no relaxation and play as in 19, and
#    every other game and player plays as in 19.
# 21: with Klondike's stock open (the solver's relaxation; under one card a turn without a
#    redeal limit, its reformulation too) a waste card put on a pile must be used at the next
#    move but for safe ones (``klondike.solver_skips``); the solver's results in Klondike move,
#    and hop's under one card a turn without a limit (its worlds search the open stock); every
#    other game and player plays as in 20.
PLAYERS_VERSION = 21

SIMPLE = "simsol.engine.choice:choose_simple"
BASES = {base.name: base for base in (
    Base("random", "uniform over the allowed moves", SIMPLE, mode=choice.RANDOM, ordered=False),
    Base("greedy", "the first allowed move in a priority order over move kinds", SIMPLE,
         mode=choice.GREEDY, settings=choice.GREEDY_SETTINGS),
    Base("heuristic", "the best score: a weight per move kind plus weighted move features",
         SIMPLE, mode=choice.HEURISTIC, settings=choice.HEURISTIC_SETTINGS, weighted=True),
    Base("lookahead", "each candidate played out in sampled worlds of the unseen cards",
         "simsol.engine.search:choose_lookahead", settings=search.LOOKAHEAD_SETTINGS,
         weighted=True, searching=True, rolls_out=True, make_work=search.make_work),
    Base("solver", "an exact depth-first search on the real cards: can the deal come out?",
         "simsol.engine.solver:choose_solver", settings=solver.SOLVER_SETTINGS, searching=True,
         sees_hidden=True, plans_lines=True, make_work=solver.make_work),
    Base("hop", "each candidate judged by the solver in sampled worlds of the unseen cards",
         "simsol.engine.hop:choose_hop", settings=hop.HOP_SETTINGS, weighted=True,
         searching=True, chunk=10, make_work=hop.make_work),
)}
FEATURE_NAMES = choice.FEATURE_NAMES
# Every distinct kernel, in table order: one game's loop is compiled once with all of them,
# the policy's P_KERNEL choosing (engine/binder.py).
KERNELS = tuple(dict.fromkeys(base.kernel for base in BASES.values()))


def work_for(game, base: Base, policy: np.ndarray) -> tuple:
    """The loop's ``work``: every kernel's scratch space, by kernel index, made once per batch.
    ``base``'s own is made for ``policy``; every other kernel gets a stand-in of the same types
    with no room (it never plays), so the loop's arguments have one type whatever base plays."""
    return tuple(base.make_work(game, policy) if kernel == base.kernel else _stand_in(game, kernel)
                 for kernel in KERNELS)


_STAND_INS: dict[tuple[str, str], object] = {}


def _stand_in(game, kernel: str) -> object:
    """An empty scratch space of ``kernel``'s types (made once per game: it is never written)."""
    key = (game.name, kernel)
    if key not in _STAND_INS:
        first = next(base for base in BASES.values() if base.kernel == kernel)
        defaults = np.zeros(P_PRIORITY + len(game.move_kinds), dtype=np.float64)
        for slot, setting in enumerate(first.settings, start=P_OWN):
            defaults[slot] = setting.encode(setting.default)
        _STAND_INS[key] = _emptied(first.make_work(game, defaults))
    return _STAND_INS[key]


def _emptied(work):
    """``work`` with every array replaced by an empty one of its dtype and dimensions."""
    if isinstance(work, np.ndarray):
        return np.zeros((0,) * work.ndim, dtype=work.dtype)
    if isinstance(work, tuple):
        parts = [_emptied(part) for part in work]
        return type(work)(*parts) if hasattr(work, "_fields") else tuple(parts)
    return work
