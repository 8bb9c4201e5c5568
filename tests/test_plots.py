"""The figures: drawn for a reader, never choosing a matplotlib backend."""

from __future__ import annotations

import subprocess
import sys

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from simsol import plots


def summary_of(rows):
    """A summary frame like ``Results.summary()`` from (game, rules, policy, wins, deals)."""
    from simsol.stats import wilson
    out = []
    for game, rules, policy, wins, deals in rows:
        low, high = wilson(wins, deals)
        out.append({"game": game, "preset": "book", "rules": rules, "policy": policy,
                    "deals": deals, "wins": wins, "win_rate": wins / deals, "ci_low": low,
                    "ci_high": high, "cell": f"{game}-{rules}-{policy}"})
    return pd.DataFrame(out)


SUMMARY = summary_of([
    ("diplomatic", "diplomatic:book@r1", "greedy", 200, 1_000_000),
    ("diplomatic", "diplomatic:book@r1", "random", 0, 20_000),
    ("klondike", "klondike:book@r1", "greedy", 135_000, 1_000_000),
    ("klondike", "klondike:book@r1", "heuristic", 151_000, 1_000_000),
    ("klondike", "klondike:draw1@r1", "greedy", 413_000, 1_000_000),
    ("block-eleven", "elevens:block-eleven@r1", "greedy", 1_700, 1_000_000),
    ("elevens", "elevens:book@r1", "greedy", 107_000, 1_000_000),
    ("elevens", "elevens:book[slots=13]@r1", "greedy", 815_000, 1_000_000),
])


def test_importing_the_plots_leaves_the_backend_alone():
    code = "import matplotlib; import simsol.plots, simsol.report; print(matplotlib.get_backend())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"MPLBACKEND": "svg", "PATH": ""}, check=True).stdout
    assert out.strip() == "svg"


def test_the_headline_has_one_row_per_game_easiest_first_on_a_log_odds_axis():
    fig = plots.win_rates(SUMMARY)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    ticks = list(ax.get_yticks())
    rows = [label for _, label in sorted(zip(ticks, labels), reverse=True)]
    # elevens' block-eleven game has no book rules here: its row names its rules
    assert rows == ["klondike", "elevens", "block-eleven (block-eleven)", "diplomatic"]
    assert ax.get_xscale() == "logit"
    left, right = ax.get_xlim()
    assert left <= 1e-4 and right >= 0.9  # 0.02% and 80% both inside, neither squashed
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[:3] == ["random", "greedy", "heuristic"] and "no deal won" in legend[-1]
    plt.close(fig)


def test_rule_variants_are_grouped_by_game_book_first():
    fig = plots.rule_variants(SUMMARY)
    ax = fig.axes[0]
    rows = [label for _, label in sorted(zip(ax.get_yticks(),
                                             [t.get_text() for t in ax.get_yticklabels()]),
                                         reverse=True)]
    assert rows == ["book", "draw1", "book", "book[slots=13]"]
    headers = [t.get_text() for t in ax.texts]
    assert headers == ["klondike", "elevens"]
    plt.close(fig)


def test_every_difference_row_names_its_game_and_rules():
    comparisons = pd.DataFrame([
        {"game": "klondike", "compares": "rules", "a": "klondike:draw1@r1",
         "b": "klondike:book@r1", "policy": "greedy", "rules": "", "difference": 0.28,
         "ci_low": 0.27, "ci_high": 0.29},
        {"game": "klondike", "compares": "policy", "a": "heuristic", "b": "greedy",
         "policy": "", "rules": "klondike:book@r1", "difference": 0.016, "ci_low": 0.015,
         "ci_high": 0.017},
    ])
    fig = plots.differences(comparisons)
    labels = {t.get_text() for t in fig.axes[0].get_yticklabels()}
    assert labels == {"klondike: draw1 − book · greedy", "klondike book: heuristic − greedy"}
    plt.close(fig)


def test_foundations_panels_have_a_y_label():
    class Records:
        def records(self, cell):
            return pd.DataFrame({"foundation": np.arange(53) % 53})
    fig = plots.foundations(Records(), SUMMARY)
    assert {ax.get_ylabel() for ax in fig.axes if ax.get_visible() and ax.has_data()} == {
        "share of deals", ""}
    assert fig.axes[0].get_ylabel() == "share of deals"
    plt.close(fig)


@pytest.mark.parametrize("draw", [plots.win_rates, plots.rule_variants])
def test_a_figure_can_be_drawn_into_the_callers_axes(draw):
    fig, ax = plt.subplots()
    assert draw(SUMMARY, ax=ax) is fig
    plt.close(fig)


def test_the_ladder_draws_the_solver_last_with_its_bracket():
    """The solver's whisker runs from its solvable share with unknowns lost to the share with
    unknowns won (Solvitaire's rule), not its plain interval."""
    from simsol.stats import solvable_bracket
    frame = summary_of([("klondike", "klondike:book@r1", "solver(sees-hidden-cards)", 60, 100),
                        ("klondike", "klondike:book@r1", "greedy", 14, 100)])
    frame["unknown"] = [20, 0]
    fig = plots.skill_ladder(frame)
    ax = fig.axes[0]
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels[0] == "greedy" and labels[1].startswith("solver")
    from matplotlib.container import ErrorbarContainer
    errorbars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    whisker = errorbars[1].lines[2][0].get_segments()[0]
    low, high = solvable_bracket(60, 20, 100)
    assert np.allclose(sorted(whisker[:, 1]), [100 * low, 100 * high])
    plt.close(fig)
