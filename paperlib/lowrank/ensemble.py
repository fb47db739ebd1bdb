"""Ensemble low-rank factorisation oracle (Zhou et al., 2025, Eq. 1-2), batched over R and K."""

from __future__ import annotations

import math

import torch

from ..keyed import is_keyed


def bernoulli_positions(reps: int, members: int, length: int, p: float, gen, device):
    """Where ``torch.rand(reps, members, length) < p`` is true, as ``nonzero(as_tuple=True)`` lists it.

    Draws the gaps between successes (geometric: floor(log U / log(1 - p)) failures before each
    success) instead of one uniform per entry, so it costs O(p x entries) rather than O(entries):
    the same i.i.d. Bernoulli(p) law, about 20x fewer draws at p = 0.05. Rows whose drawn gaps do
    not reach ``length`` (a 6-sigma event per chunk) get another chunk. With keyed streams
    (:class:`paperlib.keyed.KeyedStream`) a member's gaps are numbers of its repetition's stream at fixed positions,
    and every repetition's counter moves on once, so a repetition's positions never depend on how many chunks another
    repetition needed. Lengths up to 2^24 per member.
    """
    empty = torch.zeros(0, dtype=torch.long, device=device)
    if p <= 0 or length == 0:
        return empty, empty, empty
    rows = reps * members
    if p >= 1:
        flat = torch.arange(rows * length, device=device)
        return flat // (members * length), (flat // length) % members, flat % length
    mean = length * p
    chunk = int(mean + 6 * math.sqrt(mean * (1 - p)) + 16)
    log_q = math.log1p(-p)
    pos = torch.full((rows, 0), -1, dtype=torch.long, device=device)
    last = torch.full((rows,), -1, dtype=torch.long, device=device)
    keyed = is_keyed(gen)
    if keyed:  # one draw of each repetition's stream: member i's c-th chunk is its numbers (i S + c chunk + j)
        who = torch.arange(reps, device=device).repeat_interleave(members)
        at = (torch.arange(rows, device=device) % members)[:, None] * (1 << 24) + torch.arange(chunk, device=device)
        none = torch.zeros(0, dtype=torch.long, device=device)
    c = 0
    while bool((last < length - 1).any()):
        if keyed:
            bits = gen.bits_at(who, at + c * chunk, advance=none)  # the counters move on once, after the loop
            u = 1.0 - ((bits >> 11) & ((1 << 53) - 1)).to(torch.float64) * 2.0**-53
            c += 1
        else:
            u = 1.0 - torch.rand((rows, chunk), generator=gen, device=device, dtype=torch.float64)
        gaps = torch.floor(torch.log(u) / log_q).long() + 1
        new = last[:, None] + gaps.cumsum(dim=1)
        pos = torch.cat([pos, new], dim=1)
        last = new[:, -1]
    if keyed:
        gen.counter += 1
    row, j = (pos < length).nonzero(as_tuple=True)
    return row // members, row % members, pos[row, j]


