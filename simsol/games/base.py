"""What a game module declares: its deck, options, presets, layout, move kinds and kernels."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from simsol.cards import DeckSpec
from simsol.rules import Option


def no_extra_checks(values: dict[str, Any]) -> None:
    """Default rule-combination check: every combination of valid values is allowed."""


@dataclass(frozen=True)
class Game:
    """A game: rules as data plus the three compiled functions the shared loop calls.

    ``piles`` names every pile of the state array in index order (the display groups them by the
    part before the first digit: ``tableau1``, ``tableau2`` ... form one row).
    ``foundation_piles`` are the indices whose cards count as played out; ``var_names`` names the
    game's own counters in ``vars`` so hand-written positions can set them.  ``rules_version``
    goes into every rules id (``@r2``): raise it when a change to the game's rules changes its
    results.
    """

    name: str
    title: str
    source: str
    deck: DeckSpec
    options: tuple[Option, ...]
    presets: dict[str, dict[str, Any]]
    preset_docs: dict[str, str]
    piles: tuple[str, ...]
    capacity: int
    move_kinds: tuple[str, ...]
    greedy_order: tuple[str, ...]
    setup: Callable
    generate: Callable
    apply: Callable
    foundation_piles: tuple[int, ...] = ()
    var_names: dict[str, int] = field(default_factory=dict)
    check_rules: Callable[[dict[str, Any]], None] = field(default=no_extra_checks)
    rules_version: int = 1

    @property
    def n_piles(self) -> int:
        return len(self.piles)

    def option(self, name: str) -> Option:
        return {opt.name: opt for opt in self.options}[name]
