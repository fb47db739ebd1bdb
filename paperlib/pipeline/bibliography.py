"""The one bibliography (``references.bib``, read with pybtex): the report's references page and the check that
CITATION.cff cites the same works (issue 58: the papers, the authors' code and the libraries a reader must cite,
each with a DOI or an arXiv id)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

BIB = Path(__file__).with_name("references.bib")
#: the entries the references page lists, in order: the papers and their code, then the methods and the libraries
PAPERS = ("zhou2025", "tolochinsky2026", "saha2026", "wu2026", "sysrs")


@cache
def entries() -> dict:
    """The .bib's entries by key (pybtex's ``Entry`` objects)."""
    from pybtex.database import parse_file

    return dict(parse_file(str(BIB)).entries)


def authors(e) -> str:
    people = e.persons.get("author", [])
    names = [" ".join(p.first_names + p.middle_names + p.prelast_names + p.last_names) for p in people]
    return ", ".join(n for n in names if n != "others") + (" et al." if "others" in names else "")


def identifier(e) -> tuple[str, str] | None:
    """("DOI", doi) or ("arXiv", id), with its link; None for a work with neither (software)."""
    f = e.fields
    if "doi" in f:
        return f"doi:{f['doi']}", f"https://doi.org/{f['doi']}"
    if "eprint" in f:
        return f"arXiv:{f['eprint']}", f"https://arxiv.org/abs/{f['eprint']}"
    return None


def head(e) -> str:
    """"Authors. Title. Venue year.": how every page names a work (the references page, the chapters' citations)."""
    f = e.fields
    venue = f.get("booktitle") or f.get("journal") or ""
    return f"{_plain(authors(e)).removesuffix('.')}. {_plain(f['title'])}." + (f" {_plain(venue)}" if venue else "") + f" {f['year']}."


def _plain(text: str) -> str:
    """A .bib field without its braces and accent commands (the few this file uses)."""
    for tex, ch in ((r"{\`e}", "è"), (r"{\'e}", "é"), (r'{\"o}', "ö"), (r"\`e", "è"), (r"\'e", "é"), (r'\"o', "ö")):
        text = text.replace(tex, ch)
    return " ".join(text.replace("{", "").replace("}", "").split())


def references_lines() -> list[str]:
    """The references page's bibliography: every work the text cites by key, as sphinxcontrib-bibtex formats it from
    this file (its ``{bibliography}`` directive lists the cited entries only; the report's test fails an entry that
    no page cites), then the papers' code."""
    lines = ["## Works cited", "",
             "Every work the text cites by key (`paperlib/pipeline/references.bib`, the one bibliography; "
             "CITATION.cff cites the same papers).", "", "```{bibliography}", "```", "",
             "## The papers' code", ""]
    for k, e in entries().items():
        if "code" in e.fields:
            f = e.fields
            lines.append(f"* {{cite:t}}`{k}`: [{_plain(f.get('codename', f['code']))}]({f['code']})")
    return lines


def reference_dicts() -> dict[str, dict]:
    """The papers' entries in the shape the report's pages read (``cite``, ``paper`` link, ``code`` name and url)."""
    out = {}
    for k in PAPERS:
        e = entries().get(k)
        if e is None:
            continue
        f = e.fields
        ident = identifier(e)
        ref = {"cite": head(e)}
        if ident and ident[0].startswith("arXiv"):
            ref["paper"] = ident[1]
        if "code" in f:
            ref["code"] = {"name": _plain(f.get("codename", f["code"])), "url": f["code"]}
        out[k] = ref
    return out
