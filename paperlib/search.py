"""A certified best-model search against a live scorer: ``python -m paperlib search`` (a scorer command) or
``paperlib.search(models, examples, score)`` (a Python callable, or a command string), with the same journal and
result.

The scorer is any program: it receives one pair as a JSON object ``{"model": ..., "example": ...}``
on standard input and prints one score in [0, 1]. ``workers`` pairs are scored at a time (threads, each
running one scorer process). With a method that can be asked ahead of its scores (``lucb``, ``lucb-pd``, ``ucbe``,
``ucbe-sync``: :attr:`paperlib.policies.base.Policy.supports_ahead`) there is no batch barrier: a worker that
finishes gets the policy's next pair at once, while the others are still running (``barrier=True`` restores one
batch at a time). A non-zero exit, a time-out or output that is not a number in [0, 1] is retried ``retries`` times,
then written to the journal as a failure (never as a score) and tried again later; the run stops, journal intact,
once failures exceed ``max_failures``. Every score is in the journal the moment it arrives, so rerunning the
same command resumes where it stopped and pays again only for the calls that were in flight.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, deque
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, as_completed, wait
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .checks import check_score, check_seed, write_atomic
from .progress import progress_bar
from .study import Study, journal_meta


class SearchError(RuntimeError):
    """The search stopped (too many failures); the journal holds everything scored so far."""


class SearchInterrupted(RuntimeError):
    """Ctrl-C: the search stopped asking, recorded the calls in flight, and can be resumed."""


def read_models(path) -> list[str]:
    """One model name per non-empty line (a UTF-8 byte-order mark is not part of the first name)."""
    names = [line.strip() for line in Path(path).read_text(encoding="utf-8-sig").splitlines() if line.strip()]
    if len(names) < 2:
        raise ValueError(f"{path}: need at least 2 model names (one per line), got {len(names)}")
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise ValueError(f"{path}: duplicate model names: {', '.join(dup[:5])}")
    return names


def read_examples(path) -> list:
    """One example per non-empty line: a JSON value is passed through as is, anything else as a string (a UTF-8
    byte-order mark is not part of the first example)."""
    out = []
    for line in Path(path).read_text(encoding="utf-8-sig").splitlines():
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            out.append(line)
    if not out:
        raise ValueError(f"{path}: no examples")
    return out


@dataclass
class Scorer:
    """Runs the scorer command on one pair; returns (score, None) or (None, reason)."""

    command: str
    timeout: float = 600.0

    def __post_init__(self):
        self.argv = shlex.split(self.command)
        if not self.argv:
            raise ValueError("--scorer is empty")

    def identity(self) -> dict:
        """What decides the scores: the command, and the SHA-256 of every file it names (the scorer script), so that a
        resume with another scorer is refused instead of mixing two scorers' answers."""
        files = {}
        for token in self.argv[1:]:
            path = Path(token)
            if path.is_file():
                files[token] = hashlib.sha256(path.read_bytes()).hexdigest()
        return {"scorer": self.command, "scorer_files_sha256": files}

    def same_as(self, recorded: dict) -> bool:
        """Whether this command runs what a journal's ``recorded`` identity ran, named another way: the same
        tokens, except that a file may be named by another path (relative or absolute, a link) if its SHA-256 is the
        one recorded for the other name. A file whose content changed is never the same."""
        try:
            theirs = shlex.split(str(recorded.get("scorer", "")))
        except ValueError:
            return False
        digests = recorded.get("scorer_files_sha256") or {}
        if len(theirs) != len(self.argv) or theirs[:1] != self.argv[:1]:
            return False
        mine = self.identity()["scorer_files_sha256"]
        for a, b in zip(self.argv[1:], theirs[1:], strict=True):
            if a in mine or b in digests:  # a file then or now: the same content, whatever its name
                if mine.get(a) is None or mine.get(a) != digests.get(b):
                    return False
            elif a != b:
                return False
        return True

    def __call__(self, model: str, example) -> tuple[float | None, str | None]:
        payload = json.dumps({"model": model, "example": example}).encode()
        try:
            # its own session: a Ctrl-C at the terminal stops the search from asking, not the calls it has paid for
            proc = subprocess.run(self.argv, input=payload, capture_output=True, timeout=self.timeout,
                                  start_new_session=True)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {self.timeout:g} s"
        except OSError as exc:
            return None, f"could not run the scorer: {exc}"
        if proc.returncode != 0:
            return None, f"exit status {proc.returncode}: {stderr_tail(proc.stderr)}"
        try:
            text = proc.stdout.decode("utf-8").strip()
        except UnicodeDecodeError:
            return None, f"output is not UTF-8 text: {proc.stdout[-60:]!r}"
        last = text.splitlines()[-1] if text else ""
        if last.lstrip().startswith("{"):  # {"score": s, "cost": c}: the call's cost beside its score
            return _scored(last)
        try:
            value = float(last) if last else math.nan
        except ValueError:
            value = math.nan
        if not 0.0 <= value <= 1.0:
            return None, f"output is not a number in [0, 1]: {text[-100:]!r}"
        return value, None


