"""Benchmark batched UCB-E against a plain numpy loop that runs one repetition at a time.

The case of the paper-scale issue: MuSR (450 x 756, real `sysrs_musr` from $PAPERLIB_DATA, else a
synthetic matrix of that shape), 20% budget, batch 32, 500 repetitions. The baseline is the loop a
user writes first (numpy, one repetition after another; each step: the UCB over rows, then the
chosen row on its next b unevaluated examples). Each case runs in a fresh process, so peak memory
(max RSS) is its own.

    python benchmarks/bench_ucbe.py                     # CPU or CUDA, whichever is present
    python benchmarks/bench_ucbe.py --reps 500 --loop-reps 500 --device cpu
    python benchmarks/bench_ucbe.py --rounds 3    # loop and batched alternately, three times: each round's ratio

On a shared VM the two halves of one comparison can see different machines (the loop's time has moved by 2.7x between
days); ``--rounds`` alternates them so that each ratio compares neighbours in time, and reports the median, and the
ratio of each side's best round (the VM's other tenants only ever add time, so the fastest run of each is the closest
to the machine's own speed, as ``timeit`` advises; a single slowed batched run, 5.7 s of wall time for 2.6 s of CPU,
gave one round of 3.8x on 2026-11-27). The CPU time of each process is printed beside its wall time (on a GPU, the
CPU ratio only says how busy the host was).
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
from fresh import load, run_timed


def numpy_loop(scores: np.ndarray, budget: int, b: int, reps: int, seed: int) -> float:
    """The baseline: one repetition at a time; returns the fraction of runs that pick the best row."""
    rng = np.random.default_rng(seed)
    n, m = scores.shape
    best = int(np.argmax(scores.mean(1)))
    hits = 0
    for _ in range(reps):
        order = np.argsort(rng.random((n, m)), axis=1)
        sums, cnt = np.zeros(n), np.zeros(n, dtype=np.int64)
        spent = 0
        while spent < budget:
            mean = np.where(cnt > 0, sums / np.maximum(cnt, 1), 1.0)
            ucb = np.where(cnt == 0, np.inf, mean + np.sqrt(1.0 / np.maximum(cnt, 1)))
            ucb[cnt >= m] = -np.inf
            i = int(np.argmax(ucb))
            k = min(b, m - cnt[i], budget - spent)
            sums[i] += scores[i, order[i, cnt[i]:cnt[i] + k]].sum()
            cnt[i] += k
            spent += k
        hits += int(np.argmax(np.where(cnt > 0, sums / np.maximum(cnt, 1), -np.inf)) == best)
    return hits / reps


def batched(scores: np.ndarray, budget: int, b: int, reps: int, seed: int, device: str | None) -> float:
    import torch

    from paperlib.policies.ucbe import UCBE

    pol = UCBE(*scores.shape, budget, reps=reps, seed=seed, device=device, batch_size=b)
    s = torch.tensor(np.ascontiguousarray(scores), device=pol.device)  # a C-ordered copy, as simulate() makes
    while not pol.done:
        req = pol.ask()
        pol.tell(req, req.take(s))
    best = int(np.argmax(scores.mean(1)))
    return float((pol.best().cpu().numpy() == best).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--loop-reps", type=int, default=500, help="repetitions of the numpy loop (time scaled to --reps)")
    ap.add_argument("--budget-frac", type=float, default=0.2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=1, help="alternate the loop and the batched run this many times")
    args = ap.parse_args()
    from paperlib.device import describe, get_device

    dev = get_device(args.device)
    scores, name = load("sysrs_musr", (450, 756))
    n, m = scores.shape
    budget = int(args.budget_frac * n * m)
    print(f"machine: {platform.machine()}, {describe(dev)}; matrix {name} {n} x {m}; budget {budget} "
          f"({args.budget_frac:.0%}); batch {args.batch}")
    print("| round | implementation | R | wall s | CPU s | s / rep | peak RSS MB | P(best) | ratio to the loop (wall) | "
          "(CPU) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    times = {"loop wall": [], "loop CPU": [], "ours wall": [], "ours CPU": []}  # per round, the loop's scaled
    scale = args.reps / args.loop_reps  # the loop's times scaled to --reps repetitions
    for rnd in range(1, args.rounds + 1):
        loop_s, loop_acc, loop_mb, loop_cpu = run_timed(numpy_loop, scores, budget, args.batch, args.loop_reps, 0)
        ours_s, ours_acc, ours_mb, ours_cpu = run_timed(batched, scores, budget, args.batch, args.reps, 0, str(dev),
                                                        device=dev)
        for key, value in zip(times, (loop_s * scale, loop_cpu * scale, ours_s, ours_cpu), strict=True):
            times[key].append(value)
        wall_ratio, cpu_ratio = loop_s * scale / ours_s, loop_cpu * scale / ours_cpu
        print(f"| {rnd} | numpy loop, one repetition at a time | {args.loop_reps} | {loop_s:.1f} | {loop_cpu:.1f} | "
              f"{loop_s / args.loop_reps:.4f} | {loop_mb:.0f} | {loop_acc:.3f} | 1.0x | 1.0x |")
        print(f"| {rnd} | paperlib UCBE, batched ({dev}) | {args.reps} | {ours_s:.1f} | {ours_cpu:.1f} | "
              f"{ours_s / args.reps:.4f} | {ours_mb:.0f} | {ours_acc:.3f} | {wall_ratio:.1f}x | {cpu_ratio:.1f}x |",
              flush=True)
    if args.rounds > 1:
        for what in ("wall", "CPU"):
            rs = [lo / ours for lo, ours in zip(times[f"loop {what}"], times[f"ours {what}"], strict=True)]
            print(f"ratio per round ({what}): {', '.join(f'{r:.1f}x' for r in rs)}; median {sorted(rs)[len(rs) // 2]:.1f}x")
        for what in ("wall", "CPU"):  # other tenants only ever add time: the best round of each is the machine's own
            loop_best, ours_best = min(times[f"loop {what}"]), min(times[f"ours {what}"])
            print(f"best of {args.rounds} rounds ({what}): loop {loop_best:.1f} s, batched {ours_best:.2f} s: "
                  f"{loop_best / ours_best:.1f}x")

if __name__ == "__main__":
    main()
