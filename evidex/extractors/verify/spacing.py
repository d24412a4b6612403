"""What an OCR engine does to spacing, undone for comparison only.

Pure. An engine places spaces from the gaps it sees between glyph boxes, so a line read by OCR
carries spaces print does not have ("1 8/01/201 8", "RM 64. 1 5", "T HREE ST OOGES") and loses
ones it does ("FUYI MINIMARKET", "05Mar2018"). A true value quoted from such a line fails a
comparison that takes the spacing at its word. These helpers give the verifier (:mod:`.compare`)
a second look with the spacing aside, and only for lines read by OCR: a text layer's spacing is
the document's own.

Nothing here makes a reading that the characters do not hold: the digits, letters and marks of
the value must all be in the quote, in the same order, each run of them starting and ending
where a word of the quote does.
"""

from __future__ import annotations

import re
import unicodedata

from evidex.extractors.verify.readings import EN_MONTHS

__all__ = ["SPACED_DATE", "SPLIT_DAY", "closed_up", "same_but_spacing"]

# a decimal amount with a stray space around its point or between its decimals ("64. 1 5",
# "33 .90"), never a plain list of numbers ("5.00 6.00": no space inside either)
_DECIMAL = re.compile(r"(?<![\d.,])(\d{1,9})( ?)([.,])( ?)(\d)( ?)(\d)(?!\d)")
# a numeric date with stray spaces in its parts or around its separators ("1 8/01/201 8",
# "5/ 3 /201 8"), not run on from a code ("HC03-7 - 15", "MI11/3-21 - 12/480": a separator
# glued before it or after it); the year of four digits (not an hour's two run on: "1 9 2 1 :
# 13"), or of two when no digit follows but a time's
SPACED_DATE = re.compile(
    r"(?<![\dA-Za-z/.-])(?<!\d )(\d(?: ?\d)?) ?([/.-]) ?(\d(?: ?\d)?) ?\2 ?"
    r"((?:1 ?9|2 ?0) ?\d ?\d(?!\d)(?!\s*:)|\d ?\d(?=\s*$|\s*[^\d\s:]|\s+\d ?\d? ?:))"
    r"(?![/.-]\d)"
)
# a month's name run into its day and year ("05Mar2018", "12 Mar2018", "05Mar201818:24")
_GLUED_MONTH = re.compile(
    r"(?<![A-Za-z\d])(\d{1,2}) ?([A-Za-z]{3,9})\.? ?((?:19|20)\d{2})(?=\D|$|\d{1,2}:\d{2})"
)

# a lone digit and a space before a digit run into or spaced from a word ("1 7 JAN 2018"): a
# day whose two digits an engine read apart, where the word is a month's name
SPLIT_DAY = re.compile(r"(?<![\w.,:/-])(\d) (?=\d ?([A-Za-z]{3,9})(?![A-Za-z]))")

# a numeric date whose four-digit year OCR ran into the time after it ("09/03/201821:28")
_GLUED_TIME = re.compile(r"(?<![\d/.-])(\d{1,2}([/.-])\d{1,2}\2(?:19|20)\d{2})(?=\d{1,2}:\d{2})")

_MONTH_NAMES = EN_MONTHS.keys() | {"sept"}  # "Sept" too: dateparser reads it


def closed_up(quote: str) -> str:
    """``quote`` with the spaces OCR put inside a decimal amount or a numeric date taken out,
    a numeric date's year parted from the time run into it ("09/03/2018 21:28"), and a month's
    name run into its day and year spaced as a date ("05 Mar 2018"), a day read apart before
    its month's name joined ("1 7 JAN 2018")."""
    text = _DECIMAL.sub(lambda m: m[1] + m[3] + m[5] + m[7], quote)
    text = SPLIT_DAY.sub(lambda m: m[1] if m[2].lower() in _MONTH_NAMES else m.group(), text)
    text = SPACED_DATE.sub(_closed_date, text)
    text = _GLUED_TIME.sub(r"\1 ", text)
    return _GLUED_MONTH.sub(_spaced_month, text)


def _closed_date(m: re.Match[str]) -> str:
    day, sep, month, year = (m[1], m[2], m[3], m[4])
    return "".join(day.split()) + sep + "".join(month.split()) + sep + "".join(year.split())


def _spaced_month(m: re.Match[str]) -> str:
    if m[2].lower() not in _MONTH_NAMES:
        return m.group()
    return f"{m[1]} {m[2]} {m[3]} "


def _folded(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def same_but_spacing(value: str, quote: str) -> bool:
    """Whether ``value`` is a run of ``quote`` once spaces are set aside on both (case and
    accents aside too), the run starting and ending at the edge of a word of the quote:
    "THREE STOOGES" is what "T HREE ST OOGES" says and "FUYI MINI MARKET" what "FUYI
    MINIMARKET" says, but "HREE" is not what "THREE" says, nor "64.15" what "64 15" says."""
    wanted = "".join(_folded(value).split())
    if not wanted:
        return False
    chars: list[str] = []
    edges: set[int] = {0}  # positions in the closed-up quote where a word starts or ends
    for word in _folded(quote).split():
        start = len(chars)
        edges.add(start)
        for i, c in enumerate(word):
            if i and c.isalnum() != word[i - 1].isalnum():
                edges.add(start + i)
            chars.append(c)
        edges.add(len(chars))
    closed = "".join(chars)
    at = closed.find(wanted)
    while at != -1:
        if at in edges and at + len(wanted) in edges:
            return True
        at = closed.find(wanted, at + 1)
    return False
