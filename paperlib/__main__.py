import signal
import sys

try:  # a Ctrl-C while the command starts (its imports) ends it as one during its run does: status 130, no traceback
    from .cli import entry

    status = entry(prog="python -m paperlib")
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    status = 130
    signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.exit(status)
