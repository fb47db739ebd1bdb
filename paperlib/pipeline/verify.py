"""Every committed per-run table is what today's code makes (issue 74, item 3): ``paperlib verify``.

For each committed table of runs (a PULSE pool's blocks, a race matrix's blocks, a ROBIN cell, certified search's
runs with a prior), the first run of every method is rerun alone with today's code -- the table's keyed streams make
run 0 of a batch exactly run 0 run alone (``simulate``'s and ``run_judge``'s ``first_run``) -- and compared with the committed rows: picks and
correctness exactly, estimates (ROBIN's WCE and MAE) to 1e-12 relative (a CSV's text round trip), the run seed
exactly. One line per table says what it was made by (the commit that last wrote it, from git; its ``machine`` and
``streams`` columns where it has them) and whether today's code reproduces it, so a table that today's code no
longer makes is seen the day the code changes.

Zhou's Figure 3 blocks hold means over a block's runs, not runs, but each block's settle table holds every run's
settling budget: run 0 of each method is rerun alone and its settling budget compared exactly (a coarse statistic:
one point of the budget grid). What is not compared, and why, is printed too: Zhou's Figure 4 blocks hold means
only; a table without keyed streams (made before them) has no run that can be rerun alone. Exit status: 0 when
every compared table is reproduced, 1 when one differs, 3 when some table could not be compared (and none differs).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths
from ..threads import add_threads_argument, off_table, pin_threads

if TYPE_CHECKING:
    import pandas as pd

#: exit statuses of :func:`main`
SAME, DIFFERENT, NOT_COMPARED = 0, 1, 3
#: what :func:`verify` can check, in the order it checks them
FAMILIES = ("race", "robin", "pulse", "search", "zhou")


@dataclass
class Check:
    """The verdict on one committed table: ``differ`` lists what today's code makes otherwise (empty: the same),
    ``skipped`` why it was not compared (None: compared)."""

    table: str
    made_by: str
    methods: int = 0
    differ: list[str] = field(default_factory=list)
    skipped: str | None = None

    @property
    def status(self) -> int:
        return NOT_COMPARED if self.skipped else (DIFFERENT if self.differ else SAME)

    def line(self) -> str:
        if self.skipped:
            return f"NOT COMPARED {self.table} ({self.made_by}): {self.skipped}"
        if self.differ:
            return f"DIFFERENT    {self.table} ({self.made_by}): " + "; ".join(self.differ)
        return f"same         {self.table} ({self.made_by}): run 0 of its {self.methods} methods reproduced exactly"


def made_by(path: Path, table: pd.DataFrame | None = None, root: Path = paths.ROOT) -> str:
    """"commit abc1234 of 2026-12-03, machine M, streams S": the commit that last wrote ``path`` (git), and the
    table's own ``machine`` and ``streams`` columns (or that it does not record them)."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%h of %cs", "--", str(Path(path).resolve())], cwd=root,
                             capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    bits = [f"commit {out}" if out else "not committed here"]
    # Here, not at the top: the CLI imports this module and its --version/--help must not import torch.
    from ..device import made_by_words

    return ", ".join(bits + made_by_words(table, missing=True))


def _shown(path: Path) -> str:
    """A table's path as the line names it: relative to the checkout where it lies in it."""
    try:
        return str(Path(path).resolve().relative_to(paths.ROOT))
    except ValueError:
        return str(path)


def _keyed(table: pd.DataFrame) -> bool:
    return "streams" in table and table.streams.fillna("").astype(str).str.len().gt(0).all()


def _first_block(block: Path, table: Path, no_blocks: str):
    """(the check of one matrix or pool, its committed block b0): without the block, a check of its summary ``table``
    not compared (``no_blocks`` says why; None where neither is here); a block without keyed streams, not compared."""
    import pandas as pd

    if not block.is_file():
        return (Check(_shown(table), made_by(table), skipped=no_blocks) if table.is_file() else None), None
    committed = pd.read_csv(block)
    c = Check(_shown(block), made_by(block, committed))
    if not _keyed(committed):
        c.skipped = "no keyed streams: its runs cannot be rerun alone"
    return c, committed


