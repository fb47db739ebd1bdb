"""Issue 68, item 4: every figure prints its smallest text at 6 pt or more at the size the PDF shows it.

The PDF scales a figure wider or taller than its print box (the text width of a Letter page with the report's 12 mm
margins, and the print CSS's maximum image height) down to the box, and its text with it. The SVGs draw text as
paths, so each records its smallest font size in its description (``paperlib.pipeline.notebook.save_vector``); the
printed size is that times the scale computed here from the SVG's own width and height.
"""

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from paperlib.figures import MIN_PRINTED_PT, PRINT_MAX_HEIGHT_MM, fit_print  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: the print box, from the page itself: Letter is 215.9 mm wide, the report's @page has 12 mm side margins
BOX_W_PT = (215.9 - 2 * 12) / 25.4 * 72
BOX_H_PT = PRINT_MAX_HEIGHT_MM / 25.4 * 72


def printed(font_pt: float, width_pt: float, height_pt: float) -> float:
    return font_pt * min(1.0, BOX_W_PT / width_pt, BOX_H_PT / height_pt)


def svg_size(text: str) -> tuple[float, float]:
    w = re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', text)
    h = re.search(r'<svg[^>]*\sheight="([\d.]+)pt"', text)
    return float(w.group(1)), float(h.group(1))


def test_the_print_css_and_the_page_margins_are_the_box_the_figures_are_sized_for():
    from paperlib.pipeline.book import CSS as BOOK_CSS
    from paperlib.pipeline.print_pdf import PRINT_CSS

    assert f"max-height:{PRINT_MAX_HEIGHT_MM}mm" in PRINT_CSS
    assert re.search(r"@page\{margin:\S+ 12mm \S+ 12mm", BOOK_CSS)


def test_a_wide_figure_is_enlarged_until_its_text_prints_at_6_pt(tmp_path):
    """A 20 x 4 in grid with 8 pt text would print at 8 * 7.56 / 20 = 3 pt; after fit_print, the SVG written with
    real text (svg.fonttype none: each text's size is in the file) prints its smallest text at 6 pt or more."""
    fig, axes = plt.subplots(1, 6, figsize=(20, 4))
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="a")
        ax.set_title("panel", fontsize=8)
        ax.tick_params(labelsize=8)
    fit_print(fig)
    path = tmp_path / "wide.svg"
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    text = path.read_text()
    sizes = [float(x) for x in re.findall(r"font(?:-size)?:\s*(?:[a-z]+ )*([\d.]+)px", text)]
    assert sizes, "no text size in the SVG"
    w, h = svg_size(text)
    assert printed(min(sizes), w, h) >= MIN_PRINTED_PT - 0.05
    assert min(sizes) > 8  # it had to be enlarged


def committed_svgs():
    return sorted((ROOT / "figures" / "paper").glob("*.svg"))


def site_only() -> set[str]:
    """The figures the book keeps out of the PDF (``print: false`` in paperlib/pipeline/book.yaml)."""
    import yaml

    book = yaml.safe_load((ROOT / "paperlib" / "pipeline" / "book.yaml").read_text())
    out = set()
    for ch in book["chapters"]:
        for sec in ch.get("sections", []):
            out |= {Path(f["file"]).stem for f in sec.get("figures", []) if f.get("print") is False}
    return out


@pytest.mark.parametrize("svg", committed_svgs(), ids=lambda p: p.name)
def test_every_paper_figure_prints_at_6_pt_or_more(svg):
    text = svg.read_text()
    if "not printed: site only" in text:
        assert svg.stem in site_only(), f"{svg.name} is saved as site-only but the book prints it"
        return
    m = re.search(r"smallest text ([\d.]+) pt", text)
    assert m, f"{svg.name} records no smallest text size: rerun the notebook that makes it"
    w, h = svg_size(text)
    got = printed(float(m.group(1)), w, h)
    assert got >= MIN_PRINTED_PT - 0.05, f"{svg.name} prints its smallest text at {got:.1f} pt"


def test_one_look_per_method_and_no_figure_repeats_a_colour_or_a_marker():
    """Issue 69: a method has one colour in every figure (paperlib.figures.method_style by its label), and the
    methods drawn together (the race, the split race, PULSE's figures, certified search) are told apart by colour
    and by marker alone."""
    from paperlib.figures import method_style
    from paperlib.pipeline.config import load_config
    from paperlib.policies import label

    cfg = load_config("paper")
    together = [cfg["race"]["methods"], cfg["race"]["split"]["methods"], cfg["pulse"]["methods"],
                cfg["search"]["methods"], cfg["zhou"]["methods"]]
    for methods in together:
        looks = [method_style(label(m)) for m in methods]
        assert len({(s["color"]) for s in looks}) == len(methods), methods
        assert len({(s["marker"]) for s in looks}) == len(methods), methods
    assert method_style("UCB-E") == method_style(label("ucbe")) == method_style(label("ucbe-batch"))


def test_a_lone_pool_gets_a_readable_panel():
    """Issue 75, item 7: at smoke size (one pool) Figures 2 and 4 were a 1.9 x 1.75 in panel under a title twice its
    width (about 100 x 30 px in the notebook); a lone figure is now 3.8 in wide (its panel 3 in), and four still fit the box."""
    import pandas as pd

    from paperlib.papers.pulse.plots import accuracy_curves

    def runs(pools):
        return pd.DataFrame([dict(pool=p, label=lab, bandit_calls=c, accuracy=0.5, se=0.01, kind="synthetic",
                                  realised_gap=0.05, reps=4) for p in pools for lab in ("PULSE", "UCB-E")
                             for c in (100, 200)])

    one = accuracy_curves(runs(["a"]))
    w = one.axes[0].get_position().width * one.get_size_inches()[0]
    assert w >= 2.5 and one.get_size_inches()[0] >= 3.5, (w, one.get_size_inches())  # was 1.9 in in all
    four = accuracy_curves(runs(list("abcd")))
    assert four.get_size_inches()[0] <= 7.6 + 1e-9


def test_a_lone_panel_of_a_page_grid_is_not_a_strip():
    """Issue 75, item 7: robin Figure 8 at smoke size (one cell) drew its axes about 20 px high under a two-line
    figure title and a three-line panel title; with fewer panels than a row holds, panels grow (up to twice)."""
    from paperlib.figures import panel_pages

    fig, axes, idx, _ = next(panel_pages(1))
    assert tuple(fig.get_size_inches()) == (5.2, 3.8) and len(idx) == 1
    fig, axes, idx, _ = next(panel_pages(12))  # a full page keeps the print box's design
    assert tuple(fig.get_size_inches()) == (2.6 * 3, 1.9 * 4)
    pages = list(panel_pages(13))  # a last page of one panel keeps the others' size
    assert tuple(pages[-1][0].get_size_inches()) == (2.6, 1.9)
