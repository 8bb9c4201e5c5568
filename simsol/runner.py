"""``simulate``: validate the request, play chunks of deals on every core, collect the records."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from simsol.engine.binder import bind
from simsol.engine.loop import DEFAULT_MAX_MOVES
from simsol.engine.state import (
    END_REASONS,
    GAVE_UP,
    MOVE_CAP,
    NO_PROGRESS,
    RECORD_DTYPE,
    STUCK,
)
from simsol.engine.streams import MAX_SEED
from simsol.games import get_game
from simsol.players import BASES
from simsol.policies import Policy, build_policy
from simsol.rules import RuleSet, SimsolError, build_rules, encode_rules
from simsol.stats import wilson

MAX_DEALS = 2**40
DEFAULT_CHUNK = 10_000


def play_chunk(game_name: str, rules: np.ndarray, policy: np.ndarray, base: str, seed: int,
               first: int, count: int, max_moves: int) -> np.ndarray:
    """Play deals ``first .. first+count-1``: one record per deal, in deal order."""
    game = get_game(game_name)
    player = BASES[base]
    out = np.zeros(count, dtype=RECORD_DTYPE)
    bind(game, player.kernel).run_batch(game.deck.cards(), game.n_piles, game.capacity, rules,
                                        policy, player.make_work(game, policy), seed, first,
                                        max_moves, out)
    return out


def check_count(name: str, value, low: int, high: int) -> int:
    """An integer in ``low..high`` or a one-line error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SimsolError(f"{name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise SimsolError(f"{name} must be between {low:,} and {high:,}, got {value:,}")
    return int(value)


@dataclass
class Result:
    """The records of one run plus the rules and policy that made them."""

    game: str
    rules: RuleSet
    policy: Policy
    seed: int
    data: np.ndarray
    seconds: float

    @property
    def deals(self) -> int:
        return len(self.data)

    @property
    def wins(self) -> int:
        return int(self.data["won"].sum())

    @property
    def win_rate(self) -> float:
        return self.wins / self.deals

    @property
    def ci(self) -> tuple[float, float]:
        """Wilson 95% interval for the win rate."""
        return wilson(self.wins, self.deals)

    @property
    def capped(self) -> int:
        """Games cut off by the move cap (neither won nor lost: reported, not counted as losses)."""
        return int((self.data["end"] == MOVE_CAP).sum())

    @property
    def records(self) -> pd.DataFrame:
        frame = pd.DataFrame(self.data)
        frame["end"] = pd.Categorical.from_codes(frame["end"], categories=list(END_REASONS))
        return frame

    def table(self) -> pd.DataFrame:
        """One summary row: win rate with its interval, foundation cards, how games ended."""
        low, high = self.ci
        ends = self.data["end"]
        row = {
            "game": self.game,
            "rules": self.rules.id,
            "policy": self.policy.id,
            "seed": self.seed,
            "deals": self.deals,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "ci_low": low,
            "ci_high": high,
            "mean_foundation": float(self.data["foundation"].mean()),
            **self.lost_score(),
            "stuck": int((ends == STUCK).sum()),
            "no_progress": int((ends == NO_PROGRESS).sum()),
            "gave_up": int((ends == GAVE_UP).sum()),
            "capped": self.capped,
            "deals_per_s": self.deals / self.seconds if self.seconds > 0 else float("nan"),
        }
        return pd.DataFrame([row])

    def lost_score(self) -> dict:
        """The books' score of the lost games (cards on the foundations): quartiles and mean."""
        lost = self.data["foundation"][~self.data["won"]]
        if len(lost) == 0:
            return {"lost_mean_foundation": float("nan"), "lost_foundation_q1": float("nan"),
                    "lost_foundation_median": float("nan"), "lost_foundation_q3": float("nan")}
        q1, median, q3 = np.percentile(lost, [25, 50, 75])
        return {"lost_mean_foundation": float(lost.mean()), "lost_foundation_q1": float(q1),
                "lost_foundation_median": float(median), "lost_foundation_q3": float(q3)}

    def summary(self) -> str:
        low, high = self.ci
        return (f"{self.rules.id} policy={self.policy.id} seed={self.seed}: "
                f"{self.wins:,} of {self.deals:,} won = {100 * self.win_rate:.3f}% "
                f"(95% CI {100 * low:.3f}-{100 * high:.3f}%), "
                f"mean {self.data['foundation'].mean():.2f} cards on foundations, "
                f"{self.capped:,} cut by the move cap")


def chunk_starts(first: int, deals: int, chunk_size: int) -> list[tuple[int, int]]:
    return [(start, min(chunk_size, first + deals - start))
            for start in range(first, first + deals, chunk_size)]


@dataclass(frozen=True)
class Job:
    """A validated request: which game, rules, policy, seed and move cap to play deals under."""

    game: str
    rules: RuleSet
    policy: Policy
    seed: int
    max_moves: int

    def chunk_args(self, start: int, count: int) -> tuple:
        """The picklable arguments of ``timed_chunk`` for one chunk (sent to workers)."""
        encoded = encode_rules(get_game(self.game), self.rules)
        return (self.game, encoded, self.policy.array, self.policy.config.base, self.seed, start,
                count, self.max_moves)


def make_job(game: str, preset: str | None = None, rules: dict | None = None,
             policy: str = "greedy", seed: int = 0, max_moves: int = DEFAULT_MAX_MOVES,
             policy_options: dict | None = None, policies: dict | None = None) -> Job:
    """Validate everything about a run before any deal is played."""
    the_game = get_game(game)
    ruleset = build_rules(the_game, preset, rules)
    the_policy = build_policy(the_game, policy, policy_options, policies)
    return Job(game, ruleset, the_policy, check_count("seed", seed, 0, MAX_SEED),
               check_count("max moves", max_moves, 1, 10**7))


def timed_chunk(*args) -> tuple[np.ndarray, float]:
    """``play_chunk`` and the seconds it took (so stored results can report deals/s)."""
    started = time.perf_counter()
    records = play_chunk(*args)
    return records, time.perf_counter() - started


def warm_up(job: Job) -> None:
    play_chunk(*job.chunk_args(0, 1))


def play_chunks(job: Job, chunks: list[tuple[int, int]], workers: int | None = None,
                scheduler: str | None = None, on_chunk=None, bar=None) -> None:
    """Play ``chunks`` of deals, calling ``on_chunk(start, records, seconds)`` as each finishes.

    Chunks run in this process (one worker), in forked processes on every core, or as tasks on a
    Dask cluster (``scheduler``); the records are the same whichever runs them.
    """
    from simsol.backends import run_tasks
    args_list = [job.chunk_args(start, count) for start, count in chunks]
    if scheduler is None:
        warm_up(job)  # compile (or load) the kernels here, before workers fork
    for args, (records, seconds) in run_tasks(timed_chunk, args_list, workers, scheduler):
        if on_chunk is not None:
            on_chunk(args[5], records, seconds)
        if bar is not None:
            bar.update(len(records))


def simulate(game: str, preset: str | None = None, rules: dict | None = None,
             policy: str = "greedy", deals: int = 10_000, seed: int = 0, first: int = 0,
             workers: int | None = None, chunk_size: int = DEFAULT_CHUNK,
             max_moves: int = DEFAULT_MAX_MOVES, progress: bool = False,
             scheduler: str | None = None, policy_options: dict | None = None,
             policies: dict | None = None) -> Result:
    """Play ``deals`` seeded deals of ``game`` and return their records.

    Deal ``i`` of ``seed`` is the same for every policy, preset, chunk size, worker count and
    backend, so two runs with the same seed are paired deal by deal.  ``scheduler`` is the
    address of a Dask scheduler (``tcp://host:8786``) to run the chunks on a cluster.
    ``policy_options`` changes the policy's settings (``{"weight.reveal": 3}``); ``policies``
    adds user-defined policies (``simsol.policies.load_policy_file``).
    """
    job = make_job(game, preset, rules, policy, seed, max_moves, policy_options, policies)
    deals = check_count("deals", deals, 1, MAX_DEALS)
    first = check_count("first deal", first, 0, MAX_SEED - deals)
    chunk_size = check_count("chunk size", chunk_size, 1, MAX_DEALS)
    chunks = chunk_starts(first, deals, chunk_size)
    parts: dict[int, np.ndarray] = {}
    if scheduler is None:
        warm_up(job)  # so that the clock below times play, not compilation
    started = time.perf_counter()
    with tqdm(total=deals, disable=not progress, unit="deal", unit_scale=True,
              desc=f"{game} {job.rules.preset} {policy}", smoothing=0.1) as bar:
        play_chunks(job, chunks, workers, scheduler,
                    on_chunk=lambda start, records, _: parts.__setitem__(start, records), bar=bar)
    seconds = time.perf_counter() - started
    data = np.concatenate([parts[start] for start, _ in chunks])
    return Result(game, job.rules, job.policy, job.seed, data, seconds)
