"""notebooks/index.ipynb, a reader's way in (issue 69): current, listing every notebook, every link resolving."""

from __future__ import annotations

import json
import re
from pathlib import Path

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


def test_a_notebook_at_its_defaults_says_it_runs_at_smoke_size():
    """Issue 69, item 3: start() with no block (a notebook opened by hand) or the smoke profile's block marks the run
    smoke; its closing section tags every verdict '(smoke)' and repeats the banner; a profile's block does not."""
    from paperlib.ledger import Claim
    from paperlib.pipeline import notebook as nb
    from paperlib.pipeline.config import load_config, paper_config, smoke_config

    row = Claim("Zhou et al. 2025", "zhou-x", "a statement", "evidence", "measured", "holds")
    nb.start("zhou", None, threads=1)
    text = nb.what_we_measured([row]).data
    assert "**holds** (smoke)" in text and nb.SMOKE_BANNER in text and "at smoke size" in text
    nb.start("zhou", smoke_config("zhou"), threads=1)
    assert "(smoke)" in nb.what_we_measured([row]).data
    nb.start("zhou", paper_config(load_config("quick"), "zhou"), threads=1)
    text = nb.what_we_measured([row]).data
    assert "(smoke)" not in text and nb.SMOKE_BANNER not in text and "**holds** `zhou-x`" in text


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
