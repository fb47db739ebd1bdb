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
def _cpu(monkeypatch):
    monkeypatch.setenv("PAPERLIB_DEVICE", os.environ.get("PAPERLIB_TEST_DEVICE", "cpu"))
