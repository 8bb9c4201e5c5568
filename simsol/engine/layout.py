"""The policy array: one float64 array per compiled policy, laid out from the player bases'
declarations.

    [P_MODE] [P_PLANS] [P_KERNEL] [feature weights ...] [the base's own settings ...]
    [a priority per kind ...]

Every base's own settings start at ``P_OWN``: a base declares them (``Setting`` rows in its kernel
module) and ``own_slots`` hands out their slots in declared order, so adding a base or a setting
never renumbers another.  Only one base is compiled into an array, so bases share the slots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

P_MODE = 0  # the simple player's mode (random, greedy or heuristic); see engine/choice.py
P_PLANS = 1  # 1: the player plays a line it planned (the solver): the loop's idle cap is off
P_KERNEL = 2  # which player kernel chooses (its index in players.KERNELS; engine/binder.py)
P_FEATURES = 3
MAX_FEATURES = 16
P_OWN = P_FEATURES + MAX_FEATURES
MAX_OWN = 20
P_PRIORITY = P_OWN + MAX_OWN  # then one slot per move kind
NEVER = -1.0  # a kind's priority when the policy never plays it
NO_FEATURE = "listed"  # a ``feature`` setting's value for none: the moves' listed order


@dataclass(frozen=True)
class Setting:
    """One setting of a player base: its name, default, what it may be, and what it does.

    ``choices`` for names (stored as their index), ``low``/``high`` for whole numbers, ``flag``
    for true/false, ``number`` for any real number, ``feature`` for one of the game's heuristic
    features or ``"listed"`` (stored as 1 or 0; policies.py also sets the feature's weight, since
    which slot it weighs depends on the game).  ``peeks`` marks a flag that, on, lets the player
    read hidden cards: every id of such a policy says so (policies.py)."""

    name: str
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    flag: bool = False
    number: bool = False
    feature: bool = False
    peeks: bool = False

    def encode(self, value) -> float:
        if self.feature:
            return float(value != NO_FEATURE)
        if self.choices:
            return float(self.choices.index(value))
        return float(value)

    def allowed(self) -> str:
        if self.choices:
            return ", ".join(self.choices)
        if self.flag:
            return "true or false"
        if self.number:
            return "a number" if self.low is None else f"a number {self.low}..{self.high}"
        if self.feature:
            return f"{NO_FEATURE} or a heuristic feature of the game (simsol policies GAME)"
        return f"a whole number {self.low}..{self.high}"


def own_slots(settings: tuple[Setting, ...]) -> tuple[int, ...]:
    """The policy-array slots of a base's own settings, in declared order."""
    if len(settings) > MAX_OWN:
        raise ValueError(f"a base has at most {MAX_OWN} settings, got {len(settings)}")
    return tuple(range(P_OWN, P_OWN + len(settings)))
