"""``simsol tune``: search a weighted policy's weights with Optuna, check them on held-out deals.

The search space is every feature weight the policy's base weighs for the game
(``weight.FEATURE``, see ``tunable_features``) and the kind weight of every move kind in the
policy's order (``kind.KIND``).  The objective is the number of training deals won: deals
``0 .. deals-1`` of ``seed``, the same deals for every trial, so trials differ only by their
weights.  Trial 0 is always the starting policy's own values, so the best trial is never worse
on the training deals than the start.

A study lives in ``OUT/study.db`` (Optuna's SQLite storage) under a name made of the rules id,
the starting policy's id, the deals and the seed: the same command run again continues it and
plays only the trials still missing to reach ``trials``, and a folder can hold the studies of
several such commands.  One tuner at a time holds a folder (a file lock).

When the trials are done, the best weights and the starting policy play ``holdout_deals`` deals
of another seed (``holdout_seed``), the same deals for both, and the result gives both win rates
with their Wilson 95% intervals and the paired difference with its interval: the training
figure is chosen as the best of many, so it flatters; the held-out one does not.

``OUT/tuned.toml`` is a policy file (``--policy-file OUT/tuned.toml --policy tuned-GAME``);
``ship`` writes a result into the package's own ``simsol/tuned.toml``, which the built-in
``tuned`` policy reads.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import sys
import tomllib
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from simsol.backends import check_workers
from simsol.engine.loop import DEFAULT_MAX_MOVES
from simsol.engine.streams import MAX_SEED
from simsol.games import get_game
from simsol.policies import BUILT_IN, KIND_GAP, TUNED, PolicyConfig, full_order, with_options
from simsol.rules import RuleSet, SimsolError, read_toml, unknown
from simsol.runner import MAX_DEALS, Result, check_count, make_job, simulate, warm_up
from simsol.stats import paired_difference

WEIGHT_RANGE = (-10.0, 10.0)
"""Where each feature weight is searched.  A feature counts cards or piles (0 or 1 for most,
up to a pile's length for ``source_length`` and ``hidden_under``), so ±10 lets one feature
outweigh all the others put together without reaching across kinds (``KIND_GAP`` apart)."""

KIND_RANGE = (-3 * KIND_GAP, 3 * KIND_GAP)
"""Where each ``kind.KIND`` is searched.  A move's score is ``KIND_GAP * (len(order) - rank) +
kind weight + features``, kinds ``KIND_GAP`` (100) apart in the greedy order, so a kind weight
in ±300 can move a kind up to three places up or down the order, past the kinds near it (and
make two kinds tie, so the features choose between them): the tuner can reorder the kinds
locally without the search space growing with the number of kinds.  The kinds searched are the
policy's order (the game's greedy order, which lists every kind the game makes), less the kinds
switched off."""

SAMPLERS = ("tpe", "cmaes")
DEFAULT_TRIALS = 50
DEFAULT_DEALS = 2_000
DEFAULT_HOLDOUT_DEALS = 10_000
MAX_TRIALS = 1_000_000


def tunable_features(game) -> tuple[str, ...]:
    """The features a weighted base weighs for ``game`` (the shared ones and the game's own):
    the weights ``simsol tune`` searches."""
    return game.feature_names


def tunable_kinds(game, config: PolicyConfig) -> tuple[str, ...]:
    """The move kinds whose weight is searched: the policy's order (the game's greedy order
    unless the policy sets its own), less the kinds switched off."""
    return full_order(config.order or game.greedy_order, (), config.off)


def start_values(game, config: PolicyConfig) -> dict[str, float]:
    """The starting policy's value of every searched parameter (0 where it sets none)."""
    values = {f"weight.{f}": float(config.weights.get(f, 0.0)) for f in tunable_features(game)}
    return values | {f"kind.{k}": float(config.kind_weights.get(k, 0.0))
                     for k in tunable_kinds(game, config)}


