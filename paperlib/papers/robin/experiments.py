"""Experiments of the ROBIN reproduction: datasets (cells), runs, Table 2, and the claims.

A *cell* is one judge on one attribute: ``synthetic-discrete``, ``synthetic-gaussian``,
``closerlook-<prompt variant>-<attribute>`` or ``llmrubric-<split>-<criterion>``. Budgets are
scaled to each cell's item count with the paper's ratio (100,000 queries for 1,017 pairs).

Every function takes ``cfg``, this paper's configuration: the ``robin`` block of a profile plus the
profile's ``seed`` (see :func:`paperlib.pipeline.config.paper_config`). Tables are keyed by method
id (``robin-hood:delta=0.007:ucb=delta``); the ``label`` column is for display only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ...data import (
    closerlook_cells,
    judge_data_available,
    llmrubric_cells,
    load_closerlook,
    load_llmrubric,
)
from ...device import describe, get_device
from ...metrics import first_crossing, human_correlations
from ...policies import METHODS, label, method_id
from ...policies import parse as parse_id
from ...policies.allocation import warmup_rounds
from ...simulate import CategoricalJudge, PoolJudge, judge_from, run_judge, synthetic_judge
from ...simulate.blocks import block_range, block_ranges

PAPER_K, PAPER_B = 1017, 100_000
UNIFORM, ROBIN = "uniform", "robin"


def cell_names(cfg: dict) -> list[str]:
    """Cells of a config whose data is present here (real cells are skipped without their files)."""
    names = [f"synthetic-{fam}" for fam in cfg["synthetic"]["families"]]
    if judge_data_available("closerlook_topicalchat"):
        cells = closerlook_cells()
        vs, attrs = cfg["closerlook"]["variants"], cfg["closerlook"]["attributes"]
        names += [f"closerlook-{v}-{a}" for v, a in cells if (vs == "all" or v in vs) and (attrs == "all" or a in attrs)]
    if judge_data_available("llmrubric_dist"):
        want = cfg["llmrubric"]["cells"]
        names += [f"llmrubric-{s}-{q}" for s, q in llmrubric_cells() if want == "all" or f"{s}-{q}" in want]
    return names


def make_judge(cell: str, cfg: dict | None = None, device=None):
    """The judge simulator of a cell."""
    kind, _, rest = cell.partition("-")
    if kind == "synthetic":
        syn = (cfg or {}).get("synthetic", {})
        return synthetic_judge(rest, K=int(syn.get("K", PAPER_K)), seed=int(syn.get("seed", 0)), device=device)
    if kind == "closerlook":
        variant, attr = rest.rsplit("-", 1)
        return judge_from(load_closerlook(variant, attr), device)
    if kind == "llmrubric":
        split, crit = rest.split("-")
        return judge_from(load_llmrubric(split, crit), device)
    raise ValueError(f"unknown cell {cell!r}")


def full_budget(K: int) -> int:
    """The paper's 100,000 queries for 1,017 pairs, scaled to K items."""
    return int(round(PAPER_B * K / PAPER_K))


def main_id(cfg_or_delta, ucb: str = "delta") -> str:
    """Method id of the main ROBIN-HOOD variant (``robin-hood:delta=<main_delta>:ucb=<ucb>``)."""
    delta = cfg_or_delta["main_delta"] if isinstance(cfg_or_delta, dict) else cfg_or_delta
    return method_id("robin-hood", delta=float(delta), ucb=ucb)


def eb_id(cfg: dict) -> str:
    """Method id of ours, ROBIN-HOOD-EB, at the main delta with the union-bound log term (the valid form)."""
    return method_id("robin-hood-eb", delta=float(cfg["main_delta"]), ucb="eq6")


def run_variants(cfg: dict) -> list[str]:
    """Method ids run on every cell: Uniform, ROBIN, ROBIN-HOOD at each delta (both UCB forms at the main delta),
    then ours (:func:`eb_id`), last so that adding it changed no earlier method's seed."""
    out = [UNIFORM, ROBIN]
    for delta in cfg["deltas"]:
        for ucb in cfg["ucb_forms"]:
            if delta != cfg["main_delta"] and ucb != "delta":
                continue
            out.append(method_id("robin-hood", delta=float(delta), ucb=ucb))
    return out + [eb_id(cfg)]


def cell_blocks(cfg: dict) -> list[int]:
    """The blocks of a cell's runs (``rep_block`` runs each; one block without it): block i holds runs
    [i rep_block, (i + 1) rep_block) of every method (issue 67: ROBIN's cells in blocks of runs)."""
    return list(range(len(block_ranges(int(cfg["reps"]), cfg.get("rep_block")))))


