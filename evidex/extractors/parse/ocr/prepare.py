"""A page image made ready for an engine, and the way back to the page's own coordinates.

Each step is cheap (measured on a thumbnail of at most 600 px) and only done when the image needs
it, so a clean 300 dpi scan passes through nearly untouched:

1. **Size**: a photo over :data:`MAX_SIDE` pixels on its long side is scaled down first (a
   100-megapixel photo is read at 12 megapixels at most; nothing larger is held twice).
2. **Crop to the document**: a photo of a receipt on a darker table is cropped to the bright
   paper (rows and columns where most pixels are paper), when that leaves out a tenth or more.
   A side is cropped only where the paper ends in a step (:func:`_step`): a shadow across a
   photo darkens paper as a table does, but gradually, and Otsu's threshold alone took the
   shaded half of a receipt for table (receipts 000-049 under a shadow from their left edge
   lost the left of every line: "ONAL SDN BHD" read, and verified, for "UNIHAKKA INTERNATIONAL
   SDN BHD").
3. **Orientation**: ``orientation`` says how far to turn the page. It is asked only when the
   gaps between lines run down the page rather than across it (far more blank columns than
   blank rows within the ink), unless ``every_page``: a turn already known (RapidOCR's reading
   found an upside-down page, :mod:`.parser`) applies to any page. Without an answer the page is
   left as it is.
4. **Deskew**: the angle in ±:data:`MAX_SKEW`° that makes the row profile sharpest (text rows
   lined up with pixel rows), when it is at least 0.3°. The corners the turn uncovers take the
   paper's grey, not white: on a photo taken in poor light (paper at grey 100) white corners
   became the lightest 1% and the stretch below pushed the paper to black with its ink.
5. **Contrast**: grey, stretched so the darkest and lightest 1% reach black and white.
6. **Print size**: the median height of the text rows is measured from the row profile, and the
   image scaled so it reaches the engine's preferred line height (``line_height``: Tesseract
   reads 8-pixel print poorly and 30-pixel print well), at most 4x and within MAX_SIDE.

:class:`Prepared` keeps the affine map of all of it, so a word's box in the prepared image goes
back to the page (the file's own pixels, or PDF points) as the box around its turned corners.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageOps

from evidex.extractors.parse.ocr.words import BoxPx

__all__ = [
    "MAX_SIDE",
    "MAX_SKEW",
    "Prepared",
    "blank",
    "otsu",
    "prepare",
    "print_height",
    "runs",
]

MAX_SIDE = 4096  # pixels on the long side of any image handed to an engine
MAX_SKEW = 6.0  # degrees searched for deskewing
_THUMB = 600
_PRINT_THUMB = 1500  # print_height's thumbnail: 12-pixel print on a 3500-pixel page spans 5 rows
_MAX_UPSCALE = 4.0
_INK_DEPTH = 16  # grey levels from the paper's that a mark must reach to be print
_MIN_MARK = 8  # thumbnail pixels that deep: fewer is a speck of dust, not a word
_EDGE_STEP = 40  # grey levels: how much brighter paper is than what lies beyond its edge
Matrix = np.ndarray  # 3x3 affine, column vectors (x, y, 1)


@dataclass(frozen=True)
class Prepared:
    """The image to read, and ``to_page``: a box of it -> the page's coordinates."""

    image: Image.Image
    matrix: Matrix  # page -> prepared image
    turned: int  # quarter turns applied (degrees, counter-clockwise)
    skew: float  # degrees of deskew applied (counter-clockwise)

    def to_page(self, box: BoxPx) -> BoxPx:
        back = np.linalg.inv(self.matrix)
        x0, y0, x1, y1 = box
        corners = np.array([[x0, x1, x1, x0], [y0, y0, y1, y1], [1.0, 1.0, 1.0, 1.0]])
        xs, ys, _ = back @ corners
        return (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))


def _scale(s: float) -> Matrix:
    return np.array([[s, 0.0, 0.0], [0.0, s, 0.0], [0.0, 0.0, 1.0]])


def _shift(dx: float, dy: float) -> Matrix:
    return np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])


