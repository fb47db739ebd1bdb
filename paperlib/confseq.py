"""Anytime-valid confidence sequences for a finite population sampled without replacement.

A model's mean score over a benchmark of N examples is the mean of a finite population; a policy
evaluates it on examples drawn uniformly without replacement. The sequences here are those of
Waudby-Smith & Ramdas (2020, "Confidence sequences for sampling without replacement", NeurIPS, Sec. 3):
with S_{i-1} the sum of the first i - 1 draws, the mean of what remains before draw i is
mu_i = (N mu - S_{i-1}) / (N - i + 1), and for predictable bets lambda_i in [0, 1) the process

    exp( sum_i lambda_i (X_i - mu_i) - penalty_i )

is a nonnegative supermartingale, with

* ``kind="eb"`` (empirical Bernstein, the default): penalty_i = psi(lambda_i) (X_i - mu_hat_{i-1})^2,
  psi(l) = -log(1 - l) - l, mu_hat_{i-1} = (1/2 + S_{i-1}) / i (the predictable-plug-in empirical
  Bernstein supermartingale of Waudby-Smith & Ramdas 2024, "Estimating means of bounded random
  variables by betting", JRSS-B, Thm. 2, applied to the without-replacement means mu_i); bets
  lambda_i = min(1/2, sqrt(2 log(2/delta) / (sigma_hat^2_{i-1} i log(i + 1)))) with
  sigma_hat^2_{i-1} = (1/4 + sum_{j<i} (X_j - mu_hat_j)^2) / i (their Eq. 26). It adapts to the
  variance: much narrower than Hoeffding's for scores near 0 or 1 and for paired differences.
* ``kind="hoeffding"``: penalty_i = lambda_i^2 / 8 (Hoeffding's lemma), bets
  lambda_i = min(1, sqrt(8 log(2/delta) / (i log(i + 1)))).
* ``kind="both"`` (the default): the intersection of the two, each at delta / 2 (a union bound). With
  few draws Hoeffding's larger bets win; with many, the variance-adaptive one does. Measured on the
  quick matrices (median fraction of the matrix at the first certificate, delta = 0.05, 20 runs):
  Hoeffding alone is better for UCB-E (few draws of the other models: AlpacaEval-2 13% vs 17%), the
  empirical Bernstein alone for Row-Mean (86% vs 94%).

Ville's inequality on the process and on its mirror image (1 - X), each at delta / 2, gives,
simultaneously for all t with probability >= 1 - delta,

    | sum_i lambda_i (X_i + S_{i-1} / (N - i + 1)) - mu sum_i lambda_i N / (N - i + 1) |
        <= log(2 / delta) + sum_i penalty_i,

an interval for mu at every t (the mirror has the same bets and penalties). It is intersected with the
interval that holds with certainty, [S_t / N, (S_t + N - t) / N] (the unseen scores lie in [0, 1]), so
it collapses to the exact mean once all N examples are seen, and with its own past (the running
intersection is valid because the event holds for all t at once).

Written by hand: the authors' package ``confseq`` does not build on Python >= 3.11.
"""

from __future__ import annotations

import math

import torch

from .checks import check_delta
from .pickling import KeepsViews

KINDS = ("both", "eb", "hoeffding")


def _check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return kind


def _bet_and_penalty(kind: str, i: torch.Tensor, delta: float, x, s_prev, q_prev):
    """Bet lambda_i and penalty of draw i (1-based) from what is known before it (s_prev, q_prev: the sum of the
    earlier draws and of their squared deviations from the running means)."""
    i = i.to(torch.float64)
    log_term = math.log(2.0 / delta)
    if kind == "hoeffding":
        lam = torch.sqrt(8.0 * log_term / (i * torch.log1p(i))).clamp(max=1.0)
        return lam, lam * lam / 8.0
    sigma2 = (0.25 + q_prev) / i
    lam = torch.sqrt(2.0 * log_term / (sigma2 * i * torch.log1p(i))).clamp(max=0.5)
    mu_prev = (0.5 + s_prev) / i
    psi = -torch.log1p(-lam) - lam
    return lam, psi * (x - mu_prev).square()


