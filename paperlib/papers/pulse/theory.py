"""Empirical checkers for Lemmas 1, 2, 5, 6 and Theorems 1, 2 of PULSE (Tolochinsky et al. 2026).

The single-model simulator :func:`one_model_runs` follows Step 2 exactly for one model: K steps,
one example per step drawn uniformly from the unobserved set, predictions S_hat fixed, lambda
chosen by Step 3 (predictable), by the oracle lambda* of Eq. (5), or fixed; R repetitions are
vectorised. At every step it also records the exact conditional variances over the unobserved
set, so the bounds can be evaluated with their true constants.
"""

from __future__ import annotations

import math

import numpy as np

from ...stats import clopper_pearson


def theta_all(S, pred, observed, lam):
    """One-step estimator (Eq. 2) for every possible next example j in U (single-example mode)."""
    S, pred, observed = np.asarray(S, float), np.asarray(pred, float), np.asarray(observed, bool)
    n = S.size
    U = ~observed
    nu = U.sum()
    base = S[observed].sum() + lam * pred[U].sum()
    return (base + (S[U] - lam * pred[U]) * nu) / n


def check_lemma1_exact(trials: int = 2000, seed: int = 0) -> dict:
    """Lemma 1 by enumeration: the mean of theta over j in U equals mu for a frozen history."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(trials):
        n = int(rng.integers(2, 60))
        S = rng.random(n) if rng.random() < 0.5 else (rng.random(n) < 0.5).astype(float)
        pred = np.clip(S + rng.normal(rng.normal(0, 0.3), rng.uniform(0, 0.5), n), 0, 1)
        obs = rng.random(n) < rng.uniform(0, 0.9)
        obs[rng.integers(n)] = False
        lam = float(rng.uniform(0, 1))
        worst = max(worst, abs(theta_all(S, pred, obs, lam).mean() - S.mean()))
    return {"trials": trials, "max_abs_error": worst}


def predictions(S: np.ndarray, kind: str, rng) -> np.ndarray:
    """informative (S plus noise), uninformative (unrelated noise) or biased (S shrunk and shifted)."""
    if kind == "informative":
        return np.clip(0.8 * S + 0.1 + rng.normal(0, 0.15, S.shape), 0.01, 0.99)
    if kind == "uninformative":
        return rng.uniform(0.05, 0.95, S.shape)
    if kind == "biased":
        return np.clip(0.3 * S + 0.6, 0.01, 0.99)
    raise ValueError(kind)


def one_model_runs(S, pred, K: int, reps: int, lam_rule: str = "predictable", seed: int = 0) -> dict:
    """R independent runs of Step 2 for one model; returns estimates and exact conditional variances."""
    S, pred = np.asarray(S, float), np.asarray(pred, float)
    n = S.size
    if K >= n:
        raise ValueError("K must be smaller than the number of examples")
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((reps, n)), axis=1)
    U = np.ones((reps, n), bool)
    sum_obs = np.zeros(reps)
    theta, zs, vz, obs_draws = [], [], [], []
    ratio_star, ratio_hat, one_minus_rho2 = [], [], []
    for k in range(K):
        nu = n - k
        Uf = U.astype(float)
        su = (pred * Uf).sum(1)
        su2 = (pred**2 * Uf).sum(1)
        mS, mP = (S * Uf).sum(1) / nu, su / nu
        vs = ((S - mS[:, None]) ** 2 * Uf).sum(1) / nu
        vp = ((pred - mP[:, None]) ** 2 * Uf).sum(1) / nu
        cov = ((S - mS[:, None]) * (pred - mP[:, None]) * Uf).sum(1) / nu
        lam_star = cov / np.where(vp > 0, vp, 1)
        if lam_rule == "predictable":
            zbar = np.mean(zs, axis=0) if zs else np.zeros(reps)
            denom = nu * su2
            lam = np.clip(1 - su * zbar / np.where(denom > 0, denom, 1), 0, 1) if zs else np.zeros(reps)
        else:
            lam = lam_star if lam_rule == "oracle" else np.full(reps, float(lam_rule))
        resid = S[None, :] - lam[:, None] * pred[None, :]
        mr = (resid * Uf).sum(1) / nu
        vhat = ((resid - mr[:, None]) ** 2 * Uf).sum(1) / nu
        vz.append(nu**2 * vhat)
        rho2 = np.where((vs > 0) & (vp > 0), cov**2 / np.where(vs * vp > 0, vs * vp, 1), 0.0)
        vstar = ((S - lam_star[:, None] * pred - (mS - lam_star * mP)[:, None]) ** 2 * Uf).sum(1) / nu
        ratio_star.append(np.where(vs > 0, vstar / np.where(vs > 0, vs, 1), np.nan))
        ratio_hat.append(np.where(vs > 0, vhat / np.where(vs > 0, vs, 1), np.nan))
        one_minus_rho2.append(1 - rho2)
        j = order[:, k]
        r = np.arange(reps)
        Z = (S[j] - lam * pred[j]) * nu
        theta.append((sum_obs + lam * su + Z) / n)
        zs.append(Z)
        obs_draws.append(S[j])
        sum_obs += S[j]
        U[r, j] = False
    return {"mu": S.mean(), "n": n, "K": K, "theta": np.array(theta), "vz": np.array(vz), "z": np.array(zs),
            "obs": np.array(obs_draws), "ratio_star": np.array(ratio_star), "ratio_hat": np.array(ratio_hat),
            "one_minus_rho2": np.array(one_minus_rho2), "sigma2": S.var()}


def freedman_bound(eps, v, K, n):
    """Theorem 1's right-hand side."""
    return 2 * np.exp(-(eps**2) / (2 * (v / (K * n**2) + 2 * eps / (3 * K))))


