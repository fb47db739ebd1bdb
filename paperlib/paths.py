"""Every path the project uses, in one place."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "config"
NOTEBOOKS_DIR = ROOT / "notebooks"
FIGURES_DIR = ROOT / "figures"
RESULTS_DIR = ROOT / "results"
DATA_REGISTRY_DIR = ROOT / "data"
DATA_CACHE_DIR = DATA_REGISTRY_DIR / "cache"
REGISTRY_FILE = DATA_REGISTRY_DIR / "registry.yaml"

DATA_ENV_VAR = "PAPERLIB_DATA"


def data_dirs() -> list[Path]:
    """Folders searched for dataset files, in order: ``$PAPERLIB_DATA`` then ``data/cache``."""
    dirs = []
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        dirs.append(Path(env).expanduser().resolve())
    dirs.append(DATA_CACHE_DIR)
    return dirs


def figures_dir(profile: str) -> Path:
    """Figures of one profile: ``figures/<profile>``, so profiles never overwrite each other."""
    return FIGURES_DIR / profile


def results_dir(profile: str) -> Path:
    """Intermediate results of one profile: ``results/<profile>``."""
    return RESULTS_DIR / profile
