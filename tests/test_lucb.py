"""lucb-pd (LUCB on paired differences) and lucb (per-model intervals): sampling invariants, online sequences
against the offline ones, certificates (exact at the full matrix, epsilon-best on ties), validity (exact binomial
bound on the misidentification rate), and their use by Study, search and simulate."""

import numpy as np
import pytest
import torch
from scipy.stats import binomtest

from paperlib.confseq import certify, paired_difference_ci, wor_mean_ci
from paperlib.data import ScoreMatrix
from paperlib.policies import make_policy
from paperlib.search import resolve_auto
from paperlib.simulate import simulate


def correlated(means, m, seed=0):
    """0/1 scores of models that succeed on an example when its difficulty is below their mean (strongly correlated
    models, as LLMs on one benchmark)."""
    u = np.random.default_rng(seed).random(m)
    return (u[None, :] < np.asarray(means)[:, None]).astype(np.float32)


def run(pol, S, stop_at_certificate=False):
    S = torch.as_tensor(S)
    seen = torch.zeros(pol.reps, pol.n, pol.m, dtype=torch.bool)
    while not pol.done:
        req = pol.ask()
        r = torch.arange(pol.reps)[:, None].expand_as(req.rows)
        assert not seen[r, req.rows, req.cols].any(), "a pair was asked twice"
        seen[r, req.rows, req.cols] = True
        pol.tell(req, req.take(S))
        if stop_at_certificate and bool(pol.certificate()[1].all()):
            break
    return seen


def test_each_model_sees_a_prefix_of_one_shared_order_and_never_a_pair_twice():
    S = correlated([0.8, 0.7, 0.6, 0.5, 0.4], 120)
    pol = make_policy("lucb-pd", n=5, m=120, budget=400, reps=6, seed=3, batch_size=4)
    seen = run(pol, S)
    assert int(pol.counts.sum(dim=1).max()) == int(pol.counts.sum(dim=1).min()) == 400
    for r in range(6):
        order = pol.order(torch.full((120,), r), torch.zeros(120, dtype=torch.long), torch.arange(120))
        assert sorted(order.tolist()) == list(range(120))
        for i in range(5):
            c = int(pol.counts[r, i])
            assert set(seen[r, i].nonzero().flatten().tolist()) == set(order[:c].tolist())


def test_online_pair_sequences_equal_the_offline_paired_sequence():
    """With one pair per step every pair stream gains at most one draw per update, so the online sequence is the
    offline :func:`paired_difference_ci` on the shared prefix (an independent computation), to rounding."""
    n, m, delta = 4, 150, 0.1
    S = correlated([0.75, 0.7, 0.55, 0.4], m, seed=1)
    pol = make_policy("lucb-pd", n=n, m=m, budget=300, reps=3, seed=0, delta=delta, batch_size=1)
    run(pol, S)
    lo_on = 2 * pol.pair_cs.lower.view(3, n, n) - 1
    hi_on = 2 * pol.pair_cs.upper.view(3, n, n) - 1
    checked = 0
    for r in range(3):
        order = pol.order(torch.full((m,), r), torch.zeros(m, dtype=torch.long), torch.arange(m))
        for a in range(n):
            for b in range(a + 1, n):
                t = int(min(pol.counts[r, a], pol.counts[r, b]))
                if t == 0:
                    continue
                cols = order[:t]
                lo, hi = paired_difference_ci(torch.as_tensor(S[a])[cols], torch.as_tensor(S[b])[cols], m,
                                              delta / (n - 1))
                assert float(lo_on[r, a, b]) == pytest.approx(float(lo[-1]), abs=1e-9)
                assert float(hi_on[r, a, b]) == pytest.approx(float(hi[-1]), abs=1e-9)
                checked += 1
    assert checked >= 12


def test_the_certificate_is_exact_on_the_full_matrix_and_epsilon_certifies_a_tie():
    S = correlated([0.7, 0.7, 0.5], 60)
    S[1] = S[0]  # an exact tie at the top
    pol = make_policy("lucb-pd", n=3, m=60, budget=180, reps=2, seed=0, batch_size=3)
    run(pol, S)
    assert (pol.counts == 60).all()
    lead, ok = pol.certificate()
    assert not ok.any(), "a tie cannot be certified as the best"
    lower, upper = pol.difference_bounds(lead)
    true = torch.as_tensor(S.mean(1), dtype=torch.float64)
    for r in range(2):  # collapsed to the exact differences
        rivals = torch.arange(3) != lead[r]
        diff = (true[lead[r]] - true)[rivals]
        assert torch.allclose(lower[r][rivals], diff, atol=1e-9) and torch.allclose(upper[r][rivals], diff, atol=1e-9)
    assert pol.certificate(epsilon=0.01)[1].all() and set(lead.tolist()) <= {0, 1}


