"""Verification: every quote, every value, every span, against the line table.

Pure: takes the schema, the model's filled instance and the line table; returns field results.
The model's word is never taken: the quote must be in the document (:mod:`.align`), the value
must be what the quote says (:mod:`.compare`), the schema's rules must hold
(:mod:`.crossfield`), and evidence a reader cannot see never verifies.

Status, in order of precedence (DESIGN.md): ``not_found`` when the model says the document does
not hold the field; ``unsupported`` when a found value has no quote or its quote occurs nowhere;
``needs_review`` when the quote is found but something is off (fuzzy match, ambiguous place,
invisible text, value disagrees, a rule fails, or the answer itself reports conflicting evidence
for the field); ``verified`` otherwise.

A backend that is unsure of a value says so in ``document_notes.conflicting_evidence``, naming
the field (``{"fields": ["total"], "description": "…"}``): a model that saw two totals, the
rules backend that picked the merchant by a fallback rule or saw two total lines disagree. Such a
field keeps its value and evidence but is never ``verified``: the description is its reason. A
conflict may name a field's parent (``seller``, ``line_items[2]``) to cover the fields under it.

Evidence read by OCR (lines with an ``ocr_confidence``) says so: a field whose matched lines were
OCRed gets the reason "read by OCR (confidence 0.87)", the lowest confidence of those lines (of
the words that print its figures, for a value read from figures: :mod:`.confidence`), and
goes to review below :data:`OCR_LOW` ("low OCR confidence"): the text may not be what is printed,
and a reviewer must look at the image. OCR noise is expected there, so a fuzzy match over OCRed
lines (local OCR, digits still exact, :mod:`.align`) is not by itself a reason for review; it
is named. A quote from an OCR line that runs to the left or right edge of the image (the line
table's ``edge``, :func:`evidex.extractors.document.with_edges`) goes to review: the photo may
have cut it off, and what is left ("HAKKA INTERNATIONAL SDN BHD") reads as well as the whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pandas as pd
from pydantic import BaseModel

from evidex.extractors.verify.align import DocText, Match
from evidex.extractors.verify.compare import as_day, check_value, quoted_values, written_number
from evidex.extractors.verify.confidence import ocr_confidence
from evidex.extractors.verify.crossfield import check_rules
from evidex.extractors.verify.locales import Order, local_currency, settle_order, weekday_clash
from evidex.extractors.verify.readings import MONEY_UNKNOWN, Money, prints_whole
from evidex.schemas import Box, FieldResult, SchemaDef, Status, iter_leaves
from evidex.schemas.field import FieldExtraction
from evidex.schemas.plain import plain_data, plain_value

__all__ = ["OCR_LOW", "Verification", "boxes_for", "cut_off", "verify"]

OCR_LOW = 0.6  # below this OCR confidence a field goes to review


@dataclass(frozen=True)
class Verification:
    fields: dict[str, FieldResult]
    data: dict[str, Any]


def cut_off(line: int, side: str) -> str:
    """Why a line an OCR engine read at the image's ``side`` may not be all that is printed."""
    return (
        f"line {line} runs to the {side} edge of the image, so the photo may cut it off: what "
        "is printed beyond the edge was not read"
    )


def boxes_for(doc: DocText, match: Match) -> list[Box]:
    """One box per line of the match: the union of the words it touches (else the line box)."""
    out: list[Box] = []
    for row, a, b in match.ranges:
        words = [w for w in doc.words[row] if w[0] < b and w[1] > a]
        if words:
            x0, y0 = min(w[2] for w in words), min(w[3] for w in words)
            x1, y1 = max(w[4] for w in words), max(w[5] for w in words)
        else:
            x0, y0, x1, y1 = doc.boxes[row]
        out.append(
            Box(
                page=doc.pages[row],
                x0=round(float(x0), 2),
                y0=round(float(y0), 2),
                x1=round(float(x1), 2),
                y1=round(float(y1), 2),
            )
        )
    return out


