"""The notebooks' index (``notebooks/index.ipynb``): a reader's way in, made from the report's shape.

One markdown notebook, written from ``paperlib/pipeline/book.yaml`` (the one place that says which notebook makes
which paper figure): for every chapter its sections in the paper's order, each with its source notebook (runs at
smoke size by hand) and its executed copy of the paper profile (``results/paper/notebooks/``); then
the job notebooks the summaries gather, and any notebook of ``notebooks/`` the book does not name. ``make lab`` opens
JupyterLab on it; ``python -m paperlib.pipeline.index`` rewrites it, and every source notebook's second cell, which names the command that
regenerates it (:mod:`paperlib.pipeline.records`; ``tests/test_notebook_index.py`` fails when the committed index or a
rerun cell is stale, or the index misses a notebook).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from .. import paths

BOOK = Path(__file__).with_name("book.yaml")
#: the profiles whose executed notebooks are committed (the quick profile's appear under results/quick/notebooks/
#: after `make reproduce`, and are not linked: the index must be the same on every clone)
PROFILES = ("paper",)

#: the job notebooks, which a summary gathers (its per-dataset, per-pool or per-block jobs)
JOBS = {
    "zhou_fig3_block": "Zhou Figure 3: one block of runs on one dataset",
    "zhou_fig3_dataset": "Zhou Figure 3: one dataset's blocks pooled",
    "zhou_fig4_dataset": "Zhou Figure 4: the ablations on one dataset",
    "pulse_cv_pool": "PULSE Step 1: cross-validation on one pool",
    "pulse_fit": "PULSE Step 1: the factors of one pool, read by its blocks",
    "pulse_block": "PULSE Figures 1-4: one block of runs on one pool",
    "pulse_pool": "PULSE Figures 1-4: one pool's blocks concatenated",
    "pulse_coverage_block": "PULSE Theorem 1 in the bandit: one block of runs on one pool",
    "pulse_coverage_pool": "PULSE Theorem 1 in the bandit: one pool",
    "robin_cell": "ROBIN Figures 3-9: one judge x attribute cell (or one block of its runs)",
    "race_block": "The race: one block of runs on one matrix",
    "search_block": "Certified search (and with a prior): one block of runs on every matrix",
    "race_dataset": "The race: one matrix (its blocks pooled)",
}


def _cell(text: str, i: int) -> dict:
    return {"cell_type": "markdown", "id": str(i), "metadata": {}, "source": text.splitlines(True)}  # ids as nbstripout writes them


def _links(root: Path, name: str) -> str:
    out = [f"[source](./{name}.ipynb)"]
    for prof in PROFILES:
        if (root / "results" / prof / "notebooks" / f"{name}.ipynb").exists():
            out.append(f"[executed, {prof}](../results/{prof}/notebooks/{name}.ipynb)")
    return " · ".join(out)


def _job_figures(root: Path, pattern: str | None):
    """The committed per-dataset figures of a section's jobs (book.yaml's ``jobs.figures``, a glob under
    ``figures/<profile>/``): ("dataset", [links]) or None."""
    if not pattern:
        return None
    links = []
    for prof in PROFILES:
        for f in sorted((root / "figures" / prof).glob(pattern)):
            if f.suffix == ".png":
                rel = f.relative_to(root).as_posix()
                links.append(f"[{f.stem}](../{rel})")
    return ("dataset", links) if links else None


def index_notebook(root: Path | None = None) -> dict:
    """The index as a notebook (nbformat 4 JSON)."""
    root = Path(root or paths.ROOT)
    book = yaml.safe_load(BOOK.read_text())
    named = set()
    parts = ["# The notebooks\n\nEvery figure, table and verdict of the reproduction comes from one of these notebooks, "
             "run by the Snakemake workflow (`make reproduce`, the quick profile; `make reproduce PROFILE=paper`, the "
             "published scale). A **source** notebook opened here runs at smoke size (toy data, a few runs: a wiring "
             "check, whose verdicts are not the paper run's); its **executed** copies under `results/<profile>/"
             "notebooks/` show the runs the ledger grades. `make report` builds the same as a book with the ledger.\n"]
    for ch in book["chapters"]:
        lines = [f"## {ch['title']}\n"]
        for sec in ch["sections"]:
            nb = sec.get("notebook")
            if not nb:
                continue
            named.add(nb)
            lines.append(f"- **{sec['title']}**: `{nb}` ({_links(root, nb)})")
            jobs = (sec.get("jobs") or {}).get("notebook")
            if jobs:
                lines.append(f"  - its jobs: `{jobs}`, one per dataset or pool (source [here](./{jobs}.ipynb); "
                             "their executed copies are logs of a run, written under `logs/<profile>/notebooks/` by "
                             "the workflow and not committed)")
                named.add(jobs)
            figs = _job_figures(root, (sec.get("jobs") or {}).get("figures"))
            if figs:
                lines.append(f"  - their figures, one per {figs[0]}: " + " · ".join(figs[1]))
        parts.append("\n".join(lines) + "\n")
    jobs = [f"- `{k}`: {v} ([source](./{k}.ipynb))" for k, v in JOBS.items() if (root / "notebooks" / f"{k}.ipynb").exists()]
    named |= set(JOBS)
    parts.append("## The jobs the summaries gather\n\nRun by the workflow, one per dataset, pool, cell or block of runs; "
                 "their tables and figures are the results the summaries read (their executed notebooks are logs of a "
                 "run, written under `logs/<profile>/notebooks/` by the workflow and not committed).\n\n" + "\n".join(jobs) + "\n")
    rest = sorted(p.stem for p in (root / "notebooks").glob("*.ipynb") if p.stem not in named and p.stem != "index")
    if rest:
        parts.append("## Other notebooks\n\n" + "\n".join(f"- `{n}` ({_links(root, n)})" for n in rest) + "\n")
    return {"cells": [_cell(p, i) for i, p in enumerate(parts)],
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def render(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def with_rerun_cell(nb: dict, stem: str) -> dict:
    """Source notebook ``nb`` with its second cell the rerun cell (:func:`paperlib.pipeline.records.rerun_cell`):
    replaced where it is there, inserted after the title cell where not; cell ids renumbered as nbstripout does."""
    import copy

    from .records import rerun_cell

    nb = copy.deepcopy(nb)
    cells = [c for c in nb["cells"] if not (c["cell_type"] == "markdown"
                                            and "".join(c["source"]).startswith("**Rerun.**"))]
    cells.insert(1, rerun_cell(stem))
    for i, c in enumerate(cells):
        c["id"] = str(i)
    nb["cells"] = cells
    return nb


def sources(root: Path) -> list[Path]:
    return sorted(p for p in (Path(root) / "notebooks").glob("*.ipynb") if p.stem != "index")


def main(argv=None) -> int:
    import nbformat

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=None, help="default: notebooks/index.ipynb of the checkout")
    p.add_argument("--check", action="store_true", help="exit 1 if the committed index or a source notebook's rerun "
                                                         "cell is not what this writes")
    args = p.parse_args(argv)
    out = args.out or Path(paths.ROOT) / "notebooks" / "index.ipynb"
    text = render(index_notebook())
    stale = []
    for src in sources(paths.ROOT) if args.out is None else []:
        nb = json.loads(src.read_text())
        new = with_rerun_cell(nb, src.stem)
        if new != nb:
            stale.append(src.name)
            if not args.check:
                nbformat.write(nbformat.from_dict(new), src)
    if args.check:
        same = out.exists() and out.read_text() == text
        print(f"{out}: {'current' if same else 'stale: run python -m paperlib.pipeline.index'}")
        for name in stale:
            print(f"notebooks/{name}: its rerun cell is stale: run python -m paperlib.pipeline.index")
        return 0 if same and not stale else 1
    out.write_text(text)
    print(f"wrote {out}" + (f" and the rerun cells of {len(stale)} source notebooks" if stale else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
