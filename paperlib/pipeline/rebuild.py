"""Every committed ledger is today's (issue 57, item 7): the claim builders rerun on a profile's committed tables.

A ledger fragment is written by a notebook from tables that earlier jobs wrote (a pool's runs, a matrix's accuracy
curve). Where those tables are committed, :func:`rebuild` runs the fragment's claim builders on them again -- the
builders' own calls, as the notebook makes them, and no experiment -- so that a test can say when a committed
fragment, or the ledger merged from the fragments, is older than the builders (a fragment written before a builder
changed). Fragments whose notebooks compute what they grade (the theory checkers, ROBIN's cells, which are not
committed) are listed in :data:`NOT_FROM_TABLES` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from ..ledger import Claim, final
from .config import load_config, paper_config

#: fragments computed inside their notebooks rather than from committed tables, and why they cannot be rebuilt here
NOT_FROM_TABLES = {
    "pulse_theory": "the checkers of Lemmas 1-6 and Theorems 1-2 simulate what they grade (no table is committed)",
    "pulse_coverage": "its pools' coverage tables are committed, but the fragment joins the checkers' own runs",
    "pulse_lowrank": "the low-rank fits are computed in the notebook",
    "zhou_corollary1": "the Bernoulli instance is simulated in the notebook",
    "zhou_datasets": "the SVDs and shuffled nulls are computed in the notebook from the data",
    "zhou_fig1": "read off the budget-to-precision table with a cost model in the notebook",
    "robin_data": "computed from the data in the notebook",
    "robin_theory": "the theory checkers simulate what they grade",
    "search_certified": "its per-run table is written by the notebook (committed only once a run of it finishes)",
}


def _read(paths) -> pd.DataFrame:
    return pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)


def _existing(paths) -> list[Path]:
    missing = [p for p in paths if not Path(p).is_file()]
    if missing:
        raise FileNotFoundError(f"not committed: {', '.join(map(str, missing[:5]))}")
    return [Path(p) for p in paths]


def _pulse_summary(res: Path, cfg: dict) -> list[Claim]:
    from ..papers.pulse import claims as C
    from ..papers.pulse import experiments as E

    c = paper_config(cfg, "pulse")
    authors = sorted((res / "pulse" / "authors").glob("*.csv"))
    theirs = pd.concat([E.authors_runs(p) for p in authors], ignore_index=True) if authors else None
    runs = _read(_existing([res / "pulse/pools" / f"{p}.csv" for p in E.pool_names(c)]))
    claims = C.experiment_claims(runs, theirs)
    # each row under Step 1's extra fits of V, from their committed blocks (the pulse_fit_block rule's files)
    fits = [res / "pulse/fit_blocks" / f"{p}.fit{k}.b{b}.csv.gz"
            for p in E.fit_pools(c) for k in E.extra_fits(c) for b in E.fit_blocks(c)]
    if fits:
        claims = C.fit_stability(claims, runs, E.fit_accuracy(c, E.read_fit_blocks(_existing(fits))), theirs)
    return claims


def _race(res: Path, cfg: dict) -> list[Claim]:
    from ..beyond.race import claims as C
    from ..beyond.race import experiments as E

    c = paper_config(cfg, "race")
    names = [d for d in c["datasets"] if (res / "race" / f"{d}.csv").is_file()]
    paths = [res / "race" / f"{d}.csv" for d in names] + [p for d in names if (p := res / "race/split" / f"{d}.csv").is_file()]
    return C.race_claims(E.read_accuracy([str(p) for p in _existing(paths)]), c)


def _zhou_fig3(res: Path, cfg: dict) -> list[Claim]:
    from ..papers.zhou import claims as C

    c = paper_config(cfg, "zhou")
    names = [d for d in c["datasets"] if (res / "zhou/fig3" / f"{d}.csv").is_file()]
    table = _read(_existing([res / "zhou/fig3" / f"{d}.csv" for d in names]))
    settle = _read(_existing([res / "zhou/fig3" / f"{d}.settle.csv" for d in names]))
    return C.summary_claims(table, settle)


def _zhou_fig4(res: Path, cfg: dict) -> list[Claim]:
    from ..papers.zhou import claims as C

    c = paper_config(cfg, "zhou")
    names = [d for d in c["ablation"]["datasets"] if (res / "zhou/fig4" / f"{d}.csv").is_file()]
    paths = [res / sub / f"{d}.csv" for sub in ("zhou/fig4", "zhou/fig4_timing") for d in names]
    return C.ablation_claims_from(_read(_existing(paths)), c)


def _robin_summary(res: Path, cfg: dict) -> list[Claim]:
    from ..papers.robin import claims as C
    from ..papers.robin import experiments as E

    c = paper_config(cfg, "robin")
    runs = _read(_existing([res / "robin/cells" / f"{cell}.csv.gz" for cell in E.cell_names(c)]))
    cells = list(dict.fromkeys(runs.cell))
    return C.experiment_claims(runs, c, E.starvation_table(cells, c))


def _search_prior(res: Path, cfg: dict) -> list[Claim]:
    from ..beyond.search import claims as C

    c = paper_config(cfg, "search")
    return C.prior_claims(_read(_existing([res / "search/prior_runs.csv.gz"])), float(c["delta"]))


#: fragment name (``results/<profile>/claims/<name>.csv``) -> its builders on the committed tables
FROM_TABLES: dict[str, Callable[[Path, dict], list[Claim]]] = {
    "pulse_summary": _pulse_summary,
    "race": _race,
    "zhou_fig3": _zhou_fig3,
    "zhou_fig4": _zhou_fig4,
    "robin_summary": _robin_summary,
    "search_prior": _search_prior,
}


def rebuild(profile: str, fragment: str, root: Path = Path(".")) -> list[Claim]:
    """The rows that today's builders make of ``profile``'s committed tables for ``fragment``, as the fragment holds
    them (through :func:`paperlib.ledger.final`). Raises ``FileNotFoundError`` when a table is not committed."""
    if fragment not in FROM_TABLES:
        raise KeyError(f"{fragment} is not rebuilt from tables: {NOT_FROM_TABLES.get(fragment, 'unknown fragment')}")
    return final(FROM_TABLES[fragment](root / "results" / profile, load_config(profile)))
