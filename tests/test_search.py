"""`python -m paperlib search`: a live search against a scorer command, its journal, and resuming after a crash."""

import json
import subprocess
import sys
import textwrap
from collections import Counter

import pytest

from paperlib.data.synthetic import low_rank_logistic

MAT = low_rank_logistic(5, 80, rank=2, gap=0.08, seed=2)


@pytest.fixture
def setup(tmp_path):
    """Model and example files, the score table, and a scorer script that logs every pair it scores.

    The scorer kills its parent (the search process) on the call number in crash_at.txt, if any."""
    (tmp_path / "scores.json").write_text(json.dumps(MAT.scores.tolist()))
    (tmp_path / "models.txt").write_text("\n".join(f"m{i}" for i in range(5)) + "\n")
    (tmp_path / "examples.txt").write_text("\n".join(json.dumps({"id": j}) for j in range(80)) + "\n")
    (tmp_path / "scorer.py").write_text(textwrap.dedent(f"""
        import json, os, signal, sys
        pair = json.load(sys.stdin)
        d = {str(tmp_path)!r}
        calls = os.path.join(d, "calls.log")
        n = sum(1 for _ in open(calls)) if os.path.exists(calls) else 0
        crash = os.path.join(d, "crash_at.txt")
        try:  # >= and one remover: concurrent scorers may count the same n, so the log can skip any one number
            due = n >= int(open(crash).read())
            if due:
                os.remove(crash)
        except (FileNotFoundError, ValueError):
            due = False
        if due:
            os.kill(os.getppid(), signal.SIGKILL)
            sys.exit(1)
        i, j = int(pair["model"][1:]), pair["example"]["id"]
        with open(calls, "a") as f:
            f.write(f"{{i}} {{j}}\\n")
        print(json.load(open(os.path.join(d, "scores.json")))[i][j])
    """))
    return tmp_path


def search_cmd(d, out, *extra):
    return [sys.executable, "-m", "paperlib", "search", "--models", str(d / "models.txt"),
            "--examples", str(d / "examples.txt"), "--scorer", f"{sys.executable} {d / 'scorer.py'}",
            "--json", str(d / out), *extra, "--delta", "0.1", "--seed", "4", "--quiet"]


def search(d, out, *extra, journal=None):
    cmd = search_cmd(d, out, *extra)
    if journal:
        cmd += ["--journal", str(d / journal)]
    return subprocess.run(cmd, capture_output=True, text=True)


def crash_and_resume(d, workers: str, crash_at: int = 25, settle: float = 0.0, extra: tuple = ()):
    """An uninterrupted run, then a run whose ``crash_at``-th scorer call SIGKILLs the search, then its resume (each
    with ``workers``): the uninterrupted JSON, the resumed JSON, the journal bytes before the resume, and the
    scorer's own count of calls per pair."""
    import time

    whole = search(d, "whole.json", "--workers", workers, *extra, journal="whole.jsonl")
    assert whole.returncode == 0, whole.stderr
    ref = json.loads((d / "whole.json").read_text())
    (d / "calls.log").unlink()
    (d / "crash_at.txt").write_text(str(crash_at))
    first = search(d, "out.json", "--workers", workers, *extra, journal="j.jsonl")
    assert first.returncode != 0  # killed by its scorer
    time.sleep(settle)
    recorded = (d / "j.jsonl").read_bytes()
    again = search(d, "out.json", "--workers", workers, *extra, journal="j.jsonl")
    assert again.returncode == 0, again.stderr
    assert (d / "j.jsonl").read_bytes().startswith(recorded)  # nothing journaled was rewritten
    return ref, json.loads((d / "out.json").read_text()), recorded, Counter((d / "calls.log").read_text().splitlines())


