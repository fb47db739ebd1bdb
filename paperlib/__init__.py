"""paperlib: an executable paper on evaluating LLMs on a budget.

The engine (knows no paper)
---------------------------
data      score matrices and judge pools: registry, loaders, generators, builders from upstream files
lowrank   low-rank models: the logistic model of PULSE, the ALS ensemble of UCB-E-LRF
policies  every ask/tell policy, batched over repetitions, and the one registry of method ids
simulate  drive a policy through ask/tell against a score matrix or a judge simulator
metrics   top-1 precision (gap, McNemar), NDCG@10, H1, worst-case error, crossings of curves
stats, ledger, notebook, progress, device, paths   small shared modules

The papers
----------
papers.zhou, papers.pulse, papers.robin   experiments, claims, theory and config schema of each paper
"""

__version__ = "0.2.0"


def __getattr__(name):
    """``paperlib.search(models, examples, score, journal)`` without importing torch for a bare ``import paperlib``."""
    if name == "search":
        import importlib

        return importlib.import_module(".search", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
