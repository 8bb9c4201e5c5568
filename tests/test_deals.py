"""Seeded deals: pinned by a golden deal, by an independent re-implementation of the documented
algorithm, and checked for bias."""

from __future__ import annotations

import numpy as np
import pytest

from simsol.cards import DOUBLE, PIQUET_PAIR, STANDARD, cards_text
from simsol.engine.streams import deal

MASK = 2**64 - 1
G1, G2, G3 = 0x9E3779B97F4A7C15, 0xD1B54A32D192ED03, 0xBF58476D1CE4E5B9


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def reference_deal(cards, seed, index):
    """The algorithm as the README and simsol.engine.streams describe it, in plain integers."""
    key = mix((mix(seed) + (index + 1) * G2) & MASK)
    stream_key = (key + 1 * G3) & MASK
    counter = 0
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        mask = (1 << i.bit_length()) - 1
        while True:
            counter += 1
            value = mix((stream_key + counter * G1) & MASK) & mask
            if value <= i:
                break
        deck[i], deck[value] = deck[value], deck[i]
    return deck


def test_golden_deal():
    assert cards_text(deal(STANDARD.cards(), 1, 0)) == (
        "J♠ 7♦ A♣ 3♠ 5♦ 10♥ 6♠ 2♣ 10♦ 2♦ 4♠ 4♣ 2♠ 10♠ 4♥ 9♥ 9♦ 10♣ J♣ 8♥ 6♣ 5♣ K♥ J♥ Q♦ 2♥ "
        "Q♠ Q♣ 7♥ K♠ 5♥ 6♥ 4♦ A♠ 5♠ 8♦ 3♦ 3♣ 7♣ J♦ 9♣ K♦ 8♠ 7♠ K♣ 6♦ 8♣ A♦ Q♥ 3♥ 9♠ A♥")


@pytest.mark.parametrize("spec", [STANDARD, DOUBLE, PIQUET_PAIR])
@pytest.mark.parametrize("seed,index", [(0, 0), (1, 1), (2026, 17), (2**63 - 1, 10**12)])
def test_matches_the_documented_algorithm(spec, seed, index):
    cards = spec.cards()
    assert list(deal(cards, seed, index)) == reference_deal([int(c) for c in cards], seed, index)


def test_a_deal_is_a_permutation_and_depends_on_seed_and_index():
    cards = DOUBLE.cards()
    a = deal(cards, 3, 5)
    assert sorted(a) == sorted(cards)
    assert not np.array_equal(a, deal(cards, 3, 6))
    assert not np.array_equal(a, deal(cards, 4, 5))
    assert np.array_equal(a, deal(cards, 3, 5))


def test_every_card_lands_in_every_place_about_equally_often():
    """Chi-square on where the ace of spades lands over 20,000 deals (52 places)."""
    cards = STANDARD.cards()
    counts = np.zeros(52)
    for i in range(20_000):
        counts[int(np.flatnonzero(deal(cards, 9, i) == 0)[0])] += 1
    expected = 20_000 / 52
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 90  # 51 degrees of freedom: the 99.9% point is about 87.97
