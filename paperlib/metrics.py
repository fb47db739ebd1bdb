"""Metrics shared by every paper.

Best-method identification (Zhou et al. 2025, Sec. 4.2): top-1 precision (gap, McNemar), NDCG@10,
hardness H1, the budget at which a curve reaches a level and stays there.
Judge budgets (Saha et al. 2026): worst-case error (Eq. 2), agreement with human ratings.
Curves: :func:`first_crossing`, the interpolated budget at which a curve first reaches a target.
"""

from __future__ import annotations

import numpy as np


def hardness_h1(means) -> float:
    """H1 = sum_{i != i*} 1 / (mu_* - mu_i)^2 (Corollary 1). ``inf`` when the best is tied."""
    mu = np.asarray(means, dtype=np.float64)
    best = int(np.argmax(mu))
    gaps = np.delete(mu[best] - mu, best)
    if (gaps <= 0).any():
        return float("inf")
    return float(np.sum(1.0 / gaps**2))


def gap_set(means, eps: float) -> np.ndarray:
    """Rows whose true mean is within ``eps`` of the best (Sec. 4.2, "performance gap")."""
    mu = np.asarray(means, dtype=np.float64)
    if eps < 0:
        raise ValueError(f"eps must be >= 0, got {eps}")
    return np.flatnonzero(mu >= mu.max() - eps - 1e-12)


def mcnemar_set(scores, alpha: float, threshold: float = 0.5) -> np.ndarray:
    """Rows not significantly different from the empirical best by McNemar's test at level alpha.

    Each row's per-example outcomes are compared with the best row's on the same examples
    (exact binomial McNemar test on the discordant pairs, ``statsmodels``). Continuous scores
    are binarised as ``score > threshold`` (for AlpacaEval: the model's answer is preferred);
    the paper does not say how it applied McNemar's test to continuous scores.
    """
    # imported here, as scipy.stats in human_correlations: they cost ~1 s of start-up to every CLI command
    from statsmodels.stats.contingency_tables import mcnemar

    s = np.asarray(scores, dtype=np.float64)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    binary = np.isin(s, (0.0, 1.0)).all()
    b = s if binary else (s > threshold).astype(np.float64)
    best = int(np.argmax(s.mean(axis=1)))
    keep = []
    for i in range(s.shape[0]):
        if i == best:
            keep.append(i)
            continue
        n10 = int(((b[best] == 1) & (b[i] == 0)).sum())
        n01 = int(((b[best] == 0) & (b[i] == 1)).sum())
        if n10 + n01 == 0:
            keep.append(i)
            continue
        p = mcnemar(np.array([[0, n10], [n01, 0]]), exact=True).pvalue
        if p >= alpha:
            keep.append(i)
    return np.asarray(keep, dtype=np.int64)


def top1_precision(best: np.ndarray, good: np.ndarray) -> np.ndarray:
    """Fraction of repetitions whose predicted best is in the set ``good``; over the last axis."""
    return np.isin(np.asarray(best), good).mean(axis=-1)


def ndcg_at_k(estimates, true_means, k: int = 10) -> np.ndarray:
    """NDCG@k of the ranking by ``estimates`` (..., n) against the true means.

    The paper does not define the relevance; we use graded relevance by true rank,
    ``rel = k - true_rank`` for the true top k (k, k-1, ..., 1) and 0 otherwise, with the
    standard ``1 / log2(position + 1)`` discount. A perfect top-k order scores 1. Rows with NaN
    estimates rank last.
    """
    est = np.asarray(estimates, dtype=np.float64)
    mu = np.asarray(true_means, dtype=np.float64)
    n = mu.shape[0]
    k = min(k, n)
    true_rank = np.empty(n, dtype=np.int64)
    true_rank[np.argsort(-mu, kind="stable")] = np.arange(n)
    rel = np.maximum(k - true_rank, 0).astype(np.float64)
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    ideal = float((np.sort(rel)[::-1][:k] * disc).sum())
    est = np.where(np.isnan(est), -np.inf, est)
    order = np.argsort(-est, axis=-1, kind="stable")[..., :k]
    return (rel[order] * disc).sum(axis=-1) / ideal


def equivalence_sets(scores, eps_list=(0.001, 0.01), alpha_list=(0.01, 0.1)) -> dict[str, np.ndarray]:
    """The rows counted as correct by each top-1 precision variant (Sec. 4.2), by metric name."""
    mu = np.asarray(scores, dtype=np.float64).mean(axis=1)
    sets = {f"top1 gap eps={e}": gap_set(mu, e) for e in eps_list}
    sets.update({f"top1 McNemar alpha={a}": mcnemar_set(scores, a) for a in alpha_list})
    return sets


def precision_table(result, scores, sets: dict | None = None, k: int = 10):
    """Long-format table of every metric of a :class:`~paperlib.simulate.SimResult`.

    ``sets`` are the :func:`equivalence_sets` of ``scores`` (computed here when not given; pass
    them when tabulating several methods on the same matrix). Returns a pandas DataFrame with
    columns ``method, dataset, kind, budget, budget_frac, metric, value, se`` (se = standard
    error over repetitions).
    """
    import pandas as pd

    n, m = np.asarray(scores).shape
    mu = result.true_means
    rows = []
    if sets is None:
        sets = equivalence_sets(scores)
    reps = result.best.shape[1]
    for c, budget in enumerate(result.budgets):
        vals = {name: np.isin(result.best[c], good).astype(float) for name, good in sets.items()}
        vals[f"NDCG@{k}"] = ndcg_at_k(result.estimates[c], mu, k)
        for name, v in vals.items():
            rows.append(dict(method=result.method, dataset=result.dataset, kind=result.kind, budget=int(budget),
                             budget_frac=budget / (n * m), metric=name, value=float(v.mean()),
                             se=float(v.std(ddof=1) / np.sqrt(reps)) if reps > 1 else float("nan")))
    return pd.DataFrame(rows)


