"""Calls at certification against full evaluation, per matrix and method (``simulate(..., stop="certified")``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import data as datasets
from ...simulate import simulate
from ...stats import clopper_pearson

RUN_COLUMNS = ("dataset", "kind", "n", "m", "method", "rep", "calls", "frac", "certified", "right", "top_gap")
TABLE_COLUMNS = ("dataset", "kind", "method", "n", "m", "reps", "top_gap", "frac_median", "frac_q25", "frac_q75", "early",
                 "early_lo", "early_hi", "certified", "wrong")


def certified_runs(cfg: dict, device=None, progress: bool = False) -> pd.DataFrame:
    """One row per (dataset, method, repetition): calls at the first certificate, the pick, whether it is right
    (no row, the same columns, when none of the profile's matrices is present).

    Each repetition runs to the full matrix at most and stops at its first certificate at level
    ``delta / n`` per model (so a certified pick is the best with probability >= 1 - delta).
    """
    rows = []
    names = [d for d in cfg["datasets"] if datasets.available(d)]
    for d_i, name in enumerate(names):
        mat = datasets.load(name)
        n, m = mat.shape
        for i, meth in enumerate(cfg["methods"]):
            res = simulate(meth, mat, [n * m], reps=int(cfg["reps"]), seed=int(cfg["seed"]) + 100 * d_i + i,
                           device=device, progress=progress, delta=float(cfg["delta"]), stop="certified",
                           batch_size=int(cfg["batch_size"]))
            right = np.isin(res.best[-1], res.true_best_set)
            rows.append(pd.DataFrame({
                "dataset": name, "kind": mat.kind, "n": n, "m": m, "method": meth, "rep": np.arange(res.reps),
                "calls": res.calls, "frac": res.calls / (n * m), "certified": res.certified_at >= 0,
                "right": right, "top_gap": float(np.sort(mat.means)[-1] - np.sort(mat.means)[-2]),
            }))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=RUN_COLUMNS)


def savings_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method): median and quartiles of the fraction of the matrix spent, runs certified before
    the full matrix with an exact 95% interval, and wrong certified picks."""
    out = []
    for (ds, meth), g in runs.groupby(["dataset", "method"], sort=False):
        early = int((g.calls < g.n * g.m).sum())
        lo, hi = clopper_pearson(early, len(g))
        wrong = int((g.certified & ~g.right).sum())
        out.append(dict(dataset=ds, kind=g.kind.iloc[0], method=meth, n=int(g.n.iloc[0]), m=int(g.m.iloc[0]),
                        reps=len(g), top_gap=g.top_gap.iloc[0], frac_median=g.frac.median(),
                        frac_q25=g.frac.quantile(0.25), frac_q75=g.frac.quantile(0.75), early=early,
                        early_lo=lo, early_hi=hi, certified=int(g.certified.sum()), wrong=wrong))
    return pd.DataFrame(out, columns=TABLE_COLUMNS)
