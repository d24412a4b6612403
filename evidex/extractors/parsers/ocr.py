"""``OcrParser``: scans read by Tesseract, as a line table with boxes and OCR confidence.

Which pages: a PDF page is read by OCR when it has no real text layer (:func:`needs_ocr`), every
page with ``force=True``; the other pages keep their text layer (:class:`PyMuPDFParser`), so one
scanned page does not cost a digital document its exact text. Images (PNG, JPEG, TIFF frames, see
:mod:`.images`) are always read by OCR, in their own pixels. ``page_df.parser`` says which parser
read each page.

How a page is read: PyMuPDF renders the *displayed* page (``/Rotate`` applied, so boxes land in the
same space as the text layer's) in grey at ``dpi`` (300 by default: Tesseract reads 72 dpi poorly,
300 well), and the ``tesseract`` command reads the PNG on stdin and writes TSV: one row per word
with its box and confidence.

Why Tesseract's TSV rather than PyMuPDF's ``get_textpage_ocr``: its OCR text page has no
confidences, so those would need a second Tesseract run over the same image (OCR is the whole cost
of this parser) and a box-overlap mapping between two runs that need not agree on the words. One
TSV run gives text, word boxes and word confidences together, so the confidence belongs to the
very word it describes. Measured on the invoice sample scanned at 200 dpi, on 2 cores: PyMuPDF's
OCR 3.5 s a page, Tesseract TSV 1.6 s; MuPDF's OCR also split the sample's table into fragments.
Tesseract runs with ``OMP_THREAD_LIMIT=1`` (its OpenMP threads spin against each other on small
machines: 7 s a page with the default) and pages run in parallel processes instead.

Lines: Tesseract's lines, split where two words are more than 1.5 line heights apart (Tesseract
joins the columns of a form or a table into one line). Segments stacked left-aligned less than a
line height apart form a block (a paragraph, an address); the blocks go through the text layer's
reading order (the XY-cut of :mod:`.pymupdf_parser`), so a column of text reads down and a form or
a table of one-line cells reads in rows.

Boxes: a word's box is its ink box horizontally and its line's extent vertically, grown by 30% of
the line height above and 10% below: ink stops at the glyphs while a text layer's boxes span the
font's ascent and descent, and a highlight should cover the same band whether the page was read
from text or by OCR. PDF pages: points, origin top-left; images: pixels.

Confidence: ``ocr_confidence`` is the mean of the line's word confidences (Tesseract's 0-100 scaled
to 0..1), leaving out words without a letter or digit (bullets, rules, stray marks: where Tesseract
is least sure, and they carry no value) unless the line has nothing else. Verification names it
for every field read by OCR, and a low one sends the field to review
(:mod:`evidex.extractors.verify`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
import pymupdf

from evidex.extractors.document import (
    PAGE_COLUMNS,
    ParsedDocument,
    Parser,
    Word,
    make_lines,
    make_pages,
)
from evidex.extractors.errors import NoTextLayer
from evidex.extractors.parsers.images import image_pages, image_type
from evidex.extractors.parsers.pymupdf_parser import PyMuPDFParser, open_pdf, reading_order
from evidex.schemas import ConfigError, RunError

__all__ = [
    "DEFAULT_DPI",
    "OcrParser",
    "Part",
    "Tesseract",
    "combine",
    "find_tessdata",
    "image_cover",
    "mixed_name",
    "needs_ocr",
    "page_lines",
    "page_part",
    "page_rows",
    "pages_to_ocr",
    "read_text_layer",
]

_mupdf: Any = pymupdf  # PyMuPDF's annotations are partial (untyped calls); go through Any
Part = tuple[dict[str, Any], list[dict[str, Any]]]  # one page: its page_df facts, its line rows

DEFAULT_DPI = 300
_SPLIT_GAP = 1.5  # line heights between two words that start a new segment
_STACK_GAP = 1.0  # line heights between stacked segments of one block
_PAIR_GAP = 8.0  # line heights: segments of one line closer than this are a label and its value
_PAD_TOP, _PAD_BOTTOM = 0.3, 0.1  # of the line height, see "Boxes"
_MIN_CHARS = 20  # visible characters a text layer needs to count as real...
_IMAGE_PAGE = 0.5  # ...on a page whose images cover at least this share
_GARBLED = 0.3  # share of replacement / private-use characters that makes a text layer junk
_TESSDATA_DIRS = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/opt/homebrew/share/tessdata",
)


def find_tessdata(language: str = "eng", explicit: str | None = None) -> str | None:
    """The folder holding ``{language}.traineddata``: ``explicit``, ``$TESSDATA_PREFIX`` (or its
    ``tessdata`` folder), then the usual system places; None when none has it."""
    first = [explicit, os.environ.get("TESSDATA_PREFIX")]
    candidates = [c for c in first if c] + [str(Path(c) / "tessdata") for c in first if c]
    for folder in [*candidates, *_TESSDATA_DIRS]:
        if (Path(folder) / f"{language.split('+')[0]}.traineddata").is_file():
            return folder
    return None


@dataclass(frozen=True, slots=True)
class _Word:
    text: str
    box: tuple[float, float, float, float]  # pixels of the image Tesseract read
    conf: float  # 0..100
    line: tuple[int, int, int]  # Tesseract's block, paragraph, line
    line_box: tuple[float, float, float, float]


@dataclass(frozen=True)
class Tesseract:
    """How to call the ``tesseract`` command; :meth:`words` reads one image."""

    language: str = "eng"
    tessdata: str | None = None
    binary: str = "tesseract"
    timeout_s: float = 120.0

    def check(self) -> str:
        """The command's path; a ``ConfigError`` saying what to install when it is missing."""
        path = shutil.which(self.binary)
        if path is None:
            raise ConfigError(
                f"OCR needs the tesseract command, which is not installed ({self.binary!r} is not "
                "on PATH): install tesseract-ocr (Debian/Ubuntu: apt-get install tesseract-ocr "
                "tesseract-ocr-eng), or use --parser azure"
            )
        if self.tessdata is None and find_tessdata(self.language) is None:
            raise ConfigError(
                f"OCR needs Tesseract's language data for {self.language!r}, which was not found: "
                f"install tesseract-ocr-{self.language} or set TESSDATA_PREFIX to its folder"
            )
        return path

    def words(self, png: bytes, dpi: int | None, what: str) -> list[_Word]:
        """Tesseract's words in ``png`` (a page image at ``dpi``; None: let Tesseract estimate
        it from the text), in Tesseract's order."""
        command = [self.check(), "-", "-", "-l", self.language, "--psm", "3"]
        command += ["--dpi", str(dpi)] if dpi else []
        tessdata = self.tessdata or find_tessdata(self.language)
        command += ["--tessdata-dir", tessdata] if tessdata else []
        command.append("tsv")
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            done = subprocess.run(
                command,
                input=png,
                capture_output=True,
                timeout=self.timeout_s,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise RunError(
                f"OCR of {what} took longer than {self.timeout_s:.0f} s and was stopped; send a "
                "smaller or lower-resolution scan, or raise the OCR time limit"
            ) from None
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["?"]
            raise RunError(f"OCR of {what} failed: tesseract said {detail[0]!r}")
        return _parse_tsv(done.stdout.decode("utf-8", "replace"))


def _parse_tsv(text: str) -> list[_Word]:
    lines: dict[tuple[int, int, int], tuple[float, float, float, float]] = {}
    words: list[_Word] = []
    for rec in csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE):
        try:
            level = int(rec["level"])
            key = (int(rec["block_num"]), int(rec["par_num"]), int(rec["line_num"]))
            left, top = float(rec["left"]), float(rec["top"])
            box = (left, top, left + float(rec["width"]), top + float(rec["height"]))
            conf = float(rec["conf"])
        except (KeyError, TypeError, ValueError):
            continue
        if level == 4:
            lines[key] = box
        elif level == 5 and (rec.get("text") or "").strip():
            word = (rec["text"] or "").strip()
            words.append(_Word(word, box, max(0.0, min(conf, 100.0)), key, lines.get(key, box)))
    return words


