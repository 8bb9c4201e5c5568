"""Does Elevens come out four deals in five, as the Leeming book says?  (RULES.md §3)

    python experiments/book_claims.py                 # the full run: spec's deals per cell
    python experiments/book_claims.py --quick         # a smoke run: spec's quick_deals per cell
    python experiments/book_claims.py --out DIR       # default results/book_claims/

Reads the spec (experiments/book_claims.toml), plays every cell (game x preset or grid point x
policy) on the same seeded deals with ``simsol.simulate``, and writes to DIR:
``book_claims.csv`` (one row per cell), ``book_claims.md`` (win rate, Wilson 95% interval, and
whether the book's 80% lies inside it or how many percentage points off it is) and
``book_claims.png`` / ``.svg`` (win rate against slots, one line per face rule).
A cell whose rules the game refuses (e.g. faces=block with fewer than 12 slots) is listed with
the reason instead of a win rate.
"""

from __future__ import annotations

import argparse
import itertools
import tomllib
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import simsol
from simsol.games import get_game
from simsol.rules import SimsolError, build_rules

CLAIM = 0.80  # "you will probably win four out of every five deals"
ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "experiments" / "book_claims.toml"


def readings(cell: dict):
    """The (preset, rule overrides) pairs of one [[cells]] entry: its presets, then its grid."""
    for preset in cell.get("presets", []):
        yield preset, {}
    grid = cell.get("grid")
    if grid:
        for values in itertools.product(*grid.values()):
            yield "book", dict(zip(grid, values))
    if not grid and not cell.get("presets"):
        yield "book", {}


def claim_gap(low: float, high: float) -> float:
    """Percentage points from 80% to the interval: 0 inside it, > 0 when the rate is higher."""
    if low > CLAIM:
        return 100 * (low - CLAIM)
    if high < CLAIM:
        return 100 * (high - CLAIM)
    return 0.0


def run(spec: dict, deals: int) -> pd.DataFrame:
    """One row per cell; a reading already played (a preset equal to a grid point) is reused."""
    rows, played, won_by = [], {}, {}
    for cell in spec["cells"]:
        game = get_game(cell["game"])
        for (preset, rules), policy in itertools.product(readings(cell), cell["policies"]):
            name = " ".join(f"{k}={v}" for k, v in rules.items()) or preset
            row = {"game": game.name, "reading": name, "policy": policy}
            try:
                ruleset = build_rules(game, preset, rules)
            except SimsolError as error:
                rows.append(row | {"note": str(error)})
                continue
            key = (game.name, ruleset.values, policy)
            if key not in played:
                print(f"{game.name} {name} {policy}: {ruleset.id}", flush=True)
                result = simsol.simulate(game.name, preset=preset, rules=rules, policy=policy,
                                         deals=deals, seed=spec["seed"], progress=True)
                played[key] = result.table().iloc[0].to_dict()
                won_by[key] = result.data["won"]
            summary = played[key]
            greedy = won_by.get((game.name, ruleset.values, "greedy"), won_by[key])
            rows.append(row | ruleset.as_dict() | {
                "rules": summary["rules"], "deals": summary["deals"], "wins": summary["wins"],
                "win_rate": summary["win_rate"], "ci_low": summary["ci_low"],
                "ci_high": summary["ci_high"],
                "claim_gap_pp": claim_gap(summary["ci_low"], summary["ci_high"]),
                "mean_removed": summary["mean_foundation"],
                "same_deals_won_as_greedy": bool(np.array_equal(greedy, won_by[key])),
                "note": ""})
    frame = pd.DataFrame(rows)
    return frame.astype({"slots": "Int64", "deals": "Int64", "wins": "Int64"})


def verdict(gap: float) -> str:
    if gap == 0:
        return "**80% inside**"
    return f"80% is {abs(gap):.2f} pp {'below' if gap > 0 else 'above'} the interval"


