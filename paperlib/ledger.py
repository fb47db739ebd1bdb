"""The claims ledger: one row per quantitative claim or theorem, with evidence and verdict.

Notebooks write fragments (``results/<profile>/claims/<name>.csv``); :func:`merge` joins them into
``figures/<profile>/claims.csv`` and ``claims.md``.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from .decide import CASE_COLUMNS, KINDS, Case, Verdict, decide

COLUMNS = ("paper", "claim", "statement", "evidence", "measured", "verdict")
#: the columns a row decided by construction adds (issue 73): its kind of statement and the data kind it is graded on
DECIDED_COLUMNS = ("kind", "setting")
VERDICTS = tuple(v.value for v in Verdict)
#: a row id: lower-case letters, digits and hyphens (what :func:`key` makes of a label), so that it is its own
#: HTML anchor (Sphinx turns any other character into a hyphen, and a link to the id would then miss)
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*")


@dataclass(frozen=True)
class Claim:
    """A ledger row, decided by construction (issue 73): every row declares its ``kind`` of statement
    (:data:`paperlib.decide.KINDS`) and its ``cases``, and its verdict is what :func:`paperlib.decide.decide` makes of
    them (graded on ``setting``, a data kind, or the default order), a paper's fails becoming not reproduced where
    the evidence names nothing that excludes our error. Any other verdict is refused, and so is a row without a
    kind: a builder cannot write a verdict (build rows with :func:`decided`)."""

    paper: str
    claim: str
    statement: str
    evidence: str
    measured: str
    verdict: str
    kind: str = ""
    setting: str = ""
    cases: tuple = ()

    def __post_init__(self):
        if not ID_PATTERN.fullmatch(self.claim):
            raise ValueError(f"claim id must be lower-case letters, digits and hyphens, got {self.claim!r}")
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        object.__setattr__(self, "verdict", Verdict(self.verdict).value)
        object.__setattr__(self, "cases", tuple(self.cases))
        if not self.kind:
            raise ValueError(f"{self.claim}: no kind of statement; every row declares one of {KINDS} and its cases, "
                             "and paperlib.decide decides its verdict (paperlib.ledger.decided): a verdict is never "
                             "written")
        want = expected_verdict(self)
        if self.verdict != want:
            raise ValueError(f"{self.claim}: its verdict is decided by paperlib.decide from its {len(self.cases)} "
                             f"cases ({self.kind}): {want}, not {self.verdict!r}")


def expected_verdict(c: Claim) -> str:
    """The verdict of a row decided by construction: :func:`paperlib.decide.decide` of its kind and cases, a paper's
    ``fails`` written ``not reproduced`` unless the evidence says what excludes our error (:data:`EXCLUDES`)."""
    v = decide(c.kind, c.cases, c.setting or None).verdict
    if v == Verdict.FAILS and not c.paper.startswith("paperlib") and EXCLUDES not in c.evidence:
        v = Verdict.NOT_REPRODUCED
    return v.value


UNCERTAINTY_MARKERS = ("95% CI", "interval", "(se ", "+-", "p = ", "p < ", "exact", "Welch", "Fisher", "Wilcoxon",
                       "bootstrap", "binomial", "no interval", "|z|")


def states_uncertainty(c: Claim) -> bool:
    """Whether a row states its uncertainty (an interval, a test, a standard error) or why none applies.

    Rows marked ``untestable`` need neither; every other row must name one in ``measured`` or ``evidence``.
    """
    text = f"{c.evidence} {c.measured}"
    return c.verdict == "untestable" or any(m in text for m in UNCERTAINTY_MARKERS)


#: The phrase with which a row's evidence says what rules out a fault of ours behind a "fails" verdict (a run of the
#: authors' code on the same data, an exact computation, an independent re-derivation).
EXCLUDES = "excludes our error:"


def _paper_fails(paper: str, verdict: str) -> bool:
    """A ``fails`` verdict of a paper's row (a ``paperlib`` row is about our own methods or settings)."""
    return verdict == "fails" and not paper.startswith("paperlib")


