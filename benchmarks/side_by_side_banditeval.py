"""Zhou et al.'s own package (``banditeval``, PyPI) beside paperlib on the same real matrices.

Runs banditeval's ``upper_confidence_bound_exploration`` and
``upper_confidence_bound_exploration_low_rank_factorization`` (their defaults: batch 32, a = 1; rank 1, 64
members, 5% warm-up, eta = 5, drop 0.05, ridge 0.1, a fresh 10-sweep ALS fit at every step) step by step, one seed
at a time as their ``BanditEval.__call__`` does, and paperlib's ``ucbe`` and ``ucbe-lrf`` (refitted after every
batch, the paper's setting) batched over repetitions, on the same matrix and budgets. Each row: the share of runs
whose predicted best model is the best (within ``--tie-tol``), with exact 95% intervals, and Fisher's exact test
of the two shares. ``--permute-rows`` gives each of their runs a fresh model order (their arg-max takes the first of
tied bounds; ours breaks ties at random). Their runs stop at the first batch that reaches a budget (at most 31 calls past it); ours spend
it exactly.

banditeval is not a dependency of paperlib: point ``--banditeval`` at an unpacked copy of its wheel (``pip
download --no-deps banditeval==0.1.1`` and unzip; it needs ``einops``, e.g. ``pip install --target DIR einops``
and ``--extra-path DIR``). Nothing of it is copied here.

    PAPERLIB_DATA=../shared/data python benchmarks/side_by_side_banditeval.py --banditeval /tmp/be/src \\
        --extra-path /tmp/be/deps --datasets sysrs_math zeroeval_math_l5 --seeds 20
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import numpy as np
import torch
from scipy.stats import fisher_exact

from paperlib.data.registry import load
from paperlib.simulate import simulate
from paperlib.stats import clopper_pearson


def theirs(bandits, scores: np.ndarray, budgets: list[int], seeds: int, algorithm: str, tie_tol: float,
           permute: bool = False):
    """Correct picks per budget over ``seeds`` runs of banditeval's step function (their loop, their estimate).

    ``permute``: each run sees the models in a fresh random order (``torch.argmax`` returns the first of tied
    maxima, so without it a best model in row 0 is favoured whenever bounds tie, as binary scores make them do)."""
    step = {"ucbe": bandits.upper_confidence_bound_exploration,
            "ucbe-lrf": bandits.upper_confidence_bound_exploration_low_rank_factorization}[algorithm]
    truth0 = scores.mean(1)
    best = truth0.max()
    hits = np.zeros(len(budgets), int)
    for seed in range(seeds):
        order = np.random.default_rng(seed).permutation(len(truth0)) if permute else np.arange(len(truth0))
        truth = truth0[order]
        X = torch.tensor(scores[order], dtype=torch.float32)
        torch.manual_seed(seed)
        obs = torch.full(X.shape, torch.nan)
        spent, b = 0, 0
        while b < len(budgets):
            batch = step(obs)
            if batch is None:
                break
            rows, cols = batch
            obs[rows, cols] = X[rows, cols]
            spent += rows.numel()
            while b < len(budgets) and spent >= budgets[b]:
                _, mus = step(obs, return_mus=True)
                hits[b] += truth[int(torch.argmax(mus))] >= best - tie_tol
                b += 1
    return hits


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--banditeval", type=Path, required=True, help="directory that holds the banditeval package")
    ap.add_argument("--extra-path", type=Path, action="append", default=[], help="more import paths (einops)")
    ap.add_argument("--datasets", nargs="+", default=["sysrs_math", "zeroeval_math_l5"])
    ap.add_argument("--fracs", nargs="+", type=float, default=[0.05, 0.1, 0.2, 0.3])
    ap.add_argument("--seeds", type=int, default=20, help="runs of each implementation")
    ap.add_argument("--methods", nargs="+", default=["ucbe", "ucbe-lrf"])
    ap.add_argument("--tie-tol", type=float, default=0.0)
    ap.add_argument("--permute-rows", action="store_true", help="a fresh model order per banditeval run")
    args = ap.parse_args(argv)
    for p in [args.banditeval, *args.extra_path]:
        sys.path.insert(0, str(p))
    bandits = importlib.import_module("banditeval.bandits")
    torch.set_num_threads(1)
    print("| matrix | n x m | method | budget | banditeval P(best) [95% CI] | paperlib P(best) [95% CI] | Fisher p "
          "| s per run (theirs, ours) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.datasets:
        mat = load(name)
        n, m = mat.shape
        budgets = [int(round(f * n * m)) for f in args.fracs]
        for meth in args.methods:
            t = time.perf_counter()
            th = theirs(bandits, mat.scores, budgets, args.seeds, meth, args.tie_tol, args.permute_rows)
            t_th = (time.perf_counter() - t) / args.seeds
            t = time.perf_counter()
            kw = {"refit_growth": 0.0} if meth == "ucbe-lrf" else {}
            res = simulate(meth, mat, budgets, reps=args.seeds, seed=0, progress=False, batch_size=32,
                           tie_tol=args.tie_tol, **kw)
            t_us = (time.perf_counter() - t) / args.seeds
            ours = np.rint(np.asarray(res.precision()) * args.seeds).astype(int)
            for f, h_th, h_us in zip(args.fracs, th, ours, strict=True):
                lo_t, hi_t = clopper_pearson(int(h_th), args.seeds)
                lo_u, hi_u = clopper_pearson(int(h_us), args.seeds)
                p = fisher_exact([[h_th, args.seeds - h_th], [h_us, args.seeds - h_us]])[1]
                print(f"| {name} | {n} x {m} | {meth} | {f:.0%} | {h_th / args.seeds:.2f} [{lo_t:.2f}, {hi_t:.2f}] "
                      f"| {h_us / args.seeds:.2f} [{lo_u:.2f}, {hi_u:.2f}] | {p:.2f} | {t_th:.1f}, {t_us:.1f} |",
                      flush=True)


if __name__ == "__main__":
    main()
