"""Seeded deals: deal *i* of master seed *s* is a pure function of (s, i).

The generator is counter based, so no state is carried from one deal to the next and a deal is
the same whatever the chunking, worker count, backend or machine:

* ``key(s, i) = mix(mix(s) + (i + 1) * G2)`` where ``mix`` is the SplitMix64 finaliser and
  ``G2 = 0xD1B54A32D192ED03``;
* each deal has three independent streams (0: the shuffle of the deal, 1: randomness that
  belongs to the game itself, such as Strata's reshuffles, 2: the player's own random choices);
  word *j* of stream *k* is ``mix(key + (k + 1) * G3 + (j + 1) * G1)`` with ``G1 =
  0x9E3779B97F4A7C15`` and ``G3 = 0xBF58476D1CE4E5B9`` (all arithmetic modulo 2**64);
* the deal is an unbiased Fisher–Yates shuffle of the unshuffled deck (cards in id order): for
  ``i = n-1 .. 1`` swap position ``i`` with ``j`` uniform on ``0..i``, where ``j`` is drawn by
  masking a word to the next power of two above ``i`` and rejecting values above ``i``.

Because the game and the player draw from their own streams, every policy and rule variant is
played on exactly the same deals (common random numbers).
"""

from __future__ import annotations

import numpy as np

from simsol.engine.jit import kernel

G1 = np.uint64(0x9E3779B97F4A7C15)
G2 = np.uint64(0xD1B54A32D192ED03)
G3 = np.uint64(0xBF58476D1CE4E5B9)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
ONE = np.uint64(1)

DEAL_STREAM = 0
GAME_STREAM = 1
POLICY_STREAM = 2
N_STREAMS = 3

MAX_SEED = 2**63 - 1
MAX_DEAL_INDEX = 2**63 - 1


@kernel
def mix(z):
    """The SplitMix64 finaliser: a bijection of 64-bit words with good avalanche."""
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@kernel
def deal_key(seed, index):
    return mix(mix(np.uint64(seed)) + (np.uint64(index) + ONE) * G2)


@kernel
def init_streams(rng, seed, index):
    """Fill ``rng`` (uint64[2 * N_STREAMS]: key, counter per stream) for deal ``index``."""
    key = deal_key(seed, index)
    for stream in range(N_STREAMS):
        rng[2 * stream] = key + np.uint64(stream + 1) * G3
        rng[2 * stream + 1] = np.uint64(0)


@kernel
def next_word(rng, stream):
    rng[2 * stream + 1] += ONE
    return mix(rng[2 * stream] + rng[2 * stream + 1] * G1)


@kernel
def below(rng, stream, bound):
    """Uniform integer on 0..bound-1 by masking and rejection (no modulo bias)."""
    top = np.uint64(bound - 1)
    mask = top
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    mask |= mask >> np.uint64(32)
    while True:
        value = next_word(rng, stream) & mask
        if value <= top:
            return np.int64(value)


@kernel
def shuffle(cards, length, rng, stream):
    """Unbiased Fisher–Yates over the first ``length`` entries of ``cards``, in place."""
    for i in range(length - 1, 0, -1):
        j = below(rng, stream, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@kernel
def deal_into(deck, unshuffled, rng, seed, index):
    """Write deal ``index`` of ``seed`` into ``deck`` and leave ``rng`` ready for that deal."""
    init_streams(rng, seed, index)
    for i in range(deck.shape[0]):
        deck[i] = unshuffled[i]
    shuffle(deck, deck.shape[0], rng, DEAL_STREAM)


def deal(unshuffled: np.ndarray, seed: int, index: int) -> np.ndarray:
    """Deal ``index`` of master seed ``seed`` as a new array (cards in dealing order)."""
    deck = np.empty_like(unshuffled)
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    deal_into(deck, unshuffled, rng, seed, index)
    return deck
