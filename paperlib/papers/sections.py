"""Where a ledger row says it is in its paper: the numbered sections of each paper's text (issue 57).

A row's title cites its place ("Smallest batch best (Sec. 4.5)"); :func:`cited` reads those citations and
:func:`sections` the headings of the paper's text, so that a test can check that every cited section exists (a row
once cited Zhou et al.'s Sec. 4.6, which the paper does not have). The texts are the ones in ``../shared/papers``
(``$PAPERLIB_PAPERS``, else the ``papers`` folder beside ``$PAPERLIB_DATA``); they are not shipped with the package.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..paths import DATA_ENV_VAR

#: the ledger's paper labels and the paperlib rows about a paper's settings -> that paper's text
PAPER_TEXTS = {
    "Zhou et al. 2025": "zhou2025_speeding_up_lm_eval_with_math.txt",
    "paperlib (Zhou settings)": "zhou2025_speeding_up_lm_eval_with_math.txt",
    "Tolochinsky et al. 2026 (PULSE)": "pulse_tolochinsky2026.txt",
    "paperlib (PULSE settings)": "pulse_tolochinsky2026.txt",
    "Saha et al. 2026 (ROBIN)": "robin_llm_judge_on_a_budget.txt",
    "paperlib (ROBIN settings)": "robin_llm_judge_on_a_budget.txt",
}
#: a heading line: optional Markdown hashes, a section number ("4", "4.5", "A.1"), a capitalised title
HEADING = re.compile(r"^(?:#+\s*)?((?:\d+|[A-Z])(?:\.\d+)*)\.?\s+[A-Z\[]")
#: a citation of a numbered section in a row's text
CITATION = re.compile(r"\b(?:Secs?\.|Section|App\.|Appendix)\s*((?:\d+|[A-Z])(?:\.\d+)*)(?![\w.]*\d)")
#: unnumbered sections a row may cite by name
NAMED = ("Introduction", "Abstract", "Conclusion")


def papers_dir() -> Path | None:
    """The folder of the papers' texts, or None where there is none."""
    env = os.environ.get("PAPERLIB_PAPERS")
    if env:
        return Path(env)
    data = os.environ.get(DATA_ENV_VAR)
    return Path(data).resolve().parent / "papers" if data else None


def sections(text: str) -> set[str]:
    """The section numbers of a paper's text (its short heading lines), and every prefix of each ("4" for "4.5")."""
    out: set[str] = set()
    for line in text.splitlines():
        line = line.strip()
        if len(line) > 200:  # a paragraph, not a heading
            continue
        m = HEADING.match(line)
        if m:
            parts = m.group(1).split(".")
            out.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
    return out


def cited(text: str) -> list[str]:
    """The numbered sections a row's text cites ("Sec. 4.5", "Secs. 4", "App. C.2")."""
    return CITATION.findall(text)


def cited_names(text: str) -> list[str]:
    """The unnumbered sections a row's text cites by name in its parenthesised place ("(Introduction; Sec. 3)")."""
    return [n for n in NAMED if re.search(rf"\((?:[^()]*[;,]\s*)?{n}\b", text)]