def _code_digest(fn) -> str | None:
    """SHA-256 of what a Python function computes, beyond its source text: its code's constants (nested code
    included), the names it reads, its column on its line, its defaults and the values its closure holds. Two lambdas
    on one line (``f, g = (lambda m, e: 0.1), (lambda m, e: 0.9)``) share their source line and qualified name, and
    two closures made by one factory share their source; this tells them apart. None for a callable without code
    (a built-in, a C extension)."""
    fn = getattr(fn, "__func__", fn)  # a bound method
    code = getattr(fn, "__code__", None)
    if code is None:
        call = vars(type(fn)).get("__call__")  # a callable object: its class's own __call__
        code = getattr(call, "__code__", None)
        if code is None:
            return None

    def plain(v):  # stable across processes: no memory address, no hash-seeded set order
        if isinstance(v, (int, float, complex, str, bytes, type(None))):
            return repr(v)
        if isinstance(v, (tuple, list)):
            return tuple(plain(x) for x in v)
        if isinstance(v, frozenset):
            return tuple(sorted(plain(x) for x in v))
        if hasattr(v, "co_code"):
            return (v.co_name, plain(v.co_consts), v.co_names)
        return type(v).__qualname__

    first = next(iter(code.co_positions()), (None,) * 4)
    cells = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            cells.append(plain(cell.cell_contents))
        except ValueError:  # an empty cell
            cells.append(None)
    what = (code.co_name, plain(code.co_consts), code.co_names, code.co_varnames, code.co_firstlineno, first[2],
            plain(getattr(fn, "__defaults__", None)), tuple(cells))
    return hashlib.sha256(repr(what).encode()).hexdigest()


class CallableScorer:
    """A Python callable ``score(model, example) -> float in [0, 1]`` as a scorer, called from the worker threads.

    An exception is that attempt's failure (its last traceback lines are the message), as is a value that is not a
    number in [0, 1]. Its identity, recorded in the journal header, is the callable's qualified name and the SHA-256
    of its source, so a resume with another function (or an edited one) is refused like a changed scorer command.
    """

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError(f"score must be a callable (model, example) -> float or a command string, got {fn!r}")
        self.fn = fn

    def identity(self) -> dict:
        import inspect

        if callable(getattr(self.fn, "identity", None)):  # a scorer object that says what decides its scores
            return dict(self.fn.identity())
        name = f"{getattr(self.fn, '__module__', '?')}.{getattr(self.fn, '__qualname__', type(self.fn).__name__)}"
        try:
            digest = hashlib.sha256(inspect.getsource(self.fn).encode()).hexdigest()
        except (OSError, TypeError):  # built in, or defined where no source is kept
            digest = None
        out = {"scorer": f"python:{name}", "scorer_files_sha256": {"source": digest} if digest else {}}
        code = _code_digest(self.fn)
        if code is not None:  # a journal written before this key resumes as before: only recorded keys are compared
            out["scorer_code"] = code
        return out

    def __call__(self, model: str, example) -> tuple[float | None, str | None]:
        import traceback

        try:
            value = self.fn(model, example)
        except Exception as exc:  # the scorer's failure, not ours: journaled and retried
            tb = "".join(traceback.format_exception(exc)).encode()
            return None, f"raised {type(exc).__name__}: {stderr_tail(tb)}"
        if isinstance(value, dict):  # {"score": s, "cost": c}
            return _scored(value)
        try:
            return check_score(value, "score"), None
        except ValueError:  # a complex, a bool, a string, NaN or out of range: that attempt's failure, journaled
            return None, f"returned {value!r}, not a number in [0, 1]"