def page_rows(
    words: Sequence[_Word], page_no: int, scale: float, size: tuple[float, float]
) -> list[dict[str, Any]]:
    """Line-table rows for one page from Tesseract's words, in reading order; boxes are the
    image's pixels times ``scale`` (72/dpi for points, 1 for pixels), clipped to ``size``."""
    by_line: dict[tuple[int, int, int], list[_Word]] = {}
    for word in words:
        by_line.setdefault(word.line, []).append(word)
    segments: list[list[_Word]] = []
    paired: set[int] = set()  # ids of segments with a close neighbour on their line
    for line_words in by_line.values():
        line_words.sort(key=lambda w: w.box[0])
        height = _height(line_words)
        segment = [line_words[0]]
        for prev, word in itertools.pairwise(line_words):
            gap = word.box[0] - prev.box[2]
            if gap > _SPLIT_GAP * height:
                segments.append(segment)
                if gap < _PAIR_GAP * height:
                    paired.update((id(segment), id(segments[-1])))
                segment = [word]
                if gap < _PAIR_GAP * height:
                    paired.add(id(segment))
            else:
                segment.append(word)
        segments.append(segment)
    blocks = _stack(segments, paired)
    boxes = [_union([_seg_box(s) for s in b]) for b in blocks]
    order = reading_order(boxes, [len(b) > 1 for b in blocks])
    return [_row(seg, page_no, scale, size) for i in order for seg in blocks[i]]


