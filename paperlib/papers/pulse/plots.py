"""PULSE's figures (Tolochinsky et al. 2026, Figures 1-4), one call per figure; the notebook only saves them."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt
from matplotlib.ticker import EngFormatter, MaxNLocator

from ...figures import kind_tag, method_style, reproduction_title, run_noted

PAPER = "Tolochinsky et al. 2026"


def _style(lab: str) -> tuple[str, str]:
    """label -> (colour, line style): the project's one look per method (:func:`paperlib.figures.method_style`), so
    that no two methods differ by colour alone."""
    st = method_style(lab)
    return st["color"], st["linestyle"]


FIGURE1_METHODS = ("UCB-E", "PULSE", "Naive-Pooling")


def _pools(runs: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(runs.pool))


def _kind(runs: pd.DataFrame, pool: str) -> str:
    return str(runs[runs.pool == pool].kind.iloc[0])


def _calls_axis(ax) -> None:
    ax.xaxis.set_major_locator(MaxNLocator(4))
    ax.xaxis.set_major_formatter(EngFormatter(sep=""))


def _grid(n: int, sharey: bool = False):
    """Panels at the print box's width (4 columns of 1.9 in: 8 pt text prints at 6 pt or more); with fewer pools
    (a smoke run's one) each panel widens to at most half the box, so that a lone panel is not a 1.9 in stamp under
    a title twice its width (issue 75, item 7)."""
    ncol = max(1, min(4, n))
    nrow = -(-n // ncol)
    w = min(3.8, 7.6 / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(w * ncol, w * 1.75 / 1.9 * nrow), squeeze=False, sharey=sharey)
    for ax in axes.flat[n:]:
        ax.axis("off")
    return fig, axes


def _outer_labels(axes, n: int, xlabel: str, ylabel: str) -> None:
    """Axis labels on the outer panels only: the y label on the first column, the x label on each column's last."""
    ncol = axes.shape[1]
    for i, ax in enumerate(axes.flat[:n]):
        if i % ncol == 0:
            ax.set_ylabel(ylabel)
        if i + ncol >= n:
            ax.set_xlabel(xlabel)


def budget_to_level(table: pd.DataFrame, runs: pd.DataFrame, level: float = 0.95):
    """Figure 1: bandit calls to reach ``level`` accuracy per pool and method, on a log axis (the real pools' bars
    are two orders of magnitude below Bench 1's); a method that never reaches it gets an explicit marker."""
    pools = _pools(runs)
    fig, ax = plt.subplots(figsize=(7.4, 4.2))  # the print box's width
    width = 0.27
    top = np.nanmax(table.calls_to_level.to_numpy(dtype=float)) if table.calls_to_level.notna().any() else 1.0
    for k, lab in enumerate(FIGURE1_METHODS):
        x = np.arange(len(pools)) + (k - 1) * width
        vals = np.array([table[(table.pool == p) & (table.label == lab)].calls_to_level.iloc[0]
                         if len(table[(table.pool == p) & (table.label == lab)]) else np.nan for p in pools], dtype=float)
        color, _ = _style(lab)
        ax.bar(x, vals, width, color=color, label=lab)
        missing = np.isnan(vals)
        if missing.any():
            ax.plot(x[missing], np.full(missing.sum(), top * 1.6), "x", color=color, ms=7, mew=2)
    ax.set_yscale("log")
    ax.set_ylim(top=top * 4)
    ax.set_xticks(range(len(pools)))
    ax.set_xticklabels([f"{p} ({_kind(runs, p)})" for p in pools], fontsize=8, rotation=30, ha="right")
    ax.set_ylabel(f"bandit calls to {level:.0%} accuracy (log)")
    ax.plot([], [], "x", color="black", label=f"x: {level:.0%} not reached within the budgets")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.55), ncol=2)
    reproduction_title(fig, PAPER, "Figure 1", f"budget needed for {level:.0%} accuracy", runs.kind)
    fig.tight_layout()
    return fig


