"""`make lab`'s JupyterLab (issue 75): committed records that a reader cannot overwrite, sources that stay clean
until the reader saves on purpose, and a printed URL that opens the index.

* :class:`RecordsReadOnly`, the server's contents manager: every executed copy under ``results/<profile>/notebooks/``
  is a committed record. JupyterLab gets it as not writable (``writable: false``: no autosave, the title bar says
  read-only) and the server refuses to save over it, as root too (file modes do not stop root, so the check is the
  server's own). A reader who wants to change one runs its source in ``notebooks/``, or regenerates it with the
  command its first screen names.
* :func:`write_settings`: user settings for this checkout only (``.jupyter-lab/``, ignored by git, passed as
  ``JUPYTERLAB_SETTINGS_DIR``): autosave off, so a changed parameter reaches a tracked source only when the reader
  saves it; no news or update toast on the first screen.

``python -m paperlib.pipeline.lab settings DIR`` writes the settings (``make lab`` calls it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path, PurePosixPath

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from tornado import web

#: JupyterLab user settings, one file per plugin (``<plugin path>.jupyterlab-settings``)
SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}


def is_record(path: str) -> bool:
    """Whether a server path (relative to the checkout) is an executed copy: ``results/<profile>/notebooks/*.ipynb``."""
    parts = PurePosixPath(str(path).strip("/")).parts
    return len(parts) == 4 and parts[0] == "results" and parts[2] == "notebooks" and parts[3].endswith(".ipynb")


def record_message(path: str) -> str:
    path = str(path).strip("/")
    profile = PurePosixPath(path).parts[1]
    return (f"{path} is a committed record of the {profile} run and is read-only here: run its source in notebooks/, "
            f"or regenerate it with `snakemake --profile profiles/{profile} {path}`")


class RecordsReadOnly(AsyncLargeFileManager):
    """The default contents manager, with the executed copies read-only (:func:`is_record`)."""

    async def get(self, path, content=True, type=None, format=None, require_hash=False):
        model = await super().get(path, content=content, type=type, format=format, require_hash=require_hash)
        if model.get("type") == "notebook" and is_record(path):
            model["writable"] = False
        return model

    async def save(self, model, path=""):
        if is_record(path):
            raise web.HTTPError(403, record_message(path))
        return await super().save(model, path)

    async def rename_file(self, old_path, new_path):
        if is_record(old_path) or is_record(new_path):
            raise web.HTTPError(403, record_message(old_path if is_record(old_path) else new_path))
        return await super().rename_file(old_path, new_path)

    async def delete_file(self, path):
        if is_record(path):
            raise web.HTTPError(403, record_message(path))
        return await super().delete_file(path)


def write_settings(folder: Path) -> Path:
    """Write :data:`SETTINGS` under ``folder`` (JupyterLab's user settings layout) and return it."""
    folder = Path(folder)
    for plugin, values in SETTINGS.items():
        f = folder / f"{plugin}.jupyterlab-settings"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(values, indent=1) + "\n")
    return folder


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "settings":
        print("usage: python -m paperlib.pipeline.lab settings DIR", file=sys.stderr)
        return 2
    print(write_settings(Path(args[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
