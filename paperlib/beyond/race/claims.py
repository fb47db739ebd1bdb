"""Ledger rows of the race: the peers' measured claims and which method needs the smallest confidence budget."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ...decide import Case, cases_summary, fisher_one_sided, fisher_rates_holm
from ...ledger import Claim, decided
from ...policies import METHODS

PAPER = "paperlib (race)"


class PointComparison(NamedTuple):
    """Methods ``a`` vs ``b`` over the (matrix, budget) points both ran (:func:`fisher_points`)."""

    better: int  #: points where ``a`` is significantly more often right
    worse: int  #: points where ``a`` is significantly less often right
    both: pd.DataFrame  #: accuracy and runs of both methods per point
    gap: float  #: mean accuracy difference a - b
    reps: int  #: runs per point of ``a``
    shown: np.ndarray  #: per matrix: ``a`` significantly more often right at some budget (Holm over its budgets)


def fisher_points(acc: pd.DataFrame, a: str, b: str) -> PointComparison | None:
    """Compare methods ``a`` and ``b`` at every (matrix, budget) point both ran (NaN accuracy: did not run there),
    with Fisher's exact test per point and Holm's correction over the points (family-wise 0.05: the verdicts count
    significant points, and a grid of a hundred points at 0.05 each would show a few by chance); None when either did
    not run."""
    both = acc[acc.method.isin([a, b])].pivot_table(index=["dataset", "frac"], columns="method",
                                                    values=["accuracy", "reps"]).dropna()
    if both.empty or ("accuracy", a) not in both or ("accuracy", b) not in both:
        return None
    better, worse = fisher_rates_holm(both, a, b)
    gap = float((both[("accuracy", a)] - both[("accuracy", b)]).mean())
    shown = np.array([fisher_rates_holm(g, a, b)[0] > 0 for _, g in both.groupby(level="dataset", sort=False)])
    return PointComparison(better, worse, both, gap, int(both[("reps", a)].iloc[0]), shown)


def matrix_cases(both: pd.DataFrame, a: str, b: str) -> list[Case]:
    """One case per matrix of "``a`` is more often right than ``b``": Fisher's exact one-sided tests at each of its
    budgets, Bonferroni over them (the smallest p-value times their number: exactly when Holm over the matrix's
    budgets rejects at least one), both directions; the estimate the mean accuracy difference."""
    cases = []
    for d, g in both.groupby(level="dataset", sort=False):
        pf, pa = zip(*(fisher_one_sided(round(r[("accuracy", a)] * r[("reps", a)]), int(r[("reps", a)]),
                                        round(r[("accuracy", b)] * r[("reps", b)]), int(r[("reps", b)]))
                       for _, r in g.iterrows()), strict=True)
        k = len(pf)
        cases.append(Case(str(d), "real", float((g[("accuracy", a)] - g[("accuracy", b)]).mean()),
                          p_for=min(1.0, k * min(pf)), p_against=min(1.0, k * min(pa))))
    return cases


def draws_case(name: str, draws: np.ndarray, limit: float, below: bool = True) -> Case:
    """A case of a bound on a bootstrapped value (``value <= limit``, else ``>= limit``): its median, 95% percentile
    interval, and the bootstrap's one-sided p-values (the share of draws on the statement's wrong side, and on its
    right side)."""
    x = np.asarray(draws, dtype=float)
    ok = x <= limit + 1e-12 if below else x >= limit - 1e-12
    lo, hi = np.quantile(x, [0.025, 0.975])
    return Case(name, "real", float(np.median(x)), lo, hi, p_for=float(np.mean(~ok)), p_against=float(np.mean(ok)))


UNIVERSAL_RULE = ("one case per matrix: Fisher's exact one-sided tests at its budgets, Bonferroni over them, in both "
                  "directions (paperlib.beyond.race.claims.matrix_cases)")


def _grid_text(both: pd.DataFrame, reps: int) -> str:
    n_ds = both.index.get_level_values(0).nunique()
    return (f"[real] {n_ds} matrices x {len(both) // max(1, n_ds)} budgets, {reps} runs each; Fisher exact per "
            f"(matrix, budget); {UNIVERSAL_RULE}")


def sysrs_vs_ucbe_claim(acc: pd.DataFrame) -> Claim:
    """Lyu et al.'s headline: SySRs has a lower average error than the baselines, here UCB-E (Fisher exact per cell)."""
    res = fisher_points(acc, "sysrs", "ucbe")
    if res is None:
        return decided(PAPER, "race-sysrs-beats-ucbe", "SySRs finds the best model more often than UCB-E.", "[real] not run in this profile",
                       "no interval: not run", "untestable", ())
    better, worse, both, gap, reps, shown = res
    return decided(PAPER, "race-sysrs-beats-ucbe",
                   "SySRs (Lyu et al. 2026) finds the best model more often than UCB-E on every real matrix.",
                   _grid_text(both, reps),
                   f"SySRs significantly higher at {better}, lower at {worse} of {len(both)} points (Holm over the "
                   f"points); mean accuracy difference {gap:+.3f}", "universal", matrix_cases(both, "sysrs", "ucbe"))


