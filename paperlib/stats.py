"""Small statistical helpers shared by the theorem checkers."""

from __future__ import annotations

from statsmodels.stats.proportion import proportion_confint


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial (Clopper-Pearson) interval for a rate k / n (``statsmodels``)."""
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0 (got k={k}, n={n})")
    lo, hi = proportion_confint(int(k), int(n), alpha=1.0 - level, method="beta")
    return float(lo), float(hi)


def median_interval(x, level: float = 0.95) -> tuple[float, float, float]:
    """The sample median and a distribution-free interval for the population median from order statistics: the
    number of draws below the median is binomial(n, 1/2) (the sign-test interval; hand-written, a few lines).

    Returns
    -------
    median, lower, upper : float
    """
    import numpy as np
    from scipy.stats import binom

    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    if n == 0:
        raise ValueError("no values")
    lo = int(binom.ppf((1 - level) / 2, n, 0.5))
    hi = min(n - 1, int(binom.isf((1 - level) / 2, n, 0.5)))
    return float(np.median(x)), float(x[max(lo - 1, 0)]), float(x[hi])
