"""PULSE (Tolochinsky et al. 2026, Algorithm 1) and its two baselines on the same UCB-E backbone.

Rows are models (the paper's m), columns examples (the paper's n). Every method pulls T0 batches of
B examples per model first, then repeatedly picks ``argmax_i mu_hat_i + sqrt(a / |O_i|)`` over
models not yet fully observed and evaluates B of its unobserved examples, drawn uniformly without
replacement (:meth:`PULSE._sample_unobserved`: by default sequential rejection until half a row is observed, then a
shuffled list of the row's unobserved examples; ``sampler="rejection"`` rejects to the end). The methods
differ only in mu_hat, an :class:`Estimator` object:

* :class:`DoublyRobust` (PULSE): the running mean (Eq. 3) of the one-step doubly robust estimators (Eq. 2, batch
  form: Z = sum_{j in B_t} (S_ij - lambda S_hat_ij) / pi, pi = |B_t| / |U_i|), with the
  predictable lambda of Step 3 and predictions sigmoid(u_i . v_j) refitted every ``refit_every``
  steps with V frozen (Step 1).
* :class:`ObservedMean` (UCB-E): the observation-only mean (Eq. 4).
* :class:`NaivePooled` (Naive-Pooling): (sum_{O_i} S_ij + sum_{U_i} S_hat_ij) / n with current predictions.

The T0 warm-up batches form the first one-step estimator of every model (lambda = 0, so it equals
the warm-up mean).

Two conventions (``convention=``) fill in what Algorithm 1 leaves to the implementation; the default follows
the authors' code (``elad-tolo/pulse-llm-eval``, ``bandit.py``, ``run_cv_ucbe_bandit_wo_replacement`` with
``lam_cv_method="eb_optimal"`` and ``SI_WARMUP_STEPS=0`` as their README requires for the headline runs):

* ``"authors"``: the residual mean Z_bar that sets lambda starts empty after the warm-up (their ``Z_bar`` and
  ``Z_count`` are only updated inside the loop) and is emptied at every refit of U (their end-of-step retrain
  resets both); lambda = 1 where Z_bar <= 0 (``compute_lam_cv_eb``); the denominator is batch-aware,
  ((1 - pi) / pi) sum_U S_hat^2 + (sum_U S_hat)^2 with pi = |B_t| / |U| (``compute_lam_cv_eb``'s ``S + F_t^2``); a
  fully observed model's estimate is its exact mean (the ``fully_known`` override of the loop). Naive-Pooling
  refreshes a model's prediction sum only when that model is pulled (their ``mean_X_pred_snapshot``, variant
  ``imp_wor``), so a refit does not move every model's estimate at once.
* ``"paper"``: the literal reading of Step 3 (Eq. 27): Z_bar averages Z over all of A_i(t-1), the warm-up's
  batch included, never reset; denominator |U| sum_U S_hat^2; Eq. 3's mean for every model; Naive-Pooling
  recomputes every model's prediction sum at each refit.

One departure from their code is kept in both: after a refit their ``est_Y_comp_step`` subtracts the observed
entries' predictions as they were when observed (``sum_Y_pred_obs`` is not refreshed), which makes theta_t biased
by lambda / n sum_O (S_hat_new - S_hat_old); here theta_t is Eq. (2) with the current predictions, so Lemma 1
holds.

If the model picked by a repetition has fewer than B unobserved examples left, that repetition's batch is what is
left of its row (the authors' ``size=min(batch_size, len(available_cols))``), and the step is still charged B (their
``steps = budget // batch_size``; Algorithm 1's ``for t = 1, ..., b / B``), so every repetition takes the same
number of steps and refits at the same steps. The other repetitions' batches are untouched: a batched run's
repetitions never interact (the request is padded, :class:`paperlib.policies.base.Request`). Before 2026-11-27
every repetition's batch was cut to the smallest any of them could take, which made the repetitions of a batch
depend on each other (500 batched runs put PULSE below UCB-E where single runs do not).
Every random number of repetition r comes from keyed streams of its own (:class:`paperlib.keyed.KeyedStream`, keyed by
``run_seeds(seed, R)[r]``): run r of a batch is exactly the single run with that seed, and any block of runs can be
rerun alone. The selection (index ties, the samplers) has its own stream, so reading ``best()`` at checkpoints does
not change a run.
"""

from __future__ import annotations

import numpy as np
import torch

from ..confseq import PredictableRangeCS
from ..keyed import KeyedStream
from ..lowrank.logistic import refit_rows_sparse, sigmoid
from .base import Policy, random_argmax
from .lazyperm import KeyedPermutations

CONVENTIONS = ("authors", "paper")
#: the keyed stream of the backbone's selection (ties of the index, the samplers); purpose 0 is ``best()``'s ties
SELECTION_STREAM = 1
SAMPLERS = ("rejection", "shuffled")


