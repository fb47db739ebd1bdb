"""Replay of the live search's trust cases (issue 30): faulty scorers x interruptions x workers x barrier mode, each
run as a user would (``python -m paperlib search`` subprocesses), resumed until it completes; every case is checked
for paid calls lost or paid twice.

A case's scorer logs every invocation (``start i j``) and every success (``ok i j``, written just before it prints
the score; ``bad i j`` before unusable output, a failed call the search must try again). Its faults hit the first attempt of every 4th pair only, so a resume always completes: ``ok`` (none),
``exit`` (status 3 with a Python traceback on stderr), ``garbage`` (prints a word), ``bytes`` (undecodable output),
``timeout`` (sleeps past ``--timeout``), ``slow`` (lognormal latency, median 20 ms, p99 0.5 s, every pair).
Interruptions: ``none``; ``sigint`` and ``sigkill`` once 12 calls have started; ``sigint-startup`` (during the
imports, before any call); ``sigint-3x`` (three Ctrl-Cs 20 ms apart once 12 calls have started: the second and
third land while the calls in flight are drained); ``sigint-scorer`` (the 12th successful call itself sends three
Ctrl-Cs to the search as it hands back its score, so they land while results are taken and journaled); ``second`` (a second identical
search started once 6 calls have, which must be refused naming the holder while the first goes on; if the first
has finished by the time the second takes the lock, the second resumes the finished journal and must pay nothing).

Checks, per case: no successful call is missing from the journal and none is paid twice, except, after a SIGKILL,
the calls that were in flight then (at most ``--workers``); Ctrl-C exits 130 without a traceback; the second search
is refused; the answer is the matrix's best model, certified. Prints one line per failing case and a summary.

    python benchmarks/replay_search_cases.py [--only-fault exit] [--jobs 2]
"""

from __future__ import annotations

import argparse
import itertools
import json
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paperlib.data.synthetic import low_rank_logistic  # noqa: E402

FAULTS = ["ok", "exit", "garbage", "bytes", "timeout", "slow"]
INTERRUPTS = ["none", "sigint", "sigkill", "second", "sigint-startup", "sigint-3x", "sigint-scorer"]
MAT = low_rank_logistic(4, 60, rank=2, gap=0.15, seed=3)

SCORER = textwrap.dedent("""
    import json, math, os, random, sys, time
    d, fault = sys.argv[1], sys.argv[2]
    pair = json.load(sys.stdin)
    i, j = int(pair["model"][1:]), int(pair["example"])
    with open(os.path.join(d, "calls.log"), "a") as f:
        f.write(f"start {i} {j}\\n")
    starts = sum(1 for x in open(os.path.join(d, "calls.log")) if x == f"start {i} {j}\\n")
    hit = starts == 1 and (i * 60 + j) % 4 == 0
    if fault == "slow":
        time.sleep(math.exp(math.log(0.02) + 1.37 * random.Random(i * 1000 + j).gauss(0, 1)))
    if hit and fault == "exit":
        raise SystemExit(f"Traceback (most recent call last):\\n  ...\\nValueError: rate limited on {i} {j}") from None
    if hit and fault == "timeout":
        time.sleep(5)
    score = json.load(open(os.path.join(d, "scores.json")))[i][j]
    bad = hit and fault in ("garbage", "bytes")
    with open(os.path.join(d, "calls.log"), "a") as f:
        f.write(f"{'bad' if bad else 'ok'} {i} {j}\\n")
    if bad and fault == "garbage":
        print("maybe")
    elif bad:
        sys.stdout.buffer.write(b"\\xff\\xfe\\n")
    else:
        print(score)
    if len(sys.argv) > 3 and sys.argv[3] == "sigint-scorer":
        sys.stdout.flush()
        oks = sum(1 for x in open(os.path.join(d, "calls.log")) if x.startswith("ok"))
        if oks == 12:  # three Ctrl-Cs to the search while this paid call is being handed back and journaled
            import signal
            for _ in range(3):
                os.kill(os.getppid(), signal.SIGINT)
                time.sleep(0.01)
""")


def command(d: Path, fault: str, workers: int, barrier: bool, interrupt: str = "none") -> list[str]:
    cmd = [sys.executable, "-m", "paperlib", "search", "--models", str(d / "models.txt"), "--examples",
           str(d / "examples.txt"), "--scorer", f"{sys.executable} {d / 'scorer.py'} {d} {fault} {interrupt}", "--json",
           str(d / "out.json"), "--workers", str(workers), "--delta", "0.1", "--seed", "1", "--timeout", "2",
           "--retries", "1", "--backoff", "0.01", "--max-failures", "50", "--quiet"]
    return cmd + (["--barrier"] if barrier else [])


def started(d: Path) -> int:
    log = d / "calls.log"
    return sum(1 for x in log.read_text().splitlines() if x.startswith("start")) if log.exists() else 0


def launch(cmd):
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for(proc, d: Path, calls: int) -> bool:
    while proc.poll() is None:
        if started(d) >= calls:
            return True
        time.sleep(0.005)
    return False


