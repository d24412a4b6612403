"""RapidOCR's characters into words: spaces, commas and full stops put back, rows formed.

What :mod:`.rapid` hands over per detected segment: the text, its box, and — with the
recogniser's word boxes — a box and a probability per character. What is put right here:

* **Spaces.** PP-OCR's recognisers, trained on Chinese beside Latin scripts, often drop the spaces
  between English words ("BOOKTA.K(TAMANDAYA)"). Their character positions come from the CTC
  columns, too coarse to tell a word gap from a wide letter (spacing by character pitch splits
  "Agreem ent"), so the gap is measured in the image itself: between two neighbouring characters the
  widest run of ink-free pixel columns in the segment's strip; a space goes back where that run is
  at least :data:`SPACE_GAP` of the strip's height (a word space is about a third of the type's
  height, the gap between letters a tenth), and at least :data:`LETTER_SPACING` times the segment's
  median blank between characters (a letter-spaced heading, "S I MPL I F I ED" read with a space at
  every narrow "I", has wide blanks everywhere). Inside a number the characters must also stand
  :data:`NUMBER_PITCH` times the segment's median pitch apart, centre to centre: digits have one
  width in nearly every font, so a space there is a whole empty cell, while a narrow "1" or ":" only
  leaves a wide blank beside it ("81 100" for the postcode 81100, "8: 13: 39" for a time), and a
  mark that joins a number's parts (:data:`_IN_NUMBER`) between two digits is the number's
  ("$8 .99" on a small photo, "703-777 -5833": a narrow mark leaves a word gap's blank on either
  side). Spaces the recogniser read are kept, and where it read some in a segment they show the
  type's word space: a space is put back only where the blank is :data:`READ_SPACE` of theirs
  (median) or more. A slip's monospaced type leaves a blank beside a narrow letter as wide as the
  least word gap ("S TORE MGR TOM MIL AZZO", "F OR", on a US slip photographed), while its word
  spaces are a whole empty cell. Where the image shows no blank at the spaces the recogniser read
  (a pen's circle or the line above crosses them: "Card Savi ngs"), it cannot be trusted to find
  others, and none is put back in that segment. With these two rules, on receipts 000-049
  (``bench.receipts --range 0-49``) the key values kept stay at 85.4% and one more company is
  kept; the transcript's words found whole went from 65.6% to 65.3% (its annotators set a space
  before a full stop or a colon: "Pay By : CASH" where the recogniser read "Pay By: CASH"). The
  words then keep their own boxes, their characters' mean
  probability and their least sure character's (one misread digit in a date is one unsure
  character among ten: the mean hides it; see :data:`.calibrate.WORD_CURVES`).
* **Slant.** A line on a curled or tilted slip comes slanted, and its box (:mod:`.rapid`'s band:
  the detector's quad's height about its centre) holds only part of the letters at its ends,
  where the line has risen or fallen out of it: the gaps between those parts looked like word
  spaces ("J A L A N KAPAR"). The blank columns are measured in a strip that follows the
  line's slant, as the recogniser's straightened crop does, and a last mark is looked for in
  the band where the line ends.
* **Line ends.** Detection boxes hug the ink of letters and often cut off a line's last comma or
  full stop ("13," read as "13"), which is part of an address as printed. :mod:`.marks` finds
  the mark after a segment's last word in the ink and tells a comma from a full stop.
* **Commas read as full stops.** On blurred small print the recogniser reads many a comma as a
  full stop ("KEMBANGAN. SELANGOR"), and an address compared as printed fails on it. A full
  stop it read after a letter or digit, and not before a digit (a decimal point stays), is read
  again from the ink (:func:`.marks.mark_near`) only where the recogniser was unsure of it
  (probability under :data:`MARK_SURE`). On receipts 000-049: every such full stop read again
  turned as many right ones wrong as it put right (2,126 lines read exactly right against
  2,130; "D.I.Y." read "D.I,Y." at 0.994); the unsure ones alone, 2,134 lines and 85.4% of key
  values kept against 84.4% (two more addresses); the same at 0.9, and at 0.99 85.9% but
  2,132 lines.
* **Decimal points.** A thermal printer's full stop is often a faint speck a few pixels across,
  lighter than the ink threshold, and the recogniser reads past it ("58.30" as "5830", "0.00" as
  "0 00"); the gap it leaves looks like a word space, so the amount came out as two numbers. Where
  a number would be split, or the recogniser read a space, just before its last two digits, the
  blank between them is looked at: a spot darker than the paper by :data:`POINT_DARK` of the
  way to the ink, clear of the digits, on the baseline (in the lowest
  :data:`POINT_LOW` of the type's height, reaching its bottom quarter) and no taller or wider
  than :data:`POINT_SIZE` of it, is the point, and the amount is read whole. Nothing else is
  looked at: a number the recogniser read whole stays as read.
* **Lines.** Detection boxes on the same printed row (vertical centres within half a box height
  of each other) become one engine line, so :mod:`.lines` splits and orders them exactly as it
  does Tesseract's lines.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from evidex.extractors.parse.ocr.marks import mark_near, trailing_mark
from evidex.extractors.parse.ocr.prepare import otsu, runs
from evidex.extractors.parse.ocr.words import BoxPx, OcrWord

__all__ = [
    "LETTER_SPACING",
    "MARK_SURE",
    "NUMBER_PITCH",
    "POINT_DARK",
    "POINT_LOW",
    "POINT_SIZE",
    "READ_SPACE",
    "SPACE_GAP",
    "bounds",
    "spaced_words",
]

SPACE_GAP = 0.25  # blank run between two characters, of the strip's height, that is a space
LETTER_SPACING = 2.0  # times the segment's median blank between characters: a space at least
READ_SPACE = 0.75  # of the spaces read in a segment (median): the least blank a space put back
NUMBER_PITCH = 1.5  # times the segment's median character pitch: a space inside a number at least
_ROW = 0.5  # of a box's height: vertical centres this close are on one row
MARK_SURE = 0.95  # the recogniser's probability under which a full stop is read from the ink
POINT_DARK = 0.1  # of the way from the paper's grey to the ink's: a decimal point's spot at least
POINT_LOW = 0.4  # of the type's height, from its bottom: where a decimal point's spot lies
POINT_SIZE = 0.35  # of the type's height: the tallest and widest a decimal point's spot is

# a word as read: its text, box, mean character probability and least sure character's
_Part = tuple[str, BoxPx, float, float]


def bounds(quad: Any) -> BoxPx:
    """The box around a quad's corners."""
    xs, ys = [float(p[0]) for p in quad], [float(p[1]) for p in quad]
    return (min(xs), min(ys), max(xs), max(ys))


