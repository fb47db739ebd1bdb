"""The report (`make report`): a Sphinx book built from committed results only, read in headless Chromium.

Every page loads with no SEVERE console entry, every image loads, every internal link and anchor resolves, the
landing page's verdict counts are the ledger's, no notebook page is code without outputs, no absolute machine
path appears; the PDF has every chapter and its figures (pdftotext / pdfimages, pages rendered with pdftoppm).
Screenshots of the landing page and a chapter go to tests/output/report/."""

import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlparse

import pandas as pd
import pytest

from paperlib.decide import Verdict
from paperlib.pipeline import book, book_cards, book_text, print_pdf
from paperlib.pipeline.book_text import MACHINE_PATH
from paperlib.pipeline.variables import MARK, PAPER_KEYS, ledger_values, sync, variables

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "tests" / "output" / "report"
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")


def need(tool_ok: bool, what: str):
    if not tool_ok:
        if os.environ.get("CI"):
            pytest.fail(f"{what} missing: .ci/run installs the Debian packages chromium chromium-driver poppler-utils")
        pytest.skip(f"{what} not installed (Debian packages chromium, chromium-driver, poppler-utils)")


def browser():
    need(bool(CHROMIUM and CHROMEDRIVER), "chromium / chromedriver")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    o = Options()
    o.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000", "--disable-dev-shm-usage"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=o)


def printed_width() -> int:
    """The width a printed page leaves the text, in CSS pixels: Chromium prints on US Letter (8.5 in, 96 px an inch),
    less the left and right margins of the book's ``@page`` rule (read from paperlib.pipeline.book.CSS)."""
    from paperlib.pipeline import book

    _, right, _, left = re.search(r"@page\{margin:([\d.]+)mm ([\d.]+)mm ([\d.]+)mm ([\d.]+)mm", book.CSS).groups()
    return round(8.5 * 96 - (float(left) + float(right)) / 25.4 * 96)


def printed_tables_wider_than_their_column(html: Path) -> list[str]:
    """Tables of the printed copy of the book wider than the block that holds them, laid out as Chromium prints them
    (print media, the page's text width): on paper the excess is cut off, and what it held is lost to the reader."""
    d = browser()
    try:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": printed_width(), "height": 1000, "deviceScaleFactor": 1, "mobile": False})
        d.get(Path(html).resolve().as_uri())
        return d.execute_script("""
            return [...document.querySelectorAll('table')].filter(t => t.offsetParent !== null).map(t => {
                const w = t.getBoundingClientRect().width, room = t.parentElement.getBoundingClientRect().width;
                const cap = t.querySelector('caption');
                return w > room + 1 ? `${(cap ? cap.textContent : t.id || t.className).slice(0, 80)}: ${Math.round(w)} px in ${Math.round(room)}` : null;
            }).filter(x => x);""")
    finally:
        d.quit()


