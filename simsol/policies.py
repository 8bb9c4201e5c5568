"""Player policies as data: each one compiles to a small int64 array the kernels read.

A policy only ever sees the list of legal moves, which the games compute from visible cards,
so no policy can read a face-down card or the order of the stock.

* ``greedy`` plays the first legal move in the game's priority order over move kinds (e.g. to a
  foundation, then moves that turn a face-down card, ..., then the stock) and never plays kinds
  outside that order (pointless shuffles), so it never loops.
* ``random`` picks uniformly among all legal moves, from the deal's own player stream: a
  baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simsol.engine.core import GREEDY, NEVER, RANDOM
from simsol.rules import unknown

POLICY_DOCS = {
    "greedy": "the first legal move in a fixed priority order over move kinds",
    "random": "uniform over all legal moves (a baseline)",
}


@dataclass(frozen=True)
class Policy:
    name: str
    array: np.ndarray

    @property
    def id(self) -> str:
        return self.name


def build_policy(game, name: str) -> Policy:
    """The compiled policy ``name`` for ``game``."""
    if name not in POLICY_DOCS:
        raise unknown("policy", name, POLICY_DOCS)
    kinds = game.move_kinds
    array = np.full(2 + len(kinds), NEVER, dtype=np.int64)
    array[1] = len(kinds)
    if name == "random":
        array[0] = RANDOM
        array[2:] = 0
    else:
        array[0] = GREEDY
        for priority, kind in enumerate(game.greedy_order):
            array[2 + kinds.index(kind)] = priority
    return Policy(name, array)


def policy_summary(game, name: str) -> str:
    """One line describing what ``name`` does in ``game``."""
    if name == "greedy":
        return "greedy: " + " > ".join(game.greedy_order)
    return f"{name}: {POLICY_DOCS[name]}"
