"""UCB-E at scale: lazy example orderings, the one-shot batch choice, and the distribution vs a plain loop."""

import numpy as np
import pytest
import torch
from scipy.stats import chisquare, fisher_exact

from paperlib.data.synthetic import low_rank_logistic
from paperlib.policies.lazyperm import KeyedPermutations
from paperlib.policies.reference import ucbe_one_run
from paperlib.policies.ucbe import UCBE, BlockedMax


@pytest.mark.parametrize("m", [1, 2, 3, 7, 64, 100, 757, 3000])  # 3000: rounds computed, not tabulated
def test_every_ordering_is_a_permutation(m):
    perm = KeyedPermutations(4, 3, m, torch.Generator().manual_seed(m), "cpu")
    r, i, p = torch.meshgrid(torch.arange(4), torch.arange(3), torch.arange(m), indexing="ij")
    out = perm(r, i, p)
    assert (out.sort(dim=2).values == torch.arange(m)).all()


@pytest.mark.parametrize("m", [7, 757, 3000])  # tabulated rounds, and computed rounds with cycle-walking
def test_a_small_table_of_orderings_is_the_lazy_orderings_evaluated_once(m):
    """The materialized orderings (a draw is one lookup) equal the lazy ones value for value; a large grid stays
    lazy (O(R n) memory)."""
    from paperlib.policies import lazyperm

    perm = KeyedPermutations(4, 3, m, torch.Generator().manual_seed(m), "cpu")
    assert perm.dense is not None
    r, i, p = torch.meshgrid(torch.arange(4), torch.arange(3), torch.arange(m), indexing="ij")
    assert torch.equal(perm(r, i, p), perm._lazy(r, i, p))
    rows = torch.tensor([[2, 0, 2]])
    assert torch.equal(perm(torch.tensor([[1]]), rows, torch.tensor([[0, m - 1, 1 % m]])),
                       perm._lazy(torch.tensor([[1]]), rows, torch.tensor([[0, m - 1, 1 % m]])))
    big = KeyedPermutations(lazyperm.MATERIALIZE_MAX // m + 1, 1, m, torch.Generator().manual_seed(0), "cpu")
    assert big.dense is None


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
    pol = UCBE(n, m, n * m, reps=R, seed=0, device="cpu", a=0.5, batch_size=k, batch_mode="pending")
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


def test_row_batch_is_one_method_then_the_next_in_bound_order():
    """batch_mode "row" (Zhou Sec. 4.3): the top method's next examples; a method with fewer left spills to the next."""
    n, m, R, k = 6, 40, 2, 5
    pol = UCBE(n, m, n * m, reps=R, seed=0, device="cpu", a=0.5, batch_size=k)
    counts = torch.tensor([[10, 20, 30, 38, 12, 40], [5, 6, 7, 8, 9, 10]], dtype=torch.float64)
    means = torch.tensor([[0.3, 0.4, 0.5, 0.9, 0.2, 1.0], [0.1, 0.9, 0.2, 0.3, 0.4, 0.5]], dtype=torch.float64)
    pol.state.counts, pol.state.sums = counts.clone(), counts * means
    pol.refresh()
    bound = means + torch.sqrt(0.5 / counts)
    assert int(bound[0, :5].argmax()) == 3 and int(bound[1].argmax()) == 1  # row 5 of rep 0 is full
    rows, cols = pol._select(k)
    second = int(bound[0, [0, 1, 2, 4]].argmax())
    second = [0, 1, 2, 4][second]
    assert rows[0].tolist() == [3, 3, second, second, second]  # row 3 has 2 examples left
    assert rows[1].tolist() == [1] * k
    want0 = pol.order(torch.tensor(0), torch.tensor([3, 3, second, second, second]),
                      torch.tensor([38, 39, int(counts[0, second]), int(counts[0, second]) + 1, int(counts[0, second]) + 2]))
    assert cols[0].tolist() == want0.tolist()
    assert cols[1].tolist() == pol.order(torch.tensor(1), torch.tensor(1), torch.arange(6, 6 + k)).tolist()
    req = pol.ask()
    pol.tell(req, torch.ones(R, k))
    assert pol.state.counts[0, 3] == 40 and pol.state.counts[0, second] == counts[0, second] + 3
    assert pol.state.counts[1, 1] == 6 + k and pol.state.counts.sum() == counts.sum() + R * k


def test_blocked_max_matches_a_full_pass_and_breaks_ties_uniformly():
    gen, rng = torch.Generator().manual_seed(0), np.random.default_rng(0)
    vals = torch.tensor(rng.integers(0, 4, (50, 70)), dtype=torch.float64)
    bm = BlockedMax(vals.clone(), block=8)
    for _ in range(30):
        r = torch.arange(50)[:, None].expand(50, 3)
        cols = torch.tensor(rng.integers(0, 70, (50, 3)))
        new = torch.tensor(rng.integers(0, 4, (50, 3)), dtype=torch.float64)
        new[:, 1:] = new[:, :1]  # repeated columns get one value, as in a batch on one row
        cols[:, 1:] = cols[:, :1]
        vals[r, cols] = new
        bm.set(r, cols, new)
        top = bm.argmax(gen)
        assert (vals[torch.arange(50), top] == vals.max(dim=1).values).all()
    one = torch.zeros(4000, 70, dtype=torch.float64)
    one[:, [3, 9, 17, 40, 41, 69]] = 1.0  # six ties spread over five blocks of 8
    picks = BlockedMax(one, block=8).argmax(gen).numpy()
    assert set(np.unique(picks)) == {3, 9, 17, 40, 41, 69}
    assert chisquare(np.bincount(picks, minlength=70)[[3, 9, 17, 40, 41, 69]]).pvalue > 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("batch_size,mode", [(1, "row"), (8, "row"), (8, "pending")])
def test_same_success_rate_as_the_plain_loop(batch_size, mode):
    """P(correct) at 4% of a 20 x 300 matrix: batched UCB-E vs the numpy loop, 600 runs each, Fisher exact."""
    mat = low_rank_logistic(20, 300, rank=2, gap=0.03, seed=3)
    budget, R = int(0.04 * 20 * 300), 600
    pol = UCBE(20, 300, budget, reps=R, seed=1, device="cpu", batch_size=batch_size, batch_mode=mode)
    s = torch.tensor(mat.scores)
    while not pol.done:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
    ours = int((pol.best().numpy() == mat.best).sum())
    rng = np.random.default_rng(2)
    loop = sum(ucbe_one_run(mat.scores, budget, batch_size=batch_size, rng=rng, batch_mode=mode) == mat.best
               for _ in range(R))
    assert 0.2 * R < loop < 0.95 * R  # the instance discriminates: neither trivial nor hopeless
    assert fisher_exact([[ours, R - ours], [loop, R - loop]]).pvalue > 0.01, (ours, loop)


def test_ties_are_broken_uniformly():
    """All 10 rows unevaluated (all bounds +inf). Pending: a batch of 3 is a uniform 3-subset, each row with
    probability 3/10. Row: one uniform row takes all 3 pairs."""
    R = 4000
    pol = UCBE(10, 5, 30, reps=R, seed=5, device="cpu", batch_size=3, batch_mode="pending")
    rows, _ = pol._select(3)
    assert (rows.sort(dim=1).values.diff(dim=1) > 0).all()
    assert chisquare(np.bincount(rows.reshape(-1).numpy(), minlength=10)).pvalue > 1e-3
    pol = UCBE(10, 5, 30, reps=R, seed=5, device="cpu", batch_size=3)
    rows, cols = pol._select(3)
    assert (rows == rows[:, :1]).all() and (cols.sort(dim=1).values.diff(dim=1) > 0).all()
    assert chisquare(np.bincount(rows[:, 0].numpy(), minlength=10)).pvalue > 1e-3


def test_batch_mode_is_checked():
    with pytest.raises(ValueError, match="batch_mode"):
        UCBE(4, 4, 8, batch_mode="rows")


def test_row_batch_spill_takes_the_next_methods_in_bound_order_with_uniform_ties():
    """a = 0, so bounds are the means. Row 0 (top, 1 example left) spills 7 slots over rows 1-3, tied at 0.5 with
    2, 6 and 6 examples left: the second method is uniform over {1, 2, 3}; a second with too little room (row 1, or
    row 2 with 6 < 7) is followed by a third, uniform over the two tied rows left; each method takes its next
    examples in its ordering, as many as its room and the batch allow."""
    R, n, m, k = 6000, 5, 10, 8
    pol = UCBE(n, m, n * m, reps=R, seed=11, device="cpu", a=0.0, batch_size=k)
    counts = torch.tensor([9, 8, 4, 4, 5], dtype=torch.float64).expand(R, n).clone()
    means = torch.tensor([0.9, 0.5, 0.5, 0.5, 0.1], dtype=torch.float64)
    pol.state.counts, pol.state.sums = counts, counts * means
    pol.refresh()
    rows, cols = pol._select(k)
    assert (rows[:, 0] == 0).all() and (cols[:, 0] == pol.order(torch.arange(R), torch.zeros(R, dtype=torch.long),
                                                                torch.full((R,), 9))).all()
    second = rows[:, 1]
    assert chisquare(np.bincount(second.numpy(), minlength=4)[1:]).pvalue > 1e-3
    room = {1: 2, 2: 6, 3: 6}
    pairs = []
    for r in range(0, R, 7):  # a sample, checked pair by pair
        seq = rows[r].tolist()
        runs = [seq[0]] + [b for a_, b in zip(seq, seq[1:], strict=False) if b != a_]
        assert len(runs) == len(set(runs)) and runs[0] == 0 and set(runs[1:]) <= {1, 2, 3}
        need = k - 1
        for i in runs[1:]:
            got = cols[r][rows[r] == i]
            c = int(counts[r, i])
            assert got.tolist() == pol.order(torch.tensor(r), torch.tensor(i), torch.arange(c, c + len(got))).tolist()
            assert len(got) == min(room[i], need)
            need -= len(got)
        assert need == 0
    for r in range(R):
        seq = rows[r].tolist()
        if seq[1] == 1:  # room 2 < 7: a third method is needed, uniform over the two left
            pairs.append(seq[3])
    assert chisquare(np.bincount(pairs, minlength=4)[2:]).pvalue > 1e-3


def test_spill_matches_a_full_sort_with_the_same_keys():
    """The spill's rows are those of a full order (argsort by one uniform key per method, then a stable argsort by
    bound, the top method at +inf) filled slot by slot, with the same generator draws; bounds with ties, several
    unevaluated methods at +inf, full methods at -inf."""
    from paperlib.policies.base import order_with_random_ties
    from paperlib.policies.ucbe import spill_in_bound_order

    rng = np.random.default_rng(5)
    S, n, m, k = 400, 9, 6, 16
    counts = torch.tensor(rng.integers(0, m + 1, (S, n)), dtype=torch.float64)
    values = torch.tensor(rng.integers(0, 3, (S, n)) / 2.0)
    values = values.masked_fill(counts == 0, torch.inf).masked_fill(counts == m, -torch.inf)
    first = torch.tensor(rng.integers(0, n, S))
    counts[torch.arange(S), first] = float(m - 1)  # the top method has one example left
    values[torch.arange(S), first] = 5.0
    ok = (m - counts).sum(1) >= k
    values, counts, first = values[ok], counts[ok], first[ok]
    gen = torch.Generator().manual_seed(0)
    rows, pos = spill_in_bound_order(values, counts, first, k, m, gen)
    order = order_with_random_ties(values.scatter(1, first[:, None], torch.inf), torch.Generator().manual_seed(0))
    for s in range(values.shape[0]):
        want_rows, want_pos = [], []
        for i in order[s].tolist():
            room = m - int(counts[s, i])
            take = min(room, k - len(want_rows))
            want_rows += [i] * take
            want_pos += list(range(int(counts[s, i]), int(counts[s, i]) + take))
        assert rows[s].tolist() == want_rows and pos[s].tolist() == want_pos


@pytest.mark.parametrize("lazy", [True, False])
def test_every_batch_reads_each_method_on_its_next_positions(monkeypatch, lazy):
    """Whole runs in which a batch spans three methods or more (batch 9 on 4 examples a method), with the orderings
    lazy and materialized: in every request, each method's examples are its ordering at the positions that follow
    those it was asked before, in slot order, and no pair repeats. The expected columns come from the orderings
    alone, one position at a time, not from the batch's own index arithmetic."""
    from paperlib.policies import lazyperm

    if lazy:
        monkeypatch.setattr(lazyperm, "MATERIALIZE_MAX", 0)
    n, m, R, k = 7, 4, 64, 9
    scores = torch.tensor(np.random.default_rng(0).random((n, m)), dtype=torch.float32)
    pol = UCBE(n, m, n * m - 1, reps=R, seed=3, device="cpu", batch_size=k)
    assert (pol.order.dense is None) == lazy
    asked = np.zeros((R, n), dtype=int)
    seen = np.zeros((R, n, m), dtype=bool)
    most_methods = 0
    while not pol.done:
        req = pol.ask()
        rows, cols = req.rows.numpy(), req.cols.numpy()
        for r in range(R):
            most_methods = max(most_methods, len(set(rows[r].tolist())))
            for t in range(req.size):
                i = rows[r, t]
                want = int(pol.order(torch.tensor(r), torch.tensor(i), torch.tensor(asked[r, i])))
                assert cols[r, t] == want and not seen[r, i, want]
                seen[r, i, want] = True
                asked[r, i] += 1
        pol.tell(req, req.take(scores))
    assert most_methods >= 3 and (seen.sum(axis=(1, 2)) == n * m - 1).all()
