"""Run an allocation policy against a judge simulator, R repetitions at once.

Every policy here is prefix-consistent (the run with budget b is the first b queries of a run
with a larger budget), so one run to the largest budget yields the estimates at every
checkpoint budget. Uniform and ROBIN do not look at the scores, so their whole query sequence is
built first and the scores are drawn in one batch:

* Uniform: ``order[r, t mod K]``.
* ROBIN: the greedy of Alg. 1 merges the K decreasing sequences sigma_i^2/0 = inf,
  sigma_i^2/1, sigma_i^2/2, ...; its first b queries are the b largest entries of their union.
  Sorting the entries (ties in a random order per repetition) gives the whole sequence at once;
  Lemma 2's corrected upper bound n_i <= ceil(lambda_i B) caps the entries needed per item.

ROBIN-HOOD adapts to the scores and steps query by query: each step is a handful of (R, K) tensor
operations; the warm-up is drawn in one batch.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from ..device import get_device, make_generator
from ..progress import Progress
from .judges import Judge
from .metrics import wce
from .policies import (
    POLICIES,
    Robin,
    RobinHood,
    Uniform,
    check_judge_budget,
    keyed_priority,
    variance_ucb,
)


@dataclass
class JudgeResult:
    """Estimates of R repetitions at each checkpoint budget.

    Attributes
    ----------
    budgets : (C,) int
    estimates : (C, R, K) float64, s_hat of Eq. (1)
    counts : (R, K) int, allocation n_i at the largest budget
    true_means, true_vars : (K,) the judge's s_i and sigma_i^2
    track : dict of (R,) bool arrays, violation flags of Lemma 6 / Corollary 9 (ROBIN-HOOD, if asked)
    """

    method: str
    judge: str
    kind: str
    budgets: np.ndarray
    estimates: np.ndarray
    counts: np.ndarray
    true_means: np.ndarray
    true_vars: np.ndarray
    wall_s: float
    seed: int
    device: str
    params: dict = field(default_factory=dict)
    track: dict = field(default_factory=dict)

    @property
    def reps(self) -> int:
        return int(self.estimates.shape[1])

    def errors(self) -> np.ndarray:
        return np.abs(self.estimates - self.true_means[None, None, :])

    def wce(self) -> np.ndarray:
        """Worst-case error max_i |s_i - s_hat_i| (Eq. 2), shape (C, R)."""
        return wce(self.estimates, self.true_means)

    def mae(self) -> np.ndarray:
        """Mean absolute error over items, shape (C, R)."""
        return self.errors().mean(axis=2)


def _check_budgets(budgets, K) -> list[int]:
    bs = [check_judge_budget(b, K) for b in np.atleast_1d(budgets).tolist()]
    if sorted(set(bs)) != bs:
        raise ValueError(f"budgets must be strictly increasing, got {bs}")
    return bs


def robin_sequence(variances, B: int, reps: int, gen: torch.Generator, device) -> torch.Tensor:
    """The first B queries of ROBIN (Alg. 1) for each repetition, shape (R, B), long.

    Entries sigma_i^2 / k for k = 0..ceil(lambda_i B) (k = 0 is +inf) are sorted in decreasing
    order, ties in a random order per repetition. Items with sigma_i^2 = 0 have only the k = 0
    entry (one query); if every variance is 0 the queries go round-robin.
    """
    var = torch.as_tensor(np.asarray(variances, dtype=np.float64), device=device)
    K = var.shape[0]
    total = float(var.sum())
    if total <= 0:
        order = torch.argsort(torch.rand(reps, K, generator=gen, device=device), dim=1)
        return order[:, torch.arange(B, device=device) % K]
    cap = torch.where(var > 0, torch.ceil(var / total * B).long() + 1, torch.zeros_like(var, dtype=torch.long))
    sizes = cap + 1
    arm = torch.repeat_interleave(torch.arange(K, device=device), sizes)
    start = torch.cumsum(sizes, 0) - sizes
    k = torch.arange(arm.shape[0], device=device) - start[arm]
    prio = torch.where(k == 0, torch.full_like(var[arm], torch.inf), var[arm] / k.clamp(min=1))
    key = torch.rand(reps, arm.shape[0], generator=gen, device=device)
    idx1 = torch.argsort(key, dim=1)
    idx2 = torch.argsort(-prio[idx1], dim=1, stable=True)
    order = idx1.gather(1, idx2[:, :B])
    return arm[order]


def _accumulate(seq, values, budgets, K, device):
    R = seq.shape[0]
    n = torch.zeros(R, K, dtype=torch.float64, device=device)
    s1 = torch.zeros_like(n)
    est, prev = [], 0
    for b in budgets:
        seg, val = seq[:, prev:b], values[:, prev:b]
        n.scatter_add_(1, seg, torch.ones_like(val))
        s1.scatter_add_(1, seg, val)
        est.append((s1 / n.clamp(min=1)).where(n > 0, torch.full_like(n, torch.nan)))
        prev = b
    return torch.stack(est), n


def run_judge(method: str, judge: Judge, budgets, reps: int = 1, seed: int = 0, device=None,
              progress: bool = False, track: bool = False, **params) -> JudgeResult:
    """Simulate ``method`` on ``judge`` for R repetitions up to ``max(budgets)``.

    Parameters
    ----------
    method : "uniform" | "robin" | "robin-hood"
    budgets : increasing ints >= K, the checkpoints
    params : ``delta``, ``t0``, ``ucb`` for ROBIN-HOOD
    track : bool
        ROBIN-HOOD only: record, per repetition, whether Lemma 6's deviation event or a
        violation of Corollary 9's sandwich sigma^2 <= Vbar <= 3 sigma^2 occurred at any
        t in (t0 K, B] (with the true variances of the judge).
    """
    if method not in POLICIES:
        raise ValueError(f"unknown method {method!r}; choose from {list(POLICIES)}")
    dev = get_device(device)
    K = judge.K
    bs = _check_budgets(budgets, K)
    B = bs[-1]
    t_start = time.perf_counter()
    draw_gen = make_generator(seed * 2 + 1, dev)
    tracked = {}
    if method in ("uniform", "robin"):
        if params:
            raise ValueError(f"{method} takes no parameters, got {sorted(params)}")
        if method == "uniform":
            pol = Uniform(K, B, reps, seed, dev)
            seq = pol.order[:, torch.arange(B, device=dev) % K]
        else:
            pol = Robin(K, B, judge.variances, reps, seed, dev)
            seq = robin_sequence(judge.variances, B, reps, pol.gen, dev)
        values = judge.draw(seq, draw_gen)
        est, n = _accumulate(seq, values, bs, K, dev)
        used = {}
    else:
        pol = RobinHood(K, B, reps=reps, seed=seed, device=dev, **params)
        used = {"delta": pol.delta, "t0": pol.t0, "ucb": pol.ucb, "warmup": pol.warmup,
                "warmup_truncated": pol.warmup_truncated}
        est, n, tracked = _run_robin_hood(pol, judge, bs, draw_gen, progress, track)
    return JudgeResult(
        method=method, judge=judge.name, kind=judge.kind, budgets=np.array(bs),
        estimates=est.cpu().numpy(), counts=n.cpu().numpy().astype(np.int64),
        true_means=judge.means, true_vars=judge.variances, wall_s=time.perf_counter() - t_start,
        seed=seed, device=str(dev), params=used, track=tracked,
    )


def _run_robin_hood(pol: RobinHood, judge: Judge, bs, gen, progress, track):
    dev, K, R = pol.device, pol.K, pol.reps
    W = pol.warmup
    seq = pol.order[:, torch.arange(W, device=dev) % K]
    vals = judge.draw(seq, gen)
    pol.n.scatter_add_(1, seq, torch.ones_like(vals))
    pol.s1.scatter_add_(1, seq, vals)
    pol.s2.scatter_add_(1, seq, vals * vals)
    pol.spent = W
    est, checkpoints = [], list(bs)
    while checkpoints and checkpoints[0] <= W:
        cnt = pol.n
        part = torch.zeros_like(cnt)
        sub = seq[:, : checkpoints[0]]
        part.scatter_add_(1, sub, torch.ones_like(sub, dtype=torch.float64))
        s = torch.zeros_like(cnt).scatter_add_(1, sub, vals[:, : checkpoints[0]])
        est.append((s / part.clamp(min=1)).where(part > 0, torch.full_like(part, torch.nan)))
        checkpoints.pop(0)
    flags = {}
    if not pol.warmup_truncated:
        pol.prio = keyed_priority(pol.priorities(), pol.n, pol.tiefactor)
    if track:
        sig2 = torch.as_tensor(judge.variances, device=dev).expand(R, K)
        Lt = math.log(4 * K * pol.budget / pol.delta)
        flags = {k: torch.zeros(R, dtype=torch.bool, device=dev) for k in ("lemma6", "cor9_low", "cor9_high")}

        def check(var, n, vb, s2):
            flags["lemma6"] |= ((s2 - var).abs() >= 2 * s2 * torch.sqrt(Lt / n)).reshape(R, -1).any(1)
            flags["cor9_low"] |= (vb < s2 * (1 - 1e-12)).reshape(R, -1).any(1)
            flags["cor9_high"] |= (vb > 3 * s2 * (1 + 1e-12)).reshape(R, -1).any(1)

        if not pol.warmup_truncated:
            check(pol.variance(), pol.n, pol.vbar(), sig2)
    prog = Progress(f"robin-hood {judge.name} R={R}", pol.budget, enabled=progress)
    r = pol._r
    while checkpoints:
        target = checkpoints.pop(0)
        while pol.spent < target:
            arms = pol._select()
            pol._update(arms, judge.draw(arms, gen))
            if track:
                n = pol.n[r, arms]
                m = pol.s1[r, arms] / n
                var = (pol.s2[r, arms] / n - m * m).clamp(min=0.0)
                check(var, n, variance_ucb(var, n, pol.L), sig2[r, arms])
            if pol.spent % 4096 == 0:
                prog.update(pol.spent)
        est.append(pol.estimate())
    prog.update(pol.budget)
    return torch.stack(est), pol.n, {k: v.cpu().numpy() for k, v in flags.items()}
