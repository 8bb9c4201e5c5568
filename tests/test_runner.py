"""simulate(): a summary tallied chunk by chunk, records kept or streamed only when asked, lazy
chunks, the workers rule and the bounded window of tasks in flight."""

from __future__ import annotations

import warnings
from concurrent.futures import Future

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simsol
from simsol import backends, runner
from simsol.engine.state import END_REASONS
from simsol.games import game_names
from simsol.rules import SimsolError
from simsol.stats import histogram_percentiles
from tests.conftest import with_the_jit_off


def test_a_summary_only_run_has_the_same_table_as_one_that_keeps_its_records():
    kept = simsol.simulate("canfield", deals=300, seed=2, workers=1, chunk_size=40,
                           keep_records=True)
    tallied = simsol.simulate("canfield", deals=300, seed=2, workers=1, chunk_size=40,
                              keep_records=False)
    assert kept.records_kept and not tallied.records_kept
    columns = [c for c in kept.table().columns if c != "deals_per_s"]
    pd.testing.assert_frame_equal(kept.table()[columns], tallied.table()[columns])
    # and the tally agrees with the records themselves
    data = kept.data
    lost = data["foundation"][~data["won"]]
    row = tallied.table().iloc[0]
    assert row.wins == data["won"].sum() and row.mean_foundation == pytest.approx(
        data["foundation"].mean())
    assert [row.lost_foundation_q1, row.lost_foundation_median, row.lost_foundation_q3] == (
        pytest.approx(list(np.percentile(lost, [25, 50, 75]))))
    for code, reason in enumerate(END_REASONS[1:], 1):
        assert row[runner.end_column(reason)] == (data["end"] == code).sum()


def test_records_not_kept_say_so_in_one_line():
    result = simsol.simulate("klondike", deals=50, workers=1, keep_records=False)
    with pytest.raises(SimsolError, match="kept only its summary.*keep_records=True"):
        result.records
    assert 0 <= result.win_rate <= 1 and result.ci[0] <= result.win_rate <= result.ci[1]


def test_records_are_kept_by_default_for_a_modest_run_and_repr_is_short():
    result = simsol.simulate("klondike", deals=2000, workers=1)
    assert len(result.records) == 2000
    text = repr(result)
    assert len(text) < 300 and "klondike:book@r1" in text and "deals 0..1,999" in text
    assert "records kept" in text


def test_keeping_too_many_records_fails_before_playing(monkeypatch):
    monkeypatch.setattr(runner, "play_chunk", lambda *a: pytest.fail("played a deal"))
    with pytest.raises(SimsolError, match="keeping the records of 1,000,000,000,000 deals"):
        simsol.simulate("klondike", deals=10**12, keep_records=True)
    assert not runner.should_keep_records(10**12, None)  # by default: the summary alone


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_records_stream_to_a_file_in_deal_order(tmp_path, suffix):
    path = tmp_path / f"records{suffix}"
    # two workers and small chunks, so chunks finish out of order
    result = simsol.simulate("klondike", deals=300, seed=5, workers=2, chunk_size=7,
                             records_to=path, keep_records=True)
    written = pd.read_parquet(path) if suffix == ".parquet" else pd.read_csv(path)
    assert list(written["deal"]) == list(range(300))
    expected = result.records
    assert list(written["won"]) == list(expected["won"])
    assert list(written["end"].astype(str)) == list(expected["end"].astype(str))


def test_chunks_are_made_lazily():
    chunks = runner.chunk_starts(0, runner.MAX_DEALS, 1)
    assert next(chunks) == (0, 1) and next(chunks) == (1, 1)
    assert list(runner.chunk_starts(5, 12, 5)) == [(5, 5), (10, 5), (15, 2)]


def test_automatic_chunks_are_small_enough_to_show_progress():
    greedy = simsol.runner.make_job("klondike").policy
    search = simsol.runner.make_job("klondike", policy="lookahead").policy
    assert runner.auto_chunk_size(greedy, 10**7, 2) == runner.DEFAULT_CHUNK
    assert runner.auto_chunk_size(greedy, 300, 2) == 38  # four chunks per worker
    assert runner.auto_chunk_size(search, 10**6, 2) == runner.SEARCH_CHUNK


