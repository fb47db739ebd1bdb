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
    try:  # above the stated size a run that would look hung is refused before any work, unless confirmed
        assert main(["judge", "--method", "uniform", "--judgments", str(q), "--budget", "12", "--quiet",
                     "--json", str(tmp_path / "o.json")]) == 2
        err = capsys.readouterr().err
        assert "12 simulated uniform queries" in err and "--yes" in err and "ROBIN-HOOD" not in err
        assert not (tmp_path / "o.json").exists()
        assert main(["judge", "--method", "uniform", "--judgments", str(q), "--budget", "12", "--quiet", "--yes",
                     "--json", str(tmp_path / "o.json")]) == 0
    finally:
        cli.LONG_RUN_QUERIES = old
    assert "confirmed with --yes" in capsys.readouterr().err


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


# ------------------------------------------------------------------ issue 43, classes 7-9: the remaining cases

def test_complex_scores_are_refused_everywhere_a_score_enters(tmp_path):
    """A complex score lost its imaginary part with at most a warning (Study.tell with a NumPy array, a Python
    scorer, the judge allocation policies): each now refuses it, and nothing is recorded."""
    import torch

    from paperlib.policies.allocation import RobinHood
    from paperlib.search import CallableScorer
    from paperlib.study import Study

    study = Study(["a", "b"], list(range(6)), method="ucbe", budget=6, seed=0)
    req = study.ask()
    with pytest.raises(ValueError, match="real number"):
        study.tell(req, np.array([0.5 + 1j] * len(req)))
    assert study.calls == 0
    value, err = CallableScorer(lambda m, e: np.complex128(0.5 + 1j))("a", 1)
    assert value is None and "not a number in [0, 1]" in err
    pol = RobinHood(3, 12)
    r = pol.ask()
    for bad in (np.full(tuple(r.arms.shape), 0.5 + 1j), torch.full(tuple(r.arms.shape), 0.5 + 1j)):
        with pytest.raises(ValueError, match="complex"):
            pol.tell(r, bad)
    assert pol.spent == 0


def test_judge_scores_outside_the_declared_scale_or_too_large_are_refused():
    """ROBIN-HOOD-EB's bound holds for scores in its declared scale only; a score of 1e200 made the variances
    overflow to NaN. Both are refused, with the value named."""
    from paperlib.data.judge_pools import JudgeDataError, JudgePool
    from paperlib.policies.allocation import RobinHood, RobinHoodEB

    pol = RobinHoodEB(3, 12, scale=(0, 4))
    r = pol.ask()
    with pytest.raises(ValueError, match=r"score 7 lies outside the declared scale \[0, 4\]"):
        pol.tell(r, np.full(tuple(r.arms.shape), 7.0))
    pol = RobinHood(3, 12)
    r = pol.ask()
    with pytest.raises(ValueError, match="variances would overflow"):
        pol.tell(r, np.full(tuple(r.arms.shape), 1e200))
    with np.errstate(over="ignore"):
        assert np.isinf(np.var([1e200, -1e200]))  # why: numpy's own variance of such scores is not finite
    with pytest.raises(JudgeDataError, match="variances would overflow"):
        JudgePool.from_array([[1e200, 1.0], [1.0, 2.0]])


def test_task_beside_a_named_samples_file_must_agree_with_it(tmp_path):
    from paperlib.data.harness import HarnessLogError, read_lm_eval_samples

    f = tmp_path / "samples_gsm8k_2024-05-01T12-00-00.jsonl"
    f.write_text("".join(json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": i % 2}) + "\n"
                         for i in range(4)))
    assert len(read_lm_eval_samples(f, task="gsm8k")[0]) == 4  # the file's own task: fine
    with pytest.raises(HarnessLogError, match="holds samples of task 'gsm8k'"):
        read_lm_eval_samples(f, task="mmlu")
    g = tmp_path / "mine.jsonl"
    g.write_text(f.read_text())
    with pytest.raises(HarnessLogError, match="does not say its task"):
        read_lm_eval_samples(g, task="gsm8k")