def _both_bets(i: torch.Tensor, delta: float, x, s_prev, q_prev, num: torch.Tensor, cap: torch.Tensor):
    """:func:`_bet_and_penalty` of the empirical Bernstein and Hoeffding kinds at once, stacked (2, ...), in fewer
    tensor operations (a step of one draw is bound by their count) and with the same values: Hoeffding's bet is the
    empirical Bernstein formula with sigma^2 = 1, numerator 8 log(2 / delta) and cap 1 (``num``, ``cap``: (2, 1, 1))."""
    if i.dtype != torch.float64:
        i = i.to(torch.float64)
    sigma2 = (0.25 + q_prev) / i
    vi = torch.stack([sigma2 * i, i])  # v i with v = sigma^2 and 1: the same values as (v * i), one operation less
    lam = torch.minimum(torch.sqrt(num / (vi * torch.log1p(i))), cap)
    eb, ho = lam[0], lam[1]
    mu_prev = (0.5 + s_prev) / i
    return lam, torch.stack([(-torch.log1p(-eb) - eb) * (x - mu_prev).square(), ho * ho / 8.0])


def _own_deviation(x, s_prev, i):
    """(X_i - mu_hat_i)^2 with mu_hat_i = (1/2 + S_i) / (i + 1): the term draw i adds to sigma_hat^2."""
    return (x - (0.5 + s_prev + x) / (i + 1)).square()


def wor_mean_ci(x: torch.Tensor, population: int, delta: float = 0.05,
                kind: str = "both") -> tuple[torch.Tensor, torch.Tensor]:
    """Confidence sequence for the mean of a finite population from draws without replacement.

    Parameters
    ----------
    x : (..., t) tensor
        Draws in order, values in [0, 1]; leading dimensions are independent streams.
    population : int
        N, the population size (t <= N).
    delta : float
        The sequence covers the mean at every step simultaneously with probability >= 1 - delta.
    kind : {"both", "eb", "hoeffding"}
        Empirical Bernstein (variance-adaptive), Hoeffding, or their intersection at delta / 2 each
        (default; see the module docstring).

    Returns
    -------
    lower, upper : (..., t) tensors
        The running-intersection interval after each draw.
    """
    delta, kind = check_delta(delta), _check_kind(kind)
    if kind == "both":
        lo_e, hi_e = wor_mean_ci(x, population, delta / 2, kind="eb")
        lo_h, hi_h = wor_mean_ci(x, population, delta / 2, kind="hoeffding")
        return torch.maximum(lo_e, lo_h), torch.minimum(hi_e, hi_h)
    x = torch.as_tensor(x, dtype=torch.float64)
    t = x.shape[-1]
    if t > population:
        raise ValueError(f"{t} draws without replacement from a population of {population}")
    if x.numel() and (torch.isnan(x).any() or (x < 0).any() or (x > 1).any()):
        raise ValueError("draws must lie in [0, 1]")
    i = torch.arange(1, t + 1, dtype=torch.float64, device=x.device)
    s = torch.cumsum(x, -1)
    prev = s - x
    e = _own_deviation(x, prev, i)
    q_prev = torch.cumsum(e, -1) - e
    lam, pen = _bet_and_penalty(kind, i, delta, x, prev, q_prev)
    left = population - i + 1
    centre = torch.cumsum(lam * (x + prev / left), -1)
    scale = torch.cumsum(lam * population / left, -1)
    slack = math.log(2.0 / delta) + torch.cumsum(pen, -1)
    lower = torch.maximum((centre - slack) / scale, s / population)
    upper = torch.minimum((centre + slack) / scale, (s + population - i) / population)
    return torch.cummax(lower, -1).values, torch.cummin(upper, -1).values


