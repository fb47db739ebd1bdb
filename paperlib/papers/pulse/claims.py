"""Ledger rows of the PULSE reproduction (Tolochinsky et al. 2026), each with its decision rule.

Thresholds are module constants so the tests can pin them.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ...decide import (
    Case,
    Verdict,
    bootstrap_p,
    cases_summary,
    data_kind,
    exact_case,
    fisher_one_sided,
    fisher_rates,
    fisher_rates_holm,
    holm_reject,
    interval_case,
    rate_case,
    split_p,
)
from ...ledger import NOT_REPRODUCED_LEAD, Claim, decided, key, not_charged, redecide
from ...policies import label
from . import experiments as E

PAPER = "Tolochinsky et al. 2026 (PULSE)"
#: Rows that test a reading of ours, not a statement the paper makes: not counted in the paper's tally.
PAPERLIB_SETTINGS = "paperlib (PULSE settings)"
SAVING_UP_TO = 0.4      # "up to 46%": some pool saves significantly with its interval reaching 40%, none loses
PAPER_SAVING = 0.46     # the number itself ("saves up to 46%", Fig. 1), set beside each pool's saving (issue 73, item 4)
EXACT_TOL = 1e-9        # exact identities (Lemmas 1, 6)
Z_LIMIT = 4.0           # Monte Carlo bias check: |z| below 4
STAR_WITHIN = 0.999     # the identity behind Lemma 2 holds at (essentially) every (run, step) point
PAPER_CV = {"bench1": (100, 0.001), "bench2": (100, 0.01)}
ALPHA = 0.05            # level of the pointwise comparisons
LAMBDA_NEAR_ZERO = 0.1  # "close to zero" for Step 3's lambda (ours: the paper gives no number)
PAPER_LITERAL = "pulse:convention=paper"   # the paper-literal reading of Step 3 and Eq. (3), a registry variant
THREE = ("ucbe-batch", "pulse", "naive-pooling")   # the paper's three methods (Sec. 4.1)
SEMI_SYNTHETIC_BIAS = ("; Bench 1/2 pools are semi-synthetic, drawn from the same low-rank logistic family that PULSE "
                       "and Naive-Pooling fit, which favours both")


#: Why a variance ratio above 1 at lambda* is not charged to the paper: it claims "no wider" only up to constants.
NO_WIDER_UP_TO_CONSTANTS = ("the statement is 'no wider up to the constants of the two concentration inequalities' "
                            "(its footnote): a variance ratio a constant factor above 1 is within what it allows, so "
                            "an excess can show it only where the ratio grows without bound, which a K grid this short "
                            "cannot tell: an excess contradicts nothing")
#: What the rows resting on one fit of Step 1's V cannot tell (issue 67's audit; the runs of more fits are not here)
FIT_MOVES_IT = ("this row rests on one fit of Step 1's factors V (the authors' procedure); an independent audit (issue 67) "
                "found this comparison moves with the fit: 6 of 8 budgets above UCB-E with one fit of V, 0 with "
                "another, so the verdict is not stable across fits and the check that would settle it is the row "
                "graded under several fits (not run: about 20 CPU minutes per fit and pool)")
#: Why PULSE below UCB-E in our runs is not (yet) charged to the paper.
ABOVE_NOT_CHARGED = ("our PULSE follows the authors' code on its five conventions and matched it on a held-out split, "
                     "but their code has not been run on these pools, so a fault of ours in the predictions' fit or the "
                     "refits is not excluded")


# ---- cases (issue 73): the builders below give statistics per (pool, budget) point; paperlib.decide decides -------

def point_cases(runs: pd.DataFrame, a: str, b: str, prefix: str = "") -> list[Case]:
    """One case per (pool, budget) point: the difference of ``a``'s and ``b``'s shares of right runs with its normal
    95% interval, and Fisher's exact one-sided p-values of "a above b" (``p_for``) and "a below b" (``p_against``);
    the pool's data kind. A point where both methods are always right (or always wrong) has nothing to compare and
    is not a case (the evidence says so); an equal share below that is a case that shows neither."""
    from ...decide import rate_counts

    g = runs[runs.method.isin([a, b])]
    piv = g.pivot_table(index=["pool", "budget"], columns="method", values=["accuracy", "reps"]).dropna()
    if ("accuracy", a) not in piv or ("accuracy", b) not in piv:
        return []
    kinds = runs.groupby("pool").kind.first()
    k1, n1, k2, n2 = rate_counts(piv, a, b)
    out = []
    for (pool, budget), x1, m1, x2, m2 in zip(piv.index, k1, n1, k2, n2, strict=True):
        r1, r2 = x1 / m1, x2 / m2
        if r1 == r2 and r1 in (0.0, 1.0):  # both always right (or always wrong): nothing to compare
            continue
        d, se = r1 - r2, float(np.sqrt(r1 * (1 - r1) / m1 + r2 * (1 - r2) / m2))
        up, down = fisher_one_sided(x1, m1, x2, m2)
        out.append(Case(f"{prefix}{pool} @ {int(budget)}", kinds[pool], d, d - 1.96 * se, d + 1.96 * se, up, down))
    return out


def cases_text(cases, what: str = "shown") -> str:
    """:func:`paperlib.decide.cases_summary` of (pool, budget) points (one bullet per data kind in the notebooks)."""
    return cases_summary(cases, what, prep="at", unit=" points", empty="no point where the two differ")


def _runs_text(runs: pd.DataFrame) -> str:
    """'500 runs per method', or the count of each method where they differ."""
    per = runs.groupby("method", sort=False).reps.first()
    if per.nunique() == 1:
        return f"{int(per.iloc[0])} runs per method"
    common = int(per.mode().iloc[0])
    other = ", ".join(f"{label(m)} {int(r)}" for m, r in per.items() if r != common)
    return f"{common} runs per method ({other})"


def _bias_note(runs: pd.DataFrame) -> str:
    return SEMI_SYNTHETIC_BIAS if (runs.kind == "semi-synthetic").any() else ""


def savings_cases(runs: pd.DataFrame) -> tuple[list[Case], list[str]]:
    """Fig. 1's savings, one case per pool (and its words), with c the bandit calls to 95% accuracy: both reach it,
    the saving 1 - c_PULSE / c_UCB-E with its 95% bootstrap interval (:func:`_saving_draws`), ``p_for`` the bootstrap
    share of draws with no saving (the one-sided test of "PULSE saves"), ``p_against`` the share at or above
    :data:`SAVING_UP_TO` (the one-sided test that excludes the claimed size); only UCB-E reaches it, a loss (``p_against``
    the one-sided half of :func:`_first_p`); only PULSE, a saving of at least 1 - c_PULSE / (the largest budget)
    (``p_for`` likewise). A pool where UCB-E is at 95% at the grid's first budget, or neither method gets there, cannot
    tell (its saving is censored or absent): a case that could not fail."""
    bt = E.budget_table(runs).set_index(["pool", "method"]).calls_to_level
    top = runs.groupby("pool").bandit_calls.max()
    first = runs[runs.method == "ucbe-batch"].groupby("pool").bandit_calls.min()
    kinds = runs.groupby("pool").kind.first()
    cases, parts = [], []
    for pool in runs[runs.method == "pulse"].pool.unique():
        u, p = bt.get((pool, "ucbe-batch"), np.nan), bt.get((pool, "pulse"), np.nan)
        g = runs[runs.pool == pool]
        data = data_kind(kinds[pool])
        if np.isfinite(u) and u <= first.get(pool, -np.inf):
            cases.append(Case(pool, data, 1 - p / u if np.isfinite(p) else float("nan"), could_fail=False))
            parts.append(f"{pool}: censored (UCB-E at 95% at the grid's first budget, {u:,.0f} calls)")
        elif np.isfinite(u) and np.isfinite(p):
            draws = _saving_draws(g)
            if draws is None:
                cases.append(Case(pool, data, 1 - p / u, could_fail=False))
                parts.append(f"{pool}: {1 - p / u:.0%} (no draws)")
                continue
            lo, hi = (x if x > _LOSS else -np.inf for x in np.quantile(np.maximum(draws, _LOSS), [0.025, 0.975]))
            floor = 1.0 / draws.size
            cases.append(Case(pool, data, 1 - p / u, lo, hi, p_for=max(float((draws <= 0).mean()), floor),
                              p_against=max(float((draws >= SAVING_UP_TO).mean()), floor), paper=PAPER_SAVING))
            fmt = lambda x: "a loss" if not np.isfinite(x) else f"{x:.0%}"  # noqa: E731
            parts.append(f"{pool}: {1 - p / u:.0%} (95% interval {fmt(lo)} to {fmt(hi)})")
        elif np.isfinite(u):
            cases.append(Case(pool, data, float("-inf"), *split_p(_first_p(g), -1)))
            parts.append(f"{pool}: loss (UCB-E reaches 95% at {u:,.0f} calls, PULSE not by {top[pool]:,.0f})")
        elif np.isfinite(p):
            cases.append(Case(pool, data, 1 - p / top[pool], 1 - p / top[pool], 1.0, *split_p(_first_p(g), 1)))
            parts.append(f"{pool}: at least {1 - p / top[pool]:.0%} (PULSE reaches 95%, UCB-E not by {top[pool]:,.0f})")
        else:
            cases.append(Case(pool, data, could_fail=False))
            parts.append(f"{pool}: n/a (95% not reached)")
    return cases, parts


#: the data kind that stands for the paper's setting in PULSE's Figure-1 rows: our Bench 1/2 stand-ins of the
#: paper's Bench pools (semi-synthetic); the real pools are other datasets than the paper's
PULSE_SETTING = "semi-synthetic"


def _savings_claim(runs: pd.DataFrame) -> Claim:
    """Fig. 1's savings (:func:`savings_cases`), a statement about some setting ("saves up to 46%"), graded on the
    semi-synthetic Bench pools that stand for the paper's (:data:`PULSE_SETTING`)."""
    cases, parts = savings_cases(runs)
    fin = [c.estimate for c in cases if c.could_fail and np.isfinite(c.estimate)]
    best = f"; maximum {max(fin):.0%}" if fin else ""
    return decided(
        PAPER, "pulse-savings-vs-ucb-e-fig-1", "PULSE saves up to 46% of LLM calls relative to UCB-E at 95% accuracy",
        f"[{'/'.join(sorted(set(runs.kind)))}] {runs[runs.method == 'pulse'].pool.nunique()} pools, {_runs_text(runs)}, "
        "bandit calls to 95% accuracy; each saving with a 95% parametric bootstrap interval (each budget's share of "
        "right runs resampled, paperlib.stats.crossing_draws; a draw that never reaches 95% within the budget counts "
        "as a loss); one case per pool: shown where PULSE saves (one-sided bootstrap test), contradicted where the "
        f"claimed {SAVING_UP_TO:.0%} is excluded; a pool that only UCB-E brings to 95% is a loss, one that UCB-E "
        "brings to 95% at the grid's first budget is censored and cannot tell; graded on the semi-synthetic Bench "
        "pools, our stand-ins of the paper's" + _bias_note(runs),
        "saving per pool: " + ", ".join(parts) + best + "; " + cases_summary(cases, "PULSE saves"),
        "some", cases, setting=PULSE_SETTING, title="Savings vs UCB-E (Fig. 1)")


