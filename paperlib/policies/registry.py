"""One registry of methods: an identity per method variant, labels for display only.

A *method id* names a policy and the parameters that make it a variant:
``name[:key=value[:key=value...]]`` with keys in alphabetical order, e.g. ``ucbe``,
``ucbe-lrf``, ``robin-hood:delta=0.007:ucb=delta``. Ids are the keys of every table and
figure; :func:`label` turns an id into the text shown on a plot or in the ledger.

Adding a policy is one module in :mod:`paperlib.policies` and one :class:`MethodSpec` here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..checks import check_scalar

MATRIX = "matrix"
JUDGE = "judge"


@dataclass(frozen=True)
class Param:
    """One parameter of a method: its type, default, allowed range and a line of help.

    ``affects_result=False`` marks a parameter that changes only how the work is cut (the batch of a
    method whose picks do not depend on it); ``at_most_budget`` refuses a value above the run's budget.
    ``parse`` replaces the type check for a parameter of mixed type (ROBIN-HOOD's ``t0``).
    """

    name: str
    kind: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    closed: str = "both"
    choices: tuple | None = None
    at_most_budget: bool = False
    affects_result: bool = True
    parse: Callable[[Any, str], Any] | None = None

    def check(self, value, method: str, name: str | None = None):
        name = name or f"{method} parameter {self.name}"
        if self.parse is not None:
            return self.parse(value, name)
        return check_scalar(value, name, self.kind, low=self.low, high=self.high, closed=self.closed,
                            choices=self.choices)


@dataclass(frozen=True)
class MethodSpec:
    """A registered method.

    Attributes
    ----------
    name : the id's first part (``robin-hood``)
    impl : ``"module:Class"`` of the policy class in :mod:`paperlib.policies`, imported on first use of :attr:`cls`
        (so the registry, the CLI's ``--help`` and ``--version`` need no torch)
    kind : ``"matrix"`` (best-method identification on a score matrix) or ``"judge"``
        (allocation of repeated judge queries)
    label : short display text of the plain method
    description : one line for ``--help``
    family : the hyperparameters it shares: ``ucbe``, ``lrf`` (rank, ensemble, eta, warm-up),
        ``backbone`` (the batched PULSE backbone: batch, T0, a), ``baseline`` or ``judge``
    params : every parameter the method takes (:class:`Param`); nothing else is accepted
    variant : the parameters that may appear in an id
    variant_label : display text of a variant, from its parameters
    needs_factors : needs frozen example factors V from a train matrix (PULSE Step 1, ``v=``)
    takes_factors : accepts ``v=`` (needed or not)
    takes_prior : accepts ``prior=`` (other models' scores on the examples) or ``predictions=`` (a predictor's scores
        for the candidates), data inputs like ``v=``

    The capabilities that the class itself defines are read from it: :attr:`anytime`,
    :attr:`uniform_within_row`, :attr:`random_estimate`, :attr:`needs_scale`, :attr:`needs_variances`,
    :attr:`needs_costs`.
    """

    name: str
    impl: str
    kind: str
    label: str
    description: str
    family: str
    params: tuple[Param, ...] = ()
    variant: tuple[str, ...] = ()
    variant_label: Callable[[dict], str] | None = None
    needs_factors: bool = False
    takes_factors: bool = False
    takes_prior: bool = False

    @property
    def cls(self) -> type:
        """The policy class (imported here, with torch, the first time it is asked for)."""
        import importlib

        module, _, name = self.impl.partition(":")
        return getattr(importlib.import_module(f".{module}", __package__), name)

    @property
    def anytime(self) -> bool:
        """Prefix-consistent: the run with budget T is the first T calls of a longer run (a certificate may stop it)."""
        return bool(getattr(self.cls, "anytime", True))

    @property
    def uniform_within_row(self) -> bool:
        """Draws each model's examples uniformly among its unevaluated ones (the intervals need this)."""
        return bool(getattr(self.cls, "uniform_within_row", False))

    @property
    def random_estimate(self) -> bool:
        """Its estimate draws random numbers (a refit of a random ensemble), so a journal could not replay it."""
        return bool(getattr(self.cls, "random_estimate", False))

    @property
    def needs_variances(self) -> bool:
        """Is given the judge's true variances (an oracle: ROBIN with known variances)."""
        return bool(getattr(self.cls, "needs_variances", False))

    @property
    def needs_costs(self) -> bool:
        """Needs the price of a call to each model (``costs=``): its rule depends on them."""
        return bool(getattr(self.cls, "needs_costs", False))

    @property
    def needs_scale(self) -> bool:
        """Needs the judge's score range (``scale=(lo, hi)``)."""
        return bool(getattr(self.cls, "needs_scale", False))

    @property
    def variant_params(self) -> dict[str, Param]:
        by_name = {p.name: p for p in self.params}
        return {k: by_name[k] for k in self.variant}

    def param_names(self) -> list[str]:
        return [p.name for p in self.params]

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}

    def check_params(self, params: dict, budget: int | None = None, names: dict | None = None) -> dict:
        """``params`` checked against this method's :attr:`params`: an unknown name or a bad value is refused
        with a message naming both (data inputs ``v`` and ``scale`` pass through when the method takes them).
        ``names`` maps a parameter to how a message calls it (the command line's flag)."""
        by_name = {p.name: p for p in self.params}
        out = {}
        for key, value in params.items():
            if ((key == "v" and self.takes_factors) or (key == "scale" and self.needs_scale)
                    or (key == "costs" and self.needs_costs) or (key in ("prior", "predictions") and self.takes_prior)):
                out[key] = value
                continue
            if key not in by_name:
                takes = ", ".join(self.param_names()) or "no parameters"
                hint = "" if key != "v" else " (it needs no train factors)"
                raise ValueError(f"{self.name} takes no parameter {key!r}{hint}; it takes: {takes}")
            p = by_name[key]
            label = (names or {}).get(key) or f"{self.name} parameter {key}"
            out[key] = p.check(value, self.name, label)
            if p.at_most_budget and budget is not None and out[key] > budget:
                raise ValueError(f"{label} = {out[key]} exceeds the budget of {budget} calls ({self.name})")
        return out

    def pick(self, params: dict, affecting_only: bool = False) -> dict:
        """The entries of a shared block (a config's family block) that this method takes, checked."""
        take = {p.name for p in self.params if p.affects_result or not affecting_only}
        return self.check_params({k: v for k, v in params.items() if k in take})


def _t0_rounds(value, name: str):
    if isinstance(value, str) and value in ("experiments", "theorem", "lemma6"):
        return value
    if isinstance(value, str) and not value.strip().isdigit():
        raise ValueError(f"{name} must be 'experiments', 'theorem', 'lemma6' or a positive integer, got {value!r}")
    return check_scalar(value, name, int, low=1)


def _robin_hood_label(p: dict) -> str:
    form = "log 1/δ" if p.get("ucb", "eq6") == "delta" else "Eq. 6"
    return f"ROBIN-HOOD (δ={float(p.get('delta', 0.007)):g}, {form})"


def _convention_label(base: str):
    """Display text of a backbone variant: the paper-literal convention and the (non-default) rejection sampler are
    named."""
    def text(p: dict) -> str:
        notes = [w for w, on in (("paper-literal", p.get("convention") == "paper"),
                                 ("rejection sampler", p.get("sampler") == "rejection")) if on]
        return f"{base} ({', '.join(notes)})" if notes else base
    return text


def _batch_mode_label(base: str):
    return lambda p: f"{base} ({p['batch_mode']} batches)" if "batch_mode" in p else base


def _batch(default: int, affects_result: bool = True) -> Param:
    if affects_result:
        return Param("batch_size", int, default, "pairs per step", low=1, at_most_budget=True)
    return Param("batch_size", int, default, "pairs per step (the picks do not depend on it)", low=1,
                 affects_result=False)


_A = Param("a", float, 1.0, "UCB-E exploration parameter a (Zhou et al. Sec. 4.3)", low=0.0)
_UCBE = (_A, _batch(1), Param("batch_mode", str, "row", "row: the top method and b of its examples (Zhou et al. "
                              "Sec. 4.3); pending: b sequential arg-maxes counting pending pairs",
                              choices=("row", "pending")))
_LRF_BASE = (
    Param("rank", int, 1, "rank r of the factorisation", low=1),
    Param("ensemble", int, 64, "ensemble size K", low=1),
    Param("warmup_frac", float, 0.05, "warm-up T0 as a fraction of n*m", low=0.0, high=1.0),
    _batch(32),
    Param("eta", float, 5.0, "uncertainty scaling eta", low=0.0),
    Param("drop", float, 0.05, "dropout rate of each ensemble member's observed pairs", low=0.0, high=1.0, closed="left"),
    Param("init_sweeps", int, 20, "ALS sweeps of the first fit", low=1),
    Param("refit_sweeps", int, 2, "ALS sweeps of a warm-started refit", low=1),
)
_LRF_ACTIVE = _LRF_BASE + (
    Param("refit_every", int, 1, "batches between refits (1: after every batch, as the paper)", low=1),
    Param("refit_growth", float, 0.0, "refit only when the observed pairs have grown by 1 + this (0: every batch)",
          low=0.0, high=10.0),
)
_BACKBONE = (_batch(64), Param("t0", int, 1, "warm-up batches per model T0", low=1), _A,
             Param("sampler", str, "shuffled", "how a batch is drawn from a model's unobserved examples (same "
                   "distribution): shuffled (one shuffled list per row once half of it is observed; O(batch) per "
                   "step on long runs), or rejection (the streams committed before 2026-11-26)",
                   choices=("shuffled", "rejection")))
_PULSE = _BACKBONE + (
    Param("refit_every", int, 1000, "bandit steps between refits of U", low=1),
    Param("lam", float, 0.01, "lambda of Eq. 1 in the refits", low=0.0),
    Param("init_lr", float, 0.01, "Adam learning rate of the first refit (App. C.1)", low=0.0, closed="neither"),
    Param("init_steps", int, 50, "Adam steps of the first refit (App. C.1)", low=1),
    Param("loop_lr", float, 0.1, "Adam learning rate of the refits in the loop (App. C.1)", low=0.0, closed="neither"),
    Param("loop_steps", int, 10, "Adam steps of the refits in the loop (App. C.1)", low=1),
    Param("convention", str, "authors", "authors: as the authors' code runs it; paper: the paper-literal reading",
          choices=("authors", "paper")),
)
_PULSE_SYNC = tuple(p for p in _PULSE if p.name != "sampler")  # one shared order per run: no sampler to choose
_ROBIN_HOOD = (
    Param("delta", float, 0.007, "confidence delta (Sec. 5)", low=0.0, high=1.0, closed="neither"),
    Param("t0", str, "experiments", "warm-up rounds: experiments, theorem, lemma6 or an integer", parse=_t0_rounds),
    Param("ucb", str, "eq6", "log term of the variance UCB: eq6 = log(4KB/delta), delta = log(1/delta)",
          choices=("eq6", "delta")),
)
_ROBIN_HOOD_EB = (_ROBIN_HOOD[0], Param("t0", str, 2, "warm-up rounds: experiments, theorem, lemma6 or an integer",
                                        parse=_t0_rounds), _ROBIN_HOOD[2])
_SYNC_BATCH = (_batch(256, affects_result=False),)
_LUCB = (
    Param("delta", float, 0.05, "confidence of the certificate (each pair's sequence at delta / (n - 1))", low=0.0,
          high=1.0, closed="neither"),
    Param("epsilon", float, 0.0, "certify the leader as epsilon-best (0: the best)", low=0.0, high=1.0, closed="left"),
    _batch(1),
)
_LUCB_UNPAIRED = (
    Param("delta", float, 0.05, "confidence of the certificate (each model's sequence at delta / n)", low=0.0,
          high=1.0, closed="neither"),
    Param("epsilon", float, 0.0, "certify the leader as epsilon-best (0: the best)", low=0.0, high=1.0, closed="left"),
    _batch(1),
)
_LUCB_PRIOR = _LUCB_UNPAIRED + (
    Param("rank", int, 8, "singular vectors of the prior kept as example features", low=0),
    Param("ridge", float, 4.0, "weight of the starting coefficients (the prior's average model, or the predictions as "
          "they are) in each model's refits, in observations", low=0.0, closed="neither"),
)
_BASELINE_BATCH = (_batch(1024, affects_result=False),)
_CHEAPEST = (
    Param("delta", float, 0.05, "confidence of the certificate (each model's sequence at delta / n)", low=0.0,
          high=1.0, closed="neither"),
    Param("epsilon", float, 0.05, "the answer is within epsilon of the best", low=0.0, high=1.0, closed="right"),
    Param("gamma", float, None, "no cheaper model is within epsilon - gamma of the best (default epsilon / 2)",
          parse=lambda v, name: None if v is None else check_scalar(v, name, float, low=0.0, high=1.0, closed="right")),
    _batch(1),
    Param("top_share", float, 0.75, "share of delta for the one sequence that bounds the best model's mean from above "
          "(no union bound over the models; 0: the per-model sequences alone, the rule before 2026-11-26)", low=0.0,
          high=1.0, closed="left"),
    Param("allocation", str, "lookahead", "where a step's calls go: lookahead = to ruling the candidate out (its row "
          "and the leader's lower bound) when that and ruling the next one in is estimated cheaper than ruling it in; "
          "bounds = always to the models that move the bounds (the rule before 2026-11-27)",
          choices=("lookahead", "bounds")),
)

_SPECS = [
    MethodSpec("ucbe", "ucbe:UCBE", MATRIX, "UCB-E", "UCB-E (Zhou et al. 2025, Alg. 1; Audibert et al. 2010)", "ucbe",
               _UCBE, ("batch_mode",), _batch_mode_label("UCB-E")),
    MethodSpec("ucbe-lrf", "ucbe_lrf:UCBELRF", MATRIX, "UCB-E-LRF", "UCB-E-LRF (Zhou et al. 2025, Alg. 2)", "lrf", _LRF_ACTIVE),
    MethodSpec("ucbe-lrf-score-only", "ucbe_lrf:UCBELRFScoreOnly", MATRIX, "UCB-E-LRF (Score Only)",
               "UCB-E-LRF without the uncertainty matrix (Zhou et al. 2025, Sec. 4.5)", "lrf", _LRF_ACTIVE),
    MethodSpec("row-mean", "baselines:RowMeanImputation", MATRIX, "Row Mean Imputation", "Row Mean Imputation (Zhou et al. 2025, Alg. 3)",
               "baseline", _BASELINE_BATCH),
    MethodSpec("filled-subset", "baselines:FilledSubset", MATRIX, "Filled Subset", "Filled Subset (Zhou et al. 2025, Alg. 4)", "baseline",
               _BASELINE_BATCH),
    MethodSpec("lrf", "ucbe_lrf:LRF", MATRIX, "LRF", "low-rank factorisation on random pairs (Zhou et al. 2025, Alg. 5)", "lrf",
               _LRF_BASE),
    MethodSpec("pulse", "pulse:PULSE", MATRIX, "PULSE", "PULSE (Tolochinsky et al. 2026, Alg. 1, as the authors' code runs it)",
               "backbone", _PULSE, ("convention", "sampler"), _convention_label("PULSE"), needs_factors=True, takes_factors=True),
    MethodSpec("pulse-pw", "pulse:PULSEPrecision", MATRIX, "PULSE (precision-weighted)",
               "PULSE with precision-weighted one-step estimators, exact once a model is fully observed (ours)",
               "backbone", _PULSE, ("convention", "sampler"), _convention_label("PULSE (precision-weighted)"),
               needs_factors=True, takes_factors=True),
    MethodSpec("pulse-sync", "pulse:PULSESync", MATRIX, "PULSE (synchronized)",
               "PULSE with one shared example order per run (the sampling of Lyu et al. 2026; ours; no intervals)",
               "backbone", _PULSE_SYNC, ("convention",), _convention_label("PULSE (synchronized)"),
               needs_factors=True, takes_factors=True),
    MethodSpec("naive-pooling", "pulse:NaivePooling", MATRIX, "Naive-Pooling", "Naive-Pooling (Tolochinsky et al. 2026, Sec. 4)",
               "backbone", _PULSE, ("convention", "sampler"), _convention_label("Naive-Pooling"),
               needs_factors=True, takes_factors=True),
    MethodSpec("ucbe-batch", "pulse:UCBEBackbone", MATRIX, "UCB-E", "UCB-E on the batched PULSE backbone (Tolochinsky et al. 2026, Eq. 4)",
               "backbone", _BACKBONE, ("sampler",), _convention_label("UCB-E")),
    MethodSpec("sysrs", "sysrs:SySRs", MATRIX, "SySRs", "Synchronized Successive Rejects (Lyu et al. 2026; Audibert et al. 2010)",
               "baseline", _SYNC_BATCH),
    MethodSpec("sysh", "sysrs:SySH", MATRIX, "SySH (ours)",
               "Sequential Halving (Karnin et al. 2013) with the synchronized examples of Lyu et al. 2026 (ours)",
               "baseline", _SYNC_BATCH),
    MethodSpec("ucbe-sync", "sysrs:UCBESync", MATRIX, "UCB-E (synchronized)",
               "UCB-E with one shared example order per run (the sampling of Lyu et al. 2026)", "ucbe",
               _UCBE, ("batch_mode",), _batch_mode_label("UCB-E (synchronized)")),
    MethodSpec("lucb-pd", "lucb:LUCBPaired", MATRIX, "LUCB, paired (ours)",
               "LUCB on paired differences over synchronized examples, aimed at the certificate (ours)", "certificate",
               _LUCB, ("epsilon",), lambda p: f"LUCB, paired, eps={float(p['epsilon']):g} (ours)"),
    MethodSpec("lucb", "lucb:LUCB", MATRIX, "LUCB (per-model intervals)",
               "LUCB with one interval per model (Kalyanakrishnan et al. 2012): the unpaired baseline of lucb-pd",
               "certificate", _LUCB_UNPAIRED, ("epsilon",), lambda p: f"LUCB, eps={float(p['epsilon']):g}"),
    MethodSpec("lucb-prior", "lucb_prior:LUCBPrior", MATRIX, "LUCB with a prior (ours)",
               "LUCB on prior-assisted intervals: predictions from other models' scores (--prior) or a predictor "
               "(--predictions), valid whatever the prior (ours)", "certificate", _LUCB_PRIOR, ("epsilon",),
               lambda p: f"LUCB with a prior, eps={float(p['epsilon']):g} (ours)", takes_prior=True),
    MethodSpec("lucb-cheap", "cheapest:CheapestGood", MATRIX, "cheapest good model (ours)",
               "certify the cheapest model within epsilon of the best, given each model's price per call (ours)",
               "certificate", _CHEAPEST, ("epsilon",), lambda p: f"cheapest good, eps={float(p['epsilon']):g} (ours)"),
    MethodSpec("auto", "sysrs:Auto", MATRIX, "auto (SySRs)",
               "the recommended method for a fixed budget (today SySRs; evidence in its docstring and the race)",
               "baseline", _SYNC_BATCH, takes_factors=True),
    MethodSpec("uniform", "allocation:Uniform", JUDGE, "Uniform", "round-robin over the items (Saha et al. 2026, Sec. 5)", "judge"),
    MethodSpec("robin", "allocation:Robin", JUDGE, "ROBIN (known variances)", "ROBIN with known variances (Saha et al. 2026, Alg. 1)", "judge"),
    MethodSpec("robin-hood", "allocation:RobinHood", JUDGE, "ROBIN-HOOD", "ROBIN-HOOD, variance UCB (Saha et al. 2026, Alg. 2)", "judge",
               _ROBIN_HOOD, ("delta", "t0", "ucb"), _robin_hood_label),
    MethodSpec("robin-hood-eb", "allocation:RobinHoodEB", JUDGE, "ROBIN-HOOD-EB (ours)",
               "ROBIN-HOOD with an empirical-Bernstein variance bound that never collapses to 0 (ours)", "judge",
               _ROBIN_HOOD_EB, ("delta", "t0", "ucb")),
]
METHODS: dict[str, MethodSpec] = {s.name: s for s in _SPECS}


def names(kind: str | None = None, family: str | None = None) -> list[str]:
    """Registered method names, optionally of one kind (``"matrix"``, ``"judge"``) or family."""
    return [n for n, s in METHODS.items() if (kind is None or s.kind == kind) and (family is None or s.family == family)]


def spec(name: str) -> MethodSpec:
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
    return METHODS[name]


def _fmt(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def method_id(name: str, **params) -> str:
    """The id of ``name`` with variant ``params`` (keys sorted), e.g. ``robin-hood:delta=0.007:ucb=delta``."""
    s = spec(name)
    bad = sorted(set(params) - set(s.variant))
    if bad:
        raise ValueError(f"{name} has no variant parameter {', '.join(bad)}; it has {sorted(s.variant) or 'none'}")
    return ":".join([name] + [f"{k}={_fmt(params[k])}" for k in sorted(params)])


def parse(mid: str) -> tuple[str, dict]:
    """Split a method id into its name and typed variant parameters."""
    name, *parts = str(mid).split(":")
    s = spec(name)
    params = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or key not in s.variant:
            raise ValueError(f"bad method id {mid!r}: {part!r} is not key=value with key in {sorted(s.variant)}")
        params[key] = s.variant_params[key].check(value, name)
    if method_id(name, **params) != mid:
        raise ValueError(f"method id {mid!r} is not canonical; write {method_id(name, **params)!r}")
    return name, params


def label(mid: str) -> str:
    """Display text of a method id (for plots and prose only, never a data key)."""
    name, params = parse(mid)
    s = METHODS[name]
    return s.variant_label(params) if params and s.variant_label else s.label
