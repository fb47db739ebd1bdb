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


# Okabe-Ito, the colour-blind-safe palette (Wong 2011, Nature Methods 8:441), then the same colours dashed:
# 16 series stay distinct without relying on colour alone.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")


def style() -> None:
    """Figure defaults: text at least 8 pt at the saved size, the colour-blind-safe cycle of :data:`OKABE_ITO`."""
    from cycler import cycler

    plt.rcParams.update({
        "figure.dpi": 80, "savefig.bbox": "tight", "axes.titlesize": 9, "axes.labelsize": 8, "legend.fontsize": 8,
        "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.titlesize": 10,
        "axes.prop_cycle": cycler(color=list(OKABE_ITO) * 2) + cycler(linestyle=["-"] * 8 + ["--"] * 8),
    })


def reproduction_title(fig, paper: str, figure: str, what: str, kind: str, reps: int | None = None) -> None:
    """The figure's title: ``<paper>, <figure> (reproduction): <what>`` with the data kind and repetitions."""
    tail = f"{kind_tag(kind)}" + (f"; {reps} repetitions per point" if reps else "")
    fig.suptitle(f"{paper}, {figure} (reproduction): {what}\n[{tail}]")


def setup(threads: int = 2, progress_log: str | None = None) -> None:
    """Torch threads, figure defaults (:func:`style`), and where progress bars go (a log file, never the notebook)."""
    import torch

    torch.set_num_threads(int(threads))
    style()
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
