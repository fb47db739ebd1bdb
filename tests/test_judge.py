"""ROBIN / ROBIN-HOOD: pools, simulators, allocations on hand-computed cases, protocol, CLI."""

import json
import math

import numpy as np
import pytest
import torch
from scipy import special

from paperlib.cli import main as cli_main
from paperlib.data import JudgeDataError, JudgePool, load_pool_file
from paperlib.keyed import KeyedStream
from paperlib.metrics import first_crossing, human_correlations, wce
from paperlib.papers.robin import theory as T
from paperlib.policies import Robin, RobinHood, Uniform
from paperlib.policies.allocation import robin_sequence, variance_ucb, warmup_rounds
from paperlib.policies.base import (
    AlreadyToldError,
    BudgetExhaustedError,
    PendingRequestError,
    UnknownRequestError,
)
from paperlib.simulate import CategoricalJudge, GaussianJudge, PoolJudge, run_judge, synthetic_judge
from paperlib.simulate.allocation_run import JUDGE_DRAWS


def counts_of(seq, K):
    return np.stack([np.bincount(s, minlength=K) for s in np.asarray(seq)])


# ------------------------------------------------------------------ pools and judges
def test_pool_drops_and_counts_invalid_judgments():
    s = np.array([[1.0, np.nan, 2.0], [3.0, 3.0, np.nan]])
    pool = JudgePool.from_array(s)
    assert pool.meta["n_invalid"] == 2
    assert pool.meta["n_judgments"] == 4
    np.testing.assert_allclose(pool.means(), [1.5, 3.0])
    np.testing.assert_allclose(pool.variances(), [0.25, 0.0])


@pytest.mark.parametrize("bad, msg", [
    (np.zeros((0, 5)), "empty"),
    (np.ones((4, 1)), "repeat"),
    (np.array([[1.0, np.nan, np.nan], [1.0, 2.0, 3.0]]), "fewer than 2 valid"),
    (np.array([[1.0, np.inf], [1.0, 2.0]]), "inf"),
    (np.ones(5), "2-d"),
])
def test_pool_rejects_bad_input(bad, msg):
    with pytest.raises(JudgeDataError, match=msg):
        JudgePool.from_array(bad)


def test_pool_scale_and_sparse_drop():
    with pytest.raises(JudgeDataError, match="outside the scale"):
        JudgePool.from_array([[0.0, 5.0], [1.0, 2.0]], scale=(0, 4))
    pool = JudgePool.from_array([[1.0, np.nan, np.nan], [1.0, 2.0, 3.0]], sparse="drop")
    assert pool.K == 1 and pool.meta["n_dropped_items"] == 1 and pool.meta["n_invalid"] == 0


def test_pool_judge_draws_only_valid_scores_uniformly():
    pool = JudgePool.from_array([[0.0, np.nan, 4.0, 2.0]])
    j = PoolJudge(pool, device="cpu")
    g = torch.Generator().manual_seed(0)
    x = j.draw(torch.zeros(30000, dtype=torch.long), g).numpy()
    assert set(np.unique(x)) == {0.0, 2.0, 4.0}
    freq = np.array([(x == v).mean() for v in (0.0, 2.0, 4.0)])
    # each frequency is Binomial(30000, 1/3)/30000: 5 standard errors = 0.0136
    assert np.all(np.abs(freq - 1 / 3) < 5 * math.sqrt(2 / 9 / 30000))


def test_categorical_judge_moments_and_draws():
    j = CategoricalJudge([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]], [1.0, 2.0, 3.0], device="cpu")
    np.testing.assert_allclose(j.means, [1.5, 3.0])
    np.testing.assert_allclose(j.variances, [0.25, 0.0])
    x = j.draw(torch.tensor([1] * 100 + [0] * 20000), torch.Generator().manual_seed(1)).numpy()
    assert np.all(x[:100] == 3.0)
    assert abs(x[100:].mean() - 1.5) < 5 * 0.5 / math.sqrt(20000)
    with pytest.raises(ValueError, match="probability"):
        CategoricalJudge([[0.5, 0.6]], [0.0, 1.0])


