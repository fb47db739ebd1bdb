"""UCB-E for best-method identification (Zhou et al., 2025, Alg. 1; Audibert et al., 2010)."""

from __future__ import annotations

import torch

from ..keyed import is_keyed
from .base import Policy, RowMeanState, uniform
from .lazyperm import KeyedPermutations


def top_k_random_ties(values: torch.Tensor, k: int, gen, reps: torch.Tensor | None = None) -> torch.Tensor:
    """Indices (unordered) of the k largest entries of each row; ties at the k-th value broken uniformly at random.

    Random keys are drawn only for the rows that have more entries equal to their k-th value than
    places left, and only those rows are ranked a second time (``reps``: the repetitions of the rows, when not all;
    with keyed streams a tied row's keys come from its repetition's stream, one per column).
    """
    top = values.topk(k, dim=1, sorted=False)
    thr = top.values.amin(dim=1, keepdim=True)
    above = (values > thr).sum(1)
    eq = values == thr
    tied = (eq.sum(1) + above > k).nonzero().squeeze(1)
    if not tied.numel():
        return top.indices
    sub, sub_thr = values.index_select(0, tied), thr.index_select(0, tied)
    score = (sub > sub_thr).to(torch.float32).mul_(2.0).sub_(1.0)
    if is_keyed(gen):
        keys = uniform(gen, sub.shape, tied if reps is None else reps.index_select(0, tied))
        score = torch.where(sub == sub_thr, keys, score)
    else:
        where = (sub == sub_thr).view(-1).nonzero().squeeze(1)
        score.view(-1).index_copy_(0, where, torch.rand(where.numel(), generator=gen, device=values.device))
    return top.indices.index_copy(0, tied, score.topk(k, dim=1, sorted=False).indices)


def spill_in_bound_order(values: torch.Tensor, counts: torch.Tensor, first: torch.Tensor, k: int, m: int,
                         gen, reps: torch.Tensor | None = None):
    """Rows and example positions, both (S, k), of a row-mode batch whose top method has fewer than k examples left.

    ``first`` (S,) is each repetition's top method, given the bound +inf: it takes all its remaining examples (after
    any other method at +inf, an unevaluated one, in random order), then the next methods in decreasing bound (ties
    broken uniformly at random) each take theirs, until k slots are filled (Zhou et al. Sec. 4.3: a batch that
    outlasts its method goes on with the next). ``values`` (S, n) are the bounds, with full
    methods at -inf; ``counts`` (S, n) the evaluations so far (positions continue each method's ordering).

    Ties are broken by one uniform key per method, drawn as (S, n) at once: among the largest bounds the smallest
    key goes first, which is a uniformly random order of the tied methods (and the order an argsort by key, then a
    stable argsort by bound, gives: the same draws and the same rows as the full sort this replaces). The next
    methods are taken one arg-max at a time, usually one (the second method has room for the rest of the batch),
    instead of sorting n bounds per repetition. Requires ``(m - counts).sum(1) >= k``. ``reps``: the repetitions of
    the S rows (keyed streams).
    """
    noise = uniform(gen, values.shape, reps, device=values.device)
    slot = torch.arange(k, device=values.device)
    rows = pos = torch.zeros(values.shape[0], k, dtype=torch.long, device=values.device)
    filled = torch.zeros(values.shape[0], 1, dtype=torch.long, device=values.device)
    values = values.scatter(1, first[:, None], torch.inf)
    for j in range(values.shape[1]):
        if j and bool((filled >= k).all()):  # the first method is always needed
            break
        top = values == values.amax(dim=1, keepdim=True)
        nxt = torch.where(top, noise, 2.0).argmin(dim=1, keepdim=True)
        told = counts.gather(1, nxt).long()
        mine = slot >= filled
        rows = torch.where(mine, nxt, rows)
        pos = torch.where(mine, told + slot - filled, pos)
        filled = filled + (m - told)
        values.scatter_(1, nxt, -torch.inf)
    return rows, pos