def search_space(game, config: PolicyConfig) -> dict[str, tuple[float, float]]:
    """``parameter -> (low, high)``: ``WEIGHT_RANGE`` (or the game's ``FEATURE_RANGES`` for a
    feature meant to move a move past whole kinds) and ``KIND_RANGE``, widened to hold the
    starting value where it lies outside."""
    space = {}
    for name, start in start_values(game, config).items():
        feature = name.partition(".")[2]
        low, high = (game.feature_ranges.get(feature, WEIGHT_RANGE) if name.startswith("weight.")
                     else KIND_RANGE)
        space[name] = (min(low, start), max(high, start))
    return space


def weighted_policies() -> list[str]:
    return [name for name, config in BUILT_IN.items() if config.player.weighted] + [TUNED]


@dataclass(frozen=True)
class TuneResult:
    """A finished tuning: the study's best weights and the held-out comparison with the start.

    ``holdout_start`` and ``holdout_tuned`` are the two runs on the held-out deals (their
    records kept, deal by deal the same deals); ``difference`` is tuned minus start, with its
    95% interval, as fractions."""

    game: str
    rules: RuleSet
    start: PolicyConfig
    tuned: PolicyConfig
    params: dict
    start_params: dict
    sampler: str
    seed: int
    deals: int
    trials: int  # finished trials in the study
    ran: int  # of which this call ran
    best_trial: int
    train_best: int  # training deals won by the best trial
    train_start: int  # and by the starting policy (trial 0)
    holdout_seed: int
    holdout_deals: int
    holdout_start: Result
    holdout_tuned: Result
    difference: tuple[float, float, float]
    study_name: str
    storage: str
    out: Path
    policy_file: Path
    command: str

    @property
    def lost_held_out(self) -> bool:
        """The best weights won fewer held-out deals than the start (``ship`` keeps the start)."""
        return self.difference[0] < 0

    @property
    def policy_name(self) -> str:
        """The tuned policy's name in ``policy_file``."""
        return self.tuned.name

    def trained_text(self) -> str:
        trials = f"{self.trials} trial{'s' if self.trials != 1 else ''}"
        return (f"{trials} on deals 0..{self.deals - 1:,} of seed {self.seed}: best "
                f"trial {self.best_trial} won {self.train_best:,} "
                f"({percent(self.train_best, self.deals)}), the start {self.train_start:,} "
                f"({percent(self.train_start, self.deals)})")

    def holdout_text(self) -> str:
        mean, low, high = self.difference
        return (f"deals 0..{self.holdout_deals - 1:,} of seed {self.holdout_seed}: start "
                f"{rate_text(self.holdout_start)}, tuned {rate_text(self.holdout_tuned)}, "
                f"difference {points(mean)} points (95% CI {points(low)} to {points(high)})")

    def summary(self) -> str:
        """The table ``simsol tune`` prints."""
        mean, low, high = self.difference
        lines = [
            f"{self.rules.id}  tuned {self.start_label}  sampler {self.sampler}  "
            f"study {self.out / 'study.db'}",
            f"  trials        {self.trials:,} ({self.ran:,} run now), best trial "
            f"{self.best_trial}",
            f"  training      seed {self.seed}, deals 0..{self.deals - 1:,}: start "
            f"{self.train_start:,} = {percent(self.train_start, self.deals)}, best "
            f"{self.train_best:,} = {percent(self.train_best, self.deals)}",
            f"  held out      seed {self.holdout_seed}, deals 0..{self.holdout_deals - 1:,}, "
            "the same deals for both",
            f"    start       {rate_text(self.holdout_start)}",
            f"    tuned       {rate_text(self.holdout_tuned)}",
            f"    difference  {points(mean)} points (95% CI {points(low)} to {points(high)})",
            f"  policy file   {self.policy_file}  (--policy-file {self.policy_file} --policy "
            f"{self.policy_name})",
        ]
        return "\n".join(lines)

    @property
    def start_label(self) -> str:
        return self.holdout_start.policy.id


def percent(wins: int, deals: int) -> str:
    return f"{100 * wins / deals:.2f}%"


def rate_text(result: Result) -> str:
    low, high = result.ci
    return (f"{result.wins:,} = {100 * result.win_rate:.3f}% (95% CI {100 * low:.3f}% to "
            f"{100 * high:.3f}%)")


