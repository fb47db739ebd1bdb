"""Dataset registry: find, verify and load datasets by name (``paperlib/data/registry.yaml``)."""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import yaml

from .. import paths
from .digest import DIGEST_KEYS, MATRIX_KEYS, file_content_sha256
from .matrix import KINDS, ScoreMatrix, ScoreMatrixError


class DatasetNotFoundError(FileNotFoundError):
    """A registered dataset's file is in none of the data folders."""


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    kind: str
    shape: tuple[int, int]
    provenance: str
    file: str | None = None
    sha256: str | None = None
    content_sha256: str | None = None
    source: str = ""
    licence: str = ""
    obtain: str = ""
    missing: str = "error"
    max_row_missing: float | None = None
    drop_rows: tuple[str, ...] = ()
    generator: dict = field(default_factory=dict)
    #: the shape the experiments read, after ``missing`` and ``drop_rows`` (``shape`` is the file's); written in the
    #: registry where they differ, checked against the loaded matrix by the data tests
    used: tuple[int, int] | None = None

    @property
    def needs_file(self) -> bool:
        return self.file is not None

    @property
    def used_shape(self) -> tuple[int, int]:
        """The shape of the matrix every experiment reads (the file's where nothing is dropped on load)."""
        return self.used or self.shape


@lru_cache(maxsize=1)
def entries() -> dict:
    """The registry file's entries as written (``registry.yaml``), by name: matrices, judge data, upstream blocks."""
    return yaml.safe_load(paths.REGISTRY_FILE.read_text())


@dataclass(frozen=True)
class Upstream:
    """Where a dataset comes from: ``base`` (a URL pinned to a commit) + each path of ``files``
    (path -> SHA-256, or None where not pinned), turned into the stored file by ``builder``."""

    base: str
    files: dict[str, str | None]
    builder: str | None
    note: str = ""


def upstream(name: str) -> Upstream | None:
    """The registry's ``upstream`` block of a dataset, or None for generated datasets."""
    e = entries().get(name)
    if e is None:
        raise KeyError(f"unknown dataset {name!r}; see `paperlib datasets`")
    u = e.get("upstream")
    if not u:
        return None
    return Upstream(base=u["base"], files=dict(u["files"]), builder=u.get("builder"), note=u.get("note", ""))


def digest_keys(name: str) -> tuple[str, ...]:
    u = upstream(name)
    return DIGEST_KEYS.get(u.builder if u else None, MATRIX_KEYS)


@lru_cache(maxsize=1)
def judge_registry() -> dict[str, dict[str, str]]:
    """Judge datasets (``format: judge``): name -> {file relative to a data folder: sha256}."""
    return {name: dict(e["files"]) for name, e in entries().items() if e.get("format") == "judge"}


@lru_cache(maxsize=1)
def registry() -> dict[str, DatasetInfo]:
    """All registered score matrices, by name."""
    out = {}
    for name, e in entries().items():
        if e.get("format", "matrix") != "matrix":
            continue
        if e["kind"] not in KINDS:
            raise ValueError(f"registry entry {name}: bad kind {e['kind']!r}")
        out[name] = DatasetInfo(
            name=name,
            kind=e["kind"],
            shape=tuple(e["shape"]),
            provenance=e.get("provenance", ""),
            file=e.get("file"),
            sha256=e.get("sha256"),
            content_sha256=e.get("content_sha256"),
            source=e.get("source", ""),
            licence=e.get("licence", ""),
            obtain=e.get("obtain", ""),
            missing=e.get("missing", "error"),
            max_row_missing=e.get("max_row_missing"),
            drop_rows=tuple(e.get("drop_rows", ())),
            generator=e.get("generator", {}),
            used=tuple(e["used_shape"]) if e.get("used_shape") else None,
        )
    return out


def info(name: str) -> DatasetInfo:
    reg = registry()
    if name not in reg:
        raise KeyError(f"unknown dataset {name!r}; registered: {', '.join(sorted(reg))}")
    return reg[name]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def locate(name: str) -> Path:
    """Path of a dataset's file: first under ``$PAPERLIB_DATA``, then ``data/cache/``."""
    ds = info(name)
    if not ds.needs_file:
        raise ValueError(f"dataset {name!r} is generated, it has no file")
    tried = []
    for folder in paths.data_dirs():
        p = folder / ds.file
        tried.append(str(p))
        if p.exists():
            return p
    raise DatasetNotFoundError(
        f"dataset {name!r} ({ds.kind}) not found; looked for {ds.file} in: {', '.join(tried)}. "
        f"How to get it: {ds.obtain}"
    )


