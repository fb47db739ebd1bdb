"""Property-based tests (Hypothesis) of the input validators and the asynchronous Study's protocol (issue 43).

Each property is the validator's specification, stated independently of its code: a value is accepted exactly when
the rule says so, and an accepted value comes back unchanged in meaning; a refused one raises ``ValueError`` (never
another exception, never a silent conversion). For the Study: whatever sequence of asks, scores (good or bad) and
failures a caller makes, what it accepted is exactly what the journal replays.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from paperlib.checks import check_scalar, check_score  # noqa: E402

ANY_VALUE = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True,
                      allow_infinity=True), st.complex_numbers(allow_nan=True), st.text(max_size=8), st.binary(max_size=4),
                      st.floats(0, 1).map(np.float64), st.floats(0, 1).map(np.float32),
                      st.complex_numbers(max_magnitude=2).map(np.complex128), st.integers(0, 1).map(np.int64))


def _is_real_number(v) -> bool:
    return (isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)))


@settings(max_examples=400, deadline=None)
@given(ANY_VALUE)
def test_check_score_accepts_exactly_the_real_numbers_in_the_unit_interval(value):
    expect = _is_real_number(value) and 0.0 <= float(value) <= 1.0
    if expect:
        out = check_score(value)
        assert type(out) is float and out == float(value)
    else:
        with pytest.raises(ValueError, match="real number in"):
            check_score(value)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6), st.booleans(),
                 st.text(max_size=6)),
       st.sampled_from(["both", "left", "right", "neither"]))
def test_check_scalar_float_in_a_range_follows_its_specification(value, closed):
    low, high = 0.0, 1.0
    try:
        number = float(value) if not isinstance(value, bool) else None
    except ValueError:
        number = None
    inside = number is not None and math.isfinite(number) and (
        (low <= number if closed in ("both", "left") else low < number)
        and (number <= high if closed in ("both", "right") else number < high))
    if inside:
        assert check_scalar(value, "x", float, low=low, high=high, closed=closed) == number
    else:
        with pytest.raises(ValueError, match="^x "):
            check_scalar(value, "x", float, low=low, high=high, closed=closed)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(-10**9, 10**9), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                 st.text(alphabet="0123456789.+-e ", max_size=6)))
def test_check_scalar_int_never_rounds(value):
    """An integer parameter is an integer or refused: 5.7 is never read as 5 (issue 43, class 7)."""
    try:
        out = check_scalar(value, "K", int)
    except ValueError:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            assert value != int(value)  # refused only if it is not a whole number
        return
    assert isinstance(out, int) and not isinstance(value, bool)
    assert float(value) == out


FINITE_OR_NOT = st.floats(allow_nan=True, allow_infinity=True)
NESTED = st.recursive(st.one_of(FINITE_OR_NOT, st.integers(), st.text(max_size=3), st.booleans()),
                      lambda kids: st.one_of(st.lists(kids, max_size=3),
                                             st.dictionaries(st.text("abc", min_size=1, max_size=2), kids, max_size=3)),
                      max_leaves=12)


def _has_non_finite(v) -> bool:
    if isinstance(v, float):
        return not math.isfinite(v)
    if isinstance(v, dict):
        return any(_has_non_finite(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_non_finite(x) for x in v)
    return False


@settings(max_examples=300, deadline=None)
@given(NESTED)
def test_the_workflow_refuses_a_non_finite_number_at_any_depth(cfg):
    from paperlib.pipeline.config import ConfigError, _finite_numbers

    if _has_non_finite(cfg):
        with pytest.raises(ConfigError, match="is not a finite number"):
            _finite_numbers({"zhou": cfg})
    else:
        _finite_numbers({"zhou": cfg})


# ------------------------------------------------------------------------------------- the asynchronous Study

OPS = st.lists(st.tuples(st.sampled_from(["ask", "score", "score", "score", "fail", "bad-index", "bad-score", "twice"]),
                         st.integers(0, 10**6), st.floats(0, 1)), min_size=1, max_size=40)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(OPS)
def test_the_asynchronous_study_journals_exactly_what_it_accepted(tmp_path, ops):
    """Any sequence of asks ahead, scores, failures and bad calls: a refused call changes nothing, every accepted
    score is journaled once, and a resume replays the same calls, outstanding pairs and estimates."""
    from paperlib.study import Study

    models, examples = ["a", "b", "c"], list(range(12))
    import tempfile

    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "j.jsonl"  # one journal per example Hypothesis tries
    study = Study(models, examples, method="lucb", asynchronous=True, seed=3, batch_size=2, journal=path)
    accepted, scored = 0, []
    try:
        for op, k, s in ops:
            out = study.outstanding()
            if op == "ask" or not out:
                if not study.exhausted:
                    study.ask_ahead(limit=2)
                continue
            req, t = out[k % len(out)]
            before = study.paid
            if op == "score":
                study.record_score(req, t, s)
                accepted += 1
                scored.append((req, t))
            elif op == "fail":
                study.record_failure(req, t, "rate limited")
            elif op == "bad-index":
                with pytest.raises(ValueError):
                    study.record_score(req, len(req) + k % 3, s)
            elif op == "bad-score":
                with pytest.raises(ValueError):
                    study.record_score(req, t, [float("nan"), 1.5, -0.1, True, "0.5", 0.5 + 1j][k % 6])
            elif op == "twice" and scored:
                r, i = scored[k % len(scored)]
                with pytest.raises((ValueError, RuntimeError)):  # already scored, or its request already told
                    study.record_score(r, i, s)
            if op != "score":
                assert study.paid == before
        assert study.paid == accepted and sorted(study.scored_pairs()) == sorted(r.pairs[i] for r, i in scored)
        left = sorted((p.request, t) for p, t in study.outstanding())
        est = study.estimates()
    finally:
        study.close()
    again = Study.resume(path, examples=examples)
    try:
        assert again.paid == accepted and sorted(again.scored_pairs()) == sorted(r.pairs[i] for r, i in scored)
        assert sorted((p.request, t) for p, t in again.outstanding()) == left
        same = {k: v for k, v in again.estimates().items()}
        assert all((math.isnan(est[k]) and math.isnan(same[k])) or est[k] == same[k] for k in est)
    finally:
        again.close()
