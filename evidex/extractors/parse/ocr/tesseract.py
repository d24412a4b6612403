"""``Tesseract``: the ``tesseract`` command as an OCR engine (TSV: words, boxes, confidences).

Why Tesseract's TSV rather than PyMuPDF's ``get_textpage_ocr``: its OCR text page has no
confidences, so those would need a second Tesseract run over the same image (OCR is the whole cost
of a scan) and a box-overlap mapping between two runs that need not agree on the words. One TSV
run gives text, word boxes and word confidences together, so the confidence belongs to the very
word it describes. Measured on the invoice sample scanned at 200 dpi, on 2 cores: PyMuPDF's OCR
3.5 s a page, Tesseract TSV 1.6 s. Tesseract runs with ``OMP_THREAD_LIMIT=1`` (its OpenMP threads
spin against each other on small machines: 7 s a page with the default) and pages run in
parallel processes instead.

Page segmentation: ``--psm 3`` (automatic layout) suits a page of columns and blocks; a narrow
page — a till receipt, taller than 1.6 times its width — is one column of short rows, where
``--psm 4`` (one column of text of varying sizes) keeps each printed row one line instead of
cutting it into layout blocks (see :data:`PSM_NARROW`).

Orientation: :meth:`Tesseract.orientation` asks Tesseract's orientation and script detection
(``--psm 0``, the ``osd`` language data) how far a page is turned; :mod:`.prepare` asks only when
the page's ink runs sideways.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from evidex.extractors.parse.ocr.calibrate import WORD_CURVES, calibrated
from evidex.extractors.parse.ocr.lines import mean_confidence
from evidex.extractors.parse.ocr.words import OcrWord
from evidex.schemas import ConfigError, RunError

__all__ = ["PSM_NARROW", "Tesseract", "find_tessdata", "parse_tsv"]

PSM_NARROW = 4
_NARROW = 1.6  # height / width above which a page is read as one column (a receipt)
_TESSDATA_DIRS = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/opt/homebrew/share/tessdata",
)
_ROTATE = re.compile(r"Rotate:\s*(\d+)")
_OSD_CONF = re.compile(r"Orientation confidence:\s*([\d.]+)")


def find_tessdata(language: str = "eng", explicit: str | None = None) -> str | None:
    """The folder holding ``{language}.traineddata``: ``explicit``, ``$TESSDATA_PREFIX`` (or its
    ``tessdata`` folder), then the usual system places; None when none has it."""
    first = [explicit, os.environ.get("TESSDATA_PREFIX")]
    candidates = [c for c in first if c] + [str(Path(c) / "tessdata") for c in first if c]
    for folder in [*candidates, *_TESSDATA_DIRS]:
        if (Path(folder) / f"{language.split('+')[0]}.traineddata").is_file():
            return folder
    return None


@dataclass(frozen=True)
class Tesseract:
    """How to call the ``tesseract`` command; :meth:`read` reads one image."""

    language: str = "eng"
    tessdata: str | None = None
    binary: str = "tesseract"
    timeout_s: float = 120.0
    psm: int | None = None  # None: 3, or PSM_NARROW for a narrow page
    name: str = "tesseract"

    def check(self) -> None:
        """A ``ConfigError`` saying what to install when the command or its data is missing."""
        self._path()

    def _path(self) -> str:
        path = shutil.which(self.binary)
        if path is None:
            raise ConfigError(
                f"OCR needs the tesseract command, which is not installed ({self.binary!r} is not "
                "on PATH): install tesseract-ocr (Debian/Ubuntu: apt-get install tesseract-ocr "
                "tesseract-ocr-eng), choose --ocr rapidocr, or use --parser azure"
            )
        if self.tessdata is None and find_tessdata(self.language) is None:
            raise ConfigError(
                f"OCR needs Tesseract's language data for {self.language!r}, which was not found: "
                f"install tesseract-ocr-{self.language} or set TESSDATA_PREFIX to its folder"
            )
        return path

    def _run(self, png: bytes, args: list[str], what: str) -> str:
        command = [self._path(), "-", "-", *args]
        tessdata = self.tessdata or find_tessdata(self.language)
        command += ["--tessdata-dir", tessdata] if tessdata else []
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
        return done.stdout.decode("utf-8", "replace")

    def psm_for(self, size: tuple[int, int]) -> int:
        if self.psm is not None:
            return self.psm
        width, height = size
        return PSM_NARROW if height > _NARROW * width else 3

    def read(self, image: Image.Image, dpi: int | None, what: str) -> list[OcrWord]:
        args = ["-l", self.language, "--dpi", str(dpi or 300)]
        args += ["--psm", str(self.psm_for(image.size)), "tsv"]
        return parse_tsv(self._run(_png(image), args, what))

    def words(self, png: bytes, dpi: int | None, what: str) -> list[OcrWord]:
        """Tesseract's words in a PNG (a page image at ``dpi``), in Tesseract's order."""
        with Image.open(io.BytesIO(png)) as image:
            return self.read(image.convert("L"), dpi, what)

    def orientation(self, image: Image.Image, what: str) -> tuple[int, float] | None:
        """Degrees to turn ``image`` clockwise to make it upright, with Tesseract's confidence;
        None when the ``osd`` data is missing or Tesseract finds too little text to tell."""
        if find_tessdata("osd", self.tessdata) is None:
            return None
        try:
            out = self._run(_png(image), ["--psm", "0"], what)
        except RunError:  # "Too few characters": nothing to tell
            return None
        turn, conf = _ROTATE.search(out), _OSD_CONF.search(out)
        if turn is None or conf is None:
            return None
        return int(turn[1]) % 360, float(conf[1])

    def line_confidence(self, words: Sequence[OcrWord]) -> float:
        return calibrated(self.name, mean_confidence(words))

    def word_confidence(self, word: OcrWord) -> float:
        return calibrated(self.name, word.conf, WORD_CURVES)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def parse_tsv(text: str) -> list[OcrWord]:
    """Words from Tesseract's TSV output, confidences scaled to 0..1."""
    lines: dict[tuple[int, int, int], tuple[float, float, float, float]] = {}
    words: list[OcrWord] = []
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
            score = max(0.0, min(conf, 100.0)) / 100.0
            words.append(OcrWord(word, box, score, key, lines.get(key, box)))
    return words
