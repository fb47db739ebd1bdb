"""Pickling that keeps torch views: an object's whole state goes through one ``torch.save``.

Plain pickle writes each tensor's storage on its own, so a view comes back as a tensor of its own: an object that
keeps its sums stacked in one tensor and reads them through views (``WoRMeanCS.count = WoRMeanCS._seen[0]``, UCB-E's
flat views) would then update one copy and read another. A Study restored from a pickle never certified
(issue 56). ``torch.save`` keeps the storages of one call shared, so :class:`KeepsViews` pickles the object's
``__dict__`` with a single ``torch.save``; every object inside it (a policy's confidence sequence, a Study's policy) is
written within that same call, so views shared between them stay views. Nothing in the standard library or torch
does this for an arbitrary object (``copyreg`` cannot see storages; ``torch.save`` is called by hand).

Unpickling runs ``torch.load(weights_only=False)`` on bytes that came from the same pickle, which trusts them exactly
as much as unpickling itself does: load pickles only from sources you trust.
"""

from __future__ import annotations

import io
import threading

import torch

_writing = threading.local()


class KeepsViews:
    """Mixin: pickle the instance's state with one ``torch.save`` (views stay views; tensors keep their device)."""

    def __reduce_ex__(self, protocol):
        if getattr(_writing, "active", False):  # inside an enclosing object's torch.save: its storages are shared
            return super().__reduce_ex__(protocol)
        _writing.active = True
        try:
            buf = io.BytesIO()
            torch.save(self.__dict__, buf)
        finally:
            _writing.active = False
        return _restore, (type(self), buf.getvalue())


def _restore(cls, blob: bytes):
    obj = cls.__new__(cls)
    obj.__dict__.update(torch.load(io.BytesIO(blob), weights_only=False))
    return obj
