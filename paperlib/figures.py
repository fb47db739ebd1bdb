"""Figure helpers shared by every paper's plotting module and the notebooks: the colour-blind-safe style, the data
kind tag, the reproduction title, readable text and pages of panels. Pure matplotlib, no knowledge of any paper."""

from __future__ import annotations

import matplotlib.pyplot as plt

# the print box lives apart from matplotlib so that the report's light environment reads it too (issue 74)
from .print_box import (  # noqa: F401  (re-exported: the plotting modules and tests read them here)
    MIN_PRINTED_PT,
    PRINT_HEIGHT_IN,
    PRINT_MAX_HEIGHT_MM,
    PRINT_WIDTH_IN,
    printed_scale,
)

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


#: One look per method in every figure of the project (issue 69): (colour index into seaborn's colour-blind palette,
#: line style, marker), keyed by the label the figures show. Zhou's six algorithms and the race's four others take
#: the ten colours and markers with solid lines; PULSE's family, Naive-Pooling, auto and LUCB reuse colours with
#: dashed or dotted lines and markers of their own, chosen so that no figure that draws them together (the race,
#: the split race, PULSE's figures, certified search) repeats a colour or a marker.
METHOD_LOOKS = {
    # Zhou's six methods in six hue families (issue 75, item 7: orange, vermillion and tan had made three oranges):
    # blue, orange, bluish green, reddish purple, black and grey
    "UCB-E": (0, "-", "o"), "UCB-E-LRF": (1, "-", "s"), "Row Mean Imputation": (2, "-", "^"),
    "Filled Subset": (4, "-", "D"), "LRF": (10, "-", "v"), "UCB-E-LRF (Score Only)": (7, "-", "P"),
    "SySRs": (6, "-", "X"), "SySH (ours)": (11, "-", "*"), "UCB-E (pending batches)": (8, "-", "<"),
    "UCB-E (synchronized)": (9, "-", ">"),
    "PULSE": (3, "--", "h"), "PULSE (precision-weighted)": (4, "--", "p"), "PULSE (synchronized)": (5, "--", "d"),
    "Naive-Pooling": (2, ":", "H"), "PULSE (paper-literal)": (1, "-.", "8"), "auto (SySRs)": (6, "--", "X"),
    "LUCB (per-model intervals)": (1, ":", "s"), "LUCB, paired (ours)": (4, ":", "v"),
    "LUCB with a prior (ours)": (5, ":", "P"), "cheapest good model (ours)": (9, ":", ">"),
}


def method_style(name: str) -> dict:
    """The colour, line style and marker of a method (its label, as the figures show it) in every figure
    (:data:`METHOD_LOOKS`); a method not there gets one from a stable hash of its name (dash-dotted)."""
    import zlib

    import seaborn as sns

    # seaborn's colour-blind ten, then black (10) and Tol's wine (11): the race draws ten methods together
    colours = sns.color_palette("colorblind", 10).as_hex() + ["#000000", "#882255"]
    c, ls, m = METHOD_LOOKS.get(name) or (zlib.crc32(name.encode()) % 10, "-.", MARKERS[zlib.crc32(name.encode()) % 10])
    return dict(color=colours[c], linestyle=ls, marker=m)


def method_order(labels) -> list[str]:
    """Methods (their labels) in the one order every figure's legend lists them: :data:`METHOD_LOOKS`'s, then any
    other by name."""
    rank = {name: i for i, name in enumerate(METHOD_LOOKS)}
    return sorted(dict.fromkeys(labels), key=lambda x: (rank.get(x, len(rank)), x))


def in_method_order(groups, key=lambda name: name) -> list[tuple]:
    """The ``(name, group)`` pairs of a pandas groupby in :func:`method_order` of ``key(name)`` (a method's label)."""
    groups = dict(list(groups))
    order = method_order(key(m) for m in groups)
    return sorted(groups.items(), key=lambda kv: order.index(key(kv[0])))


def style() -> None:
    """Figure defaults: text at least 8 pt at the saved size, the colour-blind-safe cycle of :data:`OKABE_ITO`."""
    from cycler import cycler

    plt.rcParams.update({
        "figure.dpi": 80, "savefig.bbox": "tight", "axes.titlesize": 9, "axes.labelsize": 8, "legend.fontsize": 8,
        "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.titlesize": 10,
        "axes.prop_cycle": cycler(color=list(OKABE_ITO) * 2) + cycler(linestyle=["-"] * 8 + ["--"] * 8),
    })


#: what every figure's title says of the run it shows when that is not the paper run (issue 75, item 5): set once per
#: notebook by :func:`paperlib.pipeline.notebook.start` (:func:`label_run`); None for the paper run and outside notebooks
_run_note: str | None = None


def label_run(note: str | None) -> None:
    """Set the note :func:`reproduction_title` adds to every title (None: no note)."""
    global _run_note
    _run_note = note


