"""The cheapest good model (issue 42): the certificate's logic on hand-set intervals, its error rate against delta,
the yardsticks, and the objective through Study, search and the command line.

Expected values come from the definitions (module docstring of paperlib.policies.cheapest) and closed forms, never
from the code's own output.
"""

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import torch

from paperlib.beyond.search.cheapest import (
    acceptable,
    answer_distances,
    cheapest_lower_bound,
    gaussian_characteristic_time,
    kl_bernoulli,
    oracle_cheapest_spend,
)
from paperlib.data.matrix import ScoreMatrix
from paperlib.policies import make_policy
from paperlib.simulate import simulate
from paperlib.stats import clopper_pearson


def policy_with(lower, upper, costs, epsilon=0.1, gamma=None):
    p = make_policy("lucb-cheap", len(costs), 100, 300, reps=1, seed=0, device="cpu", costs=costs, epsilon=epsilon,
                    gamma=gamma)
    p.cs.lower = torch.tensor([lower], dtype=torch.float64)
    p.cs.upper = torch.tensor([upper], dtype=torch.float64)
    p.counts += 1
    return p


def test_certificate_follows_its_definition_on_hand_set_intervals():
    # prices: model 2 cheapest, then 0, then 1 (the best); epsilon 0.1, gamma 0.05
    costs = [1.0, 5.0, 0.1]
    # model 2: U = 0.70 < L* - 0.05 = 0.80 - 0.05 -> ruled out; model 0: L = 0.75 >= U* - 0.1 = 0.85 - 0.1 -> in
    p = policy_with([0.75, 0.80, 0.60], [0.78, 0.85, 0.70], costs)
    lead, ok = p.certificate()
    assert int(lead[0]) == 0 and bool(ok[0])
    # model 2's upper bound 0.76 >= 0.75: not ruled out, and L = 0.60 < 0.75: not ruled in -> not certified
    p = policy_with([0.75, 0.80, 0.60], [0.78, 0.85, 0.76], costs)
    lead, ok = p.certificate()
    assert int(lead[0]) == 2 and not bool(ok[0])
    # the best is the only candidate left and its own interval is narrow enough: L_1 = 0.80 >= 0.85 - 0.1
    p = policy_with([0.10, 0.80, 0.10], [0.20, 0.85, 0.20], costs)
    lead, ok = p.certificate()
    assert int(lead[0]) == 1 and bool(ok[0])
    # a wider gamma rules out more (a weaker cheapness guarantee): with gamma = epsilon the threshold is L* = 0.80
    # itself, model 0's U = 0.78 falls below it, and the answer moves on to model 1 (L = 0.80 >= 0.85 - 0.1)
    p = policy_with([0.75, 0.80, 0.60], [0.78, 0.85, 0.70], costs, gamma=0.1)
    lead, ok = p.certificate()
    assert int(lead[0]) == 1 and bool(ok[0])


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match=r"epsilon must lie in \(0, 1\]"):
        make_policy("lucb-cheap", 3, 10, 30, costs=[1, 2, 3], epsilon=0.0)
    with pytest.raises(ValueError, match="price"):
        make_policy("lucb-cheap", 3, 10, 30, epsilon=0.1)
    with pytest.raises(ValueError, match="gamma"):
        make_policy("lucb-cheap", 3, 10, 30, costs=[1, 2, 3], epsilon=0.1, gamma=0.2)
    with pytest.raises(ValueError):
        make_policy("lucb-cheap", 3, 10, 30, costs=[1, float("nan"), 3], epsilon=0.1)


def test_acceptable_answers_by_hand():
    mu = [0.90, 0.86, 0.80, 0.88]
    c = [10.0, 1.0, 0.1, 2.0]
    # epsilon 0.05: good = {0, 1, 3}; epsilon/2-good (>= 0.875) = {0, 3}, the cheapest of them costs 2.0
    assert acceptable(mu, c, 0.05).tolist() == [False, True, False, True]


