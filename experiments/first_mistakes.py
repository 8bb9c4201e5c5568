"""Where does a player lose a deal it could have won?  Ask the solver.

    python experiments/first_mistakes.py klondike --preset standard --policy tuned \\
        --policy-opt weight.strands=0 --seed 5 --deals 300

For each deal the player loses, the solver (which sees every card) judges the start; when it
proves the deal winnable, a bisection over the player's line finds the first move after which
the position is no longer winnable (a position after an unwinnable one is unwinnable too, so
the verdicts along the line are monotone). The tally of those moves' kinds shows which kind of
decision costs the player its games: the place to look for the feature a heuristic lacks. Deals
where the solver's budget runs out on a position it needs are counted as undecided, never
guessed.
"""

from __future__ import annotations

import argparse
import collections
import sys
from concurrent.futures import ProcessPoolExecutor

from tqdm import tqdm

from simsol.games import game_names, get_game
from simsol.positions import play_out
from simsol.rules import SimsolError
from simsol.trace import trace


def first_mistake(task: dict) -> dict:
    """The deal's outcome: won, not winnable at the start, undecided, or the first losing move."""
    game, deal = get_game(task["game"]), task["deal"]
    line = trace(task["game"], preset=task["preset"], policy=task["policy"], seed=task["seed"],
                 deal=deal, policy_options=task["policy_options"])
    if line.won:
        return {"deal": deal, "outcome": "won"}

    def verdict(step: int) -> str:
        end, _ = play_out(game, line.position(step), policy="solver", preset=task["preset"],
                          policy_options={"nodes": task["nodes"]})
        return end

    start = verdict(0)
    if start != "won":
        return {"deal": deal, "outcome": "not winnable" if start == "unsolvable" else "undecided"}
    winnable, lost = 0, len(line.moves)  # the last step known winnable, the first known lost
    while lost - winnable > 1:
        middle = (winnable + lost) // 2
        judged = verdict(middle)
        if judged == "won":
            winnable = middle
        elif judged == "unsolvable":
            lost = middle
        else:
            return {"deal": deal, "outcome": "undecided"}
    return {"deal": deal, "outcome": "mistake", "step": winnable,
            "kind": line.moves[winnable].kind, "position": line.render(winnable, ascii=True)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1].strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", help="one of: " + ", ".join(game_names()))
    parser.add_argument("--preset", default=None, help="a preset of the game's rules")
    parser.add_argument("--policy", default="tuned", help="the player to examine (default tuned)")
    parser.add_argument("--policy-opt", action="append", default=[], metavar="KEY=VALUE",
                        help="change a policy setting, as in simsol run")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--deals", type=int, default=300, help="deals 0..N-1 (default 300)")
    parser.add_argument("--nodes", type=int, default=200_000,
                        help="the solver's budget per position (default 200,000)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=0, help="print the first N mistakes' positions")
    args = parser.parse_args(argv)
    try:
        from simsol.policies import parse_value
        options = {}
        for item in args.policy_opt:
            key, sep, value = item.partition("=")
            if not sep:
                raise SimsolError(f"bad --policy-opt {item!r}; write it as KEY=VALUE")
            options[key.strip()] = parse_value(value)
        if args.deals < 1 or args.workers < 1 or args.nodes < 1:
            raise SimsolError("--deals, --workers and --nodes must be positive")
        get_game(args.game)
        tasks = [{"game": args.game, "preset": args.preset, "policy": args.policy,
                  "policy_options": options or None, "seed": args.seed, "deal": deal,
                  "nodes": args.nodes} for deal in range(args.deals)]
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(tqdm(pool.map(first_mistake, tasks), total=len(tasks), unit="deal"))
    except SimsolError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    outcomes = collections.Counter(r["outcome"] for r in results)
    kinds = collections.Counter(r["kind"] for r in results if r["outcome"] == "mistake")
    print(f"{args.deals} deals: " + ", ".join(f"{n} {k}" for k, n in outcomes.most_common()))
    print("the first losing move, by kind: "
          + ", ".join(f"{kind} {n}" for kind, n in kinds.most_common()))
    for r in [r for r in results if r["outcome"] == "mistake"][:args.show]:
        print(f"\ndeal {r['deal']}, step {r['step']} ({r['kind']}):\n{r['position']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
