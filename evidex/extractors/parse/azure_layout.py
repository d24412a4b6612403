"""``AzureLayoutParser``: Azure Document Intelligence ``prebuilt-layout`` as a line table.

The only module importing ``azure.*``. PDF/PNG/JPEG/TIFF/BMP bytes (by magic bytes) go to
``begin_analyze_document`` (202 + ``Operation-Location``), polled every ``polling_interval_s``
(SDK default 30 s) up to ``timeout_s`` overall, with ``unicodeCodePoint`` offsets. Page unit
``inch`` (PDF) x 72 -> points; ``pixel`` (image) kept; origin top-left; polygon -> min/max box.
One row per Azure line in Azure's reading order: ``text`` = ``content`` at its spans, ``words``
those in its spans, ``role`` from the paragraph holding it, ``font_size`` ~ 0.8 x line height,
``ocr_confidence`` the lowest word confidence, ``word_confidence`` each word's. A table ROW is
one line (cells joined by `` | `` in column order, the cells' words and boxes, ``table`` = its
index) replacing the lines inside its cells where the first was; :func:`tables_of` gives the
cells. 401/403 -> :class:`AzureAuthError`, 429 -> :class:`AzureQuota` (over 5 s of
``Retry-After`` is not slept through), ``InvalidContent`` -> ``CorruptDocument``,
``UnsupportedContent``/size -> ``UnsupportedDocument``, 5xx/failed/no
answer/timeout -> :class:`AzureUnavailable` (after the SDK's ``max_retries`` retries).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import io
import itertools
import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
from azure.ai.documentintelligence import DocumentIntelligenceClient
from azure.core import exceptions as azure_errors
from azure.core.credentials import AzureKeyCredential
from azure.core.pipeline.policies import RetryPolicy
from azure.core.polling.base_polling import LROBasePolling
from azure.core.rest import HttpRequest, HttpResponse

from evidex.extractors.document import PAGE_COLUMNS, ParsedDocument, Word, make_lines, make_pages
from evidex.extractors.errors import CorruptDocument, EmptyDocument, UnsupportedDocument
from evidex.extractors.settings import Settings
from evidex.schemas.errors import ConfigError, EvidexError, RunError

__all__ = ["AzureAuthError", "AzureError", "AzureLayoutParser", "AzureQuota", "AzureUnavailable"]
__all__ += ["Cell", "Table", "tables_of"]

Box = tuple[float, float, float, float]
Span = tuple[int, int]  # (start, end) offsets into ``content``
_MAGIC = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg", b"BM": "image/bmp"}
_MAGIC |= {b"II*\x00": "image/tiff", b"MM\x00*": "image/tiff"}
_SERVICE = "Azure Document Intelligence"
_DOCUMENT_CODES: dict[str, tuple[type[EvidexError], str]] = {
    "InvalidContent": (CorruptDocument, "the file is damaged: re-export or re-download it"),
    "UnsupportedContent": (UnsupportedDocument, "convert it to PDF and try again"),
    "InvalidContentLength": (UnsupportedDocument, "the file is too large: split or compress it"),
    "InvalidContentDimensions": (UnsupportedDocument, "its page size is outside Azure's limits"),
}
_ENDPOINT, _KEY = "AZURE_DOCUMENT_INTELLIGENCE_ENDPOINT", "AZURE_DOCUMENT_INTELLIGENCE_KEY"
_MISSING = f"set {_ENDPOINT} and {_KEY}"


class AzureError(RunError):
    code = "azure_failed"


class AzureUnavailable(AzureError):
    code = "azure_unavailable"
    transient = True


class AzureQuota(AzureError):
    code = "azure_quota"
    transient = True

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class AzureAuthError(ConfigError):
    code = "azure_auth_failed"


@dataclass(frozen=True)
class Cell:
    row: int
    col: int
    text: str  # the cell's content, newlines as spaces
    page: int
    box: Box | None  # points for PDFs, pixels for images
    words: tuple[Word, ...] = ()  # char ranges into ``text``
    spans: tuple[Span, ...] = ()
    kind: str = "content"  # or columnHeader, rowHeader, ...
    word_confidence: tuple[float, ...] = ()  # per word of ``words``

    @property
    def confidence(self) -> float:
        """The lowest word confidence (NaN when none is known)."""
        return _lowest(self.word_confidence)


@dataclass(frozen=True)
class Table:
    index: int
    row_count: int
    column_count: int
    cells: tuple[Cell, ...]

    def rows(self) -> list[list[Cell]]:
        cells = sorted(self.cells, key=lambda c: (c.row, c.col))
        return [list(row) for _, row in itertools.groupby(cells, key=lambda c: c.row)]


class AzureLayoutParser:
    """PDFs and images through Azure's layout model (``name = "azure"``)."""

    name = "azure"

    def __init__(
        self,
        endpoint: str,
        key: str,
        *,
        model_id: str = "prebuilt-layout",
        polling_interval_s: float = 1.0,
        timeout_s: float = 120.0,
        max_retries: int = 2,
        client: DocumentIntelligenceClient | None = None,
    ) -> None:
        if client is None and (not key or not endpoint.startswith(("https://", "http://"))):
            raise ConfigError(f"--parser azure: {_MISSING} (endpoint now: {endpoint!r})")
        self.endpoint, self.model_id = endpoint.rstrip("/"), model_id
        self.polling_interval_s, self.timeout_s = polling_interval_s, timeout_s
        self._key, self._max_retries, self._client = key, max_retries, client

    @classmethod
    def from_settings(cls, settings: Settings) -> AzureLayoutParser:
        endpoint = settings.azure_document_intelligence_endpoint or ""
        key = settings.azure_document_intelligence_key
        interval, timeout = settings.azure_polling_interval_s, settings.azure_timeout_s
        secret = key.get_secret_value() if key else ""
        return cls(endpoint, secret, polling_interval_s=interval, timeout_s=timeout)

    def _connect(self) -> contextlib.AbstractContextManager[DocumentIntelligenceClient]:
        """A given client as is; else a new one per document, closed after it (fork-safe)."""
        if self._client is not None:
            return contextlib.nullcontext(self._client)
        return DocumentIntelligenceClient(
            self.endpoint,
            AzureKeyCredential(self._key),
            retry_policy=_Retry(retry_total=self._max_retries, timeout=self.timeout_s),
            connection_timeout=min(10.0, self.timeout_s),
            read_timeout=self.timeout_s,
        )

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        media_type = _media_type(data, filename)
        lines, pages = _line_table(self.analyze(data, filename), filename)
        sha256 = hashlib.sha256(data).hexdigest()
        return ParsedDocument(lines, pages, sha256, filename, self.name, media_type)

    def analyze(self, data: bytes, filename: str) -> Mapping[str, Any]:
        """The document's ``analyzeResult`` as plain JSON (wire keys)."""
        polling = _Polling(self.polling_interval_s)
        polling.deadline = time.monotonic() + self.timeout_s
        try:
            with self._connect() as client:
                poller = client.begin_analyze_document(
                    self.model_id,
                    io.BytesIO(data),
                    string_index_type="unicodeCodePoint",
                    polling=polling,
                )
                result: Mapping[str, Any] = poller.result().as_dict()  # the thread has ended
        except TimeoutError as exc:  # from _Polling
            late = f"timed out after {self.timeout_s:g} s (see EVIDEX_AZURE_TIMEOUT_S)"
            raise AzureUnavailable(f"{filename}: {_SERVICE} {late}; try again later") from exc
        except azure_errors.HttpResponseError as exc:
            raise _translate(exc, filename) from exc
        except azure_errors.AzureError as exc:
            where = f"at {self.endpoint} did not answer ({exc.message})"
            raise AzureUnavailable(f"{filename}: {_SERVICE} {where}; check {_ENDPOINT}") from exc
        return result


