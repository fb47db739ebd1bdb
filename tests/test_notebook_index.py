"""notebooks/index.ipynb, a reader's way in (issue 69): current, listing every notebook, every link resolving."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paperlib.pipeline.index import index_notebook, render

ROOT = Path(__file__).resolve().parent.parent


def test_the_committed_index_is_what_the_book_makes():
    assert (ROOT / "notebooks" / "index.ipynb").read_text() == render(index_notebook(ROOT)), (
        "notebooks/index.ipynb is stale: run python -m paperlib.pipeline.index")


def test_the_index_lists_every_notebook_and_its_links_resolve():
    nb = json.loads((ROOT / "notebooks" / "index.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"])
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        if path.stem != "index":
            assert f"`{path.stem}`" in text, f"the index does not list {path.name}"
    links = re.findall(r"\]\((\.{1,2}/[^)]+)\)", text)
    assert len(links) > 20
    for link in links:
        assert (ROOT / "notebooks" / link).resolve().exists(), f"the index links to {link}, which is not there"
    assert all(c["cell_type"] == "markdown" for c in nb["cells"])  # nothing to run, nothing to strip


def test_every_source_notebook_names_the_command_that_regenerates_it():
    """Issue 75, item 6: a source notebook's second cell is its rerun cell as paperlib.pipeline.records writes it,
    naming a target whose committed record of the paper run exists."""
    from paperlib.pipeline.index import sources, with_rerun_cell
    from paperlib.pipeline.records import command, target

    found = sources(ROOT)
    assert len(found) >= 20
    for src in found:
        nb = json.loads(src.read_text())
        assert nb == with_rerun_cell(nb, src.stem), f"{src.name}: stale rerun cell: run python -m paperlib.pipeline.index"
        text = "".join(nb["cells"][1]["source"])
        assert command(src.stem, "paper") in text and command(src.stem, "smoke") in text
        assert (ROOT / target(src.stem, "paper")).is_file(), f"{src.name}: no record at {target(src.stem, 'paper')}"


@pytest.mark.slow
def test_the_rerun_cells_name_targets_the_workflow_makes():
    """Every smoke command of a rerun cell is a target of the DAG (one dry run over all of them; the paper ones are
    the same rules' outputs under results/paper/, whose records the test above finds)."""
    import os
    import shutil
    import subprocess
    import sys

    from paperlib.pipeline.index import sources
    from paperlib.pipeline.records import target

    data = os.environ.get("PAPERLIB_DATA")
    if not data or not Path(data).is_dir():
        pytest.skip("the smoke profile's two ROBIN sets are read from $PAPERLIB_DATA")
    targets = sorted({target(p.stem, "smoke") for p in sources(ROOT)})
    exe = shutil.which("snakemake", path=str(Path(sys.executable).parent)) or "snakemake"
    run = subprocess.run([exe, "--profile", "profiles/smoke", "--cores", "1", "-n", "--quiet", "--", *targets],
                         cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


def test_a_run_is_labelled_by_what_it_ran():
    """Issue 69, item 3 and issue 75, item 5: start() with no block (a notebook opened by hand) or the smoke
    profile's block marks the run smoke; any other block that is not the paper profile's (the quick profile's, or
    the smoke block with one setting changed) says it is not the paper run and names what differs, in its closing
    section and in every figure's title; only the paper profile's own block carries no label."""
    import copy

    import matplotlib.pyplot as plt
    from ledger_rows import row as make_row

    from paperlib.figures import reproduction_title
    from paperlib.pipeline import notebook as nb
    from paperlib.pipeline.config import load_config, paper_config, smoke_config

    row = make_row("Zhou et al. 2025", "zhou-x", "holds", "a statement", "evidence", "measured")

    def title():
        fig = plt.figure()
        reproduction_title(fig, "Zhou et al. 2025", "Figure 3", "precision", "synthetic", 2)
        text = fig._suptitle.get_text()
        plt.close(fig)
        return text

    try:
        nb.start("zhou", None, threads=1)
        text = nb.what_we_measured([row]).data
        assert "**holds** (smoke)" in text and nb.SMOKE_BANNER in text and "at smoke size" in text
        assert title().endswith("2 repetitions per point; smoke size, not the paper run]")
        nb.start("zhou", smoke_config("zhou"), threads=1)
        assert "(smoke)" in nb.what_we_measured([row]).data
        # the smoke block with more runs: still toy data, so still not the paper run (the smoke tag alone would go)
        more = copy.deepcopy(smoke_config("zhou"))
        more["reps"] = {k: 7 for k in more["reps"]}
        nb.start("zhou", more, threads=1)
        text = nb.what_we_measured([row]).data
        paper_reps = paper_config(load_config("paper"), "zhou")["reps"]["ucbe"]
        assert "**holds** (not the paper run)" in text and "(smoke)" not in text and "Not the paper run" in text
        assert f"reps.ucbe 7 (paper: {paper_reps})" in text and "datasets" in text
        assert "not the paper run" in title()
        nb.start("zhou", paper_config(load_config("quick"), "zhou"), threads=1)
        text = nb.what_we_measured([row]).data
        assert "(not the paper run)" in text and "budget_fracs" in text
        nb.start("zhou", paper_config(load_config("paper"), "zhou"), threads=1)
        text = nb.what_we_measured([row]).data
        assert "paper run" not in text and nb.SMOKE_BANNER not in text and "**holds** `zhou-x`" in text
        assert title().endswith("2 repetitions per point]")
    finally:
        nb.start("zhou", None, threads=1)


def test_a_record_run_in_place_stops_at_its_first_cell(tmp_path, monkeypatch):
    """Issue 75, item 1: a kernel started in results/<profile>/notebooks/ (JupyterLab's Run All on a committed
    record) stops in start(), before reading or writing anything, with the command that regenerates the record;
    the workflow's kernels (started at the checkout's root) and a source's are not stopped."""
    import pytest

    from paperlib import paths
    from paperlib.pipeline import notebook as nb
    from paperlib.pipeline.records import RecordRerun

    (tmp_path / "results" / "paper" / "notebooks").mkdir(parents=True)
    (tmp_path / "notebooks").mkdir()
    monkeypatch.setattr(paths, "RESULTS_DIR", tmp_path / "results")
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "results" / "paper" / "notebooks" / "zhou_fig1_cost.ipynb"))
    monkeypatch.chdir(tmp_path / "results" / "paper" / "notebooks")
    with pytest.raises(RecordRerun) as err:
        nb.start("zhou", None, threads=1)
    msg = str(err.value)
    assert "results/paper/notebooks/zhou_fig1_cost.ipynb is a committed record" in msg
    assert "snakemake --profile profiles/paper results/paper/notebooks/zhou_fig1_cost.ipynb" in msg
    assert err.value._render_traceback_() == [f"RecordRerun: {msg}"]  # the message alone in the notebook
    for cwd in (tmp_path, tmp_path / "notebooks"):
        monkeypatch.chdir(cwd)
        nb.start("zhou", None, threads=1)


