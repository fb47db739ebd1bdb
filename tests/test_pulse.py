"""PULSE: estimators on hand-computed cases, the lambda rule, refits, the policy, pools, CLI, theorem checkers."""

import json

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from paperlib.cli import main as cli_main
from paperlib.data.matrix import ScoreMatrix
from paperlib.data.pools import PoolBuildError, build_pool, make_pool, split_models
from paperlib.lowrank import FitConfig, fit_factors, objective, refit_rows, refit_rows_sparse
from paperlib.lowrank.logistic import dense_refit_is_cheaper
from paperlib.papers.pulse import theory as T
from paperlib.policies import make_policy
from paperlib.policies.pulse import DoublyRobust, ObservedMean, PULSESync, predictable_lambda
from paperlib.simulate import simulate
from paperlib.stats import clopper_pearson


def toy(n=80, m=200, r=3, seed=0):
    rng = np.random.default_rng(seed)
    U, V = rng.normal(0, 1, (n, r)), rng.normal(0, 1, (m, r))
    return (rng.random((n, m)) < 1 / (1 + np.exp(-U @ V.T))).astype(np.float32)


def test_one_step_estimator_hand_computed():
    # n = 4, S = (1, 0, 1, 1), example 0 observed, predictions 0.5, lambda = 1:
    # theta(j) = (1 + 1.5 + (S_j - 0.5) * 3) / 4 = 0.25, 1.0, 1.0 for j = 1, 2, 3; mean 0.75 = mu.
    th = T.theta_all([1, 0, 1, 1], [0.5] * 4, [True, False, False, False], 1.0)
    np.testing.assert_allclose(th, [0.25, 1.0, 1.0])
    assert th.mean() == pytest.approx(0.75)
    # lambda = 0 gives the inverse-probability (observation) estimator: (1 + 3 S_j) / 4
    np.testing.assert_allclose(T.theta_all([1, 0, 1, 1], [0.5] * 4, [True, False, False, False], 0.0), [0.25, 1.0, 1.0])


def test_predictable_lambda_clipping():
    t = lambda *a: torch.tensor(a, dtype=torch.float64)  # noqa: E731
    # 1 - (sum S_hat) Z_bar / (|U| sum S_hat^2): 1 - 5 * 2 / (10 * 2.5) = 0.6
    assert predictable_lambda(t(5.0), t(2.5), t(10.0), t(2.0)).item() == pytest.approx(0.6)
    assert predictable_lambda(t(5.0), t(2.5), t(10.0), t(10.0)).item() == 0.0   # clipped below
    assert predictable_lambda(t(5.0), t(2.5), t(10.0), t(-3.0)).item() == 1.0   # clipped above
    assert predictable_lambda(t(0.0), t(0.0), t(10.0), t(1.0)).item() == 0.0    # no predictions


def test_lambda_does_not_read_the_scores_it_weights():
    S = toy(20, 120)
    _, V = fit_factors(S[:10], cfg=FitConfig(rank=2, steps=50))
    lams = []
    for fill in (0.0, 1.0):
        pol = make_policy("pulse", 10, 120, 10 * 8 + 40, reps=1, seed=3, v=V.numpy(), batch_size=8, refit_every=1000)
        req = pol.ask()
        pol.tell(req, torch.tensor(S[10:][req.rows[0], req.cols[0]])[None])
        req = pol.ask()
        pol.tell(req, torch.full((1, req.size), fill))
        lams.append(pol.last_lambda.item())
    assert lams[0] == lams[1]


@pytest.mark.parametrize("path", ["sparse", "dense", "auto"])
def test_refit_warm_start_and_sparse_equals_dense(path):
    rng = torch.Generator().manual_seed(0)
    V = torch.randn(30, 3, generator=rng)
    mask = torch.rand(2, 6, 30, generator=rng) < 0.4
    mask[1] = mask[0]
    vals = (torch.rand(2, 6, 30, generator=rng) < 0.5).float()
    U0 = torch.randn(2, 6, 3, generator=rng)
    one = refit_rows(U0, V, vals * mask, mask, 0.01, 0.05, 1)
    assert (one - U0).abs().max() <= 0.05 + 1e-6   # Adam's first step moves each coordinate by at most lr
    idx = mask[0].nonzero()
    rows, cols = idx[:, 0].expand(2, -1), idx[:, 1].expand(2, -1)
    v = vals[torch.arange(2)[:, None], rows, cols]
    dense = refit_rows(U0, V, vals * mask, mask, 0.01, 0.05, 25)
    sparse = refit_rows_sparse(U0, V, rows, cols, v, 0.01, 0.05, 25, path=path)
    torch.testing.assert_close(dense, sparse, rtol=1e-5, atol=1e-6)


def test_fit_lowers_the_objective_and_rejects_bad_input():
    S = toy(40, 100)
    cfg = FitConfig(rank=3, lam=0.01, lr=0.05, steps=200)
    U, V = fit_factors(S, cfg=cfg)
    U0, V0 = fit_factors(S, cfg=FitConfig(rank=3, lam=0.01, lr=1e-9, steps=1))
    M = np.ones_like(S)
    assert objective(S, M, U, V, 0.01) < objective(S, M, U0, V0, 0.01) - 0.05
    with pytest.raises(ValueError, match="non-empty"):
        fit_factors(np.zeros((0, 5)))
    with pytest.raises(ValueError):
        FitConfig(rank=0)


@pytest.mark.parametrize("method,sampler,budget", [("pulse", "rejection", 1111), ("naive-pooling", "rejection", 1111),
                                                   ("ucbe-batch", "rejection", 1111), ("ucbe-batch", "shuffled", 1111),
                                                   ("pulse", "shuffled", 2250), ("ucbe-batch", "shuffled", 2250)])
