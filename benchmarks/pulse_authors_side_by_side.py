"""PULSE as the authors' own code runs it, on one of our pools, seed by seed (issue 55: is "PULSE below UCB-E" ours?).

Runs ``run_single_variant_wor_si`` of ``bandit_si.py`` (a checkout of ``elad-tolo/pulse-llm-eval`` given by
``--authors``; nothing of it is copied here) for variant ``cv_wor`` (PULSE) -- or ``std_wor`` (UCB-E), ``imp_wor``
(Naive-Pooling) -- on the pool's train rows (their side information) and test rows, with the settings of their
README's headline runs: ``SI_WARMUP_STEPS=0``, ``SI_TRAIN_EVERY=1000``, rank 100, stage-1 lr 0.01 and lam 0.01 (their
``_load_or_train_si_side_only`` called once with those, so that every seed finds its cache), prewarm 50 epochs at lr
0.01, lam 0.01, batch 64, a = 1, one init batch per model, seed ``exp_idx * 10000`` as their runner sets it. The
budget is the pool's largest bandit budget; their per-step history gives the accuracy at every smaller one (their
loop does not depend on the total budget once the warm-up steps are 0): at b bandit calls, step b // 64.

Appends one row per seed to ``--out`` (seed, then whether the pick is the best model at each budget), skipping the
seeds already there: rerun the same command to resume. Their code prints a lot; it goes to ``--log``.

    PAPERLIB_DATA=../shared/data python benchmarks/pulse_authors_side_by_side.py --authors DIR \\
        --pool sysrs_ifeval-full --seeds 200 --out results/paper/pulse/authors/sysrs_ifeval-full.csv
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--authors", type=Path, required=True, help="a checkout of elad-tolo/pulse-llm-eval")
    ap.add_argument("--pool", default="sysrs_ifeval-full")
    ap.add_argument("--variant", default="cv_wor", choices=["cv_wor", "std_wor", "imp_wor"])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=Path("/tmp/pulse-authors-work"), help="their caches go here")
    ap.add_argument("--log", type=Path, default=Path("/tmp/pulse-authors-work/log.txt"))
    args = ap.parse_args()

    import torch

    from paperlib.papers.pulse import experiments as E
    from paperlib.pipeline.config import load_config, paper_config

    cfg = paper_config(load_config("paper"), "pulse")
    inst = E.build_instance(cfg, args.pool)
    n, m = inst.test.shape
    warm, bs = E.budgets(cfg, n, m)
    bandit = [b - warm for b in bs]
    B = int(cfg["batch_size"])
    X = torch.tensor(np.vstack([inst.train, inst.test.scores]), dtype=torch.float32)
    test_pos = np.arange(inst.train.shape[0], X.shape[0])
    means = inst.test.scores.mean(1)
    best = int(np.argmax(means))
    top_k = np.argsort(-means)[:5]
    eps = np.flatnonzero(means >= means.max() - 0.01)

    out = args.out.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    os.environ.update(SI_WARMUP_STEPS="0", SI_TRAIN_EVERY="1000", SI_DEVICE="cpu", SI_MF_RANK="100",
                      SI_MF_INIT_EPOCHS="5", SI_PREWARM_EPOCHS="50", SI_PREWARM_LR="0.01", SI_PREWARM_LAM="0.01",
                      SI_INIT_PULLS_PER_ARM=str(int(cfg["t0"])), SI_TEST_PATH_ID=f"paperlib-{args.pool}",
                      SI_CV_WOR_TRACE_DIR=str(args.work / "traces"))
    os.chdir(args.work)  # their caches are relative paths
    sys.path.insert(0, str(args.authors.resolve()))
    import bandit_si  # noqa: E402  (their module, from the checkout)

    log = open(args.log, "a")
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        bandit_si._load_or_train_si_side_only(X, test_pos, rank=100, n_epochs=5, lr=0.01, lam=0.01,
                                             test_path=os.environ["SI_TEST_PATH_ID"])
    done = set(pd.read_csv(out).seed) if out.exists() else set()
    cols = [f"b{b}" for b in bandit]
    t0 = time.perf_counter()
    for seed in range(args.seeds):
        if seed in done:
            continue
        task = (args.variant, seed, X, test_pos, best, top_k, eps, max(bandit), B, float(cfg["a"]), 1.0, 0.0)
        with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
            got = bandit_si.run_single_variant_wor_si(task)
        hit = got["hist_top1"]
        row = {"pool": args.pool, "variant": args.variant, "seed": seed,
               **{c: int(hit[min(b // B, len(hit) - 1)]) for c, b in zip(cols, bandit, strict=True)}}
        pd.DataFrame([row]).to_csv(out, mode="a", header=not out.exists(), index=False)
        print(f"seed {seed}: {row[cols[-1]]} ({time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
