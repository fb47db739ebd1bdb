"""Keyed random streams: repetition r of a batched run draws from a stream of its own, keyed by its run seed.

A batched engine runs R repetitions as one tensor program. For run r of a batch to be *exactly* the single run
``reps=1, seed=run_seeds(s, R)[r]`` (the same picks and estimates, not only the same law), every random number run r
uses must be a function of run r's seed and of what run r has done, never of the batch around it. A shared
``torch.Generator`` cannot give that: its state advances with every repetition's draws. A counter-based generator
can: the j-th number of run r's c-th draw is ``h(key_r, c, j)``, one hash per number, vectorised over the
repetitions and the positions (JAX's keyed randomness, Salmon et al. 2011's counter-based generators).

The generator is SplitMix64 (Steele, Lea and Flood 2014): number i of a stream with seed s is ``mix(s + (i + 1) *
gamma)``, ``mix`` its 64-bit finaliser, and SplitMix64 passes BigCrush. Each (run, purpose) is one SplitMix64 stream,
seeded by ``mix(mix(key ^ salt(purpose)))``, and the j-th number of its c-th draw is its number ``c 2^32 + j``: one
finaliser per number, so a draw costs a handful of integer operations per number. It is written out on int64
tensors (a few integer operations per number) because no library offers a counter-based generator on torch tensors
that is vectorised over per-row keys: torch's Philox lives inside its CUDA generator and takes one seed per tensor.
The same integer arithmetic runs on CPU and CUDA, so a run draws the same numbers on both.

Each repetition keeps its own draw counter (:attr:`KeyedStream.counter`): a draw made for some of the repetitions
(``reps=`` an index tensor: only the repetitions whose rows are short, say) advances only theirs, so what a run draws
never depends on which other runs share its batch. The counter also makes a policy's stream resumable (it pickles
with the policy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .checks import MAX_SEED, check_index, check_seed

#: SplitMix64's constants, as signed int64 (torch has no uint64 arithmetic)
_GAMMA = 0x9E3779B97F4A7C15 - (1 << 64)
_M1 = 0xBF58476D1CE4E5B9 - (1 << 64)
_M2 = 0x94D049BB133111EB - (1 << 64)
_LOW = {s: (1 << (64 - s)) - 1 for s in (11, 27, 30, 31, 40)}

#: the streams' name in the tables they make (``streams`` column): "keyed-splitmix64-v1"
STREAMS = "keyed-splitmix64-v1"


#: draws of at most this many numbers on the CPU are computed with Python integers (:meth:`KeyedStream._bits_small`)
SMALL_DRAW = 64
_MASK = (1 << 64) - 1
_GAMMA_U = 0x9E3779B97F4A7C15


def _mix_int(z: int) -> int:
    """:func:`mix` on one Python integer in [0, 2^64), returned as a signed int64 value."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    z ^= z >> 31
    return z - (1 << 64) if z >> 63 else z


def _shr(x: torch.Tensor, s: int) -> torch.Tensor:
    """Logical right shift of int64 ``x`` by ``s`` (torch's ``>>`` on int64 is arithmetic)."""
    return (x >> s) & _LOW[s]


def mix(x: torch.Tensor) -> torch.Tensor:
    """SplitMix64's finaliser (a bijection of 64-bit words), on an int64 tensor; wrapping arithmetic."""
    x = (x ^ _shr(x, 30)) * _M1
    x = (x ^ _shr(x, 27)) * _M2
    return x ^ _shr(x, 31)


def _shape(shape) -> tuple:
    return tuple(int(s) for s in ((shape,) if isinstance(shape, (int, np.integer)) else shape))


def run_seeds(seed: int, reps: int, first: int = 0) -> np.ndarray:
    """(R,) int64: the run seeds of runs [first, first + R) of a batched run with seed ``seed``: ``seed`` for run 0,
    then 63-bit seeds drawn from numpy's ``SeedSequence((seed, r))`` for run r.

    Repetition r of a batched run with seed ``seed`` is the single run ``reps=1, seed=run_seeds(seed, R)[r]``. The
    first is ``seed`` itself, so ``reps=1, seed=s`` is its own run 0; run r's seed depends on (seed, r) alone, so the
    list is prefix-stable (the first R' of ``run_seeds(s, R)`` are ``run_seeds(s, R')``) and a deep block costs what
    its own runs cost (``run_seeds(s, R, first=a)`` is ``run_seeds(s, a + R)[a:]`` without the first a). ``seed`` and
    ``first`` are integers in [0, 2^63 - 1] (:func:`paperlib.checks.check_seed`)."""
    seed = check_seed(seed)
    reps = check_index(reps, "reps", low=1)
    first = check_index(first, "first_run")
    if first + reps - 1 > MAX_SEED:
        raise ValueError(f"runs [{first}, {first + reps}) go past the largest run index {MAX_SEED}")
    out = np.empty(reps, dtype=np.int64)
    for i, r in enumerate(range(first, first + reps)):  # once per run, not in a hot path
        out[i] = seed if r == 0 else int(np.random.SeedSequence((seed, r)).generate_state(1, np.uint64)[0] >> 1)
    return out


