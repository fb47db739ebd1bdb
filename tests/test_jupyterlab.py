"""Issue 69, item 6: the notebooks as a reader meets them, in JupyterLab in a real (headless) browser.

JupyterLab is started on a copy of the index, one executed summary notebook and its source notebook; Chromium opens
the index and the executed notebook (rendered, figures shown), saves both untouched (the files on disk must not
change: opening a notebook marks nothing modified), then runs the source notebook with every cell (at smoke size) and
saves it: the saved file has outputs, a figure and no error."""

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_report import browser

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "zhou_corollary1"  # a summary notebook that runs in seconds at smoke size, with a figure


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on a copy of the files a reader opens first; yields (url, root)."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "results" / "paper" / "notebooks").mkdir(parents=True)
    for rel in ("notebooks/index.ipynb", f"notebooks/{SOURCE}.ipynb", f"results/paper/notebooks/{SOURCE}.ipynb"):
        shutil.copy(ROOT / rel, tmp_path / rel)
    port = free_port()
    env_dir = tmp_path / "jupyter"
    # every cell rendered (JupyterLab 4 renders only the cells in view by default), so the figures can be found
    settings = env_dir / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--allow-root",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--IdentityProvider.token=",
         "--ServerApp.password=", f"--ServerApp.root_dir={tmp_path}", "--LabApp.news_url=",
         "--ServerApp.disable_check_xsrf=True"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env={**__import__("os").environ, "JUPYTER_CONFIG_DIR": str(env_dir), "JUPYTERLAB_WORKSPACES_DIR": str(env_dir),
             "JUPYTERLAB_SETTINGS_DIR": str(env_dir / "settings"),
             "PAPERLIB_DATA": str(ROOT / "no-data-here")})
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.5)
    try:
        yield url, tmp_path
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def stored(path: Path) -> bytes:
    """What git stores of a source notebook: the file through the nbstripout filter with the Makefile's extra keys."""
    import re

    keys = re.search(r"^NB_EXTRA_KEYS\s*:?=\s*(.*)$", (ROOT / "Makefile").read_text(), re.M).group(1).strip()
    exe = Path(sys.executable).parent / "nbstripout"
    return subprocess.run([str(exe), "--extra-keys", keys, "-t", str(path)], capture_output=True, check=True).stdout


def wait(driver, css: str, timeout: float = 60, count: int = 1):
    from selenium.webdriver.common.by import By

    end = time.time() + timeout
    while time.time() < end:
        found = driver.find_elements(By.CSS_SELECTOR, css)
        if len(found) >= count:
            return found
        time.sleep(0.5)
    raise AssertionError(f"no {css} after {timeout} s")


def save(driver) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(driver).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()
    time.sleep(3)


def open_notebook(driver, url: str, rel: str) -> None:
    driver.get(f"{url}/lab/tree/{rel}?reset")
    wait(driver, ".jp-Notebook .jp-Cell", timeout=120)
    time.sleep(2)


@pytest.mark.slow
def test_a_reader_opens_the_index_and_an_executed_notebook_and_runs_a_source_notebook(lab):
    url, root = lab
    driver = browser()
    try:
        before = {rel: (root / rel).read_bytes() for rel in
                  ("notebooks/index.ipynb", f"results/paper/notebooks/{SOURCE}.ipynb")}
        open_notebook(driver, url, "notebooks/index.ipynb")
        text = driver.find_element("css selector", ".jp-Notebook").text
        assert "The notebooks" in text and SOURCE in text
        save(driver)
        open_notebook(driver, url, f"results/paper/notebooks/{SOURCE}.ipynb")
        try:
            wait(driver, ".jp-OutputArea-output img", timeout=60)  # its figure, shown inline
        except AssertionError:
            (ROOT / "tests" / "output").mkdir(exist_ok=True)
            driver.save_screenshot(str(ROOT / "tests" / "output" / "jupyterlab_executed.png"))
            raise
        save(driver)
        for rel, data in before.items():
            # a source notebook is what git stores (the nbstripout filter of `make setup`); an executed one, its bytes
            after = stored(root / rel) if rel.startswith("notebooks/") else (root / rel).read_bytes()
            if after != data:
                (ROOT / "tests" / "output").mkdir(exist_ok=True)
                shutil.copy(root / rel, ROOT / "tests" / "output" / Path(rel).name)
            assert after == data, f"{rel} changed after opening and saving it"

        open_notebook(driver, url, f"notebooks/{SOURCE}.ipynb")
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        driver.find_element("css selector", ".jp-Notebook").click()
        ActionChains(driver).send_keys(Keys.ESCAPE).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL) \
            .key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
        path = root / "notebooks" / f"{SOURCE}.ipynb"
        end = time.time() + 240
        nb = {}
        while time.time() < end:
            time.sleep(5)
            save(driver)
            nb = json.loads(path.read_text())
            # (Shift+Enter on the last cell adds an empty cell below it: not one of the notebook's)
            code = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
            if code and all(c.get("execution_count") for c in code):
                break
        code = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
        assert code and all(c.get("execution_count") for c in code), "Run All did not run every cell"
        outputs = [o for c in code for o in c.get("outputs", [])]
        errors = [o for o in outputs if o.get("output_type") == "error"]
        assert not errors, f"cell errors: {[e.get('ename') for e in errors]}"
        assert any("image/png" in o.get("data", {}) for o in outputs), "no figure among the outputs"
    finally:
        driver.quit()
