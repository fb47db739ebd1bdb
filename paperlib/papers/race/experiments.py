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
    """Batch size for the methods that take one (SySRs' and the baselines' results do not depend on it), plus
    ``lrf_params`` for the LRF family (e.g. a declared ``refit_growth``); ``method`` is a method id
    (``ucbe:batch_mode=pending``)."""
    family = METHODS[parse(method)[0]].family
    params = {"batch_size": int(cfg["batch_size"])} if family in ("ucbe", "lrf") else {}
    if family == "lrf" and parse(method)[0] != "lrf":
        params.update(cfg.get("lrf_params", {}))
    return params


def method_reps(method: str, cfg: dict) -> int:
    """Runs of ``method``: ``reps``, unless ``reps_by_method`` declares fewer for it (a CPU reduction)."""
    return int(cfg.get("reps_by_method", {}).get(method, cfg["reps"]))


def dataset_accuracy(cfg: dict, name: str, device=None, progress: bool = False) -> pd.DataFrame:
    """One row per (method, budget) on dataset ``name``: accuracy (the pick is in the true best set) with its
    exact 95% CI. Seeds depend on the dataset's position in ``cfg["datasets"]``, so one dataset's job gives
    the same table alone or within the whole race."""
    d_i = list(cfg["datasets"]).index(name)
    mat = datasets.load(name)
    n, m = mat.shape
    budgets = budgets_from_fracs(cfg["budget_fracs"], n, m)
    rows = []
    for i, meth in enumerate(cfg["methods"]):
        res = simulate(meth, mat, budgets, reps=method_reps(meth, cfg), seed=int(cfg["seed"]) + 1000 * d_i + i,
                       device=device, progress=progress, **method_params(meth, cfg))
        acc = res.precision()
        k = np.rint(acc * res.reps).astype(int)
        ci = np.array([clopper_pearson(int(x), res.reps) for x in k])
        rows.append(pd.DataFrame({
            "dataset": name, "kind": mat.kind, "n": n, "m": m, "method": meth, "budget": res.budgets,
            "frac": res.budgets / (n * m), "accuracy": acc, "ci_low": ci[:, 0], "ci_high": ci[:, 1],
            "reps": res.reps, "wall_s": res.wall_s,
        }))
    return pd.concat(rows, ignore_index=True)


def accuracy_table(cfg: dict, device=None, progress: bool = False) -> pd.DataFrame:
    """:func:`dataset_accuracy` on every available dataset of the race, concatenated."""
    tables = [dataset_accuracy(cfg, name, device, progress) for name in cfg["datasets"] if datasets.available(name)]
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


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