def _compare(name: str, ours: pd.DataFrame, theirs: pd.DataFrame, keys, exact, close=()) -> str | None:
    """What differs between today's rows and the committed ones of one method's run 0 (None: nothing)."""
    import numpy as np
    if len(ours) != len(theirs):
        return f"{name}: {len(ours)} rows today, {len(theirs)} committed"
    a = ours.sort_values(list(keys)).reset_index(drop=True)
    b = theirs.sort_values(list(keys)).reset_index(drop=True)
    for col in (*keys, *exact):
        if not np.array_equal(a[col].to_numpy(), b[col].to_numpy()):
            bad = int((a[col].to_numpy() != b[col].to_numpy()).sum())
            return f"{name}: {col} differs at {bad} of {len(a)} rows"
    for col in close:
        if col in a and col in b and not np.allclose(a[col].to_numpy(float), b[col].to_numpy(float), rtol=1e-12,
                                                     atol=0, equal_nan=True):
            return f"{name}: {col} differs (largest {np.nanmax(np.abs(a[col] - b[col])):.3g})"
    return None


def verify_race(cfg: dict, results: Path, names=None, log=print) -> list[Check]:
    """Each matrix of the race: run 0 of every method (its block b0) rerun alone through
    :func:`paperlib.beyond.race.experiments.dataset_block` with blocks of one run; a matrix with no blocks is not
    compared (its table predates them)."""
    from ..beyond.race import experiments as E

    out = []
    for name in names or cfg["datasets"]:
        c, committed = _first_block(Path(results) / "race" / "blocks" / f"{name}.b0.csv.gz",
                                    Path(results) / "race" / f"{name}.csv",
                                    "no per-run blocks: a table of accuracies made before the race ran in keyed blocks")
        if c is None:
            continue
        if not c.skipped:
            ours = E.dataset_block({**cfg, "rep_block": 1}, name, 0)
            first = committed[committed.run == 0]
            c.methods = len(set(first.method))
            c.differ = [d for m in sorted(set(first.method) | set(ours.method)) if (d := _compare(
                m, ours[ours.method == m], first[first.method == m], ["budget"], ["run_seed", "pick", "correct"]))]
        log(c.line())
        out.append(c)
    return out


def verify_robin(cfg: dict, results: Path, names=None, log=print) -> list[Check]:
    """Each ROBIN cell: run 0 of every allocator rerun alone (:func:`paperlib.papers.robin.experiments.run_cell`
    with blocks of one run): WCE, MAE and the human correlations at every budget."""
    import pandas as pd

    from ..papers.robin import experiments as E

    out = []
    for cell in names or E.cell_names(cfg):
        path = Path(results) / "robin" / "cells" / f"{cell}.csv.gz"
        if not path.is_file():
            continue
        committed = pd.read_csv(path)
        c = Check(_shown(path), made_by(path, committed))
        ours = E.run_cell(cell, {**cfg, "rep_block": 1}, progress=False, block=0)
        first = committed[committed.rep == 0]
        c.methods = len(set(first.method_id))
        close = [k for k in ("wce", "mae", "pearson", "spearman", "kendall") if k in first]
        c.differ = [d for m in sorted(set(first.method_id) | set(ours.method_id)) if (d := _compare(
            m, ours[ours.method_id == m], first[first.method_id == m], ["budget"], [], close))]
        log(c.line())
        out.append(c)
    return out