def test_synthetic_judge_matches_paper_scale_and_is_seeded():
    a, b = synthetic_judge("discrete", seed=3), synthetic_judge("discrete", seed=3)
    assert a.K == 1017 and a.scale == (0.0, 4.0)
    np.testing.assert_array_equal(a.means, b.means)
    assert (a.variances == 0).mean() > 0.1 and a.variances.max() > 5 * np.median(a.variances)


# ------------------------------------------------------------------ allocations
def test_robin_hand_computed_allocation():
    # lambda = (2/3, 1/6, 1/6), B = 6: every item once (n = 0 is +inf), then item 0 while 4/n > 1.
    pol = Robin(3, 6, [4.0, 1.0, 1.0], device="cpu")
    while not pol.done:
        req = pol.ask()
        pol.tell(req, [1.0])
    np.testing.assert_array_equal(pol.n[0].numpy(), [4, 1, 1])


def test_robin_violates_lemma2_lower_bound_in_adams_regime():
    # One dominant item and three tiny ones, B = 10: the forced first query of every item leaves
    # 7 for item 0, below floor(0.97 * 10) = 9 (Lemma 2's lower bound), above ceil(0.97 * 6) = 6.
    var = np.array([0.97, 0.01, 0.01, 0.01])
    n = T.robin_counts(var, 10)[0]
    np.testing.assert_array_equal(n, [7, 1, 1, 1])
    lam = var / var.sum()
    assert n[0] < math.floor(lam[0] * 10)
    assert np.all(n >= np.ceil(lam * (10 - 4) - 1e-9)) and np.all(n <= np.ceil(lam * 10))


@pytest.mark.parametrize("seed", range(5))
def test_robin_sequence_equals_sequential_greedy(seed):
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 12))
    var = rng.uniform(0.05, 2.0, K)
    B = int(K + rng.integers(1, 60))
    n = np.zeros(K)
    for _ in range(B):  # Alg. 1 step by step: argmax sigma_i^2 / n_i, n_i = 0 first
        n[np.argmax(np.where(n == 0, np.inf, var / np.maximum(n, 1)))] += 1
    pol = Robin(K, B, var, device="cpu")
    while not pol.done:
        pol.tell(pol.ask(), [0.0])
    np.testing.assert_array_equal(pol.n[0].numpy(), n)
    fast = counts_of(robin_sequence(var, B, 2, torch.Generator().manual_seed(seed), "cpu"), K)
    np.testing.assert_array_equal(fast[0], n)
    np.testing.assert_array_equal(fast[1], n)


def test_robin_sequence_is_greedy_at_every_prefix():
    var = np.array([2.0, 1.0, 0.5, 0.25, 0.0])
    seq = robin_sequence(var, 40, 1, torch.Generator().manual_seed(0), "cpu")[0].numpy()
    n = np.zeros(5)
    for arm in seq:
        prio = np.where(n == 0, np.inf, var / np.maximum(n, 1))
        assert prio[arm] == prio.max()
        n[arm] += 1
    assert n[4] == 1  # a zero-variance item is queried exactly once


def test_uniform_is_round_robin():
    res = run_judge("uniform", synthetic_judge("gaussian", K=7), [7, 23], reps=3, seed=0, device="cpu")
    assert res.counts.sum(axis=1).tolist() == [23, 23, 23]
    assert set(res.counts.ravel()) <= {3, 4}


@pytest.mark.parametrize("delta, t0", [(0.007, 20), (0.07, 11), (0.5, 3)])
def test_warmup_length_is_4_ln_inverse_delta(delta, t0):
    assert warmup_rounds("experiments", 10, 1000, delta) == t0 == math.ceil(4 * math.log(1 / delta))
    j = synthetic_judge("gaussian", K=10)
    res = run_judge("robin-hood", j, [t0 * 10], reps=2, device="cpu", delta=delta)
    assert (res.counts == t0).all()
    assert res.params["warmup"] == t0 * 10


