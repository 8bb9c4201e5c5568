"""The shared pile kernels' packed helpers (engine/piles.py), checked against their plain
definitions."""

from __future__ import annotations

import numpy as np
import pytest

from simsol.engine.piles import (
    ALTERNATE_COLOURS,
    ANY_SUIT,
    NO_KEY,
    SAME_SUIT,
    build_key,
    top_key,
    tops_keys,
)


@pytest.mark.parametrize("build", [ALTERNATE_COLOURS, SAME_SUIT, ANY_SUIT])
def test_tops_keys_holds_every_columns_top_key_up_to_twenty_columns(build):
    """The move listing's packed tops (engine/piles.py ``tops_keys``): each of 20 columns' lane is
    its top's ``build_key``, or ``NO_KEY`` where the top is face down, the column empty or
    closed, and the mask has exactly the keys offered."""
    rng = np.random.default_rng(7)
    nt, t0 = 20, 3
    piles = np.zeros((t0 + nt, 52), dtype=np.uint8)
    lens = np.zeros(t0 + nt, dtype=np.int64)
    down = np.zeros(t0 + nt, dtype=np.int64)
    for p in range(t0, t0 + nt):
        lens[p] = rng.integers(0, 4)
        down[p] = rng.integers(0, lens[p] + 1)
        piles[p, :lens[p]] = rng.choice(104, lens[p], replace=False)
    closed = 1 << 4 | 1 << 15
    mask, keys = tops_keys(piles, lens, down, t0, nt, build, closed)
    expected_mask = 0
    for i in range(nt):
        p = t0 + i
        offers = lens[p] > down[p] and not (closed >> i) & 1
        key = build_key(piles[p, lens[p] - 1], build) if offers else NO_KEY
        assert top_key(keys, i) == key, (i, lens[p], down[p])
        expected_mask |= (1 << key) if offers else 0
    assert mask == expected_mask
