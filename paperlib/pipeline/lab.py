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

``python -m paperlib.pipeline.lab serve PORT CHECKOUT`` starts it on a checkout (``make lab`` calls it, after checking the
port); ``python -m paperlib.pipeline.lab settings DIR`` writes the settings alone."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from tornado import web

from .records import is_record, record_message

#: JupyterLab user settings, one file per plugin (``<plugin path>.jupyterlab-settings``)
SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}


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


def server(root: Path, port: int, extra: tuple[str, ...] = ()) -> tuple[list[str], dict]:
    """The command line and environment of ``make lab``'s JupyterLab on checkout ``root`` (the one place that says
    how it starts; ``tests/test_jupyterlab.py`` starts the same): the records read-only, this checkout's settings
    (:func:`write_settings`, under ``root/.jupyter-lab/``), the index as the page the printed URL opens."""
    import os

    root = Path(root).resolve()
    lab = root / ".jupyter-lab"
    write_settings(lab / "settings")
    argv = [str(Path(sys.executable).parent / "jupyter"), "lab", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={int(port)}", "--no-browser", "--allow-root", f"--ServerApp.root_dir={root}",
            "--ServerApp.contents_manager_class=paperlib.pipeline.lab.RecordsReadOnly",
            "--LabApp.default_url=/lab/tree/notebooks/index.ipynb", *extra]
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(lab / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(lab / "workspaces")}
    return argv, env


USAGE = "usage: python -m paperlib.pipeline.lab settings DIR | serve PORT CHECKOUT"


def main(argv=None) -> int:
    import os

    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "settings":
        print(write_settings(Path(args[1])))
        return 0
    if len(args) == 3 and args[0] == "serve" and args[1].isdigit() and Path(args[2]).is_dir():
        cmd, env = server(Path(args[2]), int(args[1]))
        os.execvpe(cmd[0], cmd, env)  # JupyterLab in this process: Ctrl+C stops it, as `jupyter lab` does
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
