"""Hand-made ledger rows for the tests: every row declares a kind and cases (issue 73: a :class:`paperlib.ledger.Claim`
without one is refused), so a test that needs a row with a given verdict builds the cases that make it.

The cases are exact checks (one true case: holds; one false case: fails), two universal cases (one shown, one not:
partly; neither: inconclusive) or none (untestable); :func:`paperlib.ledger.decided` then writes a paper's fails as
``not reproduced`` unless the evidence names what excludes our error, as for every row.
"""

from paperlib.decide import Case, exact_case
from paperlib.ledger import decided


def cases_for(verdict: str) -> tuple[str, list]:
    """(kind, cases) that :func:`paperlib.decide.decide` turns into ``verdict`` (``not reproduced``: a fails)."""
    if verdict in ("holds", "fails", "not reproduced"):
        return "exact", [exact_case("case", "real", verdict == "holds")]
    if verdict == "partly":
        return "universal", [Case("a", "real", p_for=0.001), Case("b", "real", p_for=0.5)]
    if verdict == "inconclusive":
        return "universal", [Case("a", "real", p_for=0.5), Case("b", "real", p_for=0.5)]
    if verdict == "untestable":
        return "untestable", []
    raise ValueError(f"no cases make {verdict!r}")


def row(paper: str, claim: str, verdict: str, statement: str = "s", evidence: str = "[real] e",
        measured: str = "m (95% CI 0-1)"):
    """A row of ``paper`` with id ``claim`` whose cases decide ``verdict`` (a paper's fails is ``not reproduced``
    unless ``evidence`` excludes our error)."""
    kind, cases = cases_for(verdict)
    return decided(paper, claim, statement, evidence, measured, kind, cases)
