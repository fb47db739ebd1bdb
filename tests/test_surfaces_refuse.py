"""Issue 76: the entry points added with blocks of runs refuse bad input before any work, in one line naming the
input and what it accepts: run seeds and run indices (item 1), blocks (item 2), ``paperlib rerun`` (item 3)."""

import numpy as np
import pytest

from paperlib.checks import MAX_SEED
from paperlib.cli import main
from paperlib.data.matrix import ScoreMatrix
from paperlib.keyed import RunBlock, run_seeds
from paperlib.simulate import run_judge, simulate
from paperlib.simulate.blocks import block_range, block_ranges, check_block

MAT = ScoreMatrix.from_array((np.random.default_rng(0).random((6, 40)) < np.linspace(0.2, 0.8, 6)[:, None]).astype(np.float32),
                             name="t", kind="synthetic")


def one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


# ---- item 1: run seeds and run indices ------------------------------------------------------------------------------

def test_run_r_s_seed_is_its_definition_however_deep_the_block():
    """Run r's seed depends only on (seed, r): SeedSequence((seed, r))'s first 64-bit word shifted to 63 bits
    (run 0: the seed itself), written out here from numpy's definition, not from the code; a deep block's seeds are
    that, and equal the same slice of a long list."""
    def by_definition(s, r):
        return s if r == 0 else int(np.random.SeedSequence((s, r)).generate_state(1, np.uint64)[0] >> 1)

    assert run_seeds(11, 4, first=3_000_000).tolist() == [by_definition(11, r) for r in range(3_000_000, 3_000_004)]
    assert run_seeds(11, 30, first=1_970).tolist() == run_seeds(11, 2_000)[1_970:].tolist()
    assert run_seeds(5, 3).tolist() == [5, by_definition(5, 1), by_definition(5, 2)]
    assert run_seeds(MAX_SEED, 2)[0] == MAX_SEED  # the top of the documented range is a seed


def test_a_deep_block_of_one_run_is_that_run_of_the_batch():
    deep = simulate("ucbe", MAT, [60], reps=1, seed=3, first_run=3_000_000, progress=False)
    assert deep.run_seeds.tolist() == run_seeds(3, 1, first=3_000_000).tolist()
    again = simulate("ucbe", MAT, [60], reps=1, seed=int(deep.run_seeds[0]), progress=False)
    assert np.array_equal(deep.best, again.best) and np.array_equal(deep.estimates, again.estimates)


@pytest.mark.parametrize("kw, msg", [
    ({"seed": 2**63}, "seed must be an integer in [0, 9223372036854775807]"),
    ({"seed": -5}, "seed must be an integer in [0,"),
    ({"seed": 1.5}, "seed must be an integer, got 1.5"),
    ({"seed": 2.0}, "seed must be an integer, got 2.0"),  # never truncated, even when whole
    ({"seed": True}, "seed must be an integer, got True"),
    ({"first_run": -1}, "first_run must be an integer in [0,"),
    ({"first_run": 3.0}, "first_run must be an integer, got 3.0"),
    ({"first_run": 2**63}, "first_run must be an integer in [0,"),
    ({"reps": 2.5}, "reps must be an integer"),
])
def test_simulate_and_run_judge_refuse_seeds_and_runs_outside_the_range(kw, msg):
    from paperlib.simulate.judges import synthetic_judge

    with pytest.raises(ValueError) as e:
        simulate("ucbe", MAT, [60], progress=False, **{"reps": 1, **kw})
    assert msg in str(e.value)
    judge = synthetic_judge("discrete", K=5, seed=0)
    with pytest.raises(ValueError) as e:
        run_judge("uniform", judge, [20], **{"reps": 1, **kw})
    assert msg in str(e.value)


def test_a_run_block_refuses_what_a_run_does():
    with pytest.raises(ValueError, match="first_run must be an integer, got 2.0"):
        RunBlock(0, 2.0)
    with pytest.raises(ValueError, match=r"seed must be an integer in \[0"):
        RunBlock(2**63, 0)
    with pytest.raises(ValueError, match="go past the largest run index"):
        run_seeds(0, 2, first=MAX_SEED)


