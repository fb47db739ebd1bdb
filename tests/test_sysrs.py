"""SySRs (synchronized Successive Rejects, Lyu et al. 2026) and synchronized UCB-E."""

import math

import numpy as np
import pytest
import torch

from paperlib.data.synthetic import low_rank_logistic
from paperlib.policies import make_policy
from paperlib.policies.sysrs import sr_schedule


def logbar(k):
    return 0.5 + sum(1 / i for i in range(2, k + 1))


@pytest.mark.parametrize("K,T,m", [(5, 100, 1000), (10, 2000, 5000), (20, 400, 100), (7, 700, 100)])
def test_schedule_is_successive_rejects_within_the_budget(K, T, m):
    ns = sr_schedule(K, T, m)
    cost = sum(ns) + ns[-1]
    assert len(ns) == K - 1 and ns == sorted(ns) and ns[0] >= 1 and max(ns) <= m
    assert T - K < cost <= T  # the budget is used up to rounding
    classic = [math.ceil((T - K) / (logbar(K) * (K + 1 - k))) for k in range(1, K)]
    if max(classic) <= m:  # no cap binds: within rounding of Audibert et al.'s n_k
        assert all(abs(a - b) <= 2 + 0.05 * b for a, b in zip(ns, classic, strict=True))


def test_schedule_caps_phases_and_spreads_the_spare_budget():
    ns = sr_schedule(5, 5 * 30 - 3, 30)
    assert ns[-2:] == [30, 30] and ns[0] < 30
    assert sr_schedule(5, 5 * 30, 30) == [30] * 4  # the whole matrix
    with pytest.raises(ValueError, match="one evaluation"):
        sr_schedule(5, 4, 30)


def run(pol, scores):
    s = torch.tensor(scores)
    asked = []
    while not pol.done:
        req = pol.ask()
        asked.append((req.rows.clone(), req.cols.clone()))
        pol.tell(req, s[req.rows, req.cols])
    return asked


@pytest.mark.parametrize("budget", [600, 1234, 12 * 200])
def test_sysrs_is_synchronized_rejects_the_worst_and_spends_the_budget(budget):
    mat = low_rank_logistic(12, 200, rank=2, gap=0.05, seed=1)
    R = 6
    pol = make_policy("sysrs", 12, 200, budget, reps=R, seed=2, batch_size=37)
    asked = run(pol, mat.scores)
    rows = torch.cat([a[0] for a in asked], 1)
    cols = torch.cat([a[1] for a in asked], 1)
    assert rows.shape[1] == budget
    for r in range(R):
        pairs = set(zip(rows[r].tolist(), cols[r].tolist(), strict=True))
        assert len(pairs) == budget  # no pair twice
        order = {}
        for i, j in zip(rows[r].tolist(), cols[r].tolist(), strict=True):
            order.setdefault(i, []).append(j)
        seqs = sorted(order.values(), key=len)
        longest = seqs[-1]
        for seq in seqs[:-1] if budget < 12 * 200 else seqs:
            if len(seq) <= pol.schedule[-1]:
                assert seq == longest[: len(seq)]  # every model's j-th example is the run's j-th shared example
    assert int((~pol.alive).sum(1).min()) == 11  # one survivor per run


def test_sysrs_rejects_the_lowest_mean_of_each_phase():
    """Replay one run phase by phase: the rejected model has the lowest sum over the shared examples so far."""
    mat = low_rank_logistic(6, 300, rank=2, gap=0.05, seed=4)
    pol = make_policy("sysrs", 6, 300, 900, reps=1, seed=0, batch_size=1000)
    s = torch.tensor(mat.scores)
    alive_before = pol.alive.clone()
    while not pol.done:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
        if (pol.alive != alive_before).any():
            gone = int((alive_before & ~pol.alive).nonzero()[0, 1])
            sums = pol.state.sums[0]
            survivors = alive_before[0].nonzero()[:, 0]
            assert sums[gone] == sums[survivors].min()
            alive_before = pol.alive.clone()


@pytest.mark.slow
def test_sysrs_finds_a_clear_best_more_often_than_chance():
    """A 10 x 400 matrix with a 0.1 gap, 20% budget, 200 runs: the survivor is the best in > 90% (exact 95% bound)."""
    from paperlib.stats import clopper_pearson

    mat = low_rank_logistic(10, 400, rank=2, gap=0.1, seed=3)
    pol = make_policy("sysrs", 10, 400, 800, reps=200, seed=1)
    run(pol, mat.scores)
    k = int((pol.best().numpy() == mat.best).sum())
    assert clopper_pearson(k, 200)[0] > 0.9


def test_ucbe_sync_uses_one_shared_order_per_run():
    mat = low_rank_logistic(8, 100, rank=2, gap=0.05, seed=2)
    R = 5
    pol = make_policy("ucbe-sync", 8, 100, 300, reps=R, seed=0, batch_size=8)
    asked = run(pol, mat.scores)
    rows = torch.cat([a[0] for a in asked], 1)
    cols = torch.cat([a[1] for a in asked], 1)
    shared = [pol.order(torch.tensor(r), torch.tensor(3), torch.arange(100)).tolist() for r in range(R)]
    assert shared[0] != shared[1]  # one order per run, not one for all runs
    for r in range(R):
        seqs = {}
        for i, j in zip(rows[r].tolist(), cols[r].tolist(), strict=True):
            seqs.setdefault(i, []).append(j)
        assert all(set(v) == set(shared[r][: len(v)]) for v in seqs.values())
    assert sorted(shared[0]) == list(range(100))


