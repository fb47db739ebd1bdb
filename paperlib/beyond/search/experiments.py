"""Calls at certification against full evaluation, per matrix and method (``simulate(..., stop="certified")``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import data as datasets
from ...simulate import simulate
from ...stats import clopper_pearson, median_interval

RUN_COLUMNS = ("dataset", "kind", "n", "m", "method", "rep", "calls", "frac", "certified", "right", "top_gap", "oracle",
               "bound")
TABLE_COLUMNS = ("dataset", "kind", "method", "n", "m", "reps", "top_gap", "oracle", "bound", "frac_median", "median_lo",
                 "median_hi", "frac_q25", "frac_q75", "early", "early_lo", "early_hi", "certified", "wrong")


def oracle_fraction(scores, delta: float, epsilon: float = 0.0) -> float:
    """The share of the matrix an oracle allocation spends to certify the best row (issue 29's yardstick).

    The oracle knows every rival's gap to the best, gap_j, and the variance of the paired differences; it scores the
    best row in full and rival j on min(m, ceil(2 var(s_best - s_j) log(2 (n - 1) / delta) / gap_j^2)) examples
    (the CLT-scale count at which a one-sided bound separates the pair; with ``epsilon``, gap_j + epsilon, and a
    rival within epsilon needs nothing). A yardstick, not a lower bound: a rule that learns the leader exactly (it is
    scored without replacement) can need fewer, and lucb does on 8 of the 18 shared matrices (2026-11-27). The bound
    is :func:`gaussian_bound_fraction`.
    """
    S = np.asarray(scores, dtype=np.float64)
    n, m = S.shape
    mu = S.mean(1)
    b = int(np.argmax(mu))
    gap = mu[b] - mu + epsilon
    var = np.var(S[b] - S, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(gap <= 0, m, np.minimum(m, np.ceil(2 * var * math.log(2 * (n - 1) / delta) / gap**2)))
    need[b] = m  # the best row in full
    if epsilon > 0:
        need[(mu[b] - mu <= epsilon) & (np.arange(n) != b)] = 0
    return float(need.sum()) / (n * m)


def gaussian_bound_fraction(scores, delta: float) -> float:
    """The share of the matrix that any delta-correct rule needs in expectation if each row were Gaussian with its
    mean and variance and sampled with replacement: T*(mu) kl(delta, 1 - delta) / (n m) (Garivier & Kaufmann 2016,
    Thm. 1; :func:`paperlib.beyond.search.cheapest.gaussian_characteristic_time`). The lower bound the search figure
    draws; rows sampled without replacement can be settled for less once a row is nearly complete."""
    from .cheapest import gaussian_characteristic_time, kl_bernoulli

    S = np.asarray(scores, dtype=np.float64)
    return float(min(1.0, gaussian_characteristic_time(S) * kl_bernoulli(delta, 1 - delta) / S.size))


def certified_runs(cfg: dict, device=None, progress: bool = False) -> pd.DataFrame:
    """One row per (dataset, method, repetition): calls at the first certificate, the pick, whether it is right
    (no row, the same columns, when none of the profile's matrices is present).

    Each repetition runs to the full matrix at most and stops at its first certificate (the method's own for
    ``lucb`` and ``lucb-pd``, else :func:`paperlib.confseq.certify` at ``delta / n`` per model), so a certified pick is
    the best with probability >= 1 - delta. ``oracle`` is :func:`oracle_fraction` of the matrix (a yardstick),
    ``bound`` :func:`gaussian_bound_fraction` (the Gaussian lower bound).
    """
    rows = []
    names = [d for d in cfg["datasets"] if datasets.available(d)]
    for d_i, name in enumerate(names):
        mat = datasets.load(name)
        n, m = mat.shape
        oracle = oracle_fraction(mat.scores, float(cfg["delta"]))
        bound = gaussian_bound_fraction(mat.scores, float(cfg["delta"]))
        for i, meth in enumerate(cfg["methods"]):
            res = simulate(meth, mat, [n * m], reps=int(cfg["reps"]), seed=int(cfg["seed"]) + 100 * d_i + i,
                           device=device, progress=progress, delta=float(cfg["delta"]), stop="certified",
                           batch_size=int(cfg["batch_size"]))
            right = np.isin(res.best[-1], res.true_best_set)
            rows.append(pd.DataFrame({
                "dataset": name, "kind": mat.kind, "n": n, "m": m, "method": meth, "rep": np.arange(res.reps),
                "calls": res.calls, "frac": res.calls / (n * m), "certified": res.certified_at >= 0,
                "right": right, "top_gap": float(np.sort(mat.means)[-1] - np.sort(mat.means)[-2]), "oracle": oracle,
                "bound": bound,
            }))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=RUN_COLUMNS)


def savings_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method): median (with a distribution-free 95% interval) and quartiles of the fraction of the
    matrix spent, the oracle's fraction, runs certified before the full matrix with an exact 95% interval, and wrong
    certified picks."""
    out = []
    for (ds, meth), g in runs.groupby(["dataset", "method"], sort=False):
        early = int((g.calls < g.n * g.m).sum())
        lo, hi = clopper_pearson(early, len(g))
        wrong = int((g.certified & ~g.right).sum())
        med, med_lo, med_hi = median_interval(g.frac)
        out.append(dict(dataset=ds, kind=g.kind.iloc[0], method=meth, n=int(g.n.iloc[0]), m=int(g.m.iloc[0]),
                        reps=len(g), top_gap=g.top_gap.iloc[0], oracle=g.oracle.iloc[0],
                        bound=g.bound.iloc[0] if "bound" in g else np.nan, frac_median=med,
                        median_lo=med_lo, median_hi=med_hi,
                        frac_q25=g.frac.quantile(0.25), frac_q75=g.frac.quantile(0.75), early=early,
                        early_lo=lo, early_hi=hi, certified=int(g.certified.sum()), wrong=wrong))
    return pd.DataFrame(out, columns=TABLE_COLUMNS)
