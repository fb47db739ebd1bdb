"""The workflow: every target in the DAG, config validation, overrides reaching the notebooks, the ledger."""

import copy
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pandas as pd
import pytest
import yaml
from ledger_rows import row

from paperlib import ledger
from paperlib.pipeline.config import (
    ConfigError,
    check_paper_config,
    load_config,
    paper_config,
    validate,
)

ROOT = Path(__file__).resolve().parents[1]
#: the notebooks the workflow runs (the index, notebooks/index.ipynb, is a reader's page of links: tests/test_notebook_index.py)
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").glob("*.ipynb") if p.stem != "index")
RULES = sorted((ROOT / "workflow" / "rules").glob("*.smk"))
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")


def _env():
    env = {k: v for k, v in os.environ.items() if k != "PAPERLIB_DATA"}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PAPERLIB_DEVICE"] = "cpu"
    env["PAPERLIB_CACHE"] = str(Path(tempfile.gettempdir()) / "paperlib-test-empty-cache")
    return env


def workflow_copy(tmp_path: Path) -> Path:
    """The workflow's files in a fresh folder (outputs land there, not in the repository)."""
    for item in ("Snakefile", "workflow", "paperlib", "notebooks", "profiles", "README.md"):
        src, dst = ROOT / item, tmp_path / item
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
    return tmp_path


