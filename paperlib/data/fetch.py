"""``paperlib data fetch``: download a dataset's pinned upstream files, verify them, build the stored matrix.

Downloads go through pooch (resumable cache, SHA-256 check, progress bar). An upstream file whose SHA-256
is pinned in the registry (``upstream.files``) is refused on mismatch and never cached. Where the
upstream file's own hash could not be recorded (the project's build machine saw a snapshot, not the
served file), the *built* arrays are checked against the registry's ``content_sha256`` instead; on a
mismatch the raw downloads are deleted and nothing is written.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import paths
from .build import BUILDERS
from .registry import _raw

FETCH_COMMAND = "paperlib data fetch"


class FetchError(RuntimeError):
    """A dataset could not be fetched or built; the message says what to do."""


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
    e = _raw().get(name)
    if e is None:
        raise KeyError(f"unknown dataset {name!r}; see `paperlib datasets`")
    u = e.get("upstream")
    if not u:
        return None
    return Upstream(base=u["base"], files=dict(u["files"]), builder=u.get("builder"), note=u.get("note", ""))


def content_sha256(arrays: Mapping[str, np.ndarray], keys=None) -> str:
    """SHA-256 of the values of ``arrays`` (those named in ``keys``, default all), independent of how
    they were stored: numbers as little-endian float64 (NaN canonical), strings as UTF-8 joined by NUL,
    each preceded by its name and shape."""
    h = hashlib.sha256()
    for k in sorted(keys or arrays):
        a = np.asarray(arrays[k])
        h.update(f"{k}{a.shape}".encode())
        if a.dtype.kind in "USO":
            h.update("\0".join(map(str, a.ravel().tolist())).encode("utf-8"))
        else:
            f = np.ascontiguousarray(a, dtype="<f8").copy()
            f[np.isnan(f)] = np.nan
            h.update(f.tobytes())
    return h.hexdigest()


DERIVED_COLUMNS = ("expected_score", "score_variance")
"""Columns a builder recomputes from the others (LLM-Rubric's moments of the answer distribution): the stored
copy's rounding of them cannot be reproduced bit for bit, and no loader reads them, so digests skip them."""


def table_sha256(df) -> str:
    """SHA-256 of a table's columns and values (numbers to 10 significant digits, missing values as ``nan``),
    :data:`DERIVED_COLUMNS` excepted."""
    h = hashlib.sha256()
    for col in df.columns:
        if col in DERIVED_COLUMNS:
            continue
        h.update(f"\0{col}\0".encode())
        v = df[col]
        if v.dtype.kind in "fiu":
            h.update("\n".join("nan" if x != x else f"{x:.10g}" for x in v.astype(float).tolist()).encode())
        else:
            h.update("\n".join("nan" if x is None or x != x else str(x) for x in v.tolist()).encode())
    return h.hexdigest()


def judge_file_sha256(path: Path) -> str:
    """Content digest of a judge-data file: all arrays of an ``.npz``, the table of a ``.csv[.gz]``."""
    path = Path(path)
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            return content_sha256({k: z[k] for k in z.files})
    import pandas as pd

    return table_sha256(pd.read_csv(path))


DIGEST_KEYS = {"factors-pt": ("U", "V")}
MATRIX_KEYS = ("scores", "row_ids", "col_ids")


def digest_keys(name: str) -> tuple[str, ...]:
    u = upstream(name)
    return DIGEST_KEYS.get(u.builder if u else None, MATRIX_KEYS)


def file_content_sha256(path: Path, keys) -> str:
    with np.load(path, allow_pickle=False) as z:
        return content_sha256({k: z[k] for k in keys if k in z.files}, keys=[k for k in keys if k in z.files])


def url_for(base: str, path: str, mirror: str | None = None) -> str:
    """Upstream URL of one file; with ``mirror``, the same path under the mirror's base URL
    (``https://raw.githubusercontent.com/o/r/c/p`` -> ``<mirror>/o/r/c/p``)."""
    url = base.rstrip("/") + "/" + path.lstrip("/")
    if mirror:
        rest = url.split("://", 1)[1].split("/", 1)[1]
        url = mirror.rstrip("/") + "/" + rest
    return url


def fetchable(name: str) -> bool:
    u = upstream(name)
    return u is not None and u.builder in BUILDERS


def fetch(name: str, dest: Path | None = None, mirror: str | None = None, progress: bool = True,
          force: bool = False) -> Path:
    """Download, verify and build one dataset; returns the path of the stored file.

    Parameters
    ----------
    name : a registry name (see ``paperlib datasets``).
    dest : folder to write into (default: the cache, :func:`paperlib.paths.cache_dir`); raw
        downloads go to ``<dest>/upstream/<name>/``.
    mirror : base URL of a mirror of the upstream hosts (also ``$PAPERLIB_MIRROR``).
    force : rebuild even when a verified file is already there.
    """
    import pooch

    entry = _raw().get(name)
    if entry is None:
        raise FetchError(f"unknown dataset {name!r}; `paperlib datasets` lists the registered ones")
    up = upstream(name)
    if up is None:
        raise FetchError(f"{name} is generated by paperlib; nothing to fetch")
    if up.builder not in BUILDERS:
        raise FetchError(f"{name}: no builder from its upstream files yet ({up.note or 'see its PROVENANCE.md'}); "
                         f"to get it, {entry.get('obtain', '')}")
    mirror = mirror or os.environ.get(paths.MIRROR_ENV_VAR) or None
    dest = Path(dest) if dest is not None else paths.cache_dir()
    outputs = list(entry["files"]) if entry.get("format") == "judge" else [entry["file"]]
    if not force and entry.get("content_sha256") and _present(name, entry, dest, outputs):
        return dest / outputs[0]
    try:
        raw_dir = dest / "upstream" / name
        raw_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FetchError(f"cannot write under {dest}: {exc}; choose another folder with --dest or "
                         f"${paths.CACHE_ENV_VAR}") from exc
    pooch.get_logger().setLevel("WARNING")
    local = {}
    for k, (rel, sha) in enumerate(up.files.items(), 1):
        url = url_for(up.base, rel, mirror)
        if progress:
            print(f"{name}: file {k}/{len(up.files)}: {url}", file=sys.stderr)
        try:
            local[rel] = Path(pooch.retrieve(url, known_hash=f"sha256:{sha}" if sha else None,
                                             fname=rel.replace("/", "__"), path=raw_dir, progressbar=progress))
        except ValueError as exc:
            raise FetchError(f"{name}: {url} does not match its pinned SHA-256 ({exc}); nothing was cached. "
                             f"Retry `{FETCH_COMMAND} {name}`, or use another --mirror") from exc
        except Exception as exc:
            raise FetchError(f"{name}: download of {url} failed ({type(exc).__name__}: {exc}); check the "
                             f"network or give a mirror: `{FETCH_COMMAND} {name} --mirror URL`") from exc
    try:
        built = BUILDERS[up.builder](local)
    except Exception as exc:
        _discard(local, up)
        raise FetchError(f"{name}: building from the downloaded files failed ({type(exc).__name__}: {exc}); "
                         f"the unpinned downloads were deleted; retry `{FETCH_COMMAND} {name}`") from exc
    if entry.get("format") != "judge":
        built = {outputs[0]: built}
    return _write_outputs(name, entry, built, dest, local, up)


def _expected(entry: dict, rel: str) -> str | None:
    """The registered content digest of output ``rel`` (one string for a matrix, one per file for judge data)."""
    want = entry.get("content_sha256")
    return want.get(rel) if isinstance(want, dict) else want


def _digest(name: str, entry: dict, path: Path) -> str:
    """Content digest of a written output: the digest keys of a matrix, or the whole judge-data file."""
    if entry.get("format") == "judge":
        return judge_file_sha256(path)
    return file_content_sha256(path, digest_keys(name))


def _present(name: str, entry: dict, dest: Path, outputs: list[str]) -> bool:
    """Every output of the entry is already under ``dest`` with the registered content."""
    return all((dest / rel).exists() and _digest(name, entry, dest / rel) == _expected(entry, rel)
               for rel in outputs)


def _write_outputs(name: str, entry: dict, outputs: dict, dest: Path, local: dict, up: Upstream) -> Path:
    """Write a dataset's files (``.npz`` from a dict of arrays, ``.csv.gz`` from a table) to temporary names,
    check each written file against the registry's content digest, then move all of them in place; on a
    mismatch the unpinned downloads are deleted and nothing is written."""
    tmp = {}
    try:
        for rel, obj in outputs.items():
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            part = target.with_name(target.name + ".part" + "".join(target.suffixes))
            if rel.endswith(".npz"):
                with open(part, "wb") as fh:
                    np.savez_compressed(fh, **obj)
            else:
                obj.to_csv(part, index=False, compression={"method": "gzip", "mtime": 0})
            tmp[rel] = part
            got, want = _digest(name, entry, part), _expected(entry, rel)
            if want and got != want:
                _discard(local, up)
                raise FetchError(f"{name}: {rel} built from {up.base} differs from the registered one (content "
                                 f"sha256 {got[:12]}..., expected {want[:12]}...): a corrupt download or a changed "
                                 f"upstream; the downloads were deleted and nothing was written. Retry "
                                 f"`{FETCH_COMMAND} {name}` or use another --mirror")
        for rel, part in tmp.items():
            os.replace(part, dest / rel)
        return dest / next(iter(outputs))
    finally:
        for part in tmp.values():
            Path(part).unlink(missing_ok=True)


def _discard(local: dict[str, Path], up: Upstream) -> None:
    for rel, path in local.items():
        if up.files.get(rel) is None:
            Path(path).unlink(missing_ok=True)


def fetch_many(names, **kw) -> dict[str, str]:
    """Fetch several datasets; files shared by two registry names are fetched once. Returns name -> path
    or the error message (one failure does not stop the others)."""
    done, by_file = {}, {}
    for name in names:
        f = _raw()[name].get("file") or name
        if f in by_file:
            done[name] = by_file[f]
            continue
        try:
            done[name] = by_file[f] = str(fetch(name, **kw))
        except FetchError as exc:
            done[name] = f"error: {exc}"
    return done
