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
