"""``simulate``: validate the request, play chunks of deals on every core, collect the records."""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from simsol.engine.core import DEFAULT_MAX_MOVES, END_REASONS, MOVE_CAP, NO_PROGRESS, STUCK, run_batch
from simsol.deals import MAX_SEED
from simsol.games import get_game
from simsol.policies import Policy, build_policy
from simsol.rules import RuleSet, SimsolError, build_rules, encode_rules
from simsol.stats import wilson

RECORD_DTYPE = np.dtype([
    ("deal", np.int64),
    ("won", np.bool_),
    ("foundation", np.int16),
    ("moves", np.int32),
    ("passes", np.int16),
    ("end", np.int8),
])
MAX_DEALS = 2**40
DEFAULT_CHUNK = 10_000


def play_chunk(game_name: str, rules: np.ndarray, policy: np.ndarray, seed: int, first: int,
               count: int, max_moves: int) -> np.ndarray:
    """Play deals ``first .. first+count-1``: one record per deal, in deal order."""
    game = get_game(game_name)
    out = np.zeros(count, dtype=RECORD_DTYPE)
    out["deal"] = np.arange(first, first + count, dtype=np.int64)
    won = np.zeros(count, dtype=np.bool_)
    foundation = np.zeros(count, dtype=np.int64)
    moves = np.zeros(count, dtype=np.int64)
    passes = np.zeros(count, dtype=np.int64)
    end = np.zeros(count, dtype=np.int64)
    run_batch(game.setup, game.generate, game.apply, game.deck.cards(), game.n_piles,
              game.capacity, rules, policy, seed, first, count, max_moves, won, foundation,
              moves, passes, end)
    out["won"], out["foundation"], out["moves"] = won, foundation, moves
    out["passes"], out["end"] = passes, end
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
            "stuck": int((ends == STUCK).sum()),
            "no_progress": int((ends == NO_PROGRESS).sum()),
            "capped": self.capped,
            "deals_per_s": self.deals / self.seconds if self.seconds > 0 else float("nan"),
        }
        return pd.DataFrame([row])

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


def simulate(game: str, preset: str | None = None, rules: dict | None = None,
             policy: str = "greedy", deals: int = 10_000, seed: int = 0, first: int = 0,
             workers: int | None = None, chunk_size: int = DEFAULT_CHUNK,
             max_moves: int = DEFAULT_MAX_MOVES, progress: bool = False) -> Result:
    """Play ``deals`` seeded deals of ``game`` and return their records.

    Deal ``i`` of ``seed`` is the same for every policy, preset, chunk size and worker count,
    so two runs with the same seed are paired deal by deal.
    """
    the_game = get_game(game)
    ruleset = build_rules(the_game, preset, rules)
    the_policy = build_policy(the_game, policy)
    deals = check_count("deals", deals, 1, MAX_DEALS)
    seed = check_count("seed", seed, 0, MAX_SEED)
    first = check_count("first deal", first, 0, MAX_SEED - deals)
    chunk_size = check_count("chunk size", chunk_size, 1, MAX_DEALS)
    max_moves = check_count("max moves", max_moves, 1, 10**7)
    workers = check_count("workers", workers or os.cpu_count() or 1, 1, 1024)
    encoded = encode_rules(the_game, ruleset)
    chunks = chunk_starts(first, deals, chunk_size)
    args = (game, encoded, the_policy.array, seed)
    play_chunk(*args, first, 1, max_moves)  # compile (or load) the kernels before the clock starts
    started = time.perf_counter()
    parts = []
    with tqdm(total=deals, disable=not progress, unit="deal", unit_scale=True,
              desc=f"{game} {ruleset.preset} {policy}", smoothing=0.1) as bar:
        if workers == 1 or len(chunks) == 1:
            for start, count in chunks:
                parts.append(play_chunk(*args, start, count, max_moves))
                bar.update(count)
        else:  # workers fork after the compile above, so they inherit the compiled kernels
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(min(workers, len(chunks)), mp_context=context) as pool:
                futures = [pool.submit(play_chunk, *args, start, count, max_moves)
                           for start, count in chunks]
                for future in futures:
                    parts.append(future.result())
                    bar.update(len(parts[-1]))
    seconds = time.perf_counter() - started
    return Result(game, ruleset, the_policy, seed, np.concatenate(parts), seconds)
