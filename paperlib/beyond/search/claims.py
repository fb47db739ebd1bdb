"""Ledger rows of the certified search: certified choices are right, and adaptive allocation certifies with fewer
calls than uniform allocation."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...decide import comparison
from ...ledger import Claim
from ...stats import clopper_pearson

PAPER = "paperlib (certified search)"


def correctness_claim(table: pd.DataFrame, delta: float) -> Claim:
    """A certified pick is wrong in at most delta of the runs: fails only if the exact interval lies above delta."""
    k, n = int(table.wrong.sum()), int(table.certified.sum())
    kinds = "/".join(sorted(set(table.kind))) or "none"
    if n == 0:
        return Claim(PAPER, "search-certified-choices-right", f"A choice certified at delta = {delta:g} is the best model "
                     f"with probability >= {1 - delta:g}.", f"[{kinds}] no run was certified", "no interval: nothing certified",
                     "untestable")
    lo, hi = clopper_pearson(k, n)
    verdict = "fails" if lo > delta else "holds"
    return Claim(PAPER, "search-certified-choices-right",
                 f"A choice certified at delta = {delta:g} (confidence sequences at delta / n per model, stopped at "
                 f"the first certificate) is the best model with probability >= {1 - delta:g}.",
                 f"[{kinds}] {n} certified runs over {table.dataset.nunique()} matrices and "
                 f"{table.method.nunique()} methods ({', '.join(sorted(set(table.method)))})",
                 f"wrong certified picks {k}/{n}, exact 95% CI [{lo:.4f}, {hi:.4f}]", verdict)


ADAPTIVE, UNIFORM = "ucbe", "row-mean"


def adaptive_vs_uniform_claim(runs: pd.DataFrame, delta: float, alpha: float = 0.05) -> Claim:
    """Certifying with UCB-E's adaptive allocation against certifying with uniform allocation (row-mean).

    ``runs``: :func:`~paperlib.beyond.search.experiments.certified_runs` (one row per repetition, its calls at the
    first certificate, the full matrix when none). Per matrix a two-sided Mann-Whitney U test (scipy) of the two
    methods' calls at ``alpha``; graded by :func:`paperlib.decide.comparison` on the matrices where UCB-E needs
    significantly fewer / more calls.
    """
    from scipy.stats import mannwhitneyu

    stmt = (f"Certifying the best model at delta = {delta:g} with UCB-E's adaptive allocation takes fewer calls than "
            "with uniform allocation (Row Mean Imputation), on every matrix.")
    cid = "search-adaptive-fewer-calls-than-uniform"
    have = set(runs.method) if len(runs) else set()
    if not {ADAPTIVE, UNIFORM} <= have:
        return Claim(PAPER, cid, stmt, "[none] both ucbe and row-mean must run", "no interval: not run", "untestable")
    fewer = more = 0
    parts = []
    for ds, g in runs.groupby("dataset", sort=False):
        a, b = g[g.method == ADAPTIVE].frac.to_numpy(), g[g.method == UNIFORM].frac.to_numpy()
        p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue) if len(a) and len(b) else 1.0
        sig = p < alpha
        fewer += sig and np.median(a) < np.median(b)
        more += sig and np.median(a) > np.median(b)
        parts.append(f"{ds}: {np.median(a):.1%} vs {np.median(b):.1%} (p = {p:.2g})")
    kinds = "/".join(sorted(set(runs.kind)))
    return Claim(PAPER, cid, stmt,
                 f"[{kinds}] {runs.dataset.nunique()} matrices, {int(runs.groupby(['dataset', 'method']).size().min())} "
                 "runs per method, each to its first certificate (cap: the full matrix); two-sided Mann-Whitney U test "
                 f"of the calls per matrix at {alpha:g}; rule: holds if UCB-E needs significantly fewer somewhere and "
                 "never more, partly if both, fails if only more, else inconclusive",
                 f"UCB-E needs significantly fewer calls on {fewer}, more on {more} of {runs.dataset.nunique()} matrices; "
                 "median share of the matrix, UCB-E vs uniform: " + "; ".join(parts),
                 comparison(fewer, more))