def wor_hoeffding_mean_ci(x: torch.Tensor, population: int, delta: float = 0.05) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`wor_mean_ci` with ``kind="hoeffding"``."""
    return wor_mean_ci(x, population, delta, kind="hoeffding")


def earlier_in_batch_sums(rows: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """For each pair of a batch and each channel of ``x`` (R, k, c): the sum over the earlier pairs of the batch on
    the same row (``rows``: (R, k)), by a stable sort by row and segmented cumulative sums: O(k log k) per repetition.
    Used by :class:`WoRMeanCS` and :class:`paperlib.confseq_prior.PriorAssistedCS`."""
    order = rows.argsort(dim=1, stable=True)
    rs = rows.gather(1, order)
    xs = x.gather(1, order[..., None].expand_as(x))
    pos = torch.arange(rows.shape[1], device=rows.device).expand_as(rs)
    new = torch.ones_like(rs, dtype=torch.bool)
    new[:, 1:] = rs[:, 1:] != rs[:, :-1]
    start = torch.cummax(torch.where(new, pos, torch.zeros_like(pos)), dim=1).values
    excl = torch.cumsum(xs, dim=1) - xs
    got = excl - excl.gather(1, start[..., None].expand_as(excl))
    return torch.empty_like(got).scatter_(1, order[..., None].expand_as(got), got)


def _earlier_in_batch(rows: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For each pair of a batch, how many earlier pairs of the batch hit the same row, and their score sum."""
    got = earlier_in_batch_sums(rows, torch.stack([torch.ones_like(x), x], dim=-1))
    return got[..., 0], got[..., 1]


