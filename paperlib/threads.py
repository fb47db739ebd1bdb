"""The torch thread count that makes a run exact: the one every committed table was made with.

A reduction in torch sums in another order with another thread count, so Step 1's low-rank fit differs in its last
bits, and a run that reads it can then evaluate other models. Measured 2026-12-07 on the quick profile, 1 vs 2
threads: max |dV| 3.6e-7 on bench1-gap0.01 and 5.0e-3 on synth_medium-full; bench1-gap0.01's runs 0-2 evaluated other
models from steps 1,266-1,420 of their 1,878 (their picks at the grid's budgets were the same). So a published run
is replayed exactly only at :data:`TABLE_THREADS`: the workflow runs every job with it, each table's ``machine``
column records it, and ``paperlib rerun`` and ``paperlib verify`` pin it (:func:`pin_threads`). Torch is imported
only when the threads are set, so that a command's parser can name the default without it.
"""

from __future__ import annotations

#: torch CPU threads of every job of the workflow (its ``THREADS``: one job a core) and so of every committed table
TABLE_THREADS = 1


def pin_threads(threads=TABLE_THREADS, name: str = "--threads") -> int:
    """Set torch's CPU threads to ``threads`` (an integer in [1, 1024], else ValueError before any work); returns it."""
    from .checks import check_index

    n = check_index(threads, name, low=1, high=1025)
    import torch

    torch.set_num_threads(n)
    return n


def add_threads_argument(parser) -> None:
    """The ``--threads`` option of every command that reruns a committed run (``paperlib rerun``, ``paperlib verify``)."""
    parser.add_argument("--threads", type=int, default=TABLE_THREADS,
                        help=f"torch CPU threads (default {TABLE_THREADS}, the count the committed tables were made "
                             "with: another count changes a low-rank fit in its last bits, and a run may then differ)")


def off_table(threads: int) -> str:
    """What a rerun at ``threads`` must say where it is not :data:`TABLE_THREADS` ("" where it is)."""
    if threads == TABLE_THREADS:
        return ""
    return (f"torch threads {threads}, not the tables' {TABLE_THREADS}: a low-rank fit differs in its last bits, and a "
            "run that reads one can differ without any change to the code")
