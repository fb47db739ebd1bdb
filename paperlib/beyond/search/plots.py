"""Certified search's figure: the share of the matrix spent at the first certificate, per matrix and method."""

from __future__ import annotations

import pandas as pd
from matplotlib import pyplot as plt

from ...figures import kind_tag


def certified(table: pd.DataFrame, delta: float, reps: int):
    """Median and IQR of the fraction of the matrix spent at the first certificate (not a paper figure)."""
    fig, ax = plt.subplots(figsize=(6.5, 0.35 * table.dataset.nunique() + 1.9))
    order = list(dict.fromkeys(table.dataset))
    k = table.method.nunique()
    for j, (meth, g) in enumerate(table.groupby("method", sort=False)):
        y = [order.index(d) + 0.7 / k * (j - (k - 1) / 2) for d in g.dataset]
        ax.errorbar(g.frac_median, y, xerr=[g.frac_median - g.frac_q25, g.frac_q75 - g.frac_median], fmt="o", label=meth)
    ax.set_yticks(range(len(order)), [f"{d} ({kind_tag(k)})" for d, k in zip(order, table.drop_duplicates("dataset").kind,
                                                                             strict=False)], fontsize=7)
    ax.axvline(1.0, color="k", lw=0.8, ls=":")
    per = table.drop_duplicates("dataset")
    if "oracle" in table:
        ax.scatter(per.oracle, [order.index(d) for d in per.dataset], marker="|", s=120, color="k", zorder=3,
                   label="oracle allocation (a yardstick, not a bound)")
    if "bound" in table and per.bound.notna().any():
        ax.scatter(per.bound, [order.index(d) for d in per.dataset], marker="<", s=30, facecolors="none",
                   edgecolors="k", zorder=3, label="lower bound T* kl(delta, 1-delta) (Gaussian rows, with replacement)")
    ax.set_xlabel("fraction of the matrix spent at the first certificate (median, IQR)")
    ax.set_title(f"Certified stopping at delta = {delta:g}\n({reps} runs per point; real matrices; not a paper figure)",
                 fontsize=9)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=2, frameon=False)  # below: the rows fill the axes
    fig.tight_layout(rect=(0, 0.7 / fig.get_figheight(), 1, 1))
    return fig