@dataclass(frozen=True)
class RunBlock:
    """Runs [first, first + R) of the batched run with seed ``seed``: a policy's ``seed`` for a block of runs (keyed
    streams only). Run ``first + i`` of the whole batch is repetition i of the block, bit for bit."""

    seed: int
    first: int

    def __post_init__(self):
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "first", check_index(self.first, "first_run"))


def run_keys(seed, reps: int) -> np.ndarray:
    """(R,) the run seeds of a policy's repetitions: ``run_seeds(seed, R)``, or runs [first, first + R) of a
    :class:`RunBlock` (computed for those runs alone)."""
    if isinstance(seed, RunBlock):
        return run_seeds(seed.seed, int(reps), first=seed.first)
    return run_seeds(seed, reps)


class KeyedStream:
    """R keyed streams, one per repetition, for one purpose of a policy (its selection, its ties at readout, ...).

    Parameters
    ----------
    keys : (R,) int64 array or tensor
        Each repetition's run seed (:func:`run_seeds`).
    purpose : int
        Names the stream within a run: two purposes of the same run never share numbers.
    device : torch.device

    Every draw returns an (N, *shape) tensor for N repetitions (all of them, or those in ``reps``), element
    ``[i, ...]`` a function of (key of repetition ``reps[i]``, its counter, the element's flat position in ``shape``)
    only; then each of those repetitions' counters moves on by one.
    """

    def __init__(self, keys, purpose: int, device=None):
        keys = torch.as_tensor(np.asarray(keys, dtype=np.int64), device=device)
        if keys.ndim != 1:
            raise ValueError(f"keys must be one seed per repetition, got shape {tuple(keys.shape)}")
        self.device = keys.device
        self.keys = keys
        self.purpose = int(purpose)
        self.counter = torch.zeros_like(keys)
        self._all = torch.arange(keys.shape[0], device=self.device)
        salt = (self.purpose * 0x632BE59BD9B4E019 + 0x2545F4914F6CDD1D) % (1 << 64)
        salt = salt - (1 << 64) if salt >= 1 << 63 else salt  # as a signed int64
        self._seed = mix(mix(keys ^ salt))  # each repetition's SplitMix64 seed for this purpose

    @classmethod
    def for_runs(cls, seed, reps: int, purpose: int, device=None) -> KeyedStream:
        """The streams of the R repetitions of a batched run with seed ``seed`` (an int, or a :class:`RunBlock`)."""
        return cls(run_keys(seed, reps), purpose, device)

    @property
    def reps(self) -> int:
        return int(self.keys.shape[0])

    def bits(self, shape, reps: torch.Tensor | None = None) -> torch.Tensor:
        """(N, *shape) int64 of 64 random bits each, for all repetitions or those in ``reps`` (distinct indices);
        advances the counters of the repetitions drawn for."""
        shape = _shape(shape)
        size = int(np.prod(shape)) if shape else 1
        pos = torch.arange(size, dtype=torch.int64, device=self.device)
        rows = self._all if reps is None else reps
        return self.bits_at(rows, pos.expand(rows.shape[0], size), advance=reps).view(-1, *shape)

    def bits_at(self, rows: torch.Tensor, pos: torch.Tensor, advance: torch.Tensor | None = None) -> torch.Tensor:
        """(N, W) int64: element [i, j] is number ``pos[i, j]`` (0 <= pos < 2^32) of the current draw of repetition
        ``rows[i]``.

        Several rows may belong to one repetition (one row per short (repetition, model), say); then give each of
        them its own positions. Afterwards the counters of ``advance`` (distinct repetitions; default: every
        repetition) move on by one: the repetitions this draw was for, whether or not they got any numbers."""
        if self.device.type == "cpu" and pos.numel() <= SMALL_DRAW:
            out = self._bits_small(rows, pos)  # the same integers, without a dozen tensor dispatches
        else:
            if rows is self._all:
                seed, counter = self._seed, self.counter
            else:
                seed, counter = self._seed.index_select(0, rows), self.counter.index_select(0, rows)
            out = mix((seed + (counter << 32) * _GAMMA)[:, None] + (pos + 1) * _GAMMA)
        if advance is None:
            self.counter += 1
        else:
            self.counter.index_add_(0, advance, torch.ones_like(advance, dtype=torch.int64))
        return out

    def _bits_small(self, rows: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """:meth:`bits_at`'s numbers computed with Python integers (mod 2^64), for a draw of a few numbers on the CPU
        (a step of a one-pair-a-time policy), where each of the tensor path's dozen operations costs microseconds of
        dispatch. Bit for bit the tensor path's integers (``tests/test_keyed.py``)."""
        seeds = self._seed.tolist() if rows is self._all else self._seed.index_select(0, rows).tolist()
        counters = self.counter.tolist() if rows is self._all else self.counter.index_select(0, rows).tolist()
        out = [[_mix_int((s + ((c << 32) + p + 1) * _GAMMA_U) & _MASK) for p in row]
               for s, c, row in zip(seeds, counters, pos.tolist(), strict=True)]
        return torch.tensor(out, dtype=torch.int64).view(pos.shape) if out else torch.empty(pos.shape, dtype=torch.int64)

    def random(self, shape, reps=None, dtype=torch.float32) -> torch.Tensor:
        """Uniform on [0, 1): the top 24 (float32) or 53 (float64) bits over 2^24 or 2^53, exact in the float."""
        b = self.bits(shape, reps)
        if dtype == torch.float64:
            return _shr(b, 11).to(torch.float64) * (2.0**-53)
        if dtype == torch.float32:
            return _shr(b, 40).to(torch.float32) * (2.0**-24)
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")

    def randint(self, high: int, shape, reps=None) -> torch.Tensor:
        """Integers uniform on {0, ..., high - 1} (int64): the low 63 bits modulo ``high`` (bias below high / 2^63)."""
        if int(high) < 1:
            raise ValueError(f"high must be >= 1, got {high}")
        return torch.remainder(self.bits(shape, reps) & ((1 << 63) - 1), int(high))

    def normal(self, shape, reps=None, dtype=torch.float32) -> torch.Tensor:
        """Standard normal (Box-Muller on two float64 uniforms per number), cast to ``dtype``."""
        b = self.bits((2, *_shape(shape)), reps)
        u1 = 1.0 - _shr(b[:, 0], 11).to(torch.float64) * (2.0**-53)  # in (0, 1]
        u2 = _shr(b[:, 1], 11).to(torch.float64) * (2.0**-53)
        return (torch.sqrt(-2.0 * torch.log(u1)) * torch.cos(2.0 * torch.pi * u2)).to(dtype)

    def state_dict(self) -> dict:
        return {"keys": self.keys.cpu().numpy(), "purpose": self.purpose, "counter": self.counter.cpu().numpy()}


def is_keyed(gen) -> bool:
    """Whether ``gen`` is a :class:`KeyedStream` (else a ``torch.Generator`` shared by the repetitions)."""
    return isinstance(gen, KeyedStream)


def _rows(gen: KeyedStream, shape: tuple, reps) -> None:
    want = gen.reps if reps is None else reps.shape[0]
    if not shape or shape[0] != want:
        raise ValueError(f"keyed numbers need one row per repetition drawn for ({want}), got shape {shape}")


def uniform(gen, shape, reps: torch.Tensor | None = None, dtype=torch.float32, device=None) -> torch.Tensor:
    """Uniform [0, 1) numbers of ``shape``, whose first dimension is the repetitions (all of them, or those in ``reps``,
    distinct): from each repetition's keyed stream when ``gen`` is a :class:`KeyedStream` (row i from repetition
    ``reps[i]``'s), else from a shared ``torch.Generator`` (``reps`` then only sizes the draw)."""
    shape = _shape(shape)
    if is_keyed(gen):
        _rows(gen, shape, reps)
        return gen.random(shape[1:], reps=reps, dtype=dtype)
    return torch.rand(shape, generator=gen, dtype=dtype, device=device)


def normal(gen, shape, reps: torch.Tensor | None = None, dtype=torch.float32, device=None) -> torch.Tensor:
    """Standard normal numbers of ``shape``, first dimension the repetitions, as :func:`uniform`."""
    shape = _shape(shape)
    if is_keyed(gen):
        _rows(gen, shape, reps)
        return gen.normal(shape[1:], reps=reps, dtype=dtype)
    return torch.randn(shape, generator=gen, dtype=dtype, device=device)


def skip(gen, reps: torch.Tensor | None = None) -> None:
    """Move the keyed streams of ``reps`` (default: all) on by one draw without drawing: for a draw that a batch makes
    on one path and not on another, so that every repetition's counter moves the same way on both. Nothing for a shared
    ``torch.Generator``."""
    if is_keyed(gen):
        if reps is None:
            gen.counter += 1
        else:
            gen.counter.index_add_(0, reps, torch.ones_like(reps, dtype=torch.int64))
