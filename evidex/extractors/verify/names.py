"""A company's name cut short: of its legal form, or, for a field named for a business, of any
word of the name printed around it.

Pure. A quote that prints "Nando's Chickenland Malaysia Sdn Bhd" holds every word of the value
"Nando's", so a word-by-word comparison (:mod:`.compare`) lets it through, yet the value is not
the name the document gives: a brand, or the first words of the name, where the legal name runs
on to its legal form. A reviewer is shown the name in full. Only a run of name words carries the
value on (no comma, colon, digit or small word between: "John Smith, ACME Ltd" and "signed for
ACME Ltd" name someone else).

A field named for a business (:data:`ORGANISATION`: ``company``, ``merchant_name``,
``vendor``) holds the whole name printed, so "GIFT & HOME DECO" quoted from "INDAH GIFT & HOME
DECO", or "ABC HO" from "ABC HO TRADING", is a piece of it on either side (:func:`runs_on`). Any
other text field may hold part of a line ("Kuala Lumpur" of "53300 Kuala Lumpur Malaysia").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from evidex.extractors.verify.locales import ends_in_legal_form

__all__ = ["ORGANISATION", "STAMP_WORDS", "cut_short", "runs_on"]

# an office's stamp over the print ("POSTED", "PAID"), read on a name's line: no word of the name
STAMP_WORDS = r"(?:posted|paid|duplicate|reprint(?:ed)?|void|cancell?ed)"
_STAMP = re.compile(rf"(?i){STAMP_WORDS}\W*")

# a field named for a business ("company", "merchant_name", "current_employer"; not its
# "company_address"), whose value is the whole name printed
ORGANISATION = re.compile(
    r"(?i)(?:^|_)(?:company|merchant|vendor|supplier|seller|store|shop|employer|issuer|payee|"
    r"business|organi[sz]ation|firm)(?:_?name)?$"
)

_MAX_WORDS = 4  # name words the quote may add before the legal form
# a name's word, "(M)" (Malaysia's mark) or "&" ("LAVENDER CONFECTIONERY & BAKERY S/B")
_WORD = re.compile(r"[^\W\d_][\w'’&./-]*|\([^\W\d_]{1,3}\)|&")
_SMALL = frozenset({"for", "of", "by", "at", "and", "with", "to", "from", "on", "in", "the", "as"})


def cut_short(value: str, quote: str) -> str:
    """The name ``quote`` prints in full when ``value`` is its start without the legal form the
    quote gives right after it, else ``""``."""
    value = value.strip().rstrip(".,;:")
    if not value or any(c.isdigit() for c in value) or ends_in_legal_form(value):
        return ""  # no name, a number or an id, or a name that has its legal form
    at = quote.casefold().find(value.casefold())
    if at < 0:
        return ""
    start, end = at, at + len(value)
    end += quote.startswith(".", end)  # the value's own full stop ("D.I.Y.")
    if start and quote[start - 1].isalnum():
        return ""  # the value starts inside a word of the quote
    rest = quote[end:]
    tail = ""
    for n, word in enumerate(rest.split()[:_MAX_WORDS], 1):
        if not _WORD.fullmatch(word) or word.casefold() in _SMALL:
            return ""
        tail = rest[: rest.index(word) + len(word)]
        if n == 1 and not rest[:1].isspace():
            return ""  # the value ends inside a word of the quote
        if ends_in_legal_form(tail):
            return (quote[start:end] + tail).strip()
    return ""


def runs_on(value: str, quote: str) -> str:
    """The name ``quote`` prints when ``value`` is a piece of it (the run of name words holding
    ``value`` goes on before or after it, up to :data:`_MAX_WORDS` words each way), else
    ``""``."""
    value = value.strip().rstrip(".,;:")
    span = _found(value, quote) if value else None
    if span is None:
        return ""
    start, end = span
    end += quote.startswith(".", end)
    if (start and not quote[start - 1].isspace()) or (
        end < len(quote) and not quote[end].isspace()
    ):
        return ""  # inside a word, or beside a mark: the word check's or no run at all
    before = _name_words(reversed(quote[:start].split()))
    after = _name_words(quote[end:].split())
    if not before and not after:
        return ""
    return " ".join([*reversed(before), quote[start:end], *after])


def _found(value: str, quote: str) -> tuple[int, int] | None:
    """Where ``quote`` prints ``value`` (case aside), or, failing that, spaces aside: an OCR
    engine's spaces ("MR D.I .Y. (JOHOR) SDN BHD") are not the name's."""
    at = quote.casefold().find(value.casefold())
    if at >= 0:
        return at, at + len(value)
    kept = [i for i, c in enumerate(quote) if not c.isspace()]
    squashed = "".join(quote[i] for i in kept).casefold()
    bare = "".join(value.split()).casefold()
    at = squashed.find(bare) if bare else -1
    if at < 0:
        return None
    return kept[at], kept[at + len(bare) - 1] + 1


def _name_words(words: Iterable[str]) -> list[str]:
    """The name words ``words`` open with (at most :data:`_MAX_WORDS`)."""
    out: list[str] = []
    for word in words:
        if len(out) == _MAX_WORDS or not _WORD.fullmatch(word) or word.casefold() in _SMALL:
            break
        if _STAMP.fullmatch(word):  # "YONG CEN ENTERPRISE POSTED": a stamp, not the name
            break
        out.append(word)
    return out
