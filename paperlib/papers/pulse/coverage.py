"""Theorem 1 inside the running bandit: coverage of its interval for the estimate PULSE produces.

The single-model checker (:mod:`.theory`) freezes the predictions. Here the whole of Algorithm 1
runs (warm-up, UCB selection over all models, refits of U every ``refit_every`` steps, batches
of B), and at every checkpoint each model's running estimate mu_hat (Eq. 3) is compared with
Theorem 1's radius. The simulator knows the test matrix, so it computes the exact conditional
variance of every residual correction Z (batch form of Eq. 2, B examples drawn uniformly without
replacement from U):

    Var(Z | F_{t-1}) = |U|^2 sigma_U^2 (|U| - k) / (k (|U| - 1)),

with sigma_U^2 the population variance of S_ij - lambda S_hat_ij over U. V_i is their mean over
the model's steps, as in the theorem; the constant v is the largest V_i over the runs at that
(model, checkpoint), and the radius is Theorem 1's bound inverted at delta for the realised K.

Three kinds of predictions: ``fitted`` (PULSE as published), ``uninformative`` (the frozen V with
its rows permuted by a seeded permutation, so S_hat_ij does not depend on example j's identity)
and ``adversarial`` (1 - S_hat, anti-correlated with the scores). All keep Lemma 1's measurability.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from ...data.pools import PoolInstance
from ...device import describe, get_device, joined
from ...keyed import STREAMS, RunBlock
from ...lowrank import fit_factors
from ...policies.pulse import PULSE, DoublyRobust
from ...simulate.blocks import block_ranges
from ...stats import clopper_pearson
from .experiments import budgets, build_instance, fit_config, loop_params, parse_pool
from .theory import freedman_radius

KINDS = ("fitted", "uninformative", "adversarial")


def batch_z_variance(resid: torch.Tensor, unobs: torch.Tensor, k: int) -> torch.Tensor:
    """Var(Z | F) of Z = (|U| / k) sum of k residuals drawn without replacement from U, per row."""
    n_u = unobs.sum(1).double()
    mean = (resid * unobs).sum(1) / n_u.clamp(min=1)
    var_pop = (((resid - mean[:, None]) ** 2) * unobs).sum(1) / n_u.clamp(min=1)
    fpc = (n_u - k) / (n_u - 1).clamp(min=1)
    return n_u.square() * var_pop * fpc / k


class CoverageObserver:
    """Watches a PULSE run (its ``observer`` hook) and accumulates, per (repetition, model), the exact Var(Z | F) of
    each one-step estimator, and the lambda it used. ``scores`` (n, m) is the test matrix the run is evaluated on."""

    def __init__(self, scores, reps: int, device=None):
        self.S = torch.tensor(np.asarray(scores), dtype=torch.float64, device=device)
        n = self.S.shape[0]
        self.vz_sum = torch.zeros(reps, n, dtype=torch.float64, device=device)
        self.lam_sum = torch.zeros(reps, n, dtype=torch.float64, device=device)
        self.lam_steps = torch.zeros(reps, n, dtype=torch.float64, device=device)

    def on_warmup(self, pol) -> None:
        unobs = torch.ones(pol.n, pol.m, dtype=torch.bool, device=self.S.device)
        self.vz_sum += batch_z_variance(self.S, unobs, pol.warm)[None, :]

    def on_step(self, pol, pick, cols, lam, pred, unobs) -> None:
        resid = self.S[pick] - lam[:, None] * pred
        r = pol._rep_index
        self.vz_sum[r, pick] += batch_z_variance(resid, unobs, pol._kr.double())
        self.lam_sum[r, pick] += lam.double()
        self.lam_steps[r, pick] += 1.0


def coverage_probe(n, m, budget, scores, flip=False, reps=1, device=None, **kw) -> PULSE:
    """PULSE with a :class:`CoverageObserver` (``policy.observer``); ``flip`` replaces the predictions by 1 - S_hat
    in the estimator (the adversarial kind). Selection and estimates are PULSE's own."""
    dev = get_device(device)
    return PULSE(n, m, budget, reps=reps, device=dev, estimator=DoublyRobust(flip=flip),
                 observer=CoverageObserver(scores, reps, dev), **kw)


