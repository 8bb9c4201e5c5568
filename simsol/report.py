"""Tables and plots from a results folder: summaries, paired comparisons, figures.

Everything here is computed from the stored per-deal records, never typed in.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from simsol.engine.state import (
    END_REASONS,
    GAVE_UP,
    IDLE_CUT,
    MOVE_CAP,
    UNKNOWN_END,
    UNSOLVABLE_END,
)
from simsol.rules import SimsolError
from simsol.stats import mcnemar, paired_difference, solvable_bracket, wilson
from simsol.store import Store, make_folder


class Results:
    """A results folder opened for analysis (``simsol.load_results(path)``)."""

    def __init__(self, path: str | Path):
        self.store = Store(path)
        if not (self.store.path / "manifest.json").exists():
            raise SimsolError(f"{path} is not a results folder (no manifest.json); "
                              "run 'simsol experiment SPEC' first")
        self.cells = pd.DataFrame([{"cell": cell_id, **entry}
                                   for cell_id, entry in self.store.manifest["cells"].items()])
        self._records: dict[str, pd.DataFrame] = {}

    def records(self, cell_id: str) -> pd.DataFrame:
        if cell_id not in self._records:
            self._records[cell_id] = self.store.records(cell_id)
        return self._records[cell_id]

    def summary(self) -> pd.DataFrame:
        """One row per cell: win rate and interval, foundation cards, capped games (the move cap
        or the idle cap), games the player gave up with legal moves left, deals the solver left
        undecided (its budget spent), and deals/s per core
        (deals over the compute seconds stored with the chunks)."""
        rows = []
        for cell in self.cells.itertuples():
            if not self.store.chunk_files(cell.cell):
                continue
            records = self.records(cell.cell)
            wins, n = int(records["won"].sum()), len(records)
            low, high = wilson(wins, n)
            seconds = self.store.seconds(cell.cell)
            rows.append({
                "game": cell.game, "preset": cell.preset, "rules": cell.rules_id,
                "policy": cell.policy, "deals": n, "wins": wins, "win_rate": wins / n,
                "ci_low": low, "ci_high": high,
                "mean_foundation": float(records["foundation"].mean()),
                "capped": int(((records["end"] == MOVE_CAP) | (records["end"] == IDLE_CUT)).sum()),
                "gave_up": int((records["end"] == GAVE_UP).sum()),
                "unknown": int((records["end"] == UNKNOWN_END).sum()),  # the solver's
                "deals_per_s_per_core": n / seconds if seconds > 0 else float("nan"),
                "cell": cell.cell,
            })
        return pd.DataFrame(rows)

    def comparisons(self) -> pd.DataFrame:
        """Paired differences on the same deals: each rule variant against the game's book rules
        (same policy), and each policy against greedy (same rules); McNemar's test for each."""
        summary = self.summary()
        rows = []
        for (game, policy), group in summary.groupby(["game", "policy"], sort=False):
            book = group[group["rules"].str.fullmatch(rf"{re.escape(game)}:book@r\d+")]
            for base in book.itertuples():
                for other in group.itertuples():
                    if other.cell != base.cell:
                        rows.append(self._compare("rules", other, base))
        for (game, rules), group in summary.groupby(["game", "rules"], sort=False):
            base = group[group["policy"] == "greedy"]
            for reference in base.itertuples():
                for other in group.itertuples():
                    if other.cell != reference.cell:
                        rows.append(self._compare("policy", other, reference))
        return pd.DataFrame(rows)

    def of_perfect_play(self) -> pd.DataFrame:
        """How much of perfect play each player gets: for every game and rules with a solver
        cell, each other player's share of the deals the solver won (the same deals, paired),
        with its Wilson interval; beside it the solver's own bracket on the solvable share
        (unknowns counted lost for its lower end, won for its upper end) and its unknowns."""
        summary = self.summary()
        rows = []
        for (game, rules), group in summary.groupby(["game", "rules"], sort=False):
            solvers = group[group["policy"].str.startswith("solver")]
            for solver in solvers.itertuples():
                solved = self.records(solver.cell)
                for other in group.itertuples():
                    if other.cell == solver.cell:
                        continue
                    n = min(solver.deals, other.deals)
                    won = solved["won"].to_numpy()[:n]
                    unknown = int((solved["end"].to_numpy()[:n] == UNKNOWN_END).sum())
                    theirs = self.records(other.cell)["won"].to_numpy()[:n][won]
                    low, high = wilson(int(theirs.sum()), int(won.sum()))
                    solvable_low, solvable_high = solvable_bracket(int(won.sum()), unknown, n)
                    rows.append({
                        "game": game, "rules": rules, "policy": other.policy, "deals": n,
                        "solvable": int(won.sum()), "unknown": unknown,
                        "solvable_low": solvable_low, "solvable_high": solvable_high,
                        "won_of_solvable": int(theirs.sum()),
                        "share": theirs.mean() if theirs.size else float("nan"),
                        "ci_low": low, "ci_high": high, "solver": solver.policy})
        return pd.DataFrame(rows)

    def solvability(self) -> pd.DataFrame:
        """The table nobody else has, one row per game and rules with a solver cell: how many
        deals can come out (solvable, unsolvable, unknown; the bracket counts the unknowns lost
        for its lower end and won for its upper end), and beside it each other player's win
        rate on the same deals with the share of the solvable deals it won, as text cells for
        the README (``solvability.md``; the numbers themselves are in ``of_perfect_play``)."""
        perfect = self.of_perfect_play()
        if perfect.empty:
            return pd.DataFrame()
        summary = self.summary().set_index("cell")
        by_cell = {(r.rules, r.policy): r for r in summary.itertuples()}
        rows = []
        for (game, rules, solver), group in perfect.groupby(["game", "rules", "solver"],
                                                            sort=False):
            first = group.iloc[0]
            n = int(first["deals"])
            solver_row = by_cell[(rules, solver)]
            ends = self.records(solver_row.Index)["end"].to_numpy()[:n]
            row = {"game": game, "rules": rules, "deals": n, "solvable": int(first["solvable"]),
                   "unsolvable": int((ends == UNSOLVABLE_END).sum()),
                   "unknown": int(first["unknown"]),
                   "can come out (bracket)": f"{100 * first['solvable_low']:.2f}–"
                                             f"{100 * first['solvable_high']:.2f}%"}
            for player in group.itertuples():
                theirs = self.records(by_cell[(rules, player.policy)].Index)["won"]
                rate = float(theirs.to_numpy()[:n].mean())
                row[player.policy] = (f"{100 * rate:.2f}% ({100 * player.share:.1f}% of "
                                      "solvable)" if player.solvable else f"{100 * rate:.2f}%")
            row["solver"] = solver
            rows.append(row)
        return pd.DataFrame(rows)

    def _compare(self, what: str, a, b) -> dict:
        n = min(a.deals, b.deals)
        won_a = self.records(a.cell)["won"].to_numpy()[:n]
        won_b = self.records(b.cell)["won"].to_numpy()[:n]
        diff, low, high = paired_difference(won_a, won_b)
        only_a, only_b, p_value = mcnemar(won_a, won_b)
        label_a = a.rules if what == "rules" else a.policy
        label_b = b.rules if what == "rules" else b.policy
        return {"game": a.game, "compares": what, "a": label_a, "b": label_b,
                "policy": a.policy if what == "rules" else "",
                "rules": a.rules if what == "policy" else "", "deals": n,
                "difference": diff, "ci_low": low, "ci_high": high,
                "a_only_wins": only_a, "b_only_wins": only_b, "mcnemar_p": p_value}


