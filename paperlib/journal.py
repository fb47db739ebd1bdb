"""A study's journal as its own storage, apart from the study that decides (as Optuna's ``JournalStorage`` is apart
from its ``Study``): one append-only JSON-lines file, its lock, its header and its records.

The file's first line is the header: the set-up that decides every answer (method, parameters, seed, budget, delta,
epsilon, models, the examples' SHA-256, device), and where known the prices (``costs``), the objective (``objective``,
``gamma``), the asking mode (``asynchronous``) and ``meta`` (what else decides the scores, e.g. the scorer's identity).
Each later line is one record: ``ask``, ``score`` (with the call's ``cost`` when known), ``failure``, ``tell``,
``budget`` (a resume raised the budget) or ``meta`` (a resume replaced a scorer that had scored nothing). Every line
is written whole and fsynced before the next call is made, so a crash loses at most the line being written (a cut
last line is reported, never guessed at).

:class:`JournalStorage` only stores and reads; whether a journal's set-up agrees with a resume, and what its records
mean, is :class:`paperlib.study.Study`'s to decide.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

#: what every header names (a journal without one of these is not a paperlib journal, or a damaged one)
HEADER_KEYS = ("method", "params", "seed", "budget", "delta", "models", "n_examples", "examples_sha256", "device")
RECORD_TYPES = ("ask", "score", "failure", "tell", "budget", "meta")


class JournalError(ValueError):
    """A journal that cannot be replayed: the message names the file and line."""


class JournalInUse(JournalError):
    """Another process holds the journal's lock: two writers would pay for the same calls twice."""


def lock_journal(path: Path):
    """An exclusive lock on ``path`` (``filelock`` on ``<journal>.lock``, as Optuna's journal storage locks its file);
    a second writer, in this process or another, is refused with a message naming the holder."""
    from filelock import FileLock, Timeout

    lock = FileLock(f"{path}.lock", timeout=0)
    owner = Path(f"{path}.owner")
    try:
        lock.acquire()
    except Timeout:
        who = owner.read_text().strip() if owner.exists() else "unknown"
        raise JournalInUse(f"journal {path} is in use by another search ({who}); wait for it to finish, or stop it "
                           "(Ctrl-C) and rerun") from None
    owner.write_text(f"process {os.getpid()} on {socket.gethostname()}\n")
    return lock


class JournalStorage:
    """One journal file, locked for writing while this object is open.

    ``JournalStorage.create(path, header)`` starts a new journal (refused if the file exists or its folder cannot be
    written); ``JournalStorage.open(path)`` locks an existing one and reads its header, whose records
    :meth:`records` then yields with their line numbers; :meth:`append` writes one record; :meth:`close` releases
    the lock (also released when the process ends).
    """

    def __init__(self, path, lock, header: dict, lines: list[str]):
        self.path = Path(path)
        self._lock = lock
        self.header = header
        self._lines = lines  # the records read at open (a new journal has none)

    @classmethod
    def create(cls, path, header: dict) -> JournalStorage:
        path = Path(path)
        if path.exists():
            raise FileExistsError(f"journal {path} already exists; resume it with Study.resume({str(path)!r}, ...)")
        if not path.parent.is_dir() or not os.access(path.parent, os.W_OK):
            raise PermissionError(f"cannot write the journal in {path.parent}")
        store = cls(path, lock_journal(path), header, [])
        store.append(header)
        return store

    @classmethod
    def open(cls, path) -> JournalStorage:
        """Lock an existing journal and read its header (checked to name :data:`HEADER_KEYS`)."""
        path = Path(path)
        lock = lock_journal(path)
        try:
            lines = read_lines(path)
            header = parse_line(path, 1, lines[0])
            if header.get("type") != "header":
                raise JournalError(f"{path}:1: the first line is not a header")
            missing = sorted(set(HEADER_KEYS) - set(header))
            if missing:
                raise JournalError(f"{path}:1: the header lacks {', '.join(missing)}; this is not a paperlib journal, "
                                   "or a damaged one")
        except BaseException:
            lock.release()
            raise
        return cls(path, lock, header, lines[1:])

    # reading ---------------------------------------------------------------------------------------
    def records(self):
        """Each record read at open, as ``(line number, record)``; a line that is not a JSON object is an error."""
        for no, text in enumerate(self._lines, start=2):
            yield no, parse_line(self.path, no, text)

    @property
    def scored(self) -> bool:
        """Whether any score was recorded (a scorer that scored nothing may be replaced on resume)."""
        return any('"type":"score"' in text or '"type":"tell"' in text for text in self._lines)

    @property
    def meta(self) -> dict:
        """What the journal says decides its scores: the header's ``meta``, updated by later ``meta`` records."""
        return recorded_meta(self.header, self._lines)

    @property
    def budget(self) -> int:
        """The largest budget recorded: the header's, or a later ``budget`` record's."""
        budget = self.header["budget"]
        for text in self._lines:
            if '"type":"budget"' in text:
                budget = max(budget, int(json.loads(text)["budget"]))
        return budget

    # writing ---------------------------------------------------------------------------------------
    def append(self, record: dict) -> None:
        """Write one record as one line, flushed and fsynced before returning."""
        line = json.dumps(record, separators=(",", ":")) + "\n"
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def close(self) -> None:
        """Release the lock (idempotent)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def recorded_meta(header: dict, lines: list[str]) -> dict:
    """The header's ``meta``, updated by the ``meta`` records among ``lines`` (the lines after the header)."""
    meta = dict(header.get("meta", {}))
    for text in lines:
        if '"type":"meta"' in text:
            meta.update(json.loads(text)["meta"])
    return meta


def peek(path) -> tuple[dict, dict] | None:
    """A journal's header and recorded ``meta`` without locking it, or None when it cannot be read (the resume that
    follows reports a damaged journal with its line)."""
    try:
        lines = read_lines(Path(path))
        header = json.loads(lines[0])
        return header, recorded_meta(header, lines[1:])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def read_lines(path: Path) -> list[str]:
    if not path.is_file():
        raise FileNotFoundError(f"journal {path} does not exist")
    text = path.read_text(encoding="utf-8")
    if not text:
        raise JournalError(f"{path}:1: empty journal")
    lines = text.split("\n")
    if lines[-1] != "":
        raise JournalError(f"{path}:{len(lines)}: the last line is cut mid-line (no newline); the process "
                           "probably died while writing it. Remove that line by hand to resume.")
    return lines[:-1]


def parse_line(path: Path, no: int, text: str) -> dict:
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JournalError(f"{path}:{no}: not a JSON object ({exc.msg})") from None
    if not isinstance(rec, dict):
        raise JournalError(f"{path}:{no}: not a JSON object")
    return rec