def available(name: str, verify: bool = False) -> bool:
    """True when a dataset can be loaded here (generated, or its file is present; with ``verify``, and its
    SHA-256 matches the registry's)."""
    return status(name, verify) == "available"


def status(name: str, verify: bool = True) -> str:
    """``available``, ``missing`` or ``checksum mismatch`` (the last only with ``verify``)."""
    ds = info(name)
    if ds.generator.get("type") == "low-rank-logistic":
        return "available"
    try:
        path = locate(name)
    except DatasetNotFoundError:
        return "missing"
    if verify and not _verified(name, path):
        return "checksum mismatch"
    return "available"


def is_registered_file(path: Path, sha256: str | None, content_sha256: str | None, content_digest) -> bool:
    """The file is the registered one: same bytes (``sha256``; no checksum recorded counts as a match), or, for
    a file rebuilt by ``paperlib data fetch``, the same content (``content_digest(path) == content_sha256``);
    an unreadable file is not."""
    if not sha256 or _sha256_cached(str(path), *_stamp(path)) == sha256:
        return True
    if content_sha256 is None:
        return False
    try:
        return content_digest(path) == content_sha256
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return False


def _verified(name: str, path: Path) -> bool:
    ds = info(name)
    return is_registered_file(path, ds.sha256, ds.content_sha256,
                              lambda p: _content_cached(name, str(p), *_stamp(p)))


@lru_cache(maxsize=64)
def _content_cached(name: str, path: str, size: int, mtime_ns: int) -> str:
    return file_content_sha256(Path(path), digest_keys(name))


def _stamp(path: Path) -> tuple[int, int]:
    st = Path(path).stat()
    return st.st_size, st.st_mtime_ns


@lru_cache(maxsize=256)
def _sha256_cached(path: str, size: int, mtime_ns: int) -> str:
    return sha256_file(Path(path))


def available_datasets(kind: str | None = None) -> list[str]:
    return [n for n, d in registry().items() if (kind is None or d.kind == kind) and available(n)]


def _read_file(name: str, verify: bool) -> Path:
    path = locate(name)
    ds = info(name)
    if verify and not _verified(name, path):
        raise ScoreMatrixError(
            f"dataset {name!r}: {path} is not the registered file (neither its sha256 {ds.sha256[:12]}... nor its "
            f"arrays' content_sha256 match): corrupt or a different version; rebuild it with "
            f"`paperlib data fetch {name} --force`"
        )
    return path


def _drop_sparse_rows(scores: np.ndarray, row_ids, limit: float):
    frac = np.isnan(scores).mean(axis=1)
    keep = frac <= limit
    return scores[keep], np.asarray(row_ids)[keep], int((~keep).sum())


@lru_cache(maxsize=8)
def load(name: str, verify: bool = True) -> ScoreMatrix:
    """Load a registered dataset as a validated :class:`ScoreMatrix`.

    Real files are checked against the registry's sha256. Missing entries follow the registry's
    rule for that dataset: rows with more than ``max_row_missing`` missing are dropped first,
    then columns with any missing entry (recorded in ``meta``).
    """
    from .synthetic import (  # torch: only when a matrix is generated
        factor_bernoulli,
        low_rank_logistic,
    )

    ds = info(name)
    gen = ds.generator
    if gen.get("type") == "low-rank-logistic":
        return low_rank_logistic(
            gen["n"], gen["m"], rank=gen["rank"], gap=gen["gap"], seed=gen["seed"], name=name
        )
    path = _read_file(name, verify)
    with np.load(path, allow_pickle=False) as z:
        if gen.get("type") == "factor-bernoulli":
            u, v = z["U"], z["V"]
            if "subsample" in gen:
                rng = np.random.default_rng(gen["subsample_seed"])
                rows = np.sort(rng.choice(u.shape[0], gen["subsample"][0], replace=False))
                cols = np.sort(rng.choice(v.shape[0], gen["subsample"][1], replace=False))
                u, v = u[rows], v[cols]
            return factor_bernoulli(u, v, seed=gen["seed"], name=name)
        scores, row_ids = z["scores"], z["row_ids"]
        col_ids = z["col_ids"] if "col_ids" in z.files else None
    meta = {"source_file": str(path)}
    if ds.max_row_missing is not None:
        scores, row_ids, dropped = _drop_sparse_rows(scores, row_ids, ds.max_row_missing)
        meta["dropped_sparse_rows"] = dropped
    mat = ScoreMatrix.from_array(scores, row_ids, col_ids, kind=ds.kind, name=name, missing=ds.missing, meta=meta)
    if ds.drop_rows:
        mat = mat.drop_rows(ds.drop_rows)
    return mat
