"""Binding the shared loop and the players to one game's kernels, with a disk cache per game.

The loop (``engine/loop.py``) and the searching players call a game's kernels by the names
``game_setup``, ``game_generate_stable``, ``game_generate``, ``game_apply`` and
``game_keeps_moves``, and the player's move choice by ``player_choose``.  Functions that do so
are marked ``@template``: they are never compiled as written.  ``bind(game, player)`` makes a
copy of every template for that game and that player kernel, with those names bound to the
real kernels in its globals and a qualified name of its own, and compiles the copies.

Why copies: numba caches a function on disk under its qualified name, and a function that took
the kernels as arguments would put every game's kernels into one cache entry, which numba cannot
write back once another game's kernels are not loaded.  A copy per game (and per player kernel)
has a cache entry of its own and needs no dispatch at run time.
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
              "game_keeps_moves", "game_feature_score", "game_safe_move")


@dataclass(frozen=True)
class Entries:
    """The compiled entry points of one game with one player kernel (see engine/loop.py)."""

    run_batch: Callable
    trace_deal: Callable
    legal_moves: Callable
    pick_move: Callable
    play_position: Callable
    apply_move: Callable
    hash_position: Callable
    solve_deal: Callable | None = None  # the solver's own entry (engine/solver.py), when bound


_BOUND: dict[tuple[str, str], Entries] = {}
LOOP_MODULE = "simsol.engine.loop"
CHOICE_MODULE = "simsol.engine.choice"  # the simple players: every base may roll out with them


def bind(game, player_kernel: str) -> Entries:
    """The entry points for ``game`` with the player kernel ``"module:function"``."""
    key = (game.name, player_kernel)
    if key not in _BOUND:
        _BOUND[key] = _bind(game, player_kernel)
    return _BOUND[key]


def _bind(game, player_kernel: str) -> Entries:
    module_name, _, function_name = player_kernel.partition(":")
    importlib.import_module(LOOP_MODULE)
    importlib.import_module(CHOICE_MODULE)
    player_module = importlib.import_module(module_name)
    bindings: dict[str, object] = {name: getattr(game, name.removeprefix("game_"))
                                   for name in GAME_NAMES}
    bindings["GAME_CARDS"] = game.deck.size
    bindings["GAME_STOCK_MACRO"] = game.stock_turns_commute
    bindings["GAME_HAS_SCRATCH"] = any(slot not in game.state_vars
                                       for slot in game.var_names.values())
    bindings["GAME_PILE_SALTS"] = pile_salts(game.n_piles, game.interchangeable)
    bindings["GAME_STATE_VARS"] = np.array(game.state_vars, dtype=np.int64)
    for name, kinds in (("GAME_NARROW", game.narrow_kinds), ("GAME_PROGRESS", game.progress_kinds)):
        bindings[name] = np.array([kind in kinds for kind in game.move_kinds], dtype=np.uint8)
    # The bound constants are frozen into the machine code, so they name the cached copies too:
    # a game built at run time with other declarations (a test's) never loads another's code.
    constants = hashlib.sha1(repr([(name, np.asarray(value).tolist()) for name, value in
                                   sorted(bindings.items()) if name.isupper()]).encode())
    suffix = re.sub(r"\W", "_", f"{game.name}_{function_name}_{constants.hexdigest()[:8]}")
    templates = list(_TEMPLATES[LOOP_MODULE]) + list(_TEMPLATES[CHOICE_MODULE])
    if module_name not in (LOOP_MODULE, CHOICE_MODULE):
        templates += _TEMPLATES.get(module_name, [])
    namespaces = []
    for function, compile_as in templates:
        namespace = dict(function.__globals__)
        copy = types.FunctionType(function.__code__, namespace, function.__name__,
                                  function.__defaults__)
        copy.__qualname__ = f"{function.__name__}_{suffix}"
        bindings[function.__name__] = compile_as(copy)
        namespaces.append(namespace)
    chooser = getattr(player_module, function_name)
    bindings["player_choose"] = bindings.get(function_name, chooser)
    for namespace in namespaces:  # numba reads the globals when it compiles, on first call
        namespace.update(bindings)
    return Entries(**{name: bindings[name] for name in Entries.__dataclass_fields__
                      if name in bindings})
