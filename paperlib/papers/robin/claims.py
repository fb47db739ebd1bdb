"""Ledger rows of the ROBIN reproduction (Saha et al. 2026), each with its decision rule.

Thresholds are module constants so the tests can pin them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from ...decide import (
    Case,
    cases_summary,
    data_kind,
    exact_case,
    holm_reject,
    holm_signs,
    rate_case,
    share_case,
    split_p,
)
from ...ledger import Claim, decided, key
from ...policies import label
from .experiments import (
    PAPER_B,
    PAPER_K,
    ROBIN,
    UNIFORM,
    eb_id,
    half_budget_table,
    main_id,
    ordering_table,
    ordering_tests,
    plateau_tests,
    table2,
)

PAPER = "Saha et al. 2026 (ROBIN)"
#: Rows that test our reading of the paper's practice (Remark 1's plug-in variance for bounded judges, the t0 and
#: UCB form we infer for the experiments), not a statement the paper makes: not counted in the paper's tally.
PAPERLIB_SETTINGS = "paperlib (ROBIN settings)"
HALF_BUDGET_FRAC = 0.6             # "about 50k of 100k": reached by 60% of the budget
PAPER_HALF_FRAC = 0.5              # the number itself (50k of 100k, Sec. 5.2), set beside each cell's share (issue 73)
ALPHA = 0.05                       # Welch test level of Table 2
TOP10_SHARE = 0.2                  # heterogeneous: the top 10% of items hold more than 20% of the variance


# ---- cases (issue 73): statistics per cell or (cell, budget) point; paperlib.decide decides --------------------------

def _count(cases, what: str) -> str:
    """:func:`paperlib.decide.cases_summary` of cells or (cell, budget) points."""
    return cases_summary(cases, what)


def half_cases(ht: pd.DataFrame) -> list[Case]:
    """One case per cell: the fraction of the budget ROBIN-HOOD needs to reach Uniform's full-budget WCE, its 95%
    bootstrap interval, and the one-sided p-values of "within HALF_BUDGET_FRAC" / "beyond" from the bootstrap's
    two-sided one (a cell that never reaches it lies beyond)."""
    need = np.nan_to_num(ht.frac_needed.to_numpy(dtype=float), nan=2.0)
    return [Case(r.cell, r.kind, n, r.lo, r.hi, *split_p(r.p_half, HALF_BUDGET_FRAC - n), paper=PAPER_HALF_FRAC)
            for r, n in zip(ht.itertuples(), need, strict=True)]


def between_cases(tests: pd.DataFrame) -> list[Case]:
    """One case per (cell, budget) point after the warm-up: shown where ROBIN-HOOD is below Uniform and above ROBIN
    (the larger one-sided p-value: both needed), contradicted where it is above Uniform or below ROBIN (twice the
    smaller one-sided p-value: Bonferroni over the two)."""
    out = []
    for r in tests.itertuples():
        fu, au = split_p(r.p_uniform, -r.d_uniform)
        fr, ar = split_p(r.p_robin, r.d_robin)
        out.append(Case(f"{r.cell} @ {r.budget_frac:.2f}", r.kind, r.wce, p_for=max(fu, fr),
                        p_against=min(1.0, 2 * min(au, ar))))
    return out


def plateau_cases(tests: pd.DataFrame) -> list[Case]:
    """One case per cell: shown where every part of the statement (plateau, ending above the main delta's run,
    overtaken by Uniform) is significant in its direction (the largest one-sided p-value), contradicted where some
    part is significantly the other way (Bonferroni over the three parts)."""
    out = []
    for _, r in tests.iterrows():
        ps = [split_p(r[f"p_{k}"], s * r[f"d_{k}"]) for k, s in PLATEAU_PARTS.items()]
        out.append(Case(r["cell"], r["kind"], float(r["d_uniform"]), p_for=max(p for p, _ in ps),
                        p_against=min(1.0, len(ps) * min(a for _, a in ps))))
    return out


def _kinds(df) -> str:
    return "/".join(sorted(set(df["kind"]))) if len(df) else "none"


#: What rules out a fault of ours behind the higher-delta row's "fails" (issue 41's audit).
HIGHER_DELTA_EXCLUDES = (
    "; excludes our error: the compared ROBIN-HOOD is the procedure of the authors' OptimalDesign.ipynb (its data note, "
    "robin_official/PROVENANCE.md in the project data, $PAPERLIB_DATA: round-robin for 4 ln(1/delta) rounds per pair, then the arg-max of the variance UCB with log(1/delta) "
    "over the pulls), so a higher delta only shortens the warm-up (10,807 vs 20,164 queries at K = 1,016) and the "
    "UCB's log term; and the paper's own Figure 5 (delta = 0.07) shows ROBIN-HOOD levelling off above ROBIN rather "
    "than approaching it, the direction measured here")


PLATEAU_PARTS = {"plateau": -1, "main": 1, "uniform": 1}  # the sign each part's difference has where it holds


def plateau_counts(tests: pd.DataFrame, alpha: float = ALPHA) -> dict[str, str]:
    """Per part of "a poorly chosen delta plateaus and is overtaken" (:func:`.experiments.plateau_tests`), the cells
    where that part is significant in its direction / the other way, each after Holm over the cells ("shown /
    contradicted"): the row's words, never its verdict (:func:`plateau_cases` and :func:`paperlib.decide.decide`)."""
    if tests.empty:
        return {k: "0 / 0" for k in PLATEAU_PARTS}
    out = {}
    for k, s in PLATEAU_PARTS.items():
        right = np.sign(tests[f"d_{k}"].to_numpy()) == s
        p = tests[f"p_{k}"].to_numpy(dtype=float)
        shown, wrong = holm_reject(np.where(right, p, 1.0), alpha), holm_reject(np.where(~right, p, 1.0), alpha)
        out[k] = f"{int(shown.sum())} / {int(wrong.sum())}"
    return out


def higher_delta_claim(runs: pd.DataFrame, low: str, high: str) -> Claim:
    """Sec. 5.2: 'as we choose a higher delta, the performance of ROBIN-HOOD approaches that of ROBIN'.

    Per cell at the full budget: ROBIN-HOOD's WCE at the higher delta vs the lower, two-sided Welch
    t-test at level ALPHA (ROBIN's WCE is the lowest, so approaching it means a lower WCE); the row
    also gives each delta's mean distance to ROBIN. Rule: holds if significantly lower in every cell,
    fails if significantly higher in more cells than lower, partly if lower in some, else inconclusive.
    """
    rows = []
    for cell, g in runs.groupby("cell", sort=False):
        full = g[g.budget == g.budget.max()]
        lo, hi, rb = (full[full.method_id == m].wce for m in (low, high, ROBIN))
        if len(lo) < 2 or len(hi) < 2:
            continue
        p = stats.ttest_ind(hi, lo, equal_var=False).pvalue
        rows.append(dict(cell=cell, kind=g.kind.iloc[0], d=hi.mean() - lo.mean(), p=p,
                         gap_lo=lo.mean() - rb.mean(), gap_hi=hi.mean() - rb.mean()))
    t = pd.DataFrame(rows)
    # one case per cell: shown where the higher delta's WCE is significantly lower (closer to ROBIN's), contradicted
    # where significantly higher (one-sided halves of the Welch test)
    cases = [Case(r.cell, r.kind, r.d, p_for=pf, p_against=pa)
             for r in t.itertuples() for pf, pa in [split_p(r.p, -r.d)]]
    return decided(
        PAPER, "robin-higher-delta-approaches-robin-sec-5-2",
        "as delta is chosen higher, ROBIN-HOOD's performance approaches that of ROBIN (known variances)",
        f"[{_kinds(t)}] WCE at the full budget, {label(high)} vs {label(low)}, {int(runs.rep.nunique())} runs per method; "
        "Welch t-test per cell, one case per cell: shown where the higher delta is significantly closer to ROBIN "
        "(lower WCE), contradicted where significantly farther" + HIGHER_DELTA_EXCLUDES,
        f"higher delta closer to ROBIN, {_count(cases, 'significantly closer')}; median distance "
        f"to ROBIN's WCE: {t.gap_hi.median():.3f} (higher delta) vs {t.gap_lo.median():.3f} (lower)" if len(t) else "-",
        "universal", cases, title="Higher delta approaches ROBIN (Sec. 5.2)")


def absent_claims() -> list[Claim]:
    """Statements with no experiment or bound to check, each with the reason."""
    return [
        decided(PAPER, "robin-summarize-from-feedback-experiments-abstract",
                "Experiments on Summarize-From-Feedback and HelpSteer2 demonstrate that the method outperforms uniform "
                "allocation",
                "[none] the paper body (Sec. 5, Figs. 3-9, Table 2) reports HelpSteer2 only; no Summarize-From-Feedback "
                "number, figure or table exists to reproduce",
                "absent from the paper body", "untestable", (),
                title="Summarize-from-Feedback experiments (abstract)"),
        decided(PAPER, "robin-remark-2-heavy-tailed-and-other-noise",
                "ROBIN-HOOD works for arbitrary stochastic noise; the WCE analysis extends to sub-exponential and "
                "heavy-tailed noise by substituting the concentration inequalities of Thm. 4 and Lemma 6",
                "[none] the remark states no bound and no substituted inequality, so there is no statement to check; "
                "what is checkable, ROBIN-HOOD's execution and bounds under non-Gaussian judges, is in the Remark-1 "
                "practice and Bernstein-correction rows (discrete and skewed bounded judges)",
                "no bound stated", "untestable", (), title="Remark 2 (heavy-tailed and other noise)"),
    ]


def experiment_claims(runs: pd.DataFrame, cfg: dict, starved: pd.DataFrame | None = None) -> list[Claim]:
    """Ledger rows for the experimental claims of Sec. 5 (``starved``: :func:`.experiments.starvation_table`)."""
    main = main_id(cfg)
    eq6 = main_id(cfg, "eq6")
    warm = 4 * math.log(1 / cfg["main_delta"]) / (PAPER_B / PAPER_K)
    out = []
    ht = half_budget_table(runs, main, HALF_BUDGET_FRAC)
    ht6 = half_budget_table(runs, eq6, HALF_BUDGET_FRAC) if eq6 in set(runs.method_id) else pd.DataFrame()
    ok = ht[ht.frac_needed <= HALF_BUDGET_FRAC]
    syn = ht[ht.kind == "synthetic"]
    cases = half_cases(ht)
    med, med_lo, med_hi = _median_with_interval(ht)
    out.append(decided(
        PAPER, "robin-half-the-queries-sec-5-2-table-2",
        "ROBIN-HOOD reaches Uniform's 100k-query WCE with about 50k queries",
        f"[{_kinds(ht)}] {len(ht)} cells ({cfg['reps']} runs each, budgets scaled to 100,000 x K / 1,017); {label(main)}; "
        "one case per cell: its crossing of the mean WCE curves with a 95% bootstrap interval over both methods' runs "
        "(paperlib.stats.run_bootstrap_crossings), shown where it is within, contradicted where it is beyond, "
        f"'about 50k' read as at most {HALF_BUDGET_FRAC:.0%} of the budget (one-sided bootstrap p-values)",
        f"fraction of the full budget needed, median over all cells: {_frac(med)} (95% bootstrap interval "
        f"{_frac(med_lo)}-{_frac(med_hi)}; never reached in {int(ht.frac_needed.isna().sum())} of {len(ht)}); among the "
        f"cells that reach it: median {ht.frac_needed.median():.2f}, range {ht.frac_needed.min():.2f}-"
        f"{ht.frac_needed.max():.2f}; <= {HALF_BUDGET_FRAC:.0%} in {len(ok)}/{len(ht)} cells; "
        f"{_count(cases, 'within')}; synthetic: "
        + ", ".join(f"{c}: {v:.2f} ({lo:.2f}-{_frac(hi)})" for c, v, lo, hi in
                    zip(syn.cell, syn.frac_needed, syn.lo, syn.hi, strict=True))
        + (f". With Eq. (6) as written: median {ht6.frac_needed.median():.2f}" if len(ht6) else ""),
        "universal", cases, title="Half the queries (Sec. 5.2, Table 2)",
    ))
    order = ordering_table(runs, main, after_frac=warm + 0.05)
    frac_between = float(order.between.mean()) if len(order) else float("nan")
    cases = between_cases(ordering_tests(runs, main, after_frac=warm + 0.05))
    out.append(decided(
        PAPER, "robin-robin-hood-between-uniform-and-robin-sec-5-2",
        "ROBIN-HOOD's WCE lies between Uniform's and ROBIN's (known variances) after the warm-up",
        f"[{_kinds(order)}] WCE per cell and budget after the warm-up, {label(main)} against Uniform and against ROBIN, "
        "Welch t-tests over the runs (paperlib.papers.robin.experiments.ordering_tests); one case per (cell, budget) "
        "point: shown where below Uniform and above ROBIN (both one-sided tests), contradicted where above Uniform or "
        "below ROBIN (Bonferroni over the two)",
        f"{_count(cases, 'shown between')} (cell, budget) points; in the means "
        f"ROBIN <= ROBIN-HOOD <= Uniform at {int(order.between.sum())}/{len(order)} ({frac_between:.0%}); ROBIN best "
        f"of all allocators at {int(order.robin_best.sum())}/{len(order)}",
        "universal", cases, title="ROBIN-HOOD between Uniform and ROBIN (Sec. 5.2)",
    ))
    bad = main_id(max(cfg["deltas"]))
    if bad in set(runs.method_id) and bad != main:
        pl = plateau_tests(runs, bad, main)
        shown = plateau_counts(pl)  # the per-part counts, for the words
        cases = plateau_cases(pl)
        syn = pl[pl.kind == "synthetic"]
        out.append(decided(
            PAPER, f"robin-poorly-chosen-delta-fig-5-delta-{key(format(max(cfg['deltas']), 'g'))}",
            "with a poorly chosen delta ROBIN-HOOD's WCE plateaus and is overtaken by Uniform",
            f"[{_kinds(pl)}] per cell over the runs, {label(bad)}: a plateau is a WCE decrease from half to full budget "
            f"below half of Uniform's, ending no lower than the delta={cfg['main_delta']:g} run; overtaken is a "
            "full-budget WCE above Uniform's; each of the three parts a Welch-type test "
            "(paperlib.papers.robin.experiments.plateau_tests); one case per cell: shown where every part is "
            "significant in its direction (the largest one-sided p-value), contradicted where some part is "
            "significantly the other way (Bonferroni over the three)",
            f"{_count(cases, 'shown in every part')}; by part, shown / contradicted (each after Holm): plateau "
            f"{shown['plateau']}, ending above the delta={cfg['main_delta']:g} run {shown['main']}, overtaken by "
            f"Uniform {shown['uniform']}; WCE decrease from half to full budget (vs Uniform's), synthetic: "
            + ", ".join(f"{c}: {gb:.3f} vs {gu:.3f}" for c, gb, gu in zip(syn.cell, syn.gain_bad, syn.gain_uni, strict=True)),
            "universal", cases, title=f"Poorly chosen delta (Fig. 5, delta = {max(cfg['deltas']):g})",
        ))
    if bad in set(runs.method_id) and bad != main:
        out.append(higher_delta_claim(runs, main, bad))
    out += absent_claims()
    t2 = table2(runs)
    full = t2[(t2.point == "full") & (t2.method_id == main)]
    uni = t2[(t2.point == "full") & (t2.method_id == UNIFORM)].set_index("cell").loc[full.cell].wce_mean.to_numpy()
    cases = [Case(r.cell, r.kind, u - r.wce_mean, *(np.nan, np.nan), *split_p(r.p_vs_uniform, u - r.wce_mean))
             for r, u in zip(full.itertuples(), uni, strict=True)]
    worse = [c.name for c, rej in zip(cases, holm_reject([c.p_against for c in cases]), strict=True) if rej]
    out.append(decided(
        PAPER, "robin-significance-across-models-and-attributes-table-2",
        "ROBIN-HOOD's WCE differs significantly from Uniform's for every judge and attribute",
        f"[{_kinds(full)}] Welch t-test at the full budget, {cfg['reps']} runs per method, {label(main)}; the "
        "difference read in the paper's direction (ROBIN-HOOD lower); one case per cell, shown where significantly "
        "lower, contradicted where significantly higher (one-sided)",
        f"ROBIN-HOOD lower than Uniform, {_count(cases, 'significantly lower')}; significantly higher after Holm in: "
        + (", ".join(worse) if worse else "no cell"),
        "universal", cases, title="Significance across models and attributes (Table 2)",
    ))
    if "pearson" in runs.columns:
        out.append(correlation_rise_claim(runs, main))
    if starved is not None and len(starved):
        hi, lo = max(cfg["deltas"]), cfg["main_delta"]
        a, b = starved[starved.delta == hi], starved[starved.delta == lo]
        out.append(decided(
            PAPERLIB_SETTINGS, "robin-why-a-large-delta-hurts-sec-5-1",
            f"a high delta is problematic because the variance UCB misses the true variance more often (delta = {hi:g} vs {lo:g}); tested "
            "through a mechanism of ours (a paperlib row: fewer warm-up draws make identical draws likelier by "
            "construction, so this row explains the plateau rather than tests the paper)",
            f"[{_kinds(starved)}] exact probability that an item with sigma_i > 0 draws identical scores in all t0 "
            "warm-up queries (then sigma_hat = 0, Vbar = 0 < sigma^2, and Alg. 2 never queries it again); untestable: "
            "the probability falls with t0 by construction, so the comparison could not come out the other way (it "
            "explains the plateau, it does not test the paper)",
            f"expected such items per run: {a.expected_starved.median():.1f} (median over cells; t0 = {int(a.t0.iloc[0])}) at "
            f"delta = {hi:g} vs {b.expected_starved.median():.1f} (t0 = {int(b.t0.iloc[0])}) at delta = {lo:g}; P(at least one): "
            f"{a.p_any_starved.median():.2f} vs {b.p_any_starved.median():.2f}. Their error stays at its warm-up value, "
            "which is the plateau",
            # fewer warm-up draws make identical draws likelier by construction: a test that could not fail (issue 57)
            "untestable", (), title="Why a large delta hurts (Sec. 5.1), our mechanism",
        ))
    eb = eb_id(cfg)
    ours = [eb_claim(runs, cfg, main, eb)] if eb in set(runs.method_id) else []
    return out + ours


EB_GOAL_FRAC = HALF_BUDGET_FRAC  # the goal is tested as robin-half-the-queries tests it (p_half is at this fraction)
EB_GOAL_SHARE = 0.8


def eb_claim(runs: pd.DataFrame, cfg: dict, main: str, eb: str) -> Claim:
    """Ours: ROBIN-HOOD-EB against the paper's ROBIN-HOOD on the issue's goal: Uniform's full-budget WCE reached
    with at most 60% of the budget in at least 80% of the real cells."""
    real = runs[runs.kind == "real"]
    if real.empty:
        real = runs
    ht_eb, ht_rh = half_budget_table(real, eb, HALF_BUDGET_FRAC), half_budget_table(real, main, HALF_BUDGET_FRAC)
    n = len(ht_eb)
    ok_eb = int((ht_eb.frac_needed <= EB_GOAL_FRAC).sum())
    ok_rh = int((ht_rh.frac_needed <= EB_GOAL_FRAC).sum())
    t2 = table2(real)
    full = t2[t2.point == "full"].pivot_table(index="cell", columns="method_id", values="wce_mean")
    better = int((full[eb] < full[main]).sum()) if eb in full and main in full else 0
    oracle = ""
    if "robin" in set(real.method_id):
        ht_or = half_budget_table(real, "robin", HALF_BUDGET_FRAC)
        ok_or = int((ht_or.frac_needed <= EB_GOAL_FRAC).sum())
        oracle = (f"; the goal is beyond even ROBIN with the known variances (the oracle allocation): <= 60% in "
                  f"{ok_or}/{len(ht_or)} cells, median {ht_or.frac_needed.median():.2f}")
    sure = _half_counts(ht_eb)  # the goal's 60% is the paper's HALF_BUDGET_FRAC, tested as that row tests it
    cases = []
    for kind, g in ht_eb.groupby("kind", sort=False):  # one case per data kind: the share of its cells within 60%
        side = np.nan_to_num(g.frac_needed.to_numpy(dtype=float), nan=2.0)
        within, beyond = zip(*(split_p(p, EB_GOAL_FRAC - x) for p, x in zip(g.p_half, side, strict=True)), strict=True)
        cases.append(share_case(f"{kind} cells within {EB_GOAL_FRAC:.0%}", data_kind(kind), within, beyond,
                                EB_GOAL_SHARE, estimate=float((side <= EB_GOAL_FRAC).mean())))
    return decided(
        "paperlib (improvements)", "ours-robin-hood-eb",
        "Empirical-Bernstein ROBIN-HOOD: ROBIN-HOOD with an empirical-Bernstein variance bound (never 0 for a bounded judge) reaches Uniform's "
        "full-budget WCE with at most 60% of the budget in at least 80% of the real judge cells",
        f"[{_kinds(ht_eb)}] {n} cells, {cfg['reps']} runs each; {label(eb)} vs {label(main)}; first budget at which the "
        "mean WCE curve reaches Uniform's full-budget mean, with a 95% bootstrap interval over runs per cell; one case "
        f"per data kind: the share of cells within 60%, shown when at least {EB_GOAL_SHARE:.0%} of the cells are "
        "significantly within after Holm over the cells, contradicted when more than the rest are significantly beyond "
        "(paperlib.decide.share_case; its interval: the shares shown within and not shown beyond)",
        f"<= 60% of the budget in {ok_eb}/{n} cells (ROBIN-HOOD: {ok_rh}/{n}); after Holm, significantly within in "
        f"{sure['within']}, beyond in {sure['beyond']}; median fraction needed "
        f"{ht_eb.frac_needed.median():.2f} (ROBIN-HOOD {ht_rh.frac_needed.median():.2f}); lower mean WCE than "
        f"ROBIN-HOOD at the full budget in {better}/{len(full)} cells; the goal is {EB_GOAL_SHARE:.0%} of cells{oracle}",
        "bound", cases)



def _frac(x: float) -> str:
    """A budget fraction for the ledger; ``inf`` (never reaches the target within the full budget) as "never"."""
    return f"{x:.2f}" if np.isfinite(x) else "never"


def _half_counts(ht: pd.DataFrame, alpha: float = ALPHA) -> dict:
    """The cells significantly within and beyond ``HALF_BUDGET_FRAC`` of the budget after Holm's correction over the
    cells (``holm_signs`` of :func:`.experiments.half_budget_table`'s p-values): words for a row's measurement, never
    its verdict (which :mod:`paperlib.decide` makes from the row's cases)."""
    if ht.empty:
        return {"within": 0, "beyond": 0}
    beyond, within = holm_signs(ht.p_half, np.nan_to_num(ht.frac_needed, nan=2.0) - HALF_BUDGET_FRAC, alpha)
    return {"within": within, "beyond": beyond}


def _median_with_interval(ht: pd.DataFrame) -> tuple[float, float, float]:
    """The median over cells of the fraction needed, with a 95% interval from the cells' bootstrap draws over runs
    (draw ``j`` of every cell together; ``inf`` where a draw never reaches, so the upper end may be "never")."""
    x = np.nan_to_num(ht.frac_needed.to_numpy(dtype=float), nan=np.inf)
    draws = ht.attrs.get("draws")
    if not x.size or draws is None or not draws.size:
        return (float("nan"),) * 3
    lo, hi = np.quantile(np.median(draws, axis=0), [0.025, 0.975], method="inverted_cdf")
    return float(np.median(x)), float(lo), float(hi)


def _lemma2_at_paper_ratio(rows: list[dict], ratio: float = PAPER_B / PAPER_K) -> str:
    """Lemma 2's lower-bound shortfall at the budget factor closest to the paper's B/K (about 98)."""
    if not rows or "factor" not in rows[0]:
        return ""
    f = min({r["factor"] for r in rows}, key=lambda x: abs(np.log(x / ratio)))
    near = [r for r in rows if r["factor"] == f]
    bad = [r for r in near if r["lower_violated"]]
    worst = max((r["worst_shortfall"] for r in bad), default=0.0)
    return (f"; at B = {f:g} K + 1 (nearest to the paper's B/K = {ratio:.0f}): violated in {len(bad)}/{len(near)} configurations, "
            f"largest shortfall {worst:.0f} queries")


def rate_text(d: dict, reps: int) -> str:
    lo, hi = d["ci"]
    return f"{d['violations']}/{reps} = {d['rate']:.3f} (95% CI {lo:.3f}-{hi:.3f})"


def _lemma6_proof_note(thm8: dict, th: dict) -> str:
    """Where Theorem 8 is violated at the per-step level delta / (2 B K) that Lemma 6's proof applies it at."""
    level = float(th["delta"]) / (2 * int(th["B"]) * int(th["K"]))
    at = sorted({n for n, d, _ in thm8["violations"] if d <= level * (1 + 1e-9)})
    if not at:
        return ""
    return (f"; at and below the per-step level delta / (2BK) = {level:.3g} that Lemma 6's proof uses (K = {th['K']}, "
            f"B = {th['B']:,}, delta = {th['delta']}) it is violated at n = {', '.join(map(str, at))}: Lemma 6's proof is "
            "invalid as written, although Lemma 6 itself is met in our runs (its own row)")


#: The warm-up periods of the captions of Figs. 3-5 (delta -> queries).
SETUP_WARMUPS = {0.007: 20164, 0.07: 10807}


def _rate_cases(name: str, d: dict, reps: int) -> list[Case]:
    """A bound on a probability checked on ``reps`` runs: one case, the exact binomial tests at the claimed level."""
    return [rate_case(name, "synthetic", d["violations"], reps, d.get("claimed", d.get("delta")))]


def theory_claims(lemma2: dict, thm3: list[dict], thm8: dict, rh_theory: dict, rh_experiments: dict,
                  arithmetic: dict) -> list[Claim]:
    """Ledger rows for Lemma 2, Theorem 3, Lemma 6 (and Theorem 8), Corollary 9, Lemma 7, Theorem 5, t0; each a kind
    of statement and its cases (issue 73): exact checks per configuration or cell, theorems as rates of violation
    against the claimed probability (:func:`paperlib.decide.rate_case`)."""
    out = []
    ex = lemma2["example"]
    l2cases = [exact_case(f"K={r['K']}, B={r['B']}, {r['profile']}", "synthetic",
                          not (r["lower_violated"] or r["upper_violated"]), r.get("worst_shortfall", float("nan")))
               for r in lemma2["rows"]]
    out.append(decided(
        PAPER, "robin-lemma-2-allocation-profile-of-robin",
        "ROBIN queries item i between floor(lambda_i B) and ceil(lambda_i B) times, lambda_i = sigma_i^2 / sum sigma^2",
        f"[synthetic] exact allocations of Alg. 1 over {lemma2['configs']} (K, B, variance profile) configurations, "
        f"K {min(r['K'] for r in lemma2['rows'])}-{max(r['K'] for r in lemma2['rows']):,}, B from K+1 to "
        f"{max(r['factor'] for r in lemma2['rows']):g}K+1; excludes our error: the allocations are computed "
        "exactly (no sampling), and the same allocations satisfy the corrected bound ceil(lambda_i (B - K)) <= n_i; the "
        "lower bound fails when B is close to K or the spread of variances is very uneven",
        f"lower bound violated in {lemma2['lower_violations']}/{lemma2['configs']} configurations "
        + (f"(worst: K={ex['K']}, B={ex['B']}, {ex['profile']}: shortfall {ex['worst_shortfall']:.0f} queries)" if ex else "")
        + f"; upper bound violated in {lemma2['upper_violations']}; corrected bound ceil(lambda_i (B - K)) <= n_i <= "
        f"ceil(lambda_i B) violated in {lemma2['corrected_violations']}" + _lemma2_at_paper_ratio(lemma2["rows"]),
        "exact", l2cases, title="Lemma 2 (allocation profile of ROBIN)"))
    for t in thm3:
        # Theorem 3 assumes Gaussian (sub-Gaussian with proxy sigma_i^2) scores; for a bounded judge the
        # rows test Remark 1's practice of plugging the score variance into the same bound.
        tag = "" if t.get("gaussian", True) else "Remark 1 practice: "
        tid = "" if t.get("gaussian", True) else "remark-1-practice-"
        scope = "" if t.get("gaussian", True) else (
            " [judge outside the theorem's Gaussian assumption: a test of Remark 1's practice of plugging the score "
            "variance into the same bound, not of the theorem]")
        owner = PAPER if t.get("gaussian", True) else PAPERLIB_SETTINGS
        where = f"K={t['K']}, B={t['B']}, delta={t['delta']}"
        out.append(decided(
            owner, f"robin-{tid}theorem-3-as-boxed-{key(t['judge'])}",
            "with prob. >= 1 - delta, ROBIN's WCE <= sqrt(sum sigma^2 / B * log(2K/delta))" + scope,
            f"[synthetic] {t['reps']} ROBIN runs, {where}, sigma_i^2 = the judge's score variance; the rate of runs "
            "above the bound against delta (exact binomial tests)"
            + ("; excludes our error: the same runs satisfy the paper's own Eq. (4) (the row below), so the allocation "
               "and the WCE are computed right and the boxed constant (a factor 2 short inside the root) is what fails"
               if t.get("gaussian", True) else ""),
            f"bound {t['box']['bound']:.3f} exceeded in {rate_text(t['box'], t['reps'])} vs claimed <= {t['delta']}",
            "theorem", _rate_cases(where, t["box"] | {"delta": t["delta"]}, t["reps"]),
            title=f"{tag}Theorem 3 as boxed ({t['judge']})"))
        out.append(decided(
            owner, f"robin-{tid}theorem-3-eq-4-{key(t['judge'])}",
            "with prob. >= 1 - delta, ROBIN's WCE <= sqrt(2 sum sigma^2 / B * log(2K/delta))" + scope,
            "[synthetic] same runs as the row above; the same tests",
            f"bound {t['eq4']['bound']:.3f} exceeded in {rate_text(t['eq4'], t['reps'])} vs claimed <= {t['delta']}",
            "theorem", _rate_cases(where, t["eq4"] | {"delta": t["delta"]}, t["reps"]),
            title=f"{tag}Theorem 3, Eq. (4) ({t['judge']})"))
    for t in thm3:
        if "bernstein" in t:
            where = f"K={t['K']}, B={t['B']}, delta={t['delta']}"
            out.append(decided(
                PAPERLIB_SETTINGS, f"robin-theorem-3-bernstein-correction-{key(t['judge'])}",
                "for a judge bounded in [a, b]: with prob. >= 1 - delta, WCE <= max_i sqrt(2 sigma_i^2 L / n_i) + "
                "(b - a) L / (3 n_i), L = log(2K/delta) (our correction: Bernstein + union bound, no sub-Gaussian "
                "assumption)",
                "[synthetic] same runs as Theorem 3's rows for this judge",
                f"bound (mean over runs) {t['bernstein']['bound']:.3f} exceeded in {rate_text(t['bernstein'], t['reps'])} "
                f"vs <= {t['delta']}",
                "theorem", _rate_cases(where, t["bernstein"] | {"delta": t["delta"]}, t["reps"]),
                title=f"Theorem 3, Bernstein correction ({t['judge']})"))
    nbad = len(thm8["violations"])
    worst = max(thm8["violations"], key=lambda v: v[2] / v[1]) if nbad else None
    out.append(decided(
        PAPER, "robin-theorem-8-variance-concentration-as-quoted-from-laurent-massart",
        "P(|s^2 - sigma^2| >= 2 sigma^2 sqrt(log(2/delta)/n)) <= delta for n Gaussian draws",
        f"[none] exact chi-square probabilities on a grid of {thm8['cells']} (n, delta) cells; excludes our error: "
        "exact tail probabilities (scipy.stats.chi2), no simulation",
        f"violated in {nbad} cells"
        + (f" (worst: n={worst[0]}, delta={worst[1]:g}: probability {worst[2]:.3g})" if worst else "")
        + _lemma6_proof_note(thm8, rh_theory)
        + f"; Laurent-Massart's own form (extra 2x/(n-1) term on the upper side) violated in "
        f"{len(thm8['corrected_violations'])} cells",
        "exact", [exact_case(f"n={n}, delta={d:g}", "none", p <= d, p) for n, d, p, _ in thm8["grid"]],
        title="Theorem 8 (variance concentration, as quoted from Laurent & Massart)"))
    th, exp = rh_theory, rh_experiments
    for part, cid, name, stmt in (
        ("lemma6", "robin-lemma-6-estimated-variance-concentration", "Lemma 6 (estimated-variance concentration)",
         "with prob. >= 1 - delta/2, |sigma_i^2 - sigma_hat_i^2(t)| < 2 sigma_i^2 sqrt(log(4KB/delta)/n_i(t)) for all i, t > t0 K"),
        ("cor9_low", "robin-corollary-9-lower-side-vbar-is-an-upper-confidence-bound", "Corollary 9, lower side (Vbar is an upper confidence bound)",
         "with prob. >= 1 - delta/2, sigma_i^2 <= Vbar_i(t) for all i and t > t0 K"),
        ("cor9_high", "robin-corollary-9-upper-side", "Corollary 9, upper side",
         "with prob. >= 1 - delta/2, Vbar_i(t) <= 3 sigma_i^2 for all i and t > t0 K"),
        ("lemma7", "robin-lemma-7-allocation-profile-of-robin-hood", "Lemma 7 (allocation profile of ROBIN-HOOD)",
         "n_i(B) >= floor(lambda_i B / 3) for all i (with prob. >= 1 - delta/2)"),
        ("thm5_eq7", "robin-theorem-5-eq-7", "Theorem 5, Eq. (7)",
         "with prob. >= 1 - delta, ROBIN-HOOD's WCE <= sqrt(6 sum sigma^2 / B * log(4K/delta))"),
        ("thm5_eq11", "robin-theorem-5-eq-11", "Theorem 5, Eq. (11)",
         "with prob. >= 1 - delta/2, ROBIN-HOOD's WCE <= 2 sqrt(sum sigma^2 / B * log(4K/delta))"),
    ):
        a, b = th[part], exp.get(part)
        where = f"Gaussian K={th['K']}, B={th['B']}, delta={th['delta']}"
        out.append(decided(
            PAPER, cid, stmt,
            f"[synthetic] Gaussian judge K={th['K']} (sd 0.1-1.0), B={th['B']}, delta={th['delta']}, "
            f"{th['reps']} ROBIN-HOOD runs in the theorem's regime (t0 = 16 log(4KB/delta), Eq. 6 UCB), every (i, t) "
            "checked; the rate of runs with a violation against the claimed rate (exact binomial tests)",
            f"t0 = {th['t0']}: {rate_text(a, th['reps'])} vs claimed <= {a['claimed']:.3g}",
            "theorem", _rate_cases(f"{where}, theorem's t0", a, th["reps"]), title=name))
        if b is not None:
            out.append(decided(
                PAPERLIB_SETTINGS, f"{cid}-experiments-regime-our-inferred-ucb-form", stmt,
                f"[synthetic] same judge, {exp['reps']} ROBIN-HOOD runs with the experiments' t0 = 4 ln(1/delta) and the "
                "log(1/delta) UCB we infer from it (outside the statement's assumptions: a test of our reading of "
                "Sec. 5.1, not of the paper's result); the same tests",
                f"t0 = {exp['t0']}: {rate_text(b, exp['reps'])} vs claimed <= {b['claimed']:.3g}",
                "theorem", _rate_cases(f"{where}, experiments' t0", b, exp["reps"]),
                title=f"{name}, experiments' regime (our inferred UCB form)"))
    rows = {r["delta"]: r for r in arithmetic["rows"]}
    a7, a07 = rows[0.007], rows[0.07]
    t5 = arithmetic["thm5"]
    readings = [k for k in ("K1017", "K1016")
                if int(a7[k]) == SETUP_WARMUPS[0.007] and int(a07[k]) == SETUP_WARMUPS[0.07]]
    out.append(decided(
        PAPER, "robin-setup-arithmetic-sec-5-1-figs-3-5",
        "t0 = 4 ln(1/delta) gives warm-up periods of 20,164 (delta = 0.007) and 10,807 (delta = 0.07) queries (the "
        "captions of Figs. 3-5; the number of pairs is not in the paper: the authors' README gives 1,017, of which "
        "1,016 are used)",
        "[none] arithmetic (exact, no interval needed): 4 ln(1/delta) K, truncated, against both published warm-ups "
        "for the README's K (1,017, or the 1,016 it uses)",
        f"t0 = {a7['t0']:.3f} / {a07['t0']:.3f}; K t0 = {a7['K1017']:.1f} / {a07['K1017']:.1f} for K = 1,017 but "
        f"{a7['K1016']:.1f} / {a07['K1016']:.1f} for K = 1,016 (the reported values, truncated); the authors' early runs used "
        f"4 log2(1/delta) K ({a7['K1017_log2']:.0f} at delta 0.007). Theorem 5's own t0 = 16 log(4KB/delta) = "
        f"{t5['t0_theorem_K1017_B100k']} rounds would need {t5['t0_theorem_K1017_B100k'] * 1017:,} > 100,000 queries, and its "
        f"precondition B > 16 K log(4/delta) = {t5['precondition_16Klog4/delta']:,.0f} excludes B = 100k",
        "exact", setup_cases(rows, readings),
        title="Setup arithmetic (Sec. 5.1, Figs. 3-5)"))
    return out


def setup_cases(rows: dict, readings: list[str]) -> list:
    """One exact case per published warm-up (delta 0.007 and 0.07): our truncated K t0 beside the caption's number,
    under the reading of K that gives both (the 1,016 pairs the authors use), else the README's 1,017."""
    k = readings[0] if readings else "K1017"
    pairs = f"K = {int(k[1:]):,}"
    return [exact_case(f"delta = {delta}, {pairs}", "none", int(rows[delta][k]) == warm, estimate=int(rows[delta][k]),
                       paper=warm) for delta, warm in SETUP_WARMUPS.items()]


def data_claims(stats: pd.DataFrame) -> list[Claim]:
    """Figures 1-2: judge-score variance is heterogeneous across items (``stats``: :func:`.experiments.data_table`);
    an exact check per cell of the description (the top 10% of items hold more than TOP10_SHARE of the variance)."""
    real = stats[stats.kind == "real"]
    sel = real if len(real) else stats
    het = sel[sel.top10_share > TOP10_SHARE]
    cases = [exact_case(str(r.cell), r.kind, r.top10_share > TOP10_SHARE, r.top10_share) for r in stats.itertuples()]
    return [decided(PAPERLIB_SETTINGS, "robin-heterogeneous-variance",
        "judge-score variance is strongly heterogeneous across prompt-response pairs (Figs. 1-2, the pattern ROBIN "
        "exploits), on our stand-in judge data (the paper's HelpSteer2 judgments are not public) and with our "
        f"threshold (the top 10% of items hold more than {TOP10_SHARE:.0%} of the variance): a generalisation of the "
        "paper's description, not its statement",
        f"[{'/'.join(sorted(set(sel.kind)))}] per-item variance of {len(sel)} judge x attribute cells; no interval: a "
        "description of the data, each cell's variances computed from all of its judge samples (one exact case per "
        "cell)",
        f"the 10% highest-variance items carry {sel.top10_share.min():.0%}-{sel.top10_share.max():.0%} of the total variance "
        f"(uniform variances: 10%); items with zero variance: {sel.frac_zero_var.min():.0%}-{sel.frac_zero_var.max():.0%}; "
        f"CV of the variances {sel.cv_var.min():.2f}-{sel.cv_var.max():.2f}; top-10% share above 20% in {len(het)}/{len(sel)} cells",
        "exact", cases)]


def correlation_rise_claim(runs: pd.DataFrame, main: str) -> Claim:
    """Figs. 6-7, 9: the correlation with human ratings rises with the budget, tested per cell.

    Each run is read at every checkpoint, so the change of its Pearson r from the smallest to the
    full budget is a paired difference; a two-sided Wilcoxon signed-rank test over runs at level
    ``ALPHA`` decides each cell (significant rise, significant fall, or neither).
    """
    from scipy.stats import wilcoxon

    cor = runs.dropna(subset=["pearson"])
    cor = cor[cor.method_id == main]
    rows = []
    for cell, g in cor.groupby("cell", sort=False):
        lo, hi = g.budget_frac.min(), g.budget_frac.max()
        a = g[g.budget_frac == lo].set_index("rep").pearson
        b = g[g.budget_frac == hi].set_index("rep").pearson
        d = (b - a.reindex(b.index)).dropna()
        p = wilcoxon(d).pvalue if (d != 0).sum() >= 1 else 1.0
        rows.append(dict(cell=cell, change=float(d.mean()), p=float(p), final=float(b.mean()),
                         median=float(d.median()) if len(d) else 0.0))
    t = pd.DataFrame(rows)
    cases = [Case(r.cell, "real", r.change, p_for=pf, p_against=pa)
             for r in t.itertuples() for pf, pa in [split_p(r.p, r.median)]]
    reps = int(cor.rep.nunique()) if len(cor) else 0
    return decided(
        PAPER, "robin-correlation-with-human-ratings-rises-with-budget-figs-6-7-9",
        "the correlation of ROBIN-HOOD's estimates with human ratings increases as the budget grows",
        f"[real] {len(t)} cells with human ratings, {reps} runs each, {label(main)}; paired change of each run's Pearson "
        "r from the smallest to the full budget, Wilcoxon signed-rank test per cell; one case per cell: shown where it "
        "rises significantly, contradicted where it falls (one-sided halves)",
        f"correlation rises, {_count(cases, 'significantly')}; mean change median over cells "
        f"{t.change.median():+.3f} (range {t.change.min():+.3f} to {t.change.max():+.3f}); final r "
        f"{t.final.min():.2f}-{t.final.max():.2f}" if len(t) else "no cell with human ratings",
        "universal", cases, title="Correlation with human ratings rises with budget (Figs. 6-7, 9)")
