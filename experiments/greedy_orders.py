"""How far can greedy go by its order of move kinds alone?  (issue 16's greedy targets)

    python experiments/greedy_orders.py strata --deals 20000            # every order (6! = 720)
    python experiments/greedy_orders.py twelve-by-five --deals 20000 --search moves
    python experiments/greedy_orders.py GAME --preset P --seed S --holdout-deals N
    python experiments/greedy_orders.py strata --ties-by listed       # ties by listed order

Greedy plays the first allowed move in a priority order over the game's move kinds (of several
of one kind, the one its tie rule rates best: the game's ``GREEDY_TIES``, or ``--ties-by``).
This plays greedy under other orders on the same training deals (``--seed``) and prints the best
ones: every order of the kinds (``--search all``, for games with few kinds), or a local search from
the game's own order that moves one kind to another place while that wins more (``--search moves``).
The best order found is then played on held-out deals (``--holdout-seed``) beside the game's own,
paired, so a lucky order on the training deals does not pass for a better one.
"""

from __future__ import annotations

import argparse
import itertools
import sys

import simsol
from simsol.games import game_names, get_game
from simsol.rules import SimsolError
from simsol.stats import paired_difference, wilson

TIES_BY: dict = {}  # greedy's tie rule when --ties-by is given (else the game's)


def win_rate(game: str, preset: str | None, order, deals: int, seed: int):
    result = simsol.simulate(game, preset=preset, policy="greedy", deals=deals, seed=seed,
                             policy_options={"order": ",".join(order)} | TIES_BY, workers=1)
    return result.data["won"]


def moves_search(game, preset, start, deals, seed):
    """Move one kind to another place while that wins more; every order tried, with its rate."""
    tried = {tuple(start): win_rate(game, preset, start, deals, seed).mean()}
    current, best = list(start), tried[tuple(start)]
    improved = True
    while improved:
        improved = False
        for i, j in itertools.permutations(range(len(current)), 2):
            order = current[:]
            order.insert(j, order.pop(i))
            if tuple(order) not in tried:
                tried[tuple(order)] = win_rate(game, preset, order, deals, seed).mean()
                if tried[tuple(order)] > best:
                    current, best, improved = order, tried[tuple(order)], True
                    print(f"  {best:.4%}  {' > '.join(current)}", flush=True)
    return tried


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", help=f"one of {', '.join(game_names())}")
    parser.add_argument("--preset", default=None, help="the game's preset (default: book)")
    parser.add_argument("--deals", type=int, default=20_000, help="training deals per order")
    parser.add_argument("--seed", type=int, default=0, help="the training deals' seed")
    parser.add_argument("--holdout-deals", type=int, default=100_000,
                        help="held-out deals for the best order against the game's")
    parser.add_argument("--holdout-seed", type=int, default=1)
    parser.add_argument("--search", choices=("all", "moves"), default="all",
                        help="every order of the kinds, or moves of one kind from the game's")
    parser.add_argument("--top", type=int, default=10, help="how many orders to print")
    parser.add_argument("--ties-by", default=None,
                        help="greedy's tie rule: listed, or a feature (default: the game's)")
    args = parser.parse_args(argv)
    if args.ties_by is not None:
        TIES_BY["ties_by"] = args.ties_by
    try:
        if args.deals <= 0 or args.holdout_deals <= 0:
            raise SimsolError("--deals and --holdout-deals must be positive")
        game = get_game(args.game)
        start = list(game.greedy_order)
        if args.search == "all":
            tried = {order: win_rate(args.game, args.preset, order, args.deals, args.seed).mean()
                     for order in itertools.permutations(start)}
        else:
            tried = moves_search(args.game, args.preset, start, args.deals, args.seed)
    except SimsolError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    ranked = sorted(tried.items(), key=lambda item: -item[1])
    print(f"{len(tried)} orders on {args.deals:,} deals (seed {args.seed}); the game's own: "
          f"{tried[tuple(start)]:.4%}")
    for order, rate in ranked[:args.top]:
        print(f"  {rate:.4%}  {' > '.join(order)}")
    best = ranked[0][0]
    own = win_rate(args.game, args.preset, start, args.holdout_deals, args.holdout_seed)
    new = win_rate(args.game, args.preset, best, args.holdout_deals, args.holdout_seed)
    diff, low, high = paired_difference(new, own)
    for name, won in (("the game's order", own), ("the best order", new)):
        lo, hi = wilson(int(won.sum()), len(won))
        print(f"held out ({args.holdout_deals:,} deals, seed {args.holdout_seed}), {name}: "
              f"{won.mean():.3%} ({lo:.3%}-{hi:.3%})")
    print(f"paired, best - game's: {100 * diff:+.3f} points "
          f"({100 * low:+.3f} to {100 * high:+.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
