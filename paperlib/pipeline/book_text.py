"""Text helpers of the book (:mod:`paperlib.pipeline.book`): ledger text as literal Markdown, machine paths removed,
captions filled from the profile, long text shortened at a word, the ledger read back."""

from __future__ import annotations

import re
from pathlib import Path

from ..ledger import Claim

MACHINE_PATH = re.compile(r"(/tmp/|/work/|/home/|/root/|/Users/)")  # what a reader must never see
_ABS_PATH = re.compile(r"(?:/(?:tmp|work|home|root|Users|private|var|mnt|scratch)/[^\s'\"<>()\[\]]*?/)"
                       r"(?=(?:results|figures|notebooks|paperlib|logs|data|site|tests)/)")


class BookError(RuntimeError):
    """The book cannot be built from what is committed; the message names the missing piece."""


def cited_notebooks(c: Claim) -> list[str]:
    """The notebooks a row's evidence names (``notebooks/<name>.ipynb``), in order."""
    return re.findall(r"notebooks/([\w\-]+)\.ipynb", c.evidence)


def md_escape(text: str) -> str:
    """Ledger text as literal Markdown: no emphasis, link, HTML, heading or block quote is made by accident."""
    text = str(text).replace("\\", "\\\\")
    text = re.sub(r"([*_`\[\]<>#|~$])", r"\\\1", text)
    return text.replace("\n", " ")


def scrub(text: str) -> str:
    """Remove the machine-specific root before a repository path (``/tmp/run/results/x`` -> ``results/x``)."""
    return _ABS_PATH.sub("", text)


def _cfg(config: dict | None, dotted: str) -> str:
    node = config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            raise BookError(f"book.yaml: caption refers to {{cfg:{dotted}}}, which the profile does not set")
        node = node[part]
    return str(node)


def fill(text: str, config: dict | None) -> str:
    """Captions' values from the profile: ``{cfg:a.b}`` must be set; ``{cfg?a.b|, @ for X}`` is written (the
    value in place of ``@``) only if it is."""
    def optional(m):
        try:
            return m.group(2).replace("@", _cfg(config, m.group(1)))
        except BookError:
            return ""

    text = re.sub(r"\{cfg\?([\w.\-]+)\|([^}]*)\}", optional, text)
    return re.sub(r"\{cfg:([\w.\-]+)\}", lambda m: _cfg(config, m.group(1)), text)


def load_claims(csv: Path) -> list[Claim]:
    """The ledger's rows, checked (:func:`paperlib.ledger.read`: a broken file is one line naming the file, the row
    and the problem)."""
    from ..ledger import read

    return read(csv)


def shorten(text: str, limit: int = 240) -> str:
    """``text`` cut at the last word boundary before ``limit`` characters, with an ellipsis (never mid-word)."""
    text = str(text)
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + " …"
