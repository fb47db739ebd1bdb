"""Numbers in prose from the committed results, never typed by hand (as showyourwork's variables do).

:func:`variables` reads every profile's ledger (``figures/<profile>/claims.csv``) into named values such as
``paper_rows`` or ``paper_pulse_holds``. The README marks each number it quotes as
``<!-- v:paper_rows -->90<!-- /v -->``; :func:`sync` rewrites what sits between the markers, so a rerun cannot
leave a stale number behind. The report's pages use the same values (MyST substitutions). ``python -m
paperlib.pipeline.variables README.md`` rewrites the file; ``--check`` exits 1 naming every stale number.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

from ..decide import Verdict, is_theory
from ..ledger import read, summary_table

PAPER_KEYS = {  # ledger paper label -> the short key used in variable names
    "Zhou et al. 2025": "zhou",
    "Tolochinsky et al. 2026 (PULSE)": "pulse",
    "Saha et al. 2026 (ROBIN)": "robin",
}
MARK = re.compile(r"<!-- v:([a-z0-9_]+) -->(.*?)<!-- /v -->", re.S)


def ledger_values(claims: pd.DataFrame, prefix: str) -> dict[str, str]:
    """Counts of one ledger: rows, rows per verdict, and per paper (the papers' own rows and paperlib's)."""
    v = {f"{prefix}_rows": len(claims)}
    own = claims[claims.paper.isin(PAPER_KEYS)]
    ours = claims[~claims.paper.isin(PAPER_KEYS)]
    v[f"{prefix}_paper_rows"], v[f"{prefix}_paperlib_rows"] = len(own), len(ours)
    for verdict in Verdict:
        name = verdict.value.replace(" ", "_")  # "not reproduced": not_reproduced
        v[f"{prefix}_{name}"] = int((claims.verdict == verdict).sum())
        v[f"{prefix}_paper_{name}"] = int((own.verdict == verdict).sum())
        for label, key in PAPER_KEYS.items():
            v[f"{prefix}_{key}_{name}"] = int(((claims.paper == label) & (claims.verdict == verdict)).sum())
    theory = claims.kind.map(is_theory) if "kind" in claims else pd.Series(False, index=claims.index)
    holds = claims.verdict == Verdict.HOLDS
    for label, key in PAPER_KEYS.items():
        v[f"{prefix}_{key}_rows"] = int((claims.paper == label).sum())
        # a paper's holds split into checks of theory (exact checks, theorems) and empirical statements (issue 73)
        v[f"{prefix}_{key}_holds_theory"] = int(((claims.paper == label) & holds & theory).sum())
        v[f"{prefix}_{key}_holds_empirical"] = int(((claims.paper == label) & holds & ~theory).sum())
    v[f"{prefix}_table"] = "\n" + summary_table(list(claims[["paper", "verdict"]].itertuples()))
    return {k: str(x) for k, x in v.items()}


def cost_values(benchmarks: Path, prefix: str) -> dict[str, str]:
    """What the profile's measured jobs cost (:mod:`paperlib.pipeline.costs`): jobs, CPU hours, peak memory and the
    lower bound of their wall time on 2 and 16 cores."""
    from .costs import (
        read_benchmarks,
        read_dag_jobs,
        read_estimates,
        rerun_cost,
        rerun_wall_bounds,
        wall_time_bounds,
    )

    jobs = read_benchmarks(benchmarks)
    if jobs.empty:
        return {}
    v = {f"{prefix}_jobs_measured": str(len(jobs)), f"{prefix}_cpu_hours": f"{jobs.cpu_s.sum() / 3600:.1f}",
         f"{prefix}_peak_gb": f"{jobs.max_rss_mb.max() / 1024:.1f}"}
    for c in (2, 16):
        lo, hi = wall_time_bounds(jobs, c)
        v[f"{prefix}_wall_h_{c}_cores"] = f"{lo:.1f} to {hi:.1f}"
    dag = read_dag_jobs(benchmarks)
    if dag:  # make reproduce from nothing (costs.rerun_cost): every job of the DAG
        cost = rerun_cost(jobs, dag, read_estimates(benchmarks))
        v[f"{prefix}_dag_jobs"] = str(int(cost.jobs.sum()))
        v[f"{prefix}_rerun_cpu_hours"] = ("at least " if cost.cpu_h.isna().any() else "") + f"{cost.cpu_h.sum():.1f}"
        lo, hi = rerun_wall_bounds(cost, 2)
        v[f"{prefix}_rerun_wall_h_2_cores"] = f"{lo:.1f} to {hi:.1f}"
    return v


def fit_values(claims, prefix: str) -> dict[str, str]:
    """The rows graded under more than one fit of a fitted input (PULSE's Step 1 V) and those whose verdict moves
    with it: the verdict of the published fit's cases alone (:func:`paperlib.ledger.expected_verdict` on them)
    against the row's, decided from the committed cases, so the README cannot say that no verdict moves when one
    does. ``claims``: :func:`paperlib.ledger.read`'s rows."""
    from types import SimpleNamespace

    from ..ledger import expected_verdict

    def published(c):  # the row as it stands, with the published fit's cases only (a Claim would refuse the verdict)
        return SimpleNamespace(kind=c.kind, setting=c.setting, paper=c.paper, evidence=c.evidence,
                               cases=[k for k in c.cases if k.fit == 0])

    fitted = [c for c in claims if len({k.fit for k in c.cases}) > 1]
    moved = [c.claim for c in fitted if expected_verdict(published(c)) != c.verdict]
    return {f"{prefix}_fit_rows": str(len(fitted)), f"{prefix}_fit_moved": str(len(moved)),
            f"{prefix}_fit_moved_rows": ", ".join(f"`{m}`" for m in moved) or "none"}


def variables(figures: Path = Path("figures"), results: Path = Path("results")) -> dict[str, str]:
    """Every named value, for each profile folder under ``figures`` that has a ledger (and, under ``results``, the
    profile's benchmark files)."""
    out: dict[str, str] = {}
    for csv in sorted(Path(figures).glob("*/claims.csv")):
        profile = csv.parent.name
        if re.fullmatch(r"[a-z]+", profile):
            out.update(ledger_values(pd.read_csv(csv), profile))
            out.update(fit_values(read(csv), profile))
            out.update(cost_values(Path(results) / profile / "benchmarks", profile))
    return out


def sync(text: str, values: dict[str, str]) -> tuple[str, list[str]]:
    """``text`` with every marked number replaced by its value; also the names whose value changed.

    Raises ``KeyError`` naming a marker whose variable does not exist."""
    changed: list[str] = []

    def repl(m):
        name, old = m.group(1), m.group(2)
        if name not in values:
            raise KeyError(f"unknown variable {name!r} (known: {', '.join(sorted(values)[:8])}, ...)")
        if old != values[name]:
            changed.append(f"{name}: {old} -> {values[name]}")
        return f"<!-- v:{name} -->{values[name]}<!-- /v -->"

    return MARK.sub(repl, text), changed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.pipeline.variables", description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path, help="Markdown files with <!-- v:name --> markers")
    ap.add_argument("--figures", type=Path, default=Path("figures"))
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a number is stale")
    ap.add_argument("--results", type=Path, default=Path("results"))
    args = ap.parse_args(argv)
    values, stale = variables(args.figures, args.results), []
    for f in args.files:
        new, changed = sync(f.read_text(), values)
        stale += [f"{f}: {c}" for c in changed]
        if changed and not args.check:
            f.write_text(new)
    for s in stale:
        print(("stale " if args.check else "updated ") + s)
    return 1 if (stale and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
