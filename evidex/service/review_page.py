"""The review page's HTML: the pages with every field's boxes over them, and the field list.

Server-rendered from ``static/review.html`` (a :class:`string.Template`, inside the pages' head,
``static/page.html``); every value that came from a document or a request is HTML-escaped here.
The Content-Security-Policy forbids inline styles, so boxes carry their position as
``data-l/t/w/h`` (percent of the page image) and ``review.js`` applies them; without scripts
the list still shows every field.

Fields that are not verified come first (needs review, unsupported, not found, then verified),
each group in the result's order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from evidex.schemas import Box, FieldResult, LeafSpec, Result, Status
from evidex.service.assets import render_page
from evidex.service.decisions import NUMBER_KINDS, Action, Decision, Decisions

__all__ = [
    "ORDER",
    "PageImage",
    "display",
    "ordered",
    "render_review",
    "spec_for",
]

ORDER = (Status.NEEDS_REVIEW, Status.UNSUPPORTED, Status.NOT_FOUND, Status.VERIFIED)
LABELS = {Action.CONFIRM: "Confirmed", Action.EDIT: "Edited", Action.REJECT: "Rejected"}
_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True, slots=True)
class PageImage:
    """One page: its size in the unit of its boxes (points; an image file's own pixels) and
    its image's size in pixels."""

    number: int
    scale: float  # image pixels per box unit: dpi / 72 for a PDF page
    width_pt: float
    height_pt: float
    width_px: int
    height_px: int
    scale_y: float | None = None  # vertically, when it differs (an image shown scaled down)


def spec_for(specs: Mapping[str, LeafSpec], path: str) -> LeafSpec:
    """The leaf spec of a result path (``items[2].amount`` -> ``items[].amount``)."""
    return specs.get(_INDEX.sub("[]", path)) or LeafSpec(path, "string", "")


def display(value: Any) -> str:
    """A value as a reviewer reads it."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        if "iso" in value:
            original = value.get("original")
            return str(value["iso"]) + (f" ({original})" if original != value["iso"] else "")
        if "currency" in value and "value" in value:
            return f"{value['value']} {value['currency'] or ''}".strip()
        if "unit" in value and "amount" in value:
            return f"{value['amount']:g} {value['unit']}"
        if set(value) >= {"street", "city"}:
            return ", ".join(str(v) for v in value.values() if v not in (None, ""))
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _attrs(attrs: Mapping[str, object]) -> str:
    return "".join(f' {name}="{escape(str(value))}"' for name, value in attrs.items())


def _where(field: FieldResult) -> str:
    if field.page is None:
        return "not located"
    lines = ""
    if field.line_start is not None:
        end = field.line_end if field.line_end is not None else field.line_start
        lines = (
            f" · line {field.line_start}"
            if end == field.line_start
            else (f" · lines {field.line_start}–{end}")
        )
    return f"p. {field.page}{lines}"


def _editor(spec: LeafSpec, value: Any) -> str:
    """The typed input of the edit form, holding the machine value."""
    if spec.enum or spec.kind == "boolean":
        current = display(value)
        items = "".join(
            f"<option{' selected' if o == current else ''}>{escape(o)}</option>"
            for o in spec.enum or ("true", "false")
        )
        return f'<select name="value" aria-label="New value">{items}</select>'
    attrs: dict[str, object]
    if spec.kind in NUMBER_KINDS or spec.kind == "amount":
        number = value.get("value") if isinstance(value, dict) else value
        ok = isinstance(number, int | float) and not isinstance(number, bool)
        step = "1" if spec.kind == "integer" else "any"
        attrs = {"type": "number", "name": "value", "step": step, "value": number if ok else ""}
    elif spec.kind == "date":
        iso = value.get("iso", "") if isinstance(value, dict) else ""
        attrs = {"type": "date", "name": "value", "value": iso}
    else:  # address and duration as JSON, the rest as text
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else value
        attrs = {"type": "text", "name": "value", "value": "" if shown is None else shown}
    return f'<input{_attrs(attrs)} aria-label="New value" required>'


def _decided(decision: Decision | None) -> str:
    hidden = "" if decision else " hidden"
    label, value, who = "", "", ""
    if decision:
        label, value = LABELS[decision.action], display(decision.value)
        who = f"{decision.who} · {decision.at.isoformat(timespec='seconds')}"
    return (
        f'<p class="decided"{hidden}><span class="d-label">{escape(label)}</span> '
        f'<span class="d-value">{escape(value)}</span> '
        f'<span class="d-who">{escape(who)}</span></p>'
    )


def _field(index: int, path: str, field: FieldResult, spec: LeafSpec, d: Decision | None) -> str:
    status = field.status.value
    classes = f"field s-{status}" + (f" decided d-{d.action.value}" if d else "")
    reasons = "".join(f"<li>{escape(r)}</li>" for r in field.reasons)
    note = f'<p class="caveat">{escape(field.caveat)}</p>' if field.caveat else ""
    head = _attrs({"id": f"f-{index}", "class": classes, "data-path": path, "data-kind": spec.kind})
    return (
        f"<li{head}>"
        f'<div class="head"><code class="path">{escape(path)}</code>'
        f'<span class="badge s-{status}">{escape(status.replace("_", " "))}</span></div>'
        f'<p class="value">{escape(display(field.value))}</p>'
        + (f'<ul class="reasons">{reasons}</ul>' if reasons else "")
        + note
        + f'<p class="where">{escape(_where(field))}</p>'
        + _decided(d)
        + '<div class="actions">'
        '<button type="button" data-act="confirm">Confirm <kbd>c</kbd></button>'
        '<button type="button" data-act="edit">Edit <kbd>e</kbd></button>'
        '<button type="button" data-act="reject">Reject <kbd>r</kbd></button>'
        '<span class="save-status" role="status"></span></div>'
        f'<form class="editor" hidden>{_editor(spec, field.value)}'
        '<input type="text" name="note" placeholder="Note (optional)" aria-label="Note">'
        '<button type="submit">Save</button><button type="button" data-act="cancel">Cancel'
        "</button></form></li>"
    )


def _box(
    index: int, path: str, field: FieldResult, box: Box, page: PageImage, decided: bool
) -> str:
    """A box as percentages of its page image: points times ``dpi / 72`` are pixels."""
    scale_y = page.scale if page.scale_y is None else page.scale_y
    fx, fy = page.scale * 100 / page.width_px, scale_y * 100 / page.height_px
    title = f"{path} = {display(field.value)} · {field.status.value.replace('_', ' ')}"
    attrs = _attrs(
        {
            "class": f"box s-{field.status.value}" + (" decided" if decided else ""),
            "data-field": f"f-{index}",
            "data-l": f"{box.x0 * fx:.4f}",
            "data-t": f"{box.y0 * fy:.4f}",
            "data-w": f"{(box.x1 - box.x0) * fx:.4f}",
            "data-h": f"{(box.y1 - box.y0) * fy:.4f}",
            "title": title,
        }
    )
    return f"<div{attrs}></div>"


def ordered(result: Result) -> list[tuple[str, FieldResult]]:
    """The fields, not verified first (see :data:`ORDER`), then in the result's order."""
    items = list(result.fields.items())
    return sorted(items, key=lambda item: ORDER.index(item[1].status))


def _page(page: PageImage, api: str, boxes: str) -> str:
    n = page.number
    img = _attrs(
        {
            "src": f"{api}/pages/{n}.png",
            "width": page.width_px,
            "height": page.height_px,
            "alt": f"Page {n}",
            "loading": "lazy" if n > 2 else "eager",
        }
    )
    return (
        f'<section class="page" id="page-{n}"><h2>Page {n}</h2>'
        f'<div class="sheet"><img{img}>{boxes}</div></section>'
    )


def render_review(
    *,
    job_id: str,
    filename: str,
    result: Result,
    decisions: Decisions,
    specs: Mapping[str, LeafSpec],
    pages: Sequence[PageImage],
    api: str,
    assets: Mapping[str, str],
) -> str:
    """The page for one job. ``api``: the job's URL (``/v1/jobs/{id}``); ``assets``: the URL of
    each static asset by file name."""
    fields = ordered(result)
    items: list[str] = []
    boxes: dict[int, list[str]] = {page.number: [] for page in pages}
    by_number = {page.number: page for page in pages}
    for index, (path, field) in enumerate(fields):
        decision = decisions.decisions.get(path)
        items.append(_field(index, path, field, spec_for(specs, path), decision))
    # Drawn last = on top: the fields that need a look lie over the verified ones.
    for index, (path, field) in reversed(list(enumerate(fields))):
        decided = path in decisions.decisions
        for box in field.boxes:
            if box.page in by_number:
                page = by_number[box.page]
                boxes[box.page].append(_box(index, path, field, box, page, decided))
    pages_html = "".join(_page(p, api, "".join(boxes[p.number])) for p in pages)
    counts = {status: 0 for status in ORDER}
    for _, field in fields:
        counts[field.status] += 1
    summary = " ".join(
        f'<span class="count s-{s.value}">{counts[s]} {s.value.replace("_", " ")}</span>'
        for s in ORDER
    )
    return render_page(
        "review",
        f"Review · {filename}",
        assets,
        title=escape(filename),
        job_id=escape(job_id),
        api=escape(api),
        schema=escape(result.schema_name),
        page_count=len(pages) or result.document.pages,
        counts=summary,
        reviewed=len([p for p, _ in fields if p in decisions.decisions]),
        total=len(fields),
        pages=pages_html or '<p class="no-pages">This document has no page images.</p>',
        fields="".join(items),
    )
