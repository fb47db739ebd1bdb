"""Ask/tell policies batched over repetitions, and the method registry used by the CLI."""

from __future__ import annotations

from .base import (
    AlreadyToldError,
    BudgetExhaustedError,
    PendingRequestError,
    Policy,
    PolicyError,
    Request,
    UnknownRequestError,
)
from .baselines import FilledSubset, RowMeanImputation
from .lrf import LowRankEnsemble
from .pulse import PULSE, NaivePooling, UCBEBackbone
from .ucbe import UCBE
from .ucbe_lrf import LRF, UCBELRF, UCBELRFScoreOnly

METHODS: dict[str, type[Policy]] = {
    "ucbe": UCBE,
    "ucbe-lrf": UCBELRF,
    "ucbe-lrf-score-only": UCBELRFScoreOnly,
    "row-mean": RowMeanImputation,
    "filled-subset": FilledSubset,
    "lrf": LRF,
    "pulse": PULSE,
    "naive-pooling": NaivePooling,
    "ucbe-batch": UCBEBackbone,
}

LABELS = {
    "ucbe": "UCB-E",
    "ucbe-lrf": "UCB-E-LRF",
    "ucbe-lrf-score-only": "UCB-E-LRF (Score Only)",
    "row-mean": "Row Mean Imputation",
    "filled-subset": "Filled Subset",
    "lrf": "LRF",
    "pulse": "PULSE",
    "naive-pooling": "Naive-Pooling",
    "ucbe-batch": "UCB-E (batched, PULSE backbone)",
}


def make_policy(method: str, n: int, m: int, budget: int, reps: int = 1, seed: int = 0, device=None, **params) -> Policy:
    """Instantiate a policy by its CLI name with method-specific ``params``."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    return METHODS[method](n, m, budget, reps=reps, seed=seed, device=device, **params)


__all__ = [
    "LABELS",
    "LRF",
    "METHODS",
    "UCBE",
    "UCBELRF",
    "AlreadyToldError",
    "BudgetExhaustedError",
    "FilledSubset",
    "LowRankEnsemble",
    "PendingRequestError",
    "Policy",
    "PolicyError",
    "Request",
    "RowMeanImputation",
    "UCBELRFScoreOnly",
    "UnknownRequestError",
    "make_policy",
]
