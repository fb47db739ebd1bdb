"""What a cheaper refit schedule changes in UCB-E-LRF: time, and P(best found) with intervals.

The paper refits the 64-member ensemble after every batch of 32 (``refit_growth = 0``), quadratic in the matrix;
``refit_growth = g`` refits when the observed pairs have grown by 1 + g (linear). For each matrix, method and
setting: R runs with the same seeds, wall time, and at each budget the accuracy (P(predicted best is a best row)),
the difference to the paper's setting with its 95% Newcombe interval (``statsmodels``) and the Fisher exact p.
A setting is called "equivalent within +-margin" at a budget when the whole difference interval lies inside
+-margin, "differs" when the interval excludes 0, else "inconclusive".

    python benchmarks/lrf_refit_schedule.py --reps 200 --growth 0.02
    python benchmarks/lrf_refit_schedule.py --datasets real --reps 100 --device cuda --deadline 480 --csv $OUT/r.csv

``--summarize FILE.csv`` prints one row per matrix and method from such a CSV (time, points that differ, largest
drop with its interval) instead of running.

``--datasets real`` takes every real matrix of the paper profile's Figure 3, smallest first; with ``--deadline`` a
matrix is started only while the time left exceeds the longest matrix so far; ``--csv`` appends each row as it is
printed (a run cut short keeps the matrices it finished).
"""

from __future__ import annotations

import argparse
import csv
import platform
import time
from pathlib import Path

import numpy as np
from scipy.stats import fisher_exact
from statsmodels.stats.proportion import confint_proportions_2indep


def verdict(lo: float, hi: float, margin: float) -> str:
    if -margin < lo and hi < margin:
        return f"equivalent within +-{margin:g}"
    return "differs" if lo > 0 or hi < 0 else "inconclusive"


def _interval(r) -> tuple[float, float]:
    return confint_proportions_2indep(r.hits, r.reps, r.base_hits, r.reps, method="newcomb")


