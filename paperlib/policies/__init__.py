"""Every ask/tell policy, batched over repetitions, and the one registry of methods.

Best-method identification on a score matrix (:class:`Request` of (row, column) pairs):
UCB-E, UCB-E-LRF and its Score-Only ablation, Row Mean Imputation, Filled Subset, LRF
(Zhou et al. 2025); PULSE, Naive-Pooling and UCB-E on the batched PULSE backbone
(Tolochinsky et al. 2026). Allocation of repeated judge queries (:class:`ArmRequest` of items):
Uniform, ROBIN, ROBIN-HOOD (Saha et al. 2026).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .registry import JUDGE, MATRIX, METHODS, MethodSpec, Param, label, method_id, names, parse

#: The classes, imported (with torch) on first use: ``from paperlib.policies import PULSE`` works as before, and the
#: registry alone (``paperlib --help``, ``--version``) imports no torch.
_LAZY = {
    **dict.fromkeys(("AllocationPolicy", "ArmRequest", "Robin", "RobinHood", "Uniform"), "allocation"),
    **dict.fromkeys(("AlreadyToldError", "BudgetExhaustedError", "PendingRequestError", "Policy", "PolicyError",
                     "Request", "UnknownRequestError", "check_budget"), "base"),
    **dict.fromkeys(("FilledSubset", "RowMeanImputation"), "baselines"),
    **dict.fromkeys(("PULSE", "NaivePooling", "UCBEBackbone"), "pulse"),
    **dict.fromkeys(("SySH", "SySRs", "UCBESync"), "sysrs"),
    "UCBE": "ucbe",
    **dict.fromkeys(("LRF", "UCBELRF", "UCBELRFScoreOnly"), "ucbe_lrf"),
}


if TYPE_CHECKING:
    from .base import Policy


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_policy(method: str, n: int, m: int, budget: int, reps: int = 1, seed: int = 0, device=None, **params) -> Policy:
    """Instantiate a best-method identification policy by method id.

    ``params`` are checked against the method's declared parameters (:attr:`MethodSpec.params`) before any work:
    a parameter the method does not take, or a value out of its range, is refused.
    """
    name, variant = parse(method)
    spec = METHODS[name]
    if spec.kind != MATRIX:
        raise ValueError(f"{method!r} allocates judge queries; use paperlib.simulate.run_judge or its class")
    clash = sorted(k for k in variant if k in params and params[k] != variant[k])
    if clash:
        raise ValueError(f"{method!r} fixes {', '.join(clash)}; do not pass a different value")
    from .base import check_budget

    checked = spec.check_params({**variant, **params}, budget=check_budget(budget, n, m))
    return spec.cls(n, m, budget, reps=reps, seed=seed, device=device, **checked)


def resolved_params(method: str, params: dict) -> dict:
    """Every parameter a run of ``method`` uses: the declared defaults, the id's variant, then ``params``."""
    name, variant = parse(method)
    return {**METHODS[name].defaults(), **variant, **params}


__all__ = [
    "JUDGE", "LRF", "MATRIX", "METHODS", "PULSE", "UCBE", "UCBELRF", "AllocationPolicy", "AlreadyToldError",
    "ArmRequest", "BudgetExhaustedError", "FilledSubset", "MethodSpec", "NaivePooling", "Param", "PendingRequestError",
    "Policy", "PolicyError", "Request", "Robin", "RobinHood", "RowMeanImputation", "SySH", "SySRs", "UCBEBackbone", "UCBESync",
    "UCBELRFScoreOnly", "Uniform", "UnknownRequestError", "label", "make_policy", "method_id", "names", "parse", "resolved_params",
]
