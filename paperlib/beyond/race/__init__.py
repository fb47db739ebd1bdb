"""The race (beyond the papers): every method on every real matrix, accuracy and confidence budgets."""