def test_theorem_warmup_and_truncation():
    assert warmup_rounds("theorem", 10, 1000, 0.1) == math.ceil(16 * math.log(4 * 10 * 1000 / 0.1))
    res = run_judge("robin-hood", synthetic_judge("gaussian", K=10), [500], reps=1, device="cpu",
                    t0="theorem", delta=0.1)
    assert res.params["warmup_truncated"] and set(res.counts[0]) == {50}
    with pytest.raises(ValueError, match="t0"):
        warmup_rounds(0, 10, 100, 0.1)


def test_variance_ucb_hand_computed():
    L = math.log(1 / 0.01)
    v = variance_ucb(torch.tensor([1.0, 1.0], dtype=torch.float64), torch.tensor([100.0, 4 * L], dtype=torch.float64), L)
    assert v[0].item() == pytest.approx(1 / (1 - math.sqrt(4 * L / 100)), rel=1e-12)
    assert math.isinf(v[1].item())  # n = 4L: the bound is vacuous


@pytest.mark.parametrize("method", ["uniform", "robin", "robin-hood"])
def test_budget_exactly_spent_and_deterministic(method):
    j = synthetic_judge("discrete", K=30, seed=2)
    a = run_judge(method, j, [100, 900], reps=4, seed=5, device="cpu")
    b = run_judge(method, j, [100, 900], reps=4, seed=5, device="cpu")
    assert (a.counts.sum(axis=1) == 900).all() and (a.counts >= 1).all()
    np.testing.assert_array_equal(a.estimates, b.estimates)
    assert a.wce().shape == (2, 4)


def test_zero_variance_item():
    j = CategoricalJudge([[0, 1, 0], [0.3, 0.4, 0.3], [0.5, 0, 0.5]], [0.0, 1.0, 2.0], device="cpu")
    r = run_judge("robin", j, [50], reps=2, device="cpu")
    assert (r.counts[:, 0] == 1).all() and (r.errors()[0, :, 0] == 0).all()
    g = GaussianJudge([2.0, 1.0, 3.0], [0.0, 1.0, 0.5], device="cpu")
    h = run_judge("robin-hood", g, [200], reps=4, device="cpu", delta=0.5, ucb="delta")
    assert (h.counts[:, 0] == warmup_rounds("experiments", 3, 200, 0.5)).all()
    assert (h.errors()[0, :, 0] == 0).all()


def test_all_zero_estimated_variances_fall_back_to_round_robin():
    j = CategoricalJudge([[1.0, 0.0]] * 4, [0.0, 1.0], device="cpu")
    for method in ("robin", "robin-hood"):
        r = run_judge(method, j, [40], reps=2, device="cpu", delta=0.5, ucb="delta") if method == "robin-hood" \
            else run_judge(method, j, [40], reps=2, device="cpu")
        assert set(r.counts.ravel()) == {10}, method


def test_robin_hood_prefix_consistency():
    j = synthetic_judge("discrete", K=20, seed=4)
    both = run_judge("robin-hood", j, [600, 1500], reps=3, seed=1, device="cpu", ucb="delta")
    alone = run_judge("robin-hood", j, [600], reps=3, seed=1, device="cpu", ucb="delta")
    np.testing.assert_array_equal(both.estimates[0], alone.estimates[0])