def summarize(path: str, margin: float) -> None:
    """One row per (matrix, method) of a ``--csv`` table: wall time of both schedules, how many budgets are
    equivalent within +-margin / inconclusive / differ, and the largest drop against the paper's schedule."""
    import pandas as pd

    t = pd.read_csv(path)
    g = t[t.refit_growth > 0]
    wall = t.groupby(["matrix", "method", "refit_growth"], sort=False).wall_s.first().unstack()
    print(f"{t.machine.iloc[0]}; {int(t.reps.iloc[0])} runs per setting, same seeds; budgets "
          f"{t.budget_frac.min():.0%} to {t.budget_frac.max():.0%}")
    print("| matrix | n x m | method | wall s, paper (g = 0) | wall s, g > 0 | equivalent / inconclusive / differs "
          "| largest drop (95% CI) |")
    print("|---|---|---|---|---|---|---|")
    counts = {"equivalent": 0, "inconclusive": 0, "differs": 0}
    for (name, method), rows in g.groupby(["matrix", "method"], sort=False):
        ivs = [_interval(r) for r in rows.itertuples()]
        verdicts = [verdict(lo, hi, margin).split()[0] for lo, hi in ivs]
        for v in verdicts:
            counts[v] += 1
        diff = (rows.hits - rows.base_hits) / rows.reps
        i = int(np.argmin(diff.to_numpy()))
        lo, hi = ivs[i]
        drop = (f"{diff.iloc[i]:+.3f} at {rows.budget_frac.iloc[i]:.0%} [{lo:+.3f}, {hi:+.3f}]"
                if diff.iloc[i] < 0 else "none")
        w0, w1 = wall.loc[(name, method)].iloc[0], wall.loc[(name, method)].iloc[1]
        print(f"| {name} | {rows.n.iloc[0]} x {rows.m.iloc[0]} | {method} | {w0:.1f} | {w1:.1f} ({w0 / w1:.1f}x) | "
              f"{verdicts.count('equivalent')} / {verdicts.count('inconclusive')} / {verdicts.count('differs')} | "
              f"{drop} |")
    print(f"all points: {counts}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="alpacaeval2,sysrs_math")
    ap.add_argument("--methods", default="ucbe-lrf,ucbe-lrf-score-only")
    ap.add_argument("--growth", default="0.02", help="comma-separated refit_growth values compared with 0 (the paper)")
    ap.add_argument("--fracs", default="0.05,0.06,0.08,0.1,0.15,0.2,0.3")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--margin", type=float, default=0.1)
    ap.add_argument("--device", default=None)
    ap.add_argument("--deadline", type=float, default=0.0, help="seconds after which no matrix is started (0: none)")
    ap.add_argument("--csv", help="append every row to this CSV file as well")
    ap.add_argument("--summarize", help="a CSV written by --csv: print its summary per matrix and method, run nothing")
    args = ap.parse_args()
    if args.summarize:
        summarize(args.summarize, args.margin)
        return

    import torch

    from paperlib import data
    from paperlib.device import describe, get_device
    from paperlib.simulate import budgets_from_fracs, simulate

    dev = get_device(args.device)
    print(f"machine: {platform.machine()}, {describe(dev)}, {torch.get_num_threads()} torch threads; R = {args.reps} runs "
          f"per setting, seed 0")
    fracs = [float(f) for f in args.fracs.split(",")]
    names = args.datasets.split(",")
    if names == ["real"]:
        from gpu_declared_jobs import _config

        mats = {d: data.load(d) for d in _config("zhou")["datasets"]}
        names = sorted((d for d, mt in mats.items() if mt.kind == "real"), key=lambda d: mats[d].scores.size)
    out = Path(args.csv) if args.csv else None
    t_start, longest = time.perf_counter(), 0.0
    print("| matrix | method | refit_growth | wall s | budget | accuracy | diff vs paper [95% CI] | Fisher p | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        if args.deadline and time.perf_counter() - t_start + longest > args.deadline:
            print(f"not started (deadline {args.deadline:g} s): {name}", flush=True)
            continue
        t_matrix = time.perf_counter()
        mat = data.load(name)
        budgets = budgets_from_fracs(fracs, *mat.shape)
        best = np.flatnonzero(mat.means == mat.means.max())
        for method in args.methods.split(","):
            base = None
            for g in [0.0] + [float(x) for x in args.growth.split(",")]:
                t = time.perf_counter()
                res = simulate(method, mat, budgets, reps=args.reps, seed=0, device=dev, progress=False, refit_growth=g)
                wall = time.perf_counter() - t
                hits = np.isin(res.best, best).sum(axis=1)
                if base is None:
                    base = hits
                for c, f in enumerate(fracs):
                    acc = hits[c] / args.reps
                    if g == 0.0:
                        cells = ["", "", ""]
                    else:
                        lo, hi = confint_proportions_2indep(hits[c], args.reps, base[c], args.reps, method="newcomb")
                        p = fisher_exact([[hits[c], args.reps - hits[c]], [base[c], args.reps - base[c]]]).pvalue
                        cells = [f"{acc - base[c] / args.reps:+.3f} [{lo:+.3f}, {hi:+.3f}]", f"{p:.2f}", verdict(lo, hi, args.margin)]
                    print(f"| {name} | {method} | {g:g} | {wall:.0f} | {f:.0%} | {acc:.3f} | " + " | ".join(cells) + " |",
                          flush=True)
                    if out is not None:
                        row = {"matrix": name, "n": mat.shape[0], "m": mat.shape[1], "method": method,
                               "refit_growth": g, "reps": args.reps, "wall_s": round(wall, 2), "budget_frac": f,
                               "hits": int(hits[c]), "base_hits": int(base[c]), "machine": describe(dev)}
                        new = not out.exists()
                        with out.open("a", newline="") as fh:
                            w = csv.DictWriter(fh, fieldnames=list(row))
                            if new:
                                w.writeheader()
                            w.writerow(row)
        longest = max(longest, time.perf_counter() - t_matrix)


if __name__ == "__main__":
    main()
