"""Ledger rows of the certified search: certified choices are right; adaptive allocation certifies with fewer calls
than uniform allocation; LUCB, aimed at the certificate, with fewer than UCB-E; and how far LUCB is from an oracle
allocation."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...decide import comparison, holm_signs
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
                 f"A choice certified at delta = {delta:g} (anytime-valid confidence sequences: delta / n per model, "
                 f"or delta / (n - 1) per paired difference for lucb-pd; stopped at the first certificate) is the "
                 f"best model with probability >= {1 - delta:g}.",
                 f"[{kinds}] {n} certified runs over {table.dataset.nunique()} matrices and "
                 f"{table.method.nunique()} methods ({', '.join(sorted(set(table.method)))})",
                 f"wrong certified picks {k}/{n}, exact 95% CI [{lo:.4f}, {hi:.4f}]", verdict)


ADAPTIVE, UNIFORM, CERTIFYING = "ucbe", "row-mean", "lucb"


def adaptive_vs_uniform_claim(runs: pd.DataFrame, delta: float, alpha: float = 0.05) -> Claim:
    """Certifying with UCB-E's adaptive allocation against certifying with uniform allocation (row-mean), graded by
    :func:`fewer_calls_claim`."""
    return fewer_calls_claim(
        runs, ADAPTIVE, UNIFORM, "search-adaptive-fewer-calls-than-uniform",
        f"Certifying the best model at delta = {delta:g} with UCB-E's adaptive allocation takes fewer calls than "
        "with uniform allocation (Row Mean Imputation), on every matrix.", alpha)


def lucb_vs_ucbe_claim(runs: pd.DataFrame, delta: float, alpha: float = 0.05) -> Claim:
    """Certifying with LUCB (``lucb``: half of each batch to the leader, the rest to the rivals whose upper bound
    still reaches the leader's lower bound) against UCB-E, graded by :func:`fewer_calls_claim` (issue 29)."""
    return fewer_calls_claim(
        runs, CERTIFYING, ADAPTIVE, "search-lucb-fewer-calls-than-ucbe",
        f"Certifying the best model at delta = {delta:g} with LUCB, which samples where the certificate is weakest, "
        "takes fewer calls than with UCB-E, on every matrix.", alpha)


def fewer_calls_claim(runs: pd.DataFrame, better: str, worse: str, cid: str, stmt: str, alpha: float = 0.05) -> Claim:
    """Method ``better`` certifies with fewer calls than method ``worse``.

    ``runs``: :func:`~paperlib.beyond.search.experiments.certified_runs` (one row per repetition, its calls at the
    first certificate, the full matrix when none). Per matrix a two-sided Mann-Whitney U test (scipy) of the two
    methods' calls, Holm's correction over the matrices (family-wise ``alpha``: :func:`paperlib.decide.holm_signs`);
    graded by :func:`paperlib.decide.comparison` on the matrices where ``better`` needs significantly fewer / more
    calls.
    """
    from scipy.stats import mannwhitneyu

    have = set(runs.method) if len(runs) else set()
    if not {better, worse} <= have:
        return Claim(PAPER, cid, stmt, f"[none] both {better} and {worse} must run", "no interval: not run",
                     "untestable")
    pv, sign, parts = [], [], []
    for ds, g in runs.groupby("dataset", sort=False):
        a, b = g[g.method == better].frac.to_numpy(), g[g.method == worse].frac.to_numpy()
        p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue) if len(a) and len(b) else 1.0
        pv.append(p)
        sign.append(np.sign(np.median(a) - np.median(b)) if len(a) and len(b) else 0.0)
        parts.append(f"{ds}: {np.median(a):.1%} vs {np.median(b):.1%} (p = {p:.2g})")
    more, fewer = holm_signs(pv, sign, alpha)  # (positive: the median of ``better`` is larger, i.e. more calls)
    kinds = "/".join(sorted(set(runs.kind)))
    runs_per = int(runs[runs.method.isin([better, worse])].groupby(["dataset", "method"]).size().min())
    return Claim(PAPER, cid, stmt,
                 f"[{kinds}] {runs.dataset.nunique()} matrices, {runs_per} runs per method, each to its first "
                 "certificate (cap: the full matrix); two-sided Mann-Whitney U test of the calls per matrix, Holm's "
                 f"correction over the matrices (family-wise {alpha:g}); rule: holds if {better} needs significantly fewer somewhere and never more, partly if "
                 "both, fails if only more, else inconclusive",
                 f"{better} needs significantly fewer calls (Holm) on {fewer}, more on {more} of "
                 f"{runs.dataset.nunique()} matrices; median share of the matrix, {better} vs {worse}: " + "; ".join(parts),
                 comparison(fewer, more))


def oracle_claim(table: pd.DataFrame, delta: float, method: str = CERTIFYING, limit: float = 1.5) -> Claim:
    """Issue 29's goal: the median calls to certify are at most ``limit`` times the oracle allocation's
    (:func:`~paperlib.beyond.search.experiments.oracle_fraction`) on every matrix.

    Per matrix the distribution-free 95% interval of the median (``median_lo``, ``median_hi``) against ``limit``
    x oracle: holds if every interval lies at or below it, fails if some interval lies above it, else
    inconclusive.
    """
    cid = "search-lucb-within-1-5x-oracle" if (method, limit) == (CERTIFYING, 1.5) else f"search-{method}-oracle"
    stmt = (f"Certifying the best model at delta = {delta:g} with {method} takes at most {limit:g} times the calls of an "
            "oracle allocation that knows every gap and paired variance, on every matrix (our goal, issue 29; the "
            "oracle is a yardstick, not a lower bound).")
    g = table[table.method == method] if len(table) else table
    if len(g) == 0:
        return Claim(PAPER, cid, stmt, f"[none] {method} did not run", "no interval: not run", "untestable")
    ratio_lo, ratio_hi = g.median_lo / g.oracle, g.median_hi / g.oracle
    above, below = int((ratio_lo > limit).sum()), int((ratio_hi <= limit).sum())
    verdict = "fails" if above else ("holds" if below == len(g) else "inconclusive")
    parts = [f"{r.dataset}: {r.frac_median / r.oracle:.2f}x [{r.median_lo / r.oracle:.2f}, {r.median_hi / r.oracle:.2f}]"
             for r in g.itertuples()]
    return Claim(PAPER, cid, stmt,
                 f"[{'/'.join(sorted(set(g.kind)))}] {len(g)} matrices, {int(g.reps.min())} runs each; the oracle "
                 "scores the best row in full and rival j on min(m, 2 var_j log(2(n-1)/delta) / gap_j^2) examples; "
                 "95% order-statistic interval of the median per matrix; rule: holds if every interval is at or below "
                 f"{limit:g}x, fails if one lies above, else inconclusive",
                 f"median calls / oracle: at or below {limit:g}x on {below}, above on {above} of {len(g)} matrices "
                 f"(below the oracle itself on {int((ratio_hi < 1).sum())}: it is a yardstick, not a bound"
                 + (_bound_text(g) if "bound" in g and g.bound.notna().any() else "") + "); "
                 + "; ".join(parts), verdict)


def _bound_text(g: pd.DataFrame) -> str:
    """The medians against the Gaussian lower bound (:func:`~paperlib.beyond.search.experiments.gaussian_bound_fraction`)."""
    r = g.frac_median / g.bound
    return (f"; against the Gaussian lower bound T* kl(delta, 1 - delta) (rows sampled with replacement): median "
            f"calls {r.min():.2f}-{r.max():.2f}x the bound, below it on {int((g.median_hi < g.bound).sum())} matrices "
            "(rows sampled without replacement settle for less)")
