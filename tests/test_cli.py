import json
import subprocess
import sys

import numpy as np
import pytest

from paperlib.cli import main


@pytest.fixture
def npz(tmp_path):
    s = np.tile(np.linspace(0.1, 0.9, 6)[:, None], (1, 40)).astype(np.float32)
    p = tmp_path / "m.npz"
    np.savez(p, scores=s, row_ids=np.array([f"m{i}" for i in range(6)]))
    return p


def test_simulate_json_contract(npz, tmp_path):
    out = tmp_path / "o.json"
    rc = main(["simulate", "--method", "ucbe", "--scores", str(npz), "--budget-frac", "0.25",
               "--reps", "4", "--seed", "3", "--json", str(out), "--quiet"])
    assert rc == 0
    res = json.loads(out.read_text())
    for key in ("method", "reps", "budget", "best", "true_best", "precision", "wall_s"):
        assert key in res
    assert res["budget"] == 60 and res["reps"] == 4 and len(res["best"]) == 4
    assert res["true_best"] == 5 and res["true_best_id"] == "m5"
    assert res["precision"] == np.mean(np.array(res["best"]) == 5)


@pytest.mark.parametrize("mode", ["row", "pending"])
def test_batch_mode_reaches_the_policy(npz, tmp_path, mode):
    """The 6 x 40 matrix has a clear best row; with 4 pairs per batch both modes spend exactly the budget."""
    out = tmp_path / "o.json"
    rc = main(["simulate", "--method", "ucbe", "--scores", str(npz), "--budget-frac", "0.5", "--batch-size", "4",
               "--batch-mode", mode, "--reps", "3", "--json", str(out), "--quiet"])
    res = json.loads(out.read_text())
    assert rc == 0 and res["budget"] == 120 and res["params"]["batch_mode"] == mode


@pytest.mark.parametrize(
    "extra, msg",
    [
        (["--budget-frac", "1.5"], "budget-frac"),
        (["--budget-frac", "0"], "budget-frac"),
        (["--budget-frac", "0.5", "--reps", "0"], "reps"),
        (["--budget-frac", "0.5", "--batch-size", "0"], "batch-size"),
        (["--budget-frac", "0.5", "--method", "row-mean", "--batch-mode", "row"], "batch-mode"),
    ],
)
def test_bad_arguments_exit_nonzero(npz, tmp_path, capsys, extra, msg):
    rc = main(["simulate", "--method", "ucbe", "--scores", str(npz), "--json", str(tmp_path / "o.json"), *extra])
    err = capsys.readouterr().err
    assert rc != 0 and msg in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "arr, msg",
    [(np.full((3, 4), 2.0), "[0, 1]"), (np.zeros(4), "2-dimensional"), (np.array([[0.1, np.nan]]), "missing")],
)
def test_bad_matrix_exit_nonzero(tmp_path, capsys, arr, msg):
    p = tmp_path / "bad.npz"
    np.savez(p, scores=arr)
    rc = main(["simulate", "--method", "row-mean", "--scores", str(p), "--budget-frac", "0.5",
               "--json", str(tmp_path / "o.json")])
    assert rc != 0 and msg in capsys.readouterr().err


