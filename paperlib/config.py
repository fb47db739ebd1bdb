"""Pipeline configuration: load and validate ``config/<profile>.yaml`` with clear errors."""

from __future__ import annotations

from pathlib import Path

import yaml

from . import paths
from .policies import METHODS

REQUIRED = {
    "profile": str,
    "seed": int,
    "zhou": dict,
    "robin": dict,
}
ZHOU_REQUIRED = {
    "datasets": list,
    "methods": list,
    "budget_fracs": list,
    "reps": dict,
    "params": dict,
    "ablation": dict,
    "corollary1": dict,
}


ROBIN_REQUIRED = {
    "reps": int,
    "main_delta": float,
    "deltas": list,
    "ucb_forms": list,
    "budget_fracs": list,
    "synthetic": dict,
    "closerlook": dict,
    "llmrubric": dict,
    "theory": dict,
}


class ConfigError(ValueError):
    pass


def _check(d: dict, spec: dict, where: str) -> None:
    for key, typ in spec.items():
        if key not in d:
            raise ConfigError(f"config: missing key '{where}{key}'")
        if not isinstance(d[key], typ):
            raise ConfigError(f"config: '{where}{key}' must be a {typ.__name__}, got {type(d[key]).__name__}")


def validate(cfg: dict) -> dict:
    """Check a configuration dictionary; raise :class:`ConfigError` naming the bad key."""
    from .data.registry import registry as registry_table

    if not isinstance(cfg, dict):
        raise ConfigError("config: top level must be a mapping")
    _check(cfg, REQUIRED, "")
    z = cfg["zhou"]
    _check(z, ZHOU_REQUIRED, "zhou.")
    reg = registry_table()
    for name in z["datasets"] + z["ablation"].get("datasets", []):
        if name not in reg:
            raise ConfigError(f"config: unknown dataset '{name}' (see data/registry.yaml)")
    for meth in z["methods"]:
        if meth not in METHODS:
            raise ConfigError(f"config: unknown method '{meth}' in zhou.methods; choose from {list(METHODS)}")
        if meth not in z["reps"] or int(z["reps"][meth]) < 1:
            raise ConfigError(f"config: zhou.reps.{meth} must be a positive integer")
    fr = z["budget_fracs"]
    if not fr or any(not (0 < float(f) <= 1) for f in fr) or sorted(fr) != fr:
        raise ConfigError("config: zhou.budget_fracs must be increasing fractions in (0, 1]")
    _validate_robin(cfg["robin"])
    if "pulse" in cfg:
        _validate_pulse(cfg["pulse"], reg)
    return cfg


PULSE_REQUIRED = {
    "datasets": list, "gaps": dict, "pool_size": int, "methods": list, "reps": int, "batch_size": int, "t0": int,
    "a": float, "refit_every": int, "bandit_fracs": list, "refit": dict, "fit": dict, "cv": dict,
}


def _validate_pulse(p: dict, reg) -> None:
    _check(p, PULSE_REQUIRED, "pulse.")
    for name in p["datasets"]:
        if name not in reg:
            raise ConfigError(f"config: unknown dataset '{name}' in pulse.datasets")
    bad = [m for m in p["methods"] if m not in ("ucbe-batch", "pulse", "naive-pooling")]
    if bad:
        raise ConfigError(f"config: pulse.methods has unknown {bad}; use ucbe-batch, pulse, naive-pooling")
    fr = p["bandit_fracs"]
    if not fr or sorted(fr) != fr or any(not 0 < float(f) <= 1 for f in fr):
        raise ConfigError("config: pulse.bandit_fracs must be increasing fractions in (0, 1]")
    if p["reps"] < 1 or p["batch_size"] < 1 or p["t0"] < 1 or p["refit_every"] < 1:
        raise ConfigError("config: pulse.reps, batch_size, t0 and refit_every must be >= 1")
    if "default" not in p["fit"]:
        raise ConfigError("config: pulse.fit needs a 'default' entry (rank, lam, lr, steps)")


def _validate_robin(r: dict) -> None:
    _check(r, ROBIN_REQUIRED, "robin.")
    if r["reps"] < 2:
        raise ConfigError("config: robin.reps must be >= 2 (Table 2 reports a standard deviation)")
    for d in r["deltas"] + [r["main_delta"]]:
        if not 0 < float(d) <= 1:
            raise ConfigError(f"config: robin deltas must lie in (0, 1], got {d}")
    if r["main_delta"] not in r["deltas"]:
        raise ConfigError("config: robin.main_delta must be one of robin.deltas")
    bad = [u for u in r["ucb_forms"] if u not in ("delta", "eq6")]
    if bad or "delta" not in r["ucb_forms"]:
        raise ConfigError("config: robin.ucb_forms must contain 'delta' and may contain 'eq6'")
    fr = r["budget_fracs"]
    if not fr or any(not (0 < float(f) <= 1) for f in fr) or sorted(fr) != fr or fr[-1] != 1.0:
        raise ConfigError("config: robin.budget_fracs must be increasing fractions in (0, 1] ending at 1.0")
    if 0.5 not in fr:
        raise ConfigError("config: robin.budget_fracs must contain 0.5 (Table 2's half budget)")
    for key in ("lemma2", "theorem3", "robin_hood"):
        if key not in r["theory"]:
            raise ConfigError(f"config: missing key 'robin.theory.{key}'")


def load_config(path_or_name: str | Path) -> dict:
    """Load a config by path or by profile name (``quick``, ``paper``, ``smoke``)."""
    p = Path(path_or_name)
    if not p.suffix:
        p = paths.CONFIG_DIR / f"{path_or_name}.yaml"
    if not p.exists():
        raise ConfigError(f"config file not found: {p}")
    return validate(yaml.safe_load(p.read_text()))
