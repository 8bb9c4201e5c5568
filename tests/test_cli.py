"""The command line: what a user sees, and one clear line (exit code 2) for every bad input."""

from __future__ import annotations

import json

import pytest

from simsol.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_prints_win_rate_and_interval(capsys):
    code, out, _ = run(capsys, "run", "klondike", "--deals", "300", "--workers", "1",
                       "--no-progress")
    assert code == 0
    assert "klondike:book@r1" in out and "95% CI" in out and "cut by the move cap" in out
    assert "stuck" in out and "no progress" in out and "gave up" in out


def test_run_json_matches_the_api(capsys):
    import simsol
    code, out, _ = run(capsys, "run", "klondike", "--deals", "1e2", "--seed", "4", "--json",
                       "--rule", "draw=1", "--workers", "1", "--no-progress")
    row = json.loads(out)
    expected = simsol.simulate("klondike", rules={"draw": 1}, deals=100, seed=4, workers=1)
    assert code == 0 and row["wins"] == expected.wins and row["rules"] == expected.rules.id
    assert row["rules"] == "klondike:book[draw=1]@r1"


def test_run_writes_records(capsys, tmp_path):
    import pandas as pd
    path = tmp_path / "records.parquet"
    code, _, _ = run(capsys, "run", "klondike", "--deals", "50", "--records", str(path),
                     "--workers", "1", "--no-progress")
    frame = pd.read_parquet(path)
    assert code == 0 and len(frame) == 50
    assert list(frame.columns) == ["deal", "won", "foundation", "moves", "passes", "end"]


