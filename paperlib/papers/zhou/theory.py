"""Checker for Corollary 1 of Zhou et al. (2025): UCB-E's lower bound on success probability.

Corollary 1: with ``H1 = sum_{i != i*} 1 / (mu_* - mu_i)^2`` and exploration
``a = 25/36 (T - n) / H1``, ``P(UCB-E returns i*) >= 1 - 2 T n exp(-(T - n) / (18 H1))``.
The original theorem (Audibert et al., 2010) is for i.i.d. rewards drawn with replacement; here
each method's examples are drawn without replacement from a finite set, which the corollary
silently assumes is covered.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...data.matrix import ScoreMatrix
from ...metrics import hardness_h1
from ...simulate import simulate
from ...stats import clopper_pearson


def corollary1_a(budget: int, n: int, h1: float) -> float:
    """The exploration parameter the corollary prescribes, a = 25/36 (T - n) / H1."""
    return 25.0 / 36.0 * (budget - n) / h1


def corollary1_bound(budget: int, n: int, h1: float) -> float:
    """Lower bound 1 - 2 T n exp(-(T - n) / (18 H1)) (may be negative, i.e. vacuous)."""
    if not math.isfinite(h1):
        return -math.inf
    return 1.0 - 2.0 * budget * n * math.exp(-(budget - n) / (18.0 * h1))


def smallest_informative_budget(n: int, h1: float) -> float:
    """Smallest T with a positive bound (solved on a doubling + bisection grid); inf if none < 1e15."""
    if not math.isfinite(h1):
        return math.inf
    t = float(n + 1)
    while corollary1_bound(int(t), n, h1) <= 0:
        t *= 2
        if t > 1e15:
            return math.inf
    lo, hi = t / 2, t
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if corollary1_bound(int(mid), n, h1) > 0:
            hi = mid
        else:
            lo = mid
    return math.ceil(hi)


def check_corollary1(matrix: ScoreMatrix, budgets, reps: int = 200, seed: int = 0, device=None,
                     level: float = 0.95) -> pd.DataFrame:
    """Measure UCB-E's success rate at each budget, with the corollary's ``a``, against the bound.

    Returns one row per budget with the bound, whether it is ``informative`` (positive: a vacuous bound tests
    nothing), the measured rate and its exact (Clopper-Pearson) interval: statistics only; whether a budget shows or
    contradicts the corollary is decided in :mod:`paperlib.decide` from the cases
    :func:`paperlib.papers.zhou.claims.corollary1_claims` makes of these rows (exact binomial tests).
    """
    n, m = matrix.shape
    mu = matrix.means
    h1 = hardness_h1(mu)
    best = int(np.argmax(mu))
    rows = []
    for i, t in enumerate(sorted(int(b) for b in budgets)):
        a = corollary1_a(t, n, h1)
        res = simulate("ucbe", matrix, [t], reps=reps, seed=seed + i, device=device, progress=False, a=a)
        k = int((res.best[0] == best).sum())
        lo, hi = clopper_pearson(k, reps, level)
        bound = corollary1_bound(t, n, h1)
        rows.append(dict(dataset=matrix.name, kind=matrix.kind, n=n, m=m, H1=h1, budget=t,
                         budget_frac=t / (n * m), a=a, bound=bound, informative=bool(bound > 0), success=k / reps,
                         ci_low=lo, ci_high=hi, reps=reps))
    return pd.DataFrame(rows)


def corollary1_instance(inst: dict) -> ScoreMatrix:
    """The synthetic Bernoulli instance of the Corollary 1 check: row i has success probability p[i]."""
    rng = np.random.default_rng(inst["seed"])
    p = np.asarray(inst["p"])
    scores = (rng.random((inst["n"], inst["m"])) < p[:, None]).astype(np.float32)
    return ScoreMatrix.from_array(scores, kind="synthetic", name="corollary1_instance")


def vacuity_table(names) -> pd.DataFrame:
    """Smallest budget with a positive Corollary 1 bound, against n x m, for each dataset."""
    from ... import data

    rows = []
    for d in names:
        dm = data.load(d)
        t_min = smallest_informative_budget(dm.shape[0], hardness_h1(dm.means))
        nm = dm.shape[0] * dm.shape[1]
        rows.append(dict(dataset=d, kind=dm.kind, nm=nm, T_informative=t_min, ratio=t_min / nm))
    return pd.DataFrame(rows)


# Zhou et al. (2025), Table 2: (name, n, m, H1) of the paper's six matrices.
PAPER_TABLE2 = (
    ("AlpacaEval", 154, 805, 966.0),
    ("AlpacaEval (Drop Annotator)", 153, 805, 4462.0),
    ("GSM8K Prompts", 205, 784, 107445.0),
    ("GSM8K Models", 122, 1000, 20562.0),
    ("PIQA Prompts", 177, 1546, 66284.0),
    ("PIQA Models", 103, 1000, 10273.0),
)


def paper_vacuity_table() -> pd.DataFrame:
    """Smallest budget with a positive Corollary 1 bound for the paper's own Table 2 (n, m, H1)."""
    rows = []
    for name, n, m, h1 in PAPER_TABLE2:
        t_min = smallest_informative_budget(n, h1)
        rows.append(dict(dataset=name, kind="paper", nm=n * m, T_informative=t_min, ratio=t_min / (n * m)))
    return pd.DataFrame(rows)
