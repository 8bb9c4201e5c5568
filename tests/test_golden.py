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
CASES = [(game, policy, deal) for game in game_names() for policy in ("greedy", "random")
         for deal in (0, 1)]


@pytest.mark.parametrize("game,policy,deal", CASES)
def test_golden_trace(game, policy, deal):
    text = trace_text(trace(game, policy=policy, seed=2026, deal=deal), ascii=True)
    path = GOLDEN / f"{game}-{policy}-{deal}.txt"
    if os.environ.get("SIMSOL_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text)
        if not os.environ.get("SIMSOL_UPDATE_GOLDEN"):
            pytest.fail(f"wrote a new golden file {path.name}: check it and commit it")
    assert text == path.read_text()