def finishes(proc, within: float = 10.0) -> bool:
    """Whether ``proc`` ends within a few seconds (it releases the journal's lock just before writing its JSON)."""
    try:
        proc.wait(timeout=within)
    except subprocess.TimeoutExpired:
        return False
    return True


def run_case(fault: str, interrupt: str, workers: int, barrier: bool) -> tuple[str, list[str]]:
    name = f"{fault}/{interrupt}/w{workers}/{'barrier' if barrier else 'ahead'}"
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "scores.json").write_text(json.dumps(MAT.scores.tolist()))
        (d / "models.txt").write_text("".join(f"m{i}\n" for i in range(MAT.scores.shape[0])))
        (d / "examples.txt").write_text("".join(f"{j}\n" for j in range(MAT.scores.shape[1])))
        (d / "scorer.py").write_text(SCORER)
        cmd = command(d, fault, workers, barrier, interrupt)
        proc = launch(cmd)
        in_flight_allowance = 0
        if interrupt == "sigint-startup":  # during the imports, before any call
            time.sleep(0.3)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate()
            if proc.returncode not in (0, 130) or "Traceback" in err:
                problems.append(f"Ctrl-C at start-up: exit status {proc.returncode}, {err.strip()[-200:]!r}")
        elif interrupt == "sigint-3x" and wait_for(proc, d, 12):  # the second and third land while draining
            for _ in range(3):
                proc.send_signal(signal.SIGINT)
                time.sleep(0.02)
            _, err = proc.communicate()
            if proc.returncode not in (0, 130) or "Traceback" in err:
                problems.append(f"three Ctrl-Cs: exit status {proc.returncode}, {err.strip()[-200:]!r}")
        elif interrupt == "sigint-scorer":  # sent by the 12th paid call itself, as its score is handed back
            _, err = proc.communicate()
            if proc.returncode not in (0, 130) or "Traceback" in err:
                problems.append(f"Ctrl-Cs from a scorer: exit status {proc.returncode}, {err.strip()[-200:]!r}")
        elif interrupt in ("sigint", "sigkill") and wait_for(proc, d, 12):
            proc.send_signal(signal.SIGINT if interrupt == "sigint" else signal.SIGKILL)
            _, err = proc.communicate()
            if interrupt == "sigint":
                if proc.returncode != 130:
                    problems.append(f"Ctrl-C exit status {proc.returncode}")
                if "Traceback" in err:
                    problems.append("Ctrl-C printed a traceback")
            else:
                in_flight_allowance = workers
                time.sleep(2.5)  # orphaned scorers finish (paid) after their parent died
        elif interrupt == "second" and wait_for(proc, d, 6):
            second = subprocess.run(cmd, capture_output=True, text=True)
            if second.returncode == 0 and not finishes(proc):
                problems.append("a second search ran beside the first")
            elif second.returncode != 0 and "in use" not in second.stderr:
                problems.append(f"second search failed without naming the holder (status {second.returncode}): "
                                f"{second.stderr[-200:]}")
            # status 0 with the first already finished: the second started after it and resumed its journal
        proc.communicate()
        for _ in range(6):  # resume until it completes
            if (d / "out.json").exists() and proc.returncode == 0:
                break
            proc = launch(cmd)
            _, err = proc.communicate()
        if proc.returncode != 0:
            problems.append(f"did not complete: status {proc.returncode}: {err.strip()[-200:]}")
            return name, problems
        out = json.loads((d / "out.json").read_text())
        lines = [json.loads(x) for x in (d / "out.journal.jsonl").read_text().splitlines()]
        asked = {(r["request"], t): tuple(p) for r in lines if r["type"] == "ask" for t, p in enumerate(r["pairs"])}
        journaled = Counter(asked[(r["request"], r["index"])] for r in lines if r["type"] == "score")
        ok = Counter(tuple(map(int, x.split()[1:])) for x in (d / "calls.log").read_text().splitlines()
                     if x.startswith("ok"))
        lost = sum(1 for p in ok if p not in journaled)
        twice = sum(c - 1 for c in ok.values() if c > 1)
        if any(c > 1 for c in journaled.values()):
            problems.append("a pair journaled twice")
        if lost > in_flight_allowance or twice > in_flight_allowance:
            problems.append(f"{lost} paid calls lost, {twice} paid twice (allowed {in_flight_allowance})")
        if out["best"] != f"m{MAT.best}" or not out["certified"]:
            problems.append(f"answer {out['best']} certified={out['certified']} (truth m{MAT.best})")
        if out["calls"] != sum(journaled.values()):
            problems.append(f"JSON calls {out['calls']} != {sum(journaled.values())} scores journaled")
    return name, problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only-fault", nargs="*", default=FAULTS)
    ap.add_argument("--only-interrupt", nargs="*", default=INTERRUPTS)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    cases = list(itertools.product(args.only_fault, args.only_interrupt, (1, 4), (False, True)))
    t0, bad = time.time(), 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for name, problems in pool.map(lambda c: run_case(*c), cases):
            if problems:
                bad += 1
                print(f"FAIL {name}: {'; '.join(problems)}", flush=True)
    print(f"{len(cases)} cases, {bad} failing, {time.time() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
