"""Binding the shared loop and the players to one game's kernels, with a disk cache per game.

The loop (``engine/loop.py``) and the searching players call a game's kernels by the names
``game_setup``, ``game_generate_stable``, ``game_generate``, ``game_apply`` and
``game_keeps_moves``, and the player's move choice by ``player_choose``.  Functions that do so
are marked ``@template``: they are never compiled as written.  ``bind(game)`` makes a copy of
every template for that game, with those names bound to the real kernels in its globals and a
qualified name of its own, and compiles the copies.

Why copies: numba caches a function on disk under its qualified name, and a function that took
the kernels as arguments would put every game's kernels into one cache entry, which numba cannot
write back once another game's kernels are not loaded.  A copy per game has a cache entry of its
own and needs no dispatch on the game at run time.

Why one binding per game for every player base: the loop is most of what is compiled, and a
binding per (game, player kernel) compiled it once per kernel.  ``player_choose`` is instead a
switch on the policy's ``P_KERNEL`` slot over the kernels of ``players.KERNELS`` (one branch
each, generated from that table, so a new base is still one module plus one row), and the
loop's ``work`` argument holds every kernel's scratch space in one tuple (``players.work_for``:
the playing base's own, a tiny stand-in of the same types for the others), so it has one type
whichever base plays.  The switch is one well-predicted branch a move.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import types
from dataclasses import dataclass
from typing import Callable

import numpy as np

from simsol.engine.hashing import pile_salts
from simsol.engine.jit import entry, kernel
from simsol.engine.layout import P_KERNEL

# module name -> [(template, how to compile it)], in the order they were marked
_TEMPLATES: dict[str, list[tuple[Callable, Callable]]] = {}


def template(fn=None, *, compile_as=None):
    """Mark ``fn`` as compiled per game (``compile_as``: ``entry`` or a ``kernel`` variant)."""
    def mark(function):
        _TEMPLATES.setdefault(function.__module__, []).append((function, compile_as or kernel))
        return function
    return mark if fn is None else mark(fn)


def entry_template(fn):
    """A template that Python calls (cached on disk): the loop's entry points."""
    return template(fn, compile_as=entry)


def _unbound(*args):
    """Stands in for a game's kernel or the player's choice in the templates; ``bind`` puts the
    real one in its place."""
    raise NotImplementedError("templates run only through simsol.engine.binder.bind")


GAME_NAMES = ("game_setup", "game_generate_stable", "game_generate", "game_apply",
              "game_keeps_moves", "game_feature_score", "game_safe_move",
              "game_solver_skips", "game_solver_pile_hash", "game_solver_dead",
              "game_solver_relax", "game_solver_reform")


@dataclass(frozen=True)
class Entries:
    """The compiled entry points of one game, for every player base (see engine/loop.py)."""

    run_batch: Callable  # plays and records deals, and traces one (``trace``)
    legal_moves: Callable
    pick_move: Callable
    play_position: Callable
    apply_move: Callable
    hash_position: Callable
    solve_deal: Callable  # the solver's own entry (engine/solver.py)
    search_in_slices: Callable  # one search of the solver's, paused and taken on (tests)
    hop_lines: Callable  # the hop player's candidate lines in a given position (tests)


_BOUND: dict[str, Entries] = {}
LOOP_MODULE = "simsol.engine.loop"
CHOICE_MODULE = "simsol.engine.choice"  # the simple players: every base may roll out with them


def bind(game, only: tuple[str, ...] | None = None) -> Entries:
    """The entry points for ``game``, every player base's kernel bound; with ``only`` (kernels
    of ``players.KERNELS``), just those, the others choosing no move: a check of a game's
    declarations (tests/test_hashing.py) then compiles the loop without the searching players,
    a fraction of the time."""
    key = (game.name, only)
    if key not in _BOUND:
        _BOUND[key] = _bind(game, only)
    return _BOUND[key]


