"""Experiments of the PULSE reproduction: pools, runs, the tables of Figures 1-4.

Every function takes ``cfg``, this paper's configuration: the ``pulse`` block of a profile plus the
profile's ``seed`` (see :func:`paperlib.pipeline.config.paper_config`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from ... import data as datasets
from ...checks import check_index
from ...data.pools import PoolInstance, make_pool
from ...device import describe, get_device, made_by
from ...lowrank import FitConfig, cross_validate, fit_factors
from ...metrics import first_crossing
from ...policies import METHODS, label, parse
from ...simulate import simulate
from ...simulate.blocks import block_ranges, check_block


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


def pool_fracs(cfg: dict, pool: str | None = None) -> list[float]:
    """The bandit budgets of ``pool`` as fractions of its n x m: ``bandit_fracs_by_pool[pool]`` where the profile
    names the pool (issue 74: the Bench 1 pools, where every method is at 95% at the common grid's first budget, get
    a grid that starts below that point, so that their budgets to 95% are measured, not censored), else the
    profile's ``bandit_fracs``."""
    return list(cfg.get("bandit_fracs_by_pool", {}).get(pool, cfg["bandit_fracs"]))


def budgets(cfg: dict, n_models: int, n_questions: int, pool: str | None = None) -> tuple[int, list[int]]:
    """(warm-up calls, the checkpoint budgets) of a pool: warm-up plus each of :func:`pool_fracs` of n x m."""
    warm = n_models * int(cfg["batch_size"]) * int(cfg["t0"])
    calls = [warm + int(round(f * n_models * n_questions)) for f in pool_fracs(cfg, pool)]
    return warm, sorted(set(calls))


def loop_params(cfg: dict) -> dict:
    """PULSE's in-loop parameters: refit period and the refit hyperparameters of App. C.1."""
    r = cfg["refit"]
    return dict(refit_every=int(cfg["refit_every"]), lam=float(r["lam"]), init_lr=float(r["init_lr"]),
                init_steps=int(r["init_steps"]), loop_lr=float(r["loop_lr"]), loop_steps=int(r["loop_steps"]))


def method_reps(cfg: dict, method: str) -> int:
    """Runs of ``method`` per pool: ``reps_by_method[method]`` where the profile names it, else ``reps``."""
    return int(cfg.get("reps_by_method", {}).get(method, cfg["reps"]))


def method_seed(cfg: dict, method: str) -> int:
    """The seed of ``method``'s batch of runs on every pool: the profile's seed plus its position in ``methods``."""
    return int(cfg["seed"]) + list(cfg["methods"]).index(method)


def pool_blocks(cfg: dict) -> list[int]:
    """The blocks of a pool's runs (:func:`paperlib.simulate.blocks.block_ranges` of ``rep_block`` runs): block i
    runs runs [i rep_block, (i + 1) rep_block) of every method that has them."""
    size = cfg.get("rep_block")
    return list(range(max(len(block_ranges(method_reps(cfg, m), size)) for m in cfg["methods"])))


def block_runs(cfg: dict, method: str, block: int) -> tuple[int, int] | None:
    """Runs [a, b) of ``method`` in ``block``, or None if the method has fewer blocks."""
    ranges = block_ranges(method_reps(cfg, method), cfg.get("rep_block"))
    return ranges[block] if 0 <= block < len(ranges) else None


def extra_fits(cfg: dict) -> list[int]:
    """The indices k = 1 .. ``fits.extra`` of the profile's extra Step 1 fits (issue 67, item 5); [] without them."""
    return list(range(1, 1 + int(cfg.get("fits", {}).get("extra", 0))))


def fit_pools(cfg: dict) -> list[str]:
    """The pools with extra Step 1 fits: ``fits.pools`` where the profile names them, else every pool."""
    if not extra_fits(cfg):
        return []
    names = pool_names(cfg)
    return [p for p in cfg["fits"].get("pools", names) if p in names]


def fit_runs_config(cfg: dict) -> dict:
    """The config of an extra fit's runs: the same methods, seeds and keyed streams as the pool's (run r under fit k
    is run r of the authors' fit with only V changed, a paired comparison), with ``fits.reps`` runs of each of
    ``fits.methods``."""
    f = cfg["fits"]
    return {**cfg, "reps_by_method": {**cfg.get("reps_by_method", {}), **{m: int(f["reps"]) for m in f["methods"]}}}