def headings_ending_a_page(pdf_text: str, html: Path) -> list[str]:
    """Headings of the printed copy that pdftotext finds as the last line of a PDF page (the page number aside): on
    paper such a heading is cut off from what it introduces (page 57 ended with "What the paper states, and what we
    measured", 2026-11-27). A heading that wraps onto two lines is not caught."""
    def plain(h: str) -> str:
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", h)).strip().rstrip("#").strip()

    heads = {plain(h) for h in re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", Path(html).read_text(), flags=re.S)} - {""}
    ends = []
    for number, page in enumerate(pdf_text.split("\f")[:-1], 1):
        lines = [ln.strip() for ln in page.splitlines() if ln.strip() and not ln.strip().startswith("paperlib, page ")]
        if lines and re.sub(r"\s+", " ", lines[-1]) in heads:
            ends.append(f"page {number}: {lines[-1]}")
    return ends


def _word_height(pdf: Path, page: int) -> float:
    """The median height of a page's words in points (pdftotext -bbox), a proxy for its text's font size."""
    import numpy as np

    html = subprocess.run(["pdftotext", "-bbox", "-f", str(page), "-l", str(page), str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    h = [float(b) - float(a) for a, b in re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"', html)]
    return float(np.median(h)) if h else 0.0


def nearly_empty_pages(pdf: Path, work: Path, least: float = 0.2) -> list[str]:
    """Pages of the printed copy filled less than ``least`` of their height (issue 58, item 3: blank pages and pages
    holding a claim card's last lines, 2026-11-27): each page rendered at 20 dpi, its fill the share of the text area
    (the running footer and the top margin left out) down to its last inked row."""
    import numpy as np
    from PIL import Image

    out = work / "fill"
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["pdftoppm", "-r", "20", "-gray", str(pdf), str(out / "p")], check=True)
    short = []
    for f in sorted(out.glob("p-*.pgm")):
        a = np.asarray(Image.open(f))
        h = a.shape[0]
        inked = np.flatnonzero((a < 200).any(axis=1))
        body = inked[(inked > 0.05 * h) & (inked < 0.93 * h)]
        fill = (body.max() - 0.05 * h) / (0.88 * h) if body.size else 0.0
        if fill < least:
            page = int(f.stem.split("-")[-1])
            said = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"], capture_output=True,
                                  text=True).stdout.split()
            short.append(f"page {page}: {fill:.0%} full ({' '.join(said[:12])} ...)")
    return short


def check_site(site: Path, shots: dict[str, Path] | None = None) -> dict:
    """Load every page; fails on a console error, a broken image or internal link, a machine path, or a notebook
    page with no output. Returns counts and the landing page's verdict tables."""
    site = site.resolve()
    pages = sorted(p for p in site.rglob("*.html") if p.relative_to(site).parts[0] != "_static")  # theme templates
    assert pages, f"no pages in {site}"
    d = browser()
    n_img = n_links = 0
    anchors: dict[Path, set] = {}
    try:
        for page in pages:
            rel = page.relative_to(site)
            d.get(page.as_uri())
            errors = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
            assert not errors, f"{rel}: console errors {errors}"
            broken = d.execute_script(
                "return [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
            assert not broken, f"{rel}: images that do not load: {broken[:3]}"
            n_img += d.execute_script("return document.images.length")
            text = d.execute_script("return document.body.innerText")
            hit = MACHINE_PATH.search(text)
            assert not hit, f"{rel}: a machine path shows: ...{text[max(0, hit.start() - 60):hit.end() + 60]}..."
            if rel.parts[0] == "notebooks":
                outputs = d.execute_script("return document.querySelectorAll('.cell_output').length")
                assert outputs > 0, f"{rel}: a notebook page with code and no output"
            for href in d.execute_script("return [...document.querySelectorAll('a[href]')].map(a => a.href)"):
                u = urlparse(href)
                if u.scheme != "file":
                    continue
                target = Path(unquote(u.path))
                assert target.exists() and site in target.parents, f"{rel}: broken link {href}"
                if u.fragment and target.suffix == ".html":
                    if target not in anchors:
                        anchors[target] = set(re.findall(r'\bid="([^"]+)"', target.read_text()))
                    assert u.fragment in anchors[target], f"{rel}: anchor #{u.fragment} missing in {target.name}"
                n_links += 1
        read_tables = ("return [...document.querySelectorAll('table.verdicts')].map(t => [...t.querySelectorAll("
                       "'tbody tr')].map(r => [...r.cells].map(c => c.innerText.trim())))")
        chapters = {}
        for page in sorted(site.glob("*.html")):
            d.get(page.as_uri())
            chapters[page.stem] = d.execute_script(read_tables)
        tables = chapters.pop("index")
        for name, path in (shots or {}).items():
            d.get((site / name).as_uri())
            path.parent.mkdir(parents=True, exist_ok=True)
            d.set_window_size(1400, min(4000, d.execute_script("return document.body.scrollHeight")))
            d.save_screenshot(str(path))
            d.set_window_size(1400, 1000)
    finally:
        d.quit()
    return dict(pages=len(pages), images=n_img, links=n_links, tables=tables, chapter_tables=chapters)


def verdict_counts_match(tables, claims: pd.DataFrame, every_paper: bool = True) -> int:
    """Every row of a page's verdict tables equals the ledger's counts (and, on the landing page, every ledger paper
    has its row); returns the rows checked."""
    n = 0
    for table in tables:
        for label, *cells in table:
            mine = claims[claims.paper == label]
            assert len(mine), f"the landing page names {label!r}, which is not in the ledger"
            want = [str(int((mine.verdict == v).sum())) for v in Verdict] + [str(len(mine))]
            assert cells == want, f"{label}: page says {cells}, ledger says {want}"
            n += 1
    if every_paper:
        assert n == claims.paper.nunique(), "some ledger paper has no row in the landing page's tables"
    return n


# ------------------------------------------------------------------------------------------- fast unit tests

def test_ledger_text_cannot_make_markdown_structure():
    assert book.md_escape(">= 90% of *runs* [x](y) <b>") == r"\>= 90% of \*runs\* \[x\](y) \<b\>"
    assert book.md_escape("a_b|c") == r"a\_b\|c"


def test_machine_paths_are_scrubbed_before_repository_paths():
    assert book_text.scrub("saved /tmp/paperrun/figures/paper/x.png and /work/main/results/q.csv") == \
        "saved figures/paper/x.png and results/q.csv"
    assert book_text.scrub("see /usr/lib/python3") == "see /usr/lib/python3"


def test_captions_read_the_profile_and_name_what_is_missing():
    cfg = {"race": {"reps": 200, "reps_by_method": {"ucbe-lrf": 20}}}
    assert book.fill("{cfg:race.reps} runs{cfg?race.reps_by_method.ucbe-lrf|, @ for LRF}", cfg) == "200 runs, 20 for LRF"
    assert book.fill("{cfg:race.reps} runs{cfg?race.reps_by_method.lrf|, @ for LRF}", cfg) == "200 runs"
    with pytest.raises(book.BookError, match="zhou.reps"):
        book.fill("{cfg:zhou.reps}", cfg)


def test_every_committed_ledger_row_has_its_builder():
    """Each row id of both committed ledgers is found in one claim builder (a literal id or an f-string prefix)."""
    index = book_cards.claim_code()
    for profile in ("quick", "paper"):
        for cid in pd.read_csv(ROOT / "figures" / profile / "claims.csv").claim:
            assert book_cards.code_for(cid, index) is not None, f"{profile}: no builder found for {cid}"
    mod, fn, rules = book_cards.code_for("zhou-active-beats-baselines", index)
    assert mod == "paperlib.papers.zhou.claims"
    # issue 73: a statement about every dataset is decided by construction, of kind universal (its card says so)
    from paperlib.ledger import read

    row = {c.claim: c for c in read(ROOT / "figures" / "paper" / "claims.csv")}["zhou-active-beats-baselines"]
    assert row.kind == "universal"
    card = book_cards.claim_card(row, index, set())
    assert "paperlib.decide.decide" in card and "(universal" in card


def test_structure_names_existing_notebooks_and_rules():

    s = book.load_structure()
    rules = set(re.findall(r"^rule (\w+):", "".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk")), re.M))
    for ch in s["chapters"]:
        for sec in ch["sections"]:
            if sec.get("notebook"):
                assert (ROOT / "notebooks" / f"{sec['notebook']}.ipynb").exists(), sec["notebook"]
                assert sec["rule"] in rules, sec["rule"]


def test_readme_numbers_follow_the_ledgers():
    """Every number the README marks is the committed ledgers' (`python -m paperlib.pipeline.variables README.md`
    rewrites them); and the README marks the paper profile's tallies."""
    text = (ROOT / "README.md").read_text()
    names = MARK.findall(text)
    assert {"paper_rows", "paper_zhou_holds", "paper_pulse_holds", "paper_robin_fails"} <= {n for n, _ in names}
    new, stale = sync(text, variables(ROOT / "figures"))
    assert not stale, f"stale numbers in README.md: {stale}"


def test_variables_count_verdicts_independently():
    claims = pd.DataFrame({"paper": [*PAPER_KEYS, "paperlib (race)", "Zhou et al. 2025"],
                           "verdict": ["holds", "fails", "partly", "fails", "holds"]})
    v = ledger_values(claims, "x")
    assert (v["x_rows"], v["x_paper_rows"], v["x_paperlib_rows"]) == ("5", "4", "1")
    assert (v["x_zhou_holds"], v["x_pulse_fails"], v["x_robin_partly"], v["x_fails"]) == ("2", "1", "1", "2")
    with pytest.raises(KeyError, match="nope"):
        sync("<!-- v:nope -->1<!-- /v -->", v)


def test_the_rows_whose_verdict_moves_with_the_fit_are_counted_from_their_cases():
    """README's "the verdict moves with the fit on N rows" comes from the committed cases: a universal row shown on
    every case under the published fit (fit 0) and contradicted under fit 1 (p_against 0.001 after Holm over its
    two fit-1 cases) moves (holds alone, fails over every fit); a row the same under both fits does not."""
    from paperlib.decide import Case
    from paperlib.ledger import decided
    from paperlib.pipeline.variables import fit_values

    def row(cid, fit1_against):
        cases = [Case(f"{cid}{i}", "real", p_for=0.001, p_against=0.999) for i in range(2)]
        cases += [Case(f"{cid}{i}", "real", p_for=1 - p, p_against=p, fit=1) for i, p in enumerate(fit1_against)]
        return decided("paperlib (race)", cid, "s", "[real] e", "m", "universal", cases)

    moved, kept, alone = row("a", [0.001, 0.001]), row("b", [0.999, 0.999]), decided(
        "paperlib (race)", "c", "s", "[real] e", "m", "universal", [Case("c", "real", p_for=0.001)])
    assert moved.verdict != "holds" and kept.verdict == "holds"
    v = fit_values([moved, kept, alone], "x")
    assert (v["x_fit_rows"], v["x_fit_moved"], v["x_fit_moved_rows"]) == ("2", "1", "`a`")


def test_methods_and_references_pages_read_the_structure_and_the_profile(tmp_path):
    """Issue 39, items 5 and 7: the substitutions and the declared reductions as tables, and links out. The values
    in the reductions table are the profile file's own (read here from the YAML, not through the builder)."""
    import yaml

    raw = yaml.safe_load((ROOT / "paperlib" / "config" / "paper.yaml").read_text())
    structure = book.load_structure()
    book.source_tree("paper", ROOT / "figures" / "paper", ROOT / "results" / "paper" / "notebooks",
                     book.profile_config("paper"), tmp_path / "src")
    methods = (tmp_path / "src" / "methods.md").read_text()
    refs = (tmp_path / "src" / "references.md").read_text()
    assert len(raw["reductions"]) >= 1
    for r in raw["reductions"]:
        value = raw
        for part in r["setting"].split("."):
            value = value[part]
        lines = methods.splitlines()
        at = next(k for k, line in enumerate(lines) if f"(`{r['setting']}`)" in line)
        shown = re.fullmatch(r"  - `([^`]*)`", lines[at + 2])  # the row's third cell: ours
        assert shown and yaml.safe_load(shown.group(1)) == value, (lines[at:at + 3], value)
    for ch in structure["chapters"]:
        ref = structure["references"].get(ch.get("cite"))
        if ref is None:
            continue
        assert ref["code"]["url"] in refs
        assert f"{{cite:p}}`{ch['cite']}`" in (tmp_path / "src" / f"{ch['id']}.md").read_text()
        sub = next(s for s in structure["substitutions"] if s["paper"] == ch["cite"])
        assert f"]({ref['paper']})\n  - {book.md_escape(sub['theirs'])}\n" in methods
    # issue 68, item 5: the text cites by key; every entry of the one bibliography is cited on a page other than the
    # references page (whose {bibliography} directive lists only the cited ones), and no page cites a missing key
    from paperlib.pipeline.bibliography import entries

    role = re.compile(r"\{cite:[pt]\}`([^`]+)`")
    cited = {k.strip() for page in (tmp_path / "src").glob("*.md") if page.name != "references.md"
             for keys in role.findall(page.read_text()) for k in keys.split(",")}
    assert cited == set(entries()), (f"cited nowhere: {sorted(set(entries()) - cited)}; "
                                     f"not in references.bib: {sorted(cited - set(entries()))}")
    assert "```{bibliography}" in refs and (tmp_path / "src" / "references.bib").is_file()
    for name in ("closerlook_topicalchat", "llmrubric_dist", "sysrs_math", "bench1"):  # every kind of data read
        assert f"| `{name}` |" in refs
    assert "https://github.com/zifanlyu/llm-bandits-sysrs/tree/" in refs  # a pinned upstream becomes its commit


def test_missing_ledger_is_named(tmp_path):
    with pytest.raises(book.BookError, match="claims.csv missing"):
        book.source_tree("paper", tmp_path, tmp_path, None, tmp_path / "src")


# ------------------------------------------------------------------------------ the committed report, whole

@pytest.mark.slow
def test_committed_paper_report_in_chromium_and_pdf(tmp_path):
    """`make report` on what is committed: the whole book and its PDF, checked page by page."""

    need(bool(CHROMIUM and CHROMEDRIVER), "chromium / chromedriver")
    need(bool(shutil.which("pdftoppm") and shutil.which("pdftotext") and shutil.which("pdfimages")), "poppler-utils")
    out = tmp_path / "site"
    info = book.build("paper", ROOT / "figures" / "paper", ROOT / "results" / "paper" / "notebooks", out,
                      config=book.profile_config("paper"), pdf=True, work=tmp_path / "work")
    assert not info["missing"], f"figures or tables named in book.yaml but not committed: {info['missing']}"
    claims = pd.read_csv(ROOT / "figures" / "paper" / "claims.csv")
    got = check_site(out, {"index.html": OUTPUT / "landing.png", "pulse.html": OUTPUT / "chapter_pulse.png"})
    verdict_counts_match(got["tables"], claims)
    structure = book.load_structure()
    for ch in structure["chapters"]:  # each chapter opens with its verdict table, equal to the ledger's counts
        assert verdict_counts_match(got["chapter_tables"][ch["id"]], claims, every_paper=False) >= 1, ch["id"]
        html = (out / f"{ch['id']}.html").read_text()
        for sec in ch["sections"]:  # every page of a split figure is shown, each with its caption
            for f in sec.get("figures", []):
                files = sorted((ROOT / "figures" / "paper").glob(f["file"]))
                assert files, f["file"]
                for path in files:
                    assert f'id="fig-{path.stem.replace("_", "-")}"' in html, f"{ch['id']}: {path.name} not shown"
    assert got["images"] >= 20 and got["links"] > 500
    pages = {p: (out / f"{p}.html").read_text() for p in ("zhou", "pulse", "robin", "beyond")}
    for cid, verdict in zip(claims.claim, claims.verdict, strict=True):  # every row is shown in a chapter, once,
        hits = [p for p, html in pages.items() if f'id="claim-{cid}"' in html]  # with the ledger's verdict
        assert len(hits) == 1, f"{cid} is shown in {hits}"
        card = pages[hits[0]].split(f'id="claim-{cid}"', 1)[1].split('id="claim-', 1)[0]
        shown = re.findall(r'class="verdict verdict-([a-z-]+)"', card)
        assert shown[:1] == [verdict.replace(" ", "-")], f"{cid}: the card shows {shown[:1]}, the ledger {verdict!r}"
    assert len(info["notebooks"]) >= 10, f"executed notebooks with outputs: {info['notebooks']}"
    for nb in (ROOT / "results" / "paper" / "notebooks").glob("*.ipynb"):
        assert nb.stat().st_size < 1_000_000, f"{nb.name} is over the 1 MB budget"
    pdf = info["pdf"]
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    for title in ("Zhou et al. 2025: On Speeding Up", "PULSE", "LLM-as-Judge on a Budget", "Beyond the papers",
                  "How verdicts are decided", "The ledger"):
        assert title in text, f"the PDF has no chapter '{title}'"
    # every figure is printed with its caption (raster or vector: the SVG versions print as vectors)
    captions = len(re.findall(r"paperlib figure \d+", text))
    shown = len(re.findall(r'<figure class="align-default" id="fig-', (tmp_path / "work" / "singlehtml" / "index.html")
                           .read_text())) if (tmp_path / "work" / "singlehtml" / "index.html").exists() else None
    assert captions >= 20, f"the PDF prints {captions} figure captions"
    assert shown is None or captions == shown, f"{shown} figures in the book, {captions} captions in the PDF"
    assert any(p.suffix == ".svg" for p in (tmp_path / "work" / "src" / "figures").iterdir()), "no vector figure"
    for old in OUTPUT.glob("pdf_page-*.png"):  # an earlier run's pages (their names' width follows the page count)
        old.unlink()
    subprocess.run(["pdftoppm", "-r", "40", "-png", "-f", "1", "-l", "4", str(pdf), str(OUTPUT / "pdf_page")],
                   check=True)
    pngs = sorted(OUTPUT.glob("pdf_page-*.png"))
    # the title page and the landing page are full; a chapter starts on a new page, so the page before it may be short
    assert len(pngs) == 4 and all(p.stat().st_size > 5000 for p in pngs[:2]) and all(p.stat().st_size > 2500 for p in pngs)
    # issue 39, item 4: a PDF a reviewer would print
    pages = text.count("\f")
    # issue 68, item 4: every figure now prints its text at 6 pt or more, so the grids take more pages (ROBIN's four
    # grids 3-4 pages each, 12 panels a page): about 110 pages; each notebook is still shown once, on the site
    # 2026-12-03 (issue 73): the landing page's theory/empirical split and stand-in note, the methods page's bandit
    # references and five more works in the bibliography took the measured PDF from at most 115 to 119 pages; the
    # budget follows what the report now says (a layout aim, not a check of a result: every number is tested elsewhere)
    # 2026-12-04 (issue 73, items 4-5): the papers' numbers beside ours on the landing page and the ledger index at a
    # readable 7.5 pt (was 5.7): 121 pages measured
    assert pages <= 122, f"the PDF has {pages} pages (each notebook is shown once, on the site; aim: about 115)"
    assert f"paperlib, page 1 of {pages}" in text.replace("\f", "\n")  # page numbers
    # issue 58: the first page says what the report was built from (version, commit, build date, profile)
    first = " ".join(text.split("\f")[0].split())
    prov = book.provenance()
    assert f"commit {prov['commit'].split()[0]}" in first and prov["date"] in first and "paper profile" in first
    # issue 73, item 5: the printed contents say "Contents" once and list no page the PDF leaves out
    assert first.count("Contents") == 1 and "The claim builders" not in first, first[:400]
    # issue 73, item 5: the ledger index printed at 5.7 pt (its words 0.61 of the body text's height); now at least
    # three quarters of the body text's size on every page of the index (measured 0.80, 2026-12-04)
    ledger_pages = [i + 1 for i, page in enumerate(text.split("\f"))
                    if len(re.findall(r"^(?:zhou|pulse|robin)-", page, re.M)) >= 10]
    assert ledger_pages, "no page of the ledger index found"
    body = _word_height(pdf, 2)
    small = {p: round(_word_height(pdf, p) / body, 2) for p in ledger_pages if _word_height(pdf, p) < 0.75 * body}
    assert not small, f"ledger index pages printed small (word height / body text's): {small}"
    assert "Show code cell" not in text and "PosixPath(" not in text and "SavedPath(" not in text
    # every table fits the printed page: one wider than its column is cut off on paper (zhou_table2's provenance,
    # robin_table2's last columns were, 2026-11-27); a wide table names the columns it shows in book.yaml
    wide = printed_tables_wider_than_their_column(tmp_path / "work" / "singlehtml" / "print.html")
    assert not wide, f"tables cut off on the printed page: {wide}"
    orphans = headings_ending_a_page(text, tmp_path / "work" / "singlehtml" / "print.html")
    assert not orphans, f"headings printed at the foot of a page, apart from what they introduce: {orphans}"
    short = nearly_empty_pages(pdf, tmp_path)
    assert not short, f"pages under a fifth full (a blank page, or a few lines left over): {short}"
    # ... and not by the luck of this machine's font metrics: CI printed page 77 (a claim card's last lines) at 4%
    # where this VM printed it full (2026-11-28); the text 4% smaller or larger moves every page break
    for size in ("12.0", "13.0"):
        printed = (tmp_path / "work" / "singlehtml" / "print.html").read_text()
        assert printed.count("html{font-size:12.5px}") == 1, "the print CSS's font size moved: update this check"
        html = tmp_path / "work" / "singlehtml" / f"print-{size}.html"
        html.write_text(printed.replace("html{font-size:12.5px}", f"html{{font-size:{size}px}}"))
        print_pdf.chromium_print(html, tmp_path / f"print-{size}.pdf")
        short = nearly_empty_pages(tmp_path / f"print-{size}.pdf", tmp_path / size)
        assert not short, f"at a {size} px font: pages under a fifth full: {short}"
    raw = pdf.read_bytes()
    assert b"file://" not in raw, "the PDF links into the build folder"
    assert b"/Outlines" in raw, "the PDF has no outline (bookmarks)"
    outline_is_clean(pdf)


def outline_is_clean(pdf) -> None:
    """Issue 58, item 2: the bookmarks show every chapter at the top level, once, after the landing page; no
    "Contents"; no title doubled or with words glued at a line break (Chromium's own outline had all four)."""
    from pypdf import PdfReader

    reader = PdfReader(pdf)
    top = [str(x.title) for x in reader.outline if not isinstance(x, list)]
    assert top[0].startswith("paperlib: evaluating LLMs on a budget"), top[:2]
    for chapter in ("Zhou et al. 2025: On Speeding Up Language Model Evaluation", "Tolochinsky et al. 2026: PULSE",
                    "Saha et al. 2026: LLM-as-Judge on a Budget (ROBIN, ROBIN-HOOD)", "Methods", "The ledger",
                    "References"):
        assert top.count(chapter) == 1, f"chapter {chapter!r} at the outline's top level {top.count(chapter)} times"
    assert any(t.startswith("Beyond the papers") for t in top)

    def titles(items):
        for x in items:
            yield from titles(x) if isinstance(x, list) else [str(x.title)]

    every = list(titles(reader.outline))
    assert "Contents" not in every
    doubled = [t for t in every if len(t) % 2 == 0 and t[: len(t) // 2] == t[len(t) // 2:]]
    glued = [t for t in every if re.search(r"[a-z]budget|ModelEvaluation|ourvariants|[a-z]’s[a-z]", t)]
    assert not doubled and not glued, (doubled[:3], glued[:3])


def test_every_saved_figure_has_a_vector_version_unless_too_large(tmp_path, monkeypatch):
    """Issue 39, item 3: figures in vector form (the report shows and prints the SVG); one over the size budget is
    not written, and a stale one from an earlier run is removed, so the report never shows an outdated figure."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from paperlib.pipeline import notebook as nbk

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0], label="a")
    png = nbk.save_figure(fig, tmp_path / "f.png", "f.png")
    svg = png.with_suffix(".svg")
    assert svg.exists() and svg.read_text().lstrip().startswith("<?xml") and "<svg" in svg.read_text()
    assert "<dc:date>" not in svg.read_text()  # no date: a rerun changes the file only where the figure changed
    monkeypatch.setattr(nbk, "MAX_BYTES", 10)  # every vector version is now too large
    nbk.save_vector(fig, png)
    assert not svg.exists()
    dest = tmp_path / "book"
    dest.mkdir()
    assert book.place_figure(png, dest) == "f.png"  # no SVG: the book takes the PNG
    plt.close(fig)


@pytest.mark.parametrize("x, shown", [(0.079993, "0.08"), (float("nan"), "–"), (None, "–"), (30080.0, "30,080"),
                                      (1458.333, "1,458"), (0.95, "0.95"), (-1.108434, "-1.108"), (200, "200"),
                                      (12_032, "12,032"), ("sysrs_math", "sysrs_math"), (True, "True")])
def test_tables_show_numbers_without_float_noise_or_nan(x, shown):
    """Issue 39, item 8: 0.07999 and nan cells."""
    import numpy as np

    from paperlib.display import fmt_number

    assert fmt_number(x) == shown
    if isinstance(x, float):
        assert fmt_number(np.float64(x)) == shown


def test_a_wide_table_shows_the_columns_book_yaml_names_and_says_what_it_left_out(tmp_path):
    """A table wider than a printed page is shown by the columns book.yaml names (in that order); the line under it
    says how many rows and columns are shown and links the whole file; a column the table lacks stops the build."""
    csv = tmp_path / "t.csv"
    pd.DataFrame({"a": range(20), "b": range(20), "wide": ["x" * 40] * 20, "c": range(20)}).to_csv(csv,
                                                                                                          index=False)
    md = book.table_block(csv, "A caption.", "figures/t.csv", columns=["c", "a"])
    header = next(line for line in md.splitlines() if line.startswith("|"))
    assert [h.strip() for h in header.strip("|").split("|")] == ["c", "a"]
    assert "wide" not in md and "xxxx" not in md
    assert f"First {book_cards.MAX_TABLE_ROWS} of 20 rows; 2 of its 4 columns; the whole table:" in md
    full = book.table_block(csv, "A caption.", "figures/t.csv")
    assert "wide" in full and "columns" not in full.split(":::")[-1]
    with pytest.raises(book.BookError, match="no column nope"):
        book.table_block(csv, "A caption.", "figures/t.csv", columns=["a", "nope"])


def test_one_bibliography_for_the_report_and_citation_cff():
    """Issue 58: the references come from one BibTeX file; CITATION.cff cites the same papers (by title, with the
    same arXiv id), and every paper and library entry has a DOI or an arXiv id unless it says why not."""
    import yaml

    from paperlib.pipeline.bibliography import PAPERS, _plain, entries, identifier

    cff = yaml.safe_load(open("CITATION.cff"))
    cited = {_plain(r["title"]).lower(): r for r in cff["references"]}
    for key in PAPERS:
        e = entries()[key]
        title = _plain(e.fields["title"]).lower()
        match = next((r for t, r in cited.items() if title.startswith(t) or t.startswith(title.split(" (")[0])), None)
        assert match is not None, f"{key} is not in CITATION.cff"
        if "eprint" in e.fields:
            assert {"type": "other", "value": f"arXiv:{e.fields['eprint']}"} in match.get("identifiers", []), key
    for key, e in entries().items():
        assert identifier(e) or "no arXiv id or DOI" in e.fields.get("note", ""), key
