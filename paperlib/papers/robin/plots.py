"""Saha et al. 2026's figures (Figures 3-9), one call per figure; the notebooks only save them."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import pyplot as plt

from ...figures import kind_tag, panel_pages, reproduction_title, run_noted
from ...policies import label
from . import experiments as E

PAPER = "Saha et al. 2026"
_FIXED = {E.UNIFORM: ("#7f7f7f", "-"), E.ROBIN: ("#009E73", "--")}


def method_style(mid: str, main: str) -> tuple[str, str]:
    """Colour and line style of a method id: Uniform grey, ROBIN green dashed, ROBIN-HOOD-EB blue, the main
    ROBIN-HOOD orange, its other variants by the form of their variance bound."""
    if mid in _FIXED:
        return _FIXED[mid]
    if mid.startswith("robin-hood-eb"):
        return ("#0072B2", "-")
    return ("#D55E00", "-") if mid == main else (("#E69F00", ":") if "ucb=eq6" in mid else ("#CC79A7", "-."))


def cell_tag(cell: str, kind: str) -> str:
    """A panel's data kind: LLM-Rubric's synthetic split is a real judge's scores on synthetic (LLM-written)
    conversations, so it is not labelled plain real data (issue 68)."""
    if cell.startswith("llmrubric-synth"):
        return "real judge, synthetic conversations"
    return kind_tag(kind)


def cell_title(cell: str) -> str:
    """A cell's name on two lines (judge family, then prompt variant and attribute), so that long names do not run
    into the next panel's."""
    head, _, rest = cell.partition("-")
    return f"{head}\n{rest}" if rest else cell


def _queries_axis(ax) -> None:
    from matplotlib.ticker import EngFormatter, MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(4))
    ax.xaxis.set_major_formatter(EngFormatter(sep=""))


def wce_panel(ax, cur: pd.DataFrame, cell: str, mids, main: str) -> None:
    """WCE against the budget in one cell, bands +-1 s.e."""
    g = cur[cur.cell == cell]
    for mid in mids:
        h = g[g.method_id == mid]
        c, ls = method_style(mid, main)
        ax.plot(h.budget, h.wce, ls, color=c, label=label(mid), lw=1.5)
        ax.fill_between(h.budget, h.wce - h.wce_se, h.wce + h.wce_se, color=c, alpha=0.2, lw=0)
    ax.set_title(f"{cell_title(cell)}\n({cell_tag(cell, g.kind.iloc[0])})")
    ax.set_xlabel("judge queries")
    ax.set_ylabel("WCE (max error)")
    _queries_axis(ax)


def shown_cells(cells: list[str]) -> list[str]:
    """Figures 3-5 show two synthetic and two real cells."""
    return [c for c in cells if c.startswith("synthetic")][:2] + [c for c in cells if not c.startswith("synthetic")][:2]


def wce_by_delta(cur: pd.DataFrame, main: str, deltas):
    """Figures 3-5: WCE vs budget for Uniform, ROBIN and ROBIN-HOOD at each delta, in :func:`shown_cells`."""
    cells = list(dict.fromkeys(cur.cell))
    show = shown_cells(cells)
    # panels at the print box's width, one legend under them (every row's methods), so text prints at >= 6 pt
    fig, axes = plt.subplots(len(deltas), len(show), figsize=(1.85 * len(show), 2.4 * len(deltas)), squeeze=False)
    seen = {}
    for i, d in enumerate(deltas):
        mids = [E.UNIFORM, E.ROBIN] + [m for m in dict.fromkeys(cur.method_id) if m.startswith(f"robin-hood:delta={d:g}:")]
        for j, cell in enumerate(show):
            ax = axes[i, j]
            wce_panel(ax, cur, cell, mids, main)
            ax.set_title(ax.get_title() + f"\ndelta={d:g}")
            if j:
                ax.set_ylabel("")
            if i < len(deltas) - 1:
                ax.set_xlabel("")
        for h, lab in zip(*axes[i, -1].get_legend_handles_labels(), strict=True):
            seen.setdefault(lab, h)
    fig.legend(list(seen.values()), list(seen), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8,
               frameon=False)
    reproduction_title(fig, PAPER, "Figures 3-5", "WCE vs budget, bands +-1 s.e.", cur[cur.cell.isin(show)].kind,
                       int(cur.runs.min()))
    return fig


def wce_every_cell(cur: pd.DataFrame, main: str, eb: str):
    """Figure 8: WCE vs budget in every cell, with ours (ROBIN-HOOD-EB) where it ran. Yields ``(figure, page)``."""
    cells = list(dict.fromkeys(cur.cell))
    mids = [E.UNIFORM, E.ROBIN, main] + [m for m in [eb] if m in set(cur.method_id)]
    for fig, axes, idx, page in panel_pages(len(cells)):
        for ax, i in zip(axes, idx, strict=True):
            wce_panel(ax, cur, cells[i], mids, main)
        reproduction_title(fig, PAPER, "Figure 8", "WCE vs budget in every cell (with ours, ROBIN-HOOD-EB), bands +-1 s.e.",
                           cur[cur.cell.isin([cells[i] for i in idx])].kind, int(cur.runs.min()), page)
        yield fig, page[0]