def predictable_lambda(s_hat_unobs_sum, s_hat_unobs_sq_sum, n_unobs, z_bar):
    """lambda_hat of Step 3 as printed (Eq. 27): clip(1 - (sum_U S_hat) Z_bar / (|U| sum_U S_hat^2), 0, 1).

    Uses only quantities known before the new scores are drawn (predictions, the unobserved
    set and past corrections Z_bar); 0 where sum_U S_hat^2 = 0.
    """
    denom = n_unobs * s_hat_unobs_sq_sum
    raw = 1.0 - s_hat_unobs_sum * z_bar / torch.where(denom > 0, denom, torch.ones_like(denom))
    return torch.where(denom > 0, raw.clamp(0.0, 1.0), torch.zeros_like(raw))


def predictable_lambda_batch(s_hat_unobs_sum, s_hat_unobs_sq_sum, n_unobs, batch, z_bar):
    """lambda_hat as the authors' code computes it for a batch of ``batch`` examples (``bandit.py``,
    ``compute_lam_cv_eb``): clip(1 - F Z_bar / (S + F^2), 0, 1) with F = sum_U S_hat, S = ((1 - pi) / pi) sum_U
    S_hat^2 and pi = batch / |U|; 1 where Z_bar <= 0 or S + F^2 <= 0 (no past residual, or no prediction mass).
    ``batch`` is a number or a tensor of each repetition's batch (their ``B_eff = len(cols)``, the batch actually
    drawn).
    """
    pi = (batch / n_unobs).clamp(1e-12, 1.0)
    denom = (1.0 - pi) / pi * s_hat_unobs_sq_sum + s_hat_unobs_sum.square()
    raw = 1.0 - s_hat_unobs_sum * z_bar / torch.where(denom > 0, denom, torch.ones_like(denom))
    return torch.where((z_bar <= 0) | (denom <= 0), torch.ones_like(raw), raw.clamp(0.0, 1.0))


class Estimator:
    """mu_hat on the PULSE backbone: the one thing its methods differ in. Stateless; the running sums live on the
    policy. Hooks run at the warm-up, at each step before and after the new batch is recorded, and after a refit."""

    name = "estimator"
    needs_factors = True
    #: whether PULSE's confidence sequence (:meth:`PULSE.track_intervals`) is valid for it
    intervals = False

    def predictions(self, pol, pick) -> torch.Tensor:
        """S_hat^t of the picked row of every repetition, sigmoid(u_i . v_j) for all j: (R, m) float64."""
        u = pol.U[pol._rep_index, pick][:, None, :]  # (R, 1, r): one product per repetition (bmm), never a
        # matmul that folds the repetitions into one GEMM, whose blocking (and rounding) moves with R
        return sigmoid(torch.bmm(u, pol.V.T.expand(u.shape[0], -1, -1))[:, 0]).double()

    def warmup(self, pol, s) -> None:
        """After the warm-up; ``s`` (R, n) are the warm-up score sums."""

    def step(self, pol, pick, cols, sb) -> None:
        """A step's batch ``cols`` of row ``pick`` with score sums ``sb``, before it is recorded."""

    def recorded(self, pol, pick) -> None:
        """After the step's batch is recorded (mask, counts, sums)."""

    def refitted(self, pol, initial: bool) -> None:
        """After a refit of U (``initial``: the one after the warm-up)."""

    def estimate(self, pol) -> torch.Tensor:
        raise NotImplementedError


class ObservedMean(Estimator):
    """UCB-E's mean of the observed scores (Eq. 4)."""

    name = "obs"
    needs_factors = False

    def estimate(self, pol):
        return pol.sum_obs / pol.cnt.clamp(min=1)


class DoublyRobust(Estimator):
    """PULSE's estimate: the one-step doubly robust estimators theta_t (Eq. 2, batch form, lambda of Step 3).

    Parameters
    ----------
    weighting : {"mean", "precision"}
        ``"mean"``: Eq. (3)'s running mean (exact once a model is fully observed under the authors' convention);
        ``"precision"``: weights 1 / w_t^2 (ours, :class:`PULSEPrecision`), exact once fully observed.
    flip : bool
        Use 1 - S_hat instead of the predictions (an adversarial check of Theorem 1: Lemma 1 holds for any
        predictable predictions).
    """

    name = "dr"
    intervals = True

    def __init__(self, weighting: str = "mean", flip: bool = False):
        if weighting not in ("mean", "precision"):
            raise ValueError(f"weighting must be 'mean' (Eq. 3) or 'precision', got {weighting!r}")
        self.weighting, self.flip = weighting, bool(flip)

    def predictions(self, pol, pick):
        pred = super().predictions(pol, pick)
        return 1.0 - pred if self.flip else pred

    def warmup(self, pol, s):
        pol.theta_sum += s / pol.warm
        pol.n_theta += 1
        pol.w_sum += 1.0
        pol.w_theta_sum += s / pol.warm
        if pol.convention == "paper":
            pol.z_sum += s * pol.m / pol.warm
            pol.n_z += 1

    def step(self, pol, pick, cols, sb):
        r = pol._rep_index
        theta, Z, lam_t, pred, unobs = pol._dr_step(pick, cols, sb)
        pol.theta_sum[r, pick] += theta
        pol.n_theta[r, pick] += 1
        pol.z_sum[r, pick] += Z
        pol.n_z[r, pick] += 1
        pol.last_lambda = lam_t
        if pol.cs is not None or self.weighting == "precision":
            hi = torch.where(unobs, pred, torch.full_like(pred, -torch.inf)).amax(1)
            lo = torch.where(unobs, pred, torch.full_like(pred, torch.inf)).amin(1)
            width = unobs.sum(1).double() / pol.m * (1.0 + lam_t * (hi - lo))
            w = 1.0 / width.square()
            pol.w_sum[r, pick] += w
            pol.w_theta_sum[r, pick] += w * theta
        if pol.cs is not None:
            pol.cs.add(r, pick, theta, width, pol.n_theta[r, pick])
        if pol.observer is not None:
            pol.observer.on_step(pol, pick, cols, lam_t, pred, unobs)

    def estimate(self, pol):
        exact = pol.sum_obs / pol.m
        if self.weighting == "precision":
            return torch.where(pol.cnt >= pol.m, exact, pol.w_theta_sum / pol.w_sum.clamp(min=1e-300))
        mean = pol.theta_sum / pol.n_theta.clamp(min=1)
        return torch.where(pol.cnt >= pol.m, exact, mean) if pol.convention == "authors" else mean


