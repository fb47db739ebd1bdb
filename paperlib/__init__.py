"""paperlib: an executable paper on evaluating LLMs on a budget.

Subpackages
-----------
data      score matrices: registry, loaders, generators, builders from upstream files
policies  ask/tell policies batched over repetitions (UCB-E family, baselines)
simulate  drives a policy against a score matrix and records checkpoints
metrics   top-1 precision (gap, McNemar), NDCG@10, hardness H1
theory    empirical checkers for the papers' lemmas and theorems
ledger    the claims ledger (figures/<profile>/claims.{csv,md})
"""

__version__ = "0.1.0"
