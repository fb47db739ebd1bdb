"""Build the stored matrices from their upstream source files (offline-testable).

Each ``build_*`` turns files in the upstream format (as pinned in ``paperlib/data/registry.yaml``,
``upstream:``) into the arrays of the stored ``.npz``, following the transformation written in the
dataset's PROVENANCE.md. Nothing here downloads: :mod:`paperlib.data.fetch` does, then calls the
builder named by the registry through :data:`BUILDERS`.
"""

from __future__ import annotations

import io
import json
import pickle
import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ALPACAEVAL_COMMIT = "cd543a149df89434d8a54582c0151c0b945c3d20"
ALPACAEVAL_URL = (
    "https://raw.githubusercontent.com/tatsu-lab/alpaca_eval/"
    + ALPACAEVAL_COMMIT
    + "/results/{model}/weighted_alpaca_eval_gpt4_turbo/annotations.json"
)
ALPACAEVAL_BASELINE = "gpt4_1106_preview"
FACTORS_COMMIT = "857ee18607bd9c84e90431ce0b8f36fc3f72ae68"
FACTORS_URL = (
    "https://raw.githubusercontent.com/skbwu/efficiently-evaluating-llms/"
    + FACTORS_COMMIT
    + "/factor_models/final/{suite}/{file}"
)


def alpacaeval_win_scores(annotations: list[dict], baseline: str = ALPACAEVAL_BASELINE) -> dict[str, float]:
    """Per-instruction win score of the non-baseline model, in [0, 1].

    ``preference`` in [1, 2] is the judge's preference for ``output_2``; the model's score is
    ``preference - 1`` when the baseline is ``generator_1`` and ``2 - preference`` when it is
    ``generator_2``. Missing or out-of-range preferences give NaN.
    """
    out = {}
    for a in annotations:
        pref = a.get("preference")
        if a.get("generator_1") == baseline:
            score = None if pref is None else pref - 1.0
        elif a.get("generator_2") == baseline:
            score = None if pref is None else 2.0 - pref
        else:
            raise ValueError(f"annotation without the baseline {baseline!r}: {a.get('generator_1')}, {a.get('generator_2')}")
        if score is None or not (0.0 <= score <= 1.0):
            score = float("nan")
        out[a["instruction"]] = float(score)
    return out


def build_alpacaeval(files: dict[str, Path], min_annotations: int = 795) -> dict[str, np.ndarray]:
    """Assemble the AlpacaEval-2 matrix from per-model annotation files.

    Parameters
    ----------
    files : dict model name -> path of ``annotations.json``
    min_annotations : models with fewer annotations are skipped.

    Returns
    -------
    dict with ``scores`` (float32, NaN = missing), ``row_ids`` (models sorted by name),
    ``col_ids`` (instructions in the order of the first complete file).
    """
    per_model, order = {}, None
    for model in sorted(files):
        ann = json.loads(Path(files[model]).read_text())
        if len(ann) < min_annotations:
            continue
        per_model[model] = alpacaeval_win_scores(ann)
        if order is None and len(ann) == 805:
            order = [a["instruction"] for a in ann]
    if not per_model:
        raise ValueError("no model file had enough annotations")
    if order is None:
        order = list(next(iter(per_model.values())))
    rows = sorted(per_model)
    scores = np.array([[per_model[r].get(c, np.nan) for c in order] for r in rows], dtype=np.float32)
    keep = ~np.isnan(scores).all(axis=1)
    return dict(scores=scores[keep], row_ids=np.array(rows)[keep], col_ids=np.array(order))


def build_factors(u_path: Path, v_path: Path) -> dict[str, np.ndarray]:
    """Convert the upstream torch-saved factor Parameters to float32 arrays ``U`` and ``V``."""
    import torch

    u = torch.load(u_path, map_location="cpu", weights_only=True)
    v = torch.load(v_path, map_location="cpu", weights_only=True)
    return dict(U=u.detach().float().numpy(), V=v.detach().float().numpy())