def run_cell(cell: str, cfg: dict, device=None, progress: bool = True, block: int | None = None) -> pd.DataFrame:
    """Every method on one cell: WCE, MAE and human correlations per budget and repetition. ``block``: only runs
    [a, b) of block ``block`` (:func:`cell_blocks`); every random number of run r comes from its own keyed stream
    (``run_judge``'s ``first_run``), so the blocks concatenated are exactly the rows of all the runs at once."""
    a, b = (0, int(cfg["reps"])) if block is None else block_range(int(cfg["reps"]), cfg.get("rep_block"), block,
                                                                    f"cell {cell}")
    judge = make_judge(cell, cfg, device)
    machine = describe(get_device(device))
    B = int(round(full_budget(judge.K) * float(cfg.get("budget_scale", 1.0))))
    budgets = sorted({max(judge.K, int(round(f * B))) for f in cfg["budget_fracs"]})
    frames = []
    for i, mid in enumerate(run_variants(cfg)):
        if METHODS[parse_id(mid)[0]].cls.needs_scale and judge.scale is None:
            continue  # a method that needs bounded scores (ours) on a judge without a range (the Gaussian one)
        res = run_judge(mid, judge, budgets, reps=b - a, seed=int(cfg["seed"]) + i, first_run=a,
                        device=device, progress=progress)
        name, params = parse_id(mid)
        C, R = len(budgets), res.reps
        df = pd.DataFrame({
            "cell": cell, "judge": judge.name, "kind": judge.kind, "K": judge.K, "method": name,
            "method_id": mid, "label": label(mid), "delta": params.get("delta", np.nan),
            "ucb": params.get("ucb", ""), "budget": np.repeat(budgets, R),
            "budget_frac": np.repeat(np.asarray(budgets) / B, R), "rep": np.tile(np.arange(a, a + R), C),
            "wce": res.wce().ravel(), "mae": res.mae().ravel(), "wall_s": res.wall_s,
            "machine": machine, "streams": res.streams,  # what made the cell (issue 74, item 3)
        })
        if judge.human is not None and np.isfinite(judge.human).sum() > 2:
            cors = human_correlations(res.estimates, judge.human)
            for k, val in cors.items():
                df[k] = val.ravel()
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def agreement_prob(judge, t: int) -> np.ndarray:
    """P(t independent queries of item i all return the same score), per item.

    Such an item has sigma_hat^2 = 0 after a warm-up of t rounds, hence Vbar = 0 (Eq. 6), and
    ROBIN-HOOD never queries it again: its error is frozen at the warm-up's.
    """
    if isinstance(judge, CategoricalJudge):
        return (judge.probs**t).sum(axis=1)
    if isinstance(judge, PoolJudge):
        vals = judge.values.cpu().numpy()
        cnt = judge.counts.cpu().numpy().astype(int)
        out = np.empty(judge.K)
        for i in range(judge.K):
            _, c = np.unique(vals[i, : cnt[i]], return_counts=True)
            out[i] = ((c / cnt[i]) ** t).sum()
        return out
    return (judge.variances == 0).astype(float)


def starvation_table(cells, cfg: dict) -> pd.DataFrame:
    """Expected number of items with sigma_i > 0 whose warm-up samples all agree, per delta."""
    rows = []
    for cell in cells:
        j = make_judge(cell, cfg, device="cpu")
        pos = j.variances > 1e-12
        for delta in cfg["deltas"]:
            t0 = warmup_rounds("experiments", j.K, 1, float(delta))
            q = agreement_prob(j, t0)[pos]
            rows.append({"cell": cell, "kind": j.kind, "delta": delta, "t0": t0, "items_var_pos": int(pos.sum()),
                         "expected_starved": float(q.sum()), "p_any_starved": float(1 - np.prod(1 - q))})
    return pd.DataFrame(rows)