def spaced_words(
    found: Sequence[Sequence[Any]], pixels: np.ndarray, space_gap: float = SPACE_GAP
) -> list[OcrWord]:
    """OcrWords from RapidOCR's ``return_word_box`` result rows (``[quad, text, score,
    char_quads, chars, char_scores, rise]``, ``rise`` optional: see :func:`_segment_strip`)
    over the grey ``pixels`` it read, spaces put back and boxes grouped into rows."""
    segments: list[tuple[BoxPx, list[_Part]]] = []
    for entry in found:
        quad, text, score = entry[0], str(entry[1]), float(entry[2])
        box = bounds(quad)
        chars = [str(c) for c in entry[4]] if len(entry) > 5 else []
        char_boxes = [bounds(q) for q in entry[3]] if len(entry) > 5 else []
        confs = [float(c) for c in entry[5]] if len(entry) > 5 else []
        if not chars or len(chars) != len(char_boxes) or "".join(chars) != text:
            segments.append((box, [(w, box, score, score) for w in text.split()]))
            continue
        if len(confs) != len(chars):
            confs = [score] * len(chars)
        rise = float(entry[6]) if len(entry) > 6 else 0.0
        strip = _segment_strip(pixels, box, rise)
        blank = _blank_columns(strip, max(0, int(box[0])))
        gap = space_gap * (box[3] - box[1])  # of the detection box's height, as tuned
        chars = _unsure_stops(chars, char_boxes, confs, pixels, box)
        band, box = box, _ink_rows(pixels, box)
        parts = _split(chars, char_boxes, confs, box, blank, gap, strip)
        end = (band[0], band[1] + rise / 2, band[2], band[3] + rise / 2)  # the band at its end
        segments.append((box, _with_last_mark(parts, pixels, end)))
    words: list[OcrWord] = []
    for row, members in enumerate(_rows([b for b, _ in segments]), start=1):
        for index in members:
            box, parts = segments[index]
            for text, wbox, conf, least in parts:
                words.append(OcrWord(text, wbox, conf, (1, 1, row), box, least))
    return words


