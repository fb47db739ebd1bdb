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
    from .metrics import first_crossings

    return first_crossings(b, draws, level, direction="up")


def run_bootstrap_crossings(budgets, runs, target_runs, n_boot: int = 2000, seed: int = 0):
    """Bootstrap draws of the first budget at which a method's mean error curve falls to a target that is itself a
    mean over runs (ROBIN's "half the queries": ROBIN-HOOD's mean WCE against Uniform's mean WCE at the full budget;
    issue 57, item 4).

    ``runs`` (R, C): one row per run of the method, its error at each of the ``budgets`` (C,); ``target_runs`` (R',):
    the reference method's runs at its target budget. Each draw resamples the method's runs (whole rows, so a run's
    errors at its budgets stay together) and the reference's runs, each with replacement and independently (the two
    methods' runs are independent), and reads the crossing as :func:`paperlib.metrics.first_crossing` does
    (:func:`paperlib.metrics.first_crossings`; ``inf`` for a draw that never reaches its target). A percentile interval of the draws
    is the crossing's 95% interval. Vectorised over draws: an (n_boot, C) table of means, no (n_boot, R, C) one.
    """
    import numpy as np

    x = np.asarray(runs, dtype=float)
    y = np.asarray(target_runs, dtype=float).ravel()
    if x.ndim != 2 or not x.shape[0] or not y.size:
        raise ValueError(f"need runs of shape (R, C) with R >= 1 and at least one target run (got {x.shape}, {y.size})")
    from .metrics import first_crossings

    rng = np.random.default_rng(seed)
    R = x.shape[0]
    counts = rng.multinomial(R, np.full(R, 1.0 / R), size=n_boot)  # how often each run is drawn
    means = counts @ x / R
    targets = rng.choice(y, size=(n_boot, y.size), replace=True).mean(axis=1)
    return first_crossings(budgets, means, targets, direction="down")
