"""Benchmark PULSE's refit of U on the observed entries: the sparse path vs the dense-product path.

``paperlib.lowrank.refit_rows_sparse`` computes the same Adam steps two ways (its docstring): CSR products over
the c observed pairs of each repetition, or the dense products U V^T and D V through BLAS with the residuals
scattered into an (n, m) grid. ``dense_refit_is_cheaper`` picks one by a cost model; this script measures both
over a range of observed fractions, prints milliseconds per Adam step, which path the model picks, and whether
that was the faster one, so the model's constants can be checked on a new machine. The baseline column is the
previous sparse path (kept here only): gathering the (R, c, r) observed (u_i, v_j) pairs and an ``index_add_``.

    python benchmarks/bench_refit.py --device cpu                      # Bench-1 size, rank 100, R = 5
    python benchmarks/bench_refit.py --models 450 --questions 756 --rank 8 --fracs 0.01,0.05,0.2
"""

from __future__ import annotations

import argparse
import time

import torch

from paperlib.device import describe, get_device, make_generator
from paperlib.lowrank.logistic import _adam, dense_refit_is_cheaper, refit_rows_sparse


def gather_refit(U, V, rows, cols, vals, lam, lr, steps):
    """The previous sparse path (until 2026-11-23): per step, gather (R, c, r) rows of U and V, then index_add_."""
    R, n, r = U.shape
    c, m = rows.shape[1], V.shape[0]
    Vc = V[cols.long()]
    flat = (torch.arange(R, device=U.device)[:, None] * n + rows.long()).reshape(-1)
    U = U.clone()
    state = [(torch.zeros_like(U), torch.zeros_like(U))]
    for t in range(1, steps + 1):
        Uc = U.reshape(R * n, r)[flat].reshape(R, c, r)
        res = (torch.sigmoid((Uc * Vc).sum(-1)) - vals) / c
        g = torch.zeros(R * n, r, device=U.device, dtype=U.dtype)
        g.index_add_(0, flat, (res[..., None] * Vc).reshape(-1, r))
        _adam([U], [g.reshape(R, n, r) + lam / (n + m) * U], state, lr, t)
    return U


def _observed(R: int, n: int, m: int, c: int, gen: torch.Generator, dev) -> tuple[torch.Tensor, ...]:
    """c distinct (row, column) pairs per repetition, drawn uniformly, and Bernoulli(1/2) scores."""
    flat = torch.rand(R, n * m, generator=gen, device=dev).topk(c, dim=1).indices
    vals = (torch.rand(R, c, generator=gen, device=dev) < 0.5).float()
    return flat // m, flat % m, vals


def _time(fn, steps: int, dev) -> float:
    fn(1)  # warm-up: allocations, thread pools
    if dev.type == "cuda":
        torch.cuda.synchronize()
    t = time.perf_counter()
    fn(steps)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - t) / steps * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=12032)
    ap.add_argument("--rank", type=int, default=100)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--steps", type=int, default=3, help="Adam steps timed per path")
    ap.add_argument("--fracs", default="0.002,0.005,0.01,0.02,0.0333", help="observed fractions c / (n m)")
    args = ap.parse_args()
    dev = get_device(args.device)
    R, n, m, r = args.reps, args.models, args.questions, args.rank
    gen = make_generator(0, dev)
    U = torch.randn(R, n, r, generator=gen, device=dev) * 0.1
    V = torch.randn(m, r, generator=gen, device=dev) * 0.1
    print(f"machine: {describe(dev)}; torch {torch.__version__}; U ({R}, {n}, {r}), V ({m}, {r}); "
          f"ms per Adam step, {args.steps} steps timed after one warm-up step")
    print("| observed | c per rep | gather ms (previous) | sparse ms | dense ms | model picks | faster | model right |"
          " sparse vs gather |")
    print("|---|---|---|---|---|---|---|---|---|")
    for f in [float(x) for x in args.fracs.split(",")]:
        c = max(1, int(f * n * m))
        obs = _observed(R, n, m, c, gen, dev)
        ms = {p: _time(lambda s, p=p, o=obs: refit_rows_sparse(U, V, *o, 0.01, 0.1, s, path=p), args.steps, dev)
              for p in ("sparse", "dense")}
        old = _time(lambda s, o=obs: gather_refit(U, V, *o, 0.01, 0.1, s), args.steps, dev)
        pick = "dense" if dense_refit_is_cheaper(n, m, r, c) else "sparse"
        faster = min(ms, key=ms.get)
        print(f"| {f:.2%} | {c:,} | {old:.0f} | {ms['sparse']:.0f} | {ms['dense']:.0f} | {pick} | {faster} | "
              f"{'yes' if pick == faster else 'no'} | {old / ms['sparse']:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
