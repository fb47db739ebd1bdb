"""Zhou Figure 3 in one figure (issue 58, item 4): the mean over datasets and its bootstrap interval."""

import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")

from paperlib.papers.zhou.plots import dataset_means, figure3_summary  # noqa: E402


def _table():
    rng = np.random.default_rng(0)
    rows = []
    for d in range(10):
        for frac in (0.01, 0.05, 0.2):
            for method in ("ucbe", "row-mean"):
                for metric in ("top1 gap eps=0.01", "NDCG@10"):
                    rows.append(dict(method=method, dataset=f"d{d}", kind="synthetic", budget_frac=frac * (1 + 1e-5 * d),
                                     metric=metric, value=float(rng.random()), reps=50))
    return pd.DataFrame(rows)


def test_mean_over_datasets_and_an_interval_that_holds_it():
    t = _table()
    got = dataset_means(t, "NDCG@10").set_index(["method", "frac"])
    want = t[t.metric == "NDCG@10"].assign(frac=lambda d: d.budget_frac.round(3)).groupby(["method", "frac"]).value.mean()
    np.testing.assert_allclose(got["mean"], want.loc[got.index])
    assert (got.lo <= got["mean"]).all() and (got["mean"] <= got.hi).all() and (got.datasets == 10).all()
    # ten values spread over [0, 1]: a 95% interval for their mean is neither a point nor the whole range
    assert ((got.hi - got.lo) > 0.05).all() and ((got.hi - got.lo) < 0.6).all()


def test_one_panel_per_metric_and_a_legend_slot():
    t = _table()
    fig = figure3_summary(t, t.groupby("dataset").kind.first(), ["top1 gap eps=0.01", "NDCG@10"])
    drawn = [ax for ax in fig.axes if ax.lines]
    assert [ax.get_title() for ax in drawn] == ["top1 gap eps=0.01", "NDCG@10"]
    assert all(len(ax.lines) == 2 for ax in drawn)
    assert any(ax.get_legend() is not None for ax in fig.axes)


def test_the_grid_and_the_summary_list_the_six_methods_alike_in_six_hue_families():
    """Issue 75, item 7: the 25-panel grid's legend listed the methods in another order than the summary's (whose
    means come sorted by name), and three of the six were orange-family colours. Both now follow one order (the
    methods' table in paperlib.figures), and the six colours are six families: chromatic hues at least 30 degrees
    apart, achromatic ones (black, grey) apart in lightness."""
    import colorsys

    from matplotlib.colors import to_rgb

    from paperlib.figures import method_style, readable
    from paperlib.papers.zhou.plots import figure3
    from paperlib.policies import label

    six = ["ucbe", "ucbe-lrf", "row-mean", "filled-subset", "lrf", "ucbe-lrf-score-only"]
    rows = [dict(method=m, dataset=f"d{d}", kind="synthetic", budget_frac=f, metric="NDCG@10", value=0.5, se=0.01,
                 reps=50, H1=1.0 + d) for d in range(3) for f in (0.01, 0.05) for m in reversed(six)]
    t = pd.DataFrame(rows)
    summary = figure3_summary(t, t.groupby("dataset").kind.first(), ["NDCG@10"])
    legend = [x.get_text() for ax in summary.axes if ax.get_legend() for x in ax.get_legend().get_texts()]
    grid, _ = next(figure3(t, ["d0", "d1", "d2"], t.groupby("dataset").kind.first(), ["NDCG@10"]))
    readable(grid)
    grid_legend = [x.get_text() for x in grid.legends[0].get_texts()]
    assert legend == grid_legend == [label(m) for m in six], (legend, grid_legend)
    hsv = [colorsys.rgb_to_hsv(*to_rgb(method_style(label(m))["color"])) for m in six]
    chroma = [h * 360 for h, s, v in hsv if s > 0.25 and v > 0.25]
    grey = sorted(v for h, s, v in hsv if not (s > 0.25 and v > 0.25))
    assert len(chroma) + len(grey) == 6
    for i, a in enumerate(chroma):
        for b in chroma[i + 1:]:
            assert min(abs(a - b), 360 - abs(a - b)) >= 30, (chroma, [method_style(label(m))["color"] for m in six])
    assert all(b - a >= 0.4 for a, b in zip(grey, grey[1:], strict=False)), grey
