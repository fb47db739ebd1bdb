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

**Ruling the candidate out instead** (``allocation="lookahead"``, the default since 2026-11-27; ``"bounds"`` is the
rule before). A candidate just outside epsilon - gamma of the best (narrative_qa's dearest price draws: 0.028 below
it) is cheap to rule in only if every dear model near the top is bounded to within a few hundredths, and cheap to rule
out once its own row and the leader's are complete (both bounds exact). Each step weighs the plans "rule out every
model not yet out that is cheaper than x, then rule x in" for the first :attr:`CheapestGood.PLANS` models x in price
order still plausibly epsilon-good, by their estimated spend (means so far, current half-widths shrinking like
sqrt(1/N - 1/m)); when the cheapest plan's x is not the candidate, the U* model's share of the step goes instead to
the model whose lower bound is cheapest to lift to the candidate's mean + epsilon - gamma (the candidate and L*'s
model keep theirs). The certificate, and so the guarantee, is the same under either allocation. Measured in
benchmarks/RESULTS.md (2026-11-27), 72 price draws on 18 matrices: 33 draws more than 2% cheaper (up to 44%), 4 dearer
(sysrs_musr's dearer draw by 18%: a knife-edge answer lost, traced there), every draw at most 0.285 of full
evaluation (was 0.329). A call costs 1.3-1.5x one of ``"bounds"`` (one run, batch 1; 1.25x at batch 8).

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


def _inf_if_nan(x: torch.Tensor) -> torch.Tensor:
    return torch.nan_to_num(x, nan=torch.inf, posinf=torch.inf, neginf=-torch.inf)  # one operation


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
    ALLOCATIONS = ("lookahead", "bounds")
    #: plans weighed by ``allocation="lookahead"``: rule 0 to PLANS - 1 candidates out, then the next one in
    PLANS = 4

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, costs=None, delta: float = 0.05,
                 epsilon: float = 0.05, gamma: float | None = None, batch_size: int = 1, top_share: float = 0.75,
                 allocation: str = "lookahead"):
        super().__init__(n, m, budget, reps, seed, device, delta, epsilon, batch_size)
        self.allocation = check_scalar(allocation, "allocation", str, choices=self.ALLOCATIONS)
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
        self.price_rank = torch.empty_like(self.by_price)  # each model's place in by_price
        self.price_rank[self.by_price] = torch.arange(self.n, device=self.device)
        self._rank_past = self.price_rank + self.n  # a ruled-out model's key in the plan's price order

    # ------------------------------------------------------------------------------------------ the certificate

    def _ruled_out(self) -> torch.Tensor:
        """(R, n): the models ruled out, U_j < L* - (epsilon - gamma)."""
        return self.cs.upper < self.cs.lower.amax(dim=1, keepdim=True) - (self.epsilon - self.gamma)

    def _candidate(self, out: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(candidate, ruled in) per repetition: the cheapest model not ruled out, and whether it is ruled in
        (``out``: :meth:`_ruled_out`, if the caller has it)."""
        lo = self.cs.lower
        out = self._ruled_out() if out is None else out
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

    def _extra_calls(self, half, target, told):
        """Calls that bring a half-width ``half`` after ``told`` draws down to ``target``, if half-widths shrink like
        sqrt(1 / N - 1 / m) (a mean of draws without replacement); inf where ``target <= 0`` (the point estimate is
        already past the line), 0 where the bound is there."""
        m = float(self.m)
        ratio = (target / half.clamp(min=1e-12)).square_()
        need = ratio.mul_(told.clamp(min=1.0).reciprocal_().sub_(1.0 / m)).add_(1.0 / m).reciprocal_()
        extra = need.sub_(told).clamp_(min=0.0).masked_fill_(target >= half, 0.0)
        return extra.masked_fill_(target <= 0, torch.inf)

    @torch.inference_mode()  # a pure function of the state: no autograd bookkeeping (a fifth of its time on a CPU)
    def _plan(self, cand, out, lo, top, lead) -> tuple[torch.Tensor, torch.Tensor]:
        """(rule out, lifter) per repetition, for ``allocation="lookahead"``: whether this step's calls go to ruling the
        candidate out rather than in, and which model's lower bound is to rise for it (``lead``, the model with the
        highest lower bound, where none needs to; meaningless where the candidate is not to be ruled out).

        The plans: rule in one of the first :attr:`PLANS` models, in price order, that are not ruled out and whose
        mean so far is within epsilon of the highest (the targets), after ruling out every model not yet ruled out
        that is cheaper than it. Ruling models out completes their rows (their upper bounds become their means) and
        lifts one model's lower bound to the highest of their means + epsilon - gamma (the model for which that is
        cheapest; the model with the highest mean may do it with the rest of its row when its estimate is below the
        line but its interval reaches above it, since its estimate wavers around a line that close); ruling model x in
        its row completed and every other model's min(U, V) brought down to mean_x + epsilon. Each plan's spend is estimated from the means so far and the current half-widths
        (:meth:`_extra_calls`); the rule out is chosen when the cheapest plan's target is not the candidate ``cand``
        (``out``: :meth:`_ruled_out`).
        The certificate is the same whatever the plan: this decides only where the calls go."""
        mu = self._told_means()
        told = self.counts  # (long: every use below is exact in float64)
        n = mu.shape[1]
        mu_top = mu.amax(dim=1, keepdim=True)  # NaN while a model is untold (asked ahead): no plan is then valid
        kept = ~out
        plausible = kept & (mu >= mu_top - self.epsilon)
        # the targets' price ranks (n or more: not a plan), and the plans at once on a (k, R, n) grid into which the
        # (R, n) state broadcasts as it is (a loop over plans made each step several times the dispatches)
        rank_t = torch.where(plausible, self.price_rank, self._rank_past).t().topk(min(self.PLANS, n), dim=0,
                                                                                  largest=False).values  # (k, R)
        key = rank_t[:, :, None]
        is_target = self.price_rank == key  # (price ranks are a permutation)
        cheaper = kept & (self.price_rank < key)  # to be ruled out first: non-empty exactly when the target is not
        left = self.m - told  # the candidate (the cheapest model not ruled out)
        rest = left * self.price  # each model's row completed (finite: prices are checked finite)
        line = mu.masked_fill(~cheaper, -torch.inf).amax(dim=2, keepdim=True).add_(self.epsilon - self.gamma)
        mx = (mu * is_target).sum(dim=2, keepdim=True)  # the target's mean (NaN anywhere: no plan is valid)
        # both estimates of extra calls in one pass ([0]: lifting a lower bound to the line; [1]: ruling target x in,
        # every other model's min(U, V) brought down to mean_x + epsilon), priced
        half = torch.stack([mu - lo, top - mu]).clamp_(min=0.0)  # (2, R, n) against the (k, 2, R, n) targets
        spend = _inf_if_nan(self._extra_calls(half, torch.stack([mu - line, (mx + self.epsilon) - mu], dim=1), told)
                            .mul_(self.price))
        lift, spend_in = spend.unbind(1)
        # the highest mean estimated below the line while its interval reaches above it: its row may get there
        lift = torch.where(lift.isinf() & (top >= line) & (mu == mu_top), rest, lift).masked_fill_(cheaper, torch.inf)
        lift_cost, who = lift.min(dim=2)  # 0 where nothing is to be lifted (no cheaper model: the line is -inf)
        cost_in = torch.where(is_target, rest, spend_in).sum(dim=2)  # the target's own row completed
        cost = (rest * cheaper).sum(dim=2).add_(lift_cost).add_(cost_in).masked_fill_(rank_t >= n, torch.inf)
        best, j = cost.min(dim=0, keepdim=True)  # (1, R): the first of the cheapest plans, as the loop took it
        lifter = torch.where(lift_cost == 0, lead, who).gather(0, j).view(-1)
        found = best < torch.inf  # inf: no plan reaches a certificate
        return cheaper.any(dim=2).gather(0, j).logical_and_(found).view(-1), lifter

    def _rule_units(self, units, q, k):
        lo, hi, top = self.cs.lower, self.cs.upper, self._top_upper()
        out = self._ruled_out()
        cand, _ = self._candidate(out)
        lead, up = lo.argmax(dim=1), top.argmax(dim=1)
        if self.allocation == "lookahead":  # rule the candidate out: its own row and the leader's lower bound
            rule_out, lifter = self._plan(cand, out, lo, top, lead)
            up = torch.where(rule_out, lifter, up)
        crit = torch.stack([cand, up, lead], dim=1)  # (R, 3), may repeat
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
