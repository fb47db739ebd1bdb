"""The exactness property of ``test_independent_repetitions.py`` for the methods whose steps cost milliseconds (the
certificate's rules and the LRF ensemble) at a larger batch: a file of its own so that the two test workers share
the load."""

from __future__ import annotations

import pytest
from test_independent_repetitions import _matrix, matrix_mismatch

from paperlib.policies import METHODS

pytestmark = pytest.mark.slow

SLOW_STEPS = ("lucb", "lucb-pd", "lucb-cheap", "ucbe-lrf", "ucbe-lrf-score-only", "auto")


@pytest.mark.parametrize("method", SLOW_STEPS)
def test_a_larger_batch_is_exactly_its_runs_alone(method):
    assert method in METHODS
    where = matrix_mismatch(method, _matrix(), reps=24)
    assert where is None, f"{method}: {where}"
