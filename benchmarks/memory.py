"""Long-run memory check: a 10-million-deal run keeps memory flat.

    python benchmarks/memory.py                  # 10,000,000 book Klondike deals, greedy
    python benchmarks/memory.py --deals 2000000 --game elevens

Plays the deals into a temporary results store (records are streamed to Parquet chunk by chunk,
never held) while sampling the resident memory of this process and its workers once a second.
Prints the peak after the first tenth of the run and at the end: flat memory means the two agree.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

import psutil

from simsol.experiments import run_experiment


def resident_mib() -> float:
    me = psutil.Process()
    total = me.memory_info().rss
    for child in me.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="klondike")
    parser.add_argument("--deals", type=int, default=10_000_000)
    args = parser.parse_args(argv)
    samples: list[tuple[float, float]] = []
    done = threading.Event()

    def sample():
        while not done.is_set():
            samples.append((time.perf_counter(), resident_mib()))
            time.sleep(1.0)

    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "memory.toml"
        spec.write_text(f'name = "memory"\nseed = 1\ndeals = {args.deals}\nchunk_size = 100000\n'
                        f'[[cells]]\ngame = "{args.game}"\n')
        run_experiment(spec, out=Path(folder) / "out", deals=2000, progress=False)  # compile
        thread = threading.Thread(target=sample, daemon=True)
        started = time.perf_counter()
        thread.start()
        run_experiment(spec, out=Path(folder) / "out", progress=True)
        done.set()
        thread.join()
        seconds = time.perf_counter() - started
    tenth = [mib for t, mib in samples if t - started <= seconds / 10] or [samples[0][1]]
    print(f"{args.deals:,} deals of {args.game} in {seconds:.0f} s "
          f"({args.deals / seconds:,.0f} deals/s)")
    print(f"peak resident memory (this process and its workers): first tenth of the run "
          f"{max(tenth):.0f} MiB, whole run {max(m for _, m in samples):.0f} MiB")


if __name__ == "__main__":
    main()
