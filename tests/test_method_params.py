"""The registry owns every method's parameters: declared once, checked by the API and the command line alike."""

import inspect
import json

import numpy as np
import pytest

from paperlib.checks import check_output_path, check_scalar
from paperlib.cli import main
from paperlib.data import low_rank_logistic
from paperlib.policies import JUDGE, MATRIX, METHODS, make_policy, names
from paperlib.simulate import simulate


@pytest.mark.parametrize("name", list(METHODS))
def test_declared_defaults_are_the_classes_defaults(name):
    """The spec and the class cannot drift apart: every declared parameter is a keyword of the class, with the
    same default (an independent source: the class signature)."""
    spec = METHODS[name]
    sig = inspect.signature(spec.cls.__init__).parameters
    accepts_kw = any(p.kind is p.VAR_KEYWORD for p in sig.values())
    for p in spec.params:
        if p.name in sig:
            assert sig[p.name].default == p.default, (name, p.name)
        else:  # a subclass passing **kw to its base: look the default up there
            assert accepts_kw, (name, p.name)
            base = inspect.signature(spec.cls.__mro__[1].__init__).parameters
            assert base[p.name].default == p.default, (name, p.name)


@pytest.mark.parametrize("name", names(MATRIX))
def test_make_policy_refuses_a_parameter_the_method_does_not_take(name):
    with pytest.raises(ValueError, match=f"{name} takes no parameter 'no_such_thing'"):
        make_policy(name, 4, 10, 20, no_such_thing=1)


@pytest.mark.parametrize("bad, msg", [
    (dict(a=float("nan")), "ucbe parameter a must be a finite number"),
    (dict(a=-1.0), r"ucbe parameter a must lie in \[0, inf\)"),
    (dict(batch_mode="sideways"), "must be one of row, pending"),
    (dict(batch_size=True), "must be an integer"),
    (dict(batch_size=2.5), "must be an integer"),
    (dict(batch_size=21), "batch_size = 21 exceeds the budget of 20 calls"),
])
def test_make_policy_checks_values_before_any_work(bad, msg):
    with pytest.raises(ValueError, match=msg):
        make_policy("ucbe", 4, 10, 20, **bad)


def test_resolved_params_are_recorded():
    mat = low_rank_logistic(5, 30, gap=0.1, seed=0)
    res = simulate("ucbe:batch_mode=pending", mat, [40], reps=2, progress=False, batch_size=4)
    assert res.params == {"a": 1.0, "batch_size": 4, "batch_mode": "pending"}


def test_judge_methods_check_their_parameters():
    from paperlib.simulate import run_judge, synthetic_judge

    judge = synthetic_judge("discrete", K=10, seed=0)
    with pytest.raises(ValueError, match="uniform takes no parameter 'delta'"):
        run_judge("uniform", judge, [30], delta=0.1)
    with pytest.raises(ValueError, match=r"robin-hood parameter delta must lie in \(0, 1\)"):
        run_judge("robin-hood", judge, [30], delta=5)
    with pytest.raises(ValueError, match="t0 must be 'experiments', 'theorem', 'lemma6' or a positive integer"):
        run_judge("robin-hood", judge, [30], t0="junk")


def test_check_scalar_follows_its_rule():
    assert check_scalar("0.5", "x", float, low=0, high=1) == 0.5
    assert check_scalar(3.0, "n", int, low=1) == 3
    assert check_scalar(np.int64(4), "n", int) == 4
    for bad, kind in [("1e400", float), ("3.5", int), (None, float), (True, int)]:
        with pytest.raises(ValueError):
            check_scalar(bad, "x", kind)
    with pytest.raises(ValueError, match=r"x must lie in \(0, 1\), got 1"):
        check_scalar(1.0, "x", float, low=0, high=1, closed="neither")
    assert check_scalar(0.0, "x", float, low=0, high=1, closed="left") == 0.0


def test_output_path_never_overwrites_an_input(tmp_path):
    inp = tmp_path / "m.npz"
    inp.write_bytes(b"x")
    with pytest.raises(ValueError, match="also an input"):
        check_output_path(tmp_path / "sub" / ".." / "m.npz", "--json", inputs=(inp,))
    with pytest.raises(ValueError, match="is a directory"):
        check_output_path(tmp_path, "--json")
    assert check_output_path(tmp_path / "new" / "o.json", "--json") == tmp_path / "new" / "o.json"


@pytest.fixture
def npz(tmp_path):
    path = tmp_path / "m.npz"
    np.savez(path, scores=low_rank_logistic(10, 40, gap=0.1, seed=0).scores)
    return path


