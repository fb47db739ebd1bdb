"""``make report``: the reproduction as a book a reviewer reads without running anything.

Built with Sphinx, MyST-NB (notebooks rendered as committed, never executed) and sphinx-book-theme, for what they
give readers: navigation, numbered figures with captions, cross-references, full-text search, and a single page
that Chromium prints to PDF. The shape comes from ``book.yaml``: a landing page (what is reproduced, the verdict
table per paper, how to rerun, the machine and the declared reductions), one chapter per paper in the paper's
order, a chapter for what goes beyond the papers, a methods page and the claim builders' code. Every ledger row
is shown once, in the section of the notebook its evidence cites: the paper's statement, what we measured, the
verdict with the rule that decided it, the evidence with a link to the notebook, and the builder that wrote it.
Every number comes from the ledger, the committed tables or the profile's configuration.

The blocks a page is made of (claim cards, tallies, tables, figures) are :mod:`paperlib.pipeline.book_cards`, the
text helpers :mod:`paperlib.pipeline.book_text`, the notebooks' pages and their compaction
:mod:`paperlib.pipeline.book_notebooks`.

Inputs are committed files only: ``figures/<profile>/`` (ledger, figures, tables), the executed summary
notebooks under ``results/<profile>/notebooks/`` (a notebook without outputs is not given a page), the ledger
fragments under ``results/<profile>/claims/`` (which rule wrote each row) and the profile's configuration. ``python -m paperlib.pipeline.book --profile paper`` builds ``site/paper/index.html``
and ``site/paper/paperlib-paper.pdf``. The printed copy (Chromium, the print CSS, the PDF's bookmarks) is
:mod:`paperlib.pipeline.print_pdf` and :mod:`paperlib.pipeline.pdf_outline`, apart from the page writers here.
"""

from __future__ import annotations

import argparse
import copy
import html
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from .. import paper_vs_ours, paths
from ..decide import RULES as RULE_TEXT
from ..decide import VACUOUS_RULE, Verdict
from ..ledger import Claim, LedgerError
from ..ledger import read as read_ledger
from .bibliography import BIB
from .book_cards import (
    CODE_MODULES,
    RULES,
    claim_card,
    claim_code,
    figure_block,
    holds_split,
    not_holding,
    place_figure,
    table_block,
    verdict_span,
    verdict_table,
)
from .book_notebooks import (
    STRUCTURE,
    compact_notebook,
    has_outputs,
    prepare_notebook,
    shown_notebooks,
)
from .book_text import BookError, cited_notebooks, fill, load_claims, md_escape
from .print_pdf import PrintError, chromium, print_pdf
from .variables import PAPER_KEYS, ledger_values

CSS = """
.verdict{font-weight:600;padding:.05em .45em;border-radius:.3em;white-space:nowrap}
.verdict-holds{background:#d9f2d9}.verdict-fails{background:#f8d4d4}.verdict-partly{background:#fff0c2}
.provenance{font-size:.85em;color:#444;border-left:3px solid #ccc;padding-left:.6em}
.verdict-not-reproduced{background:#f6dfc8}.verdict-inconclusive,.verdict-untestable{background:#e6e6e6}
.print-only{display:none}
@media print{.screen-only{display:none}}
.claim-card{border-left:4px solid #9ab;padding:.1em 0 .1em 1em;margin:0 0 1.6em 0}
.paperlib-row{border-left-color:#c9a227}
table.verdicts{width:100%;max-width:100%;table-layout:fixed;font-size:.85em}
table.verdicts td,table.verdicts th{text-align:center;padding:.25em .15em;overflow-wrap:break-word}
table.verdicts th:first-child{width:21%}table.verdicts th:last-child{width:8%}
table.verdicts th{font-size:.9em}table.verdicts th .verdict{padding:.05em .2em;white-space:normal;display:inline-block}
table.wrap-table{table-layout:fixed;width:100%}table.wrap-table td{overflow-wrap:anywhere}
table.wrap-table code,table.wrap-table code span{white-space:normal!important;overflow-wrap:anywhere;word-break:break-word}
table.table td,table.table th{vertical-align:top;font-size:.85em;padding:.25em .45em}
@page{margin:14mm 12mm 16mm 12mm;@bottom-center{content:"paperlib, page " counter(page) " of " counter(pages);
font-size:9pt;color:#555}}
"""


# ----------------------------------------------------------------------------------------------- the pages


def run_on_of(ctx: Context) -> str:
    return str((ctx.config or {}).get("run_on", "") or "")


@dataclass
class Context:
    profile: str
    figures: Path
    executed: Path
    src: Path
    config: dict | None
    claims: list[Claim]
    in_book: set[str]
    code_index: list
    placed: set[str] = field(default_factory=set)
    missing: list[str] = field(default_factory=list)
    home: dict[str, str] = field(default_factory=dict)  # claim id -> the section notebook it is shown under
    structure: dict = field(default_factory=dict)  # book.yaml: references, substitutions, chapters


