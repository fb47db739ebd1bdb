"""Minimal progress reporting for long runs (stderr, rate-limited)."""

from __future__ import annotations

import sys
import time


class Progress:
    """Print ``label: done/total (pct) elapsed`` to stderr at most every ``every`` seconds."""

    def __init__(self, label: str, total: int, every: float = 10.0, enabled: bool = True):
        self.label, self.total, self.every, self.enabled = label, max(int(total), 1), every, enabled
        self.start = self.last = time.perf_counter()

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if self.enabled and (now - self.last >= self.every or done >= self.total):
            self.last = now
            pct = 100.0 * done / self.total
            print(f"[paperlib] {self.label}: {done}/{self.total} ({pct:.0f}%) {now - self.start:.1f}s",
                  file=sys.stderr, flush=True)
