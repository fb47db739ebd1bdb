"""`paperlib data fetch` through its real download path, against upstream-format files served from a local
HTTP server on 127.0.0.1 (fixtures written by the tests, and the raw upstream samples in the shared data)."""

import functools
import http.server
import json
import os
import pickle
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from paperlib import data
from paperlib.data.build import load_array_pickle
from paperlib.data.digest import content_sha256
from paperlib.data.fetch import FetchError, fetch, url_for
from paperlib.data.registry import entries, upstream
from paperlib.data.registry import status as registry_status

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def server(tmp_path):
    """A static file server on 127.0.0.1 over ``tmp_path/srv``; yields (root folder, base URL, request log)."""
    root = tmp_path / "srv"
    root.mkdir()
    log = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt, *args):
            log.append(self.path)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}", log
    httpd.shutdown()
    httpd.server_close()


def serve(root: Path, name: str, rel: str) -> Path:
    """Where the server must hold upstream file ``rel`` of dataset ``name`` (mirror layout: the URL path)."""
    url = url_for(upstream(name).base, rel, mirror="http://x")
    p = root / url.split("http://x/", 1)[1]
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


@pytest.fixture
def isolated(monkeypatch, tmp_path):
    """No shared data, an empty cache: only what a fetch writes can be loaded."""
    monkeypatch.delenv("PAPERLIB_DATA", raising=False)
    monkeypatch.setenv("PAPERLIB_CACHE", str(tmp_path / "cache"))
    data.load.cache_clear()
    yield tmp_path / "cache"
    data.load.cache_clear()


def test_url_for_mirror_keeps_the_pinned_path():
    base = "https://raw.githubusercontent.com/o/r/0123abcd/"
    assert url_for(base, "a/b.pkl") == "https://raw.githubusercontent.com/o/r/0123abcd/a/b.pkl"
    assert url_for(base, "a/b.pkl", "http://127.0.0.1:9/m/") == "http://127.0.0.1:9/m/o/r/0123abcd/a/b.pkl"


def test_every_file_dataset_names_its_upstream_and_a_fix():
    for name, e in entries().items():
        if "generator" in e and e["generator"].get("type") == "low-rank-logistic":
            continue
        up = e.get("upstream")
        assert up and "/" in up["base"] and up["files"], name
        commit = up["base"].rstrip("/").split("/")[-1]
        assert len(commit) == 40 and set(commit) <= set("0123456789abcdef"), name
        assert "paperlib data fetch" in e["obtain"] or "no builder" in e["obtain"], name


def test_content_digest_ignores_storage_dtype_but_not_values():
    a = np.array([[0, 1], [1, 1]], dtype=np.uint8)
    ids = dict(row_ids=np.array(["a", "b"]), col_ids=np.array(["x", "y"]))
    assert content_sha256(dict(scores=a, **ids)) == content_sha256(dict(scores=a.astype(np.float32), **ids))
    b = a.copy()
    b[0, 0] = 1
    assert content_sha256(dict(scores=a, **ids)) != content_sha256(dict(scores=b, **ids))
    assert content_sha256(dict(scores=a, **ids)) != content_sha256(dict(scores=a, row_ids=ids["col_ids"],
                                                                        col_ids=ids["row_ids"]))


