"""Set-up and plotting helpers shared by every notebook (the notebooks narrate, the library computes).

A notebook calls :func:`start` once after its parameters cell, writes every output through
:func:`output` (a temporary folder when the parameter is ``None``, so a notebook opened by hand
writes nowhere in the repository), saves figures with :func:`save_figure` (the figure also stays
inline in the executed notebook) and closes with :func:`what_we_measured`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..figures import (  # noqa: F401  (the notebooks call them as nb.<name>)
    KIND_TAG,
    MIN_PT,
    OKABE_ITO,
    fit_print,
    kind_tag,
    panel_pages,
    readable,
    reproduction_title,
    smallest_pt,
    style,
)
from ..ledger import Claim
from ..progress import send_progress_to

_scratch: Path | None = None


MIN_DPI = 100
MAX_BYTES = 950_000


def page_path(path, default: str, k: int) -> Path:
    """Where page ``k`` of a split figure goes: the figure's own path for page 1, ``<stem>_p<k><suffix>`` next to
    it for the others."""
    p = output(path, default)
    return p if k == 1 else p.with_name(f"{p.stem}_p{k}{p.suffix}")


#: what this kernel's run is (issue 75, item 5): None for the paper run, "smoke" for the smoke profile's (a notebook
#: at its defaults), else how its parameters differ from the paper profile's (:func:`paperlib.pipeline.config.run_label`)
_label: str | None = None

SMOKE_BANNER = ("**Smoke size.** This notebook runs at its defaults: the smoke profile's toy data and a few runs, a "
                "check that the code runs end to end. Its verdicts are about that wiring check, not the paper's "
                "statements: the runs the ledger grades are the executed copies under `results/paper/notebooks/` "
                "(and `figures/paper/claims.csv`), listed in `notebooks/index.ipynb`.")


def not_paper_banner(label: str) -> str:
    return (f"**Not the paper run.** This run's parameters differ from the paper profile's "
            f"(`paperlib/config/paper.yaml`): {label}. Its verdicts are about this run: the runs the ledger grades are "
            "the executed copies under `results/paper/notebooks/` (and `figures/paper/claims.csv`).")


def banner() -> str | None:
    """What the first screen and the closing section say of this run, where it is not the paper run."""
    return None if _label is None else SMOKE_BANNER if _label == "smoke" else not_paper_banner(_label)


def start(part: str, block: dict | None, threads: int = 2, progress_log: str | None = None) -> dict:
    """A notebook's one set-up call: its block of the profile checked against the schema (the smoke profile's block
    when ``block`` is None, so a notebook opened by hand runs at smoke size), then :func:`setup`. A run that is not
    the paper run says so, by what it ran, in a banner, in its closing section and in every figure's title.

    A committed record run in place (a reader's Run All on ``results/<profile>/notebooks/*.ipynb`` in JupyterLab)
    stops here, before anything is read or written, with the command that regenerates it (:mod:`.records`)."""
    from ..figures import label_run
    from .config import check_paper_config, run_label, smoke_config
    from .records import RecordRerun, kernel_record, record_message

    global _label
    record = kernel_record()
    if record:
        raise RecordRerun(record_message(record))
    cfg = check_paper_config(block, part) if block is not None else smoke_config(part)
    _label = "smoke" if block is None else run_label(cfg, part)
    label_run(None if _label is None else "smoke size, not the paper run" if _label == "smoke"
              else "not the paper run: see its notebook")
    setup(threads, progress_log)
    _show_markdown(banner() or provenance_line())
    if _label not in (None, "smoke"):
        _show_markdown(provenance_line())
    return cfg


def provenance_line() -> str:
    """Where and when this notebook ran (issue 69): UTC time, the code's commit (with '+changes' when the work tree
    differed from it), the machine and the software; a table's own ``machine`` and ``streams`` columns say where
    and with which random streams it was made."""
    import datetime
    import platform
    import subprocess
    import sys

    import torch

    from .. import paths

    def git(*args):
        try:
            return subprocess.run(["git", "-C", str(paths.ROOT), *args], capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    if commit != "unknown" and git("status", "--porcelain", "--untracked-files=no", "paperlib"):
        commit += " +changes to paperlib/"
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"**Provenance.** Executed {when} at commit `{commit}` on {platform.machine()} "
            f"({platform.platform(terse=True)}, Python {sys.version.split()[0]}, torch {torch.__version__}, "
            f"{torch.get_num_threads()} torch threads).")


def _show_markdown(text: str) -> None:
    try:
        from IPython.display import Markdown, display
    except ImportError:  # outside a kernel: nothing to show
        return
    display(Markdown(text))


def setup(threads: int = 2, progress_log: str | None = None) -> None:
    """Torch threads, figure defaults (:func:`style`), and where progress bars go (a log file, never the notebook)."""
    from ..threads import pin_threads

    pin_threads(threads, "threads")
    style()
    tables()
    send_progress_to(progress_log)


def tables() -> None:
    """How a notebook shows a table: numbers as :func:`paperlib.figures.fmt_number` writes them (a budget fraction
    of 0.079993 is the 0.08 it stands for), a missing value as "–" (as the book's tables show it, never "NaN"), at
    most 30 rows, and every column."""
    import pandas as pd

    from ..display import fmt_number

    pd.set_option("display.float_format", fmt_number)
    pd.set_option("display.max_rows", 30)
    pd.set_option("display.max_columns", None)
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - the workflow environment has IPython
        return
    shell = get_ipython()
    if shell is None:
        return
    html = shell.display_formatter.formatters["text/html"]
    plain = shell.display_formatter.formatters["text/plain"]
    html.for_type(pd.DataFrame, lambda df: df.to_html(na_rep="–", float_format=fmt_number, max_rows=30))
    plain.for_type(pd.DataFrame, lambda df, p, cycle: p.text(df.to_string(na_rep="–", float_format=fmt_number,
                                                                            max_rows=30)))


def shown(df):
    """``df`` as a notebook shows it: what made it (its ``machine`` and ``streams`` columns, joined by
    :func:`paperlib.device.made_by_words`) printed once above the table, and the table without those columns, which repeat
    one long value on every row."""
    from ..device import MADE_BY, made_by_words

    made = made_by_words(df)
    if made:
        print("made by: " + "; ".join(made))
    return df.drop(columns=[c for c in MADE_BY if c in df])


def output(path, default: str) -> Path:
    """``path`` (its folder created), or ``default`` inside a per-session temporary folder when ``path`` is None."""
    global _scratch
    if path:
        p = Path(path)
    else:
        if _scratch is None:
            _scratch = Path(tempfile.mkdtemp(prefix="paperlib-notebook-"))
        p = _scratch / default
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def write_table(df, path, default: str) -> Path:
    """Write ``df`` without its index to :func:`output` ``(path, default)``: plain CSV, or gzip-compressed when the
    name ends in ``.gz`` with no time stamp in its header, so that the same table always makes the same bytes (the
    paper profile's ROBIN cell tables are committed this way: about a sixth of the plain CSV's size)."""
    out = output(path, default)
    compression = {"method": "gzip", "mtime": 0} if out.suffix == ".gz" else None
    df.to_csv(out, index=False, compression=compression)
    return out


class SavedPath(type(Path())):
    """The path :func:`save_figure` returns: a plain path, except that a notebook cell ending in the call shows
    nothing for it (the figure itself is shown), instead of a ``PosixPath('figures/...')`` line in the report."""

    def _ipython_display_(self) -> None:
        return None


def save_figure(fig, path, default: str, dpi: int = 110, page: int = 1, printed: bool = True) -> Path:
    """Make ``fig`` :func:`readable` and save it to ``path`` (see :func:`output`; page ``k > 1`` of a split figure
    goes to :func:`page_path`), at ``dpi`` (at least :data:`MIN_DPI`), lowered towards 80 dpi only if the file
    would exceed :data:`MAX_BYTES`; the inline backend still shows it in the notebook. A ``printed`` figure's text is
    raised to print at 6 pt or more (:func:`fit_print`); one the PDF leaves out (``print: false`` in the book) is not."""
    readable(fig)
    if printed:
        fit_print(fig)
    out = page_path(path, default, page)
    for d in (max(dpi, MIN_DPI), 90, 80):
        fig.savefig(out, dpi=d)
        if out.stat().st_size <= MAX_BYTES:
            break
    save_vector(fig, out, smallest_pt(fig) if printed else None)
    return SavedPath(out)


def save_vector(fig, png: Path, smallest: float | None = None) -> Path | None:
    """The figure's vector version beside its PNG (``x.png`` -> ``x.svg``), which the report shows and prints so
    that a grid of panels can be zoomed; none (and no stale one left) when it would exceed :data:`MAX_BYTES` (no
    tracked file over 1 MB)."""
    import matplotlib

    svg = Path(png).with_suffix(".svg")
    with matplotlib.rc_context({"svg.hashsalt": "paperlib"}):  # the same ids on every run: a rerun of the same
        meta = {"Date": None}  # figure changes no byte (no date in the file either)
        # what the print-size test reads: the text is drawn as paths, with no font size
        meta["Description"] = f"smallest text {smallest:.2f} pt" if smallest is not None else "not printed: site only"
        fig.savefig(svg, metadata=meta)
    if svg.stat().st_size > MAX_BYTES:
        svg.unlink()
        return None
    return svg


def what_we_measured(claims: list[Claim] = (), notes: list[str] = ()):
    """The closing section of a notebook: one bullet per claim (verdict first, as the ledger grades it:
    :func:`paperlib.ledger.final`) with its measurement under it in short bullets, each per-dataset list a table
    (:func:`paperlib.pipeline.measured.markdown`), then free notes."""
    from IPython.display import Markdown

    from ..ledger import final
    from .measured import markdown

    claims = final(claims)

    tag = "" if _label is None else " (smoke)" if _label == "smoke" else " (not the paper run)"
    head = "" if _label is None else " at smoke size" if _label == "smoke" else " (not the paper run)"
    lines = ["## What we measured" + head, ""]
    for c in claims:  # the row's line, then what was measured as short bullets and per-dataset tables
        lines.append(f"- **{c.verdict}**{tag} `{c.claim}` — {c.statement}")
        lines += markdown(c.measured)
    lines += [f"- {n}" for n in notes]
    if len(lines) == 2:
        lines.append("- nothing: no claim was evaluated with these parameters")
    if banner():
        lines += ["", banner()]
    return Markdown("\n".join(lines))
