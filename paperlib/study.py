"""A live best-model search: ask/tell over named models and examples, with a journal that loses nothing.

The design follows Optuna's ``Study`` and its journal storage, kept apart as Optuna keeps them: the study decides,
and :class:`paperlib.journal.JournalStorage` stores (the lock, the header with the set-up, prices and objective, and
the records). Every decision and every score is appended to a JSON-lines file and flushed to disk (``fsync``) before
the call returns, and
:meth:`Study.resume` rebuilds the study by replaying the journal through a policy built with the
same method, parameters and seed. Policies are deterministic given their seed and the scores told,
so the replay reproduces every recorded request; the resumed study then continues exactly as an
uninterrupted one would. A request that was asked but not told before a crash is issued again.

Journal lines (one JSON object each):

* ``{"type": "header", ...}`` - method, params, seed, budget, delta, models, the examples' count and
  SHA-256, package version, device type. Always line 1.
* ``{"type": "ask", "request": k, "pairs": [[model, example], ...]}`` - the k-th request (indices).
* ``{"type": "score", "request": k, "index": t, "score": x}`` - the score of pair t of request k, written
  as soon as it is known (a crash in the middle of a batch loses no paid call).
* ``{"type": "failure", "request": k, "index": t, "error": "..."}`` - a failed attempt at pair t (never a
  score); the pair stays to do.
* ``{"type": "tell", "request": k, "scores": [...]}`` - the request complete, in the order of its pairs (not written
  by a study asked ahead, whose scores reach the policy as its score lines allow).
* ``{"type": "budget", "budget": B}`` - a resume raised the budget to B.
* ``{"type": "meta", "meta": {...}}`` - a resume replaced the scorer while nothing had been scored yet.

A study made with ``asynchronous=True`` asks ahead (:meth:`Study.ask_ahead`): several requests may be open at once,
so that a live search's workers never wait for the slowest call of a batch. Each score is written as it arrives and
reaches the policy as soon as every pair asked before it on the same model has a score (so a model's told scores are
always a prefix of its uniform order, the condition of the intervals). The decisions depend on the order in which the
scores arrived, which the journal records, so a replay still reproduces every request.

The file is only ever appended to. A journal that does not match the study's set-up, is cut
mid-line, tells a request twice or out of order, or records a pair twice is refused with an error
naming the line.
"""

from __future__ import annotations

import hashlib
import json
import numbers
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import torch

from . import __version__
from .checks import check_delta, check_scalar, check_score, check_seed
from .confseq import WoRMeanCS, certify, certify_top_k
from .journal import JournalError, JournalInUse, JournalStorage, lock_journal, peek  # noqa: F401 (re-exported)
from .pickling import KeepsViews
from .policies import MATRIX, METHODS, make_policy
from .policies.base import BudgetExhaustedError, PendingRequestError, UnknownRequestError
from .policies.lucb_prior import resolve_prior
from .prior import digest as prior_digest

#: the methods a live study runs: anytime (a certificate may stop them), each model's examples drawn uniformly (the
#: intervals need it), no train matrix, and an estimate that draws no random numbers (so a journal replays)
STUDY_METHODS = tuple(n for n, s in METHODS.items() if s.kind == MATRIX and s.anytime and s.uniform_within_row
                      and not s.takes_factors and not s.random_estimate)


#: what a header without the key meant (journals written before the key existed)
_HEADER_DEFAULTS = {"objective": "best", "epsilon": 0.0, "gamma": None}

OBJECTIVES = ("best", "cheapest")


def check_objective(objective, method: str, epsilon: float, gamma, costs) -> tuple[str, float | None]:
    """``objective`` and its method, ``epsilon``, ``gamma`` and prices checked together, before any call; returns
    (objective, gamma) with gamma resolved (epsilon / 2 by default for ``cheapest``, None for ``best``)."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if objective == "best":
        if method == "lucb-cheap":
            raise ValueError("method lucb-cheap certifies the cheapest good model: use objective='cheapest' "
                             "(--objective cheapest)")
        if gamma is not None:
            raise ValueError("gamma (--gamma) applies only to objective='cheapest'")
        return objective, None
    if method != "lucb-cheap":
        raise ValueError(f"objective='cheapest' runs method lucb-cheap (or auto), not {method}")
    if costs is None:
        raise ValueError("objective='cheapest' needs the price of a call to each model (costs, --costs FILE): the "
                         "rule orders the models by price before the first call")
    if not epsilon > 0:
        raise ValueError("objective='cheapest' needs epsilon > 0 (--epsilon): how far below the best a good model may "
                         "be")
    gamma = epsilon / 2 if gamma is None else check_scalar(gamma, "gamma", float, low=0.0, high=epsilon,
                                                           closed="right")
    return objective, float(gamma)


def _check_index(pairs: Pairs, index) -> int:
    """A pair's index in its request: a plain integer in range (not a bool, not 1.0, which would hash as 1)."""
    if isinstance(index, bool) or not isinstance(index, numbers.Integral) or not 0 <= index < len(pairs):
        raise ValueError(f"pair index {index!r} out of range for a request of {len(pairs)} pairs (an integer)")
    return int(index)