def test_the_cost_of_a_rerun_is_read_from_benchmark_files(tmp_path):
    """Issue 67, item 3: per-rule CPU hours, longest job and peak memory from Snakemake's benchmark files (rule
    folders, and flat files named after their rule), and the wall-time bounds of list scheduling, computed by hand."""
    from paperlib.pipeline.costs import cost_markdown, cost_table, read_benchmarks, wall_time_bounds

    head = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    (tmp_path / "pulse_block").mkdir()
    for name, wall, cpu, rss in (("a", 3600, 3000, 2048), ("b", 1800, 1700, 3072)):
        (tmp_path / "pulse_block" / f"pulse_block_{name}.tsv").write_text(head + f"{wall}\t0\t{rss}\t0\t0\t0\t0\t0\t0\t{cpu}\n")
    (tmp_path / "pulse_summary_x.tsv").write_text(head + "600\t0\t1024\t0\t0\t0\t0\t0\t0\t500\n")
    jobs = read_benchmarks(tmp_path, rules=["pulse_summary", "pulse"])
    assert sorted(jobs.rule) == ["pulse_block", "pulse_block", "pulse_summary"]
    t = cost_table(jobs).set_index("rule")
    assert t.loc["pulse_block", "jobs"] == 2 and abs(t.loc["pulse_block", "cpu_h"] - 4700 / 3600) < 1e-12
    assert t.loc["pulse_block", "longest_min"] == 60 and t.loc["pulse_block", "peak_gb"] == 3
    # 6,000 s of work: on 2 cores at least 3,000 s but the longest job is 3,600 s; at most 3,000 + (3,600 + 600) s
    assert wall_time_bounds(jobs, 2) == (1.0, 7200 / 3600)
    assert wall_time_bounds(jobs, 16) == (1.0, (6000 / 16 + 4200) / 3600)
    text = "\n".join(cost_markdown(tmp_path, rules=["pulse_summary"]))
    assert "| `pulse_block` | 2 | 1.31 | 60.0 | 3.0 |" in text and "2 cores: 1.0 to 2.0 hours" in text
    assert "No job" in "\n".join(cost_markdown(tmp_path / "none"))
    # issue 74, item 4: the rules of the DAG without a benchmark file are named, not left out silently
    text = "\n".join(cost_markdown(tmp_path, rules=["pulse_summary"], every_rule=["pulse_block", "pulse_summary",
                                                                                "race_block"]))
    assert "**Not measured:** 1 of the DAG's 3 computing rules" in text and "`race_block`" in text
    assert "`pulse_block`," not in text.split("Not measured")[1]


