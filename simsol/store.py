"""The results store: per-deal records in Parquet, chunk by chunk, under a manifest.

A results folder holds ``manifest.json`` (format, package version, the spec, and for every cell
its game, preset, rule overrides, rules id, policy, seed and chunk size) and one Parquet file per
finished chunk, ``cells/<cell>/deals-<first>.parquet``.  Chunks are written to a temporary name
and renamed, so a run killed at any moment leaves only whole chunks; a chunk that is unreadable,
short or for the wrong deals is set aside and played again.  A re-run plays only the chunks that
are missing, so an interrupted run resumes and extending 1M deals to 2M plays only the new ones.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simsol.rules import SimsolError

FORMAT = "simsol-results/1"
MANIFEST = "manifest.json"


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
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


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

    def save_manifest(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path / MANIFEST, json.dumps(self.manifest, indent=2).encode())

    def register(self, cell: Cell, rules_id: str, seed: int, chunk_size: int,
                 spec: dict | None = None) -> None:
        """Record a cell in the manifest; a cell already there must agree on seed and chunks."""
        from simsol import __version__
        entry = {**asdict(cell), "rules_id": rules_id, "seed": seed, "chunk_size": chunk_size}
        known = self.manifest["cells"].get(cell.id)
        if known is not None:
            for key in ("rules_id", "seed", "chunk_size"):
                if known[key] != entry[key]:
                    raise SimsolError(
                        f"{self.path}: cell {cell.id} was run with {key}={known[key]!r}, now "
                        f"{entry[key]!r}; use another --out folder to keep both")
        self.manifest["cells"][cell.id] = entry
        self.manifest["simsol_version"] = __version__
        if spec is not None:
            self.manifest["spec"] = spec
        self.save_manifest()

    def cell_dir(self, cell_id: str) -> Path:
        return self.path / "cells" / cell_id

    def chunk_path(self, cell_id: str, first: int) -> Path:
        return self.cell_dir(cell_id) / f"deals-{first:012d}.parquet"

    def write_chunk(self, cell_id: str, first: int, records: np.ndarray, seconds: float) -> None:
        table = pa.Table.from_pandas(pd.DataFrame(records), preserve_index=False)
        table = table.replace_schema_metadata({"seconds": repr(seconds)})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        self.cell_dir(cell_id).mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.chunk_path(cell_id, first), sink.getvalue().to_pybytes())

    def chunk_ok(self, cell_id: str, first: int, count: int) -> bool:
        """Is the chunk there, whole, and for exactly deals first..first+count-1?"""
        path = self.chunk_path(cell_id, first)
        if not path.exists():
            return False
        try:
            deals = pq.read_table(path, columns=["deal"]).column("deal").to_numpy()
        except Exception:  # noqa: BLE001 - any unreadable file is a broken chunk
            deals = None
        if deals is not None and np.array_equal(deals, np.arange(first, first + count)):
            return True
        path.rename(path.with_name(path.name + ".broken"))  # kept for inspection, then redone
        return False

    def missing_chunks(self, cell_id: str, chunks: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(first, count) for first, count in chunks
                if not self.chunk_ok(cell_id, first, count)]

    def records(self, cell_id: str, deals: int | None = None) -> pd.DataFrame:
        """The stored records of a cell in deal order (the first ``deals`` of them if given)."""
        files = sorted(self.cell_dir(cell_id).glob("deals-*.parquet"))
        if not files:
            raise SimsolError(f"{self.path}: no records for cell {cell_id!r}")
        frame = pd.concat([pq.read_table(f).to_pandas() for f in files], ignore_index=True)
        frame = frame.sort_values("deal", kind="stable").reset_index(drop=True)
        if not np.array_equal(frame["deal"].to_numpy(), np.arange(len(frame))):
            raise SimsolError(f"{self.path}: cell {cell_id} has gaps in its deals; run the "
                              "experiment again to fill them")
        return frame if deals is None else frame.iloc[:deals]

    def seconds(self, cell_id: str) -> float:
        """Total compute seconds recorded with the cell's chunks."""
        total = 0.0
        for file in self.cell_dir(cell_id).glob("deals-*.parquet"):
            meta = pq.read_schema(file).metadata or {}
            total += float(meta.get(b"seconds", b"0"))
        return total
