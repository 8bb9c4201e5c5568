"""A digest of the records of every game x preset x policy, to show a refactor changed nothing.

    python benchmarks/records_digest.py --deals 100000 > after.txt    # in the new tree
    python benchmarks/records_digest.py --deals 100000 > before.txt   # in the old one
    diff before.txt after.txt

Each line is one cell: game, preset, policy, deals, wins and a SHA-256 of its records (every
column of every deal), so two trees agree on a line only if they played every deal alike.
The searching players play ``--search-deals`` deals (they are slow).
"""

from __future__ import annotations

import argparse
import hashlib

import simsol
from simsol.games import game_names, get_game
from simsol.policies import BUILT_IN


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--search-deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    args = parser.parse_args()
    for game in args.game or game_names():
        for preset in get_game(game).presets:
            for policy, config in BUILT_IN.items():
                searching = config.player.searching if hasattr(config, "player") else (
                    config.base == "lookahead")
                deals = args.search_deals if searching else args.deals
                result = simsol.simulate(game, preset=preset, policy=policy, deals=deals,
                                         seed=args.seed)
                digest = hashlib.sha256(result.data.tobytes()).hexdigest()[:16]
                print(f"{game} {preset} {policy} {deals} {result.wins} {digest}", flush=True)


if __name__ == "__main__":
    main()