def fit_blocks(cfg: dict) -> list[int]:
    """The blocks of an extra fit's runs (``rep_block`` runs each)."""
    if not extra_fits(cfg):
        return []
    return list(range(len(block_ranges(int(cfg["fits"]["reps"]), cfg.get("rep_block")))))


def fit_block(cfg: dict, name: str, block: int, fit: dict, device=None, progress: bool = True) -> pd.DataFrame:
    """Block ``block`` of the runs of ``fits.methods`` with an extra Step 1 fit (``fit["index"]`` > 0): the rows of
    :func:`run_block`, the ``fit`` column saying which fit."""
    if int(fit.get("index", 0)) < 1:
        raise ValueError("an extra fit has index >= 1 (fit 0 is the pool's own blocks)")
    check_block(block, len(fit_blocks(cfg)), f"the extra fits of pool {name}")
    return run_block(fit_runs_config(cfg), name, block, fit, device=device, progress=progress,
                     methods=list(cfg["fits"]["methods"]))


def read_fit_blocks(paths) -> pd.DataFrame:
    """The per-run rows of extra-fit blocks (``<pool>.fit<k>.b<block>.csv.gz``, :func:`fit_block`), with a ``pool``
    column from each file's name."""
    frames = []
    for p in paths:
        pool = Path(p).name.split(".fit")[0]
        frames.append(pd.read_csv(p).assign(pool=pool))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RUN_COLUMNS + ["pool"])


def extra_fit_runs(cfg: dict, pools, device=None, progress: bool = False) -> pd.DataFrame:
    """The extra fits' runs computed here, in one process (the smoke path of ``pulse_summary.ipynb``; the DAG runs
    :func:`fit_block` as jobs of its own)."""
    frames = []
    for p in pools:
        for k in extra_fits(cfg):
            f = fit_pool(cfg, p, device=device, index=k)
            frames += [fit_block(cfg, p, b, f, device=device, progress=progress).assign(pool=p) for b in fit_blocks(cfg)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RUN_COLUMNS + ["pool"])


def fit_accuracy(cfg: dict, runs: pd.DataFrame) -> pd.DataFrame:
    """Accuracy@t per (pool, method, fit, budget) over the runs 0 .. ``fits.reps`` - 1 that every fit has (fit 0:
    the same runs of the pool's blocks), from per-run rows of :func:`run_block` / :func:`fit_block` with a ``pool``
    column. Runs are paired across fits: only V differs."""
    n = int(cfg["fits"]["reps"])
    g = runs[runs.method.isin(cfg["fits"]["methods"]) & (runs.run < n)]
    t = g.groupby(["pool", "method", "fit", "budget"]).agg(accuracy=("correct", "mean"), reps=("run", "nunique"),
                                                          bandit_calls=("bandit_calls", "first")).reset_index()
    t["se"] = np.sqrt(t.accuracy * (1 - t.accuracy) / t.reps)
    return t


def method_params(cfg: dict, method: str, fit: dict) -> dict:
    """``method``'s parameters on a pool: the backbone's (B, T0, a) and, for the methods with predictions, the refits'
    and Step 1's frozen factors V (``fit``: :func:`fit_pool`)."""
    spec = METHODS[parse(method)[0]]
    kw = spec.pick({"batch_size": int(cfg["batch_size"]), "t0": int(cfg["t0"]), "a": float(cfg["a"]), **loop_params(cfg)})
    if spec.needs_factors:
        kw["v"] = fit["V"]
    return kw


def fit_pool(cfg: dict, name: str, device=None, fit: FitConfig | None = None, index: int = 0) -> dict:
    """Step 1 on pool ``name``'s train split, once per pool (its own job; every block reads it): the frozen example
    factors ``V`` (m, r) float32, the fit's configuration and seconds. ``index`` 0 is the authors' procedure (one fit,
    the profile's seed); k > 0 an extra fit with seed + k (the profile's ``fits``)."""
    ds, _ = parse_pool(name)
    inst = build_instance(cfg, name)
    fcfg = fit or fit_config(cfg, ds)
    t = time.perf_counter()
    _, V = fit_factors(inst.train, cfg=fcfg, seed=int(cfg["seed"]) + int(index), device=device)
    return {"V": V.cpu().numpy(), "rank": fcfg.rank, "lam": fcfg.lam, "lr": fcfg.lr, "steps": fcfg.steps,
            "fit_s": time.perf_counter() - t, "pool": name, "split_seed": inst.seed, "index": int(index)}