class _Polling(LROBasePolling[Any, HttpRequest, HttpResponse]):
    """The SDK's polling, which ends by itself at the deadline: no thread outlives a parse."""

    deadline = math.inf  # time.monotonic() at which to stop

    def _sleep(self, delay: float) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        super()._sleep(min(delay, left))


class _Retry(RetryPolicy[HttpRequest, HttpResponse]):
    """The SDK's retries, except a 429 asking to wait long; a retried response is closed first."""

    def sleep(self, settings: dict[str, Any], transport: Any, response: Any = None) -> None:
        if response is not None:
            response.http_response.close()
        super().sleep(settings, transport, response)

    def is_retry(self, settings: dict[str, Any], response: Any) -> bool:
        after = _retry_after(response.http_response)
        if response.http_response.status_code == 429 and after is not None and after > 5.0:
            return False  # a long wait: raised at once, for the caller to reschedule
        return bool(super().is_retry(settings, response))


def _media_type(data: bytes, filename: str) -> str:
    if not data:
        raise EmptyDocument(f"{filename}: the file is empty (0 bytes); upload the complete file")
    if b"%PDF-" in data[:1024]:
        return "application/pdf"
    for magic, kind in _MAGIC.items():
        if data.startswith(magic):
            return kind
    kinds = "not a PDF, PNG, JPEG, TIFF or BMP file (by its first bytes)"
    raise UnsupportedDocument(f"{filename}: {kinds}; convert it to one of those and try again")


