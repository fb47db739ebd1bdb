"""tests/slurm/compare.py, the check that a cluster run of the smoke DAG made the local run's tables: what measures
run time may differ (timing columns, and every column of a row about run time, in the ledger and in its cases), and
nothing else. CI's test-slurm failed on 2026-12-03 because the cases of zhou-ablation-batch-time (a timing ratio)
differed between the two runs, as they must."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd

spec = importlib.util.spec_from_file_location("slurm_compare", Path(__file__).parent / "slurm" / "compare.py")
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

CASES = pd.DataFrame({
    "claim": ["zhou-ablation-batch-time", "zhou-ablation-batch-time", "zhou-best-5-15pct"],
    "name": ["alpacaeval2", "sysrs_math", "alpacaeval2 (UCB-E)"],
    "estimate": [15.66, 15.64, 0.0], "lo": [14.9, 14.7, 0.0], "p_for": [0.01, 0.02, 0.005],
})
LEDGER = pd.DataFrame({"claim": ["zhou-ablation-batch-time", "zhou-best-5-15pct"],
                       "statement": ["batches are faster", "best within 5-15%"],
                       "measured": ["16x", "0 of 23"], "verdict": ["holds", "holds"], "wall_s": [3.0, 4.0]})


def _write(root: Path, cases: pd.DataFrame, ledger: pd.DataFrame) -> Path:
    (root / "figures" / "smoke").mkdir(parents=True)
    (root / "results").mkdir()
    cases.to_csv(root / "figures" / "smoke" / "cases.csv", index=False)
    ledger.to_csv(root / "figures" / "smoke" / "claims.csv", index=False)
    return root


def test_rows_about_run_time_may_differ_in_their_numbers_and_verdict(tmp_path):
    cases, ledger = CASES.copy(), LEDGER.copy()
    cases.loc[:1, ["estimate", "lo", "p_for"]] *= 1.3
    ledger.loc[0, ["measured", "verdict"]] = ["9x", "fails"]
    ledger["wall_s"] = [30.0, 40.0]
    assert compare.main([_write(tmp_path / "a", CASES, LEDGER), _write(tmp_path / "b", cases, ledger)]) == 0


def test_any_other_number_differing_is_caught(tmp_path):
    cases = CASES.copy()
    cases.loc[2, "estimate"] = 0.5
    assert compare.main([_write(tmp_path / "a", CASES, LEDGER), _write(tmp_path / "b", cases, LEDGER)]) == 1
    ledger = LEDGER.copy()
    ledger.loc[1, "verdict"] = "partly"
    assert compare.main([_write(tmp_path / "c", CASES, LEDGER), _write(tmp_path / "d", CASES, ledger)]) == 1


def test_a_timed_case_must_keep_its_name(tmp_path):
    cases = CASES.copy()
    cases.loc[1, "name"] = "sysrs_gsm"
    assert compare.main([_write(tmp_path / "a", CASES, LEDGER), _write(tmp_path / "b", cases, LEDGER)]) == 1
