"""Metrics of the ROBIN reproduction: worst-case error (Eq. 2), MAE, budget to match, human agreement."""

from __future__ import annotations

import numpy as np
from scipy import stats


def wce(estimates: np.ndarray, true_means: np.ndarray) -> np.ndarray:
    """max_i |s_i - s_hat_i| over the last axis (Eq. 2)."""
    return np.abs(np.asarray(estimates) - np.asarray(true_means)).max(axis=-1)


def budget_to_match(budgets, curve, target: float) -> float:
    """Smallest budget at which a decreasing error ``curve`` reaches ``target``.

    Linear interpolation between checkpoints; ``nan`` if the curve never reaches the target.
    """
    budgets = np.asarray(budgets, dtype=float)
    curve = np.asarray(curve, dtype=float)
    below = np.nonzero(curve <= target)[0]
    if below.size == 0:
        return float("nan")
    j = int(below[0])
    if j == 0:
        return float(budgets[0])
    b0, b1, e0, e1 = budgets[j - 1], budgets[j], curve[j - 1], curve[j]
    return float(b0 + (b1 - b0) * (e0 - target) / (e0 - e1)) if e0 != e1 else float(b1)


def human_correlations(estimates: np.ndarray, human: np.ndarray) -> dict[str, np.ndarray]:
    """Pearson r, Spearman rho and Kendall tau-b of estimates with human ratings.

    ``estimates`` has items on the last axis; items whose human rating is NaN are left out.
    Returns arrays of the leading shape of ``estimates``.
    """
    est = np.asarray(estimates, dtype=float)
    human = np.asarray(human, dtype=float)
    keep = ~np.isnan(human)
    flat = est.reshape(-1, est.shape[-1])[:, keep]
    h = human[keep]
    out = {"pearson": [], "spearman": [], "kendall": []}
    for row in flat:
        out["pearson"].append(stats.pearsonr(row, h).statistic)
        out["spearman"].append(stats.spearmanr(row, h).statistic)
        out["kendall"].append(stats.kendalltau(row, h).statistic)
    return {k: np.asarray(v).reshape(est.shape[:-1]) for k, v in out.items()}