def verify_pulse(cfg: dict, results: Path, names=None, log=print, device=None) -> list[Check]:
    """Each PULSE pool: run 0 of every method (fit 0, block b0) rerun alone (:func:`paperlib.papers.pulse.experiments
    .rerun`, Step 1 from the cache ``paperlib rerun`` fills)."""
    from ..papers.pulse import experiments as E

    out = []
    blocks = Path(results) / "pulse" / "blocks"
    for pool in names or E.pool_names(cfg):
        c, committed = _first_block(blocks / f"{pool}.b0.csv.gz", Path(results) / "pulse" / "pools" / f"{pool}.csv",
                                    "no per-run blocks")
        if c is None:
            continue
        if not c.skipped:
            fit = E.cached_fit(cfg, pool, paths.cache_dir() / "fits" / cfg.get("profile", "paper"), device=device)
            methods = [m for m in cfg["methods"] if m in set(committed.method)]
            c.methods = len(methods)
            for m in methods:
                rows, _ = E.rerun(cfg, pool, m, 0, device=device, fit=fit)
                first = committed[(committed.method == m) & (committed.run == 0) & (committed.fit == 0)]
                if d := _compare(m, rows, first, ["budget"], ["run_seed", "pick", "correct"]):
                    c.differ.append(d)
        log(c.line())
        out.append(c)
    return out


def verify_zhou(cfg: dict, results: Path, names=None, log=print, device=None) -> list[Check]:
    """Zhou's Figure 3, each dataset: run 0 of every method (block b0) rerun alone
    (:func:`paperlib.papers.zhou.experiments.run_block` with blocks of one run: block 0 keeps its seed and keyed
    streams, so its one run is the block's first) and its settling budget (``settle_frac``, the budget from which
    the run's top-1 pick stays right) compared exactly with the committed block's rep 0. The block's metric table
    holds means over its runs and is not compared; the settling budget is one point of the grid, so a change that
    moves no run's settling point is not seen."""
    import pandas as pd

    from ..papers.zhou import experiments as E

    out = []
    blocks = Path(results) / "zhou" / "fig3" / "blocks"
    for name in names or cfg["datasets"]:
        c, committed = _first_block(blocks / f"{name}.b0.csv", Path(results) / "zhou" / "fig3" / f"{name}.csv",
                                    "no blocks")
        if c is None:
            continue
        if not c.skipped:
            settle = pd.read_csv(blocks / f"{name}.b0.settle.csv")
            _, ours = E.run_block({**cfg, "rep_block": 1}, name, 0, device=device, progress=False)
            first = settle[settle.rep == 0]
            c.methods = len(set(first.method))
            c.differ = [d for m in sorted(set(first.method) | set(ours.method)) if (d := _compare(
                m, ours[ours.method == m], first[first.method == m], ["rep"], ["settle_frac"]))]
        log(c.line())
        out.append(c)
    return out


#: the committed tables no run can be compared in, and why (printed with every verification)
NOT_PER_RUN = {
    "zhou/fig4": "its blocks hold means over a block's runs, not runs: the first run cannot be compared alone (a "
                 "whole block can be rerun through its rule)",
    "pulse/coverage": "each pool's summary holds rates over all its runs; the cells of its blocks (about a million "
                      "rows a block) are temporary, so a pool is rerun whole through pulse_coverage_pool",
    "pulse/cv": "Step 1's cross-validation losses over its grid, not runs of a bandit: rerun through pulse_cv_pool",
    "search certified": "figures/<profile>/search_certified.csv summarises runs whose table (certified_runs.csv) is "
                        "not committed: rerun through search_block and search_certified",
}


def verify(profile: str = "paper", families=FAMILIES, results: Path | None = None, names=None, log=print,
           device=None) -> list[Check]:
    """Every committed table of ``families`` in ``results/<profile>`` (the checkout's by default)."""
    from .config import load_config, paper_config

    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown table families {unknown}: choose from {', '.join(FAMILIES)}")
    cfg = load_config(profile)
    res = Path(results) if results is not None else paths.RESULTS_DIR / profile
    if not res.is_dir():
        raise ValueError(f"no results folder {res} (give --results DIR, the folder that holds race/, pulse/, robin/)")
    out = []
    for fam in families:
        part = {**paper_config(cfg, fam if fam != "race" else "race"), "profile": profile}
        fn = {"race": verify_race, "robin": verify_robin, "pulse": verify_pulse, "search": verify_search,
              "zhou": verify_zhou}[fam]
        kw = {"device": device} if fam in ("pulse", "search", "zhou") else {}
        out += fn(part, res, names=names, log=log, **kw)
    return out


