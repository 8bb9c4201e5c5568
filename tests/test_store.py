"""The results store, experiments, reports and the paired statistics."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import simsol
from simsol.engine.state import END_REASONS
from simsol.experiments import load_spec, run_experiment
from simsol.report import write_report
from simsol.rules import SimsolError
from simsol.stats import mcnemar, paired_difference, wilson
from simsol.store import Store

SPEC = """
name = "tiny"
seed = 3
deals = 120
quick_deals = 40
chunk_size = 20
[[cells]]
game = "klondike"
presets = ["book", "draw1"]
policies = ["greedy", "random"]
[[cells]]
game = "klondike"
grid = { draw = [1, 3], redeals = [0] }
"""


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(SPEC)
    return path


def stored(store: Store) -> dict[str, pd.DataFrame]:
    return {cell: store.records(cell) for cell in store.manifest["cells"]}


def test_spec_expands_presets_grids_and_policies(spec):
    cells = load_spec(spec).cells
    assert [c.id for c in cells] == [
        "klondike__book__greedy", "klondike__book__random", "klondike__draw1__greedy",
        "klondike__draw1__random", "klondike__book+draw=1+redeals=0__greedy",
        "klondike__book+redeals=0__greedy"]  # draw=3 is the book's own value: no override


def test_store_round_trip_matches_simulate(spec, tmp_path):
    store = run_experiment(spec, out=tmp_path / "out", workers=1, progress=False)
    records = store.records("klondike__draw1__greedy")
    direct = simsol.simulate("klondike", preset="draw1", deals=120, seed=3, workers=1).records
    pd.testing.assert_frame_equal(records.reset_index(drop=True),
                                  direct.assign(end=direct["end"].cat.codes.astype("int8")),
                                  check_dtype=False)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["cells"]["klondike__draw1__greedy"]["rules_id"] == "klondike:draw1@r1"
    assert manifest["simsol_version"] == simsol.__version__ and manifest["spec"]["seed"] == 3


def test_resume_after_an_interrupted_run_gives_identical_records(spec, tmp_path):
    whole = stored(run_experiment(spec, out=tmp_path / "a", workers=1, progress=False))
    store = run_experiment(spec, out=tmp_path / "b", workers=1, progress=False)
    cell_dir = store.cell_dir("klondike__book__greedy")
    chunks = sorted(cell_dir.glob("deals-*.parquet"))
    chunks[1].unlink()                                   # a chunk never written
    chunks[2].write_bytes(chunks[2].read_bytes()[:100])  # a chunk cut short
    (cell_dir / (chunks[3].name + ".tmp")).write_bytes(b"half")  # a write in progress
    resumed = stored(run_experiment(spec, out=tmp_path / "b", workers=1, progress=False))
    for cell, records in whole.items():
        pd.testing.assert_frame_equal(records, resumed[cell])
    assert (cell_dir / (chunks[2].name + ".broken")).exists()


def test_extending_a_run_plays_only_the_new_deals(spec, tmp_path, monkeypatch):
    run_experiment(spec, out=tmp_path / "c", quick=True, workers=1, progress=False)
    written = []
    original = Store.write_chunk

    def counting(self, cell_id, first, records, seconds):
        written.append((cell_id, first))
        original(self, cell_id, first, records, seconds)

    monkeypatch.setattr(Store, "write_chunk", counting)
    store = run_experiment(spec, out=tmp_path / "c", workers=1, progress=False)
    assert {first for _, first in written} == {40, 60, 80, 100}
    assert len(store.records("klondike__book__random")) == 120


def test_a_cell_run_with_another_seed_is_refused(spec, tmp_path):
    run_experiment(spec, out=tmp_path / "d", quick=True, workers=1, progress=False)
    spec.write_text(SPEC.replace("seed = 3", "seed = 4"))
    with pytest.raises(SimsolError, match="was run with seed=3"):
        run_experiment(spec, out=tmp_path / "d", quick=True, workers=1, progress=False)


@pytest.mark.parametrize("manifest,message", [
    ('{"format": "simsol-results/0", "cells": {}}', "format 'simsol-results/0'"),
    ("not json", "not a readable results manifest"),
])
def test_foreign_or_broken_results_folder_is_refused(tmp_path, manifest, message):
    (tmp_path / "manifest.json").write_text(manifest)
    with pytest.raises(SimsolError, match=message):
        Store(tmp_path)


@pytest.mark.parametrize("text,message", [
    ("name = 'x'\n", "at least one"),
    ("colour = 1\n[[cells]]\ngame='klondike'\n", "unknown key 'colour'"),
    ("[[cells]]\ngame='klondyke'\n", "did you mean 'klondike'"),
    ("[[cells]]\ngame='klondike'\npresets=['bok']\n", "did you mean 'book'"),
    ("[[cells]]\ngame='klondike'\npolicies=['greed']\n", "unknown policy"),
    ("[[cells]]\ngame='klondike'\ngrid={draw=[2]}\n", "allowed: 1, 3"),
    ("deals = -3\n[[cells]]\ngame='klondike'\n", "deals must be between"),
    ("[[cells\n", "not a readable TOML"),
])
def test_bad_specs_get_one_clear_line(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SimsolError, match=message):
        load_spec(path)


def test_report_writes_tables_and_plots(spec, tmp_path):
    run_experiment(spec, out=tmp_path / "e", workers=1, progress=False)
    out = write_report(tmp_path / "e")
    for name in ("summary.csv", "summary.md", "comparisons.csv", "comparisons.md",
                 "win_rates.png", "win_rates.svg", "differences.png", "convergence.png",
                 "foundations.svg"):
        assert (out / name).stat().st_size > 0, name
    summary = pd.read_csv(out / "summary.csv")
    row = summary[summary.cell == "klondike__book__greedy"].iloc[0]
    records = Store(tmp_path / "e").records("klondike__book__greedy")
    assert row.wins == records["won"].sum() and row.deals == 120
    assert (row.ci_low, row.ci_high) == pytest.approx(wilson(int(row.wins), 120))
    assert row.gave_up == (records["end"] == END_REASONS.index("gave up")).sum()
    assert "| gave up |" in (out / "summary.md").read_text()
    comparisons = pd.read_csv(out / "comparisons.csv")
    assert set(comparisons.compares) == {"rules", "policy"}


def test_report_on_a_folder_that_is_not_results(tmp_path):
    with pytest.raises(SimsolError, match="not a results folder"):
        write_report(tmp_path)


def test_paired_difference_by_hand():
    diff, low, high = paired_difference([1, 1, 0, 0, 1], [1, 0, 0, 1, 0])
    # d = 0, 1, 0, -1, 1: mean 0.2, sample sd sqrt(0.7), half-width 1.96 * sd / sqrt(5)
    half = 1.959963984540054 * math.sqrt(0.7) / math.sqrt(5)
    assert diff == pytest.approx(0.2)
    assert (low, high) == pytest.approx((0.2 - half, 0.2 + half))


def test_mcnemar_by_hand():
    a = np.array([1] * 10 + [0] * 5, dtype=bool)
    b = np.array([0] * 10 + [0] * 5, dtype=bool)
    assert mcnemar(a, b) == (10, 0, pytest.approx(2 / 1024))  # exact: 2 * 0.5**10
    a = np.array([1] * 40 + [0] * 20 + [1] * 7, dtype=bool)
    b = np.array([0] * 40 + [1] * 20 + [1] * 7, dtype=bool)
    chi2 = (40 - 20 - 1) ** 2 / 60
    assert mcnemar(a, b) == (40, 20, pytest.approx(math.erfc(math.sqrt(chi2 / 2))))
    assert mcnemar([1, 0], [1, 0]) == (0, 0, 1.0)


def test_the_notebook_runs_top_to_bottom(spec, tmp_path):
    import nbclient
    import nbformat
    run_experiment(spec, out=tmp_path / "nb", quick=True, workers=1, progress=False)
    notebook = nbformat.read(Path(__file__).parents[1] / "notebooks" / "analysis.ipynb", 4)
    os.environ["SIMSOL_RESULTS"] = str(tmp_path / "nb")
    try:
        nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
    finally:
        del os.environ["SIMSOL_RESULTS"]
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors


def test_a_cell_table_may_play_fewer_deals(tmp_path):
    path = tmp_path / "ladder.toml"
    path.write_text("""
name = "ladder"
seed = 1
deals = 60
chunk_size = 20
[[cells]]
game = "klondike"
policies = ["greedy", "heuristic"]
[[cells]]
game = "klondike"
policies = ["lookahead"]
deals = 20
""")
    store = run_experiment(path, out=tmp_path / "ladder", workers=1, progress=False)
    assert len(store.records("klondike__book__lookahead")) == 20
    assert len(store.records("klondike__book__heuristic")) == 60
    out = write_report(tmp_path / "ladder")
    assert (out / "skill_ladder.png").exists()
    comparisons = pd.read_csv(out / "comparisons.csv")
    versus_greedy = comparisons[(comparisons.compares == "policy") & (comparisons.b == "greedy")]
    assert set(versus_greedy.a) == {"heuristic", "lookahead"}
    assert versus_greedy.set_index("a").loc["lookahead", "deals"] == 20


@pytest.mark.parametrize("wins,n", [(0, 7), (7, 7), (300, 300), (1, 1), (0, 1_000_000),
                                    (1_000_000, 1_000_000), (123, 1000)])
def test_wilson_interval_always_holds_the_estimate(wins, n):
    low, high = wilson(wins, n)
    assert 0.0 <= low <= wins / n <= high <= 1.0