class WoRMeanCS(KeepsViews):
    """The same confidence sequences (``kind``), updated online for an (R, n) grid of streams (repetitions x models).

    Observations arrive in batches (R, k) of (row, score) pairs; a row may appear several times in a
    batch, in which case its draws are taken in batch order. The running intersection is taken once
    per batch (not after each draw inside it), so with repeated rows the interval can be slightly wider
    than :func:`wor_hoeffding_mean_ci` on the same stream; it is just as valid. ``delta`` is per stream; for statements
    about all n models at once use ``delta / n`` (union bound), as :func:`certify` expects.

    ``kind="both"`` keeps its two sequences (empirical Bernstein and Hoeffding, each at delta / 2) stacked on a
    leading axis of the running sums, so that a batch costs one scatter per sum whatever the kind; the interval is
    the running intersection of both (the maximum of the two running lower bounds is the running maximum of the
    two lower bounds: one state suffices).
    """

    def __init__(self, reps: int, n: int, population: int, delta: float, device=None, kind: str = "both"):
        self.delta, self.kind = check_delta(delta), _check_kind(kind)
        self.kinds = ("eb", "hoeffding") if kind == "both" else (kind,)
        part_delta = self.delta / len(self.kinds)
        self._part_delta = part_delta
        self.population = int(population)
        shape = (reps, n)
        z = lambda *lead: torch.zeros(*lead, *shape, dtype=torch.float64, device=device)  # noqa: E731
        # the sums live in two stacked tensors, so that a batch reads them with one gather and adds to them with
        # one scatter each (a step of one draw is bound by the number of tensor operations); the names are views
        self._seen = z(3)  # count, sum, squared deviations: (3, R, n)
        self.count, self.sum, self.dev_sq = self._seen[0], self._seen[1], self._seen[2]
        k = len(self.kinds)
        self._run = z(3, k)  # centre, scale, penalty sums per kind: (3, kinds, R, n)
        self.centre, self.scale, self.slack_sq = self._run[0], self._run[1], self._run[2]
        self._three = torch.arange(3, device=device)
        self._log_term = torch.full((k, 1, 1), math.log(2.0 / part_delta), dtype=torch.float64, device=device)
        self._kind_index = torch.arange(k, device=device)[:, None, None]
        log_term = math.log(2.0 / part_delta)  # both kinds' bets: sqrt(num / (v i log(1 + i))) capped (see _both_bets)
        self._bet_num = torch.tensor([2.0 * log_term, 8.0 * log_term], dtype=torch.float64, device=device)[:, None, None]
        self._bet_cap = torch.tensor([0.5, 1.0], dtype=torch.float64, device=device)[:, None, None]
        self.lower = z()
        self.upper = torch.ones(shape, dtype=torch.float64, device=device)
        self._reps = torch.arange(reps, device=device)
        self._flat_base = self._reps * n  # stream (r, j) of the flattened (R, n) sums is r n + j
        self._ones = torch.ones(reps, dtype=torch.float64, device=device)
        self._bets_flat = (self._bet_num[..., 0], self._bet_cap[..., 0])  # for (kinds, R) draws

    def update(self, rows: torch.Tensor, scores: torch.Tensor, sparse: bool = False, valid=None) -> None:
        """Absorb (R, k) draws. ``sparse``: refresh only the streams the draws touched (the others' intervals cannot
        change; worth it when a batch touches few of many streams, as the pair sequences of ``lucb-pd``).
        ``valid`` (R, k) bool: only these draws count, and each repetition's come first in its row (the rest pad a
        ragged batch, :class:`paperlib.policies.base.Request`; they add nothing).

        What does not depend on the kind (each draw's index in its stream, the sums before it, its deviation) is
        computed once; a batch of one draw per repetition skips the within-batch bookkeeping (nothing earlier in
        the batch)."""
        rows = rows.long()
        x = torch.as_tensor(scores, dtype=torch.float64, device=rows.device)
        single = rows.shape[1] == 1 and valid is None
        if single and not sparse:
            if bool((self.count.gather(1, rows) >= self.population).any()):
                raise ValueError("a stream received more draws than its population size")
            self.update_flat(self._flat_base + rows[:, 0], x[:, 0])
            return
        r = self._reps[:, None].expand_as(rows)
        count, total, dev = self._seen[:, r, rows]
        if single:
            i = count + 1
            prev = total
        else:
            n_before, s_before = _earlier_in_batch(rows, x)
            i = count + n_before + 1
            prev = total + s_before
        if bool(((i > self.population) if valid is None else (i > self.population) & valid).any()):
            raise ValueError("a stream received more draws than its population size")
        e = _own_deviation(x, prev, i)
        q_prev = dev if single else dev + _earlier_in_batch(rows, e)[1]
        if len(self.kinds) == 1:
            lam, pen = (t[None] for t in _bet_and_penalty(self.kind, i, self._part_delta, x, prev, q_prev))
        else:
            lam, pen = _both_bets(i, self._part_delta, x, prev, q_prev, self._bet_num, self._bet_cap)
        left = self.population - i + 1
        add = torch.stack([lam * (x + prev / left), lam * self.population / left, pen])  # (3, kinds, R, k)
        if valid is not None:  # a pad's terms may be undefined (past the population): dropped, not multiplied
            add = torch.where(valid, add, torch.zeros((), dtype=add.dtype, device=add.device))
        self._run.index_put_((self._three[:, None, None, None].expand_as(add), self._kind_index[None].expand_as(add),
                              r.expand_as(add), rows.expand_as(add)), add, accumulate=True)
        add = torch.stack([torch.ones_like(x), x, e])  # (3, R, k)
        if valid is not None:
            add = torch.where(valid, add, torch.zeros((), dtype=add.dtype, device=add.device))
        self._seen.index_put_((self._three[:, None, None].expand_as(add), r.expand_as(add), rows.expand_as(add)), add,
                              accumulate=True)
        if sparse:
            rr, cc = self._touched(rows)
            self.lower[rr, cc], self.upper[rr, cc] = _intersect_kinds(
                self.centre[:, rr, cc], self.scale[:, rr, cc], self.slack_sq[:, rr, cc], self._log_term[..., 0],
                self.sum[rr, cc], self.count[rr, cc], self.population, self.lower[rr, cc], self.upper[rr, cc])
        else:
            self.lower, self.upper = _intersect_kinds(self.centre, self.scale, self.slack_sq, self._log_term,
                                                      self.sum, self.count, self.population, self.lower, self.upper)

    def update_flat(self, flat: torch.Tensor, x: torch.Tensor) -> None:
        """:meth:`update` with one draw per repetition: ``flat`` (R,) the streams as r n + j (repetition r, row j),
        ``x`` (R,) float64 scores in [0, 1]; every stream must have a draw left (the caller's guarantee: a policy
        never asks a row it has exhausted; :meth:`update` checks it). Reads the sums with one ``index_select`` and
        adds with one ``index_add_`` per stacked sum: the same values as the general path (each stream gets one
        addition), in fewer tensor operations (a step of one draw is bound by their count)."""
        n_k = self._run.shape[1]
        count, prev, dev = self._seen.view(3, -1).index_select(1, flat)
        i = count + 1
        e = _own_deviation(x, prev, i)
        if n_k == 1:
            lam, pen = (t[None] for t in _bet_and_penalty(self.kind, i, self._part_delta, x, prev, dev))
        else:
            lam, pen = _both_bets(i, self._part_delta, x, prev, dev, *self._bets_flat)
        left = (self.population + 1) - i  # the same integers as population - i + 1, in one operation
        self._run.view(3 * n_k, -1).index_add_(
            1, flat, torch.stack([lam * (x + prev / left), lam * self.population / left, pen]).view(3 * n_k, -1))
        self._seen.view(3, -1).index_add_(1, flat, torch.stack([self._ones, x, e]))
        self.lower, self.upper = _intersect_kinds(self.centre, self.scale, self.slack_sq, self._log_term, self.sum,
                                                  self.count, self.population, self.lower, self.upper)

    def _touched(self, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The distinct (repetition, stream) pairs of a batch."""
        flat = torch.unique((self._reps[:, None] * self.lower.shape[1] + rows.long()).reshape(-1))
        return flat // self.lower.shape[1], flat % self.lower.shape[1]


def _intersect_kinds(centre, scale, penalty, log_term, seen_sum, seen_count, population, lower, upper):
    """:func:`running_interval` for a stack of sequences (leading axis: the kinds, ``log_term`` their log(2 /
    delta)), intersected with each other and with the running (lower, upper).

    A stream with nothing absorbed (scale 0, centre 0) gives (0 -+ slack) / 0 = -inf / +inf (the slack is at least
    log(2 / delta) > 0), which the sure interval [0, 1] of an unseen stream then replaces: no mask is needed."""
    slack = log_term + penalty
    lo = torch.maximum(((centre - slack) / scale).amax(dim=0), seen_sum / population)
    hi = torch.minimum(((centre + slack) / scale).amin(dim=0), (seen_sum + population - seen_count) / population)
    return torch.maximum(lower, lo), torch.minimum(upper, hi)


def running_interval(centre, scale, penalty, delta, seen_sum, seen_count, population, lower, upper):
    """Solve |centre - mu scale| <= log(2/delta) + penalty for mu, intersect with the sure interval
    [seen_sum, seen_sum + population - seen_count] / population and with the running (lower, upper).
    Streams with nothing absorbed yet (scale 0) keep [0, 1]. Shared by the sequences here and PULSE's: a stack of
    one kind for :func:`_intersect_kinds`."""
    return _intersect_kinds(centre[None], scale[None], penalty[None], math.log(2.0 / delta), seen_sum, seen_count,
                            population, lower, upper)


class PredictableRangeCS(KeepsViews):
    """A confidence sequence for each of (R, n) means from unbiased one-step estimators with predictable ranges.

    Each stream absorbs estimators theta_t with E[theta_t | past] = mu that lie, given the past, in an interval of
    known width w_t (PULSE's one-step doubly robust estimators: w_t = |U| / n (1 + lambda (max_U S_hat -
    min_U S_hat))). Hoeffding's lemma with predictable bets eta_t makes exp(sum eta_t (theta_t - mu) - eta_t^2 w_t^2
    / 8) a supermartingale (the predictable-range Hoeffding construction of Waudby-Smith & Ramdas 2024,
    "Estimating means of bounded random variables by betting", Sec. 3), and Ville's inequality on it and its mirror,
    each at delta / 2, gives, for all t at once with probability >= 1 - delta,
    |sum eta_t theta_t - mu sum eta_t| <= log(2 / delta) + sum eta_t^2 w_t^2 / 8, with
    eta_t = min(1, sqrt(8 log(2 / delta) / (t log(t + 1)))) / w_t. This is Theorem 1 of Tolochinsky et al. 2026
    made uniform over time. :meth:`refresh` intersects it with the sure interval [sum_O S, sum_O S + |U|] / m and
    with its own past. Written here because no maintained package offers it for torch tensors.
    """

    def __init__(self, reps: int, n: int, population: int, delta: float, device=None):
        self.delta, self.population = check_delta(delta), int(population)
        z = torch.zeros(reps, n, dtype=torch.float64, device=device)
        self.eta, self.eta_theta, self.penalty = z.clone(), z.clone(), z.clone()
        self.lower, self.upper = z.clone(), torch.ones_like(z)

    def add(self, r, rows, theta, width, t) -> None:
        """Absorb one theta per (repetition, row) with its predictable width; ``t`` is its index (1-based)."""
        t = t.double()
        eta = (torch.sqrt(8.0 * math.log(2.0 / self.delta) / (t * torch.log1p(t))).clamp(max=1.0)) / width
        self.eta[r, rows] += eta
        self.eta_theta[r, rows] += eta * theta
        self.penalty[r, rows] += (eta * width).square() / 8.0

    def refresh(self, seen_sum: torch.Tensor, seen_count: torch.Tensor) -> None:
        """Update (lower, upper) given each stream's observed sum and count of the population."""
        self.lower, self.upper = running_interval(self.eta_theta, self.eta, self.penalty, self.delta, seen_sum,
                                                  seen_count, self.population, self.lower, self.upper)


