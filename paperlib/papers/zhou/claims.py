"""Ledger rows of the Zhou et al. (2025) reproduction, each with its decision rule.

Every builder takes the tables an experiment produced and returns :class:`~paperlib.ledger.Claim`
rows; the thresholds are module constants so the tests can pin them.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ...decide import (
    DATA_KINDS,
    EQUIVALENCE_MARGINS,
    Z95,
    Case,
    bootstrap_p,
    cases_summary,
    data_kind,
    equivalence_case,
    exact_case,
    holm_reject,
    holm_signs,
    one_sided_p,
    rate_case,
    share_case,
    split_p,
)
from ...ledger import Claim, decided, not_charged
from ...policies import label
from ...stats import clopper_pearson
from .experiments import NULL_SHUFFLES

PAPER = "Zhou et al. 2025"
#: Rows that ask a question of ours about the paper's results (not a statement the paper makes).
PAPERLIB_SETTINGS = "paperlib (Zhou settings)"
CHEAP_FRAC = 0.15          # "5-15% of the budget"
LRF_HARD_SAVING = 0.05     # UCB-E-LRF's saving on the harder half that counts as "about 10%"
ALPACA_FRAC = 0.08         # "precision 1 with 8% of the budget" on AlpacaEval
ALPACA_BASELINE_FRAC = 0.5 # baselines "need 80-90%": at least half the budget
SCORE_ONLY_GAP = 0.05      # "clearly worse": mean precision at least this much lower
WARMUP_NEAR_BEST = 0.05
WARMUP_SHARE = 0.5       # "generally": on at least half of the datasets
LOW_RANK_RANK = 5          # the low-rank row compares the top-5 share with its row-shuffled null
BATCH_TIME_RATIO = 16.0    # "b = 2 takes almost 16 times as much time as b = 32"
TIME_BOOTSTRAP = 2000      # bootstrap draws of the time ratio
STRICT_METRIC = "top1 gap eps=0.001"   # top-1 precision that counts only the best method (and exact ties)
#: What the authors' own package (banditeval 0.1.1) gave beside ours on the same matrices
#: (``benchmarks/side_by_side_banditeval.py``; ``benchmarks/RESULTS.md``, 2026-11-24)
BANDITEVAL_SIDE_BY_SIDE = ("the authors' banditeval run beside ours on the same real matrices (UCB-E on 4 at 200 runs, "
                           "UCB-E-LRF on sysrs_math and zeroeval_math_l5 at 12 runs, 100 at 5%; "
                           "benchmarks/side_by_side_banditeval.py) finds the best model as often as ours at every "
                           "budget checked, 5-20% (Fisher's test), once its first-index tie-breaking is removed, except "
                           "UCB-E at 5%, before its first sweep over the models ends (its arg-max then returns an "
                           "unseen model's NaN estimate); so the difference is not our implementation of the "
                           "algorithms. Its UCB-E-LRF refits afresh every step with ridge 0.1 where ours warm-starts; "
                           "the comparison covers that only on those two matrices")
#: Why a "fails" of these rows is not charged to the paper
LRF_HARD_REASON = ("the paper's hard matrices (GSM8K and PIQA prompts, H1 up to 1e5) were never published, so our 'harder "
                   "half' (the stand-ins above the median H1) is another set of matrices; the paper reads the budget to "
                   "mean precision 1 off Figure 3 with 50 repetitions and no interval, we grade per-repetition settling "
                   "budgets with bootstrap intervals at the profile's repetitions, and the profile refits UCB-E-LRF's "
                   "ensemble only when the observed pairs have grown by its refit_growth (a declared reduction; the paper "
                   "refits after every batch); " + BANDITEVAL_SIDE_BY_SIDE + "; the check that would settle our side "
                   "of it: UCB-E-LRF refitted after every batch (refit_growth 0, the paper's schedule) on the harder "
                   "half, which this project can run (benchmarks/gpu_declared_jobs.py run --zhou-reps 50 stages it; "
                   "about 100 core-hours on the CPU), and the paper's side needs its unpublished hard matrices")
NDCG_REASON = ("the paper reads NDCG@10 off Figure 3's curves on its own (unpublished) matrices with 50 repetitions and "
               "no test; our per-dataset rule (better active minus better baseline, averaged over the grid, "
               "conservative standard errors) at the profile's repetitions is a stricter grading on other matrices; "
               + BANDITEVAL_SIDE_BY_SIDE + "; the check that would settle it: banditeval's own NDCG@10 on the same "
               "matrices beside ours (the side-by-side covers top-1 precision only), and the paper's matrices")
#: budgets compared as fractions of the matrix: a grid point read as 0.1500007 is 15% (issue 73: "18 of 23 within 15%"
#: must not depend on it); far below the grid's 1% steps
BUDGET_TOL = 1e-4
MIN_REPS_NORMAL = 10       # fewer repetitions: no normal interval is trusted, comparisons are inconclusive


def claim_best_found_cheaply(reach: pd.DataFrame, max_frac: float, settle: pd.DataFrame | None = None) -> dict:
    """'Identifies the best method with 5-15% of the budget' (Zhou et al., abstract). With ``settle`` (per-run
    settling budgets) a bound at every dataset (:func:`settled_cases`); without it the point reading alone."""
    act = reach[reach.method.isin(["ucbe", "ucbe-lrf"])].groupby("dataset").budget_frac.min()
    ok = act <= CHEAP_FRAC + BUDGET_TOL
    fmt = ", ".join(f"{d}: {'>' + format(max_frac, '.0%') if np.isnan(v) else format(v, '.0%')}" for d, v in act.items())
    text = f"{ok.sum()}/{len(ok)} datasets within 15%; best of UCB-E/UCB-E-LRF: {fmt}"
    if settle is None:
        return dict(measured=text)  # the point reading alone: no case is tested
    cases = settled_cases(settle, reach, CHEAP_FRAC)
    return dict(measured=text + "; runs not settled on a correct pick by 15% (the better of UCB-E/UCB-E-LRF), "
                + cases_summary(cases, "at most 10% shown", prep="on", sep="; "), kind="bound", cases=cases)


#: "the best method is identified" with a budget, read per dataset as: at most this share of the runs of the better
#: active method has not settled on a correct pick by then (the paper reads mean precision 1 off 50 runs, i.e. all 50,
#: which no number of runs can show at a rate of 0; at 50 runs, 0 or 1 unsettled run shows a rate below 10%)
NOT_SETTLED_LIMIT = 0.10


#: the paper's share of runs not settled on the best method where it says the best is identified: its precision 1
#: is a mean over 50 runs, so none (Sec. 4.4)
PAPER_UNSETTLED = 0.0


def settled_cases(settle: pd.DataFrame, reach: pd.DataFrame, frac: float, methods=("ucbe", "ucbe-lrf")) -> list[Case]:
    """One case per dataset of "at most NOT_SETTLED_LIMIT of the runs are unsettled by ``frac``": the better of
    ``methods`` there (more runs settled), its unsettled runs with their exact interval and binomial tests
    (:func:`paperlib.decide.rate_case`). The paper's number for each case is 0: its "identified" is a mean precision
    of 1 over its 50 runs (Sec. 4.4, Fig. 3), i.e. no run unsettled, which the paper-vs-ours table sets beside ours."""
    act = settle[settle.method.isin(methods)]
    kinds = reach.groupby("dataset").kind.first() if "kind" in reach else pd.Series(dtype=object)
    cases = []
    for d, g in act.groupby("dataset", sort=True):
        miss = g.assign(miss=~(g.settle_frac <= frac + BUDGET_TOL)).groupby("method").miss.agg(["sum", "count"])
        best = (miss["sum"] / miss["count"]).idxmin()
        cases.append(rate_case(f"{d} ({label(best)})", kinds.get(d, "none"), int(miss.loc[best, "sum"]),
                               int(miss.loc[best, "count"]), NOT_SETTLED_LIMIT, paper=PAPER_UNSETTLED))
    return cases


def settled_by(settle: pd.DataFrame, frac: float) -> str:
    """The dataset where the better active method has the fewest repetitions settled by ``frac``, with an
    exact 95% interval on that method's probability of having settled."""
    act = settle[settle.method.isin(["ucbe", "ucbe-lrf"])]
    k = act.assign(ok=act.settle_frac <= frac + BUDGET_TOL).groupby(["dataset", "method"]).ok.agg(["sum", "count"])
    best = k.assign(rate=k["sum"] / k["count"]).sort_values("rate").groupby(level=0).tail(1)
    (d, meth), w = best.sort_values("rate").index[0], best.sort_values("rate").iloc[0]
    lo, hi = clopper_pearson(int(w["sum"]), int(w["count"]))
    return (f"; fewest runs settled on a correct pick by {frac:.0%}: {d} ({label(meth)}) {int(w['sum'])}/{int(w['count'])} "
            f"(95% CI {lo:.2f}-{hi:.2f})")