def test_policy_spends_budget_exactly_never_repeats(method, sampler, budget):
    """Exact budget, no pair twice; with the shuffled sampler also at the full matrix, where every row is shuffled
    and handed out to its last example. A step is charged its full batch B (Algorithm 1, the authors' steps), so
    the pairs made fall short of the budget by what the short batches (a row with fewer than B examples left, at
    most once per model) left out: less than B per model that was fully observed."""
    S = toy(30, 150)
    _, V = fit_factors(S[:15], cfg=FitConfig(rank=2, steps=50))
    kw = {} if method == "ucbe-batch" else {"v": V.numpy(), "refit_every": 5}
    kw["sampler"] = sampler
    mat = ScoreMatrix.from_array(S[15:], name="t", kind="synthetic")
    res = simulate(method, mat, [15 * 8, 600, budget], reps=3, seed=0, progress=False, batch_size=8, **kw)
    pol = make_policy(method, 15, 150, budget, reps=3, seed=0, batch_size=8, **kw)
    Sm = torch.tensor(S[15:])
    made = torch.zeros(3, dtype=torch.long)
    while not pol.done:
        req = pol.ask()
        made += req.size if req.valid is None else req.valid.sum(1)
        pol.tell(req, Sm[req.rows, req.cols])
    assert pol.spent == budget
    assert (pol.mask.sum(dim=(1, 2)) == made).all() and (pol.pairs_told() == made).all()  # no pair twice
    # a batch falls short only when it takes all that is left of its row (the row is then full), by less than B
    short, full_rows = budget - made, (pol.cnt == 150).sum(1)
    assert (short >= 0).all() and (short <= 7 * full_rows).all()
    assert (pol.cnt == pol.mask.sum(2)).all()
    np.testing.assert_allclose(res.estimates[-1], pol.estimate().numpy(), rtol=1e-5)
    if method == "ucbe-batch":
        obs_mean = (Sm * pol.mask).sum(2) / pol.mask.sum(2)
        torch.testing.assert_close(pol.estimate().float(), obs_mean)


def test_policy_bad_input():
    with pytest.raises(ValueError, match="exceeds the"):
        make_policy("ucbe-batch", 5, 10, 100, batch_size=8, t0=2)
    with pytest.raises(ValueError, match="warm-up"):
        make_policy("ucbe-batch", 5, 100, 30, batch_size=8)
    with pytest.raises(ValueError, match="same columns"):
        make_policy("pulse", 5, 100, 200, v=np.zeros((90, 2)), batch_size=8)
    with pytest.raises(ValueError, match="needs the frozen"):
        make_policy("pulse", 5, 100, 200, batch_size=8)


def test_pool_builder():
    means = np.array([0.70, 0.69, 0.68, 0.675, 0.6, 0.5, 0.4])
    idx = build_pool(means, 5, 0.02, tol=0.002)
    assert idx[0] == 0 and means[idx[1]] == pytest.approx(0.68)
    assert np.all(means[idx[2:]] < means[idx[1]]) and len(idx) == 5
    with pytest.raises(PoolBuildError, match="no test model"):
        build_pool(means, 5, 0.05, tol=0.002)
    with pytest.raises(PoolBuildError, match="below the second"):
        build_pool(means, 7, 0.02, tol=0.002)
    with pytest.raises(ValueError, match="at least 4"):
        split_models(3, 0)
    S = toy(200, 300, seed=2)
    inst = make_pool(S, "t", "synthetic", 20, 0.03, seed=0, tol=0.004)
    assert abs(inst.test.meta["realised_gap"] - 0.03) <= 0.004 and inst.test.shape == (20, 300)
    assert inst.train.shape[1] == 300 and inst.test.meta["split_seed"] == inst.seed


def test_cli_pulse(tmp_path, capsys):
    S = toy(60, 200)
    np.savez(tmp_path / "tr.npz", scores=S[:30])
    np.savez(tmp_path / "te.npz", scores=S[30:])
    np.savez(tmp_path / "bad.npz", scores=S[:30, :150])
    out = tmp_path / "o.json"
    rc = cli_main(["simulate", "--method", "pulse", "--scores", str(tmp_path / "te.npz"), "--train",
                   str(tmp_path / "tr.npz"), "--budget-frac", "0.2", "--batch-size", "8", "--reps", "2",
                   "--refit-every", "10", "--fit-steps", "50", "--json", str(out), "--quiet"])
    assert rc == 0
    d = json.loads(out.read_text())
    assert d["method"] == "pulse" and len(d["best"]) == 2 and d["budget"] == 1200
    for extra, msg in ((["--train", str(tmp_path / "bad.npz")], "different numbers of columns"), ([], "exactly one of")):
        rc = cli_main(["simulate", "--method", "pulse", "--scores", str(tmp_path / "te.npz"), "--budget-frac", "0.2",
                       "--json", str(out), *extra])
        assert rc == 2 and msg in capsys.readouterr().err


def test_lemma1_and_lemmas_5_6_exact():
    assert T.check_lemma1_exact(300)["max_abs_error"] < 1e-12
    out = T.check_lemma5_6(300)
    assert out["lemma5_max_excess"] <= 1e-12 and out["lemma6_max_rel_error"] < 1e-9


def test_lemma2_identity_at_oracle_lambda():
    rng = np.random.default_rng(1)
    S = (rng.random(100) < 0.5).astype(float)
    r = T.check_lemma2(S, "informative", K=20, reps=30)
    assert r["star_within_bound"] == 1.0


@pytest.mark.slow
def test_theorem1_interval_coverage_and_lemma1_monte_carlo():
    rng = np.random.default_rng(2)
    S = (rng.random(200) < 0.6).astype(float)
    for kind in ("informative", "uninformative", "biased"):
        t = T.check_theorem1(S, kind, K=40, reps=1500, delta=0.1, seed=3)
        k = int(round(t["cover_oracle"] * 1500))
        assert clopper_pearson(k, 1500)[1] >= 0.9, kind
        assert t["tail_ok"], kind
    mc = T.lemma1_monte_carlo(20000, seed=4)
    assert abs(mc["z"]) < 4.0


