"""Certified search with a prior (issue 59, item 4): calls to certify the best model, with and without other models'
scores, on every shared real matrix with at least 40 models.

For each matrix: 20 candidates drawn (seed 0) from half of the rows, the other half as the prior; ``--reps`` runs of
``simulate(..., stop="certified")`` each of lucb (no prior), lucb-prior with the prior, with each prior row shuffled
over the examples (useless: it predicts nothing) and with the reversed prior 1 - Q (adversarial: its column means
predict the opposite of each example's difficulty at the start). Reported: the median share of the candidates'
matrix at the certificate with a 95% interval (binomial order statistics), the ratio to lucb, the Gaussian bound T*
(:func:`paperlib.beyond.search.experiments.gaussian_bound_fraction`), the in-sample R^2 of the features (how much of
a candidate's score variance the prior can explain at best: the most a doubly robust interval can save is about
that share of the calls), and the misidentifications with an exact (Clopper-Pearson) 95% upper bound.

    PAPERLIB_DATA=... python benchmarks/bench_prior.py --reps 100 --csv benchmarks/results/bench_prior.csv

Resumable: matrices already in the CSV are skipped.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paperlib.beyond.search.experiments import PRIOR_KINDS, prior_runs_of  # noqa: E402
from paperlib.data import available, available_datasets, load  # noqa: E402
from paperlib.stats import clopper_pearson, median_interval  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--delta", type=float, default=0.05)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--csv", type=Path, required=True)
    args = ap.parse_args(argv)
    names = args.only or [d for d in available_datasets() if available(d)]
    done = set(pd.read_csv(args.csv)["matrix"]) if args.csv.exists() else set()
    for name in names:
        mat = load(name, verify=False)
        if mat.kind != "real" or mat.shape[0] < 40 or name in done:
            continue
        t0 = time.time()
        runs = prior_runs_of(name, args.reps, args.delta)  # the experiment of the DAG's rule search_prior
        head = runs.iloc[0]
        row = dict(matrix=name, n=int(head.n), m=int(head.m), prior_rows=int(head.prior_rows), reps=args.reps,
                   bound=float(head.bound), r2=float(head.r2))
        for key in PRIOR_KINDS:
            r = runs[runs.prior == key]
            med, lo, hi = median_interval(r.frac)
            wrong = int((r.certified & ~r.right).sum())
            row.update({f"{key}_median": med, f"{key}_lo": lo, f"{key}_hi": hi, f"{key}_wrong": wrong,
                        f"{key}_wrong_hi": clopper_pearson(wrong, args.reps)[1]})
        for key in PRIOR_KINDS[1:]:
            row[f"{key}_ratio"] = row[f"{key}_median"] / row["none_median"]
        row["seconds"] = time.time() - t0
        print(f"{name:24s} {row['n']}x{row['m']} R2 {row['r2']:.2f} T* {row['bound']:.3f} lucb {row['none_median']:.3f} "
              + " ".join(f"{k} {row[f'{k}_median']:.3f} ({row[f'{k}_ratio']:.2f}x)" for k in PRIOR_KINDS[1:])
              + f" wrong {[row[f'{k}_wrong'] for k in PRIOR_KINDS]} {row['seconds']:.0f}s", flush=True)
        out = pd.DataFrame([row])
        if args.csv.exists() and list(pd.read_csv(args.csv, nrows=0).columns) != list(out.columns):
            raise SystemExit(f"{args.csv} has other columns (an older version of this script): write to a new file")
        out.to_csv(args.csv, mode="a", header=not args.csv.exists(), index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
