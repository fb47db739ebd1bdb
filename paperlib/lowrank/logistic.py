"""Step 1 of PULSE: the low-rank logistic model of Eq. (1), batched over repetitions.

P(S_ij = 1) = sigmoid(u_i . v_j), fitted by minimising

    L(U, V) = (1/|Omega|) sum_{(i,j) in Omega} BCE(S_ij, sigmoid(u_i . v_j)) + lam / (2 (m + n)) (||U||^2 + ||V||^2)

with full-batch Adam (the paper uses AdamW with mini-batches; the L2 term here is the one written in
Eq. 1, and ``steps`` counts full-batch steps). Scores in [0, 1] are allowed (BCE with soft labels).
Rows are models, columns examples (the paper's m models x n examples).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True)
class FitConfig:
    rank: int = 8
    lam: float = 0.01
    lr: float = 0.01
    steps: int = 300

    def __post_init__(self):
        if self.rank < 1 or self.lam < 0 or self.lr <= 0 or self.steps < 1:
            raise ValueError(f"invalid low-rank fit configuration {self}")


def sigmoid(x: torch.Tensor) -> torch.Tensor:
    """1 / (1 + exp(-x)), the same bit for bit wherever an element sits in its tensor.

    ``torch.sigmoid`` on the CPU rounds an element differently in the vectorised body of its loop and in the scalar
    tail, so a repetition's predictions would move by an ulp with the number of repetitions around it (and a tie of
    the UCB index with them). ``exp``, ``add`` and ``reciprocal`` give the same bits on both paths (tested), so a
    batched run's repetition r is exactly its run alone (:mod:`paperlib.keyed`)."""
    return torch.exp(-x).add_(1.0).reciprocal_()