@pytest.mark.slow
def test_pulse_beats_naive_pooling_with_biased_refits_on_easy_pool():
    S = toy(400, 400, r=4, seed=5)
    inst = make_pool(S, "t", "synthetic", 60, None, seed=0)
    _, V = fit_factors(inst.train, cfg=FitConfig(rank=4, lam=0.01, lr=0.05, steps=200))
    bs = [60 * 8 + 3000]
    acc = {}
    for meth in ("pulse", "ucbe-batch"):
        kw = {} if meth == "ucbe-batch" else {"v": V.numpy(), "refit_every": 50}
        acc[meth] = simulate(meth, inst.test, bs, reps=40, seed=1, progress=False, batch_size=8, **kw).precision()[-1]
    assert acc["pulse"] >= acc["ucbe-batch"] - 0.25


def test_unobserved_sampler_is_uniform_without_replacement():
    from paperlib.policies.pulse import PULSE

    pol = PULSE(1, 50, 50, reps=20000, seed=0, estimator=ObservedMean(), batch_size=3, t0=1)
    pol.mask[:, 0, :40] = True
    c = pol._sample_unobserved(torch.zeros(20000, dtype=torch.long), 3, torch.full((20000,), 3)).numpy()
    assert (c >= 40).all() and all(len(set(x)) == 3 for x in c)
    freq = np.bincount(c.ravel(), minlength=50)[40:] / c.size
    # each of the 10 unobserved examples has inclusion share 1/10; 5 binomial standard errors
    assert np.abs(freq - 0.1).max() < 5 * np.sqrt(0.1 * 0.9 / c.size)
    pol.mask[:, 0, :48] = True   # fewer candidates than draws: the fallback path
    c = pol._sample_unobserved(torch.zeros(20000, dtype=torch.long), 2, torch.full((20000,), 2)).numpy()
    assert (np.sort(c, axis=1) == [48, 49]).all()


def _row_with_left(R, m, left, k, sampler="shuffled"):
    from paperlib.policies.pulse import PULSE

    pol = PULSE(1, m, m, reps=R, seed=0, estimator=ObservedMean(), batch_size=k, t0=1, sampler=sampler)
    pol.mask[:, 0, : m - left] = True
    pol.cnt[:, 0] = m - left
    return pol


def _record(pol, cols):
    pol.mask[torch.arange(pol.reps)[:, None], 0, cols] = True
    pol.cnt[:, 0] += cols.shape[1]


def test_shuffled_sampler_draws_uniform_subsets_given_the_past():
    """sampler="shuffled" on a row with 12 of 50 examples left (<= half, so the row is shuffled once): the first
    batch of 3 includes each unobserved example with probability 3/12 and each pair with 3 * 2 / (12 * 11) (the
    uniform 3-subset's marginals); given the first batch, the second includes each remaining example with
    probability 3/9; the four batches are exactly the 12 unobserved examples. 5 binomial standard errors."""
    R, m, left, k = 20000, 50, 12, 3
    pol = _row_with_left(R, m, left, k)
    pick = torch.zeros(R, dtype=torch.long)
    first = pol._sample_unobserved(pick, k, torch.full_like(pick, k))
    c = first.numpy()
    assert (c >= m - left).all() and all(len(set(x)) == k for x in c)
    inc = np.zeros((R, m), bool)
    inc[np.arange(R)[:, None], c] = True
    inc = inc[:, m - left:]

    def near(hits, trials, p):
        return abs(hits / trials - p) < 5 * np.sqrt(p * (1 - p) / trials)

    assert all(near(inc[:, j].sum(), R, k / left) for j in range(left))
    pair = k * (k - 1) / (left * (left - 1))
    assert all(near((inc[:, i] & inc[:, j]).sum(), R, pair) for i in range(left) for j in range(i + 1, left))
    _record(pol, first)
    second = pol._sample_unobserved(pick, k, torch.full_like(pick, k))
    inc2 = np.zeros((R, m), bool)
    inc2[np.arange(R)[:, None], second.numpy()] = True
    inc2 = inc2[:, m - left:]
    assert not (inc & inc2).any()
    assert all(near(inc2[~inc[:, j], j].sum(), int((~inc[:, j]).sum()), k / (left - k)) for j in range(left))
    batches = [first, second]
    _record(pol, second)
    for _ in range(2):
        batches.append(pol._sample_unobserved(pick, k, torch.full_like(pick, k)))
        _record(pol, batches[-1])
    every = np.sort(torch.cat(batches, 1).numpy(), axis=1)
    assert (every == np.arange(m - left, m)).all()


def test_shuffled_sampler_mixes_shuffled_and_rejection_rows_in_one_step():
    """Repetitions whose picked row is more than half unobserved draw by rejection, the others from their shuffled
    list, in the same step: every batch is k distinct unobserved examples, and the same seed gives the same
    batches."""
    R, n, m, k = 400, 3, 40, 5

    def batches():
        from paperlib.policies.pulse import PULSE

        pol = PULSE(n, m, n * m, reps=R, seed=2, estimator=ObservedMean(), batch_size=k, t0=1, sampler="shuffled")
        rng = np.random.default_rng(0)
        share = rng.choice([0.2, 0.7], size=(R, n, 1))
        pol.mask[:] = torch.tensor(rng.random((R, n, m)) < share)
        pol.mask[:, :, : 2 * k] = False  # k <= the unobserved examples at both steps, as the policy guarantees
        pol.cnt[:] = pol.mask.sum(2).double()
        pick = torch.tensor(rng.integers(0, n, R))
        before = pol.mask[torch.arange(R), pick].numpy().copy()
        out = [pol._sample_unobserved(pick, k, torch.full_like(pick, k))]
        pol.mask[torch.arange(R)[:, None], pick[:, None], out[0]] = True
        pol.cnt[torch.arange(R), pick] += k
        out.append(pol._sample_unobserved(pick, k, torch.full_like(pick, k)))
        return pol, pick, out, before

    pol, pick, (a, b), before = batches()
    hot = (2 * (m - pol.cnt[torch.arange(R), pick] + k) <= m).numpy()
    assert hot.any() and (~hot).any()
    rows = pol.mask[torch.arange(R), pick].numpy()
    for c in (a, b):
        c = c.numpy()
        assert all(len(set(x)) == k for x in c)
    assert not before[np.arange(R)[:, None], a.numpy()].any()
    assert not rows[np.arange(R)[:, None], b.numpy()].any()  # unobserved once a was recorded: b is new
    _, _, (a2, b2), _ = batches()
    assert torch.equal(a, a2) and torch.equal(b, b2)


