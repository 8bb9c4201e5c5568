"""Little Piano («Малое фортепиано», Mendelev; RULES.md §6): ten original cards, each on a sealed
pack, two packs, one pass and the last reserve.  The rules are the shared ones in
:mod:`simsol.games.sealed_packs`.

[rebuilt] The book's text begins after the layout, so the deal is reconstructed: from its own
words, "one of the ten original cards" (ten columns) and a "sealed" pack that is unsealed when
the place under it is freed (face-down cards under each original card); from Diplomatic ("all
rules as in Little Piano", eight aces, two packs) the deck and foundations.  The size of a sealed
pack is not in what survives: option ``pack``, 3 by default (RULES.md's reading), 2 and 4 as
presets.  Dealt as: the ten packs, then an original card face up on each; the rest is the stock.
"""

from __future__ import annotations

from simsol.engine.jit import kernel
from simsol.engine.piles import deal_stock
from simsol.games.sealed_packs import (
    NT,
    PACKLESS,
    R_PACK,
    SHARED_OPTIONS,
    STOCK_PILE,
    T0,
    sealed_pack_game,
)
from simsol.rules import Option

NAME = "little-piano"
TITLE = "Little Piano («Малое фортепиано»)"
OPTIONS = SHARED_OPTIONS + (
    Option("pack", 3, "face-down cards in each sealed pack [rebuilt: the text giving the number "
           "is lost]", values=tuple(range(10))),
)
PRESETS = {"book": {}, "pack2": {"pack": 2}, "pack4": {"pack": 4}}
PRESET_DOCS = {
    "book": "sealed packs of 3 under the ten original cards, one pass, then the last reserve",
    "pack2": "sealed packs of 2",
    "pack4": "sealed packs of 4",
}


@kernel
def setup(deck, rules, pos, rng):
    """A sealed pack of ``pack`` face-down cards per column, then an original card on each."""
    piles, lens, down, vars = pos
    pack = rules[R_PACK]
    dealt = 0
    for p in range(T0, T0 + NT):
        for _ in range(pack):
            piles[p, lens[p]] = deck[dealt]
            lens[p] += 1
            dealt += 1
        down[p] = pack
    for p in range(T0, T0 + NT):
        piles[p, lens[p]] = deck[dealt]
        lens[p] += 1
        dealt += 1
    if pack == 0:
        vars[PACKLESS] = (1 << NT) - 1
    deal_stock(deck, dealt, piles, lens, down, vars, STOCK_PILE)


GAME = sealed_pack_game(globals())
