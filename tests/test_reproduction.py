"""Committed outputs are expected results: a run without some data writes elsewhere and says so; a fresh run is
compared with the committed tables by tolerance."""

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from paperlib import data
from paperlib.pipeline.completeness import output_tag, profile_datasets, report
from paperlib.pipeline.config import load_config
from paperlib.pipeline.reproduction import compare_dirs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tables(tmp_path):
    exp, new = tmp_path / "exp", tmp_path / "new"
    exp.mkdir()
    new.mkdir()
    df = pd.DataFrame({"dataset": ["a", "b"], "precision": [0.5, float("nan")], "wall_s": [1.0, 2.0]})
    df.to_csv(exp / "t.csv", index=False)
    return exp, new, df


def test_identical_tables_agree_and_machine_columns_are_ignored(tables):
    exp, new, df = tables
    df.assign(wall_s=[9.0, 9.0], precision=[0.5 + 1e-12, float("nan")]).to_csv(new / "t.csv", index=False)
    assert compare_dirs(exp, new) == (1, [])


@pytest.mark.parametrize("change, where", [
    (lambda d: d.assign(precision=[0.501, float("nan")]), "'precision': 1 of 2"),
    (lambda d: d.assign(precision=[0.5, 0.5]), "'precision': 1 of 2"),
    (lambda d: d.assign(dataset=["a", "c"]), "'dataset': 1 of 2"),
    (lambda d: d.iloc[:1], "2 rows expected, 1 fresh"),
    (lambda d: d.rename(columns={"dataset": "name"}), "columns differ"),
])
def test_differences_are_reported(tables, change, where):
    exp, new, df = tables
    change(df).to_csv(new / "t.csv", index=False)
    n, problems = compare_dirs(exp, new)
    assert n == 1 and len(problems) == 1 and where in problems[0]


def test_missing_table_is_reported(tables):
    exp, new, _ = tables
    assert "missing" in compare_dirs(exp, new)[1][0]


def test_profile_datasets_cover_every_block():
    uses = profile_datasets(load_config("quick"))
    assert "pulse.datasets" in uses["bench1"] and "robin.closerlook" in uses["closerlook_topicalchat"]
    assert "zhou.ablation.datasets" in uses["sysrs_math"]
    assert not any(d.startswith("synth_") for d in uses)


def test_without_data_the_run_is_tagged_partial_and_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.delenv("PAPERLIB_DATA", raising=False)
    monkeypatch.setenv("PAPERLIB_CACHE", str(tmp_path))
    data.load.cache_clear()
    cfg = load_config("quick")
    assert output_tag(cfg) == "quick-partial"
    text = report(cfg)
    assert "paperlib data fetch" in text and "sysrs_gsm" in text and "figures/quick-partial" in text
    assert "committed figures/quick/ were left untouched" in text


def test_with_all_data_the_run_writes_the_profile(data_dir):
    cfg = load_config("quick")
    assert output_tag(cfg) == "quick" and report(cfg) == ""


@pytest.mark.slow
def test_dag_without_data_never_targets_committed_figures(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PAPERLIB_DATA"}
    env["PAPERLIB_CACHE"] = str(tmp_path)
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    r = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--profile", "profiles/quick", "--cores", "1"],
                       capture_output=True, text=True, cwd=ROOT, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout + r.stderr
    assert "figures/quick-partial/claims.csv" in out
    assert "figures/quick/" not in out.replace("committed figures/quick/", "")
    assert "INCOMPLETE RUN" in out and "paperlib data fetch" in out
