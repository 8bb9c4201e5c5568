"""The Dask scheduler killed part-way through a run: one line that says so, every chunk that
finished kept in the results folder, and a re-run (here without a cluster) completes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from simsol.cli import main
from simsol.experiments import run_experiment
from simsol.store import Store

pytest.importorskip("distributed")

SPEC = """
name = "lost"
seed = 4
deals = 400
chunk_size = 20
[[cells]]
game = "klondike"
"""


def wait_for(check, polls=1200):
    for _ in range(polls):  # by count, not by clock
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("the cluster did not come up")


def test_a_lost_scheduler_is_one_line_and_keeps_what_finished(tmp_path, capsys, monkeypatch):
    address_file = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                  "--scheduler-file", str(address_file), "--port", "0",
                                  "--no-dashboard"], **quiet)
    worker = None
    try:
        wait_for(address_file.exists)
        wait_for(lambda: bool(address_file.read_text().strip()))
        address = json.loads(address_file.read_text())["address"]
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                   address, "--nworkers", "1", "--nthreads", "1",
                                   "--no-dashboard"], **quiet)
        spec = tmp_path / "lost.toml"
        spec.write_text(SPEC)
        written = []
        original = Store.write_chunk

        def write_then_kill(self, cell_id, first, records, seconds):
            original(self, cell_id, first, records, seconds)
            written.append(first)
            if len(written) == 3:  # part-way: the scheduler dies outright
                os.kill(scheduler.pid, signal.SIGKILL)

        monkeypatch.setattr(Store, "write_chunk", write_then_kill)
        code = main(["experiment", str(spec), "--out", str(tmp_path / "out"), "--no-progress",
                     "--scheduler", address])
        _, err = capsys.readouterr()
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.kill()
                process.wait()
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"lost the Dask scheduler at {address} part-way" in err
    assert "every finished chunk is kept in" in err
    assert 3 <= len(written) < 20
    monkeypatch.undo()
    stored = Store(tmp_path / "out").finished("klondike__book__greedy")
    assert sorted(stored) == sorted(written)
    resumed = run_experiment(spec, out=tmp_path / "out", workers=1, progress=False)
    fresh = run_experiment(spec, out=tmp_path / "fresh", workers=1, progress=False)
    pd.testing.assert_frame_equal(resumed.records("klondike__book__greedy"),
                                  fresh.records("klondike__book__greedy"))
