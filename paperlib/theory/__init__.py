"""Empirical checkers for the papers' lemmas and theorems."""
