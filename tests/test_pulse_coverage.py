"""Theorem 1 inside the running bandit: the exact conditional variance, the probe, the decision rule."""

import itertools

import numpy as np
import pytest
import torch

from paperlib.papers.pulse.coverage import batch_z_variance, coverage_probe
from paperlib.policies.pulse import PULSE, DoublyRobust


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_batch_z_variance_matches_enumeration_of_all_batches(k):
    rng = np.random.default_rng(k)
    resid = rng.normal(size=(1, 9))
    unobs = np.array([[True, False, True, True, True, False, True, True, True]])
    idx = np.flatnonzero(unobs[0])
    zs = [len(idx) / k * resid[0, list(b)].sum() for b in itertools.combinations(idx, k)]
    got = batch_z_variance(torch.tensor(resid), torch.tensor(unobs), k)
    assert got.item() == pytest.approx(np.var(zs), rel=1e-10)


def test_batch_z_variance_is_zero_when_the_batch_takes_all_of_u():
    resid = torch.tensor([[0.3, 0.9, 0.1]], dtype=torch.float64)
    assert batch_z_variance(resid, torch.ones(1, 3, dtype=torch.bool), 3).item() == 0.0


def small_run(cls, **extra):
    rng = np.random.default_rng(0)
    S = (rng.random((6, 40)) < rng.uniform(0.2, 0.8, (6, 1))).astype(np.float32)
    V = rng.normal(size=(40, 2)).astype(np.float32)
    pol = cls(6, 40, 6 * 4 + 60, reps=5, seed=3, v=V, batch_size=4, t0=1, refit_every=3, init_steps=5, loop_steps=2,
              **extra)
    St = torch.tensor(S)
    while not pol.done:
        req = pol.ask()
        pol.tell(req, St[req.rows, req.cols])
    return pol, S


def test_probe_runs_pulse_unchanged_and_records_every_step():
    pulse, _ = small_run(PULSE)
    probe, S = small_run(coverage_probe, scores=np.zeros((6, 40)))
    assert torch.equal(pulse.estimate(), probe.estimate())
    assert torch.equal(pulse.n_theta, probe.n_theta)
    assert (probe.observer.vz_sum >= 0).all()
    assert torch.equal(probe.observer.lam_steps + 1, probe.n_theta)  # every step after the warm-up was observed


def test_probe_warm_up_variance_is_the_without_replacement_formula():
    S = np.random.default_rng(0).random((6, 40))
    fresh = coverage_probe(6, 40, 6 * 4, scores=S, reps=2, seed=0, v=np.zeros((40, 2), np.float32), batch_size=4)
    req = fresh.ask()
    fresh.tell(req, torch.tensor(S, dtype=torch.float32)[req.rows, req.cols])
    m, k = 40, 4
    expected = m**2 * S.var(axis=1) * (m - k) / (k * (m - 1))
    np.testing.assert_allclose(fresh.observer.vz_sum[0].numpy(), expected, rtol=1e-6)


def test_adversarial_probe_flips_the_predictions():
    probe, _ = small_run(coverage_probe, scores=np.zeros((6, 40)), flip=True)
    pick = torch.zeros(5, dtype=torch.long)
    assert torch.allclose(probe.estimator.predictions(probe, pick), 1 - DoublyRobust().predictions(probe, pick))


def test_ratio_box_statistics_are_matplotlibs():
    """The per-job box statistics equal matplotlib's own ``boxplot_stats`` on the informative cells' ratios."""
    import numpy as np
    import pandas as pd
    from matplotlib.cbook import boxplot_stats

    from paperlib.papers.pulse.coverage import ratio_stats

    rng = np.random.default_rng(3)
    n = 500
    cells = pd.DataFrame({"pool": "p", "kind": np.repeat(["fitted", "adversarial"], n), "data": "synthetic",
                          "err": rng.exponential(0.05, 2 * n), "radius": rng.uniform(0.05, 1.5, 2 * n)})
    got = ratio_stats(cells).set_index("kind")
    for kind, g in cells[cells.radius < 1].groupby("kind"):
        ref = boxplot_stats((g.err / g.radius).to_numpy())[0]
        for key in ("q1", "med", "q3", "whislo", "whishi"):
            assert got.loc[kind, key] == pytest.approx(ref[key])
        assert got.loc[kind, "cells"] == len(g)


def test_summary_round_trips_through_csv(tmp_path):
    import pandas as pd

    from paperlib.papers.pulse.coverage import read_summaries, write_summary

    s = pd.DataFrame([dict(pool="p", kind="fitted", delta=0.1, informative_cells=10, violations=0, rate=0.0,
                           rate_lo=0.0, rate_hi=0.0, cells_significant=0, runs_any_ci=(0.0, 0.088))])
    write_summary(s, tmp_path / "a.csv")
    back = read_summaries([tmp_path / "a.csv"])
    assert back.runs_any_ci.iloc[0] == (0.0, 0.088)
    assert back.iloc[0].to_dict() == s.iloc[0].to_dict()


