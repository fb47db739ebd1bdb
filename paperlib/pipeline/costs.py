"""What a rerun costs, from Snakemake's benchmark files of the jobs that ran (``results/<profile>/benchmarks/``).

Every rule has a ``benchmark:`` directive (``workflow/rules/*.smk``): Snakemake writes one TSV per job with its wall
seconds ``s``, CPU seconds ``cpu_time`` and peak resident memory ``max_rss`` (MB). This module reads them back, one row
per job, and sums them per rule: jobs measured, CPU hours, the longest job and the peak memory. The methods page
shows that table and the wall time the measured jobs would take on c cores, as the two bounds of list scheduling
(Graham 1969): at least max(CPU / c, the longest job), at most CPU / c + the critical path, which is at most the sum
over rules of each rule's longest job (a chain of the DAG runs each rule at most once). Only what has a benchmark file
is counted: jobs that ran before the directive existed, or that a session did not rerun, are not (the table says how
many jobs of each rule were measured).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

COLUMNS = ["rule", "job", "wall_s", "cpu_s", "max_rss_mb"]


def read_benchmarks(folder, rules=()) -> pd.DataFrame:
    """One row per benchmark file under ``folder``: ``<rule>/<job>.tsv`` (the rule is the sub-folder), or a flat
    ``<job>.tsv`` whose name starts with one of ``rules`` (the longest that matches; the files of a run made before
    the rule folders)."""
    folder = Path(folder)
    rows = []
    by_length = sorted(rules, key=len, reverse=True)
    for path in sorted(folder.rglob("*.tsv")) if folder.is_dir() else []:
        if path.parent != folder:
            rule = path.parent.name
        else:
            rule = next((r for r in by_length if path.stem == r or path.stem.startswith(r + "_")), None)
            if rule is None:
                continue
        t = pd.read_csv(path, sep="\t")
        if t.empty:
            continue
        last = t.iloc[-1]  # Snakemake appends a row per repeat of a benchmark; the last is the latest
        rows.append({"rule": rule, "job": path.stem, "wall_s": float(last["s"]), "cpu_s": float(last["cpu_time"]),
                     "max_rss_mb": float(last["max_rss"])})
    return pd.DataFrame(rows, columns=COLUMNS)


def cost_table(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per rule: jobs measured, CPU hours, the longest job's wall minutes and the peak memory (GB)."""
    if jobs.empty:
        return pd.DataFrame(columns=["rule", "jobs", "cpu_h", "longest_min", "peak_gb"])
    g = jobs.groupby("rule", sort=True)
    return pd.DataFrame({"jobs": g.size(), "cpu_h": g.cpu_s.sum() / 3600, "longest_min": g.wall_s.max() / 60,
                         "peak_gb": g.max_rss_mb.max() / 1024}).reset_index()


def wall_time_bounds(jobs: pd.DataFrame, cores: int) -> tuple[float, float]:
    """(lower, upper) hours the measured jobs take on ``cores`` cores, one core a job (list scheduling: Graham's
    bounds with the critical path bounded by the sum of each rule's longest job)."""
    if jobs.empty:
        return 0.0, 0.0
    work = jobs.wall_s.sum()  # a job holds its core for its wall time
    longest = jobs.wall_s.max()
    chain = jobs.groupby("rule").wall_s.max().sum()
    return max(work / cores, longest) / 3600, (work / cores + chain) / 3600


#: rules that run no computation of their own: the merge of the ledger, the report, the default target
BOOKKEEPING = ("all", "claims", "report")


def workflow_rules(root) -> list[str]:
    """Every rule of the DAG (``rule NAME:`` in the Snakefile and ``workflow/rules/*.smk``), in file order, without
    :data:`BOOKKEEPING`."""
    import re

    root = Path(root)
    files = [root / "Snakefile", *sorted((root / "workflow" / "rules").glob("*.smk"))]
    names = [m for f in files if f.is_file() for m in re.findall(r"^rule (\w+):", f.read_text(), re.M)]
    return [n for n in dict.fromkeys(names) if n not in BOOKKEEPING]


def unmeasured_markdown(jobs: pd.DataFrame, every_rule) -> list[str]:
    """The rules of the DAG with no benchmark file in this profile, named (issue 74, item 4: a table of the measured
    rules alone reads as the whole cost)."""
    missing = [r for r in every_rule if jobs.empty or r not in set(jobs.rule)]
    if not missing:
        return [f"Every one of the DAG's {len(list(every_rule))} computing rules has a benchmark file here.", ""]
    return [f"**Not measured:** {len(missing)} of the DAG's {len(list(every_rule))} computing rules have no benchmark "
            "file in this profile (their jobs ran before the rules had a `benchmark:` directive, or outside the DAG, "
            "and no session has rerun them since), so the totals above leave them out: "
            + ", ".join(f"`{r}`" for r in missing) + ".", ""]


def cost_markdown(folder, rules=(), cores=(2, 16, 64), shown: str | None = None, every_rule=None) -> list[str]:
    """The methods page's section: the per-rule table, the wall-time bounds at each number of cores, and (given
    ``every_rule``, :func:`workflow_rules`) the rules with no benchmark file. ``shown``: how the text names the folder
    (a path in the repository, never this machine's)."""
    jobs = read_benchmarks(folder, rules)
    folder = shown or Path(folder).name
    lines = ["## What a rerun costs", ""]
    tail = unmeasured_markdown(jobs, every_rule) if every_rule else []  # none: no workflow here (an installed wheel)
    if jobs.empty:
        return lines + [f"No job of this profile has a benchmark file yet ({folder}): the rules record one from their "
                        "next run.", ""] + tail
    t = cost_table(jobs)
    lines += [f"Measured by Snakemake's `benchmark:` files of the {len(jobs)} jobs of this profile that ran since every "
              f"rule has one (`{folder}`; a job not rerun since is not counted): "
              f"{jobs.cpu_s.sum() / 3600:.2f} CPU hours in all, peak memory {jobs.max_rss_mb.max() / 1024:.1f} GB.", "",
              "| rule | jobs measured | CPU hours | longest job (min) | peak memory (GB) |", "|---|---|---|---|---|"]
    lines += [f"| `{r.rule}` | {r.jobs} | {r.cpu_h:.2f} | {r.longest_min:.1f} | {r.peak_gb:.1f} |"
              for r in t.itertuples()]
    lines += ["", "Wall time of these jobs, one core a job (at least the work over the cores or the longest job; at "
              "most that plus the longest job of every rule, a bound on the DAG's critical path):", ""]
    for c in cores:
        lo, hi = wall_time_bounds(jobs, c)
        lines.append(f"- {c} cores{' (e.g. a SLURM cluster of ' + str(c // 16) + ' nodes of 16)' if c > 16 else ''}: "
                     f"{lo:.1f} to {hi:.1f} hours")
    return lines + [""] + tail
