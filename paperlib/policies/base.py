"""The ask/tell policy interface, batched over R independent repetitions.

A policy owns the state of R repetitions (leading tensor dimension R). ``ask()`` returns a
:class:`Request` naming, for every repetition, the same number k of (row, column) pairs to
evaluate next; ``tell(request, scores)`` reports their scores as an (R, k) tensor. A live user
is the case R = 1. The design follows Optuna's ``Study.ask()`` / ``Study.tell()``: a request
has an id, and telling an unknown or already-told request is an error.

Every repetition is charged the same number of calls at every step, so each one spends exactly the
budget, and no policy ever asks for a pair twice within a repetition. The repetitions never interact: what one
repetition asks depends on its own state alone (``tests/test_independent_repetitions.py``); where one repetition's
step is shorter than another's, the request is padded (:class:`Request`'s ``valid``), never cut for all.

A policy whose rows draw their examples as prefixes of fixed random orders (``supports_ahead``) can also be asked
*ahead* of its scores (:meth:`Policy.ask_ahead`, :meth:`Policy.tell_ahead`): a live search's workers then never wait
for the slowest call of a batch. Its choices use the scores told so far; the example positions count the pairs
asked. Each row's scores must be told in the order its pairs were asked, so that what the policy has seen of a row
is always a prefix of the row's uniform order, the condition of the confidence sequences, whatever order the calls
finished in (a slow call that scores low cannot bias the intervals by arriving late).
"""

from __future__ import annotations

import itertools
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
import torch

from ..device import get_device, make_generator
from ..keyed import KeyedStream, RunBlock, uniform
from ..pickling import KeepsViews


class PolicyError(RuntimeError):
    """Misuse of the ask/tell protocol."""


class UnknownRequestError(PolicyError):
    pass


class AlreadyToldError(PolicyError):
    pass


class PendingRequestError(PolicyError):
    pass


def refuse_complex(scores, what: str) -> None:
    """Complex scores are an error, never converted (a conversion to float drops the imaginary part with at most a
    warning)."""
    if torch.is_tensor(scores) and scores.is_complex() or not torch.is_tensor(scores) and np.iscomplexobj(scores):
        raise ValueError(f"{what}, got complex values")


class BudgetExhaustedError(PolicyError):
    pass


# Ids start at a random 63-bit offset drawn once per process, so that a policy pickled in one process and unpickled
# in another (its told ids travel with it) is never handed an id it has already told: a counter from 0 in every
# process collided with the unpickled policy's record (AlreadyToldError on its first new request). Drawn from the
# OS's entropy, not from any seeded generator: no run's random stream is touched.
_ids = itertools.count(int.from_bytes(os.urandom(8), "little") >> 2)


def next_request_id() -> int:
    """A request id unique within the process and, with overwhelming probability, across processes."""
    return next(_ids)


class RequestBook:
    """The ask/tell bookkeeping shared by every policy: one request pending at a time; telling an
    unknown, foreign or already-told request is an error (Optuna's ``Study.ask``/``tell``)."""

    def __init__(self, kind: type):
        self.kind = kind
        self.pending = None
        self.told: set[int] = set()

    def check_ask(self) -> None:
        if self.pending is not None:
            raise PendingRequestError(f"request {self.pending.id} has not been told yet; tell it before asking again")

    def issue(self, request):
        self.pending = request
        return request

    def check_tell(self, request) -> None:
        if not isinstance(request, self.kind):
            raise TypeError(f"tell expects a {self.kind.__name__} from ask(), got {type(request).__name__}")
        if request.id in self.told:
            raise AlreadyToldError(f"request {request.id} was already told")
        if self.pending is None or request.id != self.pending.id:
            raise UnknownRequestError(f"request {request.id} was not issued by this policy")

    def settle(self, request) -> None:
        self.told.add(request.id)
        self.pending = None


