"""The Dask backend: a LocalCluster of 2 worker processes gives the very records a local run
gives, and a worker killed part-way through loses nothing."""

from __future__ import annotations

import os
import signal

import numpy as np
import pandas as pd
import pytest

import simsol
from simsol.experiments import run_experiment
from simsol.store import Store

distributed = pytest.importorskip("distributed")

SPEC = """
name = "cluster"
seed = 8
deals = 300
chunk_size = 25
[[cells]]
game = "klondike"
presets = ["book"]
policies = ["greedy", "random"]
"""


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local:
        yield local


def test_simulate_on_a_cluster_matches_a_local_run(cluster):
    local = simsol.simulate("klondike", preset="draw1", deals=300, seed=8, chunk_size=40,
                            workers=1)
    remote = simsol.simulate("klondike", preset="draw1", deals=300, seed=8, chunk_size=40,
                             scheduler=cluster.scheduler_address)
    assert np.array_equal(local.data, remote.data)


def test_a_worker_killed_mid_run_loses_nothing(cluster, tmp_path, monkeypatch):
    spec = tmp_path / "cluster.toml"
    spec.write_text(SPEC)
    expected = run_experiment(spec, out=tmp_path / "local", workers=1, progress=False)
    with distributed.Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
    written = []
    original = Store.write_chunk

    def write_then_kill(self, cell_id, first, records, seconds):
        original(self, cell_id, first, records, seconds)
        written.append(first)
        if len(written) == 3:  # part-way: kill one worker outright
            os.kill(next(iter(pids.values())), signal.SIGKILL)

    monkeypatch.setattr(Store, "write_chunk", write_then_kill)
    store = run_experiment(spec, out=tmp_path / "remote", scheduler=cluster.scheduler_address,
                           progress=False)
    assert len(written) == 2 * 300 // 25
    for cell in expected.manifest["cells"]:
        pd.testing.assert_frame_equal(expected.records(cell), store.records(cell))


def test_an_unreachable_scheduler_is_one_clear_error():
    with pytest.raises(simsol.SimsolError, match="cannot reach the Dask scheduler"):
        simsol.simulate("klondike", deals=10, scheduler="tcp://127.0.0.1:1")