def claim_active_beats_baselines(reach: pd.DataFrame, settle: pd.DataFrame | None = None) -> dict:
    """'Both active algorithms need much less budget than the baselines' (Sec. 4.4).

    Without ``settle``: the budget to precision 1, active <= best baseline on every dataset. With it,
    per dataset the better active method's mean settling budget minus the better baseline's, with a
    bootstrap interval: one case per dataset, the statement universal (on every dataset), decided by
    :func:`paperlib.decide.decide`'s one rule for that kind (:data:`paperlib.decide.RULES`).
    """
    piv = reach.pivot(index="dataset", columns="method", values="budget_frac").fillna(np.inf)
    base = piv[[c for c in ("row-mean", "filled-subset", "lrf") if c in piv]].min(axis=1)
    act = piv[[c for c in ("ucbe", "ucbe-lrf") if c in piv]].min(axis=1)
    better = (act <= base)
    strict = (act < base)
    text = f"active <= best baseline on {better.sum()}/{len(better)} datasets (strictly less on {strict.sum()})"
    if settle is None:
        return dict(measured=text)  # the point reading alone: no case is tested
    cap = _settle_cap(settle)
    mean = settle.assign(s=settle.settle_frac.fillna(cap)).groupby(["dataset", "method"]).s.mean()
    pv, sign, raw_less, raw_more, cases = [], [], 0, 0, []
    kinds = reach.groupby("dataset").kind.first() if "kind" in reach else None
    for d in piv.index:
        m = mean[d]
        a = m.reindex(["ucbe", "ucbe-lrf"]).dropna().idxmin()
        b = m.reindex(["row-mean", "filled-subset", "lrf"]).dropna().idxmin()
        _, boot = settle_difference_ci(settle, [d], a, b)
        lo, hi = np.quantile(boot[:, 0], [0.025, 0.975])
        raw_less, raw_more = raw_less + (hi < 0), raw_more + (lo > 0)
        pv.append(bootstrap_p(boot[:, 0]))
        sign.append(float(np.mean(boot[:, 0])))
        cases.append(Case(d, data_kind(kinds[d]) if kinds is not None else "none", sign[-1], lo, hi, *split_p(pv[-1], -sign[-1])))
    more, less = holm_signs(pv, sign)  # (positive: active dearer, negative: active cheaper)
    return dict(measured=text + f"; mean settling budget significantly lower than the best baseline's on {less}/{len(piv)} "
                f"datasets, higher on {more} (bootstrap over repetitions, Holm's correction over the datasets; "
                f"uncorrected 95% intervals: lower on {raw_less}, higher on {raw_more})",
                kind="universal", cases=cases)


def _settle_cap(settle: pd.DataFrame) -> float:
    return float(settle.settle_frac.max()) + 0.05 if settle.settle_frac.notna().any() else 1.05