def section_md(sec: dict, chapter_labels: list[str], ctx: Context, leftovers: bool = False,
               heading: str = "What the paper states, and what we measured") -> str:
    out = [f"## {sec['title']}", ""]
    nb = sec.get("notebook")
    if nb:
        link = f"[{nb}.ipynb](notebooks/{nb}.ipynb)" if nb in ctx.in_book else f"`notebooks/{nb}.ipynb` (not executed in this profile)"
        out += [f"*Notebook:* {link}.", ""]
    for f in sec.get("figures", []):
        files = sorted(ctx.figures.glob(f["file"]))
        if not files:
            ctx.missing.append(f["file"])
            out += [f"*Figure {f['file']} was not produced in this profile.*", ""]
        for i, path in enumerate(files):
            rel = place_figure(path, ctx.src / "figures")
            cap = fill(f["caption"], ctx.config) + (f" Part {i + 1} of {len(files)}." if len(files) > 1 else "")
            out += [figure_block(f"figures/{rel}", cap, path.stem, printed=f.get("print", True)), ""]
    for t in sec.get("tables", []):
        path = ctx.figures / t["file"]
        if not path.exists():
            ctx.missing.append(t["file"])
            continue
        shutil.copy(path, ctx.src / "figures" / path.name)
        out += [table_block(path, fill(t["caption"], ctx.config), f"figures/{path.name}", t.get("columns")), ""]
    jobs = sec.get("jobs")
    if jobs:
        names = sorted(p.stem for p in ctx.executed.glob(f"{jobs['notebook']}_*.ipynb")) if ctx.executed.exists() else []
        figs = sorted(ctx.figures.glob(jobs["figures"])) if jobs.get("figures") else []
        if names or figs:
            out += [f":::{{dropdown}} Per-dataset jobs: {jobs['label']} ({len(names) or len(figs)})", ""]
            out += [f"Each is `notebooks/{jobs['notebook']}.ipynb` run by the workflow with one dataset; their tables "
                    "and figures feed the summary above. Their executed copies are logs of the run "
                    f"(`logs/{ctx.profile}/notebooks/`, not committed: the reader's notebooks are the summaries); "
                    f"`snakemake --profile profiles/{ctx.profile} --forcerun {jobs['notebook'].removesuffix('_pool')}` "
                    "reruns them.", ""]
            if names:
                out += [", ".join(f"`{n.removeprefix(jobs['notebook'] + '_')}`" for n in names), ""]
            for path in figs:
                dest = ctx.src / "figures" / "jobs" / path.parent.name
                dest.mkdir(parents=True, exist_ok=True)
                rel = place_figure(path, dest)
                # an image, not a numbered figure: the per-dataset figures are on the site only (the PDF leaves them
                # out), so they must not take numbers from the figures both show
                out += [f'<p class="job-figure"><b>{path.stem}</b></p>', "",
                        f"```{{image}} figures/jobs/{path.parent.name}/{rel}\n:width: 100%\n:class: job-figure\n"
                        f":alt: {path.stem}\n```", ""]
            if figs:
                out += [f'<p class="print-only">The {len(figs)} per-dataset figures are in the HTML report '
                        f"(site/{ctx.profile}/index.html, built by <code>make report REPORT={ctx.profile}</code>; each "
                        "repeats a panel of the figures above, larger).</p>", ""]
            out += [":::", ""]
    mine = [c for c in ctx.claims if c.paper in chapter_labels and c.claim not in ctx.placed
            and (leftovers or (nb and ctx.home.get(c.claim) == nb))]
    if mine:
        out += [f"### {heading}", ""]
        for c in mine:
            ctx.placed.add(c.claim)
            out.append(claim_card(c, ctx.code_index, ctx.in_book, run_on_of(ctx)))
    return "\n".join(out)


def links_out(ch: dict, ctx: Context) -> list[str]:
    """The chapter's first line after its summary: the paper, the authors' code, where our data differ."""
    ref = ctx.structure.get("references", {}).get(ch.get("cite"))
    if not ref:
        return []
    bits = [f"the paper {{cite:p}}`{ch['cite']}`"]
    if ref.get("code"):
        bits.append(f"the authors' code: [{md_escape(ref['code']['name'])}]({ref['code']['url']})")
    if any(sub["paper"] == ch["cite"] for sub in ctx.structure.get("substitutions", [])):
        bits.append("[our data in place of the paper's](methods.md#substitutions)")
    bits.append("[references](references.md)")
    return ["*Read alongside:* " + " · ".join(bits) + ".", ""]


def substitution_datasets(sub: dict, config: dict | None) -> list[str]:
    """A substitution's datasets: its ``ours`` list, then those of the configuration keys it names."""
    from .config import setting_value

    names = list(sub.get("ours", []))
    for key in ("ours_from", "also_from"):
        if sub.get(key):
            got = setting_value(config or {}, sub[key])
            names += [n for n in (got if isinstance(got, list) else []) if n not in names]
    return names


def _kinds(names: list[str], reg: dict) -> str:
    """``14 real, 2 semi-synthetic, 3 synthetic: `a`, `b`, ...`` from the registry's entries."""
    by_kind: dict[str, list[str]] = {}
    for n in names:
        by_kind.setdefault(reg.get(n, {}).get("kind", "?"), []).append(n)
    known = ("real", "semi-synthetic", "synthetic")
    order = [k for k in known if k in by_kind] + [k for k in by_kind if k not in known]
    return "; ".join(f"{len(by_kind[k])} {k}: " + ", ".join(f"`{n}`" for n in by_kind[k]) for k in order)


def upstream_url(entry: dict) -> str:
    """A dataset's upstream as a page a reader can open: a pinned raw.githubusercontent.com base becomes the
    repository at that commit; a bare ``owner/name`` source its GitHub page."""
    base = (entry.get("upstream") or {}).get("base", "")
    m = re.match(r"https://raw\.githubusercontent\.com/([^/]+/[^/]+)/([0-9a-f]{7,40})/", base)
    if m:
        return f"https://github.com/{m.group(1)}/tree/{m.group(2)}"
    if base.startswith("https://"):
        return base
    src = str(entry.get("source") or "")
    return f"https://github.com/{src}" if re.fullmatch(r"[\w.-]+/[\w.-]+", src) else ""


def list_table(header: list[str], rows: list[list[str]], widths: list[int], cls: str) -> list[str]:
    """A MyST list-table with fixed column widths (a wide markdown table is cut at page width; this one wraps)."""
    out = ["```{list-table}", ":header-rows: 1", f":widths: {' '.join(map(str, widths))}", f":class: {cls}", ""]
    for row in [header, *rows]:
        out.append(f"* - {row[0]}")
        out += [f"  - {cell}" for cell in row[1:]]
    return out + ["```"]