def accuracy_curves(runs: pd.DataFrame):
    """Figures 2 and 4: Accuracy@t per pool and method, bands +-1 s.e., every panel on the same 0-1 accuracy axis."""
    pools = _pools(runs)
    fig, axes = _grid(len(pools), sharey=True)
    for ax, p in zip(axes.flat, pools, strict=False):
        g = runs[runs.pool == p]
        for lab, h in g.groupby("label"):
            h = h.sort_values("bandit_calls")
            color, ls = _style(lab)
            ax.plot(h.bandit_calls, h.accuracy, color=color, linestyle=ls, label=lab)
            ax.fill_between(h.bandit_calls, h.accuracy - h.se, h.accuracy + h.se, color=color, alpha=0.2)
        ax.set_title(f"{p}\n({g.kind.iloc[0]}, gap {g.realised_gap.iloc[0]:.3f})", fontsize=8)
        ax.set_ylim(0.0, 1.02)  # one accuracy scale on every panel, so that pools compare at a glance
        _calls_axis(ax)
    _outer_labels(axes, len(pools), "bandit calls", "Accuracy@t")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(4, len(labels)), fontsize=8)
    reproduction_title(fig, PAPER, "Figures 2 and 4", "Accuracy@t per pool, bands +-1 s.e.", runs.kind,
                       {lab: int(r) for lab, r in runs.groupby("label").reps.min().items()} if "reps" in runs else None)
    fig.tight_layout()
    return fig


def effective_budget(eb: pd.DataFrame, runs: pd.DataFrame):
    """Figure 3: calls each method needs to match UCB-E's accuracy at UCB-E's budget."""
    pools = _pools(runs)
    fig, axes = _grid(len(pools))
    for ax, p in zip(axes.flat, pools, strict=False):
        g = eb[eb.pool == p]
        for lab, h in g.groupby("label"):
            color, ls = _style(lab)
            ax.plot(h.ucbe_calls, h.calls_needed, "o", ms=3, color=color, linestyle=ls, label=lab)
        ax.set_title(f"{p}\n({_kind(runs, p)})", fontsize=8)
        _calls_axis(ax)
        ax.yaxis.set_major_formatter(EngFormatter(sep=""))
    _outer_labels(axes, len(pools), "UCB-E bandit calls", "calls to match UCB-E")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(4, len(labels)), fontsize=8)
    reproduction_title(fig, PAPER, "Figure 3", "effective budget (calls to match UCB-E's accuracy)", runs.kind)
    fig.tight_layout()
    return fig


