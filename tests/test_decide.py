"""The shared decision rules (paperlib.decide), on cases whose verdict follows from the rule's wording."""

import numpy as np
import pytest
from ledger_rows import cases_for

from paperlib.decide import Case, decide, equivalence_case, fisher_counts, interval_case
from paperlib.ledger import VERDICTS, Claim


def test_verdicts_are_plain_words_in_rows():
    kind, cases = cases_for("partly")
    c = Claim("p", "c", "s", "e", "m", decide(kind, cases).verdict, kind, "", cases)
    assert c.verdict == "partly" and type(c.verdict) is str
    assert VERDICTS == ("holds", "fails", "not reproduced", "partly", "inconclusive", "untestable")
    with pytest.raises(ValueError, match="verdict must be one of"):
        Claim("p", "c", "s", "e", "m", "mostly", kind, "", cases)


def test_a_bound_reads_intervals_against_the_limit():
    """A bound value <= 1 at two points with normal 95% intervals: every interval below it holds; a point far above
    it fails (surviving Holm over the two); a point just above at 95% but not after Holm, or an interval that
    contains the limit, is inconclusive or partly (the other point shown)."""
    def verdict(*points):
        return decide("bound", [interval_case(f"p{i}", "real", (lo + hi) / 2, lo, hi, 1.0)
                                for i, (lo, hi) in enumerate(points)]).verdict

    assert verdict((0.1, 0.3), (0.5, 0.9)) == "holds"
    assert verdict((0.1, 0.3), (1.2, 1.4)) == "fails"
    assert verdict((0.1, 0.3), (0.99, 1.4)) == "partly"  # p_against 0.031 at one of two: not after Holm
    assert verdict((0.8, 1.2), (0.9, 1.1)) == "inconclusive"


def test_equivalence_needs_intervals_inside_the_margin():
    """'Similar' at one pair with se 0.01 (half-width 0.0196) at margins 0.1 (similar) and 0.3 (drastic)."""
    def verdict(d, se=0.01):
        return decide("equivalence", [equivalence_case("x", "real", d, se, 0.1, 0.3)]).verdict

    assert verdict(0.05) == "holds"      # 0.0696 <= 0.1: both one-sided tests reject
    assert verdict(0.09) == "inconclusive"  # within 0.1 but not shown so, and not beyond 0.3
    assert verdict(0.35) == "fails"      # beyond 0.3 by 5 s.e.
    assert verdict(0.01, 0.1) == "inconclusive"
    assert decide("equivalence", []).verdict == "untestable"


def test_fisher_counts_against_scipy_on_a_textbook_table():
    # 45/50 vs 30/50: Fisher's two-sided p = 0.00083 (significant); 26/50 vs 25/50 is not; equal rates do not differ
    up, down, differ = fisher_counts([45, 26, 20, 25], [50, 50, 50, 50], [30, 25, 40, 25], [50, 50, 50, 50])
    assert (up, down, differ) == (1, 1, 3)





def test_holm_keeps_a_strong_difference_and_drops_a_marginal_one_among_many():
    """Holm over a family of points: the smallest p-value is compared with alpha / (points that differ). A point at
    0.01 < p < 0.05 among 10 differing points is significant alone but not with Holm (p > 0.05 / 10); one at
    p < 1e-6 is."""
    from scipy.stats import fisher_exact

    from paperlib.decide import fisher_counts, fisher_holm

    p = fisher_exact([[62, 38], [45, 55]]).pvalue
    assert 0.01 < p < 0.05
    rows = [(62, 100, 45, 100)] + [(51, 100, 50, 100)] * 9  # nine more points that differ by one success
    k1, n1, k2, n2 = map(list, zip(*rows, strict=True))
    assert fisher_counts(k1, n1, k2, n2) == (1, 0, 10)
    assert fisher_holm(k1, n1, k2, n2) == (0, 0)
    k1[0], k2[0] = 10, 60  # p < 1e-6, the first now significantly lower
    assert fisher_holm(k1, n1, k2, n2) == (0, 1)