def test_robin_hood_ask_tell_matches_simulation():
    j = synthetic_judge("gaussian", K=6, seed=1)
    sim = run_judge("robin-hood", j, [300], reps=1, seed=3, device="cpu", delta=0.2, ucb="delta")
    pol = RobinHood(6, 300, delta=0.2, ucb="delta", seed=3, device="cpu")
    g = KeyedStream.for_runs(3, 1, purpose=JUDGE_DRAWS)  # the judge draws of run_judge's run (its own stream)
    warm = pol.order[:, torch.arange(pol.warmup) % 6]
    vals = j.draw(warm, g)[0]
    for v in vals:
        pol.tell(pol.ask(), [v.item()])
    while not pol.done:
        req = pol.ask()
        pol.tell(req, j.draw(req.arms, g))
    np.testing.assert_allclose(pol.estimate()[0].numpy(), sim.estimates[0, 0])


def test_ask_tell_protocol_errors():
    pol = Uniform(3, 4, device="cpu")
    req = pol.ask()
    with pytest.raises(PendingRequestError):
        pol.ask()
    with pytest.raises(ValueError, match="finite"):
        pol.tell(req, [float("nan")])
    with pytest.raises(ValueError, match="shape"):
        pol.tell(req, [1.0, 2.0])
    pol.tell(req, [1.0])
    with pytest.raises(AlreadyToldError):
        pol.tell(req, [1.0])
    other = Uniform(3, 4, device="cpu").ask()
    with pytest.raises(UnknownRequestError):
        pol.tell(other, [1.0])
    for _ in range(3):
        pol.tell(pol.ask(), [0.0])
    with pytest.raises(BudgetExhaustedError):
        pol.ask()


