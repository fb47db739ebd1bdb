"""Issue 73: a verdict is computed, never written. A row declares its kind of statement and its cases; the rule of
its kind (paperlib.decide) alone makes the verdict; every committed verdict is recomputed here from its committed
cases; a statement quantified over every case is graded as universal."""

import math
import re

import numpy as np
import pytest
from ledger_rows import row

from paperlib.decide import RULES, Case, decide, exact_case, setting_kind
from paperlib.ledger import Claim, decided, read
from paperlib.paths import ROOT
from paperlib.pipeline.config import COMMITTED

# ---- the rules, on hand-made cases (the expected verdicts follow from RULES' sentences, with p-values by hand) ------


def C(p_for=1.0, p_against=1.0, data="real", fit=0, name=None, could_fail=True):
    C.n = getattr(C, "n", 0) + 1
    return Case(name or f"c{C.n}", data, 0.0, p_for=p_for, p_against=p_against, fit=fit, could_fail=could_fail)


def test_universal_needs_every_case_and_a_holm_surviving_counterexample_refutes():
    assert decide("universal", [C(0.04), C(0.01), C(0.049)]).verdict == "holds"  # each at 0.05, no correction
    assert decide("universal", [C(0.04), C(0.2)]).verdict == "inconclusive"  # 0.04 does not survive Holm over 2
    assert decide("universal", [C(0.01), C(0.2)]).verdict == "partly"  # 0.01 < 0.05 / 2 survives Holm
    # one of four at 0.03 alone is no counterexample after Holm (0.03 > 0.05 / 4); 0.001 is
    assert decide("universal", [C(0.2, 0.03), C(0.001), C(0.001), C(0.001)]).verdict == "partly"
    assert decide("universal", [C(0.001, 0.001), C(0.001), C(0.001), C(0.001)]).verdict == "fails"
    assert decide("universal", []).verdict == "untestable"
    for kind in ("bound", "equivalence", "theorem"):  # the same rule for every "on every case" statement
        assert decide(kind, [C(0.01), C(0.2)]).verdict == "partly"


def test_some_comparison_and_exact_checks():
    assert decide("some", [C(0.2), C(0.01)]).verdict == "holds"
    assert decide("some", [C(0.2, 0.01), C(0.3, 0.04)]).verdict == "fails"  # every case contradicts, each at 0.05
    assert decide("some", [C(0.2, 0.01), C(0.3, 0.2)]).verdict == "inconclusive"
    assert decide("comparison", [C(0.001), C(1, 0.001)]).verdict == "partly"
    assert decide("comparison", [C(0.001), C(0.6, 0.4)]).verdict == "holds"
    assert decide("comparison", [C(1, 0.001)]).verdict == "fails"
    assert decide("exact", [exact_case("a", "none", True), exact_case("b", "none", True)]).verdict == "holds"
    assert decide("exact", [exact_case("a", "none", True), exact_case("b", "none", False)]).verdict == "fails"
    # true by construction at every case: the check could not have failed, so it shows nothing (issue 73's vacuous
    # Lemma 2 row)
    assert decide("exact", [exact_case("a", "none", True, could_fail=False)]).verdict == "untestable"


def test_a_case_that_could_not_fail_shows_nothing_but_its_contradiction_counts():
    # a vacuous hold beside nothing: untestable in every kind (the Lemma 2 biased-predictions row, issue 73 item 3)
    for kind in ("universal", "bound", "theorem", "some", "comparison"):
        assert decide(kind, [C(0.0, could_fail=False)]).verdict == "untestable"
    assert decide("universal", [C(0.0, could_fail=False), C(0.01)]).verdict == "holds"  # the live case alone
    assert decide("universal", [C(1.0, 0.001, could_fail=False), C(0.01)]).verdict == "fails"
    assert decide("exact", [exact_case("x", "none", False, could_fail=False)]).verdict == "fails"


def test_some_with_the_papers_number_outside_every_shown_interval_is_partly():
    shown_in = Case("a", "real", 0.3, 0.2, 0.5, p_for=0.001, paper=0.46)
    shown_out = Case("b", "real", 0.2, 0.1, 0.3, p_for=0.001, paper=0.46)
    assert decide("some", [shown_in, C(0.5)]).verdict == "holds"
    assert decide("some", [shown_out, C(0.5)]).verdict == "partly"
    assert decide("some", [shown_out, shown_in]).verdict == "holds"


