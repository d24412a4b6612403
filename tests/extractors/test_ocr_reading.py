"""What an engine read, put right: full-width forms, digits among letters, spaces in numbers and
letter-spaced text, a line's last comma or full stop, slanted and centred lines, large pages
searched on a reduced copy and read at full size, onnxruntime's threads, and the receipts
bench's rules for a key value surviving OCR."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from bench.receipts import survival
from evidex.extractors.parse.ocr import OcrWord
from evidex.extractors.parse.ocr.lines import page_rows
from evidex.extractors.parse.ocr.marks import trailing_mark
from evidex.extractors.parse.ocr.prepare import prepare, print_height
from evidex.extractors.parse.ocr.rapid import (
    DETECT_AREA,
    MIN_PRINT,
    _options,
    _recognise,
    _upside_down,
    detection_scale,
    spaced_words,
)
from evidex.extractors.parse.ocr.reading import (
    digits_as_letters,
    fold_width,
    letters_as_digits,
    read_word,
)

# --- full-width forms ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("read", "meant"),
    [
        ("Total：", "Total:"),  # full-width colon
        ("（M）SDN", "(M)SDN"),  # full-width brackets
        ("ＲＭ９.００", "RM9.00"),  # full-width letters and digits
        ("A\u3000B", "A B"),  # the ideographic space
        ("½", "½"),  # NFKC would make three characters of it: left alone
        ("ﬁnance", "ﬁnance"),  # a ligature NFKC would expand: left alone
        ("CAFÉ", "CAFÉ"),  # a composed letter stays itself
    ],
)
def test_full_width_forms_fold_to_plain_characters_one_for_one(read: str, meant: str) -> None:
    assert fold_width(read) == meant


# --- digits among letters -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("read", "meant"),
    [
        ("L0T", "LOT"),
        ("BAT1K", "BATIK"),
        ("T0TAL", "TOTAL"),
        ("c0ffee", "coffee"),
        ("ta1k", "talk"),
        ("GEM8ILANG", "GEMBILANG"),
        ("TE5CO", "TESCO"),
        ("ca8le", "ca8le"),  # 5 and 8 only between capitals
        ("A58B", "A58B"),
        ("A10B", "A10B"),  # two digits: a number
        ("SR1001", "SR1001"),  # an id with digits around
        ("B1", "B1"),  # a digit at the end has a letter on one side only
        ("0AB", "0AB"),
        ("9.00", "9.00"),
        ("RM10.00", "RM10.00"),
        ("Ab0Cd", "Ab0Cd"),  # neighbours of two cases: not settled
        ("A-0-B", "A-0-B"),  # punctuation around: not between letters
    ],
)
def test_a_lone_digit_between_letters_is_the_letter(read: str, meant: str) -> None:
    assert digits_as_letters(read) == meant


@pytest.mark.parametrize(
    ("read", "meant"),
    [
        ("8110O", "81100"),  # closing a number
        ("1O5", "105"),  # between digits
        ("TDO1", "TDO1"),  # a letter on one side
        ("2O", "2O"),  # one digit is not a number
        ("NO", "NO"),
        ("O12", "O12"),  # opening a word: left alone
    ],
)
def test_an_o_among_digits_is_the_digit(read: str, meant: str) -> None:
    assert letters_as_digits(read) == meant


def test_read_word_folds_first_so_a_full_width_digit_among_letters_is_put_right() -> None:
    assert read_word("L０T：") == "LOT:"


def test_line_rows_carry_the_corrected_words_of_any_engine() -> None:
    line = (1, 1, 1)
    box = (0.0, 0.0, 300.0, 20.0)
    words = [
        OcrWord("L0T", (0, 0, 40, 20), 0.9, line, box),
        OcrWord("No：", (50, 0, 90, 20), 0.9, line, box),
        OcrWord("A10B", (100, 0, 150, 20), 0.9, line, box),
    ]
    rows = page_rows(words, 1, 1.0, (400.0, 100.0))
    assert [r["text"] for r in rows] == ["LOT No: A10B"]
    assert [w[:2] for w in rows[0]["words"]] == [(0, 3), (4, 7), (8, 12)]


# --- large pages --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "print_px", "scale"),
    [
        ((463, 1013), 20.0, 1.0),  # a small page is searched as it is
        ((2481, 3508), None, 1.0),  # print of unknown size: never reduced
        ((2481, 3508), 80.0, (DETECT_AREA / (2481 * 3508)) ** 0.5),  # down to the area
        ((2481, 3508), 30.0, MIN_PRINT / 30.0),  # print kept at MIN_PRINT pixels
        ((2481, 3508), 15.0, 1.0),  # print already small: kept whole
    ],
)
def test_detection_scale_reduces_a_large_page_but_never_its_print_below_min(
    size: tuple[int, int], print_px: float | None, scale: float
) -> None:
    assert detection_scale(size, print_px) == pytest.approx(scale)


def test_print_height_measures_the_printed_lines() -> None:
    image = Image.new("L", (2400, 3400), 255)
    draw = ImageDraw.Draw(image)
    for row in range(30):
        top = 100 + row * 100
        draw.rectangle((200, top, 2000, top + 39), fill=0)  # 40-pixel lines
    height = print_height(image)
    assert height is not None
    assert 36 <= height <= 44


def test_print_height_is_none_without_lines() -> None:
    assert print_height(Image.new("L", (800, 600), 255)) is None


class _Upright:
    """RapidOCR's angle classifier, finding every line upright."""

    cls_thresh = 0.9

    def __call__(self, crops: list[np.ndarray]) -> tuple[list[np.ndarray], list[Any], float]:
        return crops, [["0", 0.99] for _ in crops], 0.0


