"""Anytime-valid confidence sequences for a finite population sampled without replacement.

A model's mean score over a benchmark of N examples is the mean of a finite population; a policy
evaluates it on examples drawn uniformly without replacement. The confidence sequence here is the
Hoeffding-type without-replacement construction of Waudby-Smith & Ramdas (2020, "Confidence
sequences for sampling without replacement", NeurIPS; Sec. 3, the "Hoeffding-type" CS): with
S_{i-1} the sum of the first i - 1 draws, the mean of what remains before draw i is
mu_i = (N mu - S_{i-1}) / (N - i + 1), and for a predictable lambda_i >= 0 the process

    exp( sum_i lambda_i (X_i - mu_i) - lambda_i^2 / 8 )

is a nonnegative supermartingale (Hoeffding's lemma, X_i in [0, 1]). Ville's inequality on it and on
its mirror image, each at delta / 2, gives, simultaneously for all t with probability >= 1 - delta,

    | sum_i lambda_i (X_i + S_{i-1} / (N - i + 1)) - mu sum_i lambda_i N / (N - i + 1) |
        <= log(2 / delta) + sum_i lambda_i^2 / 8,

an interval for mu at every t. It is intersected with the interval that holds with certainty,
[S_t / N, (S_t + N - t) / N] (the unseen scores lie in [0, 1]), so it collapses to the exact mean once
all N examples are seen, and with its own past (the running intersection is valid because the event
holds for all t at once). lambda_i = min(1, sqrt(8 log(2 / delta) / (i log(i + 1)))), the rate
Waudby-Smith & Ramdas suggest for Hoeffding-type sequences; it depends on i only, so it is predictable.

Written by hand: the authors' package ``confseq`` does not build on Python >= 3.11.
"""

from __future__ import annotations

import math

import torch


def _check_delta(delta: float) -> float:
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    return delta


def hoeffding_lambda(i: torch.Tensor, delta: float) -> torch.Tensor:
    """The predictable bet for draw i (1-based): min(1, sqrt(8 log(2/delta) / (i log(i + 1))))."""
    i = i.to(torch.float64)
    return torch.sqrt(8.0 * math.log(2.0 / delta) / (i * torch.log1p(i))).clamp(max=1.0)


def wor_hoeffding_mean_ci(x: torch.Tensor, population: int, delta: float = 0.05) -> tuple[torch.Tensor, torch.Tensor]:
    """Confidence sequence for the mean of a finite population from draws without replacement.

    Parameters
    ----------
    x : (..., t) tensor
        Draws in order, values in [0, 1]; leading dimensions are independent streams.
    population : int
        N, the population size (t <= N).
    delta : float
        The sequence covers the mean at every step simultaneously with probability >= 1 - delta.

    Returns
    -------
    lower, upper : (..., t) tensors
        The running-intersection interval after each draw.
    """
    delta = _check_delta(delta)
    x = torch.as_tensor(x, dtype=torch.float64)
    t = x.shape[-1]
    if t > population:
        raise ValueError(f"{t} draws without replacement from a population of {population}")
    if x.numel() and (torch.isnan(x).any() or (x < 0).any() or (x > 1).any()):
        raise ValueError("draws must lie in [0, 1]")
    i = torch.arange(1, t + 1, dtype=torch.float64, device=x.device)
    lam = hoeffding_lambda(i, delta)
    left = population - i + 1
    prev = torch.cumsum(x, -1) - x
    centre = torch.cumsum(lam * (x + prev / left), -1)
    scale = torch.cumsum(lam * population / left, -1)
    slack = math.log(2.0 / delta) + torch.cumsum(lam * lam / 8.0, -1)
    s = torch.cumsum(x, -1)
    lower = torch.maximum((centre - slack) / scale, s / population)
    upper = torch.minimum((centre + slack) / scale, (s + population - i) / population)
    return torch.cummax(lower, -1).values, torch.cummin(upper, -1).values