def _scored(value) -> tuple[object, str | None]:
    """A scorer's ``{"score": s, "cost": c}`` (a JSON line or a dict): ((s, c), None), or (None, the reason). The
    cost is what that call cost (tokens x price), journaled beside the score; ``cost`` may be left out."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None, f"output is neither a number nor a JSON object: {value[-100:]!r}"
    if not isinstance(value, dict) or "score" not in value:
        return None, f"a scorer's object needs a 'score' (and may give a 'cost'), got {str(value)[-100:]!r}"
    from .costs import CostError, check_cost

    score, cost = value["score"], value.get("cost")
    try:
        score = check_score(score, "score")
    except ValueError:
        return None, f"score {score!r} is not a number in [0, 1]"
    try:
        cost = None if cost is None else check_cost(cost, f"cost {cost!r}")
    except CostError as exc:
        return None, str(exc)
    return (float(score), cost), None


def stderr_tail(raw: bytes, lines: int = 3, chars: int = 600) -> str:
    """The last ``lines`` non-empty lines of a scorer's stderr on one line (a traceback's last lines say what went
    wrong, its first line never does); undecodable bytes are replaced."""
    kept = [x.strip() for x in raw.decode("utf-8", errors="replace").splitlines() if x.strip()]
    return " | ".join(kept[-lines:])[-chars:] or "(no stderr)"


def run_search(models, examples, scorer: Scorer, journal, *, method: str = "ucbe", budget: int | None = None,
               delta: float = 0.05, epsilon: float = 0.0, top_k: int = 1, seed: int = 0, workers: int = 4, retries: int = 2,
               max_failures: int = 20, stop: str = "certified", batch_size: int | None = None,
               progress: bool = True, backoff: float = 0.1, log_every: float = 5.0, barrier: bool = False,
               costs: dict | None = None, objective: str = "best", gamma: float | None = None, prior=None,
               predictions=None) -> dict:
    """Run (or resume) a search; returns the JSON-ready result.

    ``prior`` (other models' scores on the examples) or ``predictions`` (a predictor's scores for these models) runs
    ``lucb-prior`` (``method`` ``lucb`` or ``auto``): the same certificate, with predictions of the unseen scores
    (:mod:`paperlib.policies.lucb_prior`); the journal records its SHA-256 and a resume must give the same one.

    ``costs`` (``{model: price per call}``) prices every scored call (a scorer may report each call's cost instead:
    ``{"score": s, "cost": c}``); the result then has ``spend`` and ``spend_per_model``, and a resume with other
    prices is refused. ``objective="cheapest"`` (with ``costs`` and ``epsilon > 0``, method ``lucb-cheap``)
    certifies the cheapest model within epsilon of the best instead (:class:`paperlib.study.Study`); a resume with
    another objective is refused.

    A new journal asks ahead (no batch barrier) when the method can and ``barrier`` is False; a resumed one keeps
    the mode it was recorded in.

    A failed call is retried up to ``retries`` times, waiting ``backoff * 2**k`` seconds before retry k + 1; every
    failed attempt is journaled, but only a pair that fails all its attempts counts towards ``max_failures``, and
    only in this run (a resume after fixing the scorer starts from zero). With ``progress`` and stderr not a terminal
    (a log, a job scheduler), a line with the calls, the leader and its interval goes to stderr at most every
    ``log_every`` seconds, and at the end.
    """
    if workers < 1 or retries < 0 or max_failures < 0:
        raise ValueError("--workers must be >= 1, --retries and --max-failures >= 0")
    seed = check_seed(seed, "--seed")  # an integer in [0, 2^63 - 1], before any call (issue 76)
    if stop not in ("certified", "budget"):
        raise ValueError(f"--stop must be 'certified' or 'budget', got {stop!r}")
    if not 1 <= top_k < len(models):
        raise ValueError(f"--top-k must lie in [1, {len(models) - 1}], got {top_k}")
    if objective != "best" and top_k > 1:
        raise ValueError("--top-k certifies the k best models; it does not combine with --objective cheapest")
    # --workers is concurrency: the batch it implies never exceeds the budget (a budget of 1 with 4 workers was refused
    # as "batch_size = 4 exceeds the budget", a flag the user never gave)
    cap = budget if budget is not None else len(models) * len(examples)
    params = {"batch_size": batch_size or max(1, min(workers, int(cap)))}
    data = {k: v for k, v in (("prior", prior), ("predictions", predictions)) if v is not None}
    if data and method in ("auto", "lucb"):
        method = "lucb-prior"
    started = time.time()
    journal = Path(journal)
    meta = scorer.identity()
    if journal.exists() and hasattr(scorer, "same_as"):
        recorded = journal_meta(journal)
        if meta.get("scorer") != recorded.get("scorer") and scorer.same_as(recorded):
            meta = {k: recorded.get(k, v) for k, v in meta.items()}  # the same script by another path
    if journal.exists():  # --workers is concurrency only: the batch is the journal's
        extra = {} if gamma is None else {"gamma": gamma}
        study = Study.resume(journal, models=models, examples=examples, method=method, seed=seed, delta=delta,
                             epsilon=epsilon, budget=budget, meta=meta, costs=costs, objective=objective, **data,
                             **extra)
    else:
        study = Study(models, examples, method=method, budget=budget, delta=delta, journal=journal, seed=seed,
                      meta=meta, epsilon=epsilon, asynchronous=False if barrier else None, costs=costs,
                      objective=objective, gamma=gamma, **data, **params)

    if study.asynchronous:
        try:
            return _run_ahead(study, scorer, journal, workers=workers, retries=retries, max_failures=max_failures,
                              stop=stop, top_k=top_k, progress=progress, backoff=backoff, log_every=log_every,
                              started=started, method=method)
        finally:
            study.close()
    try:
        def certified() -> bool:
            return study.top_k(top_k)[1] if top_k > 1 else study.certified

        unrecovered = 0
        log = _LogLines(study, log_every) if progress and not sys.stderr.isatty() else None
        bar = progress_bar(study.budget, f"search ({method})", enabled=progress)
        bar.update(study.calls)
        with ThreadPoolExecutor(max_workers=workers) as pool, _StopOnSigint() as ctrl_c:
            while not study.done and not (stop == "certified" and certified()):
                if ctrl_c.requested:  # the batch in flight was finished and journaled
                    bar.close()
                    raise SearchInterrupted(f"interrupted: every score received is in {journal} (the calls in "
                                            "flight were waited for and recorded); rerun the same command to resume")
                req = study.ask()
                while study.pending == req and not ctrl_c.requested:
                    todo = study.missing(req)
                    jobs = {t: pool.submit(_attempts, scorer, models[req.pairs[t][0]], examples[req.pairs[t][1]], retries,
                                           backoff) for t in todo}
                    errors, index, done = [], {job: t for t, job in jobs.items()}, set()
                    try:
                        for job in as_completed(jobs.values()):  # written as they arrive, never behind a slow pair
                            t = index[job]
                            value, errors = job.result()
                            done.add(t)
                            if _journal(study, req, t, value, errors):
                                bar.update(1)
                            else:
                                unrecovered += 1
                    except KeyboardInterrupt:
                        bar.close()
                        _drain(study, {j: (req, u) for u, j in jobs.items() if u not in done})
                        raise SearchInterrupted(f"interrupted: every score received is in {journal} (the calls in "
                                                "flight were waited for and recorded); rerun the same command to "
                                                "resume") from None
                    if unrecovered > max_failures:
                        raise SearchError(f"{unrecovered} pairs failed every attempt in this run (more than --max-failures "
                                          f"{max_failures}); last: {errors[-1] if errors else '?'}. Everything scored is "
                                          f"in {journal}; fix the scorer and rerun the same command to resume.")
                _describe(bar, study)
                if log is not None:
                    log.maybe()
        bar.close()
        if log is not None:
            log.write()
        return result(study, top_k, journal, started=started)
    finally:
        study.close()


class _StopOnSigint:
    """Ctrl-C as a request to stop, never an exception: the first SIGINT sets ``requested`` (the search stops asking,
    waits for the calls in flight and journals them); a later one only says so again. No Ctrl-C can interrupt
    the journaling: an exception raised between bytecodes could land after a finished call is taken from the pool
    and before its score is written, and that paid call would be lost (and paid again on resume). The calls in
    flight end within --timeout; SIGTERM or SIGKILL still end the process at once (SIGKILL loses only the calls in
    flight, which a resume pays again). Only in the main thread (where Python delivers signals); the note is
    written with ``os.write``, which a handler may call while the main thread is inside ``print``."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def _handle(self, signum, frame):
        if self.requested:
            os.write(2, b"\nstopping: waiting for the calls in flight (already paid) to finish and be journaled; "
                        b"they end within --timeout. Kill the process (SIGTERM) to give them up.\n")
        self.requested = True

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False


