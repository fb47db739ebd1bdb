"""UCB-E at scale: lazy example orderings, the one-shot batch choice, and the distribution vs a plain loop."""

import numpy as np
import pytest
import torch
from scipy.stats import chisquare, fisher_exact

from paperlib.data.synthetic import low_rank_logistic
from paperlib.policies.lazyperm import KeyedPermutations
from paperlib.policies.reference import ucbe_one_run
from paperlib.policies.ucbe import UCBE


@pytest.mark.parametrize("m", [1, 2, 3, 7, 64, 100, 757])
def test_every_ordering_is_a_permutation(m):
    perm = KeyedPermutations(4, 3, m, torch.Generator().manual_seed(m), "cpu")
    r, i, p = torch.meshgrid(torch.arange(4), torch.arange(3), torch.arange(m), indexing="ij")
    out = perm(r, i, p)
    assert (out.sort(dim=2).values == torch.arange(m)).all()


def test_orderings_are_uniform_on_positions_and_ordered_pairs():
    m, keys = 5, 20000
    perm = KeyedPermutations(keys, 1, m, torch.Generator().manual_seed(0), "cpu")
    r = torch.arange(keys)
    first = perm(r, torch.zeros_like(r), torch.zeros_like(r)).numpy()
    second = perm(r, torch.zeros_like(r), torch.ones_like(r)).numpy()
    assert chisquare(np.bincount(first, minlength=m)).pvalue > 1e-3
    pairs = np.bincount(first * m + second, minlength=m * m).reshape(m, m)
    assert np.trace(pairs) == 0
    assert chisquare(pairs[~np.eye(m, dtype=bool)]).pvalue > 1e-3


@pytest.mark.parametrize("m", [30, 757])
def test_orderings_are_uniform_at_the_benchmark_size(m):
    """8- and 24-round regimes: the first position, and the offset between the first two positions, are uniform."""
    keys = 100000
    perm = KeyedPermutations(keys, 1, m, torch.Generator().manual_seed(1), "cpu")
    r = torch.arange(keys)
    z = torch.zeros_like(r)
    first, second = perm(r, z, z).numpy(), perm(r, z, z + 1).numpy()
    assert chisquare(np.bincount(first, minlength=m)).pvalue > 1e-3
    assert chisquare(np.bincount((second - first) % m, minlength=m)[1:]).pvalue > 1e-3


def greedy_batch(pol: UCBE, k: int, r: int) -> list[int]:
    """The b sequential arg-maxes of Alg. 1 with pending counts, for repetition r (no ties here)."""
    pending = torch.zeros_like(pol.state.counts)
    rows = []
    for _ in range(k):
        i = int(torch.argmax(pol.bounds(pending)[r]))
        rows.append(i)
        pending[r, i] += 1
    return sorted(rows)


@pytest.mark.parametrize("k", [1, 2, 5, 32, 100])
def test_batch_is_the_sequence_of_argmaxes_with_pending_counts(k):
    rng = np.random.default_rng(k)
    n, m, R = 12, 40, 3
    pol = UCBE(n, m, n * m, reps=R, seed=0, device="cpu", a=0.5, batch_size=k)
    counts = torch.tensor(rng.integers(1, m + 1, (R, n)), dtype=torch.float64)
    counts[:, 0] = 0  # the one unevaluated row (+inf first, then the optimistic mean 1; no ties)
    counts[:, 1] = m  # a full row, never picked
    pol.state.counts = counts
    pol.state.sums = counts * torch.tensor(rng.uniform(0.2, 0.8, (R, n)))
    pol.refresh()
    k = min(k, int((m - counts).sum(1).min()))
    rows, cols = pol._select(k)
    for r in range(R):
        assert sorted(rows[r].tolist()) == greedy_batch(pol, k, r)
        for i in set(rows[r].tolist()):
            got = cols[r][rows[r] == i]
            c = int(counts[r, i])
            want = pol.order(torch.tensor(r), torch.tensor(i), torch.arange(c, c + len(got)))
            assert sorted(got.tolist()) == sorted(want.tolist())


@pytest.mark.slow
@pytest.mark.parametrize("batch_size", [1, 8])
def test_same_success_rate_as_the_plain_loop(batch_size):
    """P(correct) at 4% of a 20 x 300 matrix: batched UCB-E vs the numpy loop, 600 runs each, Fisher exact."""
    mat = low_rank_logistic(20, 300, rank=2, gap=0.03, seed=3)
    budget, R = int(0.04 * 20 * 300), 600
    pol = UCBE(20, 300, budget, reps=R, seed=1, device="cpu", batch_size=batch_size)
    s = torch.tensor(mat.scores)
    while not pol.done:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
    ours = int((pol.best().numpy() == mat.best).sum())
    rng = np.random.default_rng(2)
    loop = sum(ucbe_one_run(mat.scores, budget, batch_size=batch_size, rng=rng) == mat.best for _ in range(R))
    assert 0.2 * R < loop < 0.95 * R  # the instance discriminates: neither trivial nor hopeless
    assert fisher_exact([[ours, R - ours], [loop, R - loop]]).pvalue > 0.01, (ours, loop)


def test_ties_are_broken_uniformly():
    """All 10 rows unevaluated (all bounds +inf): a batch of 3 is a uniform 3-subset, each row with probability 3/10."""
    R = 4000
    pol = UCBE(10, 5, 30, reps=R, seed=5, device="cpu", batch_size=3)
    rows, _ = pol._select(3)
    assert (rows.sort(dim=1).values.diff(dim=1) > 0).all()
    assert chisquare(np.bincount(rows.reshape(-1).numpy(), minlength=10)).pvalue > 1e-3
