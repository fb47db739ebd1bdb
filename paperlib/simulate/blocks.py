"""Blocks of runs: an experiment's R runs cut into blocks [a, b), each a job of its own (the one mechanism).

A method with keyed streams (:mod:`paperlib.keyed`) runs block [a, b) as ``simulate(..., reps=b - a, seed=s,
first_run=a)``: exactly runs a, ..., b - 1 of the batch of R runs with seed s, so the blocks run in one job or in
many, in any order, on any number of machines, and concatenated they are that batch (``tests/test_blocks.py``). A
killed run resumes from its finished blocks. Zhou's Figure 3 blocks (:func:`paperlib.papers.zhou.experiments.
rep_blocks`) cut their runs the same way; their methods still draw from one generator per block, so each block has a
seed of its own there.
"""

from __future__ import annotations


def block_ranges(reps: int, size: int | None) -> list[tuple[int, int]]:
    """[(a, b), ...]: ``reps`` runs in blocks of ``size`` (the last one shorter); one block when ``size`` is None."""
    reps = int(reps)
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    size = reps if size is None else int(size)
    if size < 1:
        raise ValueError(f"a block must hold at least one run, got {size}")
    return [(a, min(a + size, reps)) for a in range(0, reps, size)]
