"""Certified search's figure: the share of the matrix spent at the first certificate, per matrix and method."""

from __future__ import annotations

import pandas as pd
from matplotlib import pyplot as plt

from ...figures import kind_tag, method_style
from ...policies import label


def certified(table: pd.DataFrame, delta: float, reps: int):
    """Median and IQR of the fraction of the matrix spent at the first certificate (not a paper figure)."""
    fig, ax = plt.subplots(figsize=(7.0, 0.26 * table.dataset.nunique() + 1.6))  # near the print box
    order = list(dict.fromkeys(table.dataset))
    k = table.method.nunique()
    for j, (meth, g) in enumerate(table.groupby("method", sort=False)):
        y = [order.index(d) + 0.7 / k * (j - (k - 1) / 2) for d in g.dataset]
        st = method_style(label(meth))  # the method's look in every figure of the project
        ax.errorbar(g.frac_median, y, xerr=[g.frac_median - g.frac_q25, g.frac_q75 - g.frac_median], fmt=st["marker"],
                    color=st["color"], label=f"{label(meth)} ({meth})")
    ax.set_yticks(range(len(order)), [f"{d} ({kind_tag(k)})" for d, k in zip(order, table.drop_duplicates("dataset").kind,
                                                                             strict=False)], fontsize=8)
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
    # under the figure, below the x axis and its label (issue 68: it sat over the axis)
    fig.legend(handles, labels, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


PRIOR_LABELS = {"prior": "the other models' rows", "shuffled": "each row shuffled (useless)",
                "reversed": "1 - Q (adversarial)"}


def with_prior(table: pd.DataFrame, delta: float, goal: float = 0.5, limit: float = 1.1):
    """Calls to certify with a prior, as a ratio to lucb's without one, per matrix and prior (median ratio with the
    interval its two 95% order-statistic intervals bound), with the Gaussian bound T* of lucb's setting on the same
    scale, the issue's goal and the useless prior's limit (not a paper figure)."""
    from ...figures import series_styles

    order = list(dict.fromkeys(table.dataset))
    styles = series_styles(list(PRIOR_LABELS))
    fig, ax = plt.subplots(figsize=(6.5, 0.32 * len(order) + 2.1))
    if table.empty:  # none of the profile's matrices is present here
        ax.text(0.5, 0.5, "no matrix of the profile is present: nothing to compare", ha="center", va="center")
        ax.set_axis_off()
        ax.set_title(f"Certified search with a prior at delta = {delta:g} (not a paper figure)", fontsize=9)
        return fig
    for j, (key, lab) in enumerate(PRIOR_LABELS.items()):
        g = table[table.prior == key]
        y = [order.index(d) + 0.25 * (j - 1) for d in g.dataset]
        st = styles[key]
        ax.errorbar(g.ratio, y, xerr=[g.ratio - g.ratio_lo, g.ratio_hi - g.ratio], fmt=st["marker"], color=st["color"],
                    ms=4, lw=1, label=lab)
    base = table[table.prior == "none"].set_index("dataset")
    tstar = (base.bound / base.frac_median).reindex(order).where(base.bound.reindex(order) < 1)  # T* >= 1: no bound
    right = 1.5
    ax.scatter(tstar.clip(upper=right), range(len(order)), marker="|", s=120, color="k", zorder=3,
               label=f"Gaussian bound T* / lucb's calls (no prior; where T* < full matrix; at {right:g}: beyond)")
    ax.axvline(1.0, color="k", lw=0.8)
    ax.axvline(goal, color="k", lw=0.8, ls="--", label=f"the goal: {goal:g}x")
    ax.axvline(limit, color="k", lw=0.8, ls=":", label=f"the limit for a useless prior: {limit:g}x")
    kinds = table.drop_duplicates("dataset").set_index("dataset").kind
    ax.set_yticks(range(len(order)), [f"{d} ({kind_tag(kinds[d])})" for d in order], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(min(0.4, float(table.ratio_lo.min()) - 0.05), right + 0.05)
    ax.set_xlabel("calls to certify / lucb's without a prior (median ratio, 95% interval)")
    reps = int(table.reps.min())
    ax.set_title(f"Certified search with a prior at delta = {delta:g}\n({reps} runs per point; "
                 f"{'/'.join(sorted(set(kind_tag(k) for k in kinds)))} matrices; not a paper figure)", fontsize=9)
    fig.tight_layout()
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, frameon=False)  # below the label
    return fig