@dataclass(frozen=True)
class Request:
    """Pairs to evaluate: ``rows[r, t], cols[r, t]`` for repetition r, t < k.

    ``valid`` (R, k) bool, when given, marks the pairs repetition r really asks for: the first ``valid[r].sum()`` of
    its row; the others pad the request to a rectangle (a repetition whose step is shorter than another's, as
    PULSE's batch on a nearly exhausted row) and are neither scored nor counted by the policy (their scores are
    ignored; give any value in [0, 1]). A request with padding is only made for R > 1: a single run's request is
    exactly its pairs. ``charge`` is what the request takes from the budget of every repetition (default: k); a
    step of PULSE's backbone is charged its nominal batch even when its row had fewer examples left (Algorithm 1's
    ``for t = 1, ..., b / B`` and the authors' ``steps = budget // batch_size``).
    """

    id: int
    rows: torch.Tensor
    cols: torch.Tensor
    valid: torch.Tensor | None = None
    charge: int | None = None

    @property
    def size(self) -> int:
        """Pairs per repetition in the request (k), padding included."""
        return int(self.rows.shape[1])

    @property
    def budget_used(self) -> int:
        """What the request takes from each repetition's budget (``charge``, default k)."""
        return self.size if self.charge is None else int(self.charge)

    def take(self, scores: torch.Tensor) -> torch.Tensor:
        """The (R, k) scores of this request's pairs in a full (n, m) score tensor (simulation).

        One ``index_select`` on the flattened matrix: same values as ``scores[rows, cols]``, which
        costs about twice as much on CPU. A non-contiguous ``scores`` (e.g. from a Fortran-ordered
        array) is read by advanced indexing instead of being flattened (a copy of the matrix) per call.
        """
        if not scores.is_contiguous():
            return scores[self.rows, self.cols]
        flat = self.cols.add(self.rows, alpha=scores.shape[1])  # one op: an int64 multiply is slow on CPU
        return scores.view(-1).index_select(0, flat.view(-1)).view(flat.shape)


def check_budget(budget: int, n: int, m: int) -> int:
    if isinstance(budget, bool) or int(budget) != budget:
        raise ValueError(f"budget must be an integer number of evaluations, got {budget!r}")
    budget = int(budget)
    if budget < 1:
        raise ValueError(f"budget must be at least 1, got {budget}")
    if budget > n * m:
        raise ValueError(
            f"budget {budget} exceeds the {n} x {m} = {n * m} (model, example) pairs of the matrix"
        )
    return budget


def uniform_like(values: torch.Tensor, gen, reps: torch.Tensor | None = None) -> torch.Tensor:
    """Uniform float32 noise of ``values``' shape (R, ...) (:func:`uniform`; ``reps``: the repetitions of its rows)."""
    return uniform(gen, values.shape, reps, device=values.device)


def random_argmax(values: torch.Tensor, gen, reps: torch.Tensor | None = None) -> torch.Tensor:
    """Row-wise argmax over the last dim with ties broken uniformly at random (``reps``: the repetitions of the rows,
    when not all of them)."""
    top = values.max(dim=-1, keepdim=True).values
    noise = uniform_like(values, gen, reps)
    return torch.where(values == top, noise, torch.full_like(noise, -1.0)).argmax(dim=-1)


def order_with_random_ties(values: torch.Tensor, gen) -> torch.Tensor:
    """Column indices of each row of ``values`` (R, n) in decreasing value, ties in uniformly random order."""
    noise = uniform_like(values, gen)
    shuffled = noise.argsort(dim=1)
    return shuffled.gather(1, values.gather(1, shuffled).argsort(dim=1, descending=True, stable=True))


