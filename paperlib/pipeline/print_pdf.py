"""The report's printed copy: the single-page HTML made printable and printed to PDF by headless Chromium, then its
bookmarks rebuilt (issue 58, item 8: the PDF apart from the page writers of :mod:`paperlib.pipeline.book`).

:func:`print_copy` turns Sphinx's single-page HTML into what is printed (links within the document, folds open, the
print CSS :data:`PRINT_CSS`); :func:`print_pdf` prints it with Chromium and hands the PDF to
:func:`paperlib.pipeline.pdf_outline.fix_outline`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from ..print_box import PRINT_MAX_HEIGHT_MM


class PrintError(RuntimeError):
    """The PDF could not be printed (no Chromium, or Chromium failed)."""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


PRINT_CSS = """
@media print{
details.hide.above-input,.cell_input,.headerlink,.prev-next-area,.bd-sidebar-primary,.bd-sidebar-secondary,
.bd-header,.bd-footer,.bd-footer-content,.header-article,#pst-back-to-top,.sd-summary-up,.sd-summary-down{
display:none!important}
details.sd-dropdown>summary{font-weight:600}
details.sd-dropdown>.sd-summary-content{display:block!important}
.bd-main .bd-content .bd-article-container{max-width:100%!important}
html{font-size:12.5px}
#the-claim-builders,section[data-document^="notebooks/"],div.profile-config{display:none!important}
/* the printed contents: one "Contents" heading (the toctree's caption doubled the theme's), and no entry for the
claim builders' page, which the PDF does not print (its link was dead; issue 73, item 5; Chromium 156 printed the entry
when it was hidden by li:has(>a), so its link and its sub-list are hidden) */
#jb-print-toc nav>p.caption,#jb-print-toc a[href="#document-code"],#jb-print-toc a[href="#document-code"]+ul{
display:none!important}
.print-only{display:block!important}.screen-only{display:none!important}
/* the ledger index at about 7.5 pt (at .72em it printed at 5.7 pt; issue 73, item 5), its cells' padding tight so that
it still takes five pages */
#the-ledger table{font-size:.94em;line-height:1.25}#the-ledger table td,#the-ledger table th{padding:.15em .35em!important}#the-ledger table td p{margin:0}
#the-ledger table td:nth-child(4),#the-ledger table th:nth-child(4){display:none}
.job-figure{display:none!important}
.sd-dropdown .sd-summary-content img{width:49%!important;display:inline-block;vertical-align:top}
.sd-dropdown .sd-summary-content figure{display:inline-block;width:49%;vertical-align:top;margin:0}
.sd-dropdown .sd-summary-content figure img{width:100%!important}
section[data-document]:not([data-document="ledger"]):not([data-document="references"]){break-before:page}
.claim-card.chapter-end{break-inside:avoid;margin-bottom:0}
tbody tr:nth-last-child(-n+4),#the-ledger tbody tr:nth-last-child(-n+12){break-before:avoid}
section>h1:first-child{margin-top:0}
section[data-document="references"] li,section[data-document="references"] p{break-inside:avoid}
h1,h2,h3,h4{break-inside:avoid}
.landing-end{break-inside:avoid}#read-download-rerun>h2{break-after:avoid}
img{max-width:100%!important;max-height:@MAXH@mm;width:auto;height:auto;break-inside:avoid}
figure,.cell_output{break-inside:avoid}
.bd-main .bd-content table{break-inside:auto}tr{break-inside:avoid}thead{display:table-header-group}
h1,h2,h3,h4,h5,h6,p:has(+ .pst-scrollable-table-container),p:has(+ figure){break-after:avoid}
section>span[id]:empty{position:absolute}
.pst-scrollable-table-container{overflow:visible!important}
table.table{max-width:100%!important}table.table td:last-child{overflow-wrap:anywhere}
a[href]{color:inherit;text-decoration:none}
}
""".replace("@MAXH@", str(PRINT_MAX_HEIGHT_MM))


def print_copy(html: Path) -> Path:
    """The single-page HTML as it is printed: every link that is not to a place in the document or on the web made
    plain text (a PDF must never point into the build folder: image links, links to the other pages of the site),
    links to other pages' sections made links within the document, every folded section printed open (paper cannot
    be unfolded) and the code folds left out (:data:`PRINT_CSS`)."""
    out = html.with_name("print.html")
    out.write_text(printable(html.read_text(encoding="utf-8")), encoding="utf-8")
    return out


def printable(text: str) -> str:
    """:func:`print_copy` on the page's text."""

    def relink(m: re.Match) -> str:
        href = m.group(2)
        if href.startswith(("http://", "https://", "#")):
            return m.group(0)
        page, _, anchor = href.partition("#")
        if page.endswith(".html") and "/" not in page and page not in ("genindex.html", "search.html"):
            return f'{m.group(1)}href="#{anchor or "document-" + page.removesuffix(".html")}"'
        return m.group(1).rstrip()  # no href at all: plain text

    text = re.sub(r'(<a\b[^>]*?\s)href=["\']([^"\']*)["\']', relink, text)
    text = re.sub(r"<details(\s[^>]*class=\"[^\"]*sd-dropdown[^\"]*\")", r"<details open\1", text)
    # each document's anchor moved into its section: Sphinx puts an empty <span> before it, whose line box is pushed
    # onto a page of its own when the page before is full (a blank page before a chapter)
    text = re.sub(r'<span id="document-([^"]+)"></span>\s*<section\b([^>]*)>',
                  r'<section\2 data-document="\1"><span id="document-\1"></span>', text)
    text = _mark_chapter_ends(text)
    return text.replace("</head>", f"<style>{PRINT_CSS}</style></head>", 1)