def write_markdown(frame: pd.DataFrame, spec: dict, deals: int, path: Path) -> None:
    played = frame[frame["note"] == ""]
    lines = [f"# {spec['name']}", "", spec["description"], "",
             (f"Seed {spec['seed']}, {deals:,} deals per cell, the same deals in every cell. "
              "Win rates with Wilson 95% intervals; the last column says whether the book's "
              "80% lies inside the interval, or how far outside it is in percentage points."), "",
             "| reading | policy | slots | faces | win rate | 95% interval | the 80% claim |",
             "|---|---|---:|---|---:|---|---|"]
    for _, r in played.iterrows():
        lines.append(f"| {r['reading']} | {r['policy']} | {r['slots']} | {r['faces']} | "
                     f"{100 * r['win_rate']:.2f}% | {100 * r['ci_low']:.2f}-"
                     f"{100 * r['ci_high']:.2f}% | {verdict(r['claim_gap_pp'])} |")
    refused = frame[frame["note"] != ""]
    if len(refused):
        lines += ["", "Not playable:", ""]
        lines += [f"- {r['reading']} ({r['policy']}): {r['note']}" for _, r in refused.iterrows()]
    same = played.loc[played["policy"] != "greedy", "same_deals_won_as_greedy"]
    lines += ["", (f"The other policies won exactly the deals greedy won in {int(same.sum())} "
                   f"of {len(same)} cells (in Elevens the order of moves cannot change the end).")]
    readings = played.drop_duplicates(["slots", "faces"])
    inside = readings.loc[readings["claim_gap_pp"] == 0, "reading"]
    near = readings[abs(100 * readings["win_rate"] - 100 * CLAIM) <= 5]
    lines += ["", "Readings whose interval holds 80%: " + (", ".join(inside) or "none") + ".",
              "Within 5 points of 80% (the book's round \"four in five\"): " + (", ".join(
                  f"{r['reading']} ({100 * r['win_rate']:.2f}%)" for _, r in near.iterrows())
                  or "none") + "."]
    path.write_text("\n".join(lines) + "\n")


def plot(frame: pd.DataFrame, deals: int, out: Path) -> None:
    """Win rate against slots, one line per face rule, the 80% claim across it."""
    points = frame[(frame["note"] == "") & (frame["policy"] == "greedy")]
    points = points.drop_duplicates(["slots", "faces"]).sort_values("slots")
    fig, ax = plt.subplots(figsize=(8.5, 4.5))
    for faces, group in points.groupby("faces", sort=False):
        rate = 100 * group["win_rate"]
        errors = np.clip([rate - 100 * group["ci_low"], 100 * group["ci_high"] - rate], 0, None)
        ax.errorbar(group["slots"], rate, yerr=errors, marker="o", capsize=3, label=faces)
    ax.axhline(100 * CLAIM, color="black", linestyle="--", linewidth=1,
               label="the book: 4 in 5")
    ax.set_xticks(sorted(points["slots"].unique()))
    ax.set_xlabel("cards face up (slots)")
    ax.set_ylabel("deals won (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"Elevens: win rate by reading (greedy, {deals:,} deals each, 95% CI)")
    ax.legend(title="faces", loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    for suffix in ("png", "svg"):
        fig.savefig(out / f"book_claims.{suffix}", dpi=150)
    plt.close(fig)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--quick", action="store_true", help="play the spec's quick_deals")
    parser.add_argument("--deals", type=int, help="deals per cell (overrides the spec)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "book_claims",
                        help="output folder (default results/book_claims/)")
    parser.add_argument("--spec", type=Path, default=SPEC, help="the experiment spec (TOML)")
    args = parser.parse_args(argv)
    spec = tomllib.loads(args.spec.read_text())
    deals = args.deals or (spec["quick_deals"] if args.quick else spec["deals"])
    frame = run(spec, deals)
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "book_claims.csv", index=False)
    write_markdown(frame, spec, deals, args.out / "book_claims.md")
    plot(frame, deals, args.out)
    print((args.out / "book_claims.md").read_text())


if __name__ == "__main__":
    main()
