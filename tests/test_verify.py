"""`paperlib verify` (issue 74, item 3): run 0 of every method of a committed per-run table, rerun alone with today's
code, is the committed run; a table today's code does not make is named DIFFERENT, one that cannot be compared says
why."""

import shutil

import pandas as pd
import pytest

from paperlib.paths import ROOT
from paperlib.pipeline import verify as V
from paperlib.pipeline.config import load_config, paper_config

RACE = ROOT / "results" / "paper" / "race"


def race_cfg():
    return {**paper_config(load_config("paper"), "race"), "profile": "paper"}


def test_compare_names_what_differs():
    a = pd.DataFrame({"budget": [10, 20], "pick": [1, 2], "correct": [0, 1], "wce": [0.5, 0.25]})
    assert V._compare("m", a, a.copy(), ["budget"], ["pick", "correct"], ["wce"]) is None
    assert V._compare("m", a, a[::-1].copy(), ["budget"], ["pick"]) is None  # row order does not matter
    b = a.assign(pick=[1, 3])
    assert V._compare("m", a, b, ["budget"], ["pick", "correct"]) == "m: pick differs at 1 of 2 rows"
    assert V._compare("m", a, a.head(1), ["budget"], ["pick"]) == "m: 2 rows today, 1 committed"
    assert V._compare("m", a, a.assign(wce=[0.5, 0.25 * (1 + 1e-14)]), ["budget"], [], ["wce"]) is None  # CSV text
    assert "wce differs" in V._compare("m", a, a.assign(wce=[0.5, 0.26]), ["budget"], [], ["wce"])


def test_a_table_that_cannot_be_compared_says_why(tmp_path, data_dir):
    """A race matrix without blocks (a table of accuracies) and a block without keyed streams are not compared, each
    with its reason and the commit that made it; nothing is rerun for them."""
    (tmp_path / "race" / "blocks").mkdir(parents=True)
    shutil.copy(RACE / "livecodebench_gen_45.csv", tmp_path / "race" / "alpacaeval2.csv")
    old = pd.read_csv(RACE / "blocks" / "livecodebench_gen_45.b0.csv.gz").drop(columns="streams")
    old.to_csv(tmp_path / "race" / "blocks" / "livecodebench_gen_45.b0.csv.gz", index=False)
    lines = []
    checks = V.verify_race(race_cfg(), tmp_path, names=["alpacaeval2", "livecodebench_gen_45"], log=lines.append)
    assert [c.status for c in checks] == [V.NOT_COMPARED, V.NOT_COMPARED]
    assert "no per-run blocks" in lines[0] and "no keyed streams" in lines[1]
    assert "not committed here" in lines[1] and "no streams recorded" in lines[1]
    with pytest.raises(ValueError, match="unknown table families"):
        V.verify("paper", ["zhou-fig4"])


@pytest.mark.slow
def test_a_committed_race_block_is_reproduced_and_a_changed_one_is_seen(tmp_path, data_dir):
    """livecodebench_gen_45's block b0 (committed, keyed streams): run 0 of its 10 methods rerun alone is the
    committed run; the same block with one pick changed is DIFFERENT, naming the method."""
    lines = []
    (c,) = V.verify_race(race_cfg(), RACE.parent, names=["livecodebench_gen_45"], log=lines.append)
    assert c.status == V.SAME and c.methods == 10, c.line()
    assert "commit " in c.made_by and "streams keyed-splitmix64-v1" in c.made_by
    t = pd.read_csv(RACE / "blocks" / "livecodebench_gen_45.b0.csv.gz")
    i = t.index[(t.method == "sysrs") & (t.run == 0)][3]
    t.loc[i, "pick"] = (t.loc[i, "pick"] + 1) % int(t.n.iloc[0])
    (tmp_path / "race" / "blocks").mkdir(parents=True)
    t.to_csv(tmp_path / "race" / "blocks" / "livecodebench_gen_45.b0.csv.gz", index=False)
    (c,) = V.verify_race(race_cfg(), tmp_path, names=["livecodebench_gen_45"], log=lines.append)
    assert c.status == V.DIFFERENT and c.differ == ["sysrs: pick differs at 1 of 30 rows"], c.line()


def test_a_new_race_block_records_its_machine_and_streams(data_dir):
    """Issue 74, item 3: a race block made today names the machine and the keyed streams on every row, and
    ``made_by`` reads them back (the blocks committed before 2026-12-04 record their streams only)."""
    from paperlib.beyond.race import experiments as E
    from paperlib.device import describe, get_device
    from paperlib.keyed import STREAMS

    cfg = {**race_cfg(), "rep_block": 1, "methods": ["ucbe", "sysrs"]}
    t = E.dataset_block(cfg, "livecodebench_gen_45", 0)
    machine = describe(get_device(None))
    assert set(t.machine) == {machine} and set(t.streams) == {STREAMS}
    assert f"machine {machine}, streams {STREAMS}" in V.made_by(ROOT / "README.md", t)