@pytest.mark.parametrize("method", ["lucb-pd", "lucb"])
def test_certified_earlier_than_ucbe_where_the_models_are_correlated(method):
    """On correlated models with a small top gap both LUCB rules, aimed at the certificate, certify with fewer calls
    than UCB-E: the rule's slowest run is faster than UCB-E's median run; both are right."""
    mat = ScoreMatrix.from_array(correlated([0.80, 0.77, 0.7, 0.6, 0.5, 0.4], 600), name="corr", kind="synthetic")
    got = {}
    for meth in (method, "ucbe"):
        r = simulate(meth, mat, [mat.scores.size], reps=8, seed=0, delta=0.05, stop="certified", progress=False)
        assert (r.best[-1] == 0).all()
        got[meth] = r.calls
    assert got[method].max() < np.median(got["ucbe"]), got


@pytest.mark.slow
@pytest.mark.parametrize("method", ["lucb-pd", "lucb"])
def test_misidentification_is_at_most_delta_exact_binomial(method):
    """Independent models (no correlation to exploit), top gap 0.04, delta = 0.2: the certified pick is wrong in at
    most a delta share of 300 runs (the exact binomial test cannot reject a rate <= delta at level 0.01)."""
    rng = np.random.default_rng(7)
    means = np.array([0.6, 0.56, 0.5, 0.45])
    S = (rng.random((4, 400)) < means[:, None]).astype(np.float32)
    mat = ScoreMatrix.from_array(S, name="indep", kind="synthetic")
    true = int(np.argmax(S.mean(1)))
    r = simulate(method, mat, [S.size], reps=300, seed=11, delta=0.2, stop="certified", progress=False)
    wrong = int((r.best[-1] != true).sum())
    assert binomtest(wrong, 300, 0.2, alternative="greater").pvalue > 0.01, f"{wrong}/300 wrong at delta 0.2"


def test_study_runs_lucb_pd_and_a_journal_replays_it(tmp_path):
    from paperlib.study import Study

    S = correlated([0.8, 0.7, 0.65, 0.4], 200)
    models, examples = ["a", "b", "c", "d"], list(range(200))
    st = Study(models, examples, method="lucb-pd", delta=0.05, journal=tmp_path / "j.jsonl", batch_size=2)
    for _ in range(60):
        p = st.ask()
        st.tell(p, [float(S[i, j]) for i, j in p.pairs])
    nxt = st.ask().pairs
    st.close()
    again = Study.resume(tmp_path / "j.jsonl", examples=examples)
    assert again.ask().pairs == nxt and again.best() == "a"
    while not again.certified:
        p = again.pending or again.ask()
        again.tell(p, [float(S[i, j]) for i, j in p.pairs])
    assert again.best() == "a" and again.calls < 4 * 200
    again.close()


def test_auto_means_the_certificate_rule_for_fixed_confidence_and_sysrs_for_a_fixed_budget():
    assert resolve_auto("auto", "certified") == "lucb"
    assert resolve_auto("auto", "certified", top_k=2) == "ucbe"
    assert resolve_auto("auto", "budget", live=False) == "auto"
    assert resolve_auto("auto", "budget") == "ucbe"
    assert resolve_auto("sysrs", "certified") == "sysrs"


def test_an_epsilon_best_certificate_from_per_model_intervals():
    from paperlib.confseq import certify

    lower = torch.tensor([[0.70, 0.60, 0.20]], dtype=torch.float64)
    upper = torch.tensor([[0.80, 0.74, 0.30]], dtype=torch.float64)
    assert not certify(lower, upper, lower)[1].item()            # 0.70 < 0.74: not the certified best
    assert certify(lower, upper, lower, epsilon=0.05)[1].item()  # 0.70 > 0.74 - 0.05: within 0.05 of the best
    assert certify(lower, upper, lower, epsilon=0.05)[0].item() == 0


