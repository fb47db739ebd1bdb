"""Build the stored matrices from their upstream source files (offline-testable).

The upstream files are pinned by commit; :data:`ALPACAEVAL_URL` and :data:`FACTORS_URL` give
where each comes from. Nothing here downloads: fetch the files yourself (network permitting)
and pass their paths.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ALPACAEVAL_COMMIT = "cd543a149df89434d8a54582c0151c0b945c3d20"
ALPACAEVAL_URL = (
    "https://raw.githubusercontent.com/tatsu-lab/alpaca_eval/"
    + ALPACAEVAL_COMMIT
    + "/results/{model}/weighted_alpaca_eval_gpt4_turbo/annotations.json"
)
ALPACAEVAL_BASELINE = "gpt4_1106_preview"
FACTORS_COMMIT = "857ee18607bd9c84e90431ce0b8f36fc3f72ae68"
FACTORS_URL = (
    "https://raw.githubusercontent.com/skbwu/efficiently-evaluating-llms/"
    + FACTORS_COMMIT
    + "/factor_models/final/{suite}/{file}"
)


def alpacaeval_win_scores(annotations: list[dict], baseline: str = ALPACAEVAL_BASELINE) -> dict[str, float]:
    """Per-instruction win score of the non-baseline model, in [0, 1].

    ``preference`` in [1, 2] is the judge's preference for ``output_2``; the model's score is
    ``preference - 1`` when the baseline is ``generator_1`` and ``2 - preference`` when it is
    ``generator_2``. Missing or out-of-range preferences give NaN.
    """
    out = {}
    for a in annotations:
        pref = a.get("preference")
        if a.get("generator_1") == baseline:
            score = None if pref is None else pref - 1.0
        elif a.get("generator_2") == baseline:
            score = None if pref is None else 2.0 - pref
        else:
            raise ValueError(f"annotation without the baseline {baseline!r}: {a.get('generator_1')}, {a.get('generator_2')}")
        if score is None or not (0.0 <= score <= 1.0):
            score = float("nan")
        out[a["instruction"]] = float(score)
    return out


def build_alpacaeval(files: dict[str, Path], min_annotations: int = 795) -> dict[str, np.ndarray]:
    """Assemble the AlpacaEval-2 matrix from per-model annotation files.

    Parameters
    ----------
    files : dict model name -> path of ``annotations.json``
    min_annotations : models with fewer annotations are skipped.

    Returns
    -------
    dict with ``scores`` (float32, NaN = missing), ``row_ids`` (models sorted by name),
    ``col_ids`` (instructions in the order of the first complete file).
    """
    per_model, order = {}, None
    for model in sorted(files):
        ann = json.loads(Path(files[model]).read_text())
        if len(ann) < min_annotations:
            continue
        per_model[model] = alpacaeval_win_scores(ann)
        if order is None and len(ann) == 805:
            order = [a["instruction"] for a in ann]
    if not per_model:
        raise ValueError("no model file had enough annotations")
    if order is None:
        order = list(next(iter(per_model.values())))
    rows = sorted(per_model)
    scores = np.array([[per_model[r].get(c, np.nan) for c in order] for r in rows], dtype=np.float32)
    keep = ~np.isnan(scores).all(axis=1)
    return dict(scores=scores[keep], row_ids=np.array(rows)[keep], col_ids=np.array(order))


def build_factors(u_path: Path, v_path: Path) -> dict[str, np.ndarray]:
    """Convert the upstream torch-saved factor Parameters to float32 arrays ``U`` and ``V``."""
    import torch

    u = torch.load(u_path, map_location="cpu", weights_only=True)
    v = torch.load(v_path, map_location="cpu", weights_only=True)
    return dict(U=u.detach().float().numpy(), V=v.detach().float().numpy())