def _crossing_pair(pool: pd.DataFrame) -> tuple[np.ndarray, np.ndarray] | None:
    """Paired bootstrap draws of the calls at which PULSE and UCB-E reach 95% accuracy in one pool
    (:func:`paperlib.stats.crossing_draws`, one seed per method; inf: not within the budget). None if either is
    missing."""
    from ...stats import crossing_draws

    d = []
    for i, meth in enumerate(("pulse", "ucbe-batch")):
        g = pool[pool.method == meth].sort_values("bandit_calls")
        if g.empty:
            return None
        d.append(crossing_draws(g.bandit_calls, g.accuracy, g.reps, 0.95, seed=i))
    return d[0], d[1]


def _first_p(pool: pd.DataFrame) -> float:
    """Two-sided bootstrap p-value that PULSE and UCB-E reach 95% accuracy equally early in one pool, from the paired
    crossing draws (:func:`_crossing_pair`; a draw that never gets there within the budget comes last): where only
    one of them reaches 95%, the share of draws in which the other gets there first."""
    from ...decide import bootstrap_p

    pair = _crossing_pair(pool)
    if pair is None:
        return 1.0
    pulse, ucbe = (np.where(np.isfinite(x), x, np.inf) for x in pair)
    with np.errstate(invalid="ignore"):
        diff = np.where(pulse == ucbe, 0.0, np.sign(ucbe - pulse))  # +1: PULSE first
    return bootstrap_p(diff)


_LOSS = -10.0  # a draw where PULSE never reaches 95%, for the quantiles (read back as "a loss")


def _saving_draws(pool: pd.DataFrame) -> np.ndarray | None:
    """Bootstrap draws of PULSE's saving against UCB-E at 95% accuracy in one pool, from the paired crossing draws
    (:func:`_crossing_pair`); a draw where PULSE never reaches 95% is a loss (-inf), one where UCB-E never does has no
    saving to compare (dropped). None without draws."""
    pair = _crossing_pair(pool)
    if pair is None:
        return None
    pulse, ucbe = pair
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(np.isfinite(ucbe), 1 - pulse / ucbe, np.nan)
    s = s[~np.isnan(s)]
    return np.where(np.isfinite(s), s, -np.inf) if s.size else None


def naive_worst_cases(runs: pd.DataFrame) -> list[Case]:
    """One case per (pool, budget) point (not where all three methods are always right):
    "lowest of the three" there is "below both", so its ``p_for`` is the larger of the two one-sided Fisher p-values
    of "below" (an intersection-union test within the point) and its ``p_against`` twice the smaller p-value of
    "above" (Bonferroni over the two others): a point where Naive-Pooling is significantly above either one
    contradicts the statement."""
    from ...decide import rate_counts

    g = runs[runs.method.isin(THREE)]
    piv = g.pivot_table(index=["pool", "budget"], columns="method", values=["accuracy", "reps"]).dropna()
    others = [m for m in THREE if m != "naive-pooling" and ("accuracy", m) in piv]
    if ("accuracy", "naive-pooling") not in piv or not others:
        return []
    kinds = runs.groupby("pool").kind.first()
    per = {m: rate_counts(piv, "naive-pooling", m) for m in others}
    out = []
    for i, (pool, budget) in enumerate(piv.index):
        tests = [(per[m][0][i], per[m][1][i], per[m][2][i], per[m][3][i]) for m in others]
        if all(x1 / m1 == x2 / m2 and x1 / m1 in (0.0, 1.0) for x1, m1, x2, m2 in tests):
            continue  # all three always right (or always wrong): nothing to compare
        below = max(fisher_one_sided(*t)[1] for t in tests)
        above = min(1.0, len(tests) * min(fisher_one_sided(*t)[0] for t in tests))
        d = min(t[0] / t[1] - t[2] / t[3] for t in tests)  # the margin to the nearer other method
        out.append(Case(f"{pool} @ {int(budget)}", kinds[pool], d, p_for=below, p_against=above))
    return out


def _naive_worst_claim(runs: pd.DataFrame) -> Claim:
    mean_acc = runs[runs.method.isin(THREE)].groupby(["pool", "method"]).accuracy.mean().unstack()
    cases = naive_worst_cases(runs)
    worst = (mean_acc.idxmin(axis=1) == "naive-pooling") if len(mean_acc) else pd.Series(dtype=bool)
    contra = sorted({c.name.split(" @ ")[0] for c, r in zip(cases, holm_reject([c.p_against for c in cases]),
                                                             strict=True) if r})
    return decided(
        PAPER, "pulse-naive-pooling-is-worst-sec-4-1",
        "Naive-Pooling has the lowest accuracy of the three methods across datasets, gaps and budgets",
        f"[{'/'.join(sorted(set(runs.kind)))}] Accuracy@t per pool and budget, Naive-Pooling against UCB-E and PULSE "
        "by Fisher's exact one-sided tests of the success counts; one case per (pool, budget) point (not where all "
        "three are always right; paperlib.papers.pulse.claims.naive_worst_cases): shown where it is below both (the larger "
        "p-value), contradicted where it is above either (Bonferroni over the two)" + _bias_note(runs),
        f"{cases_text(cases, 'below both others')}; contradicted after Holm on "
        + (", ".join(contra) if contra else "no pool")
        + f"; lowest in mean over the budgets in {int(worst.sum())}/{len(worst)} pools; mean accuracy "
        "(UCB-E / PULSE / Naive-Pooling): "
        + "; ".join(f"{i}: {r.get('ucbe-batch', np.nan):.2f}/{r.get('pulse', np.nan):.2f}/{r.get('naive-pooling', np.nan):.2f}"
                    for i, r in mean_acc.iterrows()),
        "universal", cases, title="Naive-Pooling is worst (Sec. 4.1)",
    )


def _above_claim(runs: pd.DataFrame) -> Claim:
    mean_acc = runs.groupby(["pool", "method"]).accuracy.mean().unstack()
    better = (mean_acc["pulse"] >= mean_acc["ucbe-batch"]) if len(mean_acc) else pd.Series(dtype=bool)
    cases = point_cases(runs, "pulse", "ucbe-batch")
    return decided(
        PAPER, "pulse-pulse-above-ucb-e-throughout-fig-2",
        "PULSE achieves higher accuracy than UCB-E for every dataset, gap and budget",
        f"[{'/'.join(sorted(set(runs.kind)))}] Accuracy@t per pool and budget; one case per (pool, budget) point "
        "(not where both are always right), Fisher's exact one-sided tests of the two success counts "
        "(paperlib.papers.pulse.claims.point_cases)" + _bias_note(runs),
        f"PULSE above UCB-E, {cases_text(cases, 'above')}; PULSE >= UCB-E in mean accuracy in "
        f"{int(better.sum())}/{len(better)} pools and at {_pointwise(runs)}; at the largest budget PULSE is below "
        f"UCB-E in {_final_below(runs)} pools",
        "universal", cases, title="PULSE above UCB-E throughout (Fig. 2)", reason=ABOVE_NOT_CHARGED,
    )


