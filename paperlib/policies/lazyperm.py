"""Per-(repetition, row) random orderings of the m examples, computed on demand.

UCB-E evaluates a chosen row on an example drawn uniformly from those it has not seen; drawing the
k-th example of a row as ``order[k]`` of a random permutation of the m examples is the same thing.
Storing those permutations is an (R, n, m) table (12 GB at R = 500 on a 1,000 x 12,032 pool), so
here ``order[k]`` is computed when needed: an 8-round Feistel network on Z_s x Z_s (addition mod
s, s = ceil(sqrt(m)), so s^2 < m + 2 sqrt(m) + 1) whose round functions are random tables shifted by
eight random keys per (repetition, row), cycle-walked into [0, m) (values >= m are encrypted again until they land below
m, which keeps it a permutation of [0, m); rarely needed since s^2 is close to m).
Memory is O(R n); a draw costs a few integer operations.

A Feistel network with a keyed round function is a pseudo-random permutation (Luby-Rackoff), not a
uniform draw over all m! orderings; the tests check the uniformity of single positions and ordered
pairs by chi-square. Written by hand: no maintained library offers batched keyed permutations in torch.
"""

from __future__ import annotations

import math

import torch

from ..keyed import KeyedStream, is_keyed

#: the key of the round functions' stream when the orderings' keys are keyed per repetition: the tables are then
#: the same for every run (a fixed pseudo-random family of round functions; each run's ordering is its own keys')
TABLE_KEY = 0x5EEDF00D

FUNCTIONS = 256
#: Round functions per round when the round maps are tabulated (32^8 = 2^40 keys at 8 rounds).
TABULATED_FUNCTIONS = 32
#: Largest tabulated round map (int32 entries, ~1 MB: stays in cache) before falling back to computing each round.
TABULATE_MAX = 1 << 18
#: Up to this many entries (R n m; 8 MB of int32) every ordering is evaluated once, when built, and a draw is one
#: lookup: the same values, for the runs whose per-step cost is the number of tensor operations (few repetitions,
#: one pair a step: a live search, a certified simulation). Above it, the orderings stay lazy (O(R n) memory).
MATERIALIZE_MAX = 1 << 21


def rounds_for(side: int) -> int:
    """Feistel rounds: 8 on Z_s x Z_s for s >= 16; small domains mix slower, so more rounds there."""
    return 8 if side >= 16 else 24


def _randint(gen, high: int, shape, device, table: bool = False) -> torch.Tensor:
    """int64 uniform on [0, high): a round table (``table``) or the (R, n, rounds) keys, from ``gen``."""
    if not is_keyed(gen):
        return torch.randint(0, high, shape, generator=gen, device=device, dtype=torch.int64)
    if table:
        return KeyedStream([TABLE_KEY], purpose=gen.purpose, device=device).randint(high, shape)[0]
    return gen.randint(high, shape[1:])


