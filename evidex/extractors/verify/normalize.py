"""Text normalisation for matching, keeping a map back to the original characters.

A quote copied by a model and the text PyMuPDF extracts differ in ways that carry no meaning:
ligatures (``ﬁ``), typographic quotes and dashes, non-breaking and repeated spaces, soft hyphens,
compatibility forms (NFKC), case, and words hyphenated across a line break. Matching happens on
the normalised form; the map turns a match back into character ranges of the original lines so
that spans and boxes point at what is really on the page.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["Normalized", "normalize", "normalize_quote"]

_TRANSLATE = {
    **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032\u00b4`"), "'"),
    **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"), '"'),
    **dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"), "-"),
    **dict.fromkeys(map(ord, "\u00a0\u2007\u202f\u2009\u200a\u3000\t\r\n\f\v"), " "),
    **dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\ufeff"), ""),
}


class Normalized:
    """Normalised text plus, for each of its characters, the index of the source character."""

    __slots__ = ("index", "text")

    def __init__(self, text: str, index: list[int]) -> None:
        self.text = text
        self.index = index


@lru_cache(maxsize=4096)
def _fold(ch: str) -> str:
    out = unicodedata.normalize("NFKC", ch).translate(_TRANSLATE)
    return out.lower()


@lru_cache(maxsize=65536)
def normalize(text: str) -> Normalized:
    """NFKC, quotes/dashes/spaces unified, soft hyphens dropped, lower case, spaces collapsed.

    Cached by text (a document re-verified, or verified field by field, normalises each line
    once); the result is shared: read it, never change it."""
    chars: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        for out in _fold(ch):
            if out == " " and (not chars or chars[-1] == " "):
                continue
            chars.append(out)
            index.append(i)
    if chars and chars[-1] == " ":
        chars.pop()
        index.pop()
    return Normalized("".join(chars), index)


def normalize_quote(quote: str) -> str:
    """The normalised form of a quote; a word hyphenated over a line break is joined."""
    text = normalize(quote).text
    out: list[str] = []
    i = 0
    while i < len(text):
        if (
            text[i] == "-"
            and i + 2 < len(text)
            and text[i + 1] == " "
            and i > 0
            and text[i - 1].isalpha()
            and text[i + 2].islower()
        ):
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)