def test_holm_counts_what_survives_the_family_and_each_p_value_is_the_usual_one():
    """Holm's step-down by hand: p = 0.01, 0.03, 0.04 at 0.05: 0.01 <= 0.05 / 3 rejects, 0.03 > 0.05 / 2 stops; so one
    of the three that each reject at 0.05 survives the family (issue 57: a verdict on some of many tests)."""
    from paperlib.decide import bootstrap_p, holm_signs, normal_p

    assert holm_signs([0.01, 0.03, 0.04], [1, -1, 1]) == (1, 0)
    assert holm_signs([0.01, 0.03, 0.04], [-1, 1, 1]) == (0, 1)
    assert holm_signs([0.001, 0.002, 0.003], [1, -1, 1]) == (2, 1)  # 0.003 <= 0.05 / 1
    assert holm_signs([], []) == (0, 0)
    # z = 1.96: the two-sided normal p-value 0.05; no difference with no error: p = 1
    assert abs(normal_p([1.96], [1.0])[0] - 0.05) < 1e-3 and normal_p([0.0], [0.0])[0] == 1.0
    # 10 of 1,000 draws at or below 0: p = 2 x 0.01; all above: the floor 1 / 1,000
    assert abs(bootstrap_p([-1.0] * 10 + [1.0] * 990) - 0.02) < 1e-12 and bootstrap_p([1.0] * 1000) == 1e-3





def test_crossing_draws_collapse_onto_the_crossing_and_say_never():
    """The bootstrap of a crossing (issue 57, item 4): with very many runs per budget every draw is the curve itself,
    so each draw is the crossing that paperlib.metrics.first_crossing interpolates; a curve that stays below the level
    never crosses (inf); at 2,000 runs the 95% interval holds the point."""
    import numpy as np

    from paperlib.metrics import first_crossing
    from paperlib.stats import crossing_draws

    b, a = [100, 200, 300, 400], [0.5, 0.9, 0.97, 0.99]
    point = first_crossing(b, a, 0.95, direction="up")
    assert np.allclose(crossing_draws(b, a, [10**9] * 4, 0.95, n_boot=50), point, rtol=1e-3)
    assert np.isinf(crossing_draws(b, [0.5, 0.6, 0.7, 0.8], [10**6] * 4, 0.95, n_boot=20)).all()
    lo, hi = np.quantile(crossing_draws(b, a, [2000] * 4, 0.95, n_boot=2000), [0.025, 0.975])
    assert lo < point < hi and hi - lo < 40


def test_first_crossings_agree_row_by_row_with_a_naive_loop():
    """The vectorised crossing (paperlib.metrics.first_crossings, which metrics.first_crossing calls for one row)
    against a plain loop written here from the definition (first grid point at or past the target; linear
    interpolation from the point before; the first budget if already there; never: inf / nan), on random coarse curves
    with ties, early hits and misses, in both directions."""
    import numpy as np

    from paperlib.metrics import first_crossing, first_crossings

    def naive(b, c, t, up):
        for j, v in enumerate(c):
            if (v >= t) if up else (v <= t):
                if j == 0:
                    return b[0]
                e0, e1 = c[j - 1], v
                return b[j] if e0 == e1 else b[j - 1] + (b[j] - b[j - 1]) * (t - e0) / (e1 - e0)
        return np.inf

    rng = np.random.default_rng(3)
    b = np.array([0.2, 0.3, 0.5, 0.6, 1.0])
    curves = rng.integers(0, 5, size=(300, 5)) / 4.0  # coarse values: ties and exact hits
    targets = rng.integers(0, 5, size=300) / 4.0 + 0.1
    for direction in ("down", "up"):
        got = first_crossings(b, curves, targets, direction=direction)
        want = np.array([naive(b, c, t, direction == "up") for c, t in zip(curves, targets, strict=True)])
        assert np.array_equal(np.isinf(got), np.isinf(want)) and np.allclose(got[np.isfinite(got)], want[np.isfinite(want)])
        one = np.array([first_crossing(b, c, t, direction) for c, t in zip(curves[:20], targets[:20], strict=True)])
        assert np.array_equal(np.isnan(one), np.isinf(want[:20])) and np.allclose(one[~np.isnan(one)], want[:20][np.isfinite(want[:20])])
    assert np.isnan(first_crossing([], [], 0.5))


