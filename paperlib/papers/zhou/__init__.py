"""Zhou et al. 2025, On Speeding Up Language Model Evaluation: experiments, claims, theory (Corollary 1)."""
