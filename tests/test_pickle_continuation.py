"""A study or policy pickled at any step continues exactly as the uninterrupted one (issue 56).

Plain pickle copied each tensor's storage on its own, so an object that reads its sums through views of one stacked
tensor (the confidence sequences, UCB-E's flat views) came back updating one copy and reading another: a restored
Study never certified. The property, for every method a Study runs and every registered policy: pickle at a step
Hypothesis chooses (synchronous and asynchronous, pairs in flight), then the copy and the original, told the same
scores, ask the same pairs and report the same intervals, estimates and certificate; in this process and in a new one.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paperlib.policies import JUDGE, MATRIX, METHODS, make_policy, names
from paperlib.simulate import synthetic_judge
from paperlib.study import STUDY_METHODS, Study

N, M = 4, 120
SCORES = (np.random.default_rng(5).random((N, M)) < np.array([0.85, 0.6, 0.5, 0.4])[:, None]).astype(float)
MODELS = [f"model-{i}" for i in range(N)]
PRIOR = (np.random.default_rng(6).random((5, M)) < 0.6).astype(float)  # other models' scores (lucb-prior)
EXAMPLES = [{"id": j} for j in range(M)]


def make_study(method, asynchronous):
    extra = {}
    if method == "lucb-cheap":
        extra = {"costs": dict(zip(MODELS, [4.0, 1.0, 2.0, 0.5], strict=True)), "objective": "cheapest",
                 "epsilon": 0.1}
    if method == "lucb-prior":
        extra = {"prior": PRIOR}
    return Study(MODELS, EXAMPLES, method=method, seed=7, asynchronous=asynchronous, **extra)


def ahead_capable(method):
    try:
        make_study(method, True)
    except ValueError:
        return False
    return True


def snapshot(s: Study):
    return {"intervals": s.intervals(), "certified": s.certified, "best": s.best(), "calls": s.calls}


def step(s: Study, inflight: list):
    """One step: synchronous, a request asked and told; asynchronous, a request asked ahead and its first pairs
    scored, the rest kept in flight (``inflight``) and the oldest pair in flight scored. Returns what was asked."""
    if s.done or s.exhausted:
        return None
    if not s.asynchronous:
        p = s.ask()
        s.tell(p, [SCORES[i, j] for i, j in p.pairs])
        return list(p.pairs)
    p = s.ask_ahead(limit=3)
    for idx, (i, j) in enumerate(p.pairs):
        inflight.append((p, idx, SCORES[i, j]))
    for _ in range(min(2, len(inflight))):
        q, idx, score = inflight.pop(0)
        s.record_score(q, idx, score)
    return list(p.pairs)


def continue_run(s: Study, inflight: list, steps: int):
    out = []
    for _ in range(steps):
        asked = step(s, inflight)
        out.append({"asked": asked, **snapshot(s)})
    return out


STUDY_CASES = [(m, False) for m in STUDY_METHODS] + [(m, True) for m in STUDY_METHODS if ahead_capable(m)]


@pytest.mark.parametrize("method,asynchronous", STUDY_CASES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=st.integers(0, 40))
def test_a_pickled_study_continues_exactly(method, asynchronous, at):
    a = make_study(method, asynchronous)
    fa: list = []
    for _ in range(at):
        step(a, fa)
    b = pickle.loads(pickle.dumps(a))
    fb = [(pb, idx, score) for (pa, idx, score) in fa for pb in [b._open.get(pa.request, pa)]]
    assert snapshot(b) == snapshot(a)
    assert continue_run(b, fb, 40) == continue_run(a, fa, 40)


def test_a_restored_study_certifies_as_the_original():
    """The regression: lucb pickled after five rounds certifies after the same calls as without the pickle."""
    a = make_study("lucb", False)
    for _ in range(5):
        step(a, [])
    b = pickle.loads(pickle.dumps(a))
    for s in (a, b):
        while not s.certified and not s.done:
            step(s, [])
    assert a.certified and b.certified and a.calls == b.calls and a.best() == b.best() == "model-0"


def _policy_params(method):
    if METHODS[method].needs_factors:
        return {"v": np.random.default_rng(0).normal(size=(M, 2)), "batch_size": 8, "refit_every": 3}
    if method in names(MATRIX, "backbone"):
        return {"batch_size": 8}
    if method in ("ucbe-lrf", "ucbe-lrf-score-only", "lrf"):
        return {"ensemble": 4, "init_sweeps": 3, "batch_size": 4}
    if METHODS[method].needs_costs:
        return {"costs": np.linspace(1.0, 0.2, N)}
    if METHODS[method].takes_prior:
        return {"prior": PRIOR}
    return {}


def _drive_matrix(pol, steps):
    S = torch.tensor(SCORES)
    out = []
    for _ in range(steps):
        if pol.done:
            break
        req = pol.ask()
        pol.tell(req, req.take(S))
        out.append((req.rows.tolist(), req.cols.tolist(), pol.estimate().nan_to_num(-1.0).tolist()))
    return out


@pytest.mark.parametrize("method", names(MATRIX))
@settings(max_examples=3, deadline=None)
@given(at=st.integers(0, 30))
def test_a_pickled_policy_continues_exactly(method, at):
    pol = make_policy(method, N, M, N * M // 2, reps=3, seed=4, device="cpu", **_policy_params(method))
    _drive_matrix(pol, at)
    copy = pickle.loads(pickle.dumps(pol))
    assert _drive_matrix(copy, 25) == _drive_matrix(pol, 25)


@pytest.mark.parametrize("method", names(JUDGE))
@settings(max_examples=3, deadline=None)
@given(at=st.integers(0, 60))
def test_a_pickled_judge_policy_continues_exactly(method, at):
    judge = synthetic_judge("discrete", K=10, seed=1, device="cpu")
    spec = METHODS[method]
    kw = {"variances": judge.variances} if spec.needs_variances else {}
    if spec.needs_scale:
        kw["scale"] = judge.scale
    pol = spec.cls(judge.K, 200, reps=3, seed=2, device="cpu", **kw)
    gen = torch.Generator().manual_seed(9)

    def drive(p, g, steps):
        out = []
        for _ in range(steps):
            if p.spent >= p.budget:
                break
            req = p.ask(max_size=p.budget - p.spent)
            vals = judge.draw(req.arms, g)
            p.tell(req, vals)
            out.append((req.arms.tolist(), p.estimate().nan_to_num(-1.0).tolist()))
        return out

    drive(pol, gen, at)
    copy, gcopy = pickle.loads(pickle.dumps(pol)), torch.Generator().manual_seed(0)
    gcopy.set_state(gen.get_state())
    assert drive(copy, gcopy, 40) == drive(pol, gen, 40)


_CHILD = """
import json, pickle, sys
sys.path.insert(0, {tests!r})
from test_pickle_continuation import continue_run
out = {{}}
for name, blob in pickle.load(open({path!r}, "rb")).items():
    study, inflight = blob
    out[name] = continue_run(study, inflight, 30)
