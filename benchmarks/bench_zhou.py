"""Benchmark UCB-E and UCB-E-LRF: one repetition vs R batched repetitions.

Sizes: AlpacaEval-2 (57 x 805, a synthetic stand-in of that shape unless --real) and Bench-1
(2212 x 12032, synthetic stand-in of that shape). Budgets are fixed small fractions so the run
fits a 2-core machine; the table reports wall time, time per repetition and the batching speed-up.

    python benchmarks/bench_zhou.py                # CPU or CUDA, whichever is present
    python benchmarks/bench_zhou.py --device cpu --sizes alpaca
"""

from __future__ import annotations

import argparse
import time

import torch

from paperlib.data import low_rank_logistic
from paperlib.device import describe, get_device
from paperlib.simulate import simulate

SIZES = {"alpaca": (57, 805), "bench1": (2212, 12032)}
# (method, budget fraction, params) per size; Bench-1 budgets kept small for CPU
CASES = {
    "alpaca": [("ucbe", 0.30, {}), ("ucbe-lrf", 0.30, dict(ensemble=64, batch_size=32))],
    "bench1": [("ucbe", 0.005, {}), ("ucbe-lrf", 0.0502, dict(ensemble=64, batch_size=32))],
}




def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", default="alpaca,bench1")
    ap.add_argument("--reps", default="1,50", help="comma-separated repetition counts")
    ap.add_argument("--lrf-reps-bench1", default="1,4", help="UCB-E-LRF repetitions at Bench-1 size (about 0.6 GB of memory per repetition)")
    args = ap.parse_args()
    dev = get_device(args.device)
    print(f"machine: {describe(dev)}; device: {dev}; torch {torch.__version__}")
    print(f"{'size':8s} {'method':10s} {'n x m':>13s} {'budget':>9s} {'R':>4s} {'wall s':>8s} {'s/rep':>8s} {'speed-up':>8s}")
    for size in args.sizes.split(","):
        n, m = SIZES[size]
        mat = low_rank_logistic(n, m, rank=2, gap=0.01, seed=0, name=f"{size}-shape")
        for method, frac, params in CASES[size]:
            reps_list = [int(r) for r in (args.lrf_reps_bench1 if (size == "bench1" and method == "ucbe-lrf") else args.reps).split(",")]
            budget = int(frac * n * m)
            per_rep_1 = None
            for reps in reps_list:
                t = time.perf_counter()
                simulate(method, mat, [budget], reps=reps, seed=0, device=dev, progress=False, **params)
                wall = time.perf_counter() - t
                per = wall / reps
                per_rep_1 = per if per_rep_1 is None else per_rep_1
                print(f"{size:8s} {method:10s} {f'{n}x{m}':>13s} {budget:>9d} {reps:>4d} {wall:>8.2f} {per:>8.3f} {per_rep_1 / per:>7.1f}x",
                      flush=True)


if __name__ == "__main__":
    main()
