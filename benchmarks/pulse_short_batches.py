"""Where do PULSE's short batches happen? For each pool of the paper profile, how many steps of the backbone methods
had a repetition whose picked model had fewer than B examples left, and how full the fullest row got.

Why it matters (issue 55): before 2026-11-27 a short batch of one repetition cut the batch of every repetition;
since, each repetition's batch is its own. Where no repetition ever takes a short batch the two codes make the very
same draws (``benchmarks/RESULTS.md`` compares the two bit for bit), so a pool's committed table does not depend on
the fix; where they happen the pool is rerun with the fixed code.

    PAPERLIB_DATA=../shared/data python benchmarks/pulse_short_batches.py --reps 8 [--pools a,b] [--methods a,b]
"""

from __future__ import annotations

import argparse
import sys
import time


def survey(pool: str, reps: int, methods) -> list[dict]:
    import torch

    from paperlib.lowrank.logistic import fit_factors
    from paperlib.papers.pulse import experiments as E
    from paperlib.pipeline.config import load_config, paper_config
    from paperlib.policies import METHODS, make_policy, parse
    from paperlib.policies.pulse import PULSE

    cfg = paper_config(load_config("paper"), "pulse")
    inst = E.build_instance(cfg, pool)
    _, V = fit_factors(inst.train, cfg=E.fit_config(cfg, E.parse_pool(pool)[0]), seed=int(cfg["seed"]))
    n, m = inst.test.shape
    warm, bs = E.budgets(cfg, n, m)
    S = torch.tensor(inst.test.scores)
    rows = []
    for i, meth in enumerate(cfg["methods"]):
        if methods and meth not in methods:
            continue
        spec = METHODS[parse(meth)[0]]
        kw = spec.pick({"batch_size": int(cfg["batch_size"]), "t0": int(cfg["t0"]), "a": float(cfg["a"]),
                        **E.loop_params(cfg)})
        if spec.needs_factors:
            kw["v"] = V.numpy()
        pol = make_policy(meth, n, m, bs[-1], reps=reps, seed=int(cfg["seed"]) + i, device="cpu", **kw)
        assert isinstance(pol, PULSE)
        steps = short = 0
        t = time.perf_counter()
        while not pol.done:
            req = pol.ask()
            if pol.spent:
                steps += 1
                short += req.valid is not None or req.size < req.budget_used
            pol.tell(req, req.take(S))
        rows.append(dict(pool=pool, method=meth, n=n, m=m, reps=reps, steps=steps, short_steps=short,
                         fullest_row=float(pol.cnt.max()) / m, wall_s=time.perf_counter() - t))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=8)
    ap.add_argument("--pools", default=None)
    ap.add_argument("--methods", default=None)
    args = ap.parse_args()
    from paperlib.papers.pulse import experiments as E
    from paperlib.pipeline.config import load_config, paper_config

    pools = args.pools.split(",") if args.pools else E.pool_names(paper_config(load_config("paper"), "pulse"))
    methods = args.methods.split(",") if args.methods else None
    print("| pool | n x m | method | runs | bandit steps | steps with a short batch | fullest row | s |")
    print("|---|---|---|---|---|---|---|---|")
    for pool in pools:
        for r in survey(pool, args.reps, methods):
            print(f"| {r['pool']} | {r['n']} x {r['m']} | {r['method']} | {r['reps']} | {r['steps']} | "
                  f"{r['short_steps']} | {r['fullest_row']:.3f} | {r['wall_s']:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
