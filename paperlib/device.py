"""Device and random-generator helpers: CUDA when present, CPU otherwise."""

from __future__ import annotations

import os

import torch

DEVICE_ENV_VAR = "PAPERLIB_DEVICE"


def get_device(device: str | torch.device | None = None) -> torch.device:
    """Resolve the compute device.

    Order: the ``device`` argument, then ``$PAPERLIB_DEVICE``, then CUDA if available, else CPU.
    """
    if device is None:
        device = os.environ.get(DEVICE_ENV_VAR) or ("cuda" if torch.cuda.is_available() else "cpu")
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(f"device {dev} requested but CUDA is not available")
    return dev


def make_generator(seed: int, device: torch.device) -> torch.Generator:
    """A seeded torch generator on ``device``; results are deterministic per (seed, device type)."""
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen


def cpu_model(cpuinfo: str = "/proc/cpuinfo") -> str:
    """The CPU's model name as Linux reports it ("" where it cannot be read): the same code can round floats
    differently on another CPU (its BLAS kernels differ), so a table's machine names it (2026-12-07: Theorem 1's
    alpacaeval2-full table rerun with the same code path and keyed streams differed from the one of 2026-12-01 in
    the 7th digit, and the CPU that made the old one was not recorded)."""
    try:
        with open(cpuinfo) as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def cpu_capability() -> str:
    """The vector instructions torch's CPU kernels run with here ("AVX512", "AVX2", "DEFAULT"; "" where torch cannot
    say). A virtual machine's model name can be only "AMD EPYC", and the kernels torch and MKL pick by this level sum
    in other orders: on 2026-12-07 the race's UCB-E-LRF runs of 2026-12-03, rerun here with the same code (commit
    425f204, checked by running it), evaluated other models on 4 of 5 matrices, on a machine that recorded nothing."""
    try:
        return str(torch.backends.cpu.get_cpu_capability())
    except (AttributeError, RuntimeError):
        return ""


def describe(dev: torch.device) -> str:
    """One line naming the machine a benchmark ran on: the GPU's name, or the CPU's model (else its architecture)
    with torch's vector level (:func:`cpu_capability`), its cores and the torch threads."""
    import os
    import platform

    if dev.type == "cuda":
        return torch.cuda.get_device_name(dev)
    cpu = cpu_model() or platform.processor() or platform.machine()
    level = cpu_capability()
    return f"{cpu}{f' ({level})' if level else ''} x{os.cpu_count()} cores, torch threads {torch.get_num_threads()}"


#: the columns in which a result table records what made each row (issue 74, item 3)
MADE_BY = ("machine", "streams")


def made_by(rows) -> dict[str, str]:
    """What made a table's ``rows`` (a data frame): for each of :data:`MADE_BY` its distinct values joined by "; "
    (sorted; NaN left out), "" where the frame has no such column or no value in it. The one place a summary table
    joins the machines and streams of the rows it summarises."""
    return {c: joined(rows[c]) if c in rows else "" for c in MADE_BY}


def made_by_words(rows, missing: bool = False) -> list[str]:
    """:func:`made_by` in words, one item a column: "machine A, B", "streams S"; a column with no value is left out,
    or with ``missing`` said ("no machine recorded"). The one wording of a table's made-by line (a notebook's
    :func:`paperlib.pipeline.notebook.shown`, ``paperlib verify``'s lines); ``rows`` None records nothing."""
    made = made_by(rows) if rows is not None else dict.fromkeys(MADE_BY, "")
    return [f"{k} {v.replace('; ', ', ')}" if v else f"no {k} recorded" for k, v in made.items() if v or missing]


def joined(values) -> str:
    """Distinct values of one :data:`MADE_BY` column (a pandas series), sorted and joined by "; ", NaN left out (an
    aggregation for a group-by that pools blocks)."""
    return "; ".join(sorted({str(v) for v in values.dropna()}))
