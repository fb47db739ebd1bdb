"""The cheapest good model, certified (ours; issue 42): which is the cheapest model as good as the best, within epsilon?

Each model i has a price per call c_i and an anytime-valid interval [L_i, U_i] on its mean (the without-replacement
sequence of :class:`paperlib.confseq.WoRMeanCS` at (1 - s) delta / n: on an event E1 of probability >= 1 - (1 - s)
delta every interval holds at every step), and a second upper bound V_i from its own sequence at level 2 s delta,
whose upper side alone fails with probability <= s delta (``top_share`` s, 0.75 by default). Write
U* = max_j min(U_j, V_j) and L* = max_j L_j. On E1, L* <= mu*. The bound on mu* from above needs only the best model
i*'s own bound: i* is one fixed (unknown) model, so the event E2 that V_{i*} >= mu* at every step has probability
>= 1 - s delta with no union bound over the n models, and on E1 and E2, U* >= min(U_{i*}, V_{i*}) >= mu*. Every
model's V is narrower than its U (log(1 / (s delta)) against log(n / delta)), which is what lowering U* costs: the
bound of every model near the top has to come down to within epsilon of the answer's lower bound. The lower bounds
(L* and the candidate's) and the ruling-out upper bounds are about data-chosen models, so they keep the union bound.

* **Ruled out**: model j with U_j < L* - (epsilon - gamma) has mu_j < mu* - (epsilon - gamma): it is not
  (epsilon - gamma)-good.
* **Ruled in**: model i with L_i >= U* - epsilon has mu_i >= mu* - epsilon: it is epsilon-good.
* **Certificate**: in price order (ties by index), the first model not ruled out is ruled in. Then it is
  epsilon-good, and every cheaper model is not (epsilon - gamma)-good, so no model cheaper than it is within
  epsilon - gamma of the best: with gamma = epsilon / 2 (the default), the certified model is epsilon-good and no
  dearer than the cheapest epsilon/2-good model, with probability >= 1 - delta (on E1 and E2; anytime validity makes
  stopping at the first certified step safe). The answer need not be the best model, and the best model need not be
  known: its mean is only bounded, from below by the leader's L* and from above by U*.

**Where the calls go** (a dollar where it buys the most toward the certificate): the candidate k (the cheapest model
not ruled out) is either ruled in, by raising L_k or lowering U*, or ruled out, by lowering U_k or raising L*. The
step's calls go to the three models that move these bounds (k, the model with the highest min(U, V), the one with
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
from ..confseq import WoRMeanCS
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
        Confidence of the certificate (the per-model sequences at (1 - top_share) delta / n, the best's bound at
        top_share delta).
    epsilon : float
        The answer is within epsilon of the best (> 0).
    gamma : float, optional
        Slack of the cheapness guarantee: no model cheaper than the answer is within epsilon - gamma of the best
        (default epsilon / 2; in (0, epsilon]: gamma = 0 could leave a model exactly epsilon below the best
        undecidable).
    batch_size : int
        Pairs per step.
    top_share : float, optional
        Share s of delta for the bounds V that bound the best model's mean from above (default 0.75, in [0, 1); 0:
        the per-model sequences alone, at delta / n, the rule before 2026-11-26). The default was chosen among 0,
        0.2, 0.5, 0.7, 0.75, 0.85 and 0.9 on six shared matrices (benchmarks/RESULTS.md, 2026-11-26): the union
        bound's log(n / delta) is what a larger share saves on U*, log(1 / (1 - s)) what it costs the rest.
    """

    name = "lucb-cheap"
    uniform_within_row = True
    needs_costs = True
    _one_unit_rule = False  # its own _rule_units

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, costs=None, delta: float = 0.05,
                 epsilon: float = 0.05, gamma: float | None = None, batch_size: int = 1, top_share: float = 0.75):
        super().__init__(n, m, budget, reps, seed, device, delta, epsilon, batch_size)
        self.top_share = check_scalar(top_share, "top_share", float, low=0.0, high=1.0, closed="left")
        self.top_cs = None
        if self.top_share > 0:  # the per-model sequences at (1 - top_share) delta / n, the best's bound beside them
            self.cs = WoRMeanCS(self.reps, self.n, self.m, (1 - self.top_share) * self.delta / self.n,
                                device=self.device)
            self.sums = self.cs.sum
            self.top_cs = WoRMeanCS(self.reps, self.n, self.m, 2 * self.top_share * self.delta, device=self.device)
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
        good = lo >= self._top_upper().amax(dim=1, keepdim=True) - self.epsilon
        first = (~out[:, self.by_price]).long().argmax(dim=1)  # never all ruled out: the top L's own U >= L*
        cand = self.by_price[first]
        return cand, good.gather(1, cand[:, None])[:, 0]

    def _top_upper(self) -> torch.Tensor:
        """Each model's upper bound for U* (see the module docstring): min(U_j, V_j), or U_j without ``top_cs``."""
        return self.cs.upper if self.top_cs is None else torch.minimum(self.cs.upper, self.top_cs.upper)

    def _update(self, rows, cols, scores):
        super()._update(rows, cols, scores)
        if self.top_cs is not None:
            self.top_cs.update(rows, scores.double())

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
        lo, hi, top = self.cs.lower, self.cs.upper, self._top_upper()
        cand, _ = self._candidate()
        crit = torch.stack([cand, top.argmax(dim=1), lo.argmax(dim=1)], dim=1)  # (R, 3), may repeat
        room = (self.m - self.asked_rows).gather(1, crit)
        own = hi - lo  # the candidate's and L*'s widths; the U* model's is that of min(U, V)
        width = torch.stack([own, top - lo, own], dim=1).gather(2, crit[:, :, None])[:, :, 0]
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