def points(value: float) -> str:
    return f"{100 * value:+.2f}" if math.isfinite(value) else f"{value:+}"


def default_out(game: str, preset: str | None, policy: str) -> Path:
    return Path("results") / "tune" / f"{game}-{preset or 'book'}-{policy}"


@contextmanager
def holding(out: Path):
    """Hold ``out``'s lock while a tuner uses it; a folder another tuner holds is an error."""
    from filelock import FileLock, Timeout

    from simsol.store import make_folder
    make_folder(out, "tuning folder")
    lock = FileLock(out / ".lock", timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise SimsolError(f"{out} is in use by another simsol tune; wait for it to finish or "
                          "use another --out folder") from None
    try:
        yield
    finally:
        lock.release()


@contextmanager
def quiet_optuna():
    """Optuna's log lines and warnings (one per trial) off the terminal."""
    import optuna
    level = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module="optuna")
            warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
            yield
    finally:
        optuna.logging.set_verbosity(level)


def make_sampler(name: str, seed: int, x0: dict):
    import optuna
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    try:
        import cmaes  # noqa: F401
    except ImportError:
        raise SimsolError("the cmaes sampler needs the cmaes package: pip install cmaes") from None
    return optuna.samplers.CmaEsSampler(x0=x0, seed=seed, warn_independent_sampling=False)


class TrialProgress:
    """A tqdm bar over trials on a terminal, a line per finished trial in a log, or nothing."""

    def __init__(self, total: int, done: int, desc: str, enabled: bool):
        from simsol.runner import _in_a_notebook
        self.bar = None
        self.enabled, self.total, self.done, self.desc = enabled, total, done, desc
        if enabled and (sys.stderr.isatty() or _in_a_notebook()):
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, initial=done, unit="trial", desc=desc)

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text)
        elif self.enabled:
            print(text, file=sys.stderr, flush=True)

    def update(self, best: float) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix(best=f"{best:,.0f}", refresh=False)
            self.bar.update(1)
        elif self.enabled:
            self.write(f"{self.desc}: trial {self.done} of {self.total}, best {best:,.0f} won")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def study_name(rules: RuleSet, policy_id: str, deals: int, seed: int, max_moves: int) -> str:
    name = f"{rules.id} {policy_id} deals={deals} seed={seed}"
    if max_moves != DEFAULT_MAX_MOVES:
        name += f" max_moves={max_moves}"
    return name


def canonical_command(game, preset, rules, policy, trials, deals, seed, holdout_seed,
                      holdout_deals, sampler, out, policy_options, policy_file, max_moves) -> str:
    """The ``simsol tune`` command that makes the same study, every default spelt out (a policy
    file given as a dict, not a path, is named FILE)."""
    words = ["simsol", "tune", game, "--preset", preset or "book"]
    for key, value in (rules or {}).items():
        words += ["--rule", f"{key}={value}"]
    words += ["--policy", policy]
    for key, value in (policy_options or {}).items():
        words += ["--policy-opt", f"{key}={value}"]
    if policy_file is not None:
        words += ["--policy-file", str(policy_file)]
    words += ["--trials", str(trials), "--deals", str(deals), "--seed", str(seed),
              "--holdout-deals", str(holdout_deals), "--holdout-seed", str(holdout_seed),
              "--sampler", sampler, "--out", str(out)]
    if max_moves != DEFAULT_MAX_MOVES:
        words += ["--max-moves", str(max_moves)]
    return shlex.join(words)