def _with_last_mark(parts: list[_Part], pixels: np.ndarray, band: BoxPx) -> list[_Part]:
    """``parts`` with the comma or full stop the detector cut off after the last word put
    back (:func:`.marks.trailing_mark`)."""
    if not parts or not parts[-1][0][-1].isalnum():
        return parts
    text, box, conf, least = parts[-1]
    found = trailing_mark(pixels, band, box[2])
    if found is None:
        return parts
    mark, mark_box = found
    return [*parts[:-1], (text + mark, (box[0], box[1], mark_box[2], box[3]), conf, least)]


def _unsure_stops(
    chars: list[str], boxes: list[BoxPx], confs: list[float], pixels: np.ndarray, box: BoxPx
) -> list[str]:
    """``chars`` with each full stop the recogniser was unsure of, after a letter or digit and
    not before a digit, read again from the ink in the segment's ``box`` (see "Commas read as
    full stops")."""
    out = list(chars)
    pitch = (box[2] - box[0]) / max(len(chars), 1)
    for k, char in enumerate(chars):
        after = chars[k + 1] if k + 1 < len(chars) else " "
        if char != "." or confs[k] >= MARK_SURE or k == 0 or not chars[k - 1].isalnum():
            continue
        if not (after.isspace() or after.isalpha()):
            continue
        if mark_near(pixels, box, (boxes[k][0] + boxes[k][2]) / 2, pitch) == ",":
            out[k] = ","
    return out


def _segment_strip(pixels: np.ndarray, box: BoxPx, rise: float = 0.0) -> np.ndarray:
    """The segment's strip: the pixels of its box, following its slant. ``rise``: how far the
    line's centre runs down (up, negative) from its left end to its right (a slanted line on a
    curled slip); the strip follows it (see "Slant"), as the recogniser's straightened crop
    does."""
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(pixels.shape[1], int(np.ceil(box[2]))), min(pixels.shape[0], int(np.ceil(box[3])))
    return _strip(pixels, x0, y0, x1, y1, rise)


def _blank_columns(strip: np.ndarray, x0: int) -> tuple[int, np.ndarray]:
    """A segment's strip (:func:`_segment_strip`) as its left edge ``x0`` and, per pixel
    column, whether it holds no ink (darker than Otsu's threshold within the strip)."""
    if strip.size == 0:
        return x0, np.zeros(0, dtype=bool)
    low, high = float(strip.min()), float(strip.max())
    if high - low < 32:  # no contrast: nothing to measure
        return x0, np.zeros(strip.shape[1], dtype=bool)
    threshold = otsu(strip)
    blank: np.ndarray = ~np.any(strip <= threshold, axis=0)
    return x0, blank


def _strip(pixels: np.ndarray, x0: int, y0: int, x1: int, y1: int, rise: float) -> np.ndarray:
    """Rows ``y0:y1`` of columns ``x0:x1``, each column shifted by its share of ``rise``
    about the strip's middle (paper beyond the page's edges)."""
    if x1 <= x0 or y1 <= y0:
        return pixels[0:0, 0:0]
    if abs(rise) < 1.0:
        return pixels[y0:y1, x0:x1]
    columns = np.arange(x0, x1)
    shift = np.rint(rise * ((columns - x0) / max(x1 - x0 - 1, 1) - 0.5)).astype(int)
    rows = np.arange(y0, y1)[:, None] + shift[None, :]
    inside = (rows >= 0) & (rows < pixels.shape[0])
    strip = pixels[np.clip(rows, 0, pixels.shape[0] - 1), columns[None, :]]
    return np.where(inside, strip, 255).astype(pixels.dtype)


def _ink_rows(pixels: np.ndarray, box: BoxPx) -> BoxPx:
    """``box`` with its top and bottom moved to the first and last rows holding ink: detection
    boxes are grown around the text (by half its height and more), and the line's height is
    what :mod:`.lines` splits columns by and pads highlights from."""
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(pixels.shape[1], int(np.ceil(box[2]))), min(pixels.shape[0], int(np.ceil(box[3])))
    strip = pixels[y0:y1, x0:x1]
    if strip.size == 0 or float(strip.max()) - float(strip.min()) < 32:
        return box
    rows = np.flatnonzero(np.any(strip <= otsu(strip), axis=1))
    if len(rows) == 0:
        return box
    return (box[0], float(y0 + rows[0]), box[2], float(y0 + rows[-1] + 1))