class LowRankEnsemble:
    """Ensemble of K rank-r factorisations fitted by alternating least squares.

    Member k minimises ``sum_ij O^(k)_ij (U_i . V_j - E_ij)^2 + lam (|U|^2 + |V|^2)`` (Eq. 1;
    ``lam`` is a small ridge that keeps a row or column with no observation finite), where
    ``O^(k)`` is the observation mask with each observed entry dropped independently with
    probability ``drop`` (the paper's "zero out 5% of the ones"), redrawn at every fit
    (:func:`bernoulli_positions`: geometric gaps, O(drop x observed) draws). Members
    are warm-started from their previous solution.

    Each ALS half-step is computed as the full-mask term for all K members at once (one matmul
    against the stacked factors) minus a sparse correction over the dropped entries only, so
    no (K, n, m) tensor is ever formed. The ensemble mean and variance of the predictions are
    matmuls too: ``mean = U_s V_s^T / K`` and ``E[pred^2] = (U (x) U)_s (V (x) V)_s^T / K``.

    Eq. 2 defines ``E_hat = (1 - O) * mean_k(U^(k) V^(k)T)`` and ``R_ij`` as the root mean square
    deviation of the members from ``E_hat_ij``. Read literally, on observed entries
    ``E_hat_ij = 0`` and R would be the RMS prediction; we use the deviation from the ensemble
    mean (the ensemble standard deviation) and set R to 0 on observed entries, the only reading
    in which R measures the uncertainty of an unevaluated pair.
    """

    def __init__(
        self,
        reps: int,
        n: int,
        m: int,
        gen: torch.Generator,
        device,
        rank: int = 1,
        ensemble: int = 64,
        drop: float = 0.05,
        lam: float = 1e-3,
        init_sweeps: int = 20,
        refit_sweeps: int = 2,
    ):
        if rank < 1 or ensemble < 1:
            raise ValueError(f"rank and ensemble must be >= 1 (got {rank}, {ensemble})")
        if not 0.0 <= drop < 1.0:
            raise ValueError(f"drop must lie in [0, 1), got {drop}")
        self.reps, self.n, self.m = reps, n, m
        self.rank, self.ensemble, self.drop, self.lam = rank, ensemble, drop, lam
        self.init_sweeps, self.refit_sweeps = init_sweeps, refit_sweeps
        self.gen, self.device = gen, device
        self.u: torch.Tensor | None = None
        self.v: torch.Tensor | None = None

    def reset(self) -> None:
        self.u = self.v = None

    def _init_factors(self):
        r, k = self.rank, self.ensemble
        if is_keyed(self.gen):
            self.u = 0.1 * self.gen.normal((k, self.n, r))
            self.v = 0.5 * self.gen.normal((k, self.m, r))
        else:
            self.u = 0.1 * torch.randn((self.reps, k, self.n, r), generator=self.gen, device=self.device)
            self.v = 0.5 * torch.randn((self.reps, k, self.m, r), generator=self.gen, device=self.device)
        self.v[..., 0] = 1.0 + 0.1 * self.v[..., 0]

    @staticmethod
    def _outer(x: torch.Tensor) -> torch.Tensor:
        return (x[..., :, None] * x[..., None, :]).flatten(-2)

    def _half_step(self, oe, o, other, own_at, other_at, drop_val):
        """Solve one factor (R, K, rows, r) given ``other`` (R, K, cols, r).

        ``oe``/``o`` are (R, rows, cols) masked scores / mask; the dropped observed entries are
        ``own_at`` / ``other_at`` (flat indices into (R, K, rows) / (R, K, cols)) with scores ``drop_val``.
        """
        reps, k, cols, r = other.shape
        rows = oe.shape[1]
        # contiguous operands: a batched product reads a strided one differently with the number of repetitions,
        # which would round a repetition's solution differently with R (run r of a batch is exactly its run alone)
        stacked = other.permute(0, 2, 1, 3).reshape(reps, cols, k * r).contiguous()
        rhs = torch.bmm(oe, stacked).view(reps, rows, k, r).permute(0, 2, 1, 3).contiguous()
        outer = self._outer(other)
        gram = torch.bmm(o, outer.permute(0, 2, 1, 3).reshape(reps, cols, k * r * r).contiguous())
        gram = gram.view(reps, rows, k, r * r).permute(0, 2, 1, 3).contiguous()
        if drop_val.numel():
            vv = other.reshape(-1, r).index_select(0, other_at)
            rhs.view(-1, r).index_add_(0, own_at, -(drop_val[:, None] * vv))
            gram.view(-1, r * r).index_add_(0, own_at, -self._outer(vv))
        if r == 1:
            return rhs / (gram + self.lam)
        eye = torch.eye(r, device=other.device, dtype=other.dtype)
        a = gram.view(reps, k, rows, r, r) + self.lam * eye
        return torch.linalg.solve(a, rhs.unsqueeze(-1)).squeeze(-1)

    def fit(self, obs) -> tuple[torch.Tensor, torch.Tensor]:
        """Refit on an :class:`~paperlib.policies.base.ObservedMatrix`; return (E_pred, R).

        ``E_pred`` (R, n, m) is the ensemble mean prediction on every entry (the caller gates
        it with O); ``R`` (R, n, m) is the ensemble standard deviation, zero on observed entries.
        """
        sweeps = self.refit_sweeps
        if self.u is None:
            self._init_factors()
            sweeps = self.init_sweeps
        o = obs.mask.float()
        oe = obs.values * o
        cnt = obs.count
        ri, ki, ei = bernoulli_positions(self.reps, self.ensemble, cnt, self.drop, self.gen, self.device)
        entry = ri * obs.rows.shape[1] + ei
        d_rows, d_cols = obs.rows.reshape(-1).index_select(0, entry), obs.cols.reshape(-1).index_select(0, entry)
        d_val = obs.scores.reshape(-1).index_select(0, entry)
        member = ri * self.ensemble + ki
        at_u, at_v = member * self.n + d_rows, member * self.m + d_cols
        o_t, oe_t = o.transpose(1, 2).contiguous(), oe.transpose(1, 2).contiguous()
        u, v = self.u, self.v
        for _ in range(sweeps):
            u = self._half_step(oe, o, v, at_u, at_v, d_val)
            v = self._half_step(oe_t, o_t, u, at_v, at_u, d_val)
        self.u, self.v = u, v
        k, r = self.ensemble, self.rank
        us = u.permute(0, 2, 1, 3).reshape(self.reps, self.n, k * r).contiguous()
        vs = v.permute(0, 2, 1, 3).reshape(self.reps, self.m, k * r).transpose(1, 2).contiguous()
        mean = torch.bmm(us, vs) / k
        uo = self._outer(u).permute(0, 2, 1, 3).reshape(self.reps, self.n, k * r * r).contiguous()
        vo = self._outer(v).permute(0, 2, 1, 3).reshape(self.reps, self.m, k * r * r).transpose(1, 2).contiguous()
        second = torch.bmm(uo, vo) / k
        std = (second - mean * mean).clamp(min=0).sqrt()
        return mean, torch.where(obs.mask, torch.zeros_like(std), std)