def _mark_chapter_ends(text: str) -> str:
    """The last claim card of each chapter marked ``chapter-end``, which the print CSS keeps whole: it is the paper
    chapters' last visible block, and the next chapter starts on a new page, so a card split at a page's foot left its
    last lines alone on the chapter's last page (page 77 at 4% in CI, 2026-11-28). The back matter (the ledger, the
    references) runs on without a page break: Chromium did not keep Methods' short closing section whole (a heading
    at a page's foot, three lines on the next page at a 12 px font), whatever the CSS said. A figure is printed at
    most 150 mm tall so that a section's heading, its figure and its caption can share a page with what comes before:
    at 200 mm the group jumped whole to the next page and left a card's last line alone (page 84 at 4%, 2026-11-28;
    with 150 mm no page is under a fifth full at any font size from 11.8 to 13.2 px)."""
    starts = [m.start() for m in re.finditer(r'<section[^>]*\sdata-document="(?!notebooks/)', text)] + [len(text)]
    parts = [text[: starts[0]]]
    for a, b in zip(starts[:-1], starts[1:], strict=True):
        chunk = text[a:b]
        i = chunk.rfind('<div class="claim-card')
        if i >= 0:
            chunk = chunk[:i] + '<div class="claim-card chapter-end' + chunk[i + len('<div class="claim-card'):]
        parts.append(chunk)
    return "".join(parts)


def print_pdf(html: Path, pdf: Path) -> None:
    """The single-page HTML printed to ``pdf`` (:func:`print_copy`, then :func:`chromium_print`), its outline rebuilt."""
    html = print_copy(html)
    chromium_print(html, pdf)
    from .pdf_outline import fix_outline

    fix_outline(pdf, html)  # chapters at the top level of the bookmarks, clean titles


def chromium_print(html: Path, pdf: Path) -> None:
    """``html`` printed as it is by headless Chromium."""
    exe = chromium()
    if exe is None:
        raise PrintError("no Chromium to print the PDF (Debian package chromium); --pdf no builds the site alone")
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-pdf-header-footer", "--generate-pdf-document-outline",  # bookmarks from the headings
           "--run-all-compositor-stages-before-draw", "--virtual-time-budget=20000",
           f"--print-to-pdf={pdf}", html.as_uri()]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode or not pdf.exists():
        raise PrintError(f"chromium could not print {html}: {r.stderr[-1500:]}")