def settle_difference_ci(settle: pd.DataFrame, order: list[str], a: str, b: str, n_boot: int = 2000,
                         seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Per dataset, mean settling budget of ``a`` minus that of ``b``, and ``n_boot`` bootstrap replicates.

    Repetitions are resampled within each (dataset, method); a repetition that never settles counts
    as the grid maximum + 5%. Returns (point (D,), replicates (n_boot, D)) in the order of ``order``.
    """
    rng = np.random.default_rng(seed)
    cap = _settle_cap(settle)
    point, boot = [], []
    for d in order:
        diff_p, diff_b = 0.0, np.zeros(n_boot)
        for meth, sign in ((a, 1.0), (b, -1.0)):
            x = settle[(settle.dataset == d) & (settle.method == meth)].settle_frac.fillna(cap).to_numpy()
            diff_p += sign * x.mean()
            diff_b += sign * x[rng.integers(0, x.size, (n_boot, x.size))].mean(1)
        point.append(diff_p)
        boot.append(diff_b)
    return np.array(point), np.stack(boot, axis=1)


def claim_lrf_on_hard(reach: pd.DataFrame, settle: pd.DataFrame | None = None) -> dict:
    """'UCB-E wins on easy data by 2-3%; UCB-E-LRF saves about 10% of budget on hard data' (Sec. 4.4).

    The point values are the paper's statistic (budget at which mean precision reaches 1). With
    ``settle`` (per-repetition settling budgets, equal repetitions per method) the decision uses the
    mean settling budget, whose bootstrap interval is trustworthy (the maximum over repetitions grows
    with their number): fails if UCB-E-LRF needs significantly more on the harder half, holds if it
    needs significantly less there and UCB-E is not significantly worse on the easier half, partly if
    UCB-E-LRF is significantly better on both halves, else inconclusive.
    """
    piv = reach.pivot_table(index=["dataset", "H1"], columns="method", values="budget_frac").reset_index()
    if "ucbe" not in piv or "ucbe-lrf" not in piv:
        return dict(measured="methods missing")
    piv = piv.sort_values("H1")
    cap = reach.budget_frac.max() if reach.budget_frac.notna().any() else 1.0
    diff = (piv["ucbe"].fillna(cap + 0.05) - piv["ucbe-lrf"].fillna(cap + 0.05)).to_numpy()
    half = len(diff) // 2
    easy, hard = diff[:half], diff[half:]
    text = (f"budget to precision 1, UCB-E minus UCB-E-LRF: easier half {easy.mean():+.3f}, harder half "
            f"{hard.mean():+.3f} (by H1; unreached counted as grid max + 5%)")
    if settle is None:  # the point reading alone: no case is tested
        return dict(measured=text)
    point, boot = settle_difference_ci(settle, piv.dataset.tolist(), "ucbe", "ucbe-lrf")
    e_p, h_p = point[:half].mean(), point[half:].mean()
    e_lo, e_hi = np.quantile(boot[:, :half].mean(1), [0.025, 0.975])
    h_lo, h_hi = np.quantile(boot[:, half:].mean(1), [0.025, 0.975])
    reps = int(settle.groupby(["dataset", "method"]).size().min())
    text += (f"; mean settling budget, UCB-E minus UCB-E-LRF: easier half {e_p:+.3f} "
             f"(95% CI {e_lo:+.3f} to {e_hi:+.3f}), harder half {h_p:+.3f} ({h_lo:+.3f} to {h_hi:+.3f}); "
             f">= {reps} repetitions per method")
    if "kind" not in reach:  # no data kinds to make cases of
        return dict(measured=text)
    cases = lrf_halves_cases(reach, settle, piv)
    return dict(measured=text + "; per data kind (halves by H1 within the kind): " + ", ".join(
        f"{c.name} {c.estimate:+.3f} ({c.lo:+.3f} to {c.hi:+.3f})" for c in cases), kind="universal", cases=cases)


#: the paper's numbers for the two parts (Sec. 4.4), on UCB-E minus UCB-E-LRF's budget: UCB-E better on easy data by
#: 2-3% of the budget (read at its middle), UCB-E-LRF about 10% cheaper on hard data
LRF_PAPER = {"easier": -0.025, "harder": 0.10}


def lrf_halves_cases(reach: pd.DataFrame, settle: pd.DataFrame, piv: pd.DataFrame) -> list[Case]:
    """Two cases per data kind with >= 2 datasets: its easier and harder half by H1, each the mean over the half's
    datasets of UCB-E's mean settling budget minus UCB-E-LRF's, with a bootstrap interval and p-values; the
    statement's direction is UCB-E cheaper (a negative difference) on the easier half and UCB-E-LRF cheaper (a
    positive one) on the harder half."""
    kinds = reach.groupby("dataset").kind.first()
    cases = []
    for kind in sorted(set(kinds)):
        order = [d for d in piv.dataset if kinds.get(d) == kind]  # piv is sorted by H1
        if len(order) < 2:
            continue
        point, boot = settle_difference_ci(settle, order, "ucbe", "ucbe-lrf")
        half = len(order) // 2
        for part, sl, toward in (("easier", slice(0, half), -1.0), ("harder", slice(half, None), 1.0)):
            est, draws = float(point[sl].mean()), boot[:, sl].mean(1)
            lo, hi = np.quantile(draws, [0.025, 0.975])
            p_for, p_against = split_p(bootstrap_p(draws), toward * np.sign(est))
            cases.append(Case(f"{kind} {part} half ({len(order[sl])} datasets)", kind, est, lo, hi, p_for,
                              p_against, paper=LRF_PAPER[part]))
    return cases


def claim_h1_predicts_budget(reach: pd.DataFrame) -> dict:
    """'Datasets with smaller H1 need less budget' (Sec. 4.5), Spearman correlation for UCB-E."""
    from scipy.stats import spearmanr

    sub = reach[reach.method == "ucbe"].copy()
    cap = reach.budget_frac.max() if reach.budget_frac.notna().any() else 1.0
    sub["b"] = sub.budget_frac.fillna(cap + 0.05)
    if len(sub) < 4:
        return dict(measured=f"only {len(sub)} datasets")
    rho, p = spearmanr(sub.H1, sub.b)
    text = f"Spearman rho(H1, budget to precision 1) = {rho:.2f}, p = {p:.3f}, {len(sub)} datasets"
    if "kind" not in sub:  # no data kinds to make cases of
        return dict(measured=text)
    cases = []  # one case per data kind (the one rule for data kinds: graded on real, the others shown)
    for kind, g in sub.groupby("kind", sort=True):
        if len(g) >= 4:
            r, pk = spearmanr(g.H1, g.b)
            cases.append(Case(f"{kind}, {len(g)} datasets", kind, float(r), p_for=split_p(pk, r)[0],
                              p_against=split_p(pk, r)[1]))
    text += "; per data kind: " + ", ".join(f"{c.name} rho {c.estimate:.2f} (one-sided p {c.p_for:.3f})"
                                           for c in cases)
    return dict(measured=text, kind="universal", cases=cases)


def fig3_claims(table: pd.DataFrame, reach: pd.DataFrame, gaps: pd.Series | None = None,
                settle: pd.DataFrame | None = None) -> list[Claim]:
    """Headline claims from Figure 3's table and its budget-to-precision-1 table.

    ``gaps``: each dataset's top-2 gap; where it is below eps = 0.01 the runner-up also counts as a
    correct pick, which the rows that rest on that metric say.
    """
    order = table.groupby("dataset").H1.first().sort_values().index.tolist()
    grid_max = float(table.budget_frac.max())
    kinds_used = "/".join(sorted(set(table.kind)))
    ev = f"[{kinds_used}] notebooks/zhou_fig3_summary.ipynb; {len(order)} datasets, grid up to {grid_max:.0%}"
    caveat = ""
    if gaps is not None:
        small = [d for d in order if d in gaps.index and gaps[d] < 0.01]
        caveat = (f"; precision at eps = 0.01 counts the runner-up as correct where the top-2 gap is below 0.01: "
                  f"{len(small)}/{len(order)} datasets" + (f" ({', '.join(small)})" if small else ""))
    claims = []
    for cid, stmt, fn in [
        ("zhou-best-5-15pct", "The best method is identified with only 5-15% of the full evaluation budget (85-95% savings)",
         lambda: claim_best_found_cheaply(reach, grid_max, settle)),
        ("zhou-active-beats-baselines", "UCB-E and UCB-E-LRF need much less budget than Row Mean Imputation, Filled Subset and LRF",
         lambda: claim_active_beats_baselines(reach, settle)),
        ("zhou-lrf-hard-10pct", "UCB-E is better on easy datasets (by 2-3% of budget); UCB-E-LRF saves about 10% of budget on hard ones",
         lambda: claim_lrf_on_hard(reach, settle)),
        ("zhou-h1-hardness", "Datasets with larger H1 need more budget to reach precision 1",
         lambda: claim_h1_predicts_budget(reach)),
    ]:
        r = fn()
        note = caveat if cid in ("zhou-best-5-15pct", "zhou-h1-hardness", "zhou-active-beats-baselines") else ""
        if cid == "zhou-lrf-hard-10pct" and settle is not None and "kind" in r:
            note = ("; cases: per data kind with >= 2 datasets, its easier and its harder half by H1, each the mean "
                    "over the half of UCB-E's minus UCB-E-LRF's mean settling budget, a bootstrap (2,000 resamples of "
                    "the repetitions) interval and one-sided p-values in the statement's direction (UCB-E cheaper on "
                    "the easier half, UCB-E-LRF cheaper on the harder), the paper's -0.025 and +0.10 beside them")
        elif cid == "zhou-lrf-hard-10pct" and settle is not None:
            note = ("; rule: bootstrap (2,000 resamples of the repetitions) of the mean settling budget per method: fails "
                    "if UCB-E-LRF needs significantly more on the harder half, holds if significantly less there and UCB-E "
                    "is not significantly worse on the easier half, partly if UCB-E-LRF is better on both, else inconclusive")
        if cid == "zhou-active-beats-baselines" and settle is not None:
            note += ("; one case per dataset: a bootstrap test of the better active method's mean settling budget "
                     "minus the better baseline's (one-sided p-values from the bootstrap's two-sided one)")
        if cid == "zhou-best-5-15pct" and settle is not None:
            r["measured"] += settled_by(settle, CHEAP_FRAC)
            note += (f"; one case per dataset: the runs of the better of UCB-E/UCB-E-LRF not settled on a correct pick "
                     f"by {CHEAP_FRAC:.0%}, at most {NOT_SETTLED_LIMIT:.0%} (\"identified\" read as at least 90% of the "
                     "runs; the paper's mean precision 1 over 50 runs is all of them, a rate of 0 that no number of "
                     "runs can show), an exact binomial test and interval")
        if cid == "zhou-h1-hardness" and "kind" in r:
            note += ("; one case per data kind with >= 4 datasets: Spearman's rho of H1 and UCB-E's budget to "
                     "precision 1 within the kind, its one-sided p-values")
        if "kind" in r:  # decided by construction (paperlib.decide)
            c = decided(PAPER, cid, stmt, ev + note, r["measured"], r["kind"], r["cases"])
        else:  # without the per-run settling budgets (or data kinds) there is no case to test
            c = decided(PAPER, cid, stmt, ev + note + "; no case: the per-run settling budgets (and the datasets' data "
                        "kinds) are needed to test it; the point reading is shown, not graded", r["measured"],
                        "untestable", ())
        claims.append(not_charged(c, LRF_HARD_REASON) if cid == "zhou-lrf-hard-10pct" else c)
    claims.append(not_charged(claim_ndcg(table), NDCG_REASON))
    strict = None
    if STRICT_METRIC in set(table.metric):
        from .experiments import reach_table
        strict = reach_table(table, STRICT_METRIC, 1.0)
    rm = table[table.method == "row-mean"]
    rm_reps = int(rm.reps.min()) if "reps" in rm and len(rm) else None
    claims.append(claim_uniform_needs_90pct(reach, grid_max, strict, rm_reps, table=table))
    if "alpacaeval2_clean" in order:
        a = reach[reach.dataset == "alpacaeval2_clean"].set_index("method").budget_frac
        claims.append(claim_alpaca(a, grid_max, None if settle is None else settle[settle.dataset == "alpacaeval2_clean"]))
    return claims


def claim_ndcg(table: pd.DataFrame, k: int = 10) -> Claim:
    """Figure 3, ``NDCG@10`` row: the active algorithms rank the top methods better than the baselines (Sec. 4.4).

    Per dataset, the better active method's NDCG@k averaged over the budget grid minus the better
    baseline's, with the mean of the per-budget standard errors as each side's standard error
    (conservative: the budgets share runs); significant beyond 1.96 combined standard errors.
    """
    metric = f"NDCG@{k}"
    sub = table[table.metric == metric]
    g = sub.groupby(["dataset", "method"])
    mean, se = g.value.mean(), g.se.mean().fillna(0.0)
    reps = int(table.reps.min()) if "reps" in table else None
    rows = []
    kinds = sub.groupby("dataset").kind.first()
    enough = reps is not None and reps >= MIN_REPS_NORMAL  # fewer runs: no normal interval is trusted
    for d in sub.dataset.unique():
        act = mean[d].reindex(["ucbe", "ucbe-lrf"]).dropna()
        base = mean[d].reindex(["row-mean", "filled-subset", "lrf"]).dropna()
        if act.empty or base.empty:
            continue
        a, b = act.idxmax(), base.idxmax()
        diff, sd = act[a] - base[b], float(np.hypot(se[d][a], se[d][b]))
        rows.append((d, diff, sd))
    cases = [Case(d, kinds[d], x, x - Z95 * e, x + Z95 * e, *(one_sided_p(x, e) if enough else (1.0, 1.0)))
             for d, x, e in rows]
    kinds_used = "/".join(sorted(set(sub.kind)))
    return decided(PAPER, "zhou-ndcg-active-better",
                   "UCB-E and UCB-E-LRF reach higher NDCG@10 than the baselines: they rank the top methods more correctly (Fig. 3)",
                   f"[{kinds_used}] notebooks/zhou_fig3_summary.ipynb; NDCG@{k} averaged over the budget grid, better active "
                   f"minus better baseline per dataset, {reps} repetitions per method; one case per dataset (the "
                   "figure's claim over its datasets), one-sided normal tests with conservative standard errors (the "
                   "mean of the per-budget ones: the budgets share runs)",
                   f"higher, {_cases_count(cases)}; differences "
                   + ", ".join(f"{d} {x:+.3f} (se {e:.3f})" for d, x, e in rows), "universal", cases)


def _cases_count(cases) -> str:
    """:func:`paperlib.decide.cases_summary` of datasets (or (dataset, setting) pairs)."""
    return cases_summary(cases, "shown", prep="on", sep="; ")


def _uniform_text(need: pd.Series, grid_max: float) -> str:
    hard = need.sort_values(ascending=False)
    return (f"not reached by {grid_max:.0%} on {int((~np.isfinite(need)).sum())}/{len(need)} datasets; hardest: "
            + ", ".join(f"{d} {'>' + format(grid_max, '.0%') if not np.isfinite(v) else format(v, '.0%')}"
                        for d, v in hard.head(3).items()))


def precision1_reading(reps: int | None) -> str:
    """What the budget to precision 1 says with an exact interval (issue 57, item 4): on ``reps`` runs it is the
    budget by which every run has picked right and stays right, so at that budget the Clopper-Pearson one-sided 95%
    lower bound on a run's chance of having settled is 0.05^(1/reps) (k = n = reps); below it, some run had not, and
    the chance of not having settled is above 0 (one unsettled run of ``reps``)."""
    if not reps:
        return "the budget by which every run has settled (its exact reading needs the number of runs)"
    return (f"the budget by which all {reps} runs have settled: there, at 95% confidence (Clopper-Pearson, "
            f"{reps}/{reps}), a run has settled with probability at least {0.05 ** (1 / reps):.2f}; before it, some "
            "run had not")


#: "needs >= 90%": a run still wrong at the grid's last budget below 90% shows it only where that budget is this close
UNIFORM_NEAR = 0.85
#: a dataset contradicts "needs >= 90%" when fewer than this share of Row Mean's runs is shown wrong below 90%
UNIFORM_WRONG_LIMIT = 0.05


def uniform_cases(table: pd.DataFrame, metric: str) -> list[Case]:
    """One case per dataset of "uniform sampling (Row Mean Imputation) needs >= 90% of the pairs": at the grid's
    last budget below 90%, the runs whose pick is wrong (from the mean precision over the runs: wrong = (1 - value) x
    reps). One wrong run there shows it exactly (p_for 0), where that budget is at least UNIFORM_NEAR (a grid that
    stops lower shows nothing); a share of wrong runs shown below UNIFORM_WRONG_LIMIT (the exact binomial test)
    contradicts it."""
    from scipy.stats import binom

    rm = table[(table.method == "row-mean") & (table.metric == metric) & (table.budget_frac < 0.9 - BUDGET_TOL)]
    cases = []
    for d, g in rm.groupby("dataset", sort=True):
        last = g.loc[g.budget_frac.idxmax()]
        n = int(last.reps)
        wrong = int(round((1 - float(last.value)) * n))
        near = float(last.budget_frac) >= UNIFORM_NEAR - BUDGET_TOL
        lo, hi = clopper_pearson(wrong, n)
        cases.append(Case(f"{d} at {float(last.budget_frac):.0%}", str(last.kind), wrong / n, lo, hi,
                          p_for=0.0 if (wrong > 0 and near) else 1.0,
                          p_against=float(binom.cdf(wrong, n, UNIFORM_WRONG_LIMIT))))
    return cases


def claim_uniform_needs_90pct(reach: pd.DataFrame, grid_max: float, strict: pd.DataFrame | None = None,
                              reps: int | None = None, table: pd.DataFrame | None = None) -> Claim:
    """Introduction and Sec. 3: uniform sampling (Row Mean Imputation, Alg. 3) needs >= 90% of the pairs on some datasets
    "to predict the best method correctly".

    ``reach`` is the budget to top-1 precision 1 at eps = 0.01, ``strict`` the same at eps = 0.001. The
    statement is about the best method itself, and eps = 0.01 also counts a runner-up within 0.01 as correct, so
    with ``strict`` the verdict is read at eps = 0.001 and the eps = 0.01 reading is reported beside it.
    Untestable as a 'holds' on a grid that stops below 90%: unreached by the grid maximum is then
    consistent with the claim but does not show it (inconclusive); every dataset reached below 90% fails it.
    """
    stmt = "Uniform sampling needs >= 90% of all pairs on some datasets to predict the best method correctly (Introduction; Sec. 3)"
    rm = reach[reach.method == "row-mean"].set_index("dataset").budget_frac
    if rm.empty:
        return decided(PAPER, "zhou-uniform-90pct", stmt, "[none] row-mean not run", "-", "untestable", ())
    need = rm.fillna(np.inf)
    kinds = "/".join(sorted(set(reach.kind)))
    untested = ("; no case: the strict metric (eps = 0.001) with each dataset's runs and data kind is needed to test "
                "it; the point reading is shown, not graded")
    if strict is None:
        return decided(PAPER, "zhou-uniform-90pct", stmt,
                       f"[{kinds}] Row Mean Imputation (uniform pairs, Alg. 3), budget at which top-1 precision (eps = "
                       f"0.01) reaches 1 and stays; grid up to {grid_max:.0%}{untested}",
                       _uniform_text(need, grid_max), "untestable", ())
    need_s = strict[strict.method == "row-mean"].set_index("dataset").budget_frac.fillna(np.inf)
    if table is not None and "reps" in table and "kind" in table:
        cases = uniform_cases(table, STRICT_METRIC)
        return decided(
            PAPER, "zhou-uniform-90pct", stmt,
            f"[{kinds}] Row Mean Imputation (uniform pairs, Alg. 3), top-1 precision at eps = 0.001 (the best method "
            f"itself: eps = 0.01 also counts a runner-up within 0.01 as correct); grid up to {grid_max:.0%}; one case "
            "per dataset: the runs still wrong at the grid's last budget below 90% (from the mean precision over the "
            f"runs); one wrong run there (a budget of at least {UNIFORM_NEAR:.0%}) shows the need exactly, a share of "
            f"wrong runs shown below {UNIFORM_WRONG_LIMIT:.0%} (exact binomial test) contradicts it at that dataset",
            f"eps = 0.001: {_uniform_text(need_s, grid_max)}; {_cases_count(cases)} || eps = 0.01: "
            f"{_uniform_text(need, grid_max)}", "some", cases)
    return decided(PAPER, "zhou-uniform-90pct", stmt,
                   f"[{kinds}] Row Mean Imputation (uniform pairs, Alg. 3), budget at which top-1 precision reaches 1 "
                   f"and stays; grid up to {grid_max:.0%}{untested}",
                   f"eps = 0.001: {_uniform_text(need_s, grid_max)} || eps = 0.01: {_uniform_text(need, grid_max)}",
                   "untestable", ())


def claim_alpaca(a: pd.Series, grid_max: float, settle: pd.DataFrame | None = None) -> Claim:
    """AlpacaEval (Drop Annotator): precision 1 with 8% of the budget; baselines 80-90%.

    ``a``: budget fraction to precision 1 by method (NaN: not reached within ``grid_max``); ``settle``:
    this dataset's settling budgets, for an exact interval on each active method's P(settled by 8%).
    """
    meas = ", ".join(f"{label(k)} {v:.0%}" if v == v else f"{label(k)} >{grid_max:.0%}" for k, v in a.items())
    if settle is not None and len(settle):
        for meth in ("ucbe", "ucbe-lrf"):
            x = settle[settle.method == meth].settle_frac
            if len(x):
                k = int((x <= ALPACA_FRAC + BUDGET_TOL).sum())
                lo, hi = clopper_pearson(k, len(x))
                meas += f"; {label(meth)} settled by {ALPACA_FRAC:.0%} in {k}/{len(x)} runs (95% CI {lo:.2f}-{hi:.2f})"
    # the second part: the baselines need 80-90%, i.e. the best baseline does not settle before 80% in most runs
    part2 = _baselines_need(a, settle, grid_max)
    base = a.reindex(["row-mean", "filled-subset", "lrf"])
    if settle is not None and len(settle) and not base.dropna().empty \
            and settle.method.isin(["ucbe", "ucbe-lrf"]).any():
        return decided(
            PAPER, "zhou-alpaca-drop-8pct",
            "AlpacaEval (Drop Annotator): precision 1 with 8% of the budget; baselines need 80-90%",
            "[real] AlpacaEval-2 retrievable 55-model subset without judge-gaming rows (not the paper's 153-model "
            f"matrix); two cases, one per part, exact binomial tests and 95% intervals: (1) the runs of the better of "
            f"UCB-E/UCB-E-LRF not settled on a correct pick by {ALPACA_FRAC:.0%}, at most {NOT_SETTLED_LIMIT:.0%} "
            f"(the reading of zhou-best-5-15pct); (2) the runs of the best baseline (Row Mean, Filled Subset, LRF) "
            f"settled before {BASELINE_FRAC:.0%}, at most half; Holm's correction over the two cases. What uniform "
            "sampling needs grows with the number of close rivals, which the 153-model matrix has and our 55-model "
            "subset lacks",
            meas + " || " + part2, "bound", _alpaca_cases(a, settle),
            reason="the second part's baselines run on a 55-model subset with fewer close rivals than the paper's "
                   "153-model matrix, which our data cannot supply")
    return decided(PAPER, "zhou-alpaca-drop-8pct",
                   "AlpacaEval (Drop Annotator): precision 1 with 8% of the budget; baselines need 80-90%",
                   "[real] AlpacaEval-2 retrievable 55-model subset without judge-gaming rows (not the paper's "
                   "153-model matrix); no case: the per-run settling budgets of the active methods and of a baseline "
                   "that reaches precision 1 are needed to test either part; the point reading is shown, not graded",
                   meas + " || " + part2, "untestable", ())


#: the paper's "baselines require 80-90%" read at its lower end
BASELINE_FRAC = 0.8


def _alpaca_cases(a: pd.Series, settle: pd.DataFrame) -> list[Case]:
    """The two parts of zhou-alpaca-drop-8pct as two bounds on rates (:func:`paperlib.decide.rate_case`)."""
    first = settled_cases(settle, pd.DataFrame({"dataset": settle.dataset.unique(), "kind": "real"}), ALPACA_FRAC)
    best = a.reindex(["row-mean", "filled-subset", "lrf"]).idxmin()
    x = settle[settle.method == best].settle_frac
    k = int((x < BASELINE_FRAC - BUDGET_TOL).sum())
    second = rate_case(f"{label(best)} settled before {BASELINE_FRAC:.0%}", "real", k, len(x), 0.5)
    return [replace(first[0], name=f"(1) {first[0].name} unsettled by {ALPACA_FRAC:.0%}"),
            replace(second, name=f"(2) {second.name}")]


def _baselines_need(a: pd.Series, settle: pd.DataFrame | None, grid_max: float) -> str:
    """The measurement of "the baselines need 80-90%" in words: each baseline's budget to precision 1 and, with the
    per-run budgets, the best baseline's runs settled before BASELINE_FRAC (its case is :func:`_alpaca_cases`')."""
    base = a.reindex(["row-mean", "filled-subset", "lrf"])
    text = "budget to precision 1: " + ", ".join(f"{label(k)} {v:.0%}" if v == v else f"{label(k)} >{grid_max:.0%}"
                                                for k, v in base.items())
    if settle is None or not len(settle) or base.dropna().empty:
        return text + " (no interval: no per-run budgets)"
    best = base.idxmin()
    x = settle[settle.method == best].settle_frac
    k = int((x < BASELINE_FRAC - BUDGET_TOL).sum())
    lo, hi = clopper_pearson(k, len(x))
    return text + (f"; {label(best)} settled before {BASELINE_FRAC:.0%} in {k}/{len(x)} runs "
                   f"(95% CI {lo:.2f}-{hi:.2f})")


def dataset_claims(t2: pd.DataFrame, t3: pd.DataFrame) -> list[Claim]:
    """Table 2 (untestable: the matrices are not public) and Table 3 / Figure 6 (low-rankness)."""
    kinds = "/".join(sorted(set(t2.kind)))
    real = t3[t3.kind == "real"]
    sel = real if len(real) else t3
    r = LOW_RANK_RANK
    share = sel[f"rank {r}"]
    resid = f"rank {r} residual" in sel  # tables before issue 57 hold only the row-shuffled null
    test, null = (sel[f"rank {r} residual"], sel[f"rank {r} residual null"]) if resid else (share, sel[f"rank {r} null"])
    above = test > null
    # every matrix's test and null, one case each (paperlib.decide grades the real ones, the others shown beside)
    tt, nn = ((t3[f"rank {r} residual"], t3[f"rank {r} residual null"]) if resid else (t3[f"rank {r}"], t3[f"rank {r} null"]))
    null_text = (f"the share of the doubly centred matrix (row and column means removed: what they leave unexplained) "
                 f"in its top {r} components, against the largest over {NULL_SHUFFLES} permutations of that residual's "
                 "entries over the whole matrix, centred again (a null that keeps the row and column means; a row "
                 "shuffle would also destroy how questions differ in difficulty, and any matrix with easy and hard "
                 "questions beats it)" if resid else
                 f"each share against the largest over {NULL_SHUFFLES} copies of the matrix with each model's row "
                 "shuffled (same means and scores, no example correlations)")
    return [
        decided(PAPER, "zhou-low-rank", "Score matrices are well approximated by low-rank matrices (Table 3, Figure 6)",
              f"[{kinds}] notebooks/zhou_datasets.ipynb, Table 3: share of squared Frobenius norm in the top "
              f"{r} singular values (the SVD of each fixed matrix); the paper states no threshold, so the test is "
              f"{null_text}: an exact permutation test at p = {1 / (NULL_SHUFFLES + 1):.2g} per matrix, one case each (the smallest "
              f"p-value of {NULL_SHUFFLES} permutations is {1 / (NULL_SHUFFLES + 1):.2g}, so more permutations would be "
              "needed to show it on one matrix of several after Holm; a permutation test cannot show that a matrix is "
              "not low-rank, so no case contradicts it)",
              f"rank-1 share {t3['rank 1'].min():.2f}-{t3['rank 1'].max():.2f}; rank-{r} share on "
              f"{'real' if len(real) else 'all'} matrices {share.min():.2f}-{share.max():.2f}"
              + (f"; beyond the row and column means, rank-{r} share {test.min():.2f}-{test.max():.2f} against "
                 f"{null.min():.2f}-{null.max():.2f} permuted" if resid else
                 f" against {null.min():.2f}-{null.max():.2f} shuffled")
              + f"; above the null on {int(above.sum())}/{len(above)}",
              "universal", [Case(str(d), k, float(t), p_for=1 / (NULL_SHUFFLES + 1) if a else 1.0)
                            for d, k, t, a in zip(t3.dataset if "dataset" in t3 else t3.index, t3.kind, tt, tt > nn,
                                                  strict=True)],
              ),
        decided(PAPER, "zhou-table2-matrices", "Table 2: the six score matrices (AlpacaEval 154x805 H1=966, ..., GSM8K Prompts 205x784 H1=107445)",
                "[none] the paper's matrices were never published and are not retrievable; one case per matrix of "
                "Table 2 sets the paper's H1 beside our stand-in's from the same benchmark where we have one "
                "(another model list and size, so a deviation says how our stand-in differs, not an error)",
                f"our stand-ins span H1 {t2.H1.min():.3g} to {t2.H1.max():.3g}; "
                + "; ".join(f"{k.name}: {k.estimate:.4g}" for k in table2_cases(t2) if k.estimate == k.estimate),
                "untestable", table2_cases(t2)),
    ]


#: Table 2 of the paper: (matrix, n x m, H1) and the stand-in of ours from the same benchmark (None where we have
#: none: the GSM8K and PIQA prompt matrices and PIQA's models were never published)
TABLE2 = (("AlpacaEval", "154x805", 966.0, "alpacaeval2"),
          ("AlpacaEval (Drop Annotator)", "153x805", 4462.0, "alpacaeval2_clean"),
          ("GSM8K Prompts", "205x784", 107445.0, None),
          ("GSM8K Models", "122x1000", 20562.0, "sysrs_gsm"),
          ("PIQA Prompts", "177x1546", 66284.0, None),
          ("PIQA Models", "103x1000", 10273.0, None))


def table2_cases(t2: pd.DataFrame) -> list[Case]:
    """One case per matrix of the paper's Table 2 with its H1 (Corollary 1: the sum over non-best rows of 1 / gap^2) as
    the paper's number and, as ours, the H1 of our stand-in from the same benchmark (AlpacaEval 2 with the GPT-4
    Turbo judge for AlpacaEval; its judge-gaming rows dropped for the drop-annotator set, which like the paper's
    removes the clear winner; HELM Lite's GSM8K models for GSM8K Models), NaN where we have none. No test: the row is
    untestable (another model list), the cases only set the numbers side by side."""
    h1 = dict(zip(t2.dataset.astype(str), t2.H1.astype(float), strict=True)) if "dataset" in t2 else {}
    shape = ({str(d): f"{int(n)}x{int(m)}" for d, n, m in zip(t2.dataset, t2.n, t2.m, strict=True)}
             if {"dataset", "n", "m"} <= set(t2.columns) else {})
    out = []
    for name, size, paper, ours in TABLE2:
        have = ours is not None and ours in h1
        what = f"ours: {ours} {shape.get(ours, '')}".rstrip() if have else "no stand-in"
        out.append(Case(f"{name} {size} ({what})", "real", h1[ours] if have else float("nan"), paper=paper))
    return out


def _mean_se(abl: pd.DataFrame, metric: str) -> tuple[pd.Series, pd.Series]:
    """Each (dataset, factor, setting)'s mean over the budget grid, with the mean of its per-budget
    standard errors as its standard error (conservative: the budgets share runs)."""
    abl = abl.assign(se=abl["se"] if "se" in abl else np.nan)
    g = abl[abl.metric == metric].groupby(["dataset", "factor", "setting"])
    return g.value.mean(), g.se.mean().fillna(0.0)


def _setting_diff(mean: pd.Series, se: pd.Series, d: str, f: str, a, b) -> tuple[float, float]:
    """Setting ``a`` minus setting ``b`` of factor ``f`` on dataset ``d`` (from :func:`_mean_se`), and its
    standard error (root sum of squares)."""
    da, db = mean.get((d, f, str(a)), np.nan), mean.get((d, f, str(b)), np.nan)
    return float(da - db), float(np.hypot(se.get((d, f, str(a)), 0.0), se.get((d, f, str(b)), 0.0)))


def ablation_claims(abl: pd.DataFrame, names: list[str], hard: str, kinds: str, metric: str,
                    reps: int | None = None, data_kinds: dict | None = None) -> list[Claim]:
    """Figure 4: Score Only vs UCB-E-LRF on the hardest dataset; robustness to eta, batch size, warm-up,
    ensemble size and rank; the time cost of small batches. ``reps``: repetitions per setting; ``data_kinds``: each
    dataset's data kind (else ``kinds`` for all, where it is one)."""
    mean, se = _mean_se(abl, metric)
    ev = (f"[{kinds}] notebooks/zhou_fig4_ablations.ipynb; mean top-1 precision (eps=0.01) over the ablation grid, "
          f"{reps if reps else 'unknown'} repetitions per setting; standard error = mean of the per-budget ones; no "
          f"verdict but inconclusive with fewer than {MIN_REPS_NORMAL} repetitions")

    def diff(d, f, a, b):
        return _setting_diff(mean, se, d, f, a, b)

    enough = reps is not None and reps >= MIN_REPS_NORMAL

    def kind_of(d):
        return (data_kinds or {}).get(d, data_kind(kinds))

    so, so_se = diff(hard, "variant", "UCB-E-LRF", "Score Only")
    so_case = diff_case(f"{hard}: UCB-E-LRF minus Score Only", kind_of(hard), so, so_se, enough)
    claims = [decided(PAPER, "zhou-ablation-score-only", "On the hard dataset UCB-E-LRF (Score Only) is clearly worse than UCB-E-LRF: R is crucial",
                      ev + f"; hard dataset {hard}; one case: UCB-E-LRF minus Score Only, one-sided normal tests in both "
                      f"directions (a difference of {SCORE_ONLY_GAP} or more reads as 'clearly', said beside it)",
                      f"UCB-E-LRF minus Score Only: {so:+.2f} (se {so_se:.2f}; "
                      f"{'at least' if so >= SCORE_ONLY_GAP else 'below'} {SCORE_ONLY_GAP})",
                      "comparison", [so_case])]
    similar, drastic = EQUIVALENCE_MARGINS[PAPER]

    def pair_cases(factor, keep, within):
        out = []
        for d in names:
            have = [str(k) for k in keep if (d, factor, str(k)) in mean.index]
            out += [equivalence_case(f"{d}: {factor} {a} vs {b}", kind_of(d), *diff(d, factor, a, b), within, drastic,
                                     valid=enough) for i, a in enumerate(have) for b in have[i + 1:]]
        return out

    def worst(cases):
        c = max(cases, key=lambda c: abs(c.estimate)) if cases else None
        return "-" if c is None else f"{c.name} {c.estimate:+.2f} (95% interval {c.lo:+.2f} to {c.hi:+.2f})"

    margin_text = (f"the paper's margins (paperlib.decide.EQUIVALENCE_MARGINS): similar within +-{similar:g}, drastic "
                   f"beyond +-{drastic:g}; no case shows anything with fewer than {MIN_REPS_NORMAL} repetitions")
    eta = pair_cases("eta", [0.1, 0.5, 1, 5], similar)
    claims.append(decided(PAPER, "zhou-ablation-eta", "eta from 0.1 to 5 gives similar performance",
                          ev + f"; one case per (dataset, pair of eta values): the difference of their means, shown "
                          f"similar by two one-sided tests within +-{similar:g}, contradicted beyond +-{drastic:g}; "
                          + margin_text,
                          cases_summary(eta, "similar", "in", " pairs") + f"; largest difference: {worst(eta)}",
                          "equivalence", eta))
    sizes = sorted({str(v) for (_, f, v) in mean.index if f == "batch_size"}, key=float)
    bs = pair_cases("batch_size", sizes, drastic)
    claims.append(decided(PAPER, "zhou-ablation-batch", "Performance does not vary drastically with the batch size",
                          ev + "; one case per (dataset, pair of batch sizes): the difference of their means, shown not "
                          f"drastic by two one-sided tests within +-{drastic:g}, contradicted beyond +-{drastic:g}; "
                          + margin_text,
                          cases_summary(bs, "not drastic", "in", " pairs") + f"; largest difference: {worst(bs)}",
                          "equivalence", bs))
    claims += _ensemble_rank_time_claims(abl, names, hard, ev, metric, reps, kind_of)
    gaps = []
    for d in names:
        settings = [v for (dd, f, v) in mean.index if dd == d and f == "warmup_frac"]
        if "0.05" in settings:
            best = max(settings, key=lambda v: mean[(d, "warmup_frac", v)])
            gaps.append((d, best, *diff(d, "warmup_frac", best, "0.05")))
    warm = [diff_case(f"{d}: best ({b}) minus 5%", kind_of(d), g, e, enough, limit=WARMUP_NEAR_BEST, toward=-1)
            for d, b, g, e in gaps]
    # "generally": on most datasets, not on every one (the paper itself names AlpacaEval, where a smaller warm-up
    # does as well): one case per data kind, the share of datasets where 5% is within WARMUP_NEAR_BEST of the best
    share_cases = [share_case(f"{k} datasets where 5% is near the best", k, [c.p_for for c in cs],
                              [c.p_against for c in cs], WARMUP_SHARE,
                              estimate=float(np.mean([c.estimate <= WARMUP_NEAR_BEST for c in cs])))
                   for k in DATA_KINDS if (cs := [c for c in warm if c.data == k])]
    claims.append(decided(PAPER, "zhou-ablation-warmup", "A 5% warm-up is a generally strong choice",
                          ev + f"; 'generally' read as on at least {WARMUP_SHARE:.0%} of the datasets (the paper names "
                          "AlpacaEval as doing as well with a smaller warm-up): per dataset, the best warm-up's mean "
                          f"minus 5%'s, shown below {WARMUP_NEAR_BEST} (5% within {WARMUP_NEAR_BEST} of the best) or "
                          "above it by one-sided normal tests; one case per data kind, the share of its datasets shown "
                          "after Holm over them (paperlib.decide.share_case)",
                          f"within {WARMUP_NEAR_BEST} of the best, {_cases_count(warm)}; best warm-up minus 5%: "
                          + (", ".join(f"{d} (best {b}) {g:+.2f} (se {e:.2f})" for d, b, g, e in gaps) or "-"),
                          "bound", share_cases))
    claims.append(_smallest_batch_claim(mean, se, hard, ev, reps, kind_of(hard)))
    claims.append(_warmup_extremes_claim(abl, names, ev, metric, reps, kind_of))
    return claims


