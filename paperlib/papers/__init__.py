"""One folder per paper, each with the same parts, built on the engine and never on each other.

zhou    Zhou et al. 2025, On Speeding Up Language Model Evaluation (UCB-E, UCB-E-LRF)
pulse   Tolochinsky et al. 2026, PULSE (valid best-model identification via low-rank factorisation)
robin   Saha et al. 2026, LLM-as-Judge on a Budget (ROBIN, ROBIN-HOOD)

Each paper has ``experiments`` (runs and tables), ``claims`` (ledger rows and their decision
rules), ``theory`` (checkers of its lemmas and theorems) and ``config.schema.yaml`` (its block of
a profile's configuration). :mod:`paperlib.pipeline.config` loads and validates a whole profile; what goes
beyond the papers is in :mod:`paperlib.beyond`.
"""