class Policy(KeepsViews, ABC):
    """Base class: budget bookkeeping and the ask/tell protocol.

    Parameters
    ----------
    n, m : int
        Matrix shape (methods x examples).
    budget : int
        Evaluations per repetition, 1 <= budget <= n * m.
    reps : int
        Number of independent repetitions R run together.
    seed : int or paperlib.keyed.RunBlock
        Seed of the run: repetition r's keyed streams are keyed by ``run_seeds(seed, reps)[r]`` (``keyed_streams``),
        else the seed of the policy's shared torch generator. A ``RunBlock(seed, first)`` makes the repetitions runs
        [first, first + reps) of the batched run with that seed (keyed streams only).
    device : str or torch.device, optional
        CUDA when available unless given.
    """

    name = "policy"
    #: True when each row's examples are drawn uniformly without replacement (whatever the row choice),
    #: the condition of the confidence sequences in :mod:`paperlib.confseq`.
    uniform_within_row = False
    #: True when the run with budget T is the first T evaluations of any run with a larger budget, so one
    #: run yields every smaller budget's result (:func:`paperlib.simulate.simulate` relies on it).
    anytime = True
    #: True when :meth:`estimate` draws random numbers (a refit of a random ensemble), so replaying a
    #: journal that interleaves estimates would not reproduce the run's requests.
    random_estimate = False
    #: True when the policy can be asked ahead of its scores (:meth:`ask_ahead`).
    supports_ahead = False
    #: True when every random number of repetition r comes from its own keyed stream (``self.gen`` is a
    #: :class:`paperlib.keyed.KeyedStream` keyed by ``run_seeds(seed, reps)[r]``), so that run r of a batch is exactly
    #: the single run with that seed; False: one ``torch.Generator`` shared by the repetitions (the same law only).
    keyed_streams = True

    def __init__(self, n: int, m: int, budget: int, reps: int = 1, seed: int = 0, device=None):
        for name, value in (("n", n), ("m", m), ("reps", reps)):
            if isinstance(value, bool) or int(value) != value:
                raise ValueError(f"{name} must be an integer, got {value!r}")
        if n < 1 or m < 1:
            raise ValueError(f"matrix shape must be positive, got ({n}, {m})")
        if reps < 1:
            raise ValueError(f"reps must be >= 1, got {reps}")
        self.n, self.m, self.reps = int(n), int(m), int(reps)
        self.budget = check_budget(budget, n, m)
        self.device = get_device(device)
        if isinstance(seed, RunBlock) and not self.keyed_streams:
            raise ValueError(f"{self.name} draws from one generator shared by its repetitions: a block of runs "
                             "(RunBlock, first_run) needs a method with keyed streams")
        self.gen = (KeyedStream.for_runs(seed, self.reps, purpose=0, device=self.device) if self.keyed_streams
                    else make_generator(seed, self.device))
        self.seed = seed
        self.spent = 0
        self.asked = 0
        self._ahead = False
        self._book = RequestBook(Request)
        self._rep_index = torch.arange(self.reps, device=self.device)

    @property
    def remaining(self) -> int:
        return self.budget - self.spent

    @property
    def done(self) -> bool:
        return self.spent >= self.budget

    def ask(self, limit: int | None = None) -> Request:
        """Next pairs to evaluate, at most ``limit`` per repetition (default: the policy's batch)."""
        self._book.check_ask()
        if self._ahead:
            raise PolicyError("this policy is being asked ahead (ask_ahead); use ask_ahead and tell_ahead")
        if self.done:
            raise BudgetExhaustedError(f"budget of {self.budget} evaluations is spent")
        k = self._batch(limit)
        rows, cols, *ragged = self._select(k)
        valid, charge = ragged if ragged else (None, None)
        req = Request(next_request_id(), rows, cols, valid, charge)
        self.asked += req.budget_used
        return self._book.issue(req)

    def _batch(self, limit: int | None) -> int:
        k = min(self.next_batch_size(), self.budget - self.asked)
        if limit is not None:
            if limit < 1:
                raise ValueError(f"limit must be >= 1, got {limit}")
            k = min(k, int(limit))
        return k

    def ask_ahead(self, limit: int | None = None) -> Request:
        """Next pairs to evaluate while pairs asked before may still be unscored (at most ``limit`` per repetition).

        The request is not pending: tell its scores, and those of earlier ones, with :meth:`tell_ahead` in any
        grouping, each row's in the order they were asked. Only for a policy with ``supports_ahead``; a policy asked
        ahead is never asked with :meth:`ask` again.
        """
        if not self.supports_ahead:
            raise PolicyError(f"{self.name} cannot be asked ahead of its scores (supports_ahead is False)")
        self._book.check_ask()
        if self.asked >= self.budget:
            raise BudgetExhaustedError(f"budget of {self.budget} evaluations is all asked for")
        if not self._ahead:
            self._start_ahead()
            self._ahead = True
        k = self._batch(limit)
        rows, cols = self._select(k)
        self._asked_rows(rows)
        self.asked += rows.shape[1]
        return Request(next_request_id(), rows, cols)

    def tell_ahead(self, rows, cols, scores) -> None:
        """Scores (R, k) of pairs asked by :meth:`ask_ahead`, each row's in the order they were asked (the caller
        keeps scores that arrive early until the row's earlier pairs are told)."""
        if not self._ahead:
            raise PolicyError("tell_ahead is for pairs asked with ask_ahead")
        scores = self._check_scores(scores, rows.shape)
        if self.spent + rows.shape[1] > self.asked:
            raise PolicyError(f"{rows.shape[1]} scores told but only {self.asked - self.spent} pairs are outstanding")
        self._update(rows, cols, scores)
        self.spent += rows.shape[1]

    def _start_ahead(self) -> None:
        """Keep the per-row counts of pairs asked apart from those told (a policy with ``supports_ahead``)."""
        raise NotImplementedError

    def _asked_rows(self, rows: torch.Tensor) -> None:
        """Count the pairs just asked ahead in their rows' positions."""
        raise NotImplementedError

    def _check_scores(self, scores, shape) -> torch.Tensor:
        refuse_complex(scores, "scores must be real numbers in [0, 1]")
        scores = torch.as_tensor(scores, device=self.device, dtype=torch.float32)
        if scores.shape != shape:
            raise ValueError(f"scores must have shape {tuple(shape)}, got {tuple(scores.shape)}")
        lo, hi = torch.aminmax(scores)
        if not (lo.item() >= 0 and hi.item() <= 1):  # NaN fails both; two reads, no comparison tensors
            if torch.isnan(scores).any():
                raise ValueError("scores contain NaN")
            raise ValueError("scores must lie in [0, 1]")
        return scores

    def tell(self, request: Request, scores) -> None:
        """Report the scores of a request's pairs as an (R, k) array with values in [0, 1]."""
        self._book.check_tell(request)
        scores = self._check_scores(scores, request.rows.shape)
        self._update(request.rows, request.cols, scores)
        self.spent += request.budget_used
        self._book.settle(request)

    def pairs_told(self) -> torch.Tensor:
        """(R,) long: the pairs each repetition has been told the scores of. ``spent`` is what the budget has been
        charged; the two differ only for a policy whose requests are padded or charged more than their pairs
        (PULSE's backbone, :class:`Request`)."""
        return torch.full((self.reps,), self.spent, dtype=torch.long, device=self.device)

    def best(self) -> torch.Tensor:
        """Predicted best row per repetition, shape (R,); ties broken at random."""
        est = self.estimate()
        est = torch.where(torch.isnan(est), torch.full_like(est, -torch.inf), est)
        return random_argmax(est, self.gen)

    def next_batch_size(self) -> int:
        return 1

    @abstractmethod
    def _select(self, k: int) -> tuple:
        """Return (rows, cols), each (R, k) long tensors of unevaluated pairs; or (rows, cols, valid, charge) for a
        padded request (:class:`Request`)."""

    @abstractmethod
    def _update(self, rows: torch.Tensor, cols: torch.Tensor, scores: torch.Tensor) -> None:
        """Absorb the scores of the pairs just evaluated."""

    @abstractmethod
    def estimate(self) -> torch.Tensor:
        """Current estimate of every row's mean score, shape (R, n); NaN where unknown."""


