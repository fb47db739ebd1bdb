"""Set-up and plotting helpers shared by every notebook (the notebooks narrate, the library computes).

A notebook calls :func:`setup` once after its parameters cell, writes every output through
:func:`output` (a temporary folder when the parameter is ``None``, so a notebook opened by hand
writes nowhere in the repository), saves figures with :func:`save_figure` (the figure also stays
inline in the executed notebook) and closes with :func:`what_we_measured`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from .ledger import Claim
from .progress import send_progress_to

KIND_TAG = {"real": "real data", "semi-synthetic": "semi-synthetic data", "synthetic": "synthetic data",
            "user": "user data"}
_scratch: Path | None = None


def setup(threads: int = 2, progress_log: str | None = None) -> None:
    """Torch threads, figure defaults, and where progress bars go (a log file, never the notebook)."""
    import torch

    torch.set_num_threads(int(threads))
    plt.rcParams.update({"figure.dpi": 80, "savefig.bbox": "tight", "axes.titlesize": 9, "axes.labelsize": 8,
                         "legend.fontsize": 7, "xtick.labelsize": 7, "ytick.labelsize": 7})
    send_progress_to(progress_log)


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


def kind_tag(kind: str) -> str:
    return KIND_TAG.get(kind, kind)


def grid_dpi(panels: int) -> int:
    """Resolution of a saved figure with many panels, lowered so a 48-panel grid stays well under 1 MB."""
    return 110 if panels <= 16 else 60


def save_figure(fig, path, default: str, dpi: int = 110) -> None:
    """Save ``fig`` to ``path`` (see :func:`output`); the inline backend still shows it in the notebook."""
    fig.savefig(output(path, default), dpi=dpi)


def what_we_measured(claims: list[Claim] = (), notes: list[str] = ()):
    """The closing section of a notebook: one bullet per claim (verdict first), then free notes."""
    from IPython.display import Markdown

    lines = ["## What we measured", ""]
    lines += [f"- **{c.verdict}** — {c.statement}: {c.measured}" for c in claims]
    lines += [f"- {n}" for n in notes]
    if len(lines) == 2:
        lines.append("- nothing: no claim was evaluated with these parameters")
    return Markdown("\n".join(lines))