def pool_factors(cfg: dict, pool: str, device=None, fit: dict | None = None) -> tuple[PoolInstance, np.ndarray]:
    """The pool and the frozen example factors V fitted on its train split (Step 1): ``fit`` (the pool's
    :func:`paperlib.papers.pulse.experiments.fit_pool`, the file every block of the pool reads) or fitted here the
    same way."""
    inst = build_instance(cfg, pool)
    if fit is not None:
        if int(fit["split_seed"]) != inst.seed:
            raise ValueError(f"the fit was made on another split of {pool}")
        return inst, np.asarray(fit["V"])
    _, V = fit_factors(inst.train, cfg=fit_config(cfg, parse_pool(pool)[0]), seed=int(cfg["seed"]), device=device)
    return inst, V.cpu().numpy()


def coverage_blocks(cfg: dict) -> list[int]:
    """The blocks of the coverage check's ``theory.bandit.reps`` runs (the pools' ``rep_block``)."""
    return list(range(len(block_ranges(int(cfg["theory"]["bandit"]["reps"]), cfg.get("rep_block")))))


def run_coverage(cfg: dict, pool: str, kind: str, device=None, fitted=None, block: int | None = None) -> pd.DataFrame:
    """One (pool, kind): errors, K and V_i of every (run, model) at every checkpoint of the profile's budgets.

    ``fitted``: the :func:`pool_factors` of ``pool``, if already made (they are the same for every kind).
    ``block``: only that block of the runs (:func:`coverage_blocks`); PULSE's keyed streams make them exactly those
    runs of the whole batch, so the blocks' cells concatenated are the whole run's.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind of predictions {kind!r}; choose from {KINDS}")
    dev = get_device(device)
    seed = int(cfg["seed"])
    inst, V = fitted or pool_factors(cfg, pool, dev)
    if kind == "uninformative":
        V = V[np.random.default_rng([seed, 17]).permutation(V.shape[0])]
    n, m = inst.test.shape
    _, bs = budgets(cfg, n, m)  # the profile's common grid (bandit_fracs), whatever the pool's own
    total = int(cfg["theory"]["bandit"]["reps"])
    a, b = (0, total) if block is None else block_ranges(total, cfg.get("rep_block"))[int(block)]
    reps = b - a
    policy = coverage_probe(n, m, bs[-1], inst.test.scores, flip=kind == "adversarial", reps=reps,
                            seed=RunBlock(seed + 11, a) if a else seed + 11,
                            device=dev, v=V, batch_size=int(cfg["batch_size"]), t0=int(cfg["t0"]), a=float(cfg["a"]),
                            **loop_params(cfg))
    probe = policy.observer
    S = torch.tensor(inst.test.scores, device=dev)  # a copy: the pool's array is read-only
    mu = inst.test.means
    frames = []
    for budget in bs:
        while policy.spent < budget:
            req = policy.ask(limit=budget - policy.spent)
            policy.tell(req, req.take(S))
        K = policy.n_theta.cpu().numpy()
        frames.append(pd.DataFrame({
            "pool": pool, "data": inst.test.kind, "kind": kind, "budget": budget, "run": np.repeat(np.arange(a, a + reps), n),
            "model": np.tile(np.arange(n), reps),
            "K": K.ravel().astype(int), "err": np.abs(policy.estimate().cpu().numpy() - mu[None, :]).ravel(),
            "V": (probe.vz_sum.cpu().numpy() / K).ravel(), "n_examples": m,
            "lam": (probe.lam_sum / probe.lam_steps).cpu().numpy().ravel()}))
    return pd.concat(frames, ignore_index=True)


def add_radius(df: pd.DataFrame, delta: float) -> pd.DataFrame:
    """Theorem 1's radius at ``delta`` with v = max over runs of V_i at each (pool, kind, budget, model)."""
    v = df.groupby(["pool", "kind", "budget", "model"]).V.transform("max")
    rad = freedman_radius(delta, v.to_numpy(), df.K.to_numpy(), df.n_examples.to_numpy())
    return df.assign(v=v, radius=rad, violated=df.err.to_numpy() > rad, delta=delta)


