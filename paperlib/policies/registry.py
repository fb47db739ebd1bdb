"""One registry of methods: an identity per method variant, labels for display only.

A *method id* names a policy and the parameters that make it a variant:
``name[:key=value[:key=value...]]`` with keys in alphabetical order, e.g. ``ucbe``,
``ucbe-lrf``, ``robin-hood:delta=0.007:ucb=delta``. Ids are the keys of every table and
figure; :func:`label` turns an id into the text shown on a plot or in the ledger.

Adding a policy is one module in :mod:`paperlib.policies` and one :class:`MethodSpec` here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .allocation import Robin, RobinHood, RobinHoodEB, Uniform
from .baselines import FilledSubset, RowMeanImputation
from .pulse import PULSE, NaivePooling, PULSEPrecision, PULSESync, UCBEBackbone
from .sysrs import Auto, SySH, SySRs, UCBESync
from .ucbe import UCBE
from .ucbe_lrf import LRF, UCBELRF, UCBELRFScoreOnly

MATRIX = "matrix"
JUDGE = "judge"


@dataclass(frozen=True)
class MethodSpec:
    """A registered method.

    Attributes
    ----------
    name : the id's first part (``robin-hood``)
    cls : the policy class
    kind : ``"matrix"`` (best-method identification on a score matrix) or ``"judge"``
        (allocation of repeated judge queries)
    label : short display text of the plain method
    description : one line for ``--help``
    family : the hyperparameters it shares: ``ucbe``, ``lrf`` (rank, ensemble, eta, warm-up),
        ``backbone`` (the batched PULSE backbone: batch, T0, a), ``baseline`` or ``judge``
    needs_factors : needs frozen example factors V from a train matrix (PULSE Step 1)
    variant_params : parameters that may appear in an id, with their types
    variant_label : display text of a variant, from its parameters
    """

    name: str
    cls: type
    kind: str
    label: str
    description: str
    family: str
    needs_factors: bool = False
    variant_params: dict[str, type] = field(default_factory=dict)
    variant_label: Callable[[dict], str] | None = None


def _robin_hood_label(p: dict) -> str:
    form = "log 1/δ" if p.get("ucb", "eq6") == "delta" else "Eq. 6"
    return f"ROBIN-HOOD (δ={float(p.get('delta', 0.007)):g}, {form})"


def _convention_label(base: str):
    return lambda p: f"{base} (paper-literal)" if p.get("convention") == "paper" else base


_CONVENTION = {"convention": str}


def _batch_mode_label(base: str):
    return lambda p: f"{base} ({p['batch_mode']} batches)" if "batch_mode" in p else base


_SPECS = [
    MethodSpec("ucbe", UCBE, MATRIX, "UCB-E", "UCB-E (Zhou et al. 2025, Alg. 1; Audibert et al. 2010)", "ucbe",
               False, {"batch_mode": str}, _batch_mode_label("UCB-E")),
    MethodSpec("ucbe-lrf", UCBELRF, MATRIX, "UCB-E-LRF", "UCB-E-LRF (Zhou et al. 2025, Alg. 2)", "lrf"),
    MethodSpec("ucbe-lrf-score-only", UCBELRFScoreOnly, MATRIX, "UCB-E-LRF (Score Only)",
               "UCB-E-LRF without the uncertainty matrix (Zhou et al. 2025, Sec. 4.6)", "lrf"),
    MethodSpec("row-mean", RowMeanImputation, MATRIX, "Row Mean Imputation", "Row Mean Imputation (Zhou et al. 2025, Alg. 3)", "baseline"),
    MethodSpec("filled-subset", FilledSubset, MATRIX, "Filled Subset", "Filled Subset (Zhou et al. 2025, Alg. 4)", "baseline"),
    MethodSpec("lrf", LRF, MATRIX, "LRF", "low-rank factorisation on random pairs (Zhou et al. 2025, Alg. 5)", "lrf"),
    MethodSpec("pulse", PULSE, MATRIX, "PULSE", "PULSE (Tolochinsky et al. 2026, Alg. 1, as the authors' code runs it)",
               "backbone", True, _CONVENTION, _convention_label("PULSE")),
    MethodSpec("pulse-pw", PULSEPrecision, MATRIX, "PULSE (precision-weighted)",
               "PULSE with precision-weighted one-step estimators, exact once a model is fully observed (ours)",
               "backbone", True, _CONVENTION, _convention_label("PULSE (precision-weighted)")),
    MethodSpec("pulse-sync", PULSESync, MATRIX, "PULSE (synchronized)",
               "PULSE with one shared example order per run (the sampling of Lyu et al. 2026; ours; no intervals)",
               "backbone", True, _CONVENTION, _convention_label("PULSE (synchronized)")),
    MethodSpec("naive-pooling", NaivePooling, MATRIX, "Naive-Pooling", "Naive-Pooling (Tolochinsky et al. 2026, Sec. 4)",
               "backbone", True, _CONVENTION, _convention_label("Naive-Pooling")),
    MethodSpec("ucbe-batch", UCBEBackbone, MATRIX, "UCB-E", "UCB-E on the batched PULSE backbone (Tolochinsky et al. 2026, Eq. 4)", "backbone"),
    MethodSpec("sysrs", SySRs, MATRIX, "SySRs", "Synchronized Successive Rejects (Lyu et al. 2026; Audibert et al. 2010)",
               "baseline"),
    MethodSpec("sysh", SySH, MATRIX, "SySH (ours)",
               "Sequential Halving (Karnin et al. 2013) with the synchronized examples of Lyu et al. 2026 (ours)",
               "baseline"),
    MethodSpec("ucbe-sync", UCBESync, MATRIX, "UCB-E (synchronized)",
               "UCB-E with one shared example order per run (the sampling of Lyu et al. 2026)", "ucbe",
               False, {"batch_mode": str}, _batch_mode_label("UCB-E (synchronized)")),
    MethodSpec("auto", Auto, MATRIX, "auto (SySRs)",
               "the recommended method for a fixed budget (today SySRs; evidence in its docstring and the race)",
               "baseline"),
    MethodSpec("uniform", Uniform, JUDGE, "Uniform", "round-robin over the items (Saha et al. 2026, Sec. 5)", "judge"),
    MethodSpec("robin", Robin, JUDGE, "ROBIN (known variances)", "ROBIN with known variances (Saha et al. 2026, Alg. 1)", "judge"),
    MethodSpec("robin-hood", RobinHood, JUDGE, "ROBIN-HOOD", "ROBIN-HOOD, variance UCB (Saha et al. 2026, Alg. 2)", "judge",
               False, {"delta": float, "ucb": str, "t0": str}, _robin_hood_label),
    MethodSpec("robin-hood-eb", RobinHoodEB, JUDGE, "ROBIN-HOOD-EB (ours)",
               "ROBIN-HOOD with an empirical-Bernstein variance bound that never collapses to 0 (ours)", "judge",
               False, {"delta": float, "ucb": str, "t0": str}),
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
    bad = sorted(set(params) - set(s.variant_params))
    if bad:
        raise ValueError(f"{name} has no variant parameter {', '.join(bad)}; it has {sorted(s.variant_params) or 'none'}")
    return ":".join([name] + [f"{k}={_fmt(params[k])}" for k in sorted(params)])


def parse(mid: str) -> tuple[str, dict]:
    """Split a method id into its name and typed variant parameters."""
    name, *parts = str(mid).split(":")
    s = spec(name)
    params = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or key not in s.variant_params:
            raise ValueError(f"bad method id {mid!r}: {part!r} is not key=value with key in {sorted(s.variant_params)}")
        params[key] = s.variant_params[key](value)
    if method_id(name, **params) != mid:
        raise ValueError(f"method id {mid!r} is not canonical; write {method_id(name, **params)!r}")
    return name, params


def label(mid: str) -> str:
    """Display text of a method id (for plots and prose only, never a data key)."""
    name, params = parse(mid)
    s = METHODS[name]
    return s.variant_label(params) if params and s.variant_label else s.label
