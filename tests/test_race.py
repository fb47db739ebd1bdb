"""The race's experiment helpers: per-matrix jobs reproduce the whole race, declared reductions apply."""

import numpy as np
import pandas as pd
import pytest

from paperlib.beyond.race import experiments as E
from paperlib.pipeline.config import smoke_config


def test_one_matrix_job_equals_its_part_of_the_whole_race():
    cfg = {**smoke_config("race"), "datasets": ["synth_tiny", "synth_easy"], "methods": ["ucbe", "row-mean"],
           "reps": 4, "budget_fracs": [0.05, 0.1]}
    whole = E.accuracy_table(cfg)
    alone = E.dataset_accuracy(cfg, "synth_easy")
    part = whole[whole.dataset == "synth_easy"][alone.columns].reset_index(drop=True)
    pd.testing.assert_frame_equal(part.drop(columns="wall_s"), alone.drop(columns="wall_s"))
    halves = E.split_accuracy(cfg, "synth_easy")  # the smoke profile's split block: the test-half jobs too
    part = whole[whole.dataset == "synth_easy" + E.SPLIT][halves.columns].reset_index(drop=True)
    pd.testing.assert_frame_equal(part.drop(columns="wall_s"), halves.drop(columns="wall_s"), check_dtype=False)


def test_declared_reductions_and_lrf_params():
    cfg = {"reps": 200, "batch_size": 32, "reps_by_method": {"ucbe-lrf": 20}, "lrf_params": {"refit_growth": 0.02}}
    assert E.method_reps("ucbe-lrf", cfg) == 20 and E.method_reps("sysrs", cfg) == 200
    assert E.method_params("ucbe-lrf", cfg) == {"batch_size": 32, "refit_growth": 0.02}
    assert E.method_params("lrf", cfg) == {"batch_size": 32}  # LRF refits only when asked for an estimate
    assert E.method_params("sysrs", cfg) == {}
    assert E.method_params("ucbe:batch_mode=pending", cfg) == {"batch_size": 32}
    assert E.method_params("pulse", cfg) == {"batch_size": 32}  # the race's batch for the PULSE backbone too


def test_split_race_runs_the_pulse_family_on_the_test_half_from_its_warm_up():
    cfg = {**smoke_config("race"), "reps": 4, "budget_fracs": [0.05, 0.1, 0.2, 0.3],
           "split": {"methods": ["pulse", "sysrs"], "fit": {"rank": 2, "lam": 0.01, "lr": 0.05, "steps": 20}}}
    acc = E.split_accuracy(cfg, "synth_tiny")
    inst = E.split_instance(cfg, "synth_tiny")
    n, m = inst.test.shape
    assert (acc.dataset == "synth_tiny" + E.SPLIT).all() and (acc.n == n).all() and (acc.m == m).all()
    assert n + inst.train.shape[0] == 10  # synth_tiny's 10 models, split into disjoint halves
    for meth, g in acc.groupby("method"):
        assert list(g.budget) == [round(f * n * m) for f in cfg["budget_fracs"]]  # the whole grid, in order
        runnable = g.budget >= n * cfg["batch_size"]  # PULSE's warm-up: every test model on one batch
        if meth == "pulse":
            assert g.accuracy[~runnable].isna().all() and g.accuracy[runnable].notna().all() and runnable.any()
        else:
            assert g.accuracy.notna().all()
    # the CB of a method that could not run at small budgets is read from where it ran
    cb = E.confidence_budgets(acc, [0.0], cfg["budget_fracs"])
    first = acc[(acc.method == "pulse") & acc.accuracy.notna()].frac.min()
    assert np.isclose(cb[cb.method == "pulse"].cb.iloc[0], round(first, 2))


def test_split_datasets_default_to_the_race_and_must_belong_to_it():
    cfg = {"datasets": ["synth_tiny", "synth_easy"], "split": {"methods": ["pulse"], "fit": {}}}
    assert E.split_datasets(cfg) == ["synth_tiny", "synth_easy"]
    assert E.split_datasets({**cfg, "split": {**cfg["split"], "datasets": ["synth_easy"]}}) == ["synth_easy"]
    assert E.split_datasets({"datasets": ["synth_tiny"]}) == []
    with pytest.raises(ValueError, match="not in the race"):
        E.split_datasets({**cfg, "split": {**cfg["split"], "datasets": ["sysrs_math"]}})


def test_race_figure_tells_every_method_apart_without_colour_and_keeps_the_legend_off_the_panels():
    import matplotlib

    matplotlib.use("Agg")
    from paperlib.beyond.race.plots import race_figure
    from paperlib.figures import method_style
    from paperlib.policies import label

    methods = ["ucbe", "ucbe:batch_mode=pending", "ucbe-sync", "sysrs", "sysh", "row-mean", "filled-subset",
               "ucbe-lrf", "ucbe-lrf-score-only", "lrf"]
    styles = {m: method_style(label(m)) for m in methods}  # the look race_figure draws each method with
    assert len({s["marker"] for s in styles.values()}) == len(methods)  # distinct without colour
    assert len({s["color"] for s in styles.values()}) == len(methods)  # and no colour repeated (issue 39)
    few = {"ucbe-lrf", "ucbe-lrf-score-only", "lrf"}
    acc = pd.DataFrame([dict(dataset=d, kind="real", method=m, frac=f, accuracy=0.5, ci_low=0.4, ci_high=0.6,
                             reps=20 if m in few else 200)
                        for d in ("a", "b") for m in methods for f in (0.1, 0.2)])
    fig = race_figure(acc, "The race")
    # a filled band per many-run method and panel; the 20-run methods' wide bands are not filled
    from matplotlib.collections import PolyCollection
    filled = sum(isinstance(c, PolyCollection) for ax in fig.axes for c in ax.collections)
    assert filled == 2 * (len(methods) - len(few))
    assert "dotted edges" in fig._suptitle.get_text()
    assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in fig.axes)
    assert fig.legends[0].get_bbox_to_anchor().y1 <= fig.bbox.y1 * 0.01 + 1e-9  # anchored under the panels


