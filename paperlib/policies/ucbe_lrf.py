"""UCB-E-LRF, its Score-Only ablation and the LRF baseline (Zhou et al., 2025, Alg. 2, 5, 6)."""

from __future__ import annotations

import math

import torch

from ..keyed import skip
from ..lowrank.ensemble import LowRankEnsemble
from .base import (
    ObservedMatrix,
    Policy,
    order_with_random_ties,
    random_argmax,
    random_pair_order,
    uniform,
)


def _top(keys: torch.Tensor, k: int) -> torch.Tensor:
    """The k largest of each row, equal keys in column order (a stable sort: ``topk`` orders ties by its algorithm,
    which differs with the row's length, and the two ways of :func:`select_in_best_rows` must agree)."""
    return keys.sort(dim=1, descending=True, stable=True).indices[:, :k]


def select_in_best_rows(
    priority: torch.Tensor, key, mask: torch.Tensor, row_count: torch.Tensor, k: int, gen: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Pick k unobserved pairs per repetition: the top-``key`` free entries of the top-``priority`` row.

    If that row has fewer than k free entries the batch is completed from the next rows in
    priority order (ties broken at random), so every repetition gets exactly k distinct pairs. Which of the two ways a
    batch takes depends on all its repetitions, so both draw the same numbers of each repetition's keyed stream (the
    order's draw is skipped on the short way) and take the same top row first: a repetition's pairs are those of its run
    alone.
    Only the rows needed are read (one, unless it runs short), so a batch costs O(R (n + L m))
    for the L rows it takes, not O(R n m).

    Parameters
    ----------
    priority : (R, n) row scores (-inf for rows that must not be chosen)
    key : (R, n, m) tensor of entry scores, larger first, finite; or a callable with ``key(rows)`` the
        (R, L, m) keys of the rows ``rows`` (R, L) (drawn lazily)
    mask : (R, n, m) bool, observed entries (never chosen)
    row_count : (R, n) observed entries per row (``mask.sum(dim=2)``)
    """
    reps, n, m = mask.shape
    ridx = torch.arange(reps, device=mask.device)
    if not callable(key):
        table = key
        key = lambda rows: table[ridx[:, None], rows]  # noqa: E731
    prio = torch.where(row_count < m, priority, torch.full_like(priority, -torch.inf))
    top = random_argmax(prio, gen)
    if bool((row_count[ridx, top] <= m - k).all()):
        skip(gen)  # the order's draw below: a repetition's stream never depends on which path its batch took
        row_key = key(top[:, None])[:, 0]
        row_key = torch.where(mask[ridx, top], torch.full_like(row_key, -torch.inf), row_key)
        cols = _top(row_key, k)
        return top[:, None].expand(reps, k).contiguous(), cols
    # the top row first (as on the path above, whatever the ties), then the others in priority order, ties at random
    row_order = order_with_random_ties(prio, gen)
    rest = row_order.masked_select(row_order != top[:, None]).view(reps, n - 1)
    row_order = torch.cat([top[:, None], rest], dim=1)
    free_left = (m - torch.gather(row_count, 1, row_order)).cumsum(dim=1)
    need = int((free_left < k).sum(dim=1).max()) + 1
    rows = row_order[:, :need]
    keys = key(rows).double()
    kmin = keys.amin(dim=(1, 2), keepdim=True)
    kmax = keys.amax(dim=(1, 2), keepdim=True)
    rank = torch.arange(need, 0, -1, device=mask.device, dtype=torch.float64)[None, :, None]
    combined = rank + 0.5 * (keys - kmin) / (kmax - kmin + 1e-12)
    combined = torch.where(mask[ridx[:, None], rows], torch.full_like(combined, -torch.inf), combined)
    flat = _top(combined.flatten(1), k)
    return torch.gather(rows, 1, flat // m), flat % m


class _LRFPolicy(Policy):
    """Shared machinery: warm-up on uniform random pairs (T0), observed matrix, LRF oracle.

    When the ensemble is refitted: the paper refits after every batch (``refit_every = 1``,
    ``refit_growth = 0``), so a run to a fraction f of an n x m matrix costs about f n m / b refits
    of O(K n m) each, quadratic in the matrix. ``refit_every`` waits that many batches between
    refits; ``refit_growth = g`` waits until the observed pairs have grown by the factor 1 + g
    since the last refit, so a run costs about log(f / T0) / log(1 + g) refits, linear in the
    matrix (g = 0.02: ~150 refits from a 5% warm-up to the full matrix instead of ~n m / 32).
    Between refits the bounds still move with every batch: observed scores replace their
    predictions and their uncertainty drops to 0 (the row sums are updated in place, O(R b) a
    batch). ``benchmarks/lrf_refit_schedule.py`` measures what the cheaper schedules change.
    ``refit_sweeps``: ALS sweeps per warm-started refit (2).
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
        refit_growth: float = 0.0,
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
        if not (isinstance(refit_growth, (int, float)) and 0.0 <= float(refit_growth) <= 10.0):
            raise ValueError(f"refit_growth must lie in [0, 10], got {refit_growth!r}")
        self.refit_growth = float(refit_growth)
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
        self._rep_col = torch.arange(self.reps, device=self.device)[:, None]
        self.row_sum: torch.Tensor | None = None
        self.unc_sum: torch.Tensor | None = None
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
        if not self.refits_every_batch:
            return
        if self.obs.count >= self.warmup:
            self._batches_since_fit += 1
            due = self._batches_since_fit >= self.refit_every and self.obs.count >= (1 + self.refit_growth) * self._fitted_at
            if self.pred is None or due:
                self._refit()
                return
        if self.pred is not None:
            self._track(rows, cols, scores)

    refits_every_batch = True
    random_estimate = True
    #: whether the bounds read R's row sums (only UCB-E-LRF's do; the others skip that (R, n, m) pass)
    uses_uncertainty = False

    def _track(self, rows, cols, scores):
        """Row sums of Eq. 2's gated matrix and of R after new observations, without a refit."""
        r = self._rep_col.expand_as(rows)
        flat = (r * self.n + rows).reshape(-1)
        gain = (scores - self.pred[r, rows, cols]).reshape(-1).double()
        self.row_sum.view(-1).index_add_(0, flat, gain)
        if self.uses_uncertainty:
            self.unc_sum.view(-1).index_add_(0, flat, -self.unc[r, rows, cols].reshape(-1).double())

    def _refit(self):
        self.pred, self.unc = self.oracle.fit(self.obs)
        self.row_sum = self.filled().sum(dim=2, dtype=torch.float64)
        if self.uses_uncertainty:
            self.unc_sum = self.unc.sum(dim=2, dtype=torch.float64)
        self._fitted_at = self.obs.count
        self._batches_since_fit = 0

    def filled(self) -> torch.Tensor:
        """O * E_obs + (1 - O) * E_hat (the gated matrix of Eq. 2)."""
        return torch.where(self.obs.mask, self.obs.values, self.pred)

    def estimate(self):
        if self.pred is None or self._fitted_at != self.obs.count:
            self._refit()
        return self.row_sum / self.m


class UCBELRF(_LRFPolicy):
    """UCB-E-LRF (Zhou et al., Alg. 2).

    Warm-up: T0 uniformly random pairs (default 5% of n*m). Then, in batches of b, pick the method
    with the largest ``B_i = mean_j(O E_obs + (1 - O) E_hat + eta R)_ij`` and evaluate it on the b
    unevaluated examples with the largest uncertainty ``R_ij``; refit the ensemble after each
    batch. Prediction: argmax_i mean_j(O E_obs + (1 - O) E_hat). Defaults are Sec. 4.3:
    rank 1, K = 64, T0 = 5%, eta = 5, b = 32.
    """

    name = "ucbe-lrf"
    uses_uncertainty = True

    def bounds(self) -> torch.Tensor:
        b = (self.row_sum + self.eta * self.unc_sum) / self.m
        return torch.where(self.obs.row_count >= self.m, torch.full_like(b, -torch.inf), b)

    def _select_active(self, k):
        return select_in_best_rows(self.bounds(), self.unc, self.obs.mask, self.obs.row_count, k, self.gen)


class UCBELRFScoreOnly(_LRFPolicy):
    """UCB-E-LRF (Score Only) (Zhou et al., Alg. 6).

    As UCB-E-LRF but with the UCB-E bonus: ``B_i = mean_j(O E_obs + (1 - O) E_hat) + sqrt(eta / |S_i|)``,
    and the b examples drawn uniformly at random from the method's unevaluated ones.
    """

    name = "ucbe-lrf-score-only"
    uniform_within_row = True  # the warm-up pairs and each row's b examples are uniform among its unevaluated ones

    def bounds(self) -> torch.Tensor:
        counts = self.obs.row_count.double()
        b = self.row_sum / self.m + torch.sqrt(self.eta / counts.clamp(min=1))
        b = torch.where(counts == 0, torch.full_like(b, torch.inf), b)
        return torch.where(counts >= self.m, torch.full_like(b, -torch.inf), b)

    def _uniform_keys(self, rows):
        return uniform(self.gen, (*rows.shape, self.m), device=self.device)

    def _select_active(self, k):
        return select_in_best_rows(self.bounds(), self._uniform_keys, self.obs.mask, self.obs.row_count, k, self.gen)


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
