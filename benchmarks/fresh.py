"""Shared by the benchmarks that report peak memory: run a case in a fresh process, and load a real matrix.

A case runs in a spawned process so that its peak memory (max RSS) is its own; imports happen before the clock
starts. ``load`` reads a dataset from $PAPERLIB_DATA, else returns a synthetic matrix of the same shape (said in
the label).
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import time


def _child(q, fn, args, device):
    import torch

    import paperlib.policies  # noqa: F401  (imports are not part of the timed run)

    torch.set_num_threads(max(1, torch.get_num_threads()))
    t, c = time.perf_counter(), time.process_time()
    out = fn(*args)
    if device is not None and str(device).startswith("cuda"):
        torch.cuda.synchronize()
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    q.put((wall, out, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, cpu))


def run_timed(fn, *args, device=None):
    """``fn(*args)`` in a fresh process: (wall seconds, its result, peak RSS in MB, CPU seconds of the process).

    The CPU time counts every thread of the process: above the wall time when an operation runs on several cores,
    and less disturbed than the wall time by the other tenants of a shared VM.
    """
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q, fn, args, device))
    p.start()
    out = q.get()
    p.join()
    return out


def run(fn, *args, device=None):
    """``fn(*args)`` in a fresh process: (wall seconds, its result, peak RSS in MB)."""
    return run_timed(fn, *args, device=device)[:3]


def load(name: str, shape: tuple[int, int]):
    """(scores as float32, label): the real dataset if present, else a synthetic stand-in of that shape."""
    import numpy as np

    from paperlib import data

    if data.available(name):
        return data.load(name).scores.astype(np.float32), f"{name} (real)"
    from paperlib.data import low_rank_logistic

    return low_rank_logistic(*shape, rank=2, gap=0.01, seed=0).scores, f"synthetic {shape[0]} x {shape[1]} stand-in"
