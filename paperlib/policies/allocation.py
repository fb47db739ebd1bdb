"""Budget-allocation policies for repeated judge queries, batched over R repetitions.

The protocol is the ask/tell one of :mod:`paperlib.policies.base`: ``ask()`` returns an
:class:`ArmRequest` naming the items to query next, ``arms`` of shape (R, k), and
``tell(request, scores)`` reports the judge's (R, k) scores. By default k = 1; ``ask(max_size=N)``
lets a policy hand out up to N queries at once when their choice does not depend on scores not
yet told (Uniform and ROBIN always, ROBIN-HOOD during its warm-up), which is how a simulator
draws a score-blind query sequence in one batch. Unlike best-method identification an item may
be queried any number of times. Final estimates are the per-item sample means of Eq. (1).

Policies
--------
Uniform     round-robin over a random item order drawn once per repetition.
ROBIN       Alg. 1: argmax_i sigma_i^2 / n_i(t-1) with the variances known; the whole greedy
            sequence is built at once (:func:`robin_sequence`).
ROBIN-HOOD  Alg. 2: t0 rounds of round-robin, then argmax_i Vbar_i(t-1) / n_i(t-1), Eq. (6).

Conventions the paper leaves open (documented in the claims ledger):

* ``n_i = 0`` gives priority +inf, so every item is queried once before any second query
  (ROBIN; needed for Eq. (1) to be defined, and the reason B >= K is required).
* Eq. (6) has ``1 - sqrt(4 L / n_i)`` in the denominator, which is <= 0 while
  ``n_i <= 4 L``; the upper confidence bound is then vacuous, Vbar = +inf. Among items whose bound
  is vacuous the least-queried one goes first (round-robin), which the algorithm box leaves
  unspecified. ``L = log(4 K B / delta)`` as written (``ucb="eq6"``) or ``L = log(1 / delta)``
  (``ucb="delta"``), the only form under which the experiments' t0 = 4 ln(1/delta) (Sec. 5.1)
  makes the bound finite right after the warm-up.
* Ties are broken at random by a per-repetition key drawn once (:func:`keyed_priority`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from ..checks import check_delta, check_scalar
from ..device import get_device
from ..keyed import KeyedStream, uniform
from ..pickling import KeepsViews
from .base import BudgetExhaustedError, RequestBook, next_request_id, refuse_complex

UCB_FORMS = ("eq6", "delta")
T0_RULES = ("experiments", "theorem", "lemma6")


@dataclass(frozen=True)
class ArmRequest:
    """Items to query next: ``arms[r, t]`` for repetition r, t < k."""

    id: int
    arms: torch.Tensor

    @property
    def size(self) -> int:
        return int(self.arms.shape[1])


def check_judge_budget(budget, K: int) -> int:
    if isinstance(budget, bool) or int(budget) != budget:
        raise ValueError(f"budget must be an integer number of judge queries, got {budget!r}")
    budget = int(budget)
    if budget < K:
        raise ValueError(f"budget {budget} is smaller than the K = {K} items; every item needs at least one "
                         "query for its estimate (Eq. 1) to exist")
    return budget


def ucb_log(form: str, K: int, B: int, delta: float) -> float:
    """The log term L of Eq. (6): log(4KB/delta) (``eq6``) or log(1/delta) (``delta``)."""
    if form == "eq6":
        return math.log(4 * K * B / delta)
    if form == "delta":
        return math.log(1.0 / delta)
    raise ValueError(f"unknown UCB form {form!r}; choose from {UCB_FORMS}")


def warmup_rounds(rule, K: int, B: int, delta: float) -> int:
    """t0 of Alg. 2, in rounds (queries per item).

    ``experiments``: ceil(4 ln(1/delta)) (Sec. 5.1); ``theorem``: ceil(16 log(4KB/delta))
    (Theorem 5); ``lemma6``: ceil(4 log(4KB/delta)) (Lemma 6's tau); or an integer >= 1.
    """
    if isinstance(rule, str) and rule.isdigit():
        rule = int(rule)
    if isinstance(rule, str):
        if rule == "experiments":
            return math.ceil(4 * math.log(1.0 / delta))
        if rule == "theorem":
            return math.ceil(16 * math.log(4 * K * B / delta))
        if rule == "lemma6":
            return math.ceil(4 * math.log(4 * K * B / delta))
        raise ValueError(f"unknown t0 rule {rule!r}; choose from {T0_RULES} or give an integer")
    if int(rule) != rule or int(rule) < 1:
        raise ValueError(f"t0 must be a positive integer or one of {T0_RULES}, got {rule!r}")
    return int(rule)


def variance_ucb(var: torch.Tensor, n: torch.Tensor, L: float) -> torch.Tensor:
    """Vbar of Eq. (6): var / (1 - sqrt(4 L / n)); +inf where the bound is vacuous (n <= 4L)."""
    informative = n > 4.0 * L  # decided by comparison: on CUDA 4L / n can round below 1 at n = 4L
    shrink = 1.0 - torch.sqrt(4.0 * L / n.clamp(min=1))
    return torch.where(informative & (shrink > 0), var / shrink.clamp(min=1e-300), torch.full_like(var, torch.inf))


def robin_sequence(variances, B: int, reps: int, gen, device) -> torch.Tensor:
    """The first B queries of ROBIN (Alg. 1) for each repetition, shape (R, B), long.

    Entries sigma_i^2 / k for k = 0..ceil(lambda_i B) (k = 0 is +inf) are sorted in decreasing
    order, ties in a random order per repetition. Items with sigma_i^2 = 0 have only the k = 0
    entry (one query); if every variance is 0 the queries go round-robin.
    """
    var = torch.as_tensor(np.asarray(variances, dtype=np.float64), device=device)
    K = var.shape[0]
    total = float(var.sum())
    if total <= 0:
        order = torch.argsort(uniform(gen, (reps, K), device=device), dim=1)
        return order[:, torch.arange(B, device=device) % K]
    cap = torch.where(var > 0, torch.ceil(var / total * B).long() + 1, torch.zeros_like(var, dtype=torch.long))
    sizes = cap + 1
    arm = torch.repeat_interleave(torch.arange(K, device=device), sizes)
    start = torch.cumsum(sizes, 0) - sizes
    k = torch.arange(arm.shape[0], device=device) - start[arm]
    prio = torch.where(k == 0, torch.full_like(var[arm], torch.inf), var[arm] / k.clamp(min=1))
    key = uniform(gen, (reps, arm.shape[0]), device=device)
    idx1 = torch.argsort(key, dim=1)
    idx2 = torch.argsort(-prio[idx1], dim=1, stable=True)
    order = idx1.gather(1, idx2[:, :B])
    return arm[order]


VACUOUS = 1e200
TINY = 1e-300


def keyed_priority(prio: torch.Tensor, n: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    """Priorities whose plain argmax implements the tie rules.

    +inf (never queried, or a vacuous bound) becomes ``VACUOUS / n`` (``2 VACUOUS`` at n = 0), so
    the least-queried such item goes first; zero (an item whose estimated variance is 0) becomes
    ``TINY / n``, so if every priority is zero the queries go round-robin; every priority is multiplied by a per-repetition
    random factor in [1, 1 + 1e-9) drawn once, which breaks exact ties at random without
    reordering priorities that differ by more than one part in 10^9.
    """
    inv = n.clamp(min=0.5).reciprocal()
    prio = torch.where(torch.isinf(prio), VACUOUS * inv, torch.where(prio > 0, prio, TINY * inv))
    return prio * factor


class AllocationPolicy(KeepsViews):
    """Base class: R repetitions, per-item counts, sums and sums of squares (float64).

    Parameters
    ----------
    K : int
        Number of items (prompt-response pairs).
    budget : int
        Queries per repetition, at least K.
    reps, seed, device
        Repetitions run together, seed of the policy's generator, torch device.
    """

    name = "policy"
    needs_scale = False  # True: the policy needs the judge's score range (``scale=(lo, hi)``)
    needs_variances = False  # True: the policy is given the judge's true variances (``variances=``)

    def __init__(self, K: int, budget: int, reps: int = 1, seed: int = 0, device=None):
        K = check_scalar(K, "K (items)", int, low=1)  # K = 5.7 is refused, never rounded
        reps = check_scalar(reps, "reps", int, low=1)
        self.K, self.reps = K, reps
        self.budget = check_judge_budget(budget, self.K)
        self.device = get_device(device)
        self.gen = KeyedStream.for_runs(seed, self.reps, purpose=0, device=self.device)  # run r's own stream
        z = torch.zeros(self.reps, self.K, dtype=torch.float64, device=self.device)
        self.n, self.s1, self.s2 = z.clone(), z.clone(), z.clone()
        self.order = torch.argsort(uniform(self.gen, (self.reps, self.K), device=self.device), dim=1)
        u = uniform(self.gen, (self.reps, self.K), dtype=torch.float64, device=self.device)
        self.tiefactor = 1.0 + 1e-9 * u
        self._r = torch.arange(self.reps, device=self.device)
        self.spent = 0
        self._book = RequestBook(ArmRequest)

    @property
    def done(self) -> bool:
        return self.spent >= self.budget

    def ask(self, max_size: int = 1) -> ArmRequest:
        """The next queries, ``arms`` of shape (R, k) with 1 <= k <= ``max_size``.

        k > 1 only where the policy's choice of those queries cannot depend on the scores of
        the earlier ones (:meth:`blind_horizon`), so asking for many at once never changes a run.
        """
        self._book.check_ask()
        if self.done:
            raise BudgetExhaustedError(f"budget of {self.budget} queries is spent")
        if isinstance(max_size, bool) or int(max_size) != max_size or max_size < 1:
            raise ValueError(f"max_size must be a positive integer, got {max_size!r}")
        k = max(1, min(int(max_size), self.budget - self.spent, self.blind_horizon()))
        return self._book.issue(ArmRequest(next_request_id(), self._select(k)))

    def tell(self, request: ArmRequest, scores) -> None:
        """Report the judge's scores of a request's queries, shape (R, k) (or (R,) when k = 1), finite."""
        self._book.check_tell(request)
        refuse_complex(scores, "scores must be real numbers")
        x = torch.as_tensor(scores, dtype=torch.float64, device=self.device)
        if x.shape != request.arms.shape and not (request.size == 1 and x.reshape(-1).shape == (self.reps,)):
            raise ValueError(f"scores must have shape {tuple(request.arms.shape)}, got {tuple(x.shape)}")
        x = x.reshape(request.arms.shape)
        if not torch.isfinite(x).all():
            raise ValueError("scores must be finite (drop invalid judgments before telling)")
        if (x.abs() > 1e100).any():  # as paperlib.data.judge_pools.MAX_ABS_SCORE: the variances would overflow
            raise ValueError(f"a score of magnitude {x.abs().max().item():.3g} is beyond 1e100; the variances would "
                             "overflow (rescale the scores)")
        self._check_scores(x)
        self._update(request.arms, x)
        self._book.settle(request)

    def _check_scores(self, x: torch.Tensor) -> None:
        """A policy that assumes more of the scores (a bounded scale) refuses the ones outside it here."""

    def blind_horizon(self) -> int:
        """How many of the next queries are fixed whatever the scores told meanwhile (at least 1)."""
        return 1

    def _update(self, arms: torch.Tensor, x: torch.Tensor) -> None:
        self.n.scatter_add_(1, arms, torch.ones_like(x))
        self.s1.scatter_add_(1, arms, x)
        self.s2.scatter_add_(1, arms, x * x)
        self.spent += arms.shape[1]
        self._after_update(arms[:, -1] if arms.shape[1] == 1 else None)

    def _after_update(self, arms: torch.Tensor) -> None:
        pass

    def _select(self, k: int) -> torch.Tensor:
        """The next k queries, (R, k) long."""
        raise NotImplementedError

    def estimate(self) -> torch.Tensor:
        """s_hat of Eq. (1), shape (R, K); NaN for items never queried."""
        return torch.where(self.n > 0, self.s1 / self.n.clamp(min=1), torch.full_like(self.n, torch.nan))

    def variance(self) -> torch.Tensor:
        """sigma_hat^2 of Eq. (5) (divisor n_i), shape (R, K)."""
        m = self.s1 / self.n.clamp(min=1)
        return (self.s2 / self.n.clamp(min=1) - m * m).clamp(min=0.0)

    def variance_at(self, arms: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(n_i, sigma_hat_i^2 of Eq. 5) of one queried item per repetition, ``arms`` of shape (R,)."""
        r = self._r
        n = self.n[r, arms]
        m = self.s1[r, arms] / n
        return n, (self.s2[r, arms] / n - m * m).clamp(min=0.0)

    def _round_robin(self, k: int) -> torch.Tensor:
        """The next k queries of the per-repetition round-robin order, (R, k)."""
        return self.order[:, (self.spent + torch.arange(k, device=self.device)) % self.K]


class Uniform(AllocationPolicy):
    """Round-robin: query t goes to item ``order[r, t mod K]``."""

    name = "uniform"

    def blind_horizon(self) -> int:
        return self.budget - self.spent

    def _select(self, k):
        return self._round_robin(k)


class Robin(AllocationPolicy):
    """Alg. 1 (ROBIN): known variances, argmax sigma_i^2 / n_i(t-1); n_i = 0 gives +inf.

    ROBIN never looks at the scores, so its whole query sequence is built at the first ask
    (:func:`robin_sequence`, one sort) and handed out in order.
    """

    name = "robin"
    needs_variances = True  # the judge's true variances (known-variance oracle)

    def __init__(self, K, budget, variances, reps=1, seed=0, device=None):
        super().__init__(K, budget, reps, seed, device)
        var = torch.as_tensor(variances, dtype=torch.float64, device=self.device).reshape(-1)
        if var.shape != (self.K,):
            raise ValueError(f"variances must have shape ({self.K},), got {tuple(var.shape)}")
        if not torch.isfinite(var).all() or (var < 0).any():
            raise ValueError("variances must be finite and non-negative")
        self.variances = var
        self._sequence = None

    def blind_horizon(self) -> int:
        return self.budget - self.spent

    def _select(self, k):
        if self._sequence is None:
            self._sequence = robin_sequence(self.variances.cpu().numpy(), self.budget, self.reps, self.gen, self.device)
        return self._sequence[:, self.spent : self.spent + k]


class RobinHood(AllocationPolicy):
    """Alg. 2 (ROBIN-HOOD): t0 rounds of round-robin, then argmax Vbar_i(t-1) / n_i(t-1).

    Parameters
    ----------
    delta : float in (0, 1]
        Confidence parameter of Eq. (6).
    t0 : "experiments" | "theorem" | "lemma6" | int
        Warm-up rounds (see :func:`warmup_rounds`). If t0 * K exceeds the budget the whole
        budget is round-robin (``warmup_truncated``).
    ucb : "eq6" | "delta"
        Log term of Eq. (6) (see :func:`ucb_log`).
    """

    name = "robin-hood"

    def __init__(self, K, budget, delta=0.007, t0="experiments", ucb="eq6", reps=1, seed=0, device=None):
        super().__init__(K, budget, reps, seed, device)
        self.delta = check_delta(delta)
        self.t0 = warmup_rounds(t0, self.K, self.budget, self.delta)
        self.ucb = ucb
        self.L = ucb_log(ucb, self.K, self.budget, self.delta)
        self.warmup = min(self.t0 * self.K, self.budget)
        self.warmup_truncated = self.t0 * self.K > self.budget
        self.prio = torch.zeros_like(self.n)

    def _bound(self, var: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        """Vbar of Eq. (6) from the sample variances and counts."""
        return variance_ucb(var, n, self.L)

    def priorities(self) -> torch.Tensor:
        """Vbar_i / n_i for every item (+inf where the bound is vacuous), shape (R, K)."""
        return self._bound(self.variance(), self.n) / self.n.clamp(min=1)

    def blind_horizon(self) -> int:
        return max(1, self.warmup - self.spent)

    def _after_update(self, arms):
        if self.spent == self.warmup and not self.warmup_truncated:
            self.prio = keyed_priority(self.priorities(), self.n, self.tiefactor)
        elif self.spent > self.warmup:
            r = self._r
            n, var = self.variance_at(arms)
            self.prio[r, arms] = keyed_priority(self._bound(var, n) / n, n, self.tiefactor[r, arms])

    def _select(self, k):
        if self.spent < self.warmup:
            return self._round_robin(k)
        return self.prio.argmax(dim=1, keepdim=True)


def eb_variance_ucb(var: torch.Tensor, n: torch.Tensor, L: float, span: float) -> torch.Tensor:
    """Empirical-Bernstein upper bound on sigma^2 for scores in an interval of length ``span``.

    Maurer & Pontil (2009, Thm. 10): with probability >= 1 - e^{-L},
    sigma <= s_{n-1} + span * sqrt(2 L / (n - 1)), s_{n-1} the unbiased sample deviation; squared and capped at
    span^2 / 4, the largest variance a variable in the interval can have. Unlike Eq. (6) it is finite for every
    n >= 2 and never below 2 span^2 L / (n - 1): an item whose samples all agree keeps a positive priority.
    +inf for n < 2.
    """
    n1 = (n - 1).clamp(min=1)
    s = torch.sqrt((var * n / n1).clamp(min=0))
    ub = (s + span * torch.sqrt(2.0 * L / n1)) ** 2
    ub = torch.minimum(ub, torch.full_like(ub, span * span / 4.0))
    return torch.where(n >= 2, ub, torch.full_like(var, torch.inf))


class RobinHoodEB(RobinHood):
    """ROBIN-HOOD with an empirical-Bernstein variance bound (ours; issue "Beyond the papers").

    Same loop as Alg. 2 (``t0`` rounds of round-robin, then argmax Vbar_i / n_i), with Vbar of
    :func:`eb_variance_ucb` instead of Eq. (6). Eq. (6) is vacuous until n > 4L and, once finite,
    proportional to the sample variance: an item whose first samples all agree gets Vbar = 0 and is never
    queried again (the starvation the ledger found). The empirical-Bernstein bound needs bounded scores
    (``scale = (lo, hi)``, the judge's scale), is valid from n = 2 and never collapses to 0.

    Parameters
    ----------
    scale : (lo, hi)
        Range of the judge's scores.
    t0 : int or rule
        Warm-up rounds; default 2, the fewest for which the bound is defined.
    ucb : "eq6" | "delta"
        L = log(4 K B / delta) (a union bound over items and steps) or log(1 / delta).
    """

    name = "robin-hood-eb"
    needs_scale = True

    def __init__(self, K, budget, scale=None, delta=0.007, t0=2, ucb="eq6", reps=1, seed=0, device=None):
        if scale is None:
            raise ValueError("robin-hood-eb needs bounded scores: give scale=(lo, hi), the judge's score range")
        lo, hi = (float(x) for x in scale)
        if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
            raise ValueError(f"scale must be a finite (lo, hi) with hi > lo, got {scale!r}")
        self.lo, self.hi, self.span = lo, hi, hi - lo
        super().__init__(K, budget, delta=delta, t0=t0, ucb=ucb, reps=reps, seed=seed, device=device)

    def _check_scores(self, x: torch.Tensor) -> None:
        """The empirical-Bernstein bound holds for scores in the declared scale only: one outside it is an error,
        not a silently invalid bound."""
        bad = (x < self.lo) | (x > self.hi)
        if bad.any():
            raise ValueError(f"robin-hood-eb: score {x[bad][0].item():g} lies outside the declared scale "
                             f"[{self.lo:g}, {self.hi:g}]")

    def _bound(self, var, n):
        return eb_variance_ucb(var, n, self.L, self.span)