def _run_ahead(study: Study, scorer, journal: Path, *, workers: int, retries: int, max_failures: int, stop: str,
               top_k: int, progress: bool, backoff: float, log_every: float, started: float, method: str) -> dict:
    """The search without a batch barrier: whenever a worker is free it gets the next pair (a failed or interrupted
    one first, else the policy's next, asked ahead of the scores still in flight)."""
    models, examples = study.models, study.examples

    def certified() -> bool:
        return study.top_k(top_k)[1] if top_k > 1 else study.certified

    unrecovered, last_error = 0, "?"
    todo = deque(study.outstanding())  # asked before a crash or Ctrl-C and never scored: paid for first
    running: dict = {}
    log = _LogLines(study, log_every) if progress and not sys.stderr.isatty() else None
    bar = progress_bar(study.budget, f"search ({method})", enabled=progress)
    bar.update(study.paid)
    with ThreadPoolExecutor(max_workers=workers) as pool, _StopOnSigint() as ctrl_c:
        try:
            while True:
                stopping = ctrl_c.requested or study.done or (stop == "certified" and certified())
                while not stopping and len(running) < workers:
                    if not todo:
                        if study.exhausted:
                            break
                        req = study.ask_ahead(limit=workers - len(running))
                        todo.extend((req, t) for t in range(len(req)))
                    req, t = todo.popleft()
                    i, j = req.pairs[t]
                    running[pool.submit(_attempts, scorer, models[i], examples[j], retries, backoff)] = (req, t)
                if not running:
                    if ctrl_c.requested:
                        raise KeyboardInterrupt
                    break
                finished, _ = wait(running, timeout=0.25, return_when=FIRST_COMPLETED)
                for job in finished:
                    req, t = running.pop(job)
                    value, errors = job.result()
                    if _journal(study, req, t, value, errors):
                        bar.update(1)
                    else:
                        unrecovered += 1
                        last_error = errors[-1] if errors else "?"
                        todo.append((req, t))
                if unrecovered > max_failures:
                    _drain(study, running)
                    raise SearchError(f"{unrecovered} pairs failed every attempt in this run (more than --max-failures "
                                      f"{max_failures}); last: {last_error}. Everything scored is in {journal}; fix the "
                                      "scorer and rerun the same command to resume.")
                _describe(bar, study)
                if log is not None:
                    log.maybe()
        except KeyboardInterrupt:
            bar.close()
            _drain(study, running)
            raise SearchInterrupted(f"interrupted: every score received is in {journal} (the calls in flight were "
                                    "waited for and recorded); rerun the same command to resume") from None
    bar.close()
    if log is not None:
        log.write()
    return result(study, top_k, journal, started=started)


