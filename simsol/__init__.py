"""simsol: a Monte Carlo win-rate simulator for patience games."""

from simsol._cache import use_source_keyed_cache

use_source_keyed_cache()

from simsol.rules import SimsolError  # noqa: E402
from simsol.runner import Result, simulate  # noqa: E402

__version__ = "0.1.0"
__all__ = ["Result", "SimsolError", "load_results", "simulate", "__version__"]


def load_results(path):
    """Open a results folder: ``.summary()``, ``.comparisons()``, ``.records(cell)``."""
    from simsol.report import load_results as load
    return load(path)