def load_results(path: str | Path) -> Results:
    return Results(path)


def markdown_table(frame: pd.DataFrame, percent: tuple[str, ...] = ()) -> str:
    """A GitHub Markdown table (percent columns shown as %, floats to 3 significant places)."""
    def cell(column, value):
        if column in percent:
            return f"{100 * value:.2f}%"
        if isinstance(value, float):
            return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
        if isinstance(value, (int, np.integer)):
            return f"{value:,}"
        return str(value)
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(cell(c, v) for c, v in zip(frame.columns, row)) + " |")
    return "\n".join(lines) + "\n"


def headline(summary: pd.DataFrame) -> pd.DataFrame:
    """The README's table: win rate with interval per game, rules and policy."""
    frame = summary.copy()
    frame["win rate (95% CI)"] = [
        f"{100 * r.win_rate:.2f}% ({100 * r.ci_low:.2f}–{100 * r.ci_high:.2f})"
        for r in frame.itertuples()]
    frame = frame.rename(columns={"mean_foundation": "mean foundation", "gave_up": "gave up",
                                  "deals_per_s_per_core": "deals/s per core"})
    return frame[["game", "rules", "policy", "deals", "win rate (95% CI)", "mean foundation",
                  "capped", "gave up", "deals/s per core"]]


def write_report(results_path: str | Path, out: str | Path | None = None) -> Path:
    """Write summary and comparison tables (CSV, Markdown) and the plots (PNG, SVG); ``out``
    (default RESULTS/report) is checked before anything is read."""
    import matplotlib.pyplot as plt

    from simsol import plots
    results = load_results(results_path)
    out = make_folder(Path(out) if out else results.store.path / "report", "report folder")
    summary = results.summary()
    if summary.empty:
        raise SimsolError(f"{results_path} holds no finished chunks yet")
    comparisons = results.comparisons()
    summary.to_csv(out / "summary.csv", index=False)
    (out / "summary.md").write_text(markdown_table(headline(summary)))
    comparisons.to_csv(out / "comparisons.csv", index=False)
    if not comparisons.empty:
        shown = comparisons[["game", "compares", "a", "b", "rules", "policy", "deals",
                             "difference", "ci_low", "ci_high", "mcnemar_p"]]
        (out / "comparisons.md").write_text(
            markdown_table(shown, percent=("difference", "ci_low", "ci_high")))
    perfect = results.of_perfect_play()
    if not perfect.empty:
        perfect.to_csv(out / "of_perfect_play.csv", index=False)
        (out / "of_perfect_play.md").write_text(markdown_table(perfect, percent=(
            "solvable_low", "solvable_high", "share", "ci_low", "ci_high")))
        solvability = results.solvability()
        solvability.to_csv(out / "solvability.csv", index=False)
        (out / "solvability.md").write_text(markdown_table(solvability))
    for name, figure in plots.all_figures(results, summary, comparisons).items():
        for suffix in ("png", "svg"):
            figure.savefig(out / f"{name}.{suffix}", dpi=120, bbox_inches="tight")
        plt.close(figure)
    return out


__all__ = ["END_REASONS", "Results", "headline", "load_results", "markdown_table", "write_report"]
