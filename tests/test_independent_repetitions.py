"""Repetitions of a batched run never interact: run r of ``reps=R, seed=s`` is a run of its own.

One property over the whole registry (a method is covered the day it is registered): repetition r of
``simulate(method, ..., reps=R, seed=s)`` stands for the single run ``reps=1, seed=run_seeds[r]``. Repetitions share
one generator today, so "stands for" is checked in law: the R batched repetitions and the R single runs are two
samples of the same distribution at every checkpoint. Any quantity reduced over the repetitions that feeds a decision
(the smallest batch any repetition can take, as PULSE's ``_select`` once did) makes the batched runs a different
law, and the test sees it.

The tests at every checkpoint: Fisher's exact test on how many runs name the best model (matrix methods), and the
two-sample Kolmogorov-Smirnov test on every model's (item's) estimate and on the worst-case error (judge methods).
Bonferroni over all of a method's tests at ALPHA = 1e-3 (the seeds are fixed, so each case passes or fails the
same way every time). Power: on this matrix the old ``PULSE._select`` fails
(``test_the_check_catches_a_coupling``: p about 1e-6).

R = 1 is the trivial case (the batch is the run); R = 200 (100 for the methods whose steps cost milliseconds) is where
the law is tested. Bit-identical repetitions are not possible yet (one shared generator; see
:mod:`paperlib.simulate.seeds`).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from paperlib.data import low_rank_logistic
from paperlib.policies import JUDGE, MATRIX, METHODS, names, parse
from paperlib.simulate import run_judge, simulate, synthetic_judge
from paperlib.simulate.seeds import run_seeds

pytestmark = pytest.mark.slow

R = 200
ALPHA = 1e-3
SEED = 11
N, M, B = 6, 45, 8  # short rows of 5 B + 5, so that rows run out in short batches (where PULSE's coupling was)
BUDGETS = [48, 108, 148, 188]
PULSE_FAMILY = tuple(names(MATRIX, "backbone"))


def _matrix():
    return low_rank_logistic(N, M, gap=0.06, seed=3)


def _params(method):
    method = parse(method)[0]  # a variant id takes its method's settings
    if method in PULSE_FAMILY:
        v = {} if not METHODS[method].needs_factors else {"v": np.random.default_rng(0).normal(size=(M, 2)),
                                                           "refit_every": 3}
        return {"t0": 1, "batch_size": B, **v}
    if method in ("ucbe-lrf", "ucbe-lrf-score-only", "lrf"):
        return {"ensemble": 4, "init_sweeps": 3, "batch_size": 8}
    # batches of 4 for the one-pair-a-step methods: 4 times fewer steps, and the batched path is the one tested
    costs = {"costs": np.linspace(1.0, 0.2, N)} if METHODS[method].needs_costs else {}
    if METHODS[method].takes_prior:  # other models' scores on the same examples
        costs = {"prior": low_rank_logistic(6, M, gap=0.06, seed=4).scores}
    if method in ("ucbe", "ucbe-sync", "lucb", "lucb-pd", "lucb-cheap", "lucb-prior"):
        return {"batch_size": 4, **costs}
    return costs


def _bonferroni(pvalues):
    p = np.asarray([x for x in pvalues if np.isfinite(x)])
    return p, min(1.0, float(p.min()) * len(p)) if len(p) else 1.0


def _ks(a, b):
    a, b = np.nan_to_num(np.asarray(a, float), nan=-1.0), np.nan_to_num(np.asarray(b, float), nan=-1.0)
    if np.array_equal(np.sort(a), np.sort(b)):
        return 1.0
    return float(stats.ks_2samp(a, b).pvalue)


def matrix_pvalue(method, mat, R=R, **extra):
    """The Bonferroni-adjusted smallest p-value of the batched run against R single runs, with the reasons."""
    params = {**_params(method), **extra}
    batched = simulate(method, mat, BUDGETS, reps=R, seed=SEED, progress=False, device="cpu", **params)
    assert np.array_equal(batched.run_seeds, run_seeds(SEED, R))
    singles = [simulate(method, mat, BUDGETS, reps=1, seed=int(s), progress=False, device="cpu", **params)
               for s in batched.run_seeds]
    best = np.stack([s.best[:, 0] for s in singles], axis=1)  # (C, R)
    est = np.stack([s.estimates[:, 0] for s in singles], axis=1)  # (C, R, n)
    right = np.isin(batched.best, batched.true_best_set).sum(1)
    right1 = np.isin(best, batched.true_best_set).sum(1)
    ps, why = [], []
    for c in range(len(BUDGETS)):
        p = stats.fisher_exact([[right[c], R - right[c]], [right1[c], R - right1[c]]]).pvalue
        ps.append(p)
        why.append(f"budget {BUDGETS[c]}: right {right[c]}/{R} batched vs {right1[c]}/{R} single (Fisher p={p:.2g})")
        for i in range(N):
            ps.append(_ks(batched.estimates[c, :, i], est[c, :, i]))
            why.append(f"budget {BUDGETS[c]}, model {i}: estimates (KS p={ps[-1]:.2g})")
    p, adj = _bonferroni(ps)
    return adj, why[int(np.argmin(ps))]


#: methods whose steps cost milliseconds (the certificate's rules, the LRF ensemble): 100 runs, in a file of their own
#: (``test_independent_repetitions_slow_steps.py``) so that the two test workers share the load
SLOW_STEPS = ("lucb", "lucb-pd", "lucb-cheap", "ucbe-lrf", "ucbe-lrf-score-only", "auto")


#: variants whose batches or draws take another path: the paper-literal PULSE, the rejection sampler to the end of a
#: row, UCB-E's pending-count batches
VARIANTS = ("pulse:convention=paper", "pulse:sampler=rejection", "naive-pooling:convention=paper",
            "ucbe:batch_mode=pending")


@pytest.mark.parametrize("method", [m for m in names(MATRIX) if m not in SLOW_STEPS] + list(VARIANTS))
def test_a_batched_repetition_is_a_run_of_its_own(method):
    adj, worst = matrix_pvalue(method, _matrix())
    assert adj > ALPHA, f"{method}: the batched repetitions are not independent runs (adjusted p={adj:.2g}; {worst})"


@pytest.mark.parametrize("method", names(MATRIX))
def test_one_repetition_is_the_run(method):
    """R = 1: the batch is the run itself (run_seeds[0] is the seed), bit for bit."""
    mat = _matrix()
    a = simulate(method, mat, BUDGETS, reps=1, seed=5, progress=False, device="cpu", **_params(method))
    b = simulate(method, mat, BUDGETS, reps=1, seed=int(a.run_seeds[0]), progress=False, device="cpu",
                 **_params(method))
    assert a.run_seeds.tolist() == [5]
    np.testing.assert_array_equal(a.best, b.best)
    np.testing.assert_array_equal(a.estimates, b.estimates)


JUDGE_BUDGETS = [48, 96, 192]


@pytest.mark.parametrize("method", names(JUDGE) + ["robin-hood:ucb=delta"])
def test_a_batched_judge_repetition_is_a_run_of_its_own(method):
    judge = synthetic_judge("discrete", K=12, seed=2, device="cpu")
    batched = run_judge(method, judge, JUDGE_BUDGETS, reps=R, seed=SEED, device="cpu")
    singles = [run_judge(method, judge, JUDGE_BUDGETS, reps=1, seed=int(s), device="cpu") for s in batched.run_seeds]
    est = np.stack([s.estimates[:, 0] for s in singles], axis=1)
    wce1 = np.stack([s.wce()[:, 0] for s in singles], axis=1)
    ps, why = [], []
    for c in range(len(JUDGE_BUDGETS)):
        ps.append(_ks(batched.wce()[c], wce1[c]))
        why.append(f"budget {JUDGE_BUDGETS[c]}: worst-case error (KS p={ps[-1]:.2g})")
        for i in range(judge.K):
            ps.append(_ks(batched.estimates[c, :, i], est[c, :, i]))
            why.append(f"budget {JUDGE_BUDGETS[c]}, item {i}: estimates (KS p={ps[-1]:.2g})")
    counts1 = np.concatenate([s.counts for s in singles])
    for i in range(judge.K):
        ps.append(_ks(batched.counts[:, i], counts1[:, i]))
        why.append(f"item {i}: queries at the last budget (KS p={ps[-1]:.2g})")
    _, adj = _bonferroni(ps)
    assert adj > ALPHA, f"{method}: adjusted p={adj:.2g}; {why[int(np.argmin(ps))]}"


def test_the_check_catches_a_coupling(monkeypatch):
    """The check has power: PULSE with its old batch rule (every repetition takes the smallest batch any of them
    can take) fails it."""
    from paperlib.policies.pulse import PULSE

    own = PULSE._batch_sizes
    monkeypatch.setattr(PULSE, "_batch_sizes", lambda self, pick, k: own(self, pick, k).amin().expand(self.reps))
    adj, worst = matrix_pvalue("pulse", _matrix())
    assert adj < ALPHA, f"the old coupling passed the check (adjusted p={adj:.2g}; {worst})"