@pytest.mark.slow
def test_crash_and_resume_lose_nothing_and_repeat_nothing(setup):
    d = setup
    ref, res, recorded, calls = crash_and_resume(d, "1")
    scores_before = [json.loads(x) for x in recorded.decode().splitlines() if '"type":"score"' in x]
    assert len(scores_before) == 25
    assert max(calls.values()) == 1  # no pair scored twice
    assert sum(calls.values()) == res["calls"] == ref["calls"]
    assert res["best"] == ref["best"] and res["certified"] == ref["certified"]
    assert res["best"] == f"m{MAT.best}" and res["certified"]
    assert res["calls_saved"] == 5 * 80 - res["calls"] > 0
    per_model = Counter("m" + line.split()[0] for line in (d / "calls.log").read_text().splitlines())
    assert res["calls_per_model"] == {f"m{i}": per_model[f"m{i}"] for i in range(5)}  # the scorer's own log
    assert res["started_at"] <= res["finished_at"] and res["wall_s"] >= 0
    lo, hi = res["intervals"][res["best"]]
    assert lo <= MAT.means[MAT.best] <= hi


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["barrier", "ahead"])
def test_sigkill_with_calls_in_flight_repays_at_most_those_and_gives_the_same_answer(setup, mode):
    """Four workers; the 25th scorer call SIGKILLs the search: on resume only the calls that were in flight then
    (at most workers - 1 besides the killer's, which scored nothing) are paid again, and the answer is the
    uninterrupted run's. With --barrier the calls are too (a fresh journal's batch is --workers pairs); without it the
    decisions follow the order the scores arrived in, which the journal records: replaying it gives the run's
    answer and calls."""
    from paperlib.search import read_examples
    from paperlib.study import Study

    # settle: orphaned scorers still in flight finish (and are paid) after their parent died
    ref, res, _, calls = crash_and_resume(setup, "4", settle=1.0, extra=("--barrier",) if mode == "barrier" else ())
    repaid = sum(v - 1 for v in calls.values())
    assert max(calls.values()) <= 2 and repaid <= 3, calls.most_common(5)
    assert res["best"] == ref["best"] == f"m{MAT.best}" and res["certified"] == ref["certified"] is True
    assert sum(calls.values()) == res["calls"] + repaid
    if mode == "barrier":
        assert res["calls"] == ref["calls"]
        return
    header = json.loads((setup / "j.jsonl").read_text().splitlines()[0])
    assert header["asynchronous"] is True
    replayed = Study.resume(setup / "j.jsonl", examples=read_examples(setup / "examples.txt"))
    try:
        assert replayed.best() == res["best"] and replayed.paid == res["calls"] and replayed.certified
    finally:
        replayed.close()