@pytest.fixture
def npz(tmp_path):
    p = tmp_path / "m.npz"
    np.savez(p, scores=MAT.scores)
    return p


@pytest.mark.parametrize("seed", ["9223372036854775808", "-5", str(2**70)])
def test_simulate_cli_refuses_a_seed_outside_int64_in_one_line(npz, tmp_path, capsys, seed):
    rc = main(["simulate", "--method", "ucbe", "--scores", str(npz), "--budget-frac", "0.2", "--quiet",
               "--json", str(tmp_path / "o.json"), "--seed", seed])
    err = capsys.readouterr().err
    assert rc == 2 and one_line(err) and "seed" in err and "[0, 9223372036854775807]" in err
    assert not (tmp_path / "o.json").exists()


def test_search_refuses_a_seed_of_2_63_before_any_call(tmp_path):
    from paperlib.search import Scorer, run_search

    calls = tmp_path / "calls"
    scorer = Scorer(f"sh -c 'echo x >> {calls}; echo 0.5'", 10)
    with pytest.raises(ValueError, match=r"--seed must be an integer in \[0, 9223372036854775807\]"):
        run_search(["a", "b"], [{"id": 1}, {"id": 2}], scorer, tmp_path / "j.jsonl", seed=2**63, progress=False)
    assert not calls.exists() and not (tmp_path / "j.jsonl").exists()


# ---- item 2: blocks of runs ------------------------------------------------------------------------------------------

def test_block_ranges_are_lazy_and_refuse_non_integers():
    r = block_ranges(10**9, 1)  # a billion blocks cost nothing until read
    assert len(r) == 10**9 and r[-1] == (10**9 - 1, 10**9) and r[123] == (123, 124)
    assert block_ranges(10, 3) == [(0, 3), (3, 6), (6, 9), (9, 10)] and block_ranges(7, None) == [(0, 7)]
    for reps, size, msg in [(float("inf"), 3, "reps must be an integer, got inf"), (10, 2.0, "must be an integer"),
                            (10, 0, "must be an integer in [1,"), (0, 3, "reps must be an integer in [1,"),
                            (10.5, 3, "reps must be an integer")]:
        with pytest.raises(ValueError) as e:
            block_ranges(reps, size)
        assert msg in str(e.value)


@pytest.mark.parametrize("block, msg", [
    (-1, "block must be an integer in [0, 3], got -1 (pool x has 4 blocks: 0 .. 3)"),
    (4, "block must be an integer in [0, 3], got 4 (pool x has 4 blocks: 0 .. 3)"),
    (1.0, "block must be an integer, got 1.0"),
    (1.7, "block must be an integer, got 1.7"),
    ("1", "block must be an integer, got '1'"),
])
def test_one_block_check_names_the_blocks_there_are(block, msg):
    with pytest.raises(ValueError) as e:
        block_range(10, 3, block, "pool x")
    assert str(e.value) == msg
    assert block_range(10, 3, 3, "pool x") == (9, 10) and check_block(np.int64(2), 4) == 2


def _configs():
    from paperlib.pipeline.config import smoke_config

    return {p: {**smoke_config(p), "rep_block": 2} for p in ("pulse", "robin", "zhou")}


