"""A run killed at any moment leaves a store the next run resumes from, with identical records."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from simsol.experiments import run_experiment
from simsol.store import Store

SPEC = """
name = "killed"
seed = 12
deals = 200000
chunk_size = 500
[[cells]]
game = "klondike"
presets = ["book"]
policies = ["greedy"]
"""


def start(spec, out):
    return subprocess.Popen([sys.executable, "-m", "simsol.cli", "experiment", str(spec),
                             "--out", str(out), "--no-progress", "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=answer_interrupts)


def answer_interrupts():
    """The run takes Ctrl-C as it would from a terminal, whatever the test runner's own
    disposition: a runner started in the background ignores SIGINT, and a child inherits that
    (Python then installs no KeyboardInterrupt handler, and the run would play on to the end)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_chunks(out, at_least, polls=2400):
    """Wait (up to about two minutes) until the run has written ``at_least`` chunks."""
    for _ in range(polls):
        if len(list(out.glob("cells/*/deals-*.parquet"))) >= at_least:
            return
        time.sleep(0.05)
    raise AssertionError("the run wrote no chunks in time")


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_killed_run_resumes_to_identical_records(tmp_path, how):
    spec = tmp_path / "killed.toml"
    spec.write_text(SPEC)
    out = tmp_path / "out"
    process = start(spec, out)
    wait_for_chunks(out, 3)
    assert process.poll() is None, "the run ended before it could be stopped"
    process.send_signal(how)
    _, err = process.communicate(timeout=60)
    if how == signal.SIGINT:
        assert process.returncode == 130 and err.strip().endswith("simsol: interrupted")
    written = len(list(out.glob("cells/*/deals-*.parquet")))
    assert written < 200000 // 500  # it really was stopped part-way
    resumed = run_experiment(spec, out=out, workers=1, progress=False)
    fresh = run_experiment(spec, out=tmp_path / "fresh", workers=1, progress=False)
    cell = "klondike__book__greedy"
    pd.testing.assert_frame_equal(resumed.records(cell), fresh.records(cell))


def test_leftover_temporary_files_are_never_read(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC.replace("deals = 200000", "deals = 1000"))
    store = run_experiment(spec, out=tmp_path / "o", workers=1, progress=False)
    cell_dir = store.cell_dir("klondike__book__greedy")
    (cell_dir / "deals-000000000500.parquet.tmp").write_bytes(b"garbage")
    assert len(Store(tmp_path / "o").records("klondike__book__greedy")) == 1000
    os.remove(cell_dir / "deals-000000000500.parquet.tmp")
