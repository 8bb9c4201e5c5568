"""Does Elevens come out four deals in five, as the Leeming book says?  (RULES.md §3)

    python experiments/book_claims.py                 # the full run: spec's deals per cell
    python experiments/book_claims.py --quick         # a smoke run: spec's quick_deals per cell
    python experiments/book_claims.py --out DIR       # default results/book_claims/
                                                      # (results/book_claims-quick/ for --quick)

Reads the spec (experiments/book_claims.toml), plays every cell (game x preset or grid point x
policy) on the same seeded deals into the results store in DIR (as ``simsol experiment`` does:
an interrupted run resumes, a larger --deals extends), and writes to DIR:
``book_claims.csv`` (one row per cell), ``book_claims.md`` (win rate, Wilson 95% interval, and
whether the book's 80% lies inside it or how many percentage points off it is) and
``book_claims.png`` / ``.svg`` (win rate against slots, one line per face rule).
A cell whose rules the game refuses (e.g. faces=block with fewer than 12 slots) is listed with
the reason instead of a win rate.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from simsol.experiments import default_out, load_spec, run_experiment
from simsol.games import get_game
from simsol.report import load_results
from simsol.rules import SimsolError, build_rules
from simsol.store import Cell

CLAIM = 0.80  # "you will probably win four out of every five deals"
ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "experiments" / "book_claims.toml"


def claim_gap(low: float, high: float) -> float:
    """Percentage points from 80% to the interval: 0 inside it, > 0 when the rate is higher."""
    if low > CLAIM:
        return 100 * (low - CLAIM)
    if high < CLAIM:
        return 100 * (high - CLAIM)
    return 0.0


def run(spec_path: Path, out: Path, deals: int | None, quick: bool) -> tuple[pd.DataFrame, dict]:
    """Play the spec into the results store at ``out`` (resumable), then one row per cell."""
    spec = load_spec(spec_path)
    store = run_experiment(spec_path, out=out, deals=deals, quick=quick)
    results = load_results(store.path)
    summary = results.summary().set_index("cell")
    rows = []
    for cell in spec.cells:
        game = get_game(cell.game)
        row = summary.loc[cell.id]
        greedy = Cell(cell.game, cell.preset, cell.rules, "greedy").id
        same = (greedy in summary.index and np.array_equal(
            results.records(greedy)["won"].to_numpy()[: row["deals"]],
            results.records(cell.id)["won"].to_numpy()[: row["deals"]]))
        rows.append({"game": cell.game, "policy": cell.policy,
                     "reading": " ".join(f"{k}={v}" for k, v in cell.rules.items()) or cell.preset,
                     **build_rules(game, cell.preset, cell.rules).as_dict(),
                     "rules": row["rules"], "deals": row["deals"], "wins": row["wins"],
                     "win_rate": row["win_rate"], "ci_low": row["ci_low"],
                     "ci_high": row["ci_high"],
                     "claim_gap_pp": claim_gap(row["ci_low"], row["ci_high"]),
                     "mean_removed": row["mean_foundation"], "same_deals_won_as_greedy": same,
                     "note": ""})
    for line in spec.skipped:  # "elevens slots=9 faces=block: why"
        reading, why = line.split(": ", 1)
        rows.append({"game": "elevens", "reading": reading.split(" ", 1)[1], "policy": "greedy",
                     "note": why})
    frame = pd.DataFrame(rows)
    return frame.astype({"slots": "Int64", "deals": "Int64", "wins": "Int64"}), spec.source


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
    parser.add_argument("--out", type=Path,
                        help="output folder (default results/book_claims/, or "
                             "results/book_claims-quick/ with --quick)")
    parser.add_argument("--spec", type=Path, default=SPEC, help="the experiment spec (TOML)")
    args = parser.parse_args(argv)
    try:
        if args.out is None:
            args.out = ROOT / default_out(load_spec(args.spec), args.quick)
        frame, spec = run(args.spec, args.out, args.deals, args.quick)
    except SimsolError as error:
        print("; ".join([f"book_claims: error: {error}", *getattr(error, "__notes__", [])]),
              file=sys.stderr)
        sys.exit(2)
    deals = int(frame["deals"].max())
    frame.to_csv(args.out / "book_claims.csv", index=False)
    write_markdown(frame, spec, deals, args.out / "book_claims.md")
    plot(frame, deals, args.out)
    print((args.out / "book_claims.md").read_text())


if __name__ == "__main__":
    main()
