"""Bad input found by fuzzing the CLI and the API: each is a one-line error before any work (issue 11, item 6),
and the simulate options that go with certified search (--stop certified, tied best rows)."""

import json

import numpy as np
import pytest

from paperlib.cli import main
from paperlib.data.matrix import ScoreMatrix
from paperlib.policies import make_policy
from paperlib.simulate import simulate


@pytest.fixture
def npz(tmp_path):
    s = np.tile(np.linspace(0.1, 0.9, 6)[:, None], (1, 40)).astype(np.float32)
    p = tmp_path / "m.npz"
    np.savez(p, scores=s)
    return p


@pytest.mark.parametrize("extra, msg", [
    (["--a", "nan"], "--a must be a finite"),
    (["--method", "ucbe-lrf", "--eta", "nan"], "--eta must be a finite"),
    (["--method", "ucbe-lrf", "--refit-growth", "inf"], "--refit-growth must be a finite"),
    (["--method", "ucbe-lrf", "--refit-growth", "-1"], "--refit-growth must lie in"),
    (["--delta", "nan"], "--delta"),
    (["--stop", "certified"], "needs delta"),
    (["--tie-tol", "-0.1"], "--tie-tol"),
    (["--epsilon", "0.1"], "give --delta too"),  # was silently ignored (issue 43, class 7)
])
def test_simulate_refuses_non_finite_and_inconsistent_options(npz, tmp_path, capsys, extra, msg):
    args = ["simulate", "--method", "ucbe", "--scores", str(npz), "--budget-frac", "0.2", "--quiet",
            "--json", str(tmp_path / "o.json")]
    if "--method" in extra:
        args = args[:1] + args[3:]
    rc = main(args + extra)
    err = capsys.readouterr().err
    assert rc == 2 and msg in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.json").exists()


def test_json_path_is_checked_before_the_run(npz, tmp_path, capsys):
    (tmp_path / "adir").mkdir()
    rc = main(["simulate", "--method", "ucbe", "--scores", str(npz), "--budget-frac", "1.0", "--reps", "50",
               "--quiet", "--json", str(tmp_path / "adir")])
    assert rc == 2 and "is a directory" in capsys.readouterr().err


