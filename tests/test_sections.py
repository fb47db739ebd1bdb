"""Every section a ledger row cites exists in its paper's text (issue 57: rows cited Zhou et al.'s Sec. 4.6 and Sec. 2
for what is in Sec. 4.5 and the Introduction)."""

import csv

import pytest

from paperlib.papers.sections import PAPER_TEXTS, cited, cited_names, papers_dir, sections
from paperlib.paths import ROOT
from paperlib.pipeline.config import COMMITTED


def test_headings_and_citations_are_read_as_a_reader_would():
    text = "1 Introduction\n4 Experiments\n4.5 More Empirical Analysis\n## 5 Experiments\n### 5.1 Setup\nC.2 Compute\n" \
           "4.7 is a number that opens a long paragraph " + "x" * 300
    assert sections(text) == {"1", "4", "4.5", "5", "5.1", "C", "C.2"}
    assert cited("Smallest batch best (Sec. 4.5); Run time (Sec. 4.1, App. C.2)") == ["4.5", "4.1", "C.2"]
    assert cited_names("Uniform needs 90% (Introduction; Sec. 3)") == ["Introduction"]


def _papers():
    d = papers_dir()
    if d is None or not d.is_dir():
        pytest.skip("the papers' texts are not here (PAPERLIB_PAPERS, or papers/ beside PAPERLIB_DATA)")
    return d


# from the repository root (issue 76, item 7), and each committed profile's ledger named, so that a missing one fails
LEDGERS = [ROOT / "figures" / p / "claims.csv" for p in COMMITTED]


@pytest.mark.parametrize("ledger", LEDGERS, ids=lambda p: p.parent.name)
def test_every_cited_section_exists_in_the_paper(ledger):
    assert ledger.is_file(), f"{ledger} is missing"
    d = _papers()
    known = {f: sections((d / f).read_text(errors="replace")) for f in set(PAPER_TEXTS.values())}
    missing = []
    for row in csv.DictReader(open(ledger, newline="")):
        f = PAPER_TEXTS.get(row["paper"])
        if f is None:
            continue
        text = (d / f).read_text(errors="replace")
        missing += [f"{row['claim']}: Sec. {s}" for s in cited(row["statement"]) if s not in known[f]]
        missing += [f"{row['claim']}: {n}" for n in cited_names(row["statement"]) if n not in text]
    assert not missing, missing
