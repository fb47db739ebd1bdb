"""What a practitioner already knows before the first call: a prior score matrix or a predictor (issue 59, item 1).

Two inputs, each checked in full before any call, with an error that names the problem:

* **a prior** (:func:`read_prior`, :func:`check_prior`): other models' scores on the same examples (a leaderboard,
  last quarter's runs): rows = models, columns = examples, values in [0, 1], NaN for a pair never scored. An ``.npz``
  with ``scores`` (and optionally ``col_ids``, ``row_ids``) or a CSV (a header line of example ids, then one line per
  model: its id, then its scores; an empty cell is NaN). Its columns are matched to the examples by ``col_ids``
  (against the examples' ids), else by order when the counts agree; anything else is refused.
* **predictions** (:func:`read_predictions`, :func:`check_predictions`): a user's own predictor of the candidates'
  scores, one number in [0, 1] per (model, example) pair it covers (a CSV ``model,example,prediction`` or a JSON
  list of such objects); a pair it leaves out is NaN (predicted by nothing: it counts as unpredicted).

:func:`example_features` turns a prior into the example features of :class:`paperlib.confseq.PriorAssistedCS`: an
intercept, the prior's column mean (the average prior model's score on the example) and the leading right singular
vectors of the column-centred prior (a low-rank embedding of the examples, PULSE's Step 1 made deterministic: a
truncated SVD instead of Adam on Eq. 1). :func:`digest` is the SHA-256 a journal records, so that a resume with
another prior is refused.

Written by hand: a few checks and numpy's SVD; no library reads a leaderboard into a feature matrix.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import numpy as np


class PriorError(ValueError):
    """A prior or a prediction file that cannot be used; the message names the file and the problem."""


def check_prior(scores, m: int, where: str = "prior") -> np.ndarray:
    """A prior score matrix as float64 (K, m): at least one row, m columns, values in [0, 1] or NaN. A column no prior
    model scored is allowed (its feature is the average column's); a row with no score at all is refused (it says
    nothing and is most likely a mistake)."""
    try:
        arr = np.array(scores, dtype=np.float64, ndmin=2)
    except (TypeError, ValueError) as exc:
        raise PriorError(f"{where}: scores must be numbers: {exc}") from None
    if arr.ndim != 2:
        raise PriorError(f"{where}: scores must be a 2-D matrix (models x examples), got shape {arr.shape}")
    if arr.size == 0 or arr.shape[0] < 1:
        raise PriorError(f"{where}: the prior is empty (shape {arr.shape}); give at least one model's scores")
    if arr.shape[1] != m:
        raise PriorError(f"{where}: {arr.shape[1]} columns, but there are {m} examples; the prior's columns must be "
                         "the same examples (match them with col_ids)")
    if np.isinf(arr).any():
        raise PriorError(f"{where}: infinite values (use NaN for a pair never scored)")
    bad = np.argwhere((arr < 0) | (arr > 1))
    if bad.size:
        i, j = bad[0]
        raise PriorError(f"{where}: scores must lie in [0, 1]; {len(bad)} do not, e.g. row {i}, column {j}: "
                         f"{arr[i, j]!r}")
    empty = np.flatnonzero(np.isnan(arr).all(axis=1))
    if empty.size:
        raise PriorError(f"{where}: row(s) {empty[:10].tolist()} have no score at all (NaN throughout); drop them")
    return arr


def _ids(values, what: str, where: str) -> list[str]:
    ids = [str(x) for x in values]
    seen, dup = set(), []
    for x in ids:
        if x in seen:
            dup.append(x)
        seen.add(x)
    if dup:
        raise PriorError(f"{where}: duplicate {what}: {', '.join(sorted(set(dup))[:5])}")
    return ids


def align_columns(scores: np.ndarray, col_ids, example_ids, where: str = "prior") -> np.ndarray:
    """The prior's columns in the examples' order: by ids when both have them, else by order when the counts agree."""
    m = len(example_ids) if example_ids is not None else None
    if col_ids is not None and example_ids is not None:
        cols = _ids(col_ids, "column ids", where)
        want = _ids(example_ids, "example ids", "examples")
        index = {c: k for k, c in enumerate(cols)}
        missing = [e for e in want if e not in index]
        if missing:
            raise PriorError(f"{where}: {len(missing)} of the {len(want)} examples are not among its col_ids, e.g. "
                             f"{', '.join(missing[:5])}")
        return scores[:, [index[e] for e in want]]
    if m is not None and scores.shape[1] != m:
        raise PriorError(f"{where}: {scores.shape[1]} columns and no col_ids to match them to the {m} examples "
                         "(give col_ids, or one column per example in the examples' order)")
    return scores


def _read_csv_matrix(path: Path) -> tuple[np.ndarray, list[str], list[str]]:
    """A CSV leaderboard: header ``model,<example id>,...``, then ``<model id>,<score>,...``; empty cells are NaN."""
    text = path.read_text(encoding="utf-8-sig")
    rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    if len(rows) < 2:
        raise PriorError(f"{path}: a prior CSV needs a header line of example ids and at least one model line")
    header = rows[0]
    cols = [c.strip() for c in header[1:]]
    out, names = [], []
    for no, r in enumerate(rows[1:], start=2):
        if len(r) != len(header):
            raise PriorError(f"{path}:{no}: {len(r)} cells, the header has {len(header)}")
        names.append(r[0].strip())
        try:
            out.append([float(c) if c.strip() else np.nan for c in r[1:]])
        except ValueError as exc:
            raise PriorError(f"{path}:{no}: not a number ({exc})") from None
    _ids(names, "model ids", str(path))
    return np.asarray(out, dtype=np.float64), cols, names


def read_prior(path, example_ids=None, m: int | None = None) -> np.ndarray:
    """A prior from an ``.npz`` (``scores``, optional ``col_ids``) or a CSV, aligned to the examples and checked
    (:func:`check_prior`). ``example_ids``: the examples' ids (a score matrix's ``col_ids``, or the examples
    themselves as text); ``m``: their count when there are no ids."""
    path = Path(path)
    if not path.is_file():
        raise PriorError(f"prior file not found: {path}")
    if path.stat().st_size == 0:
        raise PriorError(f"{path}: the file is empty")
    col_ids = None
    if path.suffix.lower() == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                if "scores" not in z.files:
                    raise PriorError(f"{path}: no 'scores' array (found {z.files})")
                scores = np.array(z["scores"], dtype=np.float64)
                col_ids = z["col_ids"].tolist() if "col_ids" in z.files else None
        except PriorError:
            raise
        except Exception as exc:
            raise PriorError(f"{path} is not a readable .npz file ({exc})") from None
    else:
        scores, col_ids, _ = _read_csv_matrix(path)
    if scores.ndim != 2:
        raise PriorError(f"{path}: scores must be a 2-D matrix (models x examples), got shape {scores.shape}")
    if col_ids is not None and len(col_ids) != scores.shape[1]:
        raise PriorError(f"{path}: {len(col_ids)} col_ids for {scores.shape[1]} columns")
    want = m if example_ids is None else len(example_ids)
    scores = align_columns(scores, col_ids, example_ids, str(path)) if example_ids is not None else scores
    return check_prior(scores, scores.shape[1] if want is None else want, str(path))


def check_predictions(pred, n: int, m: int, where: str = "predictions") -> np.ndarray:
    """A predictions matrix (n, m): values in [0, 1], NaN where there is no prediction (counted as unpredicted)."""
    try:
        arr = np.array(pred, dtype=np.float64, ndmin=2)
    except (TypeError, ValueError) as exc:
        raise PriorError(f"{where}: predictions must be numbers: {exc}") from None
    if arr.shape != (n, m):
        raise PriorError(f"{where}: predictions must be one per (model, example): shape ({n}, {m}), got {arr.shape}")
    if np.isinf(arr).any() or ((arr < 0) | (arr > 1)).any():
        raise PriorError(f"{where}: predictions must lie in [0, 1] (NaN for none)")
    if np.isnan(arr).all():
        raise PriorError(f"{where}: no prediction at all")
    return arr


def read_predictions(path, models, example_ids) -> np.ndarray:
    """Predictions ``model,example,prediction`` (CSV with that header, or a JSON list of objects with those keys) as
    an (n, m) matrix in the order of ``models`` and ``example_ids``; an unknown model or example, a pair given twice
    or a value outside [0, 1] is refused."""
    path = Path(path)
    if not path.is_file():
        raise PriorError(f"predictions file not found: {path}")
    text = path.read_text(encoding="utf-8-sig")
    if not text.strip():
        raise PriorError(f"{path}: the file is empty")
    if path.suffix.lower() == ".json":
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PriorError(f"{path}: not JSON ({exc})") from None
        if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
            raise PriorError(f"{path}: expected a list of objects with keys model, example, prediction")
    else:
        records = list(csv.DictReader(io.StringIO(text)))
    models = _ids(models, "models", "models")
    examples = _ids(example_ids, "example ids", "examples")
    mi = {x: k for k, x in enumerate(models)}
    ei = {x: k for k, x in enumerate(examples)}
    out = np.full((len(models), len(examples)), np.nan)
    for no, r in enumerate(records, start=2):
        if not {"model", "example", "prediction"} <= set(r):
            raise PriorError(f"{path}:{no}: needs model, example and prediction (has {sorted(r)})")
        a, b = str(r["model"]).strip(), str(r["example"]).strip()
        if a not in mi:
            raise PriorError(f"{path}:{no}: unknown model {a!r}")
        if b not in ei:
            raise PriorError(f"{path}:{no}: unknown example {b!r}")
        try:
            v = float(r["prediction"])
        except (TypeError, ValueError):
            raise PriorError(f"{path}:{no}: prediction {r['prediction']!r} is not a number") from None
        if not 0.0 <= v <= 1.0:
            raise PriorError(f"{path}:{no}: prediction {v!r} is not in [0, 1]")
        if not np.isnan(out[mi[a], ei[b]]):
            raise PriorError(f"{path}:{no}: the pair ({a}, {b}) is predicted twice")
        out[mi[a], ei[b]] = v
    return check_predictions(out, len(models), len(examples), str(path))


def example_ids(examples) -> list[str]:
    """How a live search names its examples for matching a prior's columns: an example's ``"id"`` field when it is
    an object with one, else the example itself (a string as it is, any other JSON value as compact JSON)."""
    out = []
    for e in examples:
        if isinstance(e, dict) and "id" in e:
            out.append(str(e["id"]))
        else:
            out.append(e if isinstance(e, str) else json.dumps(e, sort_keys=True, separators=(",", ":")))
    return out


def digest(array) -> str:
    """SHA-256 of a prior or predictions matrix (its shape and float64 bytes, NaN included)."""
    arr = np.ascontiguousarray(np.asarray(array, dtype=np.float64))
    h = hashlib.sha256(repr(arr.shape).encode())
    h.update(arr.tobytes())
    return h.hexdigest()


def example_features(prior: np.ndarray, rank: int = 8) -> np.ndarray:
    """(m, 2 + r) example features from a prior (K, m): [1, column mean, sqrt(m) v_1, ..., sqrt(m) v_r] with v_k the
    leading right singular vectors of the column-centred prior (NaN imputed by the column mean), r = min(rank, K - 1,
    m - 1). The singular vectors are scaled to unit root-mean-square over the examples, so that one ridge penalty
    fits every feature. Deterministic (each vector's sign is fixed by its largest entry), so a journal replays."""
    Q = check_prior(prior, np.asarray(prior).shape[1])
    K, m = Q.shape
    col = np.nanmean(np.where(np.isnan(Q).all(axis=0), 0.5, Q), axis=0) if np.isnan(Q).any() else Q.mean(axis=0)
    col = np.where(np.isnan(col), 0.5, col)
    filled = np.where(np.isnan(Q), col, Q) - col
    r = max(0, min(int(rank), K - 1, m - 1))
    feats = [np.ones(m), col]
    if r:
        _, s, vt = np.linalg.svd(filled, full_matrices=False)
        keep = s[:r] > 1e-9 * max(s[0], 1e-300)
        vt = vt[:r][keep]
        sign = np.sign(vt[np.arange(len(vt)), np.abs(vt).argmax(axis=1)])
        feats += list(vt * sign[:, None] * np.sqrt(m))
    return np.stack(feats, axis=1)
