"""Deals per second on the Dask backend (a LocalCluster on this machine) against the default
backend (forked processes), on the same deals, checking that the records are identical.

    python benchmarks/dask_backend.py                       # 1,000,000 book Klondike deals
    python benchmarks/dask_backend.py --game canfield --deals 2000000
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from distributed import Client, LocalCluster

import simsol


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="klondike")
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    args = parser.parse_args(argv)
    local = simsol.simulate(args.game, deals=args.deals, seed=3, workers=args.workers)
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(lambda: simsol.simulate(args.game, deals=10, seed=3, workers=1))  # compile
        started = time.perf_counter()
        remote = simsol.simulate(args.game, deals=args.deals, seed=3,
                                 scheduler=cluster.scheduler_address)
        seconds = time.perf_counter() - started
    print(f"{args.game}, {args.deals:,} deals, {args.workers} workers")
    print(f"  default backend (forked processes): {args.deals / local.seconds:,.0f} deals/s")
    print(f"  Dask LocalCluster:                  {args.deals / seconds:,.0f} deals/s")
    print(f"  identical records: {np.array_equal(local.data, remote.data)}")


if __name__ == "__main__":
    main()