def test_answer_distances_by_hand():
    mu = [0.90, 0.86, 0.80, 0.88]
    c = [10.0, 1.0, 0.1, 2.0]
    answers, d = answer_distances(mu, c, 0.05)
    assert answers.tolist() == [1, 3]
    # answer 1 (0.86, price 1): it stops being 0.05-good when its own mean falls below 0.85 (0.01) or model 0's rises
    # above 0.91 (0.01); model 3's above 0.91 (0.03); model 2 (price 0.1) makes it too dear once 0.025-good, at 0.875
    # (0.075). Lowering model 0 or 3 only makes model 1 better placed.
    assert d[0] == pytest.approx([0.01, 0.01, 0.075, 0.03], abs=1e-8)
    # answer 3 (0.88, price 2): below 0.85 (0.03) it is not 0.05-good; model 0 above 0.93 (0.03), or below 0.885
    # (0.015: the best is then 0.885 and model 1, price 1, is 0.025-good); model 1 0.025-good at 0.875 (0.015);
    # model 2 at 0.875 (0.075)
    assert d[1] == pytest.approx([0.015, 0.015, 0.075, 0.03], abs=1e-8)


def test_cheapest_lower_bound_by_hand():
    # two models, one right answer: model 0 (0.9, price 10); model 1 (0.8, price 1) becomes 0.025-good, and cheaper,
    # when it rises to 0.875 or model 0 falls to 0.825: both at distance 0.075. Rows of +-1 around the mean have
    # variance 1 (the bound is Gaussian, the scores need not lie in [0, 1]).
    S = np.array([[1.9, -0.1] * 50, [1.8, -0.2] * 50])
    kl = kl_bernoulli(0.05, 0.95)
    spend, a, k = cheapest_lower_bound(S, [10.0, 1.0], 0.05, 0.05)
    assert (a, k) == (0, 1)
    assert spend == pytest.approx((10.0 + 1.0) * 2 * 1.0 * kl / 0.075**2, rel=1e-6)
    # capped at the row, each model's calls are at most m = 100
    capped, _, _ = cheapest_lower_bound(S, [10.0, 1.0], 0.05, 0.05, cap=100)
    assert capped == pytest.approx(11.0 * 100)


def test_characteristic_time_of_two_equal_variance_arms():
    # two arms, variance s2 each, gap D: N_b = N_j = 4 s2 / D^2 minimises the sum, T* = 8 s2 / D^2
    x = np.array([[1.0, 0.0] * 50, [1.0, 0.0] * 40 + [0.0] * 20])
    mu, var = x.mean(1), x.var(1)
    # unequal variances here; check the closed form on the constraint instead: at the optimum it binds for j
    t = gaussian_characteristic_time(x)
    d = mu[0] - mu[1]
    # lower bound: any split N_b + N_j = t must satisfy d^2 / (2 (v_b / N_b + v_j / N_j)) >= 1; the best split is
    # N_b / N_j = sqrt(v_b / v_j), giving t = 2 (sqrt(v_b) + sqrt(v_j))^2 / d^2
    assert t == pytest.approx(2 * (math.sqrt(var[0]) + math.sqrt(var[1])) ** 2 / d**2, rel=1e-6)


def test_oracle_names_an_acceptable_answer_and_spends_less_than_full():
    rng = np.random.default_rng(0)
    means = np.array([0.9, 0.88, 0.6, 0.5, 0.3])
    S = (rng.random((5, 2000)) < means[:, None]).astype(float)
    c = np.array([10.0, 1.0, 0.5, 0.2, 0.1])
    spend, a = oracle_cheapest_spend(S, c, 0.05, 0.05)
    assert acceptable(S.mean(1), c, 0.05)[a] and spend < c.sum() * 2000


def _matrix(seed=0, m=400):
    rng = np.random.default_rng(seed)
    means = np.array([0.85, 0.82, 0.78, 0.70, 0.60, 0.50])
    scores = (rng.random((6, m)) < means[:, None]).astype(np.float32)
    return ScoreMatrix(scores=scores, row_ids=None, col_ids=None, name="cheap-test", kind="synthetic")


@pytest.mark.slow
def test_wrong_answers_at_most_delta_and_cheaper_than_full_evaluation():
    """200 runs at delta = 0.1 on a hard matrix (a cheap model 0.055 below the best, just outside epsilon = 0.05,
    the dear second model the answer): the rate of answers that are not epsilon-good or are dearer than the cheapest
    epsilon/2-good model stays below delta (exact 95% lower bound under 0.1), every run certifies, and the median
    run stops before evaluating every model fully."""
    mat = _matrix()
    n, m = mat.shape
    costs = np.array([8.0, 4.0, 0.3, 0.2, 0.5, 0.1])
    eps = 0.05
    r = simulate("lucb-cheap", mat, [n * m], reps=200, seed=1, device="cpu", progress=False, delta=0.1,
                 stop="certified", epsilon=eps, costs=costs, batch_size=4)
    ok = acceptable(mat.means, costs, eps)
    wrong = int((~ok[r.best[-1]]).sum())
    assert clopper_pearson(wrong, 200)[0] < 0.1
    assert r.certified[-1].mean() == 1.0
    assert np.median(r.spend[-1]) < costs.sum() * m


