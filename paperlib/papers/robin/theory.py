"""Empirical checkers for the lemmas and theorems of "LLM-as-Judge on a Budget".

Each checker returns a plain dict of measurements; :func:`claims` turns them into ledger rows.
Probabilistic statements are tested as in confseq's tests: the violation frequency over many
seeded repetitions is compared with the claimed failure probability through an exact
(Clopper-Pearson) interval; a statement fails when the whole interval lies above it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ...device import get_device, make_generator
from ...policies.allocation import robin_sequence, warmup_rounds
from ...simulate import CategoricalJudge, GaussianJudge, run_judge
from ...stats import clopper_pearson

# ---------------------------------------------------------------- Lemma 2 (exact) --------------


def variance_profiles(rng: np.random.Generator, K: int) -> dict[str, np.ndarray]:
    """Variance vectors from comfortable (equal, mild spread) to adversarial (one dominant item)."""
    return {
        "equal": np.ones(K),
        "uniform(0.1,1)": rng.uniform(0.1, 1.0, K),
        "lognormal(sd 1.5)": np.exp(rng.normal(0, 1.5, K)),
        "geometric": 0.5 ** np.arange(K),
        "one dominant": np.r_[1.0, np.full(K - 1, 1e-3)],
        "two levels": np.where(np.arange(K) < K // 4, 1.0, 0.02),
        "pool-like (multiples of 1/20^2)": rng.integers(1, 100, K) / 400.0,
    }


def robin_counts(variances, B: int, reps: int = 1, seed: int = 0) -> np.ndarray:
    """ROBIN's allocation n_i(B), shape (reps, K) (random tie-breaking per repetition)."""
    dev = get_device("cpu")
    seq = robin_sequence(variances, B, reps, make_generator(seed, dev), dev)
    K = len(variances)
    return np.stack([np.bincount(s, minlength=K) for s in seq.numpy()])


