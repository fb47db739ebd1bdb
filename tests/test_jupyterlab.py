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


def clone_of_this_tree(dest: Path) -> Path:
    """A clone of this checkout with its work tree's changes committed on top (what a fresh clone of that commit
    holds), the nbstripout filter configured as `make setup` does it."""
    import re

    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{ROOT}", str(dest)], check=True)
    changed = [rel for cmd in (["diff", "--name-only", "-z", "HEAD"], ["ls-files", "-o", "--exclude-standard", "-z"])
               for rel in subprocess.run(["git", "-C", str(ROOT), *cmd], capture_output=True, text=True,
                                         check=True).stdout.split("\0")]
    for rel in filter(None, changed):
        src, dst = ROOT / rel, dest / rel
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
        elif dst.exists():
            dst.unlink()
    keys = re.search(r"^NB_EXTRA_KEYS\s*:?=\s*(.*)$", (ROOT / "Makefile").read_text(), re.M).group(1).strip()
    git = ["git", "-C", str(dest)]
    for k, v in (("clean", str(Path(sys.executable).parent / "nbstripout")), ("smudge", "cat"),
                 ("required", "false"), ("extrakeys", keys)):
        subprocess.run([*git, "config", f"filter.nbstripout.{k}", v], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "the work tree"],
                   check=True)
    return dest


def status(root: Path) -> str:
    return subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.slow
def test_a_reader_cannot_change_a_tracked_file_short_of_saving_a_source(tmp_path):
    """Issue 75, items 1-4 and 8, as a reader does it on a fresh clone, with `make lab`'s own server
    (paperlib.pipeline.lab.server): the printed URL opens the index; an executed copy opens, and Run All on it stops
    at its first cell with the command that regenerates it (nothing read or written); a parameter changed in a
    source is discarded on closing; after waiting past JupyterLab's autosave interval `git status` is clean and the
    record is byte-identical."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from paperlib.pipeline.lab import server

    root = clone_of_this_tree(tmp_path / "clone")
    assert status(root) == "", status(root)
    record = root / "results" / "paper" / "notebooks" / f"{SOURCE}.ipynb"
    before = record.read_bytes()
    port = free_port()
    argv, env = server(root, port, ("--IdentityProvider.token=", "--ServerApp.password=", "--LabApp.news_url=",
                                    "--ServerApp.disable_check_xsrf=True"))
    tracker = Path(env["JUPYTERLAB_SETTINGS_DIR"]) / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True, exist_ok=True)  # every cell rendered, so the outputs can be found
    (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    env = {**env, "PYTHONPATH": str(root), "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter"),
           "PAPERLIB_DATA": str(tmp_path / "no-data-here")}
    proc = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.5)
    driver = browser()
    try:
        driver.get(f"{url}/")  # the printed URL, without its token (none here)
        wait(driver, ".jp-Notebook .jp-Cell", timeout=120)
        time.sleep(2)
        assert "The notebooks" in driver.find_element(By.CSS_SELECTOR, ".jp-Notebook").text
        assert driver.current_url.split("?")[0].endswith("/lab/tree/notebooks/index.ipynb")

        open_notebook(driver, url, f"results/paper/notebooks/{SOURCE}.ipynb")
        driver.find_element(By.CSS_SELECTOR, ".jp-Notebook").click()
        ActionChains(driver).send_keys(Keys.ESCAPE).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL) \
            .key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
        end = time.time() + 120
        while time.time() < end and "RecordRerun" not in driver.find_element(By.CSS_SELECTOR, ".jp-Notebook").text:
            time.sleep(2)
        text = driver.find_element(By.CSS_SELECTOR, ".jp-Notebook").text
        assert "is a committed record of the paper run" in text, text[-2000:]
        assert f"snakemake --profile profiles/paper results/paper/notebooks/{SOURCE}.ipynb" in text
        assert "FileNotFoundError" not in text and "Traceback" not in text
        save(driver)  # a deliberate save of a record: refused by the server
        ActionChains(driver).send_keys(Keys.ESCAPE).perform()

        open_notebook(driver, url, f"notebooks/{SOURCE}.ipynb")
        cells = driver.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-CodeCell .cm-content")
        cells[-1].click()
        ActionChains(driver).send_keys("\nx = 'a reader changed this'").perform()
        time.sleep(125)  # past JupyterLab's default autosave interval (120 s)
        assert status(root) == "", f"a tracked file changed without a save:\n{status(root)}"
        ActionChains(driver).key_down(Keys.ALT).send_keys("w").key_up(Keys.ALT).perform()  # close the tab
        discard = wait(driver, ".jp-Dialog button", timeout=30, count=1)
        [b for b in discard if "Discard" in b.text][0].click()
        time.sleep(3)
        assert status(root) == "", f"a tracked file changed after discarding:\n{status(root)}"
        assert record.read_bytes() == before
    finally:
        driver.quit()
        proc.terminate()
        proc.wait(timeout=30)
