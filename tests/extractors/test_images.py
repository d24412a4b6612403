"""Image files (PNG, JPEG, multi-page TIFF) read by OCR in their own pixels, and highlighted."""

from __future__ import annotations

import io
import shutil
from functools import cache
from typing import Any

import numpy as np
import pymupdf
import pytest
from PIL import Image, ImageDraw, ImageFont
from sample_answers import SAMPLES

from evidex.extractors.document import ParsedDocument
from evidex.extractors.errors import CorruptDocument
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.auto import AutoParser
from evidex.extractors.parse.highlight import COLOURS
from evidex.extractors.parse.images import annotate_image, decode_frames, image_pages, image_type
from evidex.extractors.parse.ocr import OcrParser, find_tessdata
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import Result, Status, get_schema

mu: Any = pymupdf  # PyMuPDF's annotations are partial
pytestmark = pytest.mark.skipif(
    shutil.which("tesseract") is None or find_tessdata() is None,
    reason="Tesseract with English language data is not installed",
)
DPI = 150
PX = DPI / 72  # pixels per point of the rendered sample
INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
CV = (SAMPLES / "cv.pdf").read_bytes()


def size(image: bytes) -> tuple[int, int]:
    pix = mu.Pixmap(image)
    return int(pix.width), int(pix.height)


def render(pdf: bytes, dpi: int = DPI, kind: str = "png") -> bytes:
    with mu.open(stream=pdf, filetype="pdf") as doc:
        data: bytes = doc[0].get_pixmap(dpi=dpi).tobytes(kind)
    return data


@cache
def png_invoice() -> ParsedDocument:
    return OcrParser(engine="tesseract").parse(render(INVOICE), "invoice.png")


@cache
def tiff() -> bytes:
    from PIL import Image  # only to write the TIFF fixture

    frames = [Image.open(io.BytesIO(render(pdf, dpi))) for pdf, dpi in ((CV, 120), (INVOICE, DPI))]
    out = io.BytesIO()
    frames[0].save(out, format="TIFF", save_all=True, append_images=frames[1:], dpi=(DPI, DPI))
    return out.getvalue()


@cache
def tiff_parsed() -> ParsedDocument:
    return OcrParser(engine="tesseract").parse(tiff(), "scans.tiff")


def one(document: ParsedDocument, text: str, page: int = 1) -> Any:
    lines = document.lines
    found = lines[(lines["page"] == page) & (lines["text"] == text)]
    assert len(found) == 1, (text, lines["text"].tolist())
    return found.iloc[0]


def true_box(pdf: bytes, text: str) -> tuple[float, float, float, float]:
    lines = PyMuPDFParser(tables=False).parse(pdf, "x.pdf").lines
    row = lines[lines["text"] == text].iloc[0]
    return (row["x0"], row["y0"], row["x1"], row["y1"])


def extract_number(document: ParsedDocument, line: int, page: int) -> Result:
    schema = get_schema("invoice")
    quote = "INV-2026-00418"
    fields = {
        "invoice_number": {
            "value": quote,
            "quote": quote,
            "page": page,
            "line_start": line,
            "line_end": line,
        }
    }
    return extract_parsed(document, schema, llm=ScriptedLLM(build_answer(schema, fields)))


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"\x89PNG\r\n\x1a\n...", "png"),
        (b"\xff\xd8\xff\xe0...", "jpeg"),
        (b"II*\x00...", "tiff"),
        (b"MM\x00*...", "tiff"),
        (b"%PDF-1.7", None),
        (b"GIF89a", None),
    ],
)
def test_image_files_are_recognised_by_their_first_bytes(data: bytes, kind: str | None) -> None:
    assert image_type(data) == kind


def test_a_png_is_read_in_its_own_pixels() -> None:
    document = png_invoice()
    width, height = size(render(INVOICE))
    assert document.media_type == "image/png"
    assert document.pages[["width", "height", "parser", "has_text_layer"]].values.tolist() == [
        [width, height, "ocr", False]
    ]
    row = one(document, "INV-2026-00418")
    x0, y0, x1, y1 = (v * PX for v in true_box(INVOICE, "INV-2026-00418"))
    assert abs(row["x0"] - x0) <= 4 and abs(row["x1"] - x1) <= 4  # pixels, not points
    assert row["y0"] <= y0 + 4 and row["y1"] >= y1 - 4

    result = extract_number(document, int(row["line"]), 1)
    field = result.fields["invoice_number"]
    assert field.status == Status.VERIFIED and "read by OCR" in field.reasons[0]
    assert field.boxes[0].x0 == round(row["x0"], 2) and field.boxes[0].x1 > 900  # pixels
    info = result.document.page_info
    assert [(p.unit, p.width, p.height, p.parser) for p in info] == [("px", width, height, "ocr")]