def test_array_only_unpickler_refuses_code(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    p = tmp_path / "evil.pkl"
    p.write_bytes(pickle.dumps(Evil()))
    with pytest.raises(pickle.UnpicklingError, match="only numpy arrays"):
        load_array_pickle(p)
    assert not marker.exists()
    q = tmp_path / "ok.pkl"
    q.write_bytes(pickle.dumps(np.eye(3), protocol=5))
    np.testing.assert_array_equal(load_array_pickle(q), np.eye(3))


def test_unregistered_matrix_is_refused_and_nothing_cached(server, isolated):
    """A served file whose built arrays differ from the registered ones (here: random 0/1 values in the place
    of sysrs_gsm) is refused; the download is deleted and nothing is written."""
    root, url, _ = server
    rel = next(iter(upstream("sysrs_gsm").files))
    fake = np.random.default_rng(0).integers(0, 2, size=(80, 1000)).astype(np.uint8)
    serve(root, "sysrs_gsm", rel).write_bytes(pickle.dumps(fake))
    with pytest.raises(FetchError, match="differs from the registered one.*paperlib data fetch sysrs_gsm"):
        fetch("sysrs_gsm", mirror=url, progress=False)
    assert not (isolated / entries()["sysrs_gsm"]["file"]).exists()
    assert not any(p.is_file() for p in (isolated / "upstream").rglob("*"))


def test_download_failure_names_the_fix(server, isolated):
    _, url, _ = server
    with pytest.raises(FetchError, match="--mirror"):
        fetch("sysrs_gsm", mirror=url, progress=False)


def test_sysrs_fetch_builds_the_registered_matrix(server, isolated, data_dir):
    """Upstream format: one pickled numpy array. The stored matrix, pickled as upstream does, fetched and built,
    loads through the registry with no shared data, equal to the stored one; a second fetch downloads nothing."""
    root, url, log = server
    name = "sysrs_commonsense"
    with np.load(data_dir / entries()[name]["file"]) as z:
        stored = z["scores"]
    serve(root, name, next(iter(upstream(name).files))).write_bytes(pickle.dumps(stored.astype(np.int64)))
    out = fetch(name, mirror=url, progress=False)
    assert out == isolated / entries()[name]["file"]
    assert registry_status(name) == "available"
    mat = data.load(name)
    np.testing.assert_array_equal(mat.scores, stored)
    n = len(log)
    assert fetch(name, mirror=url, progress=False) == out
    assert len(log) == n


def test_pinned_hash_refuses_a_corrupted_download(server, isolated, data_dir):
    """bench1's factor files have pinned SHA-256s: the real upstream files (shared data raw/) fetch and build the
    registered arrays; one flipped byte is refused by the hash check and leaves nothing in the cache."""
    root, url, _ = server
    raw = data_dir / "wu2026_factors" / "raw"
    files = upstream("bench1_small").files
    for rel in files:
        shutil.copy(raw / f"mmlu-pro__{Path(rel).name}", serve(root, "bench1_small", rel))
    out = fetch("bench1_small", mirror=url, progress=False)
    with np.load(out) as z, np.load(data_dir / "wu2026_factors/mmlu_pro.npz") as ref:
        np.testing.assert_array_equal(z["U"], ref["U"])
        np.testing.assert_array_equal(z["V"], ref["V"])
    out.unlink()
    shutil.rmtree(isolated / "upstream")
    rel = next(iter(files))
    p = serve(root, "bench1_small", rel)
    b = bytearray(p.read_bytes())
    b[len(b) // 2] ^= 0xFF
    p.write_bytes(bytes(b))
    with pytest.raises(FetchError, match="pinned SHA-256.*nothing was cached"):
        fetch("bench1_small", mirror=url, progress=False)
    assert not out.exists()
    assert not (isolated / "upstream" / "bench1_small" / rel.replace("/", "__")).exists()


def _livecodebench_upstream(stored) -> dict:
    """The leaderboard's JSON layout (`performances` records, dates in ms since the epoch) from the stored matrix."""
    import datetime as dt

    def ms(day):
        return int(dt.datetime.fromisoformat(day).replace(tzinfo=dt.timezone.utc).timestamp() * 1000)

    s, rows, cols = stored["scores"], stored["row_ids"], stored["col_ids"]
    recs = [{"question_id": str(c), "model": str(r), "date": ms(stored["col_dates"][j]),
             "difficulty": str(stored["col_difficulty"][j]), "pass@1": float(round(s[i, j] * 100, 4)),
             "platform": str(stored["col_platform"][j])}
            for j, c in enumerate(cols) for i, r in enumerate(rows)]
    rng = np.random.default_rng(1)
    return {"performances": [recs[k] for k in rng.permutation(len(recs))]}


def test_livecodebench_fetch_matches_registered_content(server, isolated, data_dir):
    root, url, _ = server
    name = "livecodebench_gen_45"
    with np.load(data_dir / entries()[name]["file"]) as z:
        stored = {k: z[k] for k in z.files}
    serve(root, name, next(iter(upstream(name).files))).write_text(json.dumps(_livecodebench_upstream(stored)))
    out = fetch(name, mirror=url, progress=False)
    with np.load(out) as z:
        for k in ("col_ids", "col_dates", "col_difficulty", "col_platform", "row_ids"):
            np.testing.assert_array_equal(z[k], stored[k])
    assert registry_status(name) == "available"


@pytest.mark.slow
def test_mmlupro_fetch_from_zips_matches_registered_content(server, isolated, data_dir):
    """29 upstream zips (one JSON list of records each, letters A-J, null preds, missing questions) written from
    the stored matrix: the built matrix has the registered content digest, categories and null fractions."""
    root, url, _ = server
    name = "tiger_mmlupro_29"
    with np.load(data_dir / entries()[name]["file"]) as z:
        st = {k: z[k] for k in z.files}
    rng = np.random.default_rng(2)
    qids = [int(c.removeprefix("mmlupro_q")) for c in st["col_ids"]]
    for i, model in enumerate(st["row_ids"]):
        present = np.flatnonzero(~np.isnan(st["scores"][i]))
        n_none = int(round(st["row_pred_none_frac"][i] * len(present)))
        wrong = present[st["scores"][i, present] == 0]
        nulls = set(rng.choice(wrong, size=min(n_none, len(wrong)), replace=False).tolist())
        recs = [{"question_id": qids[j], "category": str(st["col_category"][j]), "answer": "C",
                 "pred": None if j in nulls else ("C" if st["scores"][i, j] == 1 else "F")} for j in present]
        rel = f"eval_results/model_outputs_{model}_5shots.zip"
        with zipfile.ZipFile(serve(root, name, rel), "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(f"model_outputs_{model}_5shots.json", json.dumps(recs + ["a stray non-record entry"]))
    out = fetch(name, mirror=url, progress=False)
    with np.load(out) as z:
        np.testing.assert_array_equal(z["col_category"], st["col_category"])
        np.testing.assert_allclose(z["row_pred_none_frac"], st["row_pred_none_frac"], atol=1e-3)
    assert registry_status(name) == "available"


def test_cli_fetch_through_the_mirror(server, tmp_path, data_dir):
    root, url, _ = server
    name = "sysrs_math"
    with np.load(data_dir / entries()[name]["file"]) as z:
        stored = z["scores"]
    serve(root, name, next(iter(upstream(name).files))).write_bytes(pickle.dumps(stored))
    env = {k: v for k, v in os.environ.items() if k != "PAPERLIB_DATA"}
    env["PAPERLIB_MIRROR"] = url
    dest = tmp_path / "dest"
    r = subprocess.run([sys.executable, "-m", "paperlib", "data", "fetch", name, "--dest", str(dest), "--quiet"],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert str(dest / entries()[name]["file"]) in r.stdout
    r = subprocess.run([sys.executable, "-m", "paperlib", "data", "fetch"], capture_output=True, text=True,
                       env=env, cwd=ROOT)
    assert r.returncode == 2 and "--all" in r.stderr


@pytest.mark.parametrize("name, task", [("zeroeval_gsm8k", "gsm"), ("zeroeval_math_l5", "math-l5")])
def test_zeroeval_fetch_rebuilds_the_registered_matrix(server, isolated, data_dir, name, task):
    """ZeroEval's layout (one JSON list per model: id, output with a ```json block, gold answer), written from the
    stored matrix with the cases the scoring rule must handle: a wrong answer, an answer only a regex finds
    (invalid JSON), a fraction, thousands separators, a missing answer, a question the model never saw."""
    root, url, _ = server
    with np.load(data_dir / entries()[name]["file"]) as z:
        st = {k: z[k] for k in z.files}
    rng = np.random.default_rng(3)
    for i, model in enumerate(st["row_ids"]):
        recs = []
        for j, c in enumerate(st["col_ids"]):
            v = st["scores"][i, j]
            if np.isnan(v):
                continue
            gold = 1000 + j
            if v == 1:
                form = rng.integers(3)
                out = ['```json\n{"reasoning": "ok", "answer": "%d"}\n```' % gold,
                       '```json\n{"reasoning": "line\nbreak", "answer": "$%s"}\n```' % f"{gold:,}",
                       'text {"answer": %d} more' % gold][form]
            else:
                out = ['```json\n{"reasoning": "no", "answer": "%d"}\n```' % (gold + 1), "ran out of tokens"][
                    int(rng.integers(2))]
            rec = {"output": [out], "generator": str(st["row_generator"][i])}
            if task == "gsm":
                rec.update(session_id=str(c), answer=f"# {gold}")
            else:
                rec.update(id=int(str(c).removeprefix("math-l5-")), answer=str(gold))
            recs.append(rec)
        serve(root, name, f"result_dirs/{task}/{model}.json").write_text(json.dumps(recs))
    out = fetch(name, mirror=url, progress=False)
    with np.load(out) as z:
        np.testing.assert_array_equal(z["row_generator"], st["row_generator"])
    assert registry_status(name) == "available"


def test_closerlook_fetch_parses_judge_texts_into_the_registered_tensor(server, isolated, data_dir):
    """Topical-Chat items and the 28 result files in the source's layout, written from the stored tensor with
    every answer form the parser must read (bare number, 'Rating: x', '<Attribute> (1-3): x', a closing
    'Score: x' line) and unparsable answers where the tensor has NaN; items a file lacks stay NaN."""
    from paperlib.data.build import CLOSERLOOK_ATTRIBUTES, CLOSERLOOK_VARIANTS
    from paperlib.data.judge_pools import load_closerlook

    root, url, _ = server
    name = "closerlook_topicalchat"
    with np.load(data_dir / "closerlook_topicalchat/scores_tensor.npz") as z:
        st = {k: z[k] for k in z.files}
    attrs = [str(a) for a in st["attributes"]]
    items = [{"source": f"dialogue {i // 6}", "system_id": f"system {i % 6}", "system_output": f"response {i}",
              "context": "fact", "scores": {a: float(st["human"][i, k]) for k, a in enumerate(attrs)}}
             for i in range(st["scores"].shape[2])]
    serve(root, name, "data/topical_chat.json").write_text(json.dumps(items))
    rng = np.random.default_rng(4)
    for v, variant in enumerate(CLOSERLOOK_VARIANTS):
        for a, attr in enumerate(attrs):
            recs = []
            for i, it in enumerate(items):
                vals = st["scores"][v, a, i]
                if np.isnan(vals).all():
                    continue
                forms = ("{:g}", "Rating: {:g}", attr.capitalize() + " (1-3): {:g}", "Because...\n\nScore: {:g}")
                answers = ["I cannot rate this." if np.isnan(x) else forms[int(rng.integers(4))].format(float(x))
                           for x in vals]
                recs.append({**{k: it[k] for k in ("source", "system_id", "system_output")}, "all_responses": answers})
            code = CLOSERLOOK_ATTRIBUTES[attr][0]
            serve(root, name, f"results/topical_chat/gpt3.5_{code}_{variant}.json").write_text(json.dumps(recs))
    fetch(name, mirror=url, progress=False)
    from paperlib.data import judge_pools

    judge_pools._verified.clear()
    pool = load_closerlook("rate_explain", "coherence")
    assert pool.kind == "real" and pool.K > 300


def test_llmrubric_fetch_melts_the_tsvs_into_the_registered_tables(server, isolated, data_dir):
    import pandas as pd

    from paperlib.data.judge_pools import load_llmrubric

    root, url, _ = server
    name = "llmrubric_dist"
    llm = pd.read_csv(data_dir / "llmrubric_dist/llm_score_distributions.csv.gz")
    hum = pd.read_csv(data_dir / "llmrubric_dist/human_ratings.csv.gz")
    base = "data/{0}_data/"
    for split in ("synth", "real"):
        d = llm[llm.split == split].drop(columns=["split", "expected_score", "score_variance"])
        d.to_csv(serve(root, name, base.format(split) + f"gpt-3.5-turbo-16k_{split}_evaluations_FIXED.tsv"),
                 sep="\t", index=False)
        h = hum[hum.split == split]
        blocks = {c: g.reset_index(drop=True) for c, g in h.groupby("criterion", sort=False)}
        wide = blocks["Q0"][["round", "text_id", "annotator_id", "dialogue_system"]].copy()
        for q in [f"Q{k}" for k in (1, 2, 3, 4, 5, 6, 7, 8, 0)]:
            wide[q] = blocks[q]["score"]
        if split == "synth":
            wide = wide.drop(columns="dialogue_system")
            for k in range(3):
                wide.insert(2 + k, f"DQQ{k}", 1)
            part = "human_judges_synth_all_FIXED_ANON.tsv"
        else:
            wide = wide.drop(columns="round")
            wide["dialogue_system"] = wide["dialogue_system"].astype(int)
            part = "human_judges_real_convs_FIXED_ANON.tsv"
        wide.to_csv(serve(root, name, base.format(split) + part), sep="\t", index=False)
    fetch(name, mirror=url, progress=False)
    from paperlib.data import judge_pools

    judge_pools._verified.clear()
    dist = load_llmrubric("synth", "Q0")
    assert dist.kind == "real" and dist.probs.shape[1] == 4