SMALLEST_BATCH = ("the smallest batch size gives the best performance, especially on harder datasets, whereas b = 128 "
                  "significantly degrades it")
#: Sec. 4.5's late budgets: "fall behind ... as more data are evaluated" is read from this budget fraction on.
LATE_BUDGET = 0.2


def _smallest_batch_claim(mean: pd.Series, se: pd.Series, hard: str, ev: str, reps: int | None,
                          data: str = "none") -> Claim:
    """Sec. 4.5: 'smallest batch size gives the best performance especially on harder datasets whereas a batch size
    of 128 significantly degrades the performance', on the hard dataset: one case per larger batch size (the smallest
    minus it, shown above 0) and one for b = 128 against the best smaller one (shown below 0); one-sided normal tests
    in both directions, the universal rule."""
    bs = sorted({v for (d, f, v) in mean.index if d == hard and f == "batch_size"}, key=float)
    if len(bs) < 2 or "128" not in bs:
        return decided(PAPER, "zhou-ablation-smallest-batch-best", SMALLEST_BATCH,
                       "[none] the profile's ablation has no batch sizes up to 128 on the hard dataset", "-",
                       "untestable", (), title="Smallest batch best, b = 128 degrades (Sec. 4.5)")
    enough = reps is not None and reps >= MIN_REPS_NORMAL
    small, rest = bs[0], [b for b in bs if b != "128"]
    above = [(b, *_setting_diff(mean, se, hard, "batch_size", small, b)) for b in bs[1:]]
    best = max(rest, key=lambda b: mean[(hard, "batch_size", b)])
    d128, e128 = _setting_diff(mean, se, hard, "batch_size", "128", best)
    similar = EQUIVALENCE_MARGINS[PAPER][0]

    def best_case(b, d, e):  # "b = small is the best": not worse than b by the paper's similar margin, never beaten
        p_for = one_sided_p(d, e, -similar)[0] if enough else 1.0
        p_against = one_sided_p(d, e, 0.0)[1] if enough else 1.0
        return Case(f"{hard}: b = {small} minus b = {b}", data, d, d - Z95 * e, d + Z95 * e, p_for, p_against)

    cases = [best_case(b, d, e) for b, d, e in above]
    cases.append(diff_case(f"{hard}: b = 128 minus b = {best}", data, d128, e128, enough, toward=-1))
    return decided(
        PAPER, "zhou-ablation-smallest-batch-best", SMALLEST_BATCH,
        ev + f"; hard dataset {hard}; one case per larger batch size, b = {small} minus it, shown best when not below "
        f"-{similar:g} (non-inferiority at the paper's similar margin, paperlib.decide.EQUIVALENCE_MARGINS) and "
        "contradicted when significantly below 0; and one for b = 128 minus the best smaller one, shown below 0; "
        "one-sided normal tests",
        f"{_cases_count(cases)}; b = {small} minus: " + ", ".join(f"b = {b} {d:+.2f} (se {e:.2f})" for b, d, e in above)
        + f"; b = 128 minus the best smaller (b = {best}): {d128:+.2f} (se {e128:.2f})",
        "universal", cases, title="Smallest batch best, b = 128 degrades (Sec. 4.5)")