def test_study_search_and_command_line(tmp_path):
    import paperlib
    from paperlib.study import JournalError, Study

    mat = _matrix(m=200)
    models = [f"m{i}" for i in range(6)]
    prices = dict(zip(models, [8.0, 4.0, 0.3, 0.2, 0.5, 0.1], strict=True))
    examples = [{"id": j} for j in range(200)]

    def score(model, example):
        return float(mat.scores[int(model[1:]), example["id"]])

    out = paperlib.search(models, examples, score, tmp_path / "j.jsonl", objective="cheapest", epsilon=0.1,
                          costs=prices, workers=2)
    assert out["method"] == "lucb-cheap" and out["objective"] == "cheapest" and out["gamma"] == 0.05
    assert out["price"] == prices[out["best"]]
    header = json.loads((tmp_path / "j.jsonl").read_text().splitlines()[0])
    assert header["objective"] == "cheapest" and header["gamma"] == 0.05
    with pytest.raises(JournalError, match="objective"):
        paperlib.search(models, examples, score, tmp_path / "j.jsonl", method="lucb-cheap", epsilon=0.1, costs=prices,
                        workers=2)
    with pytest.raises(ValueError, match="price"):
        Study(models, examples, method="lucb-cheap", objective="cheapest", epsilon=0.1)
    with pytest.raises(ValueError, match="epsilon > 0"):
        Study(models, examples, method="lucb-cheap", objective="cheapest", costs=prices)
    with pytest.raises(ValueError, match="runs method lucb-cheap"):
        Study(models, examples, method="lucb", objective="cheapest", epsilon=0.1, costs=prices)
    with pytest.raises(ValueError, match="objective='cheapest'"):
        Study(models, examples, method="lucb-cheap", epsilon=0.1, costs=prices)

    (tmp_path / "models.txt").write_text("\n".join(models) + "\n")
    (tmp_path / "examples.txt").write_text("\n".join(json.dumps(e) for e in examples) + "\n")
    r = subprocess.run([sys.executable, "-m", "paperlib", "search", "--models", str(tmp_path / "models.txt"),
                        "--examples", str(tmp_path / "examples.txt"), "--scorer", "true", "--json",
                        str(tmp_path / "o.json"), "--objective", "cheapest", "--epsilon", "0.1", "--quiet"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--costs" in r.stderr and not (tmp_path / "o.journal.jsonl").exists()


def test_the_best_models_own_bound_lowers_u_star():
    """U* = max_j min(U_j, V_j) (module docstring): with the per-model upper bounds alone, U* = 0.90 (model 1) and
    model 0 (L = 0.75) is not ruled in (0.75 < 0.90 - 0.1); V_1 = 0.84 brings U* to 0.84 and 0.75 >= 0.74 rules it in.
    A V above U changes nothing (the minimum), and with top_share = 0 there is no V."""
    costs = [1.0, 5.0, 0.1]
    p = policy_with([0.75, 0.80, 0.10], [0.80, 0.90, 0.20], costs)
    lead, ok = p.certificate()
    assert int(lead[0]) == 0 and not bool(ok[0])
    p.top_cs.upper = torch.tensor([[0.95, 0.84, 0.95]], dtype=torch.float64)
    lead, ok = p.certificate()
    assert int(lead[0]) == 0 and bool(ok[0])
    p.top_cs.upper = torch.tensor([[0.95, 0.95, 0.95]], dtype=torch.float64)
    assert not bool(p.certificate()[1][0])
    q = make_policy("lucb-cheap", 3, 100, 300, reps=1, seed=0, device="cpu", costs=costs, top_share=0.0)
    assert q.top_cs is None and q.cs.delta == pytest.approx(0.05 / 3)
    r = make_policy("lucb-cheap", 3, 100, 300, reps=1, seed=0, device="cpu", costs=costs, top_share=0.25)
    assert r.cs.delta == pytest.approx(0.75 * 0.05 / 3) and r.top_cs.delta == pytest.approx(2 * 0.25 * 0.05)
    with pytest.raises(ValueError, match="top_share"):
        make_policy("lucb-cheap", 3, 100, 300, reps=1, seed=0, device="cpu", costs=costs, top_share=1.0)


def test_a_journal_from_before_top_share_resumes_with_the_rule_it_was_run_by(tmp_path):
    """A new journal records top_share and allocation even at their defaults; one recorded before they existed (neither
    in its header) resumes with top_share = 0 and allocation "bounds", its own rule, so the replay asks the recorded
    pairs and the run goes on as an uninterrupted one with that rule would."""
    from paperlib.study import Study

    mat = _matrix(m=120)
    models = [f"m{i}" for i in range(6)]
    prices = dict(zip(models, [8.0, 4.0, 0.3, 0.2, 0.5, 0.1], strict=True))
    examples = [{"id": j} for j in range(120)]
    kw = dict(method="lucb-cheap", objective="cheapest", epsilon=0.1, costs=prices, seed=2, batch_size=4)

    def drive(study, steps=None):
        asked = []
        while not study.done and not study.certified and (steps is None or len(asked) < steps):
            p = study.ask()
            asked.append(p.pairs)
            study.tell(p, [float(mat.scores[i, j]) for i, j in p.pairs])
        return asked

    fresh = Study(models, examples, journal=tmp_path / "new.jsonl", **kw)
    header = json.loads((tmp_path / "new.jsonl").read_text().splitlines()[0])
    assert header["params"]["top_share"] == fresh.policy.top_share == 0.75
    assert header["params"]["allocation"] == fresh.policy.allocation == "lookahead"
    fresh.close()

    whole = Study(models, examples, top_share=0.0, allocation="bounds", **kw)
    want = drive(whole)
    part = Study(models, examples, journal=tmp_path / "old.jsonl", top_share=0.0, allocation="bounds", **kw)
    first = drive(part, steps=15)
    part.close()
    lines = (tmp_path / "old.jsonl").read_text().splitlines()
    old = json.loads(lines[0])
    del old["params"]["top_share"], old["params"]["allocation"]  # as written before either existed
    (tmp_path / "old.jsonl").write_text("\n".join([json.dumps(old)] + lines[1:]) + "\n")
    again = Study.resume(tmp_path / "old.jsonl", examples=examples)
    assert again.policy.top_share == 0.0 and again.policy.top_cs is None and again.policy.allocation == "bounds"
    assert first + drive(again) == want


@pytest.mark.slow
def test_a_certificate_undone_later_still_counts_as_the_stop():
    """lucb-cheap's certificate is not monotone: its candidate can be ruled in, then ruled out as the intervals
    narrow (a model between epsilon - gamma and epsilon below the best is both), moving the candidate to a dearer
    model not yet ruled in. With stop="certified" a repetition stops at its first certificate, so simulate reports it
    certified at every later checkpoint, with the certified pick, whatever the certificate says after it."""
    mat = _matrix()
    n, m = mat.shape
    costs = np.array([8.0, 4.0, 0.3, 0.2, 0.5, 0.1])
    r = simulate("lucb-cheap", mat, [n * m * 3 // 4, n * m], reps=200, seed=1, device="cpu", progress=False,
                 delta=0.1, stop="certified", epsilon=0.05, costs=costs, batch_size=4)
    stopped = r.certified_at >= 0
    assert stopped.all() and r.certified[-1].all()
    early = (r.certified_at >= 0) & (r.certified_at <= n * m * 3 // 4)
    assert early.any() and r.certified[0][early].all() and np.array_equal(r.best[0][early], r.best[-1][early])


def _set_means(p, means, told=50):
    p.counts[:] = told
    p.sums.copy_(torch.tensor([means], dtype=torch.float64) * told)


def test_extra_calls_follow_the_finite_population_rate():
    p = make_policy("lucb-cheap", 3, 400, 1200, reps=1, seed=0, device="cpu", costs=[1, 2, 3], epsilon=0.1)
    told = torch.tensor([100.0])
    # half-widths shrinking like sqrt(1/N - 1/m): halving one at N = 100 of m = 400 needs 1/N' - 1/400 = (1/100 - 1/400)
    # / 4, N' = 1 / (0.0025 + 0.001875) = 228.57..., 128.57 more calls
    assert float(p._extra_calls(torch.tensor([0.2]), torch.tensor([0.1]), told)) == pytest.approx(1 / 0.004375 - 100)
    assert float(p._extra_calls(torch.tensor([0.2]), torch.tensor([0.3]), told)) == 0.0  # already there
    assert math.isinf(float(p._extra_calls(torch.tensor([0.2]), torch.tensor([-0.01]), told)))  # past the line


def test_lookahead_rules_out_a_candidate_that_cannot_be_ruled_in_and_not_one_that_can():
    costs = [5.0, 0.1, 1.0]  # model 1 the cheapest: the candidate
    # model 1 (mean 0.68) is more than epsilon = 0.1 below model 0 (0.80): by the estimates it cannot be ruled in,
    # and not yet ruled out (U_1 = 0.72 >= L* - 0.05 = 0.71); ruling it out (its row, then model 2 ruled in) is finite
    p = policy_with([0.75, 0.66, 0.76], [0.85, 0.72, 0.82], costs)
    _set_means(p, [0.80, 0.68, 0.79])
    cand = p._candidate()[0]
    assert int(cand[0]) == 1
    out, _ = p._plan(cand, p._ruled_out(), p.cs.lower, p._top_upper(), p.cs.lower.argmax(dim=1))
    assert bool(out[0])
    # model 1 at 0.78: ruled in once its own row is done (0.78 + 0.1 above every upper bound); ruling it out would need
    # some lower bound at 0.78 + 0.05 = 0.83, above every mean: infinite
    p = policy_with([0.75, 0.76, 0.76], [0.85, 0.80, 0.82], costs)
    _set_means(p, [0.80, 0.78, 0.79])
    cand = p._candidate()[0]
    assert int(cand[0]) == 1
    out, _ = p._plan(cand, p._ruled_out(), p.cs.lower, p._top_upper(), p.cs.lower.argmax(dim=1))
    assert not bool(out[0])


def test_lookahead_may_lift_with_the_whole_row_of_the_highest_mean():
    """The rule-out line (candidate mean + epsilon - gamma = 0.81) lies above every mean estimate, but inside the
    interval of the highest (model 0: 0.805, upper bound 0.90): completing model 0's row (50 calls at 5) may still lift
    L* past it, and with a dear model 3 to bound, ruling the candidate in (model 3 brought to 0.86) costs more than
    ruling it out and model 2 in (model 3 only to 0.90). Worked by hand with sqrt(1/N - 1/m) half-widths, m = 100,
    50 draws each: in ~ 5 + 5 x 24.9 + 20 x 34 = 810; out ~ 5 + 250 + 50 + 20 x 18 = 665."""
    costs = [5.0, 0.1, 1.0, 20.0]
    p = policy_with([0.75, 0.74, 0.76, 0.70], [0.90, 0.78, 0.84, 0.95], costs)
    _set_means(p, [0.805, 0.76, 0.80, 0.79])
    cand = p._candidate()[0]
    assert int(cand[0]) == 1
    out, lifter = p._plan(cand, p._ruled_out(), p.cs.lower, p._top_upper(), p.cs.lower.argmax(dim=1))
    assert bool(out[0]) and int(lifter[0]) == 0


def test_a_cheapest_search_resumed_without_costs_keeps_the_journals_prices(tmp_path):
    """docs/usage.md: a resume without --costs keeps the journal's prices; a cheapest-objective search resumed so was
    refused (issue 56)."""
    import json
    import sys

    from paperlib.cli import main

    (tmp_path / "m.txt").write_text("a\nb\nc\n")
    (tmp_path / "e.txt").write_text("".join(f'{{"id": {i}}}\n' for i in range(40)))
    (tmp_path / "s.py").write_text("import json, sys\nd = json.loads(sys.stdin.read())\n"
                                   "print({'a': 1, 'b': d['example']['id'] % 2, 'c': 0}[d['model']])\n")
    (tmp_path / "p.json").write_text(json.dumps({"a": 1.0, "b": 0.5, "c": 0.2}))
    common = ["search", "--models", str(tmp_path / "m.txt"), "--examples", str(tmp_path / "e.txt"), "--scorer",
              f"{sys.executable} {tmp_path / 's.py'}", "--objective", "cheapest", "--epsilon", "0.2", "--quiet",
              "--journal", str(tmp_path / "j.jsonl")]
    assert main(common + ["--costs", str(tmp_path / "p.json"), "--budget", "12", "--json", str(tmp_path / "r1.json")]) == 0
    assert main(common + ["--budget", "24", "--json", str(tmp_path / "r2.json")]) == 0
    first, second = (json.loads((tmp_path / f"r{i}.json").read_text()) for i in (1, 2))
    assert second["calls"] == 24 and second["spend"] > first["spend"] > 0