class _FakeRapid:
    """RapidOCR's parts as ``_recognise`` calls them: detection finds one box in whatever image
    it is given (a tenth of the way in, a fifth of the width and a fiftieth of the height);
    the recogniser reads every crop as "AB"."""

    text_score = 0.5
    text_cls = _Upright()

    def __init__(self) -> None:
        self.detected_on: tuple[int, ...] = ()
        self.crops: list[tuple[int, ...]] = []

    def text_det(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        self.detected_on = image.shape
        h, w = image.shape[:2]
        x0, y0, x1, y1 = w / 10, h / 10, w / 10 + w / 5, h / 10 + h / 50
        return np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], dtype=np.float32), 0.0

    def sorted_boxes(self, boxes: np.ndarray) -> list[np.ndarray]:
        return list(boxes)

    def get_crop_img_list(self, image: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
        out = []
        for q in quads:
            x0, y0 = int(q[:, 0].min()), int(q[:, 1].min())
            x1, y1 = int(q[:, 0].max()), int(q[:, 1].max())
            out.append(image[y0:y1, x0:x1])
        self.crops = [c.shape for c in out]
        return out

    def text_rec(self, crops: list[np.ndarray], word_box: bool) -> tuple[list[Any], None]:
        return [("AB", 0.9, (4, None, [[0, 2]], None, [0.9, 0.9])) for _ in crops], None


def test_a_large_page_is_searched_reduced_and_read_from_full_size_crops() -> None:
    fake = _FakeRapid()
    grey = np.full((3000, 2000), 255, dtype=np.uint8)
    found = _recognise(fake, grey, 0.0, 0.5)
    assert fake.detected_on[:2] == (1500, 1000)  # detection saw the half-size copy
    quad = np.array(found[0][0])
    # the box is back in the full page's pixels: 200-600 across, 300-360 down
    assert quad[:, 0].min() == pytest.approx(200) and quad[:, 0].max() == pytest.approx(600)
    assert quad[:, 1].min() == pytest.approx(300) and quad[:, 1].max() == pytest.approx(360)
    assert fake.crops[0][:2] == (60, 400)  # the recogniser read the full-resolution crop
    assert found[0][1] == "AB"


class _Slanted(_FakeRapid):
    """Detection finds one line rising 20 pixels over its 400-pixel length, 30 pixels high."""

    quad = np.array([[100, 120], [500, 100], [500, 130], [100, 150]], dtype=np.float32)

    def text_det(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        self.detected_on = image.shape
        return self.quad[None], 0.0

    def get_crop_img_list(self, image: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
        self.cut_along = [q.copy() for q in quads]
        return super().get_crop_img_list(image, quads)


def test_a_slanted_line_is_cut_along_its_quad_and_boxed_at_its_own_height() -> None:
    fake = _Slanted()
    found = _recognise(fake, np.full((400, 600), 255, dtype=np.uint8), 0.0)
    assert np.array_equal(fake.cut_along[0], _Slanted.quad)  # not the bounding box
    quad = np.array(found[0][0])
    # 100-500 across; 30 pixels high about the quad's centre row (125), not 100-150
    assert (quad[:, 0].min(), quad[:, 0].max()) == (100, 500)
    assert (quad[:, 1].min(), quad[:, 1].max()) == (110, 140)


def test_a_small_page_is_searched_as_it_is() -> None:
    fake = _FakeRapid()
    _recognise(fake, np.full((1000, 500), 255, dtype=np.uint8), 0.0)
    assert fake.detected_on[:2] == (1000, 500)


@pytest.mark.parametrize(
    ("labels", "upside_down"),
    [
        ([["180", 0.95], ["0", 0.99], ["0", 0.9]], False),  # one line among upright ones
        ([["180", 0.95], ["180", 0.99], ["0", 0.9]], True),  # most lines: the page
        ([["180", 0.6], ["180", 0.7], ["0", 0.9]], False),  # under the classifier's threshold
    ],
)
def test_lines_are_turned_only_when_most_of_the_page_is_upside_down(
    labels: list[list[Any]], upside_down: bool
) -> None:
    assert _upside_down(labels, 0.9) is upside_down


def test_onnxruntime_sessions_use_at_most_two_threads_and_do_not_spin() -> None:
    options = _options()
    assert 1 <= options.intra_op_num_threads <= 2
    assert options.inter_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


# --- the receipts bench's survival rules --------------------------------------------------------


def test_a_value_split_over_two_lines_is_kept_but_not_on_one_line() -> None:
    found = survival("total", "RM 9.00", ["Total :", "RM", "9.00", "Cash"])
    assert (found.kept, found.near, found.one_line) == (True, True, False)


def test_a_value_on_one_line_is_kept_on_one_line() -> None:
    found = survival("total", "9.00", ["TOTAL: 9.00"])
    assert (found.kept, found.near, found.one_line) == (True, True, True)


def test_near_allows_one_edit_per_ten_characters() -> None:
    address = "NO.53 JALAN SAGU 18, TAMAN DAYA"  # 26 characters without spaces: 2 edits
    two_wrong = ["N0.53 JALAN SAGU 18,", "TAMAN DAIA"]
    three_wrong = ["N0.53 JALAN SAGU 1B,", "TAMAN DAIA"]
    two = survival("address", address, two_wrong)
    assert (two.kept, two.near) == (False, True)
    assert survival("address", address, three_wrong).near is False


def test_near_allows_no_edit_in_a_short_value() -> None:
    found = survival("total", "9.00", ["TOTAL 91.00"])
    assert (found.kept, found.near) == (False, False)


# --- spaces inside numbers ----------------------------------------------------------------------


def _printed(cells: dict[int, str], width: int) -> tuple[np.ndarray, list[Any]]:
    """Characters in a fixed pitch of 11 pixels on 20-pixel type (a receipt printer's
    proportions): 9 pixels of ink each, a "1" 4; a detection box 24 pixels high."""
    pixels = np.full((60, width), 255, dtype=np.uint8)
    quads = []
    for cell, char in cells.items():
        left = 10 + cell * 11
        if char == "1":
            pixels[20:40, left + 4 : left + 8] = 0
        else:
            pixels[20:40, left + 1 : left + 10] = 0
        quads.append([[left, 18], [left + 11, 18], [left + 11, 42], [left, 42]])
    return pixels, quads


def test_a_narrow_1_does_not_split_a_number_but_a_real_gap_does() -> None:
    # "81100", a blank cell, "07", read as one run: the blank between the two 1s is 7 pixels,
    # a word gap's width (6) but not a number's (12); the blank cell is 13
    pixels, quads = _printed({0: "8", 1: "1", 2: "1", 3: "0", 4: "0", 6: "0", 7: "7"}, 120)
    text = "8110007"
    found = [[[[10, 18], [98, 18], [98, 42], [10, 42]], text, 0.95, quads, list(text), [0.9] * 7]]
    assert [w.text for w in spaced_words(found, pixels)] == ["81100", "07"]


def test_a_segment_drawn_past_the_photos_edge_is_read_without_looking_beyond_it() -> None:
    # a warped photo: the detector's box and the characters' boxes run on past the image's
    # right edge at column 70; a decimal point is looked for between "12" and "34" out there
    pixels, quads = _printed({0: "T", 1: "O", 2: "T", 3: "A", 4: "L", 6: "1", 7: "2", 9: "3"}, 150)
    quads = [*quads[:7], [[98, 18], [109, 18], [109, 42], [98, 42]], *quads[7:]]
    quads.append([[120, 18], [131, 18], [131, 42], [120, 42]])
    text, box = "TOTAL12 34", [[10, 18], [131, 18], [131, 42], [10, 42]]
    found = [[box, text, 0.95, quads, list(text), [0.9] * 10]]
    assert [w.text for w in spaced_words(found, pixels[:, :70])] == ["TOTAL", "12", "34"]


def test_letters_beside_a_narrow_1_still_get_their_space() -> None:
    pixels, quads = _printed({0: "L", 1: "O", 2: "T", 4: "1"}, 80)
    found = [
        [[[10, 18], [65, 18], [65, 42], [10, 42]], "LOT1", 0.95, quads, list("LOT1"), [0.9] * 4]
    ]
    assert [w.text for w in spaced_words(found, pixels)] == ["LOT", "1"]


def test_a_letter_spaced_heading_keeps_its_words_whole() -> None:
    # "SIMPLIFIED" then "TAX", read as one run: 8-pixel letters 7 pixels apart (more than a word
    # gap's 6 on this type), and 20 pixels between the words
    pixels = np.full((60, 260), 255, dtype=np.uint8)
    lefts = [10 + i * 15 for i in range(10)] + [173 + i * 15 for i in range(3)]
    for left in lefts:
        pixels[20:40, left : left + 8] = 0
    quads = [[[x, 18], [x + 8, 18], [x + 8, 42], [x, 42]] for x in lefts]
    text = "SIMPLIFIEDTAX"
    found = [[[[10, 18], [220, 18], [220, 42], [10, 42]], text, 0.9, quads, list(text), [0.9] * 13]]
    assert [w.text for w in spaced_words(found, pixels)] == ["SIMPLIFIED", "TAX"]


def _monospace(text: str, crossed: bool = False) -> list[Any]:
    """``text`` in a thermal printer's fixed pitch of 11 pixels on 20-pixel type, its narrow
    letters ("I", "T") one-pixel strokes in the middle of their cells, so the blank beside one
    (6 pixels) is as wide as a word gap's least on this type; a space is an empty cell (13
    pixels blank). ``crossed``: a pen's stroke runs down through each space (a circled line)."""
    pixels = np.full((60, 20 + 11 * len(text)), 255, dtype=np.uint8)
    quads = []
    for cell, char in enumerate(text):
        left = 10 + cell * 11
        if char in "IT":
            pixels[20:40, left + 5 : left + 6] = 0
        elif char in ".:-":  # a point, a colon's two dots, a hyphen: a mark one pixel wide
            rows = {".": [37], ":": [26, 37], "-": [30]}[char]
            for row in rows:
                pixels[row : row + 3, left + 5 : left + 6] = 0
        elif char == " " and crossed:
            pixels[10:50, left + 3 : left + 8] = 0
        elif char != " ":
            pixels[20:40, left + 1 : left + 10] = 0
        quads.append([[left, 18], [left + 11, 18], [left + 11, 42], [left, 42]])
    box = [[10, 18], [10 + 11 * len(text), 18], [10 + 11 * len(text), 42], [10, 42]]
    return [pixels, [[box, text, 0.95, quads, list(text), [0.9] * len(text)]]]


def test_where_the_recogniser_read_spaces_a_narrow_letters_blank_is_no_space() -> None:
    # "S TORE MGR TOM MIL AZZO" was read off a US slip: the blank beside a narrow letter is
    # as wide as the least word gap, but not as the spaces the recogniser itself read there
    pixels, found = _monospace("STORE MGR TOM MILAZZO")
    assert [w.text for w in spaced_words(found, pixels)] == ["STORE", "MGR", "TOM", "MILAZZO"]


def test_without_spaces_read_a_narrow_letters_blank_still_splits() -> None:
    # the same type run together by the recogniser: nothing tells the word gap from the blank
    # beside a narrow letter, so the measure alone decides, as before
    pixels, found = _monospace("AMIABLE")
    assert [w.text for w in spaced_words(found, pixels)] == ["AM", "I", "ABLE"]


def test_a_stroke_through_the_spaces_read_leaves_the_segments_words_as_read() -> None:
    # a pen's circle crosses the space the recogniser read: the image shows no blank there,
    # so it cannot be trusted to find others ("Card Savi ngs")
    pixels, found = _monospace("CARD SAVINGS", crossed=True)
    assert [w.text for w in spaced_words(found, pixels)] == ["CARD", "SAVINGS"]


def test_a_decimal_point_between_digits_stays_in_its_number() -> None:
    # "$8 .99" and "$17 .99" were read off a small photo: the point's blank on either side is
    # a word gap's width, but a point between two digits is the number's
    pixels, found = _monospace("SUM8.99")
    assert [w.text for w in spaced_words(found, pixels)] == ["SUM8.99"]


@pytest.mark.parametrize("text", ["11:23", "703-777-5833"])
def test_a_colon_or_hyphen_between_digits_stays_in_its_number(text: str) -> None:
    # "18-03-2018 11 :23", "703-777 -5833": the mark's blank on either side is a word gap's
    pixels, found = _monospace(text)
    assert [w.text for w in spaced_words(found, pixels)] == [text]


# --- commas and full stops ----------------------------------------------------------------------


def _line_with_mark(mark: str) -> np.ndarray:
    """Four 20-pixel letters (rows 20-39, baseline at row 39) and, 4 pixels after them, a mark:
    a full stop (3x3 on the baseline), a comma (its tail 6 pixels below the baseline), a
    hyphen (mid-height) or nothing."""
    pixels = np.full((80, 160), 255, dtype=np.uint8)
    for i in range(4):
        pixels[20:40, 10 + i * 14 : 10 + i * 14 + 11] = 0
    if mark == ".":
        pixels[37:40, 69:72] = 0
    elif mark == ",":
        pixels[37:46, 69:72] = 0
    elif mark == "-":
        pixels[29:31, 67:75] = 0
    return pixels


@pytest.mark.parametrize(("mark", "read"), [(".", "."), (",", ","), ("-", None), ("", None)])
def test_the_mark_after_a_line_is_told_by_its_ink(mark: str, read: str | None) -> None:
    found = trailing_mark(_line_with_mark(mark), (10.0, 18.0, 65.0, 42.0), 65.0)
    assert (found[0] if found else None) == read
    if found:
        assert (found[1][0], found[1][2]) == (69.0, 72.0)


def test_a_comma_the_detector_cut_off_comes_back_on_the_last_word() -> None:
    pixels = _line_with_mark(",")
    quads = [
        [[10 + i * 14, 18], [24 + i * 14, 18], [24 + i * 14, 42], [10 + i * 14, 42]]
        for i in range(4)
    ]
    found = [
        [[[10, 18], [65, 18], [65, 42], [10, 42]], "ABCD", 0.9, quads, list("ABCD"), [0.9] * 4]
    ]
    words = spaced_words(found, pixels)
    assert [w.text for w in words] == ["ABCD,"]
    assert words[0].box[2] == 72.0


# --- reading order ------------------------------------------------------------------------------


def test_a_centred_address_reads_top_to_bottom() -> None:
    # three centred lines of a receipt's header, as RapidOCR placed them (receipt 011)
    lines = [
        ((160, 434, 575, 471), [("NO.", 165, 205), ("17-G,", 223, 301), ("JALAN", 319, 385)]),
        ((202, 466, 526, 500), [("(X)", 205, 246), ("U13/X,", 266, 351), ("SETIA", 371, 443)]),
        ((146, 493, 581, 531), [("SEKSYEN", 151, 251), ("U13,", 272, 329), ("40170", 347, 419)]),
    ]
    lines[0][1].extend([("SETIA", 406, 475), ("INDAH", 496, 565)])
    lines[1][1].append(("ALAM,", 459, 514))
    lines[2][1].extend([("SHAH", 437, 500), ("ALAM,", 518, 581)])
    words = [
        OcrWord(text, (x0, box[1], x1, box[3]), 0.9, (1, 1, n), box)
        for n, (box, parts) in enumerate(lines, start=5)
        for text, x0, x1 in parts
    ]
    rows = page_rows(words, 1, 1.0, (752.0, 2214.0))
    assert [r["text"] for r in rows] == [
        "NO. 17-G, JALAN SETIA INDAH",
        "(X) U13/X, SETIA ALAM,",
        "SEKSYEN U13, 40170 SHAH ALAM,",
    ]


def test_a_skewed_photo_in_poor_light_keeps_its_paper_light() -> None:
    # paper at grey 100 and a few lines of ink on a large page (under 1% of it), turned 2.5°:
    # the corners the deskew uncovers are filled with the paper's grey, so the contrast stretch
    # lifts the paper to white; filled white, they were the lightest 1% and the paper went black
    page = Image.new("L", (1600, 2400), 100)
    draw = ImageDraw.Draw(page)
    for row in range(6):
        draw.rectangle((500, 1000 + row * 40, 1100, 1000 + row * 40 + 14), fill=20)
    ready = prepare(page.rotate(2.5, expand=True, fillcolor=100))
    assert abs(ready.skew) >= 0.3  # it was turned back
    grey = np.asarray(ready.image)
    assert np.median(grey) > 200
    assert (grey < 60).mean() > 0.005  # the ink is still there, dark on the light paper