def _drain(study: Study, running: dict) -> None:
    """Wait for the calls in flight, ``{future: (request, index)}`` (they are paid for), and journal their results."""
    for job, (req, t) in list(running.items()):
        try:
            value, errors = job.result()
        except (KeyboardInterrupt, Exception):  # a call that raised (or Ctrl-C outside the main thread): keep the rest
            continue
        _journal(study, req, t, value, errors)
    running.clear()


def _journal(study: Study, req, t: int, value: float | None, errors: list[str]) -> bool:
    """Journal one pair's attempts: every failed one, then its score if it has one (returned: whether it has)."""
    for err in errors:
        study.record_failure(req, t, err)
    if value is None:
        return False
    score, cost = value if isinstance(value, tuple) else (value, None)
    study.record_score(req, t, score, cost=cost)
    return True


def _attempts(scorer: Scorer, model: str, example, retries: int, backoff: float = 0.0) -> tuple[float | None, list[str]]:
    """Score one pair: up to ``retries + 1`` attempts with exponential backoff; the score (or None) and the errors."""
    errors = []
    for k in range(retries + 1):
        if k:
            time.sleep(backoff * 2 ** (k - 1))
        value, err = scorer(model, example)
        if err is None:
            return value, errors
        errors.append(err)
    return None, errors