@pytest.mark.parametrize("extra, msg", [
    (["--method", "ucbe", "--eta", "3"], "--eta does not apply to ucbe, which takes a, batch_size, batch_mode"),
    (["--method", "row-mean", "--a", "2"], "--a does not apply to row-mean"),
    (["--method", "ucbe-lrf", "--t0", "2"], "--t0 does not apply to ucbe-lrf"),
    (["--method", "ucbe", "--fit-lr", "0.1"], "--fit-lr apply to the methods that need a train matrix"),
    (["--method", "ucbe", "--param", "a=nan"], "--param a must be a finite number"),
    (["--method", "ucbe", "--param", "a"], "write KEY=VALUE"),
    (["--method", "ucbe", "--a", "2", "--param", "a=3"], "--param a repeats --a"),
    (["--method", "ucbe-lrf", "--batch-size", "100000"], "--batch-size = 100000 exceeds the budget of 80 calls"),
    (["--method", "pulse", "--param", "convention=novel"], "must be one of authors, paper"),
])
def test_simulate_refuses_what_the_method_does_not_take(npz, tmp_path, capsys, extra, msg):
    out = tmp_path / "o.json"
    rc = main(["simulate", "--scores", str(npz), "--budget-frac", "0.2", "--quiet", "--json", str(out)] + extra)
    err = capsys.readouterr().err
    assert rc == 2 and msg in err, err
    assert not out.exists()


def test_simulate_param_flag_reaches_the_policy(npz, tmp_path):
    out = tmp_path / "o.json"
    assert main(["simulate", "--method", "ucbe", "--scores", str(npz), "--budget-frac", "0.2", "--quiet",
                 "--json", str(out), "--param", "batch_mode=pending", "--batch-size", "4"]) == 0
    params = json.loads(out.read_text())["params"]
    assert params == {"a": 1.0, "batch_size": 4, "batch_mode": "pending"}


@pytest.fixture
def pool(tmp_path):
    path = tmp_path / "pool.npz"
    rng = np.random.default_rng(0)
    np.savez(path, scores=rng.integers(0, 5, size=(8, 6)).astype(float))
    return path


@pytest.mark.parametrize("extra, msg", [
    (["--method", "uniform", "--delta", "0.1"], "--delta does not apply to uniform"),
    (["--method", "robin", "--ucb", "delta"], "--ucb does not apply to robin"),
    (["--method", "robin-hood", "--t0", "junk"], "--t0 must be 'experiments', 'theorem', 'lemma6'"),
    (["--method", "robin-hood-eb", "--delta", "5"], "--delta must lie in (0, 1)"),
    (["--method", "robin-hood-eb"], "needs the judge's score range: give --scale LO HI"),
    (["--method", "robin-hood-eb", "--scale", "0", "3"], "outside the scale [0.0, 3.0]"),
])
def test_judge_refuses_what_the_method_does_not_take(pool, tmp_path, capsys, extra, msg):
    out = tmp_path / "o.json"
    rc = main(["judge", "--judgments", str(pool), "--budget", "40", "--quiet", "--json", str(out)] + extra)
    err = capsys.readouterr().err
    assert rc == 2 and msg in err, err


def test_judge_robin_hood_eb_uses_its_flags(pool, tmp_path):
    out = tmp_path / "o.json"
    assert main(["judge", "--method", "robin-hood-eb", "--judgments", str(pool), "--budget", "40", "--quiet",
                 "--json", str(out), "--delta", "0.2", "--t0", "3", "--ucb", "delta", "--scale", "0", "4"]) == 0
    params = json.loads(out.read_text())["params"]
    assert params["delta"] == 0.2 and params["t0"] == 3 and params["ucb"] == "delta"


def test_every_judge_method_is_registered_with_its_parameters():
    assert {n: METHODS[n].param_names() for n in names(JUDGE)} == {
        "uniform": [], "robin": [], "robin-hood": ["delta", "t0", "ucb"], "robin-hood-eb": ["delta", "t0", "ucb"]}


def test_methods_command_lists_every_method_and_parameter(capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    heads = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert heads == list(METHODS)
    assert "convention    'authors'      str   {authors, paper}" in out


def test_study_checks_its_method_parameters_before_any_work():
    from paperlib.study import Study

    with pytest.raises(ValueError, match="ucbe parameter a must be a finite number"):
        Study(["m0", "m1"], [1, 2, 3], method="ucbe", a=float("nan"))
    with pytest.raises(ValueError, match="row-mean takes no parameter 'a'"):
        Study(["m0", "m1"], [1, 2, 3], method="row-mean", a=2.0)
