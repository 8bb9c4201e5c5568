"""The study's figures, drawn with matplotlib from a results folder's summary and records.

Every function draws a new figure (or into the ``ax`` it is given) and returns the figure; the
caller shows or saves it.  Nothing here chooses a matplotlib backend, so the figures appear in a
notebook and ``simsol report`` saves them wherever it runs.

Win rates run from 0.01% (Diplomatic) to 99% (some Elevens readings), so the win-rate figures
use a log-odds axis: it spreads 0.1% and 1% as far apart as 50% and 90%.
"""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

from simsol.stats import Z95, solvable_bracket

PLAYER_ORDER = ("random", "greedy", "heuristic", "lookahead", "peeking", "solver")
MARKERS = "osD^vP*Xph"
RATE_TICKS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999, 0.9999)
BOOK = r"[^:]+:book@r\d+"


def short_rules(rules_id: str) -> str:
    """``klondike:book[draw=1]@r1`` -> ``book[draw=1]`` (the game is named beside it)."""
    return rules_id.split(":", 1)[-1].rsplit("@", 1)[0]


def players(summary) -> list[str]:
    """The players in ladder order (random up to the solver), then any others by name."""
    present = list(dict.fromkeys(summary["policy"]))
    ladder = [p for p in PLAYER_ORDER if p in present]
    return ladder + sorted(p for p in present if p not in ladder)


def player_style(summary) -> dict[str, dict]:
    """One colour and marker per player, the same in every figure of a report."""
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {p: {"color": colours[i % len(colours)], "marker": MARKERS[i % len(MARKERS)]}
            for i, p in enumerate(players(summary))}


def player_label(policy: str) -> str:
    return policy + " (sees hidden cards)" if policy in ("peeking", "solver") else policy


def rate_axis(ax, frame) -> None:
    """A log-odds x axis with percent ticks, wide enough for every interval."""
    low = np.concatenate([frame.loc[frame.win_rate > 0, "win_rate"],
                          frame.loc[frame.ci_low > 0, "ci_low"], frame["ci_high"]])
    high = np.concatenate([frame.loc[frame.win_rate < 1, "win_rate"],
                           frame.loc[frame.ci_high < 1, "ci_high"], frame["ci_low"]])
    left = max(float(low[low > 0].min()) / 2 if (low > 0).any() else 1e-3, 1e-6)
    right = 1 - max((1 - float(high[high < 1].max())) / 2 if (high < 1).any() else 1e-3, 1e-6)
    left, right = min(left, 0.01), max(right, 0.9)
    ax.set_xscale("logit")
    ax.set_xlim(left, right)
    ticks = [t for t in RATE_TICKS if left <= t <= right
             and (t not in (0.3, 0.7) or left >= 0.01)]  # room for them on a short axis only
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda t, _: f"{100 * t:g}%"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.grid(axis="x", alpha=0.3)


def draw_rates(ax, frame, rows, style) -> None:
    """Each (row key, player) of ``frame`` as a mark with its 95% interval on row ``rows[key]``;
    a player who won no deal is a hollow mark at the left edge, its interval up to the upper
    bound."""
    names = list(style)
    step = 0.7 / max(len(names), 1)
    left = ax.get_xlim()[0]
    for k, policy in enumerate(names):
        mine = frame[(frame["policy"] == policy) & frame["_row"].isin(rows)]
        if mine.empty:
            continue
        y = np.array([rows[key] for key in mine["_row"]]) + (k - (len(names) - 1) / 2) * step
        rate = mine["win_rate"].clip(lower=left).to_numpy()
        low, high = mine["ci_low"].clip(lower=left).to_numpy(), mine["ci_high"].to_numpy()
        ax.errorbar(rate, y, xerr=[rate - low, high - rate], fmt="none", ecolor=style[policy][
            "color"], elinewidth=1.2, capsize=2)
        zero = mine["wins"].to_numpy() == 0
        ax.plot(rate[~zero], y[~zero], linestyle="none", ms=6, label=player_label(policy),
                **style[policy])
        if zero.any():
            ax.plot(rate[zero], y[zero], linestyle="none", ms=6, mfc="white", clip_on=False,
                    zorder=3, **style[policy])


def win_rates(summary, ax=None):
    """The headline: how often each game comes out under its book rules, one row per game
    (easiest at the top), each player a mark with its 95% Wilson interval."""
    frame = reference_rules(summary)
    games = rank_games(frame)
    rows = {game: len(games) - 1 - i for i, game in enumerate(games)}
    fig, ax = _figure(ax, (8.5, 0.5 * len(games) + 1.6))
    frame = frame.assign(_row=frame["game"])
    rate_axis(ax, frame)
    draw_rates(ax, frame, rows, player_style(summary))
    labels = {}
    for game, group in frame.groupby("game"):
        rules = short_rules(group["rules"].iloc[0])
        labels[game] = game if rules == "book" else f"{game} ({rules})"
    ax.set_yticks([rows[g] for g in games], [labels[g] for g in games])
    ax.set_ylim(-0.6, len(games) - 0.4)
    ax.set_xlabel("deals won (95% interval; log-odds scale)")
    ax.set_title("How often each game comes out (book rules)")
    _legend(ax, hollow=(frame["wins"] == 0).any())
    return fig


