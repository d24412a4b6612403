"""What an OCR engine does to printed text, for the finders that read its lines.

**Spacing.** Engines that put spaces back from word boxes put them where print has none:
before a comma or a closing bracket, after an opening one, between initials ("MR D . I . Y .
(JOHOR)", "BALAKONG , 43300"). :func:`tidied` takes those out of a value read by OCR; the quote
keeps the line as read, and verification compares them spacing aside.

**Misreads.** Print never puts a zero between letters ("L0T", "INV0ICE"), a letter O at the
end of or inside a number ("8120o", "5O0"), or a full-width bracket from a CJK font inside a
Latin line ("MR D.I.Y. （H) SDN BHD"): those are the engine confusing shapes (O and 0; the
Chinese model's punctuation). Each is a reason to have a person look, never a correction: the
backend does not guess what was printed. Only lines read by OCR are looked at; a text layer
holds what the document says.
"""

from __future__ import annotations

import re

__all__ = ["misread", "tidied"]

_SIGNS = (
    (re.compile(r"(?<=[A-Za-z])0(?=[A-Za-z])"), "a zero between letters"),
    (re.compile(r"(?<=\d)[oO](?=\d|\b)"), "a letter O inside a number"),
    (re.compile(r"[\uff08\uff09\uff0c\uff1a\uff1b\u3001\u3002]"), "a full-width CJK mark"),
)


_BEFORE = re.compile(r"\s+(?=[,.:;)\]])")
_AFTER = re.compile(r"(?<=[(\[])\s+")
_INITIALS = re.compile(r"(?<![A-Za-z])(?:[A-Z] ?\. ?){2,}")


def tidied(text: str) -> str:
    """``text`` as print sets it: no space before ``, . : ; ) ]`` or after ``( [``, initials
    closed up ("D . I . Y ." as "D.I.Y.") where the engine spaced them on both sides."""
    text = _INITIALS.sub(_initials, text)
    return _AFTER.sub("", _BEFORE.sub("", text))


def _initials(m: re.Match[str]) -> str:
    run = m.group()
    if " ." not in run:
        return run
    return run.replace(" ", "") + (" " if run.endswith(" ") else "")


def misread(text: str) -> str:
    """What in ``text`` shows it was misread (``"'L0T' has a zero between letters"``), or
    ``""``."""
    for pattern, what in _SIGNS:
        if m := pattern.search(text):
            word = _word(text, m.start())
            return f"{word!r} has {what}"
    return ""


def _word(text: str, at: int) -> str:
    start, end = at, at + 1
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]
