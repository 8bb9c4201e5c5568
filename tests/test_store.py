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
    plot_cells = [c for c in notebook.cells if c.cell_type == "code" and "plots." in c.source]
    assert len(plot_cells) >= 5
    for cell in plot_cells:  # every figure is shown, not only drawn
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), cell.source


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


REUSE = """
name = "reuse"
seed = 5
deals = 120
quick_deals = 30
chunk_size = 50
[[cells]]
game = "klondike"
policies = ["greedy", "random"]
"""


def folder_state(path: Path) -> dict:
    """Every file under ``path`` (but the lock's) with its bytes."""
    return {str(f.relative_to(path)): f.read_bytes() for f in sorted(path.rglob("*"))
            if f.is_file() and not f.name.startswith(".lock")}


def test_a_quick_run_goes_to_its_own_folder_and_leaves_the_full_one_alone(tmp_path,
                                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "reuse.toml"
    spec.write_text(REUSE)
    full = run_experiment(spec, workers=1, progress=False)
    assert full.path == Path("results/reuse")
    before = folder_state(full.path)
    quick = run_experiment(spec, quick=True, workers=1, progress=False)
    assert quick.path == Path("results/reuse-quick")
    assert len(quick.records("klondike__book__greedy")) == 30
    assert folder_state(full.path) == before
    assert len(write_report(full.path).joinpath("summary.csv").read_text()) > 0


def test_fewer_deals_into_a_fuller_folder_read_what_is_stored(tmp_path, monkeypatch):
    spec = tmp_path / "reuse.toml"
    spec.write_text(REUSE)
    store = run_experiment(spec, out=tmp_path / "r", workers=1, progress=False)
    before = folder_state(store.path)
    monkeypatch.setattr(Store, "write_chunk", lambda *a: pytest.fail("a chunk was written"))
    run_experiment(spec, out=tmp_path / "r", deals=30, workers=1, progress=False)
    run_experiment(spec, out=tmp_path / "r", quick=True, workers=1, progress=False)
    after = folder_state(store.path)
    assert after.keys() == before.keys() and not any(k.endswith(".broken") for k in after)
    assert {k: v for k, v in after.items() if k != "manifest.json"} == {
        k: v for k, v in before.items() if k != "manifest.json"}
    assert len(Store(tmp_path / "r").records("klondike__book__random")) == 120


def test_a_short_last_chunk_is_extended_by_a_longer_run(tmp_path):
    spec = tmp_path / "reuse.toml"
    spec.write_text(REUSE)
    run_experiment(spec, out=tmp_path / "grown", deals=30, workers=1, progress=False)
    grown = run_experiment(spec, out=tmp_path / "grown", workers=1, progress=False)
    fresh = run_experiment(spec, out=tmp_path / "fresh", workers=1, progress=False)
    for cell in fresh.manifest["cells"]:
        pd.testing.assert_frame_equal(grown.records(cell), fresh.records(cell))
    assert not list((tmp_path / "grown").rglob("*.broken"))


def test_a_folder_another_run_holds_is_refused(spec, tmp_path, monkeypatch):
    monkeypatch.setattr(Store, "write_chunk", lambda *a: pytest.fail("a chunk was written"))
    with Store(tmp_path / "held").writing():
        with pytest.raises(SimsolError, match=r"is in use by pid \d+ on .* since"):
            run_experiment(spec, out=tmp_path / "held", workers=1, progress=False)
    assert not (tmp_path / "held" / ".lock.holder").exists()  # released with the run


@pytest.mark.parametrize("name", ["../../x", "/tmp/x", "a/b", "..", ".hidden", ""])
def test_a_spec_name_that_would_leave_results_is_refused(tmp_path, name):
    path = tmp_path / "s.toml"
    path.write_text(f"name = {name!r}\n[[cells]]\ngame = 'klondike'\n")
    with pytest.raises(SimsolError, match="must be a plain folder name"):
        load_spec(path)


def test_single_names_for_presets_and_policies(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("[[cells]]\ngame = 'klondike'\npresets = 'draw1'\npolicies = 'random'\n")
    assert [c.id for c in load_spec(path).cells] == ["klondike__draw1__random"]
    path.write_text("[[cells]]\ngame = 'klondike'\npresets = 3\n")
    with pytest.raises(SimsolError, match="presets must be a name or a list of names"):
        load_spec(path)
    path.write_text("[[cells]]\ngame = 'klondike'\ngrid = { draw = 1 }\n")
    assert [c.id for c in load_spec(path).cells] == ["klondike__book+draw=1__greedy"]


def test_searching_players_get_small_chunks_unless_the_spec_says(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("deals = 60\n[[cells]]\ngame = 'klondike'\n"
                    "policies = ['greedy', 'lookahead']\n")
    store = run_experiment(path, out=tmp_path / "o", deals=1, workers=1, progress=False)
    sizes = {cell: entry["chunk_size"] for cell, entry in store.manifest["cells"].items()}
    assert sizes == {"klondike__book__greedy": 10_000, "klondike__book__lookahead": 50}


def test_reports_label_every_comparison_and_draw_the_variants_apart(spec, tmp_path):
    run_experiment(spec, out=tmp_path / "labels", workers=1, progress=False)
    out = write_report(tmp_path / "labels")
    assert (out / "rule_variants.png").stat().st_size > 0
    header = (out / "comparisons.md").read_text().splitlines()[0]
    assert "| rules |" in header and "| policy |" in header
    table = (out / "comparisons.md").read_text()
    assert "| klondike | policy | random | greedy | klondike:draw1@r1 |" in table


def test_a_spec_declares_its_own_policies(tmp_path):
    """``[policies.NAME]`` tables in a spec (as in a policy file) are policies its cells may
    name, e.g. the solver with another budget; a misspelt setting is refused up front."""
    path = tmp_path / "own.toml"
    path.write_text('name = "own"\nseed = 1\ndeals = 6\n[policies.quick-solver]\n'
                    'base = "solver"\nnodes = 500\n[[cells]]\ngame = "klondike"\n'
                    'policies = ["greedy", "quick-solver"]\n')
    store = run_experiment(path, out=tmp_path / "out", workers=1, progress=False)
    players = {cell["player"] for cell in store.manifest["cells"].values()}
    assert any("quick-solver[nodes=500," in player for player in players), players
    path.write_text(path.read_text().replace("nodes = 500", "node = 500"))
    with pytest.raises(SimsolError, match="node"):
        load_spec(path)


@pytest.mark.parametrize("spec", sorted(
    path.name for path in (Path(__file__).parents[1] / "experiments").glob("*.toml")
    if path.name != "policies.example.toml"))
def test_every_shipped_spec_loads(spec):
    """A spec the README tells users to run must name games, presets and policies that exist:
    a typo there would only show hours into a run."""
    from simsol.experiments import load_spec
    loaded = load_spec(Path(__file__).parents[1] / "experiments" / spec)
    assert loaded.cells
    for cell in loaded.cells:
        assert loaded.deals_for(cell, loaded.deals) >= 1
