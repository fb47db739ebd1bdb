"""``make report``: the executable paper as a static site, for reading.

Pages: ``index.html`` (the README and a table of contents), one page per executed notebook (figures inline, the
paper figure it reproduces in its title, links to its ledger rows), ``ledger.html`` (every claim, filterable by
paper and verdict) and ``figures.html`` (every figure file of the run). Built with nbconvert's ``basic`` template
and mistune (both come with Jupyter), so the pages load nothing from the network. Links that do not resolve
inside the site are rewritten to the page that holds the same thing, or unlinked; nothing points outside it
except absolute ``http(s)`` URLs.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
from pathlib import Path

import pandas as pd

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:0 auto;padding:0 1.2em 3em;
line-height:1.5;color:#1b1b1b}
nav{background:#f3f5f8;padding:.6em 1em;border-radius:6px;margin:1em 0}nav a{margin-right:1.2em}
img{max-width:100%;height:auto}table{border-collapse:collapse;font-size:.9em}
td,th{border:1px solid #ccd;padding:.3em .5em;vertical-align:top}th{background:#eef}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto}.input_area pre{border-left:3px solid #8ab}
.verdict-holds{background:#e3f6e3}.verdict-fails{background:#fbe3e3}.verdict-partly{background:#fff4d6}
.verdict-inconclusive{background:#eee}.repro{background:#eef6ff;padding:.5em 1em;border-radius:6px}
"""

FILTER_JS = """
function filt(){const p=document.getElementById('paper').value,v=document.getElementById('verdict').value;let n=0;
document.querySelectorAll('#ledger tbody tr').forEach(r=>{const ok=(!p||r.dataset.paper===p)&&(!v||r.dataset.verdict===v);
r.style.display=ok?'':'none';n+=ok?1:0});document.getElementById('count').textContent=n+' rows';}
document.getElementById('paper').addEventListener('change',filt);document.getElementById('verdict').addEventListener('change',filt);
filt();
"""


def _page(title: str, body: str, nav: str, script: str = "") -> str:
    js = f"<script>{script}</script>" if script else ""
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<link rel='icon' href='data:,'><style>{CSS}</style></head><body>{nav}{body}{js}</body></html>")


def _nav(prefix: str = "") -> str:
    return (f"<nav><a href='{prefix}index.html'>Paper</a><a href='{prefix}ledger.html'>Claims ledger</a>"
            f"<a href='{prefix}figures.html'>Figures</a></nav>")


def _title(nb) -> str:
    for c in nb.cells:
        if c.cell_type == "markdown" and c.source.lstrip().startswith("#"):
            return c.source.lstrip().splitlines()[0].lstrip("#").strip()
    return "notebook"


def _source_of(stem: str, sources: list[str]) -> str:
    """The committed notebook an executed one was made from (longest matching name)."""
    match = [s for s in sources if stem == s or stem.startswith(s + "_")]
    return max(match, key=len) if match else stem


def notebook_pages(executed: list[Path], sources: list[str], claims: pd.DataFrame, out: Path) -> list[tuple]:
    """One HTML page per executed notebook under ``out/nb``; returns (stem, title, source, ledger ids)."""
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="basic")
    (out / "nb").mkdir(parents=True, exist_ok=True)
    rows = []
    for path in sorted(executed):
        nb = nbformat.read(path, as_version=4)
        body, _ = exporter.from_notebook_node(nb)
        stem, title = path.stem, _title(nb)
        src = _source_of(stem, sources)
        ids = [c for c, ev in zip(claims["claim"], claims["evidence"], strict=True) if f"notebooks/{src}.ipynb" in str(ev)]
        links = ", ".join(f"<a href='../ledger.html#{html.escape(i)}'>{html.escape(i)}</a>" for i in ids) or "none"
        head = (f"<div class='repro'><b>Reproduces:</b> {html.escape(title)}<br><b>Executed notebook:</b> "
                f"{html.escape(path.name)} (from <code>notebooks/{html.escape(src)}.ipynb</code>)<br>"
                f"<b>Ledger rows:</b> {links}</div>")
        (out / "nb" / f"{stem}.html").write_text(_page(title, head + body, _nav("../")))
        rows.append((stem, title, src, ids))
    return rows


