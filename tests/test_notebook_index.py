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
