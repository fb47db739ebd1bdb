"""Compare two runs of the smoke DAG (tests/slurm/run.sh): every CSV table under results/ and figures/ equal, the
ledger (claims.csv) equal row by row. What measures time is left out, the only thing that may differ between a local
run and a cluster run: columns such as wall_s, fit_s, s_per_run, and the ledger rows about run time (their claim ids
say "time": zhou-ablation-batch-time, pulse-run-time-...), whose measurement and so whose verdict depend on the
machine and its load (zhou-ablation-batch-time's smoke-size ratio of 7-12x crosses its rule's threshold under load);
such a row must still be there, with the same statement; the same holds for their cases (figures/<p>/cases.csv,
results/<p>/cases/, paper_vs_ours.csv: the case names must agree, the numbers may not).

    python tests/slurm/compare.py LOCAL_COPY CLUSTER_COPY
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

TIMING = re.compile(r"(^|_)(wall|seconds|secs|time|elapsed|runtime)(_|$)|_s$|^s$|^s_per_", re.I)
TIMING_CLAIM = re.compile(r"(?:^|-)time(?:-|$)")


def tables(root: Path) -> dict[str, Path]:
    """Every table of a run, plain or gzip-compressed (the ROBIN cells, certified search's per-run table)."""
    return {str(p.relative_to(root)): p for base in ("results", "figures") for p in sorted((root / base).rglob("*"))
            if p.name.endswith((".csv", ".csv.gz"))}


def main(argv) -> int:
    a, b = Path(argv[0]), Path(argv[1])
    ta, tb = tables(a), tables(b)
    if set(ta) != set(tb):
        print(f"different tables: only local {sorted(set(ta) - set(tb))[:5]}, only cluster {sorted(set(tb) - set(ta))[:5]}")
        return 1
    if not any(k.endswith("claims.csv") for k in ta):
        print("no ledger (claims.csv) in the local run")
        return 1
    bad = []
    for key in ta:
        x, y = pd.read_csv(ta[key]), pd.read_csv(tb[key])
        keep = [c for c in x.columns if not TIMING.search(str(c))]
        if "claim" in x.columns and len(x) == len(y):
            # a row about run time (the ledger's, and its cases in cases.csv, results/<p>/cases/ and paper_vs_ours.csv):
            # its claim id and its case names must agree, its numbers and verdict may not
            timed = x["claim"].astype(str).str.contains(TIMING_CLAIM)
            if not (x.loc[timed, "claim"].reset_index(drop=True)).equals(y.loc[timed, "claim"].reset_index(drop=True)):
                bad.append(key)
                continue
            for col in x.columns:
                if col not in ("claim", "statement", "name", "case", "paper", "data", "kind"):
                    x[col] = x[col].astype(object)
                    y[col] = y[col].astype(object)
                    x.loc[timed, col] = y.loc[timed, col] = ""
        if list(x.columns) != list(y.columns) or not x[keep].equals(y[keep]):
            bad.append(key)
    if bad:
        print(f"{len(bad)} of {len(ta)} tables differ: {bad[:10]}")
        return 1
    print(f"{len(ta)} tables equal (the ledger included), timing columns aside")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
