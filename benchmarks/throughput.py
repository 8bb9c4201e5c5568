"""Deals per second per game, preset and policy on this machine, and the speed-up over plain Python.

    python benchmarks/throughput.py                      # every game, preset and policy
    python benchmarks/throughput.py --game klondike --preset book --policy greedy --deals 1000000
    python benchmarks/throughput.py --python-deals 200    # also time the same deals without JIT
    python benchmarks/throughput.py --policy hop --preset book --search-deals 20 --workers 1

Each row is timed after a warm-up run (compilation excluded), over all cores unless --workers
says otherwise.  The plain-Python column plays the first --python-deals deals with numba's JIT
switched off (NUMBA_DISABLE_JIT=1, in a subprocess), checks that they give the very same records,
and reports the ratio of the two rates.  Results go to benchmarks/results/throughput.csv.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import simsol
from simsol.games import game_names, get_game
from simsol.policies import BUILT_IN, POLICY_DOCS  # every built-in policy

RESULTS = Path(__file__).parent / "results"


def plain_python(game: str, preset: str, policy: str, deals: int, seed: int) -> tuple[float, list]:
    """Deals/s and records of the same deals with the JIT off (run in a fresh interpreter)."""
    code = (
        "import json,time,warnings,simsol; warnings.simplefilter('ignore');"
        f"t=time.perf_counter(); r=simsol.simulate({game!r}, preset={preset!r}, "
        f"policy={policy!r}, deals={deals}, seed={seed}, workers=1);"
        "print(json.dumps([r.deals/(time.perf_counter()-t), r.data.tolist()]))"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    rate, records = json.loads(out.stdout.strip().splitlines()[-1])
    return rate, [tuple(r) for r in records]


def bench_row(game, preset, policy, deals, seed, workers, python_deals, search_deals):
    searching = BUILT_IN[policy].player.searching if policy in BUILT_IN else False
    if searching:  # a search plays thousands of moves per move: far fewer deals
        deals, python_deals = search_deals, min(python_deals, 2)
    simsol.simulate(game, preset=preset, policy=policy, deals=min(deals, 2 if searching else 2000),
                    seed=seed, workers=workers)  # warm-up: compile and fork once
    started = time.perf_counter()
    result = simsol.simulate(game, preset=preset, policy=policy, deals=deals, seed=seed,
                             workers=workers)
    seconds = time.perf_counter() - started
    row = {"game": game, "preset": preset, "policy": policy, "deals": deals,
           "workers": workers, "seconds": round(seconds, 3),
           "deals_per_s": round(deals / seconds), "win_rate": result.win_rate}
    if python_deals:
        rate, records = plain_python(game, preset, policy, python_deals, seed)
        jit_records = [tuple(r) for r in result.data[:python_deals].tolist()]
        row["python_deals_per_s"] = round(rate, 1)
        row["speedup"] = round(row["deals_per_s"] / rate)
        row["same_records"] = records == jit_records
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="a game (repeatable; default: all)")
    parser.add_argument("--preset", action="append", help="a preset (default: all)")
    parser.add_argument("--policy", action="append", help="a policy (default: all)")
    parser.add_argument("--deals", type=int, default=200_000, help="deals per row")
    parser.add_argument("--search-deals", type=int, default=40,
                        help="deals per row of the searching players (lookahead, peeking, hop, "
                             "solver), which play a deal in milliseconds to seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--python-deals", type=int, default=0,
                        help="also play this many deals with the JIT off, for the ratio")
    args = parser.parse_args(argv)
    rows = []
    for game in args.game or game_names():
        for preset in args.preset or list(get_game(game).presets):
            for policy in args.policy or list(POLICY_DOCS):
                row = bench_row(game, preset, policy, args.deals, args.seed, args.workers,
                                args.python_deals, args.search_deals)
                print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
                rows.append(row)
    RESULTS.mkdir(exist_ok=True)
    frame = pd.DataFrame(rows)
    path = RESULTS / "throughput.csv"
    frame.to_csv(path, index=False)
    print(frame.to_string(index=False))
    print(f"written {path}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
