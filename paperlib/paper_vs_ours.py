"""The papers' numbers beside ours (issue 73, item 4): one row per case whose builder names the number the paper
states for it (:attr:`paperlib.decide.Case.paper`), with our estimate, its 95% interval, whether the paper's number
lies inside it, the deviation, the data kind against the paper's setting and the row's verdict. Generated from the
cases, never written by hand: ``figures/<profile>/paper_vs_ours.csv`` is written beside every merged ledger
(:func:`paperlib.ledger.merge`)."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

COLUMNS = ("claim", "paper", "case", "data", "paper_number", "ours", "lo", "hi", "paper_in_interval", "deviation",
           "same_setting", "verdict")

#: what a case's data kind says of its setting against the paper's
SETTING = {"real": "real data (our matrices; the paper's own where it published them)",
           "semi-synthetic": "no: semi-synthetic, drawn from a model fitted to real data",
           "synthetic": "no: synthetic", "none": "no data: arithmetic on the paper's own numbers"}
#: the setting of a case with data but no estimate: the paper's number has no counterpart here (a matrix of the
#: paper's we have no stand-in for)
NO_STAND_IN = "not measured: no stand-in for the paper's data here"

#: numbers a paper prints only in a table or figure whose values its text (``shared/papers/``) does not carry: they
#: cannot be set beside ours from the text, which the chapter says rather than letting the table look complete
NOT_IN_TEXT = {
    "Saha et al. 2026 (ROBIN)": "Table 2's cells (WCE mean and sd per judge, attribute and budget) are an image in "
                                "the paper's text: only its caption is there, so no cell is set beside ours (our "
                                "Table 2 is `figures/<profile>/robin_table2.csv`); the authors' repository holds "
                                "early runs, not Table 2 (`shared/data/robin_official/PROVENANCE.md`).",
    "Tolochinsky et al. 2026 (PULSE)": "Figure 1's bars (the budget to 95% per pool and method) are an image in the "
                                       "paper's text: only its caption and the 46% saving it summarises are there "
                                       "(the 46% is set beside ours above); the authors' repository commits no "
                                       "result table.",
}


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
                            deviation=k.estimate - k.paper,
                            same_setting=(NO_STAND_IN if math.isnan(k.estimate) and k.data != "none"
                                          else SETTING.get(k.data, k.data)),
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


#: a number a statement states: a share, a factor, a count of calls or money (not a section, figure or equation)
STATED = re.compile(r"(?<![\w.(/])(\d+(?:[.,]\d+)?(?:-\d+(?:\.\d+)?)?)\s*(?:%|x\b|times\b|USD\b|hours?\b|s\b|"
                    r"[kK]\b(?=[- ]?(?:quer|call|exam|judg|prompt)))")


def _fmt(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def summary(claims) -> list[dict]:
    """One row per (ledger row, paper's number) of ``claims`` (:func:`rows` grouped: a row's cases may set different
    quantities beside different numbers): the paper's number, how many cases, our estimates' median and range, in
    how many of the cases with an interval the paper's number lies inside ours, the data kinds and the row's verdict."""
    import statistics

    out, by = [], {}
    for r in rows(claims):
        by.setdefault((r["claim"], r["paper_number"]), []).append(r)
    for (claim, number), rs in by.items():
        est = [r["ours"] for r in rs if not math.isnan(r["ours"])]
        with_ci = [r for r in rs if r["paper_in_interval"]]
        out.append(dict(claim=claim, paper=rs[0]["paper"], paper_number=number, cases=len(rs),
                        median=statistics.median(est) if est else math.nan,
                        low=min(est) if est else math.nan, high=max(est) if est else math.nan,
                        inside=sum(r["paper_in_interval"] == "yes" for r in with_ci), with_interval=len(with_ci),
                        data=sorted({r["data"] for r in rs}), verdict=rs[0]["verdict"]))
    return out


def unmatched(claims, papers) -> list:
    """The rows of ``papers`` whose statement states a number (:data:`STATED`) that none of their cases sets beside
    a measurement (no case carries a paper's number): what the table does not yet cover, said rather than hidden."""
    have = {r["claim"] for r in rows(claims)}
    return [c for c in claims if c.paper in papers and c.claim not in have and STATED.search(c.statement)]


def markdown(claims, papers, href=None, *, compact: bool = False, screen_only: bool = False) -> list[str]:
    """The summary table of the rows of ``papers`` (markdown lines; empty when none has a paper's number), then the
    rows that state a number no case sets beside ours. ``href(claim)``: where a row's id links to. ``compact``: the
    table alone, its row ids as plain links that wrap (the landing page, printed); ``screen_only``: the table in the
    HTML report only (a chapter's: the printed copy has the landing page's)."""
    href = href or (lambda c: None)
    mine = [c for c in claims if c.paper in papers]
    s = summary(mine)
    miss = [] if compact else unmatched(mine, papers)
    images = [] if compact else [NOT_IN_TEXT[p] for p in sorted(papers) if p in NOT_IN_TEXT]
    if not s and not miss and not images:
        return []
    ids = {c.claim: c for c in mine}
    out = []
    if s:
        head = ("| row | the paper's number | ours: median (range) | the paper's number inside our 95% interval | "
                "verdict |", "|---|---|---|---|---|") if compact else (
                "| row | the paper's number | cases | ours: median (range) | the paper's number inside our 95% "
                "interval | data | verdict |", "|---|---|---|---|---|---|---|")
        out += ['<div class="screen-only">', ""] if screen_only else []
        out += list(head)
        for r in s:
            link = href(ids[r["claim"]])
            shown = r["claim"] if compact else f"`{r['claim']}`"
            name = f"[{shown}]({link})" if link else shown
            inside = (f"{r['inside']} of {r['with_interval']} cases" if r["with_interval"]
                      else f"{r['cases']} case{'s' * (r['cases'] != 1)}, no interval")
            spread = f" ({_fmt(r['low'])} to {_fmt(r['high'])})" if r["low"] != r["high"] else ""
            ours = (f"{_fmt(r['median'])}{spread}" if not math.isnan(r["median"])
                    else "not measured (no stand-in)" if r["data"] != ["none"] else f"an exact check: {r['verdict']}")
            if compact:
                out.append(f"| {name} | {_fmt(r['paper_number'])} | {ours} | {inside} | {r['verdict']} |")
            else:
                out.append(f"| {name} | {_fmt(r['paper_number'])} | {r['cases']} | {ours} | {inside} | "
                           f"{', '.join(r['data'])} | {r['verdict']} |")
        out += ["", "</div>"] if screen_only else []
        out.append("")
    measured = [c for c in miss if c.cases]
    unmeasured = [c for c in miss if not c.cases]
    if measured:
        out.append("Rows that state a number no case of theirs sets beside a measured one (their cases measure "
                   "something else: a share of runs, a test against the number; see each row): "
                   + ", ".join(f"`{c.claim}`" for c in measured) + ".")
    if unmeasured:
        out += ([""] if measured else []) + [
            "Rows that state a number nothing here measures (no case: each row's evidence says what is missing, "
            "such as the paper's prices, hardware or model list): " + ", ".join(f"`{c.claim}`" for c in unmeasured)
            + "."]
    if images:
        out += ([""] if out else []) + ["Numbers printed only as images: " + " ".join(images)]
    return out