def _earlier_in_batch(rows: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For each pair of a batch, how many earlier pairs of the batch hit the same row, and their score sum
    (a stable sort by row and segmented cumulative sums: O(k log k) per repetition)."""
    order = rows.argsort(dim=1, stable=True)
    rs, xs = rows.gather(1, order), x.gather(1, order)
    pos = torch.arange(rows.shape[1], device=rows.device).expand_as(rs)
    new = torch.ones_like(rs, dtype=torch.bool)
    new[:, 1:] = rs[:, 1:] != rs[:, :-1]
    start = torch.cummax(torch.where(new, pos, torch.zeros_like(pos)), dim=1).values
    excl = torch.cumsum(xs, dim=1) - xs
    n_sorted = (pos - start).to(x.dtype)
    s_sorted = excl - excl.gather(1, start)
    return torch.empty_like(n_sorted).scatter_(1, order, n_sorted), torch.empty_like(s_sorted).scatter_(1, order, s_sorted)


class WoRMeanCS:
    """The same confidence sequence, updated online for an (R, n) grid of streams (repetitions x models).

    Observations arrive in batches (R, k) of (row, score) pairs; a row may appear several times in a
    batch, in which case its draws are taken in batch order. The running intersection is taken once
    per batch (not after each draw inside it), so with repeated rows the interval can be slightly wider
    than :func:`wor_hoeffding_mean_ci` on the same stream; it is just as valid. ``delta`` is per stream; for statements
    about all n models at once use ``delta / n`` (union bound), as :func:`certify` expects.
    """

    def __init__(self, reps: int, n: int, population: int, delta: float, device=None):
        self.delta = _check_delta(delta)
        self.population = int(population)
        shape = (reps, n)
        z = lambda: torch.zeros(shape, dtype=torch.float64, device=device)  # noqa: E731
        self.count, self.sum, self.centre, self.scale, self.slack_sq = z(), z(), z(), z(), z()
        self.lower = z()
        self.upper = torch.ones(shape, dtype=torch.float64, device=device)
        self._reps = torch.arange(reps, device=device)

    def update(self, rows: torch.Tensor, scores: torch.Tensor) -> None:
        rows = rows.long()
        x = torch.as_tensor(scores, dtype=torch.float64, device=rows.device)
        n_before, s_before = _earlier_in_batch(rows, x)
        r = self._reps[:, None].expand_as(rows)
        i = self.count[r, rows] + n_before + 1
        if bool((i > self.population).any()):
            raise ValueError("a stream received more draws than its population size")
        prev = self.sum[r, rows] + s_before
        lam = hoeffding_lambda(i, self.delta)
        left = self.population - i + 1
        self.centre.index_put_((r, rows), lam * (x + prev / left), accumulate=True)
        self.scale.index_put_((r, rows), lam * self.population / left, accumulate=True)
        self.slack_sq.index_put_((r, rows), lam * lam / 8.0, accumulate=True)
        self.count.index_put_((r, rows), torch.ones_like(x), accumulate=True)
        self.sum.index_put_((r, rows), x, accumulate=True)
        self._refresh()

    def _refresh(self) -> None:
        slack = math.log(2.0 / self.delta) + self.slack_sq
        seen = self.scale > 0
        scale = self.scale.clamp(min=1e-300)
        lo = torch.where(seen, (self.centre - slack) / scale, torch.zeros_like(scale))
        hi = torch.where(seen, (self.centre + slack) / scale, torch.ones_like(scale))
        lo = torch.maximum(lo, self.sum / self.population)
        hi = torch.minimum(hi, (self.sum + self.population - self.count) / self.population)
        self.lower = torch.maximum(self.lower, lo)
        self.upper = torch.minimum(self.upper, hi)


def certify(lower: torch.Tensor, upper: torch.Tensor, estimate: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The best-model certificate: the row with the highest ``estimate`` is certified when its lower bound
    exceeds every other row's upper bound.

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
    return best, lo_best > others.amax(dim=-1)


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
