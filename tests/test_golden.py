"""Golden games: a few seeded deals per game replayed move by move and diffed against text.

Regenerate after an intended rule or policy change with ``SIMSOL_UPDATE_GOLDEN=1 pytest
tests/test_golden.py`` and read the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from simsol.games import game_names
from simsol.show import trace_text
from simsol.trace import trace

GOLDEN = Path(__file__).parent / "golden"
CASES = [(game, None, policy, deal) for game in game_names() for policy in ("greedy", "random")
         for deal in (0, 1)]
# Deals 0 and 1 of Elevens end at once: these are played out, one per face rule.
CASES += [("elevens", preset, "greedy", deal) for preset, deal in (
    ("book", 15), ("book", 11), ("cells", 6), ("faces-single", 2), ("block-eleven", 182))]


@pytest.mark.parametrize("game,preset,policy,deal", CASES)
def test_golden_trace(game, preset, policy, deal):
    text = trace_text(trace(game, preset=preset, policy=policy, seed=2026, deal=deal), ascii=True)
    name = "-".join(str(part) for part in (game, preset, policy, deal) if part is not None)
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("SIMSOL_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text)
        if not os.environ.get("SIMSOL_UPDATE_GOLDEN"):
            pytest.fail(f"wrote a new golden file {path.name}: check it and commit it")
    assert text == path.read_text()
