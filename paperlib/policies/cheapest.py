"""The cheapest good model, certified (ours; issue 42): which is the cheapest model as good as the best, within epsilon?

Each model i has a price per call c_i and an anytime-valid interval [L_i, U_i] on its mean (the without-replacement
sequence of :class:`paperlib.confseq.WoRMeanCS` at delta / n: on an event of probability >= 1 - delta every interval
holds at every step). Write U* = max_j U_j and L* = max_j L_j, so L* <= mu* <= U* on that event.

* **Ruled out**: model j with U_j < L* - (epsilon - gamma) has mu_j < mu* - (epsilon - gamma): it is not
  (epsilon - gamma)-good.
* **Ruled in**: model i with L_i >= U* - epsilon has mu_i >= mu* - epsilon: it is epsilon-good.
* **Certificate**: in price order (ties by index), the first model not ruled out is ruled in. Then it is
  epsilon-good, and every cheaper model is not (epsilon - gamma)-good, so no model cheaper than it is within
  epsilon - gamma of the best: with gamma = epsilon / 2 (the default), the certified model is epsilon-good and no
  dearer than the cheapest epsilon/2-good model, with probability >= 1 - delta (union bound; anytime validity makes
  stopping at the first certified step safe). The answer need not be the best model, and the best model need not be
  known: its mean is only bounded, from below by the leader's L* and from above by U*.

**Where the calls go** (a dollar where it buys the most toward the certificate): the candidate k (the cheapest model
not ruled out) is either ruled in, by raising L_k or lowering U*, or ruled out, by lowering U_k or raising L*. The
step's calls go to the three models that move these bounds (k, the model with the highest upper bound, the one with
the highest lower bound), in proportion to how fast a dollar narrows each one's interval: an interval's width w_i
shrinks like 1 / sqrt(n_i), by about w_i / (2 n_i) a call, so model i gets weight w_i / ((n_i + 1) c_i). Cheap models
are ruled in or out on their own calls; the dear top models are sampled only as much as bounding mu* needs.

Every model's first example comes first (the warm-up of :class:`paperlib.policies.lucb.LUCB`). Each model's
examples are drawn uniformly without replacement (the sequences need it). Written by hand: no library certifies an
epsilon-good model under prices.
"""

from __future__ import annotations

import torch

from ..checks import check_scalar
from ..costs import check_costs
from .lucb import LUCB


class CheapestGood(LUCB):
    """Certify the cheapest epsilon-good model (see the module docstring). LUCB's per-model sequences, example order,
    ask and tell; its own certificate, answer and allocation.

    Parameters
    ----------
    costs : sequence of n floats
        Price of one call to each model (any unit; :func:`paperlib.costs.check_costs`).
    delta : float
        Confidence of the certificate (each model's sequence at delta / n).
    epsilon : float
        The answer is within epsilon of the best (> 0).
    gamma : float, optional
        Slack of the cheapness guarantee: no model cheaper than the answer is within epsilon - gamma of the best
        (default epsilon / 2; in (0, epsilon]: gamma = 0 could leave a model exactly epsilon below the best
        undecidable).
    batch_size : int
        Pairs per step.
    """

    name = "lucb-cheap"
    uniform_within_row = True
    needs_costs = True
    _one_unit_rule = False  # its own _rule_units

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, costs=None, delta: float = 0.05,
                 epsilon: float = 0.05, gamma: float | None = None, batch_size: int = 1):
        super().__init__(n, m, budget, reps, seed, device, delta, epsilon, batch_size)
        if self.epsilon <= 0:
            raise ValueError(f"{self.name} needs epsilon > 0 (how far from the best a good model may be), got "
                             f"{self.epsilon}")
        if costs is None:
            raise ValueError(f"{self.name} needs the price of a call to each model (costs)")
        self.gamma = self.epsilon / 2 if gamma is None else check_scalar(gamma, "gamma", float, low=0.0,
                                                                       high=self.epsilon, closed="right")
        price = torch.as_tensor(check_costs(costs, self.n), dtype=torch.float64, device=self.device)
        self.price = price
        self.by_price = torch.as_tensor(sorted(range(self.n), key=lambda i: (float(price[i]), i)),
                                        dtype=torch.long, device=self.device)

    # ------------------------------------------------------------------------------------------ the certificate

    def _candidate(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(candidate, ruled in) per repetition: the cheapest model not ruled out, and whether it is ruled in."""
        lo, hi = self.cs.lower, self.cs.upper
        out = hi < lo.amax(dim=1, keepdim=True) - (self.epsilon - self.gamma)
        good = lo >= hi.amax(dim=1, keepdim=True) - self.epsilon
        first = (~out[:, self.by_price]).long().argmax(dim=1)  # never all ruled out: the top L's own U >= L*
        cand = self.by_price[first]
        return cand, good.gather(1, cand[:, None])[:, 0]

    def certificate(self, epsilon: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(candidate, certified) per repetition (``epsilon`` must be the policy's own, if given)."""
        if epsilon is not None and float(epsilon) != self.epsilon:
            raise ValueError(f"{self.name} certifies at its own epsilon={self.epsilon}, not {epsilon}")
        cand, ok = self._candidate()
        return cand, ok & (self.counts > 0).all(dim=1)

    def leader(self) -> torch.Tensor:
        """The answer: the certified model once there is one; before that the point-estimate reading of the rule
        (the cheapest model whose estimate is within epsilon - gamma / 2 of the highest, midway between the ruled-in
        and ruled-out thresholds). Deterministic (draws nothing), so a journal replays."""
        cand, ok = self.certificate()
        est = torch.nan_to_num(self.estimate(), nan=-torch.inf)
        near = est >= est.amax(dim=1, keepdim=True) - (self.epsilon - self.gamma / 2)
        pick = self.by_price[near[:, self.by_price].long().argmax(dim=1)]
        return torch.where(ok, cand, pick)

    # ------------------------------------------------------------------------------------------ ask / tell

    def _rule_units(self, units, q, k):
        lo, hi = self.cs.lower, self.cs.upper
        cand, _ = self._candidate()
        crit = torch.stack([cand, hi.argmax(dim=1), lo.argmax(dim=1)], dim=1)  # (R, 3), may repeat
        room = (self.m - self.asked_rows).gather(1, crit)
        width = (hi - lo).gather(1, crit)
        w = torch.where(room > 0, width / ((self.asked_rows.gather(1, crit) + 1) * self.price[crit].clamp(min=1e-12)),
                        torch.zeros_like(width))
        # a repeated model counts once (its first slot)
        dup = torch.zeros_like(w, dtype=torch.bool)
        dup[:, 1] = crit[:, 1] == crit[:, 0]
        dup[:, 2] = (crit[:, 2] == crit[:, 0]) | (crit[:, 2] == crit[:, 1])
        w = w.masked_fill(dup, 0.0)
        total = w.sum(dim=1, keepdim=True)
        share = torch.where(total > 0, w / total.clamp(min=1e-300), torch.zeros_like(w))
        give = torch.floor(share * k).long()
        left = k - give.sum(dim=1)
        give[torch.arange(self.reps, device=self.device), share.argmax(dim=1)] += torch.where(total[:, 0] > 0, left, 0)
        units.scatter_add_(1, crit, give)
