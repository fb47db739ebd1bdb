"""notebooks/index.ipynb, a reader's way in (issue 69): current, listing every notebook, every link resolving."""

from __future__ import annotations

import json
import re
from pathlib import Path

from paperlib.pipeline.index import index_notebook, render

ROOT = Path(__file__).resolve().parent.parent


def test_the_committed_index_is_what_the_book_makes():
    assert (ROOT / "notebooks" / "index.ipynb").read_text() == render(index_notebook(ROOT)), (
        "notebooks/index.ipynb is stale: run python -m paperlib.pipeline.index")


def test_the_index_lists_every_notebook_and_its_links_resolve():
    nb = json.loads((ROOT / "notebooks" / "index.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"])
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        if path.stem != "index":
            assert f"`{path.stem}`" in text, f"the index does not list {path.name}"
    links = re.findall(r"\]\((\.{1,2}/[^)]+)\)", text)
    assert len(links) > 20
    for link in links:
        assert (ROOT / "notebooks" / link).resolve().exists(), f"the index links to {link}, which is not there"
    assert all(c["cell_type"] == "markdown" for c in nb["cells"])  # nothing to run, nothing to strip


def test_a_notebook_at_its_defaults_says_it_runs_at_smoke_size():
    """Issue 69, item 3: start() with no block (a notebook opened by hand) or the smoke profile's block marks the run
    smoke; its closing section tags every verdict '(smoke)' and repeats the banner; a profile's block does not."""
    from paperlib.ledger import Claim
    from paperlib.pipeline import notebook as nb
    from paperlib.pipeline.config import load_config, paper_config, smoke_config

    row = Claim("Zhou et al. 2025", "zhou-x", "a statement", "evidence", "measured", "holds")
    nb.start("zhou", None, threads=1)
    text = nb.what_we_measured([row]).data
    assert "**holds** (smoke)" in text and nb.SMOKE_BANNER in text and "at smoke size" in text
    nb.start("zhou", smoke_config("zhou"), threads=1)
    assert "(smoke)" in nb.what_we_measured([row]).data
    nb.start("zhou", paper_config(load_config("quick"), "zhou"), threads=1)
    text = nb.what_we_measured([row]).data
    assert "(smoke)" not in text and nb.SMOKE_BANNER not in text and "**holds** `zhou-x`" in text
