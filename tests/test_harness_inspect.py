"""Score matrices from inspect_ai eval logs (`paperlib data import inspect`). The logs are written here by inspect_ai
itself: a real `inspect_ai.eval` of a small task on its offline mock model, with a solver that answers from a table
(no model call), scored by inspect_ai's `match` scorer; the import reads them back with inspect_ai's reader."""

import subprocess
import sys

import numpy as np
import pytest

inspect_ai = pytest.importorskip("inspect_ai", reason="the inspect extra (pip install 'paperlib[inspect]')")

from paperlib.data.harness import HarnessLogError, inspect_matrix, read_inspect_log  # noqa: E402
from paperlib.data.matrix import load_npz  # noqa: E402


def write_log(folder, correct, epochs=1, ids=None, flip_epoch2=()):
    """One model's eval log: sample i is answered right when correct[i] (in epoch 2, wrong for ids in flip_epoch2)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import match
    from inspect_ai.solver import solver

    ids = ids or [f"s{i}" for i in range(len(correct))]
    truth = {sid: ("yes" if i % 2 else "no") for i, sid in enumerate(ids)}

    @solver
    def table():
        async def solve(state, generate):
            sid = str(state.sample_id)
            right = correct[ids.index(sid)] != (state.epoch == 2 and sid in flip_epoch2)
            answer = truth[sid] if right else ("no" if truth[sid] == "yes" else "yes")
            state.output = ModelOutput.from_content(model="mockllm/model", content=answer)
            return state
        return solve

    data = [Sample(input=f"question {sid}", target=truth[sid], id=sid) for sid in ids]
    log, = inspect_eval(Task(dataset=data, solver=table(), scorer=match(), epochs=epochs), model="mockllm/model",
                        log_dir=str(folder), display="none")
    assert log.status == "success"
    return log.location


def test_logs_become_the_matrix_of_their_answers(tmp_path):
    rng = np.random.default_rng(0)
    truth = {m: rng.random(12) < p for m, p in (("llama", 0.8), ("qwen", 0.5), ("phi", 0.2))}
    paths = {m: write_log(tmp_path / m, list(c)) for m, c in truth.items()}
    mat = inspect_matrix({m: tmp_path / m for m in truth})
    assert mat.shape == (3, 12) and mat.kind == "real" and mat.row_ids == ("llama", "qwen", "phi")
    cols = [int(c[1:]) for c in mat.col_ids]
    np.testing.assert_array_equal(mat.scores, np.array([truth[m][cols] for m in truth], dtype=np.float32))
    assert mat.meta["metric"] == "match" and mat.meta["logged_models"]["qwen"] == "mockllm/model"
    scores, scorer, model = read_inspect_log(paths["phi"])
    assert scorer == "match" and model == "mockllm/model" and sum(scores.values()) == truth["phi"].sum()


def test_epochs_are_averaged_and_samples_must_match(tmp_path):
    write_log(tmp_path / "a", [True] * 4, epochs=2, flip_epoch2={"s1"})
    scores, _, _ = read_inspect_log(tmp_path / "a")
    assert scores == {"s0": 1.0, "s1": 0.5, "s2": 1.0, "s3": 1.0}
    write_log(tmp_path / "b", [True, False, True], ids=["s0", "s1", "s9"])
    with pytest.raises(HarnessLogError, match="different documents"):
        inspect_matrix({"a": tmp_path / "a", "b": tmp_path / "b"})
    mat = inspect_matrix({"a": tmp_path / "a", "b": tmp_path / "b"}, intersect=True)
    assert mat.shape == (2, 2) and mat.meta["dropped_documents"] == 3
    with pytest.raises(HarnessLogError, match="no scorer 'f1'"):
        read_inspect_log(tmp_path / "a", scorer="f1")
    (tmp_path / "bad.json").write_text("{\"not\": \"a log\"}")
    with pytest.raises(HarnessLogError, match="not an inspect_ai eval log"):
        read_inspect_log(tmp_path / "bad.json")
    with pytest.raises(HarnessLogError, match="no such file"):
        read_inspect_log(tmp_path / "missing.eval")


@pytest.mark.slow
def test_the_command_writes_a_matrix_simulate_reads(tmp_path):
    rng = np.random.default_rng(1)
    for m, p in (("a", 0.9), ("b", 0.5)):
        write_log(tmp_path / m, list(rng.random(40) < p))
    out = tmp_path / "m.npz"
    r = subprocess.run([sys.executable, "-m", "paperlib", "data", "import", "inspect", "--model", f"a={tmp_path / 'a'}",
                        "--model", f"b={tmp_path / 'b'}", "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "2 models x 40 documents, match" in r.stdout
    assert load_npz(out).shape == (2, 40)
    sim = subprocess.run([sys.executable, "-m", "paperlib", "simulate", "--scores", str(out), "--method", "ucbe",
                          "--budget-frac", "0.5", "--json", str(tmp_path / "s.json"), "--quiet"],
                         capture_output=True, text=True)
    assert sim.returncode == 0, sim.stderr
    bad = subprocess.run([sys.executable, "-m", "paperlib", "data", "import", "inspect", "--model", f"a={tmp_path / 'a'}",
                          "--model", f"b={tmp_path / 'b'}", "--task", "x", "--out", str(tmp_path / "z.npz")],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "--task and --filter are lm-eval's" in bad.stderr
