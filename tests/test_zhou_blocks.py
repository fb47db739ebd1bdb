"""Figure 3's blocks of repetitions (``zhou.rep_block``): sizes, seeds, and pooling.

Independent references: the pooled table is compared with :func:`paperlib.metrics.precision_table` applied to the
concatenated repetitions (a direct mean and ddof-1 standard error, not the pooling formula); a profile without
``rep_block`` must reproduce a plain ``simulate`` call with the seed the experiments have always used.
"""

import numpy as np
import pandas as pd
import pytest

from paperlib import data
from paperlib.metrics import equivalence_sets, precision_table, settle_table
from paperlib.papers.zhou import experiments as E
from paperlib.simulate import budgets_from_fracs, simulate
from paperlib.simulate.identification_run import SimResult


def cfg(**over):
    c = {"seed": 3, "methods": ["ucbe", "row-mean"], "reps": {"ucbe": 7, "row-mean": 3},
         "budget_fracs": [0.1, 0.3, 0.6], "params": {"ucbe": {"a": 1.0, "batch_size": 4}, "lrf_common": {}}}
    c.update(over)
    return c


def test_block_sizes_cover_every_repetition_once():
    assert E.rep_blocks(cfg(), "ucbe") == [7]  # no rep_block: one block
    assert E.rep_blocks(cfg(rep_block=3), "ucbe") == [3, 3, 1]
    assert E.rep_blocks(cfg(rep_block=3), "row-mean") == [3]
    assert E.n_blocks(cfg(rep_block=3)) == 3
    own = cfg(rep_block=3, rep_block_by_method={"ucbe": 7})  # ucbe's 7 runs as one block of their own
    assert E.rep_blocks(own, "ucbe") == [7] and E.rep_blocks(own, "row-mean") == [3] and E.n_blocks(own) == 1
    with pytest.raises(ValueError, match="block must be an integer in"):
        E.run_block(cfg(rep_block=3), "synth_tiny", 3, device="cpu", progress=False)


def test_without_rep_block_the_runs_are_the_historical_ones():
    mat = data.load("synth_tiny")
    table, settle = E.run_dataset(cfg(), "synth_tiny", device="cpu", progress=False)
    budgets = budgets_from_fracs(cfg()["budget_fracs"], *mat.shape)
    # the i-th method has always been seeded seed + 1000 i
    res = simulate("row-mean", mat, budgets, reps=3, seed=3 + 1000, device="cpu", progress=False)
    direct = precision_table(res, mat.scores)
    got = table[table.method == "row-mean"].reset_index(drop=True)
    np.testing.assert_allclose(got.value, direct.value)
    np.testing.assert_allclose(got.se, direct.se, equal_nan=True)
    assert (got.reps == 3).all()


def test_blocks_are_deterministic_and_order_free():
    c = cfg(rep_block=3)
    a = E.run_block(c, "synth_tiny", 1, device="cpu", progress=False)[0]
    E.run_block(c, "synth_tiny", 0, device="cpu", progress=False)
    b = E.run_block(c, "synth_tiny", 1, device="cpu", progress=False)[0]
    pd.testing.assert_frame_equal(a.drop(columns="wall_s"), b.drop(columns="wall_s"))


def test_a_block_of_some_methods_is_their_rows_of_the_whole_block():
    """``methods=``: the rows of the named methods, each seeded from its position in the whole list (so a GPU job
    that runs the LRF family alone gives the runs it would give within the block); an unknown method is refused."""
    c = cfg(rep_block=3)
    whole, whole_settle = E.run_block(c, "synth_tiny", 0, device="cpu", progress=False)
    part, part_settle = E.run_block(c, "synth_tiny", 0, device="cpu", progress=False, methods=["row-mean"])
    assert set(part.method) == {"row-mean"} == set(part_settle.method)
    want = whole[whole.method == "row-mean"].reset_index(drop=True)
    pd.testing.assert_frame_equal(part.drop(columns="wall_s"), want.drop(columns="wall_s"))
    pd.testing.assert_frame_equal(part_settle, whole_settle[whole_settle.method == "row-mean"].reset_index(drop=True))
    with pytest.raises(ValueError, match="not among"):
        E.run_block(c, "synth_tiny", 0, device="cpu", progress=False, methods=["lrf"])
    with pytest.raises(ValueError, match="no block 1"):  # row-mean's 3 runs are one block
        E.run_block(c, "synth_tiny", 1, device="cpu", progress=False, methods=["row-mean"])


