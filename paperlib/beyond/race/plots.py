"""The race's figure: P(best model found) against the budget on every matrix, one call per figure."""

from __future__ import annotations

import pandas as pd
from matplotlib import pyplot as plt

from ...figures import OKABE_ITO, kind_tag
from ...policies import label

LINESTYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def method_styles(methods) -> dict[str, dict]:
    """One colour, line style and marker per method (in the given order), so that no two of up to 32 methods look
    alike and none is told apart by colour alone."""
    n = len(OKABE_ITO)
    return {m: dict(color=OKABE_ITO[i % n], linestyle=LINESTYLES[(i // n + i) % len(LINESTYLES)],
                    marker=MARKERS[i % len(MARKERS)]) for i, m in enumerate(methods)}


def race_figure(acc: pd.DataFrame, title: str, of: str = "the matrix"):
    """P(best model found) with exact 95% bands per matrix and method; the legend sits under the panels."""
    names = list(dict.fromkeys(acc.dataset))
    if not names:  # a run without any real matrix: say so instead of drawing empty axes
        fig, ax = plt.subplots(figsize=(5, 1.5))
        ax.axis("off")
        ax.text(0.5, 0.5, f"{title}: no real matrix in this run\n(paperlib data fetch --all, then rerun)",
                ha="center", va="center", fontsize=9)
        return fig
    styles = method_styles(list(dict.fromkeys(acc.method)))
    cols = min(3, len(names))
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.5 * rows), squeeze=False, sharey=True)
    for ax, ds in zip(axes.flat, names, strict=False):
        for meth, g in acc[acc.dataset == ds].groupby("method", sort=False):
            st = styles[meth]
            ax.plot(g.frac, g.accuracy, label=label(meth), lw=1.2, ms=3.5, markevery=max(1, len(g) // 6), **st)
            ax.fill_between(g.frac, g.ci_low, g.ci_high, alpha=0.12, color=st["color"])
        kind = acc[acc.dataset == ds].kind.iloc[0]
        ax.set_title(f"{ds} ({kind_tag(kind)})", fontsize=8)
        ax.set_xlabel(f"budget (fraction of {of})")
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel("P(best model found)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(5, len(labels)), fontsize=8)
    runs = ", ".join(f"{label(k)} {v}" for k, v in acc.groupby("method", sort=False).reps.min().items())
    fig.suptitle(f"{title}, exact 95% bands (not a paper figure)\nruns per point: {runs}", fontsize=9)
    fig.tight_layout()
    return fig


def dataset_figure(acc: pd.DataFrame, split: bool = False):
    """The race on one matrix: P(best model found) per method with exact 95% bands."""
    fig, ax = plt.subplots(figsize=(5, 3.4))
    for meth, g in acc.groupby("method", sort=False):
        ax.plot(g.frac, g.accuracy, label=f"{label(meth)} ({g.reps.iloc[0]} runs)", lw=1)
        ax.fill_between(g.frac, g.ci_low, g.ci_high, alpha=0.15)
    ax.set_xlabel("budget (fraction of the matrix" + (", test half)" if split else ")"))
    ax.set_ylabel("P(best model found)")
    ax.legend(fontsize=6)
    n, m, kind = acc.n.iloc[0], acc.m.iloc[0], acc.kind.iloc[0]
    ax.set_title(f"The race on {acc.dataset.iloc[0]} ({kind_tag(kind)}, {n} x {m}): exact 95% bands (not a paper figure)",
                 fontsize=8)
    fig.tight_layout()
    return fig