def table2(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 2: WCE mean and sd at half and full budget per cell and method, with a Welch test.

    ``p_vs_uniform`` is the two-sided Welch t-test of the method against Uniform at the same
    budget.
    """
    rows = []
    for (cell, mid), g in runs.groupby(["cell", "method_id"], sort=False):
        uni = runs[(runs.cell == cell) & (runs.method_id == UNIFORM)]
        for name, frac in (("half", 0.5), ("full", 1.0)):
            sel = g[np.isclose(g.budget_frac, frac, atol=0.006)]
            if sel.empty:
                continue
            u = uni[uni.budget == sel.budget.iloc[0]].wce
            p = stats.ttest_ind(sel.wce, u, equal_var=False).pvalue if mid != UNIFORM and len(u) > 1 else np.nan
            rows.append({"cell": cell, "kind": g.kind.iloc[0], "K": int(g.K.iloc[0]), "method_id": mid,
                         "label": label(mid), "point": name,
                         "budget": int(sel.budget.iloc[0]), "wce_mean": sel.wce.mean(), "wce_sd": sel.wce.std(ddof=1),
                         "p_vs_uniform": p, "mae_mean": sel.mae.mean()})
    return pd.DataFrame(rows)


def curves(runs: pd.DataFrame, metric: str = "wce") -> pd.DataFrame:
    """Mean ``metric`` over runs per cell, method id and budget, with its standard error (``<metric>_se``, 0 for
    a single run) and the number of runs (``runs``)."""
    g = runs.groupby(["cell", "kind", "method_id", "budget", "budget_frac"], sort=False)[metric]
    out = g.agg(["mean", "std", "size"]).reset_index()
    out[f"{metric}_se"] = (out["std"] / out["size"] ** 0.5).fillna(0.0)
    return out.rename(columns={"mean": metric, "size": "runs"}).drop(columns="std")


def half_budget_table(runs: pd.DataFrame, mid: str, half: float, n_boot: int = 2000) -> pd.DataFrame:
    """Budget (fraction of full) at which method ``mid`` first reaches Uniform's full-budget mean WCE
    (``frac_needed``), with a 95% percentile interval (``lo``, ``hi``; ``inf``: some draws never reach it) from
    ``n_boot`` bootstrap draws over both methods' runs (:func:`paperlib.stats.run_bootstrap_crossings`, one seed per
    cell), and the bootstrap p-value of "needs no more than ``half``" against "needs more" (``p_half``, the
    dual of the percentile interval, :func:`paperlib.decide.bootstrap_p`; a draw that never reaches counts as more).
    ``attrs["draws"]`` (cells, n_boot): the draws, for an interval on a summary over cells (draw ``j`` of every
    cell together: :func:`paperlib.papers.robin.claims._median_with_interval`)."""
    from ...decide import bootstrap_p
    from ...stats import run_bootstrap_crossings

    cur = curves(runs)
    by_cell = runs.groupby("cell", sort=False)
    rows, every = [], []
    for i, (cell, g) in enumerate(cur.groupby("cell", sort=False)):
        uni = g[g.method_id == UNIFORM].sort_values("budget")
        rh = g[g.method_id == mid].sort_values("budget")
        if uni.empty or rh.empty:
            continue
        target = float(uni.wce.iloc[-1])
        need = first_crossing(rh.budget_frac, rh.wce, target)
        r = by_cell.get_group(cell)
        mine = r[r.method_id == mid].pivot(index="rep", columns="budget_frac", values="wce")
        full = r[r.method_id == UNIFORM]
        full = full[full.budget == full.budget.max()].wce.to_numpy()
        draws = run_bootstrap_crossings(mine.columns.to_numpy(dtype=float), mine.to_numpy(), full, n_boot=n_boot,
                                        seed=i)
        lo, hi = np.quantile(draws, [0.025, 0.975], method="inverted_cdf")
        rows.append({"cell": cell, "kind": g.kind.iloc[0], "uniform_full_wce": target, "frac_needed": need,
                     "lo": float(lo), "hi": float(hi),
                     "p_half": bootstrap_p(np.where(np.isfinite(draws), draws, 2.0) - half)})
        every.append(draws)
    out = pd.DataFrame(rows)
    out.attrs["draws"] = np.vstack(every) if every else np.empty((0, n_boot))
    return out


def ordering_table(runs: pd.DataFrame, mid: str, after_frac: float) -> pd.DataFrame:
    """Per cell and budget after the warm-up: is mean WCE ordered ROBIN <= ``mid`` <= Uniform?"""
    cur = curves(runs)
    piv = cur.pivot_table(index=["cell", "kind", "budget_frac"], columns="method_id", values="wce").reset_index()
    piv = piv[piv.budget_frac > after_frac]
    piv["between"] = (piv[ROBIN] <= piv[mid]) & (piv[mid] <= piv[UNIFORM])
    piv["robin_best"] = piv[ROBIN] <= piv[[c for c in piv.columns if str(c).startswith("robin-hood:")]].min(axis=1)
    return piv


def ordering_tests(runs: pd.DataFrame, mid: str, after_frac: float) -> pd.DataFrame:
    """Per cell and budget after the warm-up, ``mid``'s WCE against Uniform's and ROBIN's over the runs: the
    differences of the means (``d_uniform`` = mid - Uniform, ``d_robin`` = mid - ROBIN) and two-sided Welch p-values
    (``p_uniform``, ``p_robin``; scipy's ``ttest_ind_from_stats``, all points at once). 'Between' at a point is
    d_uniform <= 0 <= d_robin."""
    from scipy.stats import ttest_ind_from_stats

    r = runs[runs.method_id.isin([mid, UNIFORM, ROBIN])]
    s = r.groupby(["cell", "kind", "budget_frac", "method_id"], sort=False).wce.agg(["mean", "std", "size"]).unstack()
    s = s[s.index.get_level_values("budget_frac") > after_frac].dropna()
    out = s["mean"][[mid]].rename(columns={mid: "wce"}).reset_index()
    for other, name in ((UNIFORM, "uniform"), (ROBIN, "robin")):
        with np.errstate(divide="ignore", invalid="ignore"):
            p = ttest_ind_from_stats(*(s[k][m].to_numpy(dtype=float) for m in (mid, other) for k in ("mean", "std", "size")),
                                     equal_var=False).pvalue
        d = (s["mean"][mid] - s["mean"][other]).to_numpy()
        out[f"d_{name}"] = d
        out[f"p_{name}"] = np.where(np.isnan(p), np.where(d == 0, 1.0, 0.0), p)  # no spread: exact
    return out


def plateau_tests(runs: pd.DataFrame, bad: str, main: str) -> pd.DataFrame:
    """Fig. 5's "with a poorly chosen delta ROBIN-HOOD plateaus and is overtaken by Uniform", per cell from the runs,
    each part a Welch-type test (normal approximation) with its two-sided p-value:

    - ``plateau``: the poorly chosen run's WCE decrease from half to full budget (each run's own two points) minus
      half of Uniform's: ``d_plateau`` < 0 is a plateau;
    - ``above_main``: its full-budget WCE minus that of the run with the main delta: ``d_main`` > 0;
    - ``overtaken``: its full-budget WCE minus Uniform's: ``d_uniform`` > 0.
    """
    from ...decide import normal_p

    r = runs[runs.method_id.isin([bad, main, UNIFORM])]
    rows = []
    for (cell, kind), g in r.groupby(["cell", "kind"], sort=False):
        w = g.pivot_table(index=["method_id", "rep"], columns="budget_frac", values="wce")
        fr = np.asarray(w.columns, dtype=float)
        half = fr[np.isclose(fr, 0.5, atol=0.006)]
        if not len(half) or bad not in w.index.get_level_values(0):
            continue
        full = fr.max()
        gain = {m: (w.loc[m][half[0]] - w.loc[m][full]).dropna() for m in (bad, UNIFORM)}
        end = {m: w.loc[m][full].dropna() for m in (bad, main, UNIFORM)}
        se = lambda *xs: float(np.sqrt(sum(c * c * x.var(ddof=1) / len(x) for c, x in xs)))  # noqa: E731
        d_p = float(gain[bad].mean() - 0.5 * gain[UNIFORM].mean())
        d_m = float(end[bad].mean() - end[main].mean())
        d_u = float(end[bad].mean() - end[UNIFORM].mean())
        rows.append(dict(cell=cell, kind=kind, gain_bad=float(gain[bad].mean()), gain_uni=float(gain[UNIFORM].mean()),
                         d_plateau=d_p, p_plateau=float(normal_p(d_p, se((1, gain[bad]), (0.5, gain[UNIFORM])))),
                         d_main=d_m, p_main=float(normal_p(d_m, se((1, end[bad]), (1, end[main])))),
                         d_uniform=d_u, p_uniform=float(normal_p(d_u, se((1, end[bad]), (1, end[UNIFORM]))))))
    return pd.DataFrame(rows)


def data_table(judges: dict) -> pd.DataFrame:
    """Figures 1-2: per-cell statistics of the item variances (``judges``: cell -> judge simulator)."""
    rows = []
    for cell, j in judges.items():
        v = j.variances
        rows.append(dict(cell=cell, kind=j.kind, K=j.K, mean_var=v.mean(), median_var=np.median(v), max_var=v.max(),
                         frac_zero_var=(v < 1e-12).mean(), cv_var=v.std() / v.mean(),
                         top10_share=np.sort(v)[::-1][: max(1, j.K // 10)].sum() / v.sum(),
                         n_invalid=getattr(j, "meta", {}).get("n_invalid", 0),
                         n_dropped_items=getattr(j, "meta", {}).get("n_dropped_items", 0)))
    return pd.DataFrame(rows)