@pytest.mark.parametrize("block", [-1, 1.5, 2.0, 10**6])
def test_every_block_entry_point_refuses_a_bad_block_before_any_work(block, monkeypatch):
    """PULSE's pool blocks and extra-fit blocks, ROBIN's cells, Zhou's Figure 3, the race, certified search: the same
    check, before any data is loaded (the loaders are made to fail, so reaching them would be another error)."""
    from paperlib import data
    from paperlib.beyond.race import experiments as race
    from paperlib.beyond.search import experiments as search
    from paperlib.papers.pulse import experiments as pulse
    from paperlib.papers.robin import experiments as robin
    from paperlib.papers.zhou import experiments as zhou
    from paperlib.pipeline.config import smoke_config

    def no_load(*a, **k):
        raise AssertionError("data were loaded before the block was checked")

    monkeypatch.setattr(data, "load", no_load)
    monkeypatch.setattr(pulse, "build_instance", no_load)
    monkeypatch.setattr(robin, "make_judge", no_load)
    cfg = _configs()
    calls = [
        lambda: pulse.run_block(cfg["pulse"], pulse.pool_names(cfg["pulse"])[0], block, {}),
        lambda: pulse.fit_block(cfg["pulse"], pulse.pool_names(cfg["pulse"])[0], block, {"index": 1}),
        lambda: robin.run_cell(robin.cell_names(cfg["robin"])[0],
                               cfg["robin"], block=block),
        lambda: zhou.run_block(cfg["zhou"], cfg["zhou"]["datasets"][0], block),
        lambda: race.dataset_block({**smoke_config("race"), "rep_block": 2}, smoke_config("race")["datasets"][0],
                                   block),
        lambda: search.certified_runs({**smoke_config("search"), "rep_block": 2}, block=block),
        lambda: search.prior_runs({**smoke_config("search"), "rep_block": 2}, block=block),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"^block must be an integer"):
            call()


# ---- item 3: paperlib rerun ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, msg", [
    (["--run", "-1"], "--run must be an integer in [0, 3]"),
    (["--run", "4"], "--run must be an integer in [0, 3], got 4 (pulse has runs 0 .. 3 on every pool)"),
    (["--run", "1", "--show-steps", "-3"], "--show-steps must be an integer in [0,"),
    (["--run", "1", "--method", "nope"], "'nope' is not one of the profile's methods"),
    (["--run", "1", "--threads", "0"], "--threads must be an integer in [1, 1024], got 0"),
])
def test_rerun_refuses_bad_runs_and_step_counts_before_step_1(args, msg, capsys, monkeypatch):
    from paperlib.papers.pulse import experiments as pulse
    from paperlib.pipeline.config import smoke_config

    monkeypatch.setattr(pulse, "fit_pool", lambda *a, **k: pytest.fail("Step 1 ran before the input was checked"))
    pool = pulse.pool_names(smoke_config("pulse"))[0]
    rc = main(["rerun", pool, "--profile", "smoke", *args])
    err = capsys.readouterr().err
    assert rc == 2 and one_line(err) and msg in err, err


# ---- item 4: the report builder on a broken ledger -------------------------------------------------------------------

def _ledger_rows():
    from paperlib.paths import ROOT

    return (ROOT / "figures" / "quick" / "claims.csv").read_text().splitlines(keepends=True)


@pytest.mark.parametrize("case, msg", [
    ("empty", "claims.csv: empty"),
    ("no verdict column", "claims.csv: no column verdict"),
    ("unknown verdict", "claims.csv, line 3 (row 2, claim "),
    ("binary", "claims.csv: not a ledger (not UTF-8 text"),
    ("nul bytes", "claims.csv: not a ledger (binary data"),
    ("short row", "claims.csv, line 2 (row 1): 6 columns in the header, another number in this row"),
])
def test_the_report_builder_refuses_a_broken_ledger_in_one_line(case, msg, tmp_path, capsys):
    import csv
    import io
    import shutil

    from paperlib.paths import ROOT
    from paperlib.pipeline import book

    rows = list(csv.DictReader(io.StringIO("".join(_ledger_rows()))))[:3]
    out = io.StringIO()
    if case == "no verdict column":
        w = csv.DictWriter(out, [k for k in rows[0] if k != "verdict"], extrasaction="ignore")
    else:
        w = csv.DictWriter(out, list(rows[0]))
    w.writeheader()
    if case == "unknown verdict":
        rows[1]["verdict"] = "maybe"
    w.writerows(rows)
    text = {"empty": "", "binary": None, "nul bytes": out.getvalue()[:200] + "\0\0" + out.getvalue()[200:],
            "short row": "paper,claim,statement,evidence,measured,verdict\nZhou et al. 2025,zhou-x,holds\n"}.get(
        case, out.getvalue())
    f = tmp_path / "claims.csv"
    # The rows decided by construction are checked against their committed cases, so the cases travel with them.
    shutil.copy(ROOT / "figures" / "quick" / "cases.csv", tmp_path / "cases.csv")
    if text is None:
        f.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    else:
        f.write_text(text)
    rc = book.main(["--profile", "quick", "--figures", str(tmp_path), "--out", str(tmp_path / "site"),
                    "--work", str(tmp_path / "w"), "--pdf", "no"])
    err = capsys.readouterr().err
    assert rc == 2 and one_line(err) and msg in err, err
    if case == "unknown verdict":
        assert "got 'maybe'" in err


