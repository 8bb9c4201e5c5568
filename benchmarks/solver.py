"""The exact solver's speed, per game: positions per second, the time per deal (mean and 99th
percentile), and the share of deals decided within the budget, on one core.

    python benchmarks/solver.py --game klondike --preset standard --deals 200
    python benchmarks/solver.py --deals 100 --nodes 1000000      # every game's book rules
    python benchmarks/solver.py --game klondike --preset standard --opt restart_nodes=0

``--opt NAME=VALUE`` sets any of the solver's settings (``simsol policies`` lists them), ``--rule
NAME=VALUE`` any of the game's options on top of the preset; ``--per-deal FILE`` writes each
deal's verdict, positions and time as CSV, to compare two runs deal by deal.

Each deal is solved on its own (``solve_deal``: the search, without playing the line), timed
from Python; the first deal of a game is solved once before timing so compilation is left out.
Prints one Markdown row per game.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simsol.engine.solver import VERDICTS, deal_solver
from simsol.games import game_names


def bench(game_name: str, preset: str, deals: int, seed: int, options: dict,
          rules: dict | None = None, per_deal=None) -> dict:
    solve = deal_solver(game_name, preset, options, rules)
    solve(seed, 0)  # compiled (or loaded) before the clock starts
    seconds, nodes, verdicts = [], [], []
    for deal in range(deals):
        started = time.perf_counter()
        verdict, visited, _ = solve(seed, deal)
        seconds.append(time.perf_counter() - started)
        verdicts.append(verdict)
        nodes.append(visited)
        if per_deal is not None:
            per_deal.write(f"{game_name},{seed},{deal},{verdict},{visited},{seconds[-1]:.4f}\n")
    seconds = np.array(seconds)
    counts = {v: verdicts.count(v) for v in VERDICTS}
    return {"game": game_name, "preset": preset, "deals": deals, **counts,
            "decided": (counts["solvable"] + counts["unsolvable"]) / deals,
            "nodes_per_s": sum(nodes) / seconds.sum(), "mean_s": seconds.mean(),
            "p99_s": float(np.percentile(seconds, 99))}


def pairs(items: list[str]) -> dict[str, str]:
    """``NAME=VALUE`` arguments as a dict (the values parsed later, as the CLI parses them)."""
    return dict(item.partition("=")[::2] for item in items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--preset", default="book")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--nodes", type=int, default=None, help="the budget per deal")
    parser.add_argument("--table-mb", type=int, default=None)
    parser.add_argument("--opt", action="append", default=[], metavar="NAME=VALUE",
                        help="a solver setting (repeatable), as --policy-opt takes it")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option on top of the preset (repeatable), as simsol run "
                             "takes it")
    parser.add_argument("--per-deal", type=argparse.FileType("w"), metavar="FILE",
                        help="also write each deal's verdict, positions and seconds there (CSV), "
                             "to compare two runs deal by deal")
    args = parser.parse_args()
    if args.per_deal:
        args.per_deal.write("game,seed,deal,verdict,positions,seconds\n")
    options = {k: v for k, v in (("nodes", args.nodes), ("table_mb", args.table_mb)) if v}
    options.update(pairs(args.opt))
    rules = pairs(args.rule)
    print("| game | preset | deals | solvable | unsolvable | unknown | decided | positions/s "
          "| mean s/deal | p99 s/deal |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for game in args.game or game_names():
        row = bench(game, args.preset, args.deals, args.seed, options, rules or None,
                    args.per_deal)
        print(f"| {row['game']} | {row['preset']} | {row['deals']} | {row['solvable']} | "
              f"{row['unsolvable']} | {row['unknown']} | {100 * row['decided']:.1f}% | "
              f"{row['nodes_per_s']:,.0f} | {row['mean_s']:.3f} | {row['p99_s']:.3f} |",
              flush=True)


if __name__ == "__main__":
    main()