def sysh_vs_sysrs_claim(acc: pd.DataFrame, cb: pd.DataFrame, level: float = 0.95, tol: float = 0.01) -> Claim:
    """Ours, :class:`paperlib.policies.sysrs.SySH`: synchronized Sequential Halving against SySRs, per point (Fisher)
    and by CB_T per matrix (ties within one grid step)."""
    res = fisher_points(acc, "sysh", "sysrs")
    if res is None:
        return decided(PAPER, "ours-sysh", "SySH finds the best model more often than SySRs.", "[real] not run in this profile",
                       "no interval: not run", "untestable", ())
    better, worse, both, gap, reps, shown = res
    t = cb[cb.level == level].pivot(index="dataset", columns="method", values="cb").fillna(np.inf)
    diff = (t["sysh"] - t["sysrs"]).replace(np.nan, 0.0)
    lower, higher = int((diff < -tol - 1e-12).sum()), int((diff > tol + 1e-12).sum())
    return decided(PAPER, "ours-sysh",
                 "SySH (ours: Sequential Halving with SySRs' synchronized examples) finds the best model more often "
                 "than SySRs on every real matrix.",
                 _grid_text(both, reps) + f"; CB_{level:g} compared per matrix, ties within one grid step",
                 f"SySH significantly higher at {better}, lower at {worse} of {len(both)} points (Holm over the "
                 f"points); mean accuracy difference {gap:+.3f}; CB_{level:g} lower on {lower}, higher on {higher} of "
                 f"{len(t)} matrices", "universal", matrix_cases(both, "sysh", "sysrs"))


def worst_case_budget_claim(cb: pd.DataFrame, level: float, tol: float = 0.01, draws: pd.DataFrame | None = None) -> Claim:
    """Lyu et al.'s second headline: SySRs needs the smallest worst-case budget to find the best model reliably
    (here: the largest CB_T over the matrices; a matrix where a method never reaches T counts as beyond the grid).

    ``draws`` (:func:`paperlib.beyond.race.experiments.cb_draws`) give the 95% bootstrap interval of SySRs' worst case
    minus the best other method's (draw by draw): holds if it lies at or below one grid step, fails if above it, else
    inconclusive; without draws, the point values decide (holds / fails)."""
    t = cb[cb.level == level].pivot(index="dataset", columns="method", values="cb")
    if "sysrs" not in t:
        return decided(PAPER, "race-sysrs-worst-case-budget", "SySRs has the smallest worst-case budget.", "[real] not run in this profile",
                       "no interval: not run", "untestable", ())
    worst = t.fillna(np.inf).max(axis=0)
    best = worst.min()
    shown = ", ".join(f"{k} {'beyond the grid' if not np.isfinite(v) else f'{v:.0%}'}" for k, v in worst.items())
    interval, how = "", "no interval: CB is read off the grid, ties within one grid step count"
    if draws is not None and np.isfinite(best):
        w = draws[draws.index.get_level_values("dataset").isin(t.index)].groupby(level="method").max()
        gap = w.loc["sysrs"].to_numpy() - w.drop(index="sysrs").min(axis=0).to_numpy()
        lo, hi = np.quantile(gap, [0.025, 0.975])
        interval = f"; SySRs' worst case minus the best other's: {lo * 100:+.0f} to {hi * 100:+.0f} budget points (95%)"
        how = ("CB read off the grid; one case: SySRs' worst case minus the best other method's, a bound at one grid "
               "step, with a 95% parametric bootstrap interval and its one-sided p-values (each budget's share of "
               "right runs redrawn, paperlib.beyond.race.experiments.cb_draws; beyond the grid counts as twice its "
               "largest budget)")
        return decided(PAPER, "race-sysrs-worst-case-budget",
                       f"SySRs (Lyu et al. 2026) needs the smallest worst-case budget to find the best model reliably "
                       f"(largest CB_{level:g} over the matrices).",
                       f"[real] {len(t)} matrices, budgets on a 1% grid to {cb.attrs.get('max_frac', 0.3):.0%}; {how}",
                       f"worst-case CB_{level:g}: {shown}{interval}", "bound",
                       [draws_case("SySRs' worst case minus the best other's", gap, tol)])
    # without draws: the point values alone, a case with no test (it shows nothing either way)
    return decided(PAPER, "race-sysrs-worst-case-budget",
                   f"SySRs (Lyu et al. 2026) needs the smallest worst-case budget to find the best model reliably "
                   f"(largest CB_{level:g} over the matrices).",
                   f"[real] {len(t)} matrices, budgets on a 1% grid to {cb.attrs.get('max_frac', 0.3):.0%}; {how}",
                   f"worst-case CB_{level:g}: {shown}{interval}", "bound",
                   [Case("SySRs' worst case minus the best other's", "real", float(worst["sysrs"] - best))])


