"""Experiments of the PULSE reproduction: pools, runs, the tables of Figures 1-4.

Every function takes ``cfg``, this paper's configuration: the ``pulse`` block of a profile plus the
profile's ``seed`` (see :func:`paperlib.pipeline.config.paper_config`).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ... import data as datasets
from ...data.pools import PoolInstance, make_pool
from ...device import describe, get_device
from ...lowrank import FitConfig, cross_validate, fit_factors
from ...metrics import first_crossing
from ...policies import METHODS, label, parse
from ...simulate import simulate


def pool_names(cfg: dict) -> list[str]:
    """``<dataset>-gap<g>`` or ``<dataset>-full`` for every pool of the config whose data is present."""
    out = []
    for ds in cfg["datasets"]:
        if not datasets.available(ds):
            continue
        for g in cfg["gaps"].get(ds, cfg["gaps"].get("default", [])):
            out.append(f"{ds}-full" if g == "full" else f"{ds}-gap{g:g}")
    return out


def parse_pool(name: str) -> tuple[str, float | None]:
    ds, _, g = name.rpartition("-")
    return ds, (None if g == "full" else float(g.removeprefix("gap")))


def fit_config(cfg: dict, ds: str) -> FitConfig:
    f = cfg["fit"]
    f = f.get(ds, f.get("default"))
    return FitConfig(int(f["rank"]), float(f["lam"]), float(f["lr"]), int(f["steps"]))


def build_instance(cfg: dict, name: str) -> PoolInstance:
    ds, gap = parse_pool(name)
    mat = datasets.load(ds)
    size = None if gap is None else int(cfg["pool_size"])
    nq = cfg.get("n_questions")
    return make_pool(mat.scores, name, mat.kind, size, gap, n_questions=nq, seed=int(cfg["seed"]),
                     tol=float(cfg.get("gap_tol", 0.002)))


def select_hyperparameters(cfg: dict, inst: PoolInstance, ds: str) -> tuple[FitConfig, pd.DataFrame]:
    """5-fold CV with the 1-SE rule on (a row subset of) the train split."""
    grid = [FitConfig(int(r), float(lam), float(lr), int(st)) for r in cfg["cv"]["ranks"] for lam in cfg["cv"]["lams"]
            for lr in cfg["cv"]["lrs"] for st in cfg["cv"]["steps"]]
    rows = np.random.default_rng(int(cfg["seed"])).permutation(inst.train.shape[0])[: int(cfg["cv"]["max_rows"])]
    pick, table = cross_validate(inst.train[rows], grid, folds=5, seed=int(cfg["seed"]))
    return pick, pd.DataFrame(table).assign(dataset=ds, chosen=lambda d: (d["rank"] == pick.rank) & (d.lam == pick.lam)
                                             & (d.lr == pick.lr) & (d.steps == pick.steps))


def budgets(cfg: dict, n_models: int, n_questions: int) -> tuple[int, list[int]]:
    warm = n_models * int(cfg["batch_size"]) * int(cfg["t0"])
    calls = [warm + int(round(f * n_models * n_questions)) for f in cfg["bandit_fracs"]]
    return warm, sorted(set(calls))


def loop_params(cfg: dict) -> dict:
    """PULSE's in-loop parameters: refit period and the refit hyperparameters of App. C.1."""
    r = cfg["refit"]
    return dict(refit_every=int(cfg["refit_every"]), lam=float(r["lam"]), init_lr=float(r["init_lr"]),
                init_steps=int(r["init_steps"]), loop_lr=float(r["loop_lr"]), loop_steps=int(r["loop_steps"]))


def method_reps(cfg: dict, method: str) -> int:
    """Runs of ``method`` per pool: ``reps_by_method[method]`` where the profile names it, else ``reps``."""
    return int(cfg.get("reps_by_method", {}).get(method, cfg["reps"]))


def run_pool(cfg: dict, name: str, device=None, progress: bool = True, fit: FitConfig | None = None,
             methods=None):
    """The profile's methods on one pool (``methods``: only these of them, each with its seed in the profile's
    list, so a subset run gives the rows a whole run would). Returns (long table, instance, fitted V)."""
    ds, gap = parse_pool(name)
    inst = build_instance(cfg, name)
    fcfg = fit or fit_config(cfg, ds)
    t = time.perf_counter()
    _, V = fit_factors(inst.train, cfg=fcfg, seed=int(cfg["seed"]), device=device)
    fit_s = time.perf_counter() - t
    n, m = inst.test.shape
    warm, bs = budgets(cfg, n, m)
    common = dict(batch_size=int(cfg["batch_size"]), t0=int(cfg["t0"]), a=float(cfg["a"]))
    loop = loop_params(cfg)
    machine = describe(get_device(device))
    frames = []
    for i, meth in enumerate(cfg["methods"]):
        spec = METHODS[parse(meth)[0]]
        kw = spec.pick({**common, **loop})  # the backbone's and, for the methods with predictions, the refits'
        if spec.needs_factors:
            kw["v"] = V.cpu().numpy()
        if methods is not None and meth not in methods:
            continue
        res = simulate(meth, inst.test, bs, reps=method_reps(cfg, meth), seed=int(cfg["seed"]) + i, device=device,
                       progress=progress, **kw)
        acc = res.precision()
        R = res.reps
        frames.append(pd.DataFrame({
            "pool": name, "dataset": ds, "kind": inst.test.kind, "target_gap": np.nan if gap is None else gap,
            "realised_gap": inst.test.meta["realised_gap"], "split_seed": inst.seed, "n_models": n, "n_questions": m,
            "method": meth, "label": label(meth), "budget": bs, "bandit_calls": np.asarray(bs) - warm,
            "accuracy": acc, "se": np.sqrt(acc * (1 - acc) / R), "reps": R, "wall_s": res.wall_s,
            "s_per_run": res.wall_s / R, "fit_rank": fcfg.rank, "fit_lam": fcfg.lam, "fit_s": fit_s,
            "machine": machine,
        }))
    return pd.concat(frames, ignore_index=True), inst, V