def test_the_dag_rules_are_read_from_the_workflow():
    from paperlib.pipeline.costs import workflow_rules

    rules = workflow_rules(ROOT)
    assert {"pulse_block", "zhou_fig3_block", "race_block", "robin_cell", "search_block"} <= set(rules)
    assert not {"all", "claims", "report"} & set(rules) and len(rules) == len(set(rules)) >= 30


def test_no_source_notebook_line_is_markdown_by_accident():
    """Issue 75, item 7: a wrapped line that begins with '>' renders as a block quote (notebooks/race.ipynb's
    '>= T at every larger budget'), one indented four spaces as code; no source notebook's prose has either."""
    from paperlib.pipeline.index import sources

    bad = []
    for src in sources(ROOT):
        for i, cell in enumerate(json.loads(src.read_text())["cells"]):
            if cell["cell_type"] != "markdown":
                continue
            fenced = False
            for line in "".join(cell["source"]).split("\n"):
                fenced ^= line.startswith("```")
                if not fenced and (line.startswith(">") or line.startswith("    ")):
                    bad.append(f"{src.name} cell {i}: {line[:60]!r}")
    assert not bad, bad


def test_the_registry_says_how_to_get_a_dataset_in_one_sentence():
    """Issue 75, item 7: no stale continuation line ("shared data into $PAPERLIB_DATA") after a dataset's `obtain`."""
    from paperlib.data.registry import registry

    for name, ds in registry().items():
        assert "\n" not in ds.obtain and ds.obtain.count("$PAPERLIB_DATA") <= 1, (name, ds.obtain)