def check_lemma2(Ks=(2, 3, 5, 10, 50, 200), budget_factors=(1, 1.5, 2, 5, 20, 100), seed: int = 0) -> dict:
    """Lemma 2: floor(lambda_i B) <= n_i <= ceil(lambda_i B) for ROBIN, checked exactly.

    Also checks the corrected bound ceil(lambda_i (B - K)) <= n_i <= ceil(lambda_i B) (ROBIN is
    the Adams divisor method: it queries every item once before the proportional share). Every
    configuration runs 3 tie-breaking seeds.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for K in Ks:
        for prof, var in variance_profiles(rng, K).items():
            for f in budget_factors:
                B = int(math.ceil(f * K)) + 1
                lam = var / var.sum()
                n = robin_counts(var, B, reps=3, seed=seed)
                lo, hi = np.floor(lam * B), np.ceil(lam * B)
                lo_fix = np.ceil(lam * (B - K) - 1e-9)
                rows.append({
                    "K": K, "B": B, "factor": f, "profile": prof,
                    "lower_violated": bool((n < lo).any()), "upper_violated": bool((n > hi + 1e-9).any()),
                    "corrected_violated": bool(((n < lo_fix) | (n > hi)).any()),
                    "worst_shortfall": float((lo - n).max()),
                })
    lower = sum(r["lower_violated"] for r in rows)
    upper = sum(r["upper_violated"] for r in rows)
    fixed = sum(r["corrected_violated"] for r in rows)
    bad = [r for r in rows if r["lower_violated"]]
    example = max(bad, key=lambda r: r["worst_shortfall"]) if bad else None
    return {"configs": len(rows), "lower_violations": lower, "upper_violations": upper,
            "corrected_violations": fixed, "example": example, "rows": rows}


# ---------------------------------------------------------------- Theorem 3 ---------------------
def skewed_bounded_judge(K: int = 50, seed: int = 0) -> CategoricalJudge:
    """Bounded judge on {0,...,4} whose items mostly give one score and rarely deviate by 2-4.

    Variance is small, but the sub-Gaussian parameter of such a skewed bounded variable is
    much larger than its variance (the regime where Theorem 3's assumption does not hold with
    sigma_i^2 = variance).
    """
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.005, 0.05, K)
    probs = np.zeros((K, 5))
    probs[:, 0] = 1 - p
    probs[:, 4] = p
    heavy = np.arange(K) < K // 5
    probs[heavy] = [0.2, 0.2, 0.2, 0.2, 0.2]
    return CategoricalJudge(probs, np.arange(5.0), name=f"skewed-bounded-K{K}")


def theorem3_bounds(var: np.ndarray, B: int, delta: float) -> dict[str, float]:
    """The theorem box (no factor 2) and Eq. (4) (factor 2 inside the square root)."""
    base = var.sum() / B * math.log(2 * len(var) / delta)
    return {"box": math.sqrt(base), "eq4": math.sqrt(2 * base)}


def check_theorem3(judge, B: int, delta: float, reps: int, seed: int = 0) -> dict:
    """Frequency of ROBIN's WCE exceeding each form of Theorem 3's bound, with exact 95% CIs.

    For bounded judges (scores in [a, b]) also the Bernstein form that needs no sub-Gaussian
    assumption: max_i sqrt(2 sigma_i^2 L / n_i) + (b - a) L / (3 n_i), L = log(2K/delta), with
    ROBIN's realised n_i (a union bound over items of Bernstein's inequality); 0 for items of
    zero variance, whose estimate is exact.
    """
    chunk = max(1, (1 << 25) // B)  # repetitions in blocks that keep the (R, B) query tables small
    parts = [run_judge("robin", judge, [B], reps=min(chunk, reps - i), seed=seed + i, device="cpu")
             for i in range(0, reps, chunk)]
    w = np.concatenate([p.wce()[0] for p in parts])
    counts = np.concatenate([p.counts for p in parts])
    out = {"judge": judge.name, "K": judge.K, "B": B, "delta": delta, "reps": reps, "gaussian": bool(judge.gaussian)}
    bounds = theorem3_bounds(judge.variances, B, delta)
    if judge.scale is not None:
        L = math.log(2 * judge.K / delta)
        width = judge.scale[1] - judge.scale[0]
        n = counts.astype(float)
        per_item = np.sqrt(2 * judge.variances[None, :] * L / n) + width * L / (3 * n)
        per_item = np.where(judge.variances[None, :] > 0, per_item, 0.0)
        bounds["bernstein"] = per_item.max(axis=1)
    for form, bound in bounds.items():
        k = int((w > bound).sum())
        lo, hi = clopper_pearson(k, reps)
        out[form] = {"bound": float(np.mean(bound)), "violations": k, "rate": k / reps, "ci": (lo, hi)}
    return out


# ---------------------------------------------------------------- Theorem 8 / Lemma 6 (exact) ---
def theorem8_violation(n: int, delta: float, corrected: bool = False) -> float:
    """Exact P(|s^2 - sigma^2| >= eps) for the unbiased variance of n Gaussian draws.

    ``eps = 2 sigma^2 sqrt(log(2/delta) / n)`` as stated (Theorem 8), or the Laurent-Massart
    form ``2 sigma^2 (sqrt(x/(n-1)) + x/(n-1))`` (upper side) / ``2 sigma^2 sqrt(x/(n-1))``
    (lower side), x = log(2/delta), when ``corrected``.
    """
    D = n - 1
    x = math.log(2 / delta)
    if corrected:
        up, down = 2 * (math.sqrt(x / D) + x / D), 2 * math.sqrt(x / D)
    else:
        up = down = 2 * math.sqrt(x / n)
    return float(stats.chi2.sf(D * (1 + up), D) + (stats.chi2.cdf(D * (1 - down), D) if down < 1 else 0.0))


def check_theorem8(ns=(2, 3, 5, 10, 20, 50, 100, 200, 266, 300, 400, 1000),
                   deltas=(0.5, 0.1, 0.01, 1e-3, 1e-6, 1.25e-7, 1e-9, 1e-12)) -> dict:
    """Theorem 8 on an (n, delta) grid of exact chi-square tails. The grid reaches the per-step levels that Lemma 6's
    proof applies it at (delta / (2 B K): 1.25e-7 at the theory check's K = 20, B = 20,000, delta = 0.1) and the n
    of the items' counts there (a few hundred)."""
    grid = [(n, d, theorem8_violation(n, d), theorem8_violation(n, d, corrected=True)) for n in ns for d in deltas]
    bad = [(n, d, p) for n, d, p, _ in grid if p > d]
    bad_fix = [(n, d, p) for n, d, _, p in grid if p > d]
    return {"cells": len(grid), "violations": bad, "corrected_violations": bad_fix, "grid": grid}


# ---------------------------------------------------------------- ROBIN-HOOD (Lemmas 6-7, Cor 9, Thm 5)
def check_robin_hood(judge, B: int, delta: float, reps: int, t0="theorem", ucb: str = "eq6",
                     seed: int = 0) -> dict:
    """Run ROBIN-HOOD with tracking and measure every ROBIN-HOOD statement at once.

    Lemma 6 / Corollary 9: any violation over t in (t0 K, B] (claimed probability <= delta/2).
    Lemma 7: n_i(B) >= floor(lambda_i B / 3) for all i (holds with probability >= 1 - delta/2).
    Theorem 5: WCE <= sqrt(6 sum sigma^2 / B log(4K/delta)) (Eq. 7) and <= 2 sqrt(... ) (Eq. 11).
    """
    res = run_judge("robin-hood", judge, [B], reps=reps, seed=seed, device="cpu", track=True,
                    delta=delta, t0=t0, ucb=ucb)
    var = judge.variances
    lam = var / var.sum()
    w = res.wce()[0]
    base = var.sum() / B * math.log(4 * judge.K / delta)
    events = {
        "lemma6": res.track.get("lemma6"),
        "cor9_low": res.track.get("cor9_low"),
        "cor9_high": res.track.get("cor9_high"),
        "lemma7": (res.counts < np.floor(lam * B / 3)[None, :]).any(axis=1),
        "thm5_eq7": w > math.sqrt(6 * base),
        "thm5_eq11": w > 2 * math.sqrt(base),
    }
    out = {"judge": judge.name, "K": judge.K, "B": B, "delta": delta, "reps": reps, "t0": res.params["t0"],
           "ucb": ucb, "warmup": res.params["warmup"], "warmup_truncated": res.params["warmup_truncated"],
           "precondition_B_gt_16Klog4/delta": B > 16 * judge.K * math.log(4 / delta)}
    for name, flags in events.items():
        if flags is None:
            continue
        k = int(np.sum(flags))
        lo, hi = clopper_pearson(k, reps)
        claimed = delta / 2 if name.startswith(("lemma", "cor")) else delta
        out[name] = {"violations": k, "rate": k / reps, "ci": (lo, hi), "claimed": claimed}
    return out


def gaussian_instance(K: int = 20, seed: int = 0) -> GaussianJudge:
    """Heterogeneous Gaussian judge (sd from 0.1 to 1.0) for the ROBIN-HOOD theorems."""
    rng = np.random.default_rng(seed)
    return GaussianJudge(rng.uniform(1, 3, K), np.geomspace(0.1, 1.0, K), name=f"gaussian-K{K}")


# ---------------------------------------------------------------- setup arithmetic --------------
def check_arithmetic() -> dict:
    """t0 = 4 ln(1/delta) and the reported warm-up sizes 20,164 (delta 0.007) and 10,807 (0.07)."""
    rows = []
    for delta, reported in ((0.007, 20164), (0.07, 10807)):
        t0 = 4 * math.log(1 / delta)
        rows.append({"delta": delta, "t0": t0, "reported": reported,
                     "K1017": 1017 * t0, "K1016": 1016 * t0, "K1017_ceil_t0": 1017 * math.ceil(t0),
                     "K1017_log2": 1017 * 4 * math.log2(1 / delta)})
    thm5 = {"t0_theorem_K1017_B100k": warmup_rounds("theorem", 1017, 100_000, 0.007),
            "precondition_16Klog4/delta": 16 * 1017 * math.log(4 / 0.007)}
    return {"rows": rows, "thm5": thm5}


def theorem3_cases(t3c: dict, seed: int = 0) -> list[dict]:
    """Theorem 3 on a Gaussian judge (K), a synthetic discrete judge (4K) and a skewed bounded judge (K)."""
    from ...simulate import synthetic_judge

    K, B = int(t3c["K"]), int(t3c["B"])
    judges = (gaussian_instance(K), synthetic_judge("discrete", K=K * 4, seed=1), skewed_bounded_judge(K))
    return [check_theorem3(j, B if j.K == K else B * j.K // K, float(t3c["delta"]), int(t3c["reps"]), seed=seed)
            for j in judges]
