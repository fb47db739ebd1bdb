"""Ledger rows of the certified search: certified choices are right, and how many calls certification saves."""

from __future__ import annotations

import pandas as pd

from ...ledger import Claim
from ...stats import clopper_pearson

PAPER = "paperlib (certified search)"


def correctness_claim(table: pd.DataFrame, delta: float) -> Claim:
    """A certified pick is wrong in at most delta of the runs: fails only if the exact interval lies above delta."""
    k, n = int(table.wrong.sum()), int(table.certified.sum())
    kinds = "/".join(sorted(set(table.kind)))
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


def savings_claims(table: pd.DataFrame, delta: float) -> list[Claim]:
    """Per matrix: certification before full evaluation in most runs (exact interval on the share of runs)."""
    out = []
    for ds, g in table.groupby("dataset", sort=False):
        best = g.sort_values("frac_median").iloc[0]
        parts = "; ".join(f"{r.method}: median {r.frac_median:.1%} of the matrix (IQR {r.frac_q25:.1%}-{r.frac_q75:.1%}), "
                          f"early in {r.early}/{r.reps} runs (exact 95% CI [{r.early_lo:.2f}, {r.early_hi:.2f}])"
                          for r in g.itertuples())
        verdict = "holds" if best.early_lo > 0.5 else ("partly" if best.early > 0 else "fails")
        out.append(Claim(
            PAPER, f"search-savings-{ds.replace('_', '-')}",
            f"On {ds} ({best.n} models x {best.m} examples, top-2 gap {best.top_gap:.4f}) certified stopping at "
            f"delta = {delta:g} needs fewer calls than evaluating every pair, in most runs.",
            f"[{best.kind}] {best.reps} runs per method, each to its first certificate (cap: the full matrix)",
            parts, verdict))
    return out
