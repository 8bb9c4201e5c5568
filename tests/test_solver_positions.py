"""The exact solver on tiny hand-built positions whose answer is known, for every game.

For each game a position is decided both ways by a rule alone: under one option value it is
solvable (the solver finds the win and plays it through the loop: end "won"), under another it
is unsolvable (every reachable position searched).  Each case carries ``why``: the argument
that its answer is right, independently of the solver.  A position holds the whole deck (the
loop calls a game won when every card is on the foundations), most of it on the foundations.

Cases are listed game by game and run by one parametrized test, so each game's solver kernels
compile once per session.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from simsol.cards import RANK_NAMES, SUITS
from simsol.games import get_game
from simsol.positions import parse_position, play_out

BUDGET = {"nodes": 200_000, "table_mb": 4}
SPADES, HEARTS, CLUBS, DIAMONDS = SUITS
FULL = tuple(range(1, 14))
PIQUET = (1, 7, 8, 9, 10, 11, 12, 13)


def cards(suit: str, ranks) -> str:
    """Cards of one suit, in the order of ``ranks``."""
    return " ".join(RANK_NAMES[r] + suit for r in ranks)


def up_to(suit: str, top: int, order=FULL) -> str:
    """A foundation built up in ``order`` to ``top``: ``up_to(HEARTS, 3)`` is A♥ 2♥ 3♥."""
    return cards(suit, order[: order.index(top) + 1])


def hidden(text: str) -> str:
    return " ".join(f"({card})" for card in text.split())


class Case(NamedTuple):
    game: str
    name: str
    position: str
    rules: dict
    end: str  # "won" (solvable) or "unsolvable"
    why: str


CASES: list[Case] = []


def pair(game, name, position, won_rules, lost_rules, why, preset_won=None):
    """The same position solvable under ``won_rules`` and unsolvable under ``lost_rules``."""
    CASES.append(Case(game, f"{name}-solvable", position, won_rules, "won", why))
    CASES.append(Case(game, f"{name}-unsolvable", position, lost_rules, "unsolvable", why))


# --- Klondike ------------------------------------------------------------------------------
# 7♠ hides 6♥ and 7♥ hides 6♠; the 8s lie under them, and no black or red 8 is free for a 7.
KLONDIKE_SPACE = f"""
foundation1: {up_to(SPADES, 5)}
foundation2: {up_to(HEARTS, 5)}
foundation3: {up_to(CLUBS, 13)}
foundation4: {up_to(DIAMONDS, 13)}
tableau1: (8♥) (6♥) 7♠
tableau2: (8♠) (6♠) 7♥
tableau3: K♠ Q♥ J♠ 10♥ 9♠
tableau4: K♥ Q♠ J♥ 10♠ 9♥
"""
pair("klondike", "space-kings", KLONDIKE_SPACE, {}, {"space": "kings"}, """
Each 7 covers the 6 the other 7 needs, and no 8 or 10 is free to build on, so the only way out
is a 7 into one of the three spaces.  All four Kings are at a pile's root or on a foundation, so
under the book's kings-then-any a space takes any card: 7♠ out, 6♥ up, 7♥ out, 6♠ up, then all.
Under Kings-only spaces nothing but the two King runs can move (into spaces, to no effect).""")
CASES.append(Case("klondike", "space-kings-standard", KLONDIKE_SPACE, {"partial_runs": True,
                  "space": "kings"}, "unsolvable", """
