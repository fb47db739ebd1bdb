"""CPU per call of certified simulation against UCB-E (issue 42, item 5), side by side in one process.

For each matrix: ``simulate --method lucb --stop certified --delta 0.05`` (batch 1, one repetition: the per-step
overhead is what is measured), then ``simulate --method ucbe`` (batch 1) for the same number of calls, each
``--repeats`` times (the median is reported); the ratio is microseconds per call of lucb over UCB-E's. The issue's target
is a ratio of at most 1.5 on the largest shared matrices.

    PAPERLIB_DATA=... OMP_NUM_THREADS=1 python benchmarks/bench_certified_speed.py [--only zeroeval_gsm8k] [--repeats 3]

With ``--prior`` (issue 59: "keep it within 1.5x, with a prior too"): the matrix's rows are split as the DAG's rule
search_prior splits them (:func:`paperlib.beyond.search.experiments.prior_split`, 20 candidates from one half, the
other half the prior), and ``--method lucb-prior`` runs on the candidates with the prior; UCB-E on the same candidates.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paperlib.data import available, load  # noqa: E402
from paperlib.simulate import simulate  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=["zeroeval_gsm8k", "sysrs_math", "alpacaeval2"])
    ap.add_argument("--method", default="lucb", help="the certified rule (lucb, lucb-cheap needs prices: not here)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--prior", action="store_true", help="candidates and a prior from the matrix's two halves")
    args = ap.parse_args(argv)
    print(f"{'matrix':20s} {'n':>4s} {'m':>5s} {'calls':>7s} {args.method + ' us/call':>14s} {'ucbe us/call':>13s} "
          f"{'ratio':>6s}")
    for name in args.only:
        if not available(name):
            print(f"{name:20s} (data absent)")
            continue
        mat = load(name)
        kw = {}
        if args.prior:
            from paperlib.beyond.search.experiments import prior_split
            from paperlib.data.matrix import ScoreMatrix

            cand, kw["prior"] = prior_split(mat.scores)
            mat = ScoreMatrix.from_array(cand, kind=mat.kind, name=name)
        n, m = mat.shape
        cert, base, calls = [], [], None
        for _ in range(args.repeats):
            t = time.perf_counter()
            r = simulate(args.method, mat, [n * m], reps=1, seed=0, progress=False, delta=0.05, stop="certified", **kw)
            cert.append((time.perf_counter() - t) / int(r.calls[0]))
            calls = int(r.calls[0])
            t = time.perf_counter()
            simulate("ucbe", mat, [calls], reps=1, seed=0, progress=False)
            base.append((time.perf_counter() - t) / calls)
        c, b = statistics.median(cert) * 1e6, statistics.median(base) * 1e6
        print(f"{name:20s} {n:4d} {m:5d} {calls:7d} {c:14.0f} {b:13.0f} {c / b:6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