def player_switch(kernels: tuple[str, ...], only: tuple[str, ...] | None = None) -> Callable:
    """``player_choose`` over ``kernels`` (``"module:function"`` each), unbound: kernel ``i``
    chooses, with its own scratch space ``work[i]``, when ``policy[P_KERNEL] == i`` (only the
    kernels in ``only``, when given).

    Generated because numba can pick an element of a tuple of mixed types only by a constant
    index: one branch per kernel, each calling it by the name ``player_kernel_i``."""
    lines = ["def player_choose(pos, rules, moves, n, policy, rng, work):",
             "    which = policy[P_KERNEL]"]
    for i in range(len(kernels)):
        if only is not None and kernels[i] not in only:
            continue
        lines += [f"    if which == {i}:",
                  f"        return player_kernel_{i}(pos, rules, moves, n, policy, rng, work[{i}])"]
    lines.append("    return -1")
    namespace = {"P_KERNEL": P_KERNEL}
    exec("\n".join(lines), namespace)  # noqa: S102 - our own text, from the bases' table
    return namespace["player_choose"]


def _bind(game, only: tuple[str, ...] | None = None) -> Entries:
    from simsol.players import KERNELS  # the table of bases imports the engine: import it late
    importlib.import_module(LOOP_MODULE)
    importlib.import_module(CHOICE_MODULE)
    modules = list(dict.fromkeys(kernel.partition(":")[0] for kernel in KERNELS))
    for module_name in modules:
        importlib.import_module(module_name)
    bindings: dict[str, object] = {name: getattr(game, name.removeprefix("game_"))
                                   for name in GAME_NAMES}
    score = game.feature_score  # also compiled inline, for the heuristic's choice (choice.py)
    bindings["game_feature_score_inline"] = kernel(inline="always")(getattr(score, "py_func",
                                                                            score))
    bindings["GAME_CARDS"] = game.deck.size
    bindings["GAME_STOCK_MACRO"] = game.stock_turns_commute
    bindings["GAME_HAS_SCRATCH"] = any(slot not in game.state_vars
                                       for slot in game.var_names.values())
    bindings["GAME_PILE_SALTS"] = pile_salts(game.n_piles, game.interchangeable)
    bindings["GAME_STATE_VARS"] = np.array(game.state_vars, dtype=np.int64)
    if only is not None:  # named apart from the full binding's cached copies (see below)
        bindings["BOUND_PLAYERS"] = np.array([kernel in only for kernel in KERNELS])
    for name, kinds in (("GAME_NARROW", game.narrow_kinds), ("GAME_PROGRESS", game.progress_kinds)):
        bindings[name] = np.array([kind in kinds for kind in game.move_kinds], dtype=np.uint8)
    # The bound constants are frozen into the machine code, so they name the cached copies too:
    # a game built at run time with other declarations (a test's) never loads another's code.
    constants = hashlib.sha1(repr([(name, np.asarray(value).tolist()) for name, value in
                                   sorted(bindings.items()) if name.isupper()]).encode())
    suffix = re.sub(r"\W", "_", f"{game.name}_{constants.hexdigest()[:8]}")
    templates = [marked for module_name in dict.fromkeys([LOOP_MODULE, CHOICE_MODULE] + modules)
                 for marked in _TEMPLATES.get(module_name, [])]
    namespaces = []
    for function, compile_as in templates:
        namespace = dict(function.__globals__)
        copy = types.FunctionType(function.__code__, namespace, function.__name__,
                                  function.__defaults__)
        copy.__qualname__ = f"{function.__name__}_{suffix}"
        bindings[function.__name__] = compile_as(copy)
        namespaces.append(namespace)
    for i, player_kernel in enumerate(KERNELS):
        module_name, _, function_name = player_kernel.partition(":")
        chooser = getattr(importlib.import_module(module_name), function_name)
        bindings[f"player_kernel_{i}"] = bindings.get(function_name, chooser)  # its copy
    switch = player_switch(KERNELS, only)
    switch.__globals__.update({name: value for name, value in bindings.items()
                               if name.startswith("player_kernel_")})
    bindings["player_choose"] = kernel(inline="always")(switch)
    for namespace in namespaces:  # numba reads the globals when it compiles, on first call
        namespace.update(bindings)
    return Entries(**{name: bindings[name] for name in Entries.__dataclass_fields__
                      if name in bindings})
