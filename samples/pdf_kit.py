"""What every sample document is drawn with: fonts, colours, the canvas and the expected record.

The samples place every line of text themselves (``Canvas``) instead of letting PyMuPDF flow it,
so the generator knows which words share a rendered line and can promise that a quote meant to
sit on one line does. The formatting functions render dates and amounts the way the documents print
them and the way ``<name>.expected.json`` records them; ``Expected`` collects those records in
schema order. Document metadata is fixed so that every build is byte-for-byte the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from decimal import Decimal
from typing import Any

import pymupdf

__all__ = [
    "GREY",
    "INK",
    "NAVY",
    "RULE",
    "SIDEBAR",
    "TABLE_HEAD",
    "Canvas",
    "Expected",
    "SampleError",
    "amount_value",
    "collapse",
    "date_value",
    "day_month_year",
    "dotted",
    "eu_number",
    "eu_quantity",
    "month_year",
    "new_document",
    "us_long",
]

_FONTS = {
    "R": "helv",
    "B": "hebo",
    "I": "heit",
    "TR": "tiro",
    "TB": "tibo",
    "TI": "tiit",
}
_FONT_CACHE: dict[str, pymupdf.Font] = {}

INK = (0.13, 0.13, 0.15)
GREY = (0.38, 0.40, 0.44)
RULE = (0.78, 0.80, 0.84)
NAVY = (0.11, 0.22, 0.40)
SIDEBAR = (0.925, 0.937, 0.957)
TABLE_HEAD = (0.92, 0.93, 0.95)

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

_FIXED_DATE = "D:20260316090000+00'00'"


class SampleError(AssertionError):
    """A generated sample does not match what its expected file says."""


# --------------------------------------------------------------------------------------------
# Small value helpers


def _font(alias: str) -> pymupdf.Font:
    name = _FONTS[alias]
    if name not in _FONT_CACHE:
        _FONT_CACHE[name] = pymupdf.Font(name)
    return _FONT_CACHE[name]


def collapse(text: str) -> str:
    return " ".join(text.split())


def day_month_year(d: date) -> str:
    return f"{d.day} {_MONTHS[d.month - 1]} {d.year}"


def dotted(d: date) -> str:
    return f"{d.day:02d}.{d.month:02d}.{d.year}"


def us_long(d: date) -> str:
    return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"


def month_year(d: date) -> str:
    return f"{_MONTHS[d.month - 1][:3]} {d.year}"


def date_value(d: date, original: str) -> dict[str, str]:
    return {"iso": d.isoformat(), "original": original}


def amount_value(value: Decimal, currency: str) -> dict[str, Any]:
    return {"value": float(value), "currency": currency}


def eu_number(value: Decimal) -> str:
    """``16738.3`` -> ``16.738,30`` (German grouping and decimal comma)."""
    us = f"{value.quantize(Decimal('0.01')):,.2f}"
    return us.replace(",", "_").replace(".", ",").replace("_", ".")


def eu_quantity(value: Decimal) -> str:
    text = f"{value.normalize():f}"
    return text.replace(".", ",")


class Expected:
    """The expected extraction of one sample, in the order the schema declares its fields."""

    def __init__(self) -> None:
        self.fields: dict[str, dict[str, Any]] = {}
        self.multiline: set[str] = set()

    def add(self, path: str, value: Any, quote: str, *, multiline: bool = False) -> None:
        if path in self.fields:
            raise SampleError(f"duplicate expected field {path!r}")
        self.fields[path] = {"value": value, "quote": quote}
        if multiline:
            self.multiline.add(path)

    def keep(self) -> list[str]:
        """Quotes that must not be broken across rendered lines."""
        return [e["quote"] for p, e in self.fields.items() if p not in self.multiline]


# --------------------------------------------------------------------------------------------
# Layout: fixed-position text with our own word wrapping, so we know which words share a line


class Canvas:
    """Pages of one document plus text helpers that place, measure and wrap text."""

    def __init__(self, doc: pymupdf.Document, width: float, height: float) -> None:
        self.doc = doc
        self.width = width
        self.height = height
        self.page: pymupdf.Page | None = None
        self._fonts: dict[int, set[str]] = {}

    def new_page(self) -> pymupdf.Page:
        self.page = self.doc.new_page(width=self.width, height=self.height)
        return self.page

    def _current(self) -> pymupdf.Page:
        if self.page is None:
            raise SampleError("no page")
        return self.page

    def length(self, text: str, font: str, size: float) -> float:
        return float(_font(font).text_length(text, size))

    def text(
        self,
        x: float,
        y: float,
        text: str,
        font: str = "R",
        size: float = 9.5,
        color: tuple[float, float, float] = INK,
        *,
        align: str = "left",
        page: pymupdf.Page | None = None,
    ) -> None:
        """Write one line with its baseline at ``y``; ``align='right'`` ends it at ``x``."""
        target = page or self._current()
        fonts = self._fonts.setdefault(target.xref, set())
        if font not in fonts:
            target.insert_font(fontname=font, fontbuffer=_font(font).buffer)
            fonts.add(font)
        width = self.length(text, font, size)
        if align == "right":
            x -= width
        elif align == "center":
            x -= width / 2
        if x < 0 or x + width > self.width + 0.01:
            raise SampleError(f"text runs off the page: {text!r}")
        target.insert_text((x, y), text, fontname=font, fontsize=size, color=color)

    def wrap(
        self, text: str, font: str, size: float, width: float, keep: Iterable[str] = ()
    ) -> list[str]:
        """Break ``text`` into lines no wider than ``width``; never inside a ``keep`` phrase."""
        protected: set[int] = set()
        for phrase in keep:
            if " " not in phrase:
                continue
            start = text.find(phrase)
            while start != -1:
                protected.update(i for i in range(start, start + len(phrase)) if text[i] == " ")
                start = text.find(phrase, start + 1)
        words: list[str] = []
        current: list[str] = []
        for i, ch in enumerate(text):
            if ch == " " and i not in protected:
                words.append("".join(current))
                current = []
            else:
                current.append(ch)
        words.append("".join(current))
        lines: list[str] = []
        line = ""
        for word in words:
            if not word:
                continue
            candidate = f"{line} {word}" if line else word
            if line and self.length(candidate, font, size) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        if line:
            lines.append(line)
        for line in lines:
            if self.length(line, font, size) > width + 0.01:
                raise SampleError(f"cannot fit {line!r} in {width}pt")
        return lines

    def paragraph(
        self,
        x: float,
        y: float,
        width: float,
        text: str,
        font: str = "R",
        size: float = 9.5,
        leading: float = 13.0,
        color: tuple[float, float, float] = INK,
        keep: Iterable[str] = (),
        *,
        bottom: float | None = None,
        top: float = 72.0,
    ) -> float:
        """Write a wrapped paragraph from baseline ``y``; return the baseline after it.

        With ``bottom`` a line that would fall below it starts a new page, where the text
        resumes at baseline ``top``.
        """
        for line in self.wrap(text, font, size, width, keep):
            if bottom is not None and y > bottom:
                self.new_page()
                y = top
            self.text(x, y, line, font, size, color)
            y += leading
        return y

    def rule(
        self,
        x0: float,
        y: float,
        x1: float,
        color: tuple[float, float, float] = RULE,
        width: float = 0.6,
    ) -> None:
        self._current().draw_line((x0, y), (x1, y), color=color, width=width)

    def box(self, rect: pymupdf.Rect, fill: tuple[float, float, float]) -> None:
        self._current().draw_rect(rect, color=None, fill=fill, width=0)


def new_document(title: str, subject: str) -> pymupdf.Document:
    doc = pymupdf.open()
    doc.set_metadata(
        {
            "title": title,
            "author": "evidex samples (fictional)",
            "subject": subject,
            "keywords": "evidex, sample, fictional",
            "creator": "samples/make_samples.py",
            "producer": "PyMuPDF",
            "creationDate": _FIXED_DATE,
            "modDate": _FIXED_DATE,
        }
    )
    return doc