def test_two_python_scorers_on_one_line_or_from_one_factory_are_told_apart(tmp_path):
    """A resume with another function defined on the same source line (same qualified name, same source text), or
    another closure of the same factory, was not detected; it is refused now, and the same function resumes."""
    import paperlib
    from paperlib.study import JournalError

    low, high = (lambda m, e: 0.2), (lambda m, e: 0.8)  # noqa: E731

    def factory(v):
        return lambda m, e: v

    models, examples = ["a", "b"], list(range(4))
    j = tmp_path / "j.jsonl"
    paperlib.search(models, examples, low, j, budget=2, stop="budget", progress=False)
    with pytest.raises(JournalError, match="scorer_code"):
        paperlib.search(models, examples, high, j, budget=4, stop="budget", progress=False)
    assert paperlib.search(models, examples, low, j, budget=4, stop="budget", progress=False)["calls"] == 4
    k = tmp_path / "k.jsonl"
    paperlib.search(models, examples, factory(0.3), k, budget=2, stop="budget", progress=False)
    with pytest.raises(JournalError, match="scorer_code"):
        paperlib.search(models, examples, factory(0.6), k, budget=4, stop="budget", progress=False)


def test_a_resume_names_only_what_the_user_changed(tmp_path, capsys):
    """Issue 43, class 8: a resume with another --stop was refused as "another method" (auto had resolved to
    another rule), and the same scorer script named by an absolute path as "another scorer". Now --method auto
    resumes the journal's method, the script is recognised by its content, and a script whose content changed is
    still refused."""
    import sys

    (tmp_path / "models.txt").write_text("a\nb\nc\n")
    (tmp_path / "examples.txt").write_text("".join(f"{j}\n" for j in range(6)))
    (tmp_path / "s.py").write_text("import json, sys\nd = json.load(sys.stdin)\n"
                                   "print({'a': 0.9, 'b': 0.5, 'c': 0.1}[d['model']])\n")
    import os

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        base = ["search", "--models", "models.txt", "--examples", "examples.txt", "--json", "o.json", "--quiet"]
        assert main([*base, "--scorer", f"{sys.executable} s.py", "--budget", "4", "--stop", "budget"]) == 0
        capsys.readouterr()
        assert main([*base, "--scorer", f"{sys.executable} {tmp_path / 's.py'}", "--budget", "6"]) == 0
        err = capsys.readouterr().err
        assert "recorded with ucbe" in err and "differs" not in err
        header = json.loads((tmp_path / "o.journal.jsonl").read_text().splitlines()[0])
        assert header["method"] == "ucbe" and header["meta"]["scorer"] == f"{sys.executable} s.py"
        with open("s.py", "a") as f:
            f.write("# edited\n")
        assert main([*base, "--scorer", f"{sys.executable} {tmp_path / 's.py'}", "--budget", "8"]) == 2
        assert "differs from the journal's" in capsys.readouterr().err
    finally:
        os.chdir(here)


