"""ROBIN-HOOD-EB (ours): the empirical-Bernstein variance bound, and the starvation of ROBIN-HOOD it repairs."""

import math

import numpy as np
import pytest
import torch
from scipy import stats

from paperlib.policies.allocation import eb_variance_ucb
from paperlib.policies.registry import label, method_id, parse
from paperlib.simulate import CategoricalJudge, GaussianJudge, run_judge


def test_bound_hand_computed_and_never_zero():
    var = torch.tensor([0.0, 0.25, 0.0], dtype=torch.float64)
    n = torch.tensor([5.0, 5.0, 1.0], dtype=torch.float64)
    L = math.log(10.0)
    got = eb_variance_ucb(var, n, L, span=1.0)
    # n = 5, sample variance 0: (0 + sqrt(2 L / 4))^2 = L / 2, capped at 1/4
    assert got[0].item() == pytest.approx(min(L / 2, 0.25))
    # n = 5, biased variance 0.25 -> unbiased 0.3125: capped at 1/4
    assert got[1].item() == pytest.approx(0.25)
    assert math.isinf(got[2].item())
    big = eb_variance_ucb(torch.zeros(1, dtype=torch.float64), torch.tensor([1e6], dtype=torch.float64), L, 1.0)
    assert 0 < big.item() == pytest.approx(2 * L / (1e6 - 1))


@pytest.mark.slow
@pytest.mark.parametrize("p", [0.02, 0.3])
def test_bound_covers_the_variance_at_its_level(p):
    """Bernoulli(p) samples of size 6: the bound at L = log(1/0.05) is below p(1-p) in at most 5% of 20,000 draws
    (one-sided exact binomial test at 1%); the Eq. (6)-style plug-in that collapses to 0 fails far more often
    when p is small."""
    rng = np.random.default_rng(0)
    n, reps, L = 6, 20_000, math.log(1 / 0.05)
    x = (rng.random((reps, n)) < p).astype(np.float64)
    var = torch.as_tensor(x.var(axis=1))
    ub = eb_variance_ucb(var, torch.full((reps,), float(n), dtype=torch.float64), L, 1.0).numpy()
    misses = int((ub < p * (1 - p)).sum())
    assert stats.binomtest(misses, reps, 0.05, alternative="greater").pvalue > 0.01, misses
    assert ((var.numpy() == 0).mean() > 0.5) == (p == 0.02)


def test_id_label_and_scale_is_required():
    mid = method_id("robin-hood-eb", delta=0.007, ucb="eq6")
    assert parse(mid) == ("robin-hood-eb", {"delta": 0.007, "ucb": "eq6"}) and "EB" in label(mid)
    g = GaussianJudge([0.0, 1.0], [1.0, 1.0], device="cpu")
    with pytest.raises(ValueError, match="bounded"):
        run_judge("robin-hood-eb", g, [40], device="cpu")


def test_items_whose_first_samples_agree_are_not_starved():
    """Item 0 is a rare-event Bernoulli (p = 0.05): its warm-up samples are usually all 0, so ROBIN-HOOD's Eq. (6)
    bound is 0 and it is never queried again; the EB bound keeps asking. The EB policy also spends the budget
    exactly and is deterministic per seed."""
    probs = [[0.95, 0.05]] + [[0.5, 0.5]] * 9
    j = CategoricalJudge(probs, [0.0, 1.0], device="cpu")
    B = 2000
    rh = run_judge("robin-hood", j, [B], reps=40, seed=1, device="cpu", delta=0.1, ucb="delta", t0=4)
    eb = run_judge("robin-hood-eb", j, [B], reps=40, seed=1, device="cpu", delta=0.1, ucb="delta")
    first_finite = math.floor(4 * math.log(1 / 0.1)) + 1  # Eq. (6) is vacuous while n <= 4L
    starved = (rh.counts[:, 0] == first_finite).mean()  # expected 0.95^10 = 0.60 of the runs
    assert starved > 0.35
    assert (eb.counts[:, 0] > 10).all()
    assert (eb.counts.sum(axis=1) == B).all()
    again = run_judge("robin-hood-eb", j, [B], reps=40, seed=1, device="cpu", delta=0.1, ucb="delta")
    np.testing.assert_array_equal(again.counts, eb.counts)


def test_variance_proportional_allocation_on_bounded_judge():
    """With well-separated variances the EB policy still allocates like ROBIN: more queries to noisier items."""
    probs = [[0.5, 0.5]] * 3 + [[0.9, 0.1]] * 3
    j = CategoricalJudge(probs, [0.0, 1.0], device="cpu")
    eb = run_judge("robin-hood-eb", j, [3000], reps=8, seed=2, device="cpu", delta=0.1, ucb="delta")
    assert eb.counts[:, :3].mean() > eb.counts[:, 3:].mean() * 1.3


def test_eb_ledger_row_counts_cells_and_the_oracle():
    """Two real cells with hand-made WCE curves: the row counts cells within 60% for EB, ROBIN-HOOD and ROBIN."""
    import pandas as pd

    from paperlib.papers.robin.claims import eb_claim

    main, eb = "robin-hood:delta=0.007:ucb=delta", "robin-hood-eb:delta=0.007:ucb=eq6"
    fracs = [0.2, 0.4, 0.6, 0.8, 1.0]
    curves = {  # Uniform ends at 0.30 in both cells
        "uniform": [0.5, 0.45, 0.4, 0.35, 0.30],
        "robin": {"a": [0.4, 0.3, 0.25, 0.2, 0.2], "b": [0.5, 0.4, 0.35, 0.3, 0.28]},  # 0.4 in a, 0.8 in b
        main: [0.5, 0.4, 0.35, 0.32, 0.31],  # never
        eb: {"a": [0.45, 0.35, 0.3, 0.25, 0.22], "b": [0.5, 0.4, 0.35, 0.32, 0.29]},  # 0.6 in a, 1.0 in b
    }
    rows = []
    for cell in ("a", "b"):
        for mid, wce in curves.items():
            wce = wce[cell] if isinstance(wce, dict) else wce
            for f, w in zip(fracs, wce, strict=True):
                for rep in range(2):
                    rows.append({"cell": cell, "kind": "real", "K": 10, "method_id": mid, "budget": int(f * 100),
                                 "budget_frac": f, "rep": rep, "wce": w, "mae": 0.1})
    c = eb_claim(pd.DataFrame(rows), {"reps": 2}, main, eb)
    assert "<= 60% of the budget in 1/2 cells (ROBIN-HOOD: 0/2)" in c.measured
    assert "known variances (the oracle allocation): <= 60% in 1/2 cells, median 0.60" in c.measured
    # 1/2 < 80% of the cells: the goal is missed (being ahead of ROBIN-HOOD is said in words, not graded; issue 73)
    assert c.verdict == "fails"
