import numpy as np
import pytest
import torch

from paperlib.data import ScoreMatrix, low_rank_logistic
from paperlib.lowrank import LowRankEnsemble
from paperlib.policies import (
    MATRIX,
    METHODS,
    AlreadyToldError,
    BudgetExhaustedError,
    PendingRequestError,
    UnknownRequestError,
    make_policy,
    names,
)
from paperlib.policies.base import ObservedMatrix, Request, random_argmax
from paperlib.policies.ucbe_lrf import select_in_best_rows
from paperlib.simulate import simulate

SMALL = dict(ensemble=4, init_sweeps=3)


PULSE_FAMILY = tuple(names(MATRIX, "backbone"))  # pulse, pulse-pw, pulse-sync, naive-pooling, ucbe-batch


def _params(method):
    if method in PULSE_FAMILY:
        v = {} if method == "ucbe-batch" else {"v": np.random.default_rng(0).normal(size=(20, 2)), "refit_every": 3}
        return {"t0": 1, **v}
    return SMALL if method in ("ucbe-lrf", "ucbe-lrf-score-only", "lrf") else {}


def _batch_shapes_picks(method):
    return any(p.name == "batch_size" and p.affects_result for p in METHODS[method].params)


def run_collect(method, scores, budget, reps, seed=0, limit=None, **kw):
    n, m = scores.shape
    prices = {"costs": np.linspace(0.1, 1.0, n)[::-1].copy()} if METHODS[method].needs_costs else {}
    if METHODS[method].takes_prior:  # other models' scores: the same examples, another seed
        prices = {"prior": np.random.default_rng(11).random((5, m))}
    pol = make_policy(method, n, m, budget, reps=reps, seed=seed, device="cpu", **{**_params(method), **prices, **kw})
    s = torch.tensor(np.asarray(scores))
    pairs = []
    while not pol.done:
        req = pol.ask(limit=limit)
        assert req.rows.shape == req.cols.shape == (reps, req.size)
        got = torch.stack([req.rows, req.cols], -1)
        if req.valid is not None:  # a padded request (PULSE's backbone): pads as (-1, -1), dropped below
            got = got.masked_fill(~req.valid[..., None], -1)
        pairs.append(got)
        pol.tell(req, s[req.rows, req.cols])
    return pol, torch.cat(pairs, dim=1)


@pytest.mark.parametrize("method", names(MATRIX))
@pytest.mark.parametrize("budget", [1, 37, 240])
def test_exact_budget_no_repeats(method, budget):
    scores = low_rank_logistic(12, 20, gap=0.1, seed=1).scores
    if budget < 7 and _batch_shapes_picks(method):  # a batch above the run's budget is refused, not cut
        with pytest.raises(ValueError, match="batch_size = 7 exceeds the budget of 1"):
            run_collect(method, scores, budget, reps=3, batch_size=7)
        return
    if method in PULSE_FAMILY and budget < 12 * 7:
        with pytest.raises(ValueError, match="warm-up"):
            run_collect(method, scores, budget, reps=3, batch_size=7)
        return
    if method in ("sysrs", "auto") and budget < 12 or method == "sysh" and budget < 12 + 6 + 3 + 2:
        # Successive Rejects needs one evaluation of every model, Sequential Halving one per survivor of each round
        with pytest.raises(ValueError, match="one evaluation"):
            run_collect(method, scores, budget, reps=3, batch_size=7)
        return
    pol, pairs = run_collect(method, scores, budget, reps=3, batch_size=7)
    assert pol.spent == budget
    for r in range(3):
        real = pairs[r][pairs[r, :, 0] >= 0]
        flat = (real[:, 0] * 20 + real[:, 1]).tolist()
        assert len(set(flat)) == len(flat), "a pair was evaluated twice"
        assert all(0 <= x < 240 for x in flat)
        assert len(flat) == int(pol.pairs_told()[r])
        if method in PULSE_FAMILY:  # a batch short of 7 takes the rest of its row (20 = 7 + 7 + 6): 1 call per row
            assert budget - 12 <= len(flat) <= budget
        else:
            assert len(flat) == budget
    est = pol.estimate()
    assert est.shape == (3, 12)
    if budget == 240 and method not in PULSE_FAMILY:  # Eq. 3 averages one-step estimators: unbiased, not exact
        np.testing.assert_allclose(est.numpy(), np.broadcast_to(scores.mean(1), (3, 12)), atol=1e-4)


