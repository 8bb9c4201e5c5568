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
    for name in ("random", "greedy", "heuristic", "lookahead", "thoughtful"):
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