class _LogLines:
    """Progress off a terminal: one plain line (calls, leader, its interval) at most every ``every`` seconds."""

    def __init__(self, study: Study, every: float):
        self.study, self.every, self.last = study, every, time.monotonic()

    def maybe(self) -> None:
        if time.monotonic() - self.last >= self.every:
            self.write()

    def write(self) -> None:
        s = self.study
        lead = s.best()
        lo, hi = s.intervals()[lead]
        print(f"search: {s.calls}/{s.budget} calls, leader {lead} [{lo:.3f}, {hi:.3f}]"
              + (" certified" if s.certified else "") + _spent(s), file=sys.stderr, flush=True)
        self.last = time.monotonic()


def _spent(study: Study) -> str:
    """``, spend X`` when prices or scorer costs are known (the spend so far, this run and the journal's), else ``""``."""
    spend = study.spend_per_model
    return "" if spend is None else f", spend {sum(spend.values()):.4g}"


def _describe(bar, study: Study) -> None:
    lead = study.best()
    lo, hi = study.intervals()[lead]
    bar.set_postfix_str(f"leader {lead} [{lo:.3f}, {hi:.3f}]" + (" certified" if study.certified else "")
                        + _spent(study))


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, tz=timezone.utc).isoformat(timespec="seconds")


def result(study: Study, top_k: int, journal: Path, started: float | None = None) -> dict:
    """The search's JSON: the answer, its intervals and certificate, the calls (in all and per model), and the
    calls saved against scoring every pair, given only for a certified answer (a budget stop saves nothing that
    can be trusted). ``started``: the run's start (epoch seconds), for its timestamps and wall time."""
    n, m = len(study.models), len(study.examples)
    iv = study.intervals()
    per_model = Counter(i for i, _ in study.scored_pairs())
    out = dict(best=study.best(), estimates={k: (None if math.isnan(v) else v) for k, v in study.estimates().items()},
               intervals={k: list(v) for k, v in iv.items()},
               certified=study.certified, delta=study.delta, epsilon=study.epsilon, calls=study.paid,
               calls_per_model={name: per_model.get(i, 0) for i, name in enumerate(study.models)},
               failures=study.failures, method=study.method, seed=study.seed, journal=str(journal),
               models=n, examples=m)
    done = study.certified
    if top_k > 1:
        top, ok = study.top_k(top_k)
        out.update(top_k=top, top_k_certified=ok)
        done = ok
    out["calls_saved"] = n * m - study.paid if done else None
    if study.objective != "best":
        out.update(objective=study.objective, gamma=study.gamma, price=study.costs[study.models.index(out["best"])])
    spend = study.spend_per_model
    if spend is not None:  # prices given, or costs reported by the scorer
        out.update(spend=sum(spend.values()), spend_per_model=spend, calls_without_cost=study.calls_without_cost)
    if started is not None:
        finished = time.time()
        out.update(started_at=_iso(started), finished_at=_iso(finished), wall_s=round(finished - started, 3))
    return out