json.dump(out, open({res!r}, "w"))
"""


@pytest.mark.slow
def test_a_pickled_study_continues_exactly_in_a_new_process(tmp_path):
    """Every study case pickled after 12 steps (pairs in flight where asynchronous), continued in a fresh
    interpreter: the same asks, intervals and certificate as here."""
    blobs, here = {}, {}
    for method, asynchronous in STUDY_CASES:
        s, fl = make_study(method, asynchronous), []
        for _ in range(12):
            step(s, fl)
        name = f"{method}-{'async' if asynchronous else 'sync'}"
        blobs[name] = pickle.dumps((s, fl))
        here[name] = continue_run(*pickle.loads(blobs[name]), 30)  # a copy, so the original is untouched
    path, res = tmp_path / "studies.pkl", tmp_path / "out.json"
    path.write_bytes(pickle.dumps({k: pickle.loads(v) for k, v in blobs.items()}))
    code = _CHILD.format(tests=str(__import__("pathlib").Path(__file__).parent), path=str(path), res=str(res))
    subprocess.run([sys.executable, "-c", code], check=True, timeout=600)
    there = json.loads(res.read_text())
    assert there == json.loads(json.dumps(here))


def test_a_journaled_study_refuses_to_be_pickled(tmp_path):
    s = Study(MODELS, EXAMPLES, method="ucbe", seed=7, journal=tmp_path / "j.jsonl")
    step(s, [])
    with pytest.raises(TypeError, match="journal cannot be pickled.*Study.resume"):
        pickle.dumps(s)
    s.close()
