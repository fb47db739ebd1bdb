import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_data() -> Path | None:
    env = os.environ.get("PAPERLIB_DATA")
    if env and Path(env).exists():
        return Path(env)
    return SHARED if SHARED.exists() else None


@pytest.fixture
def data_dir():
    d = shared_data()
    if d is None:
        pytest.skip("shared data not available (set PAPERLIB_DATA)")
    return d


@pytest.fixture(autouse=True)
def _fresh_run_label():
    """A notebook run's label (smoke, not the paper run) is the kernel's state, set by ``nb.start``: a test that calls
    it must not leave it for the next test in the same process (the closing section would say "(smoke)")."""
    yield
    import sys

    if "paperlib.pipeline.notebook" in sys.modules:
        sys.modules["paperlib.pipeline.notebook"]._label = None
    if "paperlib.figures" in sys.modules:
        sys.modules["paperlib.figures"].label_run(None)


@pytest.fixture(autouse=True)
def _cpu(monkeypatch):
    monkeypatch.setenv("PAPERLIB_DEVICE", os.environ.get("PAPERLIB_TEST_DEVICE", "cpu"))
