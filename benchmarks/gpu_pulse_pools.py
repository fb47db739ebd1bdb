"""The paper profile's PULSE pools at the paper's 500 runs, on a GPU (issue 40, item 6), and their merge here.

On the device machine (torch only; the checkout on ``PYTHONPATH``; data in ``$PAPERLIB_DATA``)::

    python benchmarks/gpu_pulse_pools.py run --out $OUT/pools.csv --deadline 520

runs :func:`paperlib.papers.pulse.experiments.run_pool` -- the very call of the ``pulse_pool`` rule's notebook -- on
every pool of the paper profile (or ``--pools``), each method with its seed in the profile's list and its run count
(``reps``, ``reps_by_method``), and appends each finished pool's rows to one CSV (what comes back from the machine is
a few files, and a call cut short keeps the pools it finished). A pool is not started when the time left before
``--deadline`` is less than the longest pool so far took; the pools left are printed, for a second call
(``--pools``). Back here::

    python benchmarks/gpu_pulse_pools.py merge /work/.device/.../pools.csv

writes ``results/paper/pulse/pools/<pool>.csv`` for every pool in the table, replacing the rows of the methods it
holds and keeping the others' (a method run at other counts elsewhere). Then::

    python benchmarks/gpu_pulse_pools.py notebooks

executes each pool's ``pulse_pool`` notebook with the rule's parameters and ``runs_from`` pointing at its table, so
the executed notebook shows the committed table (checked to be this profile's) and says which machine computed it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

POOLS_DIR = Path("results/paper/pulse/pools")


def _config() -> dict:
    """The paper profile's PULSE block plus the seed, validated where jsonschema is installed (not on the device
    machine; the test suite validates the same file)."""
    import yaml

    from paperlib import paths
    from paperlib.pipeline.config import paper_config

    try:
        from paperlib.pipeline.config import load_config

        return paper_config(load_config("paper"), "pulse")
    except ImportError as e:
        print(f"(schema not checked here: {e})", flush=True)
        return paper_config(yaml.safe_load((paths.CONFIG_DIR / "paper.yaml").read_text()), "pulse")


def run(args) -> int:
    import torch

    from paperlib.device import describe, get_device
    from paperlib.papers.pulse import experiments as E

    t_start = time.perf_counter()
    cfg = _config()
    if args.reps:  # a dry run: every method at args.reps runs, not the profile's counts
        cfg = {**cfg, "reps": args.reps, "reps_by_method": {}}
    pools = args.pools.split(",") if args.pools else E.pool_names(cfg)
    methods = args.methods.split(",") if args.methods else None
    dev = get_device(args.device)
    print(f"device {describe(dev)}; torch {torch.__version__}; pools {len(pools)}: {', '.join(pools)}", flush=True)
    print("runs per method: " + ", ".join(f"{m} {E.method_reps(cfg, m)}" for m in cfg["methods"]
                                          if methods is None or m in methods), flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    longest, left = 0.0, []
    for pool in pools:
        used = time.perf_counter() - t_start
        if args.deadline and used + max(longest, args.first_estimate) > args.deadline:
            left.append(pool)
            continue
        t = time.perf_counter()
        runs, inst, _ = E.run_pool(cfg, pool, device=dev, progress=False, methods=methods)
        took = time.perf_counter() - t
        longest = max(longest, took)
        runs.to_csv(out, mode="a", header=not out.exists(), index=False)
        last = runs[runs.bandit_calls == runs.bandit_calls.max()]
        accs = ", ".join(f"{r.method} {r.accuracy:.3f} ({r.reps} runs, {r.wall_s:.1f} s)" for r in last.itertuples())
        print(f"[{time.perf_counter() - t_start:6.0f} s] {pool} ({inst.test.shape[0]} x {inst.test.shape[1]}): "
              f"{took:.1f} s, fit {runs.fit_s.iloc[0]:.1f} s; final accuracy {accs}", flush=True)
    if left:
        print(f"not started (deadline {args.deadline} s): --pools {','.join(left)}", flush=True)
    print(f"total {time.perf_counter() - t_start:.0f} s", flush=True)
    return 0


def merge(args) -> int:
    new = pd.read_csv(args.table)
    for pool, rows in new.groupby("pool", sort=False):
        path = POOLS_DIR / f"{pool}.csv"
        if path.exists():
            old = pd.read_csv(path)
            old = old[~old.method.isin(rows.method.unique())]
            rows = pd.concat([old, rows], ignore_index=True) if len(old) else rows
        rows.to_csv(path, index=False)
        print(f"{path}: " + ", ".join(f"{m} {int(g.reps.iloc[0])} runs on {g.machine.iloc[0]}"
                                     for m, g in rows.groupby("method", sort=False)))
    return 0


def notebooks(args) -> int:
    """Execute the ``pulse_pool`` notebook of every pool (or ``--pools``) with the rule's parameters plus
    ``runs_from`` = the committed table, so the executed notebooks show the tables of ``merge``."""
    import papermill as pm

    from paperlib.papers.pulse import experiments as E

    cfg = _config()
    pools = args.pools.split(",") if args.pools else E.pool_names(cfg)
    Path("logs/paper").mkdir(parents=True, exist_ok=True)  # the notebooks' progress logs (a fresh clone has none)
    for pool in pools:
        table = POOLS_DIR / f"{pool}.csv"
        out = Path("results/paper/notebooks") / f"pulse_pool_{pool}.ipynb"
        t = time.perf_counter()
        pm.execute_notebook("notebooks/pulse_pool.ipynb", str(out), kernel_name="python3", progress_bar=False,
                            parameters={"pulse": cfg, "device": None, "pool": pool, "out_csv": str(table),
                                        "threads": 1, "runs_from": str(table),
                                        "progress_log": f"logs/paper/pulse_pool_{pool}.progress.log"})
        print(f"{out}: {time.perf_counter() - t:.0f} s", flush=True)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run the pools and append their rows to --out")
    r.add_argument("--out", default=os.path.join(os.environ.get("OUT", "gpu-out"), "pools.csv"))
    r.add_argument("--pools", help="comma-separated pool names (default: every pool of the paper profile)")
    r.add_argument("--methods", help="comma-separated methods of the profile (default: all of them)")
    r.add_argument("--device", default=None)
    r.add_argument("--reps", type=int, default=0, help="dry run: every method at this many runs (0: the profile's)")
    r.add_argument("--deadline", type=float, default=0.0, help="seconds after which no pool is started (0: none)")
    r.add_argument("--first-estimate", type=float, default=60.0, help="seconds assumed for a pool before one ran")
    m = sub.add_parser("merge", help="write results/paper/pulse/pools/<pool>.csv from a table of `run`")
    m.add_argument("table")
    nbk = sub.add_parser("notebooks", help="execute the pulse_pool notebooks from the committed tables")
    nbk.add_argument("--pools", help="comma-separated pool names (default: every pool of the paper profile)")
    args = p.parse_args(argv)
    return {"run": run, "merge": merge, "notebooks": notebooks}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
