"""``paperlib data fetch``: download a dataset's pinned upstream files, verify them, build the stored matrix.

Downloads go through pooch (resumable cache, SHA-256 check, progress bar). An upstream file whose SHA-256
is pinned in the registry (``upstream.files``) is refused on mismatch and never cached. Where the
upstream file's own hash could not be recorded (the project's build machine saw a snapshot, not the
served file), the *built* arrays are checked against the registry's ``content_sha256`` instead; on a
mismatch the raw downloads are deleted and nothing is written.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

import numpy as np

from .. import paths
from .build import BUILDERS
from .digest import file_content_sha256, judge_file_sha256
from .registry import Upstream, digest_keys, entries, upstream

FETCH_COMMAND = "paperlib data fetch"
DEADLINE_S = 1800.0  # the most one upstream file's download may take, whatever the host's pace
CONNECT_TIMEOUT_S = 30.0


class DeadlineDownloader:
    """A pooch downloader (``downloader(url, output_file, pooch)``) with an overall deadline per file.

    pooch's ``HTTPDownloader`` passes requests' timeout, which bounds the connection and each read, not the whole
    download: a mirror that trickles a byte every few seconds never times out. Here the download runs in a thread
    that the caller waits for at most ``deadline`` seconds; past it the socket is shut down (which wakes a blocked
    read, where closing the response from another thread may not) and the download fails with
    ``requests.exceptions.Timeout``; pooch then removes its temporary file (``pooch.utils.temporary_file``), so
    nothing partial is left. Written here because pooch has no overall deadline."""

    def __init__(self, deadline: float = DEADLINE_S, progressbar: bool = False, timeout: float = CONNECT_TIMEOUT_S):
        if not 0 < deadline <= threading.TIMEOUT_MAX:  # the thread's join cannot wait longer (OverflowError)
            raise ValueError(f"the download deadline must be > 0 s and at most {threading.TIMEOUT_MAX:.3g} s (the "
                             f"longest wait the platform can time), got {deadline!r}")
        self.deadline, self.progressbar, self.timeout = float(deadline), progressbar, min(timeout, float(deadline))

    def __call__(self, url: str, output_file, pooch_obj=None, check_only: bool = False):
        import requests

        stop, state = threading.Event(), {}
        worker = threading.Thread(target=self._download, args=(url, output_file, stop, state), daemon=True,
                                  name="paperlib-download")
        worker.start()
        worker.join(self.deadline)  # the deadline holds whatever the socket does
        if worker.is_alive():
            stop.set()
            sock = state.get("socket")
            if sock is not None:  # wakes the blocked read (closing the response from here may not)
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            worker.join(5.0)
            raise requests.exceptions.Timeout(f"{url}: not done after the {self.deadline:g} s deadline")
        if "error" in state:
            raise state["error"]

    def _download(self, url: str, output_file, stop: threading.Event, state: dict) -> None:
        import requests
        from tqdm import tqdm

        try:
            with requests.get(url, stream=True, timeout=self.timeout) as response:
                response.raise_for_status()
                state["socket"] = getattr(getattr(response.raw, "_connection", None), "sock", None)
                total = int(response.headers.get("content-length") or 0)
                with open(output_file, "wb") as out, tqdm(total=total or None, desc=url.rsplit("/", 1)[-1], unit="B",
                                                          unit_scale=True, file=sys.stderr,
                                                          disable=None if self.progressbar else True) as bar:
                    for chunk in response.iter_content(chunk_size=1 << 14):
                        if stop.is_set():
                            return
                        out.write(chunk)
                        bar.update(len(chunk))
        except BaseException as exc:  # handed to the caller's thread
            if not stop.is_set():
                state["error"] = exc


class FetchError(RuntimeError):
    """A dataset could not be fetched or built; the message says what to do."""


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
          force: bool = False, deadline: float = DEADLINE_S) -> Path:
    """Download, verify and build one dataset; returns the path of the stored file.

    Parameters
    ----------
    name : a registry name (see ``paperlib datasets``).
    dest : folder to write into (default: the cache, :func:`paperlib.paths.cache_dir`); raw
        downloads go to ``<dest>/upstream/<name>/``.
    mirror : base URL of a mirror of the upstream hosts (also ``$PAPERLIB_MIRROR``).
    force : rebuild even when a verified file is already there.
    deadline : seconds one upstream file's download may take in all (:class:`DeadlineDownloader`).
    """
    import pooch

    entry = entries().get(name)
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
                                             fname=rel.replace("/", "__"), path=raw_dir,
                                             downloader=DeadlineDownloader(deadline, progressbar=progress)))
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
        f = entries()[name].get("file") or name
        if f in by_file:
            done[name] = by_file[f]
            continue
        try:
            done[name] = by_file[f] = str(fetch(name, **kw))
        except FetchError as exc:
            done[name] = f"error: {exc}"
    return done
