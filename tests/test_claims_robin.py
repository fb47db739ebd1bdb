"""Decision rules of the ledger rows of ROBIN (LLM-as-Judge on a Budget): each claim builder's thresholds on hand-made tables.

The expected verdicts follow from the papers' wording as encoded in the thresholds (e.g. "5-15% of
the budget" -> precision 1 reached by 15%), not from the code's own output.
"""

import numpy as np
import pandas as pd

from paperlib.decide import decide
from paperlib.papers.robin import claims as RC
from paperlib.papers.robin.experiments import UNIFORM


def test_robin_heterogeneity_threshold():
    stats = pd.DataFrame(dict(cell=["a", "b", "s"], kind=["real", "real", "synthetic"], top10_share=[0.3, 0.19, 0.05],
                              frac_zero_var=[0, 0, 0], cv_var=[1.0, 1.0, 1.0]))
    # an exact description per cell (issue 73): one real cell below the threshold refutes "strongly heterogeneous"
    row = RC.data_claims(stats)[0]
    assert row.verdict == "fails" and "real: " not in row.measured
    # graded on the real cells; the synthetic one (0.0) is shown beside, not counted
    row = RC.data_claims(stats.assign(top10_share=[0.25, 0.21, 0.0]))[0]
    assert row.verdict == "holds" and "synthetic fails" in row.evidence


def robin_runs(rh_wce: list[float], uni_wce: list[float], robin_wce: list[float], fracs=(0.2, 0.5, 0.6, 1.0)):
    rows = []
    for mid, curve in ((UNIFORM, uni_wce), ("robin", robin_wce), ("robin-hood:delta=0.007:ucb=delta", rh_wce)):
        for f, w in zip(fracs, curve, strict=True):
            for rep in range(3):
                rows.append(dict(cell="c", kind="synthetic", K=10, method=mid.split(":")[0], method_id=mid,
                                 label=mid, budget=int(1000 * f), budget_frac=f, rep=rep, wce=w + 0.001 * rep, mae=w))
    return pd.DataFrame(rows)


def test_robin_half_budget_and_ordering_thresholds():
    cfg = dict(main_delta=0.007, deltas=[0.007], reps=3)
    # ROBIN-HOOD reaches Uniform's full-budget WCE (0.30) at half the budget: holds; between ROBIN and Uniform throughout
    runs = robin_runs([0.5, 0.30, 0.28, 0.2], [0.6, 0.45, 0.4, 0.30], [0.45, 0.25, 0.22, 0.15])
    c = {x.claim.split("-sec")[0]: x for x in RC.experiment_claims(runs, cfg)}
    assert c["robin-half-the-queries"].verdict == "holds"
    assert c["robin-robin-hood-between-uniform-and-robin"].verdict == "holds"
    # reaching it only at the full budget (> 0.6): fails
    runs = robin_runs([0.5, 0.45, 0.40, 0.30], [0.6, 0.45, 0.4, 0.30], [0.45, 0.25, 0.22, 0.15])
    c = {x.claim.split("-sec")[0]: x for x in RC.experiment_claims(runs, cfg)}
    assert decide(c["robin-half-the-queries"].kind, c["robin-half-the-queries"].cases).verdict == "fails"
    assert c["robin-half-the-queries"].verdict == "not reproduced"  # nothing here excludes our error


