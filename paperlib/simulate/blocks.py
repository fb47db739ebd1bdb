"""Blocks of runs: an experiment's R runs cut into blocks [a, b), each a job of its own (the one mechanism).

A method with keyed streams (:mod:`paperlib.keyed`) runs block [a, b) as ``simulate(..., reps=b - a, seed=s,
first_run=a)``: exactly runs a, ..., b - 1 of the batch of R runs with seed s, so the blocks run in one job or in
many, in any order, on any number of machines, and concatenated they are that batch (``tests/test_blocks.py``). A
killed run resumes from its finished blocks. Zhou's Figure 3 blocks (:func:`paperlib.papers.zhou.experiments.
rep_blocks`) cut their runs the same way; their methods still draw from one generator per block, so each block has a
seed of its own there.

Every block entry point (the PULSE pools, ROBIN's cells, Zhou's Figure 3, the race, certified search) checks its
``block`` with :func:`block_range` / :func:`check_block` (issue 76): integers only, in range, one message past the end.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..checks import check_index


class BlockRanges(Sequence):
    """The blocks [(a, b), ...] of ``reps`` runs in blocks of ``size``, computed when asked for (a billion runs in
    blocks of one cost nothing until a block is read): ``len``, indexing (negative indices as for a list), iteration,
    equality with a list of pairs."""

    def __init__(self, reps: int, size: int):
        self.reps, self.size = reps, size

    def __len__(self) -> int:
        return -(-self.reps // self.size)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        i = i + n if i < 0 else i
        if not 0 <= i < n:
            raise IndexError(f"block {i} of {n}")
        a = i * self.size
        return (a, min(a + self.size, self.reps))

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, (list, tuple, BlockRanges)) else NotImplemented

    def __repr__(self) -> str:
        return f"BlockRanges(reps={self.reps}, size={self.size}, blocks={len(self)})"


def block_ranges(reps: int, size: int | None) -> BlockRanges:
    """[(a, b), ...]: ``reps`` runs in blocks of ``size`` (the last one shorter); one block when ``size`` is None.
    Both integers (a float is refused, never truncated), ``reps`` and ``size`` >= 1."""
    reps = check_index(reps, "reps", low=1)
    size = reps if size is None else check_index(size, "rep_block (runs per block)", low=1)
    return BlockRanges(reps, size)


def check_block(block, n_blocks: int, what: str = "this run") -> int:
    """``block`` as an int in [0, n_blocks): an integer (never a float truncated, never a negative index that would
    run the last block), with a message that says how many blocks there are."""
    n = int(n_blocks)
    return check_index(block, "block", high=n, what=f"{what} has {n} block{'s' * (n != 1)}"
                       + (f": 0 .. {n - 1}" if n > 1 else ""))


def block_range(reps: int, size: int | None, block, what: str = "this run") -> tuple[int, int]:
    """Runs [a, b) of block ``block`` of :func:`block_ranges` (``block`` checked by :func:`check_block`)."""
    ranges = block_ranges(reps, size)
    return ranges[check_block(block, len(ranges), what)]
