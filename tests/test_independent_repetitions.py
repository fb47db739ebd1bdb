"""Repetitions of a batched run never interact: run r of ``reps=R, seed=s`` is exactly the run alone.

One property over the whole registry (a method is covered the day it is registered): repetition r of
``simulate(method, ..., reps=R, seed=s)`` is, bit for bit, the single run ``reps=1, seed=run_seeds(s, R)[r]``: the same
pick and the same estimate of every model at every checkpoint (every random number of run r comes from streams keyed
by its run seed, :mod:`paperlib.keyed`, and no decision reads another repetition). The same for every judge method
(estimates at every checkpoint and the final allocation), and for blocks: runs [a, b) run alone
(``first_run=a``) are those runs of the batch. Any quantity reduced over the repetitions that feeds a decision (the
smallest batch any repetition can take, as PULSE's ``_select`` once did), any draw sized by another repetition, or a
product whose rounding moves with R breaks it, and the test names the first repetition and checkpoint that differ
(``test_the_check_catches_a_coupling``).

The matrix has short rows (5 B + 5 examples), so that rows run out in short batches (where PULSE's coupling was), and
R = 12 runs per method: a comparison is exact, so a handful of runs that take both ways of each step suffice. On a
GPU, where float reductions need not be deterministic, the law test would be the check; this suite runs on the CPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from paperlib.data import low_rank_logistic
from paperlib.policies import JUDGE, MATRIX, METHODS, names, parse
from paperlib.simulate import run_judge, simulate, synthetic_judge
from paperlib.simulate.seeds import run_seeds

pytestmark = pytest.mark.slow

R = 12
SEED = 11
N, M, B = 6, 45, 8  # short rows of 5 B + 5, so that rows run out in short batches (where PULSE's coupling was)
BUDGETS = [48, 108, 148, 188]
PULSE_FAMILY = tuple(names(MATRIX, "backbone"))


def _matrix():
    return low_rank_logistic(N, M, gap=0.06, seed=3)


def _params(method):
    method = parse(method)[0]  # a variant id takes its method's settings
    if method in PULSE_FAMILY:
        v = {} if not METHODS[method].needs_factors else {"v": np.random.default_rng(0).normal(size=(M, 2)),
                                                           "refit_every": 3}
        return {"t0": 1, "batch_size": B, **v}
    if method in ("ucbe-lrf", "ucbe-lrf-score-only", "lrf"):
        return {"ensemble": 4, "init_sweeps": 3, "batch_size": 8}
    # batches of 4 for the one-pair-a-step methods: 4 times fewer steps, and the batched path is the one tested
    costs = {"costs": np.linspace(1.0, 0.2, N)} if METHODS[method].needs_costs else {}
    if METHODS[method].takes_prior:  # other models' scores on the same examples
        costs = {"prior": low_rank_logistic(6, M, gap=0.06, seed=4).scores}
    if method in ("ucbe", "ucbe-sync", "lucb", "lucb-pd", "lucb-cheap", "lucb-prior"):
        return {"batch_size": 4, **costs}
    return costs


def _same(a, b) -> bool:
    return np.array_equal(a, b, equal_nan=True)


def matrix_mismatch(method, mat, reps=R, **extra) -> str | None:
    """Where the batched run and its runs alone first differ (None: nowhere), and whether two blocks of the batch,
    each run alone with ``first_run``, are its runs."""
    params = {**_params(method), **extra}
    batched = simulate(method, mat, BUDGETS, reps=reps, seed=SEED, progress=False, device="cpu", **params)
    assert np.array_equal(batched.run_seeds, run_seeds(SEED, reps))
    for r, s in enumerate(batched.run_seeds):
        one = simulate(method, mat, BUDGETS, reps=1, seed=int(s), progress=False, device="cpu", **params)
        for c, budget in enumerate(BUDGETS):
            if one.best[c, 0] != batched.best[c, r] or not _same(one.estimates[c, 0], batched.estimates[c, r]):
                return (f"run {r} at budget {budget}: pick {batched.best[c, r]} in the batch, {one.best[c, 0]} alone; "
                        f"estimates differ by up to {np.nanmax(np.abs(one.estimates[c, 0] - batched.estimates[c, r])):.3g}")
    half = reps // 2
    block = simulate(method, mat, BUDGETS, reps=reps - half, seed=SEED, first_run=half, progress=False, device="cpu",
                     **params)
    if not (np.array_equal(block.best, batched.best[:, half:]) and _same(block.estimates, batched.estimates[:, half:])):
        return f"the block of runs [{half}, {reps}) run alone differs from those runs of the batch"
    return None


#: variants whose batches or draws take another path: the paper-literal PULSE, the rejection sampler to the end of a
#: row, UCB-E's pending-count batches
VARIANTS = ("pulse:convention=paper", "pulse:sampler=rejection", "naive-pooling:convention=paper",
            "ucbe:batch_mode=pending")


@pytest.mark.parametrize("method", list(names(MATRIX)) + list(VARIANTS))
def test_a_batched_repetition_is_exactly_its_run_alone(method):
    assert METHODS[parse(method)[0]].cls.keyed_streams, f"{method} draws from a generator shared by its repetitions"
    where = matrix_mismatch(method, _matrix())
    assert where is None, f"{method}: {where}"


@pytest.mark.parametrize("method", names(MATRIX))
def test_one_repetition_is_the_run(method):
    """R = 1 with seed s is run 0 of every batch with seed s (run_seeds[0] is the seed itself), bit for bit: compared
    with run 0 of a batch of 4, not with a second identical call (issue 76, item 7); and the comparison can fail: the
    run with another seed is another run."""
    mat = _matrix()
    one = simulate(method, mat, BUDGETS, reps=1, seed=5, progress=False, device="cpu", **_params(method))
    batch = simulate(method, mat, BUDGETS, reps=4, seed=5, progress=False, device="cpu", **_params(method))
    assert one.run_seeds.tolist() == [5] and batch.run_seeds[0] == 5
    np.testing.assert_array_equal(one.best[:, 0], batch.best[:, 0])
    np.testing.assert_array_equal(one.estimates[:, 0], batch.estimates[:, 0])
    other = simulate(method, mat, BUDGETS, reps=1, seed=6, progress=False, device="cpu", **_params(method))
    assert not np.array_equal(np.nan_to_num(other.estimates), np.nan_to_num(one.estimates))


JUDGE_BUDGETS = [48, 96, 192]


@pytest.mark.parametrize("method", names(JUDGE) + ["robin-hood:ucb=delta"])
def test_a_batched_judge_repetition_is_exactly_its_run_alone(method):
    """Every random number of a judge run (the policy's ties and the simulated judge's draws) is its own: run r of a
    batch has the estimates at every checkpoint and the allocation of its run alone, and a block run alone is those
    runs of the batch."""
    judge = synthetic_judge("discrete", K=12, seed=2, device="cpu")
    batched = run_judge(method, judge, JUDGE_BUDGETS, reps=R, seed=SEED, device="cpu")
    for r, s in enumerate(batched.run_seeds):
        one = run_judge(method, judge, JUDGE_BUDGETS, reps=1, seed=int(s), device="cpu")
        assert _same(one.estimates[:, 0], batched.estimates[:, r]), f"{method}: run {r}'s estimates differ"
        assert np.array_equal(one.counts[0], batched.counts[r]), f"{method}: run {r}'s allocation differs"
    block = run_judge(method, judge, JUDGE_BUDGETS, reps=5, seed=SEED, first_run=7, device="cpu")
    assert np.array_equal(block.run_seeds, batched.run_seeds[7:])
    assert _same(block.estimates, batched.estimates[:, 7:]) and np.array_equal(block.counts, batched.counts[7:])


def test_the_check_catches_a_coupling(monkeypatch):
    """The check has power: PULSE with its old batch rule (every repetition takes the smallest batch any of them
    can take) fails it, and so do streams whose counters move together (a draw for some repetitions moving all)."""
    from paperlib.policies.pulse import PULSE

    own = PULSE._batch_sizes
    monkeypatch.setattr(PULSE, "_batch_sizes", lambda self, pick, k: own(self, pick, k).amin().expand(self.reps))
    assert matrix_mismatch("pulse", _matrix()) is not None
    monkeypatch.undo()
    from paperlib.keyed import KeyedStream

    own_draw = KeyedStream.bits_at
    # one counter for the batch: a draw for some repetitions (a short row's fallback) moves every repetition's stream
    monkeypatch.setattr(KeyedStream, "bits_at", lambda self, rows, pos, advance=None: own_draw(self, rows, pos))
    assert matrix_mismatch("pulse:sampler=rejection", _matrix()) is not None
