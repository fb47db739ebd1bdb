"""Benchmark the judge-budget policies: R = 1 vs R = 50 batched runs at 1,000 pairs x 100k queries.

The judge is the synthetic bounded (0-4) judge with heterogeneous variances (K = 1,000). Uniform
and ROBIN build their whole query sequence at once; ROBIN-HOOD steps query by query with
(R, K) tensor operations. The table reports wall time, time per run and the batching speed-up.

    python benchmarks/bench_robin.py                 # CPU or CUDA, whichever is present
    python benchmarks/bench_robin.py --device cpu --budget 20000
"""

from __future__ import annotations

import argparse
import time

import torch

from paperlib.device import describe, get_device
from paperlib.simulate import run_judge, synthetic_judge

CASES = [
    ("uniform", {}),
    ("robin", {}),
    ("robin-hood", dict(delta=0.007, ucb="delta")),
    ("robin-hood", dict(delta=0.007, ucb="eq6")),
]




def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--K", type=int, default=1000)
    ap.add_argument("--budget", type=int, default=100_000)
    ap.add_argument("--reps", default="1,50", help="comma-separated repetition counts")
    args = ap.parse_args()
    dev = get_device(args.device)
    judge = synthetic_judge("discrete", K=args.K, seed=0, device=dev)
    print(f"machine: {describe(dev)}; device: {dev}; torch {torch.__version__}")
    print(f"{'method':34s} {'K':>5s} {'B':>7s} {'R':>4s} {'wall s':>8s} {'s/run':>8s} {'speed-up':>8s} {'mean WCE':>8s}")
    for method, params in CASES:
        label = method + (f" (delta={params['delta']}, ucb={params['ucb']})" if params else "")
        first = None
        for reps in [int(r) for r in args.reps.split(",")]:
            t = time.perf_counter()
            res = run_judge(method, judge, [args.budget], reps=reps, seed=0, device=dev, **params)
            if dev.type == "cuda":
                torch.cuda.synchronize()
            wall = time.perf_counter() - t
            per = wall / reps
            first = per if first is None else first
            print(f"{label:34s} {args.K:>5d} {args.budget:>7d} {reps:>4d} {wall:>8.2f} {per:>8.3f} "
                  f"{first / per:>7.1f}x {res.wce().mean():>8.3f}", flush=True)


if __name__ == "__main__":
    main()
