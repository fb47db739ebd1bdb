"""Simulators: drive a policy through ask/tell against known scores, R repetitions at once.

matrix   a best-method policy against a complete score matrix (:func:`simulate`)
judge    an allocation policy against a judge simulator (:func:`run_judge`)
judges   judge simulators: resampling stored judgments, exact categorical, Gaussian, synthetic
"""

from .judge import JudgeResult, run_judge
from .judges import CategoricalJudge, GaussianJudge, Judge, PoolJudge, judge_from, synthetic_judge
from .matrix import SimResult, budgets_from_fracs, simulate

__all__ = ["CategoricalJudge", "GaussianJudge", "Judge", "JudgeResult", "PoolJudge", "SimResult",
           "budgets_from_fracs", "judge_from", "run_judge", "simulate", "synthetic_judge"]
