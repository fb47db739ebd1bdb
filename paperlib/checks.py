"""Input checks shared by the Python API, the command line and the workflow: one rule, one message.

:func:`check_scalar` follows scikit-learn's ``sklearn.utils.check_scalar`` (a name, a type, bounds
and which bounds are closed); it is written here because paperlib does not depend on scikit-learn.
Every check raises ``ValueError`` naming the parameter, the rule and the value, before any work.
"""

from __future__ import annotations

import math
import numbers
import os
from pathlib import Path

_CLOSED = ("both", "left", "right", "neither")


def check_scalar(value, name: str, kind: type, *, low=None, high=None, closed: str = "both", choices=None):
    """Return ``value`` as ``kind`` (int, float or str) after checking its type, finiteness and range.

    Parameters
    ----------
    value : the value to check; a string is converted (``"0.5"`` for a float), a bool is never a number
    name : how the message names it (``"delta"``, ``"--batch-size"``)
    kind : int, float or str
    low, high : optional bounds
    closed : which bounds belong to the range: ``"both"`` (default), ``"left"``, ``"right"``, ``"neither"``
    choices : optional allowed values (after conversion)
    """
    if closed not in _CLOSED:
        raise ValueError(f"closed must be one of {_CLOSED}, got {closed!r}")
    if kind in (int, float):
        if isinstance(value, bool):
            raise ValueError(f"{name} must be {'an integer' if kind is int else 'a number'}, got {value!r}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be {'an integer' if kind is int else 'a number'}, got {value!r}") from None
        if not math.isfinite(number):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
        if kind is int:
            if isinstance(value, numbers.Integral):
                number = int(value)
            elif number != int(number) or (isinstance(value, str) and not value.strip().lstrip("+-").isdigit()):
                raise ValueError(f"{name} must be an integer, got {value!r}")
            value = int(number)
        else:
            value = number
        lo_ok = low is None or (value >= low if closed in ("both", "left") else value > low)
        hi_ok = high is None or (value <= high if closed in ("both", "right") else value < high)
        if not (lo_ok and hi_ok):
            left = "-inf" if low is None else f"{low:g}"
            right = "inf" if high is None else f"{high:g}"
            lb = "[" if closed in ("both", "left") and low is not None else "("
            rb = "]" if closed in ("both", "right") and high is not None else ")"
            raise ValueError(f"{name} must lie in {lb}{left}, {right}{rb}, got {value:g}")
    elif kind is str:
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a string, got {value!r}")
    else:
        raise TypeError(f"check_scalar checks int, float or str, not {kind!r}")
    if choices is not None and value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}; got {value!r}")
    return value


def check_score(value, name: str = "score", low: float = 0.0, high: float = 1.0) -> float:
    """One observed score as a float in [low, high]: a real number (a bool, a string, bytes or a complex number is
    refused, never converted: ``float(np.complex128(0.5 + 1j))`` would silently drop the imaginary part), finite."""
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number in [{low:g}, {high:g}], got {value!r}")
    number = float(value)
    if not low <= number <= high:  # NaN fails both comparisons
        raise ValueError(f"{name} must be a real number in [{low:g}, {high:g}], got {value!r}")
    return number


def check_delta(delta, name: str = "delta") -> float:
    """An error probability: a number in (0, 1)."""
    return check_scalar(delta, name, float, low=0.0, high=1.0, closed="neither")


def check_output_path(path, name: str = "--json", inputs=()) -> Path:
    """Refuse an output path before any work: a folder, a folder that cannot be created or written, or one of
    ``inputs`` (an output never overwrites what the run reads). Missing parent folders are created."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{name} {path} is a directory")
    for other in inputs:
        if other is not None and _same_file(path, Path(other)):
            raise ValueError(f"{name} {path} is also an input of this run ({other}); choose another output path")
    parent = path.parent if str(path.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{name} {path}: cannot create {parent} ({exc.strerror})") from None
    if not os.access(parent, os.W_OK):
        raise ValueError(f"{name} {path}: cannot write in {parent}")
    return path


def write_atomic(path, text: str) -> Path:
    """Write ``text`` to ``path`` whole or not at all: into a temporary file beside it, then renamed over it (a
    Ctrl-C or a crash while writing leaves the old file or none, never half a result)."""
    import tempfile

    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path


def _same_file(a: Path, b: Path) -> bool:
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


#: the largest seed and run index a run accepts: run seeds are int64 (tables, tensors, JSON), so [0, 2^63 - 1]
MAX_SEED = 2**63 - 1


def check_index(value, name: str, *, low: int = 0, high: int | None = None, what: str | None = None) -> int:
    """An integer index (a seed, a run, a block, a block size) in ``[low, high)`` (``high`` None: up to
    :data:`MAX_SEED`, inclusive), as a Python int. Integers only: a float, even 3.0, a bool, a string or an infinity
    is refused, never truncated (``int(2.7)`` would silently run another block). ``what`` ends the message for an
    index past the end ("the profile has 10 blocks", say)."""
    import numpy as np

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    top = MAX_SEED if high is None else int(high) - 1
    if not low <= v <= top:
        tail = f" ({what})" if what else ""
        raise ValueError(f"{name} must be an integer in [{low}, {top}], got {v}{tail}")
    return v


def check_seed(value, name: str = "seed") -> int:
    """A run's seed: an integer in [0, 2^63 - 1] (what int64 holds)."""
    return check_index(value, name)
