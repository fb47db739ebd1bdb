"""The papers' numbers beside ours (issue 73, item 4): one row per case whose builder names the number the paper
states for it (:attr:`paperlib.decide.Case.paper`), with our estimate, its 95% interval, whether the paper's number
lies inside it, the deviation, the data kind against the paper's setting and the row's verdict. Generated from the
cases, never written by hand: ``figures/<profile>/paper_vs_ours.csv`` is written beside every merged ledger
(:func:`paperlib.ledger.merge`)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

COLUMNS = ("claim", "paper", "case", "data", "paper_number", "ours", "lo", "hi", "paper_in_interval", "deviation",
           "same_setting", "verdict")

#: what a case's data kind says of its setting against the paper's
SETTING = {"real": "real data (our matrices; the paper's own where it published them)",
           "semi-synthetic": "no: semi-synthetic, drawn from a model fitted to real data",
           "synthetic": "no: synthetic", "none": "no data: arithmetic on the paper's own numbers"}


def rows(claims) -> list[dict]:
    """The rows of :data:`COLUMNS` for every case of ``claims`` with a paper's number, in ledger order;
    ``paper_in_interval`` empty where the case has no interval."""
    out = []
    for c in claims:
        for k in c.cases:
            if k.paper is None:
                continue
            has = not (math.isnan(k.lo) or math.isnan(k.hi))
            out.append(dict(claim=c.claim, paper=c.paper, case=k.name, data=k.data, paper_number=k.paper,
                            ours=k.estimate, lo=k.lo, hi=k.hi,
                            paper_in_interval=("yes" if k.lo <= k.paper <= k.hi else "no") if has else "",
                            deviation=k.estimate - k.paper, same_setting=SETTING.get(k.data, k.data),
                            verdict=c.verdict))
    return out


def write(claims, path: str | Path) -> Path:
    """:func:`rows` of ``claims`` to ``path`` as CSV (numbers at full precision)."""
    path = Path(path)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows(claims):
            w.writerow({k: repr(float(v)) if isinstance(v, float) else v for k, v in r.items()})
    return path
