"""The book's blocks (:mod:`paperlib.pipeline.book`): a ledger row as a claim card with the builder and decision rule
that wrote it (found by reading the claim builders' source), the verdict tallies, the list of rows that do not hold,
and a committed table or figure with its caption."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pandas as pd

from .. import paths
from ..decide import Verdict
from ..ledger import Claim
from .book_text import BookError, cited_notebooks, md_escape, scrub, shorten
from .variables import PAPER_KEYS

CODE_MODULES = ("paperlib.papers.zhou.claims", "paperlib.papers.pulse.claims", "paperlib.papers.robin.claims",
                "paperlib.beyond.race.claims", "paperlib.beyond.search.claims")
#: the helpers of :mod:`paperlib.decide` a builder makes its cases with (the claim index lists which each one uses)
RULES = ("decide", "exact_case", "rate_case", "interval_case", "equivalence_case", "share_case", "one_sided_p",
         "split_p", "fisher_one_sided", "holm_reject", "holm_adjusted", "holm_signs", "fisher_rates", "fisher_rates_holm",
         "normal_p", "bootstrap_p")
MAX_TABLE_ROWS = 12


def claim_code(root: Path = paths.ROOT) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """Every id-like string in the claim builders: (id or id prefix, module, function, decision rules it uses).

    An f-string id (``f"pulse-theorem-1-...-{kind}-predictions"``) contributes its leading constant. A function's
    rules are the :mod:`paperlib.decide` rules it calls, directly or through the module's other functions."""
    found = []
    for mod in CODE_MODULES:
        src = root / (mod.replace(".", "/") + ".py")
        fns = {fn.name: fn for fn in ast.parse(src.read_text()).body if isinstance(fn, ast.FunctionDef)}
        names = {fn: {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                 | {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)} for fn, node in fns.items()}

        def rules_of(name, seen=(), names=names, fns=fns):
            direct = {r for r in RULES if r in names[name]}
            for callee in names[name] & set(fns) - {name, *seen}:
                direct |= rules_of(callee, (*seen, name))
            return direct

        for name, fn in fns.items():
            rules = tuple(sorted(rules_of(name)))
            for node in ast.walk(fn):
                s = None
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    s = node.value
                elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
                    s = str(node.values[0].value)
                if s and re.fullmatch(r"(zhou|pulse|robin|race|search|ours)-[a-z0-9\-]*", s):
                    found.append((s, mod, name, rules))
    return found


def code_for(cid: str, index) -> tuple[str, str, tuple[str, ...]] | None:
    """The builder of a claim: the function holding the longest id (or id prefix) that the claim's id starts with."""
    best = None
    for s, mod, fn, rules in index:
        if (cid == s or (cid.startswith(s) and s.endswith("-"))) and (best is None or len(s) > len(best[0])):
            best = (s, mod, fn, rules)
    return None if best is None else best[1:]


def verdict_span(v: str) -> str:
    return f'<span class="verdict verdict-{v.replace(" ", "-")}">{v}</span>'


def verdict_table(claims: list[Claim], labels: list[str], link: dict[str, str]) -> str:
    cols = [str(v) for v in Verdict]
    # a two-word verdict on two lines, so that the table fits a printed page, and a soft hyphen in the long one-word
    # verdicts, so that a narrow column breaks them instead of clipping them
    shown = {"not reproduced": "not<br>reproduced", "inconclusive": "incon&shy;clusive", "untestable": "un&shy;testable"}
    heads = "".join(f"<th>{verdict_span(v).replace(f'>{v}<', f'>{shown.get(v, v)}<')}</th>" for v in cols)
    head = f"<table class='verdicts docutils'><thead><tr><th>ledger rows</th>{heads}<th>total</th></tr></thead><tbody>"
    rows = []
    for label in labels:
        mine = [c for c in claims if c.paper == label]
        if not mine:
            continue
        name = f"<a href='{link[label]}'>{label}</a>" if label in link else label
        rows.append(f"<tr><td style='text-align:left'>{name}</td>" + "".join(
            f"<td>{sum(c.verdict == v for c in mine)}</td>" for v in cols) + f"<td>{len(mine)}</td></tr>")
    return head + "".join(rows) + "</tbody></table>"


def holds_split(claims: list[Claim], labels: list[str]) -> str:
    """One sentence: each paper's holds split into checks of theory (:data:`paperlib.decide.THEORY_KINDS`) and
    empirical statements (issue 73, item 4: a tally whose holds are all theory says so)."""
    from ..decide import is_theory

    parts = []
    for label in labels:
        held = [c for c in claims if c.paper == label and c.verdict == "holds"]
        if held:
            theory = sum(is_theory(c.kind) for c in held)
            parts.append(f"{label} {len(held)} ({len(held) - theory} empirical, {theory} theory)")
    if not parts:
        return ""
    return ("Of the papers' holds, how many are empirical statements and how many checks of theory or arithmetic "
            "(exact checks and theorems, kinds `exact` and `theorem`): " + "; ".join(parts) + ".")


def _title(c: Claim) -> str:
    """A row's display title: its statement up to the first colon outside parentheses (titled rows open with where
    in the paper: "Non-binary scores (Sec. 5: extension ...): the statement")."""
    depth, head = 0, c.statement
    for i, ch in enumerate(c.statement):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and c.statement.startswith(": ", i):
            head = c.statement[:i]
            break
    return head if len(head) <= 90 else shorten(head, 90)


def not_holding(claims: list[Claim], href=lambda c: f"#claim-{c.claim}",
                verdicts=("fails", "not reproduced", "partly", "inconclusive"), full: bool = True,
                papers_only: bool = True, short: int = 200) -> str:
    """A list of the papers' own rows with these verdicts (fails first), each linked to its card, with what was
    measured in short: the first thing a reviewer looks for. A ``not reproduced`` row's reason and open question are
    given in full (with ``full``; they are the point), its numbers in short. ``papers_only`` False: every row given
    (the Beyond chapter's, all paperlib's: issue 73 found it saying "every statement of ours holds" above 9 fails).
    ``short``: the characters of a measurement shown (the landing page keeps its list to about two printed lines a row;
    the whole row is one link away)."""
    order = {v: i for i, v in enumerate(verdicts)}
    rows = sorted((c for c in claims if (c.paper in PAPER_KEYS or not papers_only) and c.verdict in order),
                  key=lambda c: order[c.verdict])
    return "\n".join(f"* {verdict_span(c.verdict)} [{md_escape(_title(c))}]({href(c)}): "
                     + md_escape(_with_reason(c.measured) if full and c.verdict == "not reproduced"
                                 else shorten(c.measured, short))
                     for c in rows)


def _with_reason(measured: str) -> str:
    """A not-reproduced row's measurement for a summary: its numbers in short, its reason and open question in full."""
    from ..ledger import NOT_REPRODUCED_LEAD

    head, sep, reason = measured.partition(f". {NOT_REPRODUCED_LEAD}")
    return f"{shorten(head, 200)}. {NOT_REPRODUCED_LEAD}{reason}" if sep else measured


def claim_card(c: Claim, code_index, in_book: set[str], run_on: str = "") -> str:
    """One ledger row as a card. The ledger's pointer to the run conditions (:data:`paperlib.ledger.RUN_CONDITIONS`)
    is left out here: the methods page states them once. ``run_on``: a ledger merged before the pointer appended the
    whole text to every row, which is left out too."""
    from ..ledger import RUN_CONDITIONS

    ours = c.paper not in PAPER_KEYS
    evidence = c.evidence.removesuffix(RUN_CONDITIONS)
    evidence = evidence.removesuffix(f"; run on {run_on}") if run_on else evidence
    ev = md_escape(scrub(evidence))
    for nb in set(cited_notebooks(c)):
        target = f"[notebooks/{nb}.ipynb](notebooks/{nb}.ipynb)" if nb in in_book else f"`notebooks/{nb}.ipynb`"
        ev = ev.replace(f"notebooks/{md_escape(nb)}.ipynb", target)
    code = code_for(c.claim, code_index)
    from ..decide import decide

    d = decide(c.kind, c.cases, c.setting or None)  # every row is decided by construction: decide's rule for its kind
    code_line = f"{{py:func}}`{code[0]}.{code[1]}`" if code else "not found in the claim builders"
    graded = ("no data to grade" if d.graded_on == "none" else f"graded on its {d.graded_on} cases")
    rule = (f"{{py:func}}`~paperlib.decide.decide` ({c.kind}, {graded}"
            + (f"; at the {d.configurations} configuration{'s' if d.configurations != 1 else ''} tested"
               if c.kind == "theorem" else "") + ")")
    who = ("**paperlib row** (our setting or our method; not counted in the paper's tally)" if ours
           else f"**{c.paper}**")
    return "\n".join([
        f"(claim-{c.claim})=",
        f"#### `{c.claim}`",
        "",
        f'<div class="claim-card{" paperlib-row" if ours else ""}">',
        "",
        f"{who}. *The statement:* {md_escape(c.statement)}",
        "",
        f"*Measured:* {md_escape(c.measured)}",
        "",
        f"*Verdict:* {verdict_span(c.verdict)}, by {rule} ([how verdicts are decided](methods.md#verdicts))",
        "",
        f"*Evidence:* {ev}",
        "",
        f"*Code:* {code_line}",
        "",
        "</div>",
        "",
    ])


def table_block(csv: Path, caption: str, rel: str, columns: list[str] | None = None) -> str:
    """A committed table as a captioned Markdown table: its first :data:`MAX_TABLE_ROWS` rows and, where
    ``book.yaml`` names ``columns`` (a wide table, which would run off a printed page), those columns only; the
    download link gives the whole file, and the line under the table says what was left out."""
    df = pd.read_csv(csv)
    cut = []
    if columns:
        unknown = [c for c in columns if c not in df.columns]
        if unknown:
            raise BookError(f"book.yaml: {csv.name} has no column {', '.join(unknown)} (it has {', '.join(df.columns)})")
        cut = [c for c in df.columns if c not in columns]
        df = df[list(columns)]
    rows = f"First {MAX_TABLE_ROWS} of {len(df)} rows" if len(df) > MAX_TABLE_ROWS else ""
    cols = f"{len(columns)} of its {len(columns) + len(cut)} columns" if cut else ""
    shown_part = "; ".join(x for x in (rows, cols) if x)
    more = (f"{shown_part[0].upper() + shown_part[1:]}; the whole table: {{download}}`{csv.name} <{rel}>`."
            if shown_part else f"As a file: {{download}}`{csv.name} <{rel}>`.")
    from ..display import fmt_number

    shown = df.head(MAX_TABLE_ROWS).map(lambda x: md_escape(x) if isinstance(x, str) else md_escape(fmt_number(x)))
    shown.columns = [md_escape(c) for c in shown.columns]
    table = shown.to_markdown(index=False, disable_numparse=True)
    return f":::{{table}} {md_escape(caption)}\n:name: tab-{csv.stem}\n\n{table}\n:::\n\n{more}\n"


def place_figure(png: Path, dest: Path) -> str:
    """Copy a figure into the book and return its name there: the vector version (``x.svg``, written beside the PNG
    by :func:`paperlib.pipeline.notebook.save_vector` at the same time, so never stale), so that the site can be
    zoomed and the PDF prints vectors; else the PNG."""
    svg = png.with_suffix(".svg")
    pick = svg if svg.exists() else png
    shutil.copy(pick, dest / pick.name)
    return pick.name


def figure_block(rel: str, caption: str, name: str, printed: bool = True) -> str:
    """A figure of the book; ``printed=False`` (book.yaml's ``print: false``: a grid too fine for a page, whose
    summary is printed instead) shows it on the site only."""
    opts = "" if printed else ":figclass: screen-only\n"
    return f"```{{figure}} {rel}\n:name: fig-{name}\n:width: 100%\n{opts}:alt: {caption}\n\n{caption}\n```\n"
