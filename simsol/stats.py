"""Interval estimates for win rates."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    Chosen over the normal approximation because it stays inside [0, 1] and keeps its coverage
    for win rates near 0 or 1 and for small runs.
    """
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # The interval always holds p; keep it so where rounding would put p a hair outside.
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def solvable_bracket(solvable: int, unknown: int, n: int,
                     z: float = Z95) -> tuple[float, float]:
    """The solver's bracket on the solvable share (Solvitaire's rule): the Wilson interval's lower
    end with every unknown deal counted unsolvable, its upper end with every unknown counted
    solvable.  The unknowns are never folded into either side of the point figures."""
    return wilson(solvable, n, z)[0], wilson(solvable + unknown, n, z)[1]


def paired_difference(won_a, won_b, z: float = Z95) -> tuple[float, float, float]:
    """Difference in win rate (a - b) on the same deals, with a 95% interval.

    Each deal gives d = won_a - won_b in {-1, 0, 1}; the interval is mean(d) ± z·sd(d)/√n.
    Because both runs saw the same deals, most deals cancel and the interval is far narrower
    than the difference of two independent intervals.
    """
    a = np.asarray(won_a, dtype=np.int64)
    b = np.asarray(won_b, dtype=np.int64)
    if a.shape != b.shape or a.size == 0:
        raise ValueError("paired records must be non-empty and of the same length")
    d = a - b
    n = d.size
    mean = float(d.mean())
    half = z * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
    return mean, mean - half, mean + half


def mcnemar(won_a, won_b) -> tuple[int, int, float]:
    """McNemar's test on paired outcomes: (a won only, b won only, two-sided p-value).

    Exact binomial for fewer than 50 discordant deals, else chi-square with continuity correction.
    """
    a = np.asarray(won_a, dtype=bool)
    b = np.asarray(won_b, dtype=bool)
    only_a = int((a & ~b).sum())
    only_b = int((~a & b).sum())
    discordant = only_a + only_b
    if discordant == 0:
        return only_a, only_b, 1.0
    if discordant < 50:
        tail = sum(math.comb(discordant, k) for k in range(min(only_a, only_b) + 1))
        return only_a, only_b, min(1.0, 2 * tail / 2**discordant)
    chi2 = (abs(only_a - only_b) - 1) ** 2 / discordant
    return only_a, only_b, math.erfc(math.sqrt(chi2 / 2))


def histogram_percentiles(counts, percents) -> list[float]:
    """``np.percentile`` (linear interpolation) of the values a histogram counts.

    ``counts[v]`` is how often the whole number ``v`` occurs.  A run keeps only the histogram of
    the foundation cards, not every record, so its quartiles come from here; they equal
    ``np.percentile`` of the records themselves.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return [float("nan")] * len(percents)
    cumulative = np.cumsum(counts)

    def value(rank: int) -> int:  # the rank-th smallest value, counting from 0
        return int(np.searchsorted(cumulative, rank, side="right"))

    out = []
    for q in percents:
        position = (n - 1) * q / 100
        low = math.floor(position)
        below, above = value(low), value(min(low + 1, n - 1))
        out.append(float(below + (position - low) * (above - below)))
    return out
