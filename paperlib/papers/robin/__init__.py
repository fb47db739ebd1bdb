"""Saha et al. 2026, LLM-as-Judge on a Budget (ROBIN / ROBIN-HOOD): experiments, claims, theory."""
