"""LUCB on paired differences (ours): sampling aimed at the best-model certificate.

A certificate that model L is the best needs, for every rival j, a lower confidence bound on mu_L - mu_j above
zero (or above -epsilon for an epsilon-best certificate). UCB-E spends its calls on the leader; this rule spends
them where the certificate is weakest, and pairs the comparisons:

* **Synchronized examples.** Each run has one uniformly random order of the m examples; a model's evaluations
  are a prefix of it (the sampling of SySRs, Lyu et al. 2026). Any two models share the examples of the shorter
  prefix, a uniform sample without replacement of the benchmark, so the differences s_L(x) - s_j(x) on it give
  an anytime-valid confidence sequence for mu_L - mu_j (:func:`paperlib.confseq.paired_difference_ci`, here
  updated online). On correlated models (most LLMs on one benchmark) the differences vary far less than the
  scores, which is what lets a certificate come early (Saad, Blanchard & Verzelen, NeurIPS 2023, on simultaneous
  sampling).
* **LUCB's choice** (Kalyanakrishnan et al. 2012, with the paired bounds): the leader L has the highest mean; the
  rivals whose bound on mu_L - mu_j is not yet above -epsilon are the open ones, and each step extends the
  prefixes of the most threatening open rivals (the lowest lower bound first). A rival that has caught up with
  the leader's prefix waits for the leader, which then advances. A rival whose bound clears is dropped (it is no
  longer sampled while this leader leads).
* **Certificate** (:meth:`LUCBPaired.certificate`): every rival's bound above -epsilon. Each pair's sequence
  runs at delta / (n - 1): on the event that the n - 1 sequences of the true best model's pairs hold (probability
  >= 1 - delta), a certified leader is within epsilon of the best. The sequences intersect the certain bounds of
  the unseen examples, so a pair collapses to its exact difference once both models have seen all m examples and
  every run stops (at the latest with the whole matrix).

Written by hand (no library offers paired without-replacement sequences); the sequences are those of
:class:`paperlib.confseq.WoRMeanCS` (empirical Bernstein and Hoeffding, Waudby-Smith & Ramdas).
"""

from __future__ import annotations

import torch

from ..checks import check_delta, check_scalar
from ..confseq import WoRMeanCS
from .base import Policy
from .lazyperm import KeyedPermutations