def _warmup_extremes_claim(abl: pd.DataFrame, names: list[str], ev: str, metric: str, reps: int | None,
                           kind_of=lambda d: "none") -> Claim:
    """Sec. 4.5: 'a very small warm-up budget with 0.5% of data ... fall[s] behind compared to larger warm-up budget as
    more data are evaluated ... a very large warm-up budget of 10% ... achieves suboptimal performance'. Two cases per
    dataset: 0.5% minus the best larger warm-up at the budgets from :data:`LATE_BUDGET` on, and 10% minus the best
    other warm-up over the whole grid, each shown below 0 by a one-sided normal test (the universal rule)."""
    late_mean, late_se = _mean_se(abl[abl.budget_frac >= LATE_BUDGET - BUDGET_TOL], metric)
    mean, se = _mean_se(abl, metric)
    enough = reps is not None and reps >= MIN_REPS_NORMAL
    cases, text = [], []
    for d in names:
        ws = sorted({v for (dd, f, v) in mean.index if dd == d and f == "warmup_frac"}, key=float)
        if not {"0.005", "0.1"} <= set(ws):
            continue
        larger = [w for w in ws if float(w) > 0.005]
        lbest = max(larger, key=lambda w: late_mean.get((d, "warmup_frac", w), -np.inf))
        ds, es = _setting_diff(late_mean, late_se, d, "warmup_frac", "0.005", lbest)
        best = max([w for w in ws if w != "0.1"], key=lambda w: mean[(d, "warmup_frac", w)])
        dl, el = _setting_diff(mean, se, d, "warmup_frac", "0.1", best)
        cases += [diff_case(f"{d}: 0.5% minus {float(lbest):.1%} late", kind_of(d), ds, es, enough, toward=-1),
                  diff_case(f"{d}: 10% minus {float(best):.1%}", kind_of(d), dl, el, enough, toward=-1)]
        late = (f"0.5% minus {float(lbest):.1%} at budgets >= {LATE_BUDGET:.0%} {ds:+.2f} (se {es:.2f})" if np.isfinite(ds)
                else f"0.5% at budgets >= {LATE_BUDGET:.0%}: no such budget in this profile's grid (not shown)")
        text.append(f"{d}: {late}; 10% minus {float(best):.1%} {dl:+.2f} (se {el:.2f})")
    return decided(
        PAPER, "zhou-ablation-warmup-extremes",
        "a 0.5% warm-up falls behind larger warm-ups as more data are evaluated, and a 10% warm-up is suboptimal",
        ev + f"; two cases per dataset: 0.5% minus the best larger warm-up at budgets >= {LATE_BUDGET:.0%}, and 10% "
        "minus the best other warm-up over the grid, each shown below 0 by a one-sided normal test (the paper itself "
        "notes that AlpacaEval reaches the same with a smaller warm-up)",
        f"below, {_cases_count(cases)}; " + ("; ".join(text) or "-"), "universal", cases,
        title="Warm-up extremes (Sec. 4.5)")


