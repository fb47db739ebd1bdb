"""Accuracy of every method at every budget on every matrix, and the confidence budgets CB_T."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import data as datasets
from ...metrics import confidence_budget
from ...policies import METHODS, parse
from ...simulate import budgets_from_fracs, simulate
from ...stats import clopper_pearson


def method_params(method: str, cfg: dict) -> dict:
    """Batch size for the methods that take one (SySRs' and the baselines' results do not depend on it);
    ``method`` is a method id (``ucbe:batch_mode=pending``)."""
    family = METHODS[parse(method)[0]].family
    return {"batch_size": int(cfg["batch_size"])} if family in ("ucbe", "lrf") else {}


def accuracy_table(cfg: dict, device=None, progress: bool = False) -> pd.DataFrame:
    """One row per (dataset, method, budget): accuracy (the pick is in the true best set) with its exact 95% CI."""
    rows = []
    names = [d for d in cfg["datasets"] if datasets.available(d)]
    for d_i, name in enumerate(names):
        mat = datasets.load(name)
        n, m = mat.shape
        budgets = budgets_from_fracs(cfg["budget_fracs"], n, m)
        for i, meth in enumerate(cfg["methods"]):
            res = simulate(meth, mat, budgets, reps=int(cfg["reps"]), seed=int(cfg["seed"]) + 1000 * d_i + i,
                           device=device, progress=progress, **method_params(meth, cfg))
            acc = res.precision()
            k = np.rint(acc * res.reps).astype(int)
            ci = np.array([clopper_pearson(int(x), res.reps) for x in k])
            rows.append(pd.DataFrame({
                "dataset": name, "kind": mat.kind, "n": n, "m": m, "method": meth, "budget": res.budgets,
                "frac": res.budgets / (n * m), "accuracy": acc, "ci_low": ci[:, 0], "ci_high": ci[:, 1],
                "reps": res.reps, "wall_s": res.wall_s,
            }))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def confidence_budgets(acc: pd.DataFrame, levels, grid) -> pd.DataFrame:
    """CB_T per (dataset, method, T) on the profile's budget grid (NaN: not reached by its largest budget)."""
    out = []
    for (ds, meth), g in acc.groupby(["dataset", "method"], sort=False):
        g = g.sort_values("frac")
        for level in levels:
            out.append(dict(dataset=ds, method=meth, level=level,
                            cb=confidence_budget(np.asarray(grid)[: len(g)], g.accuracy.to_numpy(), level)))
    return pd.DataFrame(out)


def winners(cb: pd.DataFrame, level: float, tol: float) -> pd.DataFrame:
    """Per dataset at level T: each method's CB_T, the best one, and who is within ``tol`` of it (ties win)."""
    t = cb[cb.level == level].pivot(index="dataset", columns="method", values="cb")
    best = t.min(axis=1)
    filled = t.fillna(np.inf)
    return t.assign(best=best, winners=[", ".join(c for c in t.columns if filled.loc[d, c] <= best[d] + tol + 1e-12)
                                        for d in t.index])
