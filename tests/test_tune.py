"""simsol tune: a resumable Optuna study, trial 0 the start, a paired held-out check, a policy
file that loads, and the built-in ``tuned`` policy read from the shipped weights."""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import optuna
import pytest
from filelock import FileLock

import simsol
import simsol.policies as policies
from simsol.games import get_game
from simsol.policies import (
    BUILT_IN,
    FAST_POLICIES,
    POLICY_DOCS,
    build_policy,
    game_policies,
    load_policy_file,
)
from simsol.rules import SimsolError
from simsol.stats import paired_difference
from simsol.tune import KIND_RANGE, WEIGHT_RANGE, search_space, ship, start_values, tune

FAST = {"deals": 100, "holdout_deals": 150, "workers": 1, "progress": False}


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """Three trials of the heuristic on 100 Klondike deals (do not extend this one's study:
    copy its folder)."""
    return tune("klondike", trials=3, out=tmp_path_factory.mktemp("tune") / "k", **FAST)


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """The package's tuned-weights file swapped for an empty copy (its header only)."""
    path = tmp_path / "tuned.toml"
    path.write_text(policies.TUNED_FILE.read_text().split("\n[")[0] + "\n")
    monkeypatch.setattr(policies, "TUNED_FILE", path)
    return path


def trials_of(result):
    return optuna.load_study(study_name=result.study_name, storage=result.storage).trials


def test_trial_zero_is_the_starting_policy(tuned):
    game = get_game("klondike")
    first = trials_of(tuned)[0]
    assert first.params == start_values(game, policies.for_game(game, BUILT_IN["heuristic"]))
    assert first.params["weight.hold_back"] == -400.0  # Klondike's own heuristic default
    assert first.params["weight.reveal"] == 5.0 and first.params["kind.stock"] == 0.0
    start = simsol.simulate("klondike", policy="heuristic", deals=100, seed=0, workers=1)
    assert first.value == start.wins == tuned.train_start
    assert tuned.train_best >= tuned.train_start and tuned.trials == 3 and tuned.ran == 3


def test_the_search_space_is_every_feature_and_every_kind_in_the_order(tuned):
    game = get_game("klondike")
    space = search_space(game, BUILT_IN["heuristic"])
    assert {k for k in space if k.startswith("kind.")} == {f"kind.{k}"
                                                           for k in game.greedy_order}
    assert space["weight.cards"] == WEIGHT_RANGE and space["kind.stock"] == KIND_RANGE
    assert set(tuned.params) == set(space)
    for trial in trials_of(tuned):
        assert all(space[k][0] <= v <= space[k][1] for k, v in trial.params.items())