def violation_summary(df: pd.DataFrame, n_boot: int = 2000, seed: int = 0, alpha: float = 0.05) -> pd.DataFrame:
    """Per (pool, kind): violations of Theorem 1's interval among the informative cells.

    A cell is one (run, model, checkpoint); it is informative when the radius is below 1 (scores lie
    in [0, 1], so a wider interval covers whatever happens). Runs are independent, the cells of one
    run are not, so two intervals are given: an exact Clopper-Pearson interval on the share of runs
    with any violation (an upper bound on every cell's violation probability), and a percentile
    bootstrap over whole runs of the pooled per-cell rate. ``cells_significant`` counts (model,
    checkpoint) cells whose R runs reject ``P(violation) <= delta`` by an exact one-sided binomial
    test at level alpha / (number of cells) (Bonferroni).
    """
    from scipy.stats import binom

    rng = np.random.default_rng(seed)
    out = []
    for (pool, kind), g in df.groupby(["pool", "kind"], sort=False):
        delta, runs = float(g.delta.iloc[0]), g.run.nunique()
        inf = g[g.radius < 1]
        per_run = inf.groupby("run").violated.agg(["sum", "count"]).reindex(range(runs), fill_value=0)
        boot = rng.integers(0, runs, (n_boot, runs))
        rate_boot = per_run["sum"].to_numpy()[boot].sum(1) / np.maximum(per_run["count"].to_numpy()[boot].sum(1), 1)
        cells = inf.groupby(["budget", "model"]).violated.agg(["sum", "count"])
        p = binom.sf(cells["sum"] - 1, cells["count"], delta) if len(cells) else np.array([])
        any_runs = int((per_run["sum"] > 0).sum())
        out.append(dict(pool=pool, data=g.data.iloc[0], kind=kind, delta=delta, runs=runs, checkpoints=g.budget.nunique(),
                        informative_share=len(inf) / len(g), informative_cells=len(inf),
                        K_min=int(inf.K.min()) if len(inf) else 0, K_max=int(inf.K.max()) if len(inf) else 0,
                        violations=int(inf.violated.sum()), rate=float(inf.violated.mean()) if len(inf) else float("nan"),
                        rate_lo=float(np.quantile(rate_boot, alpha / 2)), rate_hi=float(np.quantile(rate_boot, 1 - alpha / 2)),
                        runs_any=any_runs, runs_any_ci=clopper_pearson(any_runs, runs),
                        cells_significant=int((p < alpha / max(len(cells), 1)).sum()),
                        # the smallest cell's p-value, Bonferroni-adjusted over the cells (1 where none is violated)
                        cells_p_adj=float(min(1.0, p.min() * len(cells))) if len(cells) else 1.0,
                        ratio_max=float((inf.err / inf.radius).max()) if len(inf) else float("nan"),
                        radius_median=float(inf.radius.median()) if len(inf) else float("nan"),
                        err_median=float(inf.err.median()) if len(inf) else float("nan"),
                        **_lambda_used(g)))
    return pd.DataFrame(out)


def _lambda_used(g: pd.DataFrame) -> dict:
    """How much the predictions entered the estimates: at the last checkpoint, the mean over (run, model) of each
    model's mean lambda over its one-step estimators (0: the observation-only estimator; 1: the full correction),
    and the share of (run, model) whose mean lambda is below 0.1."""
    if "lam" not in g:
        return dict(lam_mean=float("nan"), lam_low_share=float("nan"))
    lam = g[g.budget == g.budget.max()].lam.dropna()
    return dict(lam_mean=float(lam.mean()) if len(lam) else float("nan"),
                lam_low_share=float((lam < 0.1).mean()) if len(lam) else float("nan"))


def coverage_pools(cfg: dict) -> list[str]:
    """The pools of ``theory.bandit.pools`` whose data is present (one workflow job each)."""
    from .experiments import pool_names

    present = set(pool_names(cfg))
    return [p for p in cfg["theory"]["bandit"]["pools"] if p in present]


def ratio_stats(cells: pd.DataFrame) -> pd.DataFrame:
    """Box statistics of |mu_hat - mu| / radius over the informative cells, per (pool, kind), from matplotlib's
    ``boxplot_stats`` (quartiles, whiskers at 1.5 IQR), for ``Axes.bxp``."""
    from matplotlib.cbook import boxplot_stats

    out = []
    for (pool, kind), g in cells[cells.radius < 1].groupby(["pool", "kind"], sort=False):
        x = (g.err / g.radius).to_numpy()
        st = boxplot_stats(x)[0]
        out.append(dict(pool=pool, kind=kind, data=g.data.iloc[0], **{k: st[k] for k in ("q1", "med", "q3", "whislo",
                                                                                           "whishi")},
                        max=x.max(), cells=len(x)))
    return pd.DataFrame(out)