def _json(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def verify_field(
    kind: str,
    fe: FieldExtraction[Any],
    doc: DocText,
    lines: pd.DataFrame,
    *,
    date_order: Order | None = None,
    near: int | None = None,
    name: str = "",
    money: Money = MONEY_UNKNOWN,
) -> FieldResult:
    value = _json(fe.value)
    base = {
        "value": value,
        "quote": fe.quote,
        "page": fe.page,
        "line_start": fe.line_start,
        "line_end": fe.line_end,
        "caveat": fe.caveat,
    }
    if not fe.found:
        if value is None:
            return FieldResult(status=Status.NOT_FOUND, **base)
        return FieldResult(
            status=Status.NEEDS_REVIEW,
            reasons=["the model marked this field not found but still gave a value"],
            **base,
        )
    if not fe.quote.strip():
        return FieldResult(
            status=Status.UNSUPPORTED,
            reasons=["a value was given without a quote from the document"],
            **base,
        )
    match = doc.locate(fe.quote, fe.line_start, fe.line_end, near)
    if match is None:
        return FieldResult(
            status=Status.UNSUPPORTED,
            reasons=["the quote does not occur anywhere in the document"],
            **base,
        )
    rows = [r for r, _, _ in match.ranges]
    line_start, line_end = doc.line_numbers[rows[0]], doc.line_numbers[rows[-1]]
    corrected = (line_start, line_end) != (fe.line_start, fe.line_end) and not match.in_cited
    reasons: list[str] = []
    if corrected:
        cited = f"{fe.line_start}-{fe.line_end}" if fe.line_start is not None else "no lines"
        reasons.append(
            f"span corrected: the model cited {cited}; the quote is on {line_start}-{line_end}"
        )
    review: list[str] = []
    ocr = ocr_confidence(doc, match.ranges, kind, value)
    if match.level == "fuzzy" and ocr is not None and ocr.local:
        reasons.append(f"the quote matches the OCR text approximately ({match.score:.0f}%)")
    elif match.level == "fuzzy":
        review.append(f"the quote matches the document only approximately ({match.score:.0f}%)")
    where = f" on {ocr.word!r}" if ocr is not None and ocr.word else ""
    if ocr is not None and ocr.value < OCR_LOW:
        review.append(
            f"low OCR confidence ({ocr.value:.2f}){where}: the text was read by OCR and may not "
            "be what is printed; check it against the image"
        )
    elif ocr is not None:
        reasons.append(f"read by OCR (confidence {ocr.value:.2f}{where})")
    cut = next((r for r in rows if doc.edge[r]), None)
    if cut is not None:
        where = cut_off(doc.line_numbers[cut], doc.edge[cut])
        review.append(f"{where}; check the value against the image")
    if match.ambiguous:
        review.append(f"the quote occurs {match.occurrences} times and the {_AMBIGUOUS}")
    hidden = [r for r in rows if not doc.visible[r]]
    if hidden:
        why = doc.hidden_reason[hidden[0]] or "invisible text"
        review.append(
            f"the evidence is in text a reader cannot see ({why}): possible prompt injection"
        )
    if value is None:
        review.append("the field is marked found but has no value")
        computed = False
    else:
        order = date_order or Order(None)
        check = check_value(
            kind,
            value,
            doc.raw_text(match.ranges),
            order.order,
            match.level == "fuzzy",
            name,
            order.reason,
            ocr=ocr is not None,
            money=money,
        )
        computed = check.computed
        if not check.ok:
            review.append(check.reason)
        elif check.reason:
            reasons.append(check.reason)
        if check.ok and kind == "date" and (clash := _weekday_clash(value, doc, rows)):
            review.append(clash)
    return FieldResult(
        value=value,
        status=Status.NEEDS_REVIEW if review else Status.VERIFIED,
        reasons=review + reasons,
        quote=fe.quote,
        page=doc.pages[rows[0]],
        line_start=line_start,
        line_end=line_end,
        span_corrected=corrected,
        match=match.level,
        computed=computed,
        boxes=boxes_for(doc, match),
        caveat=fe.caveat,
    )


def verify(
    schema: SchemaDef, output: BaseModel, lines: pd.DataFrame, doc: DocText | None = None
) -> Verification:
    doc = doc or DocText(lines)
    order = settle_order(doc.raw)
    # the currency a "$" stands for where the document places itself (AUD in Sydney), and
    # whether it prints every amount whole ("32.200" is 32200)
    local = local_currency("$", doc.raw) if any("$" in t for t in doc.raw) else None
    money = Money(local[0] if local else None, prints_whole(doc.raw))
    leaves = list(iter_leaves(output, schema.leaves))
    fields: dict[str, FieldResult] = {}
    for leaf in leaves:
        fields[leaf.path] = verify_field(
            leaf.spec.kind,
            leaf.extraction,
            doc,
            lines,
            date_order=order,
            name=_name(leaf.path),
            money=money,
        )
    # A quote found in several places, none of them cited: the place nearest the sibling fields
    # of the same object (an invoice line's other cells, a party's other details) is the one.
    for leaf in leaves:
        if _AMBIGUOUS in " ".join(fields[leaf.path].reasons):
            near = _sibling_line(leaf.path, fields)
            if near is not None:
                fields[leaf.path] = verify_field(
                    leaf.spec.kind,
                    leaf.extraction,
                    doc,
                    lines,
                    date_order=order,
                    near=near,
                    name=_name(leaf.path),
                    money=money,
                )
    for leaf in leaves:
        result = fields[leaf.path]
        result.kind, result.kind_source = leaf.spec.kind, leaf.spec.kind_source
        problem = plain_value(leaf.spec, result.value)[1] if result.value is not None else ""
        if problem and result.status is Status.VERIFIED:
            result.status = Status.NEEDS_REVIEW
            result.reasons.insert(0, problem)
    for path, why in _conflicts(output, fields).items():
        result = fields[path]
        if result.status in (Status.VERIFIED, Status.NEEDS_REVIEW):
            result.status = Status.NEEDS_REVIEW
            result.reasons[:0] = [w for w in why if w not in result.reasons]
    values = {leaf.path: (leaf.spec.kind, fields[leaf.path].value) for leaf in leaves}
    found = {p: r.status in (Status.VERIFIED, Status.NEEDS_REVIEW) for p, r in fields.items()}
    doubtful = {
        leaf.path: quoted_values(leaf.spec.kind, fields[leaf.path].quote, order.order)
        for leaf in leaves
        if fields[leaf.path].status is not Status.VERIFIED
    }
    written = {
        p: w
        for p, r in fields.items()
        if r.status is Status.VERIFIED and (w := written_number(r.value, r.quote)) is not None
    }
    for failure in check_rules(schema.rules, values, found, doubtful, written):
        for path in failure.paths:
            result = fields[path]
            if path not in failure.blamed:
                result.reasons.append(
                    f"rule {failure.rule} fails because of {', '.join(failure.blamed)}; "
                    "this value agrees with its quote"
                )
                continue
            if failure.reason not in result.reasons:
                result.reasons.insert(0, failure.reason)
            if result.status in (Status.VERIFIED, Status.NOT_FOUND):
                result.status = Status.NEEDS_REVIEW
    return Verification(fields, plain_data(output, schema.leaves))


_AMBIGUOUS = "cited lines do not settle which one is meant"
_CONFLICT = "the answer reports conflicting evidence for this field"


def _conflicts(output: BaseModel, fields: dict[str, FieldResult]) -> dict[str, list[str]]:
    """Field path -> the reasons the answer's ``conflicting_evidence`` gives for it: a conflict
    covers the fields it names and the fields under a parent it names."""
    notes = getattr(output, "document_notes", None)
    out: dict[str, list[str]] = {}
    for conflict in getattr(notes, "conflicting_evidence", None) or ():
        why = conflict.description.strip() or _CONFLICT
        for name in conflict.fields:
            name = name.strip()
            for path in fields:
                if name and (path == name or path.startswith((name + ".", name + "["))):
                    out.setdefault(path, [])
                    if why not in out[path]:
                        out[path].append(why)
    return out


def _sibling_line(path: str, fields: dict[str, FieldResult]) -> int | None:
    """The median line of the located, unambiguous fields in the same object as ``path``."""
    if "." not in path:
        return None
    parent = path.rsplit(".", 1)[0] + "."
    lines = sorted(
        f.line_start
        for p, f in fields.items()
        if p != path
        and p.startswith(parent)
        and f.line_start is not None
        and f.match != "none"
        and _AMBIGUOUS not in " ".join(f.reasons)
    )
    return lines[len(lines) // 2] if lines else None


def _weekday_clash(value: Any, doc: DocText, rows: list[int]) -> str:
    """Why a date its quote holds is not the one its lines print beside their weekday (the
    quote may hold the date alone, "14/01/2013" of "14/01/2013 (SUN) 12:06")."""
    day = as_day(value)
    return weekday_clash(day, " ".join(doc.raw[r] for r in rows)) if day else ""


def _name(path: str) -> str:
    """The field's own name: ``tax`` for ``totals.tax``, ``amount`` for ``items[2].amount``."""
    return re.sub(r"\[\d*\]", "", path).rsplit(".", 1)[-1]
