"""The rendered paper (`make report`): built from executed notebooks, loaded in headless Chromium. Every page loads
without console errors, every image resolves, every internal link (and anchor) works; a screenshot of the ledger
page is written to tests/output/report/."""

import base64
import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pandas as pd
import pytest

from paperlib.pipeline.report import build

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "tests" / "output" / "report"
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
# a 1x1 PNG
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def browser():
    if not (CHROMIUM and CHROMEDRIVER):
        if os.environ.get("CI"):
            pytest.fail("chromium / chromedriver missing: .ci/run installs the Debian packages chromium chromium-driver")
        pytest.skip("chromium / chromedriver not installed (Debian packages chromium, chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    o = Options()
    o.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000",
              "--disable-dev-shm-usage"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=o)


def check_site(site: Path, screenshot: Path) -> dict:
    """Load every page; returns counts. Fails on a console error, a broken image or a broken internal link."""
    site = site.resolve()
    pages = sorted(site.rglob("*.html"))
    assert pages, f"no pages in {site}"
    d = browser()
    n_img = n_links = 0
    try:
        for page in pages:
            d.get(page.as_uri())
            errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
            assert not errors, f"{page.relative_to(site)}: console errors {errors}"
            broken = d.execute_script(
                "return [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
            assert not broken, f"{page.relative_to(site)}: images that do not load: {broken[:3]}"
            n_img += d.execute_script("return document.images.length")
            for href in d.execute_script("return [...document.querySelectorAll('a[href]')].map(a => a.href)"):
                u = urlparse(href)
                if u.scheme != "file":
                    continue
                target = Path(unquote(u.path))
                assert target.exists() and site in target.parents, f"{page.relative_to(site)}: broken link {href}"
                if u.fragment:
                    assert f"id='{u.fragment}'" in target.read_text() or f'id="{u.fragment}"' in target.read_text(), \
                        f"{page.relative_to(site)}: anchor #{u.fragment} missing in {target.name}"
                n_links += 1
        d.get((site / "ledger.html").as_uri())
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(screenshot))
        visible = d.execute_script("return document.querySelectorAll('#ledger tbody tr').length")
        d.execute_script("const s = document.getElementById('verdict'); s.value = 'fails';"
                         "s.dispatchEvent(new Event('change'))")
        shown = d.execute_script(
            "return [...document.querySelectorAll('#ledger tbody tr')].filter(r => r.style.display !== 'none')"
            ".map(r => r.dataset.verdict)")
    finally:
        d.quit()
    return dict(pages=len(pages), images=n_img, links=n_links, rows=visible, fails_shown=shown)


@pytest.fixture
def tiny_run(tmp_path):
    """An executed notebook with an inline figure and a link, a claims table citing it, a figure file, a README."""
    ex, fig = tmp_path / "executed", tmp_path / "figs"
    ex.mkdir()
    fig.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Zhou et al. (2025), Figure 3 — one dataset\n\nSee "
                                              "[the summary](zhou_fig3_summary.ipynb) and [gone](nowhere.ipynb)."),
                nbformat.v4.new_code_cell("plot()", outputs=[nbformat.v4.new_output(
                    "display_data", data={"image/png": base64.b64encode(PNG).decode()})])]
    nbformat.write(nb, ex / "zhou_fig3_dataset_synth_easy.ipynb")
    nb.cells[0].source = "# Zhou et al. (2025), Figure 3 — all datasets"
    nbformat.write(nb, ex / "zhou_fig3_summary.ipynb")
    pd.DataFrame([
        dict(paper="Zhou et al. 2025", claim="zhou-a", statement="s", evidence="[synthetic] notebooks/zhou_fig3_summary"
             ".ipynb; x", measured="m", verdict="holds"),
        dict(paper="PULSE", claim="pulse-b", statement="s", evidence="[real] notebooks/pulse_summary.ipynb",
             measured="m", verdict="fails"),
    ]).to_csv(fig / "claims.csv", index=False)
    (fig / "zhou_fig3.png").write_bytes(PNG)
    readme = tmp_path / "README.md"
    readme.write_text("# paperlib\n\nA [figure](figures/smoke/zhou_fig3.png), [the notebook]"
                      "(notebooks/zhou_fig3_summary.ipynb), [a file not in the site](Makefile), "
                      "[the web](https://example.org).\n")
    return ex, fig, readme


def test_site_pages_link_figures_and_ledger_rows(tiny_run, tmp_path):
    ex, fig, readme = tiny_run
    index = build("smoke", ex, fig, readme, tmp_path / "site", sources_dir=ROOT / "notebooks")
    site = index.parent
    page = (site / "nb" / "zhou_fig3_dataset_synth_easy.html").read_text()
    assert "Reproduces:</b> Zhou et al. (2025), Figure 3 — one dataset" in page
    assert "notebooks/zhou_fig3_dataset.ipynb" in page
    summary = (site / "nb" / "zhou_fig3_summary.html").read_text()
    assert "href='../ledger.html#zhou-a'" in summary and "pulse-b" not in summary
    text = index.read_text()
    assert "href=\"figures/zhou_fig3.png\"" in text and "href=\"nb/zhou_fig3_summary.html\"" in text
    assert "data-unresolved=\"Makefile\"" in text and "https://example.org" in text
    ledger = (site / "ledger.html").read_text()
    assert "id='zhou-a'" in ledger and "href='nb/zhou_fig3_summary.html'" in ledger


def test_site_loads_in_headless_chromium(tiny_run, tmp_path):
    ex, fig, readme = tiny_run
    site = build("smoke", ex, fig, readme, tmp_path / "site", sources_dir=ROOT / "notebooks").parent
    got = check_site(site, OUTPUT / "tiny_ledger.png")
    assert got["pages"] == 5 and got["images"] >= 3 and got["links"] > 10
    assert got["rows"] == 2 and got["fails_shown"] == ["fails"]
    assert (OUTPUT / "tiny_ledger.png").stat().st_size > 1000


def test_missing_inputs_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="run the profile first"):
        build("smoke", tmp_path, tmp_path, tmp_path / "README.md", tmp_path / "site")
