"""The results store: per-deal records in Parquet, chunk by chunk, under a manifest.

A results folder holds ``manifest.json`` (format, package version, the spec, and for every cell
its game, preset, rule overrides, rules id, policy, seed and chunk size) and one Parquet file per
finished chunk, ``cells/<cell>/deals-<first>.parquet``.  Chunks are written to a temporary name
and renamed, so a run killed at any moment leaves only whole chunks; a chunk that is unreadable
or holds the wrong deals is set aside (``*.broken``) and played again.  A re-run plays only the
chunks that are missing, so an interrupted run resumes and extending 1M deals to 2M plays only
the new ones; a run asking for fewer deals than are stored plays nothing and changes nothing (a
stored chunk longer than needed serves the shorter one).

One run writes to a folder at a time: ``Store.writing()`` holds a lock (``.lock``, with
``.lock.holder`` saying which run holds it), and a second run gets a one-line error.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from filelock import FileLock, Timeout

from simsol.rules import SimsolError

FORMAT = "simsol-results/1"
MANIFEST = "manifest.json"
LOCK = ".lock"
HOLDER = ".lock.holder"
CHUNK_NAME = re.compile(r"deals-(\d+)\.parquet")


@dataclass(frozen=True)
class Cell:
    """One game x rules x policy combination of an experiment, played on deals 0..deals-1."""

    game: str
    preset: str
    rules: dict = field(default_factory=dict)
    policy: str = "greedy"

    @property
    def id(self) -> str:
        """A folder-safe name: game, preset, overrides, policy."""
        extra = "".join(f"+{k}={v}" for k, v in sorted(self.rules.items()))
        text = f"{self.game}__{self.preset}{extra}__{self.policy}"
        return re.sub(r"[^A-Za-z0-9_.=+-]", "_", text.replace("None", "none"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file of this process, then rename it over ``path``."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def make_folder(path: Path, what: str) -> Path:
    """Create ``path`` (and its parents) and check a file can be written in it, or raise one
    line saying why not; called before anything is played or computed."""
    if path.exists() and not path.is_dir():
        raise SimsolError(f"{what} {path} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise SimsolError(f"cannot write to {what} {path}: {error.strerror or error}") from None
    return path


class Store:
    """A results folder: open (or create) it, list what is finished, add chunks, read records."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.manifest = self._read_manifest()

    def _read_manifest(self) -> dict:
        file = self.path / MANIFEST
        if not file.exists():
            return {"format": FORMAT, "cells": {}}
        try:
            manifest = json.loads(file.read_text())
        except (OSError, ValueError) as error:
            raise SimsolError(f"{file} is not a readable results manifest ({error}); "
                              "move the folder away or point --out elsewhere") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            found = manifest.get("format") if isinstance(manifest, dict) else None
            raise SimsolError(f"{self.path} holds results of format {found!r}, this simsol "
                              f"reads {FORMAT!r}; use another --out folder")
        return manifest

    @contextmanager
    def writing(self):
        """Hold the folder's lock while a run writes to it (re-reading the manifest once held,
        since the run before may have changed it); a folder another run holds is an error."""
        make_folder(self.path, "results folder")
        lock = FileLock(self.path / LOCK, timeout=0)
        try:
            lock.acquire()
        except Timeout:
            raise SimsolError(f"{self.path} is in use by {self._holder()}; wait for it to "
                              "finish or use another --out folder") from None
        try:
            command = " ".join([Path(sys.argv[0]).name] + sys.argv[1:])[:200]
            atomic_write_bytes(self.path / HOLDER, (
                f"pid {os.getpid()} on {socket.gethostname()} since "
                f"{time.strftime('%Y-%m-%d %H:%M:%S')} ({command})\n").encode())
            self.manifest = self._read_manifest()
            yield self
        finally:
            (self.path / HOLDER).unlink(missing_ok=True)
            lock.release()

    def _holder(self) -> str:
        """Who holds the folder, as the holder wrote it.  The winner of two runs started
        together writes it just after taking the lock, so the loser waits a moment for it
        (half a second at most) rather than name no one."""
        for _ in range(10):
            try:
                holder = (self.path / HOLDER).read_text().strip()
            except OSError:
                holder = ""
            if holder:
                return holder
            time.sleep(0.05)
        return "another simsol run"

    def save_manifest(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path / MANIFEST, json.dumps(self.manifest, indent=2).encode())

    def chunk_size_of(self, cell_id: str) -> int | None:
        """The chunk size a cell was stored with (None: not stored yet)."""
        return self.manifest["cells"].get(cell_id, {}).get("chunk_size")

    def register(self, cell: Cell, rules_id: str, seed: int, chunk_size: int,
                 spec: dict | None = None, player: str = "") -> None:
        """Record a cell in the manifest (``save_manifest`` writes it); a cell already there
        must agree on rules, seed, chunks and player (``player``: the players' version and the
        policy id, so records of a changed player never join older ones)."""
        from simsol import __version__
        entry = {**asdict(cell), "rules_id": rules_id, "seed": seed, "chunk_size": chunk_size,
                 "player": player}
        known = self.manifest["cells"].get(cell.id)
        if known is not None:
            for key in ("rules_id", "seed", "chunk_size", "player"):
                if known.get(key) != entry[key]:
                    raise SimsolError(
                        f"{self.path}: cell {cell.id} was run with {key}={known.get(key)!r}, "
                        f"now {entry[key]!r}; use another --out folder to keep both")
        self.manifest["cells"][cell.id] = entry
        self.manifest["simsol_version"] = __version__
        if spec is not None:
            self.manifest["spec"] = spec

    def cell_dir(self, cell_id: str) -> Path:
        return self.path / "cells" / cell_id

    def chunk_path(self, cell_id: str, first: int) -> Path:
        return self.cell_dir(cell_id) / f"deals-{first:012d}.parquet"

    def chunk_files(self, cell_id: str) -> list[Path]:
        return sorted(path for path in self.cell_dir(cell_id).glob("deals-*.parquet")
                      if CHUNK_NAME.fullmatch(path.name))

    def write_chunk(self, cell_id: str, first: int, records: np.ndarray, seconds: float) -> None:
        table = pa.Table.from_pandas(pd.DataFrame(records), preserve_index=False)
        table = table.replace_schema_metadata({"seconds": repr(seconds)})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        self.cell_dir(cell_id).mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.chunk_path(cell_id, first), sink.getvalue().to_pybytes())

    def finished(self, cell_id: str) -> dict[int, int]:
        """``{first deal: deals}`` of every whole stored chunk of a cell; a chunk that is
        unreadable or holds other deals than its name says is set aside (kept as
        ``*.broken`` for inspection) and so played again."""
        out = {}
        for path in self.chunk_files(cell_id):
            first = int(CHUNK_NAME.fullmatch(path.name).group(1))
            try:
                deals = pq.read_table(path, columns=["deal"]).column("deal").to_numpy()
            except Exception:  # noqa: BLE001 - any unreadable file is a broken chunk
                deals = None
            if deals is not None and len(deals) and np.array_equal(
                    deals, np.arange(first, first + len(deals))):
                out[first] = len(deals)
            else:
                path.rename(path.with_name(path.name + ".broken"))
        return out

    def records(self, cell_id: str, deals: int | None = None) -> pd.DataFrame:
        """The stored records of a cell in deal order (the first ``deals`` of them if given)."""
        files = self.chunk_files(cell_id)
        if not files:
            raise SimsolError(f"{self.path}: no records for cell {cell_id!r}")
        frame = pd.concat([self._read_chunk(f) for f in files], ignore_index=True)
        frame = frame.sort_values("deal", kind="stable").reset_index(drop=True)
        if not np.array_equal(frame["deal"].to_numpy(), np.arange(len(frame))):
            raise SimsolError(f"{self.path}: cell {cell_id} has gaps in its deals; run the "
                              "experiment again to fill them")
        return frame if deals is None else frame.iloc[:deals]

    def _read_chunk(self, path: Path) -> pd.DataFrame:
        try:
            return pq.read_table(path).to_pandas()
        except (OSError, pa.ArrowException) as error:
            raise SimsolError(f"{path} is not a whole chunk ({error}); run the experiment "
                              "again to set it aside and play it again") from None

    def seconds(self, cell_id: str) -> float:
        """Total compute seconds recorded with the cell's chunks."""
        total = 0.0
        for file in self.chunk_files(cell_id):
            try:
                meta = pq.read_schema(file).metadata or {}
            except (OSError, pa.ArrowException):
                continue  # records() says which chunk is broken
            total += float(meta.get(b"seconds", b"0"))
        return total
