"""Zhou et al. 2025's figures (Figures 3 and 4), one call per figure; the notebooks only save them."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt
from matplotlib.ticker import MaxNLocator

from ...figures import (
    budget_axis,
    in_method_order,
    kind_tag,
    method_style,
    panel_pages,
    reproduction_title,
    run_noted,
)
from ...policies import label

PAPER = "Zhou et al. 2025"
ABLATION_FACTORS = ("variant", "batch_size", "ensemble", "eta", "warmup_frac", "rank")


def figure3(table: pd.DataFrame, order: list[str], kinds: pd.Series, metrics: list[str]):
    """Figure 3, one page per metric (the headline first): every dataset a panel ordered by H1, the six
    algorithms with bands +-1 s.e. Yields ``(figure, page)``."""
    reps = int(table.reps.min())
    for k, metric in enumerate(metrics, 1):
        for fig, axes, idx, _ in panel_pages(len(order), per_page=len(order), ncol=5, size=(2.9, 2.3)):
            for ax, i in zip(axes, idx, strict=True):
                ds = order[i]
                sub = table[(table.dataset == ds) & (table.metric == metric)]
                for method, g in in_method_order(sub.groupby("method", sort=False), label):
                    x = 100 * g.budget_frac
                    line, = ax.plot(x, g.value, ms=2, lw=1, label=label(method), **method_style(label(method)))
                    # bands rasterized inside the vector version (138 of them make its SVG far larger)
                    ax.fill_between(x, g.value - g.se, g.value + g.se, color=line.get_color(), alpha=0.15, lw=0,
                                    rasterized=True)
                h1 = table[table.dataset == ds].H1.iloc[0]
                ax.set_title(f"{ds} [{kinds[ds]}]\nH1={h1:.3g}")
                budget_axis(ax, "% of the matrix (log)")
                ax.set_ylabel(metric)
            reproduction_title(fig, PAPER, "Figure 3", f"{metric} vs budget, six algorithms, bands +-1 s.e.",
                               kinds[order], reps, (k, len(metrics)))
            yield fig, k


def dataset_means(table: pd.DataFrame, metric: str, boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per method and budget (the share of the matrix, on the common grid): the mean of ``metric`` over the datasets
    and its 95% interval, a percentile bootstrap over the datasets (``boot`` resamples, seeded), the datasets being
    the unit a reader generalises over. Columns method, frac, mean, lo, hi, datasets."""
    sub = table[(table.metric == metric) & table.budget_frac.notna()].assign(frac=lambda d: d.budget_frac.round(3))
    wide = sub.pivot_table(index=["method", "frac"], columns="dataset", values="value")
    rng = np.random.default_rng(seed)
    n = wide.shape[1]
    draws = rng.integers(0, n, size=(boot, n))
    rows = []
    for (method, frac), values in wide.iterrows():
        v = values.to_numpy(dtype=float)
        ok = ~np.isnan(v)
        boots = np.nanmean(v[draws], axis=1) if ok.all() else np.nanmean(v[ok][draws % ok.sum()], axis=1)
        rows.append(dict(method=method, frac=frac, mean=float(np.nanmean(v)), lo=float(np.quantile(boots, 0.025)),
                         hi=float(np.quantile(boots, 0.975)), datasets=int(ok.sum())))
    return pd.DataFrame(rows)