class _ArrayOnlyUnpickler(pickle.Unpickler):
    """Unpickler that rebuilds numpy arrays and nothing else: any other global (``os.system``,
    ``builtins.eval``, ...) is refused before it can be called."""

    ALLOWED = {
        ("numpy", "ndarray"), ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
        ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    }

    def find_class(self, module, name):
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"refused to load {module}.{name}: only numpy arrays are allowed in this file")
        return super().find_class(module, name)


def load_array_pickle(path: Path) -> np.ndarray:
    """Read a pickle that must hold one numpy array, through :class:`_ArrayOnlyUnpickler`."""
    with open(path, "rb") as fh:
        obj = _ArrayOnlyUnpickler(fh).load()
    if not isinstance(obj, np.ndarray) or obj.ndim != 2:
        raise ValueError(f"{path}: expected one 2-D numpy array, found {type(obj).__name__}")
    return obj


def build_sysrs(pkl: Path) -> dict[str, np.ndarray]:
    """SySRs benchmark matrix (``datasets/<name>/model_accuracies_filtered.pkl``): values unchanged,
    0/1 matrices as uint8 else float32; rows ``rankNNN`` (upstream rows are sorted by decreasing mean),
    columns ``qNNNNN`` (sysrs_* PROVENANCE.md)."""
    a = load_array_pickle(pkl)
    binary = not (a.dtype.kind == "f" and np.isnan(a).any()) and bool(np.isin(a, (0, 1)).all())
    scores = a.astype(np.uint8) if binary else a.astype(np.float32)
    n, m = scores.shape
    return dict(scores=scores, row_ids=np.array([f"rank{i:03d}" for i in range(n)]),
                col_ids=np.array([f"q{j:05d}" for j in range(m)]))


def _matrix(cells: dict, rows: list, cols: list) -> np.ndarray:
    """float32 (rows x cols) matrix from ``{row: {col: value}}``; NaN where a row has no value for a column."""
    ci = {c: j for j, c in enumerate(cols)}
    scores = np.full((len(rows), len(cols)), np.nan, dtype=np.float32)
    for i, r in enumerate(rows):
        got = cells.get(r, {})
        if got:
            scores[i, [ci[c] for c in got]] = list(got.values())
    return scores


def _iso_day(ms) -> str:
    return datetime.fromtimestamp(int(ms) / 1000, tz=timezone.utc).strftime("%Y-%m-%d")


def build_livecodebench(path: Path) -> dict[str, np.ndarray]:
    """LiveCodeBench leaderboard records (``performances_generation.json``): score = pass@1 / 100;
    rows = models sorted by name, columns = problems sorted by release date then id
    (livecodebench_gen_45 PROVENANCE.md)."""
    doc = json.loads(Path(path).read_text())
    recs = doc["performances"]
    rows = sorted({r["model"] for r in recs})
    problems = {r["question_id"]: (int(r["date"]), r["difficulty"], r["platform"]) for r in recs}
    cols = sorted(problems, key=lambda q: (problems[q][0], q))
    cells: dict = {}
    for r in recs:
        cells.setdefault(r["model"], {})[r["question_id"]] = float(r["pass@1"]) / 100.0
    out = dict(scores=_matrix(cells, rows, cols), row_ids=np.array(rows), col_ids=np.array(cols),
               col_dates=np.array([_iso_day(problems[c][0]) for c in cols]),
               col_difficulty=np.array([problems[c][1] for c in cols]),
               col_platform=np.array([problems[c][2] for c in cols]))
    models = {m.get("model_repr"): m for m in doc.get("models", []) if isinstance(m, dict)}
    if all(r in models for r in rows):
        out["row_dates"] = np.array([_iso_day(models[r]["release_date"]) if models[r].get("release_date") else ""
                                     for r in rows])
        out["row_model_name"] = np.array([str(models[r].get("model_name", "")) for r in rows])
    return out


