"""``make check-reproduction``: compare a fresh run's tables with the committed expected results, by tolerance.

As the Bloom lab's dms-vep pipelines check their test example: every CSV of the expected folder must exist in the
fresh one with the same columns and rows; numbers agree within ``atol + rtol * |expected|`` (NaN matches NaN),
everything else exactly. Run as ``python -m paperlib.pipeline.reproduction EXPECTED_DIR FRESH_DIR``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

SKIP_COLUMNS = ("wall_s", "seconds", "time_s", "runtime_s")
"""Columns that measure the machine, not the result."""


def compare_csv(expected: Path, fresh: Path, rtol: float = 1e-6, atol: float = 1e-9) -> list[str]:
    """Differences between two CSV tables, one line each (empty when they agree)."""
    a, b = pd.read_csv(expected), pd.read_csv(fresh)
    name = expected.name
    if list(a.columns) != list(b.columns):
        return [f"{name}: columns differ: {list(a.columns)} vs {list(b.columns)}"]
    if len(a) != len(b):
        return [f"{name}: {len(a)} rows expected, {len(b)} fresh"]
    out = []
    for col in a.columns:
        if col in SKIP_COLUMNS:
            continue
        x, y = a[col], b[col]
        if pd.api.types.is_numeric_dtype(x) and pd.api.types.is_numeric_dtype(y):
            xv, yv = x.to_numpy(float), y.to_numpy(float)
            bad = ~(np.isclose(yv, xv, rtol=rtol, atol=atol) | (np.isnan(xv) & np.isnan(yv)))
        else:
            bad = ~((x.astype(str) == y.astype(str)) | (x.isna() & y.isna())).to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            out.append(f"{name}: column {col!r}: {int(bad.sum())} of {len(x)} values differ "
                       f"(first at row {i}: expected {x.iloc[i]!r}, fresh {y.iloc[i]!r})")
    return out


def compare_dirs(expected: Path, fresh: Path, rtol: float = 1e-6, atol: float = 1e-9) -> tuple[int, list[str]]:
    """(number of tables compared, differences) for every ``*.csv`` of ``expected``."""
    problems, n = [], 0
    for e in sorted(Path(expected).glob("*.csv")):
        f = Path(fresh) / e.name
        n += 1
        if not f.exists():
            problems.append(f"{e.name}: missing from {fresh}")
            continue
        problems += compare_csv(e, f, rtol, atol)
    if n == 0:
        raise FileNotFoundError(f"no CSV tables in {expected}")
    return n, problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.pipeline.reproduction", description=__doc__.splitlines()[0])
    ap.add_argument("expected", type=Path)
    ap.add_argument("fresh", type=Path)
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-9)
    args = ap.parse_args(argv)
    n, problems = compare_dirs(args.expected, args.fresh, args.rtol, args.atol)
    for p in problems:
        print(p)
    print(f"{n} tables compared, {len(problems)} difference(s) (rtol {args.rtol:g}, atol {args.atol:g})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
