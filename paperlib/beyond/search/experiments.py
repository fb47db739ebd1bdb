"""Calls at certification against full evaluation, per matrix and method (``simulate(..., stop="certified")``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import data as datasets
from ...device import MADE_BY, describe, get_device, made_by
from ...simulate import simulate
from ...simulate.blocks import block_range, block_ranges, check_block
from ...stats import clopper_pearson, median_interval

RUN_COLUMNS = ("dataset", "kind", "n", "m", "method", "rep", "calls", "frac", "certified", "right", "top_gap", "oracle",
               "bound", *MADE_BY)
TABLE_COLUMNS = ("dataset", "kind", "method", "n", "m", "reps", "top_gap", "oracle", "bound", "frac_median", "median_lo",
                 "median_hi", "frac_q25", "frac_q75", "early", "early_lo", "early_hi", "certified", "wrong",
                 "median_lo_adj", "median_hi_adj", *MADE_BY)


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


def run_range(reps: int, cfg: dict, block: int | None) -> tuple[int, int]:
    """Runs [a, b) of block ``block`` of ``reps`` runs in blocks of ``cfg["rep_block"]`` (all of them for None)."""
    return (0, int(reps)) if block is None else block_range(int(reps), cfg.get("rep_block"), block, "certified search")


def search_blocks(cfg: dict, which: str | None = None) -> list[int]:
    """The blocks of certified search's runs (``rep_block`` runs each, over every matrix and method; one block
    without it): of the certified runs (``which="certified"``), of the prior runs ("prior"), or as many as the
    longer of them has (None) (issue 67: search in blocks of runs)."""
    counts = {"certified": int(cfg["reps"]), "prior": int(cfg.get("prior", {}).get("reps", 1))}
    reps = max(counts.values()) if which is None else counts[which]
    return list(range(len(block_ranges(reps, cfg.get("rep_block")))))


def certified_runs(cfg: dict, device=None, progress: bool = False, block: int | None = None) -> pd.DataFrame:
    """One row per (dataset, method, repetition): calls at the first certificate, the pick, whether it is right
    (no row, the same columns, when none of the profile's matrices is present).

    Each repetition runs to the full matrix at most and stops at its first certificate (the method's own for
    ``lucb`` and ``lucb-pd``, else :func:`paperlib.confseq.certify` at ``delta / n`` per model), so a certified pick is
    the best with probability >= 1 - delta. ``oracle`` is :func:`oracle_fraction` of the matrix (a yardstick),
    ``bound`` :func:`gaussian_bound_fraction` (the Gaussian lower bound). ``block``: only runs [a, b) of that block
    (:func:`search_blocks`); keyed streams make the blocks' rows exactly those of all the runs at once.
    """
    rows = []
    if block is not None:  # a block of the profile's (search_blocks) past the certified runs' own ones: no row
        if check_block(block, len(search_blocks(cfg)), "certified search") >= len(search_blocks(cfg, "certified")):
            return pd.DataFrame(columns=RUN_COLUMNS)
    a, b = run_range(int(cfg["reps"]), cfg, block)
    names = [d for d in cfg["datasets"] if datasets.available(d)]
    machine = describe(get_device(device))  # what made each row (issue 74, item 3)
    for d_i, name in enumerate(names):
        mat = datasets.load(name)
        n, m = mat.shape
        oracle = oracle_fraction(mat.scores, float(cfg["delta"]))
        bound = gaussian_bound_fraction(mat.scores, float(cfg["delta"]))
        for i, meth in enumerate(cfg["methods"]):
            res = simulate(meth, mat, [n * m], reps=b - a, seed=int(cfg["seed"]) + 100 * d_i + i, first_run=a,
                           device=device, progress=progress, delta=float(cfg["delta"]), stop="certified",
                           batch_size=int(cfg["batch_size"]))
            right = np.isin(res.best[-1], res.true_best_set)
            rows.append(pd.DataFrame({
                "dataset": name, "kind": mat.kind, "n": n, "m": m, "method": meth, "rep": np.arange(a, a + res.reps),
                "calls": res.calls, "frac": res.calls / (n * m), "certified": res.certified_at >= 0,
                "right": right, "top_gap": float(np.sort(mat.means)[-1] - np.sort(mat.means)[-2]), "oracle": oracle,
                "bound": bound, "machine": machine, "streams": res.streams,
            }))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=RUN_COLUMNS)


def savings_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method): median (with a distribution-free 95% interval, and the same at 1 - 0.05 / matrices,
    Bonferroni over the matrices, ``median_lo_adj`` / ``median_hi_adj``: what a verdict resting on one matrix of
    several reads) and quartiles of the fraction of the matrix spent, the oracle's fraction, runs certified before the
    full matrix with an exact 95% interval, and wrong certified picks."""
    adj_level = 1 - 0.05 / max(1, runs.dataset.nunique()) if len(runs) else 0.95
    out = []
    for (ds, meth), g in runs.groupby(["dataset", "method"], sort=False):
        early = int((g.calls < g.n * g.m).sum())
        lo, hi = clopper_pearson(early, len(g))
        wrong = int((g.certified & ~g.right).sum())
        med, med_lo, med_hi = median_interval(g.frac)
        _, adj_lo, adj_hi = median_interval(g.frac, adj_level)
        out.append(dict(dataset=ds, kind=g.kind.iloc[0], method=meth, n=int(g.n.iloc[0]), m=int(g.m.iloc[0]),
                        reps=len(g), top_gap=g.top_gap.iloc[0], oracle=g.oracle.iloc[0],
                        bound=g.bound.iloc[0] if "bound" in g else np.nan, frac_median=med,
                        median_lo=med_lo, median_hi=med_hi,
                        frac_q25=g.frac.quantile(0.25), frac_q75=g.frac.quantile(0.75), early=early,
                        early_lo=lo, early_hi=hi, certified=int(g.certified.sum()), wrong=wrong,
                        median_lo_adj=adj_lo, median_hi_adj=adj_hi, **made_by(g)))
    return pd.DataFrame(out, columns=TABLE_COLUMNS)


#: the priors certified search is run with (issue 59, item 4): none (lucb), the other models' rows, each of their rows
#: shuffled over the examples (useless: it predicts nothing), and the reversed rows 1 - Q (adversarial)
PRIOR_KINDS = ("none", "prior", "shuffled", "reversed")
PRIOR_RUN_COLUMNS = ("dataset", "kind", "n", "m", "prior_rows", "bound", "r2", "prior", "rep", "calls", "frac",
                     "certified", "right", *MADE_BY)
PRIOR_TABLE_COLUMNS = ("dataset", "kind", "n", "m", "prior_rows", "r2", "bound", "prior", "reps", "frac_median",
                       "median_lo", "median_hi", "ratio", "ratio_lo", "ratio_hi", "wrong", "wrong_hi", *MADE_BY)


def prior_split(scores, candidates: int = 20, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(candidates, prior): at most ``candidates`` rows drawn from a random half of the matrix's rows (at most half
    of them), the other half the prior: the new models a practitioner evaluates and the leaderboard they have."""
    S = np.asarray(scores, dtype=np.float64)
    perm = np.random.default_rng(seed).permutation(S.shape[0])
    half = S.shape[0] // 2
    return S[perm[:half][:candidates]], S[perm[half:]]


def prior_explained(cand, prior, rank: int = 8) -> float:
    """Median over the candidates of the in-sample R^2 of a least-squares fit of its scores on the prior's example
    features (:func:`paperlib.prior.example_features`): how much of a candidate's score variance the prior can explain
    at best, so about the largest share of calls a doubly robust interval can save."""
    from ...prior import example_features

    F = example_features(np.asarray(prior, dtype=np.float64), rank)
    r2 = []
    for s in np.asarray(cand, dtype=np.float64):
        beta, *_ = np.linalg.lstsq(F, s, rcond=None)
        r2.append(1.0 - np.var(s - F @ beta) / max(np.var(s), 1e-12))
    return float(np.median(r2))


def prior_runs_of(name: str, reps: int, delta: float, candidates: int = 20, seed: int = 0, device=None,
                  progress: bool = False, first_run: int = 0) -> pd.DataFrame:
    """Certified search on one matrix with each of :data:`PRIOR_KINDS` (lucb without a prior, lucb-prior with the
    others): one row per prior kind and repetition, each run to its first certificate (capped at the full matrix)."""
    from ...data.matrix import ScoreMatrix

    mat = datasets.load(name, verify=False)
    cand, prior = prior_split(mat.scores, candidates, seed)
    n, m = cand.shape
    truth = np.flatnonzero(cand.mean(1) >= cand.mean(1).max())
    C = ScoreMatrix.from_array(cand, kind=mat.kind, name=name)
    rng = np.random.default_rng(seed + 1)
    priors = {"none": None, "prior": prior, "shuffled": np.stack([rng.permutation(r) for r in prior]),
              "reversed": 1.0 - prior}
    head = dict(dataset=name, kind=mat.kind, n=n, m=m, prior_rows=prior.shape[0],
                bound=gaussian_bound_fraction(cand, delta), r2=prior_explained(cand, prior))
    frames, machine = [], describe(get_device(device))
    for key, Q in priors.items():
        kw = {} if Q is None else {"prior": Q}
        r = simulate("lucb", C, [n * m], reps=reps, seed=seed, delta=delta, stop="certified", device=device,
                     progress=progress, first_run=first_run, **kw)
        frames.append(pd.DataFrame({**head, "prior": key, "rep": np.arange(first_run, first_run + r.reps), "calls": r.calls,
                                    "frac": r.calls / (n * m), "certified": r.certified_at >= 0,
                                    "right": np.isin(r.best[-1], truth), "machine": machine, "streams": r.streams}))
    return pd.concat(frames, ignore_index=True)


def prior_runs(cfg: dict, device=None, progress: bool = False, block: int | None = None) -> pd.DataFrame:
    """:func:`prior_runs_of` on every matrix of the profile's ``search.prior`` block that is present here (``block``:
    only runs [a, b) of that block, :func:`search_blocks`)."""
    p = cfg["prior"]
    names = [d for d in p["datasets"] if datasets.available(d)]
    if block is not None:  # a block of the profile's (search_blocks) past the prior runs' own ones: no row
        if check_block(block, len(search_blocks(cfg)), "certified search") >= len(search_blocks(cfg, "prior")):
            return pd.DataFrame(columns=PRIOR_RUN_COLUMNS)
    a, b = run_range(int(p["reps"]), cfg, block)
    frames = [prior_runs_of(d, b - a, float(cfg["delta"]), int(p["candidates"]), int(cfg["seed"]), device,
                            progress, first_run=a) for d in names]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=PRIOR_RUN_COLUMNS)


def prior_table(runs: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per (dataset, prior): the median fraction of the candidates' matrix spent at the certificate with its
    distribution-free interval at ``level`` (order statistics), its ratio to lucb's without a prior with the interval
    the two intervals bound (lower end over upper end and back), wrong certified picks with an exact upper bound (no
    row, the same columns, when no matrix was run: the profile's matrices are absent here)."""
    out = []
    for ds, g in runs.groupby("dataset", sort=False):
        base = g[g.prior == "none"]
        b_med, b_lo, b_hi = median_interval(base.frac, level) if len(base) else (np.nan,) * 3
        for key, h in g.groupby("prior", sort=False):
            med, lo, hi = median_interval(h.frac, level)
            wrong = int((h.certified & ~h.right).sum())
            out.append(dict(dataset=ds, kind=h.kind.iloc[0], n=int(h.n.iloc[0]), m=int(h.m.iloc[0]),
                            prior_rows=int(h.prior_rows.iloc[0]), r2=h.r2.iloc[0], bound=h.bound.iloc[0], prior=key,
                            reps=len(h), frac_median=med, median_lo=lo, median_hi=hi, ratio=med / b_med,
                            ratio_lo=lo / b_hi, ratio_hi=hi / b_lo, wrong=wrong,
                            wrong_hi=clopper_pearson(wrong, len(h), level)[1], **made_by(h)))
    return pd.DataFrame(out, columns=PRIOR_TABLE_COLUMNS)
