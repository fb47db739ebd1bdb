"""UCB-E written as plainly as possible: numpy, one repetition at a time.

This is the baseline of ``benchmarks/bench_ucbe.py`` (the loop a user would write first) and the
reference that the distribution tests compare :class:`~paperlib.policies.ucbe.UCBE` with. It is not
used by the pipeline.
"""

from __future__ import annotations

import numpy as np


def ucbe_one_run(scores: np.ndarray, budget: int, a: float = 1.0, batch_size: int = 1,
                 rng: np.random.Generator | None = None, batch_mode: str = "row") -> int:
    """One UCB-E run (Zhou et al. Alg. 1, batches as in :class:`~paperlib.policies.ucbe.UCBE`); the predicted best row.

    ``batch_mode="row"``: each step takes the row with the largest bound (ties at random) and its next
    b examples, continuing with the next rows in bound order (ties at random) if it has fewer left.
    ``"pending"``: each step takes, b times, the row with the largest bound counting the batch's
    pending pairs (ties at random). Either way a row's examples follow its random ordering.
    """
    rng = rng or np.random.default_rng()
    n, m = scores.shape
    order = np.argsort(rng.random((n, m)), axis=1)
    sums, told = np.zeros(n), np.zeros(n, dtype=np.int64)

    def bounds(cnt):
        mean = np.where(told > 0, sums / np.maximum(told, 1), 1.0)
        bound = np.where(cnt == 0, np.inf, mean + np.sqrt(a / np.maximum(cnt, 1)))
        return np.where(cnt >= m, -np.inf, bound)

    spent = 0
    while spent < budget:
        k = min(batch_size, budget - spent)
        pending = np.zeros(n, dtype=np.int64)
        picks = []
        if batch_mode == "row":
            bound = bounds(told)
            for i in sorted(range(n), key=lambda i: (-bound[i], rng.random())):
                take = min(k - len(picks), m - told[i])
                picks += [(i, order[i, told[i] + p]) for p in range(take)]
                if len(picks) == k:
                    break
        else:
            for _ in range(k):
                cnt = told + pending
                bound = bounds(cnt)
                best = np.flatnonzero(bound == bound.max())
                i = int(rng.choice(best))
                picks.append((i, order[i, cnt[i]]))
                pending[i] += 1
        for i, j in picks:
            sums[i] += scores[i, j]
            told[i] += 1
        spent += k
    mean = np.where(told > 0, sums / np.maximum(told, 1), -np.inf)
    return int(rng.choice(np.flatnonzero(mean == mean.max())))
