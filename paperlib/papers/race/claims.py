"""Ledger rows of the race: the peers' measured claims and which method needs the smallest confidence budget."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.stats import fisher_exact

from ...ledger import Claim

PAPER = "paperlib (race)"


class PointComparison(NamedTuple):
    """Methods ``a`` vs ``b`` over the (matrix, budget) points both ran (:func:`fisher_points`)."""

    better: int  #: points where ``a`` is significantly more often right
    worse: int  #: points where ``a`` is significantly less often right
    both: pd.DataFrame  #: accuracy and runs of both methods per point
    gap: float  #: mean accuracy difference a - b
    reps: int  #: runs per point of ``a``


def fisher_points(acc: pd.DataFrame, a: str, b: str) -> PointComparison | None:
    """Compare methods ``a`` and ``b`` at every (matrix, budget) point both ran, with Fisher's exact test at 0.05 per
    point; None when either did not run."""
    both = acc[acc.method.isin([a, b])].pivot_table(index=["dataset", "frac"], columns="method",
                                                    values=["accuracy", "reps"])
    if both.empty or ("accuracy", a) not in both or ("accuracy", b) not in both:
        return None
    better = worse = 0
    for _, r in both.iterrows():
        n1, n2 = int(r[("reps", a)]), int(r[("reps", b)])
        k1, k2 = round(r[("accuracy", a)] * n1), round(r[("accuracy", b)] * n2)
        if fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue < 0.05:
            better += k1 / n1 > k2 / n2
            worse += k1 / n1 < k2 / n2
    gap = float((both[("accuracy", a)] - both[("accuracy", b)]).mean())
    return PointComparison(better, worse, both, gap, int(both[("reps", a)].iloc[0]))


def _grid_text(both: pd.DataFrame, reps: int) -> str:
    n_ds = both.index.get_level_values(0).nunique()
    return (f"[real] {n_ds} matrices x {len(both) // max(1, n_ds)} budgets, {reps} runs each; Fisher exact per "
            "(matrix, budget) at 0.05")


def sysrs_vs_ucbe_claim(acc: pd.DataFrame) -> Claim:
    """Lyu et al.'s headline: SySRs has a lower average error than the baselines, here UCB-E (Fisher exact per cell)."""
    res = fisher_points(acc, "sysrs", "ucbe")
    if res is None:
        return Claim(PAPER, "race-sysrs-beats-ucbe", "SySRs finds the best model more often than UCB-E.",
                     "[real] not run in this profile", "no interval: not run", "untestable")
    better, worse, both, gap, reps = res
    verdict = "holds" if better and not worse else ("partly" if better else "fails")
    return Claim(PAPER, "race-sysrs-beats-ucbe",
                 "SySRs (Lyu et al. 2026) finds the best model more often than UCB-E on real matrices.",
                 _grid_text(both, reps),
                 f"SySRs significantly higher at {better}, lower at {worse} of {len(both)} points; mean accuracy "
                 f"difference {gap:+.3f}", verdict)


def sysh_vs_sysrs_claim(acc: pd.DataFrame, cb: pd.DataFrame, level: float = 0.95, tol: float = 0.01) -> Claim:
    """Ours, :class:`paperlib.policies.sysrs.SySH`: synchronized Sequential Halving against SySRs, per point (Fisher)
    and by CB_T per matrix (ties within one grid step)."""
    res = fisher_points(acc, "sysh", "sysrs")
    if res is None:
        return Claim(PAPER, "ours-sysh", "SySH finds the best model more often than SySRs.",
                     "[real] not run in this profile", "no interval: not run", "untestable")
    better, worse, both, gap, reps = res
    t = cb[cb.level == level].pivot(index="dataset", columns="method", values="cb").fillna(np.inf)
    diff = (t["sysh"] - t["sysrs"]).replace(np.nan, 0.0)
    lower, higher = int((diff < -tol - 1e-12).sum()), int((diff > tol + 1e-12).sum())
    verdict = ("inconclusive" if not better and not worse else "holds" if not worse else
               "partly" if better else "fails")
    return Claim(PAPER, "ours-sysh",
                 "SySH (ours: Sequential Halving with SySRs' synchronized examples) finds the best model more often "
                 "than SySRs on real matrices.",
                 _grid_text(both, reps) + f"; CB_{level:g} compared per matrix, ties within one grid step",
                 f"SySH significantly higher at {better}, lower at {worse} of {len(both)} points; mean accuracy "
                 f"difference {gap:+.3f}; CB_{level:g} lower on {lower}, higher on {higher} of {len(t)} matrices",
                 verdict)


