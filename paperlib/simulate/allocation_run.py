"""Run an allocation policy against a judge simulator, R repetitions at once.

The simulator drives the policy only through ``ask``/``tell``. It asks for as many queries as the
remaining budget allows (``ask(max_size=...)``); a policy hands out more than one query only when
their choice cannot depend on scores not yet told, so Uniform and ROBIN give their whole query
sequence in one request, ROBIN-HOOD its whole warm-up and then one query per step. The scores of a
request are drawn in one batch. An estimate at a checkpoint inside a request adds the request's first
queries to the policy's per-item counts and sums, which the simulator reads but never writes. Every
policy here is prefix-consistent (the run with
budget b is the first b queries of a run with a larger budget), so one run to the largest budget
yields every checkpoint.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from ..checks import check_index, check_seed
from ..device import get_device
from ..keyed import STREAMS, KeyedStream, RunBlock
from ..metrics import wce
from ..policies.allocation import check_judge_budget, variance_ucb
from ..policies.registry import JUDGE, METHODS, parse
from ..progress import progress_bar
from .judges import Judge
from .seeds import run_seeds

#: the keyed stream of the simulated judge's draws (purpose 0 is the policy's own)
JUDGE_DRAWS = 9


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
    first_run: int = 0
    streams: str = STREAMS

    @property
    def reps(self) -> int:
        return int(self.estimates.shape[1])

    @property
    def run_seeds(self) -> np.ndarray:
        """(R,) each repetition's own seed (:func:`paperlib.simulate.seeds.run_seeds`): runs [first_run, first_run +
        R) of the batched run with seed ``seed``."""
        return run_seeds(self.seed, self.reps, first=self.first_run)

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


def _partial_estimate(pol, arms: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """Eq. (1) after the policy's told queries plus the first queries of a request not yet told.

    Reads the policy's documented per-item counts ``n`` and sums ``s1`` (it never writes them).
    """
    n = pol.n.clone().scatter_add_(1, arms, torch.ones_like(values))
    s1 = pol.s1.clone().scatter_add_(1, arms, values)
    return (s1 / n.clamp(min=1)).where(n > 0, torch.full_like(n, torch.nan))


def run_judge(method: str, judge: Judge, budgets, reps: int = 1, seed: int = 0, device=None,
              progress: bool = False, track: bool = False, first_run: int = 0, **params) -> JudgeResult:
    """Simulate ``method`` on ``judge`` for R repetitions up to ``max(budgets)``.

    Parameters
    ----------
    method : str
        A judge method id of :mod:`paperlib.policies.registry`: ``uniform``, ``robin``,
        ``robin-hood`` or a variant such as ``robin-hood:delta=0.007:ucb=delta``.
    budgets : increasing ints >= K, the checkpoints
    params : further policy parameters (``delta``, ``t0``, ``ucb`` for ROBIN-HOOD)
    track : bool
        ROBIN-HOOD only: record, per repetition, whether Lemma 6's deviation event or a
        violation of Corollary 9's sandwich sigma^2 <= Vbar <= 3 sigma^2 occurred at any
        t in (t0 K, B] (with the true variances of the judge).
    first_run : int
        Run runs [first_run, first_run + reps) of the batched run with this seed: every random number of run r (the
        policy's and the judge's draws) comes from streams keyed by its run seed, so they are exactly those runs of
        any larger batch (:mod:`paperlib.keyed`).
    """
    name, variant = parse(method)
    if METHODS[name].kind != JUDGE:
        raise ValueError(f"{method!r} is not a judge-allocation method; choose from uniform, robin, robin-hood, "
                         "robin-hood-eb")
    spec = METHODS[name]
    params = spec.check_params({**variant, **params})
    dev = get_device(device)
    K = judge.K
    bs = _check_budgets(budgets, K)
    B = bs[-1]
    t_start = time.perf_counter()
    seed, first_run = check_seed(seed), check_index(first_run, "first_run")  # before any work (issue 76)
    reps = check_index(reps, "reps", low=1)
    runs = RunBlock(seed, first_run) if first_run else seed
    draw_gen = KeyedStream.for_runs(runs, reps, purpose=JUDGE_DRAWS, device=dev)  # run r's judge draws, its own
    if spec.needs_scale and "scale" not in params:
        if judge.scale is None:
            raise ValueError(f"{name} needs bounded scores and judge {judge.name} has no scale; pass scale=(lo, hi)")
        params["scale"] = judge.scale
    if spec.needs_variances:
        params["variances"] = judge.variances
    pol = spec.cls(K, B, reps=reps, seed=runs, device=dev, **params)
    used = {k: getattr(pol, k) for k in ("delta", "t0", "ucb", "warmup", "warmup_truncated") if hasattr(pol, k)}
    if track and name != "robin-hood":
        raise ValueError("track=True applies to robin-hood only")
    tracker = _Tracker(pol, judge) if track else None
    est, pending = [], list(bs)
    bar = progress_bar(B, f"{method} {judge.name} R={reps}", enabled=progress)
    while pending:
        req = pol.ask(max_size=B - pol.spent)
        values = judge.draw(req.arms, draw_gen)
        start = pol.spent
        while pending and pending[0] < start + req.size:
            cut = pending.pop(0) - start
            est.append(_partial_estimate(pol, req.arms[:, :cut], values[:, :cut]))
        pol.tell(req, values)
        if tracker is not None and pol.spent > pol.warmup:
            tracker.check(pol, req.arms[:, -1])
        elif tracker is not None and pol.spent == pol.warmup and not pol.warmup_truncated:
            tracker.check_all(pol)
        if pending and pending[0] == pol.spent:
            pending.pop(0)
            est.append(pol.estimate())
        bar.update(req.size)
    bar.close()
    return JudgeResult(
        method=method, judge=judge.name, kind=judge.kind, budgets=np.array(bs),
        estimates=torch.stack(est).cpu().numpy(), counts=pol.n.cpu().numpy().astype(np.int64),
        true_means=judge.means, true_vars=judge.variances, wall_s=time.perf_counter() - t_start,
        seed=seed, device=str(dev), params=used, first_run=first_run,
        track={} if tracker is None else {k: v.cpu().numpy() for k, v in tracker.flags.items()},
    )


class _Tracker:
    """Lemma 6 / Corollary 9 violation flags per repetition, from the policy's counts and sums (read only)."""

    def __init__(self, pol, judge: Judge):
        R, K, dev = pol.reps, pol.K, pol.device
        self.L = pol.L
        self.Lt = math.log(4 * K * pol.budget / pol.delta)
        self.sig2 = torch.as_tensor(judge.variances, device=dev).expand(R, K)
        self.r = torch.arange(R, device=dev)
        self.flags = {k: torch.zeros(R, dtype=torch.bool, device=dev) for k in ("lemma6", "cor9_low", "cor9_high")}

    def _flag(self, var, n, s2):
        R = self.r.shape[0]
        vb = variance_ucb(var, n, self.L)
        self.flags["lemma6"] |= ((s2 - var).abs() >= 2 * s2 * torch.sqrt(self.Lt / n)).reshape(R, -1).any(1)
        self.flags["cor9_low"] |= (vb < s2 * (1 - 1e-12)).reshape(R, -1).any(1)
        self.flags["cor9_high"] |= (vb > 3 * s2 * (1 + 1e-12)).reshape(R, -1).any(1)

    def check_all(self, pol) -> None:
        self._flag(pol.variance(), pol.n, self.sig2)

    def check(self, pol, arms: torch.Tensor) -> None:
        n, var = pol.variance_at(arms)
        self._flag(var, n, self.sig2[self.r, arms])