class KeyedPermutations:
    """R x n independent pseudo-random permutations of range(m), evaluated lazily.

    Round j of the Feistel network maps (L, R) to (R, (L + F_{j, k_j}(R)) mod s), where the F_{j, k} are
    ``FUNCTIONS`` random functions Z_s -> Z_s per round, drawn once (a table shared by all orderings),
    and k_j is the ordering's own key for round j (256^8 = 2^64 keys at 8 rounds); a round is four
    tensor operations. Where s is small (m up to ~1,000) the whole round map (L, R) -> (R, L + F(R))
    is tabulated instead for ``TABULATED_FUNCTIONS`` functions per round (32^8 = 2^40 keys; the table,
    ~1 MB of int32, stays in cache) and a round is one ``index_select``. Each tabulated round is
    cycle-walked into [0, m) when the table is built (x < m is mapped by the round again until it
    lands below m: the permutation that round induces on [0, m)), so their composition permutes
    [0, m) with no walking at draw time, and a draw costs table lookups instead of computed rounds.
    ``keys`` are gathered at the broadcast shape of ``reps`` and ``rows`` only.

    Parameters
    ----------
    reps, n, m : int
        Repetitions, rows, and the size of the permuted range.
    gen : torch.Generator or paperlib.keyed.KeyedStream
        Draws the round tables and the keys (R, n, rounds). With a keyed stream, repetition r's keys come from its
        own stream and the round tables from a fixed stream (:data:`TABLE_KEY`) shared by every run, so an
        ordering depends on its run's seed alone.
    """

    def __init__(self, reps: int, n: int, m: int, gen: torch.Generator, device):
        if m < 1:
            raise ValueError(f"m must be >= 1, got {m}")
        self.m = int(m)
        self.side = s = max(2, math.isqrt(self.m - 1) + 1)
        self.rounds = rounds_for(s)
        self.rounds_table = None
        if self.rounds * TABULATED_FUNCTIONS * s * s <= TABULATE_MAX:
            funcs = self.rounds * TABULATED_FUNCTIONS
            f = _randint(gen, s, (funcs, s), device, table=True)
            x = torch.arange(s * s, device=device)
            left, right = x // s, x % s
            step = right * s + (left + f[:, right]) % s
            walked, inside = step.clone(), x < self.m
            while bool((out := inside & (walked >= self.m)).any()):
                walked = torch.where(out, step.gather(1, walked), walked)
            self.rounds_table = walked.to(torch.int32).reshape(-1)
            keys = _randint(gen, TABULATED_FUNCTIONS, (reps, n, self.rounds), device)
            offsets = torch.arange(self.rounds, device=device) * TABULATED_FUNCTIONS
            self.keys = ((keys + offsets) * (s * s)).to(torch.int32)
            self._materialize()
            return
        self.table = _randint(gen, s, (self.rounds * FUNCTIONS * s,), device, table=True)
        offsets = torch.arange(self.rounds, device=device, dtype=torch.int64) * (FUNCTIONS * s)
        keys = _randint(gen, FUNCTIONS, (reps, n, self.rounds), device)
        self.keys = keys * s + offsets
        self._materialize()

    def _encrypt(self, x: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        if self.rounds_table is not None:
            # Two buffers written in place (``out=``): a round is one add and one lookup, with no allocation.
            per_round = keys.unbind(-1)
            z = torch.add(x, per_round[0])
            y = torch.empty_like(z)
            z_flat, y_flat = z.view(-1), y.view(-1)  # views of the same buffers, made once
            for j in range(self.rounds):
                if j:
                    torch.add(y, per_round[j], out=z)
                torch.index_select(self.rounds_table, 0, z_flat, out=y_flat)
            return y
        s = self.side
        left, right = x // s, x % s
        for j in range(self.rounds):
            left, right = right, (left + self.table[right + keys[..., j]]) % s
        return left * s + right

    def _materialize(self) -> None:
        """Evaluate every ordering once (:data:`MATERIALIZE_MAX`): ``self.dense`` (R n, m) int32."""
        self._flat_keys = self.keys.view(-1, self.keys.shape[2])  # one view, made once (a view costs a dispatch)
        self.dense = None
        reps, n = self.keys.shape[0], self.keys.shape[1]
        if reps * n * self.m > MATERIALIZE_MAX:
            return
        dev = self.keys.device
        r = torch.arange(reps, device=dev)[:, None, None]
        rows = torch.arange(n, device=dev)[None, :, None]
        pos = torch.arange(self.m, device=dev)[None, None, :]
        self.dense = self._lazy(r, rows, pos).reshape(reps * n, self.m).to(torch.int32)

    def __call__(self, reps: torch.Tensor, rows: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """``order_{reps, rows}[pos]`` elementwise (broadcast shapes); every ``pos`` must lie in [0, m)."""
        if self.dense is not None:
            flat = pos.add(rows.add(reps, alpha=self.keys.shape[1]), alpha=self.m)  # add with alpha: no int64 multiply
            return self.dense.view(-1).index_select(0, flat.reshape(-1)).view(flat.shape).long()
        return self._lazy(reps, rows, pos)

    def _lazy(self, reps: torch.Tensor, rows: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """``order_{reps, rows}[pos]`` elementwise (broadcast shapes); every ``pos`` must lie in [0, m).

        Passing one row per repetition as (R, 1) with positions (R, k) gathers R keys, not R k.
        The keys are gathered by one ``index_select`` on the flattened (R n, rounds) table, not by advanced
        indexing of the 3-D table with broadcast index tensors (much slower).
        """
        n, rounds = self.keys.shape[1], self.keys.shape[2]
        flat = rows.add(reps, alpha=n)
        keys = self._flat_keys.index_select(0, flat.reshape(-1)).view(*flat.shape, rounds)
        y = self._encrypt(pos.to(keys.dtype), keys)
        if self.rounds_table is not None or self.side * self.side == self.m or not bool((y >= self.m).any()):
            return y.long()
        keys = keys.expand(*y.shape, self.rounds)
        out = (y >= self.m).nonzero(as_tuple=True)
        while out[0].numel():
            z, kz = y[out], keys[out]
            z = self._encrypt(z, kz)
            while bool((z >= self.m).any()):
                z = torch.where(z >= self.m, self._encrypt(z, kz), z)
            y[out] = z
            out = (y >= self.m).nonzero(as_tuple=True)
        return y.long()
