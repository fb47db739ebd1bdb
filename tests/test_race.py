"""The race's experiment helpers: per-matrix jobs reproduce the whole race, declared reductions apply."""

import pandas as pd

from paperlib.papers.config import smoke_config
from paperlib.papers.race import experiments as E


def test_one_matrix_job_equals_its_part_of_the_whole_race():
    cfg = {**smoke_config("race"), "datasets": ["synth_tiny", "synth_easy"], "methods": ["ucbe", "row-mean"],
           "reps": 4, "budget_fracs": [0.05, 0.1]}
    whole = E.accuracy_table(cfg)
    alone = E.dataset_accuracy(cfg, "synth_easy")
    part = whole[whole.dataset == "synth_easy"].reset_index(drop=True)
    pd.testing.assert_frame_equal(part.drop(columns="wall_s"), alone.drop(columns="wall_s"))


def test_declared_reductions_and_lrf_params():
    cfg = {"reps": 200, "batch_size": 32, "reps_by_method": {"ucbe-lrf": 20}, "lrf_params": {"refit_growth": 0.02}}
    assert E.method_reps("ucbe-lrf", cfg) == 20 and E.method_reps("sysrs", cfg) == 200
    assert E.method_params("ucbe-lrf", cfg) == {"batch_size": 32, "refit_growth": 0.02}
    assert E.method_params("lrf", cfg) == {"batch_size": 32}  # LRF refits only when asked for an estimate
    assert E.method_params("sysrs", cfg) == {}
    assert E.method_params("ucbe:batch_mode=pending", cfg) == {"batch_size": 32}
