"""An inspect_ai task as a live search's scorer (`paperlib.inspect_bridge.InspectScorer`), offline: inspect_ai's
mock model, a solver that answers from a table of (model, sample) -> right or wrong (no model call), and inspect_ai's
`match` scorer. The search must find the model the table makes best, with every score inspect_ai's own."""

import json

import numpy as np
import pytest

inspect_ai = pytest.importorskip("inspect_ai", reason="the inspect extra (pip install 'paperlib[inspect]')")

import paperlib  # noqa: E402
from paperlib.inspect_bridge import InspectScorer  # noqa: E402

MODELS = ["mockllm/a", "mockllm/b", "mockllm/c"]
IDS = [f"s{i}" for i in range(60)]
RATE = {"mockllm/a": 0.35, "mockllm/b": 0.9, "mockllm/c": 0.5}
RIGHT = {(m, sid): bool(np.random.default_rng([k, i]).random() < RATE[m])
         for k, m in enumerate(MODELS) for i, sid in enumerate(IDS)}


def make_task(broken=()):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import match
    from inspect_ai.solver import solver

    @solver
    def table():
        async def solve(state, generate):
            key = (str(state.model), str(state.sample_id))
            if key in broken:
                raise RuntimeError(f"broken sample {key}")
            state.output = ModelOutput.from_content(model=key[0], content="yes" if RIGHT[key] else "no")
            return state
        return solve

    return Task(dataset=[Sample(input=f"question {sid}", target="yes", id=sid) for sid in IDS], solver=table(),
                scorer=match(), name="table")


@pytest.mark.slow
def test_a_search_on_an_inspect_task_finds_the_best_model_with_inspects_own_scores(tmp_path):
    scorer = InspectScorer(make_task(), log_dir=str(tmp_path / "logs"))
    out = paperlib.search(MODELS, IDS, scorer, tmp_path / "j.jsonl", method="lucb", delta=0.1, workers=4)
    assert out["best"] == "mockllm/b" and out["certified"]
    lines = [json.loads(x) for x in (tmp_path / "j.jsonl").read_text().splitlines()]
    asked = {}
    for rec in lines:
        if rec["type"] == "ask":
            for t, (i, j) in enumerate(rec["pairs"]):
                asked[(rec["request"], t)] = (MODELS[i], IDS[j])
    scores = [(asked[(r["request"], r["index"])], r["score"]) for r in lines if r["type"] == "score"]
    assert scores and all(s == float(RIGHT[pair]) for pair, s in scores)  # C = 1, I = 0
    assert len(scores) == out["calls"] < len(MODELS) * len(IDS)
    assert lines[0]["meta"]["scorer"] == "inspect_ai:table"
    assert scorer.evals < out["calls"]  # pairs queued while an eval ran went into the next one
    logs = list((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == scorer.evals  # every paid call is also in an inspect log


def test_a_sample_that_errors_is_that_pairs_failure_only(tmp_path):
    broken = {("mockllm/a", "s3")}
    scorer = InspectScorer(make_task(broken), log_dir=str(tmp_path / "logs"))
    assert scorer("mockllm/b", "s1") == float(RIGHT[("mockllm/b", "s1")])
    with pytest.raises(RuntimeError, match="no score for sample 's3'"):
        scorer("mockllm/a", "s3")
    with pytest.raises(ValueError, match="chosen by the search"):
        InspectScorer(make_task(), sample_id=["s1"])
