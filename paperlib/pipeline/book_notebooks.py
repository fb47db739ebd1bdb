"""The committed executed notebooks of the book (:mod:`paperlib.pipeline.book`): which ones get a page, how a page is
prepared (code folded, machine paths removed) and how a notebook is committed at display size
(``python -m paperlib.pipeline.book --compact``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from .book_text import scrub, shorten

STRUCTURE = Path(__file__).with_name("book.yaml")


def has_outputs(nb_path: Path) -> bool:
    nb = json.loads(nb_path.read_text())
    return any(c.get("outputs") for c in nb.get("cells", []) if c.get("cell_type") == "code")


def prepare_notebook(src: Path, dest: Path) -> None:
    """A committed executed notebook for the book: code folded, machine paths removed, links to files that are
    not pages made plain text."""
    nb = json.loads(src.read_text())
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            tags = cell.setdefault("metadata", {}).setdefault("tags", [])
            if "hide-input" not in tags:
                tags.append("hide-input")
            cell["outputs"] = [o for o in cell.get("outputs", []) if not _path_repr(o)]
            for o in cell.get("outputs", []):
                if "text" in o:
                    o["text"] = [scrub(t) for t in o["text"]] if isinstance(o["text"], list) else scrub(o["text"])
                for mime in ("text/plain", "text/markdown", "text/html"):
                    if mime in o.get("data", {}):
                        v = o["data"][mime]
                        o["data"][mime] = [scrub(t) for t in v] if isinstance(v, list) else scrub(v)
        elif cell.get("cell_type") == "markdown":
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = re.sub(r"\[([^\]]+)\]\((?!https?:|#)([^)]+)\)", r"\1 (`\2`)", scrub(text))
    dest.write_text(json.dumps(nb, indent=1))


_PATH_REPR = re.compile(r"^(?:\w*Path|SavedPath)\(['\"][^'\"]*['\"]\)$")


def _path_repr(output: dict) -> bool:
    """A cell's value that is only a path's Python repr (``PosixPath('figures/...')``, what a notebook cell ending in
    ``save_figure(...)`` displayed before it returned a quiet path): noise to a reader, dropped from the book."""
    if output.get("output_type") != "execute_result":
        return False
    data = output.get("data", {})
    text = data.get("text/plain", "")
    text = "".join(text) if isinstance(text, list) else text
    return set(data) == {"text/plain"} and bool(_PATH_REPR.match(text.strip()))


def shown_notebooks() -> set[str]:
    """The summary notebooks the book gives a page: committed executed, with their outputs (each under 1 MB). Every
    other committed executed notebook is a per-dataset job, committed stripped (``make strip-notebooks``)."""
    structure = yaml.safe_load(STRUCTURE.read_text())
    return {s["notebook"] for ch in structure["chapters"] for s in ch["sections"] if s.get("notebook")}


NOTEBOOK_BYTES = 950_000  # the budget of a committed executed notebook (under 1 MB)


def _integral_floats_as_ints(x):
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, dict):
        return {k: _integral_floats_as_ints(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_integral_floats_as_ints(v) for v in x]
    return x


def as_jupyter_writes(nb: dict) -> str:
    """A notebook's text as Jupyter's server saves it (issue 69: opening and saving an untouched executed notebook
    changes no byte): nbformat's own layout (sorted keys, one-space indent, a final newline), and numbers as the
    browser hands them back, where 1.0 is 1 (papermill records the parameters' floats, e.g. ``a: 1.0``)."""
    import nbformat

    return nbformat.writes(nbformat.from_dict(_integral_floats_as_ints(nb))) + "\n"


VERDICTS_TAG = "verdicts"


def verdict_table(nb: dict, ledger) -> str | None:
    """A one-line-per-row list of the verdicts (verdict, statement, row id) of the rows an executed notebook wrote
    (the ids in its "What we measured" output), as the ledger ``ledger`` grades them; None when it names none."""
    import pandas as pd

    text = ""
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []):
            md = o.get("data", {}).get("text/markdown", "")
            md = "".join(md) if isinstance(md, list) else md
            if "What we measured" in md:
                text = md
    ids = list(dict.fromkeys(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", text)))
    if not ids or not Path(ledger).exists():
        return None
    t = pd.read_csv(ledger).set_index("claim")
    rows = [(i, t.loc[i, "verdict"], t.loc[i, "statement"]) for i in ids if i in t.index]
    if not rows:
        return None
    lines = [f"**Verdicts.** This notebook's rows as the ledger grades them (`figures/{Path(ledger).parent.name}/claims.csv`); "
             "the evidence and the rule of each are in \"What we measured\" at the end.", ""]
    # a list, not a table: at 1280 px JupyterLab gave a three-column table's statement 92-187 px beside the long ids
    # in code font (issue 73, item 5); statements cut at a word with an ellipsis (issue 75: 41 of 104 were cut
    # mid-word)
    lines += [f"- **{v}**: {shorten(str(st), 200)} (`{i}`)" for i, v, st in rows]
    return "\n".join(lines)


def add_verdicts(nb: dict, ledger) -> None:
    """Put (or refresh) the verdict table after the notebook's first cell (its title), so that a reader meets the
    provenance and the verdicts first (issue 69, item 5)."""
    cells = [c for c in nb.get("cells", []) if VERDICTS_TAG not in c.get("metadata", {}).get("tags", [])]
    table = verdict_table({**nb, "cells": cells}, ledger)
    if table:
        cells.insert(1, {"cell_type": "markdown", "id": "verdicts", "metadata": {"tags": [VERDICTS_TAG]},
                         "source": table})
    nb["cells"] = cells


def compact_notebook(path: Path, budget: int = NOTEBOOK_BYTES) -> int:
    """Commit an executed notebook at display size: its inline PNGs scaled to at most 1100 pixels wide and stored
    with an adaptive palette (256 colours; fewer colours and pixels, down to 900 wide and 64 colours, only if the
    notebook would exceed ``budget`` bytes), machine paths removed from the text outputs. Rewrites ``path``;
    returns its new size in bytes."""
    import base64
    import io

    from PIL import Image

    nb = json.loads(Path(path).read_text())
    profile = Path(path).resolve().parent.parent.name  # results/<profile>/notebooks/<name>.ipynb
    add_verdicts(nb, Path(path).resolve().parents[3] / "figures" / profile / "claims.csv")
    images = []
    for cell in nb.get("cells", []):
        if {"parameters", "injected-parameters"} & set(cell.get("metadata", {}).get("tags", [])):
            # the parameters collapsed in JupyterLab (issue 69): papermill's injected cell runs to thousands of
            # characters on one line
            cell["metadata"].setdefault("jupyter", {})["source_hidden"] = True
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            if "image/png" in data:
                raw = data["image/png"]
                images.append((data, Image.open(io.BytesIO(base64.b64decode("".join(raw) if isinstance(raw, list)
                                                                          else raw))).convert("RGB")))
                o.setdefault("metadata", {}).pop("image/png", None)
            for key in ("text/plain", "text/markdown"):
                if key in data:
                    v = data[key]
                    data[key] = [scrub(x) for x in v] if isinstance(v, list) else scrub(v)
            if "text" in o:
                o["text"] = [scrub(x) for x in o["text"]] if isinstance(o["text"], list) else scrub(o["text"])
    for width, colours in ((1100, 256), (1000, 128), (900, 64)):
        for data, im in images:
            if im.width > width:
                im = im.resize((width, round(im.height * width / im.width)), Image.LANCZOS)
            buf = io.BytesIO()
            im.quantize(colours, method=Image.Quantize.MEDIANCUT).save(buf, format="PNG", optimize=True)
            data["image/png"] = base64.b64encode(buf.getvalue()).decode() + "\n"
        text = as_jupyter_writes(nb)
        if len(text.encode()) <= budget:
            break
    Path(path).write_text(text)
    return Path(path).stat().st_size