def _full_test_claim(runs: pd.DataFrame) -> Claim:
    """Figure 4: the Fig. 2 comparison on the full test halves of Bench 1 / Bench 2 (no gap selection), against UCB-E
    and against Naive-Pooling: one universal statement over both halves' points."""
    stmt = "on the full Bench 1 / Bench 2 test sets PULSE is above UCB-E and Naive-Pooling at every budget (Fig. 4)"
    full = runs[runs.pool.isin(["bench1-full", "bench2-full"])]
    if full.empty:
        return decided(PAPER, "pulse-full-test-sets-fig-4", stmt,
                       "[none] this profile has no full-test pool (bench1-full / bench2-full are in the paper profile; "
                       "about 1,100 models each, too large for the quick profile's CPU time)", "-", "untestable", (),
                       title="Full test sets (Fig. 4)")
    cases = (point_cases(full, "pulse", "ucbe-batch", "vs UCB-E: ")
             + point_cases(full, "pulse", "naive-pooling", "vs Naive-Pooling: "))
    halves = "; ".join(f"against {name}: " + cases_text([c for c in cases if c.name.startswith(f"vs {name}:")], "above")
                       for name in ("UCB-E", "Naive-Pooling"))
    return decided(
        PAPER, "pulse-full-test-sets-fig-4", stmt,
        f"[{'/'.join(sorted(set(full.kind)))}] Accuracy@t per pool and budget on bench1-full / bench2-full, "
        f"{_runs_text(full)}; one case per (pool, budget) point and other method (not where both are always right), PULSE "
        "against UCB-E and against Naive-Pooling (the two halves of one statement, one family), Fisher's exact "
        "one-sided tests" + _bias_note(full),
        halves, "universal", cases, title="Full test sets (Fig. 4)", reason=ABOVE_NOT_CHARGED)


def _printed_rule_text() -> str:
    """Why lambda's failure is the formula's: Step 3's printed rule alone, re-derived without the bandit or the
    authors' code (:func:`paperlib.papers.pulse.theory.printed_rule_lambda`), does not tell informative predictions
    from uninformative ones; what moves it is how Z_bar starts and the predictions' bias."""
    from .theory import printed_rule_lambda as lam

    return ("; excludes our error: an independent re-derivation of the printed rule (Eq. 27) alone, one model of "
            "1,000 examples, batch 64, 7 steps, 5,000 runs (paperlib.papers.pulse.theory.printed_rule_lambda): with "
            f"Z_bar starting empty, as the authors' code starts it, mean lambda {lam('uninformative', 0.0, False):.2f} "
            f"for calibrated uninformative predictions, {lam('uninformative', -0.1, False):.2f} when they are 0.1 too "
            f"low and {lam('informative', 0.0, False):.2f} for informative ones; with the warm-up's residual in Z_bar "
            f"(the paper's A_i(t-1) read literally) {lam('uninformative', 0.0, True):.2f} for uninformative and "
            f"{lam('informative', 0.0, True):.2f} for informative ones. Either way lambda follows the start of Z_bar "
            "and the predictions' bias, not whether they are informative: the failure is the formula's, not only "
            "the authors' code's")


def bydata_kind(build, runs: pd.DataFrame) -> Claim:
    """One row from ``build`` on all the pools, decided by construction: :func:`paperlib.decide.decide` grades the
    data kinds (the one rule for every paper: the real pools where there are some, the others shown beside them), so a
    builder never combines kinds itself."""
    whole = build(runs)
    if not whole.kind:
        raise ValueError(f"{whole.claim}: a row is decided from its kind and cases (paperlib.decide), not by its builder")
    return whole


def authors_savings(runs: pd.DataFrame, authors: pd.DataFrame | None) -> list[dict]:
    """Per pool where a run of the authors' code is here (:func:`paperlib.papers.pulse.experiments.authors_runs`):
    the bandit calls at which their PULSE and our UCB-E reach 95% accuracy, and the saving with its 95% bootstrap
    interval (:func:`_saving_draws` on their PULSE beside our UCB-E)."""
    out = []
    if authors is None or not len(authors):
        return out
    for pool, theirs in authors.groupby("pool", sort=False):
        ours = runs[(runs.pool == pool) & (runs.method == "ucbe-batch")].sort_values("bandit_calls")
        if ours.empty:
            continue
        both = pd.concat([ours[["method", "bandit_calls", "accuracy", "reps"]], theirs.assign(method="pulse")[
            ["method", "bandit_calls", "accuracy", "reps"]]], ignore_index=True)
        u = E.calls_to_accuracy(ours.bandit_calls, ours.accuracy, 0.95)
        t = theirs.sort_values("bandit_calls")
        a = E.calls_to_accuracy(t.bandit_calls, t.accuracy, 0.95)
        draws = _saving_draws(both)
        lo, hi = ((np.nan, np.nan) if draws is None else
                  (x if x > _LOSS else -np.inf for x in np.quantile(np.maximum(draws, _LOSS), [0.025, 0.975])))
        out.append(dict(pool=pool, seeds=int(theirs.reps.iloc[0]), theirs=a, ucbe=u,
                        saving=1 - a / u if np.isfinite(a) and np.isfinite(u) else np.nan, lo=lo, hi=hi))
    return out


def _authors_text(rows: list[dict]) -> str:
    fmt = lambda x: "a loss" if not np.isfinite(x) else f"{x:.0%}"  # noqa: E731
    return "; ".join(
        f"the authors' code on {r['pool']} ({r['seeds']} seeds, results/<profile>/pulse/authors/{r['pool']}.csv): their "
        f"PULSE reaches 95% at {r['theirs']:,.0f} bandit calls, our UCB-E at {r['ucbe']:,.0f}, a saving of "
        f"{fmt(r['saving'])} (95% interval {fmt(r['lo'])} to {fmt(r['hi'])})" for r in rows)


def experiment_claims(runs: pd.DataFrame, authors: pd.DataFrame | None = None) -> list[Claim]:
    """Figures 1-3 and Sec. 4.1-5: savings, Naive-Pooling worst, PULSE above UCB-E, effective budget, run time,
    non-binary scores; each comparative row judged on the real pools where they disagree with the others.
    ``authors``: runs of the authors' code (:func:`paperlib.papers.pulse.experiments.authors_runs`), which the savings
    row compares with our UCB-E on the same pool."""
    out = [bydata_kind(f, runs) for f in (_savings_claim, _naive_worst_claim, _above_claim, _effective_budget_claim)]
    theirs = authors_savings(runs, authors)
    if theirs:
        sav = out[0]
        below = all(np.isfinite(r["hi"]) and r["hi"] < SAVING_UP_TO for r in theirs)
        sav = replace(sav, measured=f"{sav.measured}; {_authors_text(theirs)}")
        out[0] = not_charged(sav, (
            "the authors' code, run on " + ", ".join(r["pool"] for r in theirs) + ", saves "
            + ("below" if below else "not clearly below") + f" {SAVING_UP_TO:.0%} against our UCB-E there as well, so on "
            "that pool the shortfall is not our implementation's; the paper's 46% is on its Bench pools, whose raw "
            "0/1 matrices we could not retrieve (ours are low-rank stand-ins): the check that would settle it is their "
            "code, or ours, on those matrices"))
    out.append(_full_test_claim(runs))
    kinds = "/".join(sorted(set(runs.kind)))
    pr = runs[runs.method == "pulse"].groupby("pool").agg(wall_s=("wall_s", "first"), reps=("reps", "first"),
                                                          calls=("budget", "max"), machine=("machine", "first"))
    big = pr.sort_values("calls").iloc[-1]
    out.append(decided(
        PAPER, "pulse-run-time-sec-4-1-app-c-2", "a PULSE run at T = 540K calls on MMLU-Pro takes about 60 s (A40 GPU)",
        f"[{kinds}] wall time of our implementation, R runs batched in one call, on {', '.join(sorted(set(pr.machine)))}; "
        "no interval: one timing per pool, on other hardware than the paper's A40 and of other code, so not comparable "
        "with the paper's 60 s",
        f"largest pool {pr.calls.idxmax()} (T = {int(big.calls):,} calls): {big.wall_s:.1f} s for {int(big.reps)} runs "
        f"({big.wall_s / big.reps:.3f} s per run batched); per run elsewhere: "
        + ", ".join(f"{k}: {r.wall_s / r.reps:.3f} s" for k, r in pr.iterrows() if k != pr.calls.idxmax()),
        "untestable", (), title="Run time (Sec. 4.1, App. C.2)",
    ))
    alp = runs[runs.dataset == "alpacaeval2"]
    if len(alp):
        m = alp.groupby("method").accuracy.mean()
        cases = point_cases(alp, "pulse", "ucbe-batch")
        out.append(decided(
            PAPER, "pulse-non-binary-scores-sec-5-extension-expected-with-minor-changes",
            "PULSE extends to non-binary scores in [0, 1]",
            f"[real] AlpacaEval-2 (continuous scores), seeded train/test split of its models, {_runs_text(alp)}; "
            "PULSE against UCB-E, one case per budget (not where both are always right), Fisher's exact "
            "one-sided tests (read as: PULSE does better than UCB-E on non-binary scores)",
            f"PULSE above UCB-E, {cases_text(cases, 'above')} of {alp.budget.nunique()} budgets; mean accuracy over "
            "budgets: " + ", ".join(f"{label(k)} {v:.2f}" for k, v in m.items())
            + "; 500 runs a method on one pool, so a difference of a few points at one budget is within what the "
            "runs can tell apart only at Holm's level",
            "comparison", cases, title="Non-binary scores (Sec. 5: extension expected with minor changes)"))
    if "pulse-pw" in set(runs.method):
        out.append(precision_weighting_claim(runs))
    if "pulse-sync" in set(runs.method):
        out.append(sync_claim(runs))
    if PAPER_LITERAL in set(runs.method):
        out.append(convention_claim(runs))
    return out


