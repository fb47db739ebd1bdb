"""Asking a policy ahead of its scores (no batch barrier, issue 30 item 6): Policy.ask_ahead / tell_ahead and a
Study with asynchronous=True."""

import json
import random

import numpy as np
import pytest
import torch

from paperlib.policies import make_policy
from paperlib.policies.base import BudgetExhaustedError, PolicyError
from paperlib.study import JournalError, Study

AHEAD = ["lucb", "lucb-pd", "lucb-cheap", "ucbe", "ucbe-sync"]


def make(method, n, m, budget, **kw):
    """make_policy, with prices for the rule that needs them (the dearest model first)."""
    prices = {"costs": np.linspace(1.0, 0.1, n), "epsilon": 0.1} if method == "lucb-cheap" else {}
    return make_policy(method, n, m, budget, **prices, **kw)


def binary_matrix(n=6, m=40, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.3, 0.7, n)
    p[2] = 0.9
    return (rng.random((n, m)) < p[:, None]).astype(np.float32)


@pytest.mark.parametrize("method", AHEAD)
def test_told_at_once_ahead_is_the_same_run_as_ask_tell(method):
    """With every pair told before the next ask, nothing is outstanding and the asked counts are the told ones, so
    ask_ahead / tell_ahead must choose the very pairs ask / tell chooses (binary scores: exact sums either way)."""
    S = torch.tensor(binary_matrix())
    a = make(method, 6, 40, 150, reps=1, seed=3, device="cpu", batch_size=3)
    b = make(method, 6, 40, 150, reps=1, seed=3, device="cpu", batch_size=3)
    while not a.done:
        ra, rb = a.ask(), b.ask_ahead()
        assert torch.equal(ra.rows, rb.rows) and torch.equal(ra.cols, rb.cols)
        a.tell(ra, ra.take(S))
        b.tell_ahead(rb.rows, rb.cols, rb.take(S))
    assert b.done and torch.equal(a.estimate(), b.estimate())


@pytest.mark.parametrize("method", AHEAD)
def test_ahead_with_scores_in_any_order_asks_every_pair_once(method):
    """Up to 5 pairs outstanding, scores arriving in random order and told per model in asked order: the whole
    matrix is asked exactly once, the budget is spent exactly, and asking past it is refused."""
    n, m = 5, 12
    S = binary_matrix(n, m, seed=1)
    pol = make(method, n, m, n * m, reps=1, seed=0, device="cpu", batch_size=4)
    rnd = random.Random(0)
    asked, waiting, told = [], [], {i: [] for i in range(n)}
    queue = {i: [] for i in range(n)}
    while not pol.done:
        while len(waiting) < 5 and pol.asked < pol.budget:
            req = pol.ask_ahead(limit=5 - len(waiting))
            for i, j in zip(req.rows[0].tolist(), req.cols[0].tolist(), strict=True):
                asked.append((i, j))
                waiting.append((i, j))
                queue[i].append([j, None])
        i, j = waiting.pop(rnd.randrange(len(waiting)))
        next(e for e in queue[i] if e[0] == j)[1] = float(S[i, j])
        ready = []
        while queue[i] and queue[i][0][1] is not None:
            ready.append(queue[i].pop(0))
        if ready:
            pol.tell_ahead(torch.tensor([[i] * len(ready)]), torch.tensor([[e[0] for e in ready]]),
                           torch.tensor([[e[1] for e in ready]]))
            told[i] += [e[0] for e in ready]
    assert sorted(asked) == [(i, j) for i in range(n) for j in range(m)]
    assert pol.spent == pol.asked == n * m
    with pytest.raises(BudgetExhaustedError):
        pol.ask_ahead()
    assert torch.allclose(pol.estimate()[0].double(), torch.tensor(S.mean(axis=1), dtype=torch.float64))


def test_a_model_is_told_a_prefix_of_its_order_whatever_the_arrival_order():
    """LUCB: at every moment each model's told examples are the first counts_i of its own uniform order, so its
    confidence sequence sees a uniform sample without replacement even when late calls are the low scores."""
    n, m = 4, 30
    S = binary_matrix(n, m, seed=2)
    study = Study([f"m{i}" for i in range(n)], list(range(m)), method="lucb", asynchronous=True, batch_size=4)
    pol = study.policy
    inflight = []
    while not study.done:
        while len(inflight) < 6 and not study.exhausted:
            req = study.ask_ahead(limit=6 - len(inflight))
            inflight += [(req, t) for t in range(len(req))]
        # the slowest calls are the zeros: a one always arrives before any zero in flight
        inflight.sort(key=lambda x: -S[x[0].pairs[x[1]]])
        req, t = inflight.pop(0)
        study.record_score(req, t, float(S[req.pairs[t]]))
        for i in range(n):
            c = int(pol.counts[0, i])
            prefix = set(pol.order(torch.tensor([[0]]), torch.tensor([[i]]), torch.arange(c)[None]).view(-1).tolist())
            assert {j for (k, j) in study.seen if k == i} == prefix
    assert study.best() == "m2"


