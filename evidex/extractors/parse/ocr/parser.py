"""``OcrParser``: scans and photos read by an OCR engine, as a line table with boxes and OCR
confidence.

Which pages: a PDF page is read by OCR when it has no real text layer (:func:`.pages.needs_ocr`),
every page with ``force=True``; the other pages keep their text layer. Images (PNG, JPEG, TIFF
frames, WebP, HEIC; see :mod:`..images`) are always read by OCR, in their own pixels.

How a page is read: PyMuPDF renders the *displayed* PDF page (``/Rotate`` applied, so boxes land
in the same space as the text layer's) in grey at ``dpi`` (300 by default), or Pillow decodes the
image's frame; :func:`.prepare.prepare` turns, deskews, crops and scales it for the engine; the
engine reads it; :func:`.lines.page_rows` makes the rows, with boxes mapped back to the page.

Engines (``engine``, ``--ocr``, ``EVIDEX_OCR_ENGINE``, ``options.ocr``): ``tesseract``
(:mod:`.tesseract`), ``rapidocr`` (:mod:`.rapid`), or ``auto`` (:mod:`.choose`): per page, the
first engine, and the second too when the first one's calibrated confidence says the page was
read poorly; the page keeps the better reading.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, get_args

import pymupdf
from PIL import Image

from evidex.extractors.document import ParsedDocument, Parser
from evidex.extractors.names import OcrEngineName
from evidex.extractors.parse.images import decode_frames, image_type
from evidex.extractors.parse.ocr.choose import Reading, better, needs_second
from evidex.extractors.parse.ocr.lines import page_rows
from evidex.extractors.parse.ocr.pages import (
    Part,
    combine,
    mixed_name,
    page_lines,
    page_part,
    pages_to_ocr,
    read_text_layer,
)
from evidex.extractors.parse.ocr.prepare import Prepared, blank, prepare
from evidex.extractors.parse.ocr.rapid import RapidOcr
from evidex.extractors.parse.ocr.tesseract import Tesseract
from evidex.extractors.parse.ocr.words import BoxPx, OcrEngine, OcrWord
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser, open_pdf
from evidex.schemas import ConfigError

__all__ = ["DEFAULT_DPI", "DEFAULT_ENGINE", "ENGINES", "OcrParser", "make_engines"]

_mupdf: Any = pymupdf  # PyMuPDF's annotations are partial (untyped calls); go through Any

DEFAULT_DPI = 300
ENGINES: tuple[str, ...] = get_args(OcrEngineName)
DEFAULT_ENGINE = "auto"
_MIN_SIDE = 8  # pixels: an image smaller than this holds no text an engine can read
# How much lower the quality (calibrated confidence) of a page read turned, as its lines asked,
# may be than read as it lay, and the turned reading still be kept. Read as it lay, an
# upside-down page's lines are read turned by RapidOCR's angle classifier, only in reverse
# order: on receipts 000, 014, 033 and 047 turned over, and the invoice sample, that reading's
# quality was within 0.04 of the upright one's either way; where the classifier misjudged a
# blurred, upright receipt (033 made worse by ``bench.receipts_verify --worse``) the turned
# reading was 0.19 under.
TURNED_WORSE = 0.1

# Printed line height (pixels) each engine reads best; None: the engine scales by itself.
_LINE_HEIGHT: dict[str, float | None] = {"tesseract": 36.0, "rapidocr": None}


def make_engines(
    name: str,
    *,
    language: str = "eng",
    tessdata: str | None = None,
    tesseract: str = "tesseract",
    timeout_s: float = 120.0,
) -> tuple[OcrEngine, ...]:
    """The engines ``name`` (:data:`ENGINES`) runs, in the order they run."""
    tess = Tesseract(language, tessdata, tesseract, timeout_s)
    if name == "tesseract":
        return (tess,)
    if name == "rapidocr":
        return (RapidOcr(),)
    if name == "auto":
        return (RapidOcr(), tess)
    raise ConfigError(f"OCR engine {name!r} does not exist; use one of: {', '.join(ENGINES)}")


@dataclass(frozen=True)
class _Job:
    """One page to OCR: its number, its image, the image's dpi, page units per image pixel and
    the page's size in its units."""

    page: int
    image: Image.Image
    unit_dpi: int | None  # the page unit per inch: 72 for PDF points, the image's dpi if known
    scale: float
    size: tuple[float, float]
    points: bool = False  # a PDF page (boxes in points), else an image file (whole pixels)


