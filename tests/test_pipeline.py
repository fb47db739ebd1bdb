import copy
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from paperlib import ledger
from paperlib.config import ConfigError, load_config, validate

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def dry_run(profile, tmp_path, env_data=None):
    exe = shutil.which("snakemake") or str(Path(__import__("sys").executable).parent / "snakemake")
    r = subprocess.run([exe, "--profile", f"profiles/{profile}", "-n", "-F", "--nolock", "--quiet", "rules"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout + r.stderr


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["quick", "paper"])
def test_dry_run_lists_every_figure_target(profile, tmp_path):
    out = dry_run(profile, tmp_path)
    for rule in ("zhou_fig3_dataset", "zhou_fig3", "zhou_fig1", "zhou_fig4", "zhou_datasets",
                 "zhou_corollary1", "robin_data", "robin_cell", "robin_summary", "robin_theory", "pulse_pool", "pulse_summary", "pulse_lowrank",
                 "pulse_theory", "claims", "all"):
        assert re.search(rf"^{rule}\s+\d+", out, re.M), f"rule {rule} missing from the {profile} DAG"
    m = re.search(r"^zhou_fig3_dataset\s+(\d+)", out, re.M)
    assert int(m.group(1)) >= 3  # the synthetic datasets need no external data


def test_profiles_write_to_separate_folders():
    snake = (ROOT / "Snakefile").read_text()
    assert 'FIG = f"figures/{P}"' in snake and 'RES = f"results/{P}"' in snake
    assert load_config("quick")["profile"] == "quick" and load_config("paper")["profile"] == "paper"


def test_every_notebook_has_a_rule_and_a_parameters_cell():
    import nbformat

    snake = (ROOT / "Snakefile").read_text()
    for nb in NOTEBOOKS:
        assert f"notebooks/{nb.name}" in snake, f"{nb.name} is not run by any rule"
        cells = nbformat.read(nb, as_version=4).cells
        tagged = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, f"{nb.name} needs exactly one 'parameters' cell"
        assert all(not c.get("outputs") for c in cells if c.cell_type == "code"), f"{nb.name} has outputs"


@pytest.mark.parametrize(
    "mutate, msg",
    [
        (lambda c: c.pop("seed"), "missing key 'seed'"),
        (lambda c: c["zhou"].__setitem__("datasets", ["nope"]), "unknown dataset 'nope'"),
        (lambda c: c["zhou"].__setitem__("methods", ["magic"]), "unknown method 'magic'"),
        (lambda c: c["zhou"].__setitem__("budget_fracs", [0.5, 0.1]), "budget_fracs"),
        (lambda c: c["zhou"]["reps"].__setitem__("ucbe", 0), "zhou.reps.ucbe"),
    ],
)
def test_config_validation_errors(mutate, msg):
    cfg = copy.deepcopy(load_config("quick"))
    mutate(cfg)
    with pytest.raises(ConfigError, match=re.escape(msg)):
        validate(cfg)


def test_ledger_merge_and_verdicts(tmp_path):
    with pytest.raises(ValueError):
        ledger.Claim("p", "c", "s", "e", "m", "maybe")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    ledger.write([ledger.Claim("P", "c1", "s | pipe", "[real] e", "1", "holds")], a)
    ledger.write([ledger.Claim("P", "c2", "s", "[none] e", "-", "untestable")], b)
    claims = ledger.merge([a, b], tmp_path / "claims.csv", tmp_path / "claims.md")
    assert [c.claim for c in claims] == ["c1", "c2"]
    header = (tmp_path / "claims.csv").read_text().splitlines()[0]
    assert header == "paper,claim,statement,evidence,measured,verdict"
    md = (tmp_path / "claims.md").read_text()
    assert "holds 1" in md and "untestable 1" in md and "s \\| pipe" in md


@pytest.mark.slow
def test_whole_dag_runs_at_smoke_size_without_data(tmp_path):
    """End to end on a fresh copy with no data: every rule runs and the ledger is written."""
    import os
    import sys

    for item in ("Snakefile", "config", "notebooks", "profiles", "data/registry.yaml"):
        src = ROOT / item
        dst = tmp_path / item
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
    env = {k: v for k, v in os.environ.items() if k != "PAPERLIB_DATA"}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PAPERLIB_DEVICE"] = "cpu"
    exe = str(Path(sys.executable).parent / "snakemake")
    r = subprocess.run([exe, "--profile", "profiles/smoke", "--cores", "2"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    fig = tmp_path / "figures" / "smoke"
    for name in ("claims.md", "claims.csv", "zhou_fig3.png", "zhou_fig4.png", "zhou_fig1.png", "zhou_fig5.png",
                 "zhou_fig6.png", "zhou_table2.csv", "zhou_table3.csv", "zhou_corollary1.png",
                 "robin_fig1.png", "robin_fig2.png", "robin_fig3_5.png", "robin_fig8.png", "robin_fig6_7_9.png",
                 "robin_table2.csv", "robin_table2.md", "robin_theory.png", "pulse_fig1.png", "pulse_fig2.png",
                 "pulse_fig3.png", "pulse_cv.csv", "pulse_budget95.csv"):
        assert (fig / name).stat().st_size > 0, name
    claims = ledger.read(fig / "claims.csv")
    assert len(claims) >= 30
    assert any(c.claim.startswith("robin-") for c in claims)
    assert any(c.claim.startswith("pulse-") for c in claims)
    assert {c.verdict for c in claims} <= set(ledger.VERDICTS)
    assert all(c.evidence.startswith("[") for c in claims)


def test_ledger_with_id():
    c = ledger.Claim("P", "Lemma 2 (allocation, Sec. 3)", "n_i >= 1", "[synthetic] x", "m", "holds")
    d = ledger.with_id(c, "robin")
    assert d.claim == "robin-lemma-2-allocation-sec-3"
    assert d.statement == "Lemma 2 (allocation, Sec. 3): n_i >= 1" and d.verdict == "holds"