def search(models, examples, score, journal, *, json_out=None, method: str = "auto", budget: int | None = None,
           delta: float = 0.05, epsilon: float = 0.0, top_k: int = 1, seed: int = 0, workers: int = 4, retries: int = 2,
           max_failures: int = 20, stop: str = "certified", timeout: float = 600.0, progress: bool = False,
           backoff: float = 0.1, barrier: bool = False, costs: dict | None = None, objective: str = "best",
           gamma: float | None = None, prior=None, predictions=None) -> dict:
    """Find the best model with a certificate, from Python: ``paperlib.search(models, examples, score, journal)``.

    Parameters
    ----------
    models : sequence of str
        Distinct model (or prompt) names.
    examples : sequence
        The benchmark; each example is handed to ``score`` as is (it must be JSON-serialisable for a command).
    score : callable or str
        ``score(model, example) -> float`` in [0, 1], called from ``workers`` threads; or a command line that reads
        ``{"model": ..., "example": ...}`` on standard input and prints the score (as ``python -m paperlib search``).
        Either may give the call's cost too: a dict / a JSON line ``{"score": s, "cost": c}``.
    journal : path
        Every score is appended here as it arrives; calling again with the same arguments resumes from it and pays
        for no pair twice (the journal is locked while a search runs).
    json_out : path, optional
        Also write the result as JSON (refused if it is the journal).
    method : str
        ``auto`` (default) resolves to :func:`resolve_auto`'s choice for a fixed-confidence run (``lucb``); the
        result's ``method`` says which ran.
    budget, delta, epsilon, top_k, seed, workers, retries, max_failures, stop, backoff, barrier
        As the command's flags (``python -m paperlib search --help``).
    costs : dict, optional
        ``{model: price per call}``; the result then reports ``spend`` and ``spend_per_model``.
    objective : {"best", "cheapest"}
        ``cheapest`` (needs ``costs`` and ``epsilon > 0``): certify the cheapest model within ``epsilon`` of the best,
        such that no cheaper model is within ``epsilon - gamma`` (``gamma`` default ``epsilon / 2``); ``best`` is then
        that model and the result adds ``objective``, ``gamma`` and its ``price``.
    prior : (K, m) array, optional
        Other models' scores on these examples, in the examples' order (NaN where unscored; read a leaderboard with
        :func:`paperlib.prior.read_prior`): ``auto`` then runs ``lucb-prior``, the same certificate with fewer calls
        when the prior predicts the candidates' scores (:mod:`paperlib.policies.lucb_prior`).
    predictions : (n, m) array, optional
        A predictor's scores in [0, 1] for these models on these examples (NaN where none), instead of ``prior``.

    Returns
    -------
    dict
        The command's JSON: ``best``, ``certified``, ``estimates``, ``intervals``, ``calls``, ``calls_per_model``,
        ``calls_saved`` (certified answers only), timestamps, ``method``, ``journal``.
    """
    from .checks import check_output_path

    if isinstance(models, (str, bytes)) or isinstance(examples, (str, bytes)):
        raise TypeError("models and examples are sequences (read files with read_models / read_examples)")
    models, examples = [str(x) for x in models], list(examples)
    if len(models) < 2 or len(set(models)) != len(models):
        raise ValueError(f"need at least 2 distinct model names, got {models[:5]}")
    if not examples:
        raise ValueError("no examples")
    scorer = Scorer(score, timeout) if isinstance(score, str) else CallableScorer(score)
    scorer_files = [Path(t) for t in scorer.identity().get("scorer_files_sha256", {})]
    if json_out is not None:
        json_out = check_output_path(json_out, "json_out", inputs=[journal, *scorer_files])
    check_output_path(journal, "journal", inputs=scorer_files)
    method = resolve_auto(method, "certified" if stop == "certified" else "budget", top_k, objective=objective,
                          prior=prior is not None or predictions is not None)
    out = run_search(models, examples, scorer, journal, method=method, budget=budget, delta=delta, epsilon=epsilon,
                     top_k=top_k,
                     seed=seed, workers=workers, retries=retries, max_failures=max_failures, stop=stop,
                     progress=progress, backoff=backoff, barrier=barrier, costs=costs, objective=objective, gamma=gamma,
                     prior=prior, predictions=predictions)
    if json_out is not None:
        write_atomic(json_out, json.dumps(out, indent=2) + "\n")
    return out


def resolve_auto(method: str, stop: str, top_k: int = 1, live: bool = True, objective: str = "best",
                 prior: bool = False) -> str:
    """What ``auto`` means: a fixed-confidence run (stop at a certificate) uses ``lucb``, the rule aimed at the
    certificate that needed the fewest calls on every real matrix of ``benchmarks/bench_certify.py`` (fewer than
    ``lucb-pd`` and UCB-E; ``benchmarks/RESULTS.md``) (a top-k certificate, which it does not target, uses ``ucbe``); a fixed-budget simulation uses SySRs
    (``auto``'s policy, the race's recommendation), and a live search with ``--stop budget`` uses ``ucbe`` (a live
    study must be anytime, so that a resume may raise the budget; SySRs plans its phases from the budget). Other
    methods are returned as they are. With ``objective="cheapest"``, ``auto`` is ``lucb-cheap``, the one rule for it;
    with a ``prior`` (or predictions), ``lucb-prior``, the one rule that reads them."""
    if method != "auto":
        return method
    if prior:
        if objective == "cheapest" or top_k > 1:
            raise ValueError("a prior (--prior, --predictions) is used by lucb-prior, which certifies the best model; "
                             "it does not combine with --objective cheapest or --top-k")
        return "lucb-prior"
    if objective == "cheapest":
        return "lucb-cheap"
    if stop == "certified":
        return "lucb" if top_k == 1 else "ucbe"
    return "ucbe" if live else "auto"


class _CallableModule(type(sys)):
    """``paperlib.search(...)`` calls :func:`search`; the module's other names stay importable."""

    def __call__(self, *args, **kwargs):
        return search(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