#: rows that compare two methods which both read Step 1's V: regraded under an extra fit only when both were rerun
BOTH_READ_V = {"pulse-authors-vs-paper-literal": {"pulse", PAPER_LITERAL},
               "ours-pulse-precision-weighting": {"pulse", "pulse-pw"}, "ours-pulse-sync": {"pulse", "pulse-sync"}}


def fit_variant(runs: pd.DataFrame, acc: pd.DataFrame) -> pd.DataFrame:
    """``runs`` (the pool tables) with the rows of the methods and pools in ``acc`` (one extra fit's Accuracy@t:
    :func:`paperlib.papers.pulse.experiments.fit_accuracy`) replaced by that fit's accuracy, runs and standard error."""
    key = ["pool", "method", "budget"]
    cols = [c for c in ("accuracy", "reps", "se") if c in runs.columns]
    m = runs.merge(acc[key + cols].rename(columns={c: f"{c}_fit" for c in cols}), on=key, how="left")
    hit = m.accuracy_fit.notna()
    for c in cols:
        m.loc[hit, c] = m.loc[hit, f"{c}_fit"]
    m["reps"] = m.reps.astype(int)
    return m[runs.columns]


def fit_stability(claims: list[Claim], runs: pd.DataFrame, acc: pd.DataFrame,
                  authors: pd.DataFrame | None = None) -> list[Claim]:
    """Every row of :func:`experiment_claims` graded again under each extra Step 1 fit (``acc``: Accuracy@t per pool,
    method, fit and budget, fits k >= 1 with the same keyed runs as the pool's first ones) and regraded on what holds
    under every fit (:func:`paperlib.decide.decide`, which combines the fits with :func:`~paperlib.decide.across_fits`); each row says whether its verdict is the same under every
    fit, and on how many pools the comparison is run for run (``runs``' ``streams`` column: the pool's table was made
    with keyed streams) rather than between independent draws of the same law."""
    fits = sorted(int(k) for k in set(acc.fit) if int(k) > 0)
    if not fits:
        return claims
    per = {k: {c.claim: c.verdict for c in experiment_claims(fit_variant(runs, acc[acc.fit == k]), authors)}
           for k in fits}
    reps = int(acc[acc.fit > 0].reps.max())
    pools = sorted(set(acc[acc.fit > 0].pool))
    methods = ", ".join(sorted(label(m) for m in set(acc.method)))
    # the fits' runs are keyed: run r of fit k is run r of the pool with only V changed where the pool's own table
    # was made with keyed streams (its streams column); a table from before them holds other draws of the same law
    keyed = set(runs.pool[runs.streams.fillna("").astype(str) != ""]) if "streams" in runs else set()
    paired = len(keyed & set(pools))
    runs_are = ("the same runs with another V" if paired == len(pools) else
                f"the same runs with another V on the {paired} pools whose tables have keyed streams, new draws of "
                f"the same law on the other {len(pools) - paired}")
    fit_rows = {k: {c.claim: c for c in experiment_claims(fit_variant(runs, acc[acc.fit == k]), authors)}
                for k in fits}
    out = []
    for c in claims:
        vs = [per[k].get(c.claim) for k in fits]
        if c.claim in BOTH_READ_V and not BOTH_READ_V[c.claim] <= set(acc.method):
            out.append(replace(c, measured=f"{c.measured}; Step 1's fit: not regraded under the extra fits of V (both "
                                           "sides read V, and only " + methods + " was rerun with them)"))
            continue
        if c.verdict == Verdict.UNTESTABLE or any(v is None for v in vs):
            out.append(c)
            continue
        published = c.verdict
        # the fits' cases join the row's, and paperlib.decide combines the verdicts under each fit
        extra = [replace(x, fit=k) for k in fits for x in fit_rows[k][c.claim].cases]
        c = redecide(c, list(c.cases) + extra)
        new = c.verdict
        shown = "; ".join(f"fit {k}: {v}" for k, v in zip(fits, vs, strict=True))
        head = f"Step 1's fit (`{c.claim}`, {new})"  # the line names its row and verdict: it lists other verdicts
        if all(v == published for v in vs):
            note = (f"{head}: the same verdict under each of {len(fits)} more fit{'s' * (len(fits) > 1)} of V ({shown}; "
                    f"{methods} {reps} runs each on {len(pools)} pools, {runs_are})")
        else:
            note = (f"{head}: the verdict moves with the fit of V ({shown}; {methods} {reps} runs each on "
                    f"{len(pools)} pools, {runs_are}; the published fit: {published})"
                    + (f", so graded on the fits together: {new}" if new != published else
                       ", and the published fit's runs allow both answers, which a fit's verdict at fewer runs does "
                       "not overrule" if published == Verdict.INCONCLUSIVE else
                       ", and a fit whose intervals allow both answers is a loss of power at fewer runs, not a "
                       "contradiction, so the verdict stands"))
        measured = c.measured.replace(f"; {FIT_MOVES_IT}", "")
        head, lead, tail = measured.partition(f". {NOT_REPRODUCED_LEAD}")
        out.append(replace(c, measured=f"{head}; {note}{lead}{tail}"))
    return out


def _versus_pulse(runs: pd.DataFrame, ours: str, cid: str, statement: str, evidence_note: str, extra: str,
                  paper: str = "paperlib (improvements)", base: str = "pulse") -> Claim:
    """Method ``ours`` against ``base`` (the paper's PULSE): one case per (pool, budget) point, Fisher's exact
    one-sided tests (:func:`point_cases`), a comparison (better somewhere, worse nowhere, after Holm)."""
    cases = point_cases(runs, ours, base)
    kinds = "/".join(sorted(set(runs.kind)))
    return decided(
        paper, cid, statement,
        f"[{kinds}] {runs.pool.nunique()} pools x their budgets, {_runs_text(runs[runs.method.isin([ours, base])])}; "
        "one case per (pool, budget) point where the two differ, Fisher's exact one-sided tests" + evidence_note,
        f"{label(ours)} above {label(base)}, {cases_text(cases, 'above')}; {extra}",
        "comparison", cases)


def convention_claim(runs: pd.DataFrame) -> Claim:
    """The authors' code's conventions against the paper-literal reading of Step 3 and Eq. (3)."""
    mean = runs.groupby("method").accuracy.mean()
    return _versus_pulse(
        runs, "pulse", "pulse-authors-vs-paper-literal",
        "PULSE as the authors' code runs it (bandit.py: the lambda average Z_bar starts empty after the warm-up and "
        "is emptied at every refit, lambda = 1 while it is <= 0, the batch-aware lambda of compute_lam_cv_eb, the "
        "exact mean once a model is fully observed) finds the best model at least as often as the paper-literal "
        "reading of Step 3 and Eq. (3) (the warm-up's term in Z_bar, never reset; Eq. (3) kept for a fully observed "
        "model)",
        "; both readings run on the same pools in the same job; the default of paperlib is the authors' (the paper's "
        "own rows use it)",
        f"mean accuracy over all points {mean.get('pulse', float('nan')):.3f} (authors) vs "
        f"{mean.get(PAPER_LITERAL, float('nan')):.3f} (paper-literal)",
        paper=PAPERLIB_SETTINGS, base=PAPER_LITERAL)