def load_pool_runs(cfg: dict, name: str, path) -> tuple[pd.DataFrame, PoolInstance]:
    """The table :func:`run_pool` wrote for pool ``name`` elsewhere (e.g. ``benchmarks/gpu_pulse_pools.py`` on a
    GPU), checked to be this profile's: the same pool (split seed, realised gap), every method of the profile at its
    run count, the profile's budgets. Returns (table, instance); raises ``ValueError`` naming what differs."""
    runs = pd.read_csv(path)
    runs = runs[runs.pool == name].reset_index(drop=True)
    if runs.empty:
        raise ValueError(f"{path} has no rows of pool {name!r}")
    inst = build_instance(cfg, name)
    n, m = inst.test.shape
    _, bs = budgets(cfg, n, m)
    problems = []
    if int(runs.split_seed.iloc[0]) != inst.seed or not np.isclose(runs.realised_gap.iloc[0],
                                                                  inst.test.meta["realised_gap"]):
        problems.append(f"another pool (split seed {runs.split_seed.iloc[0]}, this profile's {inst.seed})")
    for meth in cfg["methods"]:
        rows = runs[runs.method == meth]
        if rows.empty:
            problems.append(f"no rows of {meth}")
            continue
        if sorted(rows.budget.tolist()) != bs:
            problems.append(f"{meth} at budgets {sorted(rows.budget.tolist())}, the profile's are {bs}")
        if int(rows.reps.iloc[0]) != method_reps(cfg, meth):
            problems.append(f"{meth} at {int(rows.reps.iloc[0])} runs, the profile's {method_reps(cfg, meth)}")
    extra = sorted(set(runs.method) - set(cfg["methods"]))
    if extra:
        problems.append(f"methods not in the profile: {', '.join(extra)}")
    if problems:
        raise ValueError(f"{path} is not this profile's table of {name}: " + "; ".join(problems))
    return runs, inst


def calls_to_accuracy(calls, acc, level: float) -> float:
    """First budget at which accuracy reaches ``level`` (linear interpolation; NaN if never)."""
    return first_crossing(calls, acc, level, direction="up")


def budget_table(runs: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Figure 1: bandit calls each method needs to reach ``level`` accuracy (NaN if never)."""
    rows = []
    for (pool, meth), g in runs.groupby(["pool", "method"], sort=False):
        g = g.sort_values("bandit_calls")
        need = calls_to_accuracy(g.bandit_calls, g.accuracy, level)
        rows.append({"pool": pool, "dataset": g.dataset.iloc[0], "kind": g.kind.iloc[0], "method": meth,
                     "label": g.label.iloc[0], "calls_to_level": need, "level": level})
    out = pd.DataFrame(rows)
    ref = out[out.method == "ucbe-batch"].set_index("pool").calls_to_level
    out["saving_vs_ucbe"] = 1 - out.calls_to_level / out.pool.map(ref)
    return out


def effective_budget(runs: pd.DataFrame) -> pd.DataFrame:
    """Figure 3: calls each method needs to match UCB-E's accuracy at each UCB-E budget."""
    rows = []
    for pool, g in runs.groupby("pool", sort=False):
        u = g[g.method == "ucbe-batch"].sort_values("bandit_calls")
        for meth, h in g.groupby("method", sort=False):
            h = h.sort_values("bandit_calls")
            for b, acc in zip(u.bandit_calls, u.accuracy, strict=True):
                need = calls_to_accuracy(h.bandit_calls, h.accuracy, acc)
                rows.append({"pool": pool, "method": meth, "label": h.label.iloc[0], "ucbe_calls": b,
                             "ucbe_accuracy": acc, "calls_needed": need})
    return pd.DataFrame(rows)


def cv_pools(cfg: dict) -> list[str]:
    """The first pool of each dataset: Step 1 cross-validation runs once per dataset, on that pool's train split."""
    first = {}
    for pool in pool_names(cfg):
        first.setdefault(parse_pool(pool)[0], pool)
    return list(first.values())


def cv_pool_table(cfg: dict, pool: str) -> pd.DataFrame:
    """Step 1 cross-validation on the train split of one pool (one job of the workflow)."""
    inst = build_instance(cfg, pool)
    _, table = select_hyperparameters(cfg, inst, parse_pool(pool)[0])
    return table.assign(pool=pool, kind=inst.test.kind, split_seed=inst.seed)


def cv_table(cfg: dict) -> pd.DataFrame:
    """Step 1 cross-validation on the train split of the first pool of each dataset (one table, all datasets)."""
    return pd.concat([cv_pool_table(cfg, pool) for pool in cv_pools(cfg)], ignore_index=True)