@pytest.mark.slow
def test_one_pool_job_equals_its_part_of_the_whole_check():
    """The workflow runs one job per pool; a pool's tables equal its rows of the all-pools check (seeds by position)."""
    import pandas as pd

    from paperlib.papers.pulse.coverage import coverage_checks, coverage_pools, pool_coverage
    from paperlib.pipeline.config import smoke_config

    cfg = smoke_config("pulse")
    cfg["datasets"] = ["synth_medium", "synth_easy"]
    cfg["gaps"] = {**cfg["gaps"], "synth_easy": ["full"]}
    cfg["theory"]["bandit"]["pools"] = ["synth_medium-full", "synth_easy-full"]
    pools = coverage_pools(cfg)
    assert pools == ["synth_medium-full", "synth_easy-full"]
    summary, ratios = coverage_checks(cfg, pools, device="cpu")
    one, one_r = pool_coverage(cfg, pools[-1], device="cpu")
    cols = [c for c in one.columns if c != "runs_any_ci"]
    pd.testing.assert_frame_equal(summary[summary.pool == pools[-1]][cols].reset_index(drop=True), one[cols])
    pd.testing.assert_frame_equal(ratios[ratios.pool == pools[-1]].reset_index(drop=True), one_r)


def test_coverage_in_blocks_is_the_coverage_of_one_batch(tmp_path):
    """Issue 67: Theorem 1's bandit check run as blocks of 4 runs (each its own call, saved and read back, Step 1
    read from the pool's fit) gives exactly the cells, summary and ratios of one batch of 10; a missing block is
    refused by name."""
    import pandas as pd

    from paperlib.papers.pulse import experiments as E
    from paperlib.papers.pulse.coverage import (
        coverage_block,
        coverage_blocks,
        load_cells,
        pool_coverage_from_cells,
        save_cells,
    )
    from paperlib.pipeline.config import smoke_config

    cfg = smoke_config("pulse")
    pool = cfg["theory"]["bandit"]["pools"][0]
    fit = E.fit_pool(cfg, pool, device="cpu")
    whole = coverage_block(cfg, pool, 0, fit, device="cpu")  # no rep_block: one block of all 10 runs
    blocked = {**cfg, "rep_block": 4}
    assert coverage_blocks(blocked) == [0, 1, 2]
    for b in (2, 0, 1):
        save_cells(tmp_path / f"b{b}.npz", coverage_block(blocked, pool, b, fit, device="cpu"))
    cells = pd.concat([load_cells(tmp_path / f"b{b}.npz") for b in range(3)], ignore_index=True)
    key = ["kind", "budget", "run", "model"]
    cols = [*key, "K", "err", "V", "lam", "n_examples", "pool", "data"]
    pd.testing.assert_frame_equal(cells.sort_values(key).reset_index(drop=True)[cols],
                                  whole.sort_values(key).reset_index(drop=True)[cols], check_dtype=False)
    a, ra = pool_coverage_from_cells(blocked, pool, cells)
    b, rb = pool_coverage_from_cells(cfg, pool, whole)
    keep = [c for c in a.columns if c != "runs_any_ci"]
    pd.testing.assert_frame_equal(a[keep], b[keep])
    pd.testing.assert_frame_equal(ra, rb)
    # issue 74, item 3: each block's file names the machine that made it, and the pool's summary names its machines
    from paperlib.device import describe
    from paperlib.keyed import STREAMS

    here = describe(torch.device("cpu"))
    assert set(cells.machine) == {here} and set(a.machine) == {here} and set(a.streams) == {STREAMS}
    two = pd.concat([cells[cells.run < 4], cells[cells.run >= 4].assign(machine="NVIDIA H200")], ignore_index=True)
    assert set(pool_coverage_from_cells(blocked, pool, two)[0].machine) == {"; ".join(sorted(["NVIDIA H200", here]))}
    with pytest.raises(ValueError, match="do not hold runs 0..9"):
        pool_coverage_from_cells(blocked, pool, cells[cells.run >= 4])


def test_a_block_saved_before_the_machine_column_still_loads(tmp_path):
    """Blocks committed before 2026-12-05 store only pool and data in their meta; they load, without a machine."""
    from paperlib.papers.pulse.coverage import KINDS, load_cells

    np.savez_compressed(tmp_path / "old.npz", kinds=np.asarray(KINDS), kind=np.zeros(2, np.int8),
                        budget=np.array([10, 20]), run=np.zeros(2, np.int32), model=np.arange(2, dtype=np.int32),
                        K=np.ones(2, np.int32), err=np.zeros(2), V=np.ones(2), lam=np.ones(2), n_examples=5,
                        meta=np.asarray(["bench1-full", "real"]))
    cells = load_cells(tmp_path / "old.npz")
    assert "machine" not in cells and list(cells.pool.unique()) == ["bench1-full"] and list(cells.kind) == [KINDS[0]] * 2