@pytest.mark.parametrize("method", names(MATRIX))
def test_budget_larger_than_matrix_fails(method):
    with pytest.raises(ValueError, match="exceeds"):
        make_policy(method, 4, 5, 21)
    with pytest.raises(ValueError, match="at least 1"):
        make_policy(method, 4, 5, 0)
    with pytest.raises(ValueError, match="integer"):
        make_policy(method, 4, 5, 2.5)


def test_ask_tell_protocol_errors():
    pol = make_policy("ucbe", 3, 4, 5, reps=2, device="cpu")
    req = pol.ask()
    with pytest.raises(PendingRequestError):
        pol.ask()
    with pytest.raises(ValueError, match="shape"):
        pol.tell(req, torch.zeros(2, 3))
    with pytest.raises(ValueError, match="NaN"):
        pol.tell(req, torch.full((2, 1), float("nan")))
    with pytest.raises(ValueError, match="NaN"):
        pol.tell(req, torch.tensor([[0.5], [float("nan")]]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        pol.tell(req, torch.full((2, 1), 2.0))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        pol.tell(req, torch.tensor([[0.5], [-0.1]]))
    other = make_policy("ucbe", 3, 4, 5, reps=2, device="cpu").ask()
    with pytest.raises(UnknownRequestError):
        pol.tell(other, torch.zeros(2, 1))
    pol.tell(req, torch.zeros(2, 1))
    with pytest.raises(AlreadyToldError):
        pol.tell(req, torch.zeros(2, 1))
    for _ in range(4):
        pol.tell(r := pol.ask(), torch.zeros(2, r.size))
    with pytest.raises(BudgetExhaustedError):
        pol.ask()


def test_request_take_reads_the_pairs_scores():
    s = torch.arange(5 * 7, dtype=torch.float32).reshape(5, 7) / 100
    rows = torch.tensor([[4], [0]]).expand(-1, 3)
    cols = torch.tensor([[6, 0, 3], [1, 5, 2]])
    req = Request(0, rows, cols)
    expected = torch.tensor([[0.34, 0.28, 0.31], [0.01, 0.05, 0.02]])
    assert torch.equal(req.take(s), expected)
    assert torch.equal(req.take(s.t().contiguous().t()), expected)


def test_ucbe_pulls_every_arm_once_then_follows_bound():
    scores = np.zeros((5, 50), dtype=np.float32)
    scores[2] = 1.0
    pol, pairs = run_collect("ucbe", scores, 40, reps=4)
    first = pairs[:, :5, 0]
    for r in range(4):
        assert sorted(first[r].tolist()) == [0, 1, 2, 3, 4]
    # after one pull each: B_2 = 1 + 1 and B_i = 0 + 1/sqrt(1) for the rest; arm 2 keeps
    # B >= 1 + sqrt(1/s) > 1 >= every other bound, so it takes every later pull
    assert (pairs[:, 5:, 0] == 2).all()


def test_ucbe_excludes_full_rows():
    scores = np.zeros((3, 4), dtype=np.float32)
    scores[0] = 1.0
    pol, pairs = run_collect("ucbe", scores, 12, reps=2)
    assert pol.spent == 12


def test_same_seed_same_result_and_seed_matters():
    mat = low_rank_logistic(20, 100, gap=0.02, seed=0)
    a = simulate("ucbe", mat, [300], reps=4, seed=11, device="cpu", progress=False)
    b = simulate("ucbe", mat, [300], reps=4, seed=11, device="cpu", progress=False)
    c = simulate("ucbe", mat, [300], reps=4, seed=12, device="cpu", progress=False)
    np.testing.assert_array_equal(a.estimates, b.estimates)
    assert not np.array_equal(a.estimates, c.estimates)


def test_checkpoints_equal_separate_runs():
    mat = low_rank_logistic(10, 60, gap=0.05, seed=0)
    for method in ("ucbe", "row-mean", "filled-subset"):
        joint = simulate(method, mat, [50, 200], reps=3, seed=4, device="cpu", progress=False)
        alone = simulate(method, mat, [50], reps=3, seed=4, device="cpu", progress=False)
        np.testing.assert_array_equal(joint.estimates[0], alone.estimates[0])


def test_random_argmax_breaks_ties_uniformly():
    gen = torch.Generator().manual_seed(0)
    vals = torch.tensor([[1.0, 3.0, 3.0, 0.0, 3.0]]).expand(6000, 5)
    picks = random_argmax(vals, gen)
    counts = torch.bincount(picks, minlength=5).numpy()
    assert counts[0] == counts[3] == 0
    # each of 3 tied entries: Binomial(6000, 1/3), sd = 36.5; 5 sd tolerance
    assert np.all(np.abs(counts[[1, 2, 4]] - 2000) < 5 * 36.5)


def test_select_in_best_rows_completes_from_next_row():
    gen = torch.Generator().manual_seed(0)
    prio = torch.tensor([[0.1, 0.9, 0.5]])
    key = torch.arange(12, dtype=torch.float32).view(1, 3, 4)
    free = torch.ones(1, 3, 4, dtype=torch.bool)
    free[0, 1, :2] = False
    rows, cols = select_in_best_rows(prio, key, ~free, (~free).sum(dim=2), 4, gen)
    got = sorted(zip(rows[0].tolist(), cols[0].tolist(), strict=True))
    # row 1 (top priority) has free columns 2, 3; then row 2 (next) by largest key: columns 3, 2
    assert got == [(1, 2), (1, 3), (2, 2), (2, 3)]
    rows, cols = select_in_best_rows(prio, lambda rows: key[0, rows], torch.zeros_like(free), torch.zeros(1, 3, dtype=torch.long), 2, gen)
    assert rows[0].tolist() == [1, 1] and sorted(cols[0].tolist()) == [2, 3]


def test_select_in_best_rows_spans_several_short_rows():
    """Rows nearly full: the batch walks down the priority order, best keys first within each row (brute force)."""
    gen = torch.Generator().manual_seed(1)
    reps, n, m, k = 3, 6, 7, 9
    prio = torch.rand(reps, n, generator=gen)
    key = torch.rand(reps, n, m, generator=gen)
    mask = torch.rand(reps, n, m, generator=gen) < 0.7
    mask[:, :, 0] = False  # every row keeps a free entry
    rows, cols = select_in_best_rows(prio, key, mask, mask.sum(dim=2), k, gen)
    for r in range(reps):
        want = []
        for i in prio[r].argsort(descending=True).tolist():
            free = [j for j in key[r, i].argsort(descending=True).tolist() if not mask[r, i, j]]
            want += [(i, j) for j in free]
        got = list(zip(rows[r].tolist(), cols[r].tolist(), strict=True))
        assert sorted(got) == sorted(want[:k]) and len(set(got)) == k


def test_lrf_ensemble_recovers_rank_one_matrix():
    rng = np.random.default_rng(0)
    u, v = rng.uniform(0.3, 1, 30), rng.uniform(0.3, 1, 40)
    full = torch.tensor(np.outer(u, v), dtype=torch.float32)
    obs = ObservedMatrix(2, 30, 40, 600, "cpu")
    gen = torch.Generator().manual_seed(0)
    idx = torch.stack([torch.randperm(1200, generator=gen)[:600] for _ in range(2)])
    rows, cols = idx // 40, idx % 40
    obs.add(rows, cols, full[rows, cols])
    ens = LowRankEnsemble(2, 30, 40, gen, "cpu", rank=1, ensemble=8, lam=1e-6, init_sweeps=50)
    mean, std = ens.fit(obs)
    assert (mean - full).abs().max() < 1e-3
    assert std.max() < 1e-3
    assert (std[obs.mask] == 0).all()


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_als_half_step_equals_dense_solve_with_dropped_entries(rank):
    rng = np.random.default_rng(rank)
    n, m, k = 9, 11, 4
    full = torch.tensor(rng.uniform(size=(n, m)), dtype=torch.float32)
    obs = ObservedMatrix(2, n, m, 60, "cpu")
    gen = torch.Generator().manual_seed(0)
    idx = torch.stack([torch.randperm(n * m, generator=gen)[:60] for _ in range(2)])
    obs.add(idx // m, idx % m, full[idx // m, idx % m])
    ens = LowRankEnsemble(2, n, m, gen, "cpu", rank=rank, ensemble=k, lam=0.1)
    other = torch.randn(2, k, m, rank, generator=gen)
    dropped = torch.rand(2, k, 60, generator=gen) < 0.3
    ri, ki, ei = dropped.nonzero(as_tuple=True)
    o = obs.mask.float()
    member_of = ri * k + ki
    got = ens._half_step(obs.values * o, o, other, member_of * n + obs.rows[ri, ei], member_of * m + obs.cols[ri, ei],
                         obs.scores[ri, ei])
    for r in range(2):
        for kk in range(k):
            member = obs.mask[r].clone()
            gone = ei[(ri == r) & (ki == kk)]
            member[obs.rows[r, gone], obs.cols[r, gone]] = False
            v = other[r, kk]
            for i in range(n):
                w = member[i].float()
                want = torch.linalg.solve((v.T * w) @ v + 0.1 * torch.eye(rank), (v.T * w) @ obs.values[r, i])
                torch.testing.assert_close(got[r, kk, i], want, atol=1e-5, rtol=1e-4)


def test_bernoulli_positions_are_iid_bernoulli():
    """Per-entry rate within an exact binomial interval, count per row ~ Binomial, gaps ~ Geometric (chi-square)."""
    from scipy.stats import binom, binomtest, chisquare

    from paperlib.lowrank.ensemble import bernoulli_positions

    reps, members, length, p = 3, 50, 4000, 0.05
    ri, ki, ei = bernoulli_positions(reps, members, length, p, torch.Generator().manual_seed(0), "cpu")
    assert ri.max() < reps and ki.max() < members and ei.min() >= 0 and ei.max() < length
    flat = (ri * members + ki) * length + ei
    assert (flat.diff() > 0).all()  # sorted and distinct, as nonzero() lists them
    total = reps * members * length
    assert binomtest(len(ei), total, p).pvalue > 1e-3
    per_row = torch.bincount(ri * members + ki, minlength=reps * members).numpy()
    lo, hi = binom.ppf([1e-4, 1 - 1e-4], length, p)
    assert ((per_row >= lo) & (per_row <= hi)).all()
    row = ri * members + ki
    same = row[1:] == row[:-1]
    gaps = (ei[1:] - ei[:-1])[same].numpy() - 1  # failures between successes
    bins = np.minimum(gaps, 40)
    observed = np.bincount(bins, minlength=41)
    expect = np.array([(1 - p) ** g * p for g in range(40)] + [(1 - p) ** 40]) * len(gaps)
    assert chisquare(observed, expect).pvalue > 1e-3
    first = ei[torch.cat([torch.tensor([True]), ~same])].numpy()
    assert chisquare(np.bincount(np.minimum(first, 40), minlength=41), expect / len(gaps) * len(first)).pvalue > 1e-3
    e = bernoulli_positions(2, 3, 0, 0.05, torch.Generator(), "cpu")
    assert all(t.numel() == 0 for t in e)
    assert bernoulli_positions(2, 3, 5, 1.0, torch.Generator(), "cpu")[2].numel() == 30


def test_ucbe_lrf_picks_most_uncertain_examples():
    mat = low_rank_logistic(15, 60, gap=0.05, seed=2)
    n, m = mat.shape
    pol = make_policy("ucbe-lrf", n, m, 300, reps=2, seed=0, device="cpu", batch_size=5, **SMALL)
    s = torch.tensor(mat.scores)
    while pol.in_warmup:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
    req = pol.ask()
    for r in range(2):
        i = int(req.rows[r, 0])
        assert (req.rows[r] == i).all()
        assert i == int(torch.argmax(pol.bounds()[r]))
        free_unc = pol.unc[r, i][~pol.obs.mask[r, i]]
        chosen = pol.unc[r, i, req.cols[r]]
        assert chosen.min() >= free_unc.topk(5).values.min() - 1e-7


def test_lrf_bounds_follow_observations_between_refits():
    """Between refits the row sums are updated in place; they must equal Eq. 2 / Alg. 2 recomputed densely."""
    mat = low_rank_logistic(8, 50, gap=0.05, seed=4)
    s = torch.tensor(mat.scores)
    for method in ("ucbe-lrf", "ucbe-lrf-score-only"):
        pol = make_policy(method, 8, 50, 8 * 50, reps=3, seed=1, device="cpu", batch_size=4, ensemble=4,
                          warmup_frac=0.05, refit_growth=10.0)
        fits = []
        orig = pol.oracle.fit
        pol.oracle.fit = lambda obs, orig=orig, fits=fits: (fits.append(obs.count), orig(obs))[1]
        for _ in range(12):
            req = pol.ask()
            pol.tell(req, s[req.rows, req.cols])
        assert len(fits) == 1  # growth 10: no refit until the observed pairs are 11 times the warm-up's
        filled = torch.where(pol.obs.mask, pol.obs.values, pol.pred).double()
        unc = torch.where(pol.obs.mask, torch.zeros_like(pol.unc), pol.unc).double()
        assert torch.equal(pol.obs.row_count, pol.obs.mask.sum(dim=2))
        if method == "ucbe-lrf":
            dense = (filled + pol.eta * unc).mean(dim=2)
        else:
            cnt = pol.obs.mask.sum(dim=2).double()
            dense = filled.mean(dim=2) + torch.sqrt(pol.eta / cnt.clamp(min=1))
        b = pol.bounds()
        ok = torch.isfinite(b)
        assert torch.allclose(b[ok], dense[ok], atol=1e-6)


def test_lrf_refit_growth_schedule():
    """refit_growth = g: a refit at the first batch that takes the observed pairs to >= (1 + g) x the last fit's."""
    mat = low_rank_logistic(10, 60, gap=0.1, seed=2)
    s = torch.tensor(mat.scores)
    g, b = 0.25, 5
    pol = make_policy("ucbe-lrf", 10, 60, 10 * 60, reps=2, seed=0, device="cpu", batch_size=b, ensemble=4,
                      warmup_frac=0.05, refit_growth=g)
    fits = []
    orig = pol.oracle.fit
    pol.oracle.fit = lambda obs: (fits.append(obs.count), orig(obs))[1]
    while not pol.done:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
    assert fits[0] == 30  # the warm-up: 5% of 600
    for prev, nxt in zip(fits, fits[1:], strict=False):
        assert nxt >= (1 + g) * prev and nxt - b < (1 + g) * prev
    # log(600 / 30) / log(1.25) = 13.4 growth steps, each rounded up to whole batches
    assert 8 <= len(fits) <= 15
    with pytest.raises(ValueError, match="refit_growth"):
        make_policy("ucbe-lrf", 6, 40, 100, refit_growth=-0.1)


def test_live_user_single_repetition():
    scores = ScoreMatrix.from_array(np.eye(4, 8, dtype=np.float32) * 0 + np.linspace(0, 1, 4)[:, None])
    pol = make_policy("ucbe", 4, 8, 12, reps=1, device="cpu")
    while not pol.done:
        req = pol.ask()
        pol.tell(req, [[float(scores.scores[req.rows[0, 0], req.cols[0, 0]])]])
    assert int(pol.best()[0]) == 3


def test_lrf_refit_every_k_batches():
    """refit_every = 3: after the warm-up, the ensemble is refitted on every third batch only (and at the first)."""
    mat = low_rank_logistic(6, 40, gap=0.1, seed=2)
    pol = make_policy("ucbe-lrf", 6, 40, 6 * 40 // 2, reps=2, seed=0, device="cpu", batch_size=4, refit_every=3,
                      ensemble=4, warmup_frac=0.05)
    fits = []
    orig = pol.oracle.fit
    pol.oracle.fit = lambda obs: (fits.append(pol.spent), orig(obs))[1]
    s = torch.tensor(mat.scores)
    steps = 0
    while not pol.done:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
        steps += 1
    active = steps - 1  # the first request is the whole warm-up
    assert active >= 6 and len(fits) == 1 + active // 3  # after the warm-up, then on active batches 3, 6, ...
    with pytest.raises(ValueError, match="refit_every"):
        make_policy("ucbe-lrf", 6, 40, 100, refit_every=0)