def test_sampler_is_validated_named_in_the_label_and_refused_by_pulse_sync():
    from paperlib.policies import label

    # the shuffled sampler is the default (issue 40), so only the rejection sampler is named
    assert label("ucbe-batch") == label("ucbe-batch:sampler=shuffled") == "UCB-E"
    assert label("ucbe-batch:sampler=rejection") == "UCB-E (rejection sampler)"
    assert label("pulse:convention=paper:sampler=rejection") == "PULSE (paper-literal, rejection sampler)"
    assert make_policy("pulse", 3, 16, 48, v=np.zeros((16, 2)), batch_size=4).sampler == "shuffled"
    assert make_policy("pulse-sync", 3, 16, 48, v=np.zeros((16, 2)), batch_size=4).sampler == "rejection"
    with pytest.raises(ValueError, match="sampler"):
        make_policy("ucbe-batch", 3, 16, 48, batch_size=4, sampler="sorted")
    with pytest.raises(ValueError, match="sampler"):
        make_policy("pulse-sync", 3, 16, 48, v=np.zeros((16, 2)), batch_size=4, sampler="shuffled")
    with pytest.raises(ValueError, match="shared order"):
        PULSESync(3, 16, 48, v=np.zeros((16, 2)), batch_size=4, sampler="shuffled")


@pytest.mark.parametrize("path", ["sparse", "dense"])
def test_refit_repetitions_are_independent(path):
    # chunking over repetitions relies on it: refitting R repetitions at once equals refitting slices
    g = torch.Generator().manual_seed(0)
    R, n, m, r, c = 5, 7, 30, 3, 40
    U, V = torch.randn(R, n, r, generator=g), torch.randn(m, r, generator=g)
    rows, cols = torch.randint(n, (R, c), generator=g), torch.randint(m, (R, c), generator=g)
    vals = (torch.rand(R, c, generator=g) < 0.5).float()
    whole = refit_rows_sparse(U, V, rows, cols, vals, 0.01, 0.05, 10, path=path)
    parts = torch.cat([refit_rows_sparse(U[i:i + 2], V, rows[i:i + 2], cols[i:i + 2], vals[i:i + 2], 0.01, 0.05, 10,
                                         path=path) for i in range(0, R, 2)])
    torch.testing.assert_close(whole, parts, rtol=1e-5, atol=1e-6)


def test_refit_paths_agree_with_repeated_pairs_and_the_cost_model_picks_by_observed_fraction():
    # duplicates (randint draws) must count once per occurrence on both paths
    g = torch.Generator().manual_seed(1)
    R, n, m, r, c = 3, 5, 8, 2, 60
    U, V = torch.randn(R, n, r, generator=g), torch.randn(m, r, generator=g)
    rows, cols = torch.randint(n, (R, c), generator=g), torch.randint(m, (R, c), generator=g)
    vals = torch.rand(R, c, generator=g)
    torch.testing.assert_close(refit_rows_sparse(U, V, rows, cols, vals, 0.01, 0.05, 5, path="sparse"),
                               refit_rows_sparse(U, V, rows, cols, vals, 0.01, 0.05, 5, path="dense"),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="path"):
        refit_rows_sparse(U, V, rows, cols, vals, 0.01, 0.05, 5, path="fast")
    # the measured crossings (benchmarks/RESULTS.md, bench_refit): rank 100 between 12% (a tie) and 25% observed,
    # rank 8 between 3.3% and 10% (a tie)
    assert not dense_refit_is_cheaper(1000, 12032, 100, 1_000_000) and dense_refit_is_cheaper(1000, 12032, 100, 3_008_000)
    assert not dense_refit_is_cheaper(1000, 12032, 8, 400_665) and dense_refit_is_cheaper(1000, 12032, 8, 1_300_000)


def test_precision_weighted_pulse_is_exact_once_a_model_is_fully_observed_and_weights_late_steps_more():
    """pulse-pw: a model seen on every example has its exact mean; elsewhere the estimate is a weighted mean of the
    theta_t with weights 1 / w_t^2 (checked against the recorded sums); at the full budget it equals the row means."""
    import numpy as np
    import torch

    from paperlib.data.synthetic import low_rank_logistic
    from paperlib.policies import make_policy

    mat = low_rank_logistic(5, 64, rank=2, gap=0.05, seed=0)
    v = np.random.default_rng(0).normal(size=(64, 2))
    pol = make_policy("pulse-pw", 5, 64, 5 * 64, reps=3, seed=1, device="cpu", v=v, batch_size=8, refit_every=2)
    s = torch.tensor(mat.scores)
    while not pol.done:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
        est = pol.estimate()
        full = pol.cnt >= 64
        exact = torch.tensor(mat.means, dtype=torch.float64).expand_as(est)
        assert torch.allclose(est[full], exact[full])
        assert torch.allclose(est[~full], (pol.w_theta_sum / pol.w_sum)[~full])
    assert torch.allclose(pol.estimate(), torch.tensor(mat.means, dtype=torch.float64).expand(3, -1))
    plain = make_policy("pulse:convention=paper", 5, 64, 5 * 64, reps=3, seed=1, device="cpu", v=v, batch_size=8,
                        refit_every=2)
    while not plain.done:
        req = plain.ask()
        plain.tell(req, s[req.rows, req.cols])
    assert not torch.allclose(plain.estimate(), torch.tensor(mat.means, dtype=torch.float64).expand(3, -1))
    with pytest.raises(ValueError, match="pulse takes no parameter 'weighting'"):
        make_policy("pulse", 5, 64, 100, v=v, weighting="precision")
    with pytest.raises(ValueError, match="weighting must be 'mean'"):
        DoublyRobust("magic")