def test_the_study_resumes_with_only_the_missing_trials(tuned, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(tuned.out, out)
    again = tune("klondike", trials=4, out=out, **FAST)
    assert again.ran == 1 and again.trials == 4
    assert [t.number for t in trials_of(again)] == [0, 1, 2, 3]
    assert again.train_start == tuned.train_start
    done = tune("klondike", trials=4, out=out, **FAST)
    assert done.ran == 0 and done.trials == 4 and done.params == again.params


def test_a_run_is_reproducible(tuned, tmp_path):
    other = tune("klondike", trials=3, out=tmp_path / "other", **FAST)
    assert [t.params for t in trials_of(other)] == [t.params for t in trials_of(tuned)]
    assert other.params == tuned.params


def test_the_held_out_check_is_paired_on_another_seed(tuned):
    start, best = tuned.holdout_start, tuned.holdout_tuned
    assert tuned.holdout_seed == 1 != tuned.seed
    assert start.seed == best.seed == 1 and start.deals == best.deals == 150
    assert np.array_equal(start.data["deal"], np.arange(150))
    assert np.array_equal(start.data["deal"], best.data["deal"])
    assert tuned.difference == paired_difference(best.data["won"], start.data["won"])
    plain = simsol.simulate("klondike", policy="heuristic", deals=150, seed=1, workers=1)
    assert np.array_equal(plain.data, start.data)
    assert "95% CI" in tuned.summary() and str(tuned.policy_file) in tuned.summary()


def test_the_policy_file_loads_and_plays_the_best_weights(tuned):
    text = tuned.policy_file.read_text()
    assert "# Made by: simsol tune klondike --preset book --policy heuristic --trials 3" in text
    assert "# Held out: deals 0..149 of seed 1" in text
    mine = load_policy_file(tuned.policy_file)
    assert set(mine) == {"tuned-klondike"}
    config = mine["tuned-klondike"]
    assert config.base == "heuristic" and config.value("ties") == "random"
    assert {f"weight.{k}": v for k, v in config.weights.items()} | {
        f"kind.{k}": v for k, v in config.kind_weights.items()} == tuned.params
    game = get_game("klondike")
    loaded = build_policy(game, "tuned-klondike", extra=mine)
    assert np.array_equal(loaded.array, build_policy(game, "heuristic", tuned.params).array)
    replay = simsol.simulate("klondike", policy="tuned-klondike", policies=mine, deals=150,
                             seed=1, workers=1)
    assert np.array_equal(replay.data, tuned.holdout_tuned.data)


def test_cmaes_starts_at_the_policy_too(tmp_path):
    result = tune("klondike", trials=2, sampler="cmaes", out=tmp_path / "c", **FAST)
    first, second = trials_of(result)
    assert first.params == result.start_params and second.params != first.params
    assert result.trials == 2


@pytest.mark.parametrize("kwargs,message", [
    ({"policy": "greedy"}, "needs a weighted policy, one of heuristic, lookahead"),
    ({"policy": "random"}, "'random' is a random player"),
    ({"trials": 0}, "trials must be between 1"),
    ({"deals": 0}, "deals must be between 1"),
    ({"holdout_deals": -3}, "holdout deals must be between 1"),
    ({"holdout_seed": 0}, "holdout seed must differ from the training seed"),
    ({"sampler": "tpee"}, "did you mean 'tpe'"),
    ({"workers": -1}, "workers must be 0"),
    ({"policy": "heuristc"}, "did you mean 'heuristic'"),
])
def test_bad_input_is_one_line_before_anything_runs(tmp_path, kwargs, message):
    out = tmp_path / "never"
    with pytest.raises(SimsolError, match=message) as error:
        tune("klondike", out=out, **(FAST | kwargs))
    assert "\n" not in str(error.value) and not out.exists()


def test_a_folder_another_tuner_holds_is_refused(tmp_path):
    out = tmp_path / "held"
    out.mkdir()
    with FileLock(out / ".lock", timeout=0):
        with pytest.raises(SimsolError, match="in use by another simsol tune"):
            tune("klondike", trials=1, out=out, **FAST)


def test_tuned_without_shipped_weights_is_one_clear_line(shipped):
    for name in ("klondike", "canfield"):
        with pytest.raises(SimsolError, match=f"no tuned weights for {name} yet; run 'simsol "
                                              f"tune {name}"):
            build_policy(get_game(name), "tuned")
        assert "tuned" not in game_policies(get_game(name))
    assert "tuned" not in POLICY_DOCS and "tuned" not in FAST_POLICIES


def test_every_shipped_table_builds_and_says_how_it_was_made():
    from simsol.games import game_names
    assert policies.TUNED_FILE.exists()
    for name in game_names():
        table = policies.tuned_table(name)
        if table is not None:
            assert table["command"].startswith(f"simsol tune {name} ") and "holdout" in table
            assert build_policy(get_game(name), "tuned").id.startswith("tuned@v")


def test_weights_that_lost_held_out_are_not_shipped(tuned, shipped):
    lost = dataclasses.replace(tuned, difference=(-0.01, -0.02, 0.0))
    ship(lost)
    policy = build_policy(get_game("klondike"), "tuned")
    assert policy.config.weights == lost.start.weights
    assert "starting weights are shipped" in policies.tuned_table("klondike")["note"]


def test_shipped_weights_round_trip_into_the_tuned_policy(tuned, shipped):
    tuned = dataclasses.replace(tuned, difference=(max(tuned.difference[0], 0.0),
                                                   *tuned.difference[1:]))
    shipped.write_text(shipped.read_text() + '\n[canfield]\nbase = "heuristic"\n'
                       '# a comment inside another game\'s table\n'
                       'version = 3\nweight = { reveal = 3.5 }\n')
    header = shipped.read_text().split("\n[")[0]
    path, version = ship(tuned)
    assert path == shipped and version == 1
    game = get_game("klondike")
    policy = build_policy(game, "tuned")
    assert policy.config.weights == tuned.tuned.weights
    assert policy.config.kind_weights == tuned.tuned.kind_weights
    mine = load_policy_file(tuned.policy_file)
    assert np.array_equal(policy.array, build_policy(game, "tuned-klondike", extra=mine).array)
    assert policy.id == "tuned@v1" and "tuned" in game_policies(game)
    assert build_policy(game, "tuned", {"ties": "first"}).id == "tuned@v1[ties=first]"
    _, version = ship(tuned)
    assert version == 2 and build_policy(game, "tuned").id == "tuned@v2"
    text = shipped.read_text()
    assert text.startswith(header) and "command = \"simsol tune klondike" in text
    assert "# a comment inside another game's table\nversion = 3" in text  # kept as written
    assert build_policy(get_game("canfield"), "tuned").config.weights == {
        **policies.DEFAULT_WEIGHTS, "reveal": 3.5}
    assert policies.tuned_table("klondike")["rules"] == "klondike:book@r1"
    result = simsol.simulate("klondike", policy="tuned", deals=150, seed=1, workers=1)
    assert np.array_equal(result.data, tuned.holdout_tuned.data)


@pytest.fixture(scope="module")
def tuned_standard(tmp_path_factory):
    """Two trials of the heuristic on 100 Klondike deals of the standard preset."""
    return tune("klondike", preset="standard", trials=2,
                out=tmp_path_factory.mktemp("tune") / "ks", **FAST)


def test_a_preset_gets_its_own_tuned_table(tuned, tuned_standard, shipped):
    """``--ship`` writes the table of the preset it tuned on; ``tuned`` under that preset plays
    it (id ``tuned:standard@vN``), under the others the book's table (``tuned@vN``)."""
    keep = {"difference": (0.0, 0.0, 0.0)}
    ship(dataclasses.replace(tuned, **keep))
    path, version = ship(dataclasses.replace(tuned_standard, **keep))
    assert version == 1 and '["klondike:standard"]' in path.read_text()
    game = get_game("klondike")
    assert policies.tuned_presets(game) == ("book", "standard")
    own = build_policy(game, "tuned", preset="standard")
    assert own.id == "tuned:standard@v1" and "standard table" in own.config.doc
    assert own.config.weights == tuned_standard.tuned.weights
    for preset in (None, "book", "draw1"):
        book = build_policy(game, "tuned", preset=preset)
        assert book.id == "tuned@v1" and book.config.weights == tuned.tuned.weights
    _, version = ship(dataclasses.replace(tuned_standard, **keep))
    assert version == 2 and build_policy(game, "tuned", preset="standard").id == (
        "tuned:standard@v2")
    assert policies.tuned_table("klondike")["version"] == 1  # the book's table untouched
    result = simsol.simulate("klondike", preset="standard", policy="tuned", deals=150, seed=1,
                             workers=1)
    assert result.policy.id == "tuned:standard@v2"
    assert np.array_equal(result.data["won"], tuned_standard.holdout_tuned.data["won"])


def test_weights_tuned_under_rule_overrides_are_not_shipped(tuned, shipped):
    from simsol.rules import build_rules
    other = dataclasses.replace(tuned, rules=build_rules(get_game("klondike"), None,
                                                         {"draw": 1}))
    with pytest.raises(SimsolError, match="tune on a preset without --rule"):
        ship(other)
    assert policies.tuned_table("klondike") is None


def test_every_shipped_table_names_a_game_and_one_of_its_presets():
    from simsol.games import game_names
    for key in policies.tuned_tables():
        game, _, preset = key.partition(":")
        assert game in game_names() and (not preset or preset in get_game(game).presets)
        if preset:
            assert build_policy(get_game(game), "tuned", preset=preset).id.startswith(
                f"tuned:{preset}@v")