def snakemake(args, cwd, timeout=900):
    return subprocess.run([SNAKEMAKE, *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["quick", "paper"])
def test_dry_run_lists_every_figure_target(profile):
    r = snakemake(["--profile", f"profiles/{profile}", "-n", "-F", "--nolock", "--quiet", "rules"], ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout + r.stderr
    for rule in ("zhou_fig3_dataset", "zhou_fig3", "zhou_fig1", "zhou_fig4_dataset", "zhou_fig4", "zhou_datasets",
                 "zhou_corollary1", "robin_data", "robin_cell", "robin_summary", "robin_theory", "pulse_pool",
                 "pulse_summary", "pulse_lowrank", "pulse_theory", "pulse_coverage_pool", "pulse_coverage", "claims",
                 "all"):  # no race: it runs on real matrices only, and this test hides $PAPERLIB_DATA
        assert re.search(rf"^{rule}\s+\d+", out, re.M), f"rule {rule} missing from the {profile} DAG"
    m = re.search(r"^zhou_fig3_dataset\s+(\d+)", out, re.M)
    assert int(m.group(1)) >= 3  # the synthetic datasets need no external data


@pytest.mark.slow
def test_slurm_profile_plans_the_paper_profile_with_its_resources():
    pytest.importorskip("snakemake_executor_plugin_slurm")
    r = snakemake(["--profile", "profiles/slurm", "-n", "-F", "--nolock"], ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout + r.stderr
    paper = yaml.safe_load((ROOT / "paperlib/config/paper.yaml").read_text())["resources"]
    # a GPU job (the PULSE pools now run as CPU blocks of 4 GB: issue 67)
    block = re.search(r"rule zhou_fig3_block:.*?resources: ([^\n]*)", out, re.S).group(1)
    assert f"mem_mb={paper['zhou_fig3_block']['mem_mb']}" in block and "gpu=1" in block and "slurm_partition=gpu" in block
    block = re.search(r"rule pulse_block:.*?resources: ([^\n]*)", out, re.S).group(1)
    assert f"mem_mb={paper['pulse_block']['mem_mb']}" in block and "gpu=0" in block
    block = re.search(r"rule claims:.*?resources: ([^\n]*)", out, re.S).group(1)
    assert f"mem_mb={paper['default']['mem_mb']}" in block and "gpu=0" in block


def test_every_rule_declares_its_resources():
    for smk in (ROOT / "workflow/rules").glob("*.smk"):
        text = smk.read_text()
        for rule, body in re.findall(r"^rule (\w+):\n(.*?)(?=^rule |\Z)", text, re.M | re.S):
            assert f'**res("{rule}")' in body, f"{smk.name}: rule {rule} declares no resources"


def test_every_rule_requests_the_memory_its_jobs_were_measured_at():
    """A job on a cluster is killed past its request: each rule's mem_mb in the paper profile (or the default) covers
    the peak its committed benchmark files measured (Snakemake's max_rss, MiB), with 10% to spare for a rerun's
    jitter. (bench1-full's PULSE blocks peak at 4,191 MiB, over the 4,000 once requested.)"""
    from paperlib.pipeline.costs import read_benchmarks

    resources = yaml.safe_load((ROOT / "paperlib/config/paper.yaml").read_text())["resources"]
    jobs = read_benchmarks(ROOT / "results" / "paper" / "benchmarks")
    assert len(jobs) > 100
    for rule, peak in jobs.groupby("rule").max_rss_mb.max().items():
        asked = resources.get(rule, resources["default"]).get("mem_mb", resources["default"]["mem_mb"])
        assert asked >= 1.1 * peak, f"{rule}: requests {asked} MB, its jobs peaked at {peak:.0f} MiB"


def test_snakefile_only_includes_the_rule_files():
    snake = (ROOT / "Snakefile").read_text()
    included = re.findall(r'^include: "([^"]+)"', snake, re.M)
    assert included == [f"workflow/rules/{n}.smk" for n in ("common", "zhou", "robin", "pulse", "search", "race", "ledger",
                                                                      "report")]
    assert "shell:" not in snake and "rule all" in snake


def test_profiles_write_to_separate_folders():
    common = (ROOT / "workflow" / "rules" / "common.smk").read_text()
    assert 'OUT = output_tag(config, ABSENT)' in common
    assert 'FIG = f"figures/{OUT}"' in common and 'RES = f"results/{OUT}"' in common
    assert load_config("quick")["profile"] == "quick" and load_config("paper")["profile"] == "paper"


def test_every_notebook_is_run_by_a_rule_and_has_one_parameters_cell():
    rules = "".join(p.read_text() for p in RULES)
    for nb in NOTEBOOKS:
        assert f"notebooks/{nb.name}" in rules, f"{nb.name} is not run by any rule"
        cells = nbformat.read(nb, as_version=4).cells
        tagged = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
        assert len(tagged) == 1, f"{nb.name} needs exactly one 'parameters' cell"


def test_every_parameter_line_is_read_by_papermill():
    """papermill parses a parameters cell line by line (for --help-notebook and its unknown-parameter check); a comment
    with an apostrophe or an '=' makes it skip the line and warn that the workflow passes an unknown parameter."""
    import logging

    from papermill.translators import PythonTranslator

    logging.getLogger("papermill").setLevel(logging.ERROR)
    for path in NOTEBOOKS:
        cell = next(c for c in nbformat.read(path, as_version=4).cells if "parameters" in c.metadata.get("tags", []))
        for line in cell.source.splitlines():
            if line.strip() and not line.startswith("#"):
                assert PythonTranslator.inspect(nbformat.v4.new_code_cell(line)), f"{path.name}: {line}"


def test_committed_notebooks_are_stripped_except_the_ones_the_report_shows():
    """Source notebooks and per-dataset job notebooks are committed stripped (nbstripout --verify exits non-zero on
    outputs or execution counts); the summary notebooks the report shows are committed executed, each with outputs,
    under 1 MB and free of machine paths."""
    from paperlib.pipeline.book_notebooks import shown_notebooks
    from paperlib.pipeline.book_text import MACHINE_PATH

    exe = str(Path(sys.executable).parent / "nbstripout")
    committed = sorted((ROOT / "results").glob("*/notebooks/*.ipynb"))
    tracked = subprocess.run(["git", "ls-files", *map(str, committed)], capture_output=True, text=True, cwd=ROOT)
    paper = [ROOT / f for f in tracked.stdout.split()] if tracked.returncode == 0 else []
    shown = [p for p in paper if p.stem in shown_notebooks()]
    jobs = [p for p in paper if p not in shown]
    r = subprocess.run([exe, "--verify", *map(str, [*NOTEBOOKS, *jobs])], capture_output=True, text=True)
    assert r.returncode == 0, f"run `make strip-notebooks` / nbstripout on committed results: {r.stdout}{r.stderr}"
    for p in shown:
        nb = nbformat.read(p, as_version=4)
        assert any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), f"{p.name} is committed without outputs"
        assert p.stat().st_size < 1_000_000, f"{p.name}: {p.stat().st_size} bytes, over the 1 MB budget"
        hit = MACHINE_PATH.search(p.read_text())
        assert not hit, f"{p.name} holds a machine path: {hit.group(0)}"


def test_nbstripout_check_detects_outputs(tmp_path):
    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="hello")]
    path = tmp_path / "dirty.ipynb"
    nbformat.write(nb, path)
    r = subprocess.run([str(Path(sys.executable).parent / "nbstripout"), "--verify", str(path)], capture_output=True)
    assert r.returncode != 0


