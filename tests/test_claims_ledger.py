"""Decision rules of the ledger rows of the ledger itself (uncertainty, attribution, README quotes): each claim builder's thresholds on hand-made tables.

The expected verdicts follow from the papers' wording as encoded in the thresholds (e.g. "5-15% of
the budget" -> precision 1 reached by 15%), not from the code's own output.
"""

import re
from pathlib import Path

import pytest

from paperlib.ledger import all_any

ROOT = Path(__file__).resolve().parents[1]


def test_all_any():
    assert all_any([True, True]) == "holds"
    assert all_any([True, False]) == "partly"
    assert all_any([False, False]) == "fails"
    assert all_any([]) == "fails"


def test_every_ledger_row_must_state_its_uncertainty(tmp_path):
    from paperlib.ledger import Claim, merge, states_uncertainty, write

    bare = Claim("p", "c", "s", "[real] counted", "3/4 cells", "holds")
    assert not states_uncertainty(bare)
    assert states_uncertainty(Claim("p", "c", "s", "[none]", "-", "untestable"))
    assert states_uncertainty(Claim("p", "c", "s", "[real] counted", "0.31 (95% CI 0.29-0.33)", "fails"))
    write([bare], tmp_path / "f.csv")
    with pytest.raises(ValueError, match="without an interval"):
        merge([tmp_path / "f.csv"], tmp_path / "l.csv", tmp_path / "l.md")


def test_a_paper_row_fails_only_when_the_evidence_excludes_our_error(tmp_path):
    """The ledger charges a failure to a paper only with a check that rules out ours; paperlib rows keep theirs."""
    from paperlib.ledger import EXCLUDES, Claim, merge, write

    rows = [Claim("Some et al.", "a", "s", "[real] runs; exact", "m", "fails"),
            Claim("Some et al.", "b", "s", f"[real] runs; exact; {EXCLUDES} the authors' code on the same data", "m",
                  "fails"),
            Claim("paperlib (race)", "c", "s", "[real] runs; exact", "m", "fails"),
            Claim("Some et al.", "d", "s", "[real] runs; exact", "m", "holds")]
    write(rows, tmp_path / "f.csv")
    got = {c.claim: c for c in merge([tmp_path / "f.csv"], tmp_path / "l.csv", tmp_path / "l.md")}
    assert got["a"].verdict == "not reproduced" and "what would exclude our error" in got["a"].measured
    assert [got[k].verdict for k in "bcd"] == ["fails", "fails", "holds"]


def test_a_row_id_is_its_own_html_anchor():
    """Sphinx turns any character but letters, digits and hyphens into a hyphen in an anchor, so a link to an id
    with a dot would miss its row: such an id is refused when the row is made."""
    import pytest

    from paperlib.ledger import Claim, key

    Claim("p", "search-lucb-within-1-5x-oracle", "s", "e", "95% CI", "holds")
    with pytest.raises(ValueError, match="claim id"):
        Claim("p", "search-lucb-within-1.5x-oracle", "s", "e", "95% CI", "holds")
    with pytest.raises(ValueError, match="claim id"):
        Claim("p", "Upper-Case", "s", "e", "95% CI", "holds")
    assert key("GPT-4o (judge) v1.5") == "gpt-4o-judge-v1-5"


def test_a_notebook_and_its_fragment_print_the_ledgers_verdict(tmp_path):
    """One rule decides what a reader sees (issue 39): a paper's "fails" without a check that excludes our error is
    "not reproduced" in the notebook's "What we measured", in the fragment it writes and in the merged ledger alike
    (issue 57: never "inconclusive", which says the intervals allow both answers)."""
    from paperlib.ledger import Claim, merge, read, write
    from paperlib.pipeline.notebook import what_we_measured

    rows = [Claim("Some et al.", "a", "Statement A", "[real] runs; exact", "m", "fails"),
            Claim("paperlib (race)", "c", "Statement C", "[real] runs; exact", "m", "fails")]
    shown = what_we_measured(rows).data
    assert "**not reproduced** `a` — Statement A" in shown and "**fails** `a`" not in shown
    assert "**fails** `c` — Statement C" in shown  # our own rows keep their verdict
    write(rows, tmp_path / "f.csv")
    assert [c.verdict for c in read(tmp_path / "f.csv")] == ["not reproduced", "fails"]
    merged = merge([tmp_path / "f.csv"], tmp_path / "l.csv", tmp_path / "l.md")
    assert [c.measured for c in merged] == [c.measured for c in read(tmp_path / "f.csv")]  # no second demotion


