"""Prior-assisted confidence sequences for a finite population sampled without replacement (issue 59, item 2).

A model's mean over m examples, mu = (1/m) sum_j s_j, is estimated from its scores on examples drawn uniformly
without replacement, helped by predictions p_j of the scores it has not been asked yet. The predictions may be
anything, however wrong: they are fitted, before each draw, from the model's own earlier scores and what was known
before the first call (a prior score matrix of other models, or a user's predictor), so they are *predictable*. The
sequence is valid at every stopping time whatever they are; good predictions make it narrow.

**The one-step estimator.** Before draw t (1-based) the unseen set U_t has m - t + 1 examples, S_{t-1} is the sum of
the scores seen, and the predictions p^(t) and a weight lam_t in [0, 1] are fixed (predictable). The draw's
residual x_t = s_t - lam_t p^(t)_{j_t} has conditional mean

    E[x_t | past] = (m mu - S_{t-1} - lam_t P_t) / (m - t + 1),   P_t = sum_{j in U_t} p^(t)_j,

(the draw is uniform on U_t), which is affine in mu: the without-replacement form of PULSE's doubly robust
estimator (Tolochinsky et al. 2026, Lemma 1: known total of the predictions plus the mean residual; lam_t is their
Step 3 weight, here lam_t = Cov(s, p) / Var(p) on the model's earlier draws, each with the prediction it had before
its draw, clipped to [0, 1], so that useless predictions get lam near 0 and cost nothing).

**The sequence.** Given the past, x_t lies in [a_t, a_t + w_t] with a_t = -lam_t max_j p^(t)_j and
w_t = 1 + lam_t (max_j p^(t)_j - min_j p^(t)_j) (both predictable), so u_t = (x_t - a_t) / w_t is in [0, 1], with
conditional mean nu_t = (E[x_t | past] - a_t) / w_t. For any predictable bet b_t in [0, 1) and predictable
mu_hat_{t-1} in [0, 1], Fan et al.'s inequality exp(b y - psi(b) y^2) <= 1 + b y (y >= -1,
psi(b) = -log(1 - b) - b) at y = u_t - mu_hat_{t-1}, multiplied by exp(b (mu_hat_{t-1} - nu_t)) and averaged, gives

    E[ exp(b_t (u_t - nu_t) - psi(b_t) (u_t - mu_hat_{t-1})^2) | past ] <= 1

(the predictable-plug-in empirical Bernstein supermartingale of Waudby-Smith & Ramdas 2024, JRSS-B, Thm. 2, with
the conditional mean nu_t of a without-replacement draw as in Waudby-Smith & Ramdas 2020, Sec. 3). The same holds for
the mirror 1 - u_t. Ville's inequality on both, each at delta / 2, gives, for all t at once with probability
>= 1 - delta, |centre_t - mu scale_t| <= log(2 / delta) + sum_i psi(b_i) (u_i - mu_hat_{i-1})^2 with

    centre_t = sum_i (b_i / w_i) (x_i + (S_{i-1} + lam_i P_i) / (m - i + 1)),
    scale_t  = sum_i (b_i / w_i) m / (m - i + 1),

because sum_i b_i (u_i - nu_i) = centre_t - mu scale_t. Bets and plug-in means are those of
:class:`paperlib.confseq.WoRMeanCS` on the u's (b_i = min(1/2, sqrt(2 log(2/delta) / (sigma_hat^2 i log(1 + i))))).
With lam = 0 the sequence is exactly WoRMeanCS's empirical Bernstein one; with perfect predictions (lam = 1) the u's
are constant and the width shrinks as 1 / t. As in :class:`paperlib.confseq.WoRMeanCS` (``kind="both"``), the
sequence at delta / 2 is intersected with the plain Hoeffding sequence at delta / 2, with the sure interval
[S_t / m, (S_t + m - t) / m] and with its own past.

**The predictions.** Example features F (m x d) and a ridge fit of each model's observed scores on them, shrunk to a
prior coefficient beta_0 (the prior's average model, or the user's predictions as they are): beta = (G + alpha I)^-1
(b + alpha beta_0) with G = sum f f^T, b = sum f s over the model's scores told so far; refitted when its count has
grown by ``refit_growth`` (the schedule is fixed, so the refits are predictable). The predictions are linear in the
features, p_j = f_j^T beta, so P_t = (sum_all f - sum_seen f)^T beta costs O(d), and the range max/min_j p_j over
all m examples (a superset of U_t, so the bound holds) is computed at each refit.

Written by hand: no package offers anytime-valid, prior-assisted sequences without replacement (Kilian, Cortinovis &
Caron 2025 give asymptotic ones with replacement; ``confseq`` does not build on Python >= 3.11).
"""