def test_a_jpeg_goes_the_same_way_through_auto() -> None:
    document = AutoParser().parse(render(INVOICE, kind="jpeg"), "invoice.jpg")
    assert document.media_type == "image/jpeg" and document.parser == "ocr"
    assert "INV-2026-00418" in document.lines["text"].tolist()


def test_every_frame_of_a_tiff_is_a_page_with_its_own_pixel_size() -> None:
    document = tiff_parsed()
    assert document.media_type == "image/tiff"
    assert document.pages[["page", "width", "height"]].values.tolist() == [
        [1, *size(render(CV, 120))],
        [2, *size(render(INVOICE))],
    ]
    assert "Imogen Castellane" in document.lines[document.lines["page"] == 1]["text"].tolist()
    row = one(document, "INV-2026-00418", page=2)
    x0, _, x1, _ = (v * PX for v in true_box(INVOICE, "INV-2026-00418"))
    assert abs(row["x0"] - x0) <= 4 and abs(row["x1"] - x1) <= 4
    result = extract_number(document, int(row["line"]), 2)
    assert result.fields["invoice_number"].boxes[0].page == 2
    assert [p.unit for p in result.document.page_info] == ["px", "px"]


def test_annotate_image_paints_the_boxes_on_the_image() -> None:
    document = png_invoice()
    row = one(document, "INV-2026-00418")
    result = extract_number(document, int(row["line"]), 1)
    png = annotate_image(render(INVOICE), result)
    pix = mu.Pixmap(png)
    assert (pix.width, pix.height) == size(render(INVOICE))
    box = result.fields["invoice_number"].boxes[0]
    colour = COLOURS[Status.VERIFIED]
    # inside the box, above the glyphs: white paper under a 35% fill of the status colour...
    inside = pix.pixel(int((box.x0 + box.x1) / 2), int(box.y0) + 2)[:3]
    tinted = [round(255 * (0.65 + 0.35 * c)) for c in colour]
    assert all(abs(got - want) <= 3 for got, want in zip(inside, tinted, strict=True))
    # ...and a border of the colour itself
    edge = pix.pixel(int(box.x1) - 1, int(box.y0) + 2)[:3]
    assert all(abs(got - 255 * c) <= 12 for got, c in zip(edge, colour, strict=True))
    outside = pix.pixel(5, 5)[:3]
    assert tuple(outside) == (255, 255, 255)


def test_a_damaged_image_is_a_corrupt_document() -> None:
    with pytest.raises(CorruptDocument, match=r"broken\.png"):
        image_pages(b"\x89PNG\r\n\x1a\n" + b"0" * 64, "broken.png", "png")
    with pytest.raises(CorruptDocument):
        OcrParser().parse(b"II*\x00" + b"\x00" * 10, "broken.tif")


@pytest.mark.parametrize(
    ("mode", "kind"), [("RGBA", "PNG"), ("LA", "PNG"), ("P", "PNG"), ("RGBA", "WEBP")]
)
def test_a_transparent_background_is_white_and_its_print_stays_dark(mode: str, kind: str) -> None:
    # exported with a transparent background: the pixels there are black with alpha 0
    image = Image.new("RGBA", (600, 160), (0, 0, 0, 0))
    ImageDraw.Draw(image).text(
        (20, 50), "Total 9.00", fill=(0, 0, 0, 255), font=ImageFont.load_default(size=40)
    )
    if mode == "P":
        image = image.convert("P")  # the transparent black becomes the palette's transparency
        image.info["transparency"] = image.getpixel((0, 0))
    elif mode != "RGBA":
        image = image.convert(mode)
    out = io.BytesIO()
    image.save(out, format=kind, **({"lossless": True} if kind == "WEBP" else {}))
    (frame,) = decode_frames(out.getvalue(), f"logo.{kind.lower()}", kind.lower())
    grey = np.asarray(frame.image)
    assert int(np.median(grey)) == 255  # the paper a viewer shows
    assert int(grey.min()) < 60  # the print, still dark on it
