"""Issue 75, items 1, 2 and 4: in `make lab`'s JupyterLab a committed record cannot be overwritten (the server's
contents manager refuses, as root too), autosave is off, and the printed URL opens the index."""

import asyncio
import json
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("jupyter_server")

from paperlib.paths import ROOT  # noqa: E402
from paperlib.pipeline.lab import SETTINGS, RecordsReadOnly, is_record, write_settings  # noqa: E402


def test_which_paths_are_records():
    assert is_record("results/paper/notebooks/zhou_fig1_cost.ipynb")
    assert is_record("/results/quick/notebooks/pulse_summary.ipynb")
    assert not is_record("notebooks/zhou_fig1_cost.ipynb")  # a source: the reader may save it on purpose
    assert not is_record("results/paper/notebooks/sub/x.ipynb") and not is_record("results/paper/claims/x.csv")


def test_a_record_is_served_read_only_and_cannot_be_saved_renamed_or_deleted(tmp_path):
    from tornado import web

    (tmp_path / "results" / "paper" / "notebooks").mkdir(parents=True)
    (tmp_path / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    rec = tmp_path / "results" / "paper" / "notebooks" / "r.ipynb"
    nbformat.write(nb, rec)
    nbformat.write(nb, tmp_path / "notebooks" / "s.ipynb")
    before = rec.read_bytes()
    cm = RecordsReadOnly(root_dir=str(tmp_path))

    async def go():
        model = await cm.get("results/paper/notebooks/r.ipynb")
        assert model["writable"] is False
        source = await cm.get("notebooks/s.ipynb")
        assert source["writable"] is True
        changed = {**model, "content": nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("gone")])}
        for call in (lambda: cm.save(changed, "results/paper/notebooks/r.ipynb"),
                     lambda: cm.rename_file("results/paper/notebooks/r.ipynb", "notebooks/r.ipynb"),
                     lambda: cm.delete_file("results/paper/notebooks/r.ipynb")):
            with pytest.raises(web.HTTPError) as e:
                await call()
            assert e.value.status_code == 403 and "committed record of the paper run" in e.value.log_message
        saved = await cm.save({**source, "content": source["content"]}, "notebooks/s.ipynb")  # a source saves
        assert saved["name"] == "s.ipynb"

    asyncio.run(go())
    assert rec.read_bytes() == before


def test_the_settings_turn_autosave_and_the_news_toast_off(tmp_path):
    d = write_settings(tmp_path / "settings")
    doc = json.loads((d / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings").read_text())
    note = json.loads((d / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").read_text())
    assert doc == {"autosave": False} and note["fetchNews"] == "false" and set(SETTINGS) == {
        "@jupyterlab/docmanager-extension/plugin", "@jupyterlab/apputils-extension/notification"}


def test_make_lab_serves_with_them_and_opens_the_index(tmp_path):
    """`make lab` starts the server through paperlib.pipeline.lab (the test of a reader's session starts the same):
    the records read-only, the settings of this checkout, the index as the page the printed URL opens."""
    from paperlib.pipeline.lab import server

    lab = (ROOT / "Makefile").read_text().split("\nlab: setup\n", 1)[1].split("\n\n", 1)[0]
    assert 'paperlib.pipeline.lab serve "$(LAB_PORT)" "$(CURDIR)"' in lab
    argv, env = server(tmp_path, 8123)
    assert "--ServerApp.contents_manager_class=paperlib.pipeline.lab.RecordsReadOnly" in argv
    assert "--LabApp.default_url=/lab/tree/notebooks/index.ipynb" in argv and "--ServerApp.port=8123" in argv
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in argv and argv[1] == "lab"
    settings = Path(env["JUPYTERLAB_SETTINGS_DIR"])
    assert settings == tmp_path.resolve() / ".jupyter-lab" / "settings"
    assert json.loads((settings / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings").read_text()) \
        == {"autosave": False}
