"""Each repetition's own seed: run r of a batched run of R repetitions with seed s is a run of its own.

A batched engine (:func:`paperlib.simulate.simulate`, :func:`paperlib.simulate.run_judge`) runs R repetitions as one
tensor program; they must never interact (one repetition's state never feeds another's decision). ``run_seeds(s,
R)[r]`` names repetition r: the seed of the single-repetition run (``reps=1``) that is the same run. The first is s
itself, so ``reps=1, seed=s`` is its own run 0, and the list is prefix-stable (the first R' of ``run_seeds(s, R)``
are ``run_seeds(s, R')``).

A policy with keyed streams (``keyed_streams``: every random number of repetition r drawn from
:class:`paperlib.keyed.KeyedStream` keyed by ``run_seeds[r]``) makes run r of a batch exactly that single run: the
same picks and estimates (``tests/test_independent_repetitions.py`` compares them exactly). A policy still drawing
from one shared ``torch.Generator`` gives the same law, not the same numbers (the test checks the law).
"""

from __future__ import annotations

from ..keyed import run_seeds

__all__ = ["run_seeds"]
