"""Is this run complete? Which datasets a profile needs, which are absent here, and where a run writes.

A profile's committed outputs (``figures/<profile>/``) are expected results: a run that lacks any dataset the
profile names writes to ``figures/<profile>-partial/`` (and ``results/``, ``logs/`` likewise) instead, so a poorer
run never overwrites them, and ends with :func:`report` saying what was skipped and how to get the data.
"""

from __future__ import annotations

from ..data.fetch import fetchable
from ..data.judge_pools import judge_data_available
from ..data.registry import entries
from ..data.registry import status as matrix_status

JUDGE_BLOCKS = {"closerlook": "closerlook_topicalchat", "llmrubric": "llmrubric_dist"}


def _selected(block: dict | None) -> bool:
    return bool(block) and all(v not in ([], None, "") for v in block.values())


def profile_datasets(cfg: dict) -> dict[str, list[str]]:
    """Every dataset with a file that the profile ``cfg`` uses -> the config keys that name it."""
    uses: dict[str, list[str]] = {}

    def add(name, key):
        e = entries().get(name, {})
        if e.get("file") or e.get("files"):
            uses.setdefault(name, []).append(key)

    for paper in ("zhou", "pulse", "search", "race"):
        for d in cfg.get(paper, {}).get("datasets", []):
            add(d, f"{paper}.datasets")
    for d in cfg.get("zhou", {}).get("ablation", {}).get("datasets", []):
        add(d, "zhou.ablation.datasets")
    for key, name in JUDGE_BLOCKS.items():
        if _selected(cfg.get("robin", {}).get(key)):
            add(name, f"robin.{key}")
    return uses


def present(name: str) -> bool:
    """The dataset's files are here (and, for matrices, verified)."""
    if entries()[name].get("format") == "judge":
        return judge_data_available(name)
    return matrix_status(name, verify=True) == "available"


def absent_datasets(cfg: dict) -> dict[str, list[str]]:
    """The datasets of :func:`profile_datasets` that are not present here."""
    return {d: keys for d, keys in profile_datasets(cfg).items() if not present(d)}


def output_tag(cfg: dict, absent: dict | None = None) -> str:
    """``<profile>`` when every dataset is present, else ``<profile>-partial`` (``absent``: a precomputed
    :func:`absent_datasets`)."""
    p = cfg["profile"]
    return p if not (absent_datasets(cfg) if absent is None else absent) else f"{p}-partial"


def report(cfg: dict, absent: dict | None = None) -> str:
    """End-of-run summary: what was skipped for want of data, where the outputs went, the commands that fix it
    (``absent``: a precomputed :func:`absent_datasets`)."""
    absent = absent_datasets(cfg) if absent is None else absent
    if not absent:
        return ""
    p = cfg["profile"]
    can = [d for d in absent if fetchable(d)]
    manual = [d for d in absent if d not in can]
    lines = [
        "", "=" * 78,
        f"paperlib: INCOMPLETE RUN of profile '{p}': {len(absent)} dataset(s) absent here; every target that needs "
        f"them was skipped or made without them.",
        f"  Outputs go to figures/{p}-partial/ (and results/, logs/ likewise); the committed figures/{p}/ "
        "were left untouched.",
        "  Skipped data (config keys that name it):",
    ]
    lines += [f"    - {d}: {', '.join(keys)}" for d, keys in absent.items()]
    if can:
        lines.append(f"  Get them with:  paperlib data fetch {' '.join(can)}")
    for d in manual:
        lines.append(f"  {d}: {entries()[d].get('obtain', 'see its PROVENANCE.md')}")
    lines.append("  (or point PAPERLIB_DATA at a folder that holds them), then rerun.")
    lines.append("=" * 78)
    return "\n".join(lines)
