"""Certified best-model search on the project's score matrices (beyond the three papers)."""
