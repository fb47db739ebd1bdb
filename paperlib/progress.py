"""Progress bars for long runs (tqdm), sent where they do not clutter results.

By default bars go to stderr and only when it is a terminal (``tqdm(disable=None)``), so an
executed notebook or a captured log stays clean. :func:`send_progress_to` redirects every later
bar to a file (the pipeline points it at the rule's log), where it is always written.
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
    return tqdm(total=total, desc=desc, file=sys.stderr, disable=None, mininterval=1.0)
