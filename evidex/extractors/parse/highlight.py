"""The highlighted PDF: the source document with each field's evidence marked.

A rendering of the result, never a second source of truth: boxes come from the result, colours
from the status, and each annotation names its field so a reviewer hovering it knows what it is.
"""

from __future__ import annotations

import pymupdf

from evidex.schemas import Result, Status

__all__ = ["COLOURS", "annotate"]

COLOURS: dict[Status, tuple[float, float, float]] = {
    Status.VERIFIED: (0.55, 0.9, 0.55),
    Status.NEEDS_REVIEW: (1.0, 0.78, 0.2),
    Status.UNSUPPORTED: (0.95, 0.45, 0.45),
}


def annotate(pdf: bytes, result: Result) -> bytes:
    """Return ``pdf`` with a highlight annotation per box of every field that has boxes."""
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        for path, field in result.fields.items():
            colour = COLOURS.get(field.status)
            if colour is None:
                continue
            for box in field.boxes:
                page = doc[box.page - 1]
                rect = pymupdf.Rect(box.x0, box.y0, box.x1, box.y1) * page.derotation_matrix
                annot = page.add_highlight_annot(rect)
                annot.set_colors(stroke=colour)
                detail = "; ".join(field.reasons)
                annot.set_info(
                    title=path,
                    content=f"{path} = {field.value!r}\n{field.status.value}"
                    + (f": {detail}" if detail else ""),
                )
                annot.update()
        return bytes(doc.tobytes(garbage=3, deflate=True))
