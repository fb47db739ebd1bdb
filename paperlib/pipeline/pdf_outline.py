"""The printed report's outline (bookmarks), rebuilt after Chromium prints it (issue 58, item 2).

Chromium makes the outline from the single-page HTML's headings, where Sphinx nests every chapter under the landing
page's last section (the toctree sits there), keeps the theme's hidden "Contents" headings, doubles some titles and
glues words at the line breaks of a long heading ("abudget"). This rewrites the outline with pypdf, keeping every
entry's page and position: the chapters (the book's top-level documents) at the top level, once each, after the
landing page's own sections; no "Contents"; each title as the HTML spells it.

Written by hand: the outline is a tree of a few hundred entries; pypdf reads and writes it.
"""

from __future__ import annotations

import html as htmllib
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

HEADING = re.compile(r"<h([1-6])[^>]*>(.*?)</h\1>", re.S)
DOC_TITLE = re.compile(r'<section[^>]*\sdata-document="([^"/]+)"[^>]*>\s*<span id="document-[^"]*"></span>\s*'
                       r'<h[1-6][^>]*>(.*?)</h[1-6]>', re.S)
DROP = {"Contents"}


def _text(inner: str) -> str:
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", "", inner))).strip().rstrip("#").strip()


def _key(title: str) -> str:
    return re.sub(r"\s+", "", title)


def heading_titles(page: str) -> tuple[dict[str, str], set[str]]:
    """From the printed HTML: every heading's text by its whitespace-free form, and the top-level documents' titles
    (whitespace-free): the chapters."""
    spelled = {_key(_text(m.group(2))): _text(m.group(2)) for m in HEADING.finditer(page)}
    chapters = {_key(_text(m.group(2))) for m in DOC_TITLE.finditer(page) if m.group(1) != "index"}
    return spelled, chapters


def clean_title(title: str, spelled: dict[str, str]) -> str:
    """A bookmark's title as the HTML spells it: a doubled title once, words glued at a line break apart again."""
    t = re.sub(r"\s+", " ", title).strip()
    half = len(t) // 2
    if len(t) % 2 == 0 and t[:half] == t[half:]:
        t = t[:half]
    return spelled.get(_key(t), t)


@dataclass
class Entry:
    title: str
    page: int
    dest: object
    children: list[Entry] = field(default_factory=list)


def _read(reader, items) -> list[Entry]:
    out: list[Entry] = []
    for item in items:
        if isinstance(item, list):
            if out:
                out[-1].children.extend(_read(reader, item))
            continue
        out.append(Entry(str(item.title), reader.get_destination_page_number(item), item))
    return out


def restructure(entries: list[Entry], spelled: dict[str, str], chapters: set[str]) -> list[Entry]:
    """The new tree: titles cleaned, "Contents" dropped, every chapter lifted to the top level (in reading order,
    after the entry that held it)."""
    top: list[Entry] = []

    def visit(items: list[Entry], into: list[Entry]) -> None:
        for e in items:
            e.title = clean_title(e.title, spelled)
            if e.title in DROP:
                visit(e.children, into)  # its children, if any, take its place
                continue
            kids, e.children = e.children, []
            if _key(e.title) in chapters:
                top.append(e)
                visit(kids, e.children)
            else:
                into.append(e)
                visit(kids, e.children)

    visit(entries, top)
    return top


def fix_outline(pdf: Path, printed_html: Path) -> list[Entry]:
    """Rewrite ``pdf``'s outline in place (see the module docstring); returns the new top level."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import Fit

    spelled, chapters = heading_titles(Path(printed_html).read_text(encoding="utf-8"))
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # Chromium's trailer undercounts its objects: harmless
    reader = PdfReader(pdf)
    tree = restructure(_read(reader, reader.outline), spelled, chapters)
    writer = PdfWriter(clone_from=reader)
    writer._root_object.pop("/Outlines", None)  # noqa: SLF001 (pypdf has no public call to drop an outline)

    def fit_of(dest) -> Fit:
        if getattr(dest, "typ", None) == "/XYZ":
            return Fit.xyz(dest.left, dest.top, dest.zoom)
        return Fit.fit()

    def add(items: list[Entry], parent=None) -> None:
        for e in items:
            node = writer.add_outline_item(e.title, e.page, parent=parent, fit=fit_of(e.dest))
            add(e.children, node)

    add(tree)
    writer.page_mode = "/UseOutlines"
    tmp = Path(pdf).with_suffix(".outline.pdf")
    with open(tmp, "wb") as fh:
        writer.write(fh)
    tmp.replace(pdf)
    return tree
