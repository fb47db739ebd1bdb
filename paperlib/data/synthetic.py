"""Generators: synthetic low-rank logistic matrices and semi-synthetic factor benches.

Neither needs external data except :func:`factor_bernoulli`, which needs fitted factors.
"""

from __future__ import annotations

import numpy as np

from .matrix import ScoreMatrix


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def low_rank_logistic(
    n: int,
    m: int,
    rank: int = 2,
    gap: float = 0.02,
    seed: int = 0,
    binary: bool = True,
    spread: float = 1.0,
    name: str | None = None,
) -> ScoreMatrix:
    """Synthetic models x examples matrix with low-rank logistic structure and a set top-2 gap.

    Scores are ``S_ij ~ Bernoulli(sigmoid(b_i + U_i . V_j))`` (or the probabilities themselves
    when ``binary=False``) with ``U ~ N(0, spread^2 / rank)``, ``V ~ N(0, 1)`` and row offsets
    ``b_i ~ N(0, spread^2)``. The best row is then lifted so that its realised mean exceeds the
    runner-up's by exactly ``gap`` (rounded to a multiple of ``1/m`` when binary): first by
    bisection on its offset, then by flipping the fewest entries needed.

    Parameters
    ----------
    n, m : int
        Number of models (rows, >= 2) and examples (columns, >= 1).
    rank : int
        Rank of the logit matrix ``U V^T``.
    gap : float
        Target gap between the best and second-best row means, in (0, 1).
    seed : int
        Seed of a NumPy ``default_rng``; the result is deterministic given all arguments.
    binary : bool
        Bernoulli 0/1 scores (default) or continuous probabilities in (0, 1).
    """
    if n < 2 or m < 1 or rank < 1:
        raise ValueError(f"need n >= 2, m >= 1, rank >= 1 (got n={n}, m={m}, rank={rank})")
    if not 0.0 < gap < 1.0:
        raise ValueError(f"gap must lie in (0, 1), got {gap}")
    rng = np.random.default_rng(seed)
    u = rng.normal(0.0, spread / np.sqrt(rank), size=(n, rank))
    v = rng.normal(0.0, 1.0, size=(m, rank))
    b = rng.normal(0.0, spread, size=n)
    logits = b[:, None] + u @ v.T
    uniforms = rng.random((n, m))
    probs = _sigmoid(logits)
    scores = (uniforms < probs).astype(np.float64) if binary else probs.copy()
    means = scores.mean(axis=1)
    top = int(np.argmax(means))
    others = np.delete(np.arange(n), top)
    runner = means[others].max()
    target = runner + gap
    if binary:
        target = np.ceil(round(target * m, 9)) / m
    if target > 1.0:
        raise ValueError(f"gap {gap} is too large: runner-up mean {runner:.3f} + gap exceeds 1")

    def row_for(offset: float) -> np.ndarray:
        p = _sigmoid(logits[top] + offset)
        return (uniforms[top] < p).astype(np.float64) if binary else p

    lo, hi = -50.0, 50.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if row_for(mid).mean() < target:
            lo = mid
        else:
            hi = mid
    row = row_for(hi)
    if binary:
        need = int(round((target - row.mean()) * m))
        if need != 0:
            idx = np.flatnonzero(row == (0.0 if need > 0 else 1.0))
            pick = rng.choice(idx, size=abs(need), replace=False)
            row[pick] = 1.0 if need > 0 else 0.0
    else:
        row = row + (target - row.mean())
        if row.min() < 0 or row.max() > 1:
            raise ValueError("cannot reach the requested gap with continuous scores in [0, 1]")
    scores[top] = row
    meta = dict(generator="low_rank_logistic", n=n, m=m, rank=rank, gap=gap, seed=seed, binary=binary)
    return ScoreMatrix.from_array(
        scores.astype(np.float32), kind="synthetic", name=name or f"synthetic_{n}x{m}_gap{gap}", meta=meta
    )


def factor_bernoulli(
    u: np.ndarray,
    v: np.ndarray,
    seed: int,
    rows=None,
    name: str = "bench",
    chunk: int = 256,
) -> ScoreMatrix:
    """Semi-synthetic bench ``S ~ Bernoulli(sigmoid(U V^T))`` drawn with a fixed seed.

    Rows are drawn in chunks with a CPU torch generator, so the matrix is identical on every
    machine for a given seed and row selection.
    """
    u = np.asarray(u, dtype=np.float32)
    v = np.asarray(v, dtype=np.float32)
    if u.ndim != 2 or v.ndim != 2 or u.shape[1] != v.shape[1]:
        raise ValueError(f"factor shapes do not match: U {u.shape}, V {v.shape}")
    if rows is not None:
        u = u[np.asarray(rows)]
    import torch  # here, not at import: reading the registry (the report, the workflow's checks) needs no torch

    gen = torch.Generator().manual_seed(seed)
    vt = torch.from_numpy(v).T.contiguous()
    out = np.empty((u.shape[0], v.shape[0]), dtype=np.uint8)
    for start in range(0, u.shape[0], chunk):
        p = torch.sigmoid(torch.from_numpy(u[start : start + chunk]) @ vt)
        out[start : start + chunk] = (torch.rand(p.shape, generator=gen) < p).numpy()
    meta = dict(generator="factor_bernoulli", seed=seed, rank=int(u.shape[1]))
    return ScoreMatrix.from_array(out, kind="semi-synthetic", name=name, meta=meta)
