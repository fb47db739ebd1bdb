"""Benchmark PULSE, UCB-E and Naive-Pooling (one backbone): R = 1 vs R batched runs at Bench-1 size.

The test pool has the paper's Bench-1 pool shape (1,000 models x 12,032 questions, semi-synthetic:
Bernoulli draws from a rank-8 logistic model, the best model lifted about 0.03 above the rest, so
nothing needs downloading; the true V is passed as the frozen factors); batch 64, T0 = 1,
then 400,000 bandit calls (T = 464,000), refit every 1,000 steps with V frozen (rank 8). The table
reports wall time, time per run and the batching speed-up.

    python benchmarks/bench_pulse.py                       # CPU or CUDA, whichever is present
    python benchmarks/bench_pulse.py --reps 1,20 --bandit 400000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from paperlib.data.matrix import ScoreMatrix
from paperlib.device import describe, get_device
from paperlib.simulate import simulate


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--questions", type=int, default=12032)
    ap.add_argument("--rank", type=int, default=8)
    ap.add_argument("--bandit", type=int, default=400_000, help="bandit calls after the warm-up")
    ap.add_argument("--reps", default="1,20", help="comma-separated repetition counts")
    ap.add_argument("--methods", default="ucbe-batch,naive-pooling,pulse")
    args = ap.parse_args()
    dev = get_device(args.device)
    rng = np.random.default_rng(0)
    U = rng.normal(0, 0.6, (args.models, args.rank))
    U[:, 0] += rng.normal(0, 0.5, args.models)
    V = rng.normal(0, 0.6, (args.questions, args.rank))
    S = (rng.random((args.models, args.questions)) < 1 / (1 + np.exp(-U @ V.T))).astype(np.float32)
    best = int(np.argmax(S.mean(axis=1)))
    S[best] = np.maximum(S[best], rng.random(args.questions) < 0.05)   # a best model about 0.03 ahead
    mat = ScoreMatrix.from_array(S, name="bench1-shape", kind="synthetic")
    budget = args.models * 64 + args.bandit
    print(f"machine: {describe(dev)}; device: {dev}; torch {torch.__version__}")
    print(f"pool {args.models} x {args.questions}, T = {budget:,} calls (batch 64, T0 = 1), refit every 1,000 steps")
    print(f"{'method':14s} {'R':>4s} {'wall s':>9s} {'s/run':>9s} {'speed-up':>8s} {'accuracy':>8s}")
    for meth in args.methods.split(","):
        first = None
        for reps in [int(r) for r in args.reps.split(",")]:
            kw = dict(batch_size=64, t0=1, a=1.0)
            if meth != "ucbe-batch":
                kw.update(v=V.astype(np.float32), refit_every=1000)
            t = time.perf_counter()
            res = simulate(meth, mat, [budget], reps=reps, seed=0, device=dev, progress=False, **kw)
            if dev.type == "cuda":
                torch.cuda.synchronize()
            wall = time.perf_counter() - t
            per = wall / reps
            first = per if first is None else first
            print(f"{meth:14s} {reps:>4d} {wall:>9.2f} {per:>9.3f} {first / per:>7.1f}x {res.precision()[-1]:>8.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