@pytest.mark.parametrize("argv,fragment", [
    (["run", "klondik"], "did you mean 'klondike'"),
    (["run", "klondike", "--preset", "bok"], "did you mean 'book'"),
    (["run", "klondike", "--rule", "draw=2"], "allowed: 1, 3"),
    (["run", "klondike", "--rule", "drow=1"], "did you mean 'draw'"),
    (["run", "klondike", "--rule", "draw"], "NAME=VALUE"),
    (["run", "klondike", "--policy", "gredy"], "did you mean 'greedy'"),
    (["run", "klondike", "--deals", "-5"], "deals must be between 1"),
    (["run", "klondike", "--deals", "0"], "deals must be between 1"),
    (["run", "klondike", "--deals", "abc"], "not a whole number"),
    (["run", "klondike", "--seed", "-1"], "seed must be between 0"),
    (["run", "klondike", "--records", "x.txt", "--deals", "5"], ".parquet or .csv"),
    (["show", "klondike", "--deal", "-2"], "deal must be between 0"),
    (["games", "nope"], "unknown game 'nope'"),
    (["tune", "klondike", "--policy", "greedy"], "needs a weighted policy, one of heuristic"),
    (["tune", "klondike", "--trials", "0"], "trials must be between 1"),
    (["tune", "klondike", "--deals", "0"], "deals must be between 1"),
    (["tune", "klondike", "--holdout-seed", "0"], "must differ from the training seed"),
    (["tune", "klondike", "--sampler", "grid"], "invalid choice: 'grid'"),
    (["tune", "klondik"], "did you mean 'klondike'"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_gets_one_line_and_exit_code_2(capsys, argv, fragment):
    code, out, err = run(capsys, *argv, *(["--no-progress"] if argv[0] == "run" else []))
    assert code == 2
    assert fragment in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("simsol: error: ")


def test_games_lists_every_game_and_one_game_in_full(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0 and "klondike" in out and "policies" in out
    code, out, _ = run(capsys, "games", "klondike")
    assert "three-redeals" in out and "worrying_back" in out and "greedy:" in out


def test_show_plays_a_deal_move_by_move(capsys):
    code, out, _ = run(capsys, "show", "klondike", "--deal", "3")
    assert code == 0
    assert "tableau7: ## ## ## ## ## ## " in out and "   1. " in out
    assert "cards on the foundations after" in out


def test_show_json_gives_every_move(capsys):
    code, out, _ = run(capsys, "show", "klondike", "--deal", "3", "--json")
    trace = json.loads(out)
    assert code == 0 and len(trace["deck"]) == 52
    first = trace["moves"][0]
    assert set(first) == {"step", "kind", "from", "to", "count", "cards"}
    assert len(first["cards"]) == first["count"]


def test_help_explains_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--help"])
    out, _ = capsys.readouterr()
    assert exit_info.value.code == 0 and "--rule NAME=VALUE" in out and "--deals" in out


def test_policies_lists_every_policy_with_its_settings(capsys):
    code, out, _ = run(capsys, "policies", "canfield")
    assert code == 0
    for name in ("random", "greedy", "heuristic", "lookahead", "peeking"):
        assert f"\n  {name} (" in out
    assert "UPPER BOUND" in out and "weight.reveal" in out


def test_experiment_and_report_commands(capsys, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\nseed = 1\ndeals = 40\nchunk_size = 20\n'
                    '[[cells]]\ngame = "klondike"\npolicies = ["greedy", "random"]\n')
    code, out, _ = run(capsys, "experiment", str(spec), "--out", str(tmp_path / "r"),
                       "--no-progress", "--workers", "1")
    assert code == 0 and "results in" in out
    code, out, _ = run(capsys, "report", str(tmp_path / "r"))
    assert code == 0 and "| klondike | klondike:book@r1 | greedy | 40 |" in out
    code, _, err = run(capsys, "report", str(tmp_path / "nothing"))
    assert code == 2 and "not a results folder" in err


def test_an_experiment_can_play_one_game_of_its_spec(capsys, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('name = "s"\nseed = 1\ndeals = 20\n'
                    '[[cells]]\ngame = "klondike"\npolicies = ["greedy"]\n'
                    '[[cells]]\ngame = "elevens"\npolicies = ["greedy"]\n')
    code, _, _ = run(capsys, "experiment", str(spec), "--out", str(tmp_path / "r"),
                     "--no-progress", "--workers", "1", "--game", "klondike")
    code, out, _ = run(capsys, "report", str(tmp_path / "r"))
    assert code == 0 and "| klondike |" in out and "elevens" not in out
    err = one_line_error(capsys, "experiment", str(spec), "--out", str(tmp_path / "r"),
                         "--no-progress", "--game", "canfield")
    assert "'canfield': not in the spec 's'; its games: klondike, elevens" in err


def test_policy_options_on_the_command_line(capsys):
    code, out, _ = run(capsys, "run", "klondike", "--deals", "50", "--workers", "1",
                       "--no-progress", "--policy", "heuristic", "--policy-opt", "weight.reveal=9")
    assert code == 0 and "policy heuristic[weight.reveal=9.0]" in out
    code, _, err = run(capsys, "run", "klondike", "--deals", "50", "--no-progress",
                       "--policy", "heuristic", "--policy-opt", "weight.revea=9")
    assert code == 2 and "did you mean 'reveal'" in err


def test_run_shows_the_score_of_lost_games(capsys):
    import numpy as np

    import simsol
    code, out, _ = run(capsys, "run", "canfield", "--deals", "200", "--workers", "1",
                       "--no-progress")
    result = simsol.simulate("canfield", deals=200, workers=1)
    lost = result.data["foundation"][~result.data["won"]]
    assert code == 0 and f"lost games mean {lost.mean():.2f}, median {np.median(lost):.0f}" in out


def no_play(monkeypatch):
    """Make playing any deal fail the test: errors must come before anything is played."""
    import simsol.runner
    monkeypatch.setattr(simsol.runner, "play_chunk", lambda *a: pytest.fail("a deal was played"))


def one_line_error(capsys, *argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.startswith("simsol: error: ")
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize("where,fragment", [
    ("k.xlsx", ".parquet or .csv"),
    ("missing/k.parquet", "No such file or directory"),
    ("a-file/k.csv", "Not a directory"),
    ("/proc/k.parquet", "cannot write the records file"),
])
def test_a_bad_records_path_is_refused_before_playing(capsys, tmp_path, monkeypatch, where,
                                                      fragment):
    (tmp_path / "a-file").write_text("x")
    monkeypatch.chdir(tmp_path)
    no_play(monkeypatch)
    err = one_line_error(capsys, "run", "klondike", "--deals", "200000", "--records", where,
                         "--no-progress")
    assert fragment in err


def test_json_names_the_first_deal_and_the_move_cap(capsys):
    code, out, _ = run(capsys, "run", "klondike", "--deals", "30", "--first", "7",
                       "--max-moves", "900", "--json", "--workers", "1", "--no-progress")
    row = json.loads(out)
    assert code == 0 and row["first"] == 7 and row["max_moves"] == 900 and row["deals"] == 30


def test_help_shows_a_single_percent_sign(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out, _ = capsys.readouterr()
    assert "95% interval" in " ".join(out.split()) and "%%" not in out


def test_games_names_the_book_and_shows_overrides_as_rules(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0 and "(seed" not in out and "Leeming's book" in out
    code, out, _ = run(capsys, "games", "grandmas-patience")
    assert "[redeals=none]" in out and "None" not in out
    code, out, _ = run(capsys, "games", "klondike")
    assert "partial_runs=true" in out


def test_workers_beyond_the_cores_get_one_warning_line(capsys):
    from simsol.backends import cores
    code, _, err = run(capsys, "run", "klondike", "--deals", "20", "--workers",
                       str(cores() + 1), "--no-progress")
    warnings = [line for line in err.splitlines() if line.startswith("simsol: warning: ")]
    assert code == 0 and len(warnings) == 1 and "share the cores" in warnings[0]


@pytest.mark.parametrize("argv,fragment", [
    (["--workers", "-3"], "0 (every core) or more"),
    (["--scheduler", "not-an-address"], "cannot reach the Dask scheduler"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "no effect with a Dask"),
    (["--policy", "greedy", "--policy-opt", "weight.reveal=3"], "does nothing for 'greedy'"),
    (["--policy", "greedy", "--policy-opt", "ties=first"], "does nothing for 'greedy'"),
    (["--policy", "heuristic", "--policy-opt", "samples=4"], "does nothing for 'heuristic'"),
    (["--policy", "random", "--policy-opt", "order=stock"], "does nothing for 'random'"),
    (["--chunk-size", "1e9"], "chunk size must be between 1 and"),
    (["--deals", "1e13"], "deals must be between 1 and"),
])
def test_more_bad_run_input_gets_one_line(capsys, monkeypatch, argv, fragment):
    no_play(monkeypatch)
    err = one_line_error(capsys, "run", "klondike", "--no-progress", *argv)
    assert fragment in err


def test_a_policy_order_can_be_written_as_simsol_policies_prints_it(capsys):
    code, out, _ = run(capsys, "policies", "klondike")
    printed = next(line for line in out.splitlines() if line.strip().startswith("greedy ("))
    order = printed.split("[order=", 1)[1].split("]", 1)[0].split(", ", 1)[0]
    assert " > " in order
    code, arrows, _ = run(capsys, "run", "klondike", "--deals", "40", "--workers", "1",
                          "--no-progress", "--json", "--policy-opt", f"order={order}")
    code, commas, _ = run(capsys, "run", "klondike", "--deals", "40", "--workers", "1",
                          "--no-progress", "--json", "--policy-opt",
                          "order=" + order.replace(" > ", ","))
    assert code == 0 and json.loads(arrows)["wins"] == json.loads(commas)["wins"]


def test_the_shipped_example_policy_file_works(capsys):
    from pathlib import Path
    example = Path(__file__).parents[1] / "experiments" / "policies.example.toml"
    code, out, _ = run(capsys, "policies", "klondike", "--policy-file", str(example))
    assert code == 0 and "careful (heuristic)" in out
    for policy in ("careful", "foundations-last", "deep"):
        code, out, err = run(capsys, "run", "klondike", "--deals", "3", "--workers", "1",
                             "--no-progress", "--policy-file", str(example), "--policy", policy)
        assert code == 0, err


def test_a_policy_file_entry_that_is_not_a_table(capsys, tmp_path):
    path = tmp_path / "p.toml"
    path.write_text("[policies]\nx = 3\n")
    err = one_line_error(capsys, "run", "klondike", "--policy-file", str(path), "--policy", "x")
    assert "is not a table" in err


def test_the_first_compile_is_announced(capsys, monkeypatch):
    import simsol.runner
    monkeypatch.setattr(simsol.runner, "needs_compiling", lambda game: True)
    code, _, err = run(capsys, "run", "klondike", "--deals", "20", "--workers", "1")
    assert code == 0 and "compiling kernels for klondike (once" in err.splitlines()[0]
    code, _, err = run(capsys, "run", "klondike", "--deals", "20", "--workers", "1",
                       "--no-progress")
    assert err == ""


EXPERIMENT = ('name = "s"\nseed = 1\ndeals = 40\nchunk_size = 20\n'
              '[[cells]]\ngame = "klondike"\npolicies = ["greedy", "random"]\n')


def test_bad_experiment_and_report_folders_are_refused_before_playing(capsys, tmp_path,
                                                                      monkeypatch):
    spec = tmp_path / "s.toml"
    spec.write_text(EXPERIMENT)
    (tmp_path / "a-file").write_text("x")
    no_play(monkeypatch)
    for out, fragment in (("a-file", "is a file, not a folder"),
                          ("a-file/sub", "Not a directory"),
                          ("/proc/r", "cannot write to results folder")):
        err = one_line_error(capsys, "experiment", str(spec), "--out", str(tmp_path / out),
                             "--no-progress")
        assert fragment in err
    monkeypatch.undo()
    assert run(capsys, "experiment", str(spec), "--out", str(tmp_path / "r"), "--no-progress",
               "--workers", "1")[0] == 0
    import simsol.report
    monkeypatch.setattr(simsol.report.Results, "summary", lambda self: pytest.fail("computed"))
    for out, fragment in (("a-file", "is a file, not a folder"), ("/proc/r", "cannot write")):
        err = one_line_error(capsys, "report", str(tmp_path / "r"), "--out",
                             str(tmp_path / out) if not out.startswith("/") else out)
        assert fragment in err


def test_a_report_on_a_truncated_chunk_is_one_line(capsys, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(EXPERIMENT)
    run(capsys, "experiment", str(spec), "--out", str(tmp_path / "r"), "--no-progress",
        "--workers", "1")
    chunk = next((tmp_path / "r").glob("cells/*/deals-*.parquet"))
    chunk.write_bytes(chunk.read_bytes()[:200])
    err = one_line_error(capsys, "report", str(tmp_path / "r"))
    assert chunk.name in err and "run the experiment again" in err
    # and running it again sets the chunk aside and plays it again
    assert run(capsys, "experiment", str(spec), "--out", str(tmp_path / "r"), "--no-progress",
               "--workers", "1")[0] == 0
    assert run(capsys, "report", str(tmp_path / "r"))[0] == 0


def test_a_second_run_into_a_held_folder_is_told_what_holds_it(capsys, tmp_path, monkeypatch):
    from simsol.store import Store
    spec = tmp_path / "s.toml"
    spec.write_text(EXPERIMENT)
    no_play(monkeypatch)
    with Store(tmp_path / "r").writing():
        err = one_line_error(capsys, "experiment", str(spec), "--out", str(tmp_path / "r"),
                             "--no-progress")
    assert "is in use by pid" in err and "another --out folder" in err


def test_tune_help_explains_every_option(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["tune", "--help"])
    out, _ = capsys.readouterr()
    assert exit_info.value.code == 0
    for option in ("--trials", "--deals", "--holdout-deals", "--holdout-seed", "--sampler",
                   "--out", "--ship", "--workers", "--policy", "--rule", "--seed"):
        assert option in out
    assert "-10..10" in out and "-300..300" in out and "OUT/study.db" in out


def test_tune_writes_a_policy_file_and_ships_the_tuned_policy(capsys, tmp_path, monkeypatch):
    import simsol.policies as policies
    shipped = tmp_path / "tuned.toml"  # the shipped file's header, no game's weights
    shipped.write_text(policies.TUNED_FILE.read_text().split("\n[")[0] + "\n")
    monkeypatch.setattr(policies, "TUNED_FILE", shipped)
    err = one_line_error(capsys, "run", "klondike", "--policy", "tuned", "--no-progress")
    assert "no tuned weights for klondike yet" in err
    assert "\n  tuned (" not in run(capsys, "policies", "klondike")[1]
    out_dir = tmp_path / "t"
    code, out, err = run(capsys, "tune", "klondike", "--trials", "2", "--deals", "60",
                         "--holdout-deals", "80", "--out", str(out_dir), "--workers", "1",
                         "--no-progress", "--ship")
    assert code == 0, err
    for fragment in ("klondike:book@r1  tuned heuristic  sampler tpe", "trials        2 (2 run",
                     "held out      seed 1, deals 0..79", "difference", "95% CI",
                     str(out_dir / "tuned.toml"), "tuned@v1"):
        assert fragment in out
    code, out, err = run(capsys, "run", "klondike", "--deals", "20", "--workers", "1",
                         "--no-progress", "--policy-file", str(out_dir / "tuned.toml"),
                         "--policy", "tuned-klondike")
    assert code == 0, err
    code, out, err = run(capsys, "run", "klondike", "--deals", "20", "--workers", "1",
                         "--no-progress", "--policy", "tuned")
    assert code == 0 and "policy tuned@v1 " in out, err
    assert "\n  tuned (heuristic): the weights simsol tune found" in run(
        capsys, "policies", "klondike")[1]
    assert "\n    tuned: the weights simsol tune found" in run(capsys, "games", "klondike")[1]
    assert "\n    tuned:" not in run(capsys, "games", "canfield")[1]
    # the same command again plays no trial
    code, out, _ = run(capsys, "tune", "klondike", "--trials", "2", "--deals", "60",
                       "--holdout-deals", "80", "--out", str(out_dir), "--workers", "1",
                       "--no-progress")
    assert code == 0 and "trials        2 (0 run now)" in out


def test_policies_lists_a_games_own_features_and_its_tuned_tables(capsys, tmp_path, monkeypatch):
    import simsol.policies as policies
    code, out, _ = run(capsys, "policies", "twelve-by-five")
    assert code == 0 and "twelve-by-five's own: next_free" in out
    path = tmp_path / "tuned.toml"
    path.write_text('[klondike]\nbase = "heuristic"\nversion = 2\n\n["klondike:standard"]\n'
                    'base = "heuristic"\nversion = 1\nrules = "klondike:standard@r1"\n'
                    'weight = { reveal = 3.0 }\n')
    monkeypatch.setattr(policies, "TUNED_FILE", path)
    code, out, _ = run(capsys, "policies", "klondike")
    assert code == 0 and "\n  tuned (heuristic)" in out
    assert "under --preset standard: tuned (heuristic): the weights simsol tune found for " \
           "klondike under klondike:standard@r1" in out and "weight.reveal=3.0" in out