Moving part of a run does not help: every part's card needs a free card one higher of the other
colour, and those (J♣, Q♦, K♣, K♦, 10♦, 10♣) are on the foundations or under the part."""))

# Draw 3, Kings-only spaces, every card up but the hearts from 4; the stock turns Q♥ J♥ K♥ |
# 10♥ 6♥ 5♥ | 4♥ 9♥ 8♥ | 7♥.  4♥ is first reached as a waste top on the second pass, two turns
# after the redeal, and only because K♥ left the waste for a space on the first (the solver's
# stock-turn compression must find a waste card several turns on, across a redeal it counts).
KLONDIKE_STOCK = f"""
foundation1: {up_to(SPADES, 13)}
foundation2: {up_to(HEARTS, 3)}
foundation3: {up_to(CLUBS, 13)}
foundation4: {up_to(DIAMONDS, 13)}
stock: {hidden("7♥ 8♥ 9♥ 4♥ 5♥ 6♥ 10♥ K♥ J♥ Q♥")}
"""
pair("klondike", "waste-card-after-a-redeal", KLONDIKE_STOCK, {"space": "kings", "redeals": 1},
     {"space": "kings", "redeals": 0}, """
Only hearts are left, so nothing builds, and a space takes only K♥.  The first pass shows K♥
(into a space: then J♥ on top, no use), 5♥, 8♥ and 7♥, none wanted while 4♥ is down.  Without a
redeal: lost.  With one, the nine cards left turn Q♥ J♥ 10♥ | 6♥ 5♥ 4♥ | 9♥ 8♥ 7♥: 4♥ 5♥ 6♥
go up, then 7♥ 8♥ 9♥, then 10♥ J♥ Q♥ from the waste, and K♥.  Had K♥ stayed in the waste, the
second pass would show the same cards as the first.""")

# --- Canfield ------------------------------------------------------------------------------
# Base rank 4: the foundations go 4 5 ... K A 2 3, so only a suit's last few cards are left out.
CANFIELD_BASE4 = "vars: base_rank=4"
WRAP4 = (4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1, 2, 3)
CANFIELD_PART = f"""{CANFIELD_BASE4}
foundation1: {up_to(SPADES, 12, WRAP4)}
foundation2: {up_to(HEARTS, 1, WRAP4)}
foundation3: {up_to(CLUBS, 2, WRAP4)}
foundation4: {up_to(DIAMONDS, 3, WRAP4)}
tableau1: K♠ 3♣ 2♥ A♠
tableau2: 3♠
tableau3: 2♠
tableau4: 3♥
"""
pair("canfield", "part-of-a-run", CANFIELD_PART, {"moves": "any-part"}, {"moves": "top-or-whole"},
     """
3♣ (wanted) and then K♠ (wanted) lie under 2♥ A♠; ♠ wants K♠, not A♠, and ♥ wants 2♥, which
A♠ covers.  Moving the part 2♥ A♠ onto 3♠ frees 3♣, K♠,
then A♠, 2♥, 2♠, 3♥, 3♠ go up.  With whole piles or the top card alone: the whole pile 3♣ 2♥ A♠
needs a red 4 (on the foundations), A♠ alone a red 2 (2♦ up, 2♥ under it); 2♠ onto 3♥ is the
only move, and spaces take only reserve or waste cards (both empty).""")
CASES.append(Case("canfield", "part-of-a-run-whole", CANFIELD_PART, {}, "unsolvable",
                  "The book's whole-pile moves: as under top-or-whole, only 2♠ onto 3♥."))
CASES.append(Case("canfield", "part-of-a-run-solvitaire", CANFIELD_PART, {"preset": "solvitaire"},
                  "won", "Solvitaire's preset moves any part of a run."))
CANFIELD_SPACE = f"""{CANFIELD_BASE4}
foundation1: {up_to(SPADES, 1, WRAP4)}
foundation2: {up_to(HEARTS, 1, WRAP4)}
foundation3: {up_to(CLUBS, 3, WRAP4)}
foundation4: {up_to(DIAMONDS, 3, WRAP4)}
tableau2: 2♠ 3♥
tableau3: 2♥ 3♠
"""
pair("canfield", "space-any-card", CANFIELD_SPACE, {"space": "reserve-then-any"},
     {"moves": "any-part"}, """
