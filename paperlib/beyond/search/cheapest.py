"""Yardsticks for the cheapest-good-model certificate (issue 42): what counts as a right answer, what an oracle that
knows the means would spend, and the Gaussian characteristic time of best-arm identification.

Written by hand (numpy and one scipy scalar minimisation): no library offers these for a priced, epsilon-good target.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize_scalar


def acceptable(means, costs, epsilon: float, gamma: float | None = None) -> np.ndarray:
    """Which models are right answers: epsilon-good (mean >= best - epsilon) and no dearer than the cheapest
    (epsilon - gamma)-good model (default gamma = epsilon / 2), the guarantee of
    :class:`paperlib.policies.cheapest.CheapestGood`."""
    mu, c = np.asarray(means, dtype=np.float64), np.asarray(costs, dtype=np.float64)
    gamma = epsilon / 2 if gamma is None else gamma
    good = mu >= mu.max() - epsilon
    near = mu >= mu.max() - (epsilon - gamma)
    return good & (c <= c[near].min())


def _calls(var, slack, m):
    """Calls at which a Gaussian half-width sqrt(2 var log(1/d') / N) (log term folded into ``slack``'s units)
    falls to ``slack``; m (the whole row: then it is exact) when it never does sooner."""
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(slack > 0, 2.0 * var / np.maximum(slack, 1e-300) ** 2, np.inf)
    return np.minimum(np.ceil(need), m)


def oracle_cheapest_spend(scores, costs, delta: float, epsilon: float, gamma: float | None = None,
                          grid: int = 200) -> tuple[float, int]:
    """What an allocation that knows every mean and variance spends to certify the cheapest good model.

    Model i's interval after N_i calls is mu_i +- h_i with the Gaussian half-width h_i = sqrt(2 var_i log(n / delta)
    / N_i) (union bound over the n models, sampling with replacement), and exact (h_i = 0) once it has all m
    examples. The certificate of :class:`paperlib.policies.cheapest.CheapestGood` for an answer a reads
    U* = max_j (mu_j + h_j) and L* = max_j (mu_j - h_j); the oracle fixes the best model t's half-width h_t (on a grid
    from 0 to epsilon), so U* = u = mu_t + h_t and L* = mu_t - h_t, and gives every model the fewest calls that meet
    its constraint: every model cheaper than a ruled out, mu_j + h_j < L* - (epsilon - gamma); a ruled in,
    mu_a - h_a >= u - epsilon; and no model's upper bound above u (mu_j + h_j <= u). It takes the answer and h_t of
    least spend. Returns (spend, answer). Not a lower bound (the rule's intervals are without replacement, and a rule
    may bound mu* otherwise); the yardstick the rule's spend is compared with.
    """
    S = np.asarray(scores, dtype=np.float64)
    c = np.asarray(costs, dtype=np.float64)
    n, m = S.shape
    gamma = epsilon / 2 if gamma is None else gamma
    mu, var = S.mean(1), S.var(1)
    t = int(np.argmax(mu))
    var_l = var * math.log(n / delta)  # h_i^2 = 2 var_l_i / N_i
    order = np.argsort(c, kind="stable")
    best_spend, best_a = math.inf, -1
    for h_t in np.linspace(0.0, epsilon, grid + 1):
        n_t = m if h_t == 0 else min(m, math.ceil(2 * var_l[t] / h_t**2))
        h = 0.0 if n_t >= m else h_t
        u, low = mu[t] + h, mu[t] - h - (epsilon - gamma)
        # every model's calls to keep its upper bound at or below u (t's own: n_t)
        n_up = _calls(var_l, u - mu, m)
        n_up[t] = n_t
        for pos, a in enumerate(order):
            cheaper = order[:pos]
            if np.any(mu[cheaper] >= low):
                break  # a cheaper model cannot be ruled out at this h_t: no later answer either
            if mu[a] < mu[t] - epsilon:
                continue  # not epsilon-good: never an answer
            n_out = _calls(var_l[cheaper], low - mu[cheaper], m)
            need = n_up.copy()
            need[cheaper] = np.maximum(need[cheaper], n_out)
            if a == t:
                if 2 * h > epsilon:
                    continue
            else:
                slack_in = mu[a] - (u - epsilon)
                n_in = _calls(var_l[a:a + 1], np.array([slack_in]), m)[0]
                if n_in >= m and slack_in < 0:
                    continue
                need[a] = max(need[a], n_in)
            spend = float(c @ need)
            if spend < best_spend:
                best_spend, best_a = spend, int(a)
    return best_spend, best_a


def gaussian_characteristic_time(scores) -> float:
    """T*(mu) of best-arm identification for Gaussian models with each row's variance (sampling with replacement):
    the fewest calls N = sum_i N_i with (mu_b - mu_j)^2 / (2 (var_b / N_b + var_j / N_j)) >= 1 for every rival j.

    Times kl(delta, 1 - delta) it is the lower bound on the expected calls of any delta-correct rule (Garivier &
    Kaufmann 2016, Thm. 1, Gaussian arms); times log((n - 1) / delta) it is what a union bound over the rivals costs.
    Given N_b, each N_j is the smallest meeting its constraint, so N is a convex function of N_b minimised here in
    one dimension. Infinite when two rows tie for the best.
    """
    S = np.asarray(scores, dtype=np.float64)
    mu, var = S.mean(1), np.maximum(S.var(1), 1e-12)
    b = int(np.argmax(mu))
    gap = np.delete(mu[b] - mu, b)
    vj = np.delete(var, b)
    if np.any(gap <= 0):
        return math.inf
    floor = float(np.max(2 * var[b] / gap**2))  # N_b must exceed this for every constraint to be feasible

    def total(log_extra):
        nb = floor * (1.0 + math.exp(log_extra))
        return nb + float(np.sum(vj / (gap**2 / 2 - var[b] / nb)))

    res = minimize_scalar(total, bounds=(-20.0, 20.0), method="bounded", options={"xatol": 1e-9})
    return float(res.fun)


def kl_bernoulli(x: float, y: float) -> float:
    """kl(x, y) of Bernoulli distributions (the log term of the Garivier-Kaufmann bound, with x = delta, y = 1 - x)."""
    return x * math.log(x / y) + (1 - x) * math.log((1 - x) / (1 - y))


def answer_distances(means, costs, epsilon: float, gamma: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """How far each model's mean must move, alone, to make each right answer wrong.

    Returns (answers, d): the acceptable models a (:func:`acceptable`) and d (len(answers), n), where d[k, j] is the
    infimum of |lambda - mu_j| over the means lambda of model j that, with every other mean kept, make answers[k] not
    acceptable (inf where no such lambda exists). Whether a model is acceptable changes only where model j's mean
    crosses another model's mean shifted by 0, +-epsilon or +-(epsilon - gamma) (the best, the epsilon-good and the
    (epsilon - gamma)-good thresholds), so the infimum is attained at one of those 5 (n - 1) breakpoints, approached
    from one side: each breakpoint is tried a hair beyond it on both sides, with :func:`acceptable` itself deciding.
    """
    mu, c = np.asarray(means, dtype=np.float64), np.asarray(costs, dtype=np.float64)
    gamma = epsilon / 2 if gamma is None else gamma
    n = len(mu)
    answers = np.flatnonzero(acceptable(mu, c, epsilon, gamma))
    shifts = np.array([0.0, epsilon, -epsilon, epsilon - gamma, -(epsilon - gamma)])
    hair = 1e-9
    d = np.full((len(answers), n), np.inf)
    for j in range(n):
        base = (np.delete(mu, j)[:, None] + shifts).ravel()
        lam = np.concatenate((base - hair, base + hair))
        M = np.repeat(mu[None, :], len(lam), axis=0)
        M[:, j] = lam
        top = M.max(axis=1, keepdims=True)
        good = M >= top - epsilon
        near = M >= top - (epsilon - gamma)
        cheapest_near = np.where(near, c, np.inf).min(axis=1, keepdims=True)
        ok = good & (c <= cheapest_near)  # (B, n): acceptable under each moved mean
        wrong = ~ok[:, answers]  # (B, K)
        dist = np.abs(lam - mu[j])[:, None]
        d[:, j] = np.where(wrong, np.maximum(dist - hair, 0.0), np.inf).min(axis=0)
    return answers, d


def cheapest_lower_bound(scores, costs, delta: float, epsilon: float, gamma: float | None = None,
                         cap: int | None = None) -> tuple[float, int, int]:
    """The least spend of a rule that returns one fixed right answer a with probability >= 1 - delta, for the
    cheapest good model under Gaussian models with each row's variance, sampling with replacement.

    Garivier & Kaufmann (2016, Lemma 1): for any alternative lambda under which a is wrong, sum_j E[N_j]
    (mu_j - lambda_j)^2 / (2 var_j) >= kl(1 - delta, delta) = kl(delta, 1 - delta). Keeping only the alternatives that
    move one model j (a relaxation: fewer constraints, a smaller minimum, so still a lower bound) gives
    E[N_j] >= 2 var_j kl(delta, 1 - delta) / d_j(a)^2 with d_j(a) from :func:`answer_distances`, and the spend
    sum_j c_j E[N_j] is at least the sum of these. Returns (spend, a, K): the least such bound over the right answers
    a, that answer, and the number K of right answers. With K = 1 every delta-correct rule returns a with probability
    >= 1 - delta and the bound holds for every rule; with K > 1 a rule that spreads its answers over several right
    ones is not covered (its change-of-measure term is kl(p_a, delta) with p_a < 1 - delta). ``cap`` (the row length)
    caps each N_j at it: a reference for sampling without replacement, where a row evaluated in full is exact, and
    not a bound there. Neither binds a rule that samples finite rows without replacement (the sure part of its
    intervals narrows faster than a Gaussian's): lucb-cheap spends less on sysrs_commonsense (benchmarks/RESULTS.md,
    2026-11-27). A yardstick, like :func:`oracle_cheapest_spend`.
    """
    S = np.asarray(scores, dtype=np.float64)
    c = np.asarray(costs, dtype=np.float64)
    var = S.var(1)
    answers, d = answer_distances(S.mean(1), c, epsilon, gamma)
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(np.isfinite(d), 2.0 * var * kl_bernoulli(delta, 1 - delta) / d**2, 0.0)
    need = np.where(var > 0, need, 0.0)
    if cap is not None:
        need = np.minimum(need, cap)
    spend = need @ c
    k = int(np.argmin(spend))
    return float(spend[k]), int(answers[k]), len(answers)