def pool_coverage(cfg: dict, pool: str, device=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One pool, every kind of predictions (one workflow job): the violation summary and the ratio box statistics.

    The bootstrap seed depends on the pool's position in ``theory.bandit.pools``, so a pool's job gives the same
    table alone or within :func:`coverage_checks`.
    """
    fitted = pool_factors(cfg, pool, get_device(device))
    cells = pd.concat([run_coverage(cfg, pool, k, device, fitted) for k in KINDS], ignore_index=True)
    return pool_coverage_from_cells(cfg, pool, cells.assign(machine=describe(get_device(device))))


#: the columns of a coverage block's cells (one row per kind, run, model and checkpoint)
CELL_COLUMNS = ("kind", "budget", "run", "model", "K", "err", "V", "lam")


def coverage_block(cfg: dict, pool: str, block: int, fit: dict | None = None, device=None) -> pd.DataFrame:
    """One block of the coverage runs on ``pool``, every kind of predictions: the cells before Theorem 1's radius
    (which needs every run: :func:`pool_coverage_from_cells`)."""
    fitted = pool_factors(cfg, pool, get_device(device), fit)
    cells = pd.concat([run_coverage(cfg, pool, k, device, fitted, block=block) for k in KINDS], ignore_index=True)
    return cells.assign(machine=describe(get_device(device)))  # what made the block (issue 74, item 3)


def save_cells(path, cells: pd.DataFrame) -> None:
    """A block's cells as compressed arrays (about a million rows a block: a CSV would be slow and large)."""
    meta = {c: str(cells[c].iloc[0]) for c in ("pool", "data", "machine") if c in cells}
    np.savez_compressed(path, kinds=np.asarray(KINDS), kind=cells.kind.map(KINDS.index).to_numpy(np.int8),
                        budget=cells.budget.to_numpy(np.int64), run=cells.run.to_numpy(np.int32),
                        model=cells.model.to_numpy(np.int32), K=cells.K.to_numpy(np.int32),
                        err=cells.err.to_numpy(np.float64), V=cells.V.to_numpy(np.float64),
                        lam=cells.lam.to_numpy(np.float64), n_examples=int(cells.n_examples.iloc[0]),
                        meta=np.asarray(list(meta.values())))


def load_cells(path) -> pd.DataFrame:
    with np.load(path, allow_pickle=False) as z:
        kinds = [str(k) for k in z["kinds"]]
        meta = [str(x) for x in z["meta"]]  # pool, data and (blocks made since 2026-12-05) the machine
        cells = pd.DataFrame({"pool": meta[0], "data": meta[1], "kind": np.asarray(kinds)[z["kind"]],
                              "budget": z["budget"], "run": z["run"], "model": z["model"], "K": z["K"], "err": z["err"],
                              "V": z["V"], "n_examples": int(z["n_examples"]), "lam": z["lam"]})
        return cells.assign(machine=meta[2]) if len(meta) > 2 else cells


def pool_coverage_from_cells(cfg: dict, pool: str, cells: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The violation summary and ratio box statistics of one pool from all of its blocks' cells (concatenated):
    what :func:`pool_coverage` computes in one process. Refuses cells that miss a run or hold one twice."""
    b = cfg["theory"]["bandit"]
    total = int(b["reps"])
    for kind in KINDS:
        runs = cells[cells.kind == kind].groupby(["budget", "model"]).run
        if not len(runs) or runs.nunique().min() != total or runs.size().max() != total:
            raise ValueError(f"{pool}: the blocks do not hold runs 0..{total - 1} of the {kind} predictions once")
    cells = pd.concat([add_radius(cells[cells.kind == k].reset_index(drop=True), float(b["delta"])) for k in KINDS],
                      ignore_index=True)
    seed = int(cfg["seed"]) + 1000 * list(b["pools"]).index(pool)
    # PULSE draws from keyed streams (paperlib.keyed): a table says which streams and machine(s) made it
    made = {"machine": joined(cells.machine)} if "machine" in cells else {}
    return violation_summary(cells, seed=seed).assign(streams=STREAMS, **made), ratio_stats(cells)


def coverage_checks(cfg: dict, pools: list[str], device=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`pool_coverage` on every pool, concatenated: (summary, ratio box statistics)."""
    parts = [pool_coverage(cfg, p, device) for p in pools]
    return (pd.concat([a for a, _ in parts], ignore_index=True), pd.concat([r for _, r in parts], ignore_index=True))


def write_summary(summary: pd.DataFrame, path) -> None:
    """CSV of a violation summary, the exact interval on runs with any violation as two columns."""
    lo, hi = zip(*summary.runs_any_ci, strict=True) if len(summary) else ((), ())
    summary.drop(columns=["runs_any_ci"]).assign(runs_any_lo=lo, runs_any_hi=hi).to_csv(path, index=False)


def read_summaries(paths) -> pd.DataFrame:
    """The summaries written by :func:`write_summary`, concatenated, with ``runs_any_ci`` as a tuple again."""
    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    ci = list(zip(df.pop("runs_any_lo"), df.pop("runs_any_hi"), strict=True))
    return df.assign(runs_any_ci=ci)