def cost_claims(cost: pd.DataFrame, easy: str, hard: str, reach: pd.DataFrame | None = None,
                settle: pd.DataFrame | None = None) -> list[Claim]:
    """Figure 1: the paper's two cost totals (untestable) and the savings under a per-call cost model.

    With ``reach`` (every dataset's budget to precision 1), the savings row is graded as zhou-best-5-15pct grades the
    same abstract claim (85-95% savings), on every dataset (issue 57: one statement, one grade); with ``settle`` too
    (the per-run settling budgets), decided by construction on that row's cases (:func:`settled_cases`, a bound per
    dataset); without ``reach``, on the AlpacaEval panel alone."""
    best_easy = cost[cost.dataset == easy].budget_frac.min()
    best_hard = cost[cost.dataset == hard].budget_frac.min()
    shown = (f"savings {1 - best_easy:.0%} on {easy}; "
             f"{('n/a' if best_hard != best_hard else format(1 - best_hard, '.0%'))} on {hard} (a stand-in)")
    same = (claim_best_found_cheaply(reach, float(reach.budget_frac.max()),
                                     settle if settle is not None and len(settle) else None)
            if reach is not None and len(reach) else None)
    if same is not None and "kind" in same:  # with the per-run settling budgets: that row's cases
        savings = decided(
            PAPER, "zhou-fig1-savings", "UCB-E / UCB-E-LRF cut the cost of finding the best method by 85-95%",
            f"[real] notebooks/zhou_fig1_cost.ipynb; per-call cost model on {easy} and {hard}; the figure's two panels "
            "are two datasets of the same abstract claim that zhou-best-5-15pct grades, so this row has that row's "
            f"cases: one per dataset, the runs of the better of UCB-E/UCB-E-LRF not settled on a correct pick by "
            f"{CHEAP_FRAC:.0%} (a saving of at least {1 - CHEAP_FRAC:.0%}), at most {NOT_SETTLED_LIMIT:.0%}, an exact "
            "binomial test and interval",
            f"Figure 1's panels: {shown}; as zhou-best-5-15pct: {same['measured']}", same["kind"], same["cases"])
    else:  # without the per-run settling budgets: the cost model's point reading, shown and not graded
        savings = decided(
            PAPER, "zhou-fig1-savings", "UCB-E / UCB-E-LRF cut the cost of finding the best method by 85-95%",
            f"[real] notebooks/zhou_fig1_cost.ipynb; per-call cost model on {easy} and {hard}; no case: the per-run "
            "settling budgets that zhou-best-5-15pct's cases are made of are needed to test it; the point reading "
            "is shown, not graded",
            shown + (f"; as zhou-best-5-15pct reads it: {same['measured']}" if same is not None else ""),
            "untestable", ())
    return [
        decided(PAPER, "zhou-fig1-alpaca-800usd", "Full evaluation of 153 AlpacaEval models costs almost 800 USD",
                "[none] needs May-2024 prices and the 153-model list; neither is in the paper", "-", "untestable", ()),
        decided(PAPER, "zhou-fig1-gsm-78h", "Evaluating 205 prompts on 784 GSM8K questions with Mistral-7B takes 78 A6000 GPU-hours",
                "[none] needs the prompts and the GPU; implies 78*3600/(205*784) = 1.75 s per pair", "-", "untestable", ()),
        savings,
    ]