def _slots_from_units(units: torch.Tensor, counts: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(rows, positions), each (R, k), of an allocation ``units`` (R, n) with k units per repetition: model i takes
    the positions counts_i, ..., counts_i + units_i - 1 of its prefix."""
    if k == 1:  # one unit: the model that takes it, at its next position (what the general path gives, in 2 ops)
        rows = units.argmax(dim=1, keepdim=True)
        return rows, counts.gather(1, rows)
    cum = units.cumsum(dim=1)
    t = torch.arange(k, device=units.device).expand(units.shape[0], -1).contiguous()
    rows = torch.searchsorted(cum, t, right=True)
    start = (cum - units).gather(1, rows)
    return rows, counts.gather(1, rows) + (t - start)


class _LUCBBase(Policy):
    """What both LUCB rules share: parameter checks, running means, the deterministic leader, and a step's units
    (the warm-up's first example per model, the rule's own :meth:`_rule_units`, then the least observed models
    with room for whatever is left)."""

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, delta: float = 0.05, epsilon: float = 0.0,
                 batch_size: int = 1):
        super().__init__(n, m, budget, reps, seed, device)
        if self.n < 2:
            raise ValueError(f"{self.name} needs at least 2 models, got {self.n}")
        self.delta = check_delta(delta)
        self.epsilon = check_scalar(epsilon, "epsilon", float, low=0.0, high=1.0, closed="left")
        self.batch_size = check_scalar(batch_size, "batch_size", int, low=1)
        self.counts = torch.zeros(self.reps, self.n, dtype=torch.long, device=self.device)
        self.sums = torch.zeros(self.reps, self.n, dtype=torch.float64, device=self.device)
        self._leader_at = None  # (calls told, leader): the leader changes only when scores are told
        self._all_told = False  # every model told at least once in every repetition
        self._flat_base = torch.arange(self.reps, device=self.device)[:, None] * self.n  # (r, j) is r n + j flattened
        self._ones_long = torch.ones(self.reps, dtype=torch.long, device=self.device)
        self._warmed = False  # every model asked at least once in every repetition (the warm-up is over for good)

    supports_ahead = True

    @property
    def asked_rows(self) -> torch.Tensor:
        """Each model's examples asked (its next position): the told counts unless asked ahead."""
        return self._asked_ahead if self._ahead else self.counts

    def _start_ahead(self) -> None:
        self._asked_ahead = self.counts.clone()

    def _asked_rows(self, rows) -> None:
        r = self._rep_index[:, None].expand_as(rows)
        self.asked_rows.index_put_((r, rows), torch.ones_like(rows), accumulate=True)

    def next_batch_size(self) -> int:
        return self.batch_size

    def estimate(self) -> torch.Tensor:
        return torch.where(self.counts > 0, self.sums / self.counts.clamp(min=1), torch.nan)

    def _told_means(self) -> torch.Tensor:
        """:meth:`estimate`, one division once every model is told in every repetition (that stays true)."""
        if not self._all_told:
            self._all_told = bool((self.counts > 0).all())
        return self.sums / self.counts if self._all_told else self.estimate()

    def leader(self) -> torch.Tensor:
        """The model with the highest mean, ties to the one seen on more examples, then the first: deterministic,
        so that looking at the leader (or the certificate) draws nothing and a journal replays the same run.
        Kept until the next scores are told (a step asks for it twice: its rule, then the certificate)."""
        if self._leader_at is not None and self._leader_at[0] == self.spent:
            return self._leader_at[1]
        est = self._told_means()
        est = est if self._all_told else torch.nan_to_num(est, nan=-torch.inf)
        top = est == est.max(dim=1, keepdim=True).values
        lead = torch.where(top, self.counts, -1).argmax(dim=1)
        self._leader_at = (self.spent, lead)
        return lead

    def best(self) -> torch.Tensor:
        return self.leader()

    def _rule_units(self, units: torch.Tensor, q: torch.Tensor, k: int) -> None:
        """Add the rule's allocation of a step's k units (``q``: (R, k) unit indices) to ``units`` (R, n)."""
        raise NotImplementedError

    def _units(self, k: int) -> torch.Tensor:
        """How many of the k units of this step each model takes, (R, n)."""
        R, n, m = self.reps, self.n, self.m
        room = m - self.asked_rows
        units = torch.zeros(R, n, dtype=torch.long, device=self.device)
        q = torch.arange(k, device=self.device).expand(R, -1)
        unseen = None if self._warmed else self.asked_rows == 0
        if unseen is not None and not bool(unseen.any()):
            self._warmed, unseen = True, None
        if unseen is not None:  # warm-up: every model's first example before any comparison
            key = torch.where(unseen, torch.arange(n, device=self.device).expand(R, -1), torch.full_like(room, n))
            first = key.argsort(dim=1)
            take = q < unseen.sum(dim=1, keepdim=True)
            units.scatter_add_(1, torch.where(take, first.gather(1, q.clamp(max=n - 1)), 0), take.long())
        else:
            self._rule_units(units, q, k)
        units = torch.minimum(units, room)
        deficit = k - units.sum(dim=1)
        if bool((deficit > 0).any()):  # the rest: the least observed models with room, in that order
            free = room - units
            order = torch.where(free > 0, self.asked_rows + units, torch.full_like(room, m + 1)).argsort(dim=1, stable=True)
            free_sorted = free.gather(1, order)
            before = free_sorted.cumsum(dim=1) - free_sorted
            units.scatter_add_(1, order, (deficit[:, None] - before).clamp(min=0).minimum(free_sorted))
        return units


class LUCBPaired(_LUCBBase):
    """LUCB on paired differences over synchronized examples; see the module docstring.

    Parameters
    ----------
    delta : float
        Confidence of the certificate (each pair's sequence at delta / (n - 1)).
    epsilon : float
        Certify the leader as epsilon-best: every rival's bound on mu_L - mu_j above -epsilon (0: the exact best).
    batch_size : int
        Pairs per step (k units: the k most threatening open rivals, a rival that waits for the leader giving its
        unit to the leader; units with nowhere to go fill the least observed models).
    """

    name = "lucb-pd"
    uniform_within_row = True  # each model's examples are a prefix of the run's shared uniform order

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, delta: float = 0.05, epsilon: float = 0.0,
                 batch_size: int = 1):
        super().__init__(n, m, budget, reps, seed, device, delta, epsilon, batch_size)
        self.order = KeyedPermutations(self.reps, 1, self.m, self.gen, self.device)
        R, n = self.reps, self.n
        self.obs = torch.zeros(R, n, self.m, dtype=torch.float32, device=self.device)  # score by prefix position
        self.pair_cs = WoRMeanCS(1, R * n * n, self.m, self.delta / (n - 1), device=self.device)
        self._upper = torch.triu(torch.ones(n, n, dtype=torch.bool, device=self.device), diagonal=1)
        self._pending = None

    # ------------------------------------------------------------------------------------------ estimates

    def difference_bounds(self, lead: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Bounds on mu_lead - mu_j for every j, each (R, n) (the leader's own entry is +inf / +inf)."""
        R, n = self.reps, self.n
        j = torch.arange(n, device=self.device).expand(R, -1)
        L = lead[:, None].expand(-1, n)
        a, b = torch.minimum(L, j), torch.maximum(L, j)
        flat = (a * n + b)  # the stream of mu_a - mu_b (a < b)
        lo_ab = 2.0 * self.pair_cs.lower.view(R, n * n).gather(1, flat) - 1.0
        hi_ab = 2.0 * self.pair_cs.upper.view(R, n * n).gather(1, flat) - 1.0
        lead_first = L < j
        lower = torch.where(lead_first, lo_ab, -hi_ab)
        upper = torch.where(lead_first, hi_ab, -lo_ab)
        own = j == L
        return lower.masked_fill(own, torch.inf), upper.masked_fill(own, torch.inf)

    def certificate(self, epsilon: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(leader, certified) per repetition: certified when every rival's bound on mu_L - mu_j exceeds -epsilon
        (default: the policy's own epsilon)."""
        eps = self.epsilon if epsilon is None else float(epsilon)
        lead = self.leader()
        lower, _ = self.difference_bounds(lead)
        return lead, (lower > -eps).all(dim=1) & (self.counts > 0).all(dim=1)

    # ------------------------------------------------------------------------------------------ ask / tell

    def _rule_units(self, units, q, k):
        m = self.m
        lead = self.leader()
        lower, _ = self.difference_bounds(lead)
        open_ = (lower <= -self.epsilon) & torch.isfinite(lower)
        n_open = open_.sum(dim=1, keepdim=True)
        threat = torch.where(open_, lower, torch.full_like(lower, torch.inf)).argsort(dim=1)
        has = n_open > 0
        cand = threat.gather(1, torch.where(has, q % n_open.clamp(min=1), 0))
        rank = torch.where(has, q // n_open.clamp(min=1), 0)
        c_lead = self.asked_rows.gather(1, lead[:, None])
        cap = torch.where(c_lead < m, c_lead, torch.full_like(c_lead, m))
        rival_ok = has & (self.asked_rows.gather(1, cand) + rank < cap)
        to_lead = has & ~rival_ok
        lead_rank = to_lead.long().cumsum(dim=1) - 1
        lead_ok = to_lead & (c_lead + lead_rank < m)
        units.scatter_add_(1, torch.where(rival_ok, cand, 0), rival_ok.long())
        units.scatter_add_(1, lead[:, None].expand(-1, k), lead_ok.long())

    def _select(self, k: int):
        units = self._units(k)
        rows, pos = _slots_from_units(units, self.asked_rows, k)
        self._pending = pos
        cols = self.order(self._rep_index[:, None], torch.zeros_like(rows), pos)
        return rows, cols

    def _update(self, rows, cols, scores):
        pos, self._pending = self._pending, None
        if self._ahead:  # told in each row's asked order: the positions follow the told counts
            same = rows[:, :, None] == rows[:, None, :]
            before = torch.tril(torch.ones(rows.shape[1], rows.shape[1], dtype=torch.bool, device=self.device), -1)
            pos = self.counts.gather(1, rows) + (same & before).sum(dim=2)
        r = self._rep_index[:, None].expand_as(rows)
        self.obs[r, rows, pos] = scores.float()
        self.sums.index_put_((r, rows), scores.double(), accumulate=True)
        before = self.counts.clone()
        self.counts.index_put_((r, rows), torch.ones_like(rows), accumulate=True)
        self._pair_update(before, self.counts)

    def _pair_update(self, before: torch.Tensor, after: torch.Tensor) -> None:
        """Feed every pair a < b the shared positions it gained, in position order."""
        n = self.n
        lo_b = torch.minimum(before[:, :, None], before[:, None, :])
        lo_a = torch.minimum(after[:, :, None], after[:, None, :])
        gained = torch.where(self._upper, lo_a - lo_b, 0).reshape(-1)
        streams = gained.nonzero().squeeze(1)
        if streams.numel() == 0:
            return
        gained = gained[streams]
        total = int(gained.sum())
        stream = torch.repeat_interleave(streams, gained)  # pair streams are numbered r * n * n + a * n + b
        seg_start = (gained.cumsum(0) - gained).repeat_interleave(gained)
        p = lo_b.reshape(-1)[streams].repeat_interleave(gained) + torch.arange(total, device=self.device) - seg_start
        rr, rem = stream // (n * n), stream % (n * n)
        a, b = rem // n, rem % n
        x = (self.obs[rr, a, p].double() - self.obs[rr, b, p].double() + 1.0) / 2.0
        self.pair_cs.update(stream[None, :], x[None, :].clamp(0.0, 1.0), sparse=True)


class LUCB(_LUCBBase):
    """LUCB with one confidence sequence per model (Kalyanakrishnan et al., ICML 2012): the unpaired baseline of
    :class:`LUCBPaired`.

    Each model's examples are drawn uniformly without replacement, independently of the other models'; model i
    has a :class:`paperlib.confseq.WoRMeanCS` interval at delta / n (union bound over the models). The leader L
    has the highest mean (ties as :meth:`LUCBPaired.leader`); a rival j is open while its upper bound minus
    epsilon reaches the leader's lower bound, and the most threatening open rival has the highest upper bound.
    Each step gives half its units to the leader (an odd batch's extra unit on every other step, so one pair per
    step alternates leader and challenger) and the rest, one by one, to the open rivals in threat order (LUCB
    samples the leader and its strongest challenger; a batch spreads over the next challengers). Units with nowhere to go fill the least observed models. Certificate: the leader's lower bound
    above every rival's upper bound minus epsilon (:func:`paperlib.confseq.certify`'s rule).

    Parameters
    ----------
    delta : float
        Confidence of the certificate (each model's sequence at delta / n).
    epsilon : float
        Certify the leader as epsilon-best (0: the exact best).
    batch_size : int
        Pairs per step.
    """

    name = "lucb"
    uniform_within_row = True

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, delta: float = 0.05, epsilon: float = 0.0,
                 batch_size: int = 1):
        super().__init__(n, m, budget, reps, seed, device, delta, epsilon, batch_size)
        self.order = KeyedPermutations(self.reps, self.n, self.m, self.gen, self.device)
        self.cs = WoRMeanCS(self.reps, self.n, self.m, self.delta / self.n, device=self.device)
        self.sums = self.cs.sum  # the sequences' running sums are the models' (a view: updated in place with them)
        self._steps = 0
        self._bounds_at = None  # (calls told, bounds): see _bounds

    def _bounds(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(leader, its lower bound (R, 1), the rivals' upper bounds (R, n) with the leader's at -inf): what the
        certificate after a step and the rule of the next step both read, computed once per step."""
        if self._bounds_at is not None and self._bounds_at[0] == self.spent:
            return self._bounds_at[1]
        lead = self.leader()
        got = (lead, self.cs.lower.gather(1, lead[:, None]), self.cs.upper.scatter(1, lead[:, None], -torch.inf))
        self._bounds_at = (self.spent, got)
        return got

    def certificate(self, epsilon: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(leader, certified) per repetition: the leader's lower bound above every rival's upper bound minus
        epsilon (default: the policy's own epsilon)."""
        eps = self.epsilon if epsilon is None else float(epsilon)
        lead, lo, upper = self._bounds()
        ok = lo[:, 0] > upper.amax(dim=1) - eps
        if not self._all_told:  # set by the leader (_bounds asked for it): every model told in every repetition
            ok = ok & (self.counts > 0).all(dim=1)
        return lead, ok

    def _rule_units(self, units, q, k):
        m, room = self.m, self.m - self.asked_rows
        lead, lo, upper = self._bounds()
        open_ = upper - self.epsilon >= lo
        n_open = open_.sum(dim=1, keepdim=True)
        has = n_open > 0
        half = k // 2 + (k % 2) * (1 - self._steps % 2)  # an odd batch's extra unit alternates
        n_lead = torch.where(has, torch.minimum(room.gather(1, lead[:, None]), torch.full_like(n_open, half)), 0)
        units.scatter_add_(1, lead[:, None], n_lead)
        threat = torch.where(open_, upper, torch.full_like(upper, -torch.inf)).argsort(dim=1, descending=True)
        r_q = q - n_lead  # the rivals' units, in order
        is_rival = has & (r_q >= 0)
        i = r_q.clamp(min=0)
        cand = threat.gather(1, i % n_open.clamp(min=1))
        ok = is_rival & (self.asked_rows.gather(1, cand) + i // n_open.clamp(min=1) < m)
        units.scatter_add_(1, torch.where(ok, cand, 0), ok.long())

    def _select(self, k: int):
        if k == 1 and self._warmed and self._one_unit_rule:
            rows, pos = self._one_unit()
        else:
            rows, pos = _slots_from_units(self._units(k), self.asked_rows, k)
        return rows, self.order(self._rep_index[:, None], rows, pos)

    _one_unit_rule = True  # a subclass with its own _rule_units sets False

    def _one_unit(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(rows, positions), each (R, 1), of a step of one unit after the warm-up: what :meth:`_units` and
        :func:`_slots_from_units` give (the same model, the same threat order), in a fifth of the operations. The
        unit goes to the leader on even steps while it has room, else to the most threatening open rival with room,
        else (no open rival, or no room) to the least observed model with room."""
        m, asked = self.m, self.asked_rows
        lead, lo, upper = self._bounds()
        open_ = upper - self.epsilon >= lo
        has = open_.any(dim=1, keepdim=True)
        lead = lead[:, None]
        pos = asked.gather(1, lead)
        if self._steps % 2 == 0 and bool((pos < m).all()):  # the leader's step, and it has room everywhere
            rival, ok = lead, has
        else:
            rival = torch.where(open_, upper, -torch.inf).argsort(dim=1, descending=True)[:, :1]
            if self._steps % 2 == 0:
                rival = torch.where(pos < m, lead, rival)
            pos = asked.gather(1, rival)
            ok = (pos < m) & has
        if bool(ok.all()):
            return rival, pos
        least = torch.where(asked < m, asked, m + 1).argmin(dim=1, keepdim=True)
        rows = torch.where(ok, rival, least)
        return rows, asked.gather(1, rows)

    def _update(self, rows, cols, scores):
        flat = (self._flat_base + rows).view(-1)
        if rows.shape[1] == 1:  # also the sums (scores lie in [0, 1]: checked by tell; a row asked has room)
            self.counts.view(-1).index_add_(0, flat, self._ones_long)
            self.cs.update_flat(flat, scores.view(-1).double())
            self._steps += 1
            return
        self.counts.view(-1).index_add_(0, flat, torch.ones_like(flat))
        self.cs.update(rows, scores.double())
        self._steps += 1
