"""Accuracy of every method at every budget on every matrix, and the confidence budgets CB_T."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import data as datasets
from ...data.pools import PoolInstance, make_pool
from ...device import describe, get_device, made_by
from ...lowrank import FitConfig, fit_factors
from ...metrics import confidence_budget
from ...policies import METHODS, parse
from ...simulate import budgets_from_fracs, simulate
from ...simulate.blocks import block_ranges, check_block
from ...stats import clopper_pearson

SPLIT = " (test half)"  #: suffix of a matrix's key in the tables when only its seeded test half of the models ran


def method_params(method: str, cfg: dict) -> dict:
    """The race's ``batch_size`` and ``lrf_params`` (e.g. a declared ``refit_growth``), restricted to the parameters
    that ``method`` (a method id, ``ucbe:batch_mode=pending``) declares and whose value changes its picks (SySRs' and
    the baselines' batch only cuts the work)."""
    shared = {"batch_size": int(cfg["batch_size"]), **cfg.get("lrf_params", {})}
    return METHODS[parse(method)[0]].pick(shared, affecting_only=True)


def method_reps(method: str, cfg: dict, split: bool = False) -> int:
    """Runs of ``method``: ``reps``, unless ``reps_by_method`` (of the ``split`` block, for the test-half race)
    declares another count for it."""
    return int((cfg["split"] if split else cfg).get("reps_by_method", {}).get(method, cfg["reps"]))


def _accuracy_rows(key: str, kind: str, shape: tuple[int, int], meth: str, budgets: list[int], res,
                   machine: str) -> pd.DataFrame:
    """One row per budget of the grid; budgets below the method's first feasible one (PULSE's warm-up) have NaN
    accuracy, which every confidence budget counts as below T. ``machine`` and the run's streams say what made the
    rows (issue 74, item 3)."""
    n, m = shape
    acc = np.full(len(budgets), np.nan)
    lo, hi = acc.copy(), acc.copy()
    at = np.searchsorted(budgets, res.budgets)
    acc[at] = res.precision()
    k = np.rint(acc[at] * res.reps).astype(int)
    ci = np.array([clopper_pearson(int(x), res.reps) for x in k])
    lo[at], hi[at] = ci[:, 0], ci[:, 1]
    return pd.DataFrame({
        "dataset": key, "kind": kind, "n": n, "m": m, "method": meth, "budget": budgets,
        "frac": np.asarray(budgets) / (n * m), "accuracy": acc, "ci_low": lo, "ci_high": hi,
        "reps": res.reps, "wall_s": res.wall_s, "machine": machine, "streams": res.streams,
    })


def dataset_accuracy(cfg: dict, name: str, device=None, progress: bool = False, methods=None) -> pd.DataFrame:
    """One row per (method, budget) on dataset ``name``: accuracy (the pick is in the true best set) with its
    exact 95% CI. Seeds depend on the dataset's position in ``cfg["datasets"]`` and the method's in
    ``cfg["methods"]``, so one dataset's job gives the same table alone or within the whole race, and ``methods``
    (some of ``cfg["methods"]``; None: all) gives those methods' rows of the whole table."""
    d_i = list(cfg["datasets"]).index(name)
    mat = datasets.load(name)
    budgets = budgets_from_fracs(cfg["budget_fracs"], *mat.shape)
    machine = describe(get_device(device))
    rows = []
    unknown = set(methods or ()) - set(cfg["methods"])
    if unknown:
        raise ValueError(f"methods {sorted(unknown)} are not among the race's {cfg['methods']}")
    for i, meth in enumerate(cfg["methods"]):
        if methods is not None and meth not in methods:
            continue
        res = simulate(meth, mat, budgets, reps=method_reps(meth, cfg), seed=int(cfg["seed"]) + 1000 * d_i + i,
                       device=device, progress=progress, **method_params(meth, cfg))
        rows.append(_accuracy_rows(name, mat.kind, mat.shape, meth, budgets, res, machine))
    return pd.concat(rows, ignore_index=True)


def dataset_blocks(cfg: dict) -> list[int]:
    """The blocks of a matrix's runs (``rep_block`` runs each; one block without it): block i holds runs
    [i rep_block, (i + 1) rep_block) of every method that has them (issue 67: the race in blocks of runs)."""
    return list(range(max(len(block_ranges(method_reps(m, cfg), cfg.get("rep_block"))) for m in cfg["methods"])))


#: the per-run table of a race block: one row per (method, run, budget)
RUN_COLUMNS = ["dataset", "kind", "n", "m", "method", "run", "run_seed", "budget", "pick", "correct", "block_wall_s",
               "block_reps", "machine", "streams"]


def dataset_block(cfg: dict, name: str, block: int, device=None, progress: bool = False, methods=None) -> pd.DataFrame:
    """Runs [a, b) of every method on matrix ``name`` (block ``block`` of :func:`dataset_blocks`): each run's pick at
    every budget and whether it is in the true best set. The seeds are :func:`dataset_accuracy`'s and every random
    number of run r comes from its own keyed stream (``simulate``'s ``first_run``), so the blocks are exactly the runs
    of one batch; :func:`accuracy_from_runs` turns them into the same table."""
    block = check_block(block, len(dataset_blocks(cfg)), f"the race on {name}")  # before any work (issue 76)
    d_i = list(cfg["datasets"]).index(name)
    mat = datasets.load(name)
    budgets = budgets_from_fracs(cfg["budget_fracs"], *mat.shape)
    machine = describe(get_device(device))  # where the block ran (issue 74, item 3: each table says what made it)
    frames = []
    for i, meth in enumerate(cfg["methods"]):
        ranges = block_ranges(method_reps(meth, cfg), cfg.get("rep_block"))
        if (methods is not None and meth not in methods) or block >= len(ranges):  # a method with fewer blocks
            continue
        a, b = ranges[block]
        res = simulate(meth, mat, budgets, reps=b - a, seed=int(cfg["seed"]) + 1000 * d_i + i, first_run=a,
                       device=device, progress=progress, **method_params(meth, cfg))
        C, R = res.best.shape
        frames.append(pd.DataFrame({
            "dataset": name, "kind": mat.kind, "n": mat.shape[0], "m": mat.shape[1], "method": meth,
            "run": np.tile(np.arange(a, b), C), "run_seed": np.tile(res.run_seeds, C),
            "budget": np.repeat(res.budgets, R), "pick": res.best.ravel(),
            "correct": np.isin(res.best, res.true_best_set).ravel().astype(int), "block_wall_s": res.wall_s,
            "block_reps": R, "machine": machine, "streams": res.streams}))
    return pd.concat(frames, ignore_index=True)[RUN_COLUMNS] if frames else pd.DataFrame(columns=RUN_COLUMNS)


def accuracy_from_runs(cfg: dict, name: str, runs: pd.DataFrame) -> pd.DataFrame:
    """The accuracy table of :func:`dataset_accuracy` from the per-run rows of all of a matrix's blocks
    (concatenated, in any order), checked to hold runs 0 .. R - 1 of every method once at every budget."""
    g0 = runs[runs.dataset == name]
    if g0.empty:
        raise ValueError(f"no runs of {name!r}")
    n, m = int(g0.n.iloc[0]), int(g0.m.iloc[0])
    budgets = budgets_from_fracs(cfg["budget_fracs"], n, m)
    rows = []
    for meth in cfg["methods"]:
        g = g0[g0.method == meth]
        R = method_reps(meth, cfg)
        once = all(sorted(r) == list(range(R)) for _, r in g.groupby("budget").run)
        if g.empty or not once or sorted(set(g.budget)) != sorted(budgets):
            raise ValueError(f"{name}: the blocks do not hold runs 0..{R - 1} of {meth} once at every budget")
        k = g.groupby("budget").correct.sum().reindex(budgets)
        acc = (k / R).to_numpy(dtype=float)
        ci = np.array([clopper_pearson(int(x), R) if np.isfinite(x) else (np.nan, np.nan) for x in k.to_numpy(float)])
        wall = float(g.drop_duplicates("run").drop_duplicates(["block_wall_s", "block_reps"]).block_wall_s.sum())
        made = made_by(g)
        rows.append(pd.DataFrame({
            "dataset": name, "kind": g.kind.iloc[0], "n": n, "m": m, "method": meth, "budget": budgets,
            "frac": np.asarray(budgets) / (n * m), "accuracy": acc, "ci_low": ci[:, 0], "ci_high": ci[:, 1],
            "reps": R, "wall_s": wall, **{c: v for c, v in made.items() if v}}))
    return pd.concat(rows, ignore_index=True)


def load_dataset_accuracy(cfg: dict, name: str, path, split: bool = False) -> pd.DataFrame:
    """The accuracy table of matrix ``name`` as committed (some methods' rows computed elsewhere, e.g. the LRF family
    on one H200 until 2026-11-28, with a ``machine`` column), checked to be this profile's: every
    method of ``cfg["methods"]`` (with ``split``, of ``cfg["split"]["methods"]`` on the test half) at its run count
    and at every budget of the grid. Raises ``ValueError`` naming what differs."""
    acc = pd.read_csv(path)
    key = name + SPLIT if split else name
    acc = acc[acc.dataset == key].reset_index(drop=True)
    if acc.empty:
        raise ValueError(f"{path} has no rows of {key!r}")
    budgets = budgets_from_fracs(cfg["budget_fracs"], int(acc.n.iloc[0]), int(acc.m.iloc[0]))
    methods = cfg["split"]["methods"] if split else cfg["methods"]
    problems = []
    for meth in methods:
        rows = acc[acc.method == meth]
        if rows.empty:
            problems.append(f"no rows of {meth}")
            continue
        if rows.budget.tolist() != list(budgets):
            problems.append(f"{meth} at other budgets than the profile's")
        if int(rows.reps.iloc[0]) != (want := method_reps(meth, cfg, split)):
            problems.append(f"{meth} at {int(rows.reps.iloc[0])} runs, the profile's {want}")
    extra = sorted(set(acc.method) - set(methods))
    if extra:
        problems.append(f"methods not in the profile: {', '.join(extra)}")
    if problems:
        raise ValueError(f"{path} is not this profile's race table of {key}: " + "; ".join(problems))
    return acc


def split_datasets(cfg: dict) -> list[str]:
    """The available matrices of the test-half race: ``split.datasets`` (default: all of ``datasets``)."""
    if "split" not in cfg:
        return []
    names = cfg["split"].get("datasets", cfg["datasets"])
    unknown = sorted(set(names) - set(cfg["datasets"]))
    if unknown:
        raise ValueError(f"race split datasets {unknown} are not in the race's datasets")
    return [d for d in names if datasets.available(d)]


def split_instance(cfg: dict, name: str) -> PoolInstance:
    """Matrix ``name`` with its models split into seeded train and test halves (:func:`make_pool` with no target
    gap, the split of the PULSE reproduction's full-test-half pools)."""
    mat = datasets.load(name)
    return make_pool(mat.scores, name, mat.kind, None, None, seed=int(cfg["seed"]))


def split_accuracy(cfg: dict, name: str, device=None, progress: bool = False) -> pd.DataFrame:
    """The race on the seeded test half of matrix ``name``'s models (``cfg["split"]["methods"]``): the PULSE family
    with example factors V fitted on the train half (PULSE Step 1 with ``cfg["split"]["fit"]``), and any matrix
    method on the same test half for comparison. Keys are ``name + SPLIT``; the budget grid is fractions of the test
    half. A PULSE-family method cannot run below its warm-up (every test model on ``batch_size`` examples): NaN
    there."""
    sp = cfg["split"]
    d_i = list(cfg["datasets"]).index(name)
    inst = split_instance(cfg, name)
    f = sp["fit"]
    _, V = fit_factors(inst.train, cfg=FitConfig(int(f["rank"]), float(f["lam"]), float(f["lr"]), int(f["steps"])),
                       seed=int(cfg["seed"]), device=device)
    test = inst.test
    n, m = test.shape
    budgets = budgets_from_fracs(cfg["budget_fracs"], n, m)
    machine = describe(get_device(device))
    rows = []
    for i, meth in enumerate(sp["methods"]):
        spec = METHODS[parse(meth)[0]]
        params = method_params(meth, cfg)
        feasible = budgets
        if spec.family == "backbone":
            feasible = [b for b in budgets if b >= n * int(cfg["batch_size"])]
            if spec.needs_factors:
                params["v"] = V.cpu().numpy()
        if not feasible:
            continue
        res = simulate(meth, test, feasible, reps=method_reps(meth, cfg, split=True),
                       seed=int(cfg["seed"]) + 1000 * d_i + 500 + i, device=device, progress=progress, **params)
        rows.append(_accuracy_rows(name + SPLIT, test.kind, test.shape, meth, budgets, res, machine))
    out = pd.concat(rows, ignore_index=True)
    return out.assign(split_seed=inst.seed, fit_rank=int(f["rank"]))


def accuracy_table(cfg: dict, device=None, progress: bool = False) -> pd.DataFrame:
    """:func:`dataset_accuracy` (and :func:`split_accuracy` when the config has a ``split`` block) on every available
    dataset of the race, concatenated."""
    have = [name for name in cfg["datasets"] if datasets.available(name)]
    tables = [dataset_accuracy(cfg, name, device, progress) for name in have]
    tables += [split_accuracy(cfg, name, device, progress) for name in split_datasets(cfg)]
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=list(ACCURACY_COLUMNS))


