"""Profile configuration: load ``paperlib/config/<profile>.yaml``, validate it, hand each paper its block.

Validation has two stages, both naming the offending key:

1. the JSON Schema ``config.schema.yaml`` beside this file, which ``$ref``s each paper's
   ``<paper>/config.schema.yaml`` (unknown keys, types, ranges, enums, the profile name a plain
   word). The workflow applies it with ``snakemake.utils.validate``; :func:`validate` applies the
   same files with ``jsonschema`` so the library and the notebooks need no workflow.
2. :func:`check_semantics`: what a schema cannot say (a shipped profile's name only at its own scale,
   dataset names exist in the registry, fractions increase, one repetition count per Zhou method,
   ROBIN's main delta among its deltas).
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import yaml

from .. import paths

SCHEMA_FILE = Path(__file__).with_name("config.schema.yaml")
PAPERS = ("zhou", "robin", "pulse", "search", "race")
SCALES = ("smoke", "quick", "paper")  # the shipped profiles, each at its own scale


class ConfigError(ValueError):
    """A configuration that cannot be run; the message names the key."""


@lru_cache(maxsize=1)
def _validator():
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    def retrieve(uri: str):
        from urllib.parse import urlparse
        from urllib.request import url2pathname

        path = Path(url2pathname(urlparse(uri).path))
        return Resource.from_contents(yaml.safe_load(path.read_text()))

    schema = yaml.safe_load(SCHEMA_FILE.read_text())
    schema["$id"] = SCHEMA_FILE.resolve().as_uri()
    return Draft202012Validator(schema, registry=Registry(retrieve=retrieve))


def _where(error) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "(top level)"


def validate(cfg: dict) -> dict:
    """Check a whole profile against the schema, then :func:`check_semantics`; raise :class:`ConfigError`."""
    if not isinstance(cfg, dict):
        raise ConfigError("config: top level must be a mapping")
    errors = sorted(_validator().iter_errors(cfg), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise ConfigError("config: " + "; ".join(f"{_where(e)}: {e.message}" for e in errors[:5]))
    check_semantics(cfg)
    return cfg


def _increasing(fr, key: str, end_at_one: bool = False) -> None:
    if sorted(fr) != list(fr) or len(set(fr)) != len(fr):
        raise ConfigError(f"config: {key} must be strictly increasing, got {fr}")
    if end_at_one and fr[-1] != 1.0:
        raise ConfigError(f"config: {key} must end at 1.0 (the full budget), got {fr}")


#: the largest seed a profile may set: torch's generators take seeds below 2**64, and a run adds offsets to it
#: (a method's index x 1000, a block's x 100,003, a job's)
MAX_SEED = 2**62


def _finite_numbers(value, key: str = "config") -> None:
    """Refuse NaN and infinity anywhere in the settings: JSON Schema's range checks pass NaN (every comparison with
    it is false), and a ``--config`` value is read as YAML, where ``.nan`` and ``.inf`` are numbers."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{key}: {value} is not a finite number")
    if isinstance(value, dict):
        for k, v in value.items():
            _finite_numbers(v, f"{key}.{k}" if key != "config" else f"config: {k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _finite_numbers(v, f"{key}[{i}]")


#: the shipped profiles whose results are committed (figures/<name>, results/<name>): a run under their name must not
#: be a smaller run than theirs
COMMITTED = ("quick", "paper")


def _smaller(cfg, shipped, key: str):
    """The first key path at which ``cfg`` is a smaller run than ``shipped``: a repetition count (a key with ``reps``
    in its name, or an entry of a ``reps`` mapping) below the shipped one, or a ``datasets`` / ``pools`` list that
    lacks one of the shipped entries. None when it is not smaller. Hyperparameters and larger counts may differ."""
    if isinstance(cfg, dict) and isinstance(shipped, dict):
        for k in shipped:
            if k not in cfg:
                continue
            sub = f"{key}.{k}"
            a, b = cfg[k], shipped[k]
            if "reps" in str(k) and isinstance(b, dict) and isinstance(a, dict):
                low = [f"{sub}.{m}" for m in b if isinstance(a.get(m), int) and isinstance(b[m], int) and a[m] < b[m]]
                if low:
                    return low[0]
                continue
            if "reps" in str(k) and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
                if a < b:
                    return sub
                continue
            if k in ("datasets", "pools") and isinstance(a, list) and isinstance(b, list):
                if set(b) - set(a):
                    return sub
                continue
            d = _smaller(a, b, sub)
            if d:
                return d
    return None


def _shipped_settings(cfg: dict) -> None:
    """A run named after a shipped profile whose results are committed (quick, paper) writes over them, so it must not
    be a smaller run than that profile: fewer repetitions or fewer datasets under the name ``paper`` would put other
    numbers into figures/paper under the paper's label (``--profile profiles/quick --config profile=paper
    scale=paper`` relabels a quick run). The scale is read from the settings themselves, not from the label; an
    override that raises a count or changes a hyperparameter (``--config pulse='{reps: 500}'``) stays allowed."""
    name = cfg.get("profile")
    if name not in COMMITTED:
        return
    shipped = yaml.safe_load((paths.CONFIG_DIR / f"{name}.yaml").read_text())
    for key in PAPERS:
        diff = _smaller(cfg.get(key), shipped.get(key), key)
        if diff:
            raise ConfigError(
                f"config: profile '{name}' writes figures/{name} and results/{name}, but these settings are a smaller "
                f"run than paperlib/config/{name}.yaml at {diff}; they would overwrite the {name} results with "
                f"smaller-scale numbers. Name the run something else (e.g. --config profile={name}_custom)")


_MISSING = object()


def setting_value(cfg: dict, dotted: str):
    """The value at a dotted key (``zhou.params.lrf_common.refit_growth``), or ``_MISSING``."""
    node = cfg
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return _MISSING
        node = node[part]
    return node


def check_semantics(cfg: dict) -> None:
    """What the schema cannot check; each error names its key."""
    from ..data.registry import registry

    _finite_numbers(cfg)
    if not isinstance(cfg.get("seed"), bool) and isinstance(cfg.get("seed"), int) and not 0 <= cfg["seed"] <= MAX_SEED:
        raise ConfigError(f"config: seed must lie in [0, 2**62], got {cfg['seed']} (torch's generators take seeds below "
                          "2**64, and the runs add offsets to it)")

    if cfg["profile"] in SCALES and cfg["profile"] != cfg["scale"]:
        raise ConfigError(
            f"config: profile '{cfg['profile']}' writes figures/{cfg['profile']} and results/{cfg['profile']}, but these "
            f"settings are the {cfg['scale']} scale (scale: {cfg['scale']}); they would overwrite the {cfg['profile']} "
            f"results with {cfg['scale']}-scale numbers. Name the run something else (e.g. --config "
            f"profile={cfg['scale']}_custom) or start from paperlib/config/{cfg['profile']}.yaml")
    for i, row in enumerate(cfg.get("reductions", [])):
        if setting_value(cfg, row["setting"]) is _MISSING:
            raise ConfigError(f"config: reductions[{i}].setting '{row['setting']}' is not a key of this configuration")
    reg = registry()
    z, r, p = cfg["zhou"], cfg["robin"], cfg["pulse"]
    for key, names in (("zhou.datasets", z["datasets"]), ("zhou.ablation.datasets", z["ablation"]["datasets"]),
                       ("pulse.datasets", p["datasets"]), ("search.datasets", cfg["search"]["datasets"]),
                       ("race.datasets", cfg["race"]["datasets"])):
        for name in names:
            if name not in reg:
                raise ConfigError(f"config: {key}: unknown dataset '{name}' (see paperlib/data/registry.yaml)")
    for meth in z["methods"]:
        if meth not in z["reps"]:
            raise ConfigError(f"config: zhou.reps.{meth} is missing (one repetition count per method)")
    _increasing(z["budget_fracs"], "zhou.budget_fracs")
    _increasing(z["ablation"]["budget_fracs"], "zhou.ablation.budget_fracs")
    _increasing(z["corollary1"]["budget_fracs"], "zhou.corollary1.budget_fracs")
    inst = z["corollary1"]["instance"]
    if len(inst["p"]) != inst["n"]:
        raise ConfigError(f"config: zhou.corollary1.instance.p must have n = {inst['n']} entries")
    _increasing(r["budget_fracs"], "robin.budget_fracs", end_at_one=True)
    if 0.5 not in r["budget_fracs"]:
        raise ConfigError("config: robin.budget_fracs must contain 0.5 (Table 2's half budget)")
    if r["main_delta"] not in r["deltas"]:
        raise ConfigError("config: robin.main_delta must be one of robin.deltas")
    if "delta" not in r["ucb_forms"]:
        raise ConfigError("config: robin.ucb_forms must contain 'delta'")
    _increasing(p["bandit_fracs"], "pulse.bandit_fracs")
    for pool, fracs in p.get("bandit_fracs_by_pool", {}).items():
        _increasing(fracs, f"pulse.bandit_fracs_by_pool.{pool}")
    _increasing(cfg["race"]["budget_fracs"], "race.budget_fracs")
    for ds in p["gaps"]:
        if ds != "default" and ds not in p["datasets"]:
            raise ConfigError(f"config: pulse.gaps.{ds} names a dataset not in pulse.datasets")
    declared = {f"{ds}-full" if g == "full" else f"{ds}-gap{g:g}"
                for ds in p["datasets"] for g in p["gaps"].get(ds, p["gaps"].get("default", []))}
    for pool in p.get("bandit_fracs_by_pool", {}):
        if pool not in declared:
            raise ConfigError(f"config: pulse.bandit_fracs_by_pool: '{pool}' is not a pool of this profile "
                              f"(choose from {sorted(declared)})")
    for pool in p["theory"]["bandit"]["pools"]:
        if pool not in declared:
            raise ConfigError(f"config: pulse.theory.bandit.pools: '{pool}' is not a pool of this profile "
                              f"(choose from {sorted(declared)})")
    _names(cfg, reg, declared)
    _shipped_settings(cfg)


def _method_names():
    """The registered method names (:data:`paperlib.policies.METHODS`) and the parser of ``name:key=value``
    variants, or None where the engine is not installed (the report's light environment reads profiles without
    torch; the workflow and the notebooks, which run methods, always check them)."""
    try:
        from ..policies import METHODS, parse
    except ImportError:
        return None
    return set(METHODS), parse


def _names(cfg: dict, reg, pools) -> None:
    """Every name a profile gives that must match a pool, a dataset or a method (issue 76, item 5): a misspelled one
    would silently drop the jobs it names (``pulse.fits.pools: [bench1-ful]`` planned the same jobs as no extra
    fits). Each error names the key, the name and what it may be."""
    p, z = cfg["pulse"], cfg["zhou"]

    def among(key, names, allowed, what):
        for name in names:
            if name not in allowed:
                raise ConfigError(f"config: {key}: '{name}' is not {what} (choose from {', '.join(sorted(allowed))})")

    fits = p.get("fits") or {}
    among("pulse.fits.pools", fits.get("pools", []), pools, "a pool of this profile")
    among("pulse.fits.methods", fits.get("methods", []), p["methods"], "one of pulse.methods")
    among("pulse.reps_by_method", p.get("reps_by_method", {}), p["methods"], "one of pulse.methods")
    among("pulse.fit", [k for k in p.get("fit", {}) if k != "default"], p["datasets"], "one of pulse.datasets")
    among("zhou.reps", z["reps"], z["methods"], "one of zhou.methods")
    among("zhou.rep_block_by_method", z.get("rep_block_by_method") or {}, z["methods"], "one of zhou.methods")
    prior = (cfg["search"].get("prior") or {}).get("datasets", [])
    among("search.prior.datasets", prior, set(reg), "a registered dataset (paperlib/data/registry.yaml)")
    known = _method_names()
    if known is None:
        return
    names, parse = known
    race = cfg["race"]
    for key, methods in (("zhou.methods", z["methods"]), ("pulse.methods", p["methods"]),
                         ("search.methods", cfg["search"]["methods"]), ("race.methods", race["methods"]),
                         ("race.split.methods", (race.get("split") or {}).get("methods", []))):
        for m in methods:
            try:
                base = parse(m)[0]
            except (ValueError, KeyError) as exc:
                raise ConfigError(f"config: {key}: '{m}': {exc}") from None
            if base not in names:
                raise ConfigError(f"config: {key}: unknown method '{m}' (`paperlib methods` lists them)")


def load_config(path_or_name: str | Path) -> dict:
    """Load and validate a profile by path or by name (``quick``, ``paper``, ``smoke``)."""
    p = Path(path_or_name)
    if not p.suffix:
        p = paths.CONFIG_DIR / f"{path_or_name}.yaml"
        if not p.is_file():
            shipped = sorted(f.name.removesuffix(".yaml") for f in paths.CONFIG_DIR.iterdir() if f.name.endswith(".yaml"))
            raise ConfigError(f"no profile named {path_or_name!r}; the package ships {', '.join(shipped)} "
                              "(or give the path of a .yaml file)")
    elif not p.exists():
        raise ConfigError(f"config file not found: {p}")
    return validate(yaml.safe_load(p.read_text()))


def paper_config(cfg: dict, paper: str) -> dict:
    """The slice of a profile one paper's notebooks receive: its block plus the global ``seed``."""
    if paper not in PAPERS:
        raise ConfigError(f"unknown paper {paper!r}; choose from {PAPERS}")
    return {**cfg[paper], "seed": int(cfg["seed"])}


def smoke_config(paper: str) -> dict:
    """A paper's slice of the smoke profile: the default of every notebook's parameters."""
    return paper_config(load_config("smoke"), paper)


def check_paper_config(pc: dict, paper: str) -> dict:
    """Validate a paper's slice (as handed to a notebook) against that paper's schema."""
    import copy

    full = copy.deepcopy(load_config("smoke"))
    pc = dict(pc)
    seed = pc.pop("seed", full["seed"])
    full[paper], full["seed"] = pc, seed
    full["profile"] = "slice"  # one paper's block in the smoke profile: not the shipped smoke settings, nor meant to be
    validate(full)
    return {**pc, "seed": seed}


def _short(value) -> str:
    if isinstance(value, list) and (len(value) > 4 or any(isinstance(v, (list, dict)) for v in value)):
        return f"{len(value)} items"
    if isinstance(value, dict):
        return f"{len(value)} settings"
    return str(value)


def differences(cfg: dict, ref: dict, prefix: str = "") -> list[str]:
    """Where a paper's slice ``cfg`` differs from ``ref`` (the paper profile's), one ``key ours (paper: theirs)``
    per differing setting, dotted through nested blocks, in ``ref``'s order then ``cfg``'s extra keys."""
    out = []
    for key in list(ref) + [k for k in cfg if k not in ref]:
        name = f"{prefix}{key}"
        a, b = cfg.get(key, "unset"), ref.get(key, "unset")
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{name}.")
        else:
            out.append(f"{name} {_short(a)} (paper: {_short(b)})")
    return out


def run_label(cfg: dict, paper: str) -> str | None:
    """What a run of one paper's notebooks is, said by what it ran (issue 75, item 5): None for the paper run (its
    slice is the paper profile's), ``"smoke"`` for the smoke profile's, else the differences from the paper profile
    (:func:`differences`), at most four named."""
    ref = paper_config(load_config("paper"), paper)
    if cfg == ref:
        return None
    if cfg == smoke_config(paper):
        return "smoke"
    diff = differences(cfg, ref)
    more = f"; and {len(diff) - 4} more" if len(diff) > 4 else ""
    return "; ".join(diff[:4]) + more