def _stack(segments: list[list[_Word]], paired: set[int]) -> list[list[list[_Word]]]:
    """Blocks of segments: a segment stacks on a block when it is in the same Tesseract block,
    starts within a line height of the block's left edge and sits less than a line height below
    it (a paragraph, an address). A segment paired with a close neighbour on its line (a label
    or its value, a table cell) stands alone, so a form or a table reads in rows."""
    blocks: list[list[list[_Word]]] = []
    for seg in sorted(segments, key=lambda s: (_seg_box(s)[1], _seg_box(s)[0])):
        x0, y0, _, _ = _seg_box(seg)
        height = _height(seg)
        home = None
        for block in blocks if id(seg) not in paired else []:
            last = block[-1]
            lx0, _, _, ly1 = _seg_box(last)
            if (
                id(last) not in paired
                and last[0].line[0] == seg[0].line[0]
                and abs(lx0 - x0) <= height
                and -0.5 * height <= y0 - ly1 <= _STACK_GAP * height
            ):
                home = block
        if home is None:
            blocks.append([seg])
        else:
            home.append(seg)
    return blocks


def _height(words: Sequence[_Word]) -> float:
    heights = sorted(w.line_box[3] - w.line_box[1] for w in words)
    return max(heights[len(heights) // 2], 1.0)


def _seg_box(seg: Sequence[_Word]) -> tuple[float, float, float, float]:
    return _union([w.box for w in seg])


def _union(boxes: Iterable[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    b = list(boxes)
    return (min(x[0] for x in b), min(x[1] for x in b), max(x[2] for x in b), max(x[3] for x in b))


def _row(
    seg: Sequence[_Word], page_no: int, scale: float, size: tuple[float, float]
) -> dict[str, Any]:
    top = min(w.line_box[1] for w in seg)
    bottom = max(w.line_box[3] for w in seg)
    height = bottom - top
    y0 = max(0.0, (top - _PAD_TOP * height) * scale)
    y1 = min(size[1], (bottom + _PAD_BOTTOM * height) * scale)
    words: list[Word] = []
    pos = 0
    for w in seg:
        x0, x1 = max(0.0, w.box[0] * scale), min(size[0], w.box[2] * scale)
        words.append(
            (pos, pos + len(w.text), round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2))
        )
        pos += len(w.text) + 1
    return {
        "page": page_no,
        "text": " ".join(w.text for w in seg),
        "x0": words[0][2],
        "y0": round(y0, 2),
        "x1": max(w[4] for w in words),
        "y1": round(y1, 2),
        "font_size": round(height * scale, 1),
        "visible": True,
        "hidden_reason": "",
        "words": words,
        "ocr_confidence": _confidence(seg),
        "source": "ocr",
    }


def _confidence(seg: Sequence[_Word]) -> float:
    """The mean word confidence (0..1) of a line, symbol-only words left out if others exist."""
    words = [w for w in seg if any(c.isalnum() for c in w.text)] or list(seg)
    return round(sum(w.conf for w in words) / len(words) / 100.0, 3)


def needs_ocr(lines: pd.DataFrame, image_cover: float | Callable[[], float]) -> bool:
    """Whether a page's text layer is not real, so the page must be read by OCR: no visible
    text; text that is mostly replacement or private-use characters (a font without a Unicode
    map); or a page mostly covered by images with next to no text (a scan with a stamped page
    number or Bates label). ``lines`` are the page's rows of the text layer; ``image_cover`` may
    be a function, called only for a page with next to no text (measuring it lists the page's
    images: ~3 ms a page, more than the rest of the check on a page of text)."""
    text = "".join(str(t) for t in lines.loc[lines["visible"], "text"]) if len(lines) else ""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return True
    junk = sum(1 for c in chars if c == "\ufffd" or "\ue000" <= c <= "\uf8ff")
    if junk / len(chars) >= _GARBLED:
        return True
    if len(chars) >= _MIN_CHARS:
        return False
    cover = image_cover() if callable(image_cover) else image_cover
    return cover >= _IMAGE_PAGE


def image_cover(page: Any) -> float:
    """The share of a PyMuPDF page covered by images (overlapping images counted twice)."""
    area = float(page.rect.width * page.rect.height) or 1.0
    rects = [_mupdf.Rect(i["bbox"]) & page.rect for i in page.get_image_info()]
    return min(1.0, sum(float(r.width * r.height) for r in rects) / area)


def read_text_layer(parser: Parser, data: bytes, filename: str) -> ParsedDocument | None:
    """The PDF's text layer read by ``parser`` (PyMuPDF), or None when no page has one."""
    try:
        return parser.parse(data, filename)
    except NoTextLayer:
        return None


def pages_to_ocr(data: bytes, filename: str, layer: ParsedDocument | None) -> list[int]:
    """The pages (1-based) of a PDF whose text layer is not real (:func:`needs_ocr`); every
    page when there is no text layer at all."""
    with open_pdf(data, filename) as doc:
        return [
            n
            for n in range(1, doc.page_count + 1)
            if layer is None or needs_ocr(page_lines(layer, n), partial(image_cover, doc[n - 1]))
        ]


def page_lines(document: ParsedDocument, page: int) -> pd.DataFrame:
    return document.lines[document.lines["page"] == page]


def page_part(document: ParsedDocument, page: int, as_page: int | None = None) -> Part:
    """One page of a parsed document as (page facts, line rows), renumbered ``as_page``."""
    facts_row = document.pages[document.pages["page"] == page].iloc[0]
    facts = {c: facts_row[c] for c in PAGE_COLUMNS}
    rows = page_lines(document, page).drop(columns=["line", "line_in_page"])
    records = [{str(k): v for k, v in r.items()} for r in rows.to_dict("records")]
    if as_page is not None:
        facts["page"] = as_page
        records = [{**r, "page": as_page} for r in records]
    return facts, records


def combine(
    parts: Sequence[Part],
    data: bytes,
    filename: str,
    parser: str,
    media_type: str = "application/pdf",
) -> ParsedDocument:
    """One document from per-page parts (page facts, line rows) of one or more parsers, in page
    order; lines are numbered again over the whole document."""
    ordered = sorted(parts, key=lambda p: int(p[0]["page"]))
    rows = [r for _, page_rows_ in ordered for r in page_rows_]
    pages = make_pages([{c: facts[c] for c in PAGE_COLUMNS} for facts, _ in ordered])
    pages = pages.astype({"page": int, "rotation": int, "has_text_layer": bool})
    return ParsedDocument(
        make_lines(rows),
        pages,
        hashlib.sha256(data).hexdigest(),
        filename,
        parser,
        media_type,
    )


def mixed_name(parts: Sequence[Part], default: str) -> str:
    """The one parser that read every page, else ``default`` (``page_df`` says which read what)."""
    names = {str(facts["parser"]) for facts, _ in parts}
    return names.pop() if len(names) == 1 else default


@dataclass(frozen=True)
class _Job:
    """One page to OCR: its number, the PNG, its dpi, px -> output unit, the page size."""

    page: int
    png: bytes
    dpi: int | None
    scale: float
    size: tuple[float, float]


class OcrParser:
    """Reads scans with Tesseract; keeps the text layer of pages that have one unless ``force``.

    ``dpi``: rendering resolution of PDF pages; ``language``: Tesseract's (``eng``, ``deu+eng``);
    ``workers``: pages OCRed at once, one ``tesseract`` process each (default: the CPU count);
    ``text_layer``: the parser for pages that keep their text (default :class:`PyMuPDFParser`).
    The document's ``parser`` is ``ocr`` when any page was OCRed, else ``pymupdf``.
    """

    name = "ocr"

    def __init__(
        self,
        *,
        dpi: int = DEFAULT_DPI,
        language: str = "eng",
        force: bool = False,
        tessdata: str | None = None,
        tesseract: str = "tesseract",
        workers: int | None = None,
        timeout_s: float = 120.0,
        text_layer: Parser | None = None,
    ) -> None:
        self.dpi = dpi
        self.force = force
        self.engine = Tesseract(language, tessdata, tesseract, timeout_s)
        self.workers = workers or os.cpu_count() or 1
        self.text_layer = text_layer or PyMuPDFParser()

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        kind = image_type(data)
        if kind is not None:
            return self.parse_image(data, filename, kind)
        layer = None if self.force else read_text_layer(self.text_layer, data, filename)
        todo = pages_to_ocr(data, filename, layer)  # every page when forced
        if todo:
            self.engine.check()
        parts = self.read_pdf(data, filename, todo, layer)
        if layer is not None:
            parts += [page_part(layer, n) for n in layer.pages["page"] if n not in todo]
        return combine(parts, data, filename, mixed_name(parts, self.name))

    def read_pdf(
        self, data: bytes, filename: str, pages: Sequence[int], layer: ParsedDocument | None
    ) -> list[Part]:
        """OCR ``pages`` (1-based) of a PDF: one part per page, in points."""
        with open_pdf(data, filename) as doc:
            facts = {
                n: {
                    "page": n,
                    "width": float(doc[n - 1].rect.width),
                    "height": float(doc[n - 1].rect.height),
                    "rotation": int(doc[n - 1].rotation),
                    "parser": self.name,
                    "has_text_layer": bool(len(page_lines(layer, n)))
                    if layer is not None
                    else bool(doc[n - 1].get_text().strip()),
                }
                for n in pages
            }

            def jobs() -> Iterable[_Job]:
                for n in pages:
                    page = doc[n - 1]
                    pix = page.get_pixmap(dpi=self.dpi, colorspace=_mupdf.csGRAY, alpha=False)
                    width, height = float(page.rect.width), float(page.rect.height)
                    yield _Job(n, pix.tobytes("png"), self.dpi, width / pix.width, (width, height))

            rows = self.run(jobs(), filename)
        return [(facts[n], rows[n]) for n in pages]

    def run(self, jobs: Iterable[_Job], filename: str) -> dict[int, list[dict[str, Any]]]:
        """Run Tesseract over page images, ``workers`` at a time; rendering (in this thread:
        PyMuPDF is not thread-safe) stays at most ``2 * workers`` pages ahead."""
        out: dict[int, list[dict[str, Any]]] = {}
        pending: list[tuple[_Job, Future[list[_Word]]]] = []

        def collect(entry: tuple[_Job, Future[list[_Word]]]) -> None:
            job, future = entry
            out[job.page] = page_rows(future.result(), job.page, job.scale, job.size)

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for job in jobs:
                what = f"page {job.page} of {filename}"
                pending.append((job, pool.submit(self.engine.words, job.png, job.dpi, what)))
                if len(pending) >= 2 * self.workers:
                    collect(pending.pop(0))
            for entry in pending:
                collect(entry)
        return out

    def parse_image(self, data: bytes, filename: str, kind: str) -> ParsedDocument:
        """An image file, every frame a page, read by OCR in the image's pixels."""
        self.engine.check()
        frames = image_pages(data, filename, kind)
        jobs = (_Job(f.page, f.png, f.dpi, 1.0, (float(f.width), float(f.height))) for f in frames)
        rows = self.run(jobs, filename)
        parts: list[Part] = [
            (
                {
                    "page": f.page,
                    "width": float(f.width),
                    "height": float(f.height),
                    "rotation": 0,
                    "parser": self.name,
                    "has_text_layer": False,
                },
                rows[f.page],
            )
            for f in frames
        ]
        return combine(parts, data, filename, self.name, f"image/{kind}")
