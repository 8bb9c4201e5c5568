"""``simulate``: validate the request, play chunks of deals on every core, summarise as they finish.

A run's summary (wins, how the games ended, the histogram of foundation cards) is tallied chunk
by chunk as chunks finish, so memory stays flat for any number of deals.  The per-deal records
are kept in memory only when asked for (by default up to ``KEEP_LIMIT`` deals), and can be
streamed to a Parquet or CSV file in deal order whatever their number.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from simsol.backends import check_workers, cores, run_tasks
from simsol.engine.binder import bind
from simsol.engine.loop import DEFAULT_MAX_MOVES, untraced
from simsol.engine.state import END_REASONS, MOVE_CAP, RECORD_DTYPE
from simsol.engine.streams import MAX_SEED
from simsol.games import get_game
from simsol.players import BASES, work_for
from simsol.policies import Policy, build_policy
from simsol.rules import RuleSet, SimsolError, build_rules, encode_rules
from simsol.stats import histogram_percentiles, wilson

MAX_DEALS = 2**40
DEFAULT_CHUNK = 10_000
SEARCH_CHUNK = 50  # the searching players play a few hundred deals a second: small chunks
MAX_CHUNK = 1_000_000  # a chunk's records and work arrays are held whole (about 60 MB here)
KEEP_LIMIT = 10_000_000  # records kept by default up to this many deals (about 180 MB)


def play_chunk(game_name: str, rules: np.ndarray, policy: np.ndarray, base: str, seed: int,
               first: int, count: int, max_moves: int, check: bool = False) -> np.ndarray:
    """Play deals ``first .. first+count-1``: one record per deal, in deal order.  ``check``
    proves the loop guard's bookkeeping at every move (slower; for tests)."""
    game = get_game(game_name)
    player = BASES[base]
    out = np.zeros(count, dtype=RECORD_DTYPE)
    bind(game).run_batch(game.deck.cards(), game.n_piles, game.capacity, rules, policy,
                         work_for(game, player, policy), seed, first, max_moves, out, check,
                         untraced(game.n_piles, game.capacity))
    return out


def check_count(name: str, value, low: int, high: int) -> int:
    """An integer in ``low..high`` or a one-line error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SimsolError(f"{name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise SimsolError(f"{name} must be between {low:,} and {high:,}, got {value:,}")
    return int(value)


def end_column(reason: str) -> str:
    """The summary column counting games that ended for ``reason`` (``move cap``: ``capped``)."""
    return "capped" if reason == "move cap" else reason.replace(" ", "_")


def records_frame(data: np.ndarray) -> pd.DataFrame:
    """Records as a DataFrame, the end reason as a categorical of its names."""
    frame = pd.DataFrame(data)
    frame["end"] = pd.Categorical.from_codes(frame["end"], categories=list(END_REASONS))
    return frame


def _add_counts(total: np.ndarray, more: np.ndarray) -> np.ndarray:
    size = max(len(total), len(more))
    out = np.zeros(size, dtype=np.int64)
    out[: len(total)] += total
    out[: len(more)] += more
    return out


class Tally:
    """What a run's summary needs, added up chunk by chunk: deals, wins, games per end reason,
    and histograms of the cards on the foundations (all games, lost games)."""

    def __init__(self):
        self.deals = 0
        self.wins = 0
        self.ends = np.zeros(len(END_REASONS), dtype=np.int64)
        self.foundation = np.zeros(0, dtype=np.int64)
        self.lost_foundation = np.zeros(0, dtype=np.int64)

    def add(self, records: np.ndarray) -> None:
        won = records["won"]
        cards = records["foundation"].astype(np.int64)
        self.deals += len(records)
        self.wins += int(won.sum())
        self.ends += np.bincount(records["end"], minlength=len(END_REASONS))[: len(END_REASONS)]
        self.foundation = _add_counts(self.foundation, np.bincount(cards))
        self.lost_foundation = _add_counts(self.lost_foundation, np.bincount(cards[~won]))

    def ended(self, reason: str) -> int:
        return int(self.ends[END_REASONS.index(reason)])

    def mean_foundation(self) -> float:
        if self.deals == 0:
            return float("nan")
        return float((self.foundation * np.arange(len(self.foundation))).sum() / self.deals)

    def lost_score(self) -> dict:
        """The books' score of the lost games (cards on the foundations): quartiles and mean."""
        lost = self.lost_foundation
        n = int(lost.sum())
        mean = float((lost * np.arange(len(lost))).sum() / n) if n else float("nan")
        q1, median, q3 = histogram_percentiles(lost, [25, 50, 75])
        return {"lost_mean_foundation": mean, "lost_foundation_q1": q1,
                "lost_foundation_median": median, "lost_foundation_q3": q3}