def test_failures_are_journaled_never_scored_and_stop_the_run(setup):
    d = setup
    (d / "bad.py").write_text("import sys; sys.stdin.read(); print('not a number')\n")
    proc = subprocess.run([sys.executable, "-m", "paperlib", "search", "--models", str(d / "models.txt"),
                           "--examples", str(d / "examples.txt"), "--scorer", f"{sys.executable} {d / 'bad.py'}",
                           "--json", str(d / "o.json"), "--retries", "1", "--max-failures", "3", "--workers", "2",
                           "--quiet"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--max-failures" in proc.stderr and "resume" in proc.stderr
    lines = [json.loads(x) for x in (d / "o.journal.jsonl").read_text().splitlines()]
    kinds = Counter(rec["type"] for rec in lines)
    # each round of a pair fails both attempts (journaled; a failed pair is tried again first); the 4th unrecovered
    # round (> 3) stops the run, and the other worker's round, in flight then, is waited for and journaled too
    failed = Counter((rec["request"], rec["index"]) for rec in lines if rec["type"] == "failure")
    assert kinds["failure"] in (8, 10) and all(v % 2 == 0 for v in failed.values())
    assert kinds["score"] == 0 and kinds["tell"] == 0
    assert "not a number in [0, 1]" in lines[-1]["error"]

    fixed = subprocess.run([sys.executable, "-m", "paperlib", "search", "--models", str(d / "models.txt"),
                            "--examples", str(d / "examples.txt"), "--scorer", f"{sys.executable} {d / 'scorer.py'}",
                            "--json", str(d / "o.json"), "--retries", "1", "--max-failures", "3", "--workers", "2",
                            "--quiet"], capture_output=True, text=True)
    assert fixed.returncode == 0, fixed.stderr  # the replayed failures do not count against the fixed scorer


@pytest.mark.parametrize("args,msg", [
    (["--json", "/proc/nonexistent-dir/o.json"], "cannot create"),
    (["--delta", "1.5"], "delta"),
    (["--top-k", "5"], "top-k"),
    (["--method", "row-mean", "--workers", "0"], "workers"),
    (["--json", "MODELS"], "is also an input of this run"),
    (["--timeout", "inf"], "--timeout must be a finite number"),
    (["--json", "j.jsonl", "--journal", "j.jsonl"], "is also an input of this run"),
])
def test_bad_input_is_refused_before_any_call(setup, args, msg):
    d = setup
    base = ["--models", str(d / "models.txt"), "--examples", str(d / "examples.txt"),
            "--scorer", f"{sys.executable} {d / 'scorer.py'}", "--quiet"]
    if "--json" not in args:
        base += ["--json", str(d / "o.json")]
    args = [str(d / "models.txt") if a == "MODELS" else str(d / a) if a == "j.jsonl" else a for a in args]
    before = (d / "models.txt").read_bytes()
    proc = subprocess.run([sys.executable, "-m", "paperlib", "search", *base, *args], capture_output=True, text=True)
    assert proc.returncode == 2 and msg in proc.stderr, proc.stderr
    assert not (d / "calls.log").exists()
    assert (d / "models.txt").read_bytes() == before  # an output never overwrites an input


def test_a_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    from paperlib.search import read_examples, read_models

    (tmp_path / "m.txt").write_text("\ufeffgpt-a\ngpt-b\n", encoding="utf-8")
    (tmp_path / "e.txt").write_text('\ufeff{"id": 0}\n', encoding="utf-8")
    assert read_models(tmp_path / "m.txt") == ["gpt-a", "gpt-b"]
    assert read_examples(tmp_path / "e.txt") == [{"id": 0}]


def test_certified_search_without_any_matrix_writes_untestable_rows(monkeypatch, tmp_path):
    """A fresh machine has no data: the search step must still produce its tables (empty) and untestable rows."""
    from paperlib.beyond.search import claims as C
    from paperlib.beyond.search import experiments as E

    monkeypatch.setenv("PAPERLIB_DATA", str(tmp_path))
    runs = E.certified_runs({"datasets": ["sysrs_gsm"], "methods": ["ucbe", "row-mean"], "reps": 2, "seed": 0,
                             "delta": 0.05, "batch_size": 32})
    table = E.savings_table(runs)
    assert runs.empty and list(runs.columns) == list(E.RUN_COLUMNS)
    assert table.empty and list(table.columns) == list(E.TABLE_COLUMNS)
    rows = [C.correctness_claim(table, 0.05), C.adaptive_vs_uniform_claim(runs, 0.05)]
    assert [c.verdict for c in rows] == ["untestable", "untestable"] and rows[0].evidence.startswith("[none]")


def test_calls_saved_is_given_for_a_certified_answer_only(tmp_path):
    from paperlib.search import result
    from paperlib.study import Study

    study = Study(["m0", "m1", "m2"], list(range(10)), method="ucbe", delta=0.1)
    out = result(study, 1, tmp_path / "j.jsonl", started=0.0)
    assert not out["certified"] and out["calls_saved"] is None
    assert out["calls_per_model"] == {"m0": 0, "m1": 0, "m2": 0} and out["started_at"] == "1970-01-01T00:00:00+00:00"


@pytest.mark.slow
def test_a_pair_that_succeeds_on_a_retry_is_not_a_failure(setup):
    """A scorer that fails the first attempt at every pair and succeeds on the retry: the search completes with
    --max-failures 0, every failed attempt is journaled, and no pair is scored twice."""
    d = setup
    (d / "flaky.py").write_text(textwrap.dedent(f"""
        import json, os, sys
        pair = json.load(sys.stdin)
        mark = os.path.join({str(d)!r}, "seen_" + pair["model"] + "_" + str(pair["example"]["id"]))
        if not os.path.exists(mark):
            open(mark, "w").close()
            sys.exit("transient error")
        print(json.load(open(os.path.join({str(d)!r}, "scores.json")))[int(pair["model"][1:])][pair["example"]["id"]])
    """))
    proc = subprocess.run([sys.executable, "-m", "paperlib", "search", "--models", str(d / "models.txt"),
                           "--examples", str(d / "examples.txt"), "--scorer", f"{sys.executable} {d / 'flaky.py'}",
                           "--json", str(d / "o.json"), "--max-failures", "0", "--backoff", "0", "--delta", "0.1",
                           "--quiet"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    res = json.loads((d / "o.json").read_text())
    kinds = Counter(json.loads(x)["type"] for x in (d / "o.journal.jsonl").read_text().splitlines())
    assert kinds["failure"] == kinds["score"] == res["calls"] > 0


def test_scorer_errors_show_the_end_of_stderr_and_undecodable_output_is_that_calls_failure(tmp_path):
    from paperlib.search import Scorer

    (tmp_path / "boom.py").write_text("import sys; sys.stdin.read()\ndef f():\n    raise KeyError('no such model')\nf()\n")
    value, err = Scorer(f"{sys.executable} {tmp_path / 'boom.py'}")("m", 1)
    assert value is None and "KeyError: 'no such model'" in err and "\n" not in err
    (tmp_path / "bytes.py").write_text("import sys; sys.stdin.read(); sys.stdout.buffer.write(b'0.5\\xff\\n')\n")
    value, err = Scorer(f"{sys.executable} {tmp_path / 'bytes.py'}")("m", 1)
    assert value is None and "not UTF-8" in err


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_records_the_calls_in_flight_and_resumes_without_paying_twice(setup):
    import signal
    import time

    d = setup
    # after 12 calls, and until the test lifts the hold, a call takes 2 s: the search cannot finish before Ctrl-C
    # however loaded the machine is, and calls are in flight when it comes
    (d / "hold").touch()
    (d / "slow.py").write_text(textwrap.dedent(f"""
        import json, os, sys, time
        pair = json.load(sys.stdin)
        calls = os.path.join({str(d)!r}, "calls.log")
        n = sum(1 for _ in open(calls)) if os.path.exists(calls) else 0
        time.sleep(2.0 if n >= 12 and os.path.exists(os.path.join({str(d)!r}, "hold")) else 0.15)
        i, j = int(pair["model"][1:]), pair["example"]["id"]
        with open(calls, "a") as f:
            f.write(f"{{i}} {{j}}\\n")
        print(json.load(open(os.path.join({str(d)!r}, "scores.json")))[i][j])
    """))
    cmd = [sys.executable, "-m", "paperlib", "search", "--models", str(d / "models.txt"), "--examples",
           str(d / "examples.txt"), "--scorer", f"{sys.executable} {d / 'slow.py'}", "--json", str(d / "o.json"),
           "--workers", "4", "--delta", "0.1", "--quiet"]
    # Ctrl-C as at a terminal: a job started in the background (`make test &`) inherits SIGINT ignored, and Python
    # then never raises KeyboardInterrupt, so the child gets the default disposition back
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 60
    while time.time() < deadline and (not (d / "calls.log").exists()
                                      or len((d / "calls.log").read_text().splitlines()) < 12):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "rerun the same command to resume" in err
    paid = (d / "calls.log").read_text().splitlines()
    journaled = [json.loads(x) for x in (d / "o.journal.jsonl").read_text().splitlines()]
    assert sum(r["type"] == "score" for r in journaled) == len(paid)  # every paid call is in the journal

    (d / "hold").unlink()
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    calls = Counter((d / "calls.log").read_text().splitlines())
    assert max(calls.values()) == 1  # no pair paid twice
    assert json.loads((d / "o.json").read_text())["calls"] == sum(calls.values())


@pytest.mark.slow
def test_a_second_search_on_a_live_journal_is_refused_and_pays_nothing(setup):
    import time

    d = setup
    (d / "slow.py").write_text(textwrap.dedent(f"""
        import json, os, sys, time
        pair = json.load(sys.stdin)
        time.sleep(0.1)
        i, j = int(pair["model"][1:]), pair["example"]["id"]
        with open(os.path.join({str(d)!r}, "calls.log"), "a") as f:
            f.write(f"{{i}} {{j}}\\n")
        print(json.load(open(os.path.join({str(d)!r}, "scores.json")))[i][j])
    """))
    cmd = [sys.executable, "-m", "paperlib", "search", "--models", str(d / "models.txt"), "--examples",
           str(d / "examples.txt"), "--scorer", f"{sys.executable} {d / 'slow.py'}", "--json", str(d / "o.json"),
           "--workers", "2", "--delta", "0.1", "--quiet"]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not (d / "calls.log").exists():
        time.sleep(0.05)
    second = subprocess.run(cmd, capture_output=True, text=True)
    assert second.returncode == 2 and "in use by another search (process" in second.stderr, second.stderr
    assert f"process {first.pid} " in second.stderr
    _, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    calls = Counter((d / "calls.log").read_text().splitlines())
    assert max(calls.values()) == 1 and json.loads((d / "o.json").read_text())["calls"] == sum(calls.values())


def test_two_studies_cannot_write_one_journal(tmp_path):
    from paperlib.study import JournalInUse, Study

    journal = tmp_path / "j.jsonl"
    first = Study(["a", "b"], [0, 1, 2], journal=journal)
    with pytest.raises(JournalInUse, match="in use by another search"):
        Study.resume(journal, examples=[0, 1, 2])
    first.close()
    again = Study.resume(journal, examples=[0, 1, 2])  # the lock is free once the first study closes
    again.close()


@pytest.mark.slow
def test_resume_refuses_changed_inputs_but_continues_a_larger_budget_with_other_workers(setup):
    d = setup
    first = search(d, "o.json", "--workers", "1", "--budget", "40")
    assert first.returncode == 0, first.stderr
    assert json.loads((d / "o.json").read_text())["calls"] == 40
    more = search(d, "o.json", "--workers", "3", "--budget", "120")  # --workers is concurrency, not the batch
    assert more.returncode == 0, more.stderr
    assert 40 < json.loads((d / "o.json").read_text())["calls"] <= 120
    other_delta = subprocess.run([*search_cmd(d, "o.json")[:-5], "--delta", "0.001", "--seed", "4", "--quiet"],
                                 capture_output=True, text=True)
    assert other_delta.returncode == 2 and "delta=0.001 differs from the journal's delta=0.1" in other_delta.stderr
    (d / "scorer2.py").write_text((d / "scorer.py").read_text() + "\n# another version\n")
    other_scorer = subprocess.run([x.replace("scorer.py", "scorer2.py") for x in search_cmd(d, "o.json")],
                                  capture_output=True, text=True)
    assert other_scorer.returncode == 2 and "scorer" in other_scorer.stderr and "differs" in other_scorer.stderr


def test_off_a_terminal_the_search_logs_progress_lines(setup):
    d = setup
    cmd = [x for x in search_cmd(d, "o.json", "--log-every", "0", "--budget", "60") if x != "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True)  # stderr is a pipe, not a terminal
    assert proc.returncode == 0, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.startswith("search: ")]
    assert len(lines) >= 2 and lines[-1].startswith("search: 60/60 calls, leader m")
    assert "[" in lines[-1] and "]" in lines[-1]


@pytest.mark.slow
def test_a_slow_pair_does_not_hold_back_the_scores_that_arrived_before_it(setup):
    """Each score is journaled when it arrives: with one slow pair in a request, the request's other scores are
    written before it (they used to wait behind it)."""
    d = setup
    (d / "uneven.py").write_text(textwrap.dedent(f"""
        import json, os, sys, time
        pair = json.load(sys.stdin)
        i, j = int(pair["model"][1:]), pair["example"]["id"]
        try:
            fd = os.open(os.path.join({str(d)!r}, "slow_pair"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            fd = None
        if fd is not None:  # the first call to get here is the slow one, and says which pair it was
            os.write(fd, f"{{i}} {{j}}".encode())
            os.close(fd)
            time.sleep(1.5)
        print(json.load(open(os.path.join({str(d)!r}, "scores.json")))[i][j])
    """))
    cmd = [x.replace("scorer.py", "uneven.py") for x in search_cmd(d, "o.json", "--workers", "4", "--budget", "8",
                                                                   "--method", "row-mean")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(x) for x in (d / "o.journal.jsonl").read_text().splitlines()]
    ask = next(r for r in records if r["type"] == "ask" and r["request"] == 0)
    i, j = map(int, (d / "slow_pair").read_text().split())
    slow = [k for k, (a, b) in enumerate(ask["pairs"]) if a == i and b == j]
    first = [r for r in records if r["type"] == "score" and r["request"] == 0]
    assert len(slow) == 1 and len(first) == 4
    assert first[-1]["index"] == slow[0] and first[0]["index"] != slow[0]  # the slow pair's score is written last


# ------------------------------------------------------------------------------ the Python API, a callable scorer

def _score_table(seed=0, n=4, m=300):
    """A fixed 0/1 table with distinct model means (0.30, 0.45, 0.60, 0.80): the callable looks it up."""
    import numpy as np

    rng = np.random.default_rng(seed)
    means = np.array([0.30, 0.45, 0.60, 0.80])[:n]
    return {f"m{i}": (rng.random(m) < means[i]).astype(float) for i in range(n)}


def test_python_api_with_a_callable_certifies_resumes_and_pays_nothing_twice(tmp_path):
    import threading

    import paperlib

    table = _score_table()
    calls, lock = Counter(), threading.Lock()

    def score(model, example):
        with lock:
            calls[(model, example["id"])] += 1
        return table[model][example["id"]]

    models, examples = list(table), [{"id": j} for j in range(300)]
    journal = tmp_path / "run.jsonl"
    out = paperlib.search(models, examples, score, journal, delta=0.05, workers=4, json_out=tmp_path / "r.json")
    assert out["certified"] and out["best"] == "m3"
    assert max(calls.values()) == 1 and sum(calls.values()) == out["calls"] < 4 * 300
    assert json.loads((tmp_path / "r.json").read_text())["best"] == "m3"
    header = json.loads(journal.read_text().splitlines()[0])
    assert header["meta"]["scorer"].startswith("python:") and header["meta"]["scorer_files_sha256"]["source"]
    again = paperlib.search(models, examples, score, journal, delta=0.05, workers=2)  # resume: nothing to pay
    assert again["calls"] == out["calls"] and sum(calls.values()) == out["calls"]


def test_python_api_interrupted_mid_run_resumes_and_pays_for_no_pair_twice(tmp_path):
    """Issue 76, item 7: Ctrl-C in the middle of a Python-API search (the scorer's 60th call interrupts the main
    thread, as a signal would), then the same call again: the resume finishes the search, every pair is scored once
    over both runs, and the first run had really stopped part-way (fewer pairs journaled than the search needs)."""
    import _thread
    import threading

    import paperlib
    from paperlib.search import SearchInterrupted

    table = _score_table()
    calls, lock = Counter(), threading.Lock()

    def score(model, example):
        with lock:
            calls[(model, example["id"])] += 1
            if sum(calls.values()) == 60:
                _thread.interrupt_main()
        return table[model][example["id"]]

    models, examples = list(table), [{"id": j} for j in range(300)]
    journal = tmp_path / "run.jsonl"
    with pytest.raises(SearchInterrupted):
        paperlib.search(models, examples, score, journal, delta=0.05, workers=4)
    paid_before = sum(calls.values())
    journaled = sum(1 for x in journal.read_text().splitlines()[1:] if '"score"' in x)
    assert 60 <= paid_before < 100 and journaled == paid_before  # every paid call is in the journal

    out = paperlib.search(models, examples, score, journal, delta=0.05, workers=4)  # the resume
    assert out["certified"] and out["best"] == "m3"
    assert max(calls.values()) == 1, "a pair was paid for twice across the interruption"
    assert sum(calls.values()) == out["calls"] > paid_before  # the resume paid only for what was left


def test_python_api_refuses_another_function_on_resume_and_journals_exceptions(tmp_path):
    import paperlib

    table = _score_table()
    models, examples = list(table), [{"id": j} for j in range(300)]

    failed_once = set()

    def flaky(model, example):  # the first call of every 7th example fails; it is tried again later
        if example["id"] % 7 == 0 and (model, example["id"]) not in failed_once:
            failed_once.add((model, example["id"]))
            raise RuntimeError(f"upstream 503 for {model}")
        return table[model][example["id"]]

    journal = tmp_path / "run.jsonl"
    out = paperlib.search(models, examples, flaky, journal, delta=0.05, retries=0, max_failures=1000, budget=200)
    failures = [json.loads(x) for x in journal.read_text().splitlines()[1:] if '"error"' in x]
    assert out["failures"] > 0 and failures and all("RuntimeError: upstream 503" in f["error"] for f in failures)

    def other(model, example):
        return 0.5

    with pytest.raises(Exception, match="scorer"):
        paperlib.search(models, examples, other, journal, delta=0.05, budget=400)


@pytest.mark.parametrize("value, msg", [(1.5, "not a number in \\[0, 1\\]"), ("x", "not a number"), (None, "not a number")])
def test_a_callable_returning_a_non_score_is_that_calls_failure(value, msg):
    from paperlib.search import CallableScorer

    got, err = CallableScorer(lambda m, e: value)("a", 1)
    assert got is None and err and __import__("re").search(msg, err)


def test_python_api_bad_input_is_refused_before_any_call(tmp_path):
    import paperlib

    with pytest.raises(TypeError, match="callable"):
        paperlib.search(["a", "b"], [1, 2], 42, tmp_path / "j.jsonl")
    with pytest.raises(ValueError, match="distinct"):
        paperlib.search(["a", "a"], [1, 2], lambda m, e: 0.5, tmp_path / "j.jsonl")
    with pytest.raises(ValueError, match="input"):
        paperlib.search(["a", "b"], [1, 2], lambda m, e: 0.5, tmp_path / "j.jsonl", json_out=tmp_path / "j.jsonl")
    assert not (tmp_path / "j.jsonl").exists()


def test_no_ctrl_c_raises_inside_the_search_loop_and_the_previous_handler_comes_back(capfd):
    """Issue 43, class 1: a SIGINT only sets the flag the search loop reads; a second or third one (which raised
    KeyboardInterrupt, and could land between taking a finished call from the pool and journaling it: a paid call
    lost) now only says that the calls in flight are being waited for. The previous handler comes back."""
    import os
    import signal

    from paperlib.search import _StopOnSigint

    before = signal.getsignal(signal.SIGINT)
    with _StopOnSigint() as ctrl_c:
        os.kill(os.getpid(), signal.SIGINT)
        assert ctrl_c.requested
        for _ in range(3):
            os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is before
    assert capfd.readouterr().err.count("waiting for the calls in flight") == 3


@pytest.mark.slow
def test_spend_from_prices_or_from_the_scorer_is_journaled_and_survives_a_resume(tmp_path):
    """Issue 42, item 1: with fixed prices every model's spend is its calls x its price (an identity outside the
    code); a scorer that reports each call's cost ({"score", "cost"}) is charged exactly what it reported, the
    journal keeps each cost, and a resume reports the whole spend and refuses other prices."""
    import paperlib
    from paperlib.study import JournalError

    table = _score_table()
    models, examples = list(table), [{"id": j} for j in range(300)]
    prices = {m: p for m, p in zip(models, [0.5, 2.0, 0.1, 10.0], strict=False)}
    prices.update({m: 1.0 for m in models if m not in prices})

    def score(model, example):
        return table[model][example["id"]]

    out = paperlib.search(models, examples, score, tmp_path / "a.jsonl", delta=0.05, workers=2, costs=prices)
    assert out["spend_per_model"] == pytest.approx({m: out["calls_per_model"][m] * prices[m] for m in models})
    assert out["spend"] == pytest.approx(sum(out["spend_per_model"].values())) and out["calls_without_cost"] == 0
    again = paperlib.search(models, examples, score, tmp_path / "a.jsonl", delta=0.05, workers=2)  # its own prices
    assert again["spend"] == pytest.approx(out["spend"])
    with pytest.raises(JournalError, match="costs"):
        paperlib.search(models, examples, score, tmp_path / "a.jsonl", delta=0.05, workers=2,
                        costs={**prices, models[0]: 99.0})

    paid = Counter()

    def metered(model, example):
        cost = 0.001 * (1 + example["id"] % 7)  # "tokens x price": differs from call to call
        paid[model] += cost
        return {"score": table[model][example["id"]], "cost": cost}

    out = paperlib.search(models, examples, metered, tmp_path / "b.jsonl", delta=0.05, workers=2)
    assert out["spend_per_model"] == pytest.approx(dict(paid)) and out["calls_without_cost"] == 0
    recorded = [json.loads(x) for x in (tmp_path / "b.jsonl").read_text().splitlines()[1:]]
    assert sum(r["cost"] for r in recorded if r["type"] == "score") == pytest.approx(sum(paid.values()))
    again = paperlib.search(models, examples, metered, tmp_path / "b.jsonl", delta=0.05, workers=2)
    assert again["spend"] == pytest.approx(out["spend"]) and sum(paid.values()) == pytest.approx(out["spend"])


def test_search_refuses_bad_prices_and_bad_costs(setup, tmp_path):
    """A price list missing a model is refused before any call; a scorer's cost that is not a finite number >= 0 is
    that call's failure, never a score."""
    from paperlib.search import CallableScorer, Scorer

    (setup / "costs.json").write_text(json.dumps({"m0": 1.0}))
    r = search(setup, "o.json", "--costs", str(setup / "costs.json"))
    assert r.returncode == 2 and "no price for 4 model(s)" in r.stderr and not (setup / "calls.log").exists()
    value, err = CallableScorer(lambda m, e: {"score": 0.5, "cost": -1})("m0", {})
    assert value is None and "cost -1" in err
    value, err = CallableScorer(lambda m, e: {"cost": 1.0})("m0", {})
    assert value is None and "needs a 'score'" in err
    script = tmp_path / "s.py"
    script.write_text('print("log line")\nprint(\'{"score": 0.25, "cost": 0.003}\')\n')
    assert Scorer(f"{sys.executable} {script}")("m0", {}) == ((0.25, 0.003), None)


def test_a_budget_below_the_workers_is_not_refused_as_a_batch_size(tmp_path):
    """Issue 43, class 8: --workers 4 with --budget 1 was refused as "batch_size = 4 exceeds the budget" (a flag never
    given): the batch the workers imply is capped at the budget."""
    import paperlib

    table = _score_table()
    models, examples = list(table), [{"id": j} for j in range(300)]
    out = paperlib.search(models, examples, lambda m, e: table[m][e["id"]], tmp_path / "j.jsonl", budget=1,
                          workers=4, stop="budget")
    assert out["calls"] == 1


@pytest.mark.slow
def test_a_ctrl_c_at_any_moment_of_start_up_ends_with_130_and_no_traceback(setup):
    """Issue 43, class 1: a SIGINT while the command imports (NumPy's, torch's) raised inside C extensions, where it
    became an ImportError with a traceback (status 1) or left the interpreter to kill itself at exit (status -2).
    Once paperlib's entry point runs, every moment gives status 130 and one line (or 0: the search had finished)."""
    import signal
    import time

    d = setup
    cmd = [sys.executable, "-m", "paperlib", "search", "--models", str(d / "models.txt"), "--examples",
           str(d / "examples.txt"), "--scorer", f"{sys.executable} {d / 'scorer.py'}", "--quiet", "--budget", "6",
           "--stop", "budget"]
    seen = []
    for k, delay in enumerate((0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.8)):
        proc = subprocess.Popen([*cmd, "--json", str(d / f"o{k}.json")], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        if proc.returncode != 130 and "Traceback" in err and "paperlib" not in err:
            continue  # on a slow machine: still in the interpreter's own start-up (site, runpy), before our code
        seen.append(proc.returncode)
        assert proc.returncode in (0, 130) and "Traceback" not in err and "Error" not in err, (delay, err[-600:])
        if proc.returncode == 130:
            # (a print cut by the signal may leave its line without a newline: "auto: running ucbeinterrupted")
            assert "interrupted" in err.strip().splitlines()[-1], err
    assert len(seen) >= 6 and 130 in seen  # most landed in our code, at least one while it started or ran


def test_search_with_a_leaderboard_prior_and_bad_priors_refused_before_any_call(setup):
    """A leaderboard CSV (its columns named by the examples' ids, in another order) runs lucb-prior and certifies the
    right model; a leaderboard missing an example, or with a score outside [0, 1], is refused before any call."""
    d = setup
    other = low_rank_logistic(6, 80, gap=0.1, seed=9).scores  # other models on the same 80 examples
    cols = list(range(80))[::-1]
    lines = ["model," + ",".join(str(j) for j in cols)]
    lines += [f"x{k}," + ",".join(f"{other[k, j]:g}" for j in cols) for k in range(6)]
    (d / "leaderboard.csv").write_text("\n".join(lines) + "\n")
    proc = search(d, "out.json", "--prior", str(d / "leaderboard.csv"), "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    out = json.loads((d / "out.json").read_text())
    assert out["method"] == "lucb-prior" and out["certified"] and out["best"] == f"m{int(MAT.scores.mean(1).argmax())}"
    header = json.loads((d / "out.journal.jsonl").read_text().splitlines()[0])
    assert len(header["prior_sha256"]) == 64
    (d / "calls.log").unlink()
    (d / "short.csv").write_text("model,0,1\nx,0.5,0.5\n")
    (d / "wide.csv").write_text("\n".join(lines[:1] + [lines[1].replace(",0,", ",1.5,", 1) if ",0," in lines[1]
                                                         else lines[1][:-1] + "7"]) + "\n")
    for bad, message in (("short.csv", "not among its col_ids"), ("wide.csv", "must lie in")):
        proc = search(d, f"{bad}.json", "--prior", str(d / bad))
        assert proc.returncode != 0 and message in proc.stderr, proc.stderr
        assert not (d / "calls.log").exists() and not (d / f"{bad}.journal.jsonl").exists()


@pytest.mark.slow
def test_certified_and_prior_runs_as_blocks_are_the_runs_at_once():
    """Issue 67, item 2: certified search's runs and the prior runs in blocks of 3 (in reverse order) are exactly the
    rows of all the runs at once (keyed streams): calls, picks and certificates alike."""
    import pandas as pd

    from paperlib.beyond.search import experiments as SE
    from paperlib.pipeline.config import smoke_config

    cfg = {**smoke_config("search"), "reps": 7}
    cfg["prior"] = {**cfg["prior"], "reps": 5}
    blocked = {**cfg, "rep_block": 3}
    assert SE.search_blocks(blocked) == [0, 1, 2]
    for runs, key in ((SE.certified_runs, ["dataset", "method", "rep"]), (SE.prior_runs, ["dataset", "prior", "rep"])):
        one = runs(cfg, device="cpu")
        parts = [runs(blocked, device="cpu", block=b) for b in (2, 1, 0)]
        parts = pd.concat([p for p in parts if len(p)])  # the prior's 5 runs have no third block
        cols = key + ["calls", "certified", "right"]
        assert parts.sort_values(key).reset_index(drop=True)[cols].equals(one.sort_values(key).reset_index(drop=True)[cols])


@pytest.mark.slow
def test_certified_and_prior_runs_and_their_tables_record_their_machine_and_streams():
    """Issue 74, item 3: every row of certified search's runs and of the prior runs names the machine and the keyed
    streams that made it, and the summary tables made from them carry the same (joined where rows differ)."""
    from paperlib.beyond.search import experiments as SE
    from paperlib.device import describe, get_device
    from paperlib.keyed import STREAMS
    from paperlib.pipeline.config import smoke_config

    cfg = {**smoke_config("search"), "reps": 2}
    cfg["prior"] = {**cfg["prior"], "reps": 2}
    machine = describe(get_device("cpu"))
    runs = SE.certified_runs(cfg, device="cpu")
    prior = SE.prior_runs(cfg, device="cpu")
    assert len(runs) and len(prior)
    for t in (runs, prior, SE.savings_table(runs), SE.prior_table(prior)):
        assert set(t.machine) == {machine} and set(t.streams) == {STREAMS}
    two = runs.assign(machine=[machine if i % 2 else "NVIDIA H200" for i in range(len(runs))])
    g = SE.savings_table(two[two.dataset == two.dataset.iloc[0]])
    assert set(g.machine) == {"; ".join(sorted({machine, "NVIDIA H200"}))}