def test_one_block_computed_elsewhere_replaces_a_methods_blocks(tmp_path):
    """adopt_one_block: after a profile gives ucbe its 7 runs as one block (rep_block_by_method), a block computed
    elsewhere replaces ucbe's rows in the block files, and pooling the files gives what run_dataset computes under
    the new profile directly; row-mean's blocks are untouched. Refusals come before any file is written."""
    before = cfg(rep_block=3, reps={"ucbe": 7, "row-mean": 9})
    after = cfg(rep_block=3, reps={"ucbe": 7, "row-mean": 9}, rep_block_by_method={"ucbe": 7})
    files = []
    for b in range(E.n_blocks(before)):
        t, s = E.run_block(before, "synth_tiny", b, device="cpu", progress=False)
        files.append((tmp_path / f"b{b}.csv", tmp_path / f"b{b}.settle.csv"))
        t.to_csv(files[-1][0], index=False)
        s.to_csv(files[-1][1], index=False)
    old = [p.read_text() for pair in files for p in pair]
    table, settle = E.run_block(after, "synth_tiny", 0, device="cpu", progress=False, methods=["ucbe"])
    with pytest.raises(ValueError, match="rep_block_by_method"):
        E.adopt_one_block(before, "synth_tiny", table, settle, files)
    with pytest.raises(ValueError, match="runs"):
        E.adopt_one_block(after, "synth_tiny", table.assign(reps=5), settle, files)
    with pytest.raises(ValueError, match="grid"):
        E.adopt_one_block(after, "synth_tiny", table[table.budget_frac > 0.1], settle, files)
    assert [p.read_text() for pair in files for p in pair] == old
    E.adopt_one_block(after, "synth_tiny", table, settle, files)
    pooled, pooled_settle = E.combine_blocks([pd.read_csv(c) for c, _ in files], [pd.read_csv(s) for _, s in files])
    direct, direct_settle = E.run_dataset(after, "synth_tiny", device="cpu", progress=False)
    cols = ["method", "budget", "metric", "value", "se", "reps"]
    key = ["method", "budget", "metric"]
    pd.testing.assert_frame_equal(pooled[cols].sort_values(key, ignore_index=True),
                                  direct[cols].sort_values(key, ignore_index=True))
    pd.testing.assert_frame_equal(pooled_settle.reset_index(drop=True), direct_settle.sort_values(
        ["method", "rep"], kind="stable", ignore_index=True)[pooled_settle.columns])
    assert set(pd.read_csv(files[2][0]).method) == {"row-mean"}


def _concat(results):
    first = results[0]
    return SimResult(method=first.method, dataset=first.dataset, kind=first.kind, budgets=first.budgets,
                     estimates=np.concatenate([r.estimates for r in results], axis=1),
                     best=np.concatenate([r.best for r in results], axis=1), true_means=first.true_means,
                     wall_s=0.0, seed=0, device="cpu")


def test_pooled_blocks_equal_the_table_of_all_repetitions():
    mat = data.load("synth_tiny")
    sets = equivalence_sets(mat.scores)
    n, m = mat.shape
    budgets = budgets_from_fracs([0.05, 0.2, 0.5], n, m)
    # blocks of 1, 4 and 2 repetitions (a block of one has no standard error of its own)
    runs = [simulate("ucbe", mat, budgets, reps=r, seed=s, device="cpu", progress=False, batch_size=2)
            for r, s in [(1, 11), (4, 12), (2, 13)]]
    tables, settles, start = [], [], 0
    for b, res in enumerate(runs):
        t = precision_table(res, mat.scores, sets)
        t["wall_s"], t["reps"], t["block"], t["H1"], t["n"], t["m"] = 1.0, res.reps, b, 0.0, n, m
        s = settle_table(res, sets[E.MAIN_METRIC], n, m)
        s["rep"] += start
        start += res.reps
        tables.append(t)
        settles.append(s)
    pooled, settle = E.combine_blocks(tables, settles)
    whole = _concat(runs)
    direct = precision_table(whole, mat.scores, sets)
    np.testing.assert_allclose(pooled.value, direct.value, atol=1e-12)
    np.testing.assert_allclose(pooled.se, direct.se, atol=1e-12)
    assert (pooled.reps == 7).all() and (pooled.wall_s == 3.0).all()
    pd.testing.assert_series_equal(settle.settle_frac, settle_table(whole, sets[E.MAIN_METRIC], n, m).settle_frac)
    with pytest.raises(ValueError, match="listed twice"):
        E.combine_blocks(tables + tables[:1], settles)


def test_a_block_and_its_pooled_table_record_their_machine_and_streams():
    """Issue 74, item 3: a Figure 3 block made today names the machine and the streams on every row, and pooling
    blocks keeps them, joining distinct machines (a block run elsewhere); blocks that record neither pool as before."""
    from paperlib.device import describe, get_device

    t, s = E.run_block(cfg(rep_block=3), "synth_tiny", 0, device="cpu", progress=False)
    machine = describe(get_device("cpu"))
    assert set(t.machine) == {machine} and t.streams.notna().all() and t.streams.nunique() >= 1
    other = t.assign(machine="NVIDIA H200", block=1)
    pooled, _ = E.combine_blocks([t, other], [s, s.assign(rep=s.rep + 3)])
    assert set(pooled.machine) == {"; ".join(sorted({machine, "NVIDIA H200"}))}
    assert set(pooled.streams) == set(t.streams)
    old, _ = E.combine_blocks([t.drop(columns=["machine", "streams"])], [s])
    assert "machine" not in old and "streams" not in old


@pytest.mark.slow
def test_figure4_tables_record_their_machine_and_streams():
    """Issue 74, item 3: Figure 4's ablation and Sec. 4.5's timing runs name, on every row, the machine and the
    streams that made them (the smoke profile's ablation, cut to one factor value each so that it runs in seconds)."""
    import yaml

    from paperlib.device import describe, get_device

    z = yaml.safe_load(open("paperlib/config/smoke.yaml"))["zhou"]
    ab = {**z["ablation"], **{f: z["ablation"][f][:1] for f in ("batch_size", "ensemble", "eta", "warmup_frac", "rank")},
          "time_runs": 1}
    c = {**z, "seed": 0, "ablation": ab}
    machine = describe(get_device("cpu"))
    for t in (E.run_ablation(c, "synth_tiny", device="cpu", progress=False),
              E.run_batch_timing(c, "synth_tiny", device="cpu", progress=False)):
        assert set(t.machine) == {machine}
        assert t.streams.notna().all() and (t.streams.str.len() > 0).all()
