"""The study's figures, drawn with matplotlib from a results folder's summary and records."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from simsol.stats import Z95  # noqa: E402


def win_rates(summary):
    """Win rate with its 95% interval for every cell, grouped by game."""
    frame = summary.sort_values(["game", "rules", "policy"]).reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(frame) + 1.2))
    y = np.arange(len(frame))[::-1]
    err = np.clip([100 * (frame.win_rate - frame.ci_low),
                   100 * (frame.ci_high - frame.win_rate)], 0, None)
    ax.errorbar(100 * frame.win_rate, y, xerr=err, fmt="o", ms=4, capsize=3)
    ax.set_yticks(y, [f"{r.rules} · {r.policy}" for r in frame.itertuples()], fontsize=8)
    ax.set_xlabel("win rate, % (95% Wilson interval)")
    ax.set_title("How often each game comes out")
    ax.grid(axis="x", alpha=0.3)
    return fig


def differences(comparisons):
    """Forest plot: paired differences in win rate on the same deals, with 95% intervals."""
    frame = comparisons.reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(8, 0.32 * max(len(frame), 1) + 1.2))
    if frame.empty:
        ax.text(0.5, 0.5, "no paired comparisons in this results folder", ha="center")
        return fig
    y = np.arange(len(frame))[::-1]
    err = np.clip([100 * (frame.difference - frame.ci_low),
                   100 * (frame.ci_high - frame.difference)], 0, None)
    ax.errorbar(100 * frame.difference, y, xerr=err, fmt="s", ms=4, capsize=3)
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(y, [f"{r.a} − {r.b}" + (f" · {r.policy}" if r.policy else "")
                      for r in frame.itertuples()], fontsize=8)
    ax.set_xlabel("difference in win rate, percentage points (paired 95% interval)")
    ax.set_title("Rule variants and players compared on the same deals")
    ax.grid(axis="x", alpha=0.3)
    return fig


def representative(summary, per_game: int = 1):
    """Per game, the cells to draw: its book rules with the greedy player first, then the
    cells with the most deals."""
    ranked = summary.assign(
        _book=~summary["rules"].str.contains(r":book@r\d+$"),
        _greedy=summary["policy"] != "greedy")
    ranked = ranked.sort_values(["_book", "_greedy", "deals"], ascending=[True, True, False])
    return ranked.groupby("game", sort=False).head(per_game)


def convergence(results, summary, per_game: int = 1):
    """The running win-rate estimate as deals accumulate, with its Wilson band."""
    chosen = representative(summary, per_game)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for row in chosen.itertuples():
        won = results.records(row.cell)["won"].to_numpy()
        # a few hundred points, spaced evenly on the log axis, are enough to draw a million deals
        n = np.unique(np.geomspace(1, len(won), 400).astype(np.int64))
        p = np.cumsum(won)[n - 1] / n
        half = Z95 * np.sqrt(p * (1 - p) / n + Z95**2 / (4 * n**2)) / (1 + Z95**2 / n)
        centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
        line, = ax.plot(n, 100 * p, lw=1, label=f"{row.rules} · {row.policy}")
        ax.fill_between(n, 100 * (centre - half), 100 * (centre + half), alpha=0.2,
                        color=line.get_color())
    ax.set_xscale("log")
    ax.set_xlabel("deals played")
    ax.set_ylabel("win rate so far, %")
    ax.set_title("Convergence of the estimate")
    ax.legend(fontsize=7, loc="upper right")
    ax.grid(alpha=0.3)
    return fig


def foundations(results, summary):
    """Distribution of cards on the foundations at the end, one panel per game."""
    chosen = representative(summary)
    count = len(chosen)
    cols = min(count, 3)
    rows = (count + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False)
    for ax, row in zip(axes.flat, chosen.itertuples()):
        cards = results.records(row.cell)["foundation"].to_numpy()
        ax.hist(cards, bins=np.arange(cards.max() + 2) - 0.5, density=True)
        ax.set_title(f"{row.rules} · {row.policy}", fontsize=8)
        ax.set_xlabel("cards on the foundations")
    for ax in list(axes.flat)[count:]:
        ax.axis("off")
    fig.tight_layout()
    return fig


def skill_ladder(summary):
    """One group per game (its book rules), a bar per policy with its 95% interval."""
    frame = summary[summary["rules"].str.contains(r":book@r\d+$")]  # the plain book rules
    games = list(dict.fromkeys(frame["game"]))
    policies = list(dict.fromkeys(frame["policy"]))
    width = 0.8 / max(len(policies), 1)
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(games)), 4.5))
    for k, policy in enumerate(policies):
        rows = frame[frame["policy"] == policy].set_index("game").reindex(games)
        x = np.arange(len(games)) + (k - (len(policies) - 1) / 2) * width
        rate = 100 * rows["win_rate"]
        err = np.clip([rate - 100 * rows["ci_low"], 100 * rows["ci_high"] - rate], 0, None)
        ax.bar(x, rate, width, yerr=err, capsize=2, label=policy)
    ax.set_xticks(np.arange(len(games)), games, rotation=30, ha="right")
    ax.set_ylabel("win rate, % (95% interval)")
    ax.set_title("The skill ladder: each game's book rules, by player")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def all_figures(results, summary, comparisons) -> dict:
    figures = {"win_rates": win_rates(summary), "differences": differences(comparisons),
               "convergence": convergence(results, summary),
               "foundations": foundations(results, summary)}
    if summary.groupby("game")["policy"].nunique().max() > 1:
        figures["skill_ladder"] = skill_ladder(summary)
    return figures
