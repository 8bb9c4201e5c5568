"""Where chunks of deals run: this process, forked processes on every core, or a Dask cluster.

Every backend yields ``(args, result)`` as tasks finish, with a bounded number in flight so a run
of any length keeps memory flat; the records do not depend on the backend.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from simsol.rules import SimsolError


def run_tasks(fn, args_list: list[tuple], workers: int | None = None,
              scheduler: str | None = None):
    """Yield ``(args, fn(*args))`` for every task, in the order they finish."""
    if scheduler is not None:
        yield from run_on_dask(fn, args_list, scheduler)
        return
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise SimsolError(f"workers must be at least 1, got {workers}")
    if workers == 1 or len(args_list) == 1:
        for args in args_list:
            yield args, fn(*args)
        return
    # Fork after the caller compiled the kernels, so every worker inherits them.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(min(workers, len(args_list)), mp_context=context,
                             initializer=die_with_parent) as pool:
        yield from bounded(pool.submit, fn, args_list, 2 * workers)


def die_with_parent() -> None:
    """Ask Linux to kill this worker when its parent dies (even by SIGKILL), so no orphan
    keeps playing; a no-op elsewhere."""
    try:
        import ctypes
        import signal
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def bounded(submit, fn, args_list, window: int):
    """Keep at most ``window`` tasks in flight; yield each result as it arrives."""
    pending = {}
    queue = iter(args_list)
    for args in queue:
        pending[submit(fn, *args)] = args
        if len(pending) >= window:
            break
    while pending:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            args = pending.pop(future)
            yield args, future.result()
            for more in queue:
                pending[submit(fn, *more)] = more
                break


def run_on_dask(fn, args_list: list[tuple], scheduler: str):
    """Run the tasks on the Dask cluster at ``scheduler``; lost workers' tasks are recomputed."""
    try:
        from distributed import Client, as_completed
    except ImportError as error:  # pragma: no cover - dask is a dependency
        raise SimsolError(f"--scheduler needs dask.distributed: {error}") from None
    try:
        client = Client(scheduler, timeout="5s")
    except (OSError, TimeoutError) as error:
        raise SimsolError(f"cannot reach the Dask scheduler at {scheduler!r}: {error}") from None
    with client:
        window = max(2 * sum(client.nthreads().values()), 2)
        futures = {}
        queue = iter(args_list)
        for args in queue:
            futures[client.submit(fn, *args, pure=False, retries=3)] = args
            if len(futures) >= window:
                break
        finished = as_completed(list(futures))
        for future in finished:
            args = futures.pop(future)
            yield args, future.result()
            future.release()
            for more in queue:
                new = client.submit(fn, *more, pure=False, retries=3)
                futures[new] = more
                finished.add(new)
                break