def freedman_radius(delta, v, K, n):
    """eps solving freedman_bound(eps) = delta."""
    L = math.log(2 / delta)
    b = 2 * L / (3 * K)
    return b + np.sqrt(b**2 + 2 * L * v / (K * n**2))


def bernstein_serfling_radius(delta, sigma, K, n, width=1.0):
    """Two-sided Bernstein-Serfling radius (Bardenet & Maillard 2015, Thm 2 form), known sigma."""
    rho = (1 - (K - 1) / n) if K <= n / 2 else (1 - K / n) * (1 + 1 / K)
    L = math.log(2 / delta)
    kappa = 7 / 3 + 3 / math.sqrt(2)
    return sigma * math.sqrt(2 * rho * L / K) + kappa * width * L / K


def check_theorem1(S, kind: str, K: int, reps: int, delta: float = 0.1, seed: int = 0) -> dict:
    """Tail of |mu_hat - mu| vs Theorem 1 and coverage of the inverted intervals."""
    rng = np.random.default_rng(seed)
    pred = predictions(S, kind, rng)
    run = one_model_runs(S, pred, K, reps, "predictable", seed + 1)
    n, mu = run["n"], run["mu"]
    err = np.abs(run["theta"].mean(axis=0) - mu)
    V_rep = run["vz"].mean(axis=0)
    v = float(V_rep.max())
    eps = np.quantile(err, [0.5, 0.9, 0.99])
    tail = [(float(e), float((err >= e).mean()), float(freedman_bound(e, v, K, n))) for e in eps]
    tail_ok = all(t[1] <= t[2] for t in tail)
    rad_oracle = freedman_radius(delta, v, K, n)
    cover_oracle = float((err <= rad_oracle).mean())
    v_plug = np.var(run["z"], axis=0, ddof=1)
    rad_plug = freedman_radius(delta, v_plug, K, n)
    cover_plug = float((err <= rad_plug).mean())
    obs_err = np.abs(run["obs"].mean(axis=0) - mu)
    rad_bs = bernstein_serfling_radius(delta, math.sqrt(run["sigma2"]), K, n)
    cover_bs = float((obs_err <= rad_bs).mean())
    return {"kind": kind, "K": K, "n": n, "reps": reps, "delta": delta, "v": v, "tail": tail, "tail_ok": tail_ok,
            "radius_oracle": float(rad_oracle), "cover_oracle": cover_oracle, "radius_plugin_median": float(np.median(rad_plug)),
            "cover_plugin": cover_plug, "radius_bs": rad_bs, "cover_bs": cover_bs,
            "ci_oracle": clopper_pearson(int(round(cover_oracle * reps)), reps),
            "ci_bs": clopper_pearson(int(round(cover_bs * reps)), reps)}


def check_lemma2(S, kind: str, K: int, reps: int, seed: int = 0) -> dict:
    """Var(Z | F) at lambda* equals (1 - rho^2) Var(Z | F) at lambda = 0; how the predictable lambda does."""
    rng = np.random.default_rng(seed)
    pred = predictions(S, kind, rng)
    run = one_model_runs(S, pred, K, reps, "predictable", seed + 1)
    rs, rh, b = run["ratio_star"], run["ratio_hat"], run["one_minus_rho2"]
    ok = np.nan_to_num(rs) <= b + 1e-9
    return {"kind": kind, "steps": int(np.isfinite(rs).sum()), "star_within_bound": float(ok.mean()),
            "hat_worse_than_obs": float(np.nanmean(rh > 1)), "median_ratio_hat": float(np.nanmedian(rh)),
            "median_one_minus_rho2": float(np.nanmedian(b))}


