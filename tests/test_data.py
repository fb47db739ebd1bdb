import json

import numpy as np
import pytest

from paperlib import data
from paperlib.data import ScoreMatrix, ScoreMatrixError, low_rank_logistic
from paperlib.data.build import alpacaeval_win_scores, build_alpacaeval, build_factors
from paperlib.data.registry import DatasetNotFoundError


@pytest.mark.parametrize(
    "bad, match",
    [
        (np.zeros(5), "2-dimensional"),
        (np.zeros((2, 3, 4)), "2-dimensional"),
        (np.zeros((0, 4)), "empty"),
        (np.array([[0.5, np.inf]]), "infinite"),
        (np.array([[0.5, 1.2]]), r"\[0, 1\]"),
        (np.array([[-0.1, 0.5]]), r"\[0, 1\]"),
        (np.array([[0.5, np.nan]]), "missing"),
        (np.array([["a", "b"]]), "numeric"),
    ],
)
def test_bad_scores_rejected(bad, match):
    with pytest.raises(ScoreMatrixError, match=match):
        ScoreMatrix.from_array(bad)


def test_duplicate_and_misaligned_ids():
    with pytest.raises(ScoreMatrixError, match="duplicate"):
        ScoreMatrix.from_array(np.zeros((2, 2)), row_ids=["a", "a"])
    with pytest.raises(ScoreMatrixError, match="entries"):
        ScoreMatrix.from_array(np.zeros((2, 2)), col_ids=["a", "b", "c"])
    with pytest.raises(ScoreMatrixError, match="kind"):
        ScoreMatrix.from_array(np.zeros((2, 2)), kind="made-up")


def test_drop_missing_columns_keeps_ids_aligned():
    s = np.array([[0.1, np.nan, 0.3], [0.4, 0.5, 0.6]])
    mat = ScoreMatrix.from_array(s, col_ids=["x", "y", "z"], missing="drop-columns")
    assert mat.shape == (2, 2)
    assert mat.col_ids == ("x", "z")
    assert mat.meta["dropped_columns"] == 1
    np.testing.assert_allclose(mat.means, [0.2, 0.5])


def test_missing_dataset_error_names_dataset_and_how(monkeypatch, tmp_path):
    monkeypatch.setenv("PAPERLIB_DATA", str(tmp_path))
    monkeypatch.setenv("PAPERLIB_CACHE", str(tmp_path / "cache"))
    data.load.cache_clear()
    with pytest.raises(DatasetNotFoundError) as exc:
        data.load("sysrs_gsm")
    msg = str(exc.value)
    assert "sysrs_gsm" in msg and "How to get it" in msg and "PAPERLIB_DATA" in msg
    assert not data.available("sysrs_gsm")
    assert data.available("synth_easy")
    data.load.cache_clear()


def test_checksum_mismatch_detected(monkeypatch, tmp_path):
    (tmp_path / "sysrs_gsm").mkdir()
    np.savez(tmp_path / "sysrs_gsm" / "scores.npz", scores=np.zeros((2, 2)), row_ids=np.array(["a", "b"]))
    monkeypatch.setenv("PAPERLIB_DATA", str(tmp_path))
    data.load.cache_clear()
    with pytest.raises(ScoreMatrixError, match="sha256"):
        data.load("sysrs_gsm")
    data.load.cache_clear()


@pytest.mark.parametrize("gap", [0.005, 0.02, 0.1])
def test_synthetic_gap_is_exact(gap):
    mat = low_rank_logistic(40, 800, rank=2, gap=gap, seed=3)
    mu = np.sort(mat.means)[::-1]
    assert mat.is_binary
    assert mu[0] - mu[1] == pytest.approx(np.ceil(round((mu[1] + gap) * 800, 9)) / 800 - mu[1], abs=1e-9)
    assert gap - 1e-9 <= mu[0] - mu[1] < gap + 1.0 / 800
    cont = low_rank_logistic(40, 800, gap=gap, seed=3, binary=False)
    mu = np.sort(cont.means)[::-1]
    assert mu[0] - mu[1] == pytest.approx(gap, abs=1e-6)


