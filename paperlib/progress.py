"""Progress bars for long runs (tqdm), sent where they do not clutter results.

By default bars go to stderr when it is a terminal (``tqdm(disable=None)``), so a captured log stays clean, and in a
notebook a reader runs by hand (a Jupyter kernel, whose stderr is not a terminal: issue 75, item 7), as one text bar
that updates in place, so a long cell shows its progress. :func:`send_progress_to` redirects every later bar to a
file (the pipeline points it at the rule's log, so the executed copies it commits carry no bar), where it is always
written.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tqdm import tqdm

_stream = None


def send_progress_to(path: str | Path | None) -> None:
    """Write progress bars to ``path`` (appended), or back to stderr with ``None``."""
    global _stream
    if _stream is not None:
        _stream.close()
    _stream = None if path is None else open(Path(path), "a", buffering=1)


def progress_bar(total: int, desc: str, enabled: bool = True) -> tqdm:
    """A tqdm bar over ``total`` units; silent when disabled or when nobody would see it."""
    if not enabled:
        return tqdm(total=total, disable=True)
    if _stream is not None:
        return tqdm(total=total, desc=desc, file=_stream, mininterval=10.0, ascii=True, dynamic_ncols=False, ncols=100)
    return tqdm(total=total, desc=desc, file=sys.stderr, disable=False if in_kernel() else None, mininterval=1.0,
                ascii=True if in_kernel() else None)


def in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (IPython's kernel app: a notebook, by hand or by papermill)."""
    if "ipykernel" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})