def check_lemma5_6(trials: int = 2000, seed: int = 0) -> dict:
    """Lemma 5 (Var over U <= n/|U| Var over all) and Lemma 6 (n SS = n Phi - F^2), exactly."""
    rng = np.random.default_rng(seed)
    worst5, worst6 = -np.inf, 0.0
    for _ in range(trials):
        n = int(rng.integers(2, 80))
        S = rng.random(n) if rng.random() < 0.5 else (rng.random(n) < rng.random()).astype(float)
        U = rng.random(n) < rng.uniform(0.05, 1)
        if U.sum() == 0:
            U[0] = True
        worst5 = max(worst5, S[U].var() - n / U.sum() * S.var())
        x = rng.normal(size=int(U.sum()))
        F, Phi = x.sum(), (x**2).sum()
        worst6 = max(worst6, abs(x.size * ((x - x.mean()) ** 2).sum() - (x.size * Phi - F**2)) / max(1.0, Phi * x.size))
    return {"trials": trials, "lemma5_max_excess": float(worst5), "lemma6_max_rel_error": float(worst6)}


def theorem2_bound(means, n: int, T: int, a: float, v: float) -> float:
    """Theorem 2's lower bound on P(correct) (may be negative: vacuous)."""
    means = np.sort(np.asarray(means))[::-1]
    m = len(means)
    K = np.arange(1, T + 1, dtype=float)
    eps = np.sqrt(a / K) / 5
    term = 2 * np.exp(-(eps**2) / (2 * (v / (K * n**2) + 2 * eps / (3 * K))))
    return float(1 - m * term.sum())


def theorem2_a_max(means, T: int) -> float:
    means = np.sort(np.asarray(means))[::-1]
    gaps = means[0] - means[1:]
    H1 = float(np.sum(1 / gaps**2) + 1 / gaps.min() ** 2)
    return 25 * (T - len(means)) / (36 * H1)




def lemma1_monte_carlo(reps: int = 20000, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    S = (rng.random(80) < 0.4).astype(float)
    pred = predictions(S, "biased", rng)
    run = one_model_runs(S, pred, 10, reps, "predictable", seed + 1)
    th = run["theta"][-1]
    bias = th.mean() - run["mu"]
    return {"reps": reps, "bias": float(bias), "z": float(bias / (th.std(ddof=1) / math.sqrt(reps)))}


def theory_checks(cfg: dict) -> dict:
    """Lemma 1 (exact and Monte Carlo), Theorem 1 and Lemma 2 for three kinds of predictions, Lemmas 5-6.

    ``cfg`` is the PULSE configuration (its ``theory`` block sets the sizes).
    """
    th, seed = cfg["theory"], int(cfg["seed"])
    rng = np.random.default_rng(seed)
    S = (rng.random(int(th["n"])) < 0.6).astype(float)
    kinds = ("informative", "uninformative", "biased")
    return {
        "l1": check_lemma1_exact(int(th["lemma_trials"]), seed=seed),
        "l1_mc": lemma1_monte_carlo(int(th["reps"]) * 5, seed=seed),
        "t1": [check_theorem1(S, k, int(th["K"]), int(th["reps"]), seed=seed) for k in kinds],
        "l2": [check_lemma2(S, k, int(th["K"]), max(50, int(th["reps"]) // 10), seed=seed) for k in kinds],
        "l56": check_lemma5_6(int(th["lemma_trials"]), seed=seed),
    }


def theorem2_rows(runs, cfg: dict) -> list[dict]:
    """Theorem 2's bound at each pool's largest budget (a = 1 and the largest allowed a) vs measured accuracy."""
    from .experiments import build_instance

    out = []
    for pool, g in runs[runs.method == "pulse"].groupby("pool"):
        inst = build_instance(cfg, pool)
        _, n_q = inst.test.shape
        T_ = int(g.budget.max())
        a_max = theorem2_a_max(inst.test.means, T_)
        out.append(dict(pool=pool, kind=inst.test.kind, a_max=a_max,
                        measured=float(g.sort_values("budget").accuracy.iloc[-1]),
                        bound=theorem2_bound(inst.test.means, n_q, T_, 1.0, n_q**2 / 4),
                        bound_amax=theorem2_bound(inst.test.means, n_q, T_, a_max, n_q**2 / 4)))
    return out