#: How a ``not reproduced`` row's measurement goes on: our run contradicts the statement, and what would exclude our
#: own error is the open question the row names.
NOT_REPRODUCED_LEAD = "Not reproduced: our run contradicts the statement; open question, what would exclude our error"


#: the open question of a ``not reproduced`` row that names no more specific one
DEFAULT_OPEN_QUESTION = "a run of the authors' code on the same data, or an independent re-derivation (neither is here yet)"


def not_charged(c: Claim, reason: str) -> Claim:
    """A paper's ``fails`` row written ``not reproduced``, with the specific ``reason`` why our run cannot yet be
    charged to the paper (different matrices, grading or repetitions): the open question, in place of the default
    one (a row is already ``not reproduced`` where it fails and nothing excludes our error); other rows unchanged."""
    if c.verdict != Verdict.NOT_REPRODUCED.value:
        return c
    head = c.measured.split(f". {NOT_REPRODUCED_LEAD}", 1)[0]
    return replace(c, measured=f"{head}. {NOT_REPRODUCED_LEAD}: {reason}")


def decided(paper: str, cid: str, statement: str, evidence: str, measured: str, kind: str, cases,
            setting: str | None = None, reason: str | None = None, title: str | None = None) -> Claim:
    """A row decided by construction (issue 73): the builder gives its kind of statement and its cases; the verdict
    is :func:`paperlib.decide.decide`'s, the evidence ends with the one rule that decided it (the data kind graded
    on, the other kinds' verdicts, the fits), and a paper's fails without :data:`EXCLUDES` in the evidence is
    written ``not reproduced`` with ``reason`` (or the default open question)."""
    cases = tuple(cases)
    d = decide(kind, cases, setting)
    statement = f"{title}: {statement}" if title else statement
    evidence = f"{evidence}; {d.line()}"
    v = d.verdict
    if _paper_fails(paper, v) and EXCLUDES not in evidence:
        v = Verdict.NOT_REPRODUCED
        measured = f"{measured}. {NOT_REPRODUCED_LEAD}: {reason or DEFAULT_OPEN_QUESTION}"
    return Claim(paper, cid, statement, evidence, measured, v.value, kind, setting or "", cases)


#: how a decided row's evidence names the rule that decided it (:meth:`paperlib.decide.Decision.line`)
DECIDED_BY = "; decided by paperlib.decide ("


def redecide(c: Claim, cases) -> Claim:
    """A row decided by construction with other ``cases`` (the same row with the cases of more fits, say): its
    verdict, its decision line and its open question made again from them; the builder's words are kept."""
    if not c.kind:
        raise ValueError(f"{c.claim}: only a row with a kind of statement is decided from cases")
    evidence = c.evidence.split(DECIDED_BY, 1)[0]
    head, _, reason = c.measured.partition(f". {NOT_REPRODUCED_LEAD}: ")
    return decided(c.paper, c.claim, c.statement, evidence, head, c.kind, cases, c.setting or None, reason or None)