def test_between_uniform_and_robin_is_graded_on_tests_at_every_point():
    """Issue 57: the row counted orderings of mean curves with no interval. Each (cell, budget) point is tested
    (Welch over the runs); every point must be significantly between to hold; points outside count after Holm."""
    cfg = dict(main_delta=0.007, deltas=[0.007], reps=3)
    row = lambda runs: {x.claim.split("-sec")[0]: x for x in RC.experiment_claims(runs, cfg)}[  # noqa: E731
        "robin-robin-hood-between-uniform-and-robin"]
    # between everywhere, but the runs spread as wide as the gaps: no point is shown either way
    noisy = robin_runs([0.5, 0.30, 0.28, 0.2], [0.6, 0.45, 0.4, 0.30], [0.45, 0.25, 0.22, 0.15])
    noisy["wce"] += np.tile([-0.2, 0.0, 0.2], len(noisy) // 3)
    assert row(noisy).verdict == "inconclusive"
    # above Uniform at the full budget, between before: a counterexample that survives Holm refutes "after the
    # warm-up" (issue 73: the universal rule; the builder's own rule said partly)
    c = row(robin_runs([0.5, 0.30, 0.28, 0.4], [0.6, 0.45, 0.4, 0.30], [0.45, 0.25, 0.22, 0.15]))
    assert decide(c.kind, c.cases).verdict == "fails" and c.verdict == "not reproduced"
    assert "synthetic: shown between in 2 of 3 (2 after Holm), contradicted in 1 (1 after Holm)" in c.measured
    # below ROBIN everywhere: fails
    c = row(robin_runs([0.3, 0.2, 0.1, 0.05], [0.6, 0.45, 0.4, 0.30], [0.45, 0.25, 0.22, 0.15]))
    assert decide(c.kind, c.cases).verdict == "fails"
    # one point outside at p < 0.05 alone (one-sided 0.015) but not after Holm over the points is no counterexample
    t = pd.DataFrame(dict(cell="c", kind="real", budget_frac=[0.5, 0.6, 0.7], wce=0.3, d_uniform=[0.01, -0.1, -0.1],
                          p_uniform=[0.03, 0.5, 0.5], d_robin=[0.1, 0.1, 0.1], p_robin=[0.5, 0.5, 0.5]))
    assert decide("universal", RC.between_cases(t)).verdict == "inconclusive"
    assert decide("universal", RC.between_cases(t.assign(p_uniform=[0.001, 0.5, 0.5]))).verdict == "fails"


def plateau_runs(bad: list[float], uni: list[float], main: list[float], spread: float = 0.001, reps: int = 6):
    """Runs at half and full budget; each run's WCE shifted by the same amount at both (a run's own two points)."""
    rows = []
    for mid, (h, f) in (("robin-hood:delta=0.07:ucb=delta", bad), (UNIFORM, uni),
                        ("robin-hood:delta=0.007:ucb=delta", main)):
        for rep in range(reps):
            shift = spread * (rep - reps / 2)
            for frac, w in ((0.2, h + 0.2), (0.5, h), (1.0, f)):
                rows.append(dict(cell="c", kind="real", method_id=mid, rep=rep, budget_frac=frac,
                                 wce=w + shift + 0.0005 * (rep % 2) * (frac == 1.0)))
    return pd.DataFrame(rows)


def test_poorly_chosen_delta_is_graded_on_every_part_in_every_cell():
    """Issue 57: 'plateaus and is overtaken by Uniform' was a description of mean curves. Each part is tested per
    cell over the runs; a cell shows the statement only when every part is significant."""
    from paperlib.papers.robin.experiments import plateau_tests

    bad, main = "robin-hood:delta=0.07:ucb=delta", "robin-hood:delta=0.007:ucb=delta"
    # decreases 0.01 (Uniform 0.1), ends at 0.40 above Uniform's 0.30 and the main run's 0.25: every part shown
    t = plateau_tests(plateau_runs([0.41, 0.40], [0.40, 0.30], [0.30, 0.25]), bad, main)

    def verdict(tests):  # the row's one rule (issue 73): universal over the cells
        return decide("universal", RC.plateau_cases(tests)).verdict

    assert verdict(t) == "holds" and RC.plateau_counts(t) == {"plateau": "1 / 0", "main": "1 / 0", "uniform": "1 / 0"}
    # keeps falling as fast as Uniform and ends below it: contradicted in two parts
    falls = plateau_runs([0.45, 0.25], [0.40, 0.30], [0.30, 0.20]).pipe(plateau_tests, bad, main)
    n = RC.plateau_counts(falls)
    assert verdict(falls) == "fails" and n["plateau"] == "0 / 1" and n["uniform"] == "0 / 1"
    # the same means with runs spread far wider than the gaps: nothing is shown
    wide = plateau_tests(plateau_runs([0.41, 0.40], [0.40, 0.30], [0.30, 0.25], spread=0.3), bad, main)
    assert verdict(wide) == "inconclusive"
    # two cells, one shown and one contradicted: a counterexample to "every cell" that survives Holm fails it
    two = pd.concat([t, t.assign(cell="d", d_uniform=-0.1, p_uniform=1e-6)], ignore_index=True)
    assert verdict(two) == "fails" and RC.plateau_counts(two)["uniform"] == "1 / 1"


def test_robin_lemma2_reported_at_the_papers_budget_ratio():
    rows = [dict(K=10, B=1001, factor=100, lower_violated=True, worst_shortfall=3.0),
            dict(K=20, B=2001, factor=100, lower_violated=False, worst_shortfall=-1.0),
            dict(K=10, B=21, factor=2, lower_violated=True, worst_shortfall=9.0)]
    text = RC._lemma2_at_paper_ratio(rows)
    assert "B = 100 K + 1" in text and "violated in 1/2 configurations" in text and "shortfall 3 queries" in text


def correlation_runs(changes: dict, reps: int = 12, seed: int = 0) -> pd.DataFrame:
    """Per cell, each run's Pearson r at the smallest and full budget: start 0.3 + noise, plus ``change``."""
    rng = np.random.default_rng(seed)
    rows = []
    for cell, ch in changes.items():
        start = 0.3 + rng.normal(0, 0.02, reps)
        for frac, r in ((0.2, start), (1.0, start + ch + rng.normal(0, 0.005, reps))):
            rows += [dict(cell=cell, method_id="robin-hood", rep=i, budget_frac=frac, pearson=v) for i, v in enumerate(r)]
    return pd.DataFrame(rows)


def test_robin_correlation_rise_is_tested_not_counted():
    assert RC.correlation_rise_claim(correlation_runs({"a": 0.05, "b": 0.04}), "robin-hood").verdict == "holds"
    # a null change in b (seed 2: one-sided p 0.55 / 0.45) beside a clear rise in a: partly (the universal rule)
    assert RC.correlation_rise_claim(correlation_runs({"a": 0.05, "b": 0.0}, seed=2), "robin-hood").verdict == "partly"
    # a significant fall in one cell refutes "rises": fails, written not reproduced (nothing excludes our error)
    assert RC.correlation_rise_claim(correlation_runs({"a": 0.05, "b": -0.05}), "robin-hood").verdict == "not reproduced"
    # a tiny mean change inside the run-to-run noise is not a rise
    assert RC.correlation_rise_claim(correlation_runs({"a": 0.0, "b": 0.0}, seed=3), "robin-hood").verdict == "inconclusive"


def test_robin_higher_delta_rule():
    LO, HI = "robin-hood:delta=0.007:ucb=delta", "robin-hood:delta=0.07:ucb=delta"
    rng = np.random.default_rng(0)

    def runs(hi_mean):
        rows = []
        for cell in ("a", "b"):
            for mid, mu in (("robin", 0.10), (LO, 0.20), (HI, hi_mean)):
                rows += [dict(cell=cell, kind="real", method_id=mid, budget=100, rep=r, wce=mu + rng.normal(0, 0.01))
                         for r in range(20)]
        return pd.DataFrame(rows)

    assert RC.higher_delta_claim(runs(0.12), LO, HI).verdict == "holds"
    assert RC.higher_delta_claim(runs(0.30), LO, HI).verdict == "fails"
    assert RC.higher_delta_claim(runs(0.2001), LO, HI).verdict == "inconclusive"


def test_half_the_queries_is_graded_on_intervals_with_holm_over_cells():
    """Issue 57, item 4 under issue 73's one rule for "every case": each cell's crossing is a case (one-sided
    bootstrap p-values at 60%); "holds" needs every cell shown within, a cell shown beyond after Holm over the cells
    makes it fail, cells shown only within (after Holm) make it partly, and a cell whose interval straddles 60%
    decides nothing."""
    from paperlib.decide import decide

    def table(need, lo, hi, p):
        return pd.DataFrame(dict(cell=[f"c{i}" for i in range(len(need))], kind="real", frac_needed=need, lo=lo,
                                 hi=hi, p_half=p))

    def verdict(t):
        return decide("universal", RC.half_cases(t)).verdict

    assert verdict(table([0.4, 0.5], [0.35, 0.45], [0.45, 0.58], [0.001, 0.01])) == "holds"
    # one cell shown within, one straddles 60%: shown somewhere, contradicted nowhere
    assert verdict(table([0.4, 0.62], [0.35, 0.5], [0.45, 0.7], [0.001, 0.4])) == "partly"
    # one cell shown beyond 60% (p = 0.001, Holm over two cells): a counterexample
    assert verdict(table([0.4, 0.9], [0.35, 0.8], [0.45, 1.0], [0.001, 0.001])) == "fails"
    assert verdict(table([0.8, 0.9], [0.7, 0.8], [0.9, 1.0], [0.001, 0.001])) == "fails"
    # two of many cells beyond at p = 0.01 each: significant alone, not after Holm over 40 cells
    need = [0.62] * 38 + [0.9, 0.9]
    t = table(need, [0.5] * 38 + [0.7, 0.7], [0.7] * 38 + [1.0, 1.0], [0.5] * 38 + [0.01, 0.01])
    assert verdict(t) == "inconclusive" and RC._half_counts(t) == {"within": 0, "beyond": 0}
    assert RC._half_counts(table([0.4, 0.9], [0.35, 0.8], [0.45, 1.0], [0.001, 0.001])) == {"within": 1, "beyond": 1}


def test_a_cell_run_as_blocks_is_the_cell_run_as_one_batch():
    """Issue 67, item 2: a ROBIN cell's runs in blocks of 2 (in reverse order) are exactly the rows of all its runs
    at once (keyed streams), WCE, MAE and run index alike."""
    import pandas as pd

    from paperlib.papers.robin.experiments import cell_blocks, run_cell
    from paperlib.pipeline.config import smoke_config

    cfg = {**smoke_config("robin"), "reps": 5}
    one = run_cell("synthetic-discrete", cfg, device="cpu", progress=False)
    blocked = {**cfg, "rep_block": 2}
    assert cell_blocks(blocked) == [0, 1, 2]
    parts = pd.concat([run_cell("synthetic-discrete", blocked, device="cpu", progress=False, block=b) for b in (2, 1, 0)])
    key, cols = ["method_id", "budget", "rep"], ["method_id", "budget", "rep", "wce", "mae"]
    a = parts.sort_values(key).reset_index(drop=True)[cols]
    assert a.equals(one.sort_values(key).reset_index(drop=True)[cols])
    assert sorted(parts.rep.unique()) == [0, 1, 2, 3, 4]
    # each cell says what made it (issue 74, item 3): the machine and the keyed streams, on every row
    from paperlib.device import describe, get_device
    from paperlib.keyed import STREAMS

    assert set(parts.machine) == {describe(get_device("cpu"))} and set(parts.streams) == {STREAMS}


def test_setup_arithmetic_sets_each_published_warm_up_beside_ours():
    """Issue 73, item 4: the captions' 20,164 and 10,807 each beside our K t0, truncated. By hand: 4 ln(1/0.007) =
    19.847, x 1,016 = 20,164.9 and x 1,017 = 20,184.8; 4 ln(1/0.07) = 10.637, x 1,016 = 10,807.2 and x 1,017 =
    10,817.9, so only K = 1,016 gives both."""
    rows = {0.007: {"K1017": 20184.8, "K1016": 20164.9}, 0.07: {"K1017": 10817.9, "K1016": 10807.2}}
    cases = RC.setup_cases(rows, ["K1016"])
    assert [(c.name, c.estimate, c.paper) for c in cases] == [
        ("delta = 0.007, K = 1,016", 20164, 20164), ("delta = 0.07, K = 1,016", 10807, 10807)]
    assert decide("exact", cases).verdict == "holds"
    # no reading gives both: graded on the README's 1,017, and each warm-up it misses contradicts the statement
    missed = RC.setup_cases(rows, [])
    assert [c.estimate for c in missed] == [20184, 10817] and decide("exact", missed).verdict == "fails"