@dataclass(frozen=True)
class Pairs:
    """One request of a live study: evaluate ``models[i]`` on ``examples[j]`` for each (i, j)."""

    request: int
    pairs: tuple[tuple[int, int], ...]

    def __len__(self) -> int:
        return len(self.pairs)


def examples_digest(examples) -> str:
    """SHA-256 of the examples as canonical JSON lines: a journal is tied to the exact benchmark."""
    h = hashlib.sha256()
    for e in examples:
        h.update(json.dumps(e, sort_keys=True, separators=(",", ":")).encode())
        h.update(b"\n")
    return h.hexdigest()


class Study(KeepsViews):
    """Find the best of ``models`` on ``examples`` with an adaptive policy, one LLM call per pair.

    Parameters
    ----------
    models : list of str
        Distinct model (or prompt) names.
    examples : list
        The benchmark: any JSON values.
    method : str
        A matrix method of :mod:`paperlib.policies.registry` that needs no train matrix (default ``ucbe``).
    budget : int, optional
        Pairs to score at most (default: all of them).
    delta : float
        Confidence level of the intervals and of the certificate (union bound over the models).
    epsilon : float
        Certify an epsilon-best model (within epsilon of the best) instead of the best (default 0).
    journal : path, optional
        A new JSON-lines file to record the study in (an existing file is refused: use :meth:`resume`).
    seed : int
    asynchronous : bool or None
        Ask ahead of the scores (:meth:`ask_ahead`, :meth:`record_score`) instead of one request at a time
        (:meth:`ask`, :meth:`tell`); ``None``: when the method can (``Policy.supports_ahead``).
    objective : {"best", "cheapest"}
        ``best`` (default): find the best model (within ``epsilon``). ``cheapest``: certify the cheapest model within
        ``epsilon`` of the best such that no cheaper model is within ``epsilon - gamma`` of it
        (:class:`paperlib.policies.cheapest.CheapestGood`, method ``lucb-cheap``); needs ``costs`` and ``epsilon > 0``.
    gamma : float, optional
        With ``objective="cheapest"``: the slack of the cheapness guarantee (default ``epsilon / 2``).
    costs : dict, optional
        ``{model: price per call}``: every scored call's cost is journaled (a scorer may instead report the cost of
        each call, :meth:`record_score`'s ``cost``), and :attr:`spend_per_model` adds them up; recorded in the
        header, so a resume with other prices is refused. Failed attempts are not charged.
    prior : (K, m) array, optional
        Other models' scores on these examples (values in [0, 1], NaN where unscored; a leaderboard): the method
        ``lucb-prior`` (``auto`` with a prior) predicts each model's unseen scores from it and certifies at the same
        level with fewer calls when the prior is informative (:mod:`paperlib.policies.lucb_prior`). Its SHA-256 is
        recorded in the journal; a resume must give the same prior.
    predictions : (n, m) array, optional
        A predictor's scores for these models on these examples, in [0, 1] (NaN where none); instead of ``prior``.
    params : dict
        Method parameters (e.g. ``batch_size``, ``a``).
    """

    def __init__(self, models, examples, method: str = "ucbe", budget: int | None = None, delta: float = 0.05,
                 journal=None, seed: int = 0, device: str = "cpu", meta: dict | None = None, epsilon: float = 0.0,
                 asynchronous: bool | None = False, costs: dict | None = None, objective: str = "best",
                 gamma: float | None = None, prior=None, predictions=None, **params):
        models = [str(x) for x in models]
        examples = list(examples)
        method, prior_data = resolve_prior(method, prior, predictions, len(models), len(examples))
        if len(set(models)) != len(models):
            raise ValueError("model names must be distinct")
        if len(models) < 2 or not examples:
            raise ValueError(f"need at least 2 models and 1 example (got {len(models)} and {len(examples)})")
        delta = check_delta(delta)
        epsilon = check_scalar(epsilon, "epsilon", float, low=0.0, high=1.0, closed="left")
        objective, gamma = check_objective(objective, method, epsilon, gamma, costs)
        policy_params = dict(params)
        if method in METHODS and hasattr(METHODS[method].cls, "certificate"):  # its own (paired) certificate
            policy_params = {"delta": delta, "epsilon": epsilon, **params}
        n, m = len(models), len(examples)
        budget = n * m if budget is None else budget
        self.costs = None
        if costs is not None:
            from .costs import read_costs_table

            self.costs = read_costs_table(costs, models, examples=len(examples)).tolist()
        if objective == "cheapest":
            # the rule's top_share and allocation are recorded even at their defaults, so that a later default cannot
            # change a resumed run (a journal recorded before one existed has none: it resumes with the rule it was run
            # by, top_share 0 and allocation "bounds": _recorded_params)
            defaults = METHODS["lucb-cheap"].defaults()
            params = {"top_share": defaults["top_share"], "allocation": defaults["allocation"], **params}
            policy_params.update(costs=self.costs, gamma=gamma, top_share=params["top_share"],
                                 allocation=params["allocation"])
        self.objective, self.gamma = objective, gamma
        self._spend = [0.0] * n
        self._costed = self._uncosted = 0
        self.models, self.examples = models, examples
        self.method, self.params, self.seed, self.delta = method, dict(params), check_seed(seed), float(delta)
        self.epsilon = float(epsilon)
        self.policy = make_policy(method, n, m, budget, reps=1, seed=self.seed, device=device, **policy_params,
                                  **prior_data)
        if method not in STUDY_METHODS:
            raise ValueError(f"method {method} is not supported by Study; use one of {', '.join(STUDY_METHODS)} (their "
                             "intervals are valid and their estimates draw no random numbers, so a journal replays)")
        self.budget = self.policy.budget
        if asynchronous is not None and not isinstance(asynchronous, bool):
            raise ValueError(f"asynchronous must be True, False or None (as the method allows), got {asynchronous!r}")
        if asynchronous is None:
            asynchronous = bool(self.policy.supports_ahead)
        if asynchronous and not self.policy.supports_ahead:
            ahead = ", ".join(x for x in STUDY_METHODS if x not in ("row-mean", "filled-subset", "ucbe-batch"))
            raise ValueError(f"method {method} with {params or 'its defaults'} cannot be asked ahead of its scores; "
                             f"use asynchronous=False, or one of {ahead} (UCB-E with its row batches)")
        self.asynchronous = bool(asynchronous)
        self._open: dict[int, Pairs] = {}
        self._fifo: dict[int, deque] = {}
        self._unscored: dict[tuple[int, int], list] = {}
        self._left: dict[int, int] = {}
        self._held: set[tuple[int, int]] = set()
        own = getattr(self.policy, "cs", None)  # lucb-prior's intervals are its prior-assisted ones
        self.cs = own if prior_data else WoRMeanCS(1, n, m, self.delta / n, device=self.policy.device)
        self.seen: set[tuple[int, int]] = set()
        self._requests = 0
        self._pending: tuple[Pairs, object] | None = None
        self._partial: dict[int, float] = {}
        self._scores_completed: int | None = None
        self.failures = 0
        self._storage: JournalStorage | None = None
        self._header = dict(type="header", format=1, version=__version__, method=method, params=self.params,
                            seed=self.seed, budget=self.budget, delta=self.delta, epsilon=self.epsilon,
                            models=models, n_examples=m,
                            examples_sha256=examples_digest(examples), device=self.policy.device.type,
                            meta=dict(meta or {}))
        if self.costs is not None:
            self._header["costs"] = self.costs
        for key, value in prior_data.items():  # the data's digest: a resume with another prior is refused
            self._header[f"{key}_sha256"] = prior_digest(value)
        if objective != "best":
            self._header.update(objective=objective, gamma=gamma)
        if self.asynchronous:
            self._header["asynchronous"] = True
        if journal is not None:
            self._storage = JournalStorage.create(journal, self._header)

    def __reduce_ex__(self, protocol):
        """Pickle the study (views kept: :class:`paperlib.pickling.KeepsViews`); a journaled study is refused: its
        journal holds a lock of this process, and two copies appending to one file would corrupt it."""
        if getattr(self, "_storage", None) is not None:
            raise TypeError("a Study with a journal cannot be pickled (its journal is locked by this process); "
                            "close() it and rebuild it elsewhere with Study.resume(journal, examples=...)")
        return super().__reduce_ex__(protocol)

    def close(self) -> None:
        """Release the journal's lock (also released when the process ends)."""
        if self._storage is not None:
            self._storage.close()

    # journal -------------------------------------------------------------------------------------
    def _append(self, record: dict) -> None:
        if self._storage is not None:
            self._storage.append(record)

    @classmethod
    def resume(cls, journal, models=None, examples=None, meta: dict | None = None, budget: int | None = None,
               prior=None, predictions=None, **overrides) -> Study:
        """Rebuild a study from its journal and continue it (appending to the same file).

        ``examples`` is required (the journal stores only their digest); ``models``, when given, must
        match the journal's. Parameters are read from the header; ``overrides`` (method, seed, delta, a method
        parameter) and ``meta`` (what else decides the answer, e.g. the scorer) must agree with it, else the resume is
        refused naming both values. A larger ``budget`` continues the run (every study method is anytime, so the
        replay is the same); a smaller one is refused.
        """
        storage = JournalStorage.open(journal)
        try:
            return cls._resume_from(storage, models, examples, overrides, meta, budget,
                                    {k: v for k, v in (("prior", prior), ("predictions", predictions)) if v is not None})
        except BaseException:
            storage.close()
            raise

    @classmethod
    def _resume_from(cls, storage: JournalStorage, models, examples, overrides: dict, meta, budget,
                     prior_data: dict | None = None) -> Study:
        path, header = storage.path, storage.header
        prior_data = prior_data or {}
        for key in ("prior", "predictions"):
            recorded, given = header.get(f"{key}_sha256"), prior_data.get(key)
            if recorded is not None and given is None:
                raise JournalError(f"{path}:1: the journal was recorded with a {key} (SHA-256 {recorded[:12]}...); "
                                   f"resume with the same {key} (--{key})")
            if recorded is None and given is not None:
                raise JournalError(f"{path}:1: the journal was recorded without a {key}; resume without one, or start "
                                   "a new journal")
            if given is not None and prior_digest(given) != recorded:
                raise JournalError(f"{path}:1: this {key} (SHA-256 {prior_digest(given)[:12]}...) differs from the "
                                   f"journal's ({recorded[:12]}...); the recorded run used the other one (use a new "
                                   "--json or --journal)")
        if examples is None:
            raise ValueError("resume needs the examples (the journal stores only their SHA-256)")
        if examples_digest(examples) != header["examples_sha256"] or len(examples) != header["n_examples"]:
            raise JournalError(f"{path}:1: the examples differ from the ones this journal was recorded with")
        if models is not None and [str(x) for x in models] != header["models"]:
            raise JournalError(f"{path}:1: the models differ from the journal's {header['models']}")
        if "costs" in overrides:  # prices are compared as the header records them: one per model, in its order
            from .costs import read_costs_table

            given = overrides.pop("costs")  # None: resume with the journal's own prices
            given = None if given is None else read_costs_table(given, header["models"]).tolist()
            if given is not None and given != header.get("costs"):
                raise JournalError(f"{path}:1: costs={given!r} differ from the journal's costs={header.get('costs')!r}; "
                                   "the recorded spend was priced with the other one (use a new --json or --journal)")
        for key, value in overrides.items():
            recorded = header.get(key, header["params"].get(key, _HEADER_DEFAULTS.get(key)))
            if recorded != value:
                raise JournalError(f"{path}:1: {key}={value!r} differs from the journal's {key}={recorded!r}; a "
                                   "different set-up needs a new journal (another --json or --journal)")
        recorded_meta = storage.meta
        changed = {k: v for k, v in (meta or {}).items() if k in recorded_meta and recorded_meta[k] != v}
        if changed and storage.scored:
            key = next(iter(changed))
            raise JournalError(f"{path}:1: {key} {changed[key]!r} differs from the journal's {recorded_meta[key]!r}; "
                               "the recorded scores came from the other one (use a new --json or --journal)")
        recorded_budget = storage.budget
        run_budget = recorded_budget if budget is None else budget
        if run_budget < recorded_budget:
            raise JournalError(f"{path}:1: budget={budget} is below the journal's budget={recorded_budget}; a resume "
                               "may only raise it")
        try:
            study = cls(header["models"], examples, method=header["method"], budget=run_budget, delta=header["delta"],
                        seed=header["seed"], device=header["device"], meta=recorded_meta,
                        epsilon=header.get("epsilon", 0.0), asynchronous=bool(header.get("asynchronous", False)),
                        costs=(None if header.get("costs") is None else dict(zip(header["models"], header["costs"],
                                                                                   strict=True))),
                        objective=header.get("objective", "best"), gamma=header.get("gamma"),
                        **prior_data, **_recorded_params(header))
        except (ValueError, TypeError) as exc:
            raise JournalError(f"{path}:1: the header's set-up is not valid: {exc}") from None
        try:
            study._replay(storage)
        except JournalError as exc:
            if run_budget == recorded_budget:
                raise
            raise JournalError(f"{path}: cannot continue past the journal's budget={recorded_budget}: the run's last "
                               f"request was cut to fit it, and a larger budget would have asked differently ({exc}); "
                               "start a new journal") from None
        study._storage = storage
        if run_budget > recorded_budget:
            study._append(dict(type="budget", budget=run_budget))
        if changed:  # nothing was scored yet (only failures): the fixed scorer takes over
            study._append(dict(type="meta", meta=changed))
        return study

    def _replay(self, storage: JournalStorage) -> None:
        path = storage.path
        for no, rec in storage.records():
            kind = rec.get("type")
            if self.asynchronous and kind in ("ask", "score", "failure", "tell"):
                self._replay_ahead(path, no, rec)
            elif kind == "ask":
                if self._pending is not None:
                    raise JournalError(f"{path}:{no}: request {rec.get('request')} asked before request "
                                       f"{self._pending[0].request} was told")
                got = self.ask()
                want = tuple(tuple(p) for p in rec.get("pairs", ()))
                if rec.get("request") != got.request or want != got.pairs:
                    raise JournalError(f"{path}:{no}: replay asked for {list(got.pairs)[:4]}... but the journal "
                                       f"records {list(want)[:4]}...; the journal was made with another version, "
                                       "seed or device")
            elif kind == "tell":
                if self._pending is None and rec.get("request") == self._scores_completed:
                    self._scores_completed = None
                    continue  # the request was completed by its score lines just above
                if self._pending is None or rec.get("request") != self._pending[0].request:
                    raise JournalError(f"{path}:{no}: tell of request {rec.get('request')}, which is not the "
                                       "pending request (told twice or out of order)")
                try:
                    self.tell(self._pending[0], rec["scores"])
                except (ValueError, KeyError) as exc:
                    raise JournalError(f"{path}:{no}: {exc}") from None
            elif kind in ("score", "failure"):
                if self._pending is None or rec.get("request") != self._pending[0].request:
                    raise JournalError(f"{path}:{no}: {kind} for request {rec.get('request')}, which is not pending")
                try:
                    if kind == "score":
                        self.record_score(self._pending[0], rec["index"], rec["score"], cost=rec.get("cost"))
                    else:
                        self.record_failure(self._pending[0], rec["index"], rec.get("error", ""))
                except (ValueError, KeyError, TypeError) as exc:
                    raise JournalError(f"{path}:{no}: {exc}") from None
            elif kind in ("budget", "meta"):
                continue  # a resume raised the budget or replaced a scorer that had scored nothing (read before)
            else:
                raise JournalError(f"{path}:{no}: unknown record type {kind!r}")

    def _replay_ahead(self, path: Path, no: int, rec: dict) -> None:
        kind, request = rec["type"], rec.get("request")
        if kind == "tell":
            raise JournalError(f"{path}:{no}: a tell line in a journal asked ahead")
        if kind == "ask":
            want = tuple(tuple(p) for p in rec.get("pairs", ()))
            if not want or request != self._requests:
                raise JournalError(f"{path}:{no}: request {request} out of order (expected {self._requests})")
            try:
                got = self.ask_ahead(limit=len(want))
            except BudgetExhaustedError:
                raise JournalError(f"{path}:{no}: request {request} asked past the budget") from None
            if want != got.pairs:
                raise JournalError(f"{path}:{no}: replay asked for {list(got.pairs)[:4]}... but the journal "
                                   f"records {list(want)[:4]}...; the journal was made with another version, "
                                   "seed or device")
            return
        pairs = self._open.get(request)
        if pairs is None:
            raise JournalError(f"{path}:{no}: {kind} for request {request}, which is not open")
        try:
            if kind == "score":
                self.record_score(pairs, rec["index"], rec["score"], cost=rec.get("cost"))
            else:
                self.record_failure(pairs, rec["index"], rec.get("error", ""))
        except (ValueError, KeyError, TypeError, PendingRequestError) as exc:
            raise JournalError(f"{path}:{no}: {exc}") from None

    # ask / tell ------------------------------------------------------------------------------------
    @property
    def calls(self) -> int:
        """Pairs scored and told to the policy (ucbe-batch's budget is charged a full batch for a short one: this
        counts the pairs)."""
        return int(self.policy.pairs_told()[0])

    @property
    def paid(self) -> int:
        """Pairs scored (a study asked ahead holds some until the model's earlier pairs are scored)."""
        return self.calls + len(self._held) - len(self._unscored)

    def scored_pairs(self) -> list[tuple[int, int]]:
        """Every pair with a score: those told to the policy, then those held for an earlier pair of their model."""
        held = [(e[0], e[1]) for q in self._fifo.values() for e in q if e[3] is not None]
        return [*self.seen, *held]

    @property
    def exhausted(self) -> bool:
        """Every pair of the budget has been asked for (asked ahead: some may still be unscored)."""
        return self.policy.asked >= self.budget

    def ask_ahead(self, limit: int | None = None) -> Pairs:
        """The next pairs to score while earlier ones may still be unscored (at most ``limit``).

        Score them with :meth:`record_score` in any order; a pair that fails stays to do (:meth:`outstanding`).
        """
        if not self.asynchronous:
            raise PendingRequestError("this study asks one request at a time (ask / tell); make it with "
                                      "asynchronous=True to ask ahead")
        if self.exhausted:
            raise BudgetExhaustedError(f"the budget of {self.budget} calls is all asked for")
        req = self.policy.ask_ahead(limit)
        pairs = tuple(zip(req.rows[0].tolist(), req.cols[0].tolist(), strict=True))
        dup = [p for p in pairs if p in self.seen or p in self._held]
        if dup or len(set(pairs)) != len(pairs):
            raise RuntimeError(f"policy {self.method} asked for a pair twice: {dup[:3]}")
        out = Pairs(self._requests, pairs)
        self._requests += 1
        self._open[out.request] = out
        self._left[out.request] = len(pairs)
        self._held.update(pairs)
        for t, (i, j) in enumerate(pairs):
            entry = [i, j, (out.request, t), None]
            self._fifo.setdefault(i, deque()).append(entry)
            self._unscored[(out.request, t)] = entry
        self._append(dict(type="ask", request=out.request, pairs=[list(p) for p in pairs]))
        return out

    def outstanding(self) -> list[tuple[Pairs, int]]:
        """The pairs asked ahead that have no score yet (in flight, failed, or lost with a crashed run), in asking
        order: a resumed search scores these first."""
        return sorted(((self._open[k[0]], k[1]) for k in self._unscored), key=lambda x: (x[0].request, x[1]))

    def _score_ahead(self, pairs: Pairs, index: int, score: float, cost: float | None) -> None:
        entry = self._unscored.pop((pairs.request, index), None)
        if entry is None:
            raise PendingRequestError(f"pair {index} of request {pairs.request} is not waiting for a score (never "
                                      "asked, or already scored)")
        entry[3] = score
        cost = self._charge(entry[0], cost)
        self._append(dict(type="score", request=pairs.request, index=index, score=score,
                          **({} if cost is None else {"cost": cost})))
        self._left[pairs.request] -= 1
        if not self._left[pairs.request]:
            del self._left[pairs.request], self._open[pairs.request]
        q = self._fifo[entry[0]]
        told = []
        while q and q[0][3] is not None:
            told.append(q.popleft())
        if not told:
            return
        self._held.difference_update((e[0], e[1]) for e in told)
        rows = torch.tensor([[e[0] for e in told]], device=self.policy.device)
        cols = torch.tensor([[e[1] for e in told]], device=self.policy.device)
        t = torch.tensor([[e[3] for e in told]], dtype=torch.float32, device=self.policy.device)
        self.policy.tell_ahead(rows, cols, t)
        if self.cs is not getattr(self.policy, "cs", None):
            self.cs.update(rows, t)
        self.seen.update((e[0], e[1]) for e in told)

    @property
    def done(self) -> bool:
        """The whole budget is scored and told."""
        return self.policy.done

    @property
    def pending(self) -> Pairs | None:
        """The request asked and not yet fully scored, if any."""
        return None if self._pending is None else self._pending[0]

    def ask(self) -> Pairs:
        """The next pairs to score (the pending ones again if the last request was not told)."""
        if self.asynchronous:
            raise PendingRequestError("this study asks ahead; use ask_ahead and record_score")
        if self._pending is not None:
            return self._pending[0]
        if self.done:
            raise BudgetExhaustedError(f"the budget of {self.budget} calls is spent")
        req = self.policy.ask()
        pairs = tuple(zip(req.rows[0].tolist(), req.cols[0].tolist(), strict=True))
        dup = [p for p in pairs if p in self.seen]
        if dup or len(set(pairs)) != len(pairs):
            raise RuntimeError(f"policy {self.method} asked for a pair twice: {dup[:3]}")
        out = Pairs(self._requests, pairs)
        self._requests += 1
        self._pending = (out, req)
        self._append(dict(type="ask", request=out.request, pairs=[list(p) for p in pairs]))
        return out

    def tell(self, pairs: Pairs, scores) -> None:
        """Record the scores of ``pairs`` (values in [0, 1], in the order of its pairs)."""
        if self._pending is None:
            raise UnknownRequestError(f"request {pairs.request} is not pending (nothing was asked, or it was told)")
        if pairs.request != self._pending[0].request:
            raise PendingRequestError(f"request {pairs.request} is not the pending request {self._pending[0].request}")
        scores = [check_score(s, f"score of pair {t}") for t, s in enumerate(scores)]
        if len(scores) != len(pairs):
            raise ValueError(f"{len(pairs)} pairs but {len(scores)} scores")
        req = self._pending[1]
        if not self._partial:  # told at once, not pair by pair (record_score charged those)
            for i, _ in pairs.pairs:
                self._charge(i, None)
        t = torch.tensor([scores], dtype=torch.float32, device=self.policy.device)
        self.policy.tell(req, t)
        if self.cs is not getattr(self.policy, "cs", None):
            self.cs.update(req.rows, t)
        self.seen.update(pairs.pairs)
        self._pending = None
        self._partial = {}
        self._scores_completed = None
        self._append(dict(type="tell", request=pairs.request, scores=scores))

    def _check_pending(self, pairs: Pairs, index) -> int:
        if self._pending is None or pairs != self._pending[0]:
            raise PendingRequestError(f"request {getattr(pairs, 'request', pairs)!r} is not this study's pending "
                                      "request")
        return _check_index(pairs, index)

    def _check_asked(self, pairs: Pairs, index) -> int:
        """Asked ahead: ``pairs`` must be one of this study's open requests (not another study's with the same
        number), ``index`` a plain integer in range."""
        if not isinstance(pairs, Pairs) or self._open.get(pairs.request) != pairs:
            raise PendingRequestError(f"request {getattr(pairs, 'request', pairs)!r} is not one of this study's open "
                                      "requests (already scored, or asked by another study)")
        return _check_index(pairs, index)

    def missing(self, pairs: Pairs) -> list[int]:
        """Indices of the pending request's pairs that have no score yet."""
        return [t for t in range(len(pairs)) if t not in self._partial]

    def record_score(self, pairs: Pairs, index: int, score: float, cost: float | None = None) -> None:
        """Record one pair's score as soon as it is known; the request is told once every pair has one (asked
        ahead: each pair is told once the model's earlier pairs are). ``cost``: what the call cost, when the scorer
        knows it (else the model's price in ``costs``, if any); journaled with the score."""
        index = self._check_asked(pairs, index) if self.asynchronous else self._check_pending(pairs, index)
        score = check_score(score, f"score of pair {index}")
        if cost is not None:
            from .costs import check_cost

            cost = check_cost(cost, f"cost of pair {index} of request {pairs.request}")
        if self.asynchronous:
            self._score_ahead(pairs, index, score, cost)
            return
        if index in self._partial:
            raise ValueError(f"pair {index} of request {pairs.request} already has a score")
        self._partial[index] = score
        cost = self._charge(pairs.pairs[index][0], cost)
        self._append(dict(type="score", request=pairs.request, index=index, score=score,
                          **({} if cost is None else {"cost": cost})))
        if len(self._partial) == len(pairs):
            self.tell(pairs, [self._partial[t] for t in range(len(pairs))])
            self._scores_completed = pairs.request

    def record_failure(self, pairs: Pairs, index: int, error: str) -> None:
        """Record a failed attempt at one pair (never as a score); the pair stays to do."""
        if self.asynchronous:
            index = self._check_asked(pairs, index)
            if (pairs.request, index) not in self._unscored:
                raise PendingRequestError(f"pair {index} of request {pairs.request} is not waiting for a score")
        else:
            index = self._check_pending(pairs, index)
        self.failures += 1
        self._append(dict(type="failure", request=pairs.request, index=index, error=str(error)[:500]))

    def _charge(self, model: int, cost: float | None) -> float | None:
        """Add one scored call of ``model`` to the spend: the cost the scorer reported, else the model's price."""
        if cost is None and self.costs is not None:
            cost = self.costs[model]
        if cost is None:
            self._uncosted += 1
        else:
            self._spend[model] += cost
            self._costed += 1
        return cost

    @property
    def spend_per_model(self) -> dict[str, float] | None:
        """What the scored calls cost, per model (None without prices and before any cost was reported)."""
        if self.costs is None and not self._costed:
            return None
        return dict(zip(self.models, self._spend, strict=True))

    @property
    def calls_without_cost(self) -> int:
        """Scored calls with no known cost (no price and no cost from the scorer): the spend leaves them out."""
        return self._uncosted

    # results ---------------------------------------------------------------------------------------
    def best(self) -> str:
        """The model with the highest estimate; ties go to the higher lower bound, then the earlier model.

        Deterministic on purpose: the policy's own random tie-breaking would draw from the generator
        that makes its decisions, so merely looking at the leader would change the rest of the run
        (and a replayed journal would no longer match)."""
        if hasattr(self.policy, "certificate"):
            return self.models[int(self.policy.leader()[0])]
        est = torch.nan_to_num(self.policy.estimate()[0].double(), nan=-torch.inf)
        top = est == est.max()
        lower = torch.where(top, self.cs.lower[0], torch.full_like(est, -torch.inf))
        return self.models[int(torch.argmax(lower))]

    def estimates(self) -> dict[str, float]:
        est = self.policy.estimate()[0].tolist()
        return dict(zip(self.models, est, strict=True))

    def intervals(self) -> dict[str, tuple[float, float]]:
        """Each model's anytime-valid interval (simultaneous over models at level delta)."""
        lo, hi = self.cs.lower[0].tolist(), self.cs.upper[0].tolist()
        return {name: (a, b) for name, a, b in zip(self.models, lo, hi, strict=True)}

    @property
    def certified(self) -> bool:
        """Whether the chosen model is certified: its lower bound above every other model's upper bound (minus
        ``epsilon``), or, for a method with its own certificate (``lucb``, ``lucb-pd``), the policy's."""
        if hasattr(self.policy, "certificate"):
            lead, ok = self.policy.certificate()
        else:
            lead, ok = certify(self.cs.lower, self.cs.upper, self.cs.lower, self.epsilon)
        return bool(ok[0]) and self.models[int(lead[0])] == self.best()

    def top_k(self, k: int) -> tuple[list[str], bool]:
        """The k models with the highest lower bounds, and whether they are certified as the k best."""
        top, ok = certify_top_k(self.cs.lower, self.cs.upper, k)
        return [self.models[i] for i in top[0].tolist()], bool(ok[0])