def save_fit(path, fit: dict) -> None:
    np.savez(path, **{k: np.asarray(v) for k, v in fit.items()})


def load_fit(path) -> dict:
    with np.load(path, allow_pickle=False) as z:
        return {k: (z[k] if k == "V" else z[k].item()) for k in z.files}


#: the per-run table of a block: one row per (method, run, budget)
RUN_COLUMNS = ["method", "fit", "run", "run_seed", "budget", "bandit_calls", "pick", "correct", "block_wall_s",
               "block_reps", "fit_rank", "fit_lam", "fit_s", "machine", "streams"]


def run_block(cfg: dict, name: str, block: int, fit: dict, device=None, progress: bool = True, methods=None,
              inst: PoolInstance | None = None) -> pd.DataFrame:
    """Block ``block`` of every method's runs on pool ``name`` with Step 1's ``fit`` (:func:`fit_pool`): runs [a, b)
    of each method's batch (:func:`block_runs`; ``methods``: only these), each run's pick at every budget. Keyed
    streams make the rows those of the same runs in one batch (:func:`paperlib.simulate.simulate`'s
    ``first_run``)."""
    block = check_block(block, len(pool_blocks(cfg)), f"pool {name}")  # before any work (issue 76)
    inst = inst or build_instance(cfg, name)
    if int(fit["split_seed"]) != inst.seed:
        raise ValueError(f"the fit was made on another split of {name} (split seed {fit['split_seed']}, the pool's "
                         f"{inst.seed})")
    n, m = inst.test.shape
    warm, bs = budgets(cfg, n, m, name)
    machine = describe(get_device(device))
    best = inst.test.means >= inst.test.means.max()
    frames = []
    for meth in cfg["methods"]:
        ab = block_runs(cfg, meth, block)
        if ab is None or (methods is not None and meth not in methods):
            continue
        kw = method_params(cfg, meth, fit)
        a, b = ab
        res = simulate(meth, inst.test, bs, reps=b - a, seed=method_seed(cfg, meth), first_run=a, device=device,
                       progress=progress, **kw)
        C, R = res.best.shape
        frames.append(pd.DataFrame({
            "method": meth, "run": np.tile(np.arange(a, b), C), "run_seed": np.tile(res.run_seeds, C),
            "budget": np.repeat(bs, R), "bandit_calls": np.repeat(np.asarray(bs) - warm, R),
            "pick": res.best.ravel(), "correct": best[res.best.ravel()].astype(int), "block_wall_s": res.wall_s,
            "block_reps": R, "fit": int(fit.get("index", 0)), "fit_rank": int(fit["rank"]),
            "fit_lam": float(fit["lam"]), "fit_s": float(fit["fit_s"]), "machine": machine, "streams": res.streams}))
    if not frames:  # no method asked for has runs in this block
        return pd.DataFrame(columns=RUN_COLUMNS)
    return pd.concat(frames, ignore_index=True)[RUN_COLUMNS]


def pool_table(cfg: dict, name: str, runs: pd.DataFrame, inst: PoolInstance | None = None) -> pd.DataFrame:
    """Accuracy@t per method and budget (Figures 1-3's table) from the per-run rows of all of a pool's blocks
    (concatenated), checked to hold every run of every method exactly once."""
    ds, gap = parse_pool(name)
    inst = inst or build_instance(cfg, name)
    n, m = inst.test.shape
    warm, bs = budgets(cfg, n, m, name)
    runs = runs[runs.fit == 0]  # the authors' one fit of V; the other fits have tables of their own
    frames = []
    for meth in cfg["methods"]:
        g = runs[runs.method == meth]
        R = method_reps(cfg, meth)
        per = g.groupby("budget").run
        if sorted(g.budget.unique()) != bs or not all(sorted(x) == list(range(R)) for _, x in per):
            raise ValueError(f"{name}: the blocks do not hold runs 0..{R - 1} of {meth} once at every budget "
                             f"({g.run.nunique()} runs, budgets {sorted(g.budget.unique())})")
        acc = g.groupby("budget").correct.mean().reindex(bs).to_numpy()
        first = g.drop_duplicates(["run"]).drop_duplicates(["block_wall_s", "block_reps"])  # one row per block
        wall = float(first.block_wall_s.sum())
        frames.append(pd.DataFrame({
            "pool": name, "dataset": ds, "kind": inst.test.kind, "target_gap": np.nan if gap is None else gap,
            "realised_gap": inst.test.meta["realised_gap"], "split_seed": inst.seed, "n_models": n, "n_questions": m,
            "method": meth, "label": label(meth), "budget": bs, "bandit_calls": np.asarray(bs) - warm,
            "accuracy": acc, "se": np.sqrt(acc * (1 - acc) / R), "reps": R, "wall_s": wall,
            "s_per_run": wall / R, "fit_rank": int(g.fit_rank.iloc[0]), "fit_lam": float(g.fit_lam.iloc[0]),
            "fit_s": float(g.fit_s.iloc[0]),
            **made_by(g),
        }))
    return pd.concat(frames, ignore_index=True)


