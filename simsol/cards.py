"""Cards as small integers, the decks the ten games use, and the text notation for them.

A card is one byte: ``id = pack * 52 + suit * 13 + (rank - 1)`` with ranks A=1 .. K=13 and
suits in the order spades, hearts, clubs, diamonds, so a card is red exactly when its suit is
odd.  Two physical copies of the same card (two-pack games) have different ids and the same
*face* (``id % 52``); the piquet deck is the 52-card encoding with ranks 2-6 left out, so every
kernel reads rank, suit and colour the same way whatever the deck.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SUITS = "♠♥♣♦"
SUITS_ASCII = "SHCD"
RANK_NAMES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
HIDDEN = "##"

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
PIQUET_RANKS = (1, 7, 8, 9, 10, 11, 12, 13)
FULL_RANKS = tuple(range(1, 14))


def rank_of(card: int) -> int:
    """Rank 1 (ace) .. 13 (king) of a card id."""
    return card % 13 + 1


def suit_of(card: int) -> int:
    """Suit index 0..3 (spades, hearts, clubs, diamonds) of a card id."""
    return (card % 52) // 13


def is_red(card: int) -> bool:
    return suit_of(card) % 2 == 1


def make_card(rank: int, suit: int, pack: int = 0) -> int:
    return pack * 52 + suit * 13 + rank - 1


@dataclass(frozen=True)
class DeckSpec:
    """Which cards a game uses: the ranks of each suit and how many packs are mixed."""

    packs: int = 1
    ranks: tuple[int, ...] = FULL_RANKS

    @property
    def size(self) -> int:
        return self.packs * 4 * len(self.ranks)

    def cards(self) -> np.ndarray:
        """The unshuffled deck: every physical card once, in id order."""
        ids = [
            make_card(rank, suit, pack)
            for pack in range(self.packs)
            for suit in range(4)
            for rank in self.ranks
        ]
        return np.array(ids, dtype=np.uint8)


STANDARD = DeckSpec()
DOUBLE = DeckSpec(packs=2)
PIQUET_PAIR = DeckSpec(packs=2, ranks=PIQUET_RANKS)


def card_text(card: int, ascii: bool = False) -> str:
    """``10♥``, ``K♠`` (or ``10H``, ``KS`` with ``ascii=True``)."""
    suits = SUITS_ASCII if ascii else SUITS
    return RANK_NAMES[rank_of(card)] + suits[suit_of(card)]


def cards_text(cards, ascii: bool = False) -> str:
    return " ".join(card_text(int(c), ascii) for c in cards)


_RANK_LOOKUP = {name: rank for rank, name in enumerate(RANK_NAMES) if name}
_RANK_LOOKUP.update({"T": 10, "1": ACE})
_SUIT_LOOKUP = {s: i for i, s in enumerate(SUITS)}
_SUIT_LOOKUP.update({s: i for i, s in enumerate(SUITS_ASCII)})
_SUIT_LOOKUP.update({s.lower(): i for i, s in enumerate(SUITS_ASCII)})


def parse_card(text: str, pack: int = 0) -> int:
    """Parse ``10♥``, ``TH``, ``10h``, ``K♠`` into a card id (of the given pack)."""
    token = text.strip()
    if len(token) < 2 or token[:-1].upper() not in _RANK_LOOKUP or token[-1] not in _SUIT_LOOKUP:
        raise ValueError(f"not a card: {text!r} (write e.g. 10♥, K♠, TH or QS)")
    return make_card(_RANK_LOOKUP[token[:-1].upper()], _SUIT_LOOKUP[token[-1]], pack)


def parse_cards(text: str) -> list[int]:
    """Parse a space-separated list of cards; a repeated card becomes the next pack's copy."""
    seen: dict[int, int] = {}
    cards = []
    for token in text.split():
        face = parse_card(token)
        pack = seen.get(face, 0)
        seen[face] = pack + 1
        cards.append(face + 52 * pack)
    return cards