def _recorded_params(header: dict) -> dict:
    """The method parameters a journal was recorded with: its header's, and for a cheapest-good journal from before
    ``top_share`` (2026-11-26) or ``allocation`` (2026-11-27) existed (none recorded), ``top_share=0`` and
    ``allocation="bounds"``, the rule that journal was run by."""
    params = dict(header["params"])
    if header.get("objective", "best") == "cheapest":
        params.setdefault("top_share", 0.0)
        params.setdefault("allocation", "bounds")
    return params


def journal_meta(path) -> dict:
    """The ``meta`` a journal recorded (e.g. the scorer's identity), or {} when it cannot be read; the resume itself
    reports a damaged journal."""
    seen = peek(path)
    return {} if seen is None else seen[1]


def journal_costs(path) -> dict | None:
    """The prices a journal was recorded with, as ``{model: price}``, or None (no journal, no prices, or a journal
    the resume will report as damaged): a resume without prices keeps the journal's (docs/usage.md)."""
    seen = peek(path)
    header = None if seen is None else seen[0]
    if not isinstance(header, dict) or not isinstance(header.get("costs"), list) or not isinstance(header.get("models"), list):
        return None
    if len(header["costs"]) != len(header["models"]):
        return None
    return dict(zip(header["models"], header["costs"], strict=True))


def journal_method(path) -> str | None:
    """The method a journal was recorded with, or None (no journal, or one the resume will report as damaged)."""
    seen = peek(path)
    method = None if seen is None or not isinstance(seen[0], dict) else seen[0].get("method")
    return method if method in STUDY_METHODS else None
