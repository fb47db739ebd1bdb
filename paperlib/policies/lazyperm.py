"""Per-(repetition, row) random orderings of the m examples, computed on demand.

UCB-E evaluates a chosen row on an example drawn uniformly from those it has not seen; drawing the
k-th example of a row as ``order[k]`` of a random permutation of the m examples is the same thing.
Storing those permutations is an (R, n, m) table (12 GB at R = 500 on a 1,000 x 12,032 pool), so
here ``order[k]`` is computed when needed: an 8-round Feistel network on Z_s x Z_s (addition mod
s, s = ceil(sqrt(m)), so s^2 < m + 2 sqrt(m) + 1), keyed by eight random 32-bit words per
(repetition, row), cycle-walked into [0, m) (values >= m are encrypted again until they land below
m, which keeps it a permutation of [0, m); rarely needed since s^2 is close to m).
Memory is O(R n); a draw costs a few integer operations.

A Feistel network with a keyed round function is a pseudo-random permutation (Luby-Rackoff), not a
uniform draw over all m! orderings; the tests check the uniformity of single positions and ordered
pairs by chi-square. Written by hand: no maintained library offers batched keyed permutations in torch.
"""

from __future__ import annotations

import math

import torch

_M32 = 0xFFFFFFFF
_MUL = 0x45D9F3B
ROUNDS = 8


def _mix(x: torch.Tensor) -> torch.Tensor:
    """A 32-bit integer hash (xor-shift-multiply); products stay below 2^59, so int64 never overflows."""
    x = (((x >> 16) ^ x) * _MUL) & _M32
    x = (((x >> 16) ^ x) * _MUL) & _M32
    return (x >> 16) ^ x


class KeyedPermutations:
    """R x n independent pseudo-random permutations of range(m), evaluated lazily.

    Parameters
    ----------
    reps, n, m : int
        Repetitions, rows, and the size of the permuted range.
    gen : torch.Generator
        Draws the keys (R, n, 4 rounds).
    """

    def __init__(self, reps: int, n: int, m: int, gen: torch.Generator, device):
        if m < 1:
            raise ValueError(f"m must be >= 1, got {m}")
        self.m = int(m)
        self.side = max(2, math.isqrt(self.m - 1) + 1)
        self.keys = torch.randint(0, 1 << 32, (reps, n, ROUNDS), generator=gen, device=device, dtype=torch.int64)

    def _encrypt(self, x: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        left, right = x // self.side, x % self.side
        for j in range(ROUNDS):
            left, right = right, (left + _mix(right ^ keys[..., j])) % self.side
        return left * self.side + right

    def __call__(self, reps: torch.Tensor, rows: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """``order_{reps, rows}[pos]`` elementwise (broadcast shapes); every ``pos`` must lie in [0, m)."""
        reps, rows, pos = torch.broadcast_tensors(reps, rows, pos)
        keys = self.keys[reps, rows]
        y = self._encrypt(pos.long(), keys)
        out = (y >= self.m).nonzero(as_tuple=True)
        while out[0].numel():
            z, kz = y[out], keys[out]
            z = self._encrypt(z, kz)
            while bool((z >= self.m).any()):
                z = torch.where(z >= self.m, self._encrypt(z, kz), z)
            y[out] = z
            out = (y >= self.m).nonzero(as_tuple=True)
        return y
