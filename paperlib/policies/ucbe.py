"""UCB-E for best-method identification (Zhou et al., 2025, Alg. 1; Audibert et al., 2010)."""

from __future__ import annotations

import torch

from .base import Policy, RowMeanState, random_argmax


class UCBE(Policy):
    """UCB-E (Zhou et al., Alg. 1).

    At every step pick the method with the largest upper confidence bound
    ``B_i = mean_i + sqrt(a / |S_i|)`` (``B_i = +inf`` before its first evaluation; ties broken
    uniformly at random) and evaluate it on an example drawn uniformly at random from those it
    has not been evaluated on. The prediction is the method with the highest observed mean.

    Parameters
    ----------
    a : float
        Exploration parameter (the paper's eta in Alg. 1; Sec. 4.3 uses a = 1).
    batch_size : int
        Pairs per ``ask``. With 1 (the paper) this is Alg. 1 exactly. With b > 1 the b pairs are
        chosen one after another, each counting the pairs already chosen in the batch as
        pending evaluations (their |S_i| grows, their means wait for ``tell``; a method with
        only pending evaluations gets the optimistic mean 1).

    Notes
    -----
    A method evaluated on all m examples cannot be evaluated again and is excluded from the
    argmax. Each method's examples follow a random permutation drawn at the start, which is
    the same as drawing each new example uniformly from the unevaluated ones.
    """

    name = "ucbe"

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, a: float = 1.0, batch_size: int = 1):
        super().__init__(n, m, budget, reps, seed, device)
        if a < 0:
            raise ValueError(f"exploration parameter a must be >= 0, got {a}")
        self.a = float(a)
        self.batch_size = int(batch_size)
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        idx_dtype = torch.int16 if self.m < 2**15 else torch.int32
        self.col_order = torch.empty(self.reps, self.n, self.m, dtype=idx_dtype, device=self.device)
        chunk = max(1, 2**24 // (self.n * self.m))
        for s in range(0, self.reps, chunk):
            keys = torch.rand(min(chunk, self.reps - s), self.n, self.m, generator=self.gen, device=self.device)
            self.col_order[s : s + chunk] = torch.argsort(keys, dim=2).to(idx_dtype)
        self.state = RowMeanState(self.reps, self.n, self.device)

    def next_batch_size(self) -> int:
        return self.batch_size

    def bounds(self, pending: torch.Tensor | None = None) -> torch.Tensor:
        """Upper confidence bounds B (R, n) with full rows at -inf."""
        counts = self.state.counts if pending is None else self.state.counts + pending
        told = self.state.counts
        mean = torch.where(told > 0, self.state.sums / told.clamp(min=1), torch.ones_like(told))
        b = mean + torch.sqrt(self.a / counts.clamp(min=1))
        b = torch.where(counts == 0, torch.full_like(b, torch.inf), b)
        return torch.where(counts >= self.m, torch.full_like(b, -torch.inf), b)

    def _select(self, k):
        pending = torch.zeros_like(self.state.counts)
        rows = torch.empty(self.reps, k, dtype=torch.long, device=self.device)
        cols = torch.empty_like(rows)
        for t in range(k):
            i = random_argmax(self.bounds(pending), self.gen)
            pos = (self.state.counts[self._rep_index, i] + pending[self._rep_index, i]).long()
            rows[:, t] = i
            cols[:, t] = self.col_order[self._rep_index, i, pos].long()
            pending[self._rep_index, i] += 1
        return rows, cols

    def _update(self, rows, cols, scores):
        self.state.add(rows, scores)

    def estimate(self):
        return self.state.means()
