"""The score-matrix object every algorithm consumes, and its input validation."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

KINDS = ("real", "semi-synthetic", "synthetic", "user")  # "user": a file of the user's own, kind not declared
MISSING_POLICIES = ("error", "drop-columns")


class ScoreMatrixError(ValueError):
    """A score matrix failed validation; the message says which check and where."""


def _check_ids(ids, length: int, what: str) -> tuple[str, ...]:
    if ids is None:
        prefix = "row" if what == "row_ids" else "col"
        return tuple(f"{prefix}{i}" for i in range(length))
    ids = tuple(str(x) for x in np.asarray(ids).ravel())
    if len(ids) != length:
        raise ScoreMatrixError(f"{what} has {len(ids)} entries but the matrix has {length}")
    if len(set(ids)) != len(ids):
        seen, dups = set(), []
        for x in ids:
            if x in seen:
                dups.append(x)
            seen.add(x)
        raise ScoreMatrixError(f"{what} has duplicate ids, e.g. {dups[:3]}")
    return ids


def validate_scores(scores, missing: str = "error") -> tuple[np.ndarray, np.ndarray]:
    """Check a score array and return ``(scores as float32, kept column mask)``.

    Parameters
    ----------
    scores : array_like, shape (n, m)
        Rows are methods/models, columns are examples. Values must lie in [0, 1];
        NaN marks a missing evaluation.
    missing : {"error", "drop-columns"}
        What to do with NaN entries: raise, or drop every column that has one.

    Raises
    ------
    ScoreMatrixError
        On wrong dimensionality, an empty matrix, infinite values, values outside [0, 1],
        or missing values when ``missing="error"``.
    """
    if missing not in MISSING_POLICIES:
        raise ScoreMatrixError(f"missing must be one of {MISSING_POLICIES}, got {missing!r}")
    arr = np.asarray(scores)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ScoreMatrixError(f"scores must be numeric, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):  # a cast to float would drop the imaginary part with only a warning
        raise ScoreMatrixError(f"scores must be real numbers in [0, 1], got complex values (dtype {arr.dtype})")
    if arr.ndim != 2:
        raise ScoreMatrixError(f"scores must be 2-dimensional (models x examples), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ScoreMatrixError(f"scores matrix is empty (shape {arr.shape})")
    arr = arr.astype(np.float32)
    if np.isinf(arr).any():
        raise ScoreMatrixError(f"scores contain {int(np.isinf(arr).sum())} infinite values")
    nan = np.isnan(arr)
    finite = arr[~nan]
    if finite.size and (finite.min() < 0.0 or finite.max() > 1.0):
        raise ScoreMatrixError(
            f"scores must lie in [0, 1]; found values in [{finite.min():.4g}, {finite.max():.4g}]"
        )
    keep = np.ones(arr.shape[1], dtype=bool)
    if nan.any():
        if missing == "error":
            r, c = np.argwhere(nan)[0]
            raise ScoreMatrixError(
                f"scores have {int(nan.sum())} missing (NaN) entries, first at row {r}, column {c}; "
                "pass missing='drop-columns' (CLI: --drop-missing-columns) to drop the affected columns"
            )
        keep = ~nan.any(axis=0)
        if not keep.any():
            raise ScoreMatrixError("every column has a missing entry; nothing left after dropping")
    return arr[:, keep], keep


@dataclass(frozen=True)
class ScoreMatrix:
    """A complete models x examples score matrix with ids and an honest data label.

    Attributes
    ----------
    scores : np.ndarray, shape (n, m), float32, values in [0, 1], no NaN
    row_ids, col_ids : tuple of str, unique
    kind : {"real", "semi-synthetic", "synthetic"}
    name : str
    meta : dict
        Free-form provenance (e.g. dropped columns, generator parameters).
    """

    scores: np.ndarray
    row_ids: tuple[str, ...]
    col_ids: tuple[str, ...]
    kind: str
    name: str = "unnamed"
    meta: dict = field(default_factory=dict)

    @classmethod
    def from_array(
        cls,
        scores,
        row_ids=None,
        col_ids=None,
        kind: str = "real",
        name: str = "unnamed",
        missing: str = "error",
        meta: dict | None = None,
    ) -> ScoreMatrix:
        """Validate ``scores`` and build a matrix (see :func:`validate_scores`)."""
        if kind not in KINDS:
            raise ScoreMatrixError(f"kind must be one of {KINDS}, got {kind!r}")
        raw = np.asarray(scores)
        arr, keep = validate_scores(raw, missing=missing)
        rows = _check_ids(row_ids, raw.shape[0], "row_ids")
        cols = _check_ids(col_ids, raw.shape[1], "col_ids")
        cols = tuple(c for c, k in zip(cols, keep, strict=True) if k)
        meta = dict(meta or {})
        if not keep.all():
            meta["dropped_columns"] = int((~keep).sum())
        arr.setflags(write=False)
        return cls(arr, rows, cols, kind, name, meta)

    @property
    def shape(self) -> tuple[int, int]:
        return self.scores.shape

    @property
    def means(self) -> np.ndarray:
        """True score of each row, mu_i = mean_j E_ij (Zhou et al., Sec. 2.2)."""
        return self.scores.astype(np.float64).mean(axis=1)

    @property
    def best(self) -> int:
        """Index of the row with the highest mean (lowest index on exact ties)."""
        return int(np.argmax(self.means))

    @property
    def is_binary(self) -> bool:
        return bool(np.isin(self.scores, (0.0, 1.0)).all())

    def subset_rows(self, rows) -> ScoreMatrix:
        rows = np.asarray(rows)
        return ScoreMatrix.from_array(
            self.scores[rows], np.asarray(self.row_ids)[rows], self.col_ids, self.kind, self.name, meta=self.meta
        )

    def drop_rows(self, ids) -> ScoreMatrix:
        ids = set(ids)
        unknown = ids - set(self.row_ids)
        if unknown:
            raise ScoreMatrixError(f"cannot drop unknown rows {sorted(unknown)} from {self.name}")
        keep = [i for i, r in enumerate(self.row_ids) if r not in ids]
        return self.subset_rows(keep)

    def __repr__(self) -> str:
        n, m = self.shape
        return f"ScoreMatrix(name={self.name!r}, kind={self.kind!r}, shape=({n}, {m}))"


def load_npz(path: str | Path, kind: str | None = None, name: str | None = None, missing: str = "error") -> ScoreMatrix:
    """Read an ``.npz`` with a ``scores`` array (optional ``row_ids``, ``col_ids``, and ``kind``, one of
    :data:`KINDS`). The kind is, in order: the argument, the file's own ``kind`` entry, else ``"user"``
    (a user's file is not labelled real data unless it says so)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"score file not found: {path}")
    try:
        z = np.load(path, allow_pickle=False)
    except Exception as exc:
        raise ScoreMatrixError(f"{path} is not a readable .npz file ({exc})") from exc
    with z:
        if "scores" not in z.files:
            raise ScoreMatrixError(f"{path} has no 'scores' array (found {z.files})")
        scores = z["scores"]
        row_ids = z["row_ids"] if "row_ids" in z.files else None
        col_ids = z["col_ids"] if "col_ids" in z.files else None
        if kind is None:
            kind = str(z["kind"]) if "kind" in z.files else "user"
    return ScoreMatrix.from_array(scores, row_ids, col_ids, kind=kind, name=name or path.stem, missing=missing)