2♠ (wanted) is under 3♥ and 2♥ (wanted) under 3♠; the 3s need a 4 of the other colour, all on
the foundations.  The reserve, stock and waste are out, so under Solvitaire's space rule any card
may fill a space: 3♥ into one frees 2♠, then 3♠, 2♥, 3♥ go up.  Under the book's rule a space
then takes only the waste top (empty), whatever moves between piles allow.""")
CASES.append(Case("canfield", "space-any-card-reserve-or-waste", CANFIELD_SPACE,
                  {"space": "reserve-or-waste"}, "unsolvable",
                  "Spaces take the reserve or the waste top only, both empty."))

CANFIELD_WORRY = f"""{CANFIELD_BASE4}
foundation1: {up_to(SPADES, 12, WRAP4)}
foundation2: {up_to(HEARTS, 2, WRAP4)}
foundation3: {up_to(CLUBS, 3, WRAP4)}
foundation4: {up_to(DIAMONDS, 3, WRAP4)}
tableau1: K♠ A♠
tableau2: 3♠
tableau3: 3♥
tableau4: 2♠
"""
pair("canfield", "worrying-back", CANFIELD_WORRY, {"worrying_back": True}, {}, """
K♠ (wanted) lies under A♠, which needs a red 2 to go on; both are on the foundations, 2♥ on top
of its own.  Worried back onto 3♠, 2♥ takes A♠: K♠, A♠, 2♥, 3♥, 2♠, 3♠ go up.  Without worrying
back only 3♥ goes up (or 2♠ onto 3♥), spaces take only reserve or waste cards, and A♠ stays.""")

# --- Elevens -------------------------------------------------------------------------------
ELEVENS_REST = " ".join(cards(suit, FULL) for suit in (HEARTS, CLUBS, DIAMONDS))
ELEVENS = f"""
removed: {cards(SPADES, range(1, 11))} {ELEVENS_REST}
slot1: J♠
slot2: Q♠
stock: (K♠)
"""
pair("elevens", "faces", ELEVENS, {"faces": "single"}, {"faces": "triple"}, """
J♠ and Q♠ are face up, K♠ is the stock's last card.  Covered one at a time, J♠ goes (forced),
K♠ fills its slot, then Q♠ and K♠ go.  As a triple, J, Q and K must all be visible at once: K♠
never comes, since only a removal refills a slot.""")

# --- Black Harp ----------------------------------------------------------------------------
# 13 cards, not a multiple of 3: the hand turned every third card shows each of them in turn.
SHUTTLE_HAND = hidden("K♦ Q♦ J♦ K♥ Q♥ J♥ K♠ Q♠ J♠ 10♠ 9♦ 9♥ 8♠")
BLACK_HARP = f"""
foundation1: {up_to(SPADES, 7)}
foundation2: {up_to(HEARTS, 8)}
foundation3: {up_to(CLUBS, 13)}
foundation4: {up_to(DIAMONDS, 8)}
tableau1: 10♥ 9♠
tableau2: 10♦
hand: {SHUTTLE_HAND}
"""
pair("black-harp", "hand-when", BLACK_HARP, {}, {"hand_when": "no-move"}, """
The only tableau move is 9♠ shuttling between 10♥ and 10♦ (a build: it frees no card for a
foundation and turns nothing up; 10♦ waits for 9♦); every card still to go up but 9♠ 10♥ 10♦ is
in the hand, 8♠ first, 13 of them, so every one comes round (with a multiple of 3, only every
third card would).  By the book (the hand once no useful move is left) the hand is turned;
each card that comes up fits a foundation, a King space or a pile, and they all come out.  If
the hand may be used only when nothing at all can move, the shuttle keeps it shut for ever.""")

# --- Grandma's Patience --------------------------------------------------------------------
GRANDMA = f"""
foundation1: {up_to(SPADES, 13)}
foundation2: {up_to(SPADES, 7)}
foundation3: {up_to(HEARTS, 13)}
foundation4: {up_to(HEARTS, 8)}
foundation5: {up_to(CLUBS, 13)}
foundation6: {up_to(CLUBS, 13)}
foundation7: {up_to(DIAMONDS, 13)}
foundation8: {up_to(DIAMONDS, 8)}
tableau1: 10♥ 9♠
tableau2: 10♦
bank: {SHUTTLE_HAND}
"""
pair("grandmas-patience", "bank-when", GRANDMA, {}, {"bank_when": "no-move"}, """
As Black Harp's hand: the columns' only moves shift 9♠ between 10♥, 10♦ and a space (none frees
a card for a foundation or empties a column; 10♦ waits for 9♦), and the cards still to go up are
in the bank, 8♠ turned first.  By the book the bank is drawn: 8♠ into a space and up, 9♠ up,
9♥ and 9♦ likewise, then 10♥ 10♦ and the rest, each into a space first.  If the bank may be
drawn only when no column card can move at all, 9♠ always can, and the bank is never drawn.""")

# --- Little Piano and Diplomatic -----------------------------------------------------------
# The hearts from 4 on: turned one at a time the stock gives 5♥ ... K♥ and then 4♥ (the LAST_FOUR
# of tests/test_solver.py); every column is used up and dealt without a pack, so its place stays
# empty (the book's used_up_column) and nothing can be parked.
RESCUE_STOCK = hidden("4♥ K♥ Q♥ J♥ 10♥ 9♥ 8♥ 7♥ 6♥ 5♥")
SEALED = f"""
foundation1: {up_to(SPADES, 13)}
foundation2: {up_to(SPADES, 13)}
foundation3: {up_to(HEARTS, 13)}
foundation4: {up_to(HEARTS, 3)}
foundation5: {up_to(CLUBS, 13)}
foundation6: {up_to(CLUBS, 13)}
foundation7: {up_to(DIAMONDS, 13)}
foundation8: {up_to(DIAMONDS, 13)}
stock: {RESCUE_STOCK}
vars: packless=1023
"""
SEALED_WHY = """
One pass sends 5♥ ... K♥ to the waste (no column takes them: every place is dead) and 4♥ up,
leaving K♥ on the waste top and 5♥ at its bottom.  With the last reserve the waste is turned over
in order and 5♥ 6♥ 7♥ lie face up, each used one replaced: all go up.  Without it, no move."""
for game in ("little-piano", "diplomatic"):
    pair(game, "last-reserve", SEALED, {}, {"last_reserve": False}, SEALED_WHY)

# --- Strata --------------------------------------------------------------------------------
# Piquet cards, foundations A 7 8 ... K.  One spade and one club foundation are empty; their 16
# cards fill the 8 columns two deep, black on black (nothing builds), the aces under 9s.
STRATA = f"""
foundation1: {up_to(SPADES, 13, PIQUET)}
foundation3: {up_to(HEARTS, 13, PIQUET)}
foundation4: {up_to(HEARTS, 13, PIQUET)}
foundation5: {up_to(CLUBS, 13, PIQUET)}
foundation7: {up_to(DIAMONDS, 13, PIQUET)}
foundation8: {up_to(DIAMONDS, 13, PIQUET)}
tableau1: K♠ Q♠
tableau2: K♣ Q♣
tableau3: J♠ 10♠
tableau4: J♣ 10♣
tableau5: A♠ 9♠
tableau6: A♣ 9♣
tableau7: 7♠ 8♠
tableau8: 7♣ 8♣
"""
pair("strata", "redeal", STRATA, {"redeals": 1, "shuffle_redeal": False},
     {"redeals": 0, "shuffle_redeal": False}, """
