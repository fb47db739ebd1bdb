"""Repeated LLM-judge scores of K items: validation and the real datasets of the ROBIN reproduction.

A *pool* is a (K, S) array: row i holds S repeated judge scores of prompt-response pair i, NaN
where a judgment was invalid (unparsable, out of range) or missing. Following the authors'
protocol (``../shared/data/robin_official/PROVENANCE.md``) invalid judgments are dropped; a query
of item i then returns one of its valid scores uniformly at random.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import paths
from .digest import judge_file_sha256
from .registry import DatasetNotFoundError, entries, is_registered_file, judge_registry

_verified: set[str] = set()


class JudgeDataError(ValueError):
    """Invalid judge data (empty pool, too few valid repeats, bad values)."""


def locate_judge_file(rel: str) -> Path:
    """Path of a judge-data file under ``$PAPERLIB_DATA`` or ``data/cache``, checksum verified."""
    tried = []
    for folder in paths.data_dirs():
        p = folder / rel
        tried.append(str(p))
        if p.exists():
            if rel not in _verified:
                if not is_registered_file(p, _judge_files()[rel], _judge_digests().get(rel), judge_file_sha256):
                    raise JudgeDataError(f"{p}: neither its checksum nor its content digest is the one recorded in "
                                         f"paperlib/data/registry.yaml; rebuild it with `paperlib data fetch "
                                         f"{rel.split('/')[0]} --force`")
                _verified.add(rel)
            return p
    raise DatasetNotFoundError(
        f"judge data {rel} not found; looked in: {', '.join(tried)}. How to get it: "
        f"`paperlib data fetch {rel.split('/')[0]}`, or copy the folder `{rel.split('/')[0]}/` of a copy of the "
        f"project data into $PAPERLIB_DATA")


def _judge_digests() -> dict[str, str]:
    """Registered content digest of every judge-data file (accepts a copy rebuilt by ``paperlib data fetch``)."""
    return {r: d for e in entries().values() if e.get("format") == "judge"
            for r, d in (e.get("content_sha256") or {}).items()}


def _judge_files() -> dict[str, str]:
    return {rel: sha for files in judge_registry().values() for rel, sha in files.items()}


def judge_data_available(name: str) -> bool:
    """True when the files of ``closerlook_topicalchat`` or ``llmrubric_dist`` are present."""
    try:
        for rel in judge_registry()[name]:
            locate_judge_file(rel)
    except DatasetNotFoundError:
        return False
    return True


MAX_ABS_SCORE = 1e100  # a judge score's largest magnitude: its square summed over 1e100 queries stays finite


@dataclass
class JudgePool:
    """Stored repeated judgments.

    Attributes
    ----------
    scores : (K, S) float64, NaN = invalid judgment (dropped)
    item_ids : (K,) labels
    human : (K,) float64 or None, human rating of each item (NaN where absent)
    meta : dict with ``n_invalid`` (dropped judgments), ``n_dropped_items`` and the source
    """

    name: str
    kind: str
    scores: np.ndarray
    item_ids: np.ndarray
    human: np.ndarray | None = None
    scale: tuple[float, float] | None = None
    meta: dict = field(default_factory=dict)

    @property
    def K(self) -> int:
        return int(self.scores.shape[0])

    @property
    def counts(self) -> np.ndarray:
        return (~np.isnan(self.scores)).sum(axis=1)

    def means(self) -> np.ndarray:
        """s_i: the pool mean of each item (the judge's own average, the reference of the WCE)."""
        return np.nanmean(self.scores, axis=1)

    def variances(self) -> np.ndarray:
        """Population variance of each pool: the exact variance of one resampled query."""
        return np.nanvar(self.scores, axis=1)

    @classmethod
    def from_array(cls, scores, name: str = "pool", kind: str = "real", item_ids=None, human=None,
                   scale=None, min_valid: int = 2, sparse: str = "error") -> "JudgePool":
        """Validate a (K, S) score array.

        Parameters
        ----------
        scores : array-like (K, S); NaN marks an invalid judgment and is dropped and counted.
        scale : (lo, hi), optional; finite values outside it are an error.
        min_valid : int
            Fewest valid repeats an item needs (2: a variance needs two draws).
        sparse : {"error", "drop"}
            What to do with items that have fewer than ``min_valid`` valid repeats.
        """
        try:
            arr = np.asarray(scores, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise JudgeDataError(f"{name}: scores are not numeric ({exc})") from None
        if arr.ndim != 2:
            raise JudgeDataError(f"{name}: scores must be a 2-d (items, repeats) array, got shape {arr.shape}")
        if arr.size == 0 or arr.shape[0] == 0:
            raise JudgeDataError(f"{name}: the pool is empty (shape {arr.shape})")
        if np.isinf(arr).any():
            raise JudgeDataError(f"{name}: scores contain inf")
        biggest = float(np.nanmax(np.abs(arr))) if not np.isnan(arr).all() else 0.0
        if biggest > MAX_ABS_SCORE:  # squares and sums of squares (the variances) would overflow to inf, then NaN
            raise JudgeDataError(f"{name}: a score of magnitude {biggest:.3g} is beyond {MAX_ABS_SCORE:.0e}; the "
                                 "variances would overflow (rescale the scores, e.g. to the judge's own scale)")
        if scale is not None:
            lo, hi = scale
            bad = ~np.isnan(arr) & ((arr < lo) | (arr > hi))
            if bad.any():
                raise JudgeDataError(f"{name}: {int(bad.sum())} scores lie outside the scale [{lo}, {hi}]")
        ids = np.arange(arr.shape[0]) if item_ids is None else np.asarray(item_ids)
        if ids.shape != (arr.shape[0],):
            raise JudgeDataError(f"{name}: item_ids has shape {ids.shape}, expected ({arr.shape[0]},)")
        uniq, counts = np.unique(ids.astype(str), return_counts=True)
        if (counts > 1).any():
            raise JudgeDataError(f"{name}: duplicate item ids: {', '.join(uniq[counts > 1][:5])} (one row per item; "
                                 "repeated judgments of an item go in its row)")
        hum = None if human is None else np.asarray(human, dtype=np.float64)
        if hum is not None and hum.shape != (arr.shape[0],):
            raise JudgeDataError(f"{name}: human has shape {hum.shape}, expected ({arr.shape[0]},)")
        n_invalid = int(np.isnan(arr).sum())
        valid = (~np.isnan(arr)).sum(axis=1)
        sparse_rows = valid < min_valid
        if arr.shape[1] < min_valid:
            raise JudgeDataError(f"{name}: {arr.shape[1]} repeat(s) per item; at least {min_valid} are needed "
                                 "to estimate a per-item variance")
        if sparse_rows.any():
            if sparse != "drop":
                raise JudgeDataError(
                    f"{name}: {int(sparse_rows.sum())} item(s) have fewer than {min_valid} valid judgments "
                    f"(first: item {ids[np.argmax(sparse_rows)]}); drop them explicitly")
            keep = ~sparse_rows
            if not keep.any():
                raise JudgeDataError(f"{name}: no item has {min_valid} valid judgments")
            n_invalid -= int(np.isnan(arr[~keep]).sum())
            arr, ids = arr[keep], ids[keep]
            hum = None if hum is None else hum[keep]
        meta = {"n_invalid": n_invalid, "n_dropped_items": int(sparse_rows.sum()),
                "n_judgments": int((~np.isnan(arr)).sum())}
        return cls(name, kind, arr, ids, hum, tuple(scale) if scale is not None else None, meta)


def load_pool_file(path: str | Path, sparse: str = "error", scale=None) -> JudgePool:
    """Read a pool from ``.npz`` (``scores`` (K, S), optional ``item_ids``, ``human``) or ``.csv``.

    A CSV is long format with columns ``item`` and ``score`` (one row per judgment; empty or
    non-numeric scores count as invalid) and an optional ``human`` column (one value per item).
    ``scale=(lo, hi)``: the judge's score range (a score outside it is an error).
    """
    import pandas as pd

    path = Path(path)
    if not path.exists():
        raise JudgeDataError(f"judgments file not found: {path}")
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            if "scores" not in z:
                raise JudgeDataError(f"{path}: npz has no 'scores' array (keys: {sorted(z.files)})")
            return JudgePool.from_array(z["scores"], name=path.stem, kind="user",
                                        item_ids=z["item_ids"] if "item_ids" in z else None,
                                        human=z["human"] if "human" in z else None, sparse=sparse, scale=scale)
    if path.suffix in (".csv", ".gz"):
        df = pd.read_csv(path)
        missing = {"item", "score"} - set(df.columns)
        if missing:
            raise JudgeDataError(f"{path}: CSV lacks column(s) {sorted(missing)}; expected item, score[, human]")
        if df.empty:
            raise JudgeDataError(f"{path}: the pool is empty")
        df["score"] = pd.to_numeric(df["score"], errors="coerce")
        df["rep"] = df.groupby("item").cumcount()
        wide = df.pivot(index="item", columns="rep", values="score")
        human = df.groupby("item")["human"].first().reindex(wide.index).to_numpy() if "human" in df else None
        pool = JudgePool.from_array(wide.to_numpy(), name=path.stem, kind="user",
                                    item_ids=wide.index.to_numpy(), human=human, sparse=sparse, scale=scale)
        invalid = df["score"].isna().groupby(df["item"]).sum()
        pool.meta["n_invalid"] = int(invalid.reindex(pool.item_ids).sum())
        return pool
    raise JudgeDataError(f"{path}: unsupported format (use .npz or .csv)")


CLOSERLOOK_SCALES = {"coherence": (1, 3), "engagingness": (1, 3), "naturalness": (1, 3), "groundedness": (0, 1)}


def closerlook_cells() -> list[tuple[str, str]]:
    """All (prompt variant, attribute) cells of the Chiang & Lee Topical-Chat judgments."""
    with np.load(locate_judge_file("closerlook_topicalchat/scores_tensor.npz")) as z:
        return [(str(v), str(a)) for v in z["prompt_variants"] for a in z["attributes"]]


def load_closerlook(variant: str, attribute: str) -> JudgePool:
    """One (prompt variant, attribute) experiment: about 360 items x 20 ChatGPT samples, real.

    Items missing from the cell (failed API calls) and items with fewer than two valid samples are
    dropped and counted in ``meta``. ``human`` is the mean USR rating of the same attribute.
    """
    with np.load(locate_judge_file("closerlook_topicalchat/scores_tensor.npz")) as z:
        variants = [str(v) for v in z["prompt_variants"]]
        attrs = [str(a) for a in z["attributes"]]
        if variant not in variants:
            raise JudgeDataError(f"unknown prompt variant {variant!r}; choose from {variants}")
        if attribute not in attrs:
            raise JudgeDataError(f"unknown attribute {attribute!r}; choose from {attrs}")
        v, a = variants.index(variant), attrs.index(attribute)
        scores = z["scores"][v, a].astype(np.float64)
        human = z["human"][:, a].astype(np.float64)
        ids = z["item_ids"]
    return JudgePool.from_array(scores, name=f"closerlook/{variant}/{attribute}", kind="real", item_ids=ids,
                                human=human, scale=CLOSERLOOK_SCALES[attribute], sparse="drop")


@dataclass
class JudgeDistribution:
    """Exact per-item score distributions: ``probs[i, l]`` = P(judge answers ``values[l]``)."""

    name: str
    kind: str
    probs: np.ndarray
    values: np.ndarray
    item_ids: np.ndarray
    human: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    @property
    def K(self) -> int:
        return int(self.probs.shape[0])

    def means(self) -> np.ndarray:
        return self.probs @ self.values

    def variances(self) -> np.ndarray:
        return self.probs @ self.values**2 - self.means() ** 2


def llmrubric_cells() -> list[tuple[str, str]]:
    return [(s, f"Q{q}") for s in ("synth", "real") for q in range(9)]


def load_llmrubric(split: str, criterion: str) -> JudgeDistribution:
    """gpt-3.5-turbo-16k answer distributions on {1,2,3,4} (Hashemi et al. 2024), real.

    ``human`` is the mean of the annotators' valid ratings (0 = no answer is dropped, as the
    source's scripts do), NaN where no annotator rated the item.
    """
    import pandas as pd

    llm = pd.read_csv(locate_judge_file("llmrubric_dist/llm_score_distributions.csv.gz"))
    sel = llm[(llm["split"] == split) & (llm["criterion"] == criterion)].sort_values("text_id")
    if sel.empty:
        raise JudgeDataError(f"no llmrubric items for split={split!r}, criterion={criterion!r}; "
                             f"cells are {llmrubric_cells()}")
    probs = sel[[f"answer{k}_prob" for k in range(1, 5)]].to_numpy(np.float64)
    probs = probs / probs.sum(axis=1, keepdims=True)
    hum = pd.read_csv(locate_judge_file("llmrubric_dist/human_ratings.csv.gz"))
    hum = hum[(hum["split"] == split) & (hum["criterion"] == criterion) & (hum["score"] > 0)]
    human = hum.groupby("text_id")["score"].mean().reindex(sel["text_id"]).to_numpy(np.float64)
    return JudgeDistribution(f"llmrubric/{split}/{criterion}", "real", probs, np.arange(1.0, 5.0),
                             sel["text_id"].to_numpy(), human)