def test_simulate_command_resolves_auto_and_takes_epsilon(tmp_path):
    import json
    import subprocess
    import sys

    np.savez(tmp_path / "s.npz", scores=correlated([0.8, 0.78, 0.5], 200))
    out = tmp_path / "o.json"
    r = subprocess.run([sys.executable, "-m", "paperlib", "simulate", "--scores", str(tmp_path / "s.npz"), "--method",
                        "auto", "--budget-frac", "1", "--reps", "3", "--delta", "0.05", "--stop", "certified",
                        "--epsilon", "0.05", "--json", str(out), "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = json.loads(out.read_text())
    assert got["method"] == "lucb" and "running lucb" in r.stderr
    assert all(got["certified"]) and set(got["best"]) <= {0, 1}


def test_lucb_draws_each_model_without_replacement_and_its_intervals_are_the_offline_ones():
    """lucb: no pair twice, every repetition spends the budget, and with one pair per step each model's online
    interval is :func:`wor_mean_ci` at delta / n on the examples it drew, in order (an independent computation)."""
    n, m, delta = 4, 150, 0.1
    S = correlated([0.75, 0.7, 0.55, 0.4], m, seed=2)
    pol = make_policy("lucb", n=n, m=m, budget=260, reps=3, seed=5, delta=delta, batch_size=1)
    seen = run(pol, S)
    assert (pol.counts.sum(dim=1) == 260).all()
    for r in range(3):
        for i in range(n):
            c = int(pol.counts[r, i])
            cols = pol.order(torch.full((c,), r), torch.full((c,), i), torch.arange(c))
            assert set(cols.tolist()) == set(seen[r, i].nonzero().flatten().tolist())
            lo, hi = wor_mean_ci(torch.as_tensor(S[i], dtype=torch.float64)[cols], m, delta / n)
            assert float(pol.cs.lower[r, i]) == pytest.approx(float(lo[-1]), abs=1e-9)
            assert float(pol.cs.upper[r, i]) == pytest.approx(float(hi[-1]), abs=1e-9)


def test_lucb_alternates_leader_and_challenger_with_one_pair_per_step():
    """After the warm-up (one example per model), one pair per step goes to the leader and to a rival in turn."""
    S = correlated([0.8, 0.6, 0.5, 0.3], 100)
    pol = make_policy("lucb", n=4, m=100, budget=400, reps=1, seed=0, batch_size=1)
    for _ in range(4):
        pol.tell(req := pol.ask(), req.take(torch.as_tensor(S)))
    to_leader = []
    for _ in range(10):
        lead = int(pol.leader()[0])
        req = pol.ask()
        to_leader.append(int(req.rows[0, 0]) == lead)
        pol.tell(req, req.take(torch.as_tensor(S)))
    assert to_leader == [True, False] * 5


def test_lucb_certificate_is_the_per_model_certificate_and_exact_on_the_full_matrix():
    S = correlated([0.7, 0.7, 0.5], 60)
    S[1] = S[0]
    pol = make_policy("lucb", n=3, m=60, budget=180, reps=2, seed=0, batch_size=3)
    run(pol, S)
    true = torch.as_tensor(S.mean(1), dtype=torch.float64).expand(2, -1)
    assert torch.allclose(pol.cs.lower, true, atol=1e-9) and torch.allclose(pol.cs.upper, true, atol=1e-9)
    assert not pol.certificate()[1].any(), "a tie cannot be certified as the best"
    assert pol.certificate(epsilon=0.01)[1].all()
    part = make_policy("lucb", n=3, m=60, budget=90, reps=4, seed=1, batch_size=3)
    run(part, S)
    lead, ok = part.certificate(epsilon=0.3)
    ref_lead, ref_ok = certify(part.cs.lower, part.cs.upper, part.estimate(), epsilon=0.3)
    same = part.estimate().gather(1, lead[:, None]).squeeze(1) == part.estimate().gather(1, ref_lead[:, None]).squeeze(1)
    assert same.all() and torch.equal(ok, ref_ok)


@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_lucb_one_unit_step_asks_what_the_general_allocation_asks(epsilon):
    """A step of one pair after the warm-up takes a short path (``LUCB._one_unit``); the general allocation
    (``_units`` then ``_slots_from_units``) is its specification: with the short path switched off on a twin policy,
    every step asks the same pairs, on binary scores (tied bounds) with rows short enough that the leader and its
    rivals run out of examples, to the full matrix."""
    rng = np.random.default_rng(4)
    S = (rng.random((6, 12)) < np.array([0.9, 0.85, 0.85, 0.5, 0.5, 0.2])[:, None]).astype(np.float32)
    fast = make_policy("lucb", n=6, m=12, budget=72, reps=5, seed=3, batch_size=1, epsilon=epsilon)
    slow = make_policy("lucb", n=6, m=12, budget=72, reps=5, seed=3, batch_size=1, epsilon=epsilon)
    slow._one_unit_rule = False
    T, used = torch.as_tensor(S), 0
    while not fast.done:
        a, b = fast.ask(), slow.ask()
        assert torch.equal(a.rows, b.rows) and torch.equal(a.cols, b.cols)
        used += fast._warmed
        fast.tell(a, a.take(T))
        slow.tell(b, b.take(T))
    assert used > 40, "the short path was not exercised"
    assert torch.equal(fast.cs.lower, slow.cs.lower) and torch.equal(fast.estimate(), slow.estimate())