def worst_case_budget_claim(cb: pd.DataFrame, level: float, tol: float = 0.01) -> Claim:
    """Lyu et al.'s second headline: SySRs needs the smallest worst-case budget to find the best model reliably
    (here: the largest CB_T over the matrices; a matrix where a method never reaches T counts as beyond the grid)."""
    t = cb[cb.level == level].pivot(index="dataset", columns="method", values="cb")
    if "sysrs" not in t:
        return Claim(PAPER, "race-sysrs-worst-case-budget", "SySRs has the smallest worst-case budget.",
                     "[real] not run in this profile", "no interval: not run", "untestable")
    worst = t.fillna(np.inf).max(axis=0)
    best = worst.min()
    shown = ", ".join(f"{k} {'beyond the grid' if not np.isfinite(v) else f'{v:.0%}'}" for k, v in worst.items())
    verdict = ("untestable" if not np.isfinite(best) else "holds" if worst["sysrs"] <= best + tol + 1e-12 else "fails")
    return Claim(PAPER, "race-sysrs-worst-case-budget",
                 f"SySRs (Lyu et al. 2026) needs the smallest worst-case budget to find the best model reliably "
                 f"(largest CB_{level:g} over the matrices).",
                 f"[real] {len(t)} matrices, budgets on a 1% grid to {cb.attrs.get('max_frac', 0.3):.0%}; no interval: CB is "
                 "read off the grid, ties within one grid step count",
                 f"worst-case CB_{level:g}: {shown}", verdict)


AUTO_GOAL_SHARE = 0.8
AUTO_GOAL_SLACK = 0.02


def auto_goal_claim(cb: pd.DataFrame, level: float = 0.95, tol: float = 0.01) -> Claim:
    """The race issue's goal for ``auto``: the lowest CB_T (ties within one grid step win) on at least 80% of the real
    matrices, and never more than two budget points above the best other method. ``auto`` is SySRs today
    (:class:`paperlib.policies.sysrs.Auto`), so its column is SySRs' unless the race ran ``auto`` itself."""
    t = cb[cb.level == level].pivot(index="dataset", columns="method", values="cb")
    col = "auto" if "auto" in t else "sysrs"
    others = [c for c in t.columns if c not in ("auto", "sysrs")]
    if col not in t or not others:
        return Claim(PAPER, "race-auto-goal", "auto has the lowest confidence budget.", "[real] not run in this profile",
                     "no interval: not run", "untestable")
    filled = t.fillna(np.inf)
    best_other = filled[others].min(axis=1)
    behind = (filled[col] - best_other).replace([np.inf, -np.inf, np.nan], np.inf)
    wins = int((behind <= tol + 1e-12).sum())
    worst = behind.max()
    n = len(t)
    where = behind.idxmax()
    verdict = "holds" if wins >= AUTO_GOAL_SHARE * n and worst <= AUTO_GOAL_SLACK + 1e-12 else "fails"
    worst_text = ("never reached T on " + where if not np.isfinite(worst) else
                  f"at most {max(worst, 0) * 100:.0f} points above the best other method ({where})")
    return Claim(PAPER, "race-auto-goal",
                 f"auto ({col}) has the lowest CB_{level:g} (ties within one budget point count as wins) on at least "
                 f"{AUTO_GOAL_SHARE:.0%} of the real matrices and is never more than {AUTO_GOAL_SLACK * 100:.0f} budget points "
                 "worse than the best other method (the race issue's goal).",
                 f"[real] {n} matrices, budgets on a 1% grid to {cb.attrs.get('max_frac', 0.3):.0%}; against "
                 f"{', '.join(others)}; no interval: CB is read off the grid",
                 f"lowest on {wins}/{n} matrices; {worst_text}", verdict)