class OcrParser:
    """Reads scans and photos by OCR; keeps the text layer of pages that have one unless
    ``force``.

    ``engine``: ``tesseract``, ``rapidocr`` or ``auto`` (:data:`DEFAULT_ENGINE`), or engine
    objects to run in that order (:class:`.words.OcrEngine`); ``dpi``: rendering resolution of
    PDF pages; ``language``: Tesseract's (``eng``, ``deu+eng``); ``workers``: pages OCRed at once
    (default: the CPU count); ``text_layer``: the parser for pages that keep their text (default
    :class:`PyMuPDFParser`). The document's ``parser`` is ``ocr`` when any page was OCRed.
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
        engine: str | Sequence[OcrEngine] = DEFAULT_ENGINE,
    ) -> None:
        self.dpi = dpi
        self.force = force
        self.engine_name = engine if isinstance(engine, str) else "+".join(e.name for e in engine)
        self.engines: tuple[OcrEngine, ...] = (
            make_engines(
                engine,
                language=language,
                tessdata=tessdata,
                tesseract=tesseract,
                timeout_s=timeout_s,
            )
            if isinstance(engine, str)
            else tuple(engine)
        )
        self._find_turners()
        self.workers = workers or os.cpu_count() or 1
        self.text_layer = text_layer or PyMuPDFParser()

    def check(self) -> None:
        """A ``ConfigError`` when no engine of this parser can run here. With more than one
        (``auto``), the ones that cannot are left out and the others read every page."""
        usable, first_error = [], None
        for engine in self.engines:
            try:
                engine.check()
            except ConfigError as exc:
                first_error = first_error or exc
            else:
                usable.append(engine)
        if not usable:
            assert first_error is not None
            raise first_error
        self.engines = tuple(usable)
        self._find_turners()

    def _find_turners(self) -> None:
        """The engines that can say which way up a page is (see :meth:`_read`)."""
        self.tesseract = next((e for e in self.engines if isinstance(e, Tesseract)), None)
        self.rapid = next((e for e in self.engines if isinstance(e, RapidOcr)), None)

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        kind = image_type(data)
        if kind is not None:
            return self.parse_image(data, filename, kind)
        layer = None if self.force else read_text_layer(self.text_layer, data, filename)
        todo = pages_to_ocr(data, filename, layer)  # every page when forced
        if todo:
            self.check()
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
                    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
                    width, height = float(page.rect.width), float(page.rect.height)
                    yield _Job(n, image, 72, width / pix.width, (width, height), points=True)

            rows = self.run(jobs(), filename)
        return [(facts[n], rows[n]) for n in pages]

    def run(self, jobs: Iterable[_Job], filename: str) -> dict[int, list[dict[str, Any]]]:
        """Read page images, ``workers`` at a time; rendering (in this thread: PyMuPDF is not
        thread-safe) stays at most ``2 * workers`` pages ahead."""
        out: dict[int, list[dict[str, Any]]] = {}
        pending: list[tuple[_Job, Future[list[dict[str, Any]]]]] = []

        def collect(entry: tuple[_Job, Future[list[dict[str, Any]]]]) -> None:
            job, future = entry
            out[job.page] = future.result()

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for job in jobs:
                pending.append((job, pool.submit(self.read_page, job, filename)))
                if len(pending) >= 2 * self.workers:
                    collect(pending.pop(0))
            for entry in pending:
                collect(entry)
        return out

    def read_page(self, job: _Job, filename: str) -> list[dict[str, Any]]:
        """One page's rows, read by the first engine, and by the next ones while the page
        reads poorly (:func:`.choose.needs_second`); the best reading is kept. A page too small
        or blank (:func:`.prepare.blank`) has no rows and no engine runs on it."""
        if min(job.image.size) < _MIN_SIDE or blank(job.image):
            return []
        what = f"page {job.page} of {filename}"
        best: Reading | None = None
        turn: int | None = None  # clockwise degrees, once an engine has found the page's way up
        for engine in self.engines:
            if best is not None and not needs_second(best):
                break
            reading, turn = self._read(engine, job, what, turn)
            best = reading if best is None else better(best, reading)
        return best.rows if best is not None else []

    def _read(
        self, engine: OcrEngine, job: _Job, what: str, turn: int | None = None
    ) -> tuple[Reading, int | None]:
        """One engine's reading of a page set upright, and the clockwise ``turn`` that did it
        (None: not asked). A turn already found is kept. RapidOCR asks its orientation of a page
        that looks sideways (:func:`.prepare.prepare`) and checks every page in its own reading
        (:meth:`.rapid.RapidOcr.read_turn`): a page whose lines say it still lies turned (upside
        down, or sideways where the ink did not show it) is turned and read again, and the
        turned reading is kept unless its quality (:func:`.choose.quality`) is more than
        :data:`TURNED_WORSE` under the page's as it lay: on a blurred photo the angle
        classifier can find most lines upside down whichever way up the page is. Another
        engine has the page turned by RapidOCR's orientation when this parser runs RapidOCR,
        else by Tesseract's OSD when the page looks sideways."""
        if turn is not None:
            ready = self._prepare(engine, job, lambda _: turn, every_page=True)
        elif engine is self.rapid:
            rapid = self.rapid
            ready = self._prepare(engine, job, lambda image: _clockwise(rapid, image, what))
            words, found = rapid.read_turn(ready.image, _dpi(job, ready), what)
            done = (-ready.turned) % 360
            first = self._rows(engine, job, ready, words)
            turn = (done + (found[0] if found is not None else 0)) % 360
            if turn == done:
                return first, turn
            ready = self._prepare(engine, job, lambda _: turn, every_page=True)
            again = self._rows(engine, job, ready, rapid.read(ready.image, _dpi(job, ready), what))
            worse = again.quality < first.quality - TURNED_WORSE
            return (first, done) if worse else (again, turn)
        else:
            asks = self.rapid or self.tesseract
            ask = (lambda image: _clockwise(asks, image, what)) if asks is not None else None
            ready = self._prepare(engine, job, ask, every_page=self.rapid is not None)
        words = engine.read(ready.image, _dpi(job, ready), what)
        return self._rows(engine, job, ready, words), turn

    def _prepare(
        self,
        engine: OcrEngine,
        job: _Job,
        orientation: Callable[[Image.Image], int | None] | None,
        every_page: bool = False,
    ) -> Prepared:
        return prepare(job.image, _LINE_HEIGHT.get(engine.name), orientation, job.scale, every_page)

    def _rows(self, engine: OcrEngine, job: _Job, ready: Prepared, words: list[OcrWord]) -> Reading:
        to_page = ready.to_page if job.points else _whole_pixels(ready.to_page)
        rows = page_rows(
            words, job.page, to_page, job.size, engine.line_confidence, engine.word_confidence
        )
        return Reading(engine.name, rows)

    def parse_image(self, data: bytes, filename: str, kind: str) -> ParsedDocument:
        """An image file, every frame a page, read by OCR in the image's own pixels."""
        self.check()
        frames = list(decode_frames(data, filename, kind))
        jobs = (
            _Job(
                f.page,
                f.image,
                f.dpi,
                f.width / f.image.width,
                (float(f.width), float(f.height)),
            )
            for f in frames
        )
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


def _dpi(job: _Job, ready: Prepared) -> int | None:
    """The prepared image's resolution: the page's, scaled as :func:`.prepare.prepare` did."""
    linear = ready.matrix[:2, :2]
    zoom = math.sqrt(abs(float(linear[0, 0] * linear[1, 1] - linear[0, 1] * linear[1, 0])))
    return round(job.unit_dpi * zoom) if job.unit_dpi else None


def _whole_pixels(to_page: Callable[[BoxPx], BoxPx]) -> Callable[[BoxPx], BoxPx]:
    """Boxes on an image file rounded outwards to whole pixels, the numbers a viewer shows."""

    def rounded(box: BoxPx) -> BoxPx:
        x0, y0, x1, y1 = to_page(box)
        return (math.floor(x0), math.floor(y0), math.ceil(x1), math.ceil(y1))

    return rounded


def _clockwise(engine: Tesseract | RapidOcr, image: Image.Image, what: str) -> int | None:
    found = engine.orientation(image, what)
    return found[0] if found is not None else None
