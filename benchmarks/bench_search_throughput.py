"""Calls per second of a live search with slow, uneven scorer calls: no batch barrier against one batch at a time
(issue 30, item 6).

The scorer is a Python callable (``paperlib.search(models, examples, score)``) that sleeps a lognormal latency with
median ``--median`` seconds and 99th percentile ``--p99`` seconds (sigma = ln(p99 / median) / z_0.99), drawn per pair
from a seed, and returns the pair's score in a synthetic binary matrix. ``--workers`` threads score at once; the search
runs ``--calls`` calls (``--stop budget``). The ceiling is ``workers / mean latency``: every worker busy all the
time. The table gives both the theoretical mean latency and that of the draws the run made, and each mode's share of
the ceiling; the goal is at least 80% without the barrier.

    python benchmarks/bench_search_throughput.py [--workers 16] [--calls 1500] [--methods lucb ucbe]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paperlib  # noqa: E402
from paperlib.data.synthetic import low_rank_logistic  # noqa: E402


class SlowScorer:
    """score(model, example): sleep a lognormal latency (seeded per pair), return the pair's score."""

    def __init__(self, scores: np.ndarray, median: float, p99: float, seed: int):
        self.scores, self.seed = scores, seed
        self.mu, self.sigma = math.log(median), math.log(p99 / median) / norm.ppf(0.99)
        self.latencies: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, model: str, example) -> float:
        i, j = int(model[1:]), int(example)
        z = np.random.default_rng([self.seed, i, j]).standard_normal()
        latency = math.exp(self.mu + self.sigma * z)
        with self._lock:
            self.latencies.append(latency)
        time.sleep(latency)
        return float(self.scores[i, j])

    @property
    def mean(self) -> float:
        return math.exp(self.mu + self.sigma ** 2 / 2)


def run(method: str, barrier: bool, args, scores: np.ndarray) -> dict:
    n, m = scores.shape
    scorer = SlowScorer(scores, args.median, args.p99, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        out = paperlib.search([f"m{i}" for i in range(n)], list(range(m)), scorer, Path(tmp) / "j.jsonl",
                              method=method, budget=args.calls, stop="budget", workers=args.workers, barrier=barrier,
                              retries=0)
        wall = time.perf_counter() - t0
    drawn = float(np.mean(scorer.latencies))
    return dict(method=method, mode="barrier" if barrier else "no barrier", calls=out["calls"], wall=wall,
                rate=out["calls"] / wall, ceiling=args.workers / scorer.mean, ceiling_drawn=args.workers / drawn)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--calls", type=int, default=1500)
    ap.add_argument("--median", type=float, default=0.05)
    ap.add_argument("--p99", type=float, default=1.0)
    ap.add_argument("--models", type=int, default=40)
    ap.add_argument("--examples", type=int, default=500)
    ap.add_argument("--methods", nargs="*", default=["lucb", "ucbe"])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    scores = low_rank_logistic(args.models, args.examples, rank=3, gap=0.02, seed=args.seed).scores
    print(f"scorer latency: lognormal, median {args.median:g} s, p99 {args.p99:g} s; {args.workers} workers; "
          f"{args.calls} calls on {args.models} x {args.examples}")
    print(f"{'method':<8} {'mode':<11} {'calls':>6} {'wall s':>8} {'calls/s':>8} {'ceiling':>8} {'share':>6} "
          f"{'share (drawn)':>13}")
    for method in args.methods:
        for barrier in (True, False):
            r = run(method, barrier, args, scores)
            print(f"{r['method']:<8} {r['mode']:<11} {r['calls']:>6} {r['wall']:>8.2f} {r['rate']:>8.1f} "
                  f"{r['ceiling']:>8.1f} {r['rate'] / r['ceiling']:>6.2f} {r['rate'] / r['ceiling_drawn']:>13.2f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