def tune(game: str, preset: str | None = None, rules: dict | None = None,
         policy: str = "heuristic", trials: int = DEFAULT_TRIALS, deals: int = DEFAULT_DEALS,
         seed: int = 0, holdout_seed: int | None = None,
         holdout_deals: int = DEFAULT_HOLDOUT_DEALS, sampler: str = "tpe",
         out: str | Path | None = None, workers: int | None = None, progress: bool = True,
         policies: dict | str | Path | None = None, policy_options: dict | None = None,
         max_moves: int = DEFAULT_MAX_MOVES, scheduler: str | None = None,
         command: str | None = None) -> TuneResult:
    """Tune ``policy``'s weights for ``game`` (see the module docstring) and return the result.

    ``trials``: finished trials the study should hold (a study that has them runs none and only
    re-checks the held-out deals); ``deals``: training deals per trial, of ``seed``;
    ``holdout_seed`` (default ``seed + 1``) and ``holdout_deals``: the held-out check;
    ``sampler``: ``"tpe"`` or ``"cmaes"``, seeded from ``seed`` so a run is reproducible;
    ``out``: the folder (default ``results/tune/GAME-PRESET-POLICY``); ``policies``: user
    policies as for ``simulate``, or the path of a policy file; ``policy_options`` as for
    ``simulate``; ``command``: the command line written into ``tuned.toml`` (default: the
    equivalent ``simsol tune`` command with every default spelt out)."""
    policy_file = None
    if isinstance(policies, (str, Path)):
        from simsol.policies import load_policy_file
        policy_file, policies = policies, load_policy_file(policies)
    elif policies:
        policy_file = "FILE"
    job = make_job(game, preset, rules, policy, seed, max_moves, policy_options, policies)
    start = job.policy.config
    if not start.player.weighted:
        raise SimsolError(f"simsol tune needs a weighted policy, one of "
                          f"{', '.join(weighted_policies())} (or a policy file's policy on the "
                          f"heuristic or lookahead base); {policy!r} is a {start.base} player "
                          "with no weights to tune")
    trials = check_count("trials", trials, 1, MAX_TRIALS)
    deals = check_count("deals", deals, 1, MAX_DEALS)
    holdout_deals = check_count("holdout deals", holdout_deals, 1, MAX_DEALS)
    if holdout_seed is None:
        holdout_seed = job.seed + 1 if job.seed < MAX_SEED else job.seed - 1
    holdout_seed = check_count("holdout seed", holdout_seed, 0, MAX_SEED)
    if holdout_seed == job.seed:
        raise SimsolError(f"the holdout seed must differ from the training seed ({job.seed}): "
                          "held-out deals are deals the tuner never saw")
    if sampler not in SAMPLERS:
        raise unknown("sampler", sampler, SAMPLERS)
    check_workers(workers, scheduler)
    out = Path(out) if out is not None else default_out(game, job.rules.preset, policy)
    the_game = get_game(game)
    space = search_space(the_game, start)
    x0 = start_values(the_game, start)
    if command is None:
        command = canonical_command(game, job.rules.preset, rules, policy, trials, deals,
                                    job.seed, holdout_seed, holdout_deals, sampler, out,
                                    policy_options, policy_file, job.max_moves)

    def play(params: dict, on_seed: int, count: int, keep: bool, bar: bool = False) -> Result:
        return simulate(game, preset=preset, rules=rules, policy=policy, deals=count,
                        seed=on_seed, workers=workers, max_moves=job.max_moves, progress=bar,
                        scheduler=scheduler, policy_options=(policy_options or {}) | params,
                        policies=policies, keep_records=keep)

    with holding(out), quiet_optuna():
        import optuna
        from optuna.trial import TrialState
        url = f"sqlite:///{out.resolve() / 'study.db'}"
        storage = optuna.storages.RDBStorage(url, engine_kwargs={"connect_args": {"timeout": 60}})
        name = study_name(job.rules, job.policy.id, deals, job.seed, job.max_moves)
        study = optuna.create_study(storage=storage, study_name=name, direction="maximize",
                                    load_if_exists=True,
                                    sampler=optuna.samplers.RandomSampler(seed=0))
        kept_space = study.user_attrs.get("space")
        wanted = {key: list(bounds) for key, bounds in space.items()}
        if kept_space is not None and kept_space != wanted:
            raise SimsolError(f"the study {name!r} in {out} searched other weights or ranges "
                              f"({', '.join(sorted(kept_space))}); use another --out folder")
        study.set_user_attr("space", wanted)
        for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            # we hold the folder's lock, so a running trial is one a stopped tuner left
            storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
        if not any(trial.user_attrs.get("start") for trial in study.get_trials(
                deepcopy=False, states=(TrialState.COMPLETE, TrialState.WAITING))):
            study.enqueue_trial(x0, user_attrs={"start": True})
        finished = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        done = len(finished)
        start_done = any(trial.user_attrs.get("start") for trial in finished)
        # a sampler seeded by the seed and how far the study is: a resumed study does not
        # draw again the points it drew before it was stopped
        sampler_seed = (job.seed * 1_000_003 + len(study.trials)) % 2**32
        study = optuna.load_study(study_name=name, storage=storage,
                                  sampler=make_sampler(sampler, sampler_seed, x0))
        remaining = max(0 if start_done else 1, trials - done)  # trial 0, the start, always

        def objective(trial) -> float:
            params = {key: trial.suggest_float(key, low, high)
                      for key, (low, high) in space.items()}
            return float(play(params, job.seed, deals, keep=False).wins)

        bar = TrialProgress(trials, done, f"tuning {game} {policy}", progress)
        try:
            if remaining:
                warm_up(job, bar.write if progress else None)
                best = [max((t.value for t in study.get_trials(
                    deepcopy=False, states=(TrialState.COMPLETE,))), default=-math.inf)]

                def on_trial(_study, trial) -> None:
                    if trial.state == TrialState.COMPLETE:
                        best[0] = max(best[0], trial.value)
                        bar.update(best[0])

                study.optimize(objective, n_trials=remaining, callbacks=[on_trial])
        finally:
            bar.close()
        finished = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        ran = len(finished) - done
        best_trial = max(finished, key=lambda t: (t.value, -t.number))
        first = next(t for t in finished if t.user_attrs.get("start"))
        params = {key: float(best_trial.params[key]) for key in space}

        held_start = play({}, holdout_seed, holdout_deals, keep=True, bar=progress)
        held_tuned = play(params, holdout_seed, holdout_deals, keep=True, bar=progress)
        if not np.array_equal(held_start.data["deal"], held_tuned.data["deal"]):
            raise AssertionError("the held-out runs were not played on the same deals")
        difference = paired_difference(held_tuned.data["won"], held_start.data["won"])
        tuned = replace(with_options(start, params), name=f"tuned-{game}",
                        doc=f"{policy} tuned for {job.rules.id} by simsol tune", stamp="")
        result = TuneResult(
            game=game, rules=job.rules, start=start, tuned=tuned, params=params,
            start_params=x0, sampler=sampler, seed=job.seed, deals=deals,
            trials=len(finished), ran=ran, best_trial=best_trial.number,
            train_best=int(best_trial.value), train_start=int(first.value),
            holdout_seed=holdout_seed, holdout_deals=holdout_deals, holdout_start=held_start,
            holdout_tuned=held_tuned, difference=difference, study_name=name, storage=url,
            out=out, policy_file=out / "tuned.toml", command=command)
        write_policy_file(result)
    return result


