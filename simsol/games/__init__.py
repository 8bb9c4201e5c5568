"""The registry of games: name -> module holding a ``GAME`` object, imported on first use."""

from __future__ import annotations

import importlib

from simsol.rules import unknown

GAME_MODULES = {
    "klondike": "simsol.games.klondike",
    "elevens": "simsol.games.elevens",
    "canfield": "simsol.games.canfield",
    "strata": "simsol.games.strata",
    "letter-t": "simsol.games.letter_t",
    "twelve-by-five": "simsol.games.twelve_by_five",
    "black-harp": "simsol.games.black_harp",
    "grandmas-patience": "simsol.games.grandmas_patience",
    "little-piano": "simsol.games.little_piano",
    "diplomatic": "simsol.games.diplomatic",
}


def game_names() -> list[str]:
    return list(GAME_MODULES)


def get_game(name: str):
    """The ``Game`` called ``name``; an unknown name is a one-line error with a suggestion."""
    if name not in GAME_MODULES:
        raise unknown("game", name, GAME_MODULES)
    return importlib.import_module(GAME_MODULES[name]).GAME
