"""Tolochinsky et al. 2026, PULSE: test pools, experiments, claims, theory (Lemmas 1, 2, 5, 6, Theorems 1, 2)."""
