"""Drive a policy against a complete score matrix: R repetitions as one tensor program.

Most policies are prefix-consistent (``anytime``): the run with budget T is the first T evaluations
of a run with a larger budget. One run to the largest budget therefore yields the predictions at
every smaller budget (``checkpoints``); a batch that would cross a checkpoint is cut at it, so
each checkpoint's state is that of a run that spent exactly that budget. A policy whose plan depends
on its budget (SySRs) is run once per checkpoint instead.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from ..checks import check_delta, check_index, check_scalar, check_seed
from ..confseq import WoRMeanCS, certify
from ..confseq_prior import PriorAssistedCS
from ..costs import check_costs
from ..data.matrix import ScoreMatrix
from ..device import get_device
from ..keyed import STREAMS, RunBlock
from ..policies import METHODS, make_policy, parse, resolved_params
from ..progress import progress_bar
from .seeds import run_seeds


@dataclass
class SimResult:
    """Predictions of R repetitions at each checkpoint budget.

    Attributes
    ----------
    budgets : (C,) int, evaluations spent at each checkpoint
    estimates : (C, R, n) float32, estimated row means (NaN where a row has no information)
    best : (C, R) int, predicted best row
    certified : (C, R) bool or None, whether the certificate (:func:`paperlib.confseq.certify`, or the policy's
        own) holds for the pick at each checkpoint; with ``stop="certified"``, whether the repetition has stopped at
        one (only with ``delta``)
    best_ci : (C, R, 2) float or None, the confidence-sequence interval of the predicted best row
    certified_at : (R,) int or None, calls spent when each repetition was first certified (-1: never)
    calls : (R,) int or None, calls each repetition made (with ``stop="certified"``, the calls at its
        certification, or all it made); the budget, except for PULSE's backbone, whose short batches on a nearly
        exhausted row are charged a full batch (:class:`paperlib.policies.base.Request`)
    tie_tol : float, rows whose mean is within ``tie_tol`` of the top mean all count as the best
    spend : (C, R) float64 or None, the price of the calls each repetition made by each checkpoint (with ``costs``;
        with ``stop="certified"``, frozen at the repetition's certification like ``calls``)
    """

    method: str
    dataset: str
    kind: str
    budgets: np.ndarray
    estimates: np.ndarray
    best: np.ndarray
    true_means: np.ndarray
    wall_s: float
    seed: int
    device: str
    params: dict = field(default_factory=dict)
    delta: float | None = None
    certified: np.ndarray | None = None
    best_ci: np.ndarray | None = None
    certified_at: np.ndarray | None = None
    calls: np.ndarray | None = None
    tie_tol: float = 0.0
    spend: np.ndarray | None = None
    first_run: int = 0
    streams: str = "shared-generator"

    @property
    def reps(self) -> int:
        return int(self.best.shape[1])

    @property
    def run_seeds(self) -> np.ndarray:
        """(R,) each repetition's own seed (:func:`paperlib.simulate.seeds.run_seeds`): runs [first_run, first_run +
        R) of the batched run with seed ``seed``."""
        return run_seeds(self.seed, self.reps, first=self.first_run)

    @property
    def true_best(self) -> int:
        """The first row with the highest mean (see :attr:`true_best_set` for all of them)."""
        return int(np.argmax(self.true_means))

    @property
    def true_best_set(self) -> np.ndarray:
        """Every row whose mean is within ``tie_tol`` of the highest mean: a pick of any of them is right."""
        return np.flatnonzero(self.true_means >= self.true_means.max() - self.tie_tol)

    def precision(self) -> np.ndarray:
        """Fraction of repetitions whose prediction is in the true best set, per checkpoint."""
        return np.isin(self.best, self.true_best_set).mean(axis=1)

    def save(self, path: str | Path) -> None:
        arrays = {k: getattr(self, k) for k in _ARRAYS if getattr(self, k) is not None}
        meta = {k: v for k, v in asdict(self).items() if k not in _ARRAYS}
        np.savez_compressed(path, **arrays, meta=json.dumps(meta))

    @classmethod
    def load(cls, path: str | Path) -> SimResult:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            return cls(**{k: z[k] for k in _ARRAYS if k in z.files}, **meta)


class _PolicyIntervals:
    """Intervals a policy keeps itself and updates in ``tell`` (PULSE's doubly robust sequence, or the very
    without-replacement sequence lucb keeps on the same draws), read here instead of a second copy."""

    def __init__(self, owner, lower: str, upper: str):
        self._owner, self._lower, self._upper = owner, lower, upper

    def update(self, rows, scores, valid=None) -> None:
        """Nothing to do: the policy updated its sequence in ``tell``."""

    @property
    def lower(self):
        return getattr(self._owner, self._lower)

    @property
    def upper(self):
        return getattr(self._owner, self._upper)


def interval_tracker(policy, delta_row: float):
    """Per-row anytime-valid intervals at level ``delta_row`` for a fresh policy: PULSE's doubly robust sequence
    where the policy has one (:meth:`paperlib.policies.pulse.PULSE.track_intervals`), else the
    without-replacement sequence on the observed scores (valid when each row's examples are drawn uniformly)."""
    if getattr(policy, "dr_intervals", False):
        policy.track_intervals(delta_row)
        return _PolicyIntervals(policy, "cs_lower", "cs_upper")
    own = getattr(policy, "cs", None)
    if (isinstance(own, (WoRMeanCS, PriorAssistedCS)) and own.delta == delta_row and own.population == policy.m
            and own.kind in ("both", "prior") and own.lower.shape == (policy.reps, policy.n)):
        return _PolicyIntervals(own, "lower", "upper")  # the policy keeps this very sequence (lucb, lucb-prior)
    if not policy.uniform_within_row:
        raise ValueError(f"--delta needs a policy that draws each row's examples uniformly; {policy.name} does not "
                         "(its intervals would not be valid)")
    return WoRMeanCS(policy.reps, policy.n, policy.m, delta_row, device=policy.device)


def _one_run_per_budget(method, matrix, budgets, reps, seed, device, progress, delta, stop, tie_tol, params,
                        costs=None, first_run=0):
    """A policy whose plan depends on its budget (SySRs' phases) is run once per checkpoint budget, with the
    same seed, and the runs are stacked as if they were checkpoints."""
    runs = [simulate(method, matrix, [b], reps=reps, seed=seed, device=device, progress=progress, delta=delta,
                     stop=stop, tie_tol=tie_tol, costs=costs, first_run=first_run, **params) for b in budgets]
    first = runs[0]
    cat = (lambda name: None if getattr(first, name) is None  # noqa: E731
           else np.concatenate([getattr(r, name) for r in runs]))
    return SimResult(
        method=method, dataset=first.dataset, kind=first.kind, budgets=np.asarray(budgets),
        estimates=cat("estimates"), best=cat("best"), true_means=first.true_means,
        wall_s=sum(r.wall_s for r in runs), seed=seed, device=first.device, params=first.params, delta=first.delta,
        certified=cat("certified"), best_ci=cat("best_ci"), certified_at=runs[-1].certified_at, calls=runs[-1].calls,
        tie_tol=first.tie_tol, spend=cat("spend"), first_run=first_run, streams=first.streams,
    )


_ARRAYS = ("budgets", "estimates", "best", "true_means", "certified", "best_ci", "certified_at", "calls", "spend")


def budgets_from_fracs(fracs, n: int, m: int) -> list[int]:
    """Checkpoint budgets ``round(f * n * m)`` for fractions f in (0, 1], sorted, distinct."""
    out = []
    for f in fracs:
        if not 0.0 < f <= 1.0:
            raise ValueError(f"budget fractions must lie in (0, 1], got {f}")
        out.append(max(1, int(round(f * n * m))))
    return sorted(set(out))


def simulate(
    method: str,
    matrix: ScoreMatrix,
    budgets,
    reps: int = 1,
    seed: int = 0,
    device=None,
    progress: bool = True,
    delta: float | None = None,
    stop: str = "budget",
    tie_tol: float = 0.0,
    epsilon: float = 0.0,
    costs=None,
    prior=None,
    predictions=None,
    first_run: int = 0,
    on_step=None,
    **params,
) -> SimResult:
    """Run ``reps`` repetitions of ``method`` on ``matrix`` and record every checkpoint.

    Parameters
    ----------
    method : str
        A matrix method of :mod:`paperlib.policies.registry` (``ucbe``, ``pulse``, ...).
    budgets : int or sequence of int
        Checkpoint budgets (evaluations per repetition); the largest is the run's budget.
    delta : float, optional
        Also keep, for every row, an anytime-valid confidence sequence at level ``delta / n`` (union
        bound over the n rows) and report the certificate at each checkpoint: PULSE's doubly robust
        sequence for ``pulse``, else the without-replacement sequence of
        :class:`paperlib.confseq.WoRMeanCS` on the observed scores, for policies that draw each row's
        examples uniformly (``uniform_within_row``; refused otherwise: the sequence would not be valid).
    stop : {"budget", "certified"}
        ``"certified"`` (needs ``delta``) stops each repetition at its first certificate: its pick is
        then the certified row and its ``calls`` the calls spent so far; the largest budget is a cap.
    tie_tol : float
        Rows within ``tie_tol`` of the top mean all count as the best (default 0: exact ties only).
    epsilon : float
        Certify an epsilon-best row (its mean within epsilon of the best) instead of the best (default 0).
        A policy with its own certificate (``lucb-pd``: paired differences) gets ``delta`` and ``epsilon``
        unless ``params`` sets them, and its certificate is the one reported.
    costs : sequence of n floats, optional
        The price of one call to each row (:func:`paperlib.costs.check_costs`); then ``spend`` reports what each
        repetition paid by each checkpoint. The runs are the same with or without prices, except for a method whose
        rule reads them (``lucb-cheap``, which needs them).
    prior : (K, m) array, optional
        Other models' scores on the matrix's examples (a leaderboard; NaN where unscored) for ``lucb-prior`` (``lucb``
        and ``auto`` with ``stop="certified"`` run it when a prior is given): predictions of the unseen scores inside
        the certificate's intervals (:mod:`paperlib.policies.lucb_prior`). Refused for a method that cannot use it.
    predictions : (n, m) array, optional
        A predictor's scores for the matrix's rows, instead of ``prior``.
    first_run : int
        Run runs [first_run, first_run + reps) of the batched run with this seed (default 0: the first ``reps``); for a
        method with keyed streams (:mod:`paperlib.keyed`) they are exactly those runs of any larger batch, so a block
        of runs, or one run (``reps=1, first_run=317``), can be rerun alone.
    on_step : callable, optional
        Called as ``on_step(request, policy)`` after every step is told (a run's trace: which pairs it asked).
    params : dict
        Method parameters (e.g. ``a``, ``eta``, ``rank``, ``ensemble``, ``batch_size``).
    """
    if prior is not None or predictions is not None:
        from ..policies.lucb_prior import resolve_prior

        if method == "auto" and stop != "certified":
            raise ValueError("a prior is used by lucb-prior, a certified search: give stop='certified' and delta")
        method, data = resolve_prior(method, prior, predictions, *matrix.shape)
        params = {**params, **data}
    elif METHODS[parse(method)[0]].takes_prior:
        raise ValueError(f"{method} needs prior= (other models' scores on the examples) or predictions=")
    budgets = sorted({int(b) for b in np.atleast_1d(budgets)})
    # the run's identity before any work (issue 76): integers only, in [0, 2^63 - 1]; a deep block costs its own runs
    seed, first_run = check_seed(seed), check_index(first_run, "first_run")
    reps = check_index(reps, "reps", low=1)
    if costs is not None:
        costs = check_costs(costs, matrix.shape[0], examples=matrix.shape[1])
    if delta is not None:
        delta = check_delta(delta)
    if stop not in ("budget", "certified"):
        raise ValueError(f"stop must be 'budget' or 'certified', got {stop!r}")
    if stop == "certified" and delta is None:
        raise ValueError("stop='certified' needs delta")
    tie_tol = check_scalar(tie_tol, "tie_tol", float, low=0.0, high=1.0, closed="left")
    epsilon = check_scalar(epsilon, "epsilon", float, low=0.0, high=1.0, closed="left")
    n, m = matrix.shape
    own = hasattr(METHODS[parse(method)[0]].cls, "certificate")
    if own and delta is not None:
        params = {"delta": delta, "epsilon": epsilon, **params}
    if METHODS[parse(method)[0]].needs_costs:  # its rule reads the prices (lucb-cheap)
        if costs is None:
            raise ValueError(f"{method} needs costs: the price of a call to each model")
        params = {"costs": costs, **params}
    if len(budgets) > 1 and not METHODS[parse(method)[0]].cls.anytime:
        if on_step is not None:
            raise ValueError(f"{method} is run once per budget; trace it with one budget at a time")
        return _one_run_per_budget(method, matrix, budgets, reps, seed, device, progress, delta, stop, tie_tol, params,
                                   costs, first_run)
    dev = get_device(device)
    t0 = time.perf_counter()
    policy = make_policy(method, n, m, budgets[-1], reps=reps, seed=RunBlock(seed, first_run) if first_run else seed,
                         device=dev, **params)
    cs = None
    if delta is not None:
        cs = interval_tracker(policy, float(delta) / n)
        if own:
            certificate = policy.certificate
        else:
            def certificate():
                return certify(cs.lower, cs.upper, cs.lower, epsilon)
        at = torch.full((policy.reps,), -1, dtype=torch.long, device=dev)
        frozen = torch.full_like(at, -1)
    scores = torch.tensor(np.ascontiguousarray(matrix.scores), device=dev)  # Request.take reads it flat
    price = None if costs is None else torch.tensor(costs, dtype=torch.float64, device=dev)
    paid = torch.zeros(policy.reps, dtype=torch.float64, device=dev)
    est, best, cert, ci, spend = [], [], [], [], []
    bar = progress_bar(budgets[-1], f"{method} on {matrix.name} (R={reps})", enabled=progress)
    all_stopped = False
    for target in budgets:
        while policy.spent < target and not all_stopped:
            req = policy.ask(limit=target - policy.spent)
            got = req.take(scores)
            policy.tell(req, got)
            if on_step is not None:
                on_step(req, policy)
            bar.update(req.budget_used)
            if price is not None:  # a certified repetition stops paying once certified (its calls stop counting)
                each = price.index_select(0, req.rows.reshape(-1)).view(req.rows.shape)
                step = (each if req.valid is None else each.masked_fill(~req.valid, 0.0)).sum(1)  # pads are free
                paid += step if cs is None or stop != "certified" else torch.where(at < 0, step, torch.zeros_like(step))
            if cs is not None:
                cs.update(req.rows, got, valid=req.valid)
                lead, ok = certificate()
                new = (at < 0) & ok
                if bool(new.any()):  # most steps certify no new repetition
                    at = torch.where(new, policy.pairs_told(), at)
                    frozen = torch.where(new, lead, frozen)
                    all_stopped = stop == "certified" and bool((at >= 0).all())
        est.append(policy.estimate().float().cpu().numpy())
        pick = policy.best()
        if stop == "certified":
            pick = torch.where(frozen >= 0, frozen, pick)
        best.append(pick.cpu().numpy())
        spend.append(paid.cpu().numpy().copy())
        if cs is not None:
            lead, ok = certificate()
            # with stop="certified", certified means it stopped at a certificate: a later step may undo a certificate
            # (lucb-cheap's candidate can move on to a dearer model), not the validity of the one it stopped at
            done = at >= 0 if stop == "certified" else ok & (lead == pick)
            cert.append(done.cpu().numpy())
            ci.append(torch.stack([cs.lower.gather(1, pick[:, None])[:, 0], cs.upper.gather(1, pick[:, None])[:, 0]],
                                  dim=1).cpu().numpy())
    bar.close()
    if dev.type == "cuda":
        torch.cuda.synchronize()
    return SimResult(
        method=method, dataset=matrix.name, kind=matrix.kind, budgets=np.asarray(budgets),
        estimates=np.stack(est), best=np.stack(best).astype(np.int64), true_means=matrix.means,
        wall_s=time.perf_counter() - t0, seed=seed, device=str(dev),
        params={k: (f"array{tuple(v.shape)}" if hasattr(v, "shape") else v)
                for k, v in resolved_params(method, params).items()},
        delta=None if delta is None else float(delta),
        certified=np.stack(cert) if cs is not None else None,
        best_ci=np.stack(ci) if cs is not None else None,
        certified_at=at.cpu().numpy() if cs is not None else None,
        calls=(torch.where(at >= 0, at, policy.pairs_told()) if stop == "certified" else policy.pairs_told()).cpu().numpy(),
        tie_tol=float(tie_tol),
        spend=np.stack(spend) if price is not None else None,
        first_run=first_run, streams=STREAMS if policy.keyed_streams else "shared-generator",
    )
