"""Low-rank models of score matrices, shared by the policies and the papers.

logistic   the low-rank logistic model of PULSE (Tolochinsky et al. 2026, Eq. 1): full fits,
           sparse warm-started refits of U with V frozen, k-fold cross-validation
ensemble   the ALS ensemble of UCB-E-LRF (Zhou et al. 2025, Eq. 1-2): predictions and their spread
"""

from .ensemble import LowRankEnsemble
from .logistic import (
           FitConfig,
           cross_validate,
           fit_factors,
           objective,
           refit_rows,
           refit_rows_sparse,
)

__all__ = ["FitConfig", "LowRankEnsemble", "cross_validate", "fit_factors", "objective", "refit_rows",
           "refit_rows_sparse"]