def verify_search(cfg: dict, results: Path, names=None, log=print, device=None) -> list[Check]:
    """Certified search with a prior (``search/prior_runs.csv.gz``), each matrix: run 0 of each prior kind rerun alone
    (:func:`paperlib.beyond.search.experiments.prior_runs_of` with ``first_run=0``, one run): calls, certification
    and the pick exactly, the bound and R^2 to 1e-12 relative."""
    import pandas as pd

    from ..beyond.search import experiments as E

    path = Path(results) / "search" / "prior_runs.csv.gz"
    if not path.is_file():
        return []
    table = pd.read_csv(path)
    p, out = cfg["prior"], []
    for name in names or list(dict.fromkeys(table.dataset)):
        committed = table[table.dataset == name]
        if committed.empty:
            continue
        c = Check(f"{_shown(path)} [{name}]", made_by(path, committed))
        if not _keyed(committed):
            c.skipped = "no keyed streams: its runs cannot be rerun alone"
        else:
            ours = E.prior_runs_of(name, 1, float(cfg["delta"]), int(p["candidates"]), int(cfg["seed"]), device,
                                   first_run=0)
            first = committed[committed.rep == 0]
            c.methods = len(set(first.prior))
            c.differ = [d for k in sorted(set(first.prior) | set(ours.prior)) if (d := _compare(
                k, ours[ours.prior == k], first[first.prior == k], ["rep"], ["calls", "certified", "right"],
                ["frac", "bound", "r2"]))]
        log(c.line())
        out.append(c)
    return out


def add_arguments(ap) -> None:
    """The options of ``paperlib verify`` (and ``python -m paperlib.pipeline.verify``)."""
    ap.add_argument("families", nargs="*", default=list(FAMILIES), help=f"which tables (default all: {', '.join(FAMILIES)})")
    ap.add_argument("--profile", default="paper", help="the profile whose tables they are (default paper)")
    ap.add_argument("--results", type=Path, default=None,
                    help="the profile's results folder (default: the checkout's results/<profile>, from anywhere)")
    ap.add_argument("--only", nargs="*", default=None, help="only these matrices, cells or pools")
    ap.add_argument("--device", default=None)
    add_threads_argument(ap)


def run(args) -> int:
    """Verify, print a line per table and a tally; the exit status (:data:`SAME`, :data:`DIFFERENT`,
    :data:`NOT_COMPARED`). Torch runs with ``args.threads`` (:func:`paperlib.threads.pin_threads`)."""
    if note := off_table(pin_threads(args.threads)):
        print(note, flush=True)
    for what, why in NOT_PER_RUN.items():
        print(f"NOT COMPARED {what}: {why}", flush=True)
    checks = verify(args.profile, args.families, args.results, args.only,
                    log=lambda s: print(s, flush=True), device=args.device)
    n = {s: sum(c.status == s for c in checks) for s in (SAME, DIFFERENT, NOT_COMPARED)}
    print(f"{len(checks)} tables: {n[SAME]} reproduced, {n[DIFFERENT]} different, {n[NOT_COMPARED]} not compared")
    return DIFFERENT if n[DIFFERENT] else NOT_COMPARED if n[NOT_COMPARED] else SAME


DESCRIPTION = ("Rerun, with today's code, run 0 of every method of every committed per-run table (PULSE pools, the "
               "race's matrices, ROBIN's cells, certified search with a prior, Zhou's Figure 3 settling budgets) alone "
               "-- keyed streams make it exactly the committed run -- and "
               "compare picks and estimates; one line per table with the commit, machine and streams that made it. "
               "Exit 0 if every compared table is reproduced, 1 if one differs, 3 if some could not be compared.")


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m paperlib.pipeline.verify", description=DESCRIPTION)
    add_arguments(ap)
    return run(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