def substitutions_table(ctx: Context, reg) -> list[str]:
    refs = ctx.structure.get("references", {})
    rows = []
    for sub in ctx.structure.get("substitutions", []):
        ref = refs.get(sub["paper"], {})
        name = ref.get("cite", sub["paper"]).split(". ")[0 if "et al" in ref.get("cite", "") else 0]
        short = {"zhou2025": "Zhou et al. 2025", "tolochinsky2026": "Tolochinsky et al. 2026 (PULSE)",
                 "saha2026": "Saha et al. 2026 (ROBIN)"}.get(sub["paper"], name)
        cell = f"[{short}]({ref['paper']})" if ref.get("paper") else short
        rows.append([cell, md_escape(sub["theirs"]), _kinds(substitution_datasets(sub, ctx.config), reg),
                     md_escape(sub["why"])])
    return list_table(["paper", "the paper's data", "ours", "why the paper's cannot be had"], rows, [14, 28, 30, 28],
                      "wrap-table")


def reductions_table(config: dict | None) -> list[str]:
    """The profile's declared reductions (``reductions:`` of its configuration) as a table; ours is read from the
    setting it names, so no number is typed twice."""
    from .config import setting_value

    rows = (config or {}).get("reductions", [])
    if not rows:
        return [f"This profile ({(config or {}).get('profile', 'custom')}) declares no reductions row by row: it is "
                "a reduced scale as a whole (fewer runs, budgets and datasets than the papers'); the paper profile "
                "lists its few reductions in a table here.", ""]
    out = []
    for r in rows:
        ours = setting_value(config, r["setting"])
        ours = json.dumps(ours) if isinstance(ours, (dict, list)) else ours
        out.append([f"{md_escape(r['what'])} (`{r['setting']}`)", md_escape(r["paper"]),
                    f"`{str(ours).replace('`', chr(39))}`", md_escape(r["why"]), md_escape(r["effect"])])
    return list_table(["setting", "the paper", "ours", "why", "what we measured of the difference"], out,
                      [22, 14, 12, 26, 26], "wrap-table") + [""]


def load_structure() -> dict:
    """book.yaml, with its ``references`` read from the one bibliography (:mod:`paperlib.pipeline.bibliography`)."""
    from .bibliography import reference_dicts

    structure = yaml.safe_load(STRUCTURE.read_text())
    structure["references"] = reference_dicts()
    return structure


def references_md(ctx: Context) -> str:
    """The bibliography (``references.bib``): the papers and their code, the methods and libraries we cite, and
    every dataset the profile reads with its upstream."""
    from ..data.registry import entries
    from .bibliography import references_lines

    reg = entries()
    lines = ["# References", "", *references_lines()]
    # "This report" before the datasets: the book ends with the datasets table, whose last rows the print CSS keeps
    # together (a short closing section after it was printed alone on the last page at a 12 px font)
    lines += ["", "## This report", "",
              f"The HTML report and its PDF are built from committed results only (`make report REPORT={ctx.profile}`); "
              "each section links to the notebook that made its figures (its page is the executed notebook; the file is in the "
              "repository's notebooks/ folder).",
              ""]
    lines += ["", "## The datasets", "",
              "Every dataset this profile reads, with where it comes from (`paperlib data fetch <name>` downloads "
              "the pinned upstream files and checks their SHA-256; nothing taken from elsewhere is committed).", "",
              "| dataset | kind | shape | source | licence |", "|---|---|---|---|---|"]
    for d in used_datasets(ctx):
        e = reg.get(d)
        if e is None:
            continue
        url, src = upstream_url(e), str(e.get("source") or "")
        shape, used = e.get("shape"), e.get("used_shape")
        shown = " x ".join(map(str, used or shape)) if shape else ""
        if used and list(used) != list(shape):  # the matrix the experiments read, then the file's (issue 73)
            less = [w for w, on in (("columns with a missing score", e.get("missing") == "drop-columns"),
                                    ("the rows the registry drops", bool(e.get("drop_rows"))),
                                    (f"the rows missing over {e.get('max_row_missing')} of their scores",
                                     e.get("max_row_missing") is not None)) if on]
            shown += f" (file {' x '.join(map(str, shape))}, less its {' and '.join(less) or 'dropped cells'})"
        lines.append(f"| `{d}` | {md_escape(str(e.get('kind', '')))} | {shown} | "
                     f"{f'[{md_escape(src or url)}]({url})' if url else md_escape(src)[:160]} | "
                     f"{md_escape(str(e.get('licence') or ''))[:80]} |")
    return "\n".join(lines)


def used_datasets(ctx: Context) -> list[str]:
    """The profile's datasets (every paper block's ``datasets``) and those the substitutions name."""
    cfg = ctx.config or {}
    names = sorted({d for k in ("zhou", "pulse", "race", "search") for d in cfg.get(k, {}).get("datasets", [])})
    for sub in ctx.structure.get("substitutions", []):
        names += [n for n in substitution_datasets(sub, cfg) if n not in names]
    return names


def chapter_md(ch: dict, ctx: Context) -> str:
    labels = ch["ledger"]
    mine = [c for c in ctx.claims if c.paper in labels]
    counts = ", ".join(f"{sum(c.verdict == v for c in mine)} {v}" for v in Verdict if any(c.verdict == v for c in mine))
    nbs = []
    for sec in ch["sections"]:
        nbs += [sec["notebook"]] if sec.get("notebook") in ctx.in_book else []
    own = [c for c in mine if c.paper in PAPER_KEYS]
    ours = [c for c in mine if c.paper not in PAPER_KEYS]

    def tally(rows):
        return ", ".join(f"{sum(c.verdict == v for c in rows)} {v}" for v in Verdict if any(c.verdict == v for c in rows))

    parts = [f"# {ch['title']}", "", ch["paper"], ""] + links_out(ch, ctx)
    if run_on_of(ctx):
        parts += ["*Where the rows below were run:* the [run conditions](methods.md#run-conditions) of the "
                  f"{ctx.profile} profile (machine, run counts, declared reductions), stated once.", ""]
    if own:
        parts += [f"The paper's own statements: {len(own)} rows ({tally(own)})."
                  + (f" paperlib's rows in this chapter (our settings or methods, not in the paper's tally): "
                     f"{len(ours)} ({tally(ours)})." if ours else ""), "",
                  verdict_table(mine, labels, {}), ""]
        short = not_holding(own, href=lambda c: f"{ch['id']}.md#claim-{c.claim}")
        parts += (["**Where the paper's statements do not hold, or are not shown to** (fails, then not reproduced, "
                   "then partly, then inconclusive; each links to its row below):", "", short, ""] if short else
                  ["Every statement of the paper that could be tested holds.", ""])
        beside = paper_vs_ours.markdown(own, set(labels), href=lambda c: f"#claim-{c.claim}", screen_only=True)
        if beside:  # issue 73, item 4: the paper's numbers beside ours, per row and number, from the cases
            parts += [f"**The paper's numbers beside ours** (one line per row and number; every case in "
                      f"`figures/{ctx.profile}/paper_vs_ours.csv`; printed on the landing page):", "", *beside, ""]
    else:
        parts += [f"This chapter holds {len(mine)} ledger rows ({counts}), all paperlib's (our settings, methods and "
                  "the race; never counted in a paper's tally).", "", verdict_table(mine, labels, {}), ""]
        short = not_holding(mine, href=lambda c: f"{ch['id']}.md#claim-{c.claim}", papers_only=False)
        parts += (["**Where our own statements do not hold, or are not shown to** (fails, then not reproduced, "
                   "then partly, then inconclusive; each links to its row below):", "", short, ""] if short else
                  ["Every statement of ours that could be tested holds.", ""])
    for sec in ch["sections"]:  # a section without a notebook takes the chapter's remaining rows
        parts.append(section_md(sec, labels, ctx, leftovers=not sec.get("notebook"),
                                **({"heading": ch["rows_heading"]} if "rows_heading" in ch else {})))
    rest = [c for c in mine if c.claim not in ctx.placed]
    if rest:
        parts.append(section_md({"title": "Other rows", "notebook": None}, labels, ctx, leftovers=True))
    if nbs:  # at the end, so that the PDF (one page) prints the notebooks after the chapter
        parts += ["", "```{toctree}", ":hidden:", ":caption: Notebooks", "", *[f"notebooks/{n}" for n in nbs], "```", ""]
    return "\n".join(parts)


def provenance() -> dict[str, str]:
    """What the report was built from: paperlib's version, the commit (short hash; "+ local changes" when the work
    tree differs from it), and the build date (UTC). Without git (an unpacked archive) the commit is "unknown"."""
    import datetime

    from .. import __version__

    root = Path(__file__).resolve().parents[2]

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=20,
                                  check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "--short=10", "HEAD") or "unknown"
    if commit != "unknown" and git("status", "--porcelain", "--untracked-files=no", "--", "paperlib", "figures",
                                   "results"):
        commit += " + local changes"
    return {"version": __version__, "commit": commit,
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")}


def provenance_line(ctx: Context) -> str:
    """The report's first lines: version, commit, build date, profile, the machines its results came from, and how to
    cite it (issue 58)."""
    p = provenance()
    run_on = run_on_of(ctx)
    env = ctx.figures / "environment.json"
    soft = json.loads(env.read_text()) if env.is_file() else {}
    versions = ", ".join(f"{k} {v}" for k, v in soft.items() if k != "os") + (f" on {soft['os']}" if "os" in soft else "")
    return (f'<p class="provenance"><b>paperlib {p["version"]}</b> · commit <code>{p["commit"]}</code> · built '
            f"{p['date']} · the <b>{ctx.profile}</b> profile" + (f" · results run on {html.escape(run_on)}" if run_on
                                                                  else "")
            + (f" · software of the runs (as the ledger was merged): {html.escape(versions)}" if soft else "")
            + " · cite it with <code>CITATION.cff</code> and the papers in the <a href='references.html'>references</a>"
            f" · rebuild it from the repository at this commit (<code>git checkout {p['commit'].split()[0]}; make "
            f"report REPORT={ctx.profile}</code>).</p>")


def landing_beside(ctx: Context, link: dict[str, str]) -> list[str]:
    """The headline of the papers' numbers beside ours (issue 73, item 4): the table of every paper row whose cases
    set a paper's number beside ours, linked to its chapter; each chapter repeats its own with the rows that state a
    number no case measures as such."""
    papers = set(PAPER_KEYS)
    table = [x for x in paper_vs_ours.markdown(ctx.claims, papers,
                                               href=lambda c: f"{link.get(c.paper, 'ledger.html').removesuffix('.html')}"
                                                              f".md#claim-{c.claim}", compact=True) if x.startswith("|")]
    if not table:
        return []
    return ["The papers' numbers beside ours, where a row's cases measure the quantity the paper states a number "
            f"for (every case in `figures/{ctx.profile}/paper_vs_ours.csv`; each chapter lists its rows that state a "
            "number no case measures as such):", "", *table, ""]


def landing_md(ctx: Context, chapters: list[dict], values: dict[str, str]) -> str:
    link = {}
    for ch in chapters:
        for label in ch["ledger"]:
            link[label] = f"{ch['id']}.html"
    paper_labels = list(PAPER_KEYS)
    ours = sorted({c.paper for c in ctx.claims} - set(paper_labels))
    run_on = (ctx.config or {}).get("run_on", "")
    p = values
    return "\n".join([
        "# paperlib: evaluating LLMs on a budget, reproduced",
        "",
        provenance_line(ctx),
        "",
        "Three papers on finding the best model, prompt or judge allocation with few LLM calls, rerun figure by "
        "figure from one Snakemake workflow of notebooks, with every statement checked and graded in a ledger:",
        "",
        "* **Zhou et al. 2025**, *On Speeding Up Language Model Evaluation*: UCB-E and UCB-E-LRF ([chapter](zhou.md)).",
        "* **Tolochinsky et al. 2026**, *PULSE*: low-rank predictions made safe by a doubly robust estimator "
        "([chapter](pulse.md)).",
        "* **Saha et al. 2026**, *LLM-as-Judge on a Budget*: ROBIN and ROBIN-HOOD ([chapter](robin.md)).",
        "* **Beyond the papers**: the race of every method on every real matrix, certified best-model search and "
        "our variants ([chapter](beyond.md)).",
        "",
        f"This is the **{ctx.profile}** profile: {p['rows']} ledger rows, {p['paper_rows']} of them the papers' own "
        f"statements and {p['paperlib_rows']} paperlib's (our settings, the race, search, our variants).",
        "",
        "## Verdicts",
        "",
        "The papers' own statements:",
        "",
        verdict_table(ctx.claims, paper_labels, link),
        "",
        holds_split(ctx.claims, paper_labels),
        "",
        *landing_beside(ctx, link),
        "Every experiment ran on stand-in data, never a paper's own (none of the three published its matrices or "
        "judgments): Zhou's statements on public leaderboard matrices and synthetic ones, PULSE's on semi-synthetic "
        "Bench 1 and 2 beside real leaderboard matrices, ROBIN's on repeated judgments of Topical-Chat and LLM-Rubric; "
        "each caption names its data kind, and [the methods page](methods.md#substitutions) what differs and why.",
        "",
        "paperlib's rows (never counted in a paper's tally):",
        "",
        verdict_table(ctx.claims, ours, link),
        "",
        "The papers' statements that fail in our runs, with what excludes our own error in each row's evidence:",
        "",
        not_holding(ctx.claims, href=lambda c: f"{link.get(c.paper, 'ledger.html').removesuffix('.html')}.md#claim-{c.claim}",
                    verdicts=("fails",)) or "* none",
        "",
        "The papers' statements that our runs contradict but that are **not reproduced** rather than failed: nothing "
        "yet excludes our own error, and each row names what would (the open question; in full in its chapter):",
        "",
        not_holding(ctx.claims, href=lambda c: f"{link.get(c.paper, 'ledger.html').removesuffix('.html')}.md#claim-{c.claim}",
                    verdicts=("not reproduced",), full=False, short=100) or "* none",
        "",
        "A verdict says what the evidence shows under a fixed rule ([how verdicts are decided](methods.md#verdicts)); "
        "a row that says a paper's statement fails names in its evidence what excludes our own error. "
        "The whole ledger, row by row: [the ledger](ledger.md).",
        "",
        "## Read, download, rerun",
        "",
        # the section's text in one block that the print keeps whole (print_pdf's CSS: .landing-end), the contents
        # (the toctree, which the print fills with the whole book) after it: the landing never ends on a page holding
        # a few lines of it (page 4 at 13% full at a 12 px font, 2026-12-04)
        '<div class="landing-end">',
        "",
        f'<p class="screen-only">This report as one PDF: <a href="paperlib-{ctx.profile}.pdf">paperlib-{ctx.profile}.pdf</a>; '
        "each notebook page is an executed notebook of this profile; the notebooks themselves are in the repository "
        f"(<code>notebooks/</code>, executed under <code>results/{ctx.profile}/notebooks/</code>).</p>",
        "",
        "The papers, the authors' code and every dataset with its upstream: [references](references.md).",
        "",
        "```bash",
        "make setup                  # a Python >= 3.11 environment",
        f"make reproduce PROFILE={ctx.profile}  # every figure, table, ledger row",
        f"make report REPORT={ctx.profile}      # this book (no job runs)",
        "```",
        "",
        "One figure: `snakemake --profile profiles/paper figures/paper/zhou_fig3.png`. The data: "
        "`paperlib data fetch --all` or `PAPERLIB_DATA=<folder>`; see [methods](methods.md).",
        "",
        "**Where and how this was measured.** "
        + (md_escape(run_on) + "." if run_on else "The profile's configuration states no machine.")
        + " The declared reductions are listed on the [methods page](methods.md#profiles).",
        "",
        "</div>",
        "",
        "```{toctree}",
        ":maxdepth: 2",
        ":caption: Contents",
        "",
        *[ch["id"] for ch in chapters],
        "methods",
        "ledger",
        "references",
        "code",
        "```",
        "",
    ])


def ledger_md(ctx: Context, chapters: list[dict]) -> str:
    page = {label: ch["id"] for ch in chapters for label in ch["ledger"]}
    lines = ["# The ledger", "", f'<p class="screen-only">All {len(ctx.claims)} rows of '
             f"<code>figures/{ctx.profile}/claims.csv</code>, in ledger order, with the statement, the verdict and what "
             "we measured in full; each links to its place in a chapter, where the evidence and the rule that decided "
             "the verdict are.</p>", "",
             '<p class="print-only">Printed as an index (row, statement, verdict): each row\'s measured values are '
             "printed with it in its chapter.</p>", ""]
    for label in dict.fromkeys(c.paper for c in ctx.claims):
        lines += [f"## {label}", "", "| row | statement | verdict | measured |", "|---|---|---|---|"]
        for c in ctx.claims:
            if c.paper == label:
                where = page.get(label)
                cell = f"[{c.claim}]({where}.md#claim-{c.claim})" if where else f"`{c.claim}`"
                lines.append(f"| {cell} | {md_escape(c.statement)} | {verdict_span(c.verdict)} | {md_escape(c.measured)} |")
        lines.append("")
    return "\n".join(lines)


def decided_count(ctx: Context) -> str:
    """How many of the ledger's rows are decided by construction, and by which kinds (generated, never written)."""
    kinds = [c.kind for c in ctx.claims]
    by = ", ".join(f"{k} {kinds.count(k)}" for k in RULE_TEXT if kinds.count(k))
    return (f"All {len(kinds)} of the ledger's rows are decided so" + (f" ({by})" if by else "")
            + "; a row without a kind of statement cannot be made (`paperlib.ledger.Claim` refuses it).")


def methods_md(ctx: Context) -> str:
    from ..data.registry import entries
    from .costs import cost_markdown, workflow_rules

    reg = entries()
    profile_yaml = yaml.safe_dump({k: v for k, v in (ctx.config or {}).items() if k not in ("resources", "reductions")},
                                  sort_keys=False, width=110)
    return "\n".join([
        "# Methods",
        "",
        "(substitutions)=",
        "## Data, and where ours differ from the papers'",
        "",
        "Each paper's figures are redrawn on the data we could obtain, and each caption says which (real, "
        "semi-synthetic or synthetic). Where a paper's data cannot be had, its statements are checked on stand-ins, "
        "and a row that depends on the difference says so. Real matrices are read from `$PAPERLIB_DATA` or fetched "
        "from their pinned upstream with a checksum (`paperlib data fetch`); semi-synthetic and synthetic ones are "
        "generated by the package. Every dataset with its source and licence: [references](references.md#the-datasets). "
        "The real matrices are the SySRs leaderboard matrices {cite:p}`sysrs`, the data release PULSE uses "
        "{cite:p}`wu2026` (its fitted factors behind Bench 1 and 2) and the public leaderboards named below; ROBIN's "
        "stand-in judges are repeated LLM judgments {cite:p}`chiang2023` of Topical-Chat conversations "
        "{cite:p}`topicalchat2019` and LLM-Rubric's judge answer distributions {cite:p}`llmrubric2024`, in place of "
        "the paper's judgments of HelpSteer2 pairs {cite:p}`wang2024helpsteer2`.",
        "",
        "**Methods from the bandit literature.** UCB-E {cite:p}`audibert2010` is the bandit of Zhou et al. and of "
        "PULSE; certified search samples with LUCB's rule {cite:p}`kalyanakrishnan2012`; our `sysh` in the race is "
        "Sequential Halving {cite:p}`karnin2013` on SySRs' synchronized examples.",
        "",
        "**Software.** The runs use NumPy {cite:p}`numpy2020`, SciPy {cite:p}`scipy2020`, PyTorch "
        "{cite:p}`pytorch2019` and statsmodels {cite:p}`statsmodels2010`; Snakemake {cite:p}`snakemake2021` runs "
        "the notebooks as one workflow (the versions of each run: the cover's provenance line).",
        "",
        *substitutions_table(ctx, reg),
        "",
        "(profiles)=",
        "## Profiles and declared reductions",
        "",
        f"What the **{ctx.profile}** profile runs at less than the paper's scale, and what we measured of the "
        "difference:",
        "",
        *reductions_table(ctx.config),
        "",
        "(run-conditions)=",
        "## Run conditions",
        "",
        (md_escape(run_on_of(ctx)) + "." if run_on_of(ctx) else "The profile's configuration states no machine."),
        " Each table says where it was made (its `machine` column) and, since keyed streams, with which random "
        "streams (its `streams` column; a table without one predates them: one generator shared by a batch's runs, "
        "the same law).",
        "",
        "(costs)=",
        *cost_markdown(ctx.executed.parent / "benchmarks", shown=f"results/{ctx.profile}/benchmarks",
                       every_rule=workflow_rules(paths.ROOT)),
        "(verdicts)=",
        "## How verdicts are decided",
        "",
        "**By construction.** A row is data: its kind of statement and its cases (one per dataset, cell, budget, "
        "configuration or fit: the data kind, the estimate with its interval, the p-values of the tests for and "
        "against the statement at that case, the paper's number where it states one). The builders compute cases "
        "and words, never a verdict: `paperlib.decide.decide` alone turns (kind, cases) into the verdict, by the one "
        "rule of the row's kind below, at level 0.05, and a row whose committed verdict is not what that rule makes "
        f"of its committed cases (`figures/{ctx.profile}/cases.csv`) cannot be read, so the tests recompute every one. "
        f"{decided_count(ctx)}",
        "",
        *[f"- **{k}**: {RULE_TEXT[k]}" for k in RULE_TEXT],
        "",
        f"And {VACUOUS_RULE}.",
        "",
        "**Data kinds, one rule for every paper.** A row is graded on the cases of one data kind: the kind it names "
        "as standing for the paper's setting, else real data where it has real cases, else semi-synthetic, else "
        "synthetic. The verdicts on its other data kinds are shown beside it (\"other data kinds, shown not "
        "counted\") and never change it. Where a fitted input was fitted several times (PULSE's Step 1 V), the "
        "verdict under each fit is decided alike and combined by `paperlib.decide.across_fits`.",
        "",
        "The verdicts, `paperlib.decide.decide` and the helpers the builders make their cases with (each returns a "
        "case or a p-value, never a verdict):",
        "",
        "```{eval-rst}",
        ".. autoclass:: paperlib.decide.Verdict",
        "   :members:",
        "   :undoc-members:",
        "",
        *[f".. autofunction:: paperlib.decide.{r}" for r in RULES],
        "```",
        "",
        "A row about our own setting, or about a statement other than the paper's, is a *paperlib* row and is not "
        "counted in the paper's tally. A row that says a paper's statement fails names in its evidence what "
        "excludes our error: the authors' code on the same data, or an independent re-derivation. Where the row's "
        "own rule says \"fails\" but nothing excludes our error yet, the verdict is **not reproduced** "
        "(`paperlib.ledger.decided`, `paperlib.ledger.not_charged`): counted apart from fails and from "
        "inconclusive in every tally, with the open question in its measurement. **Inconclusive** means only that the "
        "intervals allow both answers.",
        "",
        "**Intervals and bands.** The intervals the verdicts use are 95%: exact (Clopper-Pearson) on a share of runs, "
        "distribution-free (order statistics) on a median, a bootstrap over runs on a mean difference (and on Zhou's "
        "ratio of mean wall times, b = 2 over b = 32, over separately timed runs), a parametric "
        "bootstrap on a budget read off an accuracy curve (PULSE's savings); where a rule grades on some of many tests, "
        "it counts the tests that survive Holm's correction (Bonferroni's where the tests are intervals: each at 1 - "
        "0.05 / tests), while a \"holds\" that needs every test to pass is an intersection-union test, each at 0.05. "
        "A budget at which a mean curve crosses a level has a bootstrap "
        "interval over the runs (ROBIN's \"half the queries\": both methods' runs resampled; PULSE's 95% crossings: "
        "each budget's share resampled); Zhou's budget to precision 1 is the budget by which all R runs have settled, "
        "read exactly: there a run has settled with probability at least 0.05^(1/R) at 95% confidence (0.94 at R = "
        "50). The bands of the figures are "
        "one standard error, except the race's (exact 95% intervals) and certified search's (the interquartile range).",
        "",
        "## The configuration",
        "",
        f"This book shows the **{ctx.profile}** profile. Its configuration, as the workflow validated and ran it "
        "(the comments in `paperlib/config/<profile>.yaml` give each declared reduction and its reason):",
        "",
        "```{code-block} yaml",
        ":class: profile-config",
        "",
        profile_yaml.rstrip(),
        "```",
        "",
        f'<p class="print-only">The configuration ({len(profile_yaml.splitlines())} lines) is printed on the HTML '
        f"report's Methods page (site/{ctx.profile}/methods.html) and lives in "
        f"<code>paperlib/config/{ctx.profile}.yaml</code>.</p>",
        "",
    ])


def code_md() -> str:
    parts = ["# The claim builders", "",
             "Each ledger row is written by one function below; its source is one click away ([source]).", ""]
    for mod in CODE_MODULES:
        parts += [f"## `{mod}`", "", "```{eval-rst}", f".. automodule:: {mod}", "   :members:",
                  "   :private-members:", "   :undoc-members:", "```", ""]
    return "\n".join(parts)


CONF = '''
project = "paperlib"
author = "paperlib contributors"
copyright = "paperlib contributors"
extensions = ["myst_nb", "sphinx_design", "sphinx.ext.autodoc", "sphinx.ext.viewcode", "sphinxcontrib.bibtex"]
bibtex_bibfiles = ["references.bib"]  # paperlib/pipeline/references.bib: the text cites it by key ({{cite:p}}`zhou2025`)
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"
nb_execution_mode = "off"
nb_output_stderr = "remove"
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "substitution"]
myst_heading_anchors = 3
myst_substitutions = {substitutions!r}
numfig = True
numfig_format = {{"figure": "paperlib figure %s", "table": "paperlib table %s"}}
html_theme = "sphinx_book_theme"
html_title = {title!r}
html_theme_options = {{"show_toc_level": 2, "home_page_in_toc": True, "use_download_button": False,
                      "use_fullscreen_button": False}}
html_static_path = ["_static"]
html_css_files = ["paperlib.css"]
html_last_updated_fmt = None
html_context = {{"default_mode": "light"}}
html_copy_source = False
html_show_sourcelink = False
exclude_patterns = ["_build"]
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "misc.highlighting_failure"]
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_mock_imports = ["torch"]  # the claim builders' docstrings need no torch: the report's light environment has none
'''


def source_tree(profile: str, figures: Path, executed: Path, config: dict | None, src: Path) -> Context:
    """Write the book's sources into ``src`` (replaced); returns what was placed."""
    claims_csv = figures / "claims.csv"
    if not claims_csv.exists():
        raise BookError(f"{claims_csv} missing: the book is built from a profile's committed ledger "
                        f"(`snakemake --profile profiles/{profile} claims`)")
    structure = load_structure()
    if src.exists():
        shutil.rmtree(src)
    (src / "figures").mkdir(parents=True)
    (src / "notebooks").mkdir()
    (src / "_static").mkdir()
    (src / "_static" / "paperlib.css").write_text(CSS)
    in_book = set()
    wanted = shown_notebooks()
    for nb in sorted(executed.glob("*.ipynb")) if executed.exists() else []:
        if nb.stem in wanted and has_outputs(nb):
            prepare_notebook(nb, src / "notebooks" / nb.name)
            in_book.add(nb.stem)
    try:
        claims = load_claims(claims_csv)
        frags = {frag: read_ledger(frag) for frag in sorted((executed.parent / "claims").glob("*.csv"))}
    except LedgerError as exc:
        raise BookError(str(exc)) from None
    ctx = Context(profile, figures, executed, src, config, claims, in_book, claim_code(), structure=structure)
    wrote = {}  # claim id -> the rule whose ledger fragment holds it
    for frag, rows in frags.items():
        for c in rows:
            wrote[c.claim] = frag.stem
    for ch in structure["chapters"]:
        by_rule = {s["rule"]: s["notebook"] for s in ch["sections"] if s.get("rule")}
        sections = [s["notebook"] for s in ch["sections"] if s.get("notebook")]
        for c in ctx.claims:
            if c.paper in ch["ledger"]:
                cited = [n for n in cited_notebooks(c) if n in sections]
                if wrote.get(c.claim) in by_rule:
                    ctx.home[c.claim] = by_rule[wrote[c.claim]]
                elif cited:
                    ctx.home[c.claim] = cited[0]
    values = {k.removeprefix(f"{profile}_"): v for k, v in ledger_values(pd.read_csv(claims_csv), profile).items()}
    for ch in structure["chapters"]:
        (src / f"{ch['id']}.md").write_text(chapter_md(ch, ctx))
    known = {label for ch in structure["chapters"] for label in ch["ledger"]}
    stray = sorted({c.paper for c in ctx.claims} - known)
    if stray:
        raise BookError(f"book.yaml: no chapter takes the ledger rows of {stray}")
    (src / "index.md").write_text(landing_md(ctx, structure["chapters"], values))
    (src / "ledger.md").write_text(ledger_md(ctx, structure["chapters"]))
    (src / "methods.md").write_text(methods_md(ctx))
    (src / "code.md").write_text(code_md())
    (src / "references.md").write_text(references_md(ctx))
    shutil.copyfile(BIB, src / "references.bib")
    (src / "conf.py").write_text(CONF.format(substitutions=values, title=f"paperlib ({profile} profile)"))
    return ctx


def sphinx(src: Path, out: Path, builder: str, jobs: int = 1) -> None:
    cmd = [sys.executable, "-m", "sphinx", "-b", builder, "-q", "-E", "-j", str(jobs), str(src), str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=paths.ROOT)
    problems = [ln for ln in r.stderr.splitlines() if "WARNING" in ln or "ERROR" in ln]
    if r.returncode or problems:
        raise BookError(f"sphinx-build -b {builder} failed (rc {r.returncode}):\n" + "\n".join(problems[:20] or
                                                                                            r.stderr.splitlines()[-20:]))


def build(profile: str, figures: Path, executed: Path, out: Path, *, config: dict | None = None,
          pdf: bool = True, work: Path | None = None, jobs: int = 2) -> dict:
    """Build the site into ``out`` (replaced) and, with ``pdf``, ``out/paperlib-<profile>.pdf``."""
    t0 = time.perf_counter()
    work = Path(work or paths.ROOT / "build" / "book" / profile).resolve()
    out, figures, executed = Path(out).resolve(), Path(figures).resolve(), Path(executed).resolve()
    src = work / "src"
    ctx = source_tree(profile, figures, executed, config, src)
    if out.exists():
        shutil.rmtree(out)
    sphinx(src, out, "html", jobs)
    info = dict(index=out / "index.html", notebooks=sorted(ctx.in_book), missing=ctx.missing, rows=len(ctx.claims))
    if pdf:
        single = work / "singlehtml"
        if single.exists():
            shutil.rmtree(single)
        sphinx(src, single, "singlehtml", jobs)
        info["pdf"] = out / f"paperlib-{profile}.pdf"
        print_pdf(single / "index.html", info["pdf"])
    info["seconds"] = round(time.perf_counter() - t0, 1)
    return info


def profile_config(profile: str) -> dict | None:
    """The configuration a profile folder was made with (``smoke-partial`` -> smoke), if it is a shipped one."""
    from .config import load_config

    name = profile.removesuffix("-partial")
    try:
        return copy.deepcopy(load_config(name))
    except Exception:  # a custom profile: captions that need it say so
        return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paperlib.pipeline.book", description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="paper")
    ap.add_argument("--figures", type=Path, help="default figures/<profile>")
    ap.add_argument("--executed", type=Path, help="default results/<profile>/notebooks")
    ap.add_argument("--config", type=Path, help="the profile's configuration (default: the shipped one)")
    ap.add_argument("--out", type=Path, help="default site/<profile>")
    ap.add_argument("--work", type=Path, help="where the book's sources are written (default build/book/<profile>)")
    ap.add_argument("--pdf", choices=("auto", "yes", "no"), default="auto",
                    help="print the PDF with Chromium: auto = when Chromium is installed (default)")
    ap.add_argument("--job-notebooks", nargs="*", metavar="IPYNB",
                    help="print which of these notebooks are per-dataset jobs (committed stripped) and exit")
    ap.add_argument("--compact", nargs="*", metavar="IPYNB",
                    help="rewrite these executed summary notebooks at display size for committing, and exit")
    args = ap.parse_args(argv)
    if args.compact is not None:
        shown = shown_notebooks()
        for f in args.compact:
            if Path(f).stem in shown:
                print(f"{f}: {compact_notebook(Path(f)) / 1e6:.2f} MB")
        return 0
    if args.job_notebooks is not None:
        shown = shown_notebooks()
        print("\n".join(f for f in args.job_notebooks if Path(f).stem not in shown))
        return 0
    root = paths.ROOT
    figures = args.figures or root / "figures" / args.profile
    executed = args.executed or root / "results" / args.profile / "notebooks"
    out = args.out or root / "site" / args.profile
    if args.config:
        from .config import load_config

        config = load_config(args.config)
    else:
        config = profile_config(args.profile)
    try:
        pdf = args.pdf == "yes" or (args.pdf == "auto" and chromium() is not None)
        if args.pdf == "auto" and not pdf:
            print("report: no Chromium (Debian package chromium): building the site without the PDF", file=sys.stderr)
        info = build(args.profile, figures, executed, out, config=config, pdf=pdf, work=args.work)
    except (BookError, PrintError) as exc:
        print(f"report: {exc}", file=sys.stderr)
        return 2
    print(f"report: {info['index']} ({info['rows']} ledger rows, {len(info['notebooks'])} notebooks, "
          f"{info['seconds']} s)" + (f"; PDF {info['pdf']}" if "pdf" in info else ""))
    if info["missing"]:
        print("report: not produced in this profile: " + ", ".join(info["missing"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