# ---- item 5: configuration typos -------------------------------------------------------------------------------------

@pytest.mark.parametrize("edit, msg", [
    (lambda c: c["pulse"]["fits"].update(pools=["bench1-ful"]), ("pulse.fits.pools", "'bench1-ful' is not a pool")),
    (lambda c: c["pulse"]["fits"].update(methods=["plse"]), ("pulse.fits.methods", "'plse'")),
    (lambda c: c["pulse"]["reps_by_method"].update({"pulse:convention=papr": 10}), ("pulse.reps_by_method", "'pulse:convention=papr'")),
    (lambda c: c["pulse"]["fit"].update(bench3={"rank": 8, "lam": 0.01, "lr": 0.01, "steps": 10}), ("pulse.fit", "'bench3'")),
    (lambda c: c["zhou"]["reps"].update(ucbee=5), ("zhou.reps", "'ucbee'")),
    (lambda c: c["search"]["prior"].update(datasets=["alpacaeval3"]), ("search.prior.datasets", "'alpacaeval3'")),
    (lambda c: c["race"].update(methods=["ucbe", "sysrss"]), ("race.methods", "'sysrss'")),
    (lambda c: c["search"].update(methods=["lucbb"]), ("search.methods", "'lucbb'")),
])
def test_a_misspelled_name_in_a_profile_is_refused_when_it_loads(edit, msg):
    import yaml

    from paperlib import paths
    from paperlib.pipeline.config import ConfigError, validate

    cfg = yaml.safe_load((paths.CONFIG_DIR / "paper.yaml").read_text())
    validate(cfg)  # the shipped profile loads
    edit(cfg)
    cfg["profile"] = "paper_custom"  # (not the shipped name, whose results a different run may not overwrite)
    with pytest.raises(ConfigError) as e:
        validate(cfg)
    key, name = msg  # the key (the schema's own message adds the list index) and the name
    assert key in str(e.value) and name in str(e.value) and len(str(e.value).splitlines()) == 1


# ---- item 6: make lab's port -----------------------------------------------------------------------------------------

def test_make_lab_refuses_a_port_out_of_range_and_names_who_holds_a_taken_one():
    import os
    import socket

    from paperlib.pipeline.lab_port import check_port

    for bad in ("70000", "0", "-1", "88a", "", "8888.0"):
        with pytest.raises(ValueError, match=r"LAB_PORT must be an integer in \[1, 65535\]"):
            check_port(bad)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(ValueError) as e:
            check_port(str(port))
    assert f"LAB_PORT {port} is taken by pid {os.getpid()}" in str(e.value)
    assert check_port(str(port)) == port  # free again once closed


def test_the_makefile_checks_the_port_before_jupyterlab_starts():
    from paperlib.paths import ROOT

    lab = (ROOT / "Makefile").read_text().split("\nlab: setup\n", 1)[1].split("\n\n", 1)[0].splitlines()
    starts = next(i for i, x in enumerate(lab) if "paperlib.pipeline.lab serve" in x)  # the server starts here
    assert "paperlib.pipeline.lab_port" in lab[0] and starts > 0
