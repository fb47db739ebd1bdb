"""paperlib: evaluate LLMs on a budget (simulate, judge, search, datasets, data fetch, ledger).

``simulate``, ``judge`` and ``search`` are the stable contracts for scripts; run them with ``--help``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

from . import __version__
from .checks import check_delta, check_output_path, check_scalar, write_atomic
from .policies import JUDGE, MATRIX, METHODS, names
from .threads import add_threads_argument

PULSE_NEEDS_V = tuple(n for n in names(MATRIX) if METHODS[n].needs_factors)


def _simulate_parser(sub):
    p = sub.add_parser(
        "simulate",
        help="run a best-method identification policy on a score matrix",
        description=(
            "Run R repetitions of a policy on a complete score matrix and write a JSON summary "
            "with keys: method, reps, budget (calls per repetition), best (chosen row index per "
            "repetition), true_best (row with the highest mean), true_best_set (rows within --tie-tol of it), "
            "precision (fraction of repetitions whose best is in true_best_set), calls (per repetition), wall_s, "
            "plus shape, seed, device, params."
        ),
    )
    p.add_argument("--method", required=True, choices=names(MATRIX),
                   help="policy: " + "; ".join(f"{k} = {METHODS[k].description}" for k in names(MATRIX)))
    p.add_argument("--scores", required=True, type=Path,
                   help="npz file with a 'scores' array (rows = methods/models, columns = examples, "
                        "values in [0, 1], no NaN unless --drop-missing-columns); optional 'row_ids', 'col_ids'")
    p.add_argument("--budget-frac", required=True, type=float,
                   help="budget as a fraction of all n*m pairs, in (0, 1]; calls = round(F * n * m)")
    p.add_argument("--batch-size", type=int, default=None,
                   help="pairs per step (default: 1 for ucbe and ucbe-sync, 32 for the LRF methods, 64 for pulse, naive-pooling and "
                        "ucbe-batch, 1024 for row-mean and filled-subset and 256 for sysrs, whose results do not depend on it); "
                        "at most the budget")
    p.add_argument("--reps", type=int, default=1, help="independent repetitions run together (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0); results are deterministic per seed and device type")
    p.add_argument("--json", required=True, type=Path, help="output JSON path")
    p.add_argument("--delta", type=float, default=None,
                   help="also report, per repetition, best_ci (the chosen row's anytime-valid interval at level delta/n: "
                        "PULSE's doubly robust sequence for pulse, else Waudby-Smith & Ramdas 2020 without replacement), "
                        "certified (its lower bound above every other row's upper bound) and certified_at (calls spent "
                        "when first certified, -1 never); every method but ucbe-lrf")
    p.add_argument("--stop", choices=["budget", "certified"], default="budget",
                   help="certified (needs --delta): each repetition stops at its first certificate, the budget is a cap")
    p.add_argument("--tie-tol", type=float, default=0.0,
                   help="rows within this of the top mean all count as the best (true_best_set; default 0: exact ties)")
    p.add_argument("--costs", type=Path, default=None,
                   help="JSON {model id: price per call} (ids as in the npz's row_ids, else row0, row1, ...); adds "
                        "spend (per repetition: what its calls cost, frozen at certification with --stop certified), "
                        "spend_mean and spend_full (every pair once) to the JSON")
    p.add_argument("--epsilon", type=float, default=0.0,
                   help="with --delta: certify a row within epsilon of the best (default 0: the best)")
    _prior_flags(p, "the npz's col_ids", "the npz's row_ids")
    p.add_argument("--a", type=float, default=None, help="UCB-E exploration parameter a (default 1, Sec. 4.3)")
    p.add_argument("--batch-mode", choices=["row", "pending"], default=None,
                   help="ucbe / ucbe-sync with --batch-size > 1: row (default; Zhou et al. Sec. 4.3: the top method and b "
                        "of its examples) or pending (b sequential arg-maxes counting the batch's pending pairs)")
    p.add_argument("--eta", type=float, default=None, help="uncertainty scaling eta of the LRF methods (default 5)")
    p.add_argument("--rank", type=int, default=None,
                   help="rank r of the factorisation (default 1 for the LRF methods, 8 for the PULSE fit on --train)")
    p.add_argument("--ensemble", type=int, default=None, help="ensemble size K (default 64)")
    p.add_argument("--warmup-frac", type=float, default=None, help="warm-up T0 as a fraction of n*m (default 0.05)")
    p.add_argument("--refit-growth", type=float, default=None,
                   help="ucbe-lrf / ucbe-lrf-score-only: refit the ensemble when the observed pairs have grown by 1 + this "
                        "(default 0: after every batch, as the paper; 0.02 is linear in the matrix, see benchmarks/RESULTS.md)")
    p.add_argument("--train", type=Path, default=None,
                   help="pulse / naive-pooling: npz with a 'scores' train matrix (other models, SAME columns as --scores); "
                        "Step 1 fits (U, V) on it (Eq. 1) and freezes V")
    p.add_argument("--v-factors", type=Path, default=None,
                   help="pulse / naive-pooling: npz with an array 'V' (columns x rank) of already fitted example factors, "
                        "instead of --train")
    p.add_argument("--t0", type=int, default=None, help="pulse / naive-pooling / ucbe-batch: warm-up batches per model T0 (default 1)")
    p.add_argument("--refit-every", type=int, default=None,
                   help="pulse / naive-pooling: bandit steps between refits of U (default 1000); the LRF methods: batches "
                        "between refits (default 1)")
    p.add_argument("--fit-lam", type=float, default=None, help="lambda of Eq. 1 for the --train fit and the refits (default 0.01)")
    p.add_argument("--fit-lr", type=float, default=None, help="Adam learning rate of the --train fit (default 0.05)")
    p.add_argument("--fit-steps", type=int, default=None, help="full-batch Adam steps of the --train fit (default 300)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="any other parameter the method declares (repeatable), e.g. --param convention=paper; "
                        "`paperlib methods` lists every method's parameters")
    p.add_argument("--drop-missing-columns", action="store_true", help="drop columns with NaN instead of failing")
    p.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _prior_flags(p, example_ids: str, model_ids: str) -> None:
    p.add_argument("--prior", type=Path, default=None,
                   help="other models' scores on the same examples (a leaderboard): .npz with 'scores' (rows = models, "
                        f"NaN where unscored) and 'col_ids' matched to {example_ids}, or a CSV (header: model, then "
                        "one example id per column; a line per model); runs lucb-prior (with --method auto or lucb), "
                        "whose certificate holds whatever the prior")
    p.add_argument("--predictions", type=Path, default=None,
                   help=f"a predictor's scores: CSV model,example,prediction (ids as {model_ids} and {example_ids}) "
                        "or a JSON list of such objects; runs lucb-prior like --prior")


#: common flags of ``simulate`` that set a declared method parameter (flag dest -> parameter)
FLAG_PARAMS = {"a": "a", "batch_size": "batch_size", "batch_mode": "batch_mode", "eta": "eta", "rank": "rank",
               "ensemble": "ensemble", "warmup_frac": "warmup_frac", "refit_growth": "refit_growth", "t0": "t0",
               "refit_every": "refit_every"}
#: flags of PULSE's Step 1 (the train fit), for the methods that need example factors
FIT_FLAGS = ("train", "v_factors", "fit_lr", "fit_steps")


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _key_values(items) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--param {item!r}: write KEY=VALUE")
        if key in out:
            raise ValueError(f"--param {key} given twice")
        out[key] = value
    return out


#: method parameters that a command's own flag sets (``simulate`` and ``search`` hand them to the method too)
OWN_FLAGS = {"delta": "--delta", "epsilon": "--epsilon"}


def method_params(args, spec, budget: int | None = None, flags=FLAG_PARAMS) -> dict:
    """The method parameters a command line sets: its common flags and ``--param``, each checked against the method's
    declared parameters (a flag the method does not take is refused, never ignored)."""
    given, source = {}, {}
    for dest, key in flags.items():
        value = getattr(args, dest, None)
        if value is None or (dest == "rank" and spec.needs_factors):  # PULSE's --rank is the train fit's
            continue
        given[key], source[key] = value, _flag(dest)
    if spec.needs_factors and getattr(args, "fit_lam", None) is not None:
        given["lam"], source["lam"] = args.fit_lam, "--fit-lam"
    for key, value in _key_values(getattr(args, "param", [])).items():
        if key in given:
            raise ValueError(f"--param {key} repeats {source[key]}; give it once")
        if key in OWN_FLAGS and hasattr(args, key):  # the command's own flag sets it, once
            raise ValueError(f"--param {key}: set {key} with {OWN_FLAGS[key]} (the command's flag, which also sets "
                             "the certificate's)")
        given[key], source[key] = value, f"--param {key}"
    takes = spec.param_names()
    for key in given:
        if key not in takes:
            raise ValueError(f"{source[key]} does not apply to {spec.name}, which takes "
                             f"{', '.join(takes) or 'no parameters'}")
    if not spec.needs_factors:
        extra = [_flag(f) for f in FIT_FLAGS + ("fit_lam",) if getattr(args, f, None) is not None]
        if extra:
            raise ValueError(f"{', '.join(extra)} apply to the methods that need a train matrix "
                             f"({', '.join(PULSE_NEEDS_V)}), not {spec.name}")
    return spec.check_params(given, budget=budget, names=source)


LONG_RUN_QUERIES = 10_000_000


def _json_safe(value):
    """NaN and infinities become null: JSON has no such numbers (Python would write Infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def cmd_simulate(args) -> int:
    from .data.matrix import load_npz
    from .simulate import budgets_from_fracs, simulate

    check_output_path(args.json, "--json", inputs=(args.scores, args.train, args.v_factors, args.prior, args.predictions))
    check_scalar(args.reps, "--reps", int, low=1)
    check_scalar(args.budget_frac, "--budget-frac", float, low=0.0, high=1.0, closed="right")
    if args.delta is not None:
        check_delta(args.delta, "--delta")
    check_scalar(args.tie_tol, "--tie-tol", float, low=0.0, high=1.0, closed="left")
    check_scalar(args.epsilon, "--epsilon", float, low=0.0, high=1.0, closed="left")
    if args.epsilon and args.delta is None:  # it would be silently ignored: only a certificate reads it
        raise ValueError("--epsilon sets the certificate's tolerance; give --delta too (the certificate's level)")
    has_prior = args.prior is not None or args.predictions is not None
    if has_prior and args.prior is not None and args.predictions is not None:
        raise ValueError("give --prior or --predictions, not both")
    if args.method == "auto" and args.stop == "certified":  # fixed confidence: the rule aimed at the certificate
        args.method = "lucb-prior" if has_prior else "lucb"
        print(f"auto with --stop certified: running {args.method}", file=sys.stderr)
    elif has_prior and args.method == "lucb":
        args.method = "lucb-prior"
    if has_prior and not METHODS[args.method].takes_prior:
        raise ValueError(f"--prior / --predictions apply to lucb-prior (or auto / lucb with --stop certified), not "
                         f"{args.method}")
    spec = METHODS[args.method]
    method_params(args, spec)
    mat = load_npz(args.scores, missing="drop-columns" if args.drop_missing_columns else "error")
    n, m = mat.shape
    costs = None
    if args.costs is not None:
        from .costs import read_costs

        costs = read_costs(args.costs, mat.row_ids)
    (budget,) = budgets_from_fracs([args.budget_frac], n, m)
    params = method_params(args, spec, budget=budget)
    if spec.needs_factors:
        params["v"] = _pulse_v(args, m)
    if args.prior is not None:
        from .prior import read_prior

        params["prior"] = read_prior(args.prior, example_ids=mat.col_ids, m=m)
    if args.predictions is not None:
        from .prior import read_predictions

        params["predictions"] = read_predictions(args.predictions, mat.row_ids, mat.col_ids)
    res = simulate(args.method, mat, [budget], reps=args.reps, seed=args.seed, device=args.device,
                   progress=not args.quiet, delta=args.delta, stop=args.stop, tie_tol=args.tie_tol,
                   epsilon=args.epsilon, costs=costs, **params)
    best = res.best[0].tolist()
    out = dict(method=args.method, reps=args.reps, budget=budget, budget_frac=args.budget_frac,
               shape=[n, m], best=best, best_ids=[mat.row_ids[i] for i in best],
               true_best=res.true_best, true_best_id=mat.row_ids[res.true_best],
               true_best_set=res.true_best_set.tolist(), precision=float(res.precision()[0]), wall_s=res.wall_s,
               seed=args.seed, run_seeds=res.run_seeds.tolist(), device=res.device, params=res.params,
               data_kind=mat.kind)
    if res.delta is not None:
        out.update(delta=res.delta, best_ci=res.best_ci[0].tolist(), certified=res.certified[0].tolist(),
                   certified_at=res.certified_at.tolist())
    out["calls"] = res.calls.tolist()
    if res.spend is not None:
        out.update(spend=res.spend[-1].tolist(), spend_mean=float(res.spend[-1].mean()),
                   spend_full=float(costs.sum() * m))
    write_atomic(args.json, json.dumps(_json_safe(out), indent=1, allow_nan=False))
    return 0


def _judge_parser(sub):
    p = sub.add_parser(
        "judge",
        help="allocate repeated LLM-judge queries over prompt-response pairs (ROBIN / ROBIN-HOOD)",
        description=(
            "Simulate R repetitions of a judge-query allocation policy on a pool of stored repeated judgments "
            "(each query of item i returns one of its valid stored scores uniformly at random, as in the "
            "paper) and write a JSON summary with keys: method, reps, budget, K, wce (worst-case error "
            "max_i |s_i - s_hat_i| per repetition, s_i = the item's pool mean), wce_mean, wce_sd, mae_mean, "
            "allocation (queries per item, one list per repetition), allocation_mean, wall_s, plus params, "
            "n_invalid (dropped judgments), n_dropped_items, seed, device."
        ),
        epilog=(
            "JUDGMENTS FORMAT. Either .npz with an array 'scores' of shape (items, repeats) (NaN = invalid "
            "judgment) and optional 'item_ids' and 'human' (items,), or a long .csv with columns item, score "
            "(one row per judgment; empty or non-numeric scores are invalid) and optional human. Invalid "
            "judgments are dropped and counted; every item needs at least 2 valid judgments "
            "(or pass --drop-sparse)."
        ),
    )
    p.add_argument("--method", required=True, choices=names(JUDGE),
                   help="; ".join(f"{k} = {METHODS[k].description}" for k in names(JUDGE))
                        + " (robin uses the pool variances as the known variances)")
    p.add_argument("--judgments", required=True, type=Path, help="pool of repeated judgments (.npz or .csv)")
    p.add_argument("--budget", required=True, type=int, help="judge queries per repetition (>= number of items)")
    p.add_argument("--reps", type=int, default=1, help="independent repetitions run together (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--json", required=True, type=Path, help="output JSON path")
    p.add_argument("--delta", type=float, default=None,
                   help="robin-hood / robin-hood-eb confidence delta (default 0.007, Sec. 5)")
    p.add_argument("--t0", default=None,
                   help="robin-hood / robin-hood-eb warm-up rounds: 'experiments' = ceil(4 ln(1/delta)) (robin-hood's "
                        "default), 'theorem' = ceil(16 log(4KB/delta)), 'lemma6' = ceil(4 log(4KB/delta)), or an integer "
                        "(robin-hood-eb's default: 2)")
    p.add_argument("--ucb", choices=["eq6", "delta"], default=None,
                   help="log term of the variance UCB: eq6 = log(4KB/delta) as in Eq. (6) (default); "
                        "delta = log(1/delta), the form matching the experiments' warm-up")
    p.add_argument("--scale", nargs=2, type=float, default=None, metavar=("LO", "HI"),
                   help="the judge's score range (a score outside it is an error); robin-hood-eb needs it")
    p.add_argument("--yes", action="store_true",
                   help=f"run even above {LONG_RUN_QUERIES:,} queries in all (budget x reps), which is refused "
                        "otherwise: about 10 us per query and repetition on a CPU core")
    p.add_argument("--drop-sparse", action="store_true", help="drop items with fewer than 2 valid judgments")
    p.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


JUDGE_FLAGS = {"delta": "delta", "t0": "t0", "ucb": "ucb"}


def _duration(seconds: float) -> str:
    """A rough duration in the unit that shows it: "40 s", "3 min", "2.5 h"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def cmd_judge(args) -> int:
    from .data import load_pool_file
    from .simulate import PoolJudge, run_judge

    check_output_path(args.json, "--json", inputs=(args.judgments,))
    check_scalar(args.reps, "--reps", int, low=1)
    params = method_params(args, METHODS[args.method], flags=JUDGE_FLAGS)
    if args.scale is not None:
        lo, hi = (check_scalar(x, "--scale", float) for x in args.scale)
        if not hi > lo:
            raise ValueError(f"--scale needs LO < HI, got {lo:g} {hi:g}")
    elif METHODS[args.method].needs_scale:
        raise ValueError(f"{args.method} needs the judge's score range: give --scale LO HI")
    pool = load_pool_file(args.judgments, sparse="drop" if args.drop_sparse else "error", scale=args.scale)
    total = args.budget * args.reps
    if total > LONG_RUN_QUERIES:
        seconds = total * 10e-6  # about 10 us per query and repetition on a CPU core (each policy steps by query)
        what = (f"{args.budget:,} queries x {args.reps} repetitions = {total:,} simulated {args.method} queries, "
                f"about {_duration(seconds)} on a CPU core")
        if not args.yes:
            raise ValueError(f"{what}: more than {LONG_RUN_QUERIES:,}, refused unless you confirm with --yes")
        print(f"note: {what} (confirmed with --yes); progress is shown on a terminal, --quiet hides it",
              file=sys.stderr)
    judge = PoolJudge(pool, device=args.device)
    res = run_judge(args.method, judge, [args.budget], reps=args.reps, seed=args.seed, device=args.device,
                    progress=not args.quiet, **params)
    w = res.wce()[0]
    out = dict(method=args.method, reps=args.reps, budget=args.budget, K=judge.K,
               wce=w.tolist(), wce_mean=float(w.mean()), wce_sd=float(w.std(ddof=1)) if args.reps > 1 else None,
               mae_mean=float(res.mae()[0].mean()), allocation=res.counts.tolist(),
               allocation_mean=res.counts.mean(axis=0).tolist(), wall_s=res.wall_s, params=res.params,
               n_invalid=pool.meta["n_invalid"], n_dropped_items=pool.meta["n_dropped_items"],
               item_ids=[str(i) for i in pool.item_ids], seed=args.seed, run_seeds=res.run_seeds.tolist(),
               device=res.device)
    write_atomic(args.json, json.dumps(_json_safe(out), indent=1, allow_nan=False))
    return 0


def _pulse_v(args, m: int):
    from .data.matrix import load_npz
    from .lowrank import FitConfig, fit_factors

    if (args.train is None) == (args.v_factors is None):
        raise ValueError(f"--method {args.method} needs exactly one of --train (a train matrix) or --v-factors")
    if args.v_factors is not None:
        if not args.v_factors.exists():
            raise ValueError(f"--v-factors file not found: {args.v_factors}")
        with np.load(args.v_factors) as z:
            if "V" not in z:
                raise ValueError(f"{args.v_factors}: no array 'V'")
            V = z["V"]
        if V.ndim != 2 or V.shape[0] != m:
            raise ValueError(f"V has shape {V.shape}; it needs one row per column of --scores ({m})")
        return V
    train = load_npz(args.train, missing="error")
    if train.shape[1] != m:
        raise ValueError(f"train and test have different numbers of columns ({train.shape[1]} vs {m})")
    cfg = FitConfig(check_scalar(args.rank or 8, "--rank", int, low=1),
                    check_scalar(0.01 if args.fit_lam is None else args.fit_lam, "--fit-lam", float, low=0.0),
                    check_scalar(0.05 if args.fit_lr is None else args.fit_lr, "--fit-lr", float, low=0.0, closed="neither"),
                    check_scalar(300 if args.fit_steps is None else args.fit_steps, "--fit-steps", int, low=1))
    _, V = fit_factors(train.scores, cfg=cfg,
                       seed=args.seed, device=args.device)
    return V.cpu().numpy()


def _range(p) -> str:
    if p.choices:
        return "{" + ", ".join(map(str, p.choices)) + "}"
    if p.low is None and p.high is None:
        return ""
    lb = "[" if p.closed in ("both", "left") and p.low is not None else "("
    rb = "]" if p.closed in ("both", "right") and p.high is not None else ")"
    return f"{lb}{'-inf' if p.low is None else f'{p.low:g}'}, {'inf' if p.high is None else f'{p.high:g}'}{rb}"


def cmd_methods(args) -> int:
    for name, spec in METHODS.items():
        caps = [c for c, on in (("anytime", spec.anytime), ("uniform within a row", spec.uniform_within_row),
                                ("needs train factors", spec.needs_factors), ("needs a score scale", spec.needs_scale))
                if on]
        print(f"{name}  [{spec.kind}; {', '.join(caps) or 'fixed budget'}]\n    {spec.description}")
        for p in spec.params:
            bound = " at most the budget" if p.at_most_budget else ""
            print(f"    {p.name:<13} {p.default!r:<14} {p.kind.__name__:5s} {_range(p) + bound:<32} {p.help}")
    return 0


def cmd_datasets(args) -> int:
    from .data.registry import registry as registry_table
    from .data.registry import status as dataset_status

    for name, info in registry_table().items():
        status = dataset_status(name, verify=True)
        print(f"{name:24s} {info.kind:15s} {str(info.shape):16s} {status:17s} {info.provenance[:70]}")
    return 0


def cmd_data_import(args) -> int:
    from .data.harness import inspect_matrix, lm_eval_matrix, save_npz

    models = {}
    for item in args.model:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"--model {item!r}: write NAME=PATH")
        if name in models:
            raise ValueError(f"--model {name} is given twice")
        models[name] = Path(path)
    if args.out.suffix != ".npz":  # numpy would write <out>.npz and the message would name a file that is not there
        raise ValueError(f"--out {args.out}: the matrix is written as .npz; name a file ending in .npz")
    out = check_output_path(args.out, "--out", inputs=list(models.values()))
    if args.harness == "inspect":
        if args.task is not None or args.filter is not None:
            raise ValueError("--task and --filter are lm-eval's; an inspect_ai log holds one task (name the log)")
        mat = inspect_matrix(models, scorer=args.metric, intersect=args.intersect, name=out.stem)
    else:
        mat = lm_eval_matrix(models, task=args.task, metric=args.metric, filter=args.filter, intersect=args.intersect,
                             name=out.stem)
    save_npz(mat, out)
    n, m = mat.shape
    print(f"{out}: {n} models x {m} documents, {mat.meta['metric']} ({mat.meta['filter']}); means "
          + ", ".join(f"{r} {v:.3f}" for r, v in zip(mat.row_ids, mat.means, strict=True))
          + (f"; {mat.meta['dropped_documents']} documents not scored by every model dropped"
             if mat.meta["dropped_documents"] else ""))
    return 0


def cmd_data(args) -> int:
    if args.data_command == "import":
        return cmd_data_import(args)
    from .data.fetch import fetch_many, fetchable
    from .data.registry import entries

    known = [n for n, e in entries().items() if e.get("upstream")]
    if args.all:
        names = [n for n in known if fetchable(n)]
    else:
        if not args.names:
            raise ValueError("name the datasets to fetch, or --all (`paperlib datasets` lists them)")
        unknown = [n for n in args.names if n not in entries()]
        if unknown:
            raise ValueError(f"unknown dataset(s) {', '.join(unknown)}; `paperlib datasets` lists the registered ones")
        names = args.names
    if args.dest is not None:
        try:
            args.dest.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ValueError(f"--dest {args.dest}: cannot create it ({exc.strerror})") from None
        if not os.access(args.dest, os.W_OK):
            raise ValueError(f"--dest {args.dest}: cannot write in it")
    import threading

    check_scalar(args.deadline, "--deadline", float, low=0.0, high=threading.TIMEOUT_MAX, closed="right")
    results = fetch_many(names, dest=args.dest, mirror=args.mirror, progress=not args.quiet, force=args.force,
                         deadline=args.deadline)
    failed = {n: r for n, r in results.items() if r.startswith("error: ")}
    for n, r in results.items():
        print(f"{n:24s} {r}")
    if failed:
        print(f"{len(failed)} of {len(results)} not fetched; see the messages above", file=sys.stderr)
        return 1
    return 0


def cmd_ledger(args) -> int:
    from .ledger import merge, read, summary_table

    if args.summary:
        claims = [c for f in args.fragments for c in read(f)]
        print(summary_table(claims), end="")
        return 0
    if args.csv is None or args.md is None:
        raise ValueError("ledger needs --csv and --md (or --summary)")
    claims = merge(args.fragments, args.csv, args.md, run_on=args.run_on)
    print(f"{len(claims)} claims -> {args.csv}, {args.md}")
    return 0


class _StudyMethods:
    """``--method`` choices of ``search``: ``auto`` and :data:`paperlib.study.STUDY_METHODS`, read (with torch) only
    when a search is parsed or its help shown, so ``paperlib --help`` and ``--version`` import no torch."""

    def _all(self):
        from .study import STUDY_METHODS

        return ["auto", *STUDY_METHODS]

    def __contains__(self, item):
        return item in self._all()

    def __iter__(self):
        return iter(self._all())


def _search_parser(sub):
    p = sub.add_parser(
        "search",
        help="find the best model with as few scorer calls as possible, with a certificate (live use)",
        description=(
            "Run a best-model search against a scorer command and write a JSON result with keys best, estimates, "
            "intervals, certified, delta, calls, calls_per_model, calls_saved (certified answers only, else null), "
            "failures, method, started_at, finished_at, wall_s (and top_k, top_k_certified with --top-k). "
            "Every call is journaled; rerunning the same command resumes."
        ),
    )
    p.add_argument("--models", required=True, type=Path, help="file with one model name per line")
    p.add_argument("--examples", required=True, type=Path,
                   help="file with one example per line (a JSON value per line is passed through as is)")
    p.add_argument("--scorer", required=True,
                   help="command (split like a shell would, no shell features) that reads {\"model\": ..., "
                        "\"example\": ...} on stdin and prints one score in [0, 1]")
    p.add_argument("--json", required=True, type=Path, help="output JSON path")
    p.add_argument("--journal", type=Path, default=None,
                   help="journal file (default: the --json path with .journal.jsonl); an existing journal is resumed")
    p.add_argument("--workers", type=int, default=4, help="scorer processes at once (default 4)")
    p.add_argument("--budget", type=int, default=None, help="most scorer calls (default: every pair)")
    p.add_argument("--delta", type=float, default=0.05, help="error probability of the certificate (default 0.05)")
    p.add_argument("--top-k", type=int, default=1, help="certify the k best models as a set (default 1)")
    p.add_argument("--method", default="auto", choices=_StudyMethods(), metavar="METHOD",
                   help="policy (default auto: lucb, aimed at the certificate, when stopping at one; lucb-prior with "
                        "--prior or --predictions; ucbe with --top-k > 1 or --stop budget; lucb-cheap with --objective "
                        "cheapest); one of the methods that draw each model's examples uniformly, which the intervals "
                        "need: lucb, lucb-pd, lucb-cheap, lucb-prior, ucbe, ucbe-sync, ucbe-batch, row-mean, filled-subset (an unknown name is refused with the "
                        "list)")
    p.add_argument("--epsilon", type=float, default=0.0,
                   help="certify a model within epsilon of the best (default 0: the best); near-tied models then stop "
                        "early")
    p.add_argument("--objective", choices=["best", "cheapest"], default="best",
                   help="best (default): the best model (within --epsilon); cheapest: the cheapest model within "
                        "--epsilon of the best, certified, such that no cheaper model is within epsilon - gamma of it "
                        "(needs --costs and --epsilon > 0; runs lucb-cheap)")
    p.add_argument("--gamma", type=float, default=None,
                   help="with --objective cheapest: no cheaper model is within epsilon - gamma of the best (default "
                        "epsilon / 2)")
    p.add_argument("--stop", choices=["certified", "budget"], default="certified",
                   help="stop once certified (default) or spend the whole budget")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--retries", type=int, default=2,
                   help="retries of a failed call (default 2); every failed attempt is journaled")
    p.add_argument("--backoff", type=float, default=0.1,
                   help="seconds before the first retry, doubled for each further one (default 0.1)")
    p.add_argument("--max-failures", type=int, default=20,
                   help="stop once more pairs than this have failed every attempt in this run (default 20; a pair "
                        "that succeeds on a retry is not a failure, and a resume starts counting from zero)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds before a scorer call is a failure (default 600)")
    p.add_argument("--log-every", type=float, default=5.0,
                   help="off a terminal (a log file, a scheduler), a progress line at most every this many seconds "
                        "(default 5)")
    p.add_argument("--barrier", action="store_true",
                   help="score one batch of --workers pairs at a time (default: no barrier; a free worker gets the "
                        "next pair at once with lucb, lucb-pd, ucbe and ucbe-sync). A resumed journal keeps its mode")
    p.add_argument("--quiet", action="store_true", help="no progress bar or progress lines")
    p.add_argument("--costs", type=Path, default=None,
                   help="JSON {model: price per call}: the result reports spend and spend_per_model, every call's cost "
                        "is journaled, and a resume with other prices is refused. A scorer may instead print "
                        '{"score": s, "cost": c} to give each call\'s own cost (tokens x price)')
    _prior_flags(p, "the examples' ids (an example's \"id\" field, else the example itself as text)",
                 "the names in --models")


def cmd_search(args) -> int:
    from .search import (
        Scorer,
        SearchInterrupted,
        read_examples,
        read_models,
        resolve_auto,
        run_search,
    )

    journal = args.journal or args.json.with_suffix(".journal.jsonl")
    scorer_files = [Path(t) for t in Scorer(args.scorer, args.timeout).identity()["scorer_files_sha256"]]
    data_files = (args.costs, args.prior, args.predictions)
    check_output_path(args.json, "--json", inputs=(args.models, args.examples, journal, *data_files, *scorer_files))
    check_output_path(journal, "--journal", inputs=(args.models, args.examples, *data_files, *scorer_files))
    check_delta(args.delta, "--delta")
    check_scalar(args.timeout, "--timeout", float, low=0.0, closed="neither")
    check_scalar(args.backoff, "--backoff", float, low=0.0)
    check_scalar(args.log_every, "--log-every", float, low=0.0)
    check_scalar(args.epsilon, "--epsilon", float, low=0.0, high=1.0, closed="left")
    models, examples = read_models(args.models), read_examples(args.examples)
    costs = None
    if args.costs is not None:
        from .costs import load_costs, read_costs_table

        costs = load_costs(args.costs)
        # every model priced and the full spend a float, before any call
        read_costs_table(costs, models, where=f"--costs {args.costs}", examples=len(examples))
    from .study import check_objective, journal_costs, journal_method

    if costs is None and Path(journal).exists():  # a resume without --costs keeps the journal's prices
        costs = journal_costs(journal)
    if args.prior is not None and args.predictions is not None:
        raise ValueError("give --prior or --predictions, not both")
    data = {}
    if args.prior is not None or args.predictions is not None:  # read and checked before any call
        from .prior import example_ids, read_predictions, read_prior

        if args.prior is not None:
            data["prior"] = read_prior(args.prior, example_ids=example_ids(examples))
        else:
            data["predictions"] = read_predictions(args.predictions, models, example_ids(examples))
    method = resolve_auto(args.method, args.stop, args.top_k, objective=args.objective, prior=bool(data))
    if data and method == "lucb":
        method = "lucb-prior"

    resumed = journal_method(journal) if args.method == "auto" and args.objective == "best" else None
    if resumed is not None and resumed not in (method, "lucb-cheap"):  # (another objective: the resume says so)
        # auto on a resume means the journal's method: --stop and --top-k only decide when to stop (the certificate
        # is valid at any time), so a resume with another --stop is not "another method", a flag the user never set
        method = resumed
        print(f"auto: resuming {journal}, recorded with {method}", file=sys.stderr)
    check_objective(args.objective, method, args.epsilon, args.gamma, costs)  # before any call
    if method != args.method and resumed is None:
        print(f"auto: running {method}", file=sys.stderr)
    try:
        out = run_search(models, examples, Scorer(args.scorer, args.timeout), journal, method=method,
                         budget=args.budget, delta=args.delta, epsilon=args.epsilon, top_k=args.top_k, seed=args.seed,
                         workers=args.workers,
                         retries=args.retries, max_failures=args.max_failures, backoff=args.backoff,
                         log_every=args.log_every, stop=args.stop, progress=not args.quiet, barrier=args.barrier,
                         costs=costs, objective=args.objective, gamma=args.gamma, **data)
    except SearchInterrupted as exc:
        print(str(exc), file=sys.stderr)
        return 130
    write_atomic(args.json, json.dumps(_json_safe(out), indent=1, allow_nan=False))
    what = "cheapest good" if out.get("objective") == "cheapest" else "best"
    print(f"{what}: {out['best']} ({'certified' if out['certified'] else 'not certified'} at delta {out['delta']}); "
          f"{out['calls']} calls" + (f", {out['calls_saved']} saved" if out["calls_saved"] is not None else "")
          + (f"; spend {out['spend']:.4g}" if out.get("spend") is not None else "")
          + f"; result in {args.json}")
    return 0


def _results_dir(given) -> Path:
    """The results folder ``paperlib rerun`` reads: ``--results``, else the checkout this paperlib runs from (from any
    working directory), else ``./results``."""
    from . import paths

    if given is not None:
        return Path(given)
    if paths.IN_CHECKOUT:
        return paths.RESULTS_DIR
    return Path("results")


#: ``paperlib rerun``'s exit status when there is no published run to compare with (the picks are printed)
NOTHING_TO_COMPARE = 3


def cmd_rerun(args) -> int:
    """One run of a published PULSE pool, alone: its picks at every budget beside the published ones, and its trace."""
    from . import paths
    from .checks import check_index
    from .papers.pulse import experiments as E
    from .pipeline.config import load_config, paper_config
    from .threads import off_table, pin_threads

    cfg = paper_config(load_config(args.profile), "pulse")
    if args.pool not in E.pool_names(cfg):
        raise ValueError(f"{args.pool!r} is not a pool of the {args.profile} profile here: {', '.join(E.pool_names(cfg))}")
    run = E.check_run(cfg, args.method, args.run)  # every input checked before Step 1 (issue 76)
    show_steps = check_index(args.show_steps, "--show-steps")
    threads = pin_threads(args.threads)
    if args.trace is not None and not args.trace.parent.is_dir():
        raise ValueError(f"cannot write {args.trace}: {args.trace.parent} is not a folder")
    block = E.published_block(cfg, _results_dir(args.results) / args.profile / "pulse" / "blocks", args.pool,
                              args.method, run)

    def log(msg):
        print(f"rerun: {msg}", file=sys.stderr, flush=True)

    fit = E.cached_fit(cfg, args.pool, paths.cache_dir() / "fits" / args.profile, device=args.device, log=log)
    log(f"run {run} of {args.method} on {args.pool}, alone, {threads} torch thread{'s' if threads != 1 else ''}")
    if off_table(threads):
        log(off_table(threads))
    rows, trace = E.rerun(cfg, args.pool, args.method, run, device=args.device, fit=fit)
    published = E.published_run(cfg, block.parent, args.pool, args.method, run)
    print(f"{args.method} run {run} on {args.pool} ({args.profile} profile), run seed {rows.run_seed.iloc[0]}, "
          f"streams {rows.streams.iloc[0]}: {len(trace)} steps")
    show = rows[["budget", "bandit_calls", "pick", "correct"]]
    complete = published is not None and len(published) == len(rows)
    if complete:
        show = show.assign(published_pick=published.pick.to_numpy())
    print(show.to_string(index=False))
    bandit = trace[trace.step > 0]
    print("trace (models evaluated, in order): " + " ".join(map(str, bandit.model.head(show_steps)))
          + (" ..." if len(bandit) > show_steps else ""))
    if args.trace is not None:
        trace.to_csv(args.trace, index=False)
        print(f"wrote {args.trace} ({len(trace)} steps)")
    if published is None:
        print(f"no published table of this run to compare with: {block} is not there (give --results DIR, the "
              "folder that holds <profile>/pulse/blocks/)")
        return NOTHING_TO_COMPARE
    if not complete:
        print(f"no published table of this run to compare with: {block} was read, and it holds {len(published)} of "
              f"the run's {len(rows)} rows (method {args.method}, run {run}, fit 0)")
        return NOTHING_TO_COMPARE
    same = bool((published.pick.to_numpy() == rows.pick.to_numpy()).all())
    print(f"the published run ({block}): " + ("the same picks at every budget" if same else "DIFFERENT picks"))
    return 0 if same else 1


def cmd_verify(args) -> int:
    """Every committed per-run table against today's code (:mod:`paperlib.pipeline.verify`)."""
    from .pipeline import verify as V

    return V.run(args)


def _rerun_parser(sub) -> None:
    p = sub.add_parser("rerun", help="rerun one run of a published PULSE pool alone and print its trace",
                       description="Rerun run RUN of METHOD on a PULSE pool exactly as its block ran it (every random "
                                   "number of a run comes from its own keyed stream), print its pick at every budget "
                                   "beside the published table's, and its trace. Fits Step 1 first (about a minute "
                                   "on a paper pool; cached, so a second run of the same pool skips it). Exit 1 if the "
                                   "picks differ from the published ones, 3 if there is no published run to compare "
                                   "with (the file read is named), 2 on bad input.")
    p.add_argument("pool", help="a pool of the profile, e.g. bench2-gap0.01")
    p.add_argument("--run", type=int, required=True, help="the run's index (0 .. runs - 1)")
    p.add_argument("--method", default="pulse", help="one of the profile's PULSE methods (default pulse)")
    p.add_argument("--profile", default="paper", help="the profile whose table it is (default paper)")
    p.add_argument("--results", default=None,
                   help="the results folder (default: the checkout's results/, from any working directory)")
    p.add_argument("--trace", type=Path, default=None, help="write every step (calls, model, examples) to this CSV")
    p.add_argument("--show-steps", type=int, default=40, help="steps of the trace to print (default 40)")
    p.add_argument("--device", default=None)
    add_threads_argument(p)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog or Path(sys.argv[0]).name, description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _simulate_parser(sub)
    _judge_parser(sub)
    _search_parser(sub)
    _rerun_parser(sub)
    from .pipeline import verify as V

    V.add_arguments(sub.add_parser("verify", help="rerun run 0 of every committed table and compare (make verify-tables)",
                                   description=V.DESCRIPTION))
    sub.add_parser("methods", help="list every method with its capabilities and parameters (for --param KEY=VALUE)")
    sub.add_parser("datasets", help="list registered datasets and whether they are available here")
    d = sub.add_parser("data", help="get datasets: `data fetch NAME...|--all`")
    dsub = d.add_subparsers(dest="data_command", required=True)
    f = dsub.add_parser("fetch", help="download pinned upstream files, verify their SHA-256, build the matrices",
                        description="Download each dataset's upstream files (pinned to a commit), verify them and build "
                                    "the stored matrix into the cache ($PAPERLIB_CACHE, data/cache in a checkout, "
                                    "else ~/.cache/paperlib) or --dest. Point $PAPERLIB_DATA at that folder to use it.")
    f.add_argument("names", nargs="*", help="registry names (see `datasets`)")
    f.add_argument("--all", action="store_true", help="every dataset that has a builder")
    f.add_argument("--dest", type=Path, default=None, help="folder to write into (default: the cache)")
    f.add_argument("--mirror", default=None, help="base URL of a mirror of the upstream hosts (or $PAPERLIB_MIRROR)")
    f.add_argument("--deadline", type=float, default=1800.0,
                   help="seconds one upstream file's download may take in all, whatever the host's pace (default "
                        "1800); a download past it fails and leaves no partial file")
    f.add_argument("--force", action="store_true", help="rebuild even if a verified file is there")
    f.add_argument("--quiet", action="store_true", help="no progress bars")
    i = dsub.add_parser("import", help="a score matrix from a harness's per-sample logs (lm-eval --log_samples, "
                                       "inspect_ai eval logs)",
                        description="Build a models x documents score matrix (.npz, as simulate --scores and the race "
                                    "read) from each model's lm-evaluation-harness samples file or output folder, or "
                                    "its inspect_ai eval log (needs paperlib[inspect]).")
    i.add_argument("harness", choices=["lm-eval", "inspect"])
    i.add_argument("--model", action="append", required=True, metavar="NAME=PATH",
                   help="a model's name and its samples_<task>_*.jsonl file or output folder (lm-eval), or its "
                        ".eval / .json log (inspect); repeat per model")
    i.add_argument("--task", default=None, help="lm-eval: the task, when a folder holds several")
    i.add_argument("--metric", default=None, help="the per-sample metric (lm-eval, e.g. acc) or scorer (inspect, e.g. "
                                                  "match); default: the only one")
    i.add_argument("--filter", default=None, help="lm-eval: the filter (default: the only one), e.g. strict-match")
    i.add_argument("--intersect", action="store_true", help="keep the documents every model scored")
    i.add_argument("--out", required=True, type=Path, help="the .npz to write")
    p = sub.add_parser("ledger", help="merge claim fragments into the claims ledger")
    p.add_argument("fragments", nargs="+", type=Path)
    p.add_argument("--csv", type=Path)
    p.add_argument("--md", type=Path)
    p.add_argument("--summary", action="store_true",
                   help="print the verdict counts per paper (the README's table) instead of writing the ledger")
    p.add_argument("--run-on", default=None,
                   help="where the rows were measured (machine, declared reductions); appended to every row's evidence")
    return parser


def main(argv=None, prog: str | None = None) -> int:
    """Entry point of the ``paperlib`` command (``prog`` is the name usage lines show)."""
    try:
        args = build_parser(prog).parse_args(argv)
        handler = {"simulate": cmd_simulate, "judge": cmd_judge, "search": cmd_search, "methods": cmd_methods,
                   "datasets": cmd_datasets, "data": cmd_data, "ledger": cmd_ledger,
                   "rerun": cmd_rerun, "verify": cmd_verify}[args.command]
        return handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError, KeyError, RuntimeError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    from .__main__ import run

    sys.exit(run())
