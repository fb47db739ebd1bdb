"""Data layer: score matrices and judge pools, the one dataset registry, generators and builders."""

from .judge_pools import (
    JudgeDataError,
    JudgeDistribution,
    JudgePool,
    closerlook_cells,
    judge_data_available,
    llmrubric_cells,
    load_closerlook,
    load_llmrubric,
    load_pool_file,
)
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
    "JudgeDataError",
    "JudgeDistribution",
    "JudgePool",
    "closerlook_cells",
    "judge_data_available",
    "llmrubric_cells",
    "load_closerlook",
    "load_llmrubric",
    "load_pool_file",
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