def certify(lower: torch.Tensor, upper: torch.Tensor, estimate: torch.Tensor,
            epsilon: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """The best-model certificate: the row with the highest ``estimate`` is certified when its lower bound
    exceeds every other row's upper bound minus ``epsilon`` (an epsilon-best certificate: the certified row is
    within epsilon of the best).

    With each row's interval a (1 - delta / n) confidence sequence, a certified choice is the best
    model with probability >= 1 - delta, at whatever step it is made (union bound over the n rows;
    anytime validity makes stopping at the first certified step safe).

    Returns
    -------
    best : (R,) long
    certified : (R,) bool
    """
    best = estimate.argmax(dim=-1)
    lo_best = lower.gather(-1, best[..., None]).squeeze(-1)
    others = upper.scatter(-1, best[..., None], -torch.inf)
    return best, lo_best > others.amax(dim=-1) - float(epsilon)


def certify_top_k(lower: torch.Tensor, upper: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The top-k certificate: the k rows with the highest lower bounds are certified as the k best when the
    smallest of their lower bounds exceeds every other row's upper bound (same union-bound argument as
    :func:`certify`; k = 1 is that certificate).

    Returns
    -------
    top : (R, k) long, sorted by lower bound
    certified : (R,) bool
    """
    n = lower.shape[-1]
    if not 1 <= k < n:
        raise ValueError(f"top-k needs 1 <= k < {n} (the number of rows), got {k}")
    top = lower.topk(k, dim=-1).indices
    lo = lower.gather(-1, top).amin(dim=-1)
    others = upper.scatter(-1, top, -torch.inf).amax(dim=-1)
    return top, lo > others


def paired_difference_ci(xa: torch.Tensor, xb: torch.Tensor, population: int,
                         delta: float = 0.05) -> tuple[torch.Tensor, torch.Tensor]:
    """Confidence sequence for mu_a - mu_b from two models scored on the same examples, in the same order.

    The differences d_j = S_aj - S_bj in [-1, 1] are a finite population of ``population`` values; mapped to
    (d + 1) / 2 in [0, 1] they go through the empirical-Bernstein :func:`wor_mean_ci`, and the interval is
    mapped back (both kinds, as :func:`wor_mean_ci` by default).
    Valid when the shared examples are drawn uniformly without replacement (synchronized sampling, as in
    SySRs); on correlated models it is much narrower than the difference of two separate intervals, because
    the differences vary less than the scores.

    Returns
    -------
    lower, upper : (..., t) tensors for mu_a - mu_b
    """
    xa = torch.as_tensor(xa, dtype=torch.float64)
    xb = torch.as_tensor(xb, dtype=torch.float64)
    if xa.shape != xb.shape:
        raise ValueError(f"paired scores need equal shapes, got {tuple(xa.shape)} and {tuple(xb.shape)}")
    lo, hi = wor_mean_ci((xa - xb + 1.0) / 2.0, population, delta)
    return 2.0 * lo - 1.0, 2.0 * hi - 1.0