def ledger_page(claims: pd.DataFrame, pages: list[tuple], out: Path) -> None:
    by_src = {}
    for stem, _, src, _ in pages:
        if src not in by_src or stem == src:
            by_src[src] = stem

    def evidence(text: str) -> str:
        t = html.escape(str(text))
        return re.sub(r"notebooks/([\w\-]+)\.ipynb",
                      lambda m: (f"<a href='nb/{by_src[m.group(1)]}.html'>{m.group(0)}</a>"
                                 if m.group(1) in by_src else m.group(0)), t)

    opts = lambda vals: "".join(f"<option>{html.escape(v)}</option>" for v in sorted(set(vals)))  # noqa: E731
    trs = "".join(
        f"<tr id='{html.escape(r.claim)}' data-paper='{html.escape(r.paper)}' data-verdict='{html.escape(r.verdict)}' "
        f"class='verdict-{html.escape(r.verdict)}'><td>{html.escape(r.paper)}</td><td>{html.escape(r.claim)}</td>"
        f"<td>{html.escape(str(r.statement))}</td><td>{html.escape(str(r.measured))}</td>"
        f"<td><b>{html.escape(r.verdict)}</b></td><td>{evidence(r.evidence)}</td></tr>"
        for r in claims.itertuples())
    counts = claims.verdict.value_counts().to_dict()
    body = (f"<h1>Claims ledger</h1><p>{len(claims)} claims: "
            + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + "</p>"
            f"<p><label>Paper <select id='paper'><option value=''>all</option>{opts(claims.paper)}</select></label> "
            f"<label>Verdict <select id='verdict'><option value=''>all</option>{opts(claims.verdict)}</select></label> "
            f"<span id='count'></span></p><table id='ledger'><thead><tr><th>paper</th><th>claim</th><th>statement</th>"
            f"<th>measured</th><th>verdict</th><th>evidence</th></tr></thead><tbody>{trs}</tbody></table>")
    (out / "ledger.html").write_text(_page("Claims ledger", body, _nav(), FILTER_JS))


def figures_page(figures: list[Path], out: Path) -> None:
    (out / "figures").mkdir(parents=True, exist_ok=True)
    items = []
    for f in sorted(figures):
        shutil.copy(f, out / "figures" / f.name)
        items.append(f"<figure id='{html.escape(f.stem)}'><img src='figures/{html.escape(f.name)}' "
                     f"alt='{html.escape(f.stem)}'><figcaption>{html.escape(f.name)}</figcaption></figure>")
    (out / "figures.html").write_text(_page("Figures", "<h1>Figures</h1>" + "".join(items), _nav()))


def index_page(readme: Path, pages: list[tuple], out: Path, profile: str) -> None:
    import mistune

    toc = "".join(f"<li><a href='nb/{s}.html'>{html.escape(t)}</a> <small>({html.escape(s)})</small></li>"
                  for s, t, _, _ in pages)
    body = (f"<p class='repro'>Profile <b>{html.escape(profile)}</b>: {len(pages)} executed notebooks. "
            f"<a href='ledger.html'>Claims ledger</a> · <a href='figures.html'>Figures</a></p>"
            f"<h2>Notebooks</h2><ul>{toc}</ul><hr>" + mistune.html(readme.read_text()))
    (out / "index.html").write_text(_page("paperlib — the executable paper", body, _nav()))


def fix_links(out: Path) -> int:
    """Rewrite or unlink every relative href/src that does not resolve inside the site; returns how many."""
    changed = 0
    for page in out.rglob("*.html"):
        text = page.read_text()

        def repl(m, page=page):
            nonlocal changed
            attr, q, url = m.group(1), m.group(2), m.group(3)
            if re.match(r"^(https?:|data:|mailto:|#|javascript:)", url):
                return m.group(0)
            path, _, frag = url.partition("#")
            if not path or (page.parent / path).resolve().exists():
                return m.group(0)
            name = Path(path).name
            for cand in (f"nb/{Path(name).stem}.html", f"figures/{name}"):
                if (out / cand).exists():
                    rel = Path(*([".."] * len(page.parent.relative_to(out).parts)), cand)
                    changed += 1
                    return f"{attr}={q}{rel.as_posix()}{'#' + frag if frag else ''}{q}"
            changed += 1
            return f"data-unresolved={q}{url}{q}"

        new = re.sub(r"""\b(href|src)=(["'])([^"']*)\2""", repl, text)
        if new != text:
            page.write_text(new)
    return changed


def build(profile: str, executed_dir: Path, figures_dir: Path, readme: Path, out: Path,
          sources_dir: Path = Path("notebooks")) -> Path:
    """Build the site into ``out`` (replaced); returns ``out/index.html``."""
    claims_csv = figures_dir / "claims.csv"
    executed = sorted(Path(executed_dir).glob("*.ipynb"))
    if not executed:
        raise FileNotFoundError(f"no executed notebooks in {executed_dir}: run the profile first")
    if not claims_csv.exists():
        raise FileNotFoundError(f"{claims_csv} missing: run the profile's `claims` rule first")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    claims = pd.read_csv(claims_csv)
    sources = [p.stem for p in Path(sources_dir).glob("*.ipynb")]
    pages = notebook_pages(executed, sources, claims, out)
    ledger_page(claims, pages, out)
    figures_page([*figures_dir.glob("*.png")], out)
    index_page(readme, pages, out, profile)
    fix_links(out)
    return out / "index.html"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.pipeline.report", description=__doc__.splitlines()[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--executed", required=True, type=Path, help="folder of executed notebooks")
    ap.add_argument("--figures", required=True, type=Path, help="the profile's figures folder (claims.csv, PNGs)")
    ap.add_argument("--readme", type=Path, default=Path("README.md"))
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    index = build(args.profile, args.executed, args.figures, args.readme, args.out)
    print(f"report: {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
