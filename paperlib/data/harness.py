"""Score matrices from the per-sample logs of evaluation harnesses users already run.

lm-evaluation-harness (EleutherAI) with ``--log_samples`` writes, per model and task, a JSON-lines file
``samples_<task>_<timestamp>.jsonl`` (optionally gzipped): one line per document and filter, with ``doc_id``,
``filter``, ``metrics`` (the names of the metrics scored) and each metric's value as a key of its own. One model's
file (or its output folder) gives one row; the documents all models share give the columns. A user can then see,
with ``paperlib simulate`` or the race, what adaptive evaluation would have saved on their own logs.

    paperlib data import lm-eval --model llama=out/llama --model qwen=out/qwen --task gsm8k --out m.npz

inspect_ai writes one eval log per model and task (``.eval`` or ``.json``), read here with inspect_ai's own
``read_eval_log`` and its ``value_to_float`` (C = 1, P = 0.5, I = 0; numbers and booleans as they are); a
sample scored over several epochs gets its mean. inspect_ai is an optional dependency (``paperlib[inspect]``).

    paperlib data import inspect --model llama=logs/llama.eval --model qwen=logs/qwen.eval --out m.npz
"""

from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from pathlib import Path

import numpy as np

from .matrix import ScoreMatrix, ScoreMatrixError


class HarnessLogError(ValueError):
    """A log that cannot become a score matrix; the message names the file, line or key."""


def _samples_file(path: Path, task: str | None) -> Path:
    path = Path(path)
    if path.is_file():
        named = re.fullmatch(r"samples_(.+)_[^_]+\.jsonl(?:\.gz)?", path.name)
        if task is not None and (named is None or named.group(1) != task):
            said = f"holds samples of task {named.group(1)!r}" if named else "does not say its task in its name"
            raise HarnessLogError(f"{path}: --task {task} chooses among the samples files of a folder, but this file "
                                  f"{said}; leave --task out when naming a file, or name that task's file")
        return path
    if not path.is_dir():
        raise HarnessLogError(f"{path}: no such file or folder")
    pattern = f"samples_{task}_*.jsonl*" if task else "samples_*.jsonl*"
    found = sorted(path.rglob(pattern))
    if not found:
        raise HarnessLogError(f"{path}: no {pattern} file (run lm-eval with --log_samples, or name the file)")
    tasks = sorted({f.name.rsplit("_", 1)[0].removeprefix("samples_") for f in found})
    if len(tasks) > 1:
        raise HarnessLogError(f"{path}: samples of several tasks ({', '.join(tasks[:6])}); choose one with --task")
    if len(found) > 1:
        raise HarnessLogError(f"{path}: {len(found)} sample files of task {tasks[0]} ({found[0].name}, ...); "
                              "name the file to import")
    return found[0]


