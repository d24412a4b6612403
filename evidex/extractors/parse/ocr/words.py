"""What an OCR engine gives back, the ``OcrEngine`` protocol, and a scripted engine for tests.

An engine reads one prepared page image (:mod:`.prepare`) and returns its words: text, ink box
in that image's pixels, the engine's own confidence (0..1, not yet calibrated) and the line the
engine put the word on, with that line's box. Everything after that — splitting lines at column
gaps, reading order, boxes in the page's unit, calibrated line and word confidence — is the same
for every engine (:mod:`.lines`), so two engines differ only in what they read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from PIL import Image

__all__ = ["BoxPx", "OcrEngine", "OcrWord", "ScriptedEngine"]

BoxPx = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels, origin top-left


@dataclass(frozen=True, slots=True)
class OcrWord:
    """One word as an engine read it; ``conf`` is the engine's own score, 0..1; ``least``: its
    least sure character's, where the engine scores characters (None: it does not)."""

    text: str
    box: BoxPx
    conf: float
    line: tuple[int, int, int]  # the engine's block, paragraph, line
    line_box: BoxPx
    least: float | None = None


class OcrEngine(Protocol):
    """One OCR engine."""

    @property
    def name(self) -> str:
        """What ``--ocr`` calls it."""
        ...

    def check(self) -> None:
        """Raise ``ConfigError`` saying what to install when the engine cannot run here."""
        ...

    def read(self, image: Image.Image, dpi: int | None, what: str) -> list[OcrWord]:
        """The words of ``image`` (grey, upright); ``dpi`` when known; ``what`` names the page
        in error messages."""
        ...

    def line_confidence(self, words: Sequence[OcrWord]) -> float:
        """The calibrated confidence (0..1) that a line of these words was read right."""
        ...

    def word_confidence(self, word: OcrWord) -> float:
        """The calibrated confidence (0..1, on the line's scale) that ``word`` was read right."""
        ...


@dataclass
class ScriptedEngine:
    """An engine that answers from a function of the image size (tests, demos): no OCR runs."""

    words_for: Callable[[tuple[int, int]], list[OcrWord]]
    name: str = "scripted"
    reads: int = 0

    def check(self) -> None:
        return None

    def read(self, image: Image.Image, dpi: int | None, what: str) -> list[OcrWord]:
        self.reads += 1
        return self.words_for(image.size)

    def line_confidence(self, words: Sequence[OcrWord]) -> float:
        return round(sum(w.conf for w in words) / max(len(words), 1), 3)

    def word_confidence(self, word: OcrWord) -> float:
        return round(word.conf, 3)
