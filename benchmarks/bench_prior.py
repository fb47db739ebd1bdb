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

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paperlib.beyond.search.experiments import gaussian_bound_fraction  # noqa: E402
from paperlib.data import available, available_datasets, load  # noqa: E402
from paperlib.data.matrix import ScoreMatrix  # noqa: E402
from paperlib.prior import example_features  # noqa: E402
from paperlib.simulate import simulate  # noqa: E402
from paperlib.stats import clopper_pearson, median_interval  # noqa: E402

PRIORS = ("none", "prior", "shuffled", "reversed")


def split(S: np.ndarray, seed: int = 0, candidates: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """(candidates, prior): ``candidates`` rows drawn from a random half of the matrix, the other half the prior."""
    perm = np.random.default_rng(seed).permutation(S.shape[0])
    half = S.shape[0] // 2
    return S[perm[:half][:candidates]], S[perm[half:]]


def explained(cand: np.ndarray, prior: np.ndarray, rank: int = 8) -> float:
    """Median over the candidates of the in-sample R^2 of a least-squares fit on the prior's example features."""
    F = example_features(prior, rank)
    r2 = []
    for s in cand:
        beta, *_ = np.linalg.lstsq(F, s, rcond=None)
        r2.append(1.0 - np.var(s - F @ beta) / max(np.var(s), 1e-12))
    return float(np.median(r2))


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
        S = np.asarray(mat.scores, dtype=np.float64)
        cand, prior = split(S)
        n, m = cand.shape
        truth = np.flatnonzero(cand.mean(1) >= cand.mean(1).max())
        C = ScoreMatrix.from_array(cand, kind="real", name=name)
        rng = np.random.default_rng(1)
        priors = {"none": None, "prior": prior, "shuffled": np.stack([rng.permutation(r) for r in prior]),
                  "reversed": 1.0 - prior}
        row = dict(matrix=name, n=n, m=m, prior_rows=prior.shape[0], reps=args.reps,
                   bound=gaussian_bound_fraction(cand, args.delta), r2=explained(cand, prior))
        t0 = time.time()
        for key, Q in priors.items():
            kw = {} if Q is None else {"prior": Q}
            r = simulate("lucb", C, [n * m], reps=args.reps, seed=0, delta=args.delta, stop="certified",
                         progress=False, **kw)
            med, lo, hi = median_interval(r.calls / (n * m))
            wrong = int((~np.isin(r.best[-1], truth)).sum())
            row.update({f"{key}_median": med, f"{key}_lo": lo, f"{key}_hi": hi, f"{key}_wrong": wrong,
                        f"{key}_wrong_hi": clopper_pearson(wrong, args.reps)[1], f"{key}_s": r.wall_s})
        for key in PRIORS[1:]:
            row[f"{key}_ratio"] = row[f"{key}_median"] / row["none_median"]
        row["seconds"] = time.time() - t0
        print(f"{name:24s} {n}x{m} R2 {row['r2']:.2f} T* {row['bound']:.3f} lucb {row['none_median']:.3f} "
              + " ".join(f"{k} {row[f'{k}_median']:.3f} ({row[f'{k}_ratio']:.2f}x)" for k in PRIORS[1:])
              + f" wrong {[row[f'{k}_wrong'] for k in PRIORS]} {row['seconds']:.0f}s", flush=True)
        out = pd.DataFrame([row])
        out.to_csv(args.csv, mode="a", header=not args.csv.exists(), index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