def build_mmlupro(files: dict[str, Path]) -> dict[str, np.ndarray]:
    """MMLU-Pro per-question outcomes (``eval_results/model_outputs_<model>_5shots.zip``): score = 1 if the
    extracted ``pred`` letter equals ``answer``, a null ``pred`` scores 0, questions missing from a model's
    file are NaN; rows = models in the order of their zip names (so ``X-Instruct_5shots`` sorts before
    ``X_5shots``), columns = question ids in numeric order (tiger_mmlupro_29 PROVENANCE.md)."""
    per_model, category, none_frac = {}, {}, []
    for rel, path in sorted(files.items(), key=lambda kv: Path(kv[0]).name):
        model = Path(rel).name.removeprefix("model_outputs_").removesuffix(".zip").removesuffix("_5shots")
        with zipfile.ZipFile(path) as zf:
            members = [n for n in zf.namelist() if n.endswith(".json")]
            if len(members) != 1:
                raise ValueError(f"{rel}: expected one .json file in the zip, found {members}")
            recs = json.load(io.TextIOWrapper(zf.open(members[0]), encoding="utf-8"))
        got, null = {}, {}
        for r in recs:
            if not isinstance(r, dict) or "question_id" not in r:
                continue
            q = int(r["question_id"])
            category.setdefault(q, r.get("category", ""))
            got[q] = float(r.get("pred") == r.get("answer"))
            null[q] = r.get("pred") is None
        per_model[model] = got
        none_frac.append(sum(null.values()) / len(null) if null else 0.0)
    rows, cols = list(per_model), sorted(category)
    return dict(scores=_matrix(per_model, rows, cols), row_ids=np.array(rows), col_ids=np.array([f"mmlupro_q{q}" for q in cols]),
                col_category=np.array([category[q] for q in cols]),
                row_pred_none_frac=np.array(none_frac, dtype=np.float32))


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_FRACTION = re.compile(r"^\s*(-?\d+)\s*/\s*(\d+)\s*$")


def _zeroeval_answer(text: str, boxed: bool) -> str | None:
    """The ``answer`` of the JSON object in a ZeroEval output: json-decoded from the last ```json block, else from
    the outermost ``{...}``; else a regex on ``"answer": ...``; for MATH (``boxed``) last the content of the last
    ``\\boxed{...}``."""
    blocks = re.findall(r"```json\s*(.*?)```", text, re.S)
    cands = [blocks[-1]] if blocks else []
    if "{" in text and "}" in text:
        cands.append(text[text.find("{"): text.rfind("}") + 1])
    for cand in cands:
        try:
            obj = json.loads(cand)
        except (ValueError, TypeError):
            continue
        if isinstance(obj, dict) and obj.get("answer") is not None:
            return str(obj["answer"])
    m = re.findall(r'"answer"\s*:\s*"?([^"\n}]*)', text)
    if m:
        return m[-1]
    if boxed:
        b = re.findall(r"\\boxed\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", text)
        if b:
            return b[-1]
    return None


def _zeroeval_number(s, fractions: bool) -> float | None:
    """The first number of ``s`` after removing ``$`` and ``,`` (a pure ``a/b`` first turned into a decimal)."""
    if s is None:
        return None
    s = str(s).replace("$", "").replace(",", "")
    f = _FRACTION.match(s) if fractions else None
    if f and int(f.group(2)) != 0:
        return int(f.group(1)) / int(f.group(2))
    m = _NUMBER.search(s)
    return float(m.group()) if m else None