#: Columns of a race accuracy table (:func:`dataset_accuracy`, :func:`split_accuracy`).
ACCURACY_COLUMNS = ("dataset", "kind", "n", "m", "method", "budget", "frac", "accuracy", "ci_low", "ci_high", "reps",
                    "wall_s", "split_seed", "fit_rank")


def read_accuracy(paths) -> pd.DataFrame:
    """The per-matrix accuracy tables of the workflow, concatenated, in the race's columns (a per-matrix table's
    ``machine`` column, where some of its rows were computed elsewhere, stays in that table: the summary table is
    read at page width and kept under 1 MB); an empty list (a run with no real matrix) gives an empty table."""
    tables = [pd.read_csv(p) for p in paths]
    if not tables:
        return pd.DataFrame(columns=list(ACCURACY_COLUMNS))
    acc = pd.concat(tables, ignore_index=True)
    return acc[[c for c in ACCURACY_COLUMNS if c in acc]]


def confidence_budgets(acc: pd.DataFrame, levels, grid) -> pd.DataFrame:
    """CB_T per (dataset, method, T) on the profile's budget grid (NaN: not reached by its largest budget)."""
    out = []
    for (ds, meth), g in acc.groupby(["dataset", "method"], sort=False):
        g = g.sort_values("frac")
        for level in levels:
            out.append(dict(dataset=ds, method=meth, level=level,
                            cb=confidence_budget(np.asarray(grid)[: len(g)], g.accuracy.to_numpy(), level)))
    return pd.DataFrame(out, columns=["dataset", "method", "level", "cb"])