def test_a_ctrl_c_while_the_command_starts_ends_it_with_130_and_no_traceback(monkeypatch, capsys):
    from paperlib import cli

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["search", "--help"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted"


def test_a_result_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    from paperlib.checks import write_atomic

    out = tmp_path / "r.json"
    out.write_text('{"old": 1}')

    class Boom(str):
        pass

    import os

    real = os.replace

    def fail(*a):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(out, '{"new": 2}')
    monkeypatch.setattr(os, "replace", real)
    assert out.read_text() == '{"old": 1}' and [p.name for p in tmp_path.iterdir()] == ["r.json"]
    write_atomic(out, '{"new": 2}')
    assert json.loads(out.read_text()) == {"new": 2}


def test_a_download_past_its_deadline_fails_and_leaves_no_partial_file(tmp_path):
    """A host that trickles bytes never trips requests' read timeout; the overall deadline ends the download, and
    pooch's temporary file is gone."""
    import http.server
    import threading
    import time

    import pooch

    from paperlib.data.fetch import DeadlineDownloader

    class Trickle(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            try:
                for _ in range(1000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.05)
            except OSError:
                pass

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/f.bin"
    t0 = time.monotonic()
    try:
        with pytest.raises(Exception, match="deadline"):
            pooch.retrieve(url, known_hash=None, fname="f.bin", path=tmp_path,
                           downloader=DeadlineDownloader(deadline=1.0))
    finally:
        server.shutdown()
    assert time.monotonic() - t0 < 10  # the whole file would take 50 s
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="deadline"):
        DeadlineDownloader(deadline=0)


# ---- issue 56: the last silent inputs, each a property over its entry points ----

def test_prices_whose_spend_overflows_are_refused_everywhere(npz, tmp_path, capsys):
    """Three models at 1e308: the full spend overflows. Refused by the API (simulate, Study) and by both commands,
    before any call (it used to exit 0 with "spend": null)."""
    from paperlib.costs import CostError
    from paperlib.data.matrix import load_npz
    from paperlib.study import Study

    mat = load_npz(npz)
    with pytest.raises(CostError, match="overflow|more than the largest float"):
        simulate("ucbe", mat, [40], costs=[1e308] * 6, progress=False)
    with pytest.raises(CostError, match="overflow|more than the largest float"):
        Study(["a", "b", "c"], list(range(10)), costs={"a": 1e308, "b": 1e308, "c": 1e308})
    with pytest.raises(CostError, match="more than the largest float"):
        Study(["a", "b", "c"], list(range(10)), costs={"a": 1e307, "b": 1e307, "c": 1e307})  # sum fine, x 10 not
    prices = tmp_path / "p.json"
    prices.write_text(json.dumps({f"row{i}": 1e308 for i in range(6)}))
    rc = main(["simulate", "--method", "ucbe", "--scores", str(npz), "--budget-frac", "0.2", "--quiet",
               "--costs", str(prices), "--json", str(tmp_path / "o.json")])
    assert rc == 2 and "overflow" in capsys.readouterr().err and not (tmp_path / "o.json").exists()


def test_numpy_prices_of_any_float_width_are_prices():
    from paperlib.costs import read_costs_table

    for kind in (np.float16, np.float32, np.float64, np.int32, np.int64):
        got = read_costs_table({"a": kind(2), "b": kind(1)}, ["a", "b"])
        assert got.tolist() == [2.0, 1.0]
    with pytest.raises(ValueError, match="finite numbers >= 0"):
        read_costs_table({"a": np.float32("nan"), "b": 1.0}, ["a", "b"])
    with pytest.raises(ValueError, match="finite numbers >= 0"):
        read_costs_table({"a": np.bool_(True), "b": 1.0}, ["a", "b"])


def test_complex_scores_are_refused_at_load(tmp_path, capsys):
    p = tmp_path / "c.npz"
    np.savez(p, scores=np.full((3, 10), 0.5 + 0.0j))
    rc = main(["simulate", "--method", "ucbe", "--scores", str(p), "--budget-frac", "0.2", "--quiet",
               "--json", str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "complex" in err and "Warning" not in err


@pytest.mark.parametrize("method", __import__("paperlib.policies", fromlist=["names"]).names("judge"))
def test_a_fractional_item_count_is_refused_by_every_judge_policy(method):
    from paperlib.policies import METHODS

    spec = METHODS[method]
    kw = {}
    if spec.needs_variances:
        kw["variances"] = np.ones(5)
    if spec.needs_scale:
        kw["scale"] = (0.0, 4.0)
    with pytest.raises(ValueError, match="must be an integer"):
        spec.cls(5.7, 100, **kw)
    with pytest.raises(ValueError, match="must be an integer"):
        spec.cls(5, 100, reps=2.5, **kw)


def test_a_deadline_the_platform_cannot_time_is_refused(tmp_path, capsys):
    from paperlib.data.fetch import DeadlineDownloader

    with pytest.raises(ValueError, match="longest wait"):
        DeadlineDownloader(deadline=1e10)
    DeadlineDownloader(deadline=1e9)  # within threading.TIMEOUT_MAX
    rc = main(["data", "fetch", "sysrs_gsm", "--deadline", "1e10", "--dest", str(tmp_path)])
    assert rc == 2 and "--deadline" in capsys.readouterr().err


def test_the_judge_long_run_refusal_gives_a_readable_duration(tmp_path, capsys):
    pool = tmp_path / "j.npz"
    np.savez(pool, scores=np.random.default_rng(0).integers(0, 5, (30, 4)).astype(float))
    rc = main(["judge", "--method", "uniform", "--judgments", str(pool), "--budget", "150000", "--reps", "100",
               "--json", str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "about 2 min" in err and "0.0 h" not in err