def test_simulate_runs_sysrs_once_per_budget():
    """SySRs' phases depend on the budget, so each checkpoint is its own run: checkpoint b of a multi-budget
    simulation equals a simulation with budget b alone (same seed)."""
    from paperlib.simulate import simulate

    mat = low_rank_logistic(8, 150, rank=2, gap=0.05, seed=5)
    both = simulate("sysrs", mat, [120, 600], reps=20, seed=3, device="cpu", progress=False)
    alone = simulate("sysrs", mat, [120], reps=20, seed=3, device="cpu", progress=False)
    assert (both.best[0] == alone.best[0]).all() and both.budgets.tolist() == [120, 600]
    assert both.best.shape == (2, 20)


@pytest.mark.parametrize("n,m", [(80, 437), (9, 31), (83, 500)])
def test_every_budget_of_a_grid_is_spent_exactly(n, m):
    """Rounding leftovers (several phases can grow at once) are spent without asking a pair twice."""
    mat = low_rank_logistic(n, m, rank=2, gap=0.02, seed=0)
    for frac in (0.01, 0.07, 0.13, 0.29, 0.5, 0.99):
        budget = max(n, int(round(frac * n * m)))
        pol = make_policy("sysrs", n, m, budget, reps=2, seed=1)
        asked = run(pol, mat.scores)
        rows = torch.cat([a[0] for a in asked], 1)
        cols = torch.cat([a[1] for a in asked], 1)
        assert rows.shape[1] == budget
        assert len(set(zip(rows[0].tolist(), cols[0].tolist(), strict=True))) == budget


def test_auto_is_the_documented_choice():
    """make_policy('auto') is SySRs (the race's most reliable method); simulate and the CLI accept it."""
    from paperlib.policies.sysrs import SySRs
    from paperlib.simulate import simulate

    pol = make_policy("auto", 10, 100, 300)
    assert isinstance(pol, SySRs) and pol.name == "auto"
    mat = low_rank_logistic(10, 100, rank=2, gap=0.05, seed=1)
    a = simulate("auto", mat, [300], reps=10, seed=4, device="cpu", progress=False)
    b = simulate("sysrs", mat, [300], reps=10, seed=4, device="cpu", progress=False)
    assert (a.best == b.best).all()
    # with a train matrix (its example factors v) the recommendation is the same method: the split race found no
    # PULSE-family method better; v must still fit the matrix
    c = simulate("auto", mat, [300], reps=10, seed=4, device="cpu", progress=False, v=np.ones((100, 3)))
    assert (c.best == b.best).all()
    with pytest.raises(ValueError, match="shape"):
        make_policy("auto", 10, 100, 300, v=np.ones((99, 3)))


def test_halving_rounds_and_schedule_by_hand():
    """Karnin et al.'s Sequential Halving with T = 240, K = 8: three rounds of 80 calls over 8, 4, 2 models, i.e.
    10, 20, 40 new examples per survivor. With a cap of m = 40 the spare budget moves to the first rounds:
    8 x 20 + 4 x 20 = 240 brings round two to the cap."""
    from paperlib.policies.sysrs import halving_survivors, plan_cost, sh_schedule

    assert halving_survivors(8) == [8, 4, 2]
    assert halving_survivors(80) == [80, 40, 20, 10, 5, 3, 2]
    assert halving_survivors(2) == [2]
    assert sh_schedule(8, 240, 100) == [10, 30, 70]
    assert sh_schedule(8, 240, 40) == [20, 40, 40]
    assert plan_cost([20, 40, 40], [8, 4, 2]) == 240
    with pytest.raises(ValueError, match="at least 2 models"):
        sh_schedule(1, 10, 10)
    assert sh_schedule(8, 14, 100) == [1, 2, 3]  # the least plan: 8 + 4 + 2 calls
    with pytest.raises(ValueError, match="one evaluation"):
        sh_schedule(8, 13, 100)


@pytest.mark.parametrize("n,m,budget", [(8, 100, 240), (11, 60, 300), (80, 437, 3146)])
def test_sysh_keeps_the_better_half_on_shared_examples(n, m, budget):
    """Replay runs round by round: the survivors of a round are the ceil(half) with the largest sums over the
    shared examples (no rejected model above a kept one), every survivor has the same count, and the budget is
    spent without a pair twice."""
    from paperlib.policies.sysrs import halving_survivors

    mat = low_rank_logistic(n, m, rank=2, gap=0.05, seed=7)
    R = 3
    pol = make_policy("sysh", n, m, budget, reps=R, seed=1, batch_size=29)
    s = torch.tensor(mat.scores)
    sizes, seen = [n], []
    alive_before = pol.alive.clone()
    while not pol.done:
        req = pol.ask()
        seen.append((req.rows, req.cols))
        pol.tell(req, s[req.rows, req.cols])
        if (pol.alive != alive_before).any() and pol.phase <= len(pol.schedule):
            for r in range(R):
                kept, gone = pol.alive[r], alive_before[r] & ~pol.alive[r]
                sums, counts = pol.state.sums[r], pol.state.counts[r]
                assert counts[alive_before[r]].unique().numel() == 1
                assert sums[gone].max() <= sums[kept].min()
            sizes.append(int(pol.alive[0].sum()))
            alive_before = pol.alive.clone()
    assert sizes == halving_survivors(n) + [1]
    rows = torch.cat([a for a, _ in seen], 1)
    cols = torch.cat([b for _, b in seen], 1)
    assert rows.shape[1] == budget
    for r in range(R):
        assert len(set(zip(rows[r].tolist(), cols[r].tolist(), strict=True))) == budget
