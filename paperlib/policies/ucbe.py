"""UCB-E for best-method identification (Zhou et al., 2025, Alg. 1; Audibert et al., 2010)."""

from __future__ import annotations

import torch

from .base import Policy, RowMeanState
from .lazyperm import KeyedPermutations


def top_k_random_ties(values: torch.Tensor, k: int, gen: torch.Generator) -> torch.Tensor:
    """Indices (unordered) of the k largest entries of each row; ties at the k-th value broken uniformly at random.

    Random keys are drawn only for the rows that have more entries equal to their k-th value than
    places left, and only those rows are ranked a second time.
    """
    top = values.topk(k, dim=1, sorted=False)
    thr = top.values.amin(dim=1, keepdim=True)
    above = (values > thr).sum(1)
    eq = values == thr
    tied = (eq.sum(1) + above > k).nonzero().squeeze(1)
    if not tied.numel():
        return top.indices
    sub, sub_eq = values[tied] > thr[tied], eq[tied]
    score = sub.to(torch.float32).mul_(2.0).sub_(1.0)
    where = sub_eq.nonzero(as_tuple=True)
    score[where] = torch.rand(where[0].numel(), generator=gen, device=values.device)
    out = top.indices.clone()
    out[tied] = score.topk(k, dim=1, sorted=False).indices
    return out


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
    A method evaluated on all m examples cannot be evaluated again and is excluded. Each method's
    examples follow a random ordering of the m examples (:class:`.lazyperm.KeyedPermutations`,
    computed on demand, never stored as an (R, n, m) table), which is the same as drawing each new
    example uniformly from the unevaluated ones.

    The b pairs of a batch are chosen at once: a method's bound falls with every pending
    evaluation, so the b sequential arg-maxes take the b largest values of the methods' decreasing
    bound sequences (a merge). Only the b methods with the largest current bounds can be picked,
    so each repetition takes the b largest of b x b candidates (two partial top-k, no sort). Ties
    at the b-th value are broken uniformly at random, as Alg. 1's random tie-breaking does. Bounds
    are cached and recomputed after ``tell`` only for the methods just evaluated.

    A hot set of methods (look for the b best only among the largest bounds) does not pay here:
    binary scores make many methods share one (sum, count), hence one bound, so the ties at the
    set's edge force the full choice at most steps (tried; see benchmarks/RESULTS.md).
    """

    uniform_within_row = True
    name = "ucbe"

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, a: float = 1.0, batch_size: int = 1):
        super().__init__(n, m, budget, reps, seed, device)
        if a < 0:
            raise ValueError(f"exploration parameter a must be >= 0, got {a}")
        self.a = float(a)
        self.batch_size = int(batch_size)
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.order = KeyedPermutations(self.reps, self.n, self.m, self.gen, self.device)
        self.state = RowMeanState(self.reps, self.n, self.device)
        self._radius = torch.sqrt(self.a / torch.arange(self.m + 1, device=self.device, dtype=torch.float64))
        self._radius[self.m] = -torch.inf  # count + pending = m: no example left (bound -inf)
        self.refresh()

    def refresh(self) -> None:
        """Recompute the cached bounds from ``state`` (needed only after editing ``state`` by hand)."""
        self._now = self._bound(self._optimistic_means(), self.state.counts)

    def next_batch_size(self) -> int:
        return self.batch_size

    def _bound(self, mean: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        """B = mean + sqrt(a / count); +inf at count 0, -inf once the row is fully evaluated."""
        b = torch.sqrt(self.a / counts.clamp(min=1)).add_(mean)
        return b.masked_fill_(counts == 0, torch.inf).masked_fill_(counts >= self.m, -torch.inf)

    def bounds(self, pending: torch.Tensor | None = None) -> torch.Tensor:
        """Upper confidence bounds B (R, n) with full rows at -inf; ``pending`` evaluations count in |S_i|
        but not in the mean (a row with only pending evaluations gets the optimistic mean 1)."""
        counts = self.state.counts if pending is None else self.state.counts + pending
        return self._bound(self._optimistic_means(), counts)

    def _optimistic_means(self) -> torch.Tensor:
        """Observed means, 1 for a row not yet evaluated."""
        told = self.state.counts
        return torch.where(told > 0, self.state.sums / told.clamp(min=1), torch.ones_like(told))

    def _select(self, k):
        R, r = self.reps, self._rep_index
        told = self.state.counts
        now = self._now
        top = top_k_random_ties(now, min(k, self.n), self.gen)
        c_top = told.gather(1, top)
        if k == 1:
            return top, self.order(r[:, None], top, c_top.long())
        s_top = self.state.sums.gather(1, top)
        mean = torch.where(c_top > 0, s_top / c_top.clamp(min=1), torch.ones_like(c_top))
        p = torch.arange(k, device=self.device)
        ct = c_top.long()[:, :, None] + p
        cand = torch.where(p == 0, now.gather(1, top)[:, :, None], mean[:, :, None] + self._radius[ct.clamp(max=self.m)])
        pick = top_k_random_ties(cand.reshape(R, -1), k, self.gen)
        slot, pend = pick // k, pick % k
        rows = top.gather(1, slot)
        pos = c_top.gather(1, slot).long() + pend
        return rows, self.order(r[:, None], rows, pos)

    def _update(self, rows, cols, scores):
        self.state.add(rows, scores)
        r = self._rep_index[:, None].expand_as(rows)
        c = self.state.counts[r, rows]
        self._now[r, rows] = self._bound(self.state.sums[r, rows] / c, c)

    def estimate(self):
        return self.state.means()