class Result:
    """One run: its rules, policy and deals, the summary tallied as it ran, and the per-deal
    records when they were kept (``data``, ``records``).

    ``win_rate``, ``ci``, ``capped``, ``table()`` and ``summary()`` come from the tally, so they
    work for a run of any size; ``data`` and ``records`` raise a one-line error for a run whose
    records were not kept (``simulate(keep_records=...)``).
    """

    def __init__(self, game: str, rules: RuleSet, policy: Policy, seed: int, first: int,
                 max_moves: int, tally: Tally, seconds: float, data: np.ndarray | None = None,
                 records_path: Path | None = None):
        self.game, self.rules, self.policy, self.seed = game, rules, policy, seed
        self.first, self.max_moves, self.tally, self.seconds = first, max_moves, tally, seconds
        self._data = data
        self.records_path = records_path

    @property
    def deals(self) -> int:
        return self.tally.deals

    @property
    def wins(self) -> int:
        return self.tally.wins

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
        return int(self.tally.ends[MOVE_CAP])

    @property
    def records_kept(self) -> bool:
        return self._data is not None

    @property
    def data(self) -> np.ndarray:
        """The records as a NumPy structured array (``RECORD_DTYPE``), in deal order."""
        if self._data is None:
            where = f" (they were written to {self.records_path})" if self.records_path else ""
            raise SimsolError(f"this run of {self.deals:,} deals kept only its summary{where}; "
                              "pass keep_records=True to simulate() to keep the records")
        return self._data

    @property
    def records(self) -> pd.DataFrame:
        """One row per deal: deal, won, foundation, moves, passes, end (a categorical)."""
        return records_frame(self.data)

    def table(self) -> pd.DataFrame:
        """One summary row: win rate with its interval, foundation cards, how games ended."""
        low, high = self.ci
        row = {
            "game": self.game,
            "rules": self.rules.id,
            "policy": self.policy.id,
            "seed": self.seed,
            "first": self.first,
            "max_moves": self.max_moves,
            "deals": self.deals,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "ci_low": low,
            "ci_high": high,
            "mean_foundation": self.tally.mean_foundation(),
            **self.tally.lost_score(),
            **{end_column(reason): self.tally.ended(reason) for reason in END_REASONS[1:]},
            "deals_per_s": self.deals / self.seconds if self.seconds > 0 else float("nan"),
        }
        return pd.DataFrame([row])

    def lost_score(self) -> dict:
        return self.tally.lost_score()

    def summary(self) -> str:
        low, high = self.ci
        return (f"{self.rules.id} policy={self.policy.id} seed={self.seed}: "
                f"{self.wins:,} of {self.deals:,} won = {100 * self.win_rate:.3f}% "
                f"(95% CI {100 * low:.3f}-{100 * high:.3f}%), "
                f"mean {self.tally.mean_foundation():.2f} cards on foundations, "
                f"{self.capped:,} cut by the move cap")

    def __repr__(self) -> str:
        low, high = self.ci
        kept = "records kept" if self.records_kept else "summary only"
        return (f"<Result {self.rules.id} policy={self.policy.id} seed={self.seed} deals "
                f"{self.first:,}..{self.first + self.deals - 1:,}: {100 * self.win_rate:.3f}% "
                f"won (95% CI {100 * low:.3f}-{100 * high:.3f}%), {kept}>")


def chunk_starts(first: int, deals: int, chunk_size: int):
    """``(start, count)`` of every chunk, made as they are needed (a long run's list of chunks
    is never built)."""
    for start in range(first, first + deals, chunk_size):
        yield start, min(chunk_size, first + deals - start)