def human_agreement(runs: pd.DataFrame, main: str, n_runs: int):
    """Figures 6-7 and 9: correlation with human ratings vs budget (ROBIN-HOOD solid, Uniform dotted), in every
    cell with human ratings; a one-line figure saying so when there is none. Yields ``(figure, page)``."""
    cells = list(dict.fromkeys(runs.cell))
    hcells = [c for c in cells if "pearson" in runs and runs[runs.cell == c].pearson.notna().any()]
    for fig, axes, idx, page in panel_pages(len(hcells)):
        for ax, i in zip(axes, idx, strict=True):
            g = runs[runs.cell == hcells[i]]
            for mid, ls in ((main, "-"), (E.UNIFORM, ":")):
                m = g[g.method_id == mid].groupby("budget")[["pearson", "spearman", "kendall"]]
                mean, se = m.mean(), m.sem().fillna(0.0)
                for col, c in (("pearson", "#D55E00"), ("spearman", "#0072B2"), ("kendall", "#009E73")):
                    ax.plot(mean.index, mean[col], ls, color=c,
                            label=f"{col} ({'ROBIN-HOOD' if mid == main else 'Uniform'})")
                    ax.fill_between(mean.index, mean[col] - se[col], mean[col] + se[col], color=c, alpha=0.15, lw=0)
            ax.set_title(f"{cell_title(hcells[i])}\n({cell_tag(hcells[i], g.kind.iloc[0] if 'kind' in g else 'real')})")
            ax.set_xlabel("judge queries")
            _queries_axis(ax)
            ax.set_ylabel("correlation with humans")
        shown = runs[runs.cell.isin([hcells[i] for i in idx])]
        reproduction_title(fig, PAPER, "Figures 6-7, 9", "agreement with human ratings vs budget, bands +-1 s.e.",
                           shown.kind if "kind" in shown else "real", n_runs, page)
        yield fig, page[0]
    if not hcells:
        fig, ax = plt.subplots(figsize=(5, 1.5))
        ax.axis("off")
        ax.text(0.5, 0.5, "no cell with human ratings in this run (real judge data absent)", ha="center")
        reproduction_title(fig, PAPER, "Figures 6-7, 9", "agreement with human ratings vs budget", "real")
        yield fig, 1


def theory(l2rows: pd.DataFrame, t3: list[dict]):
    """Lemma 2 on ROBIN's exact allocations (shortfall below floor(lambda_i B)) and Theorem 3's violation rates, boxed
    and Eq. (4) forms, with exact 95% intervals."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    ax = axes[0]
    ax.scatter(l2rows.B / l2rows.K, l2rows.worst_shortfall.clip(lower=0), s=8,
               c=l2rows.lower_violated.map({True: "#D55E00", False: "#7f7f7f"}))
    ax.set_xscale("log")
    ax.set_xlabel("B / K")
    ax.set_ylabel("max shortfall below floor(lambda_i B)")
    bad = int(l2rows.lower_violated.sum())
    ax.set_title("Lemma 2 on ROBIN's exact allocations (synthetic): "
                 + (f"{bad} of {len(l2rows)} (K, B) points violate it (vermillion)" if bad else
                    f"none of {len(l2rows)} (K, B) points violates it"), fontsize=8)
    ax = axes[1]
    names = [f"{t['judge']}\n{form}" for t in t3 for form in ("box", "eq4")]
    rates = [t[form]["rate"] for t in t3 for form in ("box", "eq4")]
    err = np.array([[t[form]["rate"] - t[form]["ci"][0], t[form]["ci"][1] - t[form]["rate"]]
                    for t in t3 for form in ("box", "eq4")]).T
    ax.bar(range(len(rates)), rates, yerr=err, color=["#D55E00" if r > t3[0]["delta"] else "#0072B2" for r in rates])
    ax.axhline(t3[0]["delta"], color="k", ls="--", lw=1, label="delta")
    ax.set_xticks(range(len(rates)))
    ax.set_xticklabels(names, fontsize=5, rotation=30)
    ax.set_ylabel("P(WCE > bound)")
    ax.set_title("Theorem 3 (synthetic judges, 95% CP intervals)", fontsize=8)
    ax.legend(fontsize=7)
    fig.suptitle(run_noted(f"{PAPER}, Lemma 2 and Theorem 3 checkers"), fontsize=9)
    fig.tight_layout()
    return fig


def judge_cells(judges: dict, values, xlabel: str, figure: str):
    """Figures 1-2: a histogram of ``values(judge)`` per judge x attribute cell. Yields ``(figure, page)``."""
    cells = list(judges)
    for fig, axes, idx, page in panel_pages(len(cells)):
        for ax, i in zip(axes, idx, strict=True):
            j = judges[cells[i]]
            ax.hist(values(j), bins=30, color="#0072B2")
            ax.set_title(f"{cell_title(cells[i])}\n({cell_tag(cells[i], j.kind)}, K={j.K})")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("items")
        reproduction_title(fig, PAPER, figure, f"{xlabel} per judge x attribute cell",
                           [judges[cells[i]].kind for i in idx], None, page)
        yield fig, page[0]


def cell_curve(curve: pd.DataFrame, cell: str, kind: str, K: int):
    """Figures 3-5/8 on one cell: mean WCE against the budget per method (``curve``: budgets x methods)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for lab in curve.columns:
        ax.plot(curve.index, curve[lab], marker=".", label=lab)
    ax.set_xlabel("judge queries")
    ax.set_ylabel("mean WCE (max error over items)")
    ax.set_title(run_noted(f"{PAPER}, Figures 3-5/8 (one cell): {cell} ({cell_tag(cell, kind)}, K={K})"))
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig
