"""A ledger row's measurement laid out for reading (issue 69, item 5): short sentences as bullets, and every
per-dataset, per-pool or per-method list ("sysrs_gsm: 59.1% vs 99.4%, sysrs_math: 50.8% vs 99.7%, ...") as a table.

The ledger keeps a row's ``measured`` as one string (it is a CSV cell, and the report's cards quote it); a notebook's
"What we measured" shows it through :func:`layout`. Nothing is dropped or reworded: the bullets and the table cells,
read in order, are the string's own words (:func:`layout` is tested to keep every character but the separators).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

#: a pool is a dataset with its gap setting (``bench2-gap0.01``, ``alpacaeval2-full``)
_POOL = re.compile(r"^(?P<name>[a-z][a-z0-9_]*)(?:-(?:full|gap[0-9.]+))?$")
MIN_ROWS = 4  # a shorter list reads well in a sentence
LONG = 30  # words: a longer sentence without a table is cut at its semicolons into bullets of their own


@cache
def dataset_names() -> frozenset[str]:
    from ..data.registry import entries

    return frozenset(entries())


@cache
def method_names() -> frozenset[str]:
    from ..policies.registry import METHODS

    return frozenset(METHODS)


def kind_of(token: str) -> str | None:
    """What ``token`` names: "dataset" (a registered one), "pool" (a PULSE pool of one) or "method" (a registered
    method); None for any other word."""
    m = _POOL.match(token)
    if m and m.group("name") in dataset_names():
        return "dataset" if token == m.group("name") else "pool"
    return "method" if token in method_names() else None


def split_top(text: str, seps: str) -> list[tuple[str, str]]:
    """``text`` cut after each character of ``seps`` that stands outside brackets and before a space (a full stop
    only before a capital: "s.e. of" and "et al. 2026" stay whole): (piece, the separator after it)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in "([") - (ch in ")]")
        if depth or ch not in seps or not text.startswith(" ", i + 1):
            continue
        if ch == "." and not text[i + 2:i + 3].isupper():
            continue
        out.append((text[start:i], ch))
        start = i + 2
    out.append((text[start:], ""))
    return out


def _item(piece: str) -> tuple[str, str, str] | None:
    """(text before the name, name, value) where ``piece`` names a dataset, a pool or a method: "differences
    synth_easy -0.02 (se 0.004)" -> ("differences", "synth_easy", "-0.02 (se 0.004)"); "alpacaeval2: 10.8%" -> ("",
    "alpacaeval2", "10.8%"). A method only opens the piece, with a colon ("pulse-pw: fails (...)"): method names
    are also words of the prose ("ucbe vs row-mean: alpacaeval2: ...")."""
    words = piece.split(" ")
    for k, w in enumerate(words[:12]):
        token = w.rstrip(":")
        kind = kind_of(token)
        if kind == "method" and (k or not w.endswith(":")):
            continue
        if kind and k + 1 < len(words):
            return " ".join(words[:k]), token, " ".join(words[k + 1:])
    return None


@dataclass
class Sentence:
    """One bullet: its words, and the per-dataset table that follows them (empty when none)."""

    text: str
    table: list[tuple[str, str]] = field(default_factory=list)


def _runs(items: list) -> tuple[int, int, int] | None:
    """The first run of at least :data:`MIN_ROWS` dataset items, as (first piece, pieces per item, items): items
    start every ``g`` pieces (each item the same number of pieces: "name: bound x, y; accuracy z"), only the first
    may have words before its name, every name is of one kind (:func:`kind_of`) and none repeats within the run."""
    starts = [i for i, it in enumerate(items) if it is not None]
    for n, s in enumerate(starts):
        if n + 1 == len(starts):
            return None
        g = starts[n + 1] - s
        run, seen = [s], {items[s][1]}
        for t in starts[n + 1:]:
            if (t != run[-1] + g or items[t][0] or items[t][1] in seen
                    or kind_of(items[t][1]) != kind_of(items[s][1])):
                break
            run.append(t)
            seen.add(items[t][1])
        if len(run) >= MIN_ROWS and run[-1] + g <= len(items) and all(
                it is None for it in items[run[-1] + 1:run[-1] + g]):
            return s, g, len(run)
    return None


def _sentence(text: str) -> list[Sentence]:
    """A sentence with its first run of per-dataset items (:func:`_runs`; separated by commas or semicolons, the
    first one's leading words kept in the prose) lifted into a table, and so on after it."""
    pieces = split_top(text, ",;")
    items = [_item(p) for p, _ in pieces]
    found = _runs(items)
    if found is None:
        return [Sentence(text)]
    s, g, n = found

    def join(ps):
        return " ".join(p + sep for p, sep in ps).strip()

    rows = []
    for k in range(s, s + g * n, g):
        value = " ".join([items[k][2] + pieces[k][1]] + [p + sep for p, sep in pieces[k + 1:k + g]])
        rows.append((items[k][1], value.strip().rstrip(",;.").strip()))
    head = " ".join(x for x in (join(pieces[:s]), items[s][0]) if x).rstrip(":,; ")
    rest = join(pieces[s + g * n:]).strip()
    return [Sentence(head + (":" if head else ""), rows)] + (_sentence(rest) if rest.rstrip(".") else [])


def _clauses(s: Sentence) -> list[Sentence]:
    """A sentence of more than :data:`LONG` words and no table as one bullet per clause (cut at its semicolons)."""
    if s.table or len(s.text.split()) <= LONG:
        return [s]
    return [Sentence(p.strip()) for p, _ in split_top(s.text, ";") if p.strip()]


def layout(measured: str) -> list[Sentence]:
    """``measured`` as bullets: one per part (the ledger joins a row's data kinds with ``||``) and sentence (a long
    one per clause), each per-dataset list a table under the words that introduce it."""
    out: list[Sentence] = []
    for part in (p.strip() for p in measured.split(" || ")):
        for sent, stop in split_top(part, "."):
            sent = (sent + stop).strip()
            if sent:
                out += [short for s in _sentence(sent) for short in _clauses(s)]
    return out


def prose(text: str) -> str:
    """Text shown as Markdown as written: an angle bracket is not an HTML tag ("results/<profile>/...")."""
    return text.replace("<", "&lt;")


def cell(text: str) -> str:
    return prose(text).replace("|", "\\|")


def markdown(measured: str, indent: str = "  ") -> list[str]:
    """:func:`layout` as Markdown lines nested under a bullet: sub-bullets, each table after its bullet."""
    lines = []
    for s in layout(measured):
        if s.text:  # a table with no words before it sits directly under the row's bullet
            lines.append(f"{indent}- {prose(s.text)}")
        if s.table:
            what = kind_of(s.table[0][0])  # one kind per table (_runs)
            lines += ["", f"{indent}  | {what} | measured |", f"{indent}  |---|---|"]
            lines += [f"{indent}  | `{n}` | {cell(v)} |" for n, v in s.table]
            lines.append("")
    return lines