def test_a_long_cell_shows_its_progress_in_a_notebook_run_by_hand(tmp_path):
    """Issue 75, item 7: tqdm(disable=None) is off when stderr is not a terminal, as in a Jupyter kernel; a notebook
    run by hand shows its bar there, while the workflow's runs (a progress log) write it to the log only."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from paperlib.progress import progress_bar, send_progress_to\n"
        "send_progress_to(None)\n"
        "bar = progress_bar(3, 'runs')\nfor _ in range(3):\n    bar.update(1)\nbar.close()"),
        nbformat.v4.new_code_cell(
        f"send_progress_to({str(tmp_path / 'progress.log')!r})\n"
        "bar = progress_bar(3, 'logged')\nbar.update(3)\nbar.close()\nsend_progress_to(None)")])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    shown = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.get("name") == "stderr")
    assert "runs: 100%" in shown and "3/3" in shown, nb.cells[0].outputs
    assert not [o for o in nb.cells[1].outputs if o.get("name") == "stderr"]
    assert "logged: 100%" in (tmp_path / "progress.log").read_text()


def test_a_jobs_own_figure_title_says_a_smoke_run():
    """Issue 75, item 5: the figures that write their own title (a job's one-dataset, one-pool or one-cell figure)
    say what the run is, as :func:`paperlib.figures.reproduction_title` does: Zhou's Figure 3 column of a smoke run
    said only "synth_tiny (synthetic data, 10 x 200)". Checked on one such figure and, for the rest, in their source:
    every title a plotting module writes from the paper's name goes through ``run_noted``."""
    import re
    from pathlib import Path

    import matplotlib.pyplot as plt
    import pandas as pd

    from paperlib import figures
    from paperlib.papers.zhou.plots import figure3_dataset

    table = pd.DataFrame({"metric": ["top1 gap eps=0.01"] * 2, "method": ["ucbe"] * 2, "budget_frac": [0.05, 0.1],
                          "value": [0.5, 1.0], "se": [0.1, 0.0]})
    try:
        figures.label_run("smoke size, not the paper run")
        fig = figure3_dataset(table, "synth_tiny", "synthetic", (10, 200))
        assert fig._suptitle.get_text().endswith("(synthetic data, 10 x 200) [smoke size, not the paper run]")
        plt.close(fig)
        figures.label_run(None)
        fig = figure3_dataset(table, "synth_tiny", "synthetic", (10, 200))
        assert "paper run" not in fig._suptitle.get_text()
        plt.close(fig)
    finally:
        figures.label_run(None)
    root = Path(__file__).resolve().parents[1] / "paperlib"
    bare = []
    for path in [*root.glob("papers/*/plots.py"), *root.glob("beyond/*/plots.py")]:
        for m in re.finditer(r"(?:suptitle|set_title)\((?!run_noted\()f\"\{(?:PAPER|title)\}", path.read_text()):
            bare.append(f"{path.relative_to(root)}: {m.group(0)}")
    assert not bare, f"titles that would not say a smoke run: {bare}"


def test_a_notebooks_verdicts_are_a_list_that_keeps_the_statement_readable(tmp_path):
    """Issue 73, item 5: at 1280 px JupyterLab squeezed a three-column verdict table's statement into 92-187 px
    beside the ids in code font; a list line per row cannot squeeze it. A long statement is cut at a word."""
    import pandas as pd

    from paperlib.pipeline.book_notebooks import verdict_table

    long = "The best method is identified " + "with only a small share of the budget " * 8
    ledger = tmp_path / "figures" / "paper" / "claims.csv"
    ledger.parent.mkdir(parents=True)
    pd.DataFrame({"claim": ["zhou-best-5-15pct", "zhou-other-row"], "verdict": ["partly", "holds"],
                  "statement": [long, "A | short one"]}).to_csv(ledger, index=False)
    nb = {"cells": [{"cell_type": "code", "outputs": [{"data": {"text/markdown":
          "### What we measured\n- `zhou-best-5-15pct`: ...\n- `zhou-other-row`: ..."}}]}]}
    lines = verdict_table(nb, ledger).splitlines()
    rows = [x for x in lines if x.startswith("- ")]
    assert not any(x.startswith("|") for x in lines)
    assert rows[1] == "- **holds**: A | short one (`zhou-other-row`)"
    first = rows[0]
    assert first.startswith("- **partly**: The best method") and first.endswith(" … (`zhou-best-5-15pct`)")
    cut = first.removeprefix("- **partly**: ").removesuffix(" … (`zhou-best-5-15pct`)")
    assert long.startswith(cut) and long[len(cut)] == " " and len(cut) <= 200
