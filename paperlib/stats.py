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


def crossing_draws(budgets, acc, reps, level: float, n_boot: int = 2000, seed: int = 0):
    """Bootstrap draws of the first budget at which an accuracy curve reaches ``level`` (inf where a draw never
    does), for the 95% interval of a crossing that a ledger row reads off a curve (issue 57, item 4).

    Each point of the curve is a share of ``reps`` independent runs that were right, so a draw resamples each as
    Binomial(reps, acc) / reps (a parametric bootstrap; it treats the budgets as independent, while a run's
    successes at two budgets are positively correlated, so the interval is, if anything, wider than needed) and
    interpolates the crossing as :func:`paperlib.metrics.first_crossing` does. Vectorised over the draws.
    """
    import numpy as np

    b = np.asarray(budgets, dtype=float)
    p = np.clip(np.asarray(acc, dtype=float), 0.0, 1.0)
    n = np.broadcast_to(np.asarray(reps, dtype=np.int64), p.shape)
    rng = np.random.default_rng(seed)
    draws = rng.binomial(n, p, size=(n_boot, p.size)) / np.maximum(n, 1)
    hit = draws >= level
    j = hit.argmax(axis=1)
    never = ~hit.any(axis=1)
    prev = np.maximum(j - 1, 0)
    rows = np.arange(n_boot)
    e0, e1 = draws[rows, prev], draws[rows, j]
    with np.errstate(divide="ignore", invalid="ignore"):
        interp = np.where(e1 != e0, b[prev] + (b[j] - b[prev]) * (level - e0) / (e1 - e0), b[j])
    out = np.where(j == 0, b[0], interp)
    return np.where(never, np.inf, out)