def corollary1_claims(res: pd.DataFrame, vac: pd.DataFrame, shape: tuple[int, int], reps: int,
                      paper_vac: pd.DataFrame | None = None) -> list[Claim]:
    """Corollary 1: measured success vs the bound where it is informative; where it is vacuous.

    ``vac`` / ``paper_vac``: :func:`.theory.vacuity_table` of our datasets / of the paper's Table 2.
    The second row is a statement of ours (a ``paperlib`` row) that the first needs: the bound is informative
    (positive) at some T <= n x m on evaluation matrices. Exact arithmetic on n, m and H1 answers it: ``holds`` if
    informative on every matrix (ours and the paper's Table 2), ``partly`` if on some, ``fails`` if on none (issue
    57: the row answers its own question, so it is graded, not ``untestable``).
    """
    n, m = shape
    informative = res[res.bound > 0]  # a vacuous bound (<= 0) tests nothing
    lo = informative.success.min() if len(informative) else float("nan")
    hi = informative.success.max() if len(informative) else float("nan")
    both = pd.concat([vac, paper_vac]) if paper_vac is not None else vac
    vacuous_all = (both.ratio > 1).all()
    measured = (f"{'vacuous' if vacuous_all else 'informative somewhere'}: bound <= 0 for all T <= n*m on "
                f"{(vac.ratio > 1).sum()}/{len(vac)} of our datasets (T_informative / nm from {vac.ratio.min():.2g} "
                f"to {vac.ratio.max():.2g})")
    if paper_vac is not None:
        measured += (f" and on {(paper_vac.ratio > 1).sum()}/{len(paper_vac)} of the paper's Table 2 matrices "
                     f"({paper_vac.ratio.min():.2g}x to {paper_vac.ratio.max():.3g}x the full matrix)")
    bound_cases = [rate_case(f"T = {int(r.budget)}", data_kind(getattr(r, "kind", "synthetic")), round((1 - r.success) * r.reps), int(r.reps),
                             1 - r.bound) for r in informative.itertuples()]
    below = [c.p_against for c in bound_cases]
    fails = int(holm_reject(below).sum()) if below else 0
    vac_cases = [exact_case(str(r.dataset), data_kind(getattr(r, "kind", "none")), r.ratio <= 1, r.ratio)
                 for r in vac.itertuples()]
    if paper_vac is not None:  # the paper's own real matrices, from the (n, m, H1) of its Table 2
        vac_cases += [exact_case(f"paper Table 2: {r.dataset}", "real", r.ratio <= 1, r.ratio)
                      for r in paper_vac.itertuples()]
    return [
        decided(PAPER, "zhou-corollary1-bound", "Corollary 1: P(correct) >= 1 - 2Tn exp(-(T-n)/(18 H1)) with a = 25/36 (T-n)/H1",
                f"[synthetic] notebooks/zhou_corollary1.ipynb; {n}x{m} Bernoulli instance, {reps} repetitions per budget; "
                "one case per budget where the bound is positive: the failure rate against 1 - bound, exact binomial "
                "tests and interval (paperlib.decide.rate_case); budgets where it is vacuous test nothing",
                f"{len(informative)} informative budgets, {fails} significantly below the bound (exact binomial "
                f"tests, Holm over the budgets); success {lo:.3f}-{hi:.3f}",
                "theorem", bound_cases),
        decided(PAPERLIB_SETTINGS, "zhou-corollary1-vacuous",
                "Corollary 1 on evaluation matrices: its bound is informative (positive) at some budget T <= n x m",
                f"[{'/'.join(sorted(set(vac.kind)))}] smallest T with a positive bound vs n x m for every dataset of the "
                "profile (exact arithmetic on n, m and H1, no interval), one exact case per matrix"
                + ("; [real] the same from the (n, m, H1) of the paper's Table 2" if paper_vac is not None else ""),
                measured, "exact", vac_cases),
    ]



def kinds_of(table: pd.DataFrame) -> str:
    """The data kinds of a table's rows, as the evidence tag writes them ('real', 'real/synthetic')."""
    return "/".join(sorted(set(table.kind))) if "kind" in table else "unknown"


def diff_case(name: str, data: str, d: float, se: float, enough: bool, limit: float = 0.0, toward: int = 1) -> Case:
    """A case of "the difference ``d`` lies above ``limit``" (``toward`` = 1; below it for -1), with a normal 95%
    interval from its standard error ``se``: the one-sided normal p-values in both directions
    (:func:`paperlib.decide.one_sided_p`). Not ``enough`` repetitions behind the normal approximation (fewer than
    :data:`MIN_REPS_NORMAL`): a case that shows nothing either way."""
    above, below = one_sided_p(d, se, limit) if enough else (1.0, 1.0)
    p_for, p_against = (above, below) if toward > 0 else (below, above)
    return Case(name, data, d, d - Z95 * se, d + Z95 * se, p_for=p_for, p_against=p_against)


def _significant(d: float, se: float, reps: int | None) -> int:
    """+1 / -1 if the difference ``d`` is significantly positive / negative (normal 95%), else 0.

    0 whenever fewer than ``MIN_REPS_NORMAL`` repetitions stand behind it (or their number is unknown).
    """
    if reps is None or reps < MIN_REPS_NORMAL or not np.isfinite(d):
        return 0
    if d > Z95 * se:
        return 1
    return -1 if d < -Z95 * se else 0


