"""What a rerun costs, from Snakemake's benchmark files of the jobs that ran (``results/<profile>/benchmarks/``).

Every rule has a ``benchmark:`` directive (``workflow/rules/*.smk``): Snakemake writes one TSV per job with its wall
seconds ``s``, CPU seconds ``cpu_time`` and peak resident memory ``max_rss`` (MB). This module reads them back, one row
per job, and sums them per rule: jobs measured, CPU hours, the longest job and the peak memory. The methods page
shows that table and the wall time the measured jobs would take on c cores, as the two bounds of list scheduling
(Graham 1969): at least max(CPU / c, the longest job), at most CPU / c + the critical path, which is at most the sum
over rules of each rule's longest job (a chain of the DAG runs each rule at most once). Only what has a benchmark file
is counted: jobs that ran before the directive existed, or that a session did not rerun, are not (the table says how
many jobs of each rule were measured).

What ``make reproduce`` costs from nothing (:func:`rerun_cost`, issue 74, item 4) adds the jobs that have no benchmark
file: the DAG's job count per rule is committed beside the benchmark files (``dag_jobs.csv``, written by
``python -m paperlib.pipeline.costs dag PROFILE`` from Snakemake's dry run of every target), a rule's unmeasured jobs
are charged its measured jobs' mean, and a rule with no measured job at all is charged what ``estimates.yaml`` (beside
the benchmark files) says was measured without a benchmark file, named as such; a rule with neither is left out of
the total and named, so that the total is then a lower bound and says so.
"""

from __future__ import annotations

import re
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
            "and no session has rerun them since), so the measured totals leave them out (the from-nothing total "
            "charges their estimates where one is recorded): "
            + ", ".join(f"`{r}`" for r in missing) + ".", ""]


def cost_markdown(folder, rules=(), cores=(2, 16, 64), shown: str | None = None, every_rule=None) -> list[str]:
    """The methods page's section: the per-rule table, the wall-time bounds at each number of cores, and (given
    ``every_rule``, :func:`workflow_rules`) the rules with no benchmark file. ``shown``: how the text names the folder
    (a path in the repository, never this machine's)."""
    jobs = read_benchmarks(folder, rules)
    folder_path = Path(folder)
    folder = shown or Path(folder).name
    lines = ["## What a rerun costs", ""]
    dag = read_dag_jobs(folder)
    if every_rule and dag:  # a rule this profile's DAG never runs (robin_cell_block without robin.rep_block) is no gap
        every_rule = [r for r in every_rule if r in dag]
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
    return lines + [""] + rerun_markdown(folder_path, cores) + tail


#: beside the benchmark files: the DAG's jobs per rule, and what was measured without a benchmark file
DAG_JOBS = "dag_jobs.csv"
ESTIMATES = "estimates.yaml"


def parse_job_stats(dry_run: str) -> dict[str, int]:
    """Snakemake's ``Job stats`` table of a dry run (``job  count`` rows up to ``total``) as {rule: jobs}, without
    :data:`BOOKKEEPING`; an empty dict when the output has no such table."""
    head = dry_run.find("Job stats:")
    if head < 0:
        return {}
    out: dict[str, int] = {}
    for line in dry_run[head:].splitlines()[3:]:
        m = re.fullmatch(r"\s*(\w+)\s+(\d+)\s*", line)
        if not m or m.group(1) == "total":
            break
        if m.group(1) not in BOOKKEEPING:
            out[m.group(1)] = int(m.group(2))
    return out