def test_committed_notebooks_print_the_committed_ledgers_verdicts():
    """Every executed notebook committed under results/<profile>/notebooks/ shows, for each ledger row it names in
    its "What we measured" (by its id), the verdict of figures/<profile>/claims.csv (a notebook that printed a
    builder's verdict the ledger overrules would fail here)."""
    import csv
    import json
    import re

    from paperlib import paths

    line = re.compile(r"^- \*\*(\w+)\*\* `([a-z0-9-]+)` — ", re.M)
    bare = re.compile(r"^- \*\*(holds|fails|partly|inconclusive|untestable)\*\* (?!`)", re.M)
    checked, wrong = 0, []
    for profile in ("paper", "quick"):
        ledger = paths.ROOT / "figures" / profile / "claims.csv"
        if not ledger.exists():
            continue
        verdicts = {r["claim"]: r["verdict"] for r in csv.DictReader(ledger.open())}
        for nbf in sorted((paths.ROOT / "results" / profile / "notebooks").glob("*.ipynb")):
            cells = json.loads(nbf.read_text())["cells"]
            text = "".join("".join(o.get("data", {}).get("text/markdown", "")) for c in cells
                           for o in c.get("outputs", []))
            for verdict in bare.findall(text):  # a verdict shown without the row it belongs to
                wrong.append(f"{profile}/{nbf.name} prints a {verdict!r} line without its ledger id")
            for verdict, cid in line.findall(text):
                if verdicts.get(cid) != verdict:
                    wrong.append(f"{profile}/{nbf.name} prints {verdict!r} for {cid}, the ledger "
                                 f"{verdicts.get(cid, 'has no such row')!r}")
                checked += 1
    assert checked > 0 and not wrong, "\n".join(wrong)


def test_no_committed_row_hides_a_failing_rule_under_another_verdict():
    """Issue 57: where a row's own rule says "fails" but nothing excludes our error, the verdict is "not reproduced"
    (never "inconclusive", which says the intervals allow both answers), and every such row names its open question."""
    from paperlib.ledger import NOT_REPRODUCED_LEAD, read
    from paperlib.paths import ROOT
    from paperlib.pipeline.config import COMMITTED

    ledgers = sorted((ROOT / "figures").glob("*/claims.csv"))  # from the repository root, wherever pytest runs
    assert {p.parent.name for p in ledgers} >= set(COMMITTED), ledgers
    for ledger in ledgers:
        for c in read(ledger):
            assert "Fails in our run" not in c.measured, (ledger, c.claim)
            assert (NOT_REPRODUCED_LEAD in c.measured) == (c.verdict == "not reproduced"), (ledger, c.claim, c.verdict)


UNIVERSAL_STATEMENT = re.compile(r"\b(?:on|at|for|in) every (?:real )?(?:matrix|matrices|dataset|budget|pool|test half|"
                                 r"setting|cell)\b|\bacross all\b|\bthroughout\b", re.I)
UNIVERSAL_RULE = re.compile(r"paperlib\.decide\.universal|intersection-union|every test needed", re.I)


@pytest.mark.parametrize("profile", ["paper", "quick"])
def test_every_universal_statement_is_graded_by_the_universal_rule(profile):
    """Issue 68, item 2: a statement made for every case ("on every matrix", "at every budget", "across all
    settings") holds only where every case is shown (paperlib.decide.universal, an intersection-union test); a row
    making one must say that its rule is that one. Rows graded by "shown somewhere, never contradicted" fail here."""
    path = ROOT / "figures" / profile / "claims.csv"
    if not path.exists():
        pytest.skip(f"no {profile} ledger")
    from paperlib.ledger import read

    # a row decided by construction is checked by its kind (tests/test_verdicts_by_construction.py); a row whose
    # builder still writes its verdict must at least name the universal rule
    bad = [r.claim for r in read(path) if not r.kind and UNIVERSAL_STATEMENT.search(r.statement)
           and r.verdict != "untestable" and not UNIVERSAL_RULE.search(f"{r.evidence} {r.measured}")]
    bad += [r.claim for r in read(path) if r.kind and UNIVERSAL_STATEMENT.search(r.statement)
            and r.kind not in ("universal", "bound", "equivalence", "exact", "theorem", "untestable")]
    assert not bad, f"universal statements graded by another rule: {bad}"
