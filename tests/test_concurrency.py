"""Two runs into one results folder at once: one plays, the other is told in one line which
run holds the folder, and nothing in the folder is damaged."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pandas as pd

from simsol.experiments import run_experiment
from simsol.store import HOLDER, Store

SPEC = """
name = "shared"
seed = 21
deals = 100000000
chunk_size = 400
[[cells]]
game = "klondike"
"""


def start(spec, out):
    """A run that never ends by itself (10^8 deals); Ctrl-C works even where this test runs
    with SIGINT ignored (a background job)."""
    return subprocess.Popen([sys.executable, "-m", "simsol.cli", "experiment", str(spec),
                             "--out", str(out), "--no-progress", "--workers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_two_runs_started_together_into_one_folder(tmp_path):
    spec = tmp_path / "shared.toml"
    spec.write_text(SPEC)
    out = tmp_path / "out"
    runs = [start(spec, out), start(spec, out)]  # both at once: they race for the lock
    try:
        loser = None
        for _ in range(2400):  # poll by count (about two minutes at most)
            finished = [r for r in runs if r.poll() is not None]
            if finished:
                loser = finished[0]
                break
            time.sleep(0.05)
        assert loser is not None, "neither run gave way"
        _, err = loser.communicate()
        assert loser.returncode == 2
        assert len(err.strip().splitlines()) == 1
        assert err.startswith(f"simsol: error: {out} is in use by pid ")
        winner = next(r for r in runs if r is not loser)
        holder = (out / HOLDER).read_text()
        assert f"pid {winner.pid} " in holder and f"pid {winner.pid} " in err
        for _ in range(2400):  # let the winner write a few chunks, then stop it
            if len(list(out.glob("cells/*/deals-*.parquet"))) >= 3:
                break
            time.sleep(0.05)
        winner.send_signal(signal.SIGINT)
        winner.communicate(timeout=60)
        assert winner.returncode == 130
    finally:
        for r in runs:
            if r.poll() is None:
                r.kill()
    # the folder is whole: its chunks are the very records a run of its own plays
    stored = Store(out).records("klondike__book__greedy")
    deals = len(stored)
    assert 0 < deals < 100000000 and not (out / HOLDER).exists()
    small = tmp_path / "small.toml"
    small.write_text(SPEC.replace("deals = 100000000", f"deals = {deals}"))
    fresh = run_experiment(small, out=tmp_path / "fresh", workers=1, progress=False)
    pd.testing.assert_frame_equal(stored, fresh.records("klondike__book__greedy"))