class NaivePooled(Estimator):
    """Naive-Pooling's (sum_O S + sum_U S_hat) / n: the predictions taken as ground truth."""

    name = "pooled"

    def step(self, pol, pick, cols, sb):
        if pol.convention == "paper":
            r = pol._rep_index
            u = pol.U[r, pick]
            pb = sigmoid((pol.V[cols] * u[:, None, :]).sum(-1)).double()
            pol.unobs_pred[r, pick] -= pb.sum(1) if pol._valid is None else pb.masked_fill(~pol._valid, 0.0).sum(1)

    def recorded(self, pol, pick):
        if pol.convention == "authors":
            r = pol._rep_index
            pol.unobs_pred[r, pick] = self.predictions(pol, pick).masked_fill_(pol.mask[r, pick], 0.0).sum(1)

    def refitted(self, pol, initial):
        if initial or pol.convention == "paper":
            pol.unobs_pred = pol._unobserved_prediction_sums()

    def estimate(self, pol):
        return (pol.sum_obs + pol.unobs_pred) / pol.m


class PULSE(Policy):
    """Algorithm 1 (:class:`DoublyRobust`) and, through subclasses, its baselines on the same backbone
    (:class:`ObservedMean` = UCB-E, :class:`NaivePooled` = Naive-Pooling).

    Parameters
    ----------
    v : array (m, r)
        Frozen example factors V from the train split (Stage 1); needed by every estimator but the observed mean.
    batch_size : int
        B, examples per step (paper: 64).
    t0 : int
        T0, warm-up batches per model (paper: 1).
    a : float
        Exploration parameter (paper: 1).
    refit_every : int
        tau, bandit steps between refits of U (paper: 1,000).
    convention : {"authors", "paper"}
        ``"authors"`` (default) follows the authors' code where Algorithm 1 is silent or differs; ``"paper"`` is the
        literal reading of Step 3 (see the module docstring).
    sampler : {"shuffled", "rejection"}
        How a batch is drawn uniformly without replacement from a model's unobserved examples (the same
        distribution, different random streams): ``"shuffled"`` (default since 2026-11-26) rejects observed
        draws while more than half the row is unobserved, then shuffles the row's unobserved examples once and hands
        them out in that order, O(B) per step (:meth:`_sample_shuffled`); ``"rejection"`` (the streams of results
        committed before that date) rejects observed draws to the end, O(m / unobserved) per example on a nearly
        complete row.
    lam, init_lr, init_steps, loop_lr, loop_steps
        Refit hyperparameters (paper, Appendix C.1: lambda 0.01; 50 steps at 0.01 after the warm-up;
        10 steps at 0.1 in the loop).
    estimator : Estimator, optional
        mu_hat (default: the class's :attr:`default_estimator`).
    observer : optional
        An object whose ``on_warmup(policy)`` and ``on_step(policy, pick, cols, lam, pred, unobs)`` are called after
        the warm-up and after each doubly robust step (the coverage probe of :mod:`paperlib.papers.pulse.coverage`).
    """

    name = "pulse"
    default_estimator: Estimator = DoublyRobust()

    def __init__(self, n, m, budget, reps=1, seed=0, device=None, v=None, batch_size=64, t0=1, a=1.0,
                 refit_every=1000, lam=0.01, init_lr=0.01, init_steps=50, loop_lr=0.1, loop_steps=10,
                 convention="authors", estimator: Estimator | None = None, observer=None, sampler="shuffled"):
        super().__init__(n, m, budget, reps, seed, device)
        if convention not in CONVENTIONS:
            raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
        if sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
        self.convention, self.sampler = convention, sampler
        estimator = self.default_estimator if estimator is None else estimator
        if not isinstance(estimator, Estimator):
            raise ValueError(f"estimator must be an Estimator (ObservedMean, DoublyRobust, NaivePooled), got {estimator!r}")
        self.observer = observer
        if batch_size < 1 or t0 < 1 or refit_every < 1:
            raise ValueError("batch_size, t0 and refit_every must be >= 1")
        if a < 0:
            raise ValueError(f"a must be >= 0, got {a}")
        self.B, self.t0, self.a, self.estimator = int(batch_size), int(t0), float(a), estimator
        self.warm = self.B * self.t0
        if self.warm > m:
            raise ValueError(f"T0 * B = {self.warm} exceeds the {m} examples per model")
        if self.warm * n > self.budget:
            raise ValueError(f"the warm-up needs n * T0 * B = {self.warm * n} calls, more than the budget {self.budget}")
        if estimator.needs_factors:
            if v is None:
                raise ValueError(f"{self.name} needs the frozen example factors V (fit them on a train split)")
            V = torch.as_tensor(np.asarray(v), dtype=torch.float32, device=self.device)
            if V.ndim != 2 or V.shape[0] != m:
                raise ValueError(f"V has shape {tuple(V.shape)}; it must be (examples, rank) with {m} examples: "
                                 "train and test must have the same columns")
            if not bool(torch.isfinite(V).all()):
                raise ValueError("V has non-finite entries (NaN or inf): refit the example factors")
            self.V = V
            self.U = torch.zeros(reps, n, V.shape[1], device=self.device)
        self.refit_every, self.lam = int(refit_every), float(lam)
        self.init_lr, self.init_steps, self.loop_lr, self.loop_steps = init_lr, int(init_steps), loop_lr, int(loop_steps)
        R = reps
        self.mask = torch.zeros(R, n, m, dtype=torch.bool, device=self.device)
        z = torch.zeros(R, n, dtype=torch.float64, device=self.device)
        self.cnt, self.sum_obs, self.theta_sum, self.n_theta = z.clone(), z.clone(), z.clone(), z.clone()
        self._bonus = z.clone()
        self.z_sum, self.n_z = z.clone(), z.clone()  # the residuals Z behind Z_bar, and how many
        self.unobs_pred = z.clone()
        self.w_sum, self.w_theta_sum = z.clone(), z.clone()
        self.obs_rows = torch.empty(R, self.budget, dtype=torch.int32, device=self.device)
        self.obs_cols = torch.empty(R, self.budget, dtype=torch.int32, device=self.device)
        self.obs_vals = torch.empty(R, self.budget, device=self.device)
        self.step = 0
        self._pick = None
        self._kr = self._valid = None  # the step's batch per repetition (R,), and the request's pads (or None)
        self._obs_len = 0  # entries in the observation lists (obs_rows, ...): pairs asked, pads included
        self._obs_ok = None  # (R, budget) bool: which entries are real pairs; made at the first padded request
        self._first_pos = None  # (R, m) first positions of the sampler's draws, all "empty" between steps
        self._slot = None  # sampler="shuffled": (R n,) slot of each (repetition, model)'s shuffled list, -1 if none
        self._lists = self._next = None  # the shuffled lists (slots, m) and each slot's next position
        self._slots = 0
        self.last_lambda = torch.zeros(R, dtype=torch.float64, device=self.device)
        self.sel_gen = KeyedStream.for_runs(seed, reps, purpose=SELECTION_STREAM, device=self.device)
        self.cs: PredictableRangeCS | None = None

    uniform_within_row = True  # every method here draws a model's examples uniformly (the warm-up and the batches)
    keyed_streams = True  # run r of a batch is exactly the single run with seed run_seeds(seed, R)[r]

    @property
    def dr_intervals(self) -> bool:
        """Whether :meth:`track_intervals` applies (the doubly robust estimator)."""
        return self.estimator.intervals

    def track_intervals(self, delta: float) -> None:
        """Keep, for every (repetition, model), an anytime-valid confidence sequence for the model's mean from the
        one-step doubly robust estimators theta_t (Eq. 2 with the predictable lambda of Step 3):
        :class:`paperlib.confseq.PredictableRangeCS`, whose docstring gives the construction.

        Given the past, the batch is a uniform sample of the unobserved set and the predictions and lambda are
        fixed, so E[theta_t | past] = mu (the unbiasedness behind Theorem 1) and theta_t lies in a known
        interval of width w_t = |U| / n (1 + lambda (max_U S_hat - min_U S_hat)). Must be called before the
        first ``ask``.
        """
        if not self.dr_intervals:
            raise ValueError(f"track_intervals needs the doubly robust estimator, not {self.estimator.name!r}")
        if self.spent or self._book.pending is not None:
            raise ValueError("track_intervals must be called before the first ask")
        self.cs = PredictableRangeCS(self.reps, self.n, self.m, delta, self.device)

    @property
    def cs_lower(self) -> torch.Tensor:
        return self.cs.lower

    @property
    def cs_upper(self) -> torch.Tensor:
        return self.cs.upper

    # ------------------------------------------------------------------ protocol
    def next_batch_size(self) -> int:
        return self.warm * self.n if self.spent == 0 else self.B

    def _select(self, k):
        R = self.reps
        if self.spent == 0:
            if k < self.warm * self.n:
                raise ValueError(f"the first checkpoint must cover the warm-up of {self.warm * self.n} calls, got {k}")
            rows = torch.arange(self.n, device=self.device).repeat_interleave(self.warm).expand(R, -1)
            return rows, self._warmup_columns()
        self.step += 1
        if self.estimator.needs_factors and self.step % self.refit_every == 0:
            self._refit(self.loop_lr, self.loop_steps)
        index = self.estimate() + self._bonus
        pick = random_argmax(index, self.sel_gen)
        kr = self._batch_sizes(pick, k)
        w = int(kr.max())
        cols = self._sample_unobserved(pick, w, kr)
        self._pick, self._kr = pick, kr
        self._valid = None if int(kr.min()) == w else torch.arange(w, device=self.device) < kr[:, None]
        return pick[:, None].expand(R, w), cols, self._valid, k

    def _batch_sizes(self, pick, k: int) -> torch.Tensor:
        """Each repetition's batch for this step, (R,) long: k, or what is left of its own picked row if less (the
        authors' ``min(batch_size, len(available_cols))``); never a quantity of another repetition."""
        return (self.m - self.cnt[self._rep_index, pick]).clamp(max=k).long()

    def pairs_told(self) -> torch.Tensor:
        return self.cnt.sum(1).long()

    def _warmup_columns(self) -> torch.Tensor:
        """The warm-up's T0 B distinct examples of every (repetition, model), uniform without replacement: (R, n T0 B).

        Sequential rejection as in :meth:`_sample_unobserved`: the first T0 B distinct of 2 T0 B uniform draws, found
        by a stable sort of the draws; a (repetition, model) with fewer distinct draws (likely only when T0 B is a
        large share of m) takes the T0 B largest of fresh uniform keys over all m examples. Blocks of rows bound the
        memory (a loop over blocks, once per run).
        """
        R, n, m, w = self.reps, self.n, self.m, self.warm
        L = 2 * w
        out = torch.empty(R * n, w, dtype=torch.long, device=self.device)
        block = max(1, (1 << 22) // (L * n))  # repetitions per block: each draws its (n, L) candidates at once
        for a in range(0, R, block):
            reps = torch.arange(a, min(R, a + block), device=self.device)
            i, rows = a * n, reps.numel() * n
            cand = self.sel_gen.randint(m, (n, L), reps=reps).view(rows, L)
            srt, order = torch.sort(cand, dim=1, stable=True)
            new = torch.ones_like(srt, dtype=torch.bool)
            new[:, 1:] = srt[:, 1:] != srt[:, :-1]
            first = torch.empty_like(new).scatter_(1, order, new)
            rank = first.cumsum(1)
            ok = rank[:, -1] >= w
            take = first & (rank <= w)
            if bool(ok.all()):
                out[i : i + rows] = cand.masked_select(take).view(rows, w)
                continue
            short = (~ok).nonzero().squeeze(1)
            take = torch.where(ok[:, None], take, torch.arange(L, device=self.device) < w)
            cols = cand.masked_select(take).view(rows, w)
            # fresh keys for each short (repetition, model): numbers model * m + j of its repetition's next draw
            owner = reps.index_select(0, short // n)
            pos = (short % n)[:, None] * m + torch.arange(m, device=self.device)
            bits = self.sel_gen.bits_at(owner, pos, advance=torch.unique(owner))
            keys = bits & ((1 << 63) - 1)  # 63-bit integer keys: ties have probability about m^2 / 2^64
            out[i : i + rows] = cols.index_copy_(0, short, keys.topk(w, dim=1).indices)
        return out.view(R, n * w)

    def _draws(self, k, left):
        """How many uniform draws the sampler makes for k examples of a row with ``left`` unobserved examples: 4k
        when the row is fresh, growing as m / left so that about 4k of them land on unobserved examples, at most m.
        ``k`` and ``left`` are numbers (an int back) or each repetition's (a tensor back)."""
        per = torch.as_tensor(left).clamp(min=1)
        out = (4 * torch.as_tensor(k) * ((self.m + per - 1) // per)).clamp(max=self.m)
        return out if out.ndim else int(out)

    def _sample_unobserved(self, pick, k, kr):
        """(R, k) examples: for repetition r its first ``kr[r]`` are uniform without replacement among row
        ``pick[r]``'s unobserved ones (``kr[r]`` is at most what is left of the row); the rest pad the request and
        are examples the row has already observed."""
        if self.sampler == "shuffled":
            return self._sample_shuffled(pick, k, kr)
        return self._reject(self._rep_index, pick, k, (self.m - self.cnt[self._rep_index, pick]).long(), kr)

    def _reject(self, r, pick, k, left, kr):
        """(R', k) examples for the repetitions ``r`` (picked rows ``pick``), by sequential rejection: for repetition
        ``r[i]`` its first ``kr[i]`` (its own batch, at most ``left[i]``, its row's unobserved examples) are a uniform
        subset of its row's unobserved examples in uniformly random order; the rest of its k pad the request (its first
        example again, which this step observes).

        Draw L_i = :meth:`_draws` (kr_i, left_i) columns uniformly with replacement and keep the first kr_i that are
        unobserved and not drawn before (an exact uniform subset); only a repetition with fewer such draws falls back
        to the kr_i largest of fresh 63-bit keys over its row's unobserved examples. A draw's first occurrence is
        found through a table of first positions (``scatter_reduce_``, reset after use). Everything a repetition
        draws is sized by its own batch and row (positions past its L_i do not count), never by another repetition's,
        so its draws are those of its run alone (:mod:`paperlib.keyed`).
        """
        R, m = r.numel(), self.m
        own = self._draws(kr, left)  # each repetition's own number of draws
        L = int(own.max())
        cand = self.sel_gen.randint(m, (L,), reps=r)
        pos = torch.arange(L, device=self.device).expand(R, L)
        empty = torch.iinfo(torch.int32).max
        if self._first_pos is None:
            self._first_pos = torch.full((self.reps, m), empty, dtype=torch.int32, device=self.device)
        table, pos32 = self._first_pos[:R], pos.to(torch.int32)
        table.scatter_reduce_(1, cand, pos32, reduce="amin")
        first = table.gather(1, cand) == pos32
        table.scatter_(1, cand, empty)
        at = ((r * self.n + pick) * m)[:, None] + cand
        valid = first & ~self.mask.view(-1).index_select(0, at.view(-1)).view(R, L) & (pos < own[:, None])
        rank = valid.cumsum(1)
        ok = rank[:, -1] >= kr
        take = valid & (rank <= kr[:, None])
        full = bool((kr == k).all())
        if full and bool(ok.all()):  # the common step: every repetition's whole batch by rejection
            return cand.masked_select(take).view(R, k)
        cols = torch.zeros(R, k + 1, dtype=torch.long, device=self.device)  # column k collects what is not taken
        cols.scatter_(1, torch.where(take, rank - 1, k), cand)
        cols = cols[:, :k]
        if not bool(ok.all()):
            short = (~ok).nonzero().squeeze(1)
            row_mask = self.mask.view(-1, m).index_select(0, (r * self.n + pick).index_select(0, short))
            keys = self.sel_gen.bits((m,), reps=r.index_select(0, short)) & ((1 << 63) - 1)
            cols.index_copy_(0, short, keys.masked_fill_(row_mask, -1).topk(k, dim=1).indices)
        if not full:
            cols = torch.where(torch.arange(k, device=self.device) < kr[:, None], cols, cols[:, :1])
        return cols

    def _sample_shuffled(self, pick, k, kr):
        """``sampler="shuffled"``: rows with more than half their examples unobserved by :meth:`_reject`; a row with
        at most half left is shuffled once, and its batches are the next k of that list.

        Exactness: the list is the row's unobserved examples ordered by i.i.d. uniform float64 keys, a uniformly
        random order (up to ties among 53-bit keys); every later observation of the row comes from the list, so
        given the examples handed out so far the rest of the list is a uniform order of the unobserved set and its
        next k are a uniform k-subset, the distribution of :meth:`_reject`. Memory: one int32 list of m per shuffled
        (repetition, model), at most 2 budget / m + 1 per repetition, grown by doubling. A list moves on by the
        repetition's own batch ``kr``; a short batch reads past its unobserved part into the examples the row had
        observed when it was shuffled (the pads), never past the list's end.
        """
        R, r, m = self.reps, self._rep_index, self.m
        cell = r * self.n + pick
        left = (m - self.cnt[r, pick]).long()
        hot = 2 * left <= m
        out = torch.empty(R, k, dtype=torch.long, device=self.device)
        if bool(hot.any()):
            if self._slot is None:
                self._slot = torch.full((self.reps * self.n,), -1, dtype=torch.long, device=self.device)
            h = hot.nonzero().squeeze(1)
            slot = self._slot.index_select(0, cell.index_select(0, h))
            new = slot < 0
            if bool(new.any()):
                fresh = cell.index_select(0, h[new])
                slot[new] = self._new_lists(fresh)
                self._slot[fresh] = slot[new]
            pos = (self._next.index_select(0, slot)[:, None] + torch.arange(k, device=self.device)).clamp_(max=m - 1)
            at = pos.add_(slot[:, None], alpha=m)
            out[h] = self._lists.view(-1).index_select(0, at.view(-1)).view(-1, k).long()
            self._next.index_add_(0, slot, kr.index_select(0, h))
        cold = (~hot).nonzero().squeeze(1)
        if cold.numel():
            out[cold] = self._reject(cold, pick.index_select(0, cold), k, left.index_select(0, cold),
                                     kr.index_select(0, cold))
        return out

    def _new_lists(self, cells):
        """Shuffled lists of the unobserved examples of the (repetition * n + model) ``cells``; returns their slots."""
        m, c = self.m, cells.numel()
        if self._lists is None or self._slots + c > self._lists.shape[0]:
            cap = max(2 * (0 if self._lists is None else self._lists.shape[0]), self._slots + c, self.reps)
            lists = torch.empty(cap, m, dtype=torch.int32, device=self.device)
            nxt = torch.zeros(cap, dtype=torch.long, device=self.device)
            if self._lists is not None:
                lists[: self._slots], nxt[: self._slots] = self._lists[: self._slots], self._next[: self._slots]
            self._lists, self._next = lists, nxt
        slots = torch.arange(self._slots, self._slots + c, device=self.device)
        keys = self.sel_gen.random((m,), reps=cells // self.n, dtype=torch.float64)  # one cell per repetition
        keys.masked_fill_(self.mask.view(-1, m).index_select(0, cells), 2.0)
        self._lists[slots] = keys.argsort(1).to(torch.int32)
        self._next[slots] = 0
        self._slots += c
        return slots

    def _update(self, rows, cols, scores):
        r = self._rep_index
        k0 = rows.shape[1]
        sl = slice(self._obs_len, self._obs_len + k0)
        self.obs_rows[:, sl], self.obs_cols[:, sl], self.obs_vals[:, sl] = rows, cols, scores
        valid = self._valid  # None at the warm-up
        if valid is not None and self._obs_ok is None:
            self._obs_ok = torch.ones(self.reps, self.budget, dtype=torch.bool, device=self.device)
        if self._obs_ok is not None:
            self._obs_ok[:, sl] = True if valid is None else valid
        self._obs_len += k0
        if self.spent == 0:
            self.mask[r[:, None], rows, cols] = True
            s = scores.reshape(self.reps, self.n, self.warm).double().sum(2)
            self.sum_obs += s
            self.cnt += self.warm
            self._bonus = self._bonus_of(self.cnt)
            self.estimator.warmup(self, s)
            if self.cs is not None:
                all_rows = torch.arange(self.n, device=self.device).expand(self.reps, -1)
                one = torch.ones(self.reps, self.n, dtype=torch.float64, device=self.device)
                self.cs.add(r[:, None], all_rows, s / self.warm, one, one)
                self.cs.refresh(self.sum_obs, self.cnt)
            if self.observer is not None:
                self.observer.on_warmup(self)
            if self.estimator.needs_factors:
                self._refit(self.init_lr, self.init_steps)
            return
        pick = self._pick
        sb = (scores.double() if valid is None else scores.double().masked_fill_(~valid, 0.0)).sum(1)
        self.estimator.step(self, pick, cols, sb)
        cell = r * self.n + pick
        # a pad is an example its row has already observed: marking it again changes nothing
        self.mask.view(-1).index_fill_(0, ((cell * self.m)[:, None] + cols).view(-1), True)
        self.sum_obs.view(-1).index_add_(0, cell, sb)
        cnt = self.cnt.view(-1).index_add_(0, cell, self._kr.to(sb.dtype)).index_select(0, cell)
        self._bonus.view(-1).index_copy_(0, cell, self._bonus_of(cnt))
        self.estimator.recorded(self, pick)
        if self.cs is not None:
            self.cs.refresh(self.sum_obs, self.cnt)

    def _bonus_of(self, cnt):
        """UCB-E's exploration bonus sqrt(a / |O_i|) at the counts ``cnt``; -inf once a model is fully observed (it is
        never picked again). Kept per (repetition, model) and recomputed only where a step changed the count."""
        return torch.sqrt(self.a / cnt.clamp(min=1)).masked_fill_(cnt >= self.m, -torch.inf)

    def _dr_step(self, pick, cols, sb):
        """The one-step estimator theta of Eq. (2) in batch form, with lambda of Step 3.

        ``cols`` (R, k) are the examples just drawn from the unobserved set U (before this step's
        update), the first ``_kr[r]`` of them for repetition r (the rest pad the request), and ``sb`` their score
        sums. Returns (theta, Z, lambda, S_hat, U mask) per repetition.
        """
        r, k = self._rep_index, self._kr.double()
        pred = self.estimator.predictions(self, pick)
        unobs = ~self.mask[r, pick]
        n_u = unobs.sum(1).double()
        su = (pred * unobs).sum(1)
        su2 = (pred.square() * unobs).sum(1)
        pb = pred.gather(1, cols)
        pb = (pb if self._valid is None else pb.masked_fill(~self._valid, 0.0)).sum(1)
        z_bar = self.z_sum[r, pick] / self.n_z[r, pick].clamp(min=1)
        if self.convention == "authors":
            lam_t = predictable_lambda_batch(su, su2, n_u, k, z_bar)
        else:
            lam_t = predictable_lambda(su, su2, n_u, z_bar)
        Z = (sb - lam_t * pb) * n_u / k
        theta = (self.sum_obs[r, pick] + lam_t * su + Z) / self.m
        return theta, Z, lam_t, pred, unobs

    def _refit(self, lr, steps):
        initial = self.spent == 0
        c = self._obs_len
        ok = None if self._obs_ok is None else self._obs_ok[:, :c]
        self.U = refit_rows_sparse(self.U, self.V, self.obs_rows[:, :c], self.obs_cols[:, :c], self.obs_vals[:, :c],
                                   self.lam, lr, steps, valid=ok)
        if self.convention == "authors" and not initial:
            self.z_sum.zero_()
            self.n_z.zero_()
        self.estimator.refitted(self, initial)

    #: Rows of a model block in :meth:`_unobserved_prediction_sums` (128 x 12,032 floats: 6 MB a repetition)
    PREDICTION_TILE = 128
    #: Predictions per product in :meth:`_unobserved_prediction_sums`: repetitions are taken this many cells at a time
    PREDICTION_CELLS = 1 << 22

    def _unobserved_prediction_sums(self) -> torch.Tensor:
        """Naive-Pooling's sum_{j in U_i} S_hat_ij for every repetition and model, (R, n) float64.

        The predictions are made, masked and summed a block of ``PREDICTION_TILE`` models of some repetitions at a
        time (one ``bmm``: a product per repetition), so each block stays in cache between the product, the sigmoid,
        the mask and the sum. The blocks of models are the same whatever the number of repetitions, so each
        repetition's sums are bit for bit those of its run alone (a GEMM over the repetitions' rows folded together
        would round differently with R). Loops over blocks, once per refit."""
        R, n, m = self.reps, self.n, self.m
        vt = self.V.T.contiguous()
        out = torch.empty(R, n, dtype=torch.float64, device=self.device)
        tile = self.PREDICTION_TILE
        reps = max(1, self.PREDICTION_CELLS // (tile * m)) * (64 if self.device.type == "cuda" else 1)
        for i in range(0, n, tile):
            for a in range(0, R, reps):
                u = self.U[a : a + reps, i : i + tile]
                p = sigmoid(torch.bmm(u, vt.expand(u.shape[0], -1, -1)))
                out[a : a + reps, i : i + tile] = p.masked_fill_(self.mask[a : a + reps, i : i + tile], 0.0).sum(2)
        return out

    def estimate(self):
        return self.estimator.estimate(self)


class PULSEPrecision(PULSE):
    """PULSE with a precision-weighted estimate (ours): the one-step estimators theta_t (Eq. 2) averaged with
    weights 1 / w_t^2, w_t = |U| / n (1 + lambda (max_U S_hat - min_U S_hat)) the width of the interval theta_t is
    known to lie in before its batch is drawn, instead of Eq. (3)'s equal weights; exact (sum of the scores / n)
    once a model is fully observed.

    Motivation (our ledger): Eq. (3) keeps the early, noisy theta_t at full weight forever, so PULSE falls
    below UCB-E at large budgets. Each theta_t is unbiased given the past and its weight is predictable, so the
    weighted mean is still a martingale estimate of mu; a late theta_t, drawn when few examples are left
    unobserved, is nearly exact and now dominates. The confidence sequence of :meth:`track_intervals` does not
    depend on the point estimate and stays valid.
    """

    name = "pulse-pw"
    default_estimator = DoublyRobust("precision")


class PULSESync(PULSE):
    """PULSE with synchronized examples (ours): one random order of the examples per run, and every model's j-th
    evaluation (warm-up included) is the run's j-th example, the sampling of SySRs (Lyu et al. 2026).

    Motivation (the race issue): SySRs and synchronized UCB-E compare models on shared examples, so example
    difficulty cancels in the comparison. What it costs PULSE: a model's next batch is uniform among its
    unobserved examples given its own history, but not given the run's history (a model further along the
    shared order has already revealed those examples), so Lemma 1's conditional unbiasedness, and with it
    Theorem 1's interval, are not guaranteed; :meth:`track_intervals` refuses. The point estimate is Eq. (3) as in
    PULSE; the ledger compares the two (``ours-pulse-sync``).
    """

    name = "pulse-sync"
    uniform_within_row = False

    @property
    def dr_intervals(self) -> bool:
        return False

    def track_intervals(self, delta: float) -> None:
        raise ValueError("pulse-sync draws every model's examples in one shared order, so PULSE's confidence "
                         "sequence (Theorem 1) does not apply; use pulse for certified intervals")

    def __init__(self, *args, sampler="rejection", **kwargs):
        if sampler != "rejection":
            raise ValueError("pulse-sync draws every model's examples in one shared order; it has no sampler option")
        super().__init__(*args, sampler="rejection", **kwargs)  # only its warm-up draws by PULSE's sampler

    def _select(self, k):
        if self.spent == 0:
            self.shared = KeyedPermutations(self.reps, 1, self.m, self.sel_gen, self.device)
            rows, _ = super()._select(k)  # draws (and discards) PULSE's warm-up keys: kept for the committed streams
            r = self._rep_index[:, None]
            cols = self.shared(r, torch.zeros_like(r), torch.arange(self.warm, device=self.device).repeat(self.n))
            return rows, cols
        return super()._select(k)

    def _sample_unobserved(self, pick, k, kr):
        """The next k examples of the run's shared order after the ``cnt`` this model has seen (a short batch's pads
        repeat the order's last example, which the step itself observes)."""
        r = self._rep_index[:, None]
        pos = (self.cnt[self._rep_index, pick].long()[:, None] + torch.arange(k, device=self.device)).clamp_(max=self.m - 1)
        return self.shared(r, torch.zeros_like(r), pos)


class UCBEBackbone(PULSE):
    """UCB-E on PULSE's backbone (batches of B, T0 warm-up, observation-only mean, Eq. 4)."""

    name = "ucbe-batch"
    default_estimator = ObservedMean()


class NaivePooling(PULSE):
    """Naive-Pooling: UCB-E with mu_hat = (sum_O S + sum_U S_hat) / n (predictions as ground truth)."""

    name = "naive-pooling"
    default_estimator = NaivePooled()