# --- writing TOML (the few types a policy table holds) ---------------------------------------

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(key: str) -> str:
    return key if BARE_KEY.match(key) else json.dumps(key)


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SimsolError(f"cannot write {value!r} to a TOML file")
        return repr(value)  # the shortest text that reads back as the same float
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    raise SimsolError(f"cannot write {value!r} to a TOML file")


def toml_table(path: list[str], table: dict) -> list[str]:
    """``[a.b]`` with the table's plain values, then its sub-tables as ``[a.b.c]``."""
    lines = ["[" + ".".join(toml_key(part) for part in path) + "]"]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items()
              if not isinstance(v, dict)]
    for key, value in table.items():
        if isinstance(value, dict):
            lines += [""] + toml_table(path + [key], value)
    return lines


def policy_table(config: PolicyConfig, start: PolicyConfig) -> dict:
    """A policy-file table for ``config``, a weighted policy tuned from ``start``: its base (the
    starting policy where it is built in), every setting of the base, then the weights."""
    table: dict = {"base": start.name if start.name in BUILT_IN else config.base}
    if config.order:
        table["order"] = list(config.order)
    table |= {setting.name: config.value(setting.name) for setting in config.player.settings
              if config.value(setting.name) is not None}
    table["weight"] = dict(config.weights)
    table["kind"] = dict(config.kind_weights)
    return table