def rule_variants(summary, ax=None):
    """Every rule variant of the games that have several, grouped by game (book rules first),
    each player a mark with its 95% interval."""
    several = summary.groupby("game")["rules"].nunique()
    frame = summary[summary["game"].isin(several[several > 1].index)]
    if frame.empty:
        return _nothing(ax, "no game has several rule sets in these results")
    order = []
    for game in dict.fromkeys(frame["game"]):
        rules = list(dict.fromkeys(frame.loc[frame["game"] == game, "rules"]))
        rules.sort(key=lambda r: not _is_book(r))  # the book first, then in the spec's order
        order.append((game, rules))
    lines = sum(len(rules) + 1 for _, rules in order)
    fig, ax = _figure(ax, (8.5, 0.28 * lines + 1.6))
    rows, ticks, labels, y = {}, [], [], lines - 1
    for game, rules in order:
        ax.text(-0.01, y, game, transform=ax.get_yaxis_transform(), ha="right", va="center",
                fontweight="bold", fontsize=9)
        ax.axhline(y + 0.5, color="grey", lw=0.5)
        y -= 1
        for rule in rules:
            rows[rule] = y
            ticks.append(y)
            labels.append(short_rules(rule))
            y -= 1
    frame = frame.assign(_row=frame["rules"])
    rate_axis(ax, frame)
    draw_rates(ax, frame, rows, player_style(summary))
    ax.set_yticks(ticks, labels, fontsize=8)
    ax.set_ylim(-0.6, lines - 0.4)
    ax.set_xlabel("deals won (95% interval; log-odds scale)")
    ax.set_title("Rule variants, by game")
    _legend(ax, hollow=(frame["wins"] == 0).any())
    return fig


def _is_book(rules_id: str) -> bool:
    return re.fullmatch(BOOK, rules_id) is not None


def reference_rules(summary):
    """Per game, the cells of its book rules (or, without them, of its first rules)."""
    chosen = []
    for game, group in summary.groupby("game", sort=False):
        book = group[group["rules"].map(_is_book)]
        chosen.append(book if len(book) else group[group["rules"] == group["rules"].iloc[0]])
    return summary.loc[[i for part in chosen for i in part.index]]


def rank_games(frame) -> list[str]:
    """Games from the most often won down, by the greedy player (or every player's mean)."""
    def rate(game):
        group = frame[frame["game"] == game]
        greedy = group[group["policy"] == "greedy"]
        return float((greedy if len(greedy) else group)["win_rate"].mean())
    return sorted(dict.fromkeys(frame["game"]), key=rate, reverse=True)


def _figure(ax, size):
    if ax is not None:
        return ax.figure, ax
    return plt.subplots(figsize=size)


def _nothing(ax, text: str):
    """A figure that says there is nothing to draw."""
    fig, ax = _figure(ax, (8, 1.5))
    ax.text(0.5, 0.5, text, ha="center", va="center")
    ax.axis("off")
    return fig


def _legend(ax, hollow: bool) -> None:
    """The players' legend outside the plot on the right (as in the book-claims figure)."""
    handles, labels = ax.get_legend_handles_labels()
    if hollow:
        handles.append(plt.Line2D([], [], marker="o", mfc="white", mec="grey", color="grey",
                                  linestyle="none"))
        labels.append("no deal won\n(bar: to the upper bound)")
    ax.legend(handles, labels, title="player", fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1))


def comparison_label(row) -> str:
    """A row of the forest plot: the game, what differs, and what is held fixed."""
    if row.compares == "rules":
        return f"{row.game}: {short_rules(row.a)} − {short_rules(row.b)} · {row.policy}"
    return f"{row.game} {short_rules(row.rules)}: {row.a} − {row.b}"


