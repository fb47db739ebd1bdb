"""Benchmark UCB-E-LRF at the paper-scale issue's cases: time and peak memory.

Cases (Zhou et al. Sec. 4.3 settings: rank 1, K = 64, warm-up 5%, eta = 5, batch 32): AlpacaEval-2 to 100% of the
matrix and a 450 x 756 matrix (real `sysrs_musr`) to 20%, R repetitions batched; each with the paper's refit after
every batch (refit_growth 0) and with the refit schedules given by --refit-growth, side by side.
Each case runs in a fresh process (``fresh.run``) so that its peak memory (max RSS) is its own; the data come from
$PAPERLIB_DATA, else a synthetic matrix of the same shape stands in (``fresh.load``, said in the table).

    python benchmarks/bench_lrf.py --device cpu --reps 50 --musr-reps 5 --refit-growth 0,0.02
"""

from __future__ import annotations

import argparse
import platform

from fresh import load, run


def lrf_case(scores, frac, reps, device, growth):
    """UCB-E-LRF to ``frac`` of the matrix, R repetitions batched: (budget, P(best))."""
    import numpy as np
    import torch

    from paperlib.policies.ucbe_lrf import UCBELRF

    n, m = scores.shape
    budget = int(round(frac * n * m))
    s = torch.as_tensor(scores, device=device)
    pol = UCBELRF(n, m, budget, reps=reps, seed=0, device=device, refit_growth=growth)
    while not pol.done:
        req = pol.ask()
        pol.tell(req, s[req.rows, req.cols])
    return budget, float((pol.best().cpu().numpy() == int(np.argmax(scores.mean(1)))).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--reps", type=int, default=50, help="repetitions of the AlpacaEval-2 case (default 50)")
    ap.add_argument("--musr-reps", type=int, default=50, help="repetitions of the 450 x 756 case (default 50)")
    ap.add_argument("--cases", default="alpaca,musr")
    ap.add_argument("--refit-growth", default="0,0.02", help="refit schedules to time (0: the paper's, after every batch)")
    args = ap.parse_args()
    from paperlib.device import describe, get_device

    dev = get_device(args.device)
    print(f"machine: {platform.machine()}, {describe(dev)}")
    cases = {"alpaca": ("alpacaeval2", (57, 797), 1.0, args.reps), "musr": ("sysrs_musr", (450, 756), 0.2, args.musr_reps)}
    print("| matrix | n x m | budget | refit_growth | R | wall s | s / rep | peak RSS MB | P(best) | vs paper schedule |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key in args.cases.split(","):
        name, shape, frac, reps = cases[key]
        scores, label = load(name, shape)
        n, m = scores.shape
        paper = None
        for g in (float(x) for x in args.refit_growth.split(",")):
            wall, (budget, acc), mb = run(lrf_case, scores, frac, reps, str(dev), g, device=dev)
            paper = wall if g == 0 else paper
            ratio = f"{paper / wall:.1f}x faster" if paper and g else ""
            print(f"| {label} | {n} x {m} | {budget:,} ({frac:.0%}) | {g:g} | {reps} | {wall:.1f} | {wall / reps:.2f} | {mb:.0f} "
                  f"| {acc:.2f} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