def run_pool(cfg: dict, name: str, device=None, progress: bool = True, fit: FitConfig | None = None,
             methods=None):
    """The profile's methods on one pool in one process: Step 1 (:func:`fit_pool`), every block
    (:func:`run_block`), the table (:func:`pool_table`); the DAG runs the same calls as jobs of their own.
    ``methods``: only these of them, each with its seed from its position in the profile's list, so a subset run
    gives the rows a whole run would. Returns (table, instance, fitted V)."""
    inst = build_instance(cfg, name)
    f = fit_pool(cfg, name, device=device, fit=fit)
    runs = pd.concat([run_block(cfg, name, b, f, device=device, progress=progress, methods=methods, inst=inst)
                      for b in pool_blocks(cfg)], ignore_index=True)
    sub = cfg if methods is None else {**cfg, "methods": [x for x in cfg["methods"] if x in methods]}
    return pool_table(sub, name, runs, inst), inst, f["V"]


def rerun(cfg: dict, name: str, method: str, run: int, device=None, fit: dict | None = None,
          inst: PoolInstance | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run ``run`` of ``method`` on pool ``name`` alone, as the pool's blocks ran it (its keyed streams make it the same
    run): (its rows as :func:`run_block` writes them, its trace: one row per step with the calls spent, the model it
    evaluated and the examples it drew). ``fit``: the pool's Step 1 (:func:`fit_pool`, fitted here when None)."""
    inst = inst or build_instance(cfg, name)
    fit = fit or fit_pool(cfg, name, device=device)
    run = check_run(cfg, method, run)
    n, m = inst.test.shape
    warm, bs = budgets(cfg, n, m, name)
    kw = method_params(cfg, method, fit)
    steps = []

    def record(req, policy):
        k = req.size if req.valid is None else int(req.valid[0].sum())
        steps.append({"step": len(steps), "calls": policy.spent, "model": int(req.rows[0, 0]) if k else -1,
                      "examples": k, "first_example": int(req.cols[0, 0])})

    res = simulate(method, inst.test, bs, reps=1, seed=method_seed(cfg, method), first_run=int(run), device=device,
                   progress=False, on_step=record, **kw)
    best = inst.test.means >= inst.test.means.max()
    rows = pd.DataFrame({"method": method, "fit": int(fit.get("index", 0)), "run": int(run),
                         "run_seed": int(res.run_seeds[0]), "budget": bs, "bandit_calls": np.asarray(bs) - warm,
                         "pick": res.best[:, 0], "correct": best[res.best[:, 0]].astype(int), "streams": res.streams})
    return rows, pd.DataFrame(steps)


def published_block(cfg: dict, blocks_dir, name: str, method: str, run: int) -> Path:
    """The committed table that holds ``run`` of ``method`` on pool ``name``: its block's file under ``blocks_dir``."""
    block = int(run) // int(cfg.get("rep_block") or method_reps(cfg, method))
    return Path(blocks_dir) / f"{name}.b{block}.csv.gz"


def published_run(cfg: dict, blocks_dir, name: str, method: str, run: int) -> pd.DataFrame | None:
    """The committed rows of ``run`` of ``method`` on pool ``name`` (its block's table under ``blocks_dir``), or None
    when that block is not there (an empty table when the block is there without the run's rows)."""
    path = published_block(cfg, blocks_dir, name, method, run)
    if not path.exists():
        return None
    t = pd.read_csv(path)
    return t[(t.method == method) & (t.run == int(run)) & (t.fit == 0)].reset_index(drop=True)


