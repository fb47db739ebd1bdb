"""Zhou's Figure 3 at the paper's refit schedule on a GPU, staged beside the profile's (issue 40; issue 67, item 4).

The paper profile's one declared reduction is UCB-E-LRF's refit schedule (``refit_growth`` 0.02 on the CPU; the paper
refits after every batch). This script runs Figure 3's UCB-E-LRF and Score Only at the paper's schedule, N runs as
one block (block 0's seeds, the ``zhou_fig3_block`` rule's own :func:`paperlib.papers.zhou.experiments.run_block`),
smallest datasets first. It is not a second way to run the DAG's jobs: the schedule is another configuration, and
``merge`` stages its tables in ``results/paper/zhou/fig3/gpu/``, which Figure 3 does not read until every dataset of
the profile has one (``switch``; a figure at two refit schedules would be worse than one at the declared one).
2026-11-27: the 17 smaller datasets on one H200; the six largest need about 1,000 s more (docs/workflow.md).

Every other GPU job is the DAG's own: ``PAPERLIB_DEVICE=cuda snakemake --profile profiles/paper ...`` runs the same
block jobs as the CPU (the race's ``race_dataset`` / ``race_block``, Theorem 1's ``pulse_coverage_block``, the PULSE
pools' ``pulse_block``; keyed streams make a block the same runs on either). The race's LRF family, which this script
ran on one H200 until 2026-11-28 (its rows carry a ``machine`` column), is rerun that way.

On the device machine (torch only; the checkout on ``PYTHONPATH``; data in ``$PAPERLIB_DATA``)::

    python benchmarks/gpu_declared_jobs.py run --out $OUT --zhou-reps 50 --deadline 520

runs the datasets while the time left before ``--deadline`` exceeds the longest so far, appending each finished
dataset's rows to ``zhou_lrf.csv`` / ``zhou_lrf.settle.csv`` in ``--out`` with the machine in a ``machine`` column.
Back here, ``python benchmarks/gpu_declared_jobs.py merge DIR`` stages them and ``switch`` adopts them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

#: Figure 3's methods with a refit schedule (LRF, Alg. 5, fits once per budget)
ZHOU_REFIT = ("ucbe-lrf", "ucbe-lrf-score-only")
#: where ``merge`` stages Figure 3's LRF pair at the paper's refit schedule until every dataset has it
ZHOU_STAGE = Path("results/paper/zhou/fig3/gpu")


def _config(block: str) -> dict:
    """A block of the paper profile plus the seed, validated where jsonschema is installed (not on the device
    machine; the test suite validates the same file)."""
    import yaml

    from paperlib import paths
    from paperlib.pipeline.config import paper_config

    try:
        from paperlib.pipeline.config import load_config

        return paper_config(load_config("paper"), block)
    except ImportError:
        return paper_config(yaml.safe_load((paths.CONFIG_DIR / "paper.yaml").read_text()), block)


def _paper_schedule(zcfg: dict, reps: int | None = None) -> dict:
    """The zhou block with Figure 3's LRF pair at the paper's refit schedule (``refit_growth`` 0), each with
    ``reps`` runs (default: the profile's) as one block of its own (``rep_block_by_method``): the profile ``run``
    computes the pair by and ``switch`` adopts its tables into. Block 0's seeds do not depend on the block's size."""
    import copy

    out = copy.deepcopy(zcfg)
    out["params"]["lrf_common"]["refit_growth"] = 0.0
    if reps is not None:
        out["reps"].update({m: int(reps) for m in ZHOU_REFIT})
    out["rep_block_by_method"] = {m: int(out["reps"][m]) for m in ZHOU_REFIT}
    return out


def _append(df: pd.DataFrame, path: Path) -> None:
    df.to_csv(path, mode="a", header=not path.exists(), index=False)


def run(args) -> int:
    import torch

    from paperlib import data as datasets
    from paperlib.device import describe, get_device
    from paperlib.papers.zhou import experiments as ZE

    t0 = time.perf_counter()
    dev = get_device(args.device)
    machine = describe(dev)
    print(f"device {machine}; torch {torch.__version__}", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    left = []

    def units(kind: str, names, compute, report) -> None:
        """``compute(name)`` for each name while the time left before the deadline exceeds the longest unit of this
        kind so far (``--first-estimate`` before one ran), then ``report(name, result, seconds)``; a unit that fails
        with a RuntimeError (out of memory on one matrix) is said and skipped."""
        longest = 0.0
        for name in names:
            if args.deadline and time.perf_counter() - t0 + (longest or args.first_estimate) > args.deadline:
                left.append(f"{kind} {name}")
                continue
            t = time.perf_counter()
            try:
                result = compute(name)
            except RuntimeError as e:
                print(f"{kind} {name}: {type(e).__name__}: {str(e)[:300]}", flush=True)
                left.append(f"{kind} {name} (failed)")
                if dev.type == "cuda":
                    torch.cuda.empty_cache()
                continue
            took = time.perf_counter() - t
            longest = max(longest, took)
            report(name, result, took)

    if args.zhou_reps:
        zcfg = _paper_schedule(_config("zhou"), args.zhou_reps)
        names = args.zhou_datasets.split(",") if args.zhou_datasets else zcfg["datasets"]
        size = {d: datasets.load(d).scores.size for d in names}

        def zhou_report(name, result, took) -> None:
            table, settle = result
            _append(table.assign(refit_growth=0.0, machine=machine), out / "zhou_lrf.csv")
            _append(settle.assign(machine=machine), out / "zhou_lrf.settle.csv")
            main = table[table.metric == ZE.MAIN_METRIC]
            last = main[(main.budget_frac - 0.1).abs() == (main.budget_frac - 0.1).abs().min()]
            print(f"[{time.perf_counter() - t0:5.0f} s] zhou {name} {table.n.iloc[0]} x {table.m.iloc[0]}: {took:.1f} s; "
                  + ", ".join(f"{r.method} {r.value:.2f} at {r.budget_frac:.0%} ({r.reps} runs)"
                              for r in last.itertuples()), flush=True)

        units("zhou", sorted(names, key=size.get),
              lambda name: ZE.run_block(zcfg, name, 0, device=dev, progress=False, methods=ZHOU_REFIT), zhou_report)
    if left:
        print(f"not started (deadline {args.deadline} s): {', '.join(left)}", flush=True)
    print(f"total {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


def merge(args) -> int:
    src = Path(args.dir)
    if (src / "zhou_lrf.csv").exists():
        ZHOU_STAGE.mkdir(parents=True, exist_ok=True)
        table, settle = pd.read_csv(src / "zhou_lrf.csv"), pd.read_csv(src / "zhou_lrf.settle.csv")
        for name, rows in table.groupby("dataset", sort=False):
            rows.to_csv(ZHOU_STAGE / f"{name}.csv", index=False)
            settle[settle.dataset == name].to_csv(ZHOU_STAGE / f"{name}.settle.csv", index=False)
            print(f"{ZHOU_STAGE / name}.csv: " + ", ".join(
                f"{m} {int(g.reps.iloc[0])} runs" for m, g in rows.groupby("method", sort=False)))
    return 0


def switch(args) -> int:
    """Figure 3 at the paper's refit schedule: once every dataset of the profile has its staged table (``merge``),
    make the LRF pair's 50 runs one block of the committed block files
    (:func:`paperlib.papers.zhou.experiments.adopt_one_block`), after checking every dataset first."""
    from paperlib.papers.zhou import experiments as ZE

    zcfg = _config("zhou")
    after = _paper_schedule(zcfg)
    missing = [d for d in zcfg["datasets"] if not (ZHOU_STAGE / f"{d}.csv").exists()]
    if missing:
        print(f"not switched: no staged table for {', '.join(missing)} (run them on a GPU: --zhou-reps "
              f"{zcfg['reps'][ZHOU_REFIT[0]]} --zhou-datasets {','.join(missing)})", file=sys.stderr)
        return 1
    blocks_dir = ZHOU_STAGE.parent / "blocks"
    for write in (False, True):
        for d in zcfg["datasets"]:
            table = pd.read_csv(ZHOU_STAGE / f"{d}.csv")
            if set(table.refit_growth) != {0.0}:
                raise SystemExit(f"{ZHOU_STAGE / d}.csv: refit_growth {sorted(set(table.refit_growth))}, not 0")
            blocks = [(blocks_dir / f"{d}.b{b}.csv", blocks_dir / f"{d}.b{b}.settle.csv")
                      for b in range(ZE.n_blocks(after))]
            ZE.adopt_one_block(after, d, table, pd.read_csv(ZHOU_STAGE / f"{d}.settle.csv"), blocks,
                               check_only=not write)
    print(f"switched {len(zcfg['datasets'])} datasets. Now in paperlib/config/paper.yaml set "
          f"zhou.rep_block_by_method: {after['rep_block_by_method']} and zhou.params.lrf_common.refit_growth: 0, "
          "drop Figure 3 from the refit_growth reduction row (the race keeps it), then run snakemake --profile "
          "profiles/paper --rerun-triggers mtime --allowed-rules zhou_fig3_dataset zhou_fig3 claims "
          "-- figures/paper/claims.csv")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run Figure 3's LRF pair at the paper's refit schedule and append its rows to --out")
    r.add_argument("--out", default=os.environ.get("OUT", "gpu-out"))
    r.add_argument("--device", default=None)
    r.add_argument("--zhou-reps", type=int, default=0,
                   help="runs of Figure 3's UCB-E-LRF and Score Only at refit_growth 0 (default 0: skip)")
    r.add_argument("--zhou-datasets", help="comma-separated Figure 3 datasets (default: all, smallest first)")
    r.add_argument("--deadline", type=float, default=0.0, help="seconds after which no unit is started (0: none)")
    r.add_argument("--first-estimate", type=float, default=30.0, help="seconds assumed for a unit before one ran")
    m = sub.add_parser("merge", help="write the results/paper tables from a folder of `run`")
    m.add_argument("dir")
    sub.add_parser("switch", help="Figure 3's LRF pair: the staged tables become its blocks (all datasets staged)")
    args = p.parse_args(argv)
    return {"run": run, "merge": merge, "switch": switch}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
