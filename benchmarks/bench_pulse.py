"""Benchmark PULSE, UCB-E and Naive-Pooling (one backbone): R = 1 vs R batched runs at Bench-1 size.

The test pool has the paper's Bench-1 pool shape (1,000 models x 12,032 questions, semi-synthetic:
Bernoulli draws from a rank-8 logistic model, the best model lifted about 0.03 above the rest, so
nothing needs downloading; the true V is passed as the frozen factors); batch 64, T0 = 1,
then 400,000 bandit calls (T = 464,000), refit every 1,000 steps with V frozen (rank 8). The table
reports wall time, time per run and the batching speed-up.

    python benchmarks/bench_pulse.py                       # CPU or CUDA, whichever is present
    python benchmarks/bench_pulse.py --reps 1,20 --bandit 400000
    python benchmarks/bench_pulse.py --reps 50 --fit-rank 100     # the paper's rank, Step 1 fit included
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from paperlib.data.matrix import ScoreMatrix
from paperlib.device import describe, get_device
from paperlib.lowrank import FitConfig, fit_factors
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
    ap.add_argument("--fit-rank", type=int, default=0,
                    help="instead of passing the true V, fit it by PULSE Step 1 (this rank, lambda 0.001, 300 Adam "
                         "steps) on a train pool of --train-models other models from the same factors; the fit is "
                         "timed once and its time spread over the R runs of each row (0: pass the true V)")
    ap.add_argument("--train-models", type=int, default=1106, help="train pool size (Bench-1: 1,106)")
    args = ap.parse_args()
    dev = get_device(args.device)
    rng = np.random.default_rng(0)
    U = rng.normal(0, 0.6, (args.models, args.rank))
    U[:, 0] += rng.normal(0, 0.5, args.models)
    U_train = rng.normal(0, 0.6, (args.train_models, args.rank))
    U_train[:, 0] += rng.normal(0, 0.5, args.train_models)
    V = rng.normal(0, 0.6, (args.questions, args.rank))
    S = (rng.random((args.models, args.questions)) < 1 / (1 + np.exp(-U @ V.T))).astype(np.float32)
    best = int(np.argmax(S.mean(axis=1)))
    S[best] = np.maximum(S[best], rng.random(args.questions) < 0.05)   # a best model about 0.03 ahead
    mat = ScoreMatrix.from_array(S, name="bench1-shape", kind="synthetic")
    budget = args.models * 64 + args.bandit
    print(f"machine: {describe(dev)}; device: {dev}; torch {torch.__version__}")
    print(f"pool {args.models} x {args.questions}, T = {budget:,} calls (batch 64, T0 = 1), refit every 1,000 steps")
    V_use, fit_s = V.astype(np.float32), 0.0
    if args.fit_rank:
        train = (rng.random((args.train_models, args.questions)) < 1 / (1 + np.exp(-U_train @ V.T))).astype(np.float32)
        t = time.perf_counter()
        _, V_fit = fit_factors(train, None, FitConfig(rank=args.fit_rank, lam=0.001, lr=0.01, steps=300), device=dev)
        fit_s = time.perf_counter() - t
        V_use = V_fit.cpu().numpy()
        print(f"Step 1: V fitted on {args.train_models} train models, rank {args.fit_rank}, 300 steps: {fit_s:.1f} s "
              "(counted once per row, spread over its R runs)")
    print(f"{'method':14s} {'R':>4s} {'wall s':>9s} {'s/run':>9s} {'speed-up':>8s} {'accuracy':>8s}")
    for meth in args.methods.split(","):
        first = None
        for reps in [int(r) for r in args.reps.split(",")]:
            kw = dict(batch_size=64, t0=1, a=1.0)
            if meth != "ucbe-batch":
                kw.update(v=V_use, refit_every=1000)
            t = time.perf_counter()
            res = simulate(meth, mat, [budget], reps=reps, seed=0, device=dev, progress=False, **kw)
            if dev.type == "cuda":
                torch.cuda.synchronize()
            wall = time.perf_counter() - t + (fit_s if meth != "ucbe-batch" else 0.0)
            per = wall / reps
            first = per if first is None else first
            print(f"{meth:14s} {reps:>4d} {wall:>9.2f} {per:>9.3f} {first / per:>7.1f}x {res.precision()[-1]:>8.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