def _rotation(angle: float, size: tuple[int, int], new: tuple[int, int]) -> Matrix:
    """The map of ``Image.rotate(angle, expand=True)``: counter-clockwise as displayed."""
    a = np.radians(angle)
    turn = np.array([[np.cos(a), np.sin(a), 0.0], [-np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])
    matrix: Matrix = _shift(new[0] / 2, new[1] / 2) @ turn @ _shift(-size[0] / 2, -size[1] / 2)
    return matrix


def _thumbnail(image: Image.Image, thumb: int) -> tuple[np.ndarray, float]:
    """``image`` (grey) reduced to at most ``thumb`` pixels on its long side, and the scale."""
    factor = min(1.0, thumb / max(image.size))
    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    return np.asarray(image.resize(size, Image.Resampling.BILINEAR), dtype=np.uint8), factor


def _ink(image: Image.Image, thumb: int = _THUMB) -> tuple[np.ndarray, float]:
    """A thumbnail's ink mask (True where darker than Otsu's threshold) and its scale."""
    grey, factor = _thumbnail(image, thumb)
    return grey <= otsu(grey), factor


def blank(image: Image.Image) -> bool:
    """Whether ``image`` holds no print: fewer than :data:`_MIN_MARK` pixels of its thumbnail
    (at most 1500 pixels) stand :data:`_INK_DEPTH` grey levels or more from its paper (the
    median), darker or lighter (light print on a dark screen, white paper on a dark table).
    "Total 9.00" in 4-point print at 300 dpi, grey 200 on paper 235, leaves 32 such pixels and
    both engines read it; a white page or a scanned empty one with its grain leaves none.
    Engines are not run on a blank page: RapidOCR's detector searches an A4 page at 300 dpi for
    12 seconds to find nothing."""
    thumb, _ = _thumbnail(image.convert("L"), _PRINT_THUMB)
    grey = thumb.astype(np.int16)
    paper = int(np.median(grey))
    return int((np.abs(grey - paper) >= _INK_DEPTH).sum()) < _MIN_MARK


def otsu(grey: np.ndarray) -> float:
    """The grey level that best splits ``grey`` into ink and paper (Otsu's threshold); 128 for
    an empty strip."""
    hist = np.bincount(grey.ravel(), minlength=256).astype(float)
    total = hist.sum()
    if total == 0:
        return 128.0
    levels = np.arange(256)
    weight = np.cumsum(hist)
    mean = np.cumsum(hist * levels)
    between = (mean[-1] * weight / total - mean) ** 2 / np.maximum(weight * (total - weight), 1)
    return float(np.argmax(between))


def _sharpness(ink: np.ndarray) -> float:
    rows = ink.sum(axis=1).astype(float)
    return float(np.square(np.diff(rows)).sum())


def _skew(ink: np.ndarray) -> float:
    """The deskew angle (degrees, counter-clockwise) that makes the row profile sharpest."""
    if ink.sum() < 50:
        return 0.0
    mask = Image.fromarray(ink.astype(np.uint8) * 255)
    best, best_angle = _sharpness(ink), 0.0
    for angle in np.arange(-MAX_SKEW, MAX_SKEW + 0.01, 0.5):
        if angle == 0:
            continue
        turned = np.asarray(mask.rotate(float(angle), expand=True)) > 127
        score = _sharpness(turned)
        if score > best * 1.02:
            best, best_angle = score, float(angle)
    return best_angle


def _blank_share(ink: np.ndarray) -> float:
    """The share of rows, within the ink's bounding rows, that hold next to no ink: the gaps
    between lines of text that run along the rows."""
    rows = ink.mean(axis=1)
    inked = np.flatnonzero(rows > 0)
    if len(inked) < 2:
        return 0.0
    span = rows[inked[0] : inked[-1] + 1]
    return float((span < 0.005).mean())


def _sideways(ink: np.ndarray) -> bool:
    """Whether the text runs along the columns: far more blank columns between lines than
    blank rows (an upright page has the gaps between its lines across every column)."""
    if ink.sum() < 50:
        return False
    across, along = _blank_share(ink), _blank_share(ink.T)
    return along > 0.15 and along > 2.5 * across


def _document(image: Image.Image) -> tuple[int, int, int, int] | None:
    """The bright paper's box when the image shows it on a darker background, else None."""
    factor = min(1.0, _THUMB / max(image.size))
    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    grey = np.asarray(image.resize(size, Image.Resampling.BILINEAR), dtype=np.uint8)
    paper = grey > otsu(grey)
    rows = np.flatnonzero(paper.mean(axis=1) > 0.5)
    cols = np.flatnonzero(paper.mean(axis=0) > 0.5)
    if len(rows) == 0 or len(cols) == 0:
        return None
    y0, y1, x0, x1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    # only where the paper ends in a step: a shadow darkens paper as a table does, but gradually
    band = max(2, round(0.01 * max(size)))
    if not _step(grey[y0:y1, max(0, x0 - band) : x0], grey[y0:y1, x0 : x0 + band]):
        x0 = 0
    if not _step(grey[y0:y1, x1 : x1 + band], grey[y0:y1, max(x0, x1 - band) : x1]):
        x1 = grey.shape[1]
    if not _step(grey[max(0, y0 - band) : y0, x0:x1], grey[y0 : y0 + band, x0:x1]):
        y0 = 0
    if not _step(grey[y1 : y1 + band, x0:x1], grey[max(y0, y1 - band) : y1, x0:x1]):
        y1 = grey.shape[0]
    if (y1 - y0) * (x1 - x0) > 0.9 * paper.size or (y1 - y0) * (x1 - x0) < 0.1 * paper.size:
        return None
    margin = 0.01 * max(size)
    box = (max(0.0, x0 - margin), max(0.0, y0 - margin), x1 + margin, y1 + margin)
    return (
        int(box[0] / factor),
        int(box[1] / factor),
        min(image.width, int(box[2] / factor)),
        min(image.height, int(box[3] / factor)),
    )


def _step(outside: np.ndarray, inside: np.ndarray) -> bool:
    """Whether the paper's side between two bands of a thumbnail is an edge: the band inside at
    least :data:`_EDGE_STEP` grey levels brighter than the band outside (a table's), where a
    shadow or uneven light changes a few levels across the same width."""
    if outside.size == 0 or inside.size == 0:
        return False
    return float(np.median(inside)) - float(np.median(outside)) >= _EDGE_STEP


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """The runs of True in the 1-d ``mask``, as (start, end) index pairs, end exclusive."""
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def _line_height(ink: np.ndarray) -> float | None:
    """The median height (thumbnail pixels) of the runs of rows holding ink."""
    heights = [end - start for start, end in runs(ink.mean(axis=1) > 0.01)]
    heights = [h for h in heights if h >= 2]
    return float(np.median(heights)) if len(heights) >= 3 else None


def print_height(image: Image.Image) -> float | None:
    """The median height, in ``image``'s pixels, of its printed lines (runs of rows holding
    ink, measured on a thumbnail of at most 1500 pixels); None when fewer than three lines
    show. An engine that works on a reduced copy uses it to keep print legible (:mod:`.rapid`'s
    "Large pages")."""
    grey = image if image.mode == "L" else image.convert("L")
    ink, factor = _ink(grey, _PRINT_THUMB)
    height = _line_height(ink)
    return height / factor if height else None


def prepare(
    image: Image.Image,
    line_height: float | None = None,
    orientation: Callable[[Image.Image], int | None] | None = None,
    page_scale: float = 1.0,
    every_page: bool = False,
) -> Prepared:
    """``image`` (any mode) made ready for OCR. ``line_height``: the engine's preferred printed
    line height in pixels (None: keep the size); ``orientation``: degrees to turn a sideways
    image clockwise (None when unsure), asked of every page with ``every_page``, else only of a
    page that looks sideways; ``page_scale``: page units per pixel of ``image``."""
    matrix = _scale(1 / page_scale) if page_scale != 1.0 else np.eye(3)
    grey = image if image.mode == "L" else image.convert("L")
    if max(grey.size) > MAX_SIDE:
        factor = MAX_SIDE / max(grey.size)
        size = (max(1, round(grey.width * factor)), max(1, round(grey.height * factor)))
        grey = grey.resize(size, Image.Resampling.LANCZOS)
        matrix = _scale(factor) @ matrix
    crop = _document(grey)
    if crop is not None:
        grey = grey.crop(crop)
        matrix = _shift(-crop[0], -crop[1]) @ matrix
    ink, factor = _ink(grey)
    turned = 0
    if orientation is not None and (every_page or _sideways(ink)):
        clockwise = orientation(grey)
        turned = (-clockwise) % 360 if clockwise is not None else 0
        if turned:
            before = grey.size
            grey = grey.rotate(turned, expand=True)
            matrix = _rotation(turned, before, grey.size) @ matrix
            ink, factor = _ink(grey)
    skew = _skew(ink)
    if abs(skew) >= 0.3:
        before = grey.size
        paper = int(np.median(_thumbnail(grey, _THUMB)[0]))  # see "Deskew"
        grey = grey.rotate(skew, expand=True, fillcolor=paper, resample=Image.Resampling.BICUBIC)
        matrix = _rotation(skew, before, grey.size) @ matrix
        ink, factor = _ink(grey)
    grey = ImageOps.autocontrast(grey, cutoff=1)
    height = _line_height(ink)
    if line_height and height:
        want = min(_MAX_UPSCALE, line_height / (height / factor), MAX_SIDE / max(grey.size))
        if want > 1.15 or want < 0.5:
            size = (max(1, round(grey.width * want)), max(1, round(grey.height * want)))
            grey = grey.resize(size, Image.Resampling.LANCZOS)
            matrix = _scale(want) @ matrix
    return Prepared(grey, matrix, turned, skew)
