"""Where chunks of deals run: this process, forked processes on every core, or a Dask cluster.

Every backend yields ``(args, result)`` as tasks finish, from a lazy stream of tasks, with a
bounded number in flight (none more than ``window`` places ahead of the oldest unfinished one),
so a run of any length keeps memory flat and a caller that puts results back in order holds at
most ``window`` of them.  The records do not depend on the backend.

The rule for ``workers``: ``None`` or 0 means every core this process may use; a positive number
is that many processes (a warning when it is more than the cores, since they then only share
them); a negative number is an error; with a Dask ``scheduler`` the cluster's workers run the
chunks, so ``workers`` must be left out.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import warnings
from concurrent.futures import FIRST_COMPLETED, CancelledError, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from itertools import islice

import numpy as np

from simsol.rules import SimsolError


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def check_workers(workers, scheduler: str | None = None) -> int | None:
    """The number of processes to use, by the rule in this module's docstring (``None`` with
    a scheduler)."""
    if scheduler is not None:
        if workers is not None:
            raise SimsolError("workers has no effect with a Dask scheduler (the cluster's "
                              "workers run the chunks): leave it out")
        return None
    if workers is None:
        return cores()
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)):
        raise SimsolError(f"workers must be a whole number, got {workers!r}")
    if workers < 0:
        raise SimsolError(f"workers must be 0 (every core) or more, got {workers}")
    if workers == 0:
        return cores()
    if workers > cores():
        warnings.warn(f"{workers} worker processes on {cores()} cores: they share the cores, so "
                      f"the run is no faster than with {cores()}", stacklevel=3)
    return int(workers)


def run_tasks(fn, tasks, workers: int | None = None, scheduler: str | None = None):
    """Yield ``(args, fn(*args))`` for every argument tuple of ``tasks``, as they finish
    (``workers`` as ``check_workers`` gives it; None: every core)."""
    tasks = iter(tasks)
    if scheduler is not None:
        yield from run_on_dask(fn, tasks, scheduler)
        return
    workers = workers or cores()
    window = 2 * workers
    head = list(islice(tasks, window))
    if workers == 1 or len(head) <= 1:
        for args in _chain(head, tasks):
            yield args, fn(*args)
        return
    # Fork after the caller compiled the kernels, so every worker inherits them; never more
    # processes than there are tasks (a fork pool starts all of its processes at once).
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(min(workers, len(head)), mp_context=context,
                             initializer=die_with_parent) as pool:
        try:
            yield from bounded(pool.submit, _first_completed, fn, _chain(head, tasks), window)
        except BrokenProcessPool:
            raise SimsolError("a worker process died part-way (killed, or out of memory); the "
                              "chunks that finished before it are kept") from None


def _chain(head, rest):
    yield from head
    yield from rest


def _first_completed(futures):
    return wait(futures, return_when=FIRST_COMPLETED).done


def die_with_parent() -> None:
    """Ask Linux to kill this worker when its parent dies (even by SIGKILL), so no orphan
    keeps playing; a no-op elsewhere."""
    try:
        import ctypes
        import signal
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def bounded(submit, first_completed, fn, tasks, window: int):
    """Run ``tasks`` through ``submit``, at most ``window`` in flight and none more than
    ``window`` places after the oldest unfinished one; yield each result as it arrives.

    ``first_completed(futures)`` waits until at least one has finished and returns those done.
    """
    pending: dict = {}  # future -> (place in the stream, args)
    stream = enumerate(tasks)
    upcoming = next(stream, None)

    def fill():
        nonlocal upcoming
        while upcoming is not None and len(pending) < window:
            place, args = upcoming
            if pending and place >= min(p for p, _ in pending.values()) + window:
                return
            pending[submit(fn, *args)] = upcoming
            upcoming = next(stream, None)

    fill()
    while pending:
        for future in first_completed(list(pending)):
            _, args = pending.pop(future)
            yield args, future.result()
        fill()


@contextmanager
def quiet_dask_logs():
    """Keep dask's own log lines (reconnect attempts, tracebacks of a lost scheduler) off the
    terminal: what went wrong is said in one line by the caller."""
    logger = logging.getLogger("distributed")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def run_on_dask(fn, tasks, scheduler: str):
    """Run the tasks on the Dask cluster at ``scheduler``; lost workers' tasks are recomputed,
    a lost scheduler ends the run with one line (what finished was already yielded)."""
    try:
        from distributed import Client
        from distributed import wait as dask_wait
        from distributed.comm.core import CommClosedError
    except ImportError as error:  # pragma: no cover - dask is a dependency
        raise SimsolError(f"--scheduler needs dask.distributed: {error}") from None

    def first_completed(futures):
        return dask_wait(futures, return_when="FIRST_COMPLETED").done

    def submit(function, *args):
        return client.submit(function, *args, pure=False, retries=3)

    with quiet_dask_logs():
        try:
            client = Client(scheduler, timeout="5s")
        except (OSError, TimeoutError, ValueError, TypeError) as why:
            raise SimsolError(f"cannot reach the Dask scheduler at {scheduler!r}: {why}") from None
        finished = 0
        try:
            window = max(2 * sum(client.nthreads().values()), 2)
            for args, result in bounded(submit, first_completed, fn, tasks, window):
                finished += 1
                yield args, result
        except (CancelledError, CommClosedError, OSError) as error:
            raise SimsolError(f"lost the Dask scheduler at {scheduler} part-way ({finished:,} "
                              f"chunks had finished): {type(error).__name__}") from None
        finally:
            try:
                client.close(timeout=2)
            except (OSError, TimeoutError, CancelledError):
                pass  # the scheduler is gone: nothing left to close
