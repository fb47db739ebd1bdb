"""Ensemble low-rank factorisation oracle (Zhou et al., 2025, Eq. 1-2), batched over R and K."""

from __future__ import annotations

import torch


class LowRankEnsemble:
    """Ensemble of K rank-r factorisations fitted by alternating least squares.

    Member k minimises ``sum_ij O^(k)_ij (U_i . V_j - E_ij)^2 + lam (|U|^2 + |V|^2)`` (Eq. 1;
    ``lam`` is a small ridge that keeps a row or column with no observation finite), where
    ``O^(k)`` is the observation mask with each observed entry dropped independently with
    probability ``drop`` (the paper's "zero out 5% of the ones"), redrawn at every fit. Members
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
        self.u = 0.1 * torch.randn((self.reps, k, self.n, r), generator=self.gen, device=self.device)
        self.v = 0.5 * torch.randn((self.reps, k, self.m, r), generator=self.gen, device=self.device)
        self.v[..., 0] = 1.0 + 0.1 * self.v[..., 0]

    @staticmethod
    def _outer(x: torch.Tensor) -> torch.Tensor:
        return (x[..., :, None] * x[..., None, :]).flatten(-2)

    def _half_step(self, oe, o, other, drop_idx, own_idx, other_idx, drop_val):
        """Solve one factor (R, K, rows, r) given ``other`` (R, K, cols, r).

        ``oe``/``o`` are (R, rows, cols) masked scores / mask; ``drop_idx = (rep, member)`` and
        ``own_idx``/``other_idx``/``drop_val`` describe the dropped observed entries.
        """
        reps, k, cols, r = other.shape
        rows = oe.shape[1]
        stacked = other.permute(0, 2, 1, 3).reshape(reps, cols, k * r)
        rhs = (oe @ stacked).view(reps, rows, k, r).permute(0, 2, 1, 3).contiguous()
        outer = self._outer(other)
        gram = (o @ outer.permute(0, 2, 1, 3).reshape(reps, cols, k * r * r))
        gram = gram.view(reps, rows, k, r * r).permute(0, 2, 1, 3).contiguous()
        if drop_val.numel():
            ri, ki = drop_idx
            vv = other[ri, ki, other_idx]
            rhs.index_put_((ri, ki, own_idx), -(drop_val[:, None] * vv), accumulate=True)
            gram.index_put_((ri, ki, own_idx), -self._outer(vv), accumulate=True)
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
        dropped = torch.rand((self.reps, self.ensemble, cnt), generator=self.gen, device=self.device) < self.drop
        ri, ki, ei = dropped.nonzero(as_tuple=True)
        d_rows, d_cols, d_val = obs.rows[ri, ei], obs.cols[ri, ei], obs.scores[ri, ei]
        o_t, oe_t = o.transpose(1, 2).contiguous(), oe.transpose(1, 2).contiguous()
        u, v = self.u, self.v
        for _ in range(sweeps):
            u = self._half_step(oe, o, v, (ri, ki), d_rows, d_cols, d_val)
            v = self._half_step(oe_t, o_t, u, (ri, ki), d_cols, d_rows, d_val)
        self.u, self.v = u, v
        k, r = self.ensemble, self.rank
        us = u.permute(0, 2, 1, 3).reshape(self.reps, self.n, k * r)
        vs = v.permute(0, 2, 1, 3).reshape(self.reps, self.m, k * r)
        mean = us @ vs.transpose(1, 2) / k
        uo = self._outer(u).permute(0, 2, 1, 3).reshape(self.reps, self.n, k * r * r)
        vo = self._outer(v).permute(0, 2, 1, 3).reshape(self.reps, self.m, k * r * r)
        second = uo @ vo.transpose(1, 2) / k
        std = (second - mean * mean).clamp(min=0).sqrt()
        return mean, torch.where(obs.mask, torch.zeros_like(std), std)