def _set(path: str, value):
    def mutate(c):
        *parents, last = path.split(".")
        d = c
        for k in parents:
            d = d[k]
        d[last] = value
    return mutate


def _rename(path: str, new: str):
    def mutate(c):
        *parents, last = path.split(".")
        d = c
        for k in parents:
            d = d[k]
        d[new] = d.pop(last)
    return mutate


# (mutation of the quick profile, a word the error must contain)
BAD_CONFIGS = [
    (_rename("pulse", "pluse"), "pluse"),
    (_rename("robin.reps", "repz"), "repz"),
    (_set("device", "cdua"), "cdua"),
    (_rename("seed", "seeed"), "seeed"),
    (_set("zhou.ablation.reps", -3), "zhou.ablation.reps"),
    (_set("zhou.ablation.reps", 2.7), "zhou.ablation.reps"),
    (_set("robin.reps", "many"), "robin.reps"),
    (_set("profile", "../../x"), "profile"),
    (_set("zhou.datasets", ["nope"]), "nope"),
    (_set("zhou.methods", ["magic"]), "zhou.methods"),
    (_set("zhou.budget_fracs", [0.5, 0.1]), "zhou.budget_fracs"),
    (_set("zhou.budget_fracs", [0.1, 1.5]), "zhou.budget_fracs"),
    (_set("robin.deltas", [0.0]), "robin.deltas"),
    (_set("robin.ucb_forms", ["eq7"]), "robin.ucb_forms"),
    (_set("pulse.batch_size", 0), "pulse.batch_size"),
    (_set("pulse.methods", ["pulse", "plse"]), "pulse.methods"),
    (_set("pulse.bandit_fracs_by_pool", {"nopool-gap0.01": [0.01]}), "nopool-gap0.01"),
    (_set("pulse.bandit_fracs_by_pool", {"synth_medium-full": [0.02, 0.01]}), "pulse.bandit_fracs_by_pool"),
    (_set("search.methods", ["ucbe-lrf"]), "search.methods"),
    (_set("search.delta", 1.0), "search.delta"),
    (_set("search.datasets", ["nope"]), "nope"),
    (_set("reductions", [{"setting": "zhou.params.nope", "what": "w", "paper": "p", "why": "y", "effect": "e"}]),
     "zhou.params.nope"),
    (_set("reductions", [{"setting": "zhou.reps", "what": "w", "paper": "p", "why": "y"}]), "effect"),
]


@pytest.mark.parametrize("mutate, word", BAD_CONFIGS, ids=[w for _, w in BAD_CONFIGS])
def test_config_validation_names_the_bad_key(mutate, word):
    cfg = copy.deepcopy(load_config("quick"))
    mutate(cfg)
    with pytest.raises(ConfigError, match=re.escape(word)):
        validate(cfg)