def test_rate_case_is_the_exact_binomial_test_against_the_claimed_probability():
    from scipy.stats import binomtest

    from paperlib.decide import rate_case

    c = rate_case("x", "synthetic", 3, 100, 0.1)
    # independent: scipy's exact binomial test, one-sided each way
    assert c.p_for == pytest.approx(binomtest(3, 100, 0.1, alternative="less").pvalue)
    assert c.p_against == pytest.approx(binomtest(3, 100, 0.1, alternative="greater").pvalue)
    assert c.lo < 0.03 < c.hi
    # 0 violations in 200 runs against 0.1: (0.9)^200, shown; 20 of 200 at 0.1 is neither
    assert decide("theorem", [rate_case("y", "none", 0, 200, 0.1)]).verdict == "holds"
    assert decide("theorem", [rate_case("y", "none", 20, 200, 0.1)]).verdict == "inconclusive"
    assert decide("theorem", [rate_case("y", "none", 40, 200, 0.1)]).verdict == "fails"


def test_interval_case_reads_the_interval_as_a_normal_one():
    from scipy.stats import norm

    from paperlib.decide import interval_case

    c = interval_case("k", "synthetic", 0.9, 0.8, 1.0, 1.0)  # se = 0.1 / 1.96: z = 1.96 below the limit
    assert c.p_for == pytest.approx(norm.sf(1.96)) and c.p_against == pytest.approx(norm.cdf(1.96))
    assert interval_case("k", "synthetic", 1.2, 1.1, 1.3, 1.0, can_contradict=False).p_against == 1.0


def test_equivalence_case_is_two_one_sided_tests_and_a_test_beyond_the_drastic_margin():
    """Hand-computed normal tail areas: d = 0, se 0.05 inside +-0.1 is two one-sided tests at z = 2 (p = 0.02275);
    d = 0.35 beyond +-0.25 by 2 s.e. (twice 0.02275, either side); too few runs shows nothing."""
    from paperlib.decide import equivalence_case

    c = equivalence_case("e", "real", 0.0, 0.05, 0.1, 0.25)
    assert c.p_for == pytest.approx(0.0227501, abs=1e-6) and c.p_against == pytest.approx(1.0, abs=1e-6)
    far = equivalence_case("e", "real", -0.35, 0.05, 0.1, 0.25)
    assert far.p_against == pytest.approx(2 * 0.0227501, abs=1e-6) and far.p_for > 0.99
    assert decide("equivalence", [c]).verdict == "holds" and decide("equivalence", [far]).verdict == "fails"
    few = equivalence_case("e", "real", 0.0, 0.05, 0.1, 0.25, valid=False)
    assert (few.p_for, few.p_against) == (1.0, 1.0) and decide("equivalence", [few]).verdict == "inconclusive"


def test_one_rule_for_data_kinds_and_fits():
    mixed = [C(0.001, data="synthetic"), C(0.001, data="synthetic"), C(0.6, 0.001, data="real")]
    d = decide("universal", mixed)
    assert d.graded_on == "real" and d.verdict == "fails" and d.by_data == {"real": "fails", "synthetic": "holds"}
    assert setting_kind(mixed[:2]) == "synthetic" and decide("universal", mixed[:2]).verdict == "holds"
    assert decide("universal", mixed, setting="synthetic").verdict == "holds"  # a row may name its setting
    assert "other data kinds, shown not counted: synthetic holds" in d.line()
    fits = [C(0.001), C(0.001, fit=1), C(0.9, 0.001, fit=2)]  # holds under fit 0 and 1, contradicted under fit 2
    assert decide("universal", fits).verdict == "partly" and "per fit of V" in decide("universal", fits).line()
    assert "at the 2 configurations tested" in decide("theorem", [C(0.01), C(0.01)]).line()


def test_a_builder_cannot_write_a_verdict():
    cases = (C(0.001, 0.9), C(0.8, 0.001))
    with pytest.raises(ValueError, match="its verdict is decided by paperlib.decide"):
        Claim("Zhou et al. 2025", "x", "s", "e", "m", "partly", "universal", "", cases)
    row = decided("Zhou et al. 2025", "x", "s", "[real] e", "m", "universal", cases)
    assert row.verdict == "not reproduced" and "Not reproduced" in row.measured  # fails, our error not excluded
    ours = decided("paperlib (ours)", "y", "s", "[real] e", "m", "universal", cases)
    assert ours.verdict == "fails"  # a row about our own setting is graded plainly
    assert "decided by paperlib.decide (universal) on the real cases" in row.evidence
    assert set(RULES) == {"universal", "some", "comparison", "bound", "equivalence", "exact", "theorem", "untestable"}


# ---- every committed verdict, recomputed from its committed cases -----------------------------------------------