from __future__ import annotations

import math

import torch

from .checks import check_delta, check_scalar
from .confseq import WoRMeanCS, earlier_in_batch_sums
from .pickling import KeepsViews

# the per-stream sums of one (C, R, n) tensor, so that a batch adds to them with one scatter
_LO_CENTRE, _LO_SCALE, _LO_PEN, _HI_CENTRE, _HI_SCALE, _HI_PEN, _P, _P2, _SP, _S2, _N = range(11)
_NSUMS = 11
_CAP = 0.5  # the largest bet on the scale of a side's room (Waudby-Smith & Ramdas 2024: 1/2; 3/4 needed 10% more calls on
# sysrs_arc_challenge, benchmarks/bench_prior.py, 2026-11-28)


class PriorAssistedCS(KeepsViews):
    """Prior-assisted confidence sequences for an (R, n) grid of streams; see the module docstring.

    Parameters
    ----------
    reps, n : the grid (repetitions x models)
    population : m, the examples
    delta : each stream's sequence covers its mean at every step with probability >= 1 - delta
    features : (m, d) or (n, m, d) tensor
        Example features (shared by every model, :func:`paperlib.prior.example_features`) or per model (a user's
        predictions: [1, p_ij]).
    beta0 : (d,) or (n, d) tensor
        The coefficients the ridge fit shrinks to (what is predicted before any score).
    ridge : float
        alpha, the weight of beta0 in scores' units (alpha = 1: as much as one observation per feature).
    refit_growth : float
        Refit a stream's coefficients when its count has grown by this fraction (and by at least one score).
    """

    def __init__(self, reps: int, n: int, population: int, delta: float, features, beta0, ridge: float = 1.0,
                 refit_growth: float = 0.1, device=None):
        self.delta = check_delta(delta)
        self.ridge = check_scalar(ridge, "ridge", float, low=0.0, closed="neither")
        self.refit_growth = check_scalar(refit_growth, "refit_growth", float, low=0.0)
        self.population = m = int(population)
        F = torch.as_tensor(features, dtype=torch.float64, device=device)
        F = F[None] if F.dim() == 2 else F
        if F.dim() != 3 or F.shape[1] != m or F.shape[0] not in (1, n):
            raise ValueError(f"features must be (m, d) or (n, m, d) with m = {m}, n = {n}; got {tuple(features.shape)}")
        if not bool(torch.isfinite(F).all()):
            raise ValueError("features must be finite")
        d = F.shape[2]
        b0 = torch.as_tensor(beta0, dtype=torch.float64, device=device)
        b0 = b0[None] if b0.dim() == 1 else b0
        if b0.shape != (F.shape[0], d):
            raise ValueError(f"beta0 must be ({d},) or ({F.shape[0]}, {d}), got {tuple(b0.shape)}")
        self.kind = "prior"
        self.features, self.beta0, self.d = F, b0, d
        self._per_model = F.shape[0] == n
        self._hoeffding = WoRMeanCS(reps, n, m, self.delta / 2, device=device, kind="hoeffding")
        self.count, self.sum = self._hoeffding.count, self._hoeffding.sum
        self._log_term = math.log(4.0 / self.delta)  # each side of the prior-assisted part at delta / 4
        z = lambda *lead: torch.zeros(*lead, reps, n, dtype=torch.float64, device=device)  # noqa: E731
        self._sums = z(_NSUMS)
        self._fit = z(d * d + 2 * d).permute(1, 2, 0).contiguous()  # G, b, sum of seen f: (R, n, d d + 2 d)
        F_rows = self._feature_rows(torch.arange(n, device=device))
        self.beta = self.beta0[torch.zeros(n, dtype=torch.long, device=device) if not self._per_model
                               else torch.arange(n, device=device)].expand(reps, n, d).clone()
        self._total_f = F.sum(dim=1)  # (n_f, d)
        pred = torch.einsum("nmd,nd->nm", F_rows, self.beta[0])
        self.pmax = pred.amax(dim=1).expand(reps, n).clone()
        self.pmin = pred.amin(dim=1).expand(reps, n).clone()
        self.weight = z()  # lam: the predictions' weight (0 until two scores say otherwise)
        self._next_refit = torch.ones(reps, n, dtype=torch.long, device=device)
        self.lower, self.upper = z(), torch.ones(reps, n, dtype=torch.float64, device=device)
        self._reps = torch.arange(reps, device=device)
        self._eye = torch.eye(d, dtype=torch.float64, device=device)
        self.refits = 0

    # --------------------------------------------------------------------------------------------- helpers
    def _feature_rows(self, rows: torch.Tensor) -> torch.Tensor:
        """The feature tables of models ``rows`` (shape rows.shape + (m, d)); a shared table is expanded (no copy)."""
        if self._per_model:
            return self.features[rows]
        return self.features[0].expand(*rows.shape, *self.features.shape[1:])

    def _f(self, rows: torch.Tensor, cols: torch.Tensor) -> torch.Tensor:
        """The features of the pairs (rows, cols), (R, k, d)."""
        if self._per_model:
            return self.features[rows, cols]
        return self.features[0][cols]

    def predictions(self) -> torch.Tensor:
        """Each stream's current predictions of every example, (R, n, m) (for inspection; the update never builds
        it)."""
        F = self._feature_rows(torch.arange(self.beta.shape[1], device=self.beta.device))
        return torch.einsum("nmd,rnd->rnm", F, self.beta)

    # --------------------------------------------------------------------------------------------- update
    def update(self, rows: torch.Tensor, cols: torch.Tensor, scores: torch.Tensor, valid=None) -> None:
        """Absorb (R, k) draws: model ``rows`` scored ``scores`` on example ``cols``, each repetition's draws of a
        model in the order of its uniform sample (``valid``: as :meth:`paperlib.confseq.WoRMeanCS.update`)."""
        rows, cols = rows.long(), cols.long()
        x = torch.as_tensor(scores, dtype=torch.float64, device=rows.device)
        R, n, m = self.count.shape[0], self.count.shape[1], self.population
        r = self._reps[:, None].expand_as(rows)
        k = rows.shape[1]
        f = self._f(rows, cols)  # (R, k, d)
        beta = self.beta[r, rows]
        p = (f * beta).sum(-1)
        lam = self.weight[r, rows]
        pmax, pmin = self.pmax[r, rows], self.pmin[r, rows]
        a = -lam * pmax
        w = 1.0 + lam * (pmax - pmin)
        resid = x - lam * p
        u = ((resid - a) / w).clamp(0.0, 1.0)  # in [0, 1] by construction; the clamp absorbs rounding
        fit = self._fit[r, rows]  # (R, k, d d + 2 d)
        seen_f = fit[..., -self.d:]
        total_f = self._total_f[rows if self._per_model else torch.zeros_like(rows)]
        P = ((total_f - seen_f) * beta).sum(-1)  # predictions' sum over the unseen examples before the batch
        mine = torch.ones_like(x) if valid is None else valid.to(x.dtype)
        # what the stream knew before each draw: its sums, plus the earlier draws of the batch on the same model
        known = self._sums[_P:][:, r, rows]  # (5, R, k): sum p, p^2, s p, s^2, count (prequential)
        S = self.sum[r, rows]
        if k > 1:
            mx = x * mine
            before = earlier_in_batch_sums(rows, torch.stack([p * mine, p * p * mine, mx * p, mx * x, mine, mx], dim=-1))
            known = known + before[..., :5].permute(2, 0, 1)
            S = S + before[..., 5]
            P = P - before[..., 0]  # the batch's earlier draws are no longer unseen
        sp_, pp_, spp, ss_, t0 = known
        i = t0 + 1
        if bool(((i > m) & (mine > 0)).any()):
            raise ValueError("a stream received more draws than its population size")
        # plug-in mean and variance of u from the earlier draws' residuals under today's weight (predictable)
        t_safe = t0.clamp(min=1)
        mean_x = (S - lam * sp_) / t_safe
        q = (ss_ - 2 * lam * spp + lam * lam * pp_ - t0 * mean_x.square()).clamp(min=0.0)
        mu_hat = (0.5 + t0 * ((mean_x - a) / w).clamp(0.0, 1.0)) / i
        var_u = (0.25 + q / w.square()) / i
        left = (m - i + 1).clamp(min=1)
        known_part = (S + lam * P) / left
        adds = []
        for room, dev in ((mu_hat, u - mu_hat), (1.0 - mu_hat, mu_hat - u)):  # the lower side, then the upper side
            # one-sided Fan: (u - mu_hat) / room >= -1 on the lower side (u >= 0), (mu_hat - u) / room >= -1 on the
            # upper side (u <= 1); the bet is the empirical Bernstein one on that scale, capped at 1/2
            bet = torch.sqrt(2.0 * self._log_term * room.square() / (var_u * i * torch.log1p(i))).clamp(max=_CAP)
            pen = (-torch.log1p(-bet) - bet) * (dev / room).square()
            eff = bet / (room * w)  # the bet on x's scale
            adds += [eff * (resid + known_part), eff * m / left, pen]
        add = torch.stack(adds + [p, p * p, x * p, x * x, torch.ones_like(x)])
        add = add * mine
        flat = (self._reps[:, None] * n + rows).reshape(-1)
        self._sums.view(_NSUMS, -1).index_add_(1, flat, add.reshape(_NSUMS, -1))
        fadd = torch.cat([(f[..., :, None] * f[..., None, :]).flatten(-2), f * x[..., None], f], dim=-1)
        self._fit.view(R * n, -1).index_put_((flat,), (fadd * mine[..., None]).reshape(R * k, -1), accumulate=True)
        self._hoeffding.update(rows, x, valid=valid)
        self._refresh()
        self._reweigh(flat)
        self._refit()

    def _refresh(self) -> None:
        sm = self._sums
        lo_scale, hi_scale = sm[_LO_SCALE], sm[_HI_SCALE]
        lo = torch.where(lo_scale > 0, (sm[_LO_CENTRE] - self._log_term - sm[_LO_PEN]) / lo_scale, -torch.inf)
        hi = torch.where(hi_scale > 0, (sm[_HI_CENTRE] + self._log_term + sm[_HI_PEN]) / hi_scale, torch.inf)
        self.lower = torch.maximum(self.lower, torch.maximum(lo, self._hoeffding.lower))
        self.upper = torch.minimum(self.upper, torch.minimum(hi, self._hoeffding.upper))

    def _reweigh(self, flat: torch.Tensor) -> None:
        """lam = Cov(s, p) / Var(p) over each stream's draws, each with the prediction it had before its draw,
        clipped to [0, 1]; 0 until two draws with distinct predictions."""
        nn = self._sums[_N]
        safe = nn.clamp(min=1)
        sp = self._sums[_SP] - self.sum * self._sums[_P] / safe
        pp = self._sums[_P2] - self._sums[_P].square() / safe
        ok = (nn >= 2) & (pp > 1e-12 * nn)
        self.weight = torch.where(ok, (sp / pp.clamp(min=1e-300)).clamp(0.0, 1.0), 0.0)

    def _refit(self) -> None:
        """Refit the coefficients (and the prediction range) of the streams whose count reached their refit point."""
        due = self.count.long() >= self._next_refit
        if not bool(due.any()):
            return
        rr, jj = due.nonzero(as_tuple=True)
        d = self.d
        fit = self._fit[rr, jj]
        G = fit[:, : d * d].view(-1, d, d)
        b = fit[:, d * d: d * d + d]
        b0 = self.beta0[jj if self._per_model else torch.zeros_like(jj)]
        beta = torch.linalg.solve(G + self.ridge * self._eye, (b + self.ridge * b0)[..., None])[..., 0]
        if self._per_model:
            pred = torch.einsum("smd,sd->sm", self.features[jj], beta)
        else:
            pred = (self.features[0] @ beta.T).T
        self.beta[rr, jj] = beta
        self.pmax[rr, jj], self.pmin[rr, jj] = pred.amax(dim=1), pred.amin(dim=1)
        c = self.count[rr, jj].long()
        self._next_refit[rr, jj] = torch.maximum(c + 1, torch.ceil(c * (1.0 + self.refit_growth)).long())
        self.refits += int(rr.numel())
