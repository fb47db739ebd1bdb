"""Data layer: score matrices, the dataset registry, generators and builders."""

from .matrix import KINDS, ScoreMatrix, ScoreMatrixError, load_npz, validate_scores
from .registry import (
    DatasetNotFoundError,
    available,
    available_datasets,
    info,
    load,
    locate,
    registry,
)
from .synthetic import factor_bernoulli, low_rank_logistic

__all__ = [
    "KINDS",
    "DatasetNotFoundError",
    "ScoreMatrix",
    "ScoreMatrixError",
    "available",
    "available_datasets",
    "factor_bernoulli",
    "info",
    "load",
    "load_npz",
    "locate",
    "low_rank_logistic",
    "registry",
    "validate_scores",
]