@pytest.mark.slow
def test_certified_search_with_a_prior_is_reproduced_and_a_changed_run_is_seen(tmp_path, data_dir):
    """Search's committed runs with a prior (one table, checked per matrix): run 0 of each of the four prior kinds
    rerun alone is the committed run; the table with one run's calls changed is DIFFERENT, naming the prior kind."""
    cfg = {**paper_config(load_config("paper"), "search"), "profile": "paper"}
    runs = ROOT / "results" / "paper" / "search" / "prior_runs.csv.gz"
    (c,) = V.verify_search(cfg, runs.parent.parent, names=["livecodebench_gen_45"], log=print)
    assert c.status == V.SAME and c.methods == 4, c.line()
    assert "[livecodebench_gen_45]" in c.table and "streams keyed-splitmix64-v1" in c.made_by
    t = pd.read_csv(runs)
    i = t.index[(t.dataset == "livecodebench_gen_45") & (t.prior == "shuffled") & (t.rep == 0)][0]
    t.loc[i, "calls"] += 1
    (tmp_path / "search").mkdir()
    t.to_csv(tmp_path / "search" / "prior_runs.csv.gz", index=False)
    (c,) = V.verify_search(cfg, tmp_path, names=["livecodebench_gen_45"], log=print)
    assert c.status == V.DIFFERENT and c.differ == ["shuffled: calls differs at 1 of 1 rows"], c.line()
    assert V.verify_search(cfg, tmp_path / "nothing") == []  # no table of runs with a prior: nothing to check


def test_a_notebook_shows_what_made_a_table_once_above_it(capsys):
    """``nb.shown``: the machine and streams printed once (distinct values joined), the table without those columns;
    a table that records neither is shown whole with no line."""
    from paperlib.pipeline import notebook as nb

    t = pd.DataFrame({"x": [1, 2, 3], "machine": ["A", "B", "A"], "streams": ["s", "s", None]})
    out = nb.shown(t)
    assert list(out.columns) == ["x"] and capsys.readouterr().out == "made by: machine A, B; streams s\n"
    assert nb.shown(t[["x"]]).equals(t[["x"]]) and capsys.readouterr().out == ""


def test_the_machine_names_the_cpu_model(tmp_path):
    """A table's machine names the CPU model from /proc/cpuinfo (another CPU may round differently), and falls back
    to the architecture where there is none."""
    import torch

    from paperlib import device

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\nflags\t: fpu\n")
    assert device.cpu_model(str(info)) == "AMD EPYC 9B14"
    assert device.cpu_model(str(tmp_path / "absent")) == ""
    here = device.describe(torch.device("cpu"))
    assert here.endswith(f"cores, torch threads {torch.get_num_threads()}") and (device.cpu_model() or "x") in here
    # the vector level torch's kernels use: another level sums in other orders (the model name may not tell them apart)
    level = torch.backends.cpu.get_cpu_capability()
    assert level in ("AVX512", "AVX2", "DEFAULT", "ZVECTOR", "VSX", "SVE256") and f"({level}) x" in here


ZHOU = ROOT / "results" / "paper" / "zhou" / "fig3" / "blocks"


def zhou_cfg():
    return {**paper_config(load_config("paper"), "zhou"), "profile": "paper"}


def test_a_zhou_block_without_keyed_streams_is_not_compared(tmp_path):
    """Zhou's Figure 3 blocks made before keyed streams (no streams column) are named, not rerun; a dataset with no
    blocks at all is left out."""
    (tmp_path / "zhou" / "fig3" / "blocks").mkdir(parents=True)
    pd.read_csv(ZHOU / "livecodebench_gen_45.b0.csv").drop(columns=["streams", "machine"]).to_csv(
        tmp_path / "zhou" / "fig3" / "blocks" / "livecodebench_gen_45.b0.csv", index=False)
    lines = []
    (c,) = V.verify_zhou(zhou_cfg(), tmp_path, names=["livecodebench_gen_45", "sysrs_gsm"], log=lines.append)
    assert c.status == V.NOT_COMPARED and "no keyed streams" in lines[0] and "no machine recorded" in lines[0]


@pytest.mark.slow
def test_a_zhou_block_is_reproduced_and_a_changed_settling_budget_is_seen(tmp_path, data_dir):
    """livecodebench_gen_45's Figure 3 block b0 (keyed streams): run 0 of each of the six methods rerun alone settles
    where the committed block's rep 0 does; the settle table with one method's rep 0 moved is DIFFERENT, naming it."""
    cfg = zhou_cfg()
    (c,) = V.verify_zhou(cfg, ROOT / "results" / "paper", names=["livecodebench_gen_45"], log=print)
    assert c.status == V.SAME and c.methods == 6, c.line()
    blocks = tmp_path / "zhou" / "fig3" / "blocks"
    blocks.mkdir(parents=True)
    shutil.copy(ZHOU / "livecodebench_gen_45.b0.csv", blocks)
    s = pd.read_csv(ZHOU / "livecodebench_gen_45.b0.settle.csv")
    i = s.index[(s.method == "lrf") & (s.rep == 0)][0]
    s.loc[i, "settle_frac"] = 1.0 if s.loc[i, "settle_frac"] != 1.0 else 0.5
    s.to_csv(blocks / "livecodebench_gen_45.b0.settle.csv", index=False)
    (c,) = V.verify_zhou(cfg, tmp_path, names=["livecodebench_gen_45"], log=print)
    assert c.status == V.DIFFERENT and c.differ == ["lrf: settle_frac differs at 1 of 1 rows"], c.line()