def test_run_bootstrap_crossing_covers_the_true_crossing():
    """ROBIN's "half the queries" interval (issue 57, item 4): runs of a method whose mean error falls linearly from
    1.0 to 0.0 over budgets 0.1..1.0, with Gaussian noise (sd 0.3) per run, against a target 0.45 +- noise: the true
    crossing is at 0.595. Over 400 independent experiments of 50 runs each, the 95% percentile interval must cover it
    at a rate whose exact 95% interval reaches 0.95 (a bootstrap is approximate: we allow it to reach 0.93); and with
    noise-free runs every draw is the crossing itself."""
    import numpy as np

    from paperlib.stats import clopper_pearson, run_bootstrap_crossings

    b = np.linspace(0.1, 1.0, 10)
    mean = 1.0 - (b - 0.1) / 0.9
    truth = 0.1 + 0.9 * (1 - 0.45)
    exact = run_bootstrap_crossings(b, np.tile(mean, (5, 1)), np.full(5, 0.45), n_boot=30)
    assert np.allclose(exact, truth)
    rng = np.random.default_rng(0)
    hits = 0
    for i in range(400):
        runs = mean + rng.normal(0, 0.3, size=(50, 1)) + rng.normal(0, 0.05, size=(50, 10))
        target = 0.45 + rng.normal(0, 0.3, size=50)
        lo, hi = np.quantile(run_bootstrap_crossings(b, runs, target, n_boot=500, seed=i), [0.025, 0.975])
        hits += lo <= truth <= hi
    lo, hi = clopper_pearson(hits, 400)
    assert hi >= 0.93 and lo <= 0.99, (hits, lo, hi)


def test_precision1_reading_is_the_exact_one_sided_bound_at_k_equal_n():
    """Zhou's budget to precision 1 on R runs (every run settled): the one-sided 95% Clopper-Pearson lower bound at
    k = n = R is 0.05^(1/R), which statsmodels' two-sided 90% 'beta' interval gives as its lower end."""
    from statsmodels.stats.proportion import proportion_confint

    from paperlib.papers.zhou.claims import precision1_reading

    for reps in (10, 50, 200):
        lo, _ = proportion_confint(reps, reps, alpha=0.10, method="beta")
        assert f"at least {lo:.2f}" in precision1_reading(reps), (reps, lo, precision1_reading(reps))


def test_equivalence_counts_only_pairs_that_survive_holm():
    """One pair beyond the drastic margin 0.3 by 2.2 s.e. (p = 0.014): fails alone, not among eleven pairs (Holm:
    0.05 / 11 = 0.0045); then the ten exact ties shown similar make it partly."""
    tie = [equivalence_case(f"t{i}", "real", 0.0, 0.01, 0.1, 0.3) for i in range(10)]
    far = equivalence_case("far", "real", 0.41, 0.05, 0.1, 0.3)
    assert decide("equivalence", [far]).verdict == "fails"
    assert decide("equivalence", [far, *tie]).verdict == "partly"


def test_a_universal_statement_holds_only_where_every_case_is_shown():
    """Issue 68: one rule for 'on every dataset' statements. Shown on 16 of 23 datasets is partly, never holds (more
    cases never make it easier to pass); one case contradicting after Holm fails it, whatever the others show."""
    def verdict(shown, contradicted=0, rest=0):
        cases = ([Case(f"s{i}", "real", p_for=1e-4) for i in range(shown)]
                 + [Case(f"c{i}", "real", p_against=1e-6) for i in range(contradicted)]
                 + [Case(f"r{i}", "real", p_for=0.5, p_against=0.5) for i in range(rest)])
        return decide("universal", cases).verdict

    assert verdict(23) == "holds"
    assert verdict(16, rest=7) == "partly"
    assert verdict(22, contradicted=1) == "fails"
    assert verdict(0, rest=5) == "inconclusive"
    assert verdict(0) == "untestable"


