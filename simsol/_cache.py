"""Compiled-kernel cache keyed by the package's own source.

numba's on-disk cache checks only the timestamp of the file that holds the cached entry point,
not of the kernels it inlines from other files, so an edit to a shared kernel could leave stale
machine code in use.  Keying the cache folder on a hash of every source file of the package
makes any change start a fresh cache.  ``SIMSOL_CACHE_DIR`` moves the cache (default
``~/.cache/simsol``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def source_hash() -> str:
    digest = hashlib.sha1()
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def use_source_keyed_cache() -> None:
    """Point numba's cache at a folder for this exact source (must run before kernels load)."""
    root = Path(os.environ.get("SIMSOL_CACHE_DIR", Path.home() / ".cache" / "simsol"))
    numba.config.CACHE_DIR = str(root / f"kernels-{source_hash()}")
