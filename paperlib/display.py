"""How a number looks in a table, in the notebooks and in the report (imports nothing heavy: the report's light
environment has no matplotlib)."""

from __future__ import annotations


def fmt_number(x) -> str:
    """A number as a table shows it: "–" for a missing value, thousands with separators and no decimals, otherwise
    three significant digits below 1 (a budget fraction of 0.079993 is the 0.08 it stands for) and four above."""
    import math
    import numbers

    if x is None or (isinstance(x, numbers.Real) and not isinstance(x, numbers.Integral) and math.isnan(x)):
        return "–"
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return str(x)
    if isinstance(x, numbers.Integral) or float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}" if abs(x) >= 10_000 else str(int(x))
    x = float(x)
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.4g}" if abs(x) >= 1 else f"{x:.3g}"