def _translate(exc: azure_errors.HttpResponseError, filename: str) -> EvidexError:
    """The error for a failed call; ``detail``: the innermost ``error.innererror...``."""
    status, body, codes, detail = exc.status_code or 0, {}, [], ""
    with contextlib.suppress(ValueError, TypeError, AttributeError):
        body = json.loads(exc.response.text())  # type: ignore[union-attr]
    err = body.get("error") if isinstance(body, dict) else None
    while isinstance(err, dict):
        codes.append(str(err.get("code", "")))
        detail = f"{err.get('code', '')}: {err.get('message', '')}"
        err = err.get("innererror")
    detail = detail or str(exc.reason or exc.message or "no details")
    if status in (401, 403):
        where = f"check {_KEY} (and that {_ENDPOINT} is its resource)"
        return AzureAuthError(f"{_SERVICE} refused the credentials ({status}: {detail}); {where}")
    if status == 429:
        after = _retry_after(exc.response)
        wait = f"; Azure asks to wait {after:g} s" if after is not None else ""
        message = f"{filename}: {_SERVICE} is rate-limited (429){wait}; retry later"
        return AzureQuota(message, retry_after=after)
    for code in codes:
        if code in _DOCUMENT_CODES:
            kind, advice = _DOCUMENT_CODES[code]
            return kind(f"{filename}: {_SERVICE} cannot read the file ({detail}); {advice}")
    if status >= 500 or status in (0, 200, 408):  # 200: the analysis itself failed
        what = f"{status}" if status != 200 else "the analysis"
        return AzureUnavailable(f"{filename}: {_SERVICE} failed ({what}: {detail}); try later")
    where = f"; check {_ENDPOINT}" if status == 404 else ""
    return AzureError(f"{filename}: {_SERVICE} rejected the request ({status}: {detail}){where}")


def _retry_after(response: Any) -> float | None:
    """Seconds a response's ``Retry-After`` asks to wait, if it says."""
    with contextlib.suppress(AttributeError, KeyError, TypeError, ValueError):
        return max(0.0, float(response.headers["Retry-After"]))
    return None


class _Layout:
    """An ``analyzeResult`` indexed: each page's unit scale, the words by offset."""

    def __init__(self, result: Mapping[str, Any]) -> None:
        self.content: str = result.get("content") or ""
        self.pages = sorted(result.get("pages") or [], key=lambda p: int(p["pageNumber"]))
        inch = {int(p["pageNumber"]): str(p.get("unit", "inch")).lower() for p in self.pages}
        self.scale = {n: 72.0 if unit == "inch" else 1.0 for n, unit in inch.items()}
        self.words: list[tuple[int, int, Box | None, float]] = []
        for page in self.pages:
            for w in (w for w in page.get("words") or [] if w.get("span")):
                box = self.box(w.get("polygon"), int(page["pageNumber"]))
                span, confidence = w["span"], float(w.get("confidence", math.nan))
                self.words.append((int(span["offset"]), int(span["length"]), box, confidence))
        self.words.sort(key=lambda w: w[0])
        self.starts = [w[0] for w in self.words]

    def box(self, polygon: Sequence[float] | None, page: int) -> Box | None:
        if not polygon or len(polygon) < 4:
            return None
        xs, ys, s = polygon[0::2], polygon[1::2], self.scale.get(page, 72.0)
        return (min(xs) * s, min(ys) * s, max(xs) * s, max(ys) * s)

    def text(self, spans: Sequence[Span]) -> tuple[str, list[Word], list[float]]:
        """The text at ``spans`` (joined by spaces), its words, and their confidences."""
        text, words, confidences = "", [], []
        for start, end in spans:
            base = len(text) + (1 if text else 0)
            text += (" " if text else "") + self.content[start:end].replace("\n", " ")
            i = bisect.bisect_left(self.starts, start)
            while i < len(self.words) and self.words[i][0] < end:
                offset, length, box, confidence = self.words[i]
                i += 1
                if box is not None and length > 0:
                    stop = min(offset + length, end) - start + base
                    words.append((offset - start + base, stop, box[0], box[1], box[2], box[3]))
                    confidences.append(confidence)
        return text, words, confidences


def _lowest(confidences: Sequence[float]) -> float:
    return min((c for c in confidences if not math.isnan(c)), default=math.nan)


def _finder(items: Iterable[tuple[Span, Any]]) -> Callable[[Sequence[Span]], Any]:
    """For non-overlapping ranges with values: the value of a range overlapping given spans."""
    ranges = sorted(items, key=lambda item: item[0])
    starts = [span[0] for span, _ in ranges]

    def find(spans: Sequence[Span]) -> Any:
        for start, end in spans:
            i = bisect.bisect_left(starts, end) - 1
            if i >= 0 and ranges[i][0][1] > start:
                return ranges[i][1]
        return None

    return find


def _spans(element: Mapping[str, Any]) -> list[Span]:
    found = ((int(s["offset"]), int(s["length"])) for s in element.get("spans") or [])
    return [(offset, offset + length) for offset, length in found if length > 0]