def _ensemble_rank_time_claims(abl: pd.DataFrame, names: list[str], hard: str, ev: str, metric: str,
                               reps: int | None, kind_of=lambda d: "none") -> list[Claim]:
    """Figure 4's ensemble-size and rank ablations and the batch-size cost claim (Sec. 4.5).

    Each setting's mean top-1 precision over the budget grid carries the mean of its per-budget
    standard errors as its standard error (conservative: the budgets share runs). The ensemble row's two parts are
    cases of one universal statement: K = 64 minus K = 4 on the hard dataset (shown above 0), and K = 256 against
    K = 64 on every dataset (an equivalence case at the paper's margins).
    """
    abl = abl.assign(wall_s=abl["wall_s"] if "wall_s" in abl else np.nan)
    mean, se = _mean_se(abl, metric)
    reps_note = ev + "; a difference is significant beyond 1.96 combined standard errors"
    enough = reps is not None and reps >= MIN_REPS_NORMAL
    similar, drastic = EQUIVALENCE_MARGINS[PAPER]

    def cmp(d, f, a, b):
        dd, sd = _setting_diff(mean, se, d, f, a, b)
        return dd, sd, _significant(dd, sd, reps)

    out = []
    small = cmp(hard, "ensemble", 64, 4)
    robust = [cmp(d, "ensemble", 256, 64) for d in names]
    text = (f"hard dataset {hard}: K=64 minus K=4 = {small[0]:+.2f} (se {small[1]:.2f}); K=256 minus K=64: "
            + ", ".join(f"{d} {r[0]:+.2f} (se {r[1]:.2f})" for d, r in zip(names, robust, strict=True)))
    ens = [diff_case(f"{hard}: K=64 minus K=4", kind_of(hard), small[0], small[1], enough)]
    ens += [equivalence_case(f"{d}: K=256 vs K=64", kind_of(d), r[0], r[1], similar, drastic, valid=enough)
            for d, r in zip(names, robust, strict=True)]
    out.append(decided(PAPER, "zhou-ablation-ensemble",
                       "Very small ensembles are suboptimal on hard datasets; performance is robust to K as long as K >= 64",
                       reps_note + "; cases of the two parts: K = 64 minus K = 4 on the hard dataset (one-sided normal "
                       "tests, shown above 0), and K = 256 against K = 64 on every dataset (two one-sided tests within "
                       f"+-{similar:g}, contradicted beyond +-{drastic:g}: the paper's margins, "
                       "paperlib.decide.EQUIVALENCE_MARGINS)",
                       f"{_cases_count(ens)}; {text}", "universal", ens))
    diffs = [(d, r, cmp(d, "rank", 1, r)) for d in names for r in (2, 5)]
    kinds = abl.groupby("dataset").kind.first() if "kind" in abl else {}
    cases = [Case(f"{d} r={r}", data_kind(kinds.get(d, "none")) if hasattr(kinds, "get") else "none", c[0], c[0] - Z95 * c[1],
                  c[0] + Z95 * c[1], *(one_sided_p(c[0], c[1]) if enough else (1.0, 1.0))) for d, r, c in diffs]
    out.append(decided(PAPER, "zhou-ablation-rank", "Rank r = 1 is consistently better than r = 2 and r = 5",
                       reps_note + "; one case per (dataset, r): r = 1 minus r, one-sided normal tests",
                       f"r = 1 better, {_cases_count(cases)}; r=1 minus r: "
                       + ", ".join(f"{d} r={r}: {c[0]:+.2f} (se {c[1]:.2f})" for d, r, c in diffs), "universal", cases))
    out.append(batch_time_claim(abl, names))
    return out


def _time_ratio_draws(wall: pd.DataFrame, draws: int = TIME_BOOTSTRAP, seed: int = 0):
    """(ratio of the mean wall times at b = 2 and b = 32, its bootstrap draws or None with fewer than two runs of
    either size); NaN ratio without runs of both sizes. See :func:`batch_time_ratio`."""
    t2 = wall.loc[wall.setting == "2", "wall_s"].to_numpy(dtype=float)
    t32 = wall.loc[wall.setting == "32", "wall_s"].to_numpy(dtype=float)
    if not (t2.size and t32.size):
        return np.nan, None
    ratio = float(t2.mean() / t32.mean())
    if min(t2.size, t32.size) < 2:
        return ratio, None
    rng = np.random.default_rng(seed)
    return ratio, (t2[rng.integers(t2.size, size=(draws, t2.size))].mean(1)
                   / t32[rng.integers(t32.size, size=(draws, t32.size))].mean(1))


def batch_time_ratio(wall: pd.DataFrame, draws: int = TIME_BOOTSTRAP, seed: int = 0,
                     alpha: float = 0.05) -> tuple[float, float, float]:
    """Ratio of the mean wall times at b = 2 and b = 32 on one dataset, with a (1 - alpha) percentile bootstrap
    interval over the timed runs (each batch size's runs resampled apart; the methods page's convention for a mean
    over runs).

    ``wall``: one row per timed run, columns ``setting`` ("2" or "32") and ``wall_s``. Returns (ratio, lo, hi); the
    interval is NaN with fewer than two runs of either size (one timing shows nothing of its spread).
    """
    ratio, boot = _time_ratio_draws(wall, draws, seed)
    if boot is None:
        return ratio, np.nan, np.nan
    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    return ratio, float(lo), float(hi)


def ratio_band_case(name: str, data: str, ratio: float, draws, lo_ok: float, hi_ok: float) -> Case:
    """A case of "the ratio lies within [lo_ok, hi_ok]" from bootstrap draws of it: ``p_for`` the two one-sided tests
    (the larger share of draws at or beyond either end), ``p_against`` the test of lying outside, either side (twice
    the smaller share of draws on the band's side of either end), each at least 1 / draws; the estimate with its 95%
    percentile interval. Without draws (fewer than two timed runs of a setting) a case that shows nothing."""
    if draws is None:
        return Case(name, data, ratio)
    x = np.asarray(draws, dtype=float)
    floor = 1.0 / x.size
    p_for = max(floor, float(max((x <= lo_ok).mean(), (x >= hi_ok).mean())))
    p_against = min(1.0, max(floor, 2 * float(min((x >= lo_ok).mean(), (x <= hi_ok).mean()))))
    lo, hi = np.quantile(x, [0.025, 0.975])
    return Case(name, data, ratio, lo, hi, p_for=p_for, p_against=p_against, paper=BATCH_TIME_RATIO)


def batch_time_claim(abl: pd.DataFrame, names: list[str]) -> Claim:
    """Sec. 4.5: "with b = 2, UCB-E-LRF takes almost 16 times as much time as with b = 32", from the dedicated timing
    runs (factor ``batch_time``, :func:`.experiments.run_batch_timing`): one case per dataset, the ratio of mean wall
    times with its bootstrap draws (:func:`_time_ratio_draws`), shown within a factor 2 of 16 or contradicted outside
    it (:func:`ratio_band_case`); the universal rule over the datasets. Without timing runs (only the batch-size
    ablation's own runs, at the profile's refit schedule, or one timing per setting) its cases show nothing.
    """
    timed = abl[abl.factor == "batch_time"]
    timed = timed.assign(setting=timed.setting.astype(str), run=timed["run"] if "run" in timed else 0)
    runs = timed.groupby(["dataset", "setting", "run"], as_index=False).wall_s.first()
    kinds = abl.groupby("dataset").kind.first() if "kind" in abl else pd.Series(dtype=str)
    lo_ok, hi_ok = BATCH_TIME_RATIO / 2, BATCH_TIME_RATIO * 2
    cases, texts = [], []
    for d in names:
        ratio, boot = _time_ratio_draws(runs[runs.dataset == d])
        k = int((runs.dataset == d).sum() // 2)
        kind = data_kind(kinds.get(d, "none"))
        if not np.isfinite(ratio):
            texts.append(f"{d}: no timing run refitted after every batch")
            continue
        cases.append(ratio_band_case(d, kind, ratio, boot, lo_ok, hi_ok))
        c = cases[-1]
        texts.append(f"{d} {ratio:.1f}x (one timing per setting, no interval)" if boot is None
                     else f"{d} {ratio:.1f}x (95% CI {c.lo:.1f}-{c.hi:.1f}, {k} timed runs each)")
    return decided(PAPER, "zhou-ablation-batch-time", "With b = 2, UCB-E-LRF takes almost 16 times as much time as with b = 32",
                   f"[{kinds_of(abl)}] notebooks/zhou_fig4_ablations.ipynb; wall time of UCB-E-LRF to the largest budget "
                   "of the ablation grid at b = 2 and b = 32, dedicated timing runs refitted after every batch (the "
                   "paper's setting; the paper times to precision 1), b = 2 and b = 32 alternating; one case per "
                   "dataset: the ratio of mean times, 'almost 16' read as within a factor 2 of 16 "
                   f"({lo_ok:g}-{hi_ok:g}x), bootstrap one-sided tests over the timed runs in both directions",
                   "wall-time ratio b=2 / b=32: " + (", ".join(texts) or "-"), "universal", cases)


def summary_claims(table: pd.DataFrame, settle: pd.DataFrame | None) -> list[Claim]:
    """Figure 3's rows from the per-dataset tables (notebooks/zhou_fig3_summary.ipynb makes the same calls):
    :func:`fig3_claims` on the budget to precision 1 (:func:`.experiments.reach_table`) and the datasets' gaps."""
    from .experiments import MAIN_METRIC, dataset_table, reach_table

    order = table.groupby("dataset").H1.first().sort_values().index.tolist()
    gaps = dataset_table(order).set_index("dataset").gap
    return fig3_claims(table, reach_table(table, MAIN_METRIC, 1.0), gaps, settle)


def ablation_claims_from(abl: pd.DataFrame, cfg: dict) -> list[Claim]:
    """Figure 4's rows from the ablation tables (notebooks/zhou_fig4_ablations.ipynb makes the same calls): the
    hard dataset is the one with the largest H1."""
    from ... import data
    from ...metrics import hardness_h1
    from .experiments import MAIN_METRIC

    names = list(dict.fromkeys(abl.dataset))
    hard = max(names, key=lambda d: hardness_h1(data.load(d).means))
    kinds = "/".join(sorted({data.info(d).kind for d in names}))
    return ablation_claims(abl, names, hard, kinds, MAIN_METRIC, reps=int(cfg["ablation"]["reps"]),
                           data_kinds={d: data.info(d).kind for d in names})