def settle_table(result, good, n: int, m: int):
    """Per repetition, the budget fraction from which its pick is in ``good`` at every later checkpoint.

    ``good``: the rows counted as correct (one of :func:`equivalence_sets`). NaN where the pick is
    wrong at the last checkpoint. The budget at which mean precision reaches 1 and stays there
    (:func:`budget_to_reach`) is the largest of these over the repetitions.
    """
    import pandas as pd

    ok = np.isin(result.best, good)
    suffix_ok = np.flip(np.cumprod(np.flip(ok, 0), 0), 0).astype(bool)
    first = np.where(suffix_ok.any(0), suffix_ok.argmax(0), -1)
    fr = np.asarray(result.budgets, dtype=float) / (n * m)
    return pd.DataFrame({"method": result.method, "dataset": result.dataset, "rep": np.arange(ok.shape[1]),
                         "settle_frac": np.where(first >= 0, fr[np.maximum(first, 0)], np.nan)})


def budget_to_reach(table, metric: str, level: float = 1.0):
    """Smallest budget fraction at which each (dataset, method) reaches ``level`` and stays there."""
    import pandas as pd

    out = []
    sub = table[table.metric == metric]
    for (ds, meth), g in sub.groupby(["dataset", "method"]):
        g = g.sort_values("budget_frac")
        ok = g.value.to_numpy() >= level - 1e-9
        frac = np.nan
        for i in range(len(ok)):
            if ok[i:].all():
                frac = float(g.budget_frac.iloc[i])
                break
        out.append(dict(dataset=ds, method=meth, metric=metric, level=level, budget_frac=frac))
    return pd.DataFrame(out)


def wce(estimates: np.ndarray, true_means: np.ndarray) -> np.ndarray:
    """max_i |s_i - s_hat_i| over the last axis (Eq. 2)."""
    return np.abs(np.asarray(estimates) - np.asarray(true_means)).max(axis=-1)


def first_crossing(budgets, curve, target: float, direction: str = "down") -> float:
    """Smallest budget at which ``curve`` first reaches ``target``, interpolated linearly.

    ``direction="down"``: an error curve, reached when ``curve <= target``; ``"up"``: an accuracy
    curve, reached when ``curve >= target``. ``nan`` if the curve never reaches the target. Unlike
    :func:`budget_to_reach` the curve may leave the target again later. One row of :func:`first_crossings`.
    """
    out = float(first_crossings(budgets, np.asarray(curve, dtype=float)[None], target, direction)[0])
    return out if np.isfinite(out) else float("nan")


def first_crossings(budgets, curves, target, direction: str = "down"):
    """The first crossing of each row of ``curves`` (N, C) over ``budgets`` (C,), against its own ``target`` (a
    scalar or (N,)): the first budget where the curve reaches the target (``direction`` as :func:`first_crossing`),
    interpolated linearly between the grid points around it, the first budget if already there, ``inf`` where it
    never does. Vectorised over rows (the bootstrap draws of a crossing: :mod:`paperlib.stats`)."""
    if direction not in ("down", "up"):
        raise ValueError(f"direction must be 'down' or 'up', got {direction!r}")
    sign = 1.0 if direction == "down" else -1.0
    b = np.asarray(budgets, dtype=float)
    c = sign * np.asarray(curves, dtype=float)
    t = sign * np.broadcast_to(np.asarray(target, dtype=float), c.shape[:1])[:, None]
    if c.shape[1] == 0:  # no budget: never reached
        return np.full(c.shape[0], np.inf)
    hit = c <= t
    j = hit.argmax(axis=1)
    never = ~hit.any(axis=1)
    prev = np.maximum(j - 1, 0)
    rows = np.arange(c.shape[0])
    e0, e1 = c[rows, prev], c[rows, j]
    with np.errstate(divide="ignore", invalid="ignore"):
        interp = np.where(e1 != e0, b[prev] + (b[j] - b[prev]) * (e0 - t[:, 0]) / (e0 - e1), b[j])
    out = np.where(j == 0, b[0], interp)
    return np.where(never, np.inf, out)


def human_correlations(estimates: np.ndarray, human: np.ndarray) -> dict[str, np.ndarray]:
    """Pearson r, Spearman rho and Kendall tau-b of estimates with human ratings.

    ``estimates`` has items on the last axis; items whose human rating is NaN are left out.
    Returns arrays of the leading shape of ``estimates``.
    """
    from scipy import stats

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


def confidence_budget(fracs, accuracy, level: float) -> float:
    """CB_T of Lyu et al. (2026): the smallest budget fraction from which accuracy stays >= ``level`` at every
    larger budget of the grid; NaN when even the largest budget is below ``level``.

    Parameters
    ----------
    fracs : increasing budget fractions
    accuracy : accuracy (probability of finding the best model) at each fraction
    level : T, e.g. 0.7, 0.8, 0.9, 0.95 or 1
    """
    fracs = np.asarray(fracs, dtype=float)
    acc = np.asarray(accuracy, dtype=float)
    if fracs.shape != acc.shape or fracs.ndim != 1 or not fracs.size:
        raise ValueError(f"fracs and accuracy must be 1-D of equal length, got {fracs.shape} and {acc.shape}")
    if np.any(np.diff(fracs) <= 0):
        raise ValueError("fracs must be strictly increasing")
    ok = acc >= level
    if not ok[-1]:
        return float("nan")
    bad = np.flatnonzero(~ok)
    return float(fracs[bad[-1] + 1] if bad.size else fracs[0])