def key(text: str) -> str:
    """A data label (a judge, a kind of predictions) as it appears inside a hand-written id: lower case, runs of
    other characters as one hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def final(claims) -> list[Claim]:
    """The rows a reader sees, each decided when it was made (:class:`Claim` refuses any verdict but
    :func:`paperlib.decide.decide`'s), so a notebook's "What we measured", its fragment and the merged ledger show
    the same verdict; a list of the rows (kept as the one call between the builders and every place that shows
    them)."""
    return list(claims)


def cases_path(path: str | Path) -> Path:
    """Where the cases of a ledger file live: a fragment ``results/<p>/claims/<name>.csv`` has
    ``results/<p>/cases/<name>.csv``; a merged ledger ``figures/<p>/claims.csv`` has ``figures/<p>/cases.csv``; any
    other ``<name>.csv`` has ``<name>.cases.csv`` beside it (two ledgers in one folder never share a cases file)."""
    path = Path(path)
    if path.parent.name == "claims":
        return path.parent.parent / "cases" / path.name
    if path.name == "claims.csv":
        return path.with_name("cases.csv")
    return path.with_name(f"{path.stem}.cases.csv")


def _columns(claims) -> tuple:
    return COLUMNS + (DECIDED_COLUMNS if any(c.kind for c in claims) else ())


def write(claims: list[Claim], path: str | Path) -> None:
    """A fragment of the ledger, its verdicts :func:`final`; the cases of its rows decided by construction go to
    :func:`cases_path` (none: no file, and an old one is removed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    claims = final(claims)
    cols = _columns(claims)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for c in claims:
            w.writerow(asdict(c))
    write_cases(claims, cases_path(path))


def write_cases(claims, path: Path) -> None:
    rows = [(c.claim, k) for c in claims for k in c.cases]
    if not rows:
        if path.exists():
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(CASE_COLUMNS)
        for cid, k in rows:
            w.writerow([cid, k.name, k.data, repr(float(k.estimate)), repr(float(k.lo)), repr(float(k.hi)),
                        repr(k.p_for), repr(k.p_against), "" if k.paper is None else repr(float(k.paper)),
                        int(bool(k.could_fail)), int(k.fit)])


def read_cases(path: Path) -> dict[str, list[Case]]:
    """The committed cases, by claim id (:func:`write_cases`); {} where there is no file."""
    out: dict[str, list[Case]] = {}
    if not Path(path).exists():
        return out
    with open(path, newline="") as fh:
        for i, r in enumerate(csv.DictReader(fh)):
            try:
                out.setdefault(r["claim"], []).append(Case(
                    r["name"], r["data"], float(r["estimate"]), float(r["lo"]), float(r["hi"]), float(r["p_for"]),
                    float(r["p_against"]), None if r["paper"] == "" else float(r["paper"]), r["could_fail"] == "1",
                    int(r["fit"])))
            except (KeyError, TypeError, ValueError) as exc:
                raise LedgerError(f"{path}, row {i + 1}: not a case ({exc})") from None
    return out


class LedgerError(ValueError):
    """A ledger file that cannot be read as one: the message names the file, the row and the problem (one line)."""


def read(path: str | Path) -> list[Claim]:
    """The rows of a ledger or a fragment, checked (issue 76, item 4): a file that is not UTF-8 text, has no header,
    lacks a column of :data:`COLUMNS`, or has a row with an unknown verdict or a bad id is refused with
    :class:`LedgerError`, naming the file, the row (its line in the file) and the problem."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LedgerError(f"{path}: not a ledger (not UTF-8 text: byte {exc.start})") from None
    if "\0" in text:
        raise LedgerError(f"{path}: not a ledger (binary data: a NUL byte at character {text.index(chr(0))})")
    reader = csv.DictReader(text.splitlines(keepends=True))
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        raise LedgerError(f"{path}: not a CSV ledger ({exc})") from None
    if not header:
        raise LedgerError(f"{path}: empty (a ledger has the header {','.join(COLUMNS)} and one row per claim)")
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise LedgerError(f"{path}: no column {', '.join(missing)} (a ledger has {','.join(COLUMNS)})")
    rows = []
    cases = read_cases(cases_path(path)) if "kind" in header else {}
    try:
        for i, row in enumerate(reader):
            line = reader.line_num
            if None in row or any(row.get(k) is None for k in COLUMNS):
                raise LedgerError(f"{path}, line {line} (row {i + 1}): {len(header)} columns in the header, another "
                                  "number in this row")
            try:
                extra = {k: row.get(k) or "" for k in DECIDED_COLUMNS}
                if extra["kind"]:
                    extra["cases"] = tuple(cases.get(row["claim"], ()))
                rows.append(Claim(**{k: row[k] for k in COLUMNS}, **extra))
            except ValueError as exc:
                raise LedgerError(f"{path}, line {line} (row {i + 1}, claim {row['claim']!r}): {exc}") from None
    except csv.Error as exc:
        raise LedgerError(f"{path}, line {reader.line_num}: not a CSV row ({exc})") from None
    return rows


def to_markdown(claims: list[Claim], run_on: str | None = None) -> str:
    def tally(rows):
        return ", ".join(f"{v} {sum(c.verdict == v for c in rows)}" for v in VERDICTS)

    own = [c for c in claims if not c.paper.startswith("paperlib")]
    ours = [c for c in claims if c.paper.startswith("paperlib")]
    lines = [
        "# Claims ledger",
        "",
        f"Generated by the pipeline; one row per quantitative claim or theorem. The papers' own statements ({len(own)} "
        f"rows): {tally(own)}. paperlib's rows (our settings and methods, {len(ours)} rows, never in a paper's tally): "
        f"{tally(ours)}.",
        "",
        *([f"Run on: {run_on}.", ""] if run_on else []),
        "Every `evidence` cell starts with the data kind it rests on: [real], [semi-synthetic],",
        "[synthetic] or [none].",
        "",
        "| paper | claim | statement | evidence | measured | verdict |",
        "|---|---|---|---|---|---|",
    ]
    esc = lambda s: str(s).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    for c in claims:
        lines.append(
            f"| {esc(c.paper)} | {esc(c.claim)} | {esc(c.statement)} | "
            f"{esc(c.evidence)} | {esc(c.measured)} | **{c.verdict}** |"
        )
    return "\n".join(lines) + "\n"


def summary_table(claims) -> str:
    """Verdict counts per paper, in ledger order, as a Markdown table (the README quotes it as a variable); ``claims``:
    rows with ``paper`` and ``verdict`` (:class:`Claim`, or a ledger table's tuples)."""
    order = ("holds", "partly", "fails", "not reproduced", "inconclusive", "untestable")
    papers = list(dict.fromkeys(c.paper for c in claims))
    lines = ["| paper | " + " | ".join(order) + " |", "|---|" + "---|" * len(order)]
    for p in papers:
        n = [sum(c.paper == p and c.verdict == v for c in claims) for v in order]
        lines.append(f"| {p} | " + " | ".join(map(str, n)) + " |")
    return "\n".join(lines) + "\n"


#: how a merged row refers to where it was measured: the profile's ``run_on``, stated once (the ledger's Markdown
#: title, the report's methods page and cover)
RUN_CONDITIONS = "; run conditions: the profile's run_on (the report's methods page)"


def merge(fragments, csv_out: str | Path, md_out: str | Path, run_on: str | None = None) -> list[Claim]:
    """Concatenate fragment CSVs (in the given order) into the ledger CSV and Markdown.

    Every row was decided when it was made (a paper's ``fails`` without a check that excludes our own error is
    ``not reproduced``: :func:`decided`), and reading a fragment decides it again from its cases. ``run_on`` (the profile's ``run_on``: machine and declared reductions) is stated once,
    under the Markdown title; each row's evidence ends with :data:`RUN_CONDITIONS`, a pointer to it (issue 68: the run
    conditions stated once, not repeated in every row).
    """
    claims = []
    for f in fragments:
        claims.extend(read(f))
    claims = final(claims)
    if run_on:
        claims = [replace(c, evidence=f"{c.evidence}{RUN_CONDITIONS}") for c in claims]
    silent = [c.claim for c in claims if not states_uncertainty(c)]
    if silent:
        raise ValueError(f"ledger rows without an interval, a test or a reason for none: {', '.join(silent)}")
    write(claims, csv_out)
    from . import paper_vs_ours

    paper_vs_ours.write(claims, Path(csv_out).with_name("paper_vs_ours.csv"))  # the papers' numbers beside ours
    Path(md_out).write_text(to_markdown(claims, run_on))
    Path(csv_out).with_name("environment.json").write_text(json.dumps(software(), indent=1) + "\n")
    return claims


def software() -> dict[str, str]:
    """The versions the ledger was merged with, on the machine of the runs it merges (the report's cover shows them):
    Python, the operating system, and numpy, pandas, scipy and torch where installed."""
    import importlib.metadata as md
    import platform
    import sys

    out = {"python": sys.version.split()[0], "os": platform.platform(terse=True)}
    for name in ("numpy", "pandas", "scipy", "torch"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    return out
