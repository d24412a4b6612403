"""The verification report of one document: counts per status and the reasons behind them."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from evidex.extractors.verify.reverify import Change
from evidex.schemas import Result, Status

__all__ = ["render_report"]


def _reason_kind(reason: str) -> str:
    """A reason without its particulars, so that like reasons are counted together."""
    kind = re.sub(r"'[^']*'|\"[^\"]*\"|\d[\d.,:-]*", "…", reason)
    return re.sub(r"\s+", " ", kind).strip()


def render_report(result: Result, changes: Sequence[Change] = ()) -> str:
    s = result.summary
    total = s.verified + s.needs_review + s.unsupported + s.not_found
    lines = [
        f"{result.document.filename} ({result.document.sha256[:12]}, {result.document.pages} "
        f"page(s), parser {result.document.parser}) against {result.schema_name}",
        f"  {total} fields: {s.verified} verified, {s.needs_review} needs review, "
        f"{s.unsupported} unsupported, {s.not_found} not found",
    ]
    corrected = sum(f.span_corrected for f in result.fields.values())
    computed = sum(f.computed for f in result.fields.values())
    if corrected or computed:
        lines.append(f"  {corrected} span(s) corrected, {computed} value(s) partly computed")
    kinds = Counter(
        _reason_kind(reason)
        for f in result.fields.values()
        if f.status in (Status.NEEDS_REVIEW, Status.UNSUPPORTED)
        for reason in f.reasons
    )
    if kinds:
        lines.append("  reasons:")
        lines += [f"    {n} × {kind}" for kind, n in kinds.most_common()]
    if changes:
        lines.append("  changed since the stored result:")
        lines += [f"    {c.path}: {c.before.value} -> {c.after.value}" for c in changes]
    return "\n".join(lines)