def build_zeroeval(files: dict[str, Path], task: str) -> dict[str, np.ndarray]:
    """ZeroEval per-model result files (``result_dirs/<task>/<model>.json``): 1 when the first number of the
    model's JSON ``answer`` equals the first number of the gold answer (GSM8K: the text after ``#``), else 0;
    no answer scores 0; rows = file stems sorted by name, columns = question ids in numeric order, NaN where a
    model has no record (zeroeval_gsm8k / zeroeval_math_l5 PROVENANCE.md; re-implemented from the repository's
    documented rule, so the registry's content digest is the arbiter)."""
    math = task == "math-l5"
    per_model, gen, none_frac = {}, {}, {}
    for rel, path in sorted(files.items(), key=lambda kv: Path(kv[0]).stem):
        model = Path(rel).stem
        got, missing = {}, 0
        for r in json.loads(Path(path).read_text()):
            out = r.get("output") or [""]
            ans = _zeroeval_answer(out[0] if isinstance(out, list) else str(out), boxed=math)
            gold = str(r.get("answer", ""))
            if not math:
                gold = gold.split("#")[-1]
            a, g = _zeroeval_number(ans, math), _zeroeval_number(gold, math)
            missing += a is None
            qid = f"math-l5-{int(r['id'])}" if math else str(r.get("session_id", r.get("id")))
            got[qid] = float(a is not None and g is not None and a == g)
            gen.setdefault(model, str(r.get("generator", "")))
        per_model[model] = got
        none_frac[model] = missing / max(1, len(got))
    rows = list(per_model)
    cols = sorted({q for g in per_model.values() for q in g},
                  key=lambda q: (re.sub(r"\d+$", "", q), int(re.findall(r"\d+$", q)[0]) if re.search(r"\d+$", q) else -1))
    return dict(scores=_matrix(per_model, rows, cols), row_ids=np.array(rows), col_ids=np.array(cols),
                row_generator=np.array([gen.get(r, "") for r in rows]),
                row_no_answer_frac=np.array([none_frac[r] for r in rows], dtype=np.float32))


CLOSERLOOK_VARIANTS = ("geval", "geval_no_auto_cot", "llm_eval_no_cot", "rate_explain", "rate_explain_auto_cot",
                      "analyze_rate", "analyze_rate_auto_cot")
CLOSERLOOK_ATTRIBUTES = {"coherence": ("coh", 1, 3), "engagingness": ("eng", 1, 3), "groundedness": ("gro", 0, 1),
                         "naturalness": ("nat", 1, 3)}
_NUM = r"(-?\d+(?:\.\d+)?)"


def parse_judge_answer(text: str, attribute: str) -> float:
    """One sampled judge answer of A Closer Look (closerlook_topicalchat PROVENANCE.md, our rules, first match
    wins, lower-cased): the last ``rating: <x>``; the last ``<attribute> [(...)]: <x>``; a number at the very start
    not followed by ``-<digit>``; the last line-initial ``score:|response:|answer: <x>``; else NaN. A value
    outside the attribute's scale is NaN."""
    t = str(text).lower()
    lo, hi = CLOSERLOOK_ATTRIBUTES[attribute][1:]
    rules = (r"rating\s*:\s*" + _NUM, re.escape(attribute) + r"\s*(?:\([^)]*\))?\s*:\s*" + _NUM)
    value = None
    for rule in rules:
        m = re.findall(rule, t)
        if m:
            value = float(m[-1])
            break
    if value is None:
        m = re.match(r"\s*" + _NUM + r"(?!\s*-\s*\d)", t)
        if m:
            value = float(m.group(1))
    if value is None:
        m = re.findall(r"(?m)^\s*(?:score|response|answer)\s*:\s*" + _NUM, t)
        if m:
            value = float(m[-1])
    if value is None or not lo <= value <= hi:
        return float("nan")
    return value


def build_closerlook(files: dict[str, Path], repeats: int = 20) -> dict[str, dict]:
    """``closerlook_topicalchat/scores_tensor.npz`` from ``data/topical_chat.json`` (items, human scores) and the 28
    ``results/topical_chat/gpt3.5_<attr>_<variant>.json`` (20 sampled answers per item, parsed by
    :func:`parse_judge_answer`; items a file lacks stay NaN)."""
    items = json.loads(Path(next(p for r, p in files.items() if r.endswith("topical_chat.json"))).read_text())
    key = {(it["source"], it["system_id"], it["system_output"]): i for i, it in enumerate(items)}
    attrs = sorted(CLOSERLOOK_ATTRIBUTES)
    scores = np.full((len(CLOSERLOOK_VARIANTS), len(attrs), len(items), repeats), np.nan, dtype=np.float32)
    for v, variant in enumerate(CLOSERLOOK_VARIANTS):
        for a, attr in enumerate(attrs):
            rel = f"results/topical_chat/gpt3.5_{CLOSERLOOK_ATTRIBUTES[attr][0]}_{variant}.json"
            path = next((p for r, p in files.items() if r.endswith(rel)), None)
            if path is None:
                raise ValueError(f"missing upstream file {rel}")
            for rec in json.loads(Path(path).read_text()):
                i = key[(rec["source"], rec["system_id"], rec["system_output"])]
                answers = rec.get("all_responses", [])[:repeats]
                scores[v, a, i, :len(answers)] = [parse_judge_answer(x, attr) for x in answers]
    human = np.array([[float(it["scores"][a]) for a in attrs] for it in items], dtype=np.float32)
    arrays = dict(scores=scores, prompt_variants=np.array(CLOSERLOOK_VARIANTS), attributes=np.array(attrs),
                  human=human, human_attributes=np.array(attrs), item_ids=np.arange(len(items), dtype=np.int64))
    return {"closerlook_topicalchat/scores_tensor.npz": arrays}


