"""LLM-as-Judge on a Budget (ROBIN / ROBIN-HOOD): pools, judge simulators, policies, simulation."""

from .judges import CategoricalJudge, GaussianJudge, Judge, PoolJudge, judge_from, synthetic_judge
from .policies import LABELS, POLICIES, ArmRequest, Robin, RobinHood, Uniform
from .pool import (
    JudgeDataError,
    JudgeDistribution,
    JudgePool,
    load_closerlook,
    load_llmrubric,
    load_pool_file,
)
from .simulate import JudgeResult, run_judge

__all__ = [
    "ArmRequest", "CategoricalJudge", "GaussianJudge", "Judge", "JudgeDataError", "JudgeDistribution",
    "JudgePool", "JudgeResult", "LABELS", "POLICIES", "PoolJudge", "Robin", "RobinHood", "Uniform",
    "judge_from", "load_closerlook", "load_llmrubric", "load_pool_file", "run_judge", "synthetic_judge",
]