def run_noted(title: str) -> str:
    """``title`` with what the run is when it is not the paper run (:func:`label_run`), for the figures that write
    their own title (a job's one-dataset or one-cell figure): ``<title> [smoke size, not the paper run]``."""
    return f"{title} [{_run_note}]" if _run_note else title


def reproduction_title(fig, paper: str, figure: str, what: str, kinds, reps: int | dict | None = None,
                       page: tuple[int, int] | None = None) -> None:
    """The figure's title: ``<paper>, <figure> (reproduction): <what>`` then the data kind(s), the repetitions
    behind each point (an int, or ``{series label: runs}`` when the series differ: the most common count is said
    once and the others by name), the page (``(k, K)``) where a grid is split, and what the run is when it is not
    the paper run (:func:`label_run`: "smoke size, not the paper run")."""
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
    if _run_note:
        tail += f"; {_run_note}"
    fig.suptitle(f"{paper}, {figure} (reproduction): {what}\n[{tail}]")


def kind_tag(kind: str) -> str:
    return KIND_TAG.get(kind, kind)


MIN_PT = 8

def _texts(fig):
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_text() and t.get_visible()]


def saved_size(fig) -> tuple[float, float]:
    """The figure's size in inches as ``savefig`` with ``bbox_inches="tight"`` saves it (its tight box plus the
    padding)."""
    fig.canvas.draw()
    bbox = fig.get_tightbbox(fig.canvas.get_renderer())
    pad = 2 * plt.rcParams["savefig.pad_inches"]
    return bbox.width + pad, bbox.height + pad


def smallest_pt(fig) -> float:
    """The smallest text of ``fig`` in points at its saved size (inf without text)."""
    return min((t.get_fontsize() for t in _texts(fig)), default=float("inf"))


def smallest_printed_pt(fig) -> float:
    """The smallest text of ``fig`` in points at the size it prints (:func:`printed_scale` of its saved size)."""
    return smallest_pt(fig) * printed_scale(*saved_size(fig))


def fit_print(fig, min_pt: float = MIN_PRINTED_PT, tries: int = 8) -> float:
    """Raise every text of ``fig`` by one factor until its smallest prints at ``min_pt`` or more where the figure is
    scaled to the print box (a figure wider or taller than the box shrinks in print, its text with it); the layout
    is redone after each step. Returns the smallest printed size. Figures are meant to be designed near the box's
    width (:func:`panel_pages`); this is the guarantee for those that are not."""
    import warnings

    for _ in range(tries):
        printed = smallest_printed_pt(fig)
        if printed >= min_pt - 1e-9:
            return printed
        factor = min_pt / printed * 1.01
        sizes = [(t, t.get_fontsize()) for t in _texts(fig)]
        for ax in fig.get_axes():  # ticks made at the next draw take the axis' size, not an old label's
            for axis in (ax.xaxis, ax.yaxis):
                labels = axis.get_ticklabels(which="both")
                if labels:
                    axis.set_tick_params(which="both", labelsize=labels[0].get_fontsize() * factor)
        for t, size in sizes:
            t.set_fontsize(size * factor)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fig.tight_layout()
    printed = smallest_printed_pt(fig)
    if printed < min_pt - 1e-9:  # text that grows with the figure (a wide legend): enlarging cannot help
        warnings.warn(f"the figure's smallest text prints at {printed:.1f} pt after {tries} enlargements (at least "
                      f"{min_pt} pt): redesign it nearer the print box ({PRINT_WIDTH_IN:.1f} x {PRINT_HEIGHT_IN:.1f} in)",
                      stacklevel=2)
    return printed


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


def panel_pages(n: int, per_page: int = 12, ncol: int = 3, size=(2.6, 1.9)):
    """Split ``n`` panels into pages of at most ``per_page``: yields ``(fig, axes, indices, (k, K))`` with the
    unused axes of the last page switched off. The default page (3 x 4 panels) is designed near the print box's
    width, so that its 8 pt text prints at 6 pt or more (:func:`fit_print`). With fewer panels in all than a row
    holds (a smoke run's one cell or dataset) each panel widens, up to twice its size, so that a lone panel is not a
    strip under its titles (issue 75, item 7: robin Figure 8 at smoke size was a 20 px strip)."""
    pages = max(1, -(-n // per_page))
    grow = min(2.0, ncol / max(1, min(ncol, n)))
    for k in range(pages):
        idx = list(range(k * per_page, min(n, (k + 1) * per_page)))
        cols = max(1, min(ncol, len(idx)))
        rows = max(1, -(-len(idx) // cols))
        fig, axes = plt.subplots(rows, cols, figsize=(size[0] * grow * cols, size[1] * grow * rows), squeeze=False)
        for ax in axes.flat[len(idx):]:
            ax.axis("off")
        yield fig, axes.flat[:len(idx)], idx, (k + 1, pages)