def _widest_blank(blank: np.ndarray, start: int, end: int) -> int:
    gaps = runs(blank[max(0, start) : max(0, end)])
    return max((stop - begin for begin, stop in gaps), default=0)


def _ink_span(
    blank: np.ndarray, left: int, x0: float, x1: float, first: int, last: int
) -> tuple[float, float]:
    """A word's left and right edges moved onto its ink: from its first and last character's
    centres outwards, as far as ink continues without a blank run as wide as a letter gap
    allows (2 columns or more ends the word), within the character boxes' reach."""
    size = len(blank)
    lo, hi = max(0, min(first, size - 1)), max(0, min(last, size - 1))
    reach_lo, reach_hi = max(0, int(x0) - left - 2), min(size - 1, int(np.ceil(x1)) - left + 2)
    start = end = None
    i = lo
    while i >= reach_lo:
        if not blank[i]:
            start = i
        elif start is not None and i > 0 and blank[i - 1]:
            break
        i -= 1
    i = hi
    while i <= reach_hi:
        if not blank[i]:
            end = i
        elif end is not None and i + 1 < size and blank[i + 1]:
            break
        i += 1
    new_x0 = float(left + start) if start is not None else x0
    new_x1 = float(left + end + 1) if end is not None else x1
    return (new_x0, new_x1) if new_x1 > new_x0 else (x0, x1)