def test_study_ahead_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="cannot be asked ahead"):
        Study(["a", "b"], [1, 2, 3], method="ucbe", asynchronous=True, batch_mode="pending")
    with pytest.raises(ValueError, match="cannot be asked ahead"):
        Study(["a", "b"], [1, 2, 3], method="row-mean", asynchronous=True)
    assert not Study(["a", "b"], [1, 2, 3], method="row-mean", asynchronous=None).asynchronous
    s = Study(["a", "b"], [1, 2, 3], method="lucb", asynchronous=True)
    with pytest.raises(PolicyError):
        s.ask()
    req = s.ask_ahead(limit=1)
    with pytest.raises(ValueError, match="out of range"):
        s.record_score(req, 1, 0.5)  # no such pair (as the synchronous path says it)
    s.record_score(req, 0, 1.0)
    with pytest.raises(PolicyError, match="already scored"):
        s.record_score(req, 0, 1.0)  # scored twice: the request is no longer open
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        s.record_score(s.ask_ahead(limit=1), 0, 1.5)
    plain = make_policy("lucb", 2, 3, 6, reps=1, seed=0, device="cpu")
    with pytest.raises(PolicyError, match="ask_ahead"):
        plain.tell_ahead(torch.tensor([[0]]), torch.tensor([[0]]), torch.tensor([[1.0]]))


def drive(study, S, rnd, stop_after=None, inflight=None, want=None):
    """Score a study asked ahead with up to 4 calls in flight, arrivals in ``rnd``'s order; stop after ``stop_after``
    scores (a crash) and return what was in flight then. ``want``: the ask lines every request must match."""
    inflight = [] if inflight is None else inflight
    scored = 0
    while not study.done and not study.certified:
        while len(inflight) < 4 and not study.exhausted:
            req = study.ask_ahead(limit=4 - len(inflight))
            if want is not None:
                assert [list(p) for p in req.pairs] == want[req.request]["pairs"]
            inflight += [(req, t) for t in range(len(req))]
        req, t = inflight.pop(rnd.randrange(len(inflight)))
        study.record_score(req, t, float(S[req.pairs[t]]))
        scored += 1
        if stop_after is not None and scored == stop_after:
            return inflight
    return inflight


@pytest.mark.parametrize("method", ["lucb", "ucbe"])
def test_journal_asked_ahead_replays_and_resumes(tmp_path, method):
    """The journal records the arrival order, so a resume replays every request; the pairs in flight at the crash are
    the resumed study's outstanding pairs, and scoring them in the order the crashed run would have leaves the very
    study an uninterrupted run leaves (every request equal, same answer and calls)."""
    S = binary_matrix(6, 40, seed=4)
    models, examples = [f"m{i}" for i in range(6)], [{"id": j} for j in range(40)]
    kw = dict(method=method, asynchronous=True, batch_size=4, seed=1, delta=0.1)
    whole = Study(models, examples, journal=tmp_path / "whole.jsonl", **kw)
    drive(whole, S, random.Random(7))
    whole.close()
    want = [json.loads(x) for x in (tmp_path / "whole.jsonl").read_text().splitlines() if '"type":"ask"' in x]

    crashed = Study(models, examples, journal=tmp_path / "j.jsonl", **kw)
    rnd = random.Random(7)
    inflight = drive(crashed, S, rnd, stop_after=30)
    crashed.close()
    resumed = Study.resume(tmp_path / "j.jsonl", examples=examples)
    assert [(r.request, t) for r, t in resumed.outstanding()] == sorted((r.request, t) for r, t in inflight)
    drive(resumed, S, rnd, inflight=inflight, want=want)
    assert resumed.best() == whole.best() and resumed.paid == whole.paid and resumed.certified == whole.certified
    resumed.close()
    assert json.loads((tmp_path / "j.jsonl").read_text().splitlines()[0])["asynchronous"] is True


def test_a_tell_line_in_a_journal_asked_ahead_is_refused(tmp_path):
    s = Study(["a", "b"], [1, 2, 3], method="lucb", asynchronous=True, journal=tmp_path / "j.jsonl")
    req = s.ask_ahead(limit=1)
    s.record_score(req, 0, 1.0)
    s.close()
    with open(tmp_path / "j.jsonl", "a") as f:
        f.write(json.dumps({"type": "tell", "request": 0, "scores": [1.0]}) + "\n")
    with pytest.raises(JournalError, match="tell line"):
        Study.resume(tmp_path / "j.jsonl", examples=[1, 2, 3])


@pytest.mark.parametrize("barrier", [False, True])
def test_a_hanging_call_does_not_idle_the_other_workers(tmp_path, barrier):
    """The first call hangs until 30 other calls have finished (or 3 s pass). Without a barrier the other three
    workers go on and release it; with one batch at a time only the 3 others of its batch can finish meanwhile."""
    import threading

    import paperlib

    S = binary_matrix(5, 80, seed=5)
    state = {"first": None, "others": 0}
    lock, released = threading.Lock(), threading.Event()
    seen_while_hanging = []

    def score(model, example):
        with lock:
            first = state["first"] is None
            if first:
                state["first"] = (model, example)
        if first:
            released.wait(timeout=3.0)
            seen_while_hanging.append(state["others"])
        else:
            with lock:
                state["others"] += 1
                if state["others"] >= 30:
                    released.set()
        return float(S[int(model[1:]), example])

    out = paperlib.search([f"m{i}" for i in range(5)], list(range(80)), score, tmp_path / "j.jsonl", method="lucb",
                          budget=120, stop="budget", workers=4, barrier=barrier, retries=0)
    assert out["calls"] == 120
    if barrier:
        assert seen_while_hanging == [3]  # it waited out its 3 s: nothing else could start
    else:
        assert released.is_set() and seen_while_hanging[0] >= 30