class RowMeanState:
    """Running per-row sums and counts of observed scores, shape (R, n)."""

    def __init__(self, reps: int, n: int, device: torch.device):
        self.sums = torch.zeros(reps, n, dtype=torch.float64, device=device)
        self.counts = torch.zeros(reps, n, dtype=torch.float64, device=device)
        self._reps = torch.arange(reps, device=device)

    def add(self, rows: torch.Tensor, scores: torch.Tensor) -> None:
        r = self._reps[:, None].expand_as(rows)
        self.sums.index_put_((r, rows), scores.double(), accumulate=True)
        self.counts.index_put_((r, rows), torch.ones_like(scores, dtype=torch.float64), accumulate=True)

    def means(self) -> torch.Tensor:
        return torch.where(self.counts > 0, self.sums / self.counts.clamp(min=1), torch.nan)


class ObservedMatrix:
    """Observed scores and mask, shape (R, n, m), plus the list of observed pairs in order.

    Every repetition has observed the same number of pairs, so the list is a dense
    (R, count) tensor of rows, columns and scores; ``row_count`` (R, n) is ``mask.sum(dim=2)``,
    kept up to date so that no caller needs an (R, n, m) pass to count.
    """

    def __init__(self, reps: int, n: int, m: int, capacity: int, device: torch.device):
        self.values = torch.zeros(reps, n, m, dtype=torch.float32, device=device)
        self.mask = torch.zeros(reps, n, m, dtype=torch.bool, device=device)
        self.rows = torch.empty(reps, capacity, dtype=torch.long, device=device)
        self.cols = torch.empty(reps, capacity, dtype=torch.long, device=device)
        self.scores = torch.empty(reps, capacity, dtype=torch.float32, device=device)
        self.row_count = torch.zeros(reps, n, dtype=torch.long, device=device)
        self.count = 0
        self._reps = torch.arange(reps, device=device)
        self._n = n

    def add(self, rows: torch.Tensor, cols: torch.Tensor, scores: torch.Tensor) -> None:
        r = self._reps[:, None].expand_as(rows)
        if self.mask[r, rows, cols].any():
            raise PolicyError("a (model, example) pair was evaluated twice")
        self.values[r, rows, cols] = scores
        self.mask[r, rows, cols] = True
        self.row_count.view(-1).index_add_(0, (r * self._n + rows).reshape(-1), torch.ones_like(rows).reshape(-1))
        k = rows.shape[1]
        sl = slice(self.count, self.count + k)
        self.rows[:, sl], self.cols[:, sl], self.scores[:, sl] = rows, cols, scores
        self.count += k


def random_pair_order(reps: int, n: int, m: int, gen, device) -> torch.Tensor:
    """Independent uniformly random orderings of all n*m flat pair indices, shape (R, n*m)."""
    keys = uniform(gen, (reps, n * m), device=device)
    return torch.argsort(keys, dim=1)