LEDGERS = [ROOT / "figures" / p / "claims.csv" for p in COMMITTED]
FRAGMENTS = sorted((ROOT / "results").glob("*/claims/*.csv"))


@pytest.mark.parametrize("path", LEDGERS + FRAGMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_committed_verdict_is_what_decide_makes_of_its_committed_cases(path):
    """Reading a ledger recomputes each decided row's verdict from the cases committed beside it
    (paperlib.ledger.read -> Claim: any difference is an error); here also directly, row by row."""
    rows = read(path)  # raises on a decided row whose committed verdict is not decide's
    for c in rows:
        if c.kind:
            assert c.cases or c.kind == "untestable", f"{c.claim}: a decided row without committed cases"
            v = decide(c.kind, c.cases, c.setting or None).verdict
            if v == "fails" and not c.paper.startswith("paperlib") and "excludes our error:" not in c.evidence:
                v = "not reproduced"
            assert c.verdict == v, (path.name, c.claim)


@pytest.mark.parametrize("path", LEDGERS + FRAGMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_committed_row_declares_its_kind(path):
    """Issue 73, done when: no ledger row is built with a verdict string. Every committed row of both profiles has a
    kind of statement (untestable ones too), so each verdict above is decide's, none a builder's."""
    legacy = [c.claim for c in read(path) if not c.kind]
    assert not legacy, f"{path.name}: rows with a written verdict and no kind: {legacy}"


@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_papers_numbers_beside_ours_are_the_committed_cases(path):
    """Issue 73, item 4: figures/<profile>/paper_vs_ours.csv is made from the committed cases (every case with the
    paper's number, in ledger order), not written by hand; each row's deviation is ours minus the paper's."""
    import csv

    from paperlib.paper_vs_ours import rows

    committed = list(csv.DictReader(open(path.with_name("paper_vs_ours.csv"), newline="")))
    made = rows(read(path))
    assert [(r["claim"], r["case"]) for r in committed] == [(r["claim"], r["case"]) for r in made]
    for r, m in zip(committed, made, strict=True):
        assert float(r["paper_number"]) == m["paper_number"] and r["verdict"] == m["verdict"]
        assert float(r["deviation"]) == pytest.approx(float(r["ours"]) - float(r["paper_number"]), nan_ok=True)


def test_paper_vs_ours_reads_a_case_against_the_papers_number():
    from paperlib.paper_vs_ours import rows

    row = decided("Zhou et al. 2025", "x", "s", "[real] e", "m", "universal",
                  [Case("a", "real", 0.3, 0.2, 0.45, 0.01, 0.99, paper=0.4), Case("b", "real", 0.1, 0.0, 0.2, 0.01, 0.99)])
    (r,) = rows([row])  # the case without a paper's number is left out
    assert (r["case"], r["paper_in_interval"], r["verdict"]) == ("a", "yes", "holds")
    assert r["deviation"] == pytest.approx(-0.1)


def test_the_papers_numbers_are_summarised_per_row_and_number():
    """Issue 73, item 4: the report's table of the papers' numbers beside ours groups a row's cases by the number the
    paper states (a row may set two quantities beside two numbers), counts the cases whose interval holds the paper's
    number, and lists the rows that state a number (a share, a factor, calls) that no case sets beside ours; a
    theorem's "2K" inside a formula is not a stated number."""
    from paperlib.paper_vs_ours import markdown, summary, unmatched

    two = decided("Zhou et al. 2025", "two", "UCB-E needs 10% on hard and 3% less on easy", "[real] e", "m",
                  "universal", [Case("hard a", "real", 0.12, 0.08, 0.15, 0.01, 0.99, paper=0.1),
                                Case("hard b", "real", 0.30, 0.25, 0.35, 0.01, 0.99, paper=0.1),
                                Case("easy", "real", -0.05, -0.06, -0.04, 0.01, 0.99, paper=-0.03)])
    none = decided("Zhou et al. 2025", "none", "reaches it with 50k queries", "[real] e", "m", "universal",
                   [Case("c", "real", 0.6, 0.5, 0.7, 0.01, 0.99)])
    formula = decided("Zhou et al. 2025", "formula", "WCE <= sqrt(sum sigma^2 / B * log(2K/delta))", "[synthetic] e",
                      "m", "theorem", [Case("c", "synthetic", 0.0, 0.0, 0.1, 0.01, 0.99)])
    s = {r["paper_number"]: r for r in summary([two, none, formula])}
    assert set(s) == {0.1, -0.03}
    assert (s[0.1]["cases"], s[0.1]["inside"], s[0.1]["with_interval"]) == (2, 1, 2)
    assert s[0.1]["median"] == pytest.approx(0.21) and (s[0.1]["low"], s[0.1]["high"]) == (0.12, 0.30)
    assert (s[-0.03]["cases"], s[-0.03]["inside"]) == (1, 0)
    assert [c.claim for c in unmatched([two, none, formula], {"Zhou et al. 2025"})] == ["none"]
    md = markdown([two, none, formula], {"Zhou et al. 2025"}, screen_only=True)
    assert md[0] == '<div class="screen-only">' and "1 of 2 cases" in md[4] and md[-1].endswith("`none`.")
    compact = markdown([two, none, formula], {"Zhou et al. 2025"}, compact=True)
    assert all(x.startswith("|") or not x for x in compact)
    # a row with no case at all (untestable here: the paper's prices) is listed apart, as measured by nothing here
    cost = decided("Zhou et al. 2025", "cost", "costs almost 800 USD", "[none] needs prices", "-", "untestable", ())
    md = markdown([two, none, cost], {"Zhou et al. 2025"})
    assert md[-3].endswith("`none`.") and "nothing here measures" in md[-1] and md[-1].endswith("`cost`.")


def test_a_table_of_the_paper_is_set_beside_our_stand_ins():
    """Issue 73, item 4: Zhou's Table 2 states an H1 per matrix; the row is untestable (the matrices were never
    published), yet each H1 is set beside the H1 of our stand-in from the same benchmark, and a matrix we have no
    stand-in for says so rather than printing as an exact check."""
    import pandas as pd

    from paperlib.metrics import hardness_h1
    from paperlib.paper_vs_ours import markdown, rows
    from paperlib.papers.zhou.claims import dataset_claims

    means = {"alpacaeval2": [0.8, 0.7, 0.6], "alpacaeval2_clean": [0.7, 0.6], "sysrs_gsm": [0.9, 0.8, 0.85]}
    t2 = pd.DataFrame([dict(dataset=d, kind="real", n=len(m), m=100, H1=hardness_h1(m)) for d, m in means.items()])
    cols = [f"rank {r}{x}" for r in (1, 2, 5, 10) for x in ("", " null", " residual", " residual null")]
    t3 = pd.DataFrame([dict(dataset=d, kind="real", **dict.fromkeys(cols, 0.5)) for d in means])
    row = next(c for c in dataset_claims(t2, t3) if c.claim == "zhou-table2-matrices")
    assert row.verdict == "untestable"
    got = {r["case"].split(" (")[0]: r for r in rows([row])}
    assert len(got) == 6 and got["AlpacaEval 154x805"]["paper_number"] == 966.0
    # H1 of (0.8, 0.7, 0.6) is 1 / 0.1^2 + 1 / 0.2^2 = 125, by hand
    assert got["AlpacaEval 154x805"]["ours"] == pytest.approx(125.0)
    assert got["GSM8K Models 122x1000"]["ours"] == pytest.approx(1 / 0.1**2 + 1 / 0.05**2)
    assert math.isnan(got["PIQA Models 103x1000"]["ours"]) and got["PIQA Models 103x1000"]["same_setting"].startswith(
        "not measured")
    md = "\n".join(markdown([row], {"Zhou et al. 2025"}))
    assert "not measured (no stand-in)" in md and "an exact check" not in md
    # a paper whose table is an image in its text says so in its chapter, even with no row of its own here
    robin = markdown([], {"Saha et al. 2026 (ROBIN)"})
    assert robin and robin[-1].startswith("Numbers printed only as images:") and "Table 2" in robin[-1]
    assert not markdown([], {"Saha et al. 2026 (ROBIN)"}, compact=True)


def test_a_tampered_case_is_caught(tmp_path):
    """The check above can fail: in a copy of a committed ledger, the p-values of one decided row's cases swapped
    (its evidence turned round) make reading it an error, since the committed verdict is no longer decide's."""
    import csv
    import shutil
    from dataclasses import replace

    src = next((p for p in LEDGERS if any(c.kind for c in read(p))), None)
    if src is None:
        pytest.skip("no committed ledger has a decided row yet")
    rows = read(src)

    def swapped(c):
        return [replace(k, p_for=k.p_against, p_against=k.p_for) for k in c.cases]

    row = next(c for c in rows if c.kind and c.cases and decide(c.kind, swapped(c), c.setting or None).verdict
               != decide(c.kind, c.cases, c.setting or None).verdict)
    d = tmp_path / "figures" / "paper"
    d.mkdir(parents=True)
    shutil.copy(src, d / "claims.csv")
    with open(src.with_name("cases.csv"), newline="") as f:
        table = list(csv.DictReader(f))
    for r in table:
        if r["claim"] == row.claim:
            r["p_for"], r["p_against"] = r["p_against"], r["p_for"]
    with open(d / "cases.csv", "w", newline="") as f:
        w = csv.DictWriter(f, list(table[0]))
        w.writeheader()
        w.writerows(table)
    with pytest.raises(ValueError, match=f"{row.claim}: its verdict is decided by paperlib.decide"):
        read(d / "claims.csv")


# ---- the papers' quantifiers are universal statements -------------------------------------------------------------

QUANTIFIER = re.compile(r"\bevery\b|\ball\b|\bacross all\b|\bconsistently\b|\bthroughout\b|\bfor all values\b|"
                        r"\bacross datasets, gaps and budgets\b", re.I)
EVERY_CASE_KINDS = {"universal", "bound", "equivalence", "exact", "theorem", "untestable"}


#: a statement that names its cases existentially ("on some datasets") is of kind some even where "all" measures a
#: quantity ("needs >= 90% of all pairs on some datasets")
EXISTENTIAL = re.compile(r"\bon some (datasets|matrices|pools|cells|cases)\b", re.I)


def scope(statement):
    """The part of a statement that quantifies its claim: without its parenthesised asides (removed first, as an
    aside may hold a colon: "(bandit.py: ...)"), after a "Source: " prefix. The asides describe a method ("emptied at
    every refit", "every model's j-th example is the run's j-th example"), not the cases the claim is made on."""
    text = statement
    while True:
        shorter = re.sub(r"\([^()]*\)", "", text)
        if shorter == text:
            return text.split(": ", 1)[-1]
        text = shorter


@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: p.parent.name)
def test_a_quantified_statement_is_decided_as_universal(path):
    """A decided row whose statement says "every", "all", "across all", "consistently", "throughout", "for all
    values" or "across datasets, gaps and budgets" is of a kind graded on every case (never "some" or
    "comparison")."""
    bad = [c.claim for c in read(path) if c.kind and QUANTIFIER.search(scope(c.statement))
           and not (c.kind == "some" and EXISTENTIAL.search(scope(c.statement)))
           and c.kind not in EVERY_CASE_KINDS]
    assert not bad, f"quantified statements of a kind that does not need every case: {bad}"


def test_the_quantifier_check_can_fail():
    c = decided("Zhou et al. 2025", "x", "A beats B on every dataset", "[real] e", "m", "comparison",
                (Case("d", "real", 0.1, p_for=0.001),))
    assert QUANTIFIER.search(scope(c.statement)) and c.kind not in EVERY_CASE_KINDS
    assert np.isfinite(c.cases[0].estimate)


def test_an_existential_scope_is_not_a_universal_quantifier():
    assert EXISTENTIAL.search("Uniform sampling needs >= 90% of all pairs on some datasets")
    assert not EXISTENTIAL.search("A beats B on all datasets")


def test_an_aside_about_the_method_is_not_the_claims_scope():
    assert scope("A (emptied at every refit) beats B") == "A  beats B"
    assert not QUANTIFIER.search(scope("A (as in X (every model's j-th example)) beats B"))
    assert QUANTIFIER.search(scope("A (as in X) beats B on every dataset"))


def test_the_beyond_chapter_lists_our_own_rows_that_do_not_hold():
    """Issue 73, item 5: the chapter of paperlib rows said "every statement of ours that could be tested holds" above
    rows that fail, because the list kept the papers' rows only."""
    from paperlib.pipeline.book_cards import not_holding

    ours = [row("paperlib (race)", "r", "fails")]
    assert not_holding(ours) == "" and "fails" in not_holding(ours, papers_only=False)


def test_no_result_table_carries_a_verdict_of_its_own():
    """Issue 73: a verdict is decided only in paperlib.decide, so no committed result table but a ledger (claims) and
    the papers' numbers beside ours (which copies its row's verdict) has a verdict column (Corollary 1's table had
    one, decided by its own rule)."""
    import gzip
    import subprocess

    tracked = subprocess.run(["git", "ls-files", "results", "figures"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    bad = []
    for f in tracked:
        if not f.endswith((".csv", ".csv.gz")) or "/claims" in f or f.endswith("paper_vs_ours.csv"):
            continue
        with (gzip.open if f.endswith(".gz") else open)(ROOT / f, "rt") as fh:
            head = fh.readline().strip().split(",")
        if "verdict" in head:
            bad.append(f)
    assert not bad, f"result tables with a verdict column of their own: {bad}"