def test_zhou_reps_needs_every_method():
    cfg = copy.deepcopy(load_config("quick"))
    del cfg["zhou"]["reps"]["lrf"]
    with pytest.raises(ConfigError, match=r"zhou\.reps\.lrf"):
        validate(cfg)


def test_every_schema_property_is_documented():
    def walk(node, where):
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                documented = "description" in sub or "$ref" in sub
                assert documented, f"{where}.{key} has no description"
            for k, v in node.items():
                walk(v, f"{where}.{k}" if k != "properties" else where)
    for schema in [ROOT / "paperlib/pipeline/config.schema.yaml", *ROOT.glob("paperlib/papers/*/config.schema.yaml")]:
        walk(yaml.safe_load(schema.read_text()), schema.parent.name)


def test_paper_slice_is_its_block_plus_seed():
    cfg = load_config("quick")
    pc = paper_config(cfg, "robin")
    assert pc == {**cfg["robin"], "seed": cfg["seed"]}
    assert check_paper_config(pc, "robin") == pc
    bad = dict(pc, reps=0)
    with pytest.raises(ConfigError, match="robin.reps"):
        check_paper_config(bad, "robin")


@pytest.mark.slow
@pytest.mark.parametrize("mutate, word", BAD_CONFIGS[:8], ids=[w for _, w in BAD_CONFIGS[:8]])
def test_misspelled_key_stops_snakemake_dry_run(tmp_path, mutate, word):
    cfg = copy.deepcopy(load_config("quick"))
    mutate(cfg)
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(cfg))
    r = snakemake(["-s", str(ROOT / "Snakefile"), "--configfile", str(bad), "-n", "--nolock", "--cores", "1"],
                  tmp_path, timeout=300)
    assert r.returncode != 0
    assert word.split(".")[-1] in r.stdout + r.stderr


@pytest.mark.slow
def test_configfile_override_reaches_the_notebook(tmp_path):
    """A --configfile override of one key is in the executed notebook's injected parameters and in its output."""
    wd = workflow_copy(tmp_path)
    (wd / "override.yaml").write_text("zhou:\n  corollary1:\n    reps: 7\n")
    target = "results/smoke-partial/zhou/corollary1.csv"
    r = snakemake(["--profile", "profiles/smoke", "--configfile", "paperlib/config/smoke.yaml", "override.yaml",
                   "--cores", "1", target], wd)
    assert r.returncode == 0, r.stderr[-3000:]
    import pandas as pd

    assert set(pd.read_csv(wd / target).reps) == {7}
    executed = nbformat.read(wd / "results/smoke-partial/notebooks/zhou_corollary1.ipynb", as_version=4)
    injected = next(c for c in executed.cells if "injected-parameters" in c.metadata.get("tags", []))
    line = next(ln for ln in injected.source.splitlines() if ln.startswith("zhou = "))
    assert json.loads(line.removeprefix("zhou = "))["corollary1"]["reps"] == 7
    # editing another paper's block does not rerun this job
    (wd / "override2.yaml").write_text("zhou:\n  corollary1:\n    reps: 7\nrobin:\n  reps: 3\n")
    r = snakemake(["--profile", "profiles/smoke", "--configfile", "paperlib/config/smoke.yaml", "override2.yaml",
                   "-n", "--cores", "1", target], wd)
    assert r.returncode == 0 and "Nothing to be done" in r.stdout + r.stderr


