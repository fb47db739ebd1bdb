"""Every path the project uses, in one place."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

PACKAGE = resources.files("paperlib")
CONFIG_DIR = PACKAGE / "config"
REGISTRY_FILE = PACKAGE / "data" / "registry.yaml"

ROOT = Path(__file__).resolve().parent.parent
IN_CHECKOUT = (ROOT / "pyproject.toml").is_file() and (ROOT / "Snakefile").is_file()
NOTEBOOKS_DIR = ROOT / "notebooks"
FIGURES_DIR = ROOT / "figures"
RESULTS_DIR = ROOT / "results"

DATA_ENV_VAR = "PAPERLIB_DATA"
MIRROR_ENV_VAR = "PAPERLIB_MIRROR"
CACHE_ENV_VAR = "PAPERLIB_CACHE"


def cache_dir() -> Path:
    """Where ``paperlib data fetch`` writes and the loaders look second: ``$PAPERLIB_CACHE``, else ``data/cache``
    in a source checkout, else the user cache folder (``~/.cache/paperlib``)."""
    env = os.environ.get(CACHE_ENV_VAR)
    if env:
        return Path(env).expanduser().resolve()
    if IN_CHECKOUT:
        return ROOT / "data" / "cache"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "paperlib"


def data_dirs() -> list[Path]:
    """Folders searched for dataset files, in order: ``$PAPERLIB_DATA`` then the cache (see
    :func:`cache_dir`)."""
    dirs = []
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        dirs.append(Path(env).expanduser().resolve())
    dirs.append(cache_dir())
    return dirs


def figures_dir(profile: str) -> Path:
    """Figures of one profile: ``figures/<profile>``, so profiles never overwrite each other."""
    return FIGURES_DIR / profile

