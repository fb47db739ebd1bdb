"""Budget-allocation policies for repeated judge queries, batched over R repetitions.

The protocol is the ask/tell one of :mod:`paperlib.policies.base`: ``ask()`` returns a
:class:`ArmRequest` naming one item per repetition, ``tell(request, scores)`` reports the
judge's (R,) scores. Unlike best-method identification an item may be queried any number of
times. Final estimates are the per-item sample means of Eq. (1).

Policies
--------
Uniform     round-robin over a random item order drawn once per repetition.
ROBIN       Alg. 1: argmax_i sigma_i^2 / n_i(t-1) with the variances known.
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

import torch

from ..device import get_device, make_generator
from ..policies.base import BudgetExhaustedError, RequestBook, next_request_id

UCB_FORMS = ("eq6", "delta")
T0_RULES = ("experiments", "theorem", "lemma6")


@dataclass(frozen=True)
class ArmRequest:
    """Items to query next: ``arms[r]`` for repetition r."""

    id: int
    arms: torch.Tensor


def check_judge_budget(budget, K: int) -> int:
    if isinstance(budget, bool) or int(budget) != budget:
        raise ValueError(f"budget must be an integer number of judge queries, got {budget!r}")
    budget = int(budget)
    if budget < K:
        raise ValueError(f"budget {budget} is smaller than the K = {K} items; every item needs at least one "
                         "query for its estimate (Eq. 1) to exist")
    return budget


def check_delta(delta: float) -> float:
    delta = float(delta)
    if not 0.0 < delta <= 1.0 or math.isnan(delta):
        raise ValueError(f"delta must lie in (0, 1], got {delta}")
    return delta


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
    shrink = 1.0 - torch.sqrt(4.0 * L / n.clamp(min=1))
    return torch.where(shrink > 0, var / shrink.clamp(min=1e-300), torch.full_like(var, torch.inf))


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


class AllocationPolicy:
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

    def __init__(self, K: int, budget: int, reps: int = 1, seed: int = 0, device=None):
        if int(K) < 1:
            raise ValueError(f"K must be >= 1, got {K}")
        if int(reps) < 1:
            raise ValueError(f"reps must be >= 1, got {reps}")
        self.K, self.reps = int(K), int(reps)
        self.budget = check_judge_budget(budget, self.K)
        self.device = get_device(device)
        self.gen = make_generator(seed, self.device)
        z = torch.zeros(self.reps, self.K, dtype=torch.float64, device=self.device)
        self.n, self.s1, self.s2 = z.clone(), z.clone(), z.clone()
        self.order = torch.argsort(torch.rand(self.reps, self.K, generator=self.gen, device=self.device), dim=1)
        u = torch.rand(self.reps, self.K, generator=self.gen, dtype=torch.float64, device=self.device)
        self.tiefactor = 1.0 + 1e-9 * u
        self._r = torch.arange(self.reps, device=self.device)
        self.spent = 0
        self._book = RequestBook(ArmRequest)

    @property
    def done(self) -> bool:
        return self.spent >= self.budget

    def ask(self) -> ArmRequest:
        self._book.check_ask()
        if self.done:
            raise BudgetExhaustedError(f"budget of {self.budget} queries is spent")
        return self._book.issue(ArmRequest(next_request_id(), self._select()))

    def tell(self, request: ArmRequest, scores) -> None:
        """Report the judge's score of each repetition's queried item, shape (R,), finite."""
        self._book.check_tell(request)
        x = torch.as_tensor(scores, dtype=torch.float64, device=self.device).reshape(-1)
        if x.shape != (self.reps,):
            raise ValueError(f"scores must have shape ({self.reps},), got {tuple(torch.as_tensor(scores).shape)}")
        if not torch.isfinite(x).all():
            raise ValueError("scores must be finite (drop invalid judgments before telling)")
        self._update(request.arms, x)
        self._book.settle(request)

    def _update(self, arms: torch.Tensor, x: torch.Tensor) -> None:
        r = self._r
        self.n[r, arms] += 1.0
        self.s1[r, arms] += x
        self.s2[r, arms] += x * x
        self.spent += 1
        self._after_update(arms)

    def _after_update(self, arms: torch.Tensor) -> None:
        pass

    def _select(self) -> torch.Tensor:
        raise NotImplementedError

    def estimate(self) -> torch.Tensor:
        """s_hat of Eq. (1), shape (R, K); NaN for items never queried."""
        return torch.where(self.n > 0, self.s1 / self.n.clamp(min=1), torch.full_like(self.n, torch.nan))

    def variance(self) -> torch.Tensor:
        """sigma_hat^2 of Eq. (5) (divisor n_i), shape (R, K)."""
        m = self.s1 / self.n.clamp(min=1)
        return (self.s2 / self.n.clamp(min=1) - m * m).clamp(min=0.0)


class Uniform(AllocationPolicy):
    """Round-robin: query t goes to item ``order[r, t mod K]``."""

    name = "uniform"

    def _select(self):
        return self.order[:, self.spent % self.K]


class Robin(AllocationPolicy):
    """Alg. 1 (ROBIN): known variances, argmax sigma_i^2 / n_i(t-1); n_i = 0 gives +inf."""

    name = "robin"

    def __init__(self, K, budget, variances, reps=1, seed=0, device=None):
        super().__init__(K, budget, reps, seed, device)
        var = torch.as_tensor(variances, dtype=torch.float64, device=self.device).reshape(-1)
        if var.shape != (self.K,):
            raise ValueError(f"variances must have shape ({self.K},), got {tuple(var.shape)}")
        if not torch.isfinite(var).all() or (var < 0).any():
            raise ValueError("variances must be finite and non-negative")
        self.var = var.expand(self.reps, self.K)
        self.prio = keyed_priority(torch.full_like(self.n, torch.inf), self.n, self.tiefactor)

    def _after_update(self, arms):
        r = self._r
        n = self.n[r, arms]
        self.prio[r, arms] = keyed_priority(self.var[r, arms] / n, n, self.tiefactor[r, arms])

    def _select(self):
        return self.prio.argmax(dim=1)


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

    def priorities(self) -> torch.Tensor:
        """Vbar_i / n_i for every item (+inf where the bound is vacuous), shape (R, K)."""
        return variance_ucb(self.variance(), self.n, self.L) / self.n.clamp(min=1)

    def _after_update(self, arms):
        if self.spent == self.warmup:
            self.prio = keyed_priority(self.priorities(), self.n, self.tiefactor)
        elif self.spent > self.warmup:
            r = self._r
            n = self.n[r, arms]
            m = self.s1[r, arms] / n
            var = (self.s2[r, arms] / n - m * m).clamp(min=0.0)
            self.prio[r, arms] = keyed_priority(variance_ucb(var, n, self.L) / n, n, self.tiefactor[r, arms])

    def _select(self):
        if self.spent < self.warmup:
            return self.order[:, self.spent % self.K]
        return self.prio.argmax(dim=1)

    def vbar(self) -> torch.Tensor:
        return variance_ucb(self.variance(), self.n, self.L)


POLICIES = {"uniform": Uniform, "robin": Robin, "robin-hood": RobinHood}
LABELS = {
    "uniform": "Uniform (round-robin)",
    "robin": "ROBIN (known variances, Alg. 1)",
    "robin-hood": "ROBIN-HOOD (variance UCB, Alg. 2)",
}
