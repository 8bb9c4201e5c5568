"""Diplomatic («Дипломатический пасьянс», Mendelev; RULES.md §7): Little Piano's rules (see
:mod:`simsol.games.sealed_packs`) on a Klondike-like deal of ten columns, 9 face-down cards and
a face-up one in the first down to a single face-up card in the last (55 dealt, 49 in the
stock).  The face-down cards of a column are its sealed pack, so the tenth column has none.
The book offers the last reserve as an optional "rescue": presets ``book`` (with it) and
``no-rescue``.
"""

from __future__ import annotations

from simsol.engine.jit import kernel
from simsol.engine.piles import deal_stock
from simsol.games.sealed_packs import (
    NT,
    PACKLESS,
    SHARED_OPTIONS,
    STOCK_PILE,
    T0,
    sealed_pack_game,
)

NAME = "diplomatic"
TITLE = "Diplomatic («Дипломатический пасьянс»)"
OPTIONS = SHARED_OPTIONS
PRESETS = {"book": {}, "no-rescue": {"last_reserve": False}}
PRESET_DOCS = {
    "book": "columns of 9..0 face-down cards under one face-up card, one pass, then the rescue",
    "no-rescue": "one pass through the stock and no last reserve",
}


@kernel
def setup(deck, rules, pos, rng):
    """Column ``i`` (from 0): ``NT - 1 - i`` face-down cards, then one face up."""
    piles, lens, down, vars = pos
    dealt = 0
    for p in range(T0, T0 + NT):
        for _ in range(T0 + NT - p):
            piles[p, lens[p]] = deck[dealt]
            lens[p] += 1
            dealt += 1
        down[p] = lens[p] - 1
    vars[PACKLESS] = 1 << (NT - 1)
    deal_stock(deck, dealt, piles, lens, down, vars, STOCK_PILE)


GAME = sealed_pack_game(globals())