All 16 cards are black, so nothing builds; the foundations want the two aces, each under a 9, and
no column is empty: nothing can move.  Gathered column by column (top-row card first) and dealt
again in rows of 8, column j gets the j-th and (j+8)-th cards: K♠ A♠, Q♠ 9♠, K♣ A♣, Q♣ 9♣,
J♠ 7♠, 10♠ 8♠, J♣ 7♣, 10♣ 8♣, and every exposed card goes up in turn.  With no redeal: stuck.""")

# --- The letter T --------------------------------------------------------------------------
LETTER_T = "\n".join(
    [f"ace_base{s + 1}: {up_to(suit, 13)}" for s, suit in enumerate(SUITS) if suit != HEARTS]
    + [f"king_base{s + 1}: {cards(suit, FULL[::-1])}" for s, suit in enumerate(SUITS)]
    + [f"ace_base2: {up_to(HEARTS, 3)}", "aux1: 4♥ K♥ Q♥ J♥ 10♥ 9♥ 8♥ 7♥ 6♥ 5♥"])
pair("letter-t", "redeal", LETTER_T, {"redeals": 1}, {"redeals": 0}, """
The hearts' ace base wants 4♥, at the bottom of aux1 under 5♥ ... K♥; the king bases are full and
the stock is out, so nothing moves.  A redeal gathers aux1 and deals its ten cards one to each
pack: every one free, they go up in order.""")

# --- Twelve by five ------------------------------------------------------------------------
# No space: twelve columns of spades and clubs 3..K, tops 3 5 7 9 J K of each: no top takes
# another (down in suit), and both suits wait for their 2, the stock's last cards.
TWELVE = f"""
foundation1: {up_to(SPADES, 13)}
foundation2: A♠
foundation3: {up_to(HEARTS, 13)}
foundation4: {up_to(HEARTS, 3)}
foundation5: {up_to(CLUBS, 13)}
foundation6: A♣
foundation7: {up_to(DIAMONDS, 13)}
foundation8: {up_to(DIAMONDS, 13)}
tableau1: K♠
tableau2: 4♠ 3♠
tableau3: 6♠ 5♠
tableau4: 8♠ 7♠
tableau5: 10♠ 9♠
tableau6: Q♠ J♠
tableau7: 4♣ 3♣
tableau8: 6♣ 5♣
tableau9: 8♣ 7♣
tableau10: 10♣ 9♣
tableau11: Q♣ J♣
tableau12: K♣
stock: {hidden("2♠ 2♣ 4♥ K♥ Q♥ J♥ 10♥ 9♥ 8♥ 7♥ 6♥ 5♥")}
"""
pair("twelve-by-five", "redeal", TWELVE, {"redeals": 1}, {"redeals": 0}, """
Turned one at a time the stock gives 5♥ ... K♥, then 4♥, 2♣, 2♠.  No column takes a heart and
there is no space, so the hearts end on the waste, rising to K♥ on top; once 4♥ is up the waste
top is never wanted, and the spaces the clubs and spades leave once their 2s are up take only a
card just turned (none is left).  With one redeal the waste is turned over and gives 5♥ ... K♥
in order.  (One space would be enough in one pass: Q♥ into it, the waste built down on it.)""")


def deck_of(game, text) -> list[int]:
    position = parse_position(game, text)
    return sorted(int(c) for p in range(game.n_piles) for c in position.piles[p, :position.lens[p]])


@pytest.mark.parametrize("case", CASES, ids=[f"{c.game}-{c.name}" for c in CASES])
def test_a_hand_built_position_is_decided_as_its_rules_say(case):
    """The solver's verdict is the one each case's ``why`` argues (see CASES): solvable ones are
    won through the ordinary loop, unsolvable ones exhausted well within the budget."""
    game = get_game(case.game)
    assert deck_of(game, case.position) == sorted(int(c) for c in game.deck.cards()), \
        "a position must hold the whole deck, once"
    rules = dict(case.rules)
    preset = rules.pop("preset", None)
    end, final = play_out(game, case.position, policy="solver", preset=preset,
                          rules=rules or None, policy_options=BUDGET)
    assert end == case.end, case.why
    assert final.won == (end == "won")


def test_every_game_has_a_position_decided_both_ways_by_a_rule():
    from simsol.games import game_names
    for name in game_names():
        ends = {c.end for c in CASES if c.game == name}
        assert ends == {"won", "unsolvable"}, name