AUTO_GOAL_SHARE = 0.8
AUTO_GOAL_SLACK = 0.02


def auto_goal_claim(cb: pd.DataFrame, level: float = 0.95, tol: float = 0.01, split: bool = False,
                    draws: pd.DataFrame | None = None) -> Claim:
    """The race issue's goal for ``auto``: the lowest CB_T (ties within one grid step win) on at least 80% of the real
    matrices, and never more than two budget points above the best other method. ``auto`` is SySRs today
    (:class:`paperlib.policies.sysrs.Auto`), so its column is SySRs' unless the race ran ``auto`` itself.

    ``split=True`` reads the test-half race (:func:`paperlib.beyond.race.experiments.split_accuracy`), where the
    PULSE family, given the train half of the models, is among the other methods."""
    t = cb[cb.level == level].pivot(index="dataset", columns="method", values="cb")
    col = "auto" if "auto" in t else "sysrs"
    others = [c for c in t.columns if c not in ("auto", "sysrs")]
    cid = "race-auto-goal-split" if split else "race-auto-goal"
    if col not in t or not others:
        return decided(PAPER, cid, "auto has the lowest confidence budget.", "[real] not run in this profile",
                       "no interval: not run", "untestable", ())
    filled = t.fillna(np.inf)
    best_other = filled[others].min(axis=1)
    behind = (filled[col] - best_other).replace([np.inf, -np.inf, np.nan], np.inf)
    wins = int((behind <= tol + 1e-12).sum())
    worst = behind.max()
    n = len(t)
    where = behind.idxmax()
    interval, how = "", "no interval: CB is read off the grid"
    if draws is not None:
        d = draws[draws.index.get_level_values("dataset").isin(t.index)]
        own = d.xs(col, level="method").reindex(t.index).to_numpy()
        rest = d[d.index.get_level_values("method").isin(others)].groupby(level="dataset").min().reindex(t.index).to_numpy()
        behind_d = own - rest                       # (matrices, draws)
        share = (behind_d <= tol + 1e-12).mean(axis=0)
        worst_d = behind_d.max(axis=0)
        (s_lo, s_hi), (w_lo, w_hi) = np.quantile(share, [0.025, 0.975]), np.quantile(worst_d, [0.025, 0.975])
        interval = (f"; 95% intervals: share of wins {s_lo:.0%} to {s_hi:.0%}, most budget points behind "
                    f"{w_lo * 100:+.0f} to {w_hi * 100:+.0f}")
        how = ("CB read off the grid; two cases, the goal's two parts, each a bound with a 95% parametric bootstrap "
               "interval and its one-sided p-values (each budget's share of right runs redrawn, "
               "paperlib.beyond.race.experiments.cb_draws; beyond the grid counts as twice its largest budget)")
        cases = [draws_case("share of wins", share, AUTO_GOAL_SHARE, below=False),
                 draws_case("most budget points behind", worst_d, AUTO_GOAL_SLACK)]
    worst_text = ("never reached T on " + where if not np.isfinite(worst) else
                  f"at most {max(worst, 0) * 100:.0f} points above the best other method ({where})")
    scope = ("on the seeded test halves of the real matrices' models, against methods that include the PULSE family "
             "fitted on the train halves: " if split else "")
    claim = (f"auto ({col}) has the lowest CB_{level:g} (ties within one budget point count as wins) {scope}on at least "
             f"{AUTO_GOAL_SHARE:.0%} of the real matrices and is never more than {AUTO_GOAL_SLACK * 100:.0f} budget "
             "points worse than the best other method (the race issue's goal).")
    evidence = (f"[real] {n} {'test halves' if split else 'matrices'}, budgets on a 1% grid to "
                f"{cb.attrs.get('max_frac', 0.3):.0%}; against {', '.join(others)}; {how}")
    measured = f"lowest on {wins}/{n} {'test halves' if split else 'matrices'}; {worst_text}{interval}"
    if draws is None:  # the point values alone: cases with no test (they show nothing either way)
        cases = [Case("share of wins", "real", wins / n), Case("most budget points behind", "real", float(worst))]
    return decided(PAPER, cid, claim, evidence, measured, "bound", cases)


