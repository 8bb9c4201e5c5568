"""Deals per CPU-second of one game and policy in this process, for before/after comparisons of
two checkouts on a noisy machine (CPU time, one worker, the best of three runs):

    cd OLD && PYTHONPATH=$PWD SIMSOL_CACHE_DIR=/tmp/old \
        python benchmarks/compare_checkouts.py klondike greedy 100000
    cd NEW && PYTHONPATH=$PWD python benchmarks/compare_checkouts.py klondike greedy 100000

Prints one JSON line: the rate, the mean moves per deal and the win rate (so a change in how
long games are is told apart from a change in the cost of a move).
"""

from __future__ import annotations

import json
import sys
import time

import simsol


def main(game: str, policy: str, deals: int) -> dict:
    simsol.simulate(game, policy=policy, deals=500, workers=1)  # compile and warm up
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        result = simsol.simulate(game, policy=policy, deals=deals, workers=1)
        best = min(best, time.process_time() - started)
    return {"game": game, "policy": policy, "rate": deals / best,
            "moves": float(result.data["moves"].mean()), "win": result.win_rate}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], int(float(sys.argv[3])))))