def test_pulse_sync_follows_one_shared_order_and_refuses_intervals():
    """Every model's j-th evaluation is the run's j-th shared example; no example twice per model; no intervals."""
    import numpy as np
    import pytest
    import torch

    from paperlib.data.synthetic import low_rank_logistic
    from paperlib.policies import make_policy

    mat = low_rank_logistic(6, 50, rank=2, gap=0.05, seed=0)
    v = np.random.default_rng(0).normal(size=(50, 2))
    R, budget = 3, 6 * 4 + 8 * 4
    pol = make_policy("pulse-sync", 6, 50, budget, reps=R, seed=1, device="cpu", v=v, batch_size=4, t0=1)
    with pytest.raises(ValueError, match="shared order"):
        pol.track_intervals(0.1)
    s = torch.tensor(mat.scores)
    seen = [[[] for _ in range(6)] for _ in range(R)]
    while not pol.done:
        req = pol.ask()
        for r in range(R):
            for i, j in zip(req.rows[r].tolist(), req.cols[r].tolist(), strict=True):
                seen[r][i].append(j)
        pol.tell(req, s[req.rows, req.cols])
    for r in range(R):
        order = pol.shared(torch.tensor(r), torch.tensor(0), torch.arange(50)).tolist()
        assert sorted(order) == list(range(50))
        for i in range(6):
            assert seen[r][i] == order[: len(seen[r][i])]  # a prefix of the shared order, so never twice
        assert sum(len(x) for x in seen[r]) == budget


def test_naive_pooling_fills_exactly_the_unobserved_entries_with_predictions():
    """Eq. (Naive-Pooling), paper-literal: after each refit the estimate of row i is (sum of observed scores + sum over
    the unobserved j of sigmoid(u_i . v_j)) / m; checked in float64 with numpy from the policy's U, V and mask."""
    g = np.random.default_rng(4)
    n, m, R = 6, 50, 3
    scores = (g.random((n, m)) < 0.6).astype(np.float32)
    pol = make_policy("naive-pooling:convention=paper", n, m, n * m // 2, reps=R, seed=1, device="cpu",
                      v=g.normal(size=(m, 3)), batch_size=4, t0=1, refit_every=2)
    s = torch.tensor(scores)
    while not pol.done:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
        if pol.step % 2 == 0 and pol.step > 0:
            break
    U, V, mask = pol.U.double().numpy(), pol.V.double().numpy(), pol.mask.numpy()
    pred = 1 / (1 + np.exp(-np.einsum("rik,jk->rij", U, V)))
    want = (np.where(mask, scores[None], 0).sum(2) + np.where(mask, 0, pred).sum(2)) / m
    np.testing.assert_allclose(pol.estimate().numpy(), want, rtol=1e-5)


def test_unobserved_sampler_keeps_the_first_k_new_draws_in_order():
    """The sampler's definition, checked draw by draw: the first k of the L uniform draws that are neither observed
    nor drawn earlier in the same step, in draw order (the keyed streams are replayed to read the draws; each
    repetition makes its own number of draws, sized by its own row); only the repetitions short of k such draws take
    the fallback."""
    from paperlib.policies.pulse import PULSE

    R, n, m, k = 300, 3, 200, 6
    pol = PULSE(n, m, n * m, reps=R, seed=4, estimator=ObservedMean(), batch_size=k, t0=1, sampler="rejection")
    rng = np.random.default_rng(0)
    pol.mask[:] = torch.tensor(rng.random((R, n, m)) < rng.uniform(0.2, 0.99, (R, n, 1)))
    pol.mask[:, :, :k] = False  # at least k unobserved per row; some rows still take the fallback
    pol.cnt[:] = pol.mask.sum(2)
    pick = torch.tensor(rng.integers(0, n, R))
    left = (~pol.mask[torch.arange(R), pick]).sum(1).numpy()
    own = [pol._draws(k, int(x)) for x in left]  # each repetition's own number of draws
    assert own == [min(m, 4 * k * int(np.ceil(m / x))) for x in left]
    state = pol.sel_gen.counter.clone()
    got = pol._sample_unobserved(pick, k, torch.full_like(pick, k)).numpy()
    pol.sel_gen.counter.copy_(state)  # replay the keyed streams
    draws = pol.sel_gen.randint(m, (max(own),)).numpy()
    mask = pol.mask.numpy()
    fallback = 0
    for r in range(R):
        seen, keep = set(), []
        for c in draws[r, : own[r]]:
            if c not in seen and not mask[r, pick[r], c] and len(keep) < k:
                keep.append(int(c))
            seen.add(int(c))
        if len(keep) == k:
            assert got[r].tolist() == keep
        else:
            fallback += 1
            assert len(set(got[r])) == k and not mask[r, pick[r], got[r]].any()
    assert 0 < fallback < R  # both paths ran


@pytest.mark.parametrize("m,warm", [(10, 8), (500, 16)])  # (10, 8): about a quarter of the rows take the fallback
def test_warmup_draws_distinct_uniform_examples(m, warm):
    from paperlib.policies.pulse import PULSE

    R, n = 4000, 2
    pol = PULSE(n, m, n * m, reps=R, seed=2, estimator=ObservedMean(), batch_size=warm, t0=1)
    req = pol.ask()
    rows, cols = req.rows, req.cols
    assert (rows == torch.arange(n).repeat_interleave(warm)).all()
    c = cols.view(R, n, warm).numpy()
    assert all(len(set(x)) == warm for x in c.reshape(-1, warm))
    counts = np.bincount(c.ravel(), minlength=m)
    assert stats.chisquare(counts).pvalue > 1e-3  # each example is in a warm-up with probability warm / m


