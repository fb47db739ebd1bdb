"""Prices per call: what a call to each model costs, checked once before any work (issue 42, item 1).

A price file is JSON ``{model id: price per call}`` in any currency unit; every model of the matrix needs a finite,
non-negative number (a model the matrix does not have may be listed: a price list often covers a whole catalogue).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np


class CostError(ValueError):
    """A price list that cannot be used; the message names the models and the problem."""


def check_costs(costs, n: int) -> np.ndarray:
    """``costs`` as a float64 array of n finite, non-negative prices (one per row), or :class:`CostError`."""
    try:
        arr = np.asarray(costs, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise CostError(f"costs must be numbers, one per model: {e}") from None
    if arr.shape != (n,):
        raise CostError(f"costs must hold one price per model ({n}), got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
    if bad.size:
        raise CostError(f"costs must be finite and >= 0; rows {bad[:10].tolist()} are {arr[bad[:10]].tolist()}")
    return arr


def read_costs(path: str | Path, ids) -> np.ndarray:
    """The prices of the models ``ids`` (in that order) from a JSON file ``{model id: price per call}``."""
    path = Path(path)
    try:
        table = json.loads(path.read_text())
    except FileNotFoundError:
        raise CostError(f"--costs: no such file {path}") from None
    except json.JSONDecodeError as e:
        raise CostError(f"--costs: {path} is not JSON ({e})") from None
    if not isinstance(table, dict):
        raise CostError(f"--costs: {path} must hold one object {{model: price per call}}, got {type(table).__name__}")
    ids = [str(i) for i in ids]
    missing = [i for i in ids if i not in table]
    if missing:
        raise CostError(f"--costs: {path} has no price for {len(missing)} model(s): {', '.join(missing[:10])}"
                        + (" ..." if len(missing) > 10 else ""))
    wrong = [f"{i}={table[i]!r}" for i in ids if isinstance(table[i], bool) or not isinstance(table[i], (int, float))
             or not math.isfinite(table[i]) or table[i] < 0]
    if wrong:
        raise CostError(f"--costs: prices must be finite numbers >= 0; {path} has {', '.join(wrong[:10])}")
    return np.array([float(table[i]) for i in ids], dtype=np.float64)