def figure3_summary(table: pd.DataFrame, kinds: pd.Series, metrics: list[str]):
    """Figure 3 in one figure a page can hold: for each metric (the paper's five rows), the mean over every
    dataset of each algorithm's value against the budget, with a 95% bootstrap interval over the datasets. The
    per-dataset panels are :func:`figure3`'s grids (on the site)."""
    reps = int(table.reps.min())
    ncol = 3
    nrow = -(-(len(metrics) + 1) // ncol)  # one slot for the legend
    fig, axes = plt.subplots(nrow, ncol, figsize=(7.8, 2.6 * nrow + 0.9), sharey=True, squeeze=False)
    flat = axes.ravel()
    for ax, metric in zip(flat, metrics, strict=False):
        summ = dataset_means(table, metric)
        for method, g in in_method_order(summ.groupby("method", sort=False), label):
            x = 100 * g.frac
            st = method_style(label(method))
            line, = ax.plot(x, g["mean"], ms=2.5, lw=1.2, label=label(method), **st)
            ax.fill_between(x, g.lo, g.hi, color=line.get_color(), alpha=0.15, lw=0)
        ax.set_title(metric)
        budget_axis(ax, "% of the matrix (log)")
        ax.set_ylim(0, 1.02)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"mean over {table.dataset.nunique()} datasets")
    for ax in flat[len(metrics):]:
        ax.axis("off")
    handles, labels = flat[0].get_legend_handles_labels()
    flat[len(metrics)].legend(handles, labels, loc="center", frameon=False, title="algorithm")
    reproduction_title(fig, PAPER, "Figure 3", "mean over the datasets\n(bands: 95% bootstrap over the datasets)",
                       kinds.unique(), reps)
    fig.tight_layout()
    return fig


