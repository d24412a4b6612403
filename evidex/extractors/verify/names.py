"""A company's name cut short of its legal form.

Pure. A quote that prints "Nando's Chickenland Malaysia Sdn Bhd" holds every word of the value
"Nando's", so a word-by-word comparison (:mod:`.compare`) lets it through, yet the value is not
the name the document gives: a brand, or the first words of the name, where the legal name runs
on to its legal form. A reviewer is shown the name in full. Only a run of name words carries the
value on (no comma, colon, digit or small word between: "John Smith, ACME Ltd" and "signed for
ACME Ltd" name someone else).
"""

from __future__ import annotations

import re

from evidex.extractors.verify.locales import ends_in_legal_form

__all__ = ["cut_short"]

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