def _adam(params, grads, state, lr, t, b1=0.9, b2=0.999, eps=1e-8):
    for p, g, (m, v) in zip(params, grads, state, strict=True):
        m.mul_(b1).add_(g, alpha=1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        mh = m / (1 - b1**t)
        vh = v / (1 - b2**t)
        p.sub_(lr * mh / (vh.sqrt() + eps))


def bce(values: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    """Elementwise BCE(S, sigmoid(logits)) computed stably from the logits."""
    return torch.nn.functional.binary_cross_entropy_with_logits(logits, values, reduction="none")


def fit_factors(values, mask=None, cfg: FitConfig = FitConfig(), seed: int = 0, device=None):
    """Fit (U, V) on one matrix (Stage 1 on the train split). Returns float32 tensors (n_rows, r), (n_cols, r)."""
    X = torch.tensor(np.asarray(values, dtype=np.float32), device=device)
    if X.ndim != 2 or X.numel() == 0:
        raise ValueError(f"train matrix must be a non-empty 2-d array, got shape {tuple(X.shape)}")
    if torch.isnan(X).any() and mask is None:
        raise ValueError("train matrix has NaN; pass a mask of observed entries")
    M = torch.ones_like(X) if mask is None else torch.as_tensor(np.asarray(mask), dtype=torch.float32, device=X.device)
    X = torch.nan_to_num(X) * M
    n, m = X.shape
    g = torch.Generator(device=X.device).manual_seed(seed)
    U = 0.1 * torch.randn(n, cfg.rank, generator=g, device=X.device)
    V = 0.1 * torch.randn(m, cfg.rank, generator=g, device=X.device)
    state = [(torch.zeros_like(U), torch.zeros_like(U)), (torch.zeros_like(V), torch.zeros_like(V))]
    n_obs = M.sum().clamp(min=1)
    c = cfg.lam / (n + m)
    for t in range(1, cfg.steps + 1):
        R = (torch.sigmoid(U @ V.T) - X) * M / n_obs
        gU = R @ V + c * U
        gV = R.T @ U + c * V
        _adam([U, V], [gU, gV], state, cfg.lr, t)
    return U, V


def objective(values, mask, U, V, lam) -> float:
    """Eq. (1) for one matrix (for tests and diagnostics)."""
    X = torch.as_tensor(np.asarray(values), dtype=torch.float32)
    M = torch.as_tensor(np.asarray(mask), dtype=torch.float32)
    n, m = X.shape
    loss = (bce(X, U @ V.T) * M).sum() / M.sum()
    return float(loss + lam / (2 * (n + m)) * (U.square().sum() + V.square().sum()))


def refit_rows(U, V, values, mask, lam: float, lr: float, steps: int):
    """Refit U (R, n, r) with V (m, r) frozen on observed entries (R, n, m); warm start from U.

    The objective is Eq. (1) for each repetition (|Omega| counts that repetition's observations;
    the V penalty is a constant). Fresh Adam moments at every refit.
    """
    n, m = values.shape[1], values.shape[2]
    Mf = mask.to(values.dtype)
    n_obs = Mf.sum(dim=(1, 2)).clamp(min=1)[:, None, None]
    c = lam / (n + m)
    U = U.clone()
    state = [(torch.zeros_like(U), torch.zeros_like(U))]
    for t in range(1, steps + 1):
        R = (torch.sigmoid(U @ V.T) - values) * Mf / n_obs
        _adam([U], [R @ V + c * U], state, lr, t)
    return U


def refit_rows_sparse(U, V, rows, cols, vals, lam: float, lr: float, steps: int, path: str = "auto", valid=None):
    """:func:`refit_rows` on the list of observed entries: ``rows, cols, vals`` are (R, c).

    ``valid`` (R, c) bool, optional: only these entries are observations (the others pad a ragged list: PULSE's
    short batches); each repetition's |Omega| is then its own count of valid entries.

    Same objective and updates as the dense version. Two ways to compute the gradient, chosen by
    :func:`dense_refit_is_cheaper`: sparse products over the c observed pairs (the repetitions' observations as
    one CSR matrix of R n rows: the logits u_i . v_j by a sampled dense-dense product, the gradient D V by a
    sparse-dense one; ~20-40 ns per repetition and observation on 2 CPU cores), or the dense products U V^T and
    D V through BLAS with the residuals D scattered into an (n, m) grid per repetition (~(1.3 + 0.019 r) ns per
    repetition and cell), whichever is cheaper for the observed fraction c / (n m). Both
    are exact; they differ by float rounding. ``path`` forces one: ``"sparse"`` or ``"dense"`` (default
    ``"auto"``). Repeated (row, column) pairs count once per occurrence on both paths.
    """
    if path not in ("auto", "sparse", "dense"):
        raise ValueError(f"path must be 'auto', 'sparse' or 'dense', got {path!r}")
    R, n, r = U.shape
    c = rows.shape[1]
    if path == "dense" or (path == "auto" and dense_refit_is_cheaper(n, V.shape[0], r, c)):
        return _refit_rows_flat(U, V, rows.long() * V.shape[0] + cols.long(), vals, lam, lr, steps, valid)
    return _refit_rows_csr(U, V, rows, cols, vals, lam, lr, steps, valid)


def _refit_rows_csr(U, V, rows, cols, vals, lam: float, lr: float, steps: int, valid=None):
    """The sparse path of :func:`refit_rows_sparse`: the distinct observed pairs of all repetitions as one
    canonical (R n, m) CSR pattern, built once (a repeated pair is one entry weighted by its count, with its
    scores summed); each Adam step is one ``torch.sparse.sampled_addmm`` for the logits and one CSR x dense
    product for the gradient, so no (R, c, r) gather is materialised (the gather path it replaces cost 1.7-28x more
    per step, ``benchmarks/bench_refit.py``). Memory: a few int64 entries per observation (the sort of the keys)."""
    import warnings

    R, n, r = U.shape
    m, c = V.shape[0], rows.shape[1]
    dev = U.device
    key = ((torch.arange(R, device=dev)[:, None] * n + rows.long()) * m + cols.long()).reshape(-1)
    if valid is not None:
        key, vals = key.masked_select(valid.reshape(-1)), vals.reshape(-1).masked_select(valid.reshape(-1))
        c = valid.sum(1).clamp(min=1).to(U.dtype)  # each repetition's |Omega|, per pair below
    pairs, inverse, counts = torch.unique(key, sorted=True, return_inverse=True, return_counts=True)
    if valid is not None:
        c = c.index_select(0, pairs // (n * m))
    crow = torch.zeros(R * n + 1, dtype=torch.long, device=dev)
    crow[1:] = torch.bincount(pairs // m, minlength=R * n).cumsum(0)
    col = pairs % m
    y = torch.zeros(pairs.shape[0], dtype=U.dtype, device=dev).index_add_(0, inverse, vals.reshape(-1).to(U.dtype))
    w = counts.to(U.dtype)
    pen = lam / (n + m)
    u = U.reshape(R * n, r).clone()
    state = [(torch.zeros_like(u), torch.zeros_like(u))]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*[Ss]parse.*")  # CSR support is labelled beta by torch
        pattern = torch.sparse_csr_tensor(crow, col, torch.ones_like(y), size=(R * n, m))
        for t in range(1, steps + 1):
            logits = torch.sparse.sampled_addmm(pattern, u, V.T, beta=0.0).values()
            res = (w * sigmoid(logits) - y) / c
            g = torch.sparse_csr_tensor(crow, col, res, size=(R * n, m)) @ V
            _adam([u], [g + pen * u], state, lr, t)
    return u.reshape(R, n, r)


def dense_refit_is_cheaper(n: int, m: int, rank: int, c: int) -> bool:
    """Whether :func:`refit_rows_sparse` should take the dense-product path for ``c`` observations per repetition.

    The cost model is measured (``benchmarks/bench_refit.py``, 2 CPU cores, float32, n x m = 1,000 x 12,032, ranks
    8 and 100): the sparse path costs about 20-40 ns per repetition, observation and step, nearly independent of the
    rank up to 100 (random reads of the u_i and v_j rows dominate); the dense path about (1.3 + 0.019 rank) ns per
    cell plus ~14 ns per observation (the residual scatter). The dense path wins from an observed fraction
    c / (n m) of about (1.3 + 0.019 rank) / 22: ~7% at rank 8, ~15% at rank 100.
    """
    return 22.0 * c > (1.3 + 0.019 * rank) * n * m


#: what draws :func:`cross_validate`'s randomness (a table's ``streams``, issue 74, item 3): the folds from numpy's
#: default generator at ``seed``, each fold's initial factors from a torch generator at ``seed + fold`` (seeded
#: generators, not :mod:`paperlib.keyed` streams: a cross-validation is one computation, not runs of a batch)
CV_STREAMS = "seeded: numpy default_rng(seed) folds, torch Generator(seed + fold) inits"


def cross_validate(values, grid: list[FitConfig], folds: int = 5, seed: int = 0, device=None,
                   progress: bool = True) -> tuple[FitConfig, list[dict]]:
    """5-fold cross-validation over entries with the 1-SE rule.

    Each configuration is fitted on 4/5 of the entries and scored by mean BCE on the held-out
    fifth. Among configurations whose mean loss is within one standard error of the best, the most
    parsimonious (smallest rank, then largest lambda, then fewest steps) is chosen. A progress bar counts
    the fits (configurations x folds: a paper pool's grid takes up to an hour on one core).
    """
    from ..progress import progress_bar

    X = np.asarray(values, dtype=np.float32)
    rng = np.random.default_rng(seed)
    fold = rng.integers(0, folds, size=X.shape)
    rows = []
    bar = progress_bar(len(grid) * folds, "Step 1 CV fits", enabled=progress)
    for cfg in grid:
        losses = []
        for k in range(folds):
            train = (fold != k).astype(np.float32)
            U, V = fit_factors(X, train, cfg, seed=seed + k, device=device)
            held = torch.as_tensor(fold == k, device=U.device)
            lk = bce(torch.as_tensor(X, device=U.device), U @ V.T)[held].mean()
            losses.append(float(lk))
            bar.update(1)
        rows.append({"rank": cfg.rank, "lam": cfg.lam, "lr": cfg.lr, "steps": cfg.steps,
                     "cv_loss": float(np.mean(losses)), "cv_se": float(np.std(losses, ddof=1) / math.sqrt(folds))})
    best = min(rows, key=lambda r: r["cv_loss"])
    ok = [r for r in rows if r["cv_loss"] <= best["cv_loss"] + best["cv_se"]]
    pick = min(ok, key=lambda r: (r["rank"], -r["lam"], r["steps"]))
    bar.close()
    return FitConfig(pick["rank"], pick["lam"], pick["lr"], pick["steps"]), rows


def _refit_rows_flat(U, V, flat, vals, lam: float, lr: float, steps: int, valid=None):
    """The dense-product path of :func:`refit_rows_sparse`: ``flat`` (R, c) holds row * m + column of each
    observation. Repetitions are refitted in chunks whose (chunk, n, m) products stay under 2^24 cells."""
    R, n, r = U.shape
    m, c = V.shape[0], flat.shape[1]
    chunk = max(1, (1 << 24) // (n * m))
    pen = lam / (n + m)
    out = torch.empty_like(U)
    for i in range(0, R, chunk):
        u = U[i : i + chunk].clone()
        idx, y = flat[i : i + chunk], vals[i : i + chunk]
        ok = None if valid is None else valid[i : i + chunk]
        cr = c if ok is None else ok.sum(1, keepdim=True).clamp(min=1).to(U.dtype)
        k = u.shape[0]
        state = [(torch.zeros_like(u), torch.zeros_like(u))]
        grid = torch.empty(k, n, m, device=U.device, dtype=U.dtype)  # one buffer: fresh pages per step cost more
        flat_grid = grid.view(k, n * m)
        for t in range(1, steps + 1):
            torch.bmm(u, V.T.expand(k, -1, -1), out=grid)  # a product per repetition: its rounding is R-free
            res = (sigmoid(flat_grid.gather(1, idx)) - y) / cr
            if ok is not None:
                res = res.masked_fill_(~ok, 0.0)
            flat_grid.zero_().scatter_add_(1, idx, res)
            _adam([u], [torch.bmm(grid, V.expand(k, -1, -1)) + pen * u], state, lr, t)
        out[i : i + chunk] = u
    return out
