import math

import numpy as np
import pytest
from scipy.stats import binomtest

from paperlib.metrics import (
    budget_to_reach,
    gap_set,
    hardness_h1,
    mcnemar_set,
    ndcg_at_k,
    top1_precision,
)
from paperlib.papers.zhou.theory import corollary1_a, corollary1_bound, smallest_informative_budget


def test_h1_hand_computed():
    # gaps 0.1 and 0.5 -> 1/0.01 + 1/0.25 = 104
    assert hardness_h1([0.9, 0.8, 0.4]) == pytest.approx(104.0)
    assert hardness_h1([0.5, 0.5, 0.1]) == math.inf


def test_gap_set_and_precision():
    mu = [0.700, 0.6995, 0.69, 0.5]
    assert gap_set(mu, 0.001).tolist() == [0, 1]
    assert gap_set(mu, 0.01).tolist() == [0, 1, 2]
    assert top1_precision(np.array([0, 1, 3, 2]), gap_set(mu, 0.001)) == 0.5


def test_mcnemar_set_matches_exact_binomial_test():
    best = np.array([1] * 30 + [0] * 10)
    close = best.copy()
    close[:3] = 0          # discordant 3 vs 0 -> p = 0.25
    far = best.copy()
    far[:15] = 0           # discordant 15 vs 0 -> p = 6.1e-5
    s = np.stack([best, close, far]).astype(float)
    assert binomtest(3, 3, 0.5).pvalue == pytest.approx(0.25)
    assert mcnemar_set(s, 0.1).tolist() == [0, 1]
    assert mcnemar_set(s, 0.01).tolist() == [0, 1]
    assert binomtest(15, 15, 0.5).pvalue == pytest.approx(2 * 0.5**15)
    assert mcnemar_set(s, 1e-4).tolist() == [0, 1]
    assert mcnemar_set(s, 1e-5).tolist() == [0, 1, 2]


def test_ndcg_hand_computed():
    mu = np.array([0.9, 0.8, 0.7])
    assert ndcg_at_k(np.array([0.9, 0.8, 0.7]), mu, k=2) == pytest.approx(1.0)
    # k=2: rel = [2, 1, 0]; ranking (1, 0): 1/log2(2) + 2/log2(3) vs ideal 2 + 1/log2(3)
    got = ndcg_at_k(np.array([0.5, 0.6, 0.1]), mu, k=2)
    assert got == pytest.approx((1 + 2 / np.log2(3)) / (2 + 1 / np.log2(3)))
    assert ndcg_at_k(np.array([0.0, 0.1, 0.9]), mu, k=1) == 0.0
    batch = ndcg_at_k(np.array([[0.9, 0.8, 0.7], [0.0, 0.1, 0.9]]), mu, k=1)
    assert batch.tolist() == [1.0, 0.0]


def test_budget_to_reach_requires_staying():
    import pandas as pd

    t = pd.DataFrame(dict(dataset="d", method="x", metric="p", budget_frac=[0.1, 0.2, 0.3, 0.4],
                          value=[1.0, 0.9, 1.0, 1.0]))
    assert budget_to_reach(t, "p").budget_frac.item() == 0.3


def test_corollary1_formulas():
    assert corollary1_a(1000, 10, 100.0) == pytest.approx(25 / 36 * 990 / 100)
    assert corollary1_bound(1000, 10, 100.0) == pytest.approx(1 - 2 * 1000 * 10 * math.exp(-990 / 1800))
    t = smallest_informative_budget(5, 30.0)
    assert corollary1_bound(int(t), 5, 30.0) > 0 >= corollary1_bound(int(t) - 2, 5, 30.0)


def test_confidence_budget_is_where_accuracy_stays_above_the_level():
    from paperlib.metrics import confidence_budget

    fracs = [0.01, 0.02, 0.03, 0.04, 0.05]
    acc = [0.5, 0.92, 0.88, 0.95, 0.97]
    assert confidence_budget(fracs, acc, 0.9) == 0.04  # 0.02 reaches 0.9 but 0.03 falls back below
    assert confidence_budget(fracs, acc, 0.8) == 0.02
    assert confidence_budget(fracs, acc, 0.5) == 0.01
    assert np.isnan(confidence_budget(fracs, acc, 1.0))
    with pytest.raises(ValueError, match="increasing"):
        confidence_budget([0.02, 0.01], [1, 1], 0.9)