def _split(
    chars: list[str],
    boxes: list[BoxPx],
    confs: list[float],
    line: BoxPx,
    blank: tuple[int, np.ndarray],
    space: float,
    strip: np.ndarray | None = None,
) -> list[_Part]:
    """One segment's characters grouped into words at spaces the recogniser read or the image
    shows (see "Spaces"), and an amount's decimal point the recogniser missed put back where
    ``strip`` (:func:`_segment_strip`) shows one (see "Decimal points")."""
    chars, boxes, confs = list(chars), list(boxes), list(confs)  # points are appended
    count = len(chars)
    left, columns = blank
    centres = [round((b[0] + b[2]) / 2) - left for b in boxes]
    words: list[_Part] = []
    current: list[int] = []

    def close() -> None:
        if current:
            text = "".join(chars[i] for i in current)
            x0 = min(boxes[i][0] for i in current)
            x1 = max(boxes[i][2] for i in current)
            if len(columns):
                x0, x1 = _ink_span(columns, left, x0, x1, centres[current[0]], centres[current[-1]])
            conf = sum(confs[i] for i in current) / len(current)
            least = min(confs[i] for i in current)
            words.append((text, (x0, line[1], x1, line[3]), conf, least))
            current.clear()

    pairs = [
        (i, j) for i, j in itertools.pairwise(range(len(chars))) if " " not in chars[i] + chars[j]
    ]
    gaps = (
        [_widest_blank(columns, centres[i], centres[j]) for i, j in pairs] if len(columns) else []
    )
    spacing = LETTER_SPACING * float(np.median(gaps)) if len(gaps) >= 3 else 0.0
    read = [
        _widest_blank(columns, centres[i - 1], centres[i + 1])
        for i in range(1, count - 1)
        if chars[i] == " "
        and not (chars[i - 1] + chars[i + 1]).isspace()
        and 0 <= centres[i - 1] < centres[i + 1] < len(columns)  # not beyond the photo's edge
    ]
    if read:  # the type's own word space, where the recogniser read one
        seen = float(np.median(read))
        spacing = max(spacing, READ_SPACE * seen) if seen >= space else np.inf
    steps = [centres[j] - centres[i] for i, j in pairs]
    pitch = float(np.median(steps)) if len(steps) >= 3 else 0.0

    def point(before: int, after: int) -> bool:
        """Whether a decimal point the recogniser missed lies between characters ``before``
        and ``after``, where the two digits at ``after`` end a number; appended if so."""
        ends = "".join(chars[after : min(after + 3, count)])
        if strip is None or not (chars[before].isdigit() and re.fullmatch(r"\d\d\D?", ends)):
            return False
        if len(ends) == 3 and ends[2] in _IN_NUMBER:
            return False  # more of the number follows: "12 34.5", "08 30:15"
        found = _point(strip, centres[before], centres[after])
        if found is None:
            return False
        chars.append(".")
        boxes.append((left + found[0], line[1], left + found[1], line[3]))
        confs.append(min(confs[before], confs[after]))
        centres.append((found[0] + found[1]) // 2)
        current.append(len(chars) - 1)
        return True

    pointed = False  # a point was just put back: the digits after it are the same number
    for i, char in enumerate(chars[:count]):
        if char.isspace():
            pointed = bool(current) and i + 1 < count and point(current[-1], i + 1)
            if not pointed:
                close()
            continue
        if current and len(columns) and not pointed:
            gap = _widest_blank(columns, centres[current[-1]], centres[i])
            inside = char.isdigit() and _in_number("".join(chars[k] for k in current[-2:]))
            mark = char in _IN_NUMBER and chars[current[-1]].isdigit() and _digit_at(chars, i + 1)
            step = centres[i] - centres[current[-1]]
            split = (
                gap >= max(space, spacing)
                and not mark
                and not (inside and step < NUMBER_PITCH * pitch)
            )
            if split and not point(current[-1], i):
                close()
        pointed = False
        current.append(i)
    close()
    return words


def _point(strip: np.ndarray, start: int, end: int) -> tuple[int, int] | None:
    """The columns of a decimal point's spot between two digits whose centres are columns
    ``start`` and ``end`` of a segment's ``strip`` (see "Decimal points"), or None: of the
    spots there apart from the digits' ink (touching neither centre column), the largest that
    is small and low enough."""
    threshold = otsu(strip) if strip.size else 0.0
    ink_rows = np.flatnonzero(np.any(strip <= threshold, axis=1))
    # a segment the detector drew past the photo's edge has characters beyond its strip
    start, end = max(0, start), min(max(0, end), strip.shape[1] - 1)
    if len(ink_rows) == 0 or end - start < 3:
        return None
    top, bottom = int(ink_rows[0]), int(ink_rows[-1]) + 1
    height = bottom - top
    paper, ink = float(np.percentile(strip, 90)), float(strip.min())
    if height < 6 or paper - ink < 64:
        return None
    spot = (strip[:, start : end + 1] <= paper - POINT_DARK * (paper - ink)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(spot, connectivity=8)
    best: tuple[int, int, int] | None = None  # pixels, first column, last column + 1
    for x, y, wide, tall, area in stats[1:count].tolist():
        apart = x > 0 and x + wide < spot.shape[1] - 1
        low = y >= bottom - POINT_LOW * height and y + tall >= bottom - 0.25 * height
        small = max(wide, tall) <= POINT_SIZE * height and area >= 2
        if apart and low and small and (best is None or area > best[0]):
            best = (area, start + x, start + x + wide)
    return (best[1], best[2]) if best is not None else None


_IN_NUMBER = ":.,/-"  # what joins the parts of a number: a time, an amount, a date, an id


def _digit_at(chars: list[str], i: int) -> bool:
    return i < len(chars) and chars[i].isdigit()


def _in_number(tail: str) -> bool:
    """Whether a word ending in ``tail`` is in the middle of a number: it ends in a digit, or
    in a separator (":", ".", ",", "/", "-") after a digit."""
    if not tail:
        return False
    return tail[-1].isdigit() or (tail[-1] in _IN_NUMBER and len(tail) > 1 and tail[-2].isdigit())


def _rows(boxes: list[BoxPx]) -> list[list[int]]:
    """Indices of ``boxes`` grouped into printed rows, top to bottom, each row left to right."""
    rows: list[tuple[float, float, list[int]]] = []  # centre, height, members
    for i in sorted(range(len(boxes)), key=lambda k: (boxes[k][1] + boxes[k][3]) / 2):
        x0, y0, x1, y1 = boxes[i]
        centre, height = (y0 + y1) / 2, y1 - y0
        for n, (row_centre, row_height, members) in enumerate(rows):
            near = abs(centre - row_centre) <= _ROW * min(height, row_height)
            clear = all(boxes[m][2] <= x0 or boxes[m][0] >= x1 for m in members)
            if near and clear:
                members.append(i)
                size = len(members)
                rows[n] = ((row_centre * (size - 1) + centre) / size, row_height, members)
                break
        else:
            rows.append((centre, height, [i]))
    return [sorted(m, key=lambda k: boxes[k][0]) for _, _, m in rows]