def _pulse_after_warmup(convention, estimator="pulse", n=4, m=40, k=4, R=6, refit_every=1000, seed=3):
    g = np.random.default_rng(seed)
    scores = torch.tensor((g.random((n, m)) < 0.6).astype(np.float32))
    pol = make_policy(f"{estimator}:convention={convention}" if convention == "paper" else estimator, n, m, n * m,
                      reps=R, seed=1, device="cpu", v=g.normal(size=(m, 3)), batch_size=k, t0=1, refit_every=refit_every)
    req = pol.ask()
    pol.tell(req, scores[req.rows, req.cols])
    return pol, scores


def test_lambda_batch_formula_hand_computed():
    """The authors' batch lambda (bandit.py, compute_lam_cv_eb) on numbers worked by hand: F = 2, sum S_hat^2 = 1.5,
    |U| = 8, B = 2, so pi = 1/4, S = 3 * 1.5 = 4.5, S + F^2 = 8.5 and lambda = 1 - 2 Z_bar / 8.5."""
    from paperlib.policies.pulse import predictable_lambda_batch

    F, phi, u, b = (torch.tensor([v] * 4, dtype=torch.float64) for v in (2.0, 1.5, 8.0, 2.0))
    z = torch.tensor([0.5, -1.0, 0.0, 100.0], dtype=torch.float64)
    got = predictable_lambda_batch(F, phi, u, b, z)
    assert torch.allclose(got, torch.tensor([1 - 1 / 8.5, 1.0, 1.0, 0.0], dtype=torch.float64))


def test_authors_lambda_is_one_right_after_the_warmup_paper_reads_the_warmup_residual():
    """Right after the warm-up no residual has entered Z_bar in the authors' code, so the first step of every model
    uses lambda = 1; the paper-literal reading averages the warm-up's Z = (sum of warm-up scores) m / (T0 B)."""
    from paperlib.policies.pulse import predictable_lambda

    pol, s = _pulse_after_warmup("authors")
    assert (pol.n_z == 0).all()
    req = pol.ask()
    pol.tell(req, s[req.rows, req.cols])
    assert torch.equal(pol.last_lambda, torch.ones_like(pol.last_lambda))

    pol, s = _pulse_after_warmup("paper")
    r = torch.arange(pol.reps)
    warm_sum = (pol.mask.double() * s.double()[None]).sum(2)  # (R, n): each model's warm-up scores
    req = pol.ask()
    pick = req.rows[:, 0]
    pred = torch.sigmoid(pol.U[r, pick] @ pol.V.T).double()
    unobs = ~pol.mask[r, pick]
    want = predictable_lambda((pred * unobs).sum(1), (pred.square() * unobs).sum(1), unobs.sum(1).double(),
                              warm_sum[r, pick] * pol.m / pol.warm)
    pol.tell(req, s[req.rows, req.cols])
    assert torch.allclose(pol.last_lambda, want)
    assert (want < 1).any()


