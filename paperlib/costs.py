"""Prices per call: what a call to each model costs, checked once before any work (issue 42, item 1).

A price list is ``{model id: price per call}`` in any currency unit (JSON in a file for the command line); every model
needs a finite, non-negative number, and a model that is not being evaluated may be listed (a price list often covers a
whole catalogue). Written by hand: a few checks, no library does this.
"""

from __future__ import annotations

import json
import math
import numbers
import sys
from pathlib import Path

import numpy as np


class CostError(ValueError):
    """A price list that cannot be used; the message names the models and the problem."""


def _bad(value) -> bool:
    """Not a finite real number >= 0 (numpy's float32 and int64 prices are real numbers; a bool is not)."""
    return (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value))
            or value < 0)


def _sum_is_finite(values, times: int = 1) -> bool:
    """Whether ``times`` x the exact sum of ``values`` is a finite float (``math.fsum`` raises on overflow)."""
    try:
        return math.isfinite(math.fsum(float(v) for v in values) * times)
    except OverflowError:
        return False


def _check_spend_finite(prices, examples: int, where: str) -> None:
    """Refuse prices whose full spend (every model on every one of ``examples`` examples; their sum alone when
    ``examples`` is 1) overflows a float: the spend of a run would print as infinite and be written as null."""
    if not _sum_is_finite(prices, int(examples)):
        raise CostError(f"{where}: evaluating every model on the {examples} example(s) would cost more than the largest "
                        f"float ({sys.float_info.max:.3g}): the spend overflows; give the prices in a larger unit")


def check_cost(value, what: str = "cost") -> float:
    """One call's cost: a finite number >= 0 (not a bool), as a float."""
    if _bad(value):
        raise CostError(f"{what} must be a finite number >= 0, got {value!r}")
    return float(value)


def check_costs(costs, n: int, examples: int = 1) -> np.ndarray:
    """``costs`` as a float64 array of n finite, non-negative prices (one per row) whose spend on ``examples``
    examples per model is a finite float, or :class:`CostError`."""
    try:
        arr = np.asarray(costs, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise CostError(f"costs must be numbers, one per model: {e}") from None
    if arr.shape != (n,):
        raise CostError(f"costs must hold one price per model ({n}), got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
    if bad.size:
        raise CostError(f"costs must be finite and >= 0; rows {bad[:10].tolist()} are {arr[bad[:10]].tolist()}")
    _check_spend_finite(arr.tolist(), examples, "costs")
    return arr


def read_costs_table(table, ids, where: str = "costs", examples: int = 1) -> np.ndarray:
    """The prices of the models ``ids`` (in that order) from a mapping ``{model id: price per call}``, refused when
    their spend on ``examples`` examples per model overflows a float."""
    if not isinstance(table, dict):
        raise CostError(f"{where} must hold one object {{model: price per call}}, got {type(table).__name__}")
    ids = [str(i) for i in ids]
    missing = [i for i in ids if i not in table]
    if missing:
        raise CostError(f"{where} has no price for {len(missing)} model(s): {', '.join(missing[:10])}"
                        + (" ..." if len(missing) > 10 else ""))
    wrong = [f"{i}={table[i]!r}" for i in ids if _bad(table[i])]
    if wrong:
        raise CostError(f"{where}: prices must be finite numbers >= 0; it has {', '.join(wrong[:10])}")
    out = np.array([float(table[i]) for i in ids], dtype=np.float64)
    _check_spend_finite(out.tolist(), examples, where)
    return out


def load_costs(path: str | Path) -> dict:
    """The mapping in a price file (JSON), or :class:`CostError` naming the file."""
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise CostError(f"--costs: no such file {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CostError(f"--costs: {path} is not JSON ({e})") from None


def read_costs(path: str | Path, ids) -> np.ndarray:
    """The prices of the models ``ids`` (in that order) from a JSON file ``{model id: price per call}``."""
    return read_costs_table(load_costs(path), ids, where=f"--costs {path}")