def read_lm_eval_samples(path, task: str | None = None, metric: str | None = None,
                         filter: str | None = None) -> tuple[dict, str, str]:
    """One model's scores by document: ({doc_id: score in [0, 1]}, metric, filter).

    ``metric`` and ``filter`` may be left out when the file has only one of each."""
    f = _samples_file(Path(path), task)
    opener = gzip.open if f.suffix == ".gz" else open
    rows = []
    try:
        with opener(f, "rt", encoding="utf-8") as fh:
            for no, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise HarnessLogError(f"{f}:{no}: not JSON ({exc.msg})") from None
                if not isinstance(rec, dict) or "doc_id" not in rec:
                    raise HarnessLogError(f"{f}:{no}: no doc_id; is this an lm-eval samples file?")
                rows.append((no, rec))
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:  # a download or copy cut short
        raise HarnessLogError(f"{f}: truncated or damaged gzip file after {len(rows)} samples ({exc}); copy it "
                              "again") from None
    except UnicodeDecodeError as exc:
        raise HarnessLogError(f"{f}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not rows:
        raise HarnessLogError(f"{f}: no samples")
    filters = sorted({str(r.get("filter", "none")) for _, r in rows})
    if filter is None:
        if len(filters) > 1:
            raise HarnessLogError(f"{f}: several filters ({', '.join(filters)}); choose one with --filter")
        filter = filters[0]
    elif filter not in filters:
        raise HarnessLogError(f"{f}: no filter {filter!r} (found {', '.join(filters)})")
    rows = [(no, r) for no, r in rows if str(r.get("filter", "none")) == filter]
    names = sorted({m for _, r in rows for m in r.get("metrics", [])})
    if metric is None:
        if len(names) != 1:
            raise HarnessLogError(f"{f}: {'several metrics' if names else 'no metrics list'} ({', '.join(names)}); "
                                  "choose one with --metric")
        metric = names[0]
    scores = {}
    for no, r in rows:
        if metric not in r:
            listed = " although its metrics list names it" if metric in r.get("metrics", []) else ""
            has = [k for k in names if k in r]
            values = f"values of {', '.join(has)}" if has else "no metric values"
            raise HarnessLogError(f"{f}:{no}: no {metric!r} value{listed} ({values})")
        value = r[metric]
        value = float(value) if isinstance(value, (bool, int, float)) else math.nan
        if not 0.0 <= value <= 1.0:
            raise HarnessLogError(f"{f}:{no}: {metric} = {r[metric]!r} is not a score in [0, 1]")
        key = str(r["doc_id"])
        if key in scores:
            raise HarnessLogError(f"{f}:{no}: doc_id {key} appears twice for filter {filter!r}")
        scores[key] = value
    return scores, metric, filter


def lm_eval_matrix(models: dict, task: str | None = None, metric: str | None = None, filter: str | None = None,
                   intersect: bool = False, name: str | None = None) -> ScoreMatrix:
    """A (models x documents) matrix from each model's lm-eval samples (``{model name: file or folder}``).

    Every model must have scored the same documents with the same metric and filter; ``intersect`` keeps the
    documents all of them scored instead (and says how many were dropped in ``meta``)."""
    if len(models) < 2:
        raise HarnessLogError(f"need at least 2 models (--model NAME=PATH), got {len(models)}")
    per, used = {}, set()
    for model, path in models.items():
        per[model], m_used, f_used = read_lm_eval_samples(path, task, metric, filter)
        used.add((m_used, f_used))
    if len(used) > 1:
        raise HarnessLogError(f"the models were read with different metrics or filters {sorted(used)}; give "
                              "--metric and --filter")
    (m_used, f_used), = used
    return _matrix(per, intersect, name or (task or "lm-eval"),
                   {"source": "lm-evaluation-harness samples", "metric": m_used, "filter": f_used})


def _log_file(path: Path) -> Path:
    path = Path(path)
    if path.is_file():
        return path
    if not path.is_dir():
        raise HarnessLogError(f"{path}: no such file or folder")
    found = sorted(f for f in path.rglob("*") if f.suffix in (".eval", ".json") and f.is_file())
    if len(found) != 1:
        raise HarnessLogError(f"{path}: {len(found) or 'no'} inspect_ai logs (.eval or .json){' ' if found else ''}"
                              f"{', '.join(f.name for f in found[:3])}; name the log to import")
    return found[0]


def read_inspect_log(path, scorer: str | None = None) -> tuple[dict, str, str]:
    """One model's scores by sample id from an inspect_ai eval log: ({sample id: score in [0, 1]}, scorer, model).

    Read with inspect_ai's ``read_eval_log``; each score value goes through inspect_ai's ``value_to_float``; the
    epochs of a sample are averaged. ``scorer`` may be left out when the log has one."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise HarnessLogError("reading inspect_ai logs needs inspect_ai: pip install 'paperlib[inspect]'") from None
    f = _log_file(Path(path))
    try:
        log = read_eval_log(str(f))
    except Exception as exc:  # inspect_ai raises its own and pydantic's errors on a bad file
        raise HarnessLogError(f"{f}: not an inspect_ai eval log ({type(exc).__name__}: {str(exc)[:200]})") from None
    if log.status != "success":
        raise HarnessLogError(f"{f}: the eval's status is {log.status!r}, not 'success'; rerun or resume it first")
    per, scorer = eval_log_scores(log, f, scorer)
    return per, scorer, str(log.eval.model)


def eval_log_scores(log, f, scorer: str | None = None, require_all: bool = True) -> tuple[dict, str]:
    """({sample id: score in [0, 1]}, scorer) of an inspect_ai ``EvalLog`` (``f`` names it in errors): each value
    through inspect_ai's ``value_to_float``, the epochs of a sample averaged; ``scorer`` may be left out when the log
    has one. ``require_all=False`` leaves out a sample that has no score (it errored) instead of refusing the log."""
    from inspect_ai.scorer import value_to_float

    if not log.samples:
        raise HarnessLogError(f"{f}: the log has no samples (written with --no-log-samples?)")
    names = sorted({k for s in log.samples for k in (s.scores or {})})
    if scorer is None and not names and not require_all:
        return {}, ""
    if scorer is None:
        if len(names) != 1:
            raise HarnessLogError(f"{f}: {'several scorers' if names else 'no scores'} ({', '.join(names)}); "
                                  "choose one with --metric")
        scorer = names[0]
    elif scorer not in names:
        raise HarnessLogError(f"{f}: no scorer {scorer!r} (found {', '.join(names) or 'none'})")
    to_float = value_to_float()
    sums, counts = {}, {}
    for s in log.samples:
        score = (s.scores or {}).get(scorer)
        if score is None and not require_all:
            continue
        if score is None:
            raise HarnessLogError(f"{f}: sample {s.id} (epoch {s.epoch}) has no {scorer!r} score")
        if isinstance(score.value, (dict, list)):
            raise HarnessLogError(f"{f}: sample {s.id}: {scorer} = {score.value!r} holds several values, not one score")
        value = float(to_float(score.value))
        if not 0.0 <= value <= 1.0:
            raise HarnessLogError(f"{f}: sample {s.id}: {scorer} = {score.value!r} is not a score in [0, 1]")
        key = str(s.id)
        sums[key] = sums.get(key, 0.0) + value
        counts[key] = counts.get(key, 0) + 1
    return {k: sums[k] / counts[k] for k in sums}, scorer


def inspect_matrix(models: dict, scorer: str | None = None, intersect: bool = False,
                   name: str | None = None) -> ScoreMatrix:
    """A (models x samples) matrix from each model's inspect_ai eval log (``{model name: log file or folder}``),
    under the same rules as :func:`lm_eval_matrix` (one scorer for all, the same samples or ``intersect``)."""
    if len(models) < 2:
        raise HarnessLogError(f"need at least 2 models (--model NAME=PATH), got {len(models)}")
    per, used, logged = {}, set(), {}
    for model, path in models.items():
        per[model], s_used, logged[model] = read_inspect_log(path, scorer)
        used.add(s_used)
    if len(used) > 1:
        raise HarnessLogError(f"the logs have different scorers {sorted(used)}; choose one with --metric")
    return _matrix(per, intersect, name or "inspect",
                   {"source": "inspect_ai eval logs", "metric": used.pop(), "filter": "none", "logged_models": logged})


def _matrix(per: dict, intersect: bool, name: str, meta: dict) -> ScoreMatrix:
    """The (models x documents) matrix of per-model {document: score} dicts; ``meta`` gains the dropped count."""
    docs = [set(s) for s in per.values()]
    common = set.intersection(*docs)
    if not intersect and any(d != common for d in docs):
        short = {m: len(common ^ set(s)) for m, s in per.items() if set(s) != common}
        raise HarnessLogError(f"the models scored different documents (differences: {short}); --intersect keeps "
                              "the ones all of them scored")
    if not common:
        raise HarnessLogError("no document was scored by every model")
    cols = sorted(common, key=lambda d: (len(d), d))
    scores = np.array([[per[m][d] for d in cols] for m in per], dtype=np.float64)
    meta = {**meta, "dropped_documents": int(len(set.union(*docs)) - len(common))}
    try:
        return ScoreMatrix.from_array(scores, list(per), cols, kind="real", name=name, meta=meta)
    except ScoreMatrixError as exc:
        raise HarnessLogError(str(exc)) from None


def save_npz(mat: ScoreMatrix, path) -> Path:
    """Write a matrix as ``simulate --scores`` and the race read it."""
    path = Path(path)
    with open(path, "wb") as fh:  # exactly this name (given a name, numpy would append .npz to one without it)
        np.savez_compressed(fh, scores=mat.scores, row_ids=np.array(mat.row_ids), col_ids=np.array(mat.col_ids),
                            kind=np.array(mat.kind), meta=np.array(json.dumps(mat.meta)))
    return path
