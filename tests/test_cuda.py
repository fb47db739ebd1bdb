"""Every method on CUDA: the same contract as on CPU (exact budget, no pair twice, tensors on the device) and the
same law of results. Random streams differ between devices (``torch.Generator`` per device type), so the law is
compared by Fisher's exact test on P(best found) against the CPU run of the same method and seed.

Skipped where no CUDA device is present (CI); on a GPU machine: ``OMP_NUM_THREADS=2 pytest -m cuda -n 8 tests``
(``benchmarks/gpu_session.sh tests`` does that and the rest of the suite with CUDA as the default device).
"""

import numpy as np
import pytest
import torch
from scipy.stats import fisher_exact

from paperlib.data import ScoreMatrix
from paperlib.policies import JUDGE, MATRIX, METHODS, make_policy, names
from paperlib.simulate import run_judge, simulate
from paperlib.simulate.judges import synthetic_judge

pytestmark = [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

BACKBONE = set(names(MATRIX, "backbone"))
LRF = {"ucbe-lrf", "ucbe-lrf-score-only", "lrf"}
# 24 methods x 2 devices x 2 budgets: Bonferroni over the comparisons at family-wise 1%
ALPHA = 0.01 / 48


def _case(seed=0):
    """A 12 x 600 binary matrix from sigmoid(b_i + u_i . v_j) and its true example factors (plus an offset column)."""
    rng = np.random.default_rng(seed)
    n, m, r = 12, 600, 2
    u, v, b = rng.normal(size=(n, r)), rng.normal(size=(m, r)), rng.normal(0, 0.5, size=n)
    b[0] += 0.4
    scores = (rng.random((n, m)) < 1 / (1 + np.exp(-(b[:, None] + u @ v.T)))).astype(np.float32)
    return ScoreMatrix.from_array(scores, kind="synthetic", name="cuda-case"), np.hstack([v, np.ones((m, 1))])


def _params(method, v):
    p = {"batch_size": 8}
    if method in BACKBONE and method != "ucbe-batch":
        p |= {"v": v, "refit_every": 20}
    if method in LRF:
        p |= {"ensemble": 8}
    if METHODS[method].needs_costs:
        p |= {"costs": np.linspace(1.0, 0.1, 12), "epsilon": 0.1}
    if METHODS[method].takes_prior:
        p |= {"prior": np.random.default_rng(11).random((5, v.shape[0]))}
    return p


@pytest.mark.parametrize("method", names(MATRIX))
def test_cuda_ask_tell_spends_the_exact_budget_without_repeats(method):
    mat, v = _case()
    n, m = mat.shape
    budget, R = n * m // 4 + 5, 4
    pol = make_policy(method, n, m, budget, reps=R, seed=0, device="cuda", **_params(method, v))
    s = torch.tensor(mat.scores, device="cuda")
    seen = torch.zeros(R, n, m, dtype=torch.int32, device="cuda")
    while not pol.done:
        req = pol.ask()
        assert req.rows.device.type == req.cols.device.type == "cuda"
        seen[torch.arange(R, device="cuda")[:, None].expand_as(req.rows), req.rows, req.cols] += 1
        pol.tell(req, s[req.rows, req.cols])
    assert pol.spent == budget
    assert int(seen.sum()) == R * budget and int(seen.max()) == 1
    est = pol.estimate()
    assert est.device.type == "cuda" and est.shape == (R, n)


@pytest.mark.slow
@pytest.mark.parametrize("method", names(MATRIX))
def test_cuda_finds_the_best_as_often_as_cpu(method):
    mat, v = _case()
    n, m = mat.shape
    budgets = [n * m // 8, n * m // 3]
    R = 60 if method in LRF else 300
    res = {dev: simulate(method, mat, budgets, reps=R, seed=5, device=dev, progress=False, **_params(method, v))
           for dev in ("cpu", "cuda")}
    for c in range(len(budgets)):
        hits = {dev: int((r.best[c] == r.true_best).sum()) for dev, r in res.items()}
        p = fisher_exact([[hits["cpu"], R - hits["cpu"]], [hits["cuda"], R - hits["cuda"]]])[1]
        assert p > ALPHA, (method, budgets[c], hits)


@pytest.mark.slow
@pytest.mark.parametrize("method", names(JUDGE))
def test_cuda_judge_allocators_match_cpu_in_law(method):
    """Mean worst-case error over 100 runs: CPU and CUDA within 4 standard errors of their difference."""
    budgets = [3_000, 6_000]
    out = {}
    for dev in ("cpu", "cuda"):
        judge = synthetic_judge("discrete", K=300, seed=1, device=dev)
        res = run_judge(method, judge, budgets, reps=100, seed=2, device=dev)
        out[dev] = res.wce()
    for c in range(len(budgets)):
        a, b = out["cpu"][c], out["cuda"][c]
        se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        assert abs(a.mean() - b.mean()) <= 4 * se + 1e-12, (method, budgets[c], a.mean(), b.mean())
