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


KINDS = ("informative", "uninformative", "adversarial", "biased")
SCORE_STREAM, PRED_STREAM = 0, 1


def stream(seed: int, which: int) -> np.random.Generator:
    """An independent random stream per purpose (scores, predictions) from one seed (``SeedSequence``)."""
    return np.random.default_rng([int(seed), int(which)])


def predictions(S: np.ndarray, kind: str, rng) -> np.ndarray:
    """Predicted scores of four kinds.

    informative: S plus noise; uninformative: uniform noise independent of S (``rng`` must not be
    the stream that drew S); adversarial: anti-correlated with S; biased: S shrunk and shifted.
    """
    if kind == "informative":
        return np.clip(0.8 * S + 0.1 + rng.normal(0, 0.15, S.shape), 0.01, 0.99)
    if kind == "uninformative":
        return rng.uniform(0.05, 0.95, S.shape)
    if kind == "adversarial":
        return np.clip(0.9 - 0.8 * S + rng.normal(0, 0.15, S.shape), 0.01, 0.99)
    if kind == "biased":
        return np.clip(0.3 * S + 0.6, 0.01, 0.99)
    raise ValueError(f"unknown kind of predictions {kind!r}; choose from {KINDS}")


def theory_inputs(n: int, seed: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Binary scores of one model (P(1) = 0.6) and each kind of predictions, from independent streams."""
    S = (stream(seed, SCORE_STREAM).random(int(n)) < 0.6).astype(float)
    preds = {k: predictions(S, k, np.random.default_rng([int(seed), PRED_STREAM, i])) for i, k in enumerate(KINDS)}
    return S, preds


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


def check_theorem1(S, kind: str, K: int, reps: int, delta: float = 0.1, seed: int = 0, pred=None, run=None) -> dict:
    """Tail of |mu_hat - mu| vs Theorem 1 and coverage of the inverted intervals.

    ``pred``: the predictions; by default drawn for ``kind`` from a stream independent of the scores.
    ``run``: an :func:`one_model_runs` result for these inputs (predictable lambda, seed + 1), if already made.
    """
    if pred is None:
        pred = predictions(S, kind, stream(seed, PRED_STREAM))
    if run is None:
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
    corr = float(np.corrcoef(S, pred)[0, 1]) if np.std(S) > 0 and np.std(pred) > 0 else float("nan")
    return {"kind": kind, "K": K, "n": n, "reps": reps, "delta": delta, "v": v, "tail": tail, "tail_ok": tail_ok,
            "corr": corr,
            "radius_oracle": float(rad_oracle), "cover_oracle": cover_oracle, "radius_plugin_median": float(np.median(rad_plug)),
            "cover_plugin": cover_plug, "radius_bs": rad_bs, "cover_bs": cover_bs,
            "ci_oracle": clopper_pearson(int(round(cover_oracle * reps)), reps),
            "ci_bs": clopper_pearson(int(round(cover_bs * reps)), reps)}


def lemma2_as_printed(star: dict, S) -> dict:
    """Lemma 2's inequality as printed, Var(mu_hat^t | F_{t-1}) <= (1 - rho_t^2) Var(mu_hat_obs), exactly at every
    (run, step) of a lambda* run (:func:`one_model_runs` with ``"oracle"``).

    Given F_{t-1} only the newest one-step estimator of Eq. (3) is random, so the left side is
    Var(theta^t | F) / K^2 = Var(Z_t | F) / (n^2 K^2) (``vz`` / (n^2 K^2)); the right side takes the finite-population
    variance of the mean of K draws without replacement, sigma^2 (n - K) / (K (n - 1)), sigma^2 the population
    variance of the model's n scores. At K = 1 the two sides are equal; the check is exact (no sampling).
    Returns the share of points where it holds (to 1e-9 relative), the largest left / right ratio, and that ratio at
    K = 1 (1 up to rounding: an independent check of the two sides)."""
    S = np.asarray(S, float)
    n, K = S.size, star["vz"].shape[0]
    kk = np.arange(1, K + 1)[:, None]
    lhs = star["vz"] / (n**2 * kk**2)
    rhs = star["one_minus_rho2"] * S.var() * (n - kk) / (kk * (n - 1))
    ratio = np.where(rhs > 0, lhs / np.where(rhs > 0, rhs, 1.0), np.where(lhs > 1e-15, np.inf, 0.0))
    return {"within": float((ratio <= 1 + 1e-9).mean()), "worst": float(ratio.max()),
            "k1": float(np.median(ratio[0]))}


def check_lemma2(S, kind: str, K: int, reps: int, seed: int = 0, pred=None, n_boot: int = 1000,
                 grid: int = 10, run=None) -> dict:
    """Lemma 2 and the claim that follows it, on the whole run (every K up to ``K``).

    Three things are measured over ``reps`` runs of Step 2 for one model (the predictable-lambda and
    the lambda* runs use the same sampling order, so the comparison is paired):

    * the identity behind the lemma, Var(Z | F) at lambda* = (1 - rho^2) Var(Z | F) at lambda = 0,
      at every (run, step) (``star_within_bound``; exact, it cannot fail);
    * the lemma's statement for the running estimator of Eq. (3): the Monte Carlo variance of
      mu_hat after K selections, at lambda* and at the predictable lambda of Step 3, divided by the
      variance of the observation-only mean of Eq. (4) after the same K draws, with a 95% percentile
      bootstrap interval over runs, at ``grid`` values of K; the lemma's bound is the run-average
      of 1 - rho_t^2 over the first K steps;
    * "PULSE's CI is no wider": where the ratio at the predictable lambda is significantly above 1
      (bootstrap interval above 1) the interval of Theorem 1 is wider than the observation-only one.

    ``run``: the predictable-lambda :func:`one_model_runs` result for these inputs (seed + 1), if already made.
    """
    if pred is None:
        pred = predictions(S, kind, stream(seed, PRED_STREAM))
    if run is None:
        run = one_model_runs(S, pred, K, reps, "predictable", seed + 1)
    star = one_model_runs(S, pred, K, reps, "oracle", seed + 1)
    rs, b = run["ratio_star"], run["one_minus_rho2"]
    ok = np.nan_to_num(rs) <= b + 1e-9
    steps = np.arange(1, K + 1)[:, None]
    mu_hat = np.cumsum(run["theta"], axis=0) / steps
    mu_star = np.cumsum(star["theta"], axis=0) / steps
    mu_obs = np.cumsum(run["obs"], axis=0) / steps
    bound = np.cumsum(np.nan_to_num(b, nan=1.0).mean(axis=1)) / steps[:, 0]
    ks = np.unique(np.linspace(2, K, min(grid, K - 1)).astype(int))
    rng = np.random.default_rng([int(seed), 7])
    idx = rng.integers(0, reps, size=(n_boot, reps))

    adj = 0.05 / len(ks)  # Bonferroni over the grid's K values: the "fails" side of a bound read at any one of them

    def ratio(est, k):
        v_obs = mu_obs[k - 1]
        point = est[k - 1].var() / v_obs.var()
        boot = est[k - 1][idx].var(axis=1) / np.maximum(v_obs[idx].var(axis=1), 1e-300)
        lo, hi, lo_adj, hi_adj = np.quantile(boot, [0.025, 0.975, adj / 2, 1 - adj / 2])
        return float(point), float(lo), float(hi), float(lo_adj), float(hi_adj)

    rows = []
    for k in ks:
        rh, rh_lo, rh_hi, rh_lo_adj, rh_hi_adj = ratio(mu_hat, k)
        st, st_lo, st_hi, st_lo_adj, st_hi_adj = ratio(mu_star, k)
        rows.append(dict(K=int(k), bound=float(bound[k - 1]), ratio_hat=rh, ratio_hat_lo=rh_lo, ratio_hat_hi=rh_hi,
                         ratio_hat_lo_adj=rh_lo_adj, ratio_hat_hi_adj=rh_hi_adj, ratio_star=st, ratio_star_lo=st_lo,
                         ratio_star_hi=st_hi, ratio_star_lo_adj=st_lo_adj, ratio_star_hi_adj=st_hi_adj))
    corr = float(np.corrcoef(S, pred)[0, 1]) if S.std() > 0 and np.std(pred) > 0 else float("nan")
    lit = lemma2_as_printed(star, S)
    return {"kind": kind, "reps": reps, "K": K, "n": int(S.size), "corr": corr,
            "steps": int(np.isfinite(rs).sum()), "star_within_bound": float(ok.mean()),
            "literal_within_bound": lit["within"], "literal_worst": lit["worst"], "literal_k1": lit["k1"],
            "hat_worse_than_obs": float(np.nanmean(run["ratio_hat"] > 1)),
            "median_ratio_hat": float(np.nanmedian(run["ratio_hat"])),
            "median_one_minus_rho2": float(np.nanmedian(b)), "curve": rows}


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
    """Lemma 1 (exact and Monte Carlo), Theorem 1 and Lemma 2 for each kind of predictions, Lemmas 5-6.

    ``cfg`` is the PULSE configuration (its ``theory`` block sets the sizes). The scores and every
    kind of predictions come from independent streams (:func:`theory_inputs`).
    """
    th, seed = cfg["theory"], int(cfg["seed"])
    K, reps = int(th["K"]), int(th["reps"])
    S, preds = theory_inputs(int(th["n"]), seed)
    runs = {k: one_model_runs(S, p, K, reps, "predictable", seed + 1) for k, p in preds.items()}  # shared by both checks
    return {
        "l1": check_lemma1_exact(int(th["lemma_trials"]), seed=seed),
        "l1_mc": lemma1_monte_carlo(int(th["reps"]) * 5, seed=seed),
        "t1": [check_theorem1(S, k, K, reps, seed=seed, pred=preds[k], run=runs[k]) for k in preds],
        "l2": [check_lemma2(S, k, K, reps, seed=seed, pred=preds[k], run=runs[k]) for k in preds],
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
        last = g.sort_values("budget").iloc[-1]
        out.append(dict(pool=pool, kind=inst.test.kind, a_max=a_max, measured=float(last.accuracy),
                        reps=int(last.reps),
                        bound=theorem2_bound(inst.test.means, n_q, T_, 1.0, n_q**2 / 4),
                        bound_amax=theorem2_bound(inst.test.means, n_q, T_, a_max, n_q**2 / 4)))
    return out


def printed_rule_lambda(predictions: str = "uninformative", bias: float = 0.0, warmup_residual: bool = True,
                        p: float = 0.6, m: int = 1000, B: int = 64, steps: int = 7, reps: int = 5000,
                        seed: int = 0) -> float:
    """Mean lambda of Step 3's printed rule (Eq. 27) alone, re-derived here without the bandit or the authors' code:
    one model of ``m`` examples with 0/1 scores of mean ``p``, a warm-up batch of ``B`` then ``steps`` batches of B
    drawn without replacement, lambda_t = clip(1 - (sum_U S_hat) Z_bar / (|U| sum_U S_hat^2), 0, 1) from the mean
    Z_bar of the past residuals Z = (sum_B S - lambda sum_B S_hat) |U| / B, averaged over steps and ``reps`` runs.

    ``predictions``: ``"uninformative"`` (S_hat = p + bias + U(-0.2, 0.2), independent of the scores; calibrated at
    bias 0) or ``"informative"`` (S_hat = 0.15 + 0.7 S + bias + U(-0.1, 0.1)). ``warmup_residual``: Z_bar starts with
    the warm-up batch's residual (lambda = 0, the paper's A_i(t-1) read literally), else empty (lambda = 1 at the
    first step, whose Z_bar is 0). Vectorised over runs; a loop over the few steps.
    """
    if predictions not in ("uninformative", "informative"):
        raise ValueError(f"predictions must be 'uninformative' or 'informative', got {predictions!r}")
    rng = np.random.default_rng(seed)
    S = (rng.random((reps, m)) < p).astype(float)  # each run's examples in the order they are drawn
    noise = rng.uniform(-1.0, 1.0, (reps, m))
    Q = p + 0.2 * noise if predictions == "uninformative" else 0.15 + 0.7 * S + 0.1 * noise
    Q = np.clip(Q + bias, 0.0, 1.0)
    z_sum = S[:, :B].sum(1) * m / B if warmup_residual else np.zeros(reps)
    z_n = np.full(reps, 1.0 if warmup_residual else 0.0)
    total = []
    for t in range(1, steps + 1):
        lo, hi, left = B * t, B * (t + 1), m - B * t
        z_bar = z_sum / np.maximum(z_n, 1.0)
        lam = np.clip(1.0 - Q[:, lo:].sum(1) * z_bar / (left * np.square(Q[:, lo:]).sum(1)), 0.0, 1.0)
        z_sum += (S[:, lo:hi].sum(1) - lam * Q[:, lo:hi].sum(1)) * left / B
        z_n += 1.0
        total.append(lam.mean())
    return float(np.mean(total))
