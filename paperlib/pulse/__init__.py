"""PULSE (Tolochinsky et al. 2026): low-rank logistic predictions, doubly robust estimators, pools."""
