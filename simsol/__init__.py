"""simsol: a Monte Carlo win-rate simulator for patience games."""

from simsol.rules import SimsolError
from simsol.runner import Result, simulate

__version__ = "0.1.0"
__all__ = ["Result", "SimsolError", "simulate", "__version__"]
