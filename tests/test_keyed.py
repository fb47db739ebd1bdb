"""The keyed streams (:mod:`paperlib.keyed`): SplitMix64 as published, per-repetition counters, uniform output.

The reference below is SplitMix64 written from its definition (Steele, Lea and Flood 2014) in Python's unbounded
integers, independent of the torch code, which must agree with it bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy import stats

from paperlib.keyed import KeyedStream, RunBlock, mix, run_keys, run_seeds

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def ref_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def signed(x: int) -> int:
    return x - (1 << 64) if x >= 1 << 63 else x


def test_mix_is_splitmix64s_finaliser():
    xs = [0, 1, 2, 12345, (1 << 63) - 1, 1 << 63, MASK, 0x0123456789ABCDEF]
    got = mix(torch.tensor([signed(x) for x in xs], dtype=torch.int64)).tolist()
    assert got == [signed(ref_mix(x)) for x in xs]
    # the first outputs of SplitMix64 seeded with 0 (state += gamma, then mix), a published sequence
    assert ref_mix(GAMMA) == 0xE220A8397B1DCDAF and ref_mix(2 * GAMMA & MASK) == 0x6E789E6AA1B965F4


def test_the_jth_number_of_a_draw_is_the_streams_number_c_2_32_plus_j():
    s = KeyedStream([5, 2**62 + 3], purpose=3)
    s.bits((4,))
    second = s.bits((3,)).tolist()
    salt = (3 * 0x632BE59BD9B4E019 + 0x2545F4914F6CDD1D) & MASK
    for r, key in enumerate([5, 2**62 + 3]):
        seed = ref_mix(ref_mix(key ^ salt))
        want = [signed(ref_mix((seed + ((1 << 32) + j + 1) * GAMMA) & MASK)) for j in range(3)]
        assert second[r] == want


def test_a_repetitions_numbers_depend_on_its_own_draws_only():
    keys = run_seeds(7, 5)
    batch = KeyedStream(keys, purpose=1)
    alone = KeyedStream(keys[3:4], purpose=1)
    a = batch.random((6,))
    b = alone.random((6,))
    assert torch.equal(a[3], b[0])
    # a draw for some repetitions moves only their counters
    batch.random((4,), reps=torch.tensor([0, 2]))
    assert batch.counter.tolist() == [2, 1, 2, 1, 1]
    assert torch.equal(batch.random((9,), reps=torch.tensor([3]))[0], alone.random((9,))[0])
    # a longer draw extends a shorter one: position j is the same number whatever the draw's size
    x, y = KeyedStream(keys, 2), KeyedStream(keys, 2)
    assert torch.equal(x.bits((10,))[:, :4], y.bits((4,)))


def test_run_blocks_name_the_runs_of_the_batch():
    assert run_keys(RunBlock(11, 3), 4).tolist() == run_seeds(11, 7)[3:].tolist()
    assert run_keys(11, 7).tolist() == run_seeds(11, 7).tolist()
    with pytest.raises(ValueError):
        RunBlock(11, -1)
    with pytest.raises(ValueError):
        run_keys(-2, 3)


def test_uniform_integers_and_normals_have_their_laws():
    """Chi-square and Kolmogorov-Smirnov tests at fixed seeds (each passes or fails the same way every time), level
    1e-3; and no correlation between repetitions, purposes or successive draws beyond 4 standard errors."""
    s = KeyedStream(run_seeds(1, 50), purpose=0)
    u = s.random((4000,), dtype=torch.float64).numpy()
    assert stats.chisquare(np.histogram(u, bins=50, range=(0, 1))[0]).pvalue > 1e-3
    assert stats.kstest(s.random((4000,)).numpy().ravel(), "uniform").pvalue > 1e-3
    k = s.randint(7, (2000,)).numpy().ravel()
    assert stats.chisquare(np.bincount(k, minlength=7)).pvalue > 1e-3
    z = s.normal((2000,), dtype=torch.float64).numpy().ravel()
    assert stats.kstest(z, "norm").pvalue > 1e-3
    n = u.shape[1]
    bound = 4 / np.sqrt(n)
    assert abs(np.corrcoef(u[0], u[1])[0, 1]) < bound  # two repetitions
    other = KeyedStream(run_seeds(1, 50), purpose=1).random((n,), dtype=torch.float64).numpy()
    assert abs(np.corrcoef(u[0], other[0])[0, 1]) < bound  # two purposes of one run
    nxt = s.random((n,), dtype=torch.float64).numpy()
    assert abs(np.corrcoef(u[0], nxt[0])[0, 1]) < bound  # two draws of one stream
    assert abs(np.corrcoef(u[0, :-1], u[0, 1:])[0, 1]) < bound  # neighbours within a draw


def test_the_small_draws_python_integers_are_the_tensor_paths_numbers(monkeypatch):
    """A draw of a few numbers on the CPU is computed with Python integers (a one-pair-a-step policy's step); it must
    be bit for bit what the vectorised path computes, for any counters, rows and positions."""
    import paperlib.keyed as K

    keys = run_seeds(3, 6)
    small, big = KeyedStream(keys, purpose=5), KeyedStream(keys, purpose=5)
    monkeypatch.setattr(K, "SMALL_DRAW", 10**9)
    a = [small.bits((7,)), small.bits((3, 2), reps=torch.tensor([1, 4])), small.bits((1,))]
    monkeypatch.setattr(K, "SMALL_DRAW", -1)
    b = [big.bits((7,)), big.bits((3, 2), reps=torch.tensor([1, 4])), big.bits((1,))]
    for x, y in zip(a, b, strict=True):
        assert torch.equal(x, y)
    assert torch.equal(small.counter, big.counter)
    rows, pos = torch.tensor([2, 2, 5]), torch.tensor([[0, 9], [40, 41], [2**31, 2**32 - 1]])
    monkeypatch.setattr(K, "SMALL_DRAW", 10**9)
    x = small.bits_at(rows, pos, advance=torch.tensor([2, 5]))
    monkeypatch.setattr(K, "SMALL_DRAW", -1)
    assert torch.equal(x, big.bits_at(rows, pos, advance=torch.tensor([2, 5])))