def precision_weighting_claim(runs: pd.DataFrame) -> Claim:
    """Ours: precision-weighted PULSE (pulse-pw) against the paper's PULSE, Fisher exact per (pool, budget)."""
    last = runs[runs.budget == runs.groupby("pool").budget.transform("max")]
    piv = last.pivot_table(index="pool", columns="method", values="accuracy")
    below = int((piv["pulse-pw"] < piv["ucbe-batch"]).sum()) if "ucbe-batch" in piv else 0
    below_paper = int((piv["pulse"] < piv["ucbe-batch"]).sum()) if "ucbe-batch" in piv else 0
    return _versus_pulse(
        runs, "pulse-pw", "ours-pulse-precision-weighting",
        "Weighting PULSE's one-step estimators by their predictable precision (1 / w_t^2) and using the exact mean "
        "once a model is fully observed finds the best model more often than Eq. (3)'s running average.", "",
        f"at the largest budget below UCB-E in {below}/{len(piv)} pools (PULSE: {below_paper}/{len(piv)})")


def sync_claim(runs: pd.DataFrame) -> Claim:
    """Ours: PULSE with one shared example order per run (pulse-sync) against the paper's PULSE."""
    mean = runs.groupby("method").accuracy.mean()
    return _versus_pulse(
        runs, "pulse-sync", "ours-pulse-sync",
        "Synchronized sampling (every model's j-th example is the run's j-th example of one shared order, as in SySRs) "
        "finds the best model more often than PULSE's independent uniform draws.",
        "; pulse-sync has no certified interval (Lemma 1 needs draws uniform given the run's past)",
        f"mean accuracy over all points {mean.get('pulse-sync', float('nan')):.3f} vs {mean.get('pulse', float('nan')):.3f}")


def _final_below(runs: pd.DataFrame) -> str:
    last = runs[runs.budget == runs.groupby("pool").budget.transform("max")]
    piv = last.pivot_table(index="pool", columns="method", values="accuracy")
    if "pulse" not in piv or "ucbe-batch" not in piv:
        return "n/a"
    return f"{int((piv['pulse'] < piv['ucbe-batch']).sum())}/{len(piv)}"


def _pointwise_tests(runs: pd.DataFrame, a: str = "pulse", b: str = "ucbe-batch") -> tuple[int, int, int]:
    """(``a`` significantly above ``b``, significantly below, points where they differ) over (pool, budget), by
    Fisher's exact test at ``ALPHA`` (:func:`paperlib.decide.fisher_rates`)."""
    piv = runs.pivot_table(index=["pool", "budget"], columns="method", values=["accuracy", "reps"])
    if ("accuracy", a) not in piv or ("accuracy", b) not in piv:
        return 0, 0, 0
    return fisher_rates(piv, a, b, ALPHA)


def _pointwise_holm(runs: pd.DataFrame, a: str = "pulse", b: str = "ucbe-batch") -> tuple[int, int]:
    """:func:`_pointwise_tests` with Holm's correction over the points (reported beside the per-point counts)."""
    piv = runs.pivot_table(index=["pool", "budget"], columns="method", values=["accuracy", "reps"])
    if ("accuracy", a) not in piv or ("accuracy", b) not in piv:
        return 0, 0
    return fisher_rates_holm(piv, a, b, ALPHA)


def _pointwise(runs: pd.DataFrame) -> str:
    piv = runs.pivot_table(index=["pool", "budget"], columns="method", values="accuracy")
    if "pulse" not in piv or "ucbe-batch" not in piv:
        return "n/a"
    ok = piv["pulse"] >= piv["ucbe-batch"]
    return f"{int(ok.sum())}/{len(ok)} (pool, budget) points"


def _theorem1_cases(t: dict) -> list[Case]:
    """Theorem 1 for one kind of predictions: each informative point of the tail (bound below 1; the error quantile
    eps is read off the same runs, so the frequency is near-binomial) as a rate against its bound, and the coverage
    of the (1 - delta) interval as a rate of misses against delta (exact binomial tests, :func:`rate_case`)."""
    reps = int(t["reps"])
    tail = [rate_case(f"tail at eps={e:.3f}", "synthetic", round(f * reps), reps, b)
            for e, f, b in t["tail"] if b < 1]
    miss = round((1 - t["cover_oracle"]) * reps)
    return tail + [rate_case(f"{1 - t['delta']:.0%} interval coverage", "synthetic", miss, reps, t["delta"])]


def theory_claims(l1: dict, l1_mc: dict, t1: list[dict], l2: list[dict], l56: dict, t2: list[dict]) -> list[Claim]:
    """Lemmas 1, 2, 5, 6 and Theorems 1, 2 from the checkers' results (:mod:`.theory`), each a kind of statement and
    its cases (issue 73)."""
    out = [decided(
        PAPER, "pulse-lemma-1-conditional-unbiasedness",
        "E[theta_i^t | F_{t-1}] = mu_i when pi, lambda, S_hat are predictable",
        f"[synthetic] exact enumeration over j in U for {l1['trials']} random frozen histories (binary and continuous "
        f"scores, biased predictions, lambda in [0, 1]), one exact case: the identity to {EXACT_TOL:g}; Monte Carlo "
        f"over {l1_mc['reps']} runs shown beside it",
        f"max |mean_j theta - mu| = {l1['max_abs_error']:.1e}; Monte Carlo mean of theta - mu = {l1_mc['bias']:.2e} "
        f"(|z| = {abs(l1_mc['z']):.2f})",
        "exact", [exact_case(f"{l1['trials']} histories", "synthetic", l1["max_abs_error"] < EXACT_TOL,
                             l1["max_abs_error"])],
        title="Lemma 1 (conditional unbiasedness)")]
    for t in t1:
        out.append(decided(
            PAPER, f"pulse-theorem-1-tail-bound-{key(t['kind'])}-predictions",
            "P(|mu_hat - mu| >= eps, |A| = K) <= 2 exp(-eps^2 / (2 (v/(K n^2) + 2 eps/(3K))))",
            f"[synthetic] one model, n={t['n']} binary scores, K={t['K']} draws without replacement, {t['reps']} runs, "
            f"predictable lambda, v = the largest realised mean conditional variance; realised corr(S, S_hat) = "
            f"{t['corr']:.2f}; cases: the tail at the 50/90/99% error quantiles where the bound is below 1 (a point "
            "whose bound is >= 1 cannot be violated and is left out, issue 57) and the interval's coverage, each a "
            "rate against its bound (exact binomial tests)",
            "measured tail vs bound: "
            + ", ".join(f"eps={e:.3f}: {f:.3f} <= {b:.3g}" + (" (vacuous)" if b >= 1 else "") for e, f, b in t["tail"])
            + f" ({sum(b < 1 for _, _, b in t['tail'])} informative)"
            + f"; {1 - t['delta']:.0%} interval coverage {t['cover_oracle']:.3f} (radius {t['radius_oracle']:.3f}); "
            f"with v = the sample variance of the run's own Z's: {t['cover_plugin']:.3f}; Bernstein-Serfling (observation-only) coverage {t['cover_bs']:.3f} "
            f"(radius {t['radius_bs']:.3f})",
            "theorem", _theorem1_cases(t), title=f"Theorem 1 tail bound ({t['kind']} predictions)"))
    for r in l2:
        out.extend(lemma2_claims(r))
    out.append(decided(
        PAPER, "pulse-lemmas-5-and-6", "Var(S | F) <= n/|U| Var(S_i) (Lemma 5); n SS = n Phi - F^2 (Lemma 6)",
        f"[synthetic] {l56['trials']} random populations and unobserved sets, exact: two exact cases, Lemma 5's excess "
        "at most 1e-12 and Lemma 6's relative error below 1e-9",
        f"Lemma 5 largest excess {l56['lemma5_max_excess']:.2e} (must be <= 0); Lemma 6 largest relative error "
        f"{l56['lemma6_max_rel_error']:.1e}",
        "exact", [exact_case("Lemma 5", "synthetic", l56["lemma5_max_excess"] <= 1e-12, l56["lemma5_max_excess"]),
                  exact_case("Lemma 6", "synthetic", l56["lemma6_max_rel_error"] < 1e-9, l56["lemma6_max_rel_error"])],
        title="Lemmas 5 and 6"))
    inf = [t for t in t2 if t["bound"] > 0]
    kinds = "/".join(sorted({t["kind"] for t in t2}))
    # one case per pool where the bound is informative: PULSE's misses against 1 - bound (exact binomial tests)
    # (a pool where it is not positive is a case that could not fail: any accuracy is above it)
    t2cases = [rate_case(t["pool"], data_kind(t["kind"]), round((1 - t["measured"]) * t["reps"]), t["reps"],
                         1 - t["bound"]) if t["bound"] > 0 else
               Case(t["pool"], data_kind(t["kind"]), t["measured"], could_fail=False) for t in t2]
    out.append(decided(
        PAPER, "pulse-theorem-2-success-guarantee",
        "P(i_hat = i*) >= 1 - sum_i sum_K 2 exp(-eps_K^2 / (2 (v/(K n^2) + 2 eps_K/(3K))))",
        f"[{kinds}] bound evaluated for every pool of the profile at its largest budget, a = 1 and a = the theorem's "
        "largest allowed a, v = n^2/4; one case per pool, PULSE's rate of wrong picks against 1 - bound (exact "
        "binomial tests) where the bound is positive; elsewhere it cannot be violated and the case could not fail",
        "; ".join(f"{t['pool']}: bound {t['bound']:.3g} (a=1), {t['bound_amax']:.3g} (a_max={t['a_max']:.3g}); measured "
                  f"PULSE accuracy {t['measured']:.2f}" for t in t2)
        + (". The bound is vacuous (negative) everywhere" if not inf else ""),
        "theorem", t2cases, title="Theorem 2 (success guarantee)"))
    out.append(decided(
        PAPERLIB_SETTINGS, "pulse-theorem-2-vacuous",
        "Theorem 2's success bound is informative (positive) on the pools it is used for, at their largest budget",
        f"[{kinds}] the bound of Theorem 2 evaluated exactly for every pool of the "
        "profile at its largest budget, at a = 1 and at the theorem's largest allowed a, with v = n^2 / 4 (exact "
        "arithmetic on the pool's size and gaps, no interval), one exact case per pool; as Zhou et al.'s Corollary 1 "
        "has its own row",
        f"bound positive on {sum(t['bound'] > 0 or t['bound_amax'] > 0 for t in t2)}/{len(t2)} pools; largest "
        f"{max((max(t['bound'], t['bound_amax']) for t in t2), default=float('nan')):.3g}",
        "exact", [exact_case(t["pool"], data_kind(t["kind"]), t["bound"] > 0 or t["bound_amax"] > 0,
                             max(t["bound"], t["bound_amax"])) for t in t2],
        title="Theorem 2 on evaluation pools"))
    return out



