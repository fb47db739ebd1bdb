"""UCB-E-LRF, its Score-Only ablation and the LRF baseline (Zhou et al., 2025, Alg. 2, 5, 6)."""

from __future__ import annotations

import math

import torch

from ..lowrank.ensemble import LowRankEnsemble
from .base import ObservedMatrix, Policy, random_argmax, random_pair_order


def select_in_best_rows(
    priority: torch.Tensor, key: torch.Tensor, free: torch.Tensor, k: int, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Pick k free pairs per repetition: the top-``key`` free entries of the top-``priority`` row.

    If that row has fewer than k free entries the batch is completed from the next rows in
    priority order (ties broken at random), so every repetition gets exactly k distinct pairs.

    Parameters
    ----------
    priority : (R, n) row scores (-inf for rows that must not be chosen)
    key : (R, n, m) entry scores, larger first, finite
    free : (R, n, m) bool, entries that may be chosen
    """
    reps, n, m = key.shape
    ridx = torch.arange(reps, device=key.device)
    prio = torch.where(free.any(dim=2), priority, torch.full_like(priority, -torch.inf))
    top = random_argmax(prio, gen)
    row_free = free[ridx, top]
    if bool((row_free.sum(dim=1) >= k).all()):
        row_key = torch.where(row_free, key[ridx, top], torch.full_like(key[ridx, top], -torch.inf))
        cols = row_key.topk(k, dim=1).indices
        return top[:, None].expand(reps, k).contiguous(), cols
    noise = torch.rand(prio.shape, generator=gen, device=key.device, dtype=torch.float64)
    tie = torch.argsort(noise, dim=1)
    ranked = torch.gather(prio.double(), 1, tie).argsort(dim=1, descending=True, stable=True)
    row_order = torch.gather(tie, 1, ranked)
    row_rank = torch.empty_like(row_order)
    row_rank.scatter_(1, row_order, torch.arange(n, device=key.device).expand(reps, n).contiguous())
    kmin = key.amin(dim=(1, 2), keepdim=True)
    kmax = key.amax(dim=(1, 2), keepdim=True)
    unit = ((key - kmin) / (kmax - kmin + 1e-12)).double() * 0.5
    combined = (n - row_rank).double()[:, :, None] + unit
    combined = torch.where(free, combined, torch.full_like(combined, -torch.inf))
    flat = combined.flatten(1).topk(k, dim=1).indices
    return flat // m, flat % m


class _LRFPolicy(Policy):
    """Shared machinery: warm-up on uniform random pairs (T0), observed matrix, LRF oracle.

    ``refit_every`` (batches between ensemble refits; the paper refits after every batch, 1) and
    ``refit_sweeps`` (ALS sweeps per warm-started refit, 2) set the cost of a run, which grows with the
    square of the matrix at the paper's settings; benchmarks/RESULTS.md measures what fewer refits change.
    """

    def __init__(
        self,
        n,
        m,
        budget,
        reps=1,
        seed=0,
        device=None,
        rank: int = 1,
        ensemble: int = 64,
        warmup_frac: float = 0.05,
        batch_size: int = 32,
        eta: float = 5.0,
        drop: float = 0.05,
        init_sweeps: int = 20,
        refit_sweeps: int = 2,
        refit_every: int = 1,
    ):
        super().__init__(n, m, budget, reps, seed, device)
        if not 0.0 <= warmup_frac <= 1.0:
            raise ValueError(f"warmup_frac must lie in [0, 1], got {warmup_frac}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if eta < 0:
            raise ValueError(f"eta must be >= 0, got {eta}")
        self.batch_size, self.eta = int(batch_size), float(eta)
        if int(refit_every) != refit_every or refit_every < 1:
            raise ValueError(f"refit_every must be a positive integer, got {refit_every}")
        self.refit_every = int(refit_every)
        self._batches_since_fit = 0
        self.warmup = self._warmup_size(warmup_frac)
        self.warm_order = random_pair_order(self.reps, n, m, self.gen, self.device)[:, : self.warmup]
        self.obs = ObservedMatrix(self.reps, n, m, self.budget, self.device)
        self.oracle = LowRankEnsemble(
            self.reps, n, m, self.gen, self.device, rank=rank, ensemble=ensemble, drop=drop,
            init_sweeps=init_sweeps, refit_sweeps=refit_sweeps,
        )
        self.pred: torch.Tensor | None = None
        self.unc: torch.Tensor | None = None
        self._fitted_at = -1

    def _warmup_size(self, warmup_frac: float) -> int:
        """T0: uniformly random pairs evaluated before the first fit (at least 1, at most the budget)."""
        return max(1, min(self.budget, int(math.ceil(warmup_frac * self.n * self.m))))

    @property
    def in_warmup(self) -> bool:
        return self.spent < self.warmup

    def next_batch_size(self) -> int:
        return self.warmup - self.spent if self.in_warmup else self.batch_size

    def _select(self, k):
        if self.in_warmup:
            k = min(k, self.warmup - self.spent)
            flat = self.warm_order[:, self.spent : self.spent + k]
            return flat // self.m, flat % self.m
        return self._select_active(k)

    def _select_active(self, k):
        raise NotImplementedError

    def _update(self, rows, cols, scores):
        self.obs.add(rows, cols, scores)
        if self.spent + rows.shape[1] >= self.warmup and self.refits_every_batch:
            self._batches_since_fit += 1
            if self.pred is None or self._batches_since_fit >= self.refit_every:
                self._refit()
                self._batches_since_fit = 0

    refits_every_batch = True

    def _refit(self):
        self.pred, self.unc = self.oracle.fit(self.obs)
        self._fitted_at = self.spent

    def filled(self) -> torch.Tensor:
        """O * E_obs + (1 - O) * E_hat (the gated matrix of Eq. 2)."""
        return torch.where(self.obs.mask, self.obs.values, self.pred)

    def estimate(self):
        if self.pred is None or self._fitted_at != self.spent:
            self._refit()
        return self.filled().mean(dim=2).double()


class UCBELRF(_LRFPolicy):
    """UCB-E-LRF (Zhou et al., Alg. 2).

    Warm-up: T0 uniformly random pairs (default 5% of n*m). Then, in batches of b, pick the method
    with the largest ``B_i = mean_j(O E_obs + (1 - O) E_hat + eta R)_ij`` and evaluate it on the b
    unevaluated examples with the largest uncertainty ``R_ij``; refit the ensemble after each
    batch. Prediction: argmax_i mean_j(O E_obs + (1 - O) E_hat). Defaults are Sec. 4.3:
    rank 1, K = 64, T0 = 5%, eta = 5, b = 32.
    """

    name = "ucbe-lrf"

    def bounds(self) -> torch.Tensor:
        unc = torch.where(self.obs.mask, torch.zeros_like(self.unc), self.unc)  # stale between refits
        b = (self.filled() + self.eta * unc).mean(dim=2)
        full = self.obs.mask.all(dim=2)
        return torch.where(full, torch.full_like(b, -torch.inf), b)

    def _select_active(self, k):
        return select_in_best_rows(self.bounds(), self.unc, ~self.obs.mask, k, self.gen)


class UCBELRFScoreOnly(_LRFPolicy):
    """UCB-E-LRF (Score Only) (Zhou et al., Alg. 6).

    As UCB-E-LRF but with the UCB-E bonus: ``B_i = mean_j(O E_obs + (1 - O) E_hat) + sqrt(eta / |S_i|)``,
    and the b examples drawn uniformly at random from the method's unevaluated ones.
    """

    name = "ucbe-lrf-score-only"
    uniform_within_row = True  # the warm-up pairs and each row's b examples are uniform among its unevaluated ones

    def bounds(self) -> torch.Tensor:
        counts = self.obs.mask.sum(dim=2).float()
        b = self.filled().mean(dim=2) + torch.sqrt(self.eta / counts.clamp(min=1))
        b = torch.where(counts == 0, torch.full_like(b, torch.inf), b)
        return torch.where(counts >= self.m, torch.full_like(b, -torch.inf), b)

    def _select_active(self, k):
        key = torch.rand(self.obs.mask.shape, generator=self.gen, device=self.device)
        return select_in_best_rows(self.bounds(), key, ~self.obs.mask, k, self.gen)


class LRF(_LRFPolicy):
    """LRF baseline (Zhou et al., Alg. 5): random pairs, scores completed by the LRF ensemble.

    Alg. 5 draws b rows and b columns at random and may redraw evaluated pairs; we draw
    uniformly from the unevaluated pairs, as Row Mean Imputation does. Because the pairs do not
    depend on the fit, the ensemble is fitted only when an estimate is requested (from a cold
    start each time, ``init_sweeps`` sweeps), which gives the same estimate as refitting after
    every batch with a converged solver at a fraction of the cost.
    """

    name = "lrf"
    uniform_within_row = True  # uniform pairs among the unevaluated ones
    refits_every_batch = False

    def _warmup_size(self, warmup_frac: float) -> int:
        return self.budget

    def next_batch_size(self) -> int:
        return max(self.batch_size, 1024)

    def _refit(self):
        self.oracle.reset()
        super()._refit()
