"""Decision rules of the ledger rows of the ledger itself (uncertainty, attribution, README quotes): each claim builder's thresholds on hand-made tables.

The expected verdicts follow from the papers' wording as encoded in the thresholds (e.g. "5-15% of
the budget" -> precision 1 reached by 15%), not from the code's own output.
"""

import re
from pathlib import Path

import pytest
from ledger_rows import row

ROOT = Path(__file__).resolve().parents[1]


def test_a_row_without_a_kind_of_statement_cannot_be_made():
    """Issue 73: a verdict is decided, never written. A row that declares no kind is refused, and so is a kind whose
    cases decide another verdict than the one given."""
    from paperlib.decide import exact_case
    from paperlib.ledger import Claim

    with pytest.raises(ValueError, match="no kind of statement"):
        Claim("Some et al.", "a", "s", "[real] e", "m (95% CI 0-1)", "holds")
    with pytest.raises(ValueError, match="decided by paperlib.decide"):
        Claim("Some et al.", "a", "s", "[real] e", "m (95% CI 0-1)", "holds", "exact", "",
              (exact_case("x", "real", False),))
    ok = Claim("Some et al.", "a", "s", "[real] e", "m (95% CI 0-1)", "not reproduced", "exact", "",
               (exact_case("x", "real", False),))
    assert ok.verdict == "not reproduced"


def test_every_ledger_row_must_state_its_uncertainty(tmp_path):
    from paperlib.ledger import merge, states_uncertainty, write

    bare = row("p", "c", "partly", evidence="[real] counted", measured="3/4 cells")
    assert not states_uncertainty(bare)
    assert states_uncertainty(row("p", "c", "untestable", evidence="[none]", measured="-"))
    assert states_uncertainty(row("p", "c", "partly", evidence="[real] counted", measured="0.31 (95% CI 0.29-0.33)"))
    write([bare], tmp_path / "f.csv")
    with pytest.raises(ValueError, match="without an interval"):
        merge([tmp_path / "f.csv"], tmp_path / "l.csv", tmp_path / "l.md")


def test_a_paper_row_fails_only_when_the_evidence_excludes_our_error(tmp_path):
    """The ledger charges a failure to a paper only with a check that rules out ours; paperlib rows keep theirs."""
    from paperlib.ledger import EXCLUDES, merge, write

    rows = [row("Some et al.", "a", "fails", evidence="[real] runs; exact", measured="m"),
            row("Some et al.", "b", "fails", evidence=f"[real] runs; exact; {EXCLUDES} the authors' code on the same data",
                measured="m"),
            row("paperlib (race)", "c", "fails", evidence="[real] runs; exact", measured="m"),
            row("Some et al.", "d", "holds", evidence="[real] runs; exact", measured="m")]
    write(rows, tmp_path / "f.csv")
    got = {c.claim: c for c in merge([tmp_path / "f.csv"], tmp_path / "l.csv", tmp_path / "l.md")}
    assert got["a"].verdict == "not reproduced" and "what would exclude our error" in got["a"].measured
    assert [got[k].verdict for k in "bcd"] == ["fails", "fails", "holds"]


def test_a_row_id_is_its_own_html_anchor():
    """Sphinx turns any character but letters, digits and hyphens into a hyphen in an anchor, so a link to an id
    with a dot would miss its row: such an id is refused when the row is made."""
    import pytest

    from paperlib.ledger import key

    row("p", "search-lucb-within-1-5x-oracle", "holds")
    with pytest.raises(ValueError, match="claim id"):
        row("p", "search-lucb-within-1.5x-oracle", "holds")
    with pytest.raises(ValueError, match="claim id"):
        row("p", "Upper-Case", "holds")
    assert key("GPT-4o (judge) v1.5") == "gpt-4o-judge-v1-5"


def test_a_notebook_and_its_fragment_print_the_ledgers_verdict(tmp_path):
    """One rule decides what a reader sees (issue 39): a paper's "fails" without a check that excludes our error is
    "not reproduced" in the notebook's "What we measured", in the fragment it writes and in the merged ledger alike
    (issue 57: never "inconclusive", which says the intervals allow both answers)."""
    from paperlib.ledger import merge, read, write
    from paperlib.pipeline.notebook import what_we_measured

    rows = [row("Some et al.", "a", "fails", "Statement A", "[real] runs; exact", "m"),
            row("paperlib (race)", "c", "fails", "Statement C", "[real] runs; exact", "m")]
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


def test_the_tallies_split_holds_into_theory_and_empirical_statements():
    """Issue 73, item 4: a paper's holds are split by kind of statement (exact checks and theorems are theory; every
    other kind empirical), in the README's variables and on the landing page; the split adds up to the holds."""
    import pandas as pd

    from paperlib.decide import Case
    from paperlib.ledger import decided
    from paperlib.pipeline.book_cards import holds_split
    from paperlib.pipeline.variables import ledger_values

    empirical = decided("Zhou et al. 2025", "e", "s", "[real] e", "m", "universal", [Case("a", "real", p_for=0.001)])
    rows = [row("Zhou et al. 2025", "t", "holds"), empirical, row("Zhou et al. 2025", "f", "partly")]
    assert [c.verdict for c in rows] == ["holds", "holds", "partly"]
    v = ledger_values(pd.DataFrame([c.__dict__ for c in rows]), "x")
    assert (v["x_zhou_holds"], v["x_zhou_holds_theory"], v["x_zhou_holds_empirical"]) == ("2", "1", "1")
    assert "Zhou et al. 2025 2 (1 empirical, 1 theory)" in holds_split(rows, ["Zhou et al. 2025"])
    assert holds_split(rows[2:], ["Zhou et al. 2025"]) == ""  # no holds: nothing to split
    committed = pd.read_csv(ROOT / "figures" / "paper" / "claims.csv")
    w = ledger_values(committed, "paper")
    for key in ("zhou", "pulse", "robin"):
        assert int(w[f"paper_{key}_holds_theory"]) + int(w[f"paper_{key}_holds_empirical"]) == int(w[f"paper_{key}_holds"])