def test_the_workers_rule():
    cores = backends.cores()
    assert backends.check_workers(None) == backends.check_workers(0) == cores
    assert backends.check_workers(1) == 1
    with pytest.raises(SimsolError, match="0 .every core. or more, got -3"):
        backends.check_workers(-3)
    with pytest.warns(UserWarning, match=f"{cores + 5} worker processes on {cores} cores"):
        assert backends.check_workers(cores + 5) == cores + 5
    with pytest.raises(SimsolError, match="no effect with a Dask scheduler"):
        backends.check_workers(2, "tcp://127.0.0.1:8786")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        backends.check_workers(cores)  # no warning up to the cores


def test_tasks_never_run_more_than_a_window_ahead_of_the_oldest_unfinished_one():
    """Task 0 finishes last of those in flight: the others may run only a window ahead of it,
    so a caller putting results back in order never holds more than a window of them."""
    window, open_places, ahead = 4, set(), []

    def submit(fn, place):
        ahead.append(place - min(open_places, default=place))
        open_places.add(place)
        future = Future()
        future.place = place
        return future

    def first_completed(pending):
        others = [f for f in pending if f.place != 0]
        done = max(others, key=lambda f: f.place) if others else pending[0]
        done.set_result(None)
        open_places.discard(done.place)
        return [done]

    finished = [args[0] for args, _ in backends.bounded(
        submit, first_completed, None, ((i,) for i in range(20)), window)]
    assert sorted(finished) == list(range(20))
    assert max(ahead) == window - 1  # it did run ahead, and never further
    assert finished.index(0) == window - 1  # nothing beyond the window ran before task 0 ended


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 104), min_size=1, max_size=300))
def test_percentiles_of_a_histogram_equal_numpy_on_the_values(values):
    counts = np.bincount(values)
    assert histogram_percentiles(counts, [25, 50, 75]) == pytest.approx(
        list(np.percentile(values, [25, 50, 75])))


def test_the_note_before_a_first_compile(monkeypatch):
    said = []
    job = runner.make_job("klondike")
    monkeypatch.setattr(runner, "needs_compiling", lambda job: True)
    runner.warm_up(job, said.append)
    assert said == ["compiling kernels for klondike (once: later runs load them from the cache)"]
    monkeypatch.undo()
    assert not runner.needs_compiling(job)  # loaded in this process now
    said.clear()
    runner.warm_up(job, said.append)
    assert said == []


def test_progress_in_a_log_is_plain_lines(capsys):
    simsol.simulate("klondike", deals=200, workers=1, chunk_size=20, progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 10 and lines[-1].endswith("200 of 200 deals (100%)")


def test_plain_python_with_the_jit_off_plays_the_same_records():
    """``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python (to debug a game, and for the
    benchmarks' ratio against plain Python): the same deals, the same records."""
    plain = with_the_jit_off("simsol.simulate('elevens', deals=6, seed=3, workers=1, "
                             "progress=True).data.tolist()")
    compiled = simsol.simulate("elevens", deals=6, seed=3, workers=1).data.tolist()
    assert [list(r) for r in compiled] == plain


@pytest.mark.parametrize("game_name", [name for name in game_names() if name != "elevens"])
def test_every_game_with_the_jit_off_plays_the_same_records(game_name):
    """The same for every other game, greedy and the heuristic.  A shift by a card's face (a
    ``uint8``) is the trap: in plain Python ``1 << face`` is a ``uint8`` too, so the 12x5 game's
    mask of the cards its tops take lost every bit past the eighth and it played other moves,
    and ``mask >> face`` overflowed in the T game and, for a session, in ``wanted_faces``."""
    plain = with_the_jit_off(f"[simsol.simulate({game_name!r}, policy=p, deals=3, seed=3, "
                             "workers=1, progress=False).data.tolist() for p in "
                             "('greedy', 'heuristic')]")
    compiled = [[list(r) for r in simsol.simulate(game_name, policy=p, deals=3, seed=3,
                                                  workers=1).data.tolist()]
                for p in ("greedy", "heuristic")]
    assert compiled == plain


def test_copy_block_copies_a_whole_array_and_refuses_another_shape():
    """``copy_block`` (one ``memcpy`` in compiled code, which ``copy_position`` copies the piles
    with) copies every element, and says so when the two arrays differ in shape."""
    import numpy as np

    from simsol.engine.jit import copy_block, kernel

    @kernel
    def copy(dst, src):
        copy_block(dst, src)

    src = np.arange(6 * 7, dtype=np.uint8).reshape(6, 7)
    dst = np.zeros_like(src)
    copy(dst, src)
    assert (dst == src).all()
    with pytest.raises(ValueError, match="differ in shape"):
        copy(np.zeros((5, 7), dtype=np.uint8), src)
