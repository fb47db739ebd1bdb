"""Each repetition's own seed: run r of a batched run of R repetitions with seed s is a run of its own.

A batched engine (:func:`paperlib.simulate.simulate`, :func:`paperlib.simulate.run_judge`) runs R repetitions as one
tensor program; they must never interact (one repetition's state never feeds another's decision). ``run_seeds(s,
R)[r]`` names repetition r: the seed of the single-repetition run (``reps=1``) that stands for it. The first is s
itself, so ``reps=1, seed=s`` is its own run 0, and the list is prefix-stable (the first R' of ``run_seeds(s, R)``
are ``run_seeds(s, R')``).

What "stands for" means today: the repetitions of a batch draw from one shared generator, so repetition r and the
single run with seed ``run_seeds[r]`` follow the same law (independent runs of the same policy), not the same
random stream; ``tests/test_independent_repetitions.py`` checks the law for every registered method. Bit-identical
repetitions would need a counter-based generator keyed by each run's seed for every random draw (not done yet).
"""

from __future__ import annotations

import numpy as np


def run_seeds(seed: int, reps: int) -> np.ndarray:
    """(R,) int64: ``seed`` for repetition 0, then 63-bit seeds drawn from numpy's ``SeedSequence((seed, r))``."""
    seed, reps = int(seed), int(reps)
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    out = np.empty(reps, dtype=np.int64)
    out[0] = seed
    for r in range(1, reps):  # once per run, not in a hot path
        out[r] = int(np.random.SeedSequence((seed & (2**63 - 1), r)).generate_state(1, np.uint64)[0] >> 1)
    return out