def build_llmrubric(files: dict[str, Path]) -> dict[str, "object"]:
    """LLM-Rubric's TSVs (llmrubric_dist PROVENANCE.md): the judge's answer distributions of both splits with
    ``expected_score`` and ``score_variance`` added (probabilities and moments to 8 significant digits, as the
    stored copy), and the human ratings melted from wide (Q0..Q8) to long."""
    import pandas as pd

    def get(part):
        return Path(next(p for r, p in files.items() if r.endswith(part)))

    llm = []
    for split in ("synth", "real"):
        d = pd.read_csv(get(f"gpt-3.5-turbo-16k_{split}_evaluations_FIXED.tsv"), sep="\t")
        p = d[[f"answer{k}_prob" for k in range(1, 5)]].to_numpy(np.float64)
        k = np.arange(1.0, 5.0)
        d.insert(0, "split", split)
        d["expected_score"] = p @ k
        d["score_variance"] = p @ k**2 - d["expected_score"] ** 2
        cols = [f"answer{j}_prob" for j in range(1, 5)] + ["expected_score", "score_variance"]
        d[cols] = d[cols].map(lambda x: float(f"{x:.8g}"))
        llm.append(d)
    human = []
    crit = [f"Q{q}" for q in range(9)]
    for split, part in (("synth", "human_judges_synth_all_FIXED_ANON.tsv"), ("real", "human_judges_real_convs_FIXED_ANON.tsv")):
        d = pd.read_csv(get(part), sep="\t")
        for c in ("round", "dialogue_system"):
            if c not in d:
                d[c] = np.nan
        long = d.melt(id_vars=["round", "text_id", "annotator_id", "dialogue_system"], value_vars=crit,
                      var_name="criterion", value_name="score")
        long.insert(0, "split", split)
        human.append(long[["split", "round", "text_id", "annotator_id", "criterion", "score", "dialogue_system"]])
    return {"llmrubric_dist/llm_score_distributions.csv.gz": pd.concat(llm, ignore_index=True),
            "llmrubric_dist/human_ratings.csv.gz": pd.concat(human, ignore_index=True)}


def _single(files: dict[str, Path]) -> Path:
    (path,) = files.values()
    return path


def _factor_files(files: dict[str, Path]) -> dict[str, np.ndarray]:
    u = next(p for r, p in files.items() if Path(r).name.startswith("U_"))
    v = next(p for r, p in files.items() if Path(r).name.startswith("V_"))
    return build_factors(u, v)


BUILDERS = {
    "sysrs-pickle": lambda files: build_sysrs(_single(files)),
    "livecodebench-json": lambda files: build_livecodebench(_single(files)),
    "mmlupro-zips": build_mmlupro,
    "alpacaeval-annotations": lambda files: build_alpacaeval(
        {Path(r).parent.parent.name: p for r, p in files.items()}),
    "factors-pt": _factor_files,
    "zeroeval-gsm": lambda files: build_zeroeval(files, "gsm"),
    "zeroeval-math-l5": lambda files: build_zeroeval(files, "math-l5"),
    "closerlook-json": build_closerlook,
    "llmrubric-tsv": build_llmrubric,
}
"""Builder name (``upstream.builder`` in the registry) -> function of {upstream path: local file}."""