def check_run(cfg: dict, method: str, run) -> int:
    """``run`` as a run index of ``method`` on every pool of the profile: an integer in [0, runs), before any work."""
    if method not in cfg["methods"]:
        raise ValueError(f"{method!r} is not one of the profile's methods {cfg['methods']}")
    R = method_reps(cfg, method)
    return check_index(run, "--run", high=R, what=f"{method} has runs 0 .. {R - 1} on every pool")


def fit_key(cfg: dict, name: str, index: int = 0, device=None) -> str:
    """What Step 1's fit on pool ``name`` depends on, as a short digest (the name of its cached file): the pool's
    construction (seed, pool size, gap tolerance, questions), the fit's configuration and index, the source of the
    code that builds pools and fits (a change to it is a new key, never a stale fit), and the device kind and torch
    threads it runs with (the fit's last bits depend on them: :data:`paperlib.threads.TABLE_THREADS`)."""
    import hashlib
    import json

    import torch

    from ... import lowrank
    from ...data import pools

    code = hashlib.sha256()
    for f in sorted(Path(lowrank.__file__).parent.glob("*.py")) + [Path(pools.__file__)]:
        code.update(f.read_bytes())

    ds, _ = parse_pool(name)
    f = fit_config(cfg, ds)
    what = {"pool": name, "seed": int(cfg["seed"]), "pool_size": cfg.get("pool_size"), "gap_tol": cfg.get("gap_tol"),
            "n_questions": cfg.get("n_questions"), "fit": [f.rank, f.lam, f.lr, f.steps], "index": int(index),
            "code": code.hexdigest(), "device": get_device(device).type, "threads": torch.get_num_threads()}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def cached_fit(cfg: dict, name: str, cache: Path, device=None, log=None) -> dict:
    """Step 1 on pool ``name`` (:func:`fit_pool`, the authors' one fit), read from ``cache`` when a fit with the same
    :func:`fit_key` is there, else fitted and saved there (``paperlib rerun`` pays for Step 1 once per pool)."""
    path = Path(cache) / f"{name}.fit0.{fit_key(cfg, name, device=device)}.npz"
    if path.exists():
        if log:
            log(f"Step 1 of {name}: the cached fit {path}")
        return load_fit(path)
    if log:
        log(f"Step 1 of {name}: fitting V on the train split (about a minute on a paper pool; cached in {path.parent})")
    fit = fit_pool(cfg, name, device=device)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    save_fit(tmp, fit)
    tmp.replace(path)
    return fit


def authors_runs(path) -> pd.DataFrame:
    """A run of the authors' code (``elad-tolo/pulse-llm-eval``, their PULSE: ``variant`` cv_wor) on one of our pools,
    as ``benchmarks/pulse_authors_side_by_side.py`` wrote it (one row per seed, a 0/1 column ``b<calls>`` per bandit
    budget): their accuracy per budget, (pool, bandit_calls, accuracy, reps)."""
    t = pd.read_csv(path)
    t = t[t.variant == "cv_wor"] if "variant" in t else t
    cols = [c for c in t.columns if c.startswith("b") and c[1:].isdigit()]
    if t.empty or not cols:
        raise ValueError(f"{path} has no runs of the authors' PULSE (variant cv_wor, columns b<calls>)")
    return pd.DataFrame([{"pool": pool, "bandit_calls": int(c[1:]), "accuracy": float(g[c].mean()), "reps": len(g)}
                         for pool, g in t.groupby("pool", sort=False) for c in cols])


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
    """Step 1 cross-validation on the train split of one pool (one job of the workflow); ``machine`` and ``streams``
    say what made it (issue 74, item 3: :data:`paperlib.lowrank.logistic.CV_STREAMS`)."""
    from ...lowrank.logistic import CV_STREAMS

    inst = build_instance(cfg, pool)
    _, table = select_hyperparameters(cfg, inst, parse_pool(pool)[0])
    return table.assign(pool=pool, kind=inst.test.kind, split_seed=inst.seed, machine=describe(get_device(None)),
                        streams=CV_STREAMS)


def cv_table(cfg: dict) -> pd.DataFrame:
    """Step 1 cross-validation on the train split of the first pool of each dataset (one table, all datasets)."""
    return pd.concat([cv_pool_table(cfg, pool) for pool in cv_pools(cfg)], ignore_index=True)
