"""Which notebook is a committed record, and the one command that regenerates each notebook (issue 75).

A *record* is an executed copy under ``results/<profile>/notebooks/``: what the workflow ran, committed, read-only to
a reader (:mod:`paperlib.pipeline.lab` refuses to save over it; :func:`paperlib.pipeline.notebook.start` refuses to
rerun it in place). A *source* is a notebook of ``notebooks/``: it runs at smoke size by hand.

Every source notebook's second cell (:func:`rerun_cell`) names the Snakemake target that regenerates it and the
command, at paper size and at smoke size; ``python -m paperlib.pipeline.index`` writes those cells and
``tests/test_notebook_index.py`` fails when one is stale or names a target the workflow does not make.

No import beyond the standard library: the JupyterLab server, the notebooks' kernels and the index all read it."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

#: the job notebooks (one per dataset, pool, cell or block) and the summary notebook whose target reruns them: a
#: summary's rule needs every one of its jobs' outputs, so its one command reruns the jobs that are missing or stale
JOB_SUMMARY = {
    "zhou_fig3_block": "zhou_fig3_summary",
    "zhou_fig3_dataset": "zhou_fig3_summary",
    "zhou_fig4_dataset": "zhou_fig4_ablations",
    "pulse_cv_pool": "pulse_lowrank",
    "pulse_fit": "pulse_summary",
    "pulse_block": "pulse_summary",
    "pulse_pool": "pulse_summary",
    "pulse_coverage_block": "pulse_coverage",
    "pulse_coverage_pool": "pulse_coverage",
    "robin_cell": "robin_summary",
    "race_block": "race",
    "race_dataset": "race",
    "search_block": "search_certified",
}

#: the id of the generated cell in a source notebook
RERUN_CELL_ID = "rerun"


def is_record(path: str) -> bool:
    """Whether a path relative to the checkout is an executed copy: ``results/<profile>/notebooks/*.ipynb``."""
    parts = PurePosixPath(str(path).strip("/")).parts
    return len(parts) == 4 and parts[0] == "results" and parts[2] == "notebooks" and parts[3].endswith(".ipynb")


def target(stem: str, profile: str) -> str:
    """The workflow target that regenerates notebook ``stem`` (its summary's executed copy for a job notebook)."""
    return f"results/{profile}/notebooks/{JOB_SUMMARY.get(stem, stem)}.ipynb"


def command(stem: str, profile: str) -> str:
    return f"snakemake --profile profiles/{profile} {target(stem, profile)}"


def record_message(path: str) -> str:
    """What a reader is told who tries to save, rename, delete or rerun a record in place."""
    path = str(path).strip("/")
    profile = PurePosixPath(path).parts[1]
    stem = PurePosixPath(path).stem
    return (f"{path} is a committed record of the {profile} run and is read-only here: run its source "
            f"notebooks/{stem}.ipynb (smoke size at its defaults), or regenerate it with `{command(stem, profile)}`")


def rerun_markdown(stem: str) -> str:
    """The text of a source notebook's rerun cell."""
    summary = JOB_SUMMARY.get(stem)
    lead = (f"**Rerun.** A job notebook of `{summary}`: the workflow runs it once per dataset, pool, cell or block, "
            "and the summary's target reruns every job it lacks. " if summary else "**Rerun.** ")
    return (lead + f"At paper size (the datasets in `$PAPERLIB_DATA`, or `paperlib data fetch --all` first):\n"
            f"`{command(stem, 'paper')}`; at smoke size (toy data and two small ROBIN sets, minutes): "
            f"`{command(stem, 'smoke')}`, or Run All here, which runs at smoke size too. A run that lacks a dataset "
            "writes under `results/<profile>-partial/` instead and says which one it lacks. The committed record of "
            "the paper run is " + ("its summary's, " if summary else "")
            + f"`{target(stem, 'paper')}` (read-only in `make lab`).")


def rerun_cell(stem: str) -> dict:
    return {"cell_type": "markdown", "id": RERUN_CELL_ID, "metadata": {},
            "source": rerun_markdown(stem).splitlines(True)}


def kernel_record() -> str | None:
    """The record this kernel runs in place, as a path relative to the checkout, or None.

    JupyterLab starts a notebook's kernel in the notebook's folder and names the notebook in ``JPY_SESSION_NAME``;
    the workflow runs every notebook from the checkout's root. A kernel whose folder is ``results/<profile>/
    notebooks/`` is a reader's Run All on a record."""
    from .. import paths

    try:
        rel = Path.cwd().resolve().relative_to(Path(paths.RESULTS_DIR).resolve())
    except ValueError:
        return None
    if len(rel.parts) != 2 or rel.parts[1] != "notebooks":
        return None
    name = Path(os.environ.get("JPY_SESSION_NAME") or "this-notebook.ipynb").name
    return f"results/{rel.parts[0]}/notebooks/{name}"


class RecordRerun(RuntimeError):
    """Raised by the first cell of a record run in place: the message alone, without a traceback, in the notebook."""

    def _render_traceback_(self):  # IPython shows these lines instead of a traceback
        return [f"RecordRerun: {self}"]
