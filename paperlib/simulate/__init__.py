"""Simulators: drive a policy through ask/tell against known scores, R repetitions at once.

identification_run  a best-method identification policy against a complete score matrix (:func:`simulate`)
allocation_run      a judge-query allocation policy against a judge simulator (:func:`run_judge`)
judges              judge simulators: resampling stored judgments, exact categorical, Gaussian, synthetic
"""

from .allocation_run import JudgeResult, run_judge
from .identification_run import SimResult, budgets_from_fracs, simulate
from .judges import CategoricalJudge, GaussianJudge, Judge, PoolJudge, judge_from, synthetic_judge

__all__ = ["CategoricalJudge", "GaussianJudge", "Judge", "JudgeResult", "PoolJudge", "SimResult",
           "budgets_from_fracs", "judge_from", "run_judge", "simulate", "synthetic_judge"]