def cv_claims(cv: pd.DataFrame) -> list[Claim]:
    """Step 1 hyperparameters chosen by 5-fold CV with the 1-SE rule vs the paper's choice."""
    chosen = cv[cv.chosen]
    # the paper's picks are comparable only on the paper's real matrices; our Bench 1/2 are semi-synthetic stand-ins
    # drawn from a low-rank model of their own rank, whose CV optimum says nothing about the paper's
    comparable = chosen[chosen.dataset.isin(list(PAPER_CV)) & (chosen.kind == "real")]
    cases = [exact_case(str(d), "real", (int(r0), float(l0)) == tuple(PAPER_CV[d]), float(r0))
             for d, r0, l0 in zip(comparable.dataset, comparable["rank"], comparable.lam, strict=True)]
    return [decided(PAPER, "pulse-cv-hyperparameters",
        "Step 1 hyperparameters chosen by 5-fold CV with the 1-SE rule (paper: rank 100, lambda 0.001 on Bench 1 and 0.01 on Bench 2)",
        f"[{'/'.join(sorted(set(cv.kind)))}] 5-fold CV over held-out entries of the train split, grid "
        f"ranks {sorted(set(cv['rank']))} x lambdas {sorted(set(cv.lam))}, the 1-SE rule (the procedure is the "
        "paper's); one exact case per paper matrix we hold as real data: our pick is the paper's; "
        + ("none of the paper's real matrices is here, so nothing is compared; " if not cases else "")
        + "the picks on semi-synthetic stand-ins are shown and not compared (their optimum is the generating model's)",
        "; ".join(f"{r.dataset}: rank {r['rank']}, lambda {r.lam:g} (CV BCE {r.cv_loss:.4f} +- {r.cv_se:.4f})" for _, r in chosen.iterrows()),
        "exact" if cases else "untestable", cases)]