def differences(comparisons, ax=None):
    """Forest plot: paired differences in win rate on the same deals, with 95% intervals, one
    row per comparison labelled with its game and rules, grouped by game."""
    if comparisons.empty:
        return _nothing(ax, "no paired comparisons in these results")
    games = list(dict.fromkeys(comparisons["game"]))
    frame = comparisons.assign(_game=comparisons["game"].map(games.index))
    frame = frame.sort_values(["_game", "compares"], kind="stable").reset_index(drop=True)
    fig, ax = _figure(ax, (9, 0.28 * len(frame) + 1.4))
    y = np.arange(len(frame))[::-1]
    for what, colour in (("rules", "C0"), ("policy", "C1")):
        mine = (frame["compares"] == what).to_numpy()
        if not mine.any():
            continue
        part = frame[mine]
        err = np.clip([100 * (part.difference - part.ci_low),
                       100 * (part.ci_high - part.difference)], 0, None)
        ax.errorbar(100 * part.difference, y[mine], xerr=err, fmt="s", ms=4, capsize=3,
                    color=colour, label="rule variant − book rules (same player)" if
                    what == "rules" else "player − greedy (same rules)")
    for boundary in np.flatnonzero(np.diff(frame["_game"].to_numpy())):
        ax.axhline(y[boundary] - 0.5, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(y, [comparison_label(r) for r in frame.itertuples()], fontsize=8)
    ax.set_ylim(-0.6, len(frame) - 0.4)
    ax.set_xlabel("difference in win rate, percentage points (paired 95% interval)")
    ax.set_title("Rule variants and players compared on the same deals")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
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


def convergence(results, summary, per_game: int = 1, ax=None):
    """The running win-rate estimate as deals accumulate, with its Wilson band."""
    chosen = representative(summary, per_game)
    fig, ax = _figure(ax, (8, 4.5))
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


def foundations(results, summary, fig=None):
    """Distribution of cards on the foundations at the end, one panel per game."""
    chosen = representative(summary)
    count = len(chosen)
    cols = min(count, 3)
    rows = (count + cols - 1) // cols
    if fig is None:
        fig = plt.figure(figsize=(4 * cols, 3 * rows))
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False))
    for k, (ax, row) in enumerate(zip(axes.flat, chosen.itertuples())):
        cards = results.records(row.cell)["foundation"].to_numpy()
        ax.hist(cards, bins=np.arange(cards.max() + 2) - 0.5, density=True)
        ax.set_title(f"{row.rules} · {row.policy}", fontsize=8)
        ax.set_xlabel("cards on the foundations at the end")
        if k % cols == 0:
            ax.set_ylabel("share of deals")
    for ax in list(axes.flat)[count:]:
        ax.axis("off")
    fig.tight_layout()
    return fig


def skill_ladder(summary, ax=None):
    """One group per game (its book rules), a bar per policy with its 95% interval.  The solver
    is the top of the ladder: its bar is hatched (it sees every card), and its whisker is its
    bracket, the unknown deals counted lost at the bottom and won at the top."""
    frame = summary[summary["rules"].str.contains(r":book@r\d+$")]  # the plain book rules
    if frame.empty:
        return _nothing(ax, "the skill ladder is drawn from cells on a game's book rules")
    games = list(dict.fromkeys(frame["game"]))
    policies = sorted(dict.fromkeys(frame["policy"]), key=lambda p: p.startswith("solver"))
    width = 0.8 / max(len(policies), 1)
    fig, ax = _figure(ax, (max(8, 1.2 * len(games)), 4.5))
    for k, policy in enumerate(policies):
        rows = frame[frame["policy"] == policy].set_index("game").reindex(games)
        x = np.arange(len(games)) + (k - (len(policies) - 1) / 2) * width
        rate = 100 * rows["win_rate"]
        low, high = 100 * rows["ci_low"], 100 * rows["ci_high"]
        solver = policy.startswith("solver")
        if solver and "unknown" in rows:
            brackets = [solvable_bracket(int(r.wins), int(r.unknown), int(r.deals))
                        if r.deals == r.deals else (np.nan, np.nan) for r in rows.itertuples()]
            low, high = (100 * np.array([b[i] for b in brackets]) for i in (0, 1))
        err = np.clip([rate - low, high - rate], 0, None)
        label = f"{policy}: solvable, whisker the bracket" if solver else policy
        ax.bar(x, rate, width, yerr=err, capsize=2, label=label, hatch="//" if solver else None)
    ax.set_xticks(np.arange(len(games)), games, rotation=30, ha="right")
    ax.set_ylabel("win rate, % (95% interval)")
    ax.set_title("The skill ladder: each game's book rules, by player")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def all_figures(results, summary, comparisons) -> dict:
    """Every figure of a report, by file name (the caller saves and closes them)."""
    figures = {"win_rates": win_rates(summary), "differences": differences(comparisons),
               "convergence": convergence(results, summary),
               "foundations": foundations(results, summary)}
    if summary.groupby("game")["rules"].nunique().max() > 1:
        figures["rule_variants"] = rule_variants(summary)
    if summary.groupby("game")["policy"].nunique().max() > 1:
        figures["skill_ladder"] = skill_ladder(summary)
    return figures