def test_authors_residual_mean_is_reset_at_every_refit():
    """Their end-of-step retrain empties Z_bar for every model: after a refit the next pull again uses lambda = 1,
    whatever the model's history; between refits a model's Z count grows by one per pull."""
    pol, s = _pulse_after_warmup("authors", refit_every=3)
    seen = []
    while pol.step < 7:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
        seen.append((pol.step, pol.last_lambda.clone(), pol.n_z.sum(1).clone()))
    for step, lam, nz in seen:
        since = step if step < 3 else step - 3 * (step // 3) + 1  # pulls since the warm-up or the last refit
        assert torch.equal(nz, torch.full_like(nz, since))
        if step % 3 == 0:  # the refit ran in this step's ask, before its lambda
            assert torch.equal(lam, torch.ones_like(lam))
    assert any((lam < 1).any() for step, lam, _ in seen if step % 3 != 1)


@pytest.mark.parametrize("estimator", ["pulse", "pulse-sync"])
def test_authors_estimate_is_the_exact_mean_once_a_row_is_complete(estimator):
    """The authors' loop overwrites a fully observed model's estimate with its exact mean; the paper's Eq. (3) keeps
    the average of its one-step estimators."""
    n, m, k = 3, 16, 4
    for convention, exact_expected in (("authors", True), ("paper", False)):
        pol, s = _pulse_after_warmup(convention, estimator, n=n, m=m, k=k, R=8)
        while not (pol.cnt >= m).any(1).all():
            req = pol.ask()
            pol.tell(req, s[req.rows, req.cols])
        full = pol.cnt >= m
        exact = s.double().mean(1).expand(pol.reps, -1)
        assert torch.allclose(pol.estimate()[full], exact[full]) == exact_expected
        assert torch.allclose(pol.estimate()[~full], (pol.theta_sum / pol.n_theta)[~full])


def test_authors_naive_pooling_refreshes_a_model_only_when_it_is_pulled():
    """imp_wor's snapshots: a refit changes U but no model's estimate; the pulled model's estimate becomes
    (observed scores + current predictions on its unobserved examples) / m, in float64 from U, V and the mask."""
    pol, s = _pulse_after_warmup("authors", "naive-pooling", n=5, m=40, k=4, R=4, refit_every=2)
    req = pol.ask()  # step 1: no refit
    pol.tell(req, s[req.rows, req.cols])
    before, U_before = pol.estimate().clone(), pol.U.clone()
    req = pol.ask()  # step 2: refit first, then the pull
    assert not torch.allclose(pol.U, U_before)
    pol.tell(req, s[req.rows, req.cols])
    r, pick = torch.arange(pol.reps), req.rows[:, 0]
    other = torch.ones_like(pol.mask[:, :, 0])
    other[r, pick] = False
    assert torch.equal(pol.estimate()[other], before[other])
    U, V, mask = pol.U.double().numpy(), pol.V.double().numpy(), pol.mask.numpy()
    pred = 1 / (1 + np.exp(-np.einsum("rik,jk->rij", U, V)))
    want = (np.where(mask, s.numpy()[None], 0).sum(2) + np.where(mask, 0, pred).sum(2)) / pol.m
    np.testing.assert_allclose(pol.estimate().numpy()[r, pick], want[r.numpy(), pick.numpy()], rtol=1e-5)


def test_convention_is_validated_and_named_in_the_label():
    from paperlib.policies import label

    assert label("pulse:convention=paper") == "PULSE (paper-literal)" and label("pulse") == "PULSE"
    with pytest.raises(ValueError, match="convention"):
        make_policy("pulse", 3, 16, 48, v=np.zeros((16, 2)), batch_size=4, convention="mine")


def test_figure1_is_logarithmic_and_marks_a_budget_never_reached():
    """PULSE Figure 1: the real pools' bars are two orders of magnitude below Bench 1's, so the axis is logarithmic,
    and a method that never reaches 95% gets an explicit marker instead of a missing bar."""
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from paperlib.papers.pulse.plots import budget_to_level

    runs = pd.DataFrame({"pool": ["big", "small"], "kind": ["semi-synthetic", "real"]})
    table = pd.DataFrame({"pool": ["big"] * 3 + ["small"] * 3, "label": ["UCB-E", "PULSE", "Naive-Pooling"] * 2,
                          "calls_to_level": [120_000, 90_000, 150_000, 800, np.nan, 1_500]})
    fig = budget_to_level(table, runs)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    markers = [line for line in ax.lines if line.get_marker() == "x" and len(line.get_xdata())]
    assert len(markers) == 1 and markers[0].get_xdata()[0] == pytest.approx(1.0)  # PULSE's slot at the second pool
    heights = sorted(p.get_height() for p in ax.patches if np.isfinite(p.get_height()))
    assert heights == [800, 1_500, 90_000, 120_000, 150_000]


@pytest.mark.slow
def test_a_pool_run_as_blocks_is_the_pool_run_as_one_batch(tmp_path):
    """Issue 67: a pool's runs cut into blocks of 7 (each block its own call, Step 1 read from its saved file, in
    reverse order) give exactly the per-run rows and the table of one batch of 21; a subset run gives each method the
    rows of the whole run; per-method run counts are honoured; a missing block is refused by name."""
    from paperlib.papers.pulse import experiments as E
    from paperlib.pipeline.config import smoke_config

    cfg = {**smoke_config("pulse"), "reps": 21, "reps_by_method": {"naive-pooling": 9}}
    pool = E.pool_names(cfg)[0]
    fit = E.fit_pool(cfg, pool, device="cpu")
    E.save_fit(tmp_path / "fit.npz", fit)
    one = E.run_block(cfg, pool, 0, fit, device="cpu", progress=False)  # no rep_block: one block of every run
    blocked = {**cfg, "rep_block": 7}
    assert E.pool_blocks(blocked) == [0, 1, 2] and E.block_runs(blocked, "naive-pooling", 1) == (7, 9)
    assert E.block_runs(blocked, "naive-pooling", 2) is None
    loaded = E.load_fit(tmp_path / "fit.npz")
    parts = [E.run_block(blocked, pool, b, loaded, device="cpu", progress=False) for b in (2, 1, 0)]
    cols = ["method", "run", "run_seed", "budget", "pick", "correct", "streams"]
    key = ["method", "budget", "run"]
    joined = pd.concat(parts).sort_values(key).reset_index(drop=True)[cols]
    assert joined.equals(one.sort_values(key).reset_index(drop=True)[cols])
    assert set(joined.streams) == {"keyed-splitmix64-v1"}
    whole = E.pool_table(blocked, pool, pd.concat(parts))
    again = E.pool_table(cfg, pool, one)
    assert whole[["method", "budget", "accuracy", "reps"]].equals(again[["method", "budget", "accuracy", "reps"]])
    assert whole.groupby("method").reps.first().to_dict() == {"ucbe-batch": 21, "pulse": 21, "naive-pooling": 9}
    part = E.run_block(blocked, pool, 1, loaded, device="cpu", progress=False, methods=["pulse"])
    assert part[cols].equals(parts[1][parts[1].method == "pulse"][cols].reset_index(drop=True))
    with pytest.raises(ValueError, match="do not hold runs 0..20 of ucbe-batch"):
        E.pool_table(blocked, pool, pd.concat(parts[1:]))


def test_lemma2_as_printed_is_exact_with_equal_sides_at_the_first_draw():
    """Lemma 2's inequality as printed, computed exactly: at K = 1 the one-step variance over all n examples is the
    variance of a one-draw mean, so both sides are (1 - rho^2) sigma^2 (an identity outside the checker's code); a
    left side made larger than the right at one point is found."""
    S, preds = T.theory_inputs(200, 3)
    r = T.check_lemma2(S, "informative", 40, 60, pred=preds["informative"])
    assert r["literal_k1"] == pytest.approx(1.0, abs=1e-9) and r["literal_within_bound"] == 1.0
    star = T.one_model_runs(S, preds["informative"], 40, 60, "oracle", 1)
    assert T.lemma2_as_printed(star, S)["within"] == 1.0
    star["vz"][5, 0] *= 1e6  # one (step, run) point with a huge one-step variance
    bad = T.lemma2_as_printed(star, S)
    assert bad["within"] == pytest.approx(1 - 1 / star["vz"].size) and bad["worst"] > 1


@pytest.mark.slow
def test_one_run_of_a_published_pool_reruns_alone(tmp_path, capsys):
    """Issue 67: `paperlib rerun POOL --run r` reruns run r alone and finds the published block's picks at every
    budget; a table whose picks were changed is reported and exits 1."""
    from paperlib.papers.pulse import experiments as E
    from paperlib.pipeline.config import smoke_config

    cfg = {**smoke_config("pulse"), "rep_block": 2}  # the smoke profile's 4 runs in blocks of 2
    pool = E.pool_names(cfg)[0]
    blocks = tmp_path / "smoke" / "pulse" / "blocks"
    blocks.mkdir(parents=True)
    fit = E.fit_pool(cfg, pool, device="cpu")
    table = E.run_block(cfg, pool, 1, fit, device="cpu", progress=False)
    rows, trace = E.rerun(cfg, pool, "pulse", 3, device="cpu", fit=fit)
    pub = E.published_run(cfg, blocks.parent.parent.parent / "none", pool, "pulse", 3)
    assert pub is None
    table.to_csv(blocks / f"{pool}.b1.csv.gz", index=False)
    pub = E.published_run(cfg, blocks, pool, "pulse", 3)
    assert pub.pick.tolist() == rows.pick.tolist() and pub.run_seed.iloc[0] == rows.run_seed.iloc[0]
    assert trace.model.iloc[0] == -1 or trace.step.iloc[0] == 0  # the warm-up is step 0
    assert (trace.examples[1:] <= cfg["batch_size"]).all() and trace.calls.is_monotonic_increasing
    # the command on the smoke profile reads the block back (rep_block absent there: block = run // 4 = 0)
    E.run_block(smoke_config("pulse"), pool, 0, fit, device="cpu", progress=False).to_csv(
        blocks / f"{pool}.b0.csv.gz", index=False)
    assert cli_main(["rerun", pool, "--run", "3", "--profile", "smoke", "--results", str(tmp_path),
                     "--trace", str(tmp_path / "t.csv")]) == 0
    out = capsys.readouterr().out
    assert "the same picks at every budget" in out and (tmp_path / "t.csv").exists()
    t = pd.read_csv(blocks / f"{pool}.b0.csv.gz")
    t.loc[(t.method == "pulse") & (t.run == 3), "pick"] += 1
    t.to_csv(blocks / f"{pool}.b0.csv.gz", index=False)
    assert cli_main(["rerun", pool, "--run", "3", "--profile", "smoke", "--results", str(tmp_path)]) == 1
    assert "DIFFERENT picks" in capsys.readouterr().out
    assert cli_main(["rerun", pool, "--run", "9", "--profile", "smoke"]) == 2  # 4 runs on the smoke profile


def test_an_extra_fit_runs_the_pools_runs_with_only_v_changed(tmp_path):
    """Issue 67, item 5: an extra Step 1 fit's runs are the pool's runs (same seeds, keyed streams, blocks) with
    another V: given the published fit's V they are those runs exactly; fit k refits with seed + k (another V); the
    published fit's own blocks are refused as an extra fit; accuracy is over the runs every fit has."""
    from paperlib.papers.pulse import experiments as E
    from paperlib.pipeline.config import smoke_config

    cfg = {**smoke_config("pulse"), "reps": 6, "rep_block": 2, "fits": {"extra": 2, "reps": 4, "methods": ["pulse"]}}
    pool = E.pool_names(cfg)[0]
    assert E.extra_fits(cfg) == [1, 2] and E.fit_blocks(cfg) == [0, 1]
    fit = E.fit_pool(cfg, pool, device="cpu")
    cols = ["method", "run", "run_seed", "budget", "pick", "correct"]
    same_v = pd.concat([E.fit_block(cfg, pool, b, {**fit, "index": 1}, device="cpu", progress=False) for b in (0, 1)])
    pool_runs = pd.concat([E.run_block(cfg, pool, b, fit, device="cpu", progress=False, methods=["pulse"])
                           for b in (0, 1)])
    assert same_v[cols].reset_index(drop=True).equals(pool_runs[cols].reset_index(drop=True))
    assert set(same_v.fit) == {1} and same_v.run.max() == 3
    other = E.fit_pool(cfg, pool, device="cpu", index=1)
    assert other["index"] == 1 and not np.allclose(other["V"], fit["V"])
    with pytest.raises(ValueError, match="index >= 1"):
        E.fit_block(cfg, pool, 0, fit, device="cpu", progress=False)
    for b in (0, 1):
        E.fit_block(cfg, pool, b, other, device="cpu", progress=False).to_csv(tmp_path / f"{pool}.fit1.b{b}.csv.gz",
                                                                              index=False)
    read = E.read_fit_blocks(sorted(tmp_path.glob("*.csv.gz")))
    acc = E.fit_accuracy(cfg, pd.concat([pool_runs.assign(pool=pool), read]))
    assert set(acc.pool) == {pool} and set(acc.fit) == {0, 1} and acc.reps.eq(4).all()


@pytest.mark.slow
def test_a_cross_validation_table_records_what_made_it_and_is_the_same_when_rerun(data_dir):
    """Issue 74, item 3: Step 1's cross-validation table of a pool names the machine and its seeded generators on
    every row, and the same call again gives the same losses and choice (the generators are seeded, not shared)."""
    from paperlib.device import describe, get_device
    from paperlib.lowrank.logistic import CV_STREAMS
    from paperlib.papers.pulse import experiments as E
    from paperlib.pipeline.config import smoke_config

    cfg = smoke_config("pulse")
    pool = E.cv_pools(cfg)[0]
    a, b = E.cv_pool_table(cfg, pool), E.cv_pool_table(cfg, pool)
    assert set(a.machine) == {describe(get_device(None))} and set(a.streams) == {CV_STREAMS}
    assert a.chosen.sum() == 1 and len(a) == len(cfg["cv"]["ranks"]) * len(cfg["cv"]["lams"]) * len(cfg["cv"]["lrs"])
    pd.testing.assert_frame_equal(a, b)


def test_step_1_cross_validation_shows_its_progress_and_keeps_the_1_se_pick(tmp_path):
    """A long CV job (up to an hour a paper pool) counts its fits in the rule's progress log; the bar changes nothing."""
    from paperlib.lowrank import cross_validate
    from paperlib.progress import send_progress_to

    X = (np.random.default_rng(0).random((12, 20)) < 0.5).astype(np.float32)
    grid = [FitConfig(1, 1.0, 0.05, 5), FitConfig(2, 0.1, 0.05, 5)]
    log = tmp_path / "progress.log"
    send_progress_to(log)
    try:
        shown = cross_validate(X, grid, folds=3, seed=0)
    finally:
        send_progress_to(None)
    assert "Step 1 CV fits" in log.read_text() and "6/6" in log.read_text()
    quiet = cross_validate(X, grid, folds=3, seed=0, progress=False)
    assert shown[0] == quiet[0] and shown[1] == quiet[1]