def test_a_subset_of_methods_gives_their_rows_of_the_whole_table_and_committed_tables_are_checked(tmp_path):
    """A subset of the methods run alone (the LRF family on one H200 until 2026-11-28) keeps each method's seed of the whole
    race (its position in the profile's list), so its rows are the whole table's; a committed table is shown only if
    every method of the profile is there at its run count."""
    cfg = {**smoke_config("race"), "datasets": ["synth_easy"], "methods": ["ucbe", "row-mean", "sysrs"], "reps": 4,
           "budget_fracs": [0.05, 0.1]}
    whole = E.dataset_accuracy(cfg, "synth_easy")
    part = E.dataset_accuracy(cfg, "synth_easy", methods=["sysrs"])
    cols = ["method", "budget", "accuracy", "ci_low", "ci_high", "reps"]
    pd.testing.assert_frame_equal(part[cols], whole[whole.method == "sysrs"][cols].reset_index(drop=True))
    with pytest.raises(ValueError, match="not among the race's"):
        E.dataset_accuracy(cfg, "synth_easy", methods=["lucb"])
    path = tmp_path / "synth_easy.csv"
    whole.to_csv(path, index=False)
    assert len(E.load_dataset_accuracy(cfg, "synth_easy", path)) == len(whole)
    with pytest.raises(ValueError, match="sysrs at 4 runs, the profile's 6"):
        E.load_dataset_accuracy({**cfg, "reps_by_method": {"sysrs": 6}}, "synth_easy", path)
    with pytest.raises(ValueError, match="other budgets"):
        E.load_dataset_accuracy({**cfg, "budget_fracs": [0.05, 0.2]}, "synth_easy", path)
    whole[whole.method != "ucbe"].to_csv(path, index=False)
    with pytest.raises(ValueError, match="no rows of ucbe"):
        E.load_dataset_accuracy(cfg, "synth_easy", path)


def test_a_matrix_of_the_race_run_as_blocks_is_the_race_run_as_one_batch():
    """Issue 67, item 2: the race's runs on a matrix cut into blocks of 3 (in reverse order) give exactly the accuracy
    table and intervals of one batch of 10 (keyed streams: each run is the same run alone or in a batch), and a
    missing block is refused by name."""
    from paperlib.pipeline.config import smoke_config

    cfg = smoke_config("race")
    name = cfg["datasets"][0]
    one = E.dataset_accuracy(cfg, name)
    blocked = {**cfg, "rep_block": 3}
    assert E.dataset_blocks(blocked) == [0, 1, 2, 3]
    parts = [E.dataset_block(blocked, name, b) for b in (3, 2, 1, 0)]
    assert set(pd.concat(parts).streams) == {"keyed-splitmix64-v1"}
    again = E.accuracy_from_runs(blocked, name, pd.concat(parts))
    cols = ["method", "budget", "accuracy", "ci_low", "ci_high", "reps"]
    assert again[cols].reset_index(drop=True).equals(one[cols].reset_index(drop=True))
    # both name what made them (issue 74, item 3): the same machine and the keyed streams, on every row
    assert set(again.machine) == set(one.machine) and len(set(one.machine)) == 1
    assert set(again.streams) == set(one.streams) == {"keyed-splitmix64-v1"}
    with pytest.raises(ValueError, match="runs 0..9"):
        E.accuracy_from_runs(blocked, name, pd.concat(parts[1:]))


def test_a_matrix_case_is_bonferroni_over_its_budgets_in_both_directions():
    """Issue 73: a race row's case per matrix; 50/50 right against 25/50 at one of two budgets shows it (Fisher's
    one-sided p of that table, times the 2 budgets, is far below 0.05), the reversed table contradicts it."""
    from scipy.stats import fisher_exact

    from paperlib.beyond.race.claims import matrix_cases

    idx = pd.MultiIndex.from_tuples([("m", 0.1), ("m", 0.2)], names=["dataset", "frac"])
    cols = pd.MultiIndex.from_tuples([("accuracy", "a"), ("accuracy", "b"), ("reps", "a"), ("reps", "b")])
    both = pd.DataFrame([[1.0, 0.5, 50, 50], [0.6, 0.6, 50, 50]], index=idx, columns=cols)
    (c,) = matrix_cases(both, "a", "b")
    p = fisher_exact([[50, 0], [25, 25]], alternative="greater").pvalue
    assert c.p_for == pytest.approx(2 * p) and c.p_for < 0.05 and c.p_against > 0.05
    (r,) = matrix_cases(both, "b", "a")
    assert r.p_against == pytest.approx(2 * p)
