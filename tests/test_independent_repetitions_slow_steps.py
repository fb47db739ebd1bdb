"""The independence property of ``test_independent_repetitions.py`` for the methods whose steps cost milliseconds
(the certificate's rules and the LRF ensemble), at 100 runs: a file of its own so that the two test workers share the
load."""

from __future__ import annotations

import pytest
from test_independent_repetitions import ALPHA, SLOW_STEPS, _matrix, matrix_pvalue

from paperlib.policies import METHODS

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("method", SLOW_STEPS)
def test_a_batched_repetition_is_a_run_of_its_own(method):
    assert method in METHODS
    adj, worst = matrix_pvalue(method, _matrix(), R=100)
    assert adj > ALPHA, f"{method}: the batched repetitions are not independent runs (adjusted p={adj:.2g}; {worst})"
