"""Certified search with a prior (issue 59): the prior-assisted sequences cover at every step whatever the predictions,
narrow with good ones, and the inputs are checked before any call."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from paperlib.confseq import WoRMeanCS
from paperlib.confseq_prior import PriorAssistedCS
from paperlib.data.synthetic import low_rank_logistic
from paperlib.journal import JournalError
from paperlib.prior import PriorError, example_features, read_predictions, read_prior
from paperlib.simulate import simulate
from paperlib.stats import clopper_pearson
from paperlib.study import Study

DELTA = 0.1


def _run_paths(cs, orders, scores, rows_of):
    """Feed every stream its whole uniform order, one draw per stream per step; whether each (rep, stream) ever
    missed its mean, and the widths after each step."""
    R, n, m = orders.shape
    mu = torch.as_tensor(scores.mean(1))
    miss = torch.zeros(R, n, dtype=torch.bool)
    widths = []
    rows = torch.as_tensor(rows_of).expand(R, n)
    for t in range(m):
        cols = torch.as_tensor(orders[:, :, t])
        x = torch.as_tensor(scores)[rows, cols]
        cs.update(rows, cols, x)
        miss |= (cs.lower > mu[rows] + 1e-12) | (cs.upper < mu[rows] - 1e-12)
        widths.append((cs.upper - cs.lower).mean(0))
    return miss, torch.stack(widths)


def _orders(R, n, m, seed):
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((R, n, m)), axis=2)


def test_coverage_with_every_kind_of_predictions():
    """Over 1,000 runs the sequence misses its mean at some step in at most delta of the runs, for perfect,
    shuffled, adversarial (1 - s: wrong everywhere) and extreme (0 or 1 at random) predictions: an exact binomial
    interval on the miss rate must reach delta (Ville's inequality: the rate is at most delta whatever the
    predictions, as long as they are fixed before the draw)."""
    rng = np.random.default_rng(0)
    m, R = 60, 1000
    s = (rng.random(m) < 0.45).astype(float) * rng.uniform(0.5, 1.0, m)  # scores in [0, 1] with ties at 0
    kinds = [s, rng.permutation(s), 1.0 - s, (rng.random(m) < 0.5).astype(float)]
    n = len(kinds)
    scores = np.tile(s, (n, 1))
    P = np.stack(kinds)
    F = np.stack([np.ones_like(P), P], axis=-1)
    beta0 = np.tile([0.0, 1.0], (n, 1))
    cs = PriorAssistedCS(R, n, m, DELTA, torch.as_tensor(F), torch.as_tensor(beta0), ridge=2.0)
    miss, _ = _run_paths(cs, _orders(R, n, m, 1), scores, torch.arange(n))
    for k, name in enumerate(("perfect", "shuffled", "adversarial", "extreme")):
        lo, _ = clopper_pearson(int(miss[:, k].sum()), R)
        assert lo <= DELTA, f"{name} predictions: {int(miss[:, k].sum())} misses in {R} runs"


def test_coverage_with_a_prior_informative_or_shuffled():
    """The same with a prior matrix (shared example features, the candidates' coefficients refitted on their own
    scores): informative (noisy copies of the candidates' rows) and shuffled (each prior row permuted)."""
    rng = np.random.default_rng(2)
    mat = low_rank_logistic(12, 80, gap=0.05, seed=5)
    S = np.asarray(mat.scores, dtype=np.float64)
    cand, prior = S[:3], S[3:]
    R, (n, m) = 1000, cand.shape
    for name, Q in (("informative", prior), ("shuffled", np.stack([rng.permutation(r) for r in prior]))):
        F = example_features(Q, 4)
        beta0 = np.zeros(F.shape[1])
        beta0[1] = 1.0
        cs = PriorAssistedCS(R, n, m, DELTA, torch.as_tensor(F), torch.as_tensor(beta0), ridge=4.0)
        miss, _ = _run_paths(cs, _orders(R, n, m, 3), cand, torch.arange(n))
        misses = int(miss.any(dim=1).sum())  # any of the three streams: at most n delta by the union bound
        assert clopper_pearson(misses, R)[0] <= n * DELTA, f"{name} prior: {misses} runs missed"


def test_perfect_predictions_make_the_interval_shrink_as_one_over_t():
    """With predictions equal to the scores the residuals are 0 once the weight has learnt it (a few draws), so the
    slack stops growing and the width falls as 1 / t: from 50 to 400 draws by a factor near 8 (at most 5 allowed),
    where the plain sequence's falls as 1 / sqrt(t), by a factor near sqrt(8) = 2.8 (the sampling fraction is at
    most a fifth, so the without-replacement correction is small)."""
    rng = np.random.default_rng(4)
    m, R = 2000, 4
    s = rng.random(m)
    F = np.stack([np.ones(m), s], axis=-1)[None]
    cs = PriorAssistedCS(R, 1, m, DELTA, torch.as_tensor(F), torch.tensor([[0.0, 1.0]]))
    plain = WoRMeanCS(R, 1, m, DELTA)
    orders = _orders(R, 1, m, 5)
    width = {}
    for t in range(400):
        cols = torch.as_tensor(orders[:, :, t])
        x = torch.as_tensor(s)[cols]
        cs.update(torch.zeros_like(cols), cols, x)
        plain.update(torch.zeros_like(cols), x)
        if t + 1 in (50, 400):
            width[t + 1] = (float((cs.upper - cs.lower).mean()), float((plain.upper - plain.lower).mean()))
    assert width[400][0] / width[50][0] < 1 / 5
    assert width[400][1] / width[50][1] > 1 / 5
    assert width[400][0] < 0.5 * width[400][1]
    assert bool((cs.lower <= s.mean()).all() and (cs.upper >= s.mean()).all())


def test_a_prior_of_the_other_models_saves_calls_on_a_low_rank_matrix():
    """On a rank-2 matrix of success probabilities the prior rows span the candidates' scores (up to the logistic
    link), so lucb-prior certifies the same (right) model with fewer calls than lucb; a shuffled prior costs at most
    10% more than none (its weight stays near 0)."""
    mat = low_rank_logistic(60, 600, gap=0.02, seed=8, rank=2, binary=False, spread=2.0)
    S = np.asarray(mat.scores, dtype=np.float64)
    from paperlib.data.matrix import ScoreMatrix

    C = ScoreMatrix.from_array(S[:8], kind="synthetic", name="cand")
    kw = dict(reps=8, seed=0, delta=0.05, stop="certified", progress=False)
    base = simulate("lucb", C, [C.scores.size], **kw)
    good = simulate("lucb", C, [C.scores.size], prior=S[8:], **kw)
    rng = np.random.default_rng(0)
    useless = simulate("lucb", C, [C.scores.size], prior=np.stack([rng.permutation(r) for r in S[8:]]), **kw)
    assert good.method == "lucb-prior"
    best = int(np.argmax(S[:8].mean(1)))
    assert (good.best[-1] == best).all() and (base.best[-1] == best).all()
    assert np.median(good.calls) < 0.9 * np.median(base.calls)
    assert np.median(useless.calls) <= 1.1 * np.median(base.calls)


# ------------------------------------------------------------------------------------------------- inputs

def _npz(path, scores, **extra):
    np.savez(path, scores=np.asarray(scores, dtype=float), **extra)
    return path


@pytest.mark.parametrize("scores, message", [
    (np.full((2, 3), np.nan), "no score at all"),
    (np.array([[0.1, 0.2], [0.3, 0.4]]), "2 columns, but there are 3 examples"),
    (np.array([[0.1, 1.5, 0.2]]), "must lie in [0, 1]"),
    (np.array([[0.1, np.inf, 0.2]]), "infinite"),
])
def test_bad_priors_are_refused_naming_the_problem(tmp_path, scores, message):
    with pytest.raises(PriorError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_prior(_npz(tmp_path / "p.npz", scores), m=3)


def test_prior_files_empty_duplicate_or_mismatched(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(PriorError, match="empty"):
        read_prior(tmp_path / "empty.csv", m=3)
    (tmp_path / "dup.csv").write_text("model,a,b\nx,0.1,0.2\nx,0.3,0.4\n")
    with pytest.raises(PriorError, match="duplicate model ids"):
        read_prior(tmp_path / "dup.csv", example_ids=["a", "b"])
    with pytest.raises(PriorError, match="duplicate column ids"):
        read_prior(_npz(tmp_path / "d.npz", [[0.1, 0.2]], col_ids=np.array(["a", "a"])), example_ids=["a", "b"])
    with pytest.raises(PriorError, match="not among its col_ids, e.g. c"):
        read_prior(_npz(tmp_path / "c.npz", [[0.1, 0.2]], col_ids=np.array(["a", "b"])), example_ids=["a", "c"])
    with pytest.raises(PriorError, match="no col_ids"):
        read_prior(_npz(tmp_path / "n.npz", [[0.1, 0.2]]), example_ids=["a", "b", "c"])


def test_prior_columns_follow_the_examples(tmp_path):
    """By ids in any order (CSV with an empty cell as NaN), else by position when the counts agree."""
    (tmp_path / "lb.csv").write_text("model,b,a,c\nx,0.2,0.1,\ny,0.5,0.4,0.6\n")
    got = read_prior(tmp_path / "lb.csv", example_ids=["a", "b", "c"])
    np.testing.assert_array_equal(got, [[0.1, 0.2, np.nan], [0.4, 0.5, 0.6]])
    np.testing.assert_array_equal(read_prior(_npz(tmp_path / "o.npz", [[0.3, 0.7]]), example_ids=["p", "q"]),
                                  [[0.3, 0.7]])


def test_predictions_file_is_checked(tmp_path):
    f = tmp_path / "pred.csv"
    f.write_text("model,example,prediction\nm1,a,0.5\nm2,b,0.25\n")
    got = read_predictions(f, ["m1", "m2"], ["a", "b"])
    np.testing.assert_array_equal(got, [[0.5, np.nan], [np.nan, 0.25]])
    for body, message in (("model,example,prediction\nm3,a,0.5\n", "unknown model 'm3'"),
                          ("model,example,prediction\nm1,z,0.5\n", "unknown example 'z'"),
                          ("model,example,prediction\nm1,a,1.5\n", "not in \\[0, 1\\]"),
                          ("model,example,prediction\nm1,a,0.5\nm1,a,0.4\n", "predicted twice")):
        f.write_text(body)
        with pytest.raises(PriorError, match=message):
            read_predictions(f, ["m1", "m2"], ["a", "b"])
    j = tmp_path / "pred.json"
    j.write_text(json.dumps([{"model": "m2", "example": "a", "prediction": 0.75}]))
    assert read_predictions(j, ["m1", "m2"], ["a", "b"])[1, 0] == 0.75


# ------------------------------------------------------------------------------------------------- study and journal

MODELS = ["a", "b", "c"]
EXAMPLES = [{"id": j} for j in range(50)]
PRIOR = np.random.default_rng(3).random((6, 50))


def test_a_journal_records_the_prior_and_refuses_another(tmp_path):
    j = tmp_path / "j.jsonl"
    s = Study(MODELS, EXAMPLES, method="lucb", journal=j, prior=PRIOR, delta=0.1)
    assert s.method == "lucb-prior"
    req = s.ask()
    s.tell(req, [0.5] * len(req))
    s.close()
    header = json.loads(j.read_text().splitlines()[0])
    assert "prior" not in header["params"] and len(header["prior_sha256"]) == 64
    with pytest.raises(JournalError, match="differs from the journal's"):
        Study.resume(j, examples=EXAMPLES, prior=PRIOR[::-1])
    with pytest.raises(JournalError, match="resume with the same prior"):
        Study.resume(j, examples=EXAMPLES)
    again = Study.resume(j, examples=EXAMPLES, prior=PRIOR.copy())
    assert again.calls == len(req)
    again.close()


def test_a_prior_with_a_method_that_cannot_use_it_is_refused():
    with pytest.raises(ValueError, match="not ucbe"):
        Study(MODELS, EXAMPLES, method="ucbe", prior=PRIOR)
    with pytest.raises(ValueError, match="not both"):
        Study(MODELS, EXAMPLES, method="lucb", prior=PRIOR, predictions=np.full((3, 50), 0.5))
    with pytest.raises(ValueError, match="needs a prior"):
        Study(MODELS, EXAMPLES, method="lucb-prior")


def test_simulate_command_with_a_prior_and_predictions(tmp_path, capsys):
    """``simulate --method auto --stop certified --prior`` runs lucb-prior (the prior's columns matched by col_ids in
    another order); ``--predictions`` too; a prior with lucb-pd is refused naming the methods that take one."""
    from paperlib.cli import main

    mat = low_rank_logistic(14, 120, gap=0.1, seed=2)
    S = np.asarray(mat.scores)
    ids = np.array([f"ex{j}" for j in range(120)])
    np.savez(tmp_path / "c.npz", scores=S[:4], col_ids=ids, row_ids=np.array(["a", "b", "c", "d"]))
    np.savez(tmp_path / "p.npz", scores=S[4:, ::-1], col_ids=ids[::-1])
    base = ["simulate", "--scores", str(tmp_path / "c.npz"), "--budget-frac", "1", "--delta", "0.05", "--stop",
            "certified", "--reps", "3", "--quiet"]
    assert main([*base, "--method", "auto", "--prior", str(tmp_path / "p.npz"), "--json", str(tmp_path / "o.json")]) == 0
    out = json.loads((tmp_path / "o.json").read_text())
    assert out["method"] == "lucb-prior" and out["best"] == [int(S[:4].mean(1).argmax())] * 3
    (tmp_path / "pred.csv").write_text("model,example,prediction\n" + "".join(
        f"{r},ex{j},{S[i, j] * 0.5 + 0.25}\n" for i, r in enumerate("abcd") for j in range(120)))
    assert main([*base, "--method", "lucb", "--predictions", str(tmp_path / "pred.csv"),
                 "--json", str(tmp_path / "q.json")]) == 0
    assert json.loads((tmp_path / "q.json").read_text())["method"] == "lucb-prior"
    assert main([*base, "--method", "lucb-pd", "--prior", str(tmp_path / "p.npz"), "--json",
                 str(tmp_path / "r.json")]) == 2
    assert "apply to lucb-prior" in capsys.readouterr().err and not (tmp_path / "r.json").exists()
