"""Calls to certify the best model, against an oracle allocation (issue 29), on the shared real matrices.

For each matrix: the oracle that knows each rival's gap to the best and the variance of the paired differences
scores the best row fully and rival j on n_j = min(m, 2 var(s_best - s_j) log(2 (n - 1) / delta) / gap_j^2)
examples; then the median calls to the first certificate (``simulate --stop certified``) of ``lucb-pd`` (paired
differences, aimed at the certificate), of LUCB (per-model intervals) and of UCB-E, each with a 95% interval
for the median (binomial order statistics), the misidentifications (ties within ``--tie-tol`` count as right),
and with ``--epsilon`` the same for an epsilon-best certificate. The CSV also has each method's exact (Clopper-Pearson)
95% upper bound on the misidentification rate (``<method>_wrong_hi``), the check of "wrong in at most delta of the runs"
at ``--reps 1000``.

    PAPERLIB_DATA=... python benchmarks/bench_certify.py --reps 20 [--only sysrs_math alpacaeval2] [--csv out.csv]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paperlib.beyond.search.experiments import oracle_fraction  # noqa: E402
from paperlib.data import available, load  # noqa: E402
from paperlib.pipeline.config import load_config  # noqa: E402
from paperlib.simulate import simulate  # noqa: E402
from paperlib.stats import clopper_pearson, median_interval  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--delta", type=float, default=0.05)
    ap.add_argument("--epsilon", type=float, default=0.0)
    ap.add_argument("--tie-tol", type=float, default=0.0)
    ap.add_argument("--only", nargs="*", help="matrices (default: the paper race's real matrices)")
    ap.add_argument("--methods", nargs="*", default=["lucb", "lucb-pd", "ucbe"],
                    help="the first is the new rule, the last the baseline of the ratio column")
    ap.add_argument("--batch-size", type=int, default=1, help="pairs per step (search's default is 32)")
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args(argv)
    names = args.only or load_config("paper")["race"]["datasets"]
    rows = []
    head = (f"{'matrix':24s} {'n':>4s} {'m':>5s} {'gap':>7s} {'oracle':>7s} "
            + " ".join(f"{meth + ' median [95% CI]':>28s} {'wrong':>5s}" for meth in args.methods)
            + f" {'x oracle':>8s} {'ucbe/new':>8s} {'s':>5s}")
    print(head)
    for name in names:
        if not available(name):
            print(f"{name:24s} (data absent)")
            continue
        mat = load(name)
        S = np.asarray(mat.scores, dtype=np.float64)
        n, m = S.shape
        mu = np.sort(S.mean(1))[::-1]
        orc = oracle_fraction(S, args.delta, args.epsilon)
        row = dict(matrix=name, n=n, m=m, gap=mu[0] - mu[1], oracle=orc)
        t0 = time.time()
        for meth in args.methods:
            r = simulate(meth, mat, [n * m], reps=args.reps, seed=0, delta=args.delta, stop="certified",
                         tie_tol=args.tie_tol, epsilon=args.epsilon, progress=False,
                         batch_size=args.batch_size)
            truth = np.flatnonzero(S.mean(1) >= S.mean(1).max() - max(args.tie_tol, args.epsilon))
            med, lo, hi = median_interval(r.calls / (n * m))
            wrong = int((~np.isin(r.best[-1], truth)).sum())
            row.update({f"{meth}_median": med, f"{meth}_lo": lo, f"{meth}_hi": hi, f"{meth}_wrong": wrong,
                        f"{meth}_wrong_hi": clopper_pearson(wrong, args.reps)[1]})
        row["seconds"] = time.time() - t0
        new, base = args.methods[0], args.methods[-1]
        row["x_oracle"] = row[f"{new}_median"] / orc
        row["base_over_new"] = row[f"{base}_median"] / row[f"{new}_median"]
        rows.append(row)
        print(f"{name:24s} {n:4d} {m:5d} {row['gap']:7.4f} {orc:7.3f} "
              + " ".join(f"{row[f'{x}_median']:10.3f} [{row[f'{x}_lo']:.3f}, {row[f'{x}_hi']:.3f}] "
                         f"{row[f'{x}_wrong']:5d}" for x in args.methods)
              + f" {row['x_oracle']:8.2f} {row['base_over_new']:8.2f} {row['seconds']:5.0f}", flush=True)
    if args.csv and rows:
        import pandas as pd

        pd.DataFrame(rows).to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