def dag_jobs(root, profile: str) -> dict[str, int]:
    """Every job the profile's DAG runs from nothing (Snakemake's dry run of its default target with ``--forceall``),
    per rule. Needs the profile's data: a DAG without some dataset targets ``<profile>-partial`` and is refused."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "snakemake", "--profile", f"profiles/{profile}", "-n", "--forceall", "--nolock", "--cores", "1"],
                       cwd=root, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"snakemake's dry run failed (rc {r.returncode}): {(r.stdout + r.stderr)[-2000:]}")
    if f"results/{profile}-partial/" in r.stdout:
        raise RuntimeError(f"the {profile} DAG lacks data here (its targets are results/{profile}-partial/): set "
                           "$PAPERLIB_DATA to the shared data first")
    counts = parse_job_stats(r.stdout)
    if not counts:
        raise RuntimeError("snakemake's dry run printed no job stats")
    return counts


def read_dag_jobs(folder) -> dict[str, int]:
    path = Path(folder) / DAG_JOBS
    if not path.is_file():
        return {}
    t = pd.read_csv(path)
    return dict(zip(t.rule, t.jobs.astype(int), strict=True))


def read_estimates(folder) -> dict[str, dict]:
    """``estimates.yaml``: {rule: {cpu_h, longest_min, source}} for rules whose jobs were timed without a benchmark
    file (the whole rule's CPU hours in the profile, its longest job, and where the number comes from), or {rule:
    {unmeasured_cpu_h_each, longest_min, source}} for a rule some of whose jobs are measured but whose unmeasured ones
    are known to cost far more than the measured mean (each unmeasured job's CPU hours, the longest of them)."""
    import yaml

    path = Path(folder) / ESTIMATES
    if not path.is_file():
        return {}
    est = yaml.safe_load(path.read_text()) or {}
    for rule, e in est.items():
        if not ({"cpu_h", "longest_min", "source"} <= set(e) or {"unmeasured_cpu_h_each", "longest_min", "source"}
                <= set(e)):
            raise ValueError(f"{path}: {rule} needs cpu_h (or unmeasured_cpu_h_each), longest_min and source")
    return est


# how rerun_cost had a rule's hours: every job measured; the unmeasured at the measured mean; the unmeasured at an
# estimate of each (estimates.yaml's unmeasured_cpu_h_each); none measured, the rule's estimate; no number
SOURCES = ("measured", "part-mean", "part-estimate", "estimate", "none")


def rerun_cost(jobs: pd.DataFrame, dag: dict[str, int], estimates: dict[str, dict] | None = None) -> pd.DataFrame:
    """Per rule of the DAG: its jobs, how many were measured, the CPU hours of all of them (measured; the unmeasured
    ones at the measured jobs' mean; a rule with none measured at its estimate; NaN with neither), its longest job in
    minutes, how the hours were had (``source``: one of :data:`SOURCES`) and that in words (``basis``). One job a
    core: a job's CPU time is its wall time's stand-in for the jobs not measured."""
    estimates = estimates or {}
    rows = []
    for rule, n in dag.items():
        mine = jobs[jobs.rule == rule] if not jobs.empty else jobs
        k = len(mine)
        each = estimates.get(rule, {}).get("unmeasured_cpu_h_each")
        if k and n > k and each is not None:  # the unmeasured jobs cost far more than the measured ones
            e, extra = estimates[rule], (n - k) * float(each) * 3600
            rows.append((rule, n, k, (mine.cpu_s.sum() + extra) / 3600, (mine.wall_s.sum() + extra) / 3600,
                         max(mine.wall_s.max() / 60, float(e["longest_min"])),
                         "part-estimate", f"{k} measured, {n - k} at an estimate of {float(each):.2f} CPU h each: "
                         f"{e['source']}"))
        elif k:
            work = mine.wall_s.sum() + (n - k) * mine.wall_s.mean() if n > k else mine.wall_s.sum()
            cpu = mine.cpu_s.sum() + max(n - k, 0) * mine.cpu_s.mean()
            how, basis = ("measured", "measured") if k >= n else ("part-mean", f"{k} measured, {n - k} at their mean")
            rows.append((rule, n, k, cpu / 3600, work / 3600, mine.wall_s.max() / 60, how, basis))
        elif rule in estimates and "cpu_h" in estimates[rule]:
            e = estimates[rule]
            rows.append((rule, n, 0, float(e["cpu_h"]), float(e["cpu_h"]), float(e["longest_min"]),
                         "estimate", f"estimate: {e['source']}"))
        else:
            rows.append((rule, n, 0, float("nan"), float("nan"), float("nan"), "none", "not measured, no estimate"))
    return pd.DataFrame(rows, columns=["rule", "jobs", "measured", "cpu_h", "wall_h", "longest_min", "source", "basis"])


def rerun_wall_bounds(cost: pd.DataFrame, cores: int) -> tuple[float, float]:
    """(lower, upper) hours of the whole DAG on ``cores`` cores, one core a job, by Graham's bounds as
    :func:`wall_time_bounds` (the critical path bounded by the sum of each rule's longest job); rules with no number
    left out (the bounds are then of the rest)."""
    c = cost.dropna(subset=["wall_h"])
    if c.empty:
        return 0.0, 0.0
    work, longest, chain = c.wall_h.sum(), c.longest_min.max() / 60, c.longest_min.sum() / 60
    return max(work / cores, longest), work / cores + chain


def rerun_markdown(folder, cores=(2, 16, 64)) -> list[str]:
    """The methods page's "from nothing" part: :func:`rerun_cost` as a table with its totals and wall-time bounds."""
    folder = Path(folder)
    dag = read_dag_jobs(folder)
    if not dag:
        return []
    cost = rerun_cost(read_benchmarks(folder), dag, read_estimates(folder))
    known = cost.dropna(subset=["cpu_h"])
    unknown = cost[cost.cpu_h.isna()]
    est = cost[cost.source == "estimate"]
    partly = cost[cost.source == "part-estimate"]
    lines = ["### `make reproduce` from nothing", "",
             f"The DAG of this profile runs {cost.jobs.sum()} jobs ({DAG_JOBS}, from Snakemake's dry run); "
             f"{cost.measured.sum()} have a benchmark file. Charging each rule's unmeasured jobs its measured jobs' "
             f"mean (where `{ESTIMATES}` says they cost far more, its estimate: "
             + (", ".join(f"`{r}`" for r in partly.rule) or "none")
             + f"), and the {len(est)} rule{'s' * (len(est) != 1)} with none measured what `{ESTIMATES}` records "
             "of their jobs timed without one (an estimate, marked so), a rerun from nothing costs "
             + ("at least " if len(unknown) else "")
             + f"**{known.cpu_h.sum():.1f} CPU hours**"
             + (f" ({', '.join(f'`{r}`' for r in unknown.rule)}: no number yet, left out)" if len(unknown) else "")
             + ":", "",
             "| rule | jobs | measured | CPU hours | longest job (min) | basis |", "|---|---|---|---|---|---|"]
    lines += [f"| `{r.rule}` | {r.jobs} | {r.measured} | " + ("–" if r.cpu_h != r.cpu_h else f"{r.cpu_h:.2f}")
              + " | " + ("–" if r.longest_min != r.longest_min else f"{r.longest_min:.1f}") + f" | {r.basis} |"
              for r in cost.itertuples()]
    lines += ["", "Its wall time, one core a job (Graham's bounds as above):", ""]
    for c in cores:
        lo, hi = rerun_wall_bounds(cost, c)
        lines.append(f"- {c} cores{' (a SLURM cluster of ' + str(c // 16) + ' nodes of 16)' if c > 16 else ''}: "
                     f"{lo:.1f} to {hi:.1f} hours")
    chain = known.longest_min.sum() / 60
    lines += [f"- any number of nodes: at least {known.longest_min.max() / 60:.1f} hours (the longest job), at most "
              f"{chain:.1f} (the longest job of every rule, one after another: the critical path's bound)", ""]
    return lines


def main(argv=None) -> int:
    """``python -m paperlib.pipeline.costs dag PROFILE``: write the profile's ``dag_jobs.csv``."""
    import argparse

    from .. import paths

    ap = argparse.ArgumentParser(prog="python -m paperlib.pipeline.costs", description=main.__doc__)
    ap.add_argument("what", choices=["dag"])
    ap.add_argument("profile")
    args = ap.parse_args(argv)
    counts = dag_jobs(paths.ROOT, args.profile)
    order = {r: i for i, r in enumerate(workflow_rules(paths.ROOT))}
    counts = dict(sorted(counts.items(), key=lambda kv: order.get(kv[0], len(order))))
    out = paths.ROOT / "results" / args.profile / "benchmarks" / DAG_JOBS
    pd.DataFrame({"rule": list(counts), "jobs": list(counts.values())}).to_csv(out, index=False)
    print(f"{out.relative_to(paths.ROOT)}: {sum(counts.values())} jobs of {len(counts)} rules")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