def _union(boxes: Sequence[Sequence[float]]) -> Box:
    x0, y0, x1, y1 = zip(*boxes, strict=True)
    return (min(x0), min(y0), max(x1), max(y1))


def tables_of(result: Mapping[str, Any]) -> list[Table]:
    """The tables of an ``analyzeResult`` (wire keys); boxes in points (PDF) or pixels (image)."""
    return _tables(result, _Layout(result))


def _tables(result: Mapping[str, Any], layout: _Layout) -> list[Table]:
    tables = []
    for index, table in enumerate(result.get("tables") or []):
        cells = []
        for cell in table.get("cells") or []:
            spans = _spans(cell)
            text, words, confs = layout.text(spans)
            region = (cell.get("boundingRegions") or table.get("boundingRegions") or [{}])[0]
            page = int(region.get("pageNumber", 0))
            box, kind = layout.box(region.get("polygon"), page), cell.get("kind") or "content"
            row, col = int(cell["rowIndex"]), int(cell["columnIndex"])
            read = (tuple(words), tuple(spans), kind, tuple(confs))
            cells.append(Cell(row, col, text, page, box, *read))
        size = (int(table.get("rowCount") or 0), int(table.get("columnCount") or 0))
        tables.append(Table(index, *size, tuple(cells)))
    return tables


def _row(page: int, text: str, words: list[Word], box: Box | None, **more: Any) -> dict[str, Any]:
    x0, y0, x1, y1 = box or _union([w[2:] for w in words])
    font_size = round(0.8 * min(y1 - y0, max((w[5] - w[3] for w in words), default=y1 - y0)), 2)
    facts = {"font_size": font_size, "visible": True, "hidden_reason": "", "words": words}
    return {"page": page, "text": text, "x0": x0, "y0": y0, "x1": x1, "y1": y1, **facts, **more}


def _table_rows(table: Table) -> dict[int, list[dict[str, Any]]]:
    """Page -> the table's rows on it, one line each: cells joined by `` | ``."""
    out: dict[int, list[dict[str, Any]]] = {}
    for cells in table.rows():
        words: list[Word] = []
        confs: list[float] = []
        starts = itertools.accumulate((len(c.text) + 3 for c in cells), initial=0)
        for cell, pos in zip(cells, starts, strict=False):
            words += [(w[0] + pos, w[1] + pos, w[2], w[3], w[4], w[5]) for w in cell.words]
            confs += cell.word_confidence
        boxes = [c.box for c in cells if c.box is not None]
        if not any(c.text.strip() for c in cells) or not (boxes or words):
            continue
        text, box = " | ".join(c.text for c in cells), _union(boxes) if boxes else None
        row = _row(
            cells[0].page,
            text,
            words,
            box,
            table=table.index,
            ocr_confidence=_lowest(confs),
            word_confidence=tuple(confs),
        )
        out.setdefault(cells[0].page, []).append(row)
    return out


def _line_table(result: Mapping[str, Any], filename: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The line table and the page table of an ``analyzeResult``."""
    layout = _Layout(result)
    tables = _tables(result, layout)
    in_table = _finder((span, t.index) for t in tables for c in t.cells for span in c.spans)
    paragraphs = [p for p in result.get("paragraphs") or [] if p.get("role")]
    role_of = _finder((span, str(p["role"])) for p in paragraphs for span in _spans(p))
    table_rows = [_table_rows(t) for t in tables]
    rows: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    for page in layout.pages:
        number, placed = int(page["pageNumber"]), set()
        for line in page.get("lines") or []:
            spans = _spans(line)
            table = in_table(spans)
            if table is not None:  # the table's rows go where its first line was
                rows += [] if table in placed else table_rows[table].get(number, [])
                placed.add(table)
                continue
            text, words, confs = layout.text(spans)
            box, role = layout.box(line.get("polygon"), number), role_of(spans) or ""
            if text.strip() and (box or words):
                confidence = {"ocr_confidence": _lowest(confs), "word_confidence": tuple(confs)}
                rows.append(_row(number, text, words, box, role=role, **confidence))
        for index, by_page in enumerate(table_rows):  # a table none of whose lines was listed
            rows += [] if index in placed else by_page.get(number, [])
        size = [float(page.get(k) or 0) * layout.scale[number] for k in ("width", "height")]
        rotation = round(float(page.get("angle") or 0) / 90) * 90 % 360
        pages.append(dict(zip(PAGE_COLUMNS, (number, *size, rotation, "azure", True), strict=True)))
    if not rows:
        raise EmptyDocument(f"{filename}: {_SERVICE} found no text on any page; is it blank?")
    return make_lines(rows, "azure"), make_pages(pages)