def test_api_refuses_fractional_sizes_complex_scores_and_non_finite_factors():
    with pytest.raises(ValueError, match="reps must be an integer"):
        make_policy("ucbe", 10, 20, 50, reps=2.5)
    with pytest.raises(ValueError, match="n must be an integer"):
        make_policy("ucbe", 10.7, 20, 50)
    pol = make_policy("ucbe", 4, 5, 8, batch_size=2)
    req = pol.ask()
    with pytest.raises(ValueError, match="complex"):
        pol.tell(req, np.array([[0.5 + 1j, 0.2]]))
    v = np.ones((20, 3))
    v[4, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        make_policy("pulse", 10, 20, 100, v=v, batch_size=4)


def test_judge_json_has_no_infinity_and_no_fake_sd(tmp_path):
    rng = np.random.default_rng(0)
    p = tmp_path / "pool.npz"
    np.savez(p, scores=rng.integers(0, 5, (20, 8)).astype(float))
    out = tmp_path / "o.json"
    assert main(["judge", "--method", "robin", "--judgments", str(p), "--budget", "100", "--reps", "1",
                 "--json", str(out), "--quiet"]) == 0
    text = out.read_text()
    assert "Infinity" not in text and "NaN" not in text
    assert json.loads(text)["wce_sd"] is None  # one repetition has no standard deviation


def _tied():
    s = np.zeros((4, 50), dtype=np.float32)
    s[1, :30] = 1.0
    s[3, 20:] = 1.0  # rows 1 and 3 tie at 0.6
    return ScoreMatrix.from_array(s, name="tied", kind="synthetic")


def test_tied_best_rows_all_count_as_right():
    res = simulate("row-mean", _tied(), [200], reps=40, seed=0, device="cpu", progress=False, batch_size=200)
    assert res.true_best_set.tolist() == [1, 3]
    picks = res.best[0]
    assert res.precision()[0] == pytest.approx(np.isin(picks, [1, 3]).mean())
    full = simulate("row-mean", _tied(), [200], reps=10, seed=0, device="cpu", progress=False, batch_size=200)
    assert full.precision()[0] == 1.0  # the whole matrix seen: either tied row is right


def test_stop_certified_freezes_each_repetition_at_its_certificate():
    from paperlib.data.synthetic import low_rank_logistic

    mat = low_rank_logistic(6, 300, rank=2, gap=0.1, seed=1)
    n, m = mat.shape
    res = simulate("ucbe", mat, [n * m // 4, n * m], reps=30, seed=2, device="cpu", progress=False,
                   delta=0.1, stop="certified", batch_size=8)
    at = res.certified_at
    assert (at > 0).all() and (res.calls == at).all() and (res.calls < n * m).all()
    assert (res.best[-1] == mat.best).all()
    done_early = at <= n * m // 4
    assert (res.best[0][done_early] == res.best[-1][done_early]).all()
    budget = simulate("ucbe", mat, [n * m // 4, n * m], reps=30, seed=2, device="cpu", progress=False, delta=0.1,
                      batch_size=8)  # same checkpoints, so the same batches: stopping changes no decision
    assert (budget.calls == n * m).all() and (budget.certified_at == at).all()


def test_judge_refuses_duplicate_item_ids_and_announces_a_long_run(tmp_path, capsys):
    p = tmp_path / "pool.npz"
    np.savez(p, scores=np.ones((3, 4)), item_ids=np.array(["a", "b", "a"]))
    assert main(["judge", "--method", "uniform", "--judgments", str(p), "--budget", "20", "--quiet",
                 "--json", str(tmp_path / "o.json")]) == 2
    assert "duplicate item ids: a" in capsys.readouterr().err
    q = tmp_path / "ok.npz"
    np.savez(q, scores=np.random.default_rng(0).integers(0, 5, (4, 6)).astype(float))
    from paperlib import cli

    cli.LONG_RUN_QUERIES, old = 10, cli.LONG_RUN_QUERIES
    try:
        assert main(["judge", "--method", "uniform", "--judgments", str(q), "--budget", "12", "--quiet",
                     "--json", str(tmp_path / "o.json")]) == 0
    finally:
        cli.LONG_RUN_QUERIES = old
    assert "long run" in capsys.readouterr().err


def test_a_users_matrix_is_not_labelled_real(npz, tmp_path):
    out = tmp_path / "o.json"
    assert main(["simulate", "--method", "ucbe", "--scores", str(npz), "--budget-frac", "0.2", "--quiet",
                 "--json", str(out)]) == 0
    assert json.loads(out.read_text())["data_kind"] == "user"
    labelled = tmp_path / "real.npz"
    np.savez(labelled, scores=np.full((3, 5), 0.5), kind="real")
    assert main(["simulate", "--method", "ucbe", "--scores", str(labelled), "--budget-frac", "0.2", "--quiet",
                 "--json", str(out)]) == 0
    assert json.loads(out.read_text())["data_kind"] == "real"


def test_datasets_reports_a_checksum_mismatch(tmp_path, monkeypatch, capsys):
    import importlib

    reg = importlib.import_module("paperlib.data.registry")
    name = next(n for n, d in reg.registry().items() if d.sha256 and d.needs_file)
    fake = tmp_path / reg.info(name).file
    fake.parent.mkdir(parents=True, exist_ok=True)
    fake.write_bytes(b"not the data")
    monkeypatch.setenv("PAPERLIB_DATA", str(tmp_path))
    assert reg.locate(name) == fake
    assert reg.status(name) == "checksum mismatch" and not reg.available(name, verify=True)
    assert main(["datasets"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(name + " "))
    assert "checksum mismatch" in line


# ---------------------------------------------------------------------------------------------- issue 43


@pytest.mark.parametrize("key", ["delta", "epsilon"])
def test_a_parameter_the_command_sets_itself_is_refused_as_a_param(npz, tmp_path, capsys, key):
    """``--param delta=...`` beside the command's own --delta (which also sets the certificate's) was a traceback
    ("multiple values for keyword argument"): one clear line naming the flag to use instead."""
    rc = main(["simulate", "--method", "lucb", "--scores", str(npz), "--budget-frac", "1", "--quiet", "--delta", "0.1",
               "--param", f"{key}=0.2", "--json", str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert rc == 2 and f"set {key} with --{key}" in err and len(err.strip().splitlines()) == 1


def test_a_truncated_gzip_sample_log_is_an_error_not_a_traceback(tmp_path):
    import gzip

    from paperlib.data.harness import HarnessLogError, read_lm_eval_samples

    lines = "".join(json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": i % 2}) + "\n"
                    for i in range(200)).encode()
    whole = gzip.compress(lines)
    f = tmp_path / "samples_t_2024.jsonl.gz"
    f.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(HarnessLogError, match="truncated or damaged gzip"):
        read_lm_eval_samples(f)


def test_search_never_writes_its_result_or_journal_over_the_scorer(tmp_path, capsys):
    """The result JSON or the journal naming the scorer script would replace the script after the calls were paid:
    refused before the first call, the script intact."""
    import sys

    (tmp_path / "models.txt").write_text("a\nb\n")
    (tmp_path / "examples.txt").write_text("1\n2\n")
    script = tmp_path / "score.py"
    script.write_text("print(0.5)\n")
    base = ["search", "--models", str(tmp_path / "models.txt"), "--examples", str(tmp_path / "examples.txt"),
            "--scorer", f"{sys.executable} {script}", "--quiet"]
    assert main(base + ["--json", str(script)]) == 2
    assert main(base + ["--json", str(tmp_path / "o.json"), "--journal", str(script)]) == 2
    err = capsys.readouterr().err
    assert err.count("is also an input of this run") == 2
    assert script.read_text() == "print(0.5)\n" and not (tmp_path / "o.json").exists()


def test_workflow_settings_refuse_nan_infinity_a_huge_seed_and_a_borrowed_profile_name():
    """Nested --config values are read as YAML (``.nan`` is a number) and JSON Schema's range checks pass NaN: one
    check refuses every non-finite number; a seed torch cannot take is refused at load; a quick run labelled paper
    would write quick-scale numbers into figures/paper."""
    import copy

    from paperlib.pipeline.config import ConfigError, load_config, validate

    quick = load_config("quick")
    bad = copy.deepcopy(quick)
    bad["zhou"]["budget_fracs"] = [float("nan")]
    with pytest.raises(ConfigError, match=r"zhou.budget_fracs\[0\]: nan is not a finite number"):
        validate(bad)
    bad = copy.deepcopy(quick)
    bad["search"]["delta"] = float("inf")
    with pytest.raises(ConfigError, match="search.delta: inf"):
        validate(bad)
    bad = copy.deepcopy(quick)
    bad["seed"] = 2**64
    with pytest.raises(ConfigError, match="seed must lie in"):
        validate(bad)
    borrowed = copy.deepcopy(quick)
    borrowed["profile"] = borrowed["scale"] = "paper"
    with pytest.raises(ConfigError, match="smaller run than paperlib/config/paper.yaml at zhou"):
        validate(borrowed)
    # raising a count or changing a hyperparameter under the paper's name stays allowed (README: pulse reps 500)
    paper = load_config("paper")
    more = copy.deepcopy(paper)
    more["zhou"]["reps"]["ucbe"] += 10
    more["pulse"]["refit"]["lam"] = 0.02
    validate(more)
    fewer = copy.deepcopy(paper)
    fewer["race"]["datasets"] = fewer["race"]["datasets"][:3]
    with pytest.raises(ConfigError, match="at race.datasets"):
        validate(fewer)


def test_data_import_out_must_be_an_npz_it_is_written_to(tmp_path, capsys):
    """``--out m.json`` wrote m.json.npz and reported m.json: refused before reading any log."""
    rc = main(["data", "import", "lm-eval", "--model", f"a={tmp_path}", "--model", f"b={tmp_path}",
               "--out", str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "ending in .npz" in err
    assert not (tmp_path / "m.json").exists() and not (tmp_path / "m.json.npz").exists()


def test_a_sample_without_its_metric_says_what_it_lacks(tmp_path):
    """Issue 43, class 8: "no 'acc' (found acc)" named the metric it said was missing; the message now says the
    sample lists the metric but has no value for it."""
    from paperlib.data.harness import HarnessLogError, read_lm_eval_samples

    f = tmp_path / "samples_t_2024.jsonl"
    f.write_text(json.dumps({"doc_id": 0, "metrics": ["acc"], "acc": 1}) + "\n"
                 + json.dumps({"doc_id": 1, "metrics": ["acc"]}) + "\n")
    with pytest.raises(HarnessLogError, match=r":2: no 'acc' value although its metrics list names it \(no metric"):
        read_lm_eval_samples(f)


def test_a_policy_unpickled_in_a_new_process_asks_and_tells_on(tmp_path):
    """Issue 43, class 3: request ids restarted at 0 in every process, so a policy pickled after some requests and
    told in a new process met AlreadyToldError on its first new request."""
    import pickle
    import subprocess
    import sys

    import torch

    pol = make_policy("ucbe", 4, 20, 40, reps=1, seed=0, device="cpu", batch_size=2)
    s = torch.rand(4, 20)
    for _ in range(3):
        req = pol.ask()
        pol.tell(req, req.take(s))
    (tmp_path / "p.pkl").write_bytes(pickle.dumps((pol, s)))
    code = ("import pickle, sys; pol, s = pickle.load(open(sys.argv[1], 'rb'))\n"
            "for _ in range(3):\n    req = pol.ask(); pol.tell(req, req.take(s))\nprint(pol.spent)")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "p.pkl")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-500:]
    assert r.stdout.split() == ["12"]
