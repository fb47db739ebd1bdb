"""Small statistical helpers shared by the theorem checkers."""

from __future__ import annotations

from statsmodels.stats.proportion import proportion_confint


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial (Clopper-Pearson) interval for a rate k / n (``statsmodels``)."""
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0 (got k={k}, n={n})")
    lo, hi = proportion_confint(int(k), int(n), alpha=1.0 - level, method="beta")
    return float(lo), float(hi)
