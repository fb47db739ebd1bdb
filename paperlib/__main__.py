"""The process entry point of the ``paperlib`` command (``python -m paperlib``, and the installed script).

A Ctrl-C ends a command with status 130 and the single line "interrupted", never a traceback, whenever it comes:
while the command starts, while it runs (a search stops asking and records the calls in flight first), and while the
process exits. Two things make that hold beyond ``cli.main``'s own ``except KeyboardInterrupt``:

* A KeyboardInterrupt raised inside an import is not always a KeyboardInterrupt by the time it leaves: a C extension
  that imports a module on its own (NumPy's ``PyCapsule_Import`` of ``datetime``) turns it into an ImportError with
  its own traceback, and one that runs Python code marks the interpreter as interrupted, which then kills itself with
  SIGINT at exit (status -2). So a Ctrl-C that lands inside an import is deferred: the handler sends it again 50 ms
  later, until it lands outside any import, where it is an ordinary KeyboardInterrupt.
* Once the command is over, Ctrl-C is ignored and an interrupted process ends at once with ``os._exit(130)`` (every
  journal record is already fsynced; only the standard streams are flushed).

What cannot be covered: a Ctrl-C in the first tenth of a second or so, before this module runs (while the interpreter
itself and ``site`` start), is Python's own.
"""

import os
import signal
import sys
import threading

DEFER_S = 0.05


def _in_import(frame) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _sigint(signum, frame):
    """SIGINT as KeyboardInterrupt, except inside an import, where it is sent again a moment later."""
    if _in_import(frame):
        again = threading.Timer(DEFER_S, os.kill, (os.getpid(), signal.SIGINT))
        again.daemon = True
        again.start()
        return
    raise KeyboardInterrupt


def exit_interrupted() -> None:
    """End the process with status 130 now (see the module's docstring), the standard streams flushed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(130)


def run(prog: str | None = None) -> int:
    main_thread = threading.current_thread() is threading.main_thread()
    if main_thread and signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when started ignoring it
        signal.signal(signal.SIGINT, _sigint)
    try:
        from .cli import main

        status = main(prog=prog)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        status = 130
    if main_thread:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if status == 130:
        exit_interrupted()
    return status


if __name__ == "__main__":
    sys.exit(run(prog="python -m paperlib"))