def ablations(abl: pd.DataFrame, names: list[str], kinds: dict[str, str], metric: str):
    """Figure 4: UCB-E-LRF's ablations (variant, batch size, ensemble, eta, warm-up, rank) on each dataset, bands
    +-1 s.e. over the runs (the paper's 50; the profile's ``ablation.reps`` here)."""
    ncol = 3  # each dataset's six factors in two rows of three: the print box's width (8 pt prints at 6 pt or more)
    per = -(-len(ABLATION_FACTORS) // ncol)
    fig, axes = plt.subplots(per * len(names), ncol, figsize=(2.5 * ncol, 1.55 * per * len(names)), squeeze=False,
                             sharey=True)
    for r, d in enumerate(names):
        for c, f in enumerate(ABLATION_FACTORS):
            ax = axes[r * per + c // ncol, c % ncol]
            sub = abl[(abl.dataset == d) & (abl.factor == f) & (abl.metric == metric)]
            for v, g in sub.groupby("setting", sort=False):
                x = 100 * g.budget_frac
                line, = ax.plot(x, g.value, marker="o", ms=2.5, label=f"{v:g}" if isinstance(v, float) else str(v))
                if "se" in g:
                    ax.fill_between(x, g.value - g.se, g.value + g.se, color=line.get_color(), alpha=0.15, lw=0)
            ax.set_title(f"{d} [{kinds[d]}]: {f}", fontsize=8, pad=2)
            ax.legend(fontsize=8, loc="lower right", ncol=2, handlelength=1.0, columnspacing=0.6, borderpad=0.2,
                      labelspacing=0.2)
            if r == len(names) - 1 and c // ncol == per - 1:
                ax.set_xlabel("% evaluated", fontsize=8)
        for k in range(per):
            axes[r * per + k, 0].set_ylabel(metric, fontsize=8)
    main = abl[abl.factor.isin(ABLATION_FACTORS)]
    reps = int(main.reps.min()) if "reps" in main and len(main) else None
    reproduction_title(fig, PAPER, "Figure 4", "UCB-E-LRF ablations, bands +-1 s.e.", list(kinds.values()), reps)
    fig.tight_layout()
    return fig


def method_means(t2: pd.DataFrame, means: dict):
    """Figure 5: histogram of the methods' mean scores per dataset (``means``: dataset -> row means)."""
    cols = min(5, len(t2))  # 5 columns of 1.5 in: the print box's width, so 8 pt text prints at 6 pt or more
    rows_ = -(-len(t2) // cols)
    fig, axes = plt.subplots(rows_, cols, figsize=(1.5 * cols, 1.25 * rows_), squeeze=False)
    for k, (ax, (_, r)) in enumerate(zip(axes.flat, t2.iterrows(), strict=False)):
        ax.hist(means[r.dataset], bins=30, color="C0")
        ax.set_title(f"{r.dataset}\n[{r.kind}] H1={r.H1:.3g}", fontsize=8)
        if k + cols >= len(t2):
            ax.set_xlabel("mean score")
        if k % cols == 0:
            ax.set_ylabel("methods")
        ax.tick_params(labelsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(3))
        ax.yaxis.set_major_locator(MaxNLocator(3))
    for ax in list(axes.flat)[len(t2):]:
        ax.axis("off")
    fig.suptitle(run_noted(f"{PAPER}, Figure 5 (reproduction): histogram of method mean scores\n(data kind in brackets)"),
                 fontsize=10)
    fig.tight_layout()
    return fig


def singular_values(spectra: dict, kinds: dict, ncol: int = 5):
    """Figure 6: the first 30 singular values of each dataset, relative to the largest, as small multiples: one
    panel per dataset (its kind in the title and the line's colour), with every other dataset's spectrum in light
    grey behind it for comparison, shared log y. 23 curves on one axis need 23 colours no reader tells apart."""
    from ...figures import series_styles

    names = list(spectra)
    kind_style = series_styles(["real", "semi-synthetic", "synthetic"])
    rows = -(-len(names) // ncol)
    fig, axes = plt.subplots(rows, ncol, figsize=(1.5 * ncol, 1.2 * rows), sharex=True, sharey=True, squeeze=False)
    curves = {d: (np.arange(1, min(len(sv), 30) + 1), np.asarray(sv[:30])) for d, sv in spectra.items()}
    for ax, d in zip(axes.flat, names, strict=False):
        for other, (x, y) in curves.items():
            if other != d:
                ax.semilogy(x, y, color="0.85", lw=0.6, linestyle="-", zorder=1)
        x, y = curves[d]
        st = kind_style.get(kinds[d], {"color": "k"})
        ax.semilogy(x, y, color=st["color"], lw=1.6, linestyle="-", zorder=3)
        ax.set_title(f"{d}\n({kinds[d]})", fontsize=8)
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    for k in range(len(names)):  # the lowest panel of each column carries the x axis
        if k + ncol >= len(names):
            axes.flat[k].xaxis.set_tick_params(labelbottom=True)
            axes.flat[k].set_xlabel("index")
    for ax in axes[:, 0]:
        ax.set_ylabel("s.v. / largest")
    fig.suptitle(run_noted(f"{PAPER}, Figure 6 (reproduction): singular value spectra, one panel per stand-in matrix\n"
                 "(colour: real blue, semi-synthetic orange, synthetic green; grey: the other matrices)"))
    fig.tight_layout()
    return fig


def corollary1(res: pd.DataFrame, n: int, m: int, h1: float):
    """Corollary 1 on synthetic data: measured P(correct) with exact 95% intervals against the bound."""
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    ax.plot(res.budget, res.bound.clip(lower=0), "k--", label="Corollary 1 bound (clipped at 0)")
    ax.errorbar(res.budget, res.success, yerr=[res.success - res.ci_low, res.ci_high - res.success], fmt="o",
                label="measured (95% CP)")
    ax.set_xlabel("budget T")
    ax.set_ylabel("P(correct)")
    ax.set_title(f"Zhou et al. Corollary 1 on synthetic data ({n} x {m}, H1 = {h1:.1f})", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def cost(cost: pd.DataFrame, reach: pd.DataFrame):
    """Figure 1: the cost of finding the best method under the per-call cost model, against full evaluation."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, (ds, g) in zip(axes, cost.groupby("dataset", sort=False), strict=False):
        labels = ["Full evaluation"] + g.method.tolist()
        vals = [g.full.iloc[0]] + g.cost.fillna(g.full.iloc[0]).tolist()
        ax.bar(labels, vals, color=["grey", "C0", "C1"])
        kind = reach[reach.dataset == ds].kind.iloc[0]
        ax.set_title(f"{ds} [{kind}]\nper-call cost model, full = paper's {g.unit.iloc[0]}", fontsize=8)
        ax.set_ylabel(g.unit.iloc[0])
        ax.tick_params(labelsize=7)
    fig.suptitle(run_noted(f"{PAPER}, Figure 1 (reproduction): cost to find the best method; data kind in brackets"), fontsize=10)
    fig.tight_layout()
    return fig


def figure3_dataset(table: pd.DataFrame, dataset: str, kind: str, shape: tuple[int, int]):
    """Figure 3, one column: every metric against the budget for the six algorithms on one dataset. The budget axis
    is named once under the row of panels and the legend sits under them (issue 75, item 7: five copies of the axis
    label overlapped and the legend covered the NDCG panel)."""
    metrics = list(dict.fromkeys(table.metric))
    fig, axes = plt.subplots(1, len(metrics), figsize=(2.6 * len(metrics), 3.1), sharey=True, squeeze=False,
                             layout="constrained")
    axes = axes[0]
    for ax, metric in zip(axes, metrics, strict=True):
        for method, g in table[table.metric == metric].groupby("method", sort=False):
            look = method_style(label(method))
            ax.plot(100 * g.budget_frac, g.value, ms=3, label=label(method), **look)
            ax.fill_between(100 * g.budget_frac, g.value - g.se.fillna(0), g.value + g.se.fillna(0), alpha=0.15,
                            color=look["color"])
        ax.set_title(metric.replace(" alpha", "\nalpha").replace(" eps", "\neps"), fontsize=9)
        budget_axis(ax, label="")
    axes[0].set_ylabel("mean over repetitions")
    axes[len(axes) // 2].set_xlabel("% of the matrix evaluated (log scale)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 6), fontsize=8, frameon=False)
    fig.suptitle(run_noted(f"{PAPER}, Figure 3 (one column): {dataset} ({kind_tag(kind)}, {shape[0]} x {shape[1]})"),
                 fontsize=10)
    return fig


def ablations_dataset(abl: pd.DataFrame, dataset: str, kind: str, metric: str):
    """Figure 4 on one dataset: each ablation factor against the budget (the timing runs left out)."""
    factors = [f for f in dict.fromkeys(abl.factor) if f != "batch_time"]
    fig, axes = plt.subplots(1, len(factors), figsize=(2.8 * len(factors), 2.6), sharey=True)
    for ax, f in zip(axes, factors, strict=True):
        for v, g in abl[(abl.factor == f) & (abl.metric == metric)].groupby("setting", sort=False):
            ax.plot(100 * g.budget_frac, g.value, marker="o", ms=3, label=str(v))
        ax.set_title(f, fontsize=8)
        ax.legend(fontsize=6)
        ax.set_xlabel("% evaluated", fontsize=8)
    axes[0].set_ylabel(metric, fontsize=8)
    fig.suptitle(run_noted(f"{PAPER}, Figure 4 (one dataset): {dataset} ({kind_tag(kind)})"), fontsize=9)
    fig.tight_layout()
    return fig


def batch_timing_dataset(timing: pd.DataFrame, dataset: str, kind: str):
    """Sec. 4.5's time comparison on one dataset: the wall time of each timed run of UCB-E-LRF at b = 2 and b = 32
    (refitted after every batch), in run order, with the ratio of the mean times in the title."""
    wall = timing.assign(setting=timing.setting.astype(str)).groupby(["setting", "run"]).wall_s.first()
    fig, ax = plt.subplots(figsize=(5.6, 2.8))
    for b, g in wall.groupby(level="setting", sort=False):
        ax.plot(g.index.get_level_values("run"), g.to_numpy(), marker="o", ls="", label=f"b = {b}")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    ax.set_xlabel("timed run (b = 2 and b = 32 alternating)", fontsize=8)
    ax.set_ylabel("wall time (s)", fontsize=8)
    ax.legend(fontsize=7)
    means = wall.groupby(level="setting").mean()
    ratio = means.get("2", np.nan) / means.get("32", np.nan)
    fig.suptitle(run_noted(f"{PAPER}, Sec. 4.5 (one dataset): {dataset} ({kind_tag(kind)}), b = 2 / b = 32: {ratio:.1f}x"),
                 fontsize=9)
    fig.tight_layout()
    return fig