def cb_draws(acc: pd.DataFrame, level: float, grid, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Parametric bootstrap draws of CB_T per (dataset, method): each budget's share of runs that found the best model
    redrawn from its binomial (``reps`` runs; budgets independently, as :func:`paperlib.stats.crossing_draws` does),
    CB_T read off each draw as :func:`paperlib.metrics.confidence_budget` reads the table. Rows (dataset, method), one
    column per draw; a draw whose largest budget is below T is ``2 x`` the largest budget (beyond the grid: two such
    compare as equal). One seed per (dataset, method) in sorted order, so the draws do not depend on the table's row
    order."""
    grid = np.asarray(grid, dtype=float)
    beyond = 2 * grid.max()
    rows, index = [], []
    for i, ((ds, meth), g) in enumerate(acc.sort_values(["dataset", "method"]).groupby(["dataset", "method"])):
        g = g.sort_values("frac")
        rng = np.random.default_rng([seed, i])
        n = g.reps.to_numpy(dtype=np.int64)
        p = g.accuracy.clip(0, 1).fillna(0.0).to_numpy()  # a budget not run is below T, as confidence_budget reads it
        a = rng.binomial(n, p, size=(n_boot, len(g))) / np.maximum(n, 1)
        ok = a >= level
        fr = grid[: len(g)]
        # the last budget below T; CB is the budget after it (the first budget when none is below)
        last_bad = np.where(ok.all(axis=1), -1, len(g) - 1 - np.argmax(~ok[:, ::-1], axis=1))
        cb = np.where(~ok[:, -1], beyond, fr[np.minimum(last_bad + 1, len(g) - 1)])
        rows.append(cb)
        index.append((ds, meth))
    return pd.DataFrame(np.asarray(rows).reshape(len(rows), n_boot),
                        index=pd.MultiIndex.from_tuples(index, names=["dataset", "method"]))


def winners(cb: pd.DataFrame, level: float, tol: float) -> pd.DataFrame:
    """Per dataset at level T: each method's CB_T, the best one, and who is within ``tol`` of it (ties win)."""
    t = cb[cb.level == level].pivot(index="dataset", columns="method", values="cb")
    best = t.min(axis=1)
    filled = t.fillna(np.inf)
    return t.assign(best=best, winners=[", ".join(c for c in t.columns if filled.loc[d, c] <= best[d] + tol + 1e-12)
                                        for d in t.index])
