"""LUCB with prior-assisted intervals (ours, issue 59): certified search that learns from past evaluations.

The rule is :class:`paperlib.policies.lucb.LUCB`'s (the leader and its most threatening open rivals, one interval per
model at delta / n); the intervals are :class:`paperlib.confseq_prior.PriorAssistedCS`: each model's mean from its
own scores plus predictions of its unseen examples, fitted on what the practitioner had before the first call:

* ``prior``: a (K, m) score matrix of other models on the same examples (a leaderboard; NaN where unscored). The
  examples' features are :func:`paperlib.prior.example_features` (intercept, the prior's column means, its leading
  singular vectors); each candidate's coefficients start at the prior's average model (predict the column mean) and
  are refitted on its own scores (ridge).
* ``predictions``: an (n, m) matrix of a user's predictions in [0, 1] (NaN where none: predicted by the model's
  other predictions' mean). The features are [1, p_ij]; the coefficients start at (0, 1) (the predictions as they
  are) and are recalibrated on the model's scores.

The certificate holds at level delta whatever the prior (the sequences are valid for any predictable predictions);
a useless prior makes the predictions' weight go to 0 and costs little. Each model's examples are drawn uniformly
without replacement, as :class:`paperlib.policies.lucb.LUCB` draws them, so a live study can run it.
"""

from __future__ import annotations

import numpy as np
import torch

from ..checks import check_scalar
from ..confseq_prior import PriorAssistedCS
from ..prior import check_predictions, check_prior, example_features
from .lucb import LUCB
from .registry import METHODS


class LUCBPrior(LUCB):
    """LUCB on prior-assisted intervals; see the module docstring.

    Parameters
    ----------
    prior : (K, m) array, optional
        Other models' scores on the same examples (values in [0, 1], NaN allowed).
    predictions : (n, m) array, optional
        A predictor's scores for the candidates (exactly one of ``prior`` and ``predictions``).
    rank : int
        Singular vectors of the prior kept as features (default 8).
    ridge : float
        Weight of the starting coefficients in the refits, in observations (default 4).
    delta, epsilon, batch_size : as :class:`paperlib.policies.lucb.LUCB`.
    """

    name = "lucb-prior"
    uniform_within_row = True
    _one_unit_rule = True

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, delta: float = 0.05, epsilon: float = 0.0,
                 batch_size: int = 1, prior=None, predictions=None, rank: int = 8, ridge: float = 4.0):
        super().__init__(n, m, budget, reps, seed, device, delta, epsilon, batch_size)
        if (prior is None) == (predictions is None):
            raise ValueError("lucb-prior needs exactly one of prior (other models' scores on the examples) and "
                             "predictions (a predictor's scores for these models); without either, use lucb")
        self.rank = check_scalar(rank, "rank", int, low=0)
        self.ridge = check_scalar(ridge, "ridge", float, low=0.0, closed="neither")
        if prior is not None:
            Q = check_prior(prior, self.m)
            F = example_features(Q, self.rank)
            beta0 = np.zeros(F.shape[1])
            beta0[1] = 1.0  # the prior's average model: predict each example's column mean
        else:
            P = check_predictions(predictions, self.n, self.m)
            fill = np.nanmean(P, axis=1, keepdims=True)
            fill = np.where(np.isnan(fill), 0.5, fill)
            P = np.where(np.isnan(P), fill, P)
            F = np.stack([np.ones_like(P), P], axis=-1)  # (n, m, 2)
            beta0 = np.tile([0.0, 1.0], (self.n, 1))
        self.cs = PriorAssistedCS(self.reps, self.n, self.m, self.delta / self.n, torch.as_tensor(F),
                                  torch.as_tensor(beta0), ridge=self.ridge, device=self.device)
        self.sums = self.cs.sum

    def _update(self, rows, cols, scores):
        flat = (self._flat_base + rows).view(-1)
        self.counts.view(-1).index_add_(0, flat, torch.ones_like(flat))
        self.cs.update(rows, cols, scores.double())
        self._steps += 1


def resolve_prior(method: str, prior, predictions, n: int, m: int) -> tuple[str, dict]:
    """``method`` as a prior makes it (``auto`` and ``lucb`` with a prior or predictions run ``lucb-prior``) and the
    checked data it takes; a prior with a method that cannot use it is refused, never ignored."""
    if prior is None and predictions is None:
        if method in METHODS and METHODS[method].takes_prior:
            raise ValueError(f"method {method} needs a prior (other models' scores on the examples) or predictions")
        return method, {}
    if prior is not None and predictions is not None:
        raise ValueError("give a prior or predictions, not both")
    if method in ("auto", "lucb"):
        method = "lucb-prior"
    if method not in METHODS or not METHODS[method].takes_prior:
        raise ValueError(f"a prior or predictions apply to lucb-prior (or auto), not {method}")
    if prior is not None:
        return method, {"prior": check_prior(prior, m)}
    return method, {"predictions": check_predictions(predictions, n, m)}
