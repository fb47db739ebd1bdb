"""The race's figure: P(best model found) against the budget on every matrix, one call per figure."""

from __future__ import annotations

import pandas as pd
from matplotlib import pyplot as plt

from ...figures import kind_tag, method_style, run_noted
from ...policies import label

#: below this many runs a method's exact 95% band is wider than +-0.1 and would hide the other curves: drawn as its
#: edges only
BAND_MIN_RUNS = 100


def race_figure(acc: pd.DataFrame, title: str, of: str = "the matrix"):
    """P(best model found) with exact 95% bands per matrix and method; the legend sits under the panels."""
    names = list(dict.fromkeys(acc.dataset))
    if not names:  # a run without any real matrix: say so instead of drawing empty axes
        fig, ax = plt.subplots(figsize=(5, 1.5))
        ax.axis("off")
        ax.text(0.5, 0.5, f"{title}: no real matrix in this run\n(paperlib data fetch --all, then rerun)",
                ha="center", va="center", fontsize=9)
        return fig
    cols = min(4, len(names))  # at the print box's width: 8 pt text prints at 6 pt or more
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(1.9 * cols, 1.55 * rows), squeeze=False, sharey=True, sharex=True)
    for ax, ds in zip(axes.flat, names, strict=False):
        for meth, g in acc[acc.dataset == ds].groupby("method", sort=False):
            st = method_style(label(meth))  # the project's one look per method
            ax.plot(g.frac, g.accuracy, label=label(meth), lw=1.2, ms=3.5, markevery=max(1, len(g) // 6), **st)
            if g.reps.min() >= BAND_MIN_RUNS:
                ax.fill_between(g.frac, g.ci_low, g.ci_high, alpha=0.12, color=st["color"], lw=0)
            else:  # a wide band from few runs: its edges, thin, so that it covers no other curve
                for edge in (g.ci_low, g.ci_high):
                    ax.plot(g.frac, edge, color=st["color"], lw=0.5, linestyle=(0, (1, 2)), alpha=0.8)
        ax.set_title(ds, fontsize=8, pad=2)
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    for i, ax in enumerate(axes.flat[:len(names)]):
        if i + cols >= len(names):
            ax.set_xlabel(f"share of {of}")
            ax.xaxis.set_tick_params(labelbottom=True)
    for ax in axes[:, 0]:
        ax.set_ylabel("P(best found)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(4, len(labels), 2 * cols),
               fontsize=8)  # no wider than the panels: a legend wider than them would set the printed size
    reps = acc.groupby("method", sort=False).reps.min()
    runs = (f"{reps.iloc[0]} for every method" if reps.nunique() == 1  # one number, not ten repeated past the edge
            else ", ".join(f"{label(k)} {v}" for k, v in reps.items()))
    thin = [label(k) for k, v in reps.items() if v < BAND_MIN_RUNS]
    edges = f"; bands of {', '.join(thin)} drawn as dotted edges (fewer than {BAND_MIN_RUNS} runs)" if thin else ""
    kinds = " + ".join(kind_tag(k) for k in sorted(set(acc.kind)))
    fig.suptitle(run_noted(f"{title}, exact 95% bands (not a paper figure; {kinds}){edges}\nruns per point: {runs}"), fontsize=9)
    fig.tight_layout()
    return fig


def dataset_figure(acc: pd.DataFrame, split: bool = False):
    """The race on one matrix: P(best model found) per method with exact 95% bands."""
    fig, ax = plt.subplots(figsize=(6.6, 3.4))
    same_reps = acc.reps.nunique() == 1
    for meth, g in acc.groupby("method", sort=False):
        ax.plot(g.frac, g.accuracy, label=label(meth) + ("" if same_reps else f" ({g.reps.iloc[0]} runs)"), lw=1)
        ax.fill_between(g.frac, g.ci_low, g.ci_high, alpha=0.15)
    ax.set_xlabel("budget (fraction of the matrix" + (", test half)" if split else ")"))
    ax.set_ylabel("P(best model found)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)  # beside: no curve hidden
    n, m, kind = acc.n.iloc[0], acc.m.iloc[0], acc.kind.iloc[0]
    runs = f", {acc.reps.iloc[0]} runs each" if same_reps else ""
    ax.set_title(f"The race on {acc.dataset.iloc[0]} ({kind_tag(kind)}, {n} x {m}{runs})\n"
                 "exact 95% bands (not a paper figure)", fontsize=8)
    fig.tight_layout()
    return fig