class BlockedMax:
    """Row-wise arg-max with uniform ties, kept up to date as a few entries per row change.

    The n columns are cut into blocks of ``block`` (padded with -inf); each block keeps its maximum
    and how many of its entries attain it. An arg-max then reads (R, n / block) block maxima and one
    (R, block) block instead of all (R, n) values, and a change of one entry per row recomputes one
    block: about four times fewer elements touched per UCB-E step at n = 450 than a full pass.
    Ties are uniform over all tied entries: a block is drawn with probability proportional to its
    number of tied entries, then an entry uniformly within it.
    """

    def __init__(self, values: torch.Tensor, block: int = 32):
        reps, n = values.shape
        self.block, self.nb = block, -(-n // block)
        self.values = torch.full((reps, self.nb * block), -torch.inf, dtype=values.dtype, device=values.device)
        self.values[:, :n] = values
        self.blocks = self.values.view(reps, self.nb, block)
        self.bmax = self.blocks.amax(dim=2)
        self.bcount = (self.blocks == self.bmax[:, :, None]).sum(dim=2)
        self._block_base = torch.arange(reps, device=values.device) * self.nb
        self._value_base = self._block_base * block
        # Flat views, made once: a view costs a dispatch per call, and a step makes a dozen.
        self._flat_values, self._flat_blocks = self.values.view(-1), self.values.view(-1, block)
        self._flat_bmax, self._flat_bcount = self.bmax.view(-1), self.bcount.view(-1)

    def set(self, r: torch.Tensor | None, cols: torch.Tensor, new: torch.Tensor) -> None:
        """values[r, cols] = new (elementwise, same shapes), then refresh the blocks touched.

        ``r=None`` means one entry per repetition (``cols`` and ``new`` of shape (R,)). Reads and writes
        go through flat ``index_select`` / ``index_copy_`` (advanced indexing costs several times more
        per call on small tensors); a block touched twice is written twice with the same values.
        """
        at = self._value_base + cols if r is None else cols.add(r, alpha=self.nb * self.block)
        if at.dim() > 1:
            at, new = at.reshape(-1), new.reshape(-1)
        self._flat_values.index_copy_(0, at, new)
        flat = at // self.block  # the block of each entry: rows hold nb whole blocks
        vals = self._flat_blocks.index_select(0, flat)
        top = vals.amax(dim=1)
        self._flat_bmax.index_copy_(0, flat, top)
        self._flat_bcount.index_copy_(0, flat, (vals == top[:, None]).sum(dim=1))

    def argmax(self, gen) -> torch.Tensor:
        """Arg-max per row, ties broken uniformly at random (one uniform draw per row)."""
        best = self.bmax.amax(dim=1, keepdim=True)
        weight = self.bcount * (self.bmax == best)
        cum = weight.cumsum(dim=1)
        total = cum[:, -1:]
        u = uniform(gen, total.shape, dtype=torch.float64, device=cum.device)
        k = torch.minimum(u.mul_(total).long(), total - 1)
        blk = (cum <= k).sum(dim=1, keepdim=True)
        k -= (cum - weight).gather(1, blk)
        blk = blk.view(-1)
        tied = (self._flat_blocks.index_select(0, self._block_base + blk) == best).cumsum(dim=1)
        return (tied <= k).sum(dim=1).add_(blk, alpha=self.block)


class UCBE(Policy):
    """UCB-E (Zhou et al., Alg. 1).

    At every step pick the method with the largest upper confidence bound
    ``B_i = mean_i + sqrt(a / |S_i|)`` (``B_i = +inf`` before its first evaluation; ties broken
    uniformly at random) and evaluate it on an example drawn uniformly at random from those it
    has not been evaluated on. The prediction is the method with the highest observed mean.

    Parameters
    ----------
    a : float
        Exploration parameter (the paper's eta in Alg. 1; Sec. 4.3 uses a = 1).
    batch_size : int
        Pairs per ``ask``. With 1 this is Alg. 1 exactly, whatever ``batch_mode``.
    batch_mode : {"row", "pending"}
        How a batch of b > 1 pairs is chosen. ``"row"`` (default; Zhou et al. Sec. 4.3 and Alg. 6
        line 4): the method with the largest bound (ties at random) and b examples drawn uniformly
        without replacement from its unevaluated ones; if it has fewer than b left, the batch goes on
        with the next methods in bound order. ``"pending"``: the b pairs are b sequential arg-maxes,
        each counting the pairs already chosen in the batch as pending evaluations (their |S_i|
        grows, their means wait for ``tell``; a method with only pending evaluations gets the
        optimistic mean 1); spreads a batch over methods, e.g. for parallel workers.

    Notes
    -----
    A method evaluated on all m examples cannot be evaluated again and is excluded. Each method's
    examples follow a random ordering of the m examples (:class:`.lazyperm.KeyedPermutations`,
    computed on demand, never stored as an (R, n, m) table), which is the same as drawing each new
    example uniformly from the unevaluated ones.

    ``"row"`` costs one arg-max per batch (:class:`BlockedMax`) and b lazy draws per repetition. In ``"pending"`` mode the b pairs of a batch are chosen at once: a method's bound falls with every pending
    evaluation, so the b sequential arg-maxes take the b largest values of the methods' decreasing
    bound sequences (a merge). Only the b methods with the largest current bounds can be picked,
    so each repetition takes the b largest of b x b candidates (two partial top-k, no sort). Ties
    at the b-th value are broken uniformly at random, as Alg. 1's random tie-breaking does. Bounds
    are cached and recomputed after ``tell`` only for the methods just evaluated.

    A hot set of methods (look for the b best only among the largest bounds) does not pay here:
    binary scores make many methods share one (sum, count), hence one bound, so the ties at the
    set's edge force the full choice at most steps (tried; see benchmarks/RESULTS.md).
    """

    uniform_within_row = True
    name = "ucbe"

    MODES = ("row", "pending")

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, a: float = 1.0, batch_size: int = 1,
                 batch_mode: str = "row"):
        if batch_mode not in self.MODES:
            raise ValueError(f"batch_mode must be one of {self.MODES}, got {batch_mode!r}")
        super().__init__(n, m, budget, reps, seed, device)
        if a < 0:
            raise ValueError(f"exploration parameter a must be >= 0, got {a}")
        self.batch_mode = batch_mode
        self.a = float(a)
        self.batch_size = int(batch_size)
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.order = KeyedPermutations(self.reps, self.n, self.m, self.gen, self.device)
        self.state = RowMeanState(self.reps, self.n, self.device)
        self._radius = torch.sqrt(self.a / torch.arange(self.m + 1, device=self.device, dtype=torch.float64))
        self._radius[self.m] = -torch.inf  # count + pending = m: no example left (bound -inf)
        self._ones = torch.ones(self.reps, dtype=torch.float64, device=self.device)
        self._slots = torch.arange(self.batch_size, device=self.device)
        self.refresh()

    @property
    def supports_ahead(self) -> bool:
        """Row batches only: a pending-count batch would need the pending pairs' positions in its bounds."""
        return self.batch_mode == "row"

    @property
    def asked_rows(self) -> torch.Tensor:
        """Each method's examples asked (its next position): the told counts unless asked ahead."""
        return self._asked_ahead if self._ahead else self.state.counts

    def _start_ahead(self) -> None:
        self._asked_ahead = self.state.counts.clone()

    def _asked_rows(self, rows) -> None:
        r = self._rep_index[:, None].expand_as(rows)
        self.asked_rows.index_put_((r, rows), torch.ones_like(rows, dtype=self.asked_rows.dtype), accumulate=True)
        self._close_full(r, rows)

    def _close_full(self, r, rows) -> None:
        """A method with all m examples asked gets the bound -inf, whatever its told count."""
        full = self.asked_rows[r, rows] >= self.m
        if bool(full.any()):
            self._max.set(r[full], rows[full], torch.full_like(self.asked_rows[r, rows][full], -torch.inf))

    def refresh(self) -> None:
        """Recompute the cached bounds from ``state`` (needed only after editing ``state`` by hand)."""
        self._max = BlockedMax(self._bound(self._optimistic_means(), self.state.counts))
        self._now = self._max.values[:, : self.n]

    def next_batch_size(self) -> int:
        return self.batch_size

    def _bound(self, mean: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        """B = mean + sqrt(a / count); +inf at count 0, -inf once the row is fully evaluated."""
        b = torch.sqrt(self.a / counts.clamp(min=1)).add_(mean)
        return b.masked_fill_(counts == 0, torch.inf).masked_fill_(counts >= self.m, -torch.inf)

    def bounds(self, pending: torch.Tensor | None = None) -> torch.Tensor:
        """Upper confidence bounds B (R, n) with full rows at -inf; ``pending`` evaluations count in |S_i|
        but not in the mean (a row with only pending evaluations gets the optimistic mean 1)."""
        counts = self.state.counts if pending is None else self.state.counts + pending
        return self._bound(self._optimistic_means(), counts)

    def _optimistic_means(self) -> torch.Tensor:
        """Observed means, 1 for a row not yet evaluated."""
        told = self.state.counts
        return torch.where(told > 0, self.state.sums / told.clamp(min=1), torch.ones_like(told))

    def _select(self, k):
        if self.batch_mode == "row":
            return self._select_row(k)
        return self._select_pending(k)

    def _select_row(self, k):
        """One method per batch and k of its unevaluated examples (Zhou et al. Sec. 4.3, Alg. 6 line 4)."""
        r = self._rep_index
        top = self._max.argmax(self.gen)[:, None]
        told = self.asked_rows.gather(1, top).long()
        if k > self._slots.numel():  # a batch size changed after construction
            self._slots = torch.arange(k, device=self.device)
        pos = told + self._slots[:k]
        short = (told[:, 0] > self.m - k).nonzero().squeeze(1)
        if not short.numel():
            return top.expand(-1, k), self.order(r[:, None], top, pos)
        cols = self.order(r[:, None], top, pos.clamp_(max=self.m - 1))
        rows = top.expand(-1, k).clone()
        sub_rows, sub_pos = spill_in_bound_order(self._now.index_select(0, short), self.asked_rows.index_select(0, short),
                                                 top.view(-1).index_select(0, short), k, self.m, self.gen, short)
        rows.index_copy_(0, short, sub_rows)
        cols.index_copy_(0, short, self.order(short[:, None], sub_rows, sub_pos))
        return rows, cols

    def _select_pending(self, k):
        R, r = self.reps, self._rep_index
        told = self.state.counts
        now = self._now
        top = top_k_random_ties(now, min(k, self.n), self.gen)
        c_top = told.gather(1, top)
        if k == 1:
            return top, self.order(r[:, None], top, c_top.long())
        s_top = self.state.sums.gather(1, top)
        mean = torch.where(c_top > 0, s_top / c_top.clamp(min=1), torch.ones_like(c_top))
        p = torch.arange(k, device=self.device)
        ct = c_top.long()[:, :, None] + p
        cand = torch.where(p == 0, now.gather(1, top)[:, :, None], mean[:, :, None] + self._radius[ct.clamp(max=self.m)])
        pick = top_k_random_ties(cand.reshape(R, -1), k, self.gen)
        slot, pend = pick // k, pick % k
        rows = top.gather(1, slot)
        pos = c_top.gather(1, slot).long() + pend
        return rows, self.order(r[:, None], rows, pos)

    def _update(self, rows, cols, scores):
        """Sums, counts and bounds of the rows just told. A batch on one method per repetition (``batch_mode``
        "row" without spill) is added as one total per repetition (``BlockedMax.set`` then refreshes one block
        per repetition, not one per pair). Otherwise the batch's first method gets one total per repetition and
        each pair on another method (a row batch's spill, pending batches) is added on its own, all in one
        ``index_add_`` on the flattened state and one ``BlockedMax.set``."""
        if self._ahead:
            self._update_rows(rows, scores)
            self._close_full(self._rep_index[:, None].expand_as(rows), rows)
            return
        top = rows[:, 0]
        if rows.shape[1] == 1 or rows.stride(1) == 0:
            self._add_to(top, scores.sum(dim=1, dtype=torch.float64), rows.shape[1])
            return
        same = rows == top[:, None]
        rest = (~same).view(-1).nonzero().squeeze(1)
        on_top = (scores * same).sum(dim=1, dtype=torch.float64)
        if not rest.numel():
            self._add_to(top, on_top, same.sum(dim=1))
            return
        reps = torch.cat((self._rep_index, rest.div(rows.shape[1], rounding_mode="floor")))
        at = torch.cat((top, rows.view(-1).index_select(0, rest)))
        flat = at.add(reps, alpha=self.n)
        totals = torch.cat((on_top, scores.view(-1).index_select(0, rest).double()))
        told = torch.cat((same.sum(dim=1, dtype=torch.float64), torch.ones(rest.numel(), dtype=torch.float64,
                                                                              device=self.device)))
        sums, counts = self.state.sums.view(-1), self.state.counts.view(-1)
        sums.index_add_(0, flat, totals)
        counts.index_add_(0, flat, told)
        self._max.set(reps, at, self._told_bound(sums.index_select(0, flat), counts.index_select(0, flat)))

    def _update_rows(self, rows, scores):
        """Add each told pair to its method's sums and counts and refresh the bounds (pairs asked ahead)."""
        reps = self._rep_index[:, None].expand_as(rows).reshape(-1)
        flat = reps * self.n + rows.reshape(-1)
        sums, counts = self.state.sums.view(-1), self.state.counts.view(-1)
        sums.index_add_(0, flat, scores.reshape(-1).double())
        counts.index_add_(0, flat, torch.ones_like(flat, dtype=torch.float64))
        self._max.set(reps, rows.reshape(-1), self._told_bound(sums.index_select(0, flat), counts.index_select(0, flat)))

    def _told_bound(self, sums, counts):
        """:meth:`_bound` of rows with ``counts >= 1``, the radius read from the ``_radius`` table (same float64 values;
        -inf at ``counts = m``). One-dimensional ``sums`` and ``counts``."""
        return sums / counts + self._radius.index_select(0, counts.long())

    def _add_to(self, rows, totals, k):
        """Add ``totals`` over ``k >= 1`` evaluations to row ``rows[i]`` of every repetition i and refresh its bound."""
        flat = rows.add(self._rep_index, alpha=self.n)
        sums, counts = self.state.sums.view(-1), self.state.counts.view(-1)
        sums.index_add_(0, flat, totals)
        if isinstance(k, int):
            counts.index_add_(0, flat, self._ones, alpha=k)
        else:
            counts.index_add_(0, flat, k.to(counts.dtype))
        self._max.set(None, rows, self._told_bound(sums.index_select(0, flat), counts.index_select(0, flat)))

    def estimate(self):
        return self.state.means()