def write_policy_file(result: TuneResult) -> Path:
    """``OUT/tuned.toml``: the tuned policy as ``[policies.tuned-GAME]``, with how it was made."""
    lines = [f"# Made by: {result.command}",
             f"# Rules: {result.rules.id} (tuned under these rules; they are not part of a "
             "policy)",
             f"# Trained: {result.trained_text()}",
             f"# Held out: {result.holdout_text()}",
             f"# Use: simsol run {result.game} --policy-file {result.policy_file} --policy "
             f"{result.policy_name}",
             ""]
    table = policy_table(result.tuned, result.start)
    table = {"doc": result.tuned.doc, **table}
    lines += toml_table(["policies", result.policy_name], table)
    result.policy_file.write_text("\n".join(lines) + "\n")
    return result.policy_file


# --- shipping into the built-in ``tuned`` policy ---------------------------------------------

def table_blocks(text: str) -> tuple[str, dict[str, str]]:
    """A tuned-weights file split into its leading comment and, per top-level table, the text of
    that table with its sub-tables (``[GAME]``, ``[GAME.weight]``, ...), so that shipping one
    table rewrites only that table and keeps every other one as written, comments included."""
    header, blocks, name = [], {}, None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            try:
                name = next(iter(tomllib.loads(stripped + "\n")))
            except (tomllib.TOMLDecodeError, StopIteration):  # not a table header: content
                pass
            else:
                blocks.setdefault(name, [])
        (blocks[name] if name is not None else header).append(line)
    return ("\n".join(header).strip("\n"),
            {name: "\n".join(lines).strip("\n") for name, lines in blocks.items()})


def ship(result: TuneResult, path: str | Path | None = None) -> tuple[Path, int]:
    """Write ``result``'s weights as the table of the preset it was tuned on in the package's
    ``tuned.toml`` (or ``path``): ``[GAME]`` for the book's rules, ``["GAME:PRESET"]`` for
    another preset (``policies.tuned_key``), replacing that table; return the file and the
    table's new version (the old one plus 1), which ``tuned``'s policy id shows (``tuned@v2``,
    ``tuned:standard@v1``).  The other tables are kept as written, comments and all.  A
    result tuned with ``--rule`` overrides beyond its preset is refused: ``tuned`` picks its
    table by preset alone, so it would play those weights under rules they were not tuned on.

    Weights that lost to the start on the held-out deals are not shipped: the table then holds
    the starting weights, with a ``note`` saying so, so the built-in ``tuned`` is never a player
    known to be worse than the one it started from."""
    from simsol import policies
    if result.rules.overrides:
        raise SimsolError(f"cannot ship weights tuned under {result.rules.id}: the built-in "
                          "tuned policy has a table per preset, so tune on a preset without "
                          "--rule to ship (the policy file in the study folder keeps these)")
    key = policies.tuned_key(result.game, result.rules.preset)
    path = Path(path) if path is not None else policies.TUNED_FILE
    text = path.read_text() if path.exists() else ""
    data = read_toml(path, "tuned-weights file") if path.exists() else {}
    old = data.get(key, {})
    version = int(old.get("version", 0)) + 1 if isinstance(old, dict) else 1
    table = policy_table(result.start if result.lost_held_out else result.tuned, result.start)
    entry = {"base": table.pop("base"), "version": version, "command": result.command,
             "rules": result.rules.id, "trained": result.trained_text(),
             "holdout": result.holdout_text(), **table}
    if result.lost_held_out:
        entry["note"] = ("the best weights lost to the start on the held-out deals: the starting "
                         "weights are shipped")
    header, blocks = table_blocks(text)
    new_block = "\n".join(toml_table([key], entry))
    if key in blocks:
        blocks[key] = new_block
    else:  # a new preset's table goes after the game's others
        names = list(blocks)
        at = max((i + 1 for i, name in enumerate(names)
                  if name.split(":")[0] == result.game), default=len(names))
        blocks = dict(list(blocks.items())[:at] + [(key, new_block)] + list(blocks.items())[at:])
    path.write_text("\n\n".join(([header] if header else []) + list(blocks.values())) + "\n")
    return path, version
