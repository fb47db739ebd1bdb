"""Score matrices from lm-evaluation-harness per-sample logs (`paperlib data import lm-eval`). The sample files are
written here in the format lm-eval documents for --log_samples: one JSON line per document and filter with doc_id,
doc, target, arguments, resps, filtered_resps, filter, metrics, doc_hash, prompt_hash, target_hash and each metric's
value under its own name."""

import gzip
import json
import subprocess
import sys

import numpy as np
import pytest

from paperlib.data.harness import HarnessLogError, lm_eval_matrix, read_lm_eval_samples
from paperlib.data.matrix import load_npz


def write_samples(folder, task, correct, filters=("strict-match", "flexible-extract"), gz=False, extra=None):
    """One model's samples file: document i is right under every filter when correct[i]; exact_match scores it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (f"samples_{task}_2026-11-24T10-00-00.000001.jsonl" + (".gz" if gz else ""))
    lines = []
    for i, ok in enumerate(correct):
        for f in filters:
            rec = {"doc_id": i, "doc": {"question": f"q{i}", "answer": str(i)}, "target": str(i),
                   "arguments": {"gen_args_0": {"arg_0": f"q{i}", "arg_1": {"until": ["\n"]}}},
                   "resps": [[f"The answer is {i if ok else -1}"]], "filtered_resps": [str(i if ok else -1)],
                   "filter": f, "metrics": ["exact_match"], "doc_hash": f"d{i}", "prompt_hash": f"p{i}",
                   "target_hash": f"t{i}", "exact_match": float(ok)}
            lines.append(json.dumps({**rec, **(extra or {})}))
    text = "\n".join(lines) + "\n"
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


def test_three_models_become_a_matrix_with_the_chosen_filter(tmp_path):
    rng = np.random.default_rng(0)
    truth = {m: rng.random(50) < p for m, p in (("llama", 0.7), ("qwen", 0.5), ("phi", 0.3))}
    for m, c in truth.items():
        write_samples(tmp_path / m, "gsm8k", c, gz=(m == "phi"))
    mat = lm_eval_matrix({m: tmp_path / m for m in truth}, filter="strict-match")
    assert mat.shape == (3, 50) and mat.row_ids == ("llama", "qwen", "phi")
    assert mat.col_ids[:3] == ("0", "1", "2")
    for i, m in enumerate(truth):
        assert np.array_equal(mat.scores[i], truth[m].astype(float))
    assert mat.meta["metric"] == "exact_match" and mat.meta["filter"] == "strict-match"


def test_ambiguous_or_bad_logs_are_refused_naming_the_problem(tmp_path):
    write_samples(tmp_path / "a", "gsm8k", [True, False])
    with pytest.raises(HarnessLogError, match="several filters"):
        read_lm_eval_samples(tmp_path / "a")
    bad = write_samples(tmp_path / "b", "gsm8k", [True], filters=("none",), extra={"exact_match": 3.0})
    with pytest.raises(HarnessLogError, match=r"samples_gsm8k.*:1: exact_match = 3.0 is not a score"):
        read_lm_eval_samples(bad)
    dup = tmp_path / "c" / "samples_gsm8k_x.jsonl"
    dup.parent.mkdir()
    line = json.dumps({"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0})
    dup.write_text(line + "\n" + line + "\n")
    with pytest.raises(HarnessLogError, match=":2: doc_id 0 appears twice"):
        read_lm_eval_samples(dup)
    write_samples(tmp_path / "d", "arc", [True], filters=("none",))
    write_samples(tmp_path / "d", "gsm8k", [True], filters=("none",))
    with pytest.raises(HarnessLogError, match="several tasks"):
        read_lm_eval_samples(tmp_path / "d")
    assert read_lm_eval_samples(tmp_path / "d", task="arc")[0] == {"0": 1.0}


def test_models_that_scored_different_documents_need_intersect(tmp_path):
    write_samples(tmp_path / "x", "t", [True] * 10, filters=("none",))
    write_samples(tmp_path / "y", "t", [False] * 8, filters=("none",))
    with pytest.raises(HarnessLogError, match="different documents"):
        lm_eval_matrix({"x": tmp_path / "x", "y": tmp_path / "y"})
    mat = lm_eval_matrix({"x": tmp_path / "x", "y": tmp_path / "y"}, intersect=True)
    assert mat.shape == (2, 8) and mat.meta["dropped_documents"] == 2


def test_the_command_writes_a_matrix_simulate_reads(tmp_path):
    rng = np.random.default_rng(1)
    for m, p in (("a", 0.8), ("b", 0.6), ("c", 0.4)):
        write_samples(tmp_path / m, "mmlu", rng.random(120) < p, filters=("none",))
    out = tmp_path / "m.npz"
    r = subprocess.run([sys.executable, "-m", "paperlib", "data", "import", "lm-eval", "--model", f"a={tmp_path / 'a'}",
                        "--model", f"b={tmp_path / 'b'}", "--model", f"c={tmp_path / 'c'}", "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "3 models x 120 documents, exact_match (none)" in r.stdout
    mat = load_npz(out)
    assert mat.shape == (3, 120) and mat.kind == "real" and mat.row_ids == ("a", "b", "c")
    sim = subprocess.run([sys.executable, "-m", "paperlib", "simulate", "--scores", str(out), "--method", "ucbe",
                          "--budget-frac", "0.5", "--json", str(tmp_path / "s.json"), "--quiet"],
                         capture_output=True, text=True)
    assert sim.returncode == 0, sim.stderr
    bad = subprocess.run([sys.executable, "-m", "paperlib", "data", "import", "lm-eval", "--model", "a", "--out",
                          str(tmp_path / "z.npz")], capture_output=True, text=True)
    assert bad.returncode != 0 and "NAME=PATH" in bad.stderr