def test_synthetic_is_deterministic_and_low_rank():
    a = low_rank_logistic(30, 500, rank=1, gap=0.05, seed=1, binary=False)
    b = low_rank_logistic(30, 500, rank=1, gap=0.05, seed=1, binary=False)
    np.testing.assert_array_equal(a.scores, b.scores)
    logit = np.log(a.scores / (1 - a.scores))
    sv = np.linalg.svd(logit - logit.mean(axis=1, keepdims=True), compute_uv=False)
    # rank-1 logits plus a row offset (the lifted top row adds at most one more direction)
    assert sv[2] / sv[0] < 1e-3


def test_factor_bernoulli_matches_probabilities():
    rng = np.random.default_rng(0)
    u, v = rng.normal(size=(50, 3)), rng.normal(size=(4000, 3))
    mat = data.factor_bernoulli(u, v, seed=5)
    p = 1 / (1 + np.exp(-(u @ v.T)))
    # each row mean is an average of 4000 independent Bernoullis: sd <= 0.5/sqrt(4000)
    assert np.abs(mat.scores.mean(1) - p.mean(1)).max() < 5 * 0.5 / np.sqrt(4000)
    np.testing.assert_array_equal(mat.scores, data.factor_bernoulli(u, v, seed=5).scores)
    assert mat.kind == "semi-synthetic"


def test_alpacaeval_score_orientation():
    ann = [
        dict(instruction="q1", generator_1="gpt4_1106_preview", generator_2="m", preference=1.75),
        dict(instruction="q2", generator_1="m", generator_2="gpt4_1106_preview", preference=1.75),
        dict(instruction="q3", generator_1="gpt4_1106_preview", generator_2="m", preference=None),
        dict(instruction="q4", generator_1="gpt4_1106_preview", generator_2="m", preference=2.5),
    ]
    s = alpacaeval_win_scores(ann)
    assert s["q1"] == pytest.approx(0.75) and s["q2"] == pytest.approx(0.25)
    assert np.isnan(s["q3"]) and np.isnan(s["q4"])


def test_build_alpacaeval_from_raw_matches_stored(data_dir):
    raw = data_dir / "alpacaeval" / "raw"
    files = {p.name.split("__")[0]: p for p in raw.glob("*.json")}
    built = build_alpacaeval(files)
    with np.load(data_dir / "alpacaeval" / "alpacaeval2_weighted_gpt4_turbo.npz") as z:
        stored = dict(scores=z["scores"], row_ids=list(z["row_ids"]), col_ids=list(z["col_ids"]))
    assert list(built["col_ids"]) == stored["col_ids"]
    for i, name in enumerate(built["row_ids"]):
        j = stored["row_ids"].index(name)
        np.testing.assert_allclose(built["scores"][i], stored["scores"][j], equal_nan=True, atol=1e-6)
    assert json.loads((raw / next(iter(files.values())).name).read_text())


def test_build_factors_from_raw_matches_stored(data_dir):
    raw = data_dir / "wu2026_factors" / "raw"
    built = build_factors(raw / "mmlu-pro__U_nfobs=None_p=1.0.pt", raw / "mmlu-pro__V_nfobs=None_p=1.0.pt")
    with np.load(data_dir / "wu2026_factors" / "mmlu_pro.npz") as z:
        np.testing.assert_array_equal(built["U"], z["U"])
        np.testing.assert_array_equal(built["V"], z["V"])


def test_every_registered_dataset_loads(data_dir, monkeypatch):
    monkeypatch.setenv("PAPERLIB_DATA", str(data_dir))
    data.load.cache_clear()
    for name, info in data.registry().items():
        if name.startswith("bench"):
            continue
        mat = data.load(name)
        assert mat.kind == info.kind
        assert mat.shape[0] <= info.shape[0] and mat.shape[1] <= info.shape[1]
        # the shape every page quotes is the one the experiments read (issue 73: 57 x 805 vs 57 x 797)
        assert mat.shape == info.used_shape, (name, mat.shape, info.used_shape)
        assert (info.used is None) == (mat.shape == info.shape), name  # used_shape written only where it differs
        assert np.isfinite(mat.scores).all() and mat.scores.min() >= 0 and mat.scores.max() <= 1
    gaming = {"NullModel", "gpt4_gamed"}
    assert gaming <= set(data.load("alpacaeval2").row_ids)
    assert not gaming & set(data.load("alpacaeval2_clean").row_ids)
