"""`make lab`'s port, checked before JupyterLab starts (issue 76, item 6): an integer in [1, 65535] that nothing on
this machine listens on; for a taken port, which process holds it (read from ``/proc`` on Linux, as ``ss -ltnp``
would print it: no extra package).

``python -m paperlib.pipeline.lab_port PORT`` exits 0 when JupyterLab can take PORT, else 2 with one line."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path


def _listeners(port: int) -> set[str]:
    """The socket inodes listening on ``port`` (IPv4 and IPv6), from ``/proc/net/tcp*``."""
    inodes = set()
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(f).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) > 9 and parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(parts[9])
    return inodes


def holder(port: int) -> str | None:
    """``"pid 1234 (jupyter-lab)"`` for the process listening on ``port``, where ``/proc`` tells; else None."""
    inodes = _listeners(port)
    if not inodes:
        return None
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                name = Path(f"/proc/{pid}/comm").read_text().strip() if Path(f"/proc/{pid}/comm").exists() else "?"
                return f"pid {pid} ({name})"
    return "a process this user cannot see"


def check_port(value: str, host: str = "127.0.0.1") -> int:
    """``value`` as a port JupyterLab can listen on at ``host``; ValueError with one line otherwise."""
    text = str(value).strip()
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ValueError(f"LAB_PORT must be an integer in [1, 65535], got {value!r}")
    port = int(text)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except PermissionError:
            raise ValueError(f"LAB_PORT {port}: this user may not listen on it (ports below 1024 need root); "
                             "choose another, e.g. make lab LAB_PORT=8899") from None
        except OSError:
            who = holder(port) or "another process"
            raise ValueError(f"LAB_PORT {port} is taken by {who}; choose another, e.g. make lab LAB_PORT="
                             f"{port + 1 if port < 65535 else 8899}") from None
    return port


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        check_port(args[0] if args else "")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
