"""Judge simulators: one query of item i returns one random judge score of that item.

Every simulator draws batched queries, ``draw(arms, gen)`` with ``arms`` a long tensor of any
shape (typically (R,) or (R, T)), and knows each item's true mean ``s_i`` and variance
``sigma_i^2`` so that estimation errors and the theorems' bounds can be computed exactly.

(a) :class:`PoolJudge` resamples the stored repeated judgments, as the paper does (Sec. 5.1);
(b) :class:`CategoricalJudge` draws exactly from a per-item answer distribution (``llmrubric_dist``);
(c) :func:`synthetic_judge` builds Gaussian and bounded discrete judges with heterogeneous
    variances, calibrated to the paper's setting (K = 1,017 pairs, 0-4 scale).
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.special import ndtr

from ..data.judge_pools import JudgeDistribution, JudgePool
from ..device import get_device
from ..keyed import normal, uniform


class Judge:
    """Base class. ``means``/``variances`` are numpy (K,) arrays; ``human`` is (K,) or None."""

    name = "judge"
    kind = "synthetic"
    human: np.ndarray | None = None
    scale: tuple[float, float] | None = None
    gaussian = False

    def __init__(self, means: np.ndarray, variances: np.ndarray, device=None):
        self.means = np.asarray(means, dtype=np.float64)
        self.variances = np.clip(np.asarray(variances, dtype=np.float64), 0.0, None)
        self.device = get_device(device)

    @property
    def K(self) -> int:
        return int(self.means.shape[0])

    def draw(self, arms: torch.Tensor, gen) -> torch.Tensor:
        """Scores of the queries ``arms`` (R, k): row r from repetition r's keyed stream (``gen`` a
        :class:`paperlib.keyed.KeyedStream`), or from a shared ``torch.Generator``."""
        raise NotImplementedError

    def describe(self) -> dict:
        return {"name": self.name, "kind": self.kind, "K": self.K}


class PoolJudge(Judge):
    """Resample uniformly (with replacement) from each item's valid stored judgments."""

    def __init__(self, pool: JudgePool, device=None):
        super().__init__(pool.means(), pool.variances(), device)
        self.name, self.kind, self.human, self.scale = pool.name, pool.kind, pool.human, pool.scale
        self.meta = dict(pool.meta)
        vals = pool.scores
        order = np.argsort(np.isnan(vals), axis=1, kind="stable")
        packed = np.take_along_axis(vals, order, axis=1)
        self.values = torch.as_tensor(np.nan_to_num(packed), dtype=torch.float64, device=self.device)
        self.counts = torch.as_tensor(pool.counts, dtype=torch.float64, device=self.device)

    def draw(self, arms, gen):
        u = uniform(gen, arms.shape, dtype=torch.float64, device=self.device)
        cnt = self.counts[arms]
        j = torch.minimum((u * cnt).long(), cnt.long() - 1)
        return self.values[arms, j]


class CategoricalJudge(Judge):
    """Exact draws from ``probs[i]`` over the answer values (inverse-CDF sampling)."""

    def __init__(self, probs, values, name="categorical", kind="synthetic", human=None, device=None):
        probs = np.asarray(probs, dtype=np.float64)
        values = np.asarray(values, dtype=np.float64)
        if probs.ndim != 2 or probs.shape[1] != values.shape[0]:
            raise ValueError(f"probs must be (K, {values.shape[0]}), got {probs.shape}")
        if (probs < 0).any() or not np.allclose(probs.sum(axis=1), 1.0, atol=1e-6):
            raise ValueError("each row of probs must be a probability distribution")
        mean = probs @ values
        super().__init__(mean, probs @ values**2 - mean**2, device)
        self.name, self.kind, self.human = name, kind, human
        self.scale = (float(values.min()), float(values.max()))
        self.probs = probs
        cdf = np.cumsum(probs, axis=1)
        cdf[:, -1] = 1.0
        self.cdf = torch.as_tensor(cdf, dtype=torch.float64, device=self.device)
        self.values = torch.as_tensor(values, dtype=torch.float64, device=self.device)

    @classmethod
    def from_distribution(cls, dist: JudgeDistribution, device=None) -> "CategoricalJudge":
        return cls(dist.probs, dist.values, dist.name, dist.kind, dist.human, device)

    def draw(self, arms, gen):
        u = uniform(gen, arms.shape, dtype=torch.float64, device=self.device).reshape(-1)
        flat = arms.reshape(-1)
        idx = torch.empty_like(flat)
        step = 1 << 21  # bounds the (step, L) CDF gather
        for i in range(0, flat.numel(), step):
            cdf = self.cdf[flat[i : i + step]]
            idx[i : i + step] = (u[i : i + step, None] >= cdf).sum(-1)
        return self.values[idx.clamp(max=self.values.shape[0] - 1)].reshape(arms.shape)