def test_ledger_merge_and_verdicts(tmp_path):
    with pytest.raises(ValueError):
        ledger.Claim("p", "c", "s", "e", "m", "maybe")
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    with pytest.raises(ValueError, match="no kind of statement"):  # a verdict is never written (issue 73)
        ledger.Claim("p", "c", "s", "e", "m", "holds")
    ledger.write([row("P", "c1", "holds", "s | pipe", "[real] e, exact", "1")], a)
    ledger.write([row("P", "c2", "untestable", "s", "[none] e", "-")], b)
    claims = ledger.merge([a, b], tmp_path / "claims.csv", tmp_path / "claims.md")
    assert [c.claim for c in claims] == ["c1", "c2"]
    header = (tmp_path / "claims.csv").read_text().splitlines()[0]
    assert header == "paper,claim,statement,evidence,measured,verdict,kind,setting"  # every row declares its kind
    md = (tmp_path / "claims.md").read_text()
    assert "holds 1" in md and "untestable 1" in md and "s \\| pipe" in md
    assert "Run on" not in md
    noted = ledger.merge([a, b], tmp_path / "n.csv", tmp_path / "n.md", run_on="2 CPU cores, 10 runs")
    # issue 68: the run conditions are stated once (the Markdown title); a row points to them in a few words
    assert [c.evidence for c in noted] == [f"{c.evidence}{ledger.RUN_CONDITIONS}" for c in claims]
    assert noted[0].evidence.startswith("[real] e, exact; ") and noted[1].evidence.startswith("[none] e; ")
    assert "Run on: 2 CPU cores, 10 runs." in (tmp_path / "n.md").read_text()
    assert "10 runs" not in (tmp_path / "n.csv").read_text()
    import json
    import sys

    env = json.loads((tmp_path / "environment.json").read_text())  # the report's cover shows the runs' software
    assert env["python"] == sys.version.split()[0] and "numpy" in env and env["os"]


@pytest.mark.slow
@pytest.mark.slow
def test_nested_config_override_keeps_the_rest_of_the_block_and_its_types():
    """The README's `--config pulse='{reps: 500}'` reaches the PULSE jobs as the integer 500 (Snakemake alone
    hands it over as the string '500', which the schema refuses) and leaves the block's other keys as they were."""
    r = snakemake(["--profile", "profiles/paper", "-n", "-p", "-F", "--nolock", "pulse_summary",
                   "--config", "pulse={reps: 500}"], ROOT, timeout=300)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    blocks = [ln for ln in r.stdout.splitlines() if "papermill" in ln and "pulse: {" in ln]
    assert blocks
    paper = load_config("paper")["pulse"]
    for ln in blocks:
        argv = shlex.split(ln.split(" > ", 1)[0])
        params = yaml.safe_load(argv[argv.index("-y") + 1])
        assert params["pulse"]["reps"] == 500
        assert params["pulse"]["datasets"] == paper["datasets"] and params["pulse"]["methods"] == paper["methods"]


