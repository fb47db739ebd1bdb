"""The box a figure is printed in, without matplotlib (issue 74, item 1): the report's light environment
(``make report``, the ``report`` extra) builds the PDF's print CSS from these numbers and must not import the
plotting stack; :mod:`paperlib.figures` fits figures to the same box.

The box is the PDF's text width (Chromium's Letter page, 8.5 in, less the 12 mm side margins of the report's
``@page``) and the print CSS's ``max-height`` of an image (:data:`paperlib.pipeline.print_pdf.PRINT_CSS` is built
from :data:`PRINT_MAX_HEIGHT_MM`). A figure larger than the box is scaled down to fit it, and its text with it."""

from __future__ import annotations

PRINT_WIDTH_IN = 8.5 - 24 / 25.4
PRINT_MAX_HEIGHT_MM = 150
PRINT_HEIGHT_IN = PRINT_MAX_HEIGHT_MM / 25.4
#: The smallest text a printed figure may have (points at the printed size)
MIN_PRINTED_PT = 6.0


def printed_scale(width_in: float, height_in: float) -> float:
    """The factor a figure of this size (inches, as saved) is scaled by in print: 1 when it fits the box, else the
    smaller of the box's width and height over the figure's."""
    return min(1.0, PRINT_WIDTH_IN / width_in, PRINT_HEIGHT_IN / height_in)