@pytest.mark.parametrize("kwargs, msg", [
    (dict(budget=5), "smaller than the K"),
    (dict(budget=50, delta=0.0), "delta"),
    (dict(budget=50, delta=1.5), "delta"),
    (dict(budget=50, ucb="nope"), "UCB"),
])
def test_bad_parameters(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        RobinHood(10, **kwargs)


def test_robin_rejects_bad_variances():
    with pytest.raises(ValueError, match="shape"):
        Robin(3, 10, [1.0, 2.0])
    with pytest.raises(ValueError, match="non-negative"):
        Robin(2, 10, [1.0, -2.0])


def test_gaussian_judge_rejects_negative_sd():
    with pytest.raises(ValueError):
        GaussianJudge([0.0], [-1.0])


# ------------------------------------------------------------------ metrics
def test_metrics_hand_computed():
    assert wce(np.array([1.0, 2.5, 3.0]), np.array([1.5, 2.0, 3.0])) == 0.5
    assert first_crossing([10, 20, 30], [0.5, 0.3, 0.1], 0.2) == pytest.approx(25.0)
    assert first_crossing([10, 20], [0.5, 0.4], 0.1) != first_crossing([10, 20], [0.5, 0.4], 0.1)  # NaN
    h = np.array([1.0, 2.0, 3.0, np.nan])
    c = human_correlations(np.array([[1.0, 4.0, 9.0, 0.0]]), h)
    assert c["spearman"][0] == pytest.approx(1.0) and c["kendall"][0] == pytest.approx(1.0)
    assert c["pearson"][0] < 1.0


def test_theorem8_exact_tail_matches_closed_form():
    # n = 2: s^2 = sigma^2 chi2_1, the lower side is impossible when the threshold exceeds 1, and
    # P(chi2_1 >= x) = erfc(sqrt(x / 2)).
    c = 2 * math.sqrt(math.log(2 / 1e-6) / 2)
    assert T.theorem8_violation(2, 1e-6) == pytest.approx(special.erfc(math.sqrt((1 + c) / 2)), rel=1e-9)
    assert T.theorem8_violation(2, 1e-6) > 1e-6
    assert T.theorem8_violation(2, 1e-6, corrected=True) <= 1e-6


def test_lemma2_checker_finds_violations_and_correction_holds():
    out = T.check_lemma2(Ks=(3, 10), budget_factors=(1, 2, 10))
    assert out["lower_violations"] > 0
    assert out["corrected_violations"] == 0 and out["upper_violations"] == 0


# ------------------------------------------------------------------ CLI
def _pool(tmp_path, scores):
    p = tmp_path / "pool.npz"
    np.savez(p, scores=np.asarray(scores, dtype=float))
    return p


def test_cli_judge_writes_json(tmp_path):
    rng = np.random.default_rng(0)
    s = rng.integers(0, 5, (20, 8)).astype(float)
    s[3, 2] = np.nan
    out = tmp_path / "o.json"
    rc = cli_main(["judge", "--method", "robin-hood", "--judgments", str(_pool(tmp_path, s)), "--budget", "400",
                   "--reps", "3", "--seed", "1", "--json", str(out), "--quiet", "--ucb", "delta"])
    assert rc == 0
    d = json.loads(out.read_text())
    assert len(d["wce"]) == 3 and d["wce_mean"] == pytest.approx(np.mean(d["wce"]))
    assert d["n_invalid"] == 1 and d["K"] == 20
    assert [sum(a) for a in d["allocation"]] == [400, 400, 400]
    assert d["wall_s"] > 0


def test_cli_judge_csv_format(tmp_path):
    p = tmp_path / "j.csv"
    p.write_text("item,score\na,1\na,2\nb,3\nb,x\nb,3\n")
    pool = load_pool_file(p)
    assert pool.K == 2 and pool.meta["n_invalid"] == 1


@pytest.mark.parametrize("scores, extra, msg", [
    (np.ones((5, 1)), [], "repeat"),
    (np.full((3, 4), np.nan), [], "fewer than 2"),
    (np.ones((10, 4)), ["--budget", "5"], "smaller than"),
])
def test_cli_judge_bad_input_exits_2(tmp_path, capsys, scores, extra, msg):
    args = ["judge", "--method", "robin", "--judgments", str(_pool(tmp_path, scores)), "--json",
            str(tmp_path / "o.json"), "--quiet"]
    args += extra or ["--budget", "100"]
    assert cli_main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and msg in err and "\n" not in err


def test_cli_judge_empty_file(tmp_path, capsys):
    p = tmp_path / "e.csv"
    p.write_text("item,score\n")
    rc = cli_main(["judge", "--method", "uniform", "--judgments", str(p), "--budget", "10", "--json",
                   str(tmp_path / "o.json")])
    assert rc == 2 and "empty" in capsys.readouterr().err


# ------------------------------------------------------------------ real data (skipped without it)
def test_closerlook_matches_provenance_sanity_checks(data_dir, monkeypatch):
    from paperlib.data import load_closerlook

    monkeypatch.setenv("PAPERLIB_DATA", str(data_dir))
    pool = load_closerlook("rate_explain", "coherence")
    assert 353 <= pool.K <= 360 and pool.scores.shape[1] == 20 and pool.scale == (1, 3)
    # PROVENANCE.md: Pearson r of the 20-sample mean with the human mean, rate_explain/coherence 0.50
    keep = ~np.isnan(pool.human)
    r = np.corrcoef(pool.means()[keep], pool.human[keep])[0, 1]
    assert r == pytest.approx(0.50, abs=0.01)
    # PROVENANCE.md: 26% of items with SD 0, median SD 0.41
    assert (pool.variances() == 0).mean() == pytest.approx(0.26, abs=0.02)
    with pytest.raises(JudgeDataError, match="unknown attribute"):
        load_closerlook("rate_explain", "fluency")


def test_llmrubric_distributions(data_dir, monkeypatch):
    from paperlib.data import load_llmrubric

    monkeypatch.setenv("PAPERLIB_DATA", str(data_dir))
    d = load_llmrubric("synth", "Q0")
    assert d.K == 225
    np.testing.assert_allclose(d.probs.sum(axis=1), 1.0, atol=1e-12)
    assert np.all((d.means() >= 1) & (d.means() <= 4))
    assert np.isfinite(d.human).sum() >= 200 and np.nanmin(d.human) >= 1