def coverage(summary: pd.DataFrame, ratios: pd.DataFrame):
    """Theorem 1 inside the running bandit: violation rates of its interval per (pool, kind of predictions) against
    delta, and the error-to-radius ratios of the informative cells."""
    fig, axes = plt.subplots(1, 2, figsize=(7.5, 4.8))  # the print box's width
    x = np.arange(len(summary))
    axes[0].errorbar(x, summary.rate, yerr=[summary.rate - summary.rate_lo, summary.rate_hi - summary.rate], fmt="o",
                     label="violation rate (run bootstrap)")
    axes[0].plot(x, [c[1] for c in summary.runs_any_ci], "v", color="#7f7f7f",
                 label="upper 95% bound, runs with any violation")
    axes[0].axhline(summary.delta.iloc[0], color="#D55E00", ls="--", label="delta")
    labels = [f"{r.pool}, {r.kind} ({r.data})" for r in summary.itertuples()]
    axes[0].set_xticks(x)
    axes[0].set_xticklabels(labels, fontsize=8, rotation=50, ha="right")
    axes[0].set_ylabel("P(|mu_hat - mu| > radius)")
    axes[0].legend(fontsize=8)
    at = {(r.pool, r.kind): i for i, r in enumerate(summary.itertuples())}
    box = [dict(r, label="") for r in ratios.to_dict("records")]
    axes[1].bxp(box, positions=[at[b["pool"], b["kind"]] for b in box], widths=0.6, showfliers=False)
    axes[1].axhline(1, color="#D55E00", ls="--")
    axes[1].set_xticks(range(len(summary)))
    axes[1].set_xticklabels(labels, fontsize=8, rotation=50, ha="right")
    axes[1].set_ylabel("|mu_hat - mu| / radius\n(informative cells)")
    runs = summary.runs.unique() if "runs" in summary else []
    said = f", {runs[0]} runs per pool and kind" if len(runs) == 1 else ""
    fig.suptitle(run_noted(f"{PAPER}, Theorem 1 inside the running bandit{said}\n(synthetic / semi-synthetic / real "
                 "pools; our check, no paper figure)"), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return fig


def coverage_pool(summary: pd.DataFrame, ratios: pd.DataFrame, pool: str):
    """Theorem 1 inside the bandit on one pool: violation rate per kind of predictions, error-to-radius ratios."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    x = range(len(summary))
    axes[0].errorbar(x, summary.rate, yerr=[summary.rate - summary.rate_lo, summary.rate_hi - summary.rate], fmt="o",
                     label="violation rate (run bootstrap)")
    axes[0].axhline(summary.delta.iloc[0], color="#D55E00", ls="--", label="delta")
    axes[0].set_xticks(list(x))
    axes[0].set_xticklabels(summary.kind)
    axes[0].set_ylabel("P(|mu_hat - mu| > radius)")
    axes[0].legend(fontsize=7)
    axes[1].bxp([dict(r, label=r["kind"]) for r in ratios.to_dict("records")], showfliers=False)
    axes[1].axhline(1, color="#D55E00", ls="--")
    axes[1].set_ylabel("|mu_hat - mu| / radius (informative cells)")
    fig.suptitle(run_noted(f"{PAPER}, Theorem 1 inside the bandit: {pool} ({kind_tag(summary.data.iloc[0])})"), fontsize=9)
    fig.tight_layout()
    return fig


def _cv_panel(ax, g: pd.DataFrame) -> None:
    for lam, h in g.groupby("lam"):
        ax.errorbar(h["rank"], h.cv_loss, yerr=h.cv_se, marker="o", ms=3, label=f"lambda {lam:g}")
    pick = g[g.chosen].iloc[0]
    ax.plot(pick["rank"], pick.cv_loss, "k*", ms=10, label="1-SE choice")


def cross_validation_pool(cv: pd.DataFrame, pool: str):
    """Step 1 (App. C.1) on one pool: 5-fold CV loss per rank and lambda, the 1-SE choice starred."""
    fig, ax = plt.subplots(figsize=(3.6, 2.8))
    _cv_panel(ax, cv)
    ax.set_xlabel("rank")
    ax.set_ylabel("5-fold CV BCE")
    ax.set_title(run_noted(f"{PAPER}, Step 1 (App. C.1): {pool} ({kind_tag(cv.kind.iloc[0])})"), fontsize=8)
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def cross_validation(cv: pd.DataFrame):
    """Step 1 (App. C.1) on every dataset: 5-fold CV loss per rank and lambda, the 1-SE choice starred."""
    fig, axes = plt.subplots(1, cv.dataset.nunique(), figsize=(3.4 * cv.dataset.nunique(), 2.8), squeeze=False)
    for ax, (ds, g) in zip(axes.flat, cv.groupby("dataset", sort=False), strict=False):
        _cv_panel(ax, g)
        ax.set_title(f"{ds} ({kind_tag(g.kind.iloc[0])})", fontsize=8)
        ax.set_xlabel("rank")
        ax.set_ylabel("5-fold CV BCE")
        ax.legend(fontsize=6)
    fig.suptitle(run_noted(f"{PAPER}, Step 1 (App. C.1): cross-validated rank and lambda"), fontsize=9)
    fig.tight_layout()
    return fig


def pool_accuracy(runs: pd.DataFrame, pool: str, kind: str):
    """Figure 2 on one pool: Accuracy@t per method, bands +-1 s.e."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for lab, h in runs.groupby("label"):
        h = h.sort_values("bandit_calls")
        ax.plot(h.bandit_calls, h.accuracy, marker=".", label=lab)
        ax.fill_between(h.bandit_calls, h.accuracy - h.se, h.accuracy + h.se, alpha=0.2)
    ax.set_xlabel("bandit calls")
    ax.set_ylabel("Accuracy@t (best model found)")
    ax.set_title(run_noted(f"{PAPER}, Figure 2 (one pool): {pool} ({kind_tag(kind)})"))
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def theorem1_tail(t1: list[dict]):
    """Theorem 1 on synthetic data: the measured tail P(|mu_hat - mu| >= eps) against the bound."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for t in t1:
        eps, freq, bound = zip(*t["tail"], strict=True)
        ax.plot(eps, freq, "o-", label=f"measured, {t['kind']}")
        ax.plot(eps, np.minimum(bound, 1), "x--", color=ax.lines[-1].get_color(), label=f"bound, {t['kind']}")
    ax.set_yscale("log")
    ax.set_xlabel("eps")
    ax.set_ylabel("P(|mu_hat - mu| >= eps)")
    ax.set_title(run_noted(f"{PAPER}, Theorem 1 (synthetic): measured tail vs bound"), fontsize=9)
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig
