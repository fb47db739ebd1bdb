"""The live Study: journal, resume after a crash, and misuse errors."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from paperlib.data.synthetic import low_rank_logistic
from paperlib.study import JournalError, Study

MAT = low_rank_logistic(6, 60, rank=2, gap=0.05, seed=4)
MODELS = [f"model-{i}" for i in range(6)]
EXAMPLES = [{"q": f"question {j}"} for j in range(60)]


def score(pairs):
    return [float(MAT.scores[i, j]) for i, j in pairs.pairs]


def run(study, steps=None):
    """Ask/tell until done (or ``steps`` requests); returns the pairs asked, in order."""
    asked = []
    while not study.done and (steps is None or len(asked) < steps):
        p = study.ask()
        asked.append(p.pairs)
        study.tell(p, score(p))
    return asked


def test_resume_continues_exactly_like_an_uninterrupted_run(tmp_path):
    kw = dict(method="ucbe", budget=150, seed=3, batch_size=4)
    whole = Study(MODELS, EXAMPLES, journal=tmp_path / "a.jsonl", **kw)
    want = run(whole)

    part = Study(MODELS, EXAMPLES, journal=tmp_path / "b.jsonl", **kw)
    first = run(part, steps=10)
    pending = part.ask()  # asked, never told: the process "dies" here
    recorded = (tmp_path / "b.jsonl").read_bytes()
    del part

    again = Study.resume(tmp_path / "b.jsonl", examples=EXAMPLES)
    assert again.calls == sum(len(p) for p in first)
    assert again.ask() == pending  # the untold request is issued again
    rest = run(again)
    assert first + rest == want
    assert (tmp_path / "b.jsonl").read_bytes().startswith(recorded)  # nothing recorded was rewritten
    assert (tmp_path / "b.jsonl").read_text() == (tmp_path / "a.jsonl").read_text()
    assert again.best() == whole.best()
    flat = [p for req in first + rest for p in req]
    assert len(flat) == len(set(flat)) == 150


def test_a_killed_process_resumes_without_losing_or_repeating_a_pair(tmp_path):
    """A child process is killed (os._exit) in the middle of scoring; the resumed study never re-scores a told pair."""
    journal = tmp_path / "j.jsonl"
    child = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(tmp_path)!r})
        from paperlib.study import Study
        from paperlib.data.synthetic import low_rank_logistic
        mat = low_rank_logistic(6, 60, rank=2, gap=0.05, seed=4)
        s = Study({MODELS!r}, {EXAMPLES!r}, method="ucbe", budget=150, seed=3, batch_size=4, journal={str(journal)!r})
        for step in range(1000):
            p = s.ask()
            if step == 7:
                os._exit(3)
            s.tell(p, [float(mat.scores[i, j]) for i, j in p.pairs])
    """)
    proc = subprocess.run([sys.executable, "-c", child])
    assert proc.returncode == 3
    lines = journal.read_text().splitlines()
    told = [tuple(p) for rec in map(json.loads, lines) if rec["type"] == "ask" for p in rec["pairs"]][: 7 * 4]
    s = Study.resume(journal, examples=EXAMPLES)
    assert s.seen == set(told)
    rest = run(s)
    again = [p for req in rest for p in req]
    assert not set(again) & set(told)
    assert len(told) + len(again) == 150
    whole = Study(MODELS, EXAMPLES, method="ucbe", budget=150, seed=3, batch_size=4)
    run(whole)
    assert s.best() == whole.best()


def test_journal_errors_name_the_line(tmp_path):
    path = tmp_path / "j.jsonl"
    s = Study(MODELS, EXAMPLES, budget=40, seed=1, batch_size=4, journal=path)
    run(s, steps=3)
    good = path.read_text()
    s.close()  # a live study holds its journal's lock

    with pytest.raises(FileExistsError, match="resume"):
        Study(MODELS, EXAMPLES, journal=path)
    with pytest.raises(JournalError, match=":1: the examples differ"):
        Study.resume(path, examples=EXAMPLES[:-1])
    with pytest.raises(JournalError, match=":1: the models differ"):
        Study.resume(path, examples=EXAMPLES, models=MODELS[::-1])
    with pytest.raises(JournalError, match=":1: seed"):
        Study.resume(path, examples=EXAMPLES, seed=2)

    path.write_text(good + '{"type": "tell", "req')
    with pytest.raises(JournalError, match=r"j.jsonl:8: the last line is cut mid-line"):
        Study.resume(path, examples=EXAMPLES)

    lines = good.splitlines()
    path.write_text("\n".join(lines + [lines[-1]]) + "\n")  # the last tell recorded twice
    with pytest.raises(JournalError, match=r"j.jsonl:8: tell of request 2"):
        Study.resume(path, examples=EXAMPLES)

    rec = json.loads(lines[3])  # the second ask: repeat the first ask's pair in it
    rec["pairs"][1] = json.loads(lines[1])["pairs"][0]
    path.write_text("\n".join(lines[:3] + [json.dumps(rec)] + lines[4:]) + "\n")
    with pytest.raises(JournalError, match=r"j.jsonl:4: replay asked for"):
        Study.resume(path, examples=EXAMPLES)


def test_misuse_is_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="distinct"):
        Study(["a", "a"], EXAMPLES)
    with pytest.raises(ValueError, match="delta"):
        Study(MODELS, EXAMPLES, delta=1.0)
    with pytest.raises(ValueError, match="exceeds"):
        Study(MODELS, EXAMPLES, budget=10**6)
    with pytest.raises(PermissionError):
        Study(MODELS, EXAMPLES, journal=tmp_path / "missing-dir" / "j.jsonl")
    s = Study(MODELS, EXAMPLES, budget=8, batch_size=4)
    p = s.ask()
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        s.tell(p, [1.5] * 4)
    with pytest.raises(ValueError, match="4 pairs but 3"):
        s.tell(p, [0.5] * 3)


def test_certificate_and_intervals_on_a_clear_winner():
    """One model scores 1 everywhere and the rest 0: the full study certifies it; every interval is exact at the end."""
    scores = np.zeros((4, 30))
    scores[2] = 1.0
    s = Study(["a", "b", "c", "d"], list(range(30)), delta=0.05, batch_size=4)
    certified_at = None
    while not s.done:
        p = s.ask()
        s.tell(p, [scores[i, j] for i, j in p.pairs])
        if certified_at is None and s.certified:
            certified_at = s.calls
    assert s.best() == "c" and s.certified
    assert certified_at is not None and certified_at < 4 * 30
    iv = s.intervals()
    assert iv["c"] == pytest.approx((1.0, 1.0)) and iv["a"] == pytest.approx((0.0, 0.0))


def test_scores_written_one_by_one_survive_a_crash_inside_a_request(tmp_path):
    path = tmp_path / "j.jsonl"
    s = Study(MODELS, EXAMPLES, budget=40, seed=1, batch_size=4, journal=path)
    p = s.ask()
    s.record_failure(p, 1, "timed out")
    s.record_score(p, 0, score(p)[0])
    s.record_score(p, 2, score(p)[2])
    del s  # dies with pairs 1 and 3 of the request unscored
    back = Study.resume(path, examples=EXAMPLES)
    assert back.pending == p and back.missing(p) == [1, 3] and back.failures == 1
    back.record_score(p, 1, score(p)[1])
    back.record_score(p, 3, score(p)[3])
    assert back.pending is None and back.calls == 4
    with pytest.raises(ValueError, match="already has a score"):
        q = back.ask()
        back.record_score(q, 0, 0.5)
        back.record_score(q, 0, 0.5)
    back.close()
    lines = path.read_text().splitlines()
    assert json.loads(lines[-3])["type"] == "tell"  # the request completed by its scores is told once
    text = "\n".join(lines[:-2] + [lines[-3]] + lines[-2:]) + "\n"  # ...and a second tell of it is refused
    path.write_text(text)
    with pytest.raises(JournalError, match="tell of request 0"):
        Study.resume(path, examples=EXAMPLES)


def test_top_k_certificate():
    import torch

    from paperlib.confseq import certify_top_k

    lower = torch.tensor([[0.7, 0.6, 0.1, 0.65]])
    upper = torch.tensor([[0.9, 0.8, 0.64, 0.9]])
    top, ok = certify_top_k(lower, upper, 2)
    assert sorted(top[0].tolist()) == [0, 3] and not ok[0]  # 0.65 > 0.64 but model 1's upper 0.8 is above
    top, ok = certify_top_k(lower, upper, 3)
    assert sorted(top[0].tolist()) == [0, 1, 3] and not ok[0]  # 0.6 < model 2's upper 0.64
    top, ok = certify_top_k(lower, torch.tensor([[0.9, 0.8, 0.55, 0.9]]), 3)
    assert ok[0]
    with pytest.raises(ValueError, match="top-k"):
        certify_top_k(lower, upper, 4)


def test_a_resume_refuses_what_would_change_the_answer_and_may_raise_the_budget(tmp_path):
    path = tmp_path / "j.jsonl"
    s = Study(MODELS, EXAMPLES, budget=40, seed=1, batch_size=4, journal=path, meta={"scorer": "python a.py"})
    run(s)
    s.close()
    with pytest.raises(JournalError, match=r"delta=0.001 differs from the journal's delta=0.05"):
        Study.resume(path, examples=EXAMPLES, delta=0.001)
    with pytest.raises(JournalError, match=r"scorer 'python b.py' differs from the journal's 'python a.py'"):
        Study.resume(path, examples=EXAMPLES, meta={"scorer": "python b.py"})
    with pytest.raises(JournalError, match="budget=20 is below the journal's budget=40"):
        Study.resume(path, examples=EXAMPLES, budget=20)
    more = Study.resume(path, examples=EXAMPLES, budget=60)  # every study method is anytime: the replay is the same
    assert more.calls == 40 and more.budget == 60
    run(more)
    more.close()
    back = Study.resume(path, examples=EXAMPLES)  # the raised budget is journaled
    assert back.budget == 60 and back.calls == 60
    back.close()


def test_a_scorer_that_scored_nothing_may_be_replaced(tmp_path):
    path = tmp_path / "j.jsonl"
    s = Study(MODELS, EXAMPLES, budget=40, seed=1, batch_size=4, journal=path, meta={"scorer": "python broken.py"})
    p = s.ask()
    s.record_failure(p, 0, "exit status 1")
    s.close()
    fixed = Study.resume(path, examples=EXAMPLES, meta={"scorer": "python fixed.py"})
    fixed.record_score(fixed.pending, 0, score(fixed.pending)[0])
    fixed.close()
    assert '"type":"meta"' in path.read_text()
    with pytest.raises(JournalError, match="python broken.py' differs from the journal's 'python fixed.py'"):
        Study.resume(path, examples=EXAMPLES, meta={"scorer": "python broken.py"})


def test_a_damaged_header_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "j.jsonl"
    Study(MODELS, EXAMPLES, journal=path, batch_size=4).close()
    header = json.loads(path.read_text().splitlines()[0])
    path.write_text(json.dumps({**header, "params": {**header["params"], "foo": 1}}) + "\n")
    with pytest.raises(JournalError, match=r"j.jsonl:1: the header's set-up is not valid: ucbe takes no parameter 'foo'"):
        Study.resume(path, examples=EXAMPLES)
    path.write_text(json.dumps({k: v for k, v in header.items() if k != "seed"}) + "\n")
    with pytest.raises(JournalError, match=r"j.jsonl:1: the header lacks seed"):
        Study.resume(path, examples=EXAMPLES)


def test_the_asynchronous_study_checks_types_and_ownership_as_the_synchronous_one():
    """Issue 43, class 6: an index True or 1.0 (which hash as 1), a score for another study's request with the same
    number, a score that is a bool or a string, and asynchronous='no' were accepted; each is refused, and nothing
    is journaled or told."""
    import pytest

    from paperlib.policies.base import PendingRequestError

    models, examples = ["a", "b", "c"], list(range(30))
    a = Study(models, examples, method="lucb", asynchronous=True, seed=1, batch_size=2)
    b = Study(models, examples, method="lucb", asynchronous=True, seed=2, batch_size=2)
    ra, rb = a.ask_ahead(), b.ask_ahead()
    assert ra.request == rb.request == 0 and ra != rb  # same number, other pairs
    for bad in (True, 1.0, "1", -1, len(ra)):
        with pytest.raises(ValueError, match="pair index"):
            a.record_score(ra, bad, 0.5)
    with pytest.raises(PendingRequestError, match="another study"):
        a.record_score(rb, 0, 0.5)
    for bad in (True, "0.5", None):
        with pytest.raises(ValueError, match="real number"):
            a.record_score(ra, 0, bad)
    with pytest.raises(ValueError, match="asynchronous must be True, False or None"):
        Study(models, examples, method="lucb", asynchronous="no")
    assert a.calls == 0 and [(p, t) for p, t in a.outstanding()] == [(ra, 0), (ra, 1)]
    a.record_score(ra, 0, 0.25)
    assert a.calls == 1


def test_the_journal_is_its_own_storage(tmp_path):
    """Issue 42, item 4: JournalStorage stores (lock, header, records) and decides nothing. Its records come back in
    order with their line numbers; a second writer is refused while it is open; budget and meta read the later
    records; a header without the set-up is refused naming what it lacks."""
    import pytest

    from paperlib.journal import JournalError, JournalInUse, JournalStorage

    header = dict(type="header", method="ucbe", params={}, seed=0, budget=4, delta=0.05, models=["a", "b"],
                  n_examples=2, examples_sha256="x", device="cpu", meta={"scorer": "s1"}, costs=[1.0, 2.0])
    path = tmp_path / "j.jsonl"
    store = JournalStorage.create(path, header)
    with pytest.raises(FileExistsError):
        JournalStorage.create(path, header)
    with pytest.raises(JournalInUse, match="in use"):
        JournalStorage.open(path)
    store.append(dict(type="ask", request=0, pairs=[[0, 1]]))
    store.append(dict(type="score", request=0, index=0, score=0.5, cost=1.0))
    store.append(dict(type="budget", budget=6))
    store.append(dict(type="meta", meta={"scorer": "s2"}))
    store.close()
    again = JournalStorage.open(path)
    try:
        assert again.header == header
        assert [(no, r["type"]) for no, r in again.records()] == [(2, "ask"), (3, "score"), (4, "budget"), (5, "meta")]
        assert again.budget == 6 and again.meta == {"scorer": "s2"} and again.scored
    finally:
        again.close()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"type": "header", "method": "ucbe"}) + "\n")
    with pytest.raises(JournalError, match="lacks budget, delta, device"):
        JournalStorage.open(bad)
    with pytest.raises(JournalError, match="lacks"):  # not JournalInUse: the refusal released the lock
        JournalStorage.open(bad)
