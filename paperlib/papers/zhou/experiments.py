"""Experiments of the Zhou et al. (2025) reproduction: runs, ablations, dataset tables.

Every function takes ``cfg``, this paper's configuration: the ``zhou`` block of a profile plus the
profile's ``seed`` (see :func:`paperlib.pipeline.config.paper_config`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import data
from ...device import MADE_BY, describe, get_device, joined
from ...metrics import budget_to_reach, equivalence_sets, hardness_h1, precision_table, settle_table
from ...policies import METHODS, label, parse
from ...simulate import budgets_from_fracs, simulate
from ...simulate.blocks import block_ranges, check_block

MAIN_METRIC = "top1 gap eps=0.01"


#: the config block (``zhou.params``) that holds each family's hyperparameters
FAMILY_BLOCKS = {"ucbe": "ucbe", "lrf": "lrf_common"}


def method_params(cfg: dict, method: str) -> dict:
    """Hyperparameters of ``method`` from its family's block of ``zhou.params``, those the method declares
    (LRF, Alg. 5, takes no refit schedule)."""
    spec = METHODS[parse(method)[0]]
    return spec.pick(cfg["params"].get(FAMILY_BLOCKS.get(spec.family, ""), {}))


#: seed offset between blocks of repetitions: block b of the i-th method is seeded ``seed + 1000 i + BLOCK_SEED_STRIDE b``,
#: so block 0 keeps the method's seed (a profile without ``rep_block`` runs exactly as before blocks existed)
BLOCK_SEED_STRIDE = 100_003


def rep_blocks(cfg: dict, method: str) -> list[int]:
    """Sizes of ``method``'s blocks of repetitions: ``reps[method]`` cut into blocks of ``rep_block`` (or of the
    method's own ``rep_block_by_method``; the last one shorter); one block of every repetition when the profile sets
    no ``rep_block``."""
    reps = int(cfg["reps"][method])
    size = int((cfg.get("rep_block_by_method") or {}).get(method) or cfg.get("rep_block") or reps)
    return [b - a for a, b in block_ranges(reps, size)]


def n_blocks(cfg: dict) -> int:
    """Blocks a dataset's runs take: the most of any method (:func:`rep_blocks`)."""
    return max(len(rep_blocks(cfg, m)) for m in cfg["methods"])


def run_block(cfg: dict, name: str, block: int, device=None, progress: bool = True, methods=None):
    """Block ``block`` of every configured method's repetitions on one dataset (a method with fewer blocks is
    skipped). A block's runs depend only on its seed (:data:`BLOCK_SEED_STRIDE`), so the blocks run in one job or in
    many, in any order, give the same runs; :func:`combine_blocks` pools them. ``methods`` (some of
    ``cfg["methods"]``; None: all) gives those methods' rows of the block, each with its seed from its position in
    ``cfg["methods"]`` (a GPU job runs the LRF family alone: ``benchmarks/gpu_declared_jobs.py``).

    Returns (metrics table with a ``block`` column, settling budgets with repetitions numbered across blocks).
    """
    block = check_block(block, n_blocks(cfg), f"Figure 3 on {name}")  # integers only, in range (issue 76)
    unknown = set(methods or ()) - set(cfg["methods"])
    if unknown:
        raise ValueError(f"methods {sorted(unknown)} are not among Figure 3's {cfg['methods']}")
    mat = data.load(name)
    n, m = mat.shape
    budgets = budgets_from_fracs(cfg["budget_fracs"], n, m)
    sets = equivalence_sets(mat.scores)
    tables, settles = [], []
    machine = describe(get_device(device))  # what made the block's rows (issue 74, item 3)
    for i, method in enumerate(cfg["methods"]):
        sizes = rep_blocks(cfg, method)
        if block >= len(sizes) or (methods is not None and method not in methods):
            continue
        res = simulate(method, mat, budgets, reps=sizes[block], seed=cfg["seed"] + 1000 * i + BLOCK_SEED_STRIDE * block,
                       device=device, progress=progress, **method_params(cfg, method))
        t = precision_table(res, mat.scores, sets)
        t["wall_s"], t["reps"], t["block"] = res.wall_s, res.reps, block
        t["machine"], t["streams"] = machine, res.streams
        tables.append(t)
        s = settle_table(res, sets[MAIN_METRIC], n, m)
        s["rep"] += sum(sizes[:block])
        settles.append(s)
    if not tables:
        raise ValueError(f"methods {sorted(methods)} have no block {block} in this profile")
    table = pd.concat(tables, ignore_index=True)
    table["H1"] = hardness_h1(mat.means)
    table["n"], table["m"] = n, m
    return table, pd.concat(settles, ignore_index=True)