@pytest.mark.parametrize("main,per_fit,verdict", [
    ("holds", ["holds", "holds"], "holds"),  # the same under every fit
    ("holds", ["holds", "inconclusive"], "holds"),  # a fit at fewer runs only lost power
    ("holds", ["holds", "fails"], "partly"),  # shown under one fit, contradicted under another
    ("holds", ["partly", "holds"], "partly"),  # not every part holds under every fit
    ("fails", ["holds", "fails"], "partly"),
    ("fails", ["fails", "inconclusive"], "fails"),
    ("inconclusive", ["holds", "holds"], "inconclusive"),  # fewer runs do not overrule the published fit's runs
    ("inconclusive", ["holds", "fails"], "partly"),
    ("not reproduced", ["not reproduced", "fails"], "not reproduced"),
])
def test_across_fits_grades_what_holds_under_every_fit(main, per_fit, verdict):
    """Issue 67, item 5: a row whose verdict changes with the fit of Step 1 is graded on what holds under every fit;
    an inconclusive fit (fewer runs) contradicts nothing."""
    from paperlib.decide import across_fits

    assert across_fits(main, per_fit) == verdict


def test_share_case_p_values_are_holm_counts():
    """share_case's p-values are the smallest levels at which Holm shows k items (or more than n - k against): at any
    level alpha, the case rejects exactly when Holm's decisions at alpha count enough items (holm_reject, itself
    checked against statsmodels in test_holm_is_statsmodels_holm; statsmodels' own call collects garbage each time)."""
    from paperlib.decide import holm_reject, share_case

    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        pf, pa = rng.uniform(0, 0.08, n) ** rng.uniform(0.5, 2), rng.uniform(0, 1, n)
        share = float(rng.choice([0.5, 0.8, 1.0]))
        c = share_case("x", "real", pf, pa, share)
        k = int(np.ceil(share * n - 1e-9))
        for alpha in (0.01, 0.05, 0.1):
            assert (c.p_for <= alpha) == (holm_reject(pf, alpha).sum() >= k)
            assert (c.p_against <= alpha) == (holm_reject(pa, alpha).sum() > n - k)


def test_share_case_bounds_share_shown():
    """Four of five items shown at p = 0.001 and one not: at least 80% of them is shown, 100% is not."""
    from paperlib.decide import decide, share_case

    pf, pa = [0.001] * 4 + [0.9], [0.999] * 4 + [0.1]
    assert decide("bound", [share_case("x", "real", pf, pa, 0.8)]).verdict == "holds"
    assert decide("bound", [share_case("x", "real", pf, pa, 1.0)]).verdict == "inconclusive"
    # every item contradicted: fewer than 80% can hold
    assert decide("bound", [share_case("x", "real", pa, pf, 0.8)]).verdict == "fails"


def test_holm_is_statsmodels_holm(monkeypatch):
    """decide's Holm (written by hand: statsmodels' multipletests calls gc.collect() on every call) rejects the same
    tests and gives the same adjusted p-values as statsmodels, ties, NaN (never rejects) and empty families included."""
    import gc

    from statsmodels.stats.multitest import multipletests

    from paperlib.decide import holm_adjusted, holm_reject

    monkeypatch.setattr(gc, "collect", lambda *a: 0)  # statsmodels' collection, 0.1 s a call, decides nothing
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(1, 30))
        p = np.round(rng.uniform(0, 0.2, n) ** rng.uniform(0.3, 3), int(rng.integers(2, 6)))  # rounding makes ties
        for alpha in (0.01, 0.05, 0.1):
            np.testing.assert_array_equal(holm_reject(p, alpha), multipletests(p, alpha=alpha, method="holm")[0])
        np.testing.assert_allclose(holm_adjusted(p), multipletests(p, method="holm")[1], rtol=0, atol=1e-15)
    assert holm_reject([0.001, np.nan], 0.05).tolist() == [True, False]
    assert holm_adjusted([np.nan, 0.01]).tolist() == [1.0, 0.02]
    assert holm_reject([]).size == 0 and holm_adjusted([]).size == 0