@pytest.mark.slow
def test_a_shipped_profile_name_at_another_scale_is_refused_before_any_job():
    """`--configfile quick.yaml --config profile=paper` would write quick-scale numbers over figures/paper."""
    r = snakemake(["--configfile", "paperlib/config/quick.yaml", "--config", "profile=paper", "-n", "--nolock",
                   "--cores", "1"], ROOT, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode != 0
    assert "profile 'paper'" in out and "quick scale" in out and "Job stats" not in out
    ok = snakemake(["--configfile", "paperlib/config/quick.yaml", "--config", "profile=quick_custom", "-n",
                    "--nolock", "--cores", "1", "--quiet", "rules"], ROOT, timeout=300)
    assert ok.returncode == 0, ok.stderr[-2000:]


def test_library_refuses_a_shipped_name_at_another_scale():
    cfg = copy.deepcopy(load_config("quick"))
    cfg["profile"] = "paper"
    with pytest.raises(ConfigError, match="quick-scale numbers"):
        validate(cfg)
    cfg["profile"] = "mine"
    validate(cfg)


def test_whole_dag_runs_at_smoke_size_without_data(tmp_path):
    """End to end on a fresh copy with no data: every rule runs, the ledger is written, and every
    executed notebook that makes a figure shows it inline."""
    wd = workflow_copy(tmp_path)
    r = snakemake(["--profile", "profiles/smoke", "--cores", "2"], wd)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "INCOMPLETE RUN of profile 'smoke'" in r.stderr and "paperlib data fetch" in r.stderr
    assert not (wd / "figures" / "smoke").exists()
    fig = wd / "figures" / "smoke-partial"
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
    for executed in (wd / "results" / "smoke-partial" / "notebooks").glob("*.ipynb"):
        outputs = [o for c in nbformat.read(executed, as_version=4).cells if c.cell_type == "code" for o in c.outputs]
        assert any("image/png" in o.get("data", {}) for o in outputs), f"{executed.name} shows no figure"
        text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
        assert "it/s" not in text and "s/it" not in text, f"{executed.name} has progress bars in its outputs"
        md = [o for o in outputs if "text/markdown" in o.get("data", {})]
        assert md and "What we measured" in md[-1]["data"]["text/markdown"], f"{executed.name} has no closing summary"
    # the report of this run (the builder of `make report`), loaded in headless Chromium (tests/test_report.py)
    r = snakemake(["--profile", "profiles/smoke", "--cores", "2", "report"], wd)
    assert r.returncode == 0, r.stderr[-3000:]
    from test_report import OUTPUT, check_site, verdict_counts_match

    got = check_site(wd / "site" / "smoke-partial", {"index.html": OUTPUT / "smoke_landing.png"})
    verdict_counts_match(got["tables"], pd.read_csv(fig / "claims.csv"))
    shown = list((wd / "site" / "smoke-partial" / "notebooks").glob("*.html"))
    assert len(shown) >= 10 and got["images"] >= len(shown)


@pytest.mark.slow
def test_quick_profile_without_data_hands_every_rule_kind_to_papermill(tmp_path):
    """A fresh copy with no data plans the quick profile's DAG; every planned notebook job's shell command is run
    through papermill's own command line with --prepare-only (argument parsing and parameter injection, no
    execution): each must exit 0, and the injected input lists must arrive as lists (an empty one included: the
    race has no real matrix here), never as shell words. Together with the smoke run above, which executes every
    rule kind, this is the fresh-machine check of ``make reproduce``."""
    wd = workflow_copy(tmp_path)
    r = snakemake(["--profile", "profiles/quick", "--cores", "2", "-n", "-p"], wd)
    assert r.returncode == 0, r.stderr[-3000:]
    jobs, rule = {}, None
    for line in r.stdout.splitlines():
        if m := re.match(r"(?:local)?rule (\w+):", line.strip()):
            rule = m.group(1)
        elif line.startswith("Shell command: papermill"):
            jobs.setdefault(rule, line.removeprefix("Shell command: "))
    assert {"race", "zhou_fig3", "robin_summary", "pulse_summary", "pulse_coverage", "search_certified"} <= set(jobs)
    for rule, cmd in jobs.items():
        argv = shlex.split(cmd)
        argv = argv[: argv.index(">")] if ">" in argv else argv
        out = tmp_path / f"prepared_{rule}.ipynb"
        argv[argv.index("python3") + 2] = str(out)  # papermill -k python3 IN OUT ...
        p = subprocess.run([str(Path(sys.executable).parent / argv[0]), *argv[1:], "--prepare-only"], cwd=wd,
                           env=_env(), capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, f"{rule}: {p.stderr[-2000:]}"
        assert "unknown parameter" not in p.stderr.lower(), f"{rule}: {p.stderr[-2000:]}"
        injected = next(c for c in nbformat.read(out, as_version=4).cells if "injected-parameters" in c.metadata.get("tags", []))
        values = {}
        exec(injected.source, {}, values)
        for name, value in values.items():
            if name.startswith("in_") and name not in ("in_reach", "in_fit"):  # one file each by design
                assert isinstance(value, list), f"{rule}: {name} = {value!r}"
            if name.startswith("out_"):
                assert value is None or (isinstance(value, str) and value), f"{rule}: {name} = {value!r}"
    race = next(c for c in nbformat.read(tmp_path / "prepared_race.ipynb", as_version=4).cells
                if "injected-parameters" in c.metadata.get("tags", []))
    assert "in_accs = []" in race.source


def test_parameters_are_collapsed_in_source_and_executed_notebooks():
    """Issue 69, item 5: the parameters cell of every source notebook, and papermill's injected parameters of every
    committed executed notebook, open collapsed in JupyterLab (``jupyter.source_hidden``)."""
    def hidden(cell):
        return cell.get("metadata", {}).get("jupyter", {}).get("source_hidden") is True

    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        params = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert all(hidden(c) for c in params), f"{path.name}: parameters cell not collapsed"
    committed = sorted((ROOT / "results").glob("*/notebooks/*.ipynb"))
    tracked = subprocess.run(["git", "ls-files", *map(str, committed)], capture_output=True, text=True, cwd=ROOT)
    for path in [ROOT / f for f in tracked.stdout.split()] if tracked.returncode == 0 else []:
        nb = nbformat.read(path, as_version=4)
        injected = [c for c in nb.cells if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
        assert all(hidden(c) for c in injected), f"{path}: injected parameters not collapsed (book --compact)"


def test_executed_summary_notebooks_open_with_their_verdicts_from_the_ledger():
    """Issue 69, item 5: a committed executed summary notebook shows, right after its title, a one-line-per-row table
    of the verdicts of the rows it wrote, as the committed ledger grades them (``book --compact`` writes it)."""
    ledger = pd.read_csv(ROOT / "figures" / "paper" / "claims.csv").set_index("claim")
    seen: dict[str, list[str]] = {}
    for path in sorted((ROOT / "results" / "paper" / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        outs = "".join(str(o.get("data", {}).get("text/markdown", "")) for c in nb.cells if c.cell_type == "code"
                       for o in c.get("outputs", []))
        if "What we measured" not in outs:
            continue
        cell = nb.cells[1]
        assert "verdicts" in cell.get("metadata", {}).get("tags", []), f"{path.name}: no verdict table after the title"
        # a list since issue 73, item 5: "- **verdict**: statement (`row-id`)", one line per row
        lines = [x for x in cell.source.splitlines() if x.startswith("- ")]
        rows = [(m.group(2), m.group(1)) for x in lines
                if (m := re.fullmatch(r"- \*\*([a-z ]+)\*\*: .+ \(`([a-z0-9-]+)`\)", x))]
        assert rows and len(rows) == len(lines), f"{path.name}: a verdict line that is not (verdict, statement, id)"
        for claim, verdict in rows:
            assert claim in ledger.index, f"{path.name}: {claim} is not a ledger row"
            assert ledger.loc[claim, "verdict"] == verdict, f"{path.name}: {claim} is {ledger.loc[claim, 'verdict']}"
            seen[claim] = seen.get(claim, []) + [path.name]
    # every ledger row is matched, in one notebook's table (counting matched rows, not notebooks: issue 76, item 7)
    assert sorted(seen) == sorted(ledger.index), f"ledger rows in no notebook's table: {set(ledger.index) - set(seen)}"
    assert all(len(v) == 1 for v in seen.values()), {k: v for k, v in seen.items() if len(v) > 1}


def test_a_pool_of_its_own_grid_keeps_the_others_on_the_common_one():
    """``bandit_fracs_by_pool`` (issue 74: Bench 1's pools below saturation) moves only the pool it names."""
    from paperlib.papers.pulse.experiments import budgets

    cfg = {"batch_size": 4, "t0": 1, "bandit_fracs": [0.1, 0.5], "bandit_fracs_by_pool": {"a-gap0.01": [0.05, 0.1]}}
    assert budgets(cfg, 10, 100, "a-gap0.01") == (40, [40 + 50, 40 + 100])
    assert budgets(cfg, 10, 100, "b-full") == budgets(cfg, 10, 100) == (40, [40 + 100, 40 + 500])


def test_a_rerun_from_nothing_charges_every_job_of_the_dag():
    """Issue 74, item 4: the cost of ``make reproduce`` from nothing counts the DAG's jobs, not only the measured
    ones: a rule's unmeasured jobs at its measured jobs' mean, a rule with none measured at its recorded estimate,
    and a rule with neither left out and named (the total is then "at least"). Expected values by hand."""
    import pandas as pd

    from paperlib.pipeline.costs import parse_job_stats, rerun_cost, rerun_wall_bounds

    stats = "Building DAG of jobs...\nJob stats:\njob      count\n-----  -------\na          4\nb 1\nclaims 1\ntotal 6\n\nx 3\n"
    assert parse_job_stats(stats) == {"a": 4, "b": 1}  # the bookkeeping rule left out, the table ends at total
    assert parse_job_stats("nothing to be done") == {}
    jobs = pd.DataFrame({"rule": ["a", "a"], "job": ["a1", "a2"], "wall_s": [3600.0, 7200.0],
                         "cpu_s": [1800.0, 5400.0], "max_rss_mb": [1.0, 1.0]})
    cost = rerun_cost(jobs, {"a": 4, "b": 1, "c": 2}, {"b": {"cpu_h": 0.5, "longest_min": 30, "source": "timed"}})
    a, b, c = (cost[cost.rule == r].iloc[0] for r in "abc")
    assert (a.jobs, a.measured, a.cpu_h, a.wall_h, a.longest_min) == (4, 2, 4.0, 6.0, 120.0)  # 0.5 + 1.5 + 2 x 1.0
    assert a.basis == "2 measured, 2 at their mean" and a.source == "part-mean"
    assert (b.cpu_h, b.longest_min) == (0.5, 30.0) and b.basis == "estimate: timed" and b.source == "estimate"
    assert c.cpu_h != c.cpu_h and c.basis == "not measured, no estimate" and c.source == "none"
    # 2 cores: work 6.5 h -> at least 3.25 h, at most 3.25 + (2 + 0.5) h; c has no number and is left out
    assert rerun_wall_bounds(cost, 2) == (3.25, 5.75)
    # a rule whose unmeasured jobs are known to cost far more than its measured ones: those at the estimate
    heavy = {"a": {"unmeasured_cpu_h_each": 3.0, "longest_min": 200, "source": "one fit timed"}}
    (a,) = rerun_cost(jobs, {"a": 4}, heavy).itertuples()
    assert (a.cpu_h, a.wall_h, a.longest_min) == (0.5 + 1.5 + 2 * 3.0, 1 + 2 + 2 * 3.0, 200.0)
    assert a.basis == "2 measured, 2 at an estimate of 3.00 CPU h each: one fit timed" and a.source == "part-estimate"
    (a,) = rerun_cost(jobs, {"a": 2}, heavy).itertuples()  # every job measured: the estimate is not used
    assert (a.cpu_h, a.basis, a.source) == (2.0, "measured", "measured")


@pytest.mark.slow
def test_the_committed_dag_job_counts_are_the_dags():
    """``results/<profile>/benchmarks/dag_jobs.csv`` (the from-nothing cost's job counts) is what Snakemake's dry run
    of the profile makes today: a rule added or a dataset dropped moves it."""
    from paperlib.pipeline.costs import dag_jobs, read_dag_jobs

    if not os.environ.get("PAPERLIB_DATA"):
        pytest.skip("the paper DAG needs $PAPERLIB_DATA")
    for profile in ("paper", "quick"):
        assert dag_jobs(ROOT, profile) == read_dag_jobs(ROOT / "results" / profile / "benchmarks"), profile
