"""Non-adaptive baselines of Zhou et al. (2025), Appendix B."""

from __future__ import annotations

import torch

from .base import Policy, RowMeanState, random_pair_order, uniform


class RowMeanImputation(Policy):
    """Row Mean Imputation (Zhou et al., Alg. 3; Sec. 4.3).

    Pairs are drawn uniformly at random from all not-yet-evaluated (method, example) pairs;
    each method's score is the mean of its evaluated examples. Alg. 3 draws the method first
    and then an unevaluated example of it; the text (Sec. 4.3) says pairs are drawn uniformly
    from all pairs. We follow the text, which also never gets stuck on a fully evaluated row.

    Parameters
    ----------
    batch_size : int
        Pairs per ``ask``; the sequence of pairs does not depend on it.
    """

    uniform_within_row = True
    name = "row-mean"

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, batch_size: int = 1024):
        super().__init__(n, m, budget, reps, seed, device)
        self.batch_size = int(batch_size)
        self.order = random_pair_order(self.reps, self.n, self.m, self.gen, self.device)
        self.state = RowMeanState(self.reps, self.n, self.device)

    def next_batch_size(self) -> int:
        return self.batch_size

    def _select(self, k):
        flat = self.order[:, self.spent : self.spent + k]
        return flat // self.m, flat % self.m

    def _update(self, rows, cols, scores):
        self.state.add(rows, scores)

    def estimate(self):
        return self.state.means()


class FilledSubset(Policy):
    """Filled Subset (Zhou et al., Alg. 4): evaluate every method on one random example at a time.

    When the budget is not a multiple of n, the last example is evaluated on a uniformly random
    subset of the methods so that exactly the budget is spent. Scores are row means over the
    evaluated entries (unbiased for every row).
    """

    uniform_within_row = True
    name = "filled-subset"

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, batch_size: int = 1024):
        super().__init__(n, m, budget, reps, seed, device)
        self.batch_size = int(batch_size)
        self.col_order = torch.argsort(uniform(self.gen, (self.reps, self.m), device=self.device), dim=1)
        self.row_order = torch.argsort(
            uniform(self.gen, (self.reps, self.m, self.n), device=self.device), dim=2
        )
        self.state = RowMeanState(self.reps, self.n, self.device)

    def next_batch_size(self) -> int:
        return self.batch_size

    def _select(self, k):
        q = torch.arange(self.spent, self.spent + k, device=self.device)
        slot, pos = q // self.n, q % self.n
        cols = self.col_order[:, slot]
        rows = self.row_order[self._rep_index[:, None], slot[None, :], pos[None, :]]
        return rows, cols

    def _update(self, rows, cols, scores):
        self.state.add(rows, scores)

    def estimate(self):
        return self.state.means()
