"""PULSE test pools (Section 4): train/test split of the models and pools with a target top-2 gap.

The paper splits models by release date; release dates are not in the data we have, so models are
split into random halves. A pool of ``size`` test models with target gap Delta is built as in
Section 4: the best test model, then the model whose gap to it is closest to Delta, then the
``size - 2`` best models strictly below that second model (so the realised top-2 gap is the chosen
one). A pool whose realised gap misses its target by more than ``tol`` is an error; the seed is
the first one >= the configured seed whose split reaches the target (:func:`make_pool`), and the
seed used is recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .matrix import ScoreMatrix


class PoolBuildError(ValueError):
    """A pool cannot reach its target top-2 gap."""


@dataclass
class Split:
    seed: int
    train: np.ndarray
    test: np.ndarray


def split_models(n_models: int, seed: int) -> Split:
    if n_models < 4:
        raise ValueError(f"need at least 4 models to split, got {n_models}")
    perm = np.random.default_rng(seed).permutation(n_models)
    half = n_models // 2
    return Split(seed, np.sort(perm[:half]), np.sort(perm[half:]))


def build_pool(means: np.ndarray, size: int | None, gap: float | None, tol: float = 0.002) -> np.ndarray:
    """Indices (into ``means``) of a pool; ``gap=None`` or ``size=None`` = all models."""
    means = np.asarray(means, dtype=float)
    order = np.argsort(-means, kind="stable")
    if gap is None:
        return order if size is None else order[:size]
    top = order[0]
    rest = order[1:]
    diffs = means[top] - means[rest]
    second = rest[int(np.argmin(np.abs(diffs - gap)))]
    real = means[top] - means[second]
    if abs(real - gap) > tol:
        raise PoolBuildError(f"no test model has a gap within {tol} of {gap} to the best one (closest: {real:.4f})")
    below = order[means[order] < means[second]]
    k = (len(means) if size is None else size) - 2
    if len(below) < k:
        raise PoolBuildError(f"only {len(below)} models lie below the second model; the pool needs {k}")
    return np.concatenate([[top, second], below[:k]])


def realised_gap(means: np.ndarray) -> float:
    s = np.sort(np.asarray(means))[::-1]
    return float(s[0] - s[1])


def pool_matrix(S: np.ndarray, split: Split, size, gap, name: str, kind: str, tol: float = 0.002) -> ScoreMatrix:
    test = S[split.test]
    idx = build_pool(test.mean(axis=1), size, gap, tol)
    mat = ScoreMatrix.from_array(test[idx], name=name, kind=kind)
    g = realised_gap(mat.means)
    if gap is not None and abs(g - gap) > tol:
        raise PoolBuildError(f"{name}: realised gap {g:.4f} misses the target {gap} by more than {tol}")
    mat.meta.update({"split_seed": split.seed, "target_gap": gap, "realised_gap": g, "pool_size": len(idx)})
    return mat


@dataclass
class PoolInstance:
    """A test pool and the train split that goes with it (same questions)."""

    test: ScoreMatrix
    train: np.ndarray
    seed: int
    questions: np.ndarray


def make_pool(S: np.ndarray, name: str, kind: str, size, gap, n_questions: int | None = None, seed: int = 0,
              tries: int = 200, tol: float = 0.002) -> PoolInstance:
    """Search seeds s = seed, seed + 1, ... for a (question subset, model split) whose pool builds.

    With ``n_questions`` the questions are a seeded random subset (quick profiles); the top-2 gap
    is measured on the questions used. The first seed that gives a pool within ``tol`` of its
    target gap is used and recorded in ``test.meta["split_seed"]``; none in ``tries`` seeds is an
    error naming the closest gap seen.
    """
    S = np.asarray(S)
    if S.ndim != 2 or S.shape[0] < 4 or S.shape[1] < 1:
        raise ValueError(f"score matrix must be 2-d with at least 4 models, got shape {S.shape}")
    last = None
    for s in range(seed, seed + tries):
        rng = np.random.default_rng(s)
        q = np.arange(S.shape[1]) if n_questions is None or n_questions >= S.shape[1] else \
            np.sort(rng.choice(S.shape[1], n_questions, replace=False))
        sp = split_models(S.shape[0], s)
        Sq = S[:, q]
        try:
            mat = pool_matrix(Sq, sp, size, gap, name, kind, tol)
        except PoolBuildError as exc:
            last = exc
            continue
        mat.meta["n_questions"] = len(q)
        return PoolInstance(mat, Sq[sp.train], s, q)
    raise PoolBuildError(f"{name}: no seed in [{seed}, {seed + tries}) reaches the target gap {gap}; last: {last}")