def combine_blocks(tables, settles) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pool blocks of :func:`run_block` into one table as if their repetitions had been tabulated together.

    Each block's (mean, standard error, count) gives back its sum and sum of squares (``se`` is the standard error
    with ddof = 1, as :func:`paperlib.metrics.precision_table` writes it), so the pooled mean and standard error are
    those of the concatenated repetitions; ``wall_s`` (each block's time for the method) is summed. Refuses a block listed twice.
    """
    t = pd.concat(list(tables), ignore_index=True)
    keys = ["method", "dataset", "kind", "budget", "budget_frac", "metric"]
    if "block" in t and t.duplicated(keys + ["block"]).any():
        raise ValueError("a block of repetitions is listed twice")
    r = t["reps"].astype(float)
    var = np.where(r > 1, (t["se"].fillna(0.0) ** 2) * r, 0.0)  # each block's variance (ddof = 1)
    t = t.assign(_s=t["value"] * r, _q=(r - 1) * var + r * t["value"] ** 2)
    g = t.groupby(keys, sort=False)
    made = [c for c in MADE_BY if c in t]  # blocks made before 2026-12-05 record neither
    out = g.agg(_s=("_s", "sum"), _q=("_q", "sum"), reps=("reps", "sum"), wall_s=("wall_s", "sum"),
                H1=("H1", "first"), n=("n", "first"), m=("m", "first"),
                **{c: (c, joined) for c in made}).reset_index()
    n_ = out["reps"].astype(float)
    out["value"] = out["_s"] / n_
    pooled = np.where(n_ > 1, (out["_q"] - n_ * out["value"] ** 2) / np.maximum(n_ - 1, 1), np.nan)
    out["se"] = np.sqrt(np.clip(pooled, 0.0, None) / n_)
    cols = keys + ["value", "se", "wall_s", "reps", "H1", "n", "m"] + made
    settle = pd.concat(list(settles), ignore_index=True).sort_values(["method", "rep"], kind="stable", ignore_index=True)
    if settle.duplicated(["method", "rep"]).any():
        raise ValueError("a repetition appears in two blocks")
    return out[cols], settle


def adopt_one_block(cfg: dict, name: str, table: pd.DataFrame, settle: pd.DataFrame, blocks: list,
                    check_only: bool = False) -> None:
    """Make some methods' runs on dataset ``name`` one block computed elsewhere (Figure 3's LRF pair at the paper's
    refit schedule on a GPU: ``benchmarks/gpu_declared_jobs.py``): ``table`` and ``settle`` (:func:`run_block`'s
    two tables for those methods, block 0) replace those methods' rows of the block files, given as ``blocks``, a
    list of (metric csv, settle csv) paths in block order; the other blocks lose those methods' rows. ``cfg`` is the
    profile after the switch: each of those methods must have ``rep_block_by_method`` equal to its ``reps`` (one
    block), the table its run count, and the dataset's budget grid. Checks everything before writing anything
    (``check_only``: and writes nothing)."""
    methods = list(dict.fromkeys(table.method))
    mat = data.load(name)
    budgets = sorted(set(budgets_from_fracs(cfg["budget_fracs"], *mat.shape)))
    for meth in methods:
        if meth not in cfg["methods"]:
            raise ValueError(f"{meth} is not among Figure 3's {cfg['methods']}")
        if rep_blocks(cfg, meth) != [int(cfg["reps"][meth])]:
            raise ValueError(f"the profile cuts {meth}'s runs into blocks {rep_blocks(cfg, meth)}; set "
                             f"rep_block_by_method: {{{meth}: {cfg['reps'][meth]}}} to take them as one block")
        rows = table[table.method == meth]
        if set(rows.reps) != {int(cfg["reps"][meth])} or set(rows.dataset) != {name}:
            raise ValueError(f"{meth} on {name}: the table has runs {sorted(set(rows.reps))} of datasets "
                             f"{sorted(set(rows.dataset))}, the profile {cfg['reps'][meth]} runs of {name}")
        if sorted(set(rows.budget)) != budgets:
            raise ValueError(f"{meth} on {name}: the table's budgets are not the profile's grid")
        if sorted(settle[settle.method == meth].rep) != list(range(int(cfg["reps"][meth]))):
            raise ValueError(f"{meth} on {name}: the settling table does not hold runs 0..{cfg['reps'][meth] - 1}")
    if len(blocks) != n_blocks(cfg):
        raise ValueError(f"{len(blocks)} block files given, the profile has {n_blocks(cfg)} blocks")
    parts = [(pd.read_csv(csv), pd.read_csv(st)) for csv, st in blocks]
    if check_only:
        return
    order = {m: i for i, m in enumerate(cfg["methods"])}
    for b, ((csv, st), (t, s)) in enumerate(zip(blocks, parts, strict=True)):
        keep, keep_s = t[~t.method.isin(methods)], s[~s.method.isin(methods)]
        if b == 0:
            keep = pd.concat([keep, table.assign(block=0)], ignore_index=True)
            keep_s = pd.concat([keep_s, settle[settle.method.isin(methods)]], ignore_index=True)
        keep.sort_values("method", key=lambda c: c.map(order), kind="stable").to_csv(csv, index=False)
        keep_s.sort_values("method", key=lambda c: c.map(order), kind="stable").to_csv(st, index=False)


def run_dataset(cfg: dict, name: str, device=None, progress: bool = True):
    """All configured methods on one dataset: every block of :func:`run_block`, pooled by :func:`combine_blocks`.

    Returns (metrics table, per-repetition settling budgets for the main metric (:func:`settle_table`)).
    """
    parts = [run_block(cfg, name, b, device=device, progress=progress) for b in range(n_blocks(cfg))]
    return combine_blocks([p[0] for p in parts], [p[1] for p in parts])


#: Sec. 4.5's time comparison: UCB-E-LRF at b = 2 against b = 32, refitted after every batch as in the paper
BATCH_TIME_SIZES = (2, 32)
#: repetitions of each timing run (``ablation.time_reps``); they run batched, so the time is that of the batch
BATCH_TIME_REPS = 2
#: separately timed runs per batch size (``ablation.time_runs``): the spread between them gives the ratio's interval
BATCH_TIME_RUNS = 5


def run_ablation(cfg: dict, name: str, device=None, progress: bool = True) -> pd.DataFrame:
    """Figure 4: vary one UCB-E-LRF hyperparameter at a time (plus the Score-Only variant).

    The time comparison of Sec. 4.5 is :func:`run_batch_timing` (its own rule, so that it can be rerun alone).
    """
    ab = cfg["ablation"]
    base = method_params(cfg, "ucbe-lrf")
    mat = data.load(name)
    budgets = budgets_from_fracs(ab["budget_fracs"], *mat.shape)
    sets = equivalence_sets(mat.scores)
    runs = [("variant", "UCB-E-LRF", "ucbe-lrf", {}), ("variant", "Score Only", "ucbe-lrf-score-only", {})]
    for factor in ("batch_size", "ensemble", "eta", "warmup_frac", "rank"):
        for value in ab[factor]:
            runs.append((factor, value, "ucbe-lrf", {factor: value}))
    rows = []
    machine = describe(get_device(device))  # what made the rows (issue 74, item 3)
    for j, (factor, value, method, override) in enumerate(runs):
        res = simulate(method, mat, budgets, reps=int(ab["reps"]), seed=cfg["seed"] + 17 * j, device=device,
                       progress=progress, **{**base, **override})
        t = precision_table(res, mat.scores, sets)
        t["factor"], t["setting"], t["wall_s"], t["reps"] = factor, str(value), res.wall_s, int(ab["reps"])
        t["machine"], t["streams"] = machine, res.streams
        rows.append(t)
    return pd.concat(rows, ignore_index=True)


def run_batch_timing(cfg: dict, name: str, device=None, progress: bool = True) -> pd.DataFrame:
    """Sec. 4.5's claim that b = 2 takes almost 16 times as long as b = 32: UCB-E-LRF to the ablation grid's largest
    budget, refitted after every batch (the paper's setting, whatever ``refit_growth`` the profile declares),
    ``ablation.time_runs`` separately timed runs per batch size (each ``ablation.time_reps`` repetitions, batched),
    b = 2 and b = 32 alternating so that a change in the machine's load falls on both.

    Returns the precision table of each run (factor ``batch_time``) with its ``run`` index and ``wall_s``.
    """
    ab = cfg["ablation"]
    base = method_params(cfg, "ucbe-lrf")
    mat = data.load(name)
    budgets = budgets_from_fracs(ab["budget_fracs"], *mat.shape)
    sets = equivalence_sets(mat.scores)
    reps = int(ab.get("time_reps", BATCH_TIME_REPS))
    rows = []
    machine = describe(get_device(device))  # what made the rows (issue 74, item 3)
    for k in range(int(ab.get("time_runs", BATCH_TIME_RUNS))):
        for b in BATCH_TIME_SIZES:
            res = simulate("ucbe-lrf", mat, budgets, reps=reps, seed=cfg["seed"] + 1009 * (k + 1) + b, device=device,
                           progress=progress, **{**base, "batch_size": b, "refit_growth": 0.0})
            t = precision_table(res, mat.scores, sets)
            t["factor"], t["setting"], t["run"], t["wall_s"], t["reps"] = "batch_time", str(b), k, res.wall_s, reps
            t["machine"], t["streams"] = machine, res.streams
            rows.append(t)
    return pd.concat(rows, ignore_index=True)


def dataset_table(names) -> pd.DataFrame:
    """Table 2: size, data kind, best and runner-up means, top-2 gap and H1 of each dataset."""
    rows = []
    for name in names:
        mat = data.load(name)
        mu = np.sort(mat.means)[::-1]
        info = data.info(name)
        rows.append(dict(dataset=name, kind=mat.kind, n=mat.shape[0], m=mat.shape[1],
                         binary=mat.is_binary, best=mu[0], runner_up=mu[1], gap=mu[0] - mu[1],
                         H1=hardness_h1(mat.means), provenance=info.provenance))
    return pd.DataFrame(rows).sort_values("H1", ignore_index=True)


NULL_SHUFFLES = 99  # a share above all 99 shuffles: exact permutation p-value 1 / 100 = 0.01 (below 0.05, as
#                     paperlib.decide's p < 0.05 needs; 19 gave exactly 0.05)


def _shares(scores: np.ndarray, ranks) -> tuple[dict, np.ndarray]:
    s = np.linalg.svd(scores, compute_uv=False)
    energy = np.cumsum(s**2) / np.sum(s**2)
    return {r: float(energy[min(r, len(s)) - 1]) for r in ranks}, s


def low_rankness(name: str, ranks=(1, 2, 5, 10), shuffles: int = NULL_SHUFFLES, seed: int = 0) -> tuple[dict, np.ndarray]:
    """Table 3 / Figure 6: share of squared Frobenius norm in the top-r singular values, and the largest such share
    over ``shuffles`` copies of the matrix with each model's row permuted independently (``rank r null``: each
    model keeps its mean and its scores, the examples' correlations across models that low rank comes from are
    destroyed; a permutation test with p = 1 / (shuffles + 1) when the share exceeds every copy's). Since that null
    also destroys the columns' means (easy and hard questions), ``rank r residual`` is the same share of the doubly
    centred matrix (row and column means removed) and ``rank r residual null`` its largest share over ``shuffles``
    permutations of the residual's entries, centred again: structure beyond the two means, the test the ledger
    grades.

    Returns ({"rank r": share, "rank r null": largest shuffled share}, normalised singular values).
    """
    return low_rankness_of(data.load(name).scores, ranks, shuffles, seed)


def low_rankness_of(scores, ranks=(1, 2, 5, 10), shuffles: int = NULL_SHUFFLES, seed: int = 0) -> tuple[dict, np.ndarray]:
    """:func:`low_rankness` of a score matrix."""
    x = np.asarray(scores, dtype=np.float64)
    shares, s = _shares(x, ranks)
    rng = np.random.default_rng(seed)
    null = {r: 0.0 for r in ranks}
    for _ in range(shuffles):
        sh, _ = _shares(rng.permuted(x, axis=1), ranks)
        null = {r: max(null[r], sh[r]) for r in ranks}
    # beyond the row and column means (issue 57: a row shuffle also destroys how questions differ in difficulty, so
    # any matrix with easy and hard questions beats it): the doubly centred residual's share in its top r components
    # against the same share after its entries are permuted over the whole matrix and centred again (the null keeps
    # the row and column means and the residuals' values, and makes them exchangeable noise)
    res = _double_centre(x)
    rshares, _ = _shares(res, ranks) if np.any(res) else ({r: 0.0 for r in ranks}, None)
    rnull = {r: 0.0 for r in ranks}
    for _ in range(shuffles):
        perm = _double_centre(rng.permutation(res.ravel()).reshape(res.shape))
        sh, _ = _shares(perm, ranks) if np.any(perm) else ({r: 0.0 for r in ranks}, None)
        rnull = {r: max(rnull[r], sh[r]) for r in ranks}
    out = ({f"rank {r}": shares[r] for r in ranks} | {f"rank {r} null": null[r] for r in ranks}
           | {f"rank {r} residual": rshares[r] for r in ranks} | {f"rank {r} residual null": rnull[r] for r in ranks})
    return out, s / s[0]


def _double_centre(x: np.ndarray) -> np.ndarray:
    """``x`` less its row and column means (plus the grand mean): what the two means leave unexplained."""
    return x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()


def reach_table(table: pd.DataFrame, metric: str = MAIN_METRIC, level: float = 1.0) -> pd.DataFrame:
    """Budget fraction at which each method reaches ``level`` of ``metric`` on each dataset."""
    out = budget_to_reach(table, metric, level)
    meta = table.groupby("dataset")[["H1", "kind"]].first().reset_index()
    out = out.merge(meta, on="dataset")
    out["label"] = out.method.map(label)
    return out


def low_rankness_table(names) -> tuple[pd.DataFrame, dict]:
    """Table 3 for several datasets, and each one's normalised singular values (Figure 6)."""
    rows, spectra = [], {}
    for d in names:
        shares, sv = low_rankness(d)
        rows.append(dict(dataset=d, kind=data.info(d).kind, **shares))
        spectra[d] = sv
    return pd.DataFrame(rows), spectra


def cost_table(reach: pd.DataFrame, usd_full: float, gpu_hours_full: float) -> tuple[pd.DataFrame, str, str]:
    """Figure 1 under a per-call cost model: the paper's full costs times the budget fraction each method needs.

    The easy panel is AlpacaEval-2 (clean) when present, else the easiest dataset; the hard panel is
    the hardest real dataset (by H1), else the hardest dataset. Returns (table, easy, hard).
    """
    easy = "alpacaeval2_clean" if "alpacaeval2_clean" in set(reach.dataset) else reach.sort_values("H1").dataset.iloc[0]
    real = reach[reach.kind == "real"]
    hard = (real if len(real) else reach).sort_values("H1").dataset.iloc[-1]

    def frac(ds, meth):
        v = reach[(reach.dataset == ds) & (reach.method == meth)].budget_frac
        return float(v.iloc[0]) if len(v) else np.nan

    rows = []
    for ds, unit, full in [(easy, "USD", usd_full), (hard, "GPU-hours", gpu_hours_full)]:
        for meth in ["ucbe", "ucbe-lrf"]:
            f = frac(ds, meth)
            rows.append(dict(dataset=ds, unit=unit, method=label(meth), budget_frac=f, cost=f * full, full=full))
    return pd.DataFrame(rows), easy, hard