def test_missing_file_and_help(tmp_path):
    r = subprocess.run([sys.executable, "-m", "paperlib", "simulate", "--method", "lrf", "--scores",
                        str(tmp_path / "nope.npz"), "--budget-frac", "0.1", "--json", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "not found" in r.stderr
    h = subprocess.run([sys.executable, "-m", "paperlib", "simulate", "--help"], capture_output=True, text=True)
    for opt in ("--method", "--scores", "--budget-frac", "--batch-size", "--reps", "--seed", "--json",
                "--a", "--eta", "--rank", "--ensemble", "--warmup-frac"):
        assert opt in h.stdout


def test_version_and_help_import_no_torch():
    """`paperlib --version` and `--help` answer from the registry alone (issue 40: they took 3.4 s importing torch);
    the policy classes, and torch with them, are imported only by a command that computes."""
    code = ("import sys, contextlib, io\n"
            "from paperlib.cli import main\n"
            "for argv in (['--version'], ['--help']):\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        try:\n"
            "            main(argv)\n"
            "        except SystemExit:\n"
            "            pass\n"
            "print('torch' in sys.modules)\n"
            "from paperlib.policies import PULSE\n"
            "print('torch' in sys.modules, PULSE.__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True", "PULSE"]


def test_search_help_lists_exactly_the_study_methods():
    """The search command's --method help names its methods by hand (so that --help needs no torch); they must be
    STUDY_METHODS, the methods whose draws keep the intervals valid."""
    import argparse

    from paperlib.cli import _search_parser
    from paperlib.study import STUDY_METHODS

    sub = argparse.ArgumentParser().add_subparsers()
    p = _search_parser(sub) or sub.choices["search"]
    action = next(a for a in p._actions if "--method" in a.option_strings)
    listed = action.help.split("need: ")[1].split(" (")[0].split(", ")
    assert sorted(listed) == sorted(STUDY_METHODS)
    assert "auto" in action.choices and "pulse" not in action.choices


def _prices(tmp_path, table, name="costs.json"):
    p = tmp_path / name
    p.write_text(json.dumps(table) if not isinstance(table, str) else table)
    return p


@pytest.mark.slow
def test_simulate_reports_the_spend_of_every_repetition(npz, tmp_path):
    """--costs (issue 42, item 1), checked against what each result must cost for reasons outside the code: one price
    for every model makes spend = price x calls; the whole matrix scores every pair once, so spend = m x sum(prices)
    whatever the method; a certified stop freezes the spend with the calls."""
    out = tmp_path / "o.json"
    flat = _prices(tmp_path, {f"m{i}": 0.5 for i in range(6)})
    base = ["simulate", "--scores", str(npz), "--reps", "3", "--seed", "1", "--json", str(out), "--quiet"]
    assert main(base + ["--method", "ucbe", "--budget-frac", "0.25", "--costs", str(flat)]) == 0
    res = json.loads(out.read_text())
    assert res["spend"] == [0.5 * c for c in res["calls"]] and res["spend_full"] == 0.5 * 6 * 40
    prices = {f"m{i}": p for i, p in enumerate([0.1, 10.0, 2.5, 0.0, 1.0, 3.0])}
    dear = _prices(tmp_path, {**prices, "not-in-matrix": 99.0}, "dear.json")  # extra models are allowed
    for method in ("ucbe", "row-mean", "lucb"):
        assert main(base + ["--method", method, "--budget-frac", "1.0", "--costs", str(dear)]) == 0
        assert json.loads(out.read_text())["spend"] == pytest.approx([40 * sum(prices.values())] * 3)
    assert main(base + ["--method", "lucb", "--budget-frac", "1.0", "--delta", "0.05", "--stop", "certified",
                        "--costs", str(flat)]) == 0
    res = json.loads(out.read_text())
    assert max(res["calls"]) < 240 and res["spend"] == [0.5 * c for c in res["calls"]]
    # the runs do not depend on the prices
    assert main(base + ["--method", "lucb", "--budget-frac", "1.0", "--delta", "0.05", "--stop", "certified"]) == 0
    assert json.loads(out.read_text())["calls"] == res["calls"] and "spend" not in json.loads(out.read_text())


@pytest.mark.parametrize("table,msg", [
    ({"m0": 1.0}, "no price for 5 model"),
    ({**{f"m{i}": 1.0 for i in range(5)}, "m5": -1.0}, "m5=-1.0"),
    ({**{f"m{i}": 1.0 for i in range(5)}, "m5": "cheap"}, "m5='cheap'"),
    ({**{f"m{i}": 1.0 for i in range(5)}, "m5": True}, "m5=True"),
    ('{"m0": NaN, "m1": 1, "m2": 1, "m3": 1, "m4": 1, "m5": 1}', "m0=nan"),
    ("[1, 2]", "one object"),
    ("{not json", "is not JSON"),
])
def test_bad_prices_are_refused_before_any_work(npz, tmp_path, capsys, table, msg):
    out = tmp_path / "o.json"
    rc = main(["simulate", "--method", "ucbe", "--scores", str(npz), "--budget-frac", "0.25", "--json", str(out),
               "--quiet", "--costs", str(_prices(tmp_path, table))])
    assert rc == 2 and msg in capsys.readouterr().err and not out.exists()