def auto_chunk_size(policy: Policy, deals: int, workers: int) -> int:
    """Chunks small enough that every worker gets a few (so the progress bar moves) and that a
    searching player finishes one in seconds, never more than ``DEFAULT_CHUNK``."""
    return max(1, min(largest_chunk(policy), -(-deals // (4 * max(workers, 1)))))


def largest_chunk(policy: Policy) -> int:
    """The most deals a chunk of this player holds: its base's own size (the hop player plays a
    deal in seconds: ten a chunk, so progress shows deal by deal), else by whether it searches."""
    player = policy.config.player
    if player.chunk is not None:
        return player.chunk
    return SEARCH_CHUNK if player.searching else DEFAULT_CHUNK


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
    the_policy = build_policy(the_game, policy, policy_options, policies, ruleset.preset)
    return Job(game, ruleset, the_policy, check_count("seed", seed, 0, MAX_SEED),
               check_count("max moves", max_moves, 1, 10**7))


def timed_chunk(*args) -> tuple[np.ndarray, float]:
    """``play_chunk`` and the seconds it took (so stored results can report deals/s)."""
    started = time.perf_counter()
    records = play_chunk(*args)
    return records, time.perf_counter() - started


def needs_compiling(job: "Job") -> bool:
    """Will the first chunk of ``job`` compile its kernels (neither loaded in this process nor
    in the on-disk cache)?  Asks numba's cache index; when that cannot be read, assumes so."""
    batch = bind(get_game(job.game)).run_batch
    if getattr(batch, "overloads", True):  # compiled already, or a plain function (JIT off)
        return False
    try:
        return not batch._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - numba internals moved: say it rather than stay silent
        return True


def warm_up(job: Job, say=None) -> None:
    """Compile (or load) the game's kernels here, saying so first when it will take long."""
    if say is not None and needs_compiling(job):
        say(f"compiling kernels for {job.game} (once: later runs load them from the cache)")
    play_chunk(*job.chunk_args(0, 1))


def play_chunks(job: Job, chunks, workers: int | None = None, scheduler: str | None = None,
                on_chunk=None, bar=None) -> float:
    """Play ``chunks`` of deals, calling ``on_chunk(start, records, seconds)`` as each finishes;
    return the seconds spent playing (the compilation before it not counted).

    Chunks run in this process (one worker), in forked processes on every core, or as tasks on a
    Dask cluster (``scheduler``); the records are the same whichever runs them.
    """
    if scheduler is None:
        warm_up(job, bar.write if bar is not None else None)  # before the workers fork
    started = time.perf_counter()
    tasks = (job.chunk_args(start, count) for start, count in chunks)
    for _, (records, seconds) in run_tasks(timed_chunk, tasks, workers, scheduler):
        if on_chunk is not None:
            on_chunk(int(records["deal"][0]), records, seconds)  # the chunk's first deal
        if bar is not None:
            bar.update(len(records))
    return time.perf_counter() - started


class InOrder:
    """Puts chunks that finish in any order back in deal order for ``emit``."""

    def __init__(self, first: int, emit):
        self.next, self.emit, self.waiting = first, emit, {}

    def add(self, start: int, records: np.ndarray) -> None:
        self.waiting[start] = records
        while self.next in self.waiting:
            chunk = self.waiting.pop(self.next)
            self.emit(chunk)
            self.next += len(chunk)


class RecordsFile:
    """Per-deal records streamed to a ``.parquet`` or ``.csv`` file, chunk by chunk.

    The file is opened when this is made, so a path that cannot be written fails before any
    deal is played; closing it (also on an interrupt) leaves a whole file of what was written.
    Parquet rows are written in groups of about ``ROW_GROUP`` (the file's footer keeps a few
    hundred bytes per group in memory until it is closed, so small groups would make it grow).
    """

    ROW_GROUP = 1_000_000

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.rows = 0
        self.waiting: list[np.ndarray] = []
        suffix = self.path.suffix.lower()
        if suffix not in (".parquet", ".csv"):
            raise SimsolError(f"records file {str(path)!r}: the name must end in .parquet or "
                              ".csv")
        empty = records_frame(np.zeros(0, dtype=RECORD_DTYPE))
        try:
            self.handle = (open(self.path, "wb") if suffix == ".parquet"
                           else open(self.path, "w", newline=""))
        except OSError as error:
            raise SimsolError(f"cannot write the records file {str(path)!r}: "
                              f"{error.strerror or error}") from None
        if suffix == ".parquet":
            self.schema = pa.Schema.from_pandas(empty, preserve_index=False)
            self.writer = pq.ParquetWriter(self.handle, self.schema)
        else:
            self.writer = None
            empty.to_csv(self.handle, index=False)

    def write(self, data: np.ndarray) -> None:
        self.rows += len(data)
        if self.writer is None:
            records_frame(data).to_csv(self.handle, index=False, header=False)
            return
        self.waiting.append(data)
        if sum(map(len, self.waiting)) >= self.ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        if self.waiting:
            frame = records_frame(np.concatenate(self.waiting))
            self.writer.write_table(pa.Table.from_pandas(frame, schema=self.schema,
                                                         preserve_index=False))
            self.waiting = []

    def close(self) -> None:
        if self.writer is not None:
            self._flush()
            self.writer.close()
        self.handle.close()


class NoProgress:
    """No bar and no notes (``progress=False``)."""

    def update(self, count: int) -> None:
        pass

    def set_description(self, desc: str) -> None:
        pass

    def write(self, text: str) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


class LineProgress(NoProgress):
    """Progress for a log (stderr not a terminal): a plain line at every tenth, no ``\\r``."""

    def __init__(self, total: int, desc: str, stream=None):
        self.total, self.desc, self.done, self.shown = total, desc, 0, 0
        self.stream = stream or sys.stderr

    def update(self, count: int) -> None:
        self.done += count
        tenth = 10 * self.done // self.total if self.total else 10
        if tenth > self.shown:
            self.shown = tenth
            self.write(f"{self.desc}: {self.done:,} of {self.total:,} deals "
                       f"({100 * self.done / self.total:.0f}%)")

    def set_description(self, desc: str) -> None:
        self.desc = desc

    def write(self, text: str) -> None:
        print(text, file=self.stream, flush=True)


def _in_a_notebook() -> bool:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and hasattr(shell, "kernel")


def progress_bar(total: int, desc: str, enabled: bool = True):
    """A tqdm bar on a terminal or in a notebook, plain lines in a log, or nothing."""
    if not enabled:
        return NoProgress()
    if sys.stderr.isatty() or _in_a_notebook():
        return tqdm(total=total, unit="deal", unit_scale=True, desc=desc, smoothing=0.1)
    return LineProgress(total, desc)


def should_keep_records(deals: int, keep_records: bool | None) -> bool:
    """Whether to keep the records: by default up to ``KEEP_LIMIT`` deals; asked for, only if
    they fit in half this machine's memory (a one-line error otherwise)."""
    if keep_records is None:
        return deals <= KEEP_LIMIT
    if not keep_records:
        return False
    need = deals * RECORD_DTYPE.itemsize
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return True
    if need > memory / 2:
        raise SimsolError(f"keeping the records of {deals:,} deals needs {need / 2**30:,.1f} GiB,"
                          f" more than half of this machine's {memory / 2**30:,.1f} GiB; pass "
                          "keep_records=False (the summary alone) or records_to=FILE")
    return True


def simulate(game: str, preset: str | None = None, rules: dict | None = None,
             policy: str = "greedy", deals: int = 10_000, seed: int = 0, first: int = 0,
             workers: int | None = None, chunk_size: int | None = None,
             max_moves: int = DEFAULT_MAX_MOVES, progress: bool = False,
             scheduler: str | None = None, policy_options: dict | None = None,
             policies: dict | None = None, keep_records: bool | None = None,
             records_to: str | Path | None = None) -> Result:
    """Play ``deals`` seeded deals of ``game`` and return their summary (and records).

    Deal ``i`` of ``seed`` is the same for every policy, preset, chunk size, worker count and
    backend, so two runs with the same seed are paired deal by deal.  ``workers``: 0 or None for
    every core (see ``simsol.backends``); ``scheduler`` is the address of a Dask scheduler
    (``tcp://host:8786``) to run the chunks on a cluster.  ``chunk_size`` defaults to chunks
    small enough for every worker to get a few.  ``policy_options`` changes the policy's
    settings (``{"weight.reveal": 3}``); ``policies`` adds user-defined policies
    (``simsol.policies.load_policy_file``).

    The summary is tallied as chunks finish.  ``keep_records``: None (the default) keeps the
    per-deal records in ``result.data``/``result.records`` for runs of up to ``KEEP_LIMIT``
    deals and only the summary beyond; True always keeps them, False never.  ``records_to``
    streams the records to a ``.parquet`` or ``.csv`` file in deal order, for a run of any size.
    """
    job = make_job(game, preset, rules, policy, seed, max_moves, policy_options, policies)
    deals = check_count("deals", deals, 1, MAX_DEALS)
    first = check_count("first deal", first, 0, MAX_SEED - deals)
    processes = check_workers(workers, scheduler)
    if chunk_size is None:
        chunk_size = auto_chunk_size(job.policy, deals,
                                     min(processes, cores()) if processes else 8)  # 8: a cluster
    chunk_size = check_count("chunk size", chunk_size, 1, MAX_CHUNK)
    keep = should_keep_records(deals, keep_records)
    tally, kept = Tally(), []
    sink = RecordsFile(records_to) if records_to is not None else None

    def emit(chunk):
        if keep:
            kept.append(chunk)
        if sink is not None:
            sink.write(chunk)

    in_order = InOrder(first, emit)

    def on_chunk(start, records, _seconds):
        tally.add(records)
        if keep or sink is not None:
            in_order.add(start, records)

    try:
        with progress_bar(deals, f"{game} {job.rules.preset} {policy}", progress) as bar:
            seconds = play_chunks(job, chunk_starts(first, deals, chunk_size), processes,
                                  scheduler, on_chunk=on_chunk, bar=bar)
    except (KeyboardInterrupt, SimsolError) as error:
        if sink is not None and sink.rows:
            error.add_note(f"the records of deals {first:,}..{first + sink.rows - 1:,} are in "
                           f"{sink.path}")
        raise
    finally:
        if sink is not None:
            sink.close()
    data = np.concatenate(kept) if keep else None
    return Result(game, job.rules, job.policy, job.seed, first, job.max_moves, tally, seconds,
                  data, sink.path if sink else None)
