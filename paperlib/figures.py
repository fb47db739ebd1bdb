"""Figure helpers shared by every paper's plotting module and the notebooks: the colour-blind-safe style, the data
kind tag, the reproduction title, readable text and pages of panels. Pure matplotlib, no knowledge of any paper."""

from __future__ import annotations

import matplotlib.pyplot as plt

KIND_TAG = {"real": "real data", "semi-synthetic": "semi-synthetic data", "synthetic": "synthetic data",
            "user": "user data"}


# Okabe-Ito, the colour-blind-safe palette (Wong 2011, Nature Methods 8:441), then the same colours dashed:
# 16 series stay distinct without relying on colour alone.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")


LINESTYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def series_styles(keys) -> dict:
    """One colour, line style and marker per series (in the given order): seaborn's ten-colour colour-blind palette
    first, so that up to ten series never share a colour, then the same colours with another line style; every
    series also has its own marker, so none is told apart by colour alone."""
    import seaborn as sns

    colours = sns.color_palette("colorblind", 10).as_hex()
    n = len(colours)
    return {k: dict(color=colours[i % n], linestyle=LINESTYLES[(i // n) % len(LINESTYLES)],
                    marker=MARKERS[i % len(MARKERS)]) for i, k in enumerate(keys)}


def style() -> None:
    """Figure defaults: text at least 8 pt at the saved size, the colour-blind-safe cycle of :data:`OKABE_ITO`."""
    from cycler import cycler

    plt.rcParams.update({
        "figure.dpi": 80, "savefig.bbox": "tight", "axes.titlesize": 9, "axes.labelsize": 8, "legend.fontsize": 8,
        "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.titlesize": 10,
        "axes.prop_cycle": cycler(color=list(OKABE_ITO) * 2) + cycler(linestyle=["-"] * 8 + ["--"] * 8),
    })


def reproduction_title(fig, paper: str, figure: str, what: str, kinds, reps: int | dict | None = None,
                       page: tuple[int, int] | None = None) -> None:
    """The figure's title: ``<paper>, <figure> (reproduction): <what>`` then the data kind(s), the repetitions
    behind each point (an int, or ``{series label: runs}`` when the series differ: the most common count is said
    once and the others by name) and the page (``(k, K)``) where a grid is split."""
    kinds = [kinds] if isinstance(kinds, str) else sorted(set(kinds))
    tail = " + ".join(kind_tag(k) for k in kinds)
    if isinstance(reps, dict) and len(set(reps.values())) == 1:
        reps = next(iter(reps.values()))
    if isinstance(reps, dict):
        counts = list(reps.values())
        main = max(set(counts), key=counts.count)
        others = ", ".join(f"{lab} {r}" for lab, r in reps.items() if r != main)
        tail += f"; {main} repetitions per point ({others})"
    elif reps:
        tail += f"; {reps} repetitions per point"
    if page and page[1] > 1:
        tail += f"; page {page[0]} of {page[1]}"
    fig.suptitle(f"{paper}, {figure} (reproduction): {what}\n[{tail}]")


def kind_tag(kind: str) -> str:
    return KIND_TAG.get(kind, kind)


MIN_PT = 8


def readable(fig) -> None:
    """Raise every text below :data:`MIN_PT` points to it, and give a figure with several labelled series and
    no legend a shared legend under the panels."""
    import warnings

    from matplotlib.text import Text

    for t in fig.findobj(Text):
        if t.get_text() and t.get_fontsize() < MIN_PT:
            t.set_fontsize(MIN_PT)
    axes = fig.get_axes()
    if not fig.legends and not any(ax.get_legend() for ax in axes):
        seen = {}
        for ax in axes:
            for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
                if not lab.startswith("_"):
                    seen.setdefault(lab, h)
        if len(seen) >= 2:
            fig.legend(list(seen.values()), list(seen), loc="upper center", bbox_to_anchor=(0.5, 0.0),
                       ncol=min(4, len(seen)), fontsize=MIN_PT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig.tight_layout()


#: ticks of a budget axis in percent of the matrix: the claims are about the first few percent
BUDGET_TICKS = (1, 2, 5, 10, 20, 50, 100)


def budget_axis(ax, label: str = "% of the matrix evaluated (log scale)") -> None:
    """A budget axis in percent on a log scale, so that the 1-15% where every claim about savings lives is not
    squashed against the origin by the run to 100%."""
    from matplotlib.ticker import FixedLocator, NullLocator

    ax.set_xscale("log")
    lo, hi = ax.get_xlim()
    ticks = [t for t in BUDGET_TICKS if lo * 0.999 <= t <= hi * 1.001] or list(BUDGET_TICKS)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.set_xlabel(label)


def panel_pages(n: int, per_page: int = 16, ncol: int = 4, size=(3.2, 2.6)):
    """Split ``n`` panels into pages of at most ``per_page``: yields ``(fig, axes, indices, (k, K))`` with the
    unused axes of the last page switched off."""
    pages = max(1, -(-n // per_page))
    for k in range(pages):
        idx = list(range(k * per_page, min(n, (k + 1) * per_page)))
        cols = max(1, min(ncol, len(idx)))
        rows = max(1, -(-len(idx) // cols))
        fig, axes = plt.subplots(rows, cols, figsize=(size[0] * cols, size[1] * rows), squeeze=False)
        for ax in axes.flat[len(idx):]:
            ax.axis("off")
        yield fig, axes.flat[:len(idx)], idx, (k + 1, pages)