def _curve_text(c: pd.DataFrame, col: str, limit: str) -> str:
    picks = c.iloc[sorted({0, len(c) // 2, len(c) - 1})]
    pts = "; ".join(f"K={int(r.K)}: {getattr(r, col):.2f} ({getattr(r, col + '_lo'):.2f}-{getattr(r, col + '_hi'):.2f})"
                    + (f" vs {r.bound:.2f}" if limit == "bound" else "") for r in picks.itertuples())
    lim = c.bound if limit == "bound" else 1.0
    above = c[c[col + "_lo"] > lim + 1e-9]
    where = f"; significantly above {'the bound' if limit == 'bound' else '1'} at {len(above)}/{len(c)} values of K" + (
        f" (K = {int(above.K.min())} to {int(above.K.max())})" if len(above) else "")
    return pts + where


def _ratio_cases(c: pd.DataFrame, col: str, can_contradict: bool, could_fail: bool = True) -> list[Case]:
    """One case per K of the grid: the variance ratio ``col`` with its 95% bootstrap interval against 1
    (:func:`paperlib.decide.interval_case`, a normal reading of the interval)."""
    out = []
    for r in c.itertuples():
        k = interval_case(f"K={int(r.K)}", "synthetic", getattr(r, col), getattr(r, f"{col}_lo"),
                          getattr(r, f"{col}_hi"), 1.0, can_contradict=can_contradict)
        out.append(k if could_fail else replace(k, could_fail=False))
    return out


def lemma2_claims(r: dict) -> list[Claim]:
    """Lemma 2 at lambda* and Step 3's claim that PULSE's CI is no wider, for one kind of predictions."""
    c = pd.DataFrame(r["curve"])
    ev = (f"[synthetic] one model, n={r['n']} binary scores, {r['reps']} runs of K={r['K']} draws without replacement "
          f"(lambda* and predictable-lambda runs paired), realised corr(S, S_hat) = {r['corr']:.2f}; "
          "Monte Carlo variance of mu_hat (Eq. 3) over that of the observation-only mean (Eq. 4), 95% bootstrap "
          "interval over runs; one case per K of the grid, the ratio against 1")
    literal = r.get("literal_within_bound")
    # predictions that are an exact affine function of the scores (corr 1) make the ratio at lambda* 0 by construction
    affine = bool(np.isfinite(r["corr"]) and abs(r["corr"]) > 1 - 1e-9)
    star = decided(
        PAPER, f"pulse-lemma-2-variance-reduction-{key(r['kind'])}-predictions",
        "at lambda*, Var(mu_hat^t | F_{t-1}) <= (1 - rho_t^2) Var(mu_hat_obs), so the conditional variance that "
        "Theorem 1 uses is at most the observation-only one",
        f"[synthetic] one model, n={r['n']} binary scores, {r['reps']} runs of K={r['K']} draws without replacement, "
        "realised corr(S, S_hat) = " + f"{r['corr']:.2f}" + "; the inequality as printed, computed exactly at every "
        "(run, step) point: given F_{t-1} only the newest one-step estimator of Eq. (3) is random, so the left side "
        "is Var(Z_t | F) / (n^2 K^2), and the right side takes the finite-population variance of the mean of K draws "
        "without replacement, sigma^2 (n - K) / (K (n - 1)); one exact case, which could not have failed: the "
        "printed inequality binds only at K = 1, where its two sides are equal, and has slack for K > 1 of about "
        "(n - K) / (n K) relative by an independent derivation (issue 57), so no population can violate it; excludes "
        "our error: exact finite-population computation, and the two sides are equal at K = 1 as they must be",
        (f"the inequality is met at {literal:.1%} of (run, step) points; largest left / right {r['literal_worst']:.3f} "
         f"(at K = 1: {r['literal_k1']:.6f}). Not graded: the per-step identity min_lambda Var(S - lambda S_hat | F) = "
         f"(1 - rho^2) Var(S | F), an identity by construction, met at {r['star_within_bound']:.1%} of points; the "
         "unconditional Monte Carlo variance of mu_hat over that of the observation-only mean (95% bootstrap "
         "interval) vs the run-average of 1 - rho_t^2: " + _curve_text(c, "ratio_star", "bound")
         if literal is not None else "the inequality as printed was not computed by this run of the checker"),
        "untestable" if literal is None else "exact",
        () if literal is None else [exact_case("every (run, step) point", "synthetic", literal >= 1.0, literal,
                                               could_fail=False)],
        title=f"Lemma 2 variance reduction ({r['kind']} predictions)")
    no_wider = decided(
        PAPER, f"pulse-lemma-2-ci-no-wider-at-lambda-star-{key(r['kind'])}-predictions",
        "Lemma 2 implies that PULSE's CI is no wider than the observation-only CI (up to the constants of the two "
        "concentration inequalities), here at lambda*",
        ev + "; a case is shown where its ratio lies significantly at or below 1 and never contradicted: "
        f"{NO_WIDER_UP_TO_CONSTANTS}"
        + ("; the predictions are an affine function of the scores (corr 1), so the ratio at lambda* is 0 by "
           "construction and no case could have failed" if affine else ""),
        "Var ratio at lambda* (95% CI) vs 1: " + _curve_text(c, "ratio_star", "one")
        + ("; lambda* is left unclipped here (negative for adversarial predictions, where the printed lambda would be "
           "clipped to [0, 1]): the ratio stays at or below 1 only because of that" if r["kind"] == "adversarial" else ""),
        "bound", _ratio_cases(c, "ratio_star", can_contradict=False, could_fail=not affine),
        title=f"After Lemma 2, CI no wider at lambda* ({r['kind']} predictions)")
    hat = decided(
        PAPERLIB_SETTINGS, f"pulse-step-3-predictable-lambda-no-wider-{key(r['kind'])}-predictions",
        "our reading, not the paper's statement (the paper says only that Step 3 is designed to downweight "
        "uninformative predictions): with the predictable lambda of Step 3, PULSE's CI is no wider than the "
        "observation-only CI",
        ev,
        "Var ratio at the predictable lambda (95% CI): " + _curve_text(c, "ratio_hat", "one")
        + f"; per step, Var(Z|F) at the predictable lambda exceeds the observation-only one at {r['hat_worse_than_obs']:.0%} "
        "of (run, step) points",
        "bound", _ratio_cases(c, "ratio_hat", can_contradict=True),
        title=f"Step 3 predictable lambda no wider ({r['kind']} predictions)")
    return [star, no_wider, hat]


def _adjusted(c: pd.DataFrame, name: str) -> np.ndarray:
    """The Bonferroni-adjusted lower ends of a ratio's intervals over the K grid (``<name>_lo_adj``, at 1 - 0.05 /
    points). A table made before they were kept has none: then no point is called a significant violation (-inf)."""
    col = f"{name}_lo_adj"
    return c[col].to_numpy() if col in c else np.full(len(c), -np.inf)


def _effective_budget_claim(runs: pd.DataFrame) -> Claim:
    """Figure 3: at every UCB-E budget, PULSE reaches UCB-E's accuracy with fewer calls.

    Each (pool, UCB-E budget) point: the calls PULSE needs to reach UCB-E's mean accuracy there, read off PULSE's mean
    accuracy curve, minus UCB-E's budget, with a parametric bootstrap of both curves' shares of right runs
    (:func:`_crossing_difference_draws`); one case per point (a censored point cannot fail), the statement universal,
    decided by :func:`paperlib.decide.decide` (:data:`paperlib.decide.RULES`)."""
    eb = E.effective_budget(runs)
    pl = eb[(eb.method == "pulse") & eb.calls_needed.notna()]
    fewer = pl.calls_needed <= pl.ucbe_calls  # equal only where the crossing is censored at the grid's first budget
    strict = int((pl.calls_needed < pl.ucbe_calls).sum())
    unreached = int(((eb.method == "pulse") & eb.calls_needed.isna()).sum())
    by_pool = pl.assign(fewer=fewer).groupby("pool").fewer.mean()
    pv, sign, censored, names = _crossing_difference_draws(runs, eb)
    kinds = runs.groupby("pool").kind.first()
    # one case per (pool, UCB-E budget) point: fewer calls is the statement's direction (sign < 0); a point at the
    # grid's first budget cannot show fewer calls (its crossing is censored there): a case that could not fail
    cases = [Case(f"{pool} @ {int(b)}", data_kind(kinds[pool]), float(d), p_for=pf, p_against=pa, could_fail=not cen)
             for (pool, b), p, d, cen in zip(names, pv, sign, censored, strict=True)
             for pf, pa in [split_p(p, -d)]]
    return decided(
        PAPER, "pulse-effective-budget-fig-3",
        "across all test settings PULSE requires fewer evaluations than UCB-E to reach UCB-E's accuracy at budget B",
        f"[{'/'.join(sorted(set(runs.kind)))}] calls each method needs (linear interpolation on the budget grid) to "
        "reach UCB-E's mean accuracy at each UCB-E budget (a crossing below the grid's first budget counts as that "
        "budget); each point's calls minus UCB-E's budget with a parametric bootstrap of both curves (each budget's "
        "share of right runs resampled, 20,000 draws, enough for p-values that survive Holm over many points; a draw "
        "that never reaches counts as more); one case per (pool, UCB-E budget) point, shown where PULSE needs "
        "significantly fewer calls, contradicted where significantly more (one-sided bootstrap tests); a point at "
        "the grid's first budget is censored there and cannot show fewer calls" + _bias_note(runs),
        f"{cases_text(cases, 'fewer calls')} ({int(censored.sum())} censored); by the mean "
        f"curves, PULSE needs no more calls at {int(fewer.sum())}/{len(pl)} points (strictly fewer at {strict}; never "
        f"reaches UCB-E's accuracy at {unreached} more); share per pool: "
        + ", ".join(f"{k}: {v:.0%}" for k, v in by_pool.items()),
        "universal", cases, title="Effective budget (Fig. 3)")


def _crossing_difference_draws(runs: pd.DataFrame, eb: pd.DataFrame, n_boot: int = 20000) -> tuple:
    """Per (pool, UCB-E budget): the bootstrap p-value of "PULSE needs as many calls as UCB-E's budget" and the sign of
    the difference (positive: PULSE needs more; from ``eb``, :func:`.experiments.effective_budget` of ``runs``). Both methods' accuracy curves are resampled as each budget's share
    of right runs (:func:`paperlib.stats.crossing_draws`' parametric bootstrap), UCB-E's share at the point gives the
    target, PULSE's curve the crossing (:func:`paperlib.metrics.first_crossings`); a draw that never reaches counts as
    twice the grid's last budget. Also: whether each point is at or below PULSE's first budget (a crossing there is
    censored at that budget, so it cannot show fewer calls), and each point's (pool, UCB-E budget)."""
    from ...metrics import first_crossings

    pv, sign, censored, names = [], [], [], []
    for i, (pool, g) in enumerate(runs.groupby("pool", sort=False)):
        u = g[g.method == "ucbe-batch"].sort_values("bandit_calls")
        p = g[g.method == "pulse"].sort_values("bandit_calls")
        if u.empty or p.empty:
            continue
        rng = np.random.default_rng(i)
        b = p.bandit_calls.to_numpy(dtype=float)
        n_p = p.reps.to_numpy(dtype=np.int64)
        curve = rng.binomial(n_p, p.accuracy.clip(0, 1).to_numpy(), size=(n_boot, len(p))) / np.maximum(n_p, 1)
        point = eb[(eb.pool == pool) & (eb.method == "pulse")].calls_needed.to_numpy(dtype=float)  # in u's order
        for j, (bj, acc, n_u) in enumerate(zip(u.bandit_calls, u.accuracy, u.reps, strict=True)):
            target = rng.binomial(int(n_u), min(max(float(acc), 0.0), 1.0), size=n_boot) / max(int(n_u), 1)
            need = first_crossings(b, curve, target, direction="up")
            d = np.where(np.isfinite(need), need, 2 * b[-1]) - float(bj)
            pv.append(bootstrap_p(d))
            sign.append((point[j] if np.isfinite(point[j]) else 2 * b[-1]) - float(bj))
            censored.append(bool(float(bj) <= b[0]))  # nothing below the grid's first budget: fewer cannot show
            names.append((pool, bj))
    return np.asarray(pv), np.asarray(sign), np.asarray(censored, dtype=bool), names


def _lambda_text(g: pd.DataFrame) -> str:
    """Whether the predictions were exercised in these runs: the lambda that weighted them (0 = not used)."""
    if "lam_mean" not in g or not np.isfinite(g.lam_mean).any():
        return "lambda not recorded (whether the predictions were used is unknown); "
    used = "exercised" if (g.lam_mean >= 0.5).all() else "barely used somewhere" if (g.lam_mean < 0.1).any() else "used in part"
    return (f"predictions {used}: mean lambda per model at the last checkpoint "
            + ", ".join(f"{r.pool} {r.lam_mean:.2f} ({r.lam_low_share:.0%} of models below 0.1)" for r in g.itertuples())
            + "; ")


#: runs of the re-derivation of Step 3's printed rule (:func:`paperlib.papers.pulse.theory.printed_rule_lambda`)
PRINTED_RULE_RUNS = 5000


def hoeffding_p(mean: float, runs: int, limit: float) -> tuple[float, float]:
    """(p of "the expected mean is below ``limit``", p of "above"): one-sided Hoeffding p-values for a mean of ``runs``
    independent numbers in [0, 1], exp(-2 runs (limit - mean)^2) on the side the mean lies on, 1 on the other."""
    d = float(limit) - float(mean)
    q = float(np.exp(-2 * int(runs) * d * d))
    return (q, 1.0) if d > 0 else (1.0, q) if d < 0 else (1.0, 1.0)


#: "far from zero" for Step 3's lambda: the bound beyond which a mean lambda contradicts "close to zero"
LAMBDA_FAR = 0.5


def lambda_cases(names, data, means, runs) -> list[Case]:
    """One case per setting: the mean lambda, shown close to zero where significantly below LAMBDA_NEAR_ZERO and
    contradicted where significantly above LAMBDA_FAR (one-sided Hoeffding p-values, :func:`hoeffding_p`): an
    equivalence statement with margins (0.1, 0.5), ours, the paper giving no number."""
    out = []
    for name, d, m, n in zip(names, data, means, runs, strict=True):
        lo, hi = lambda_interval(np.array([m]), np.array([n]))
        out.append(Case(str(name), d, float(m), float(lo[0]), float(hi[0]), p_for=hoeffding_p(m, n, LAMBDA_NEAR_ZERO)[0],
                        p_against=hoeffding_p(m, n, LAMBDA_FAR)[1]))
    return out


def _printed_lambda_claim(bandit_text: str, bandit_claim: Claim) -> Claim:
    """Step 3's statement graded on its printed rule (Eq. 27, the warm-up's residual in Z_bar: A_i(t-1) read
    literally), by the independent re-derivation of :func:`paperlib.papers.pulse.theory.printed_rule_lambda` with a
    Hoeffding interval over its runs; the bandit's measurement of the authors' code's reading is the paperlib row
    ``pulse-step-3-lambda-near-zero-authors-code``, named here with its verdict (issue 68: say which reading fails)."""
    from .theory import printed_rule_lambda as lam

    runs = PRINTED_RULE_RUNS
    names = ("calibrated", "0.1 too low", "0.1 too high")
    cal, low, high = (lam("uninformative", b, True, reps=runs) for b in (0.0, -0.1, 0.1))
    informative, empty = lam("informative", 0.0, True, reps=runs), lam("uninformative", 0.0, False, reps=runs)
    means = np.array([cal, low, high])
    lo, hi = lambda_interval(means, np.full(3, runs))
    return decided(
        PAPER, "pulse-step-3-lambda-near-zero-for-uninformative-predictions",
        "the predictable lambda of Step 3 is close to zero when the predictions are uninformative, so they are "
        "downweighted",
        f"[synthetic] Step 3's printed rule (Eq. 27) read literally (Z_bar averages Z over all of A_i(t-1), the "
        "warm-up's residual included), re-derived without the bandit or the authors' code "
        f"(paperlib.papers.pulse.theory.printed_rule_lambda): one model of 1,000 binary examples, batch 64, 7 steps, "
        f"{runs:,} runs, uninformative predictions (independent of the scores) calibrated, 0.1 too low and 0.1 too "
        f"high, one case each; mean lambda with one-sided Hoeffding tests over the runs (each run's mean in [0, 1]); "
        f"'close to zero' read as below {LAMBDA_NEAR_ZERO} and contradicted above {LAMBDA_FAR} (the paper gives no "
        "number); the reading that fails is the authors' code's (Z_bar started empty), measured in the running bandit "
        "in the paperlib row pulse-step-3-lambda-near-zero-authors-code",
        "printed rule, mean lambda (95% Hoeffding interval): " + ", ".join(
            f"{name} {m:.3f} ({a:.3f} to {b:.3f})" for name, m, a, b in zip(names, means, lo, hi, strict=True))
        + f"; for contrast, informative predictions {informative:.2f} (the printed rule downweights them too) and the "
        f"authors' start of Z_bar (empty) {empty:.2f}; in the running bandit as the authors' code runs it "
        f"(`{bandit_claim.claim}`, {bandit_claim.verdict}): {bandit_text}",
        "equivalence", lambda_cases(names, ["synthetic"] * 3, means, [runs] * 3),
        title="Step 3, lambda near zero for uninformative predictions")


def lambda_interval(mean, runs, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """A (1 - alpha) Hoeffding interval for the expected mean lambda from ``runs`` independent runs, each contributing
    its mean lambda over models, a number in [0, 1]: mean -+ sqrt(log(2 / alpha) / (2 runs)), clipped to [0, 1]. The
    committed coverage tables keep the mean alone; Hoeffding needs only the range and the run count."""
    mean, runs = np.asarray(mean, dtype=float), np.asarray(runs, dtype=float)
    h = np.sqrt(np.log(2 / alpha) / (2 * np.maximum(runs, 1)))
    return np.clip(mean - h, 0, 1), np.clip(mean + h, 0, 1)


def coverage_cases(g: pd.DataFrame) -> list[Case]:
    """One case per pool: runs with any violation of Theorem 1's interval (an upper bound on every cell's violation
    probability) against delta, exact binomial (``p_for``); ``p_against`` the smallest (model, checkpoint) cell's exact
    one-sided binomial p-value of P(violation) <= delta, Bonferroni-adjusted over the cells (``cells_p_adj``; a table
    made before it was kept has it only where no cell is violated: 1)."""
    from scipy.stats import binom

    out = []
    for r in g.itertuples():
        pa = getattr(r, "cells_p_adj", np.nan)
        if not np.isfinite(pa):
            if r.violations:
                raise ValueError(f"{r.pool}: a coverage table with violations needs cells_p_adj (rerun pulse_coverage_pool)")
            pa = 1.0
        out.append(Case(r.pool, r.data, r.runs_any / r.runs, r.runs_any_ci[0], r.runs_any_ci[1],
                        p_for=float(binom.cdf(r.runs_any, r.runs, r.delta)), p_against=float(pa)))
    return out


def coverage_claims(summary: pd.DataFrame) -> list[Claim]:
    """Theorem 1 inside the running bandit, one row per kind of predictions (all pools of the profile)."""
    out = []
    for kind, g in summary.groupby("kind", sort=False):
        r0 = g.iloc[0]
        out.append(decided(
            PAPER, f"pulse-theorem-1-in-the-running-bandit-{key(kind)}-predictions",
            "Theorem 1's interval is valid for the estimate mu_hat (Eq. 3) that the adaptive bandit produces with "
            "refitted predictions",
            f"[{', '.join(sorted(set(g.data)))}] Algorithm 1 run end to end ({int(r0.runs)} runs "
            f"per pool; warm-up, UCB selection, refits of U, batches of B) on pools {', '.join(g.pool)}; at "
            f"{int(r0.checkpoints)} checkpoints every model's |mu_hat - mu| vs the radius of Theorem 1 at delta = "
            f"{r0.delta:g} with the exact Var(Z|F) of every step and v = max over runs of V_i; cells with radius >= 1 "
            "cover trivially and are left out; one case per pool: the share of runs with any violation against delta "
            "(exact binomial), contradicted where a (model, checkpoint) cell rejects P <= delta (exact binomial, "
            "Bonferroni over the cells)"
            + (SEMI_SYNTHETIC_BIAS if (g.data == "semi-synthetic").any() else ""),
            _lambda_text(g) + "; ".join(f"{r.pool}: {r.violations}/{r.informative_cells} informative cells violated "
                      f"({r.informative_share:.0%} of cells, K = {r.K_min}-{r.K_max}); runs with any violation "
                      f"{r.runs_any}/{r.runs} (95% CI {r.runs_any_ci[0]:.3f}-{r.runs_any_ci[1]:.3f}); largest "
                      f"|error| / radius {r.ratio_max:.2f}, median radius {r.radius_median:.3f} vs median error "
                      f"{r.err_median:.4f}" for r in g.itertuples()),
            "theorem", coverage_cases(g), title=f"Theorem 1 in the running bandit ({kind} predictions)"))
    un = summary[summary.kind == "uninformative"] if "lam_mean" in summary else summary.iloc[0:0]
    if len(un) and np.isfinite(un.lam_mean).all():
        lo, hi = lambda_interval(un.lam_mean, un.runs)
        bandit = (f"[{'/'.join(sorted(set(un.data)))}] the runs of the Theorem 1 rows above with uninformative "
                  f"predictions (independent of the scores), {int(un.runs.iloc[0])} runs per pool, PULSE as the "
                  "authors' code runs it (Z_bar starts empty after the warm-up and at every refit); the mean lambda "
                  "over models and runs at the last checkpoint, with the share of models below "
                  f"{LAMBDA_NEAR_ZERO} (our reading of 'close to zero': the paper gives no number), and its 95% "
                  "Hoeffding interval over the independent runs (each run's mean lambda lies in [0, 1]; "
                  "paperlib.papers.pulse.claims.lambda_interval); one case per pool, shown below "
                  f"{LAMBDA_NEAR_ZERO} and contradicted above {LAMBDA_FAR} (one-sided Hoeffding tests)")
        bandit_text = "mean lambda (95% interval): " + ", ".join(
            f"{r.pool} {r.lam_mean:.2f} ({a:.2f} to {b:.2f}; {r.lam_low_share:.0%} of models below "
            f"{LAMBDA_NEAR_ZERO})" for r, a, b in zip(un.itertuples(), lo, hi, strict=True))
        authors = decided(
            PAPERLIB_SETTINGS, "pulse-step-3-lambda-near-zero-authors-code",
            "with Z_bar started empty (the authors' code, our default), the predictable lambda is close to zero when "
            "the predictions are uninformative",
            bandit, bandit_text, "equivalence", lambda_cases(un.pool, un.data, un.lam_mean, un.runs),
            title="Step 3's lambda as the authors' code runs it, uninformative predictions")
        out += [_printed_lambda_claim(bandit_text, authors), authors]
    return out
