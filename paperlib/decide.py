"""Verdicts, and the one place they are decided (issue 73: a verdict is computed, never written).

A ledger row declares its kind of statement (:data:`KINDS`) and its cases (:class:`Case`: statistics only, the
p-values of the tests in both directions); :func:`decide` applies the kind's one rule (:data:`RULES`) to the cases of
the data kind the row is graded on. The helpers below make cases from measurements (:func:`exact_case`,
:func:`rate_case`, :func:`interval_case`, :func:`equivalence_case`, :func:`share_case`) and the tests behind them
(Fisher's exact test, Holm's correction, bootstrap and normal p-values); none of them returns a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

Z95 = 1.96


class Verdict(StrEnum):
    """The verdict of a ledger row; a ``str``, so rows and CSV cells hold the plain word.

    * ``holds``: the row's test could have failed and did not; every part of the statement is shown.
    * ``fails``: the row's own rule says the statement does not hold, and the evidence names what excludes our own
      error (the authors' code on the same data, an exact computation or an independent re-derivation).
    * ``not reproduced``: the row's own rule says the statement does not hold in our run, but nothing yet excludes
      our own error (implementation, inferred settings, other matrices); the row names that as the open question.
      Counted apart from ``fails`` and from ``inconclusive`` everywhere.
    * ``partly``: some parts or cases hold and others fail.
    * ``inconclusive``: the intervals allow both answers (no difference is shown either way); nothing else.
    * ``untestable``: the statement cannot be tested on the data we have, or a test of it could not fail (the row
      says why).
    """

    HOLDS = "holds"
    FAILS = "fails"
    NOT_REPRODUCED = "not reproduced"
    PARTLY = "partly"
    INCONCLUSIVE = "inconclusive"
    UNTESTABLE = "untestable"










def across_fits(main, per_fit) -> Verdict:
    """A row graded on what holds under every fit of a fitted input (issue 67, item 5: PULSE's Step 1 factors V).
    ``main``: the row's verdict with the published fit and all its runs; ``per_fit``: its verdict under each fit with
    fewer runs. ``inconclusive`` under a fit is a loss of power, not a contradiction, and moves nothing. Where the
    decided verdicts disagree in direction (some fit shows the statement, ``holds`` or ``partly``, and some
    contradicts it, ``fails`` or ``not reproduced``) the statement holds under some fits and not others:
    ``partly``. Where all decided verdicts show it, ``holds`` only if every one holds (else ``partly``). Otherwise
    ``main`` stands."""
    main = Verdict(main)
    decided = {Verdict(v) for v in [main, *per_fit]} - {Verdict.INCONCLUSIVE, Verdict.UNTESTABLE}
    pos, neg = {Verdict.HOLDS, Verdict.PARTLY}, {Verdict.FAILS, Verdict.NOT_REPRODUCED}
    if decided & pos and decided & neg:
        return Verdict.PARTLY
    if main in pos and decided <= pos:
        return Verdict.HOLDS if decided == {Verdict.HOLDS} else Verdict.PARTLY
    return main






def fisher_point_pvalues(k1, n1, k2, n2) -> np.ndarray:
    """At every point, Fisher's exact two-sided p-value of two success counts ``k1 / n1`` and ``k2 / n2`` (scipy's
    :func:`~scipy.stats.fisher_exact`); 1 where the two rates are equal (no test)."""
    from scipy.stats import fisher_exact

    return np.asarray([fisher_exact([[a, na - a], [b, nb - b]]).pvalue if a * nb != b * na else 1.0
                       for a, na, b, nb in zip(np.asarray(k1, int), np.asarray(n1, int), np.asarray(k2, int),
                                               np.asarray(n2, int), strict=True)], float)


def _fisher_pvalues(k1, n1, k2, n2) -> tuple[np.ndarray, np.ndarray]:
    """Over the points where the two rates differ: Fisher's exact two-sided p-value and whether the first is higher."""
    k1, n1, k2, n2 = (np.asarray(x, int) for x in (k1, n1, k2, n2))
    differ = k1 * n2 != k2 * n1
    return fisher_point_pvalues(k1, n1, k2, n2)[differ], (k1 / n1 > k2 / n2)[differ]


def fisher_counts(k1, n1, k2, n2, alpha: float = 0.05) -> tuple[int, int, int]:
    """Per point, two success counts ``k1 / n1`` and ``k2 / n2`` compared by Fisher's exact two-sided test.

    Returns (points where the first is significantly higher, significantly lower, points where the two rates
    differ at all).
    """
    pv, higher = _fisher_pvalues(k1, n1, k2, n2)
    sig = pv < alpha
    return int((sig & higher).sum()), int((sig & ~higher).sum()), int(pv.size)


def fisher_holm(k1, n1, k2, n2, alpha: float = 0.05) -> tuple[int, int]:
    """(first significantly higher, significantly lower) over the points where the rates differ, Fisher's exact
    two-sided test with Holm's step-down correction for the family of points (:func:`holm_reject`):
    a family-wise error rate of ``alpha`` where :func:`fisher_counts` holds each point at ``alpha``."""
    pv, higher = _fisher_pvalues(k1, n1, k2, n2)
    return holm_signs(pv, np.where(higher, 1.0, -1.0), alpha)


def holm_reject(pvalues, alpha: float = 0.05) -> np.ndarray:
    """Which of a family of tests reject under Holm's step-down correction (a missing p-value never rejects): a
    family-wise error rate of ``alpha``. The i-th smallest p-value (i from 0) rejects when it and every smaller one
    lie at or below alpha / (n - i), as statsmodels' ``multipletests(method="holm")`` decides; written here because
    that function calls ``gc.collect()`` on every call (about 100 ms in a process holding the ledger, measured
    2026-12-03), which made every verdict seconds long. ``tests/test_decide.py`` checks both against statsmodels."""
    p = np.nan_to_num(np.asarray(pvalues, dtype=float), nan=1.0)
    if not p.size:
        return np.zeros(0, dtype=bool)
    order = np.argsort(p, kind="stable")
    n = p.size
    ok = p[order] <= alpha / np.arange(n, 0, -1)
    reject_sorted = np.cumprod(ok).astype(bool)  # step-down: stops at the first test that does not reject
    out = np.zeros(n, dtype=bool)
    out[order] = reject_sorted
    return out


def holm_signs(pvalues, signs, alpha: float = 0.05) -> tuple[int, int]:
    """(significantly positive, significantly negative) among a family of two-sided tests, each given by its p-value
    and the sign of its effect, with Holm's step-down correction over the family (:func:`holm_reject`). What a verdict
    counts where it rests on some of many tests (issue 57); a rule that needs every test to reject (an
    intersection-union test) tests each at ``alpha`` instead and says so."""
    reject = holm_reject(pvalues, alpha)
    s = np.sign(np.asarray(signs, dtype=float))
    return int((reject & (s > 0)).sum()), int((reject & (s < 0)).sum())


def normal_p(d, se) -> np.ndarray:
    """Two-sided p-values of differences ``d`` with standard errors ``se`` under a normal approximation (1 where the
    standard error is 0 or missing and the difference is 0)."""
    from scipy.stats import norm

    d, se = np.asarray(d, dtype=float), np.asarray(se, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, np.abs(d) / se, np.where(d != 0, np.inf, 0.0))
    return 2 * norm.sf(np.nan_to_num(z, nan=0.0))


def bootstrap_p(draws) -> float:
    """Two-sided p-value of "the difference is 0" from bootstrap draws of it: twice the smaller share of draws on
    either side of 0 (at least 1 / number of draws), the percentile interval's dual."""
    x = np.asarray(draws, dtype=float)
    x = x[np.isfinite(x)]
    if not x.size:
        return 1.0
    return float(min(1.0, max(2 * min((x <= 0).mean(), (x >= 0).mean()), 1.0 / x.size)))


def rate_counts(table, a: str, b: str):
    n1, n2 = table[("reps", a)].astype(int).to_numpy(), table[("reps", b)].astype(int).to_numpy()
    k1 = (table[("accuracy", a)] * n1).round().astype(int).to_numpy()
    k2 = (table[("accuracy", b)] * n2).round().astype(int).to_numpy()
    return k1, n1, k2, n2


def fisher_rates(table, a: str, b: str, alpha: float = 0.05) -> tuple[int, int, int]:
    """:func:`fisher_counts` of methods ``a`` against ``b`` from a pivot table whose columns are
    (``"accuracy"``, method) and (``"reps"``, method), one row per point: success counts are accuracy x runs."""
    return fisher_counts(*rate_counts(table, a, b), alpha)


def fisher_rates_holm(table, a: str, b: str, alpha: float = 0.05) -> tuple[int, int]:
    """:func:`fisher_holm` from the pivot table of :func:`fisher_rates`."""
    return fisher_holm(*rate_counts(table, a, b), alpha)



# ------------------------------------------------------------------------------------------------------------------
# Verdicts by construction (issue 73): a ledger row is data, (kind, cases), and :func:`decide` alone makes its verdict.
# A claim builder computes cases (statistics: estimates, intervals, p-values in both directions) and wording, never a
# verdict and never a "shown" flag; the rule that turns cases into a verdict is stated once per kind, below, and on
# the report's methods page (:data:`RULES`).
# ------------------------------------------------------------------------------------------------------------------

ALPHA = 0.05

#: the kinds of statement a row can declare
KINDS = ("universal", "some", "comparison", "bound", "equivalence", "exact", "theorem", "untestable")

#: the kinds whose rows check a mathematical statement (a lemma, a theorem, an identity or a paper's arithmetic), not
#: an empirical one: the tallies split a paper's holds by them (issue 73, item 4: a tally of holds that are all theory
#: must say so)
THEORY_KINDS = ("exact", "theorem")


def is_theory(kind: str) -> bool:
    """Whether a row of this kind checks theory (:data:`THEORY_KINDS`) rather than an empirical statement."""
    return kind in THEORY_KINDS


#: the data kinds, in the order in which they stand for a paper's setting when a row does not name one
DATA_KINDS = ("real", "semi-synthetic", "synthetic", "none")


def data_kind(kind) -> str:
    """A table's data kind (a dataset's, a pool's, a cell's ``kind`` column) as a case names it: one of
    :data:`DATA_KINDS`, anything else ``none``. The one place every claim builder maps its tables' kinds."""
    return kind if kind in DATA_KINDS else "none"

#: one sentence per kind: the rule :func:`decide` applies (the methods page prints these, and each row names its own)
RULES = {
    "universal": "a statement about every case: holds only if every case shows it, each at 0.05 (an intersection-union "
                 "test: no correction needed); fails if some case contradicts it after Holm's correction over the "
                 "cases; partly if some case shows it after Holm and none contradicts it; else inconclusive",
    "some": "a statement about some case: holds if some case shows it after Holm's correction over the cases (and, "
            "where the paper states a number for it, that number lies in the shown case's 95% interval); partly if "
            "shown only with the paper's number outside every shown case's interval; fails if every case contradicts "
            "it, each at 0.05 (an intersection-union test); else inconclusive",
    "comparison": "A does better than B (not claimed at every case): holds if A is better at some case and worse at "
                  "none, both after Holm's correction over the cases; partly if both; fails if only worse; else "
                  "inconclusive",
    "bound": "a bound value <= limit at every case: the universal rule, each case's p-values those of the one-sided "
             "tests of value < limit and value > limit",
    "equivalence": "'similar' at every case: the universal rule, a case shown when its difference is within the "
                   "paper's margin (two one-sided tests), contradicted when it is beyond the paper's drastic margin",
    "exact": "an exact check of a mathematical statement at every case tested: holds if it is true at every case and "
             "at least one case could have come out false; fails if false at some case; untestable if no case "
             "could have failed (true by construction)",
    "theorem": "a theorem checked at the configurations tested: the universal rule over them, its verdict said 'at "
               "the N configurations tested'",
    "untestable": "cannot be tested on the data here (the row says why)",
}

#: said once beside the rules (the methods page): what a case that could not have failed counts for
VACUOUS_RULE = ("in every kind, a case that could not have come out against the statement (true by construction) "
                "shows nothing: it is left out of what shows the statement, and a row with no other case is "
                "untestable; a contradiction found at such a case still counts (it would be an error of the "
                "derivation or of ours)")

#: the margins of "similar" per paper, one each (issue 73, item 1): (similar, drastic) on the statement's own scale
EQUIVALENCE_MARGINS = {"Zhou et al. 2025": (0.1, 0.25)}


@dataclass(frozen=True)
class Case:
    """One case of a row: a dataset, a (pool, budget) point, a cell, a configuration; statistics only.

    ``p_for``: the p-value of the test that would show the statement at this case (H0: it does not hold here), small
    when the case shows it; ``p_against``: the p-value of the test that would contradict it (H0: it holds here),
    small when the case contradicts it. An exact check has p-values 0 or 1 (and ``could_fail`` says whether the
    check could have come out false at this case). ``fit``: which fit of a fitted input (PULSE's Step 1 V) the case
    was measured under, 0 the published one. ``paper``: the paper's number for this case, where it states one."""

    name: str
    data: str
    estimate: float = float("nan")
    lo: float = float("nan")
    hi: float = float("nan")
    p_for: float = 1.0
    p_against: float = 1.0
    paper: float | None = None
    could_fail: bool = True
    fit: int = 0

    def __post_init__(self):
        if self.data not in DATA_KINDS:
            raise ValueError(f"a case's data kind is one of {DATA_KINDS}, got {self.data!r}")
        for name in ("estimate", "lo", "hi"):
            object.__setattr__(self, name, float(getattr(self, name)))
        object.__setattr__(self, "paper", None if self.paper is None else float(self.paper))
        object.__setattr__(self, "name", str(self.name))
        object.__setattr__(self, "could_fail", bool(self.could_fail))
        object.__setattr__(self, "fit", int(self.fit))
        for name in ("p_for", "p_against"):
            p = float(getattr(self, name))
            if not 0.0 <= p <= 1.0:  # NaN fails too: a case without a test is p = 1 (it shows nothing)
                raise ValueError(f"case {self.name!r}: {name} must be a p-value in [0, 1], got {p}")
            object.__setattr__(self, name, p)


#: the columns of the committed cases table (``figures/<profile>/cases.csv``), one row per (claim, case)
CASE_COLUMNS = ("claim", "name", "data", "estimate", "lo", "hi", "p_for", "p_against", "paper", "could_fail", "fit")


def exact_case(name: str, data: str, true: bool, estimate=float("nan"), could_fail: bool = True,
               paper: float | None = None) -> Case:
    """A case of an exact check: the statement computed true (p_for 0) or false (p_against 0) at this case."""
    return Case(name, data, float(estimate), p_for=0.0 if true else 1.0, p_against=1.0 if true else 0.0,
                paper=paper, could_fail=could_fail)


def _one_kind(kind: str, cases: list[Case], alpha: float) -> Verdict:
    """The verdict of ``kind``'s rule (:data:`RULES`) on one data kind's cases under one fit. A case that could not
    have failed shows nothing (:data:`VACUOUS_RULE`): it is left out of what shows the statement, while a
    contradiction found at it still counts."""
    if kind == "untestable" or not cases:
        return Verdict.UNTESTABLE
    pa_all = np.array([c.p_against for c in cases])
    live = [c for c in cases if c.could_fail]
    pf = np.array([c.p_for for c in live])
    pa = np.array([c.p_against for c in live])
    if kind == "exact":
        if (pa_all < alpha).any():
            return Verdict.FAILS
        if not live:
            return Verdict.UNTESTABLE
        return Verdict.HOLDS if (pf < alpha).all() else Verdict.INCONCLUSIVE
    if kind == "some":
        shown = holm_reject(pf, alpha) if live else np.zeros(0, dtype=bool)
        if shown.any():  # shown somewhere: in full where the paper's number lies in a shown case's interval
            full = [c for c, s in zip(live, shown, strict=True) if s and (c.paper is None or c.lo <= c.paper <= c.hi)]
            return Verdict.HOLDS if full else Verdict.PARTLY
        if not live:
            return Verdict.UNTESTABLE
        return Verdict.FAILS if (pa < alpha).all() else Verdict.INCONCLUSIVE
    if kind == "comparison":
        better, worse = bool(live) and holm_reject(pf, alpha).any(), holm_reject(pa_all, alpha).any()
        if not live and not worse:
            return Verdict.UNTESTABLE
        return (Verdict.PARTLY if better and worse else Verdict.HOLDS if better else Verdict.FAILS if worse
                else Verdict.INCONCLUSIVE)
    # universal, bound, equivalence, theorem: one rule for every "on every case" statement
    if holm_reject(pa_all, alpha).any():
        return Verdict.FAILS
    if not live:
        return Verdict.UNTESTABLE
    if (pf < alpha).all():
        return Verdict.HOLDS
    return Verdict.PARTLY if holm_reject(pf, alpha).any() else Verdict.INCONCLUSIVE


def setting_kind(cases, setting: str | None = None) -> str:
    """The data kind a row is graded on: ``setting`` where the row names one (the data that stands for the paper's
    experiment), else the first of :data:`DATA_KINDS` the row has cases of (real before semi-synthetic before
    synthetic): the one rule for combining data kinds, the same in every paper."""
    have = {c.data for c in cases}
    if setting is not None:
        if setting not in DATA_KINDS:
            raise ValueError(f"setting must be one of {DATA_KINDS}, got {setting!r}")
        return setting
    return next((k for k in DATA_KINDS if k in have), "none")


@dataclass(frozen=True)
class Decision:
    """What :func:`decide` made of a row: its verdict, the verdict per data kind (published fit), the data kind it
    was graded on, the verdict per fit where there are several, and the one rule that decided it."""

    verdict: Verdict
    by_data: dict
    graded_on: str
    by_fit: dict
    rule: str
    configurations: int

    def line(self) -> str:
        """The row's "(how verdicts are decided)" words: the rule, the data kind it was graded on, the other kinds'
        verdicts, the fits and the number of configurations for a theorem."""
        parts = [f"decided by paperlib.decide ({self.rule}) on the {self.graded_on} cases"]
        others = {k: v for k, v in self.by_data.items() if k != self.graded_on}
        if others:
            parts.append("other data kinds, shown not counted: " + ", ".join(f"{k} {v}" for k, v in others.items()))
        if len(self.by_fit) > 1:
            parts.append("per fit of V: " + ", ".join(f"fit {k} {v}" for k, v in self.by_fit.items()))
        if self.rule == "theorem":
            parts.append(f"at the {self.configurations} configuration{'s' if self.configurations != 1 else ''} tested")
        return "; ".join(parts)


def decide(kind: str, cases, setting: str | None = None, alpha: float = ALPHA) -> Decision:
    """The verdict of a row of ``kind`` from its ``cases`` (:class:`Case`): the rule of :data:`RULES` on the cases of
    the data kind it is graded on (:func:`setting_kind`), under the published fit; where the cases hold other fits of
    a fitted input, the verdict under each fit is combined by :func:`across_fits`. A paper's ``fails`` becomes ``not
    reproduced`` where nothing excludes our error (:func:`paperlib.ledger.decided`, applied to the row)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    cases = list(cases)
    on = setting_kind(cases, setting)
    fits = sorted({c.fit for c in cases}) or [0]
    by_fit = {k: _one_kind(kind, [c for c in cases if c.fit == k and c.data == on], alpha) for k in fits}
    main = by_fit.get(0, Verdict.UNTESTABLE)
    verdict = across_fits(main, [v for k, v in by_fit.items() if k != 0]) if len(by_fit) > 1 else main
    by_data = {d: _one_kind(kind, [c for c in cases if c.fit == 0 and c.data == d], alpha)
               for d in DATA_KINDS if any(c.data == d and c.fit == 0 for c in cases)}
    n_conf = len({c.name for c in cases if c.data == on and c.fit == 0})
    return Decision(verdict, by_data, on, by_fit if len(by_fit) > 1 else {}, kind, n_conf)


def one_sided_p(estimate, se, limit: float = 0.0) -> tuple[float, float]:
    """(p of "estimate <= limit" rejected, p of "estimate >= limit" rejected) under a normal approximation: the
    p-values of the one-sided tests that the value lies above / below ``limit``. A zero standard error gives 0 or 1."""
    from scipy.stats import norm

    d, s = float(estimate) - float(limit), float(se)
    if not np.isfinite(d):
        return 1.0, 1.0
    if s <= 0 or not np.isfinite(s):
        return (0.0 if d > 0 else 1.0), (0.0 if d < 0 else 1.0)
    return float(norm.sf(d / s)), float(norm.cdf(d / s))


def fisher_one_sided(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """(p of "rate 1 > rate 2", p of "rate 1 < rate 2"): Fisher's exact one-sided tests of two success counts."""
    from scipy.stats import fisher_exact

    t = [[int(k1), int(n1) - int(k1)], [int(k2), int(n2) - int(k2)]]
    return float(fisher_exact(t, alternative="greater").pvalue), float(fisher_exact(t, alternative="less").pvalue)


def split_p(p_two, toward) -> tuple[float, float]:
    """(p_for, p_against) of a case from a two-sided p-value and whether its estimate lies in the statement's
    direction (``toward`` > 0), or against it (< 0), or on neither side (0): the one-sided p-values, half the
    two-sided one on the estimate's side and one minus that on the other (exact for a symmetric test statistic)."""
    p = min(1.0, max(0.0, float(p_two) if np.isfinite(p_two) else 1.0))
    if toward > 0:
        return p / 2, 1 - p / 2
    if toward < 0:
        return 1 - p / 2, p / 2
    return 1.0, 1.0


def cases_summary(cases, what: str, prep: str = "in", unit: str = "", sep: str = " || ",
                  empty: str = "no case") -> str:
    """Per data kind (published fit): the cases shown at 0.05 and after Holm, and contradicted at 0.05 and after Holm,
    of how many ("real: <what> <prep> 3 of 40<unit> (2 after Holm), contradicted <prep> 1 (1 after Holm)"): a row's
    measurement in words, never a verdict (the builders of every paper word their cases with it)."""
    parts = []
    for kind in ("real", "semi-synthetic", "synthetic"):
        cs = [c for c in cases if c.data == kind and c.fit == 0]
        if cs:
            pf, pa = np.array([c.p_for for c in cs]), np.array([c.p_against for c in cs])
            parts.append(f"{kind}: {what} {prep} {int((pf < ALPHA).sum())} of {len(cs)}{unit} "
                         f"({int(holm_reject(pf).sum())} after Holm), contradicted {prep} {int((pa < ALPHA).sum())} "
                         f"({int(holm_reject(pa).sum())} after Holm)")
    return sep.join(parts) if parts else empty


def rate_case(name: str, data: str, events: int, runs: int, limit: float, paper: float | None = None) -> Case:
    """A case of a bound on a probability, "P(event) <= limit" (a theorem's "with probability >= 1 - delta"):
    ``events`` of ``runs`` independent runs, the rate with its exact (Clopper-Pearson) 95% interval, and the exact
    one-sided binomial tests at ``limit``: ``p_for`` = P(X <= events | p = limit), small when the rate is shown below
    the limit; ``p_against`` = P(X >= events | p = limit), small when it is shown above (scipy's binomial law)."""
    from scipy.stats import binom

    from .stats import clopper_pearson

    k, n = int(events), int(runs)
    lo, hi = clopper_pearson(k, n)
    return Case(name, data, k / n, lo, hi, p_for=float(binom.cdf(k, n, limit)),
                p_against=float(binom.sf(k - 1, n, limit)), paper=paper)


def interval_case(name: str, data: str, estimate: float, lo: float, hi: float, limit: float, below: bool = True,
                  can_contradict: bool = True, paper: float | None = None) -> Case:
    """A case of a bound ``value <= limit`` (``below``; else ``value >= limit``) measured with a 95% interval
    [lo, hi] (bootstrap or normal): the one-sided p-values of a normal approximation whose standard error is the
    interval's half-width / 1.96. ``can_contradict=False`` where the statement allows what lies beyond the limit (a
    constant factor left open): the case can show the statement and never contradict it (``p_against`` 1)."""
    se = (float(hi) - float(lo)) / (2 * Z95)
    above, under = one_sided_p(estimate, se, limit)  # (value > limit shown, value < limit shown)
    p_for, p_against = (under, above) if below else (above, under)
    return Case(name, data, estimate, lo, hi, p_for=p_for, p_against=p_against if can_contradict else 1.0,
                paper=paper)


def equivalence_case(name: str, data: str, d: float, se: float, within: float, beyond: float,
                     valid: bool = True) -> Case:
    """A case of "similar" (or "not drastically different"): a difference ``d`` with standard error ``se`` (normal).
    ``p_for``: the two one-sided tests (TOST) of ``|d| >= within`` (small when the difference is shown inside
    +-within); ``p_against``: the test of ``|d| <= beyond``, either side (twice the smaller one-sided p-value; small
    when the difference is shown beyond +-beyond). ``valid=False`` (too few runs behind the normal approximation):
    a case that shows nothing either way (both p-values 1)."""
    from scipy.stats import norm

    d, se = float(d), float(se)
    if not valid or not np.isfinite(d):
        return Case(name, data, d, d - Z95 * se, d + Z95 * se)
    if se <= 0:
        p_for = 0.0 if abs(d) < within else 1.0
        p_against = 0.0 if abs(d) > beyond else 1.0
    else:
        p_for = float(max(norm.sf((d + within) / se), norm.cdf((d - within) / se)))
        p_against = float(min(1.0, 2 * min(norm.sf((d - beyond) / se), norm.cdf((d + beyond) / se))))
    return Case(name, data, d, d - Z95 * se, d + Z95 * se, p_for=p_for, p_against=p_against)



def holm_adjusted(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values of a family (a missing p-value is 1): the running maximum of (n - i) times
    the i-th smallest p-value, capped at 1, as statsmodels' ``multipletests(method="holm")`` returns them (written
    here for the reason :func:`holm_reject` gives); a test rejects under Holm at ``alpha`` when its adjusted p-value
    is at most ``alpha``."""
    p = np.nan_to_num(np.asarray(pvalues, dtype=float), nan=1.0)
    if not p.size:
        return np.zeros(0)
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1)))
    out = np.empty(p.size)
    out[order] = adj
    return out


def share_case(name: str, data: str, p_for_each, p_against_each, share: float, estimate: float | None = None,
               paper: float | None = None) -> Case:
    """A case of "at least ``share`` of the items show it" (ROBIN-HOOD-EB's "in at least 80% of the cells") from each
    item's one-sided p-values in both directions. With k = ceil(share x items), the statement is shown when at least k
    items are shown after Holm's correction over them (Holm controls the family-wise error, so every item it shows
    lies on its side with probability 1 - alpha), and contradicted when more than items - k are shown against it;
    since Holm rejects at ``alpha`` exactly the items whose adjusted p-values are at most ``alpha``, the case's
    ``p_for`` is the k-th smallest adjusted ``p_for`` and its ``p_against`` the (items - k + 1)-th smallest adjusted
    ``p_against``. Its interval: the share shown after Holm at 0.05 to one minus the share contradicted; its
    estimate the share of items whose estimate lies on the statement's side (``estimate``) where given."""
    pf, pa = holm_adjusted(p_for_each), holm_adjusted(p_against_each)
    n = pf.size
    if not n:
        return Case(name, data)
    k = int(np.ceil(share * n - 1e-9))
    p_for = float(np.sort(pf)[k - 1]) if k >= 1 else 0.0
    p_against = float(np.sort(pa)[n - k]) if k >= 1 else 1.0
    lo, hi = (pf <= ALPHA).sum() / n, 1 - (pa <= ALPHA).sum() / n
    return Case(name, data, float("nan") if estimate is None else estimate, lo, hi, p_for=min(1.0, p_for),
                p_against=min(1.0, p_against), paper=paper)
