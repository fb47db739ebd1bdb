"""The torch thread count that makes a run exact (paperlib.threads): the committed tables were all made with it, the
workflow runs with it, ``paperlib rerun`` and ``paperlib verify`` pin it, and a cached Step 1 fit is keyed by it."""

import gzip
import re

import pytest
import torch

from paperlib.paths import ROOT
from paperlib.threads import TABLE_THREADS, pin_threads


@pytest.fixture
def restore_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def _machines(path):
    """The distinct values of a committed CSV's ``machine`` column (its first rows: one job wrote each table)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as fh:
        head = fh.readline().rstrip("\n").split(",")
        if "machine" not in head:
            return set()
        rows = [fh.readline() for _ in range(50)]
    import csv

    col = head.index("machine")
    return {r[col] for r in csv.reader(x for x in rows if x) if len(r) > col and r[col]}


def test_every_committed_table_that_names_its_machine_was_made_at_the_pinned_thread_count():
    """An independent source for TABLE_THREADS: what the tables themselves say made them ("torch threads N")."""
    seen = {}
    for path in [*ROOT.glob("results/*/**/*.csv"), *ROOT.glob("results/*/**/*.csv.gz"), *ROOT.glob("figures/*/*.csv")]:
        for m in _machines(path):
            for n in re.findall(r"torch threads (\d+)", m):
                seen.setdefault(int(n), []).append(str(path.relative_to(ROOT)))
    assert TABLE_THREADS in seen, "no committed table names its torch threads"
    assert set(seen) == {TABLE_THREADS}, {k: v[:3] for k, v in seen.items() if k != TABLE_THREADS}


def test_the_workflow_runs_every_job_at_the_pinned_thread_count():
    smk = (ROOT / "workflow" / "rules" / "common.smk").read_text()
    assert re.search(r"^THREADS = TABLE_THREADS$", smk, re.M) and "from paperlib.threads import TABLE_THREADS" in smk


@pytest.mark.parametrize("bad", [0, -1, 1.0, "2", True, 10**6])
def test_pin_threads_refuses_what_is_not_a_thread_count(bad, restore_threads):
    before = torch.get_num_threads()
    with pytest.raises(ValueError, match="--threads must be an integer"):
        pin_threads(bad)
    assert torch.get_num_threads() == before


def test_pin_threads_sets_torch(restore_threads):
    assert pin_threads(2) == 2 and torch.get_num_threads() == 2
    assert pin_threads() == TABLE_THREADS == torch.get_num_threads()


def test_a_cached_step_1_fit_is_keyed_by_threads_and_device(restore_threads):
    """A fit made at another thread count differs in its last bits: the cache must never hand it to a rerun."""
    from paperlib.papers.pulse import experiments as E
    from paperlib.pipeline.config import smoke_config

    cfg = smoke_config("pulse")
    pool = E.pool_names(cfg)[0]
    pin_threads(1)
    one = E.fit_key(cfg, pool, device="cpu")
    assert E.fit_key(cfg, pool, device="cpu") == one
    pin_threads(2)
    assert E.fit_key(cfg, pool, device="cpu") != one


def test_rerun_and_verify_default_to_the_pinned_thread_count():
    from paperlib.cli import build_parser

    p = build_parser()
    assert p.parse_args(["rerun", "x", "--run", "0"]).threads == TABLE_THREADS
    assert p.parse_args(["verify"]).threads == TABLE_THREADS
