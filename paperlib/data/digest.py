"""Content digests of data files: the values of their arrays or tables, independent of how they were stored.

A fetched file is rebuilt from upstream, so its bytes may differ from the registered copy while its content does
not; the registry records this digest (``content_sha256``) beside the file's byte SHA-256.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np


def content_sha256(arrays: Mapping[str, np.ndarray], keys=None) -> str:
    """SHA-256 of the values of ``arrays`` (those named in ``keys``, default all), independent of how
    they were stored: numbers as little-endian float64 (NaN canonical), strings as UTF-8 joined by NUL,
    each preceded by its name and shape."""
    h = hashlib.sha256()
    for k in sorted(keys or arrays):
        a = np.asarray(arrays[k])
        h.update(f"{k}{a.shape}".encode())
        if a.dtype.kind in "USO":
            h.update("\0".join(map(str, a.ravel().tolist())).encode("utf-8"))
        else:
            f = np.ascontiguousarray(a, dtype="<f8").copy()
            f[np.isnan(f)] = np.nan
            h.update(f.tobytes())
    return h.hexdigest()


DERIVED_COLUMNS = ("expected_score", "score_variance")
"""Columns a builder recomputes from the others (LLM-Rubric's moments of the answer distribution): the stored
copy's rounding of them cannot be reproduced bit for bit, and no loader reads them, so digests skip them."""


def table_sha256(df) -> str:
    """SHA-256 of a table's columns and values (numbers to 10 significant digits, missing values as ``nan``),
    :data:`DERIVED_COLUMNS` excepted."""
    h = hashlib.sha256()
    for col in df.columns:
        if col in DERIVED_COLUMNS:
            continue
        h.update(f"\0{col}\0".encode())
        v = df[col]
        if v.dtype.kind in "fiu":
            h.update("\n".join("nan" if x != x else f"{x:.10g}" for x in v.astype(float).tolist()).encode())
        else:
            h.update("\n".join("nan" if x is None or x != x else str(x) for x in v.tolist()).encode())
    return h.hexdigest()


def judge_file_sha256(path: Path) -> str:
    """Content digest of a judge-data file: all arrays of an ``.npz``, the table of a ``.csv[.gz]``."""
    path = Path(path)
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            return content_sha256({k: z[k] for k in z.files})
    import pandas as pd

    return table_sha256(pd.read_csv(path))


DIGEST_KEYS = {"factors-pt": ("U", "V")}
MATRIX_KEYS = ("scores", "row_ids", "col_ids")


def file_content_sha256(path: Path, keys) -> str:
    with np.load(path, allow_pickle=False) as z:
        return content_sha256({k: z[k] for k in keys if k in z.files}, keys=[k for k in keys if k in z.files])