class GaussianJudge(Judge):
    """X_i ~ N(s_i, sigma_i^2): the noise model of Theorem 5 (and sub-Gaussian, Theorem 3)."""

    gaussian = True

    def __init__(self, means, sds, name="gaussian", kind="synthetic", device=None):
        sds = np.asarray(sds, dtype=np.float64)
        if (sds < 0).any():
            raise ValueError("standard deviations must be non-negative")
        super().__init__(means, sds**2, device)
        self.name, self.kind = name, kind
        self._mu = torch.as_tensor(self.means, device=self.device)
        self._sd = torch.as_tensor(sds, device=self.device)

    def draw(self, arms, gen):
        z = normal(gen, arms.shape, dtype=torch.float64, device=self.device)
        return self._mu[arms] + self._sd[arms] * z


def judge_from(source, device=None) -> Judge:
    """Wrap a :class:`JudgePool` or :class:`JudgeDistribution` in its simulator."""
    if isinstance(source, JudgePool):
        return PoolJudge(source, device)
    if isinstance(source, JudgeDistribution):
        return CategoricalJudge.from_distribution(source, device)
    if isinstance(source, Judge):
        return source
    raise TypeError(f"cannot build a judge from {type(source).__name__}")


def synthetic_params(K: int = 1017, seed: int = 0, lo: float = 0.0, hi: float = 4.0,
                     sd_median: float = 0.5, sd_spread: float = 0.6, frac_certain: float = 0.25):
    """Per-item latent means and spreads with heterogeneous variance.

    A fraction ``frac_certain`` of items is deterministic (spread 0: the judge always gives the
    same score, as for the 26% of Topical-Chat items whose 20 samples agree); the rest have
    log-normal spreads with median ``sd_median`` and log-sd ``sd_spread``, clipped to
    [0.25, 1.5]. Means are uniform on [lo + 0.5, hi - 0.5]; deterministic items sit on an integer.
    """
    rng = np.random.default_rng(seed)
    mu = rng.uniform(lo + 0.5, hi - 0.5, size=K)
    sd = np.exp(rng.normal(np.log(sd_median), sd_spread, size=K)).clip(0.25, 1.5)
    certain = rng.random(K) < frac_certain
    sd[certain] = 0.0
    mu[certain] = np.round(mu[certain])
    return mu, sd


def discretised_normal_probs(mu: np.ndarray, sd: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """P(round(N(mu, sd^2)) = k) for k = lo..hi, tails folded into the end points."""
    edges = np.arange(lo, hi + 2) - 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (edges[None, :] - mu[:, None]) / sd[:, None]
    z = np.where(sd[:, None] > 0, z, np.where(edges[None, :] > mu[:, None], np.inf, -np.inf))
    cdf = ndtr(z)  # the normal CDF that scipy.stats.norm.cdf calls; importing scipy.stats costs ~0.6 s of start-up
    cdf[:, 0], cdf[:, -1] = 0.0, 1.0
    return np.diff(cdf, axis=1)


def synthetic_judge(family: str = "discrete", K: int = 1017, seed: int = 0, device=None, **kw) -> Judge:
    """Synthetic judge calibrated to the paper's setting (about 1,000 pairs, 0-4 integer scores).

    ``family="discrete"``: integer scores 0..4, a discretised normal per item (bounded judge);
    ``family="gaussian"``: X ~ N(mu_i, sd_i^2) with the same latent mu_i, sd_i.
    """
    mu, sd = synthetic_params(K, seed, **kw)
    if family == "gaussian":
        return GaussianJudge(mu, sd, name=f"synthetic-gaussian-K{K}", device=device)
    if family == "discrete":
        probs = discretised_normal_probs(mu, sd, 0, 4)
        return CategoricalJudge(probs, np.arange(5.0), name=f"synthetic-discrete-K{K}", device=device)
    raise ValueError(f"unknown synthetic family {family!r}; use 'discrete' or 'gaussian'")
