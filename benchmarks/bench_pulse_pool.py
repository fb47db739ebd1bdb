"""Benchmark the PULSE backbone on the authors' own Bench-1 pool, with the authors' code run side by side.

The pool is built the way Section 4 builds it (``paperlib.data.pools``): the MMLU-Pro matrix of Wu et
al. 2026 (``$PAPERLIB_DATA/wu2026_factors``), models split into halves, 1,000 test models whose top-2 gap is
0.02, all 12,032 questions. Batch 64, T0 = 1, then 400,000 bandit calls (T = 464,000), a = 1.

Each row times one implementation on that pool: paperlib's batched ``ucbe-batch`` (and any other ``--methods``)
at R repetitions, and, with ``--authors DIR`` (a checkout of ``elad-tolo/pulse-llm-eval``, e.g. from
``git clone``; nothing of it is copied here), the authors' ``run_standard_ucbe_bandit_wo_replacement`` from
``bandit.py`` for ``--authors-seeds`` seeds, one at a time as their runner does, with their init mask of 64
cells per model and ``budget=400000`` post-init calls. The ratio is seconds per run of the authors' code over
ours.

    PAPERLIB_DATA=../shared/data python benchmarks/bench_pulse_pool.py --reps 20 --authors /path/to/pulse-llm-eval
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
import yaml

from paperlib.device import describe, get_device
from paperlib.papers.pulse.experiments import build_instance
from paperlib.pipeline.config import paper_config
from paperlib.simulate import simulate


def authors_ucbe(directory: Path, scores: np.ndarray, seeds: int, batch: int, bandit: int) -> tuple[float, float]:
    """Seconds per seed and the fraction of seeds naming the best model, for the authors' UCB-E on ``scores``."""
    spec = importlib.util.spec_from_file_location("authors_bandit", directory / "bandit.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(directory))
    spec.loader.exec_module(mod)
    X = torch.tensor(scores, dtype=torch.float32)
    n, m = X.shape
    best = int(np.argmax(scores.mean(1)))
    hits, wall = 0, 0.0
    for s in range(seeds):
        np.random.seed(s * 10000)  # their seed convention (bandit_si.py: seed = exp_idx * 10000)
        mask = torch.zeros(n, m, dtype=torch.bool)
        for i in range(n):
            mask[i, np.random.choice(m, size=batch, replace=False)] = True
        t = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            pred, _ = mod.run_standard_ucbe_bandit_wo_replacement(X, budget=bandit, batch_size=batch, a=1.0, mask=mask)
        wall += time.perf_counter() - t
        hits += int(pred) == best
    return wall / seeds, hits / seeds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--pool", default="bench1-gap0.02")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--methods", default="ucbe-batch")
    ap.add_argument("--bandit", type=int, default=400_000, help="bandit calls after the warm-up")
    ap.add_argument("--authors", type=Path, default=None, help="a checkout of elad-tolo/pulse-llm-eval")
    ap.add_argument("--authors-seeds", type=int, default=2)
    args = ap.parse_args()
    if not os.environ.get("PAPERLIB_DATA"):
        sys.exit("set PAPERLIB_DATA to the folder holding wu2026_factors (or run `paperlib data fetch bench1`)")
    dev = get_device(args.device)
    cfg = paper_config(yaml.safe_load((Path(__file__).parents[1] / "paperlib/config/paper.yaml").read_text()), "pulse")
    inst = build_instance(cfg, args.pool)
    n, m = inst.test.shape
    B = int(cfg["batch_size"])
    budget = n * B + args.bandit
    print(f"machine: {describe(dev)}; torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(f"pool {args.pool}: {n} x {m} ({inst.test.kind}), T = {budget:,} calls (batch {B}, T0 = 1)\n")
    rows = []
    if args.authors:
        per, acc = authors_ucbe(args.authors, inst.test.scores, args.authors_seeds, B, args.bandit)
        rows.append(("authors' bandit.py UCB-E (numpy, one seed at a time)", args.authors_seeds, per * args.authors_seeds,
                     per, acc))
    for meth in args.methods.split(","):
        t = time.perf_counter()
        res = simulate(meth, inst.test, [budget], reps=args.reps, seed=0, device=dev, progress=False, batch_size=B,
                       t0=1, a=1.0)
        wall = time.perf_counter() - t
        rows.append((f"paperlib {meth} (batched over R)", args.reps, wall, wall / args.reps, float(res.precision()[-1])))
    ref = rows[0][3] if args.authors else None
    print("| implementation | runs | wall s | s per run | P(best) | authors / ours |")
    print("|---|---|---|---|---|---|")
    for name, r, wall, per, acc in rows:
        ratio = f"{ref / per:.1f}x" if ref else "-"
        print(f"| {name} | {r} | {wall:.1f} | {per:.3f} | {acc:.3f} | {ratio} |")


if __name__ == "__main__":
    main()