PULSE_FAMILY = tuple(name for name, spec in METHODS.items() if spec.needs_factors)  #: the methods given V


def pulse_family_vs_auto_claim(acc: pd.DataFrame) -> Claim:
    """With a train matrix of other models, does a PULSE-family method (Tolochinsky et al. 2026) find the best test
    model more often than ``auto`` (SySRs)? One case per test half: each member's :func:`matrix_cases` there (Fisher's
    exact one-sided tests at the budgets where both ran, PULSE's warm-up budgets excluded); the half shows the
    statement when some member does, Bonferroni over the members (their smallest ``p_for`` times their number), and
    contradicts it when every member is significantly less often right there (the largest ``p_against``: an
    intersection-union test); the universal rule over the halves."""
    ref = "auto" if "auto" in set(acc.method) else "sysrs"
    members = [p for p in PULSE_FAMILY if p in set(acc.method)]
    cid = "race-split-pulse-vs-auto"
    text = (f"With the train half of the models as the train matrix, on every real test half some PULSE-family method "
            f"finds the best test model more often than auto ({ref}).")
    results = {p: fisher_points(acc, p, ref) for p in members}
    results = {p: r for p, r in results.items() if r is not None}
    if not results:
        return decided(PAPER, cid, text, "[real] not run in this profile", "no interval: not run", "untestable", ())
    any_r = next(iter(results.values()))
    per = {p: {c.name: c for c in matrix_cases(r.both, p, ref)} for p, r in results.items()}
    halves = list(dict.fromkeys(name for cs in per.values() for name in cs))
    cases = []
    for h in halves:
        cs = [per[p][h] for p in per if h in per[p]]
        best = min(cs, key=lambda c: c.p_for)
        cases.append(Case(h, "real", best.estimate, p_for=min(1.0, len(cs) * best.p_for),
                          p_against=max(c.p_against for c in cs)))
    shown = "; ".join(f"{p}: more often right on {sum(c.p_for < 0.05 for c in per[p].values())} of {len(per[p])} test "
                      f"halves, less often on {sum(c.p_against < 0.05 for c in per[p].values())} (each at 0.05; "
                      f"higher at {r.better}, lower at {r.worse} of {len(r.both)} points after Holm, mean difference "
                      f"{r.gap:+.3f})" for p, r in results.items())
    return decided(PAPER, cid, text,
                   _grid_text(any_r.both, any_r.reps).replace("matrices", "test halves")
                   + "; budgets below PULSE's warm-up (every test model on one batch) excluded; one case per test "
                   f"half over the {len(results)} members ({', '.join(results)}): shown where some member is, "
                   "Bonferroni over the members, contradicted where every member is less often right",
                   f"{cases_summary(cases, 'shown', prep='on', sep='; ')}; {shown}", "universal", cases)


def race_claims(acc: pd.DataFrame, cfg: dict) -> list[Claim]:
    """The race's rows from its accuracy table (notebooks/race.ipynb makes the same calls): the whole matrices, and
    the test halves where the profile has a split block."""
    from . import experiments as E

    cb = E.confidence_budgets(acc, cfg["levels"], cfg["budget_fracs"])
    level = 0.95 if 0.95 in cfg["levels"] else max(cfg["levels"])
    split_rows = acc.dataset.str.endswith(E.SPLIT)
    full, halves = acc[~split_rows], acc[split_rows]
    cb_full = cb[~cb.dataset.str.endswith(E.SPLIT)]
    cb_full.attrs["max_frac"] = max(cfg["budget_fracs"])
    draws = E.cb_draws(acc, level, cfg["budget_fracs"])
    claims = [sysrs_vs_ucbe_claim(full), worst_case_budget_claim(cb_full, level, draws=draws),
              auto_goal_claim(cb_full, level, draws=draws), sysh_vs_sysrs_claim(full, cb_full, level)]
    if len(halves):
        cb_split = cb[cb.dataset.str.endswith(E.SPLIT)]
        cb_split.attrs["max_frac"] = max(cfg["budget_fracs"])
        claims += [auto_goal_claim(cb_split, level, split=True, draws=draws), pulse_family_vs_auto_claim(halves)]
    return claims
