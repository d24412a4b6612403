"""What a page of a contract declares about itself: the terms it defines and its headings.

Pure: a page's text in, defined terms and headings out.

Why definitions: contracts name a party, a date or an amount once and then use the defined
term on every page after ("the Borrower", "the Effective Date"). Lexical ranking alone favours
the pages that *use* a term most, so the one page that says who the Borrower is loses to the
hundred that say "the Borrower shall". A page defines a term when it writes it

* as a quoted term in parentheses after a name: ``Halvorsen Maritime AS (the "Borrower")``,
  ``("Licensee")``, ``(each a "Party" and together the "Parties")``;
* in a definitions clause: ``"Borrower" means ...``, ``"Term" has the meaning ...``;
* as a label at the start of a line: ``Borrower: Halvorsen Maritime AS, a company ...``;
* in a parties block (``by and between``, ``entered into ... between``, ``between (1)``, a
  ``PARTIES`` heading): the block defines the agreement and its parties, and the roles it
  names (``X as Borrower``).

Nothing here knows a role: any term a page defines counts, and :mod:`.pages` matches it against
the words of the field asked for.

Why headings: a section's heading says what the section is about in the words a field is named
with ("Governing Law", "Limitation of Liability"), while its body may never repeat them. A
heading is a numbered or lettered line whose title is capitalised (``Section 9.07 Governing
Law.``, ``12. LIMITATION OF LIABILITY``, ``(f) Effective Period and Termination.``) or a short
line in capitals (``EVENTS OF DEFAULT``). A table of contents lists every heading and is about
none of them: a page that looks like one (so titled, or mostly heading lines) has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["PageOutline", "outline"]

_Q_OPEN = "\"“”«'‘"
_Q_CLOSE = "\"“”»'’"
_TERM = rf"[{_Q_OPEN}]\s*([A-Z][^{_Q_OPEN}{_Q_CLOSE}()\n]{{0,60}}?)\s*[{_Q_CLOSE}]"
_PAREN = re.compile(r"\(([^()]{1,240})\)")
_QUOTED = re.compile(_TERM)
_MEANS = re.compile(
    _TERM + r"\s*,?\s*(?:shall\s+)?(?:means?|mean:|has\s+the\s+meaning|shall\s+have\s+the\s+"
    r"meaning|have\s+the\s+meaning|is\s+defined|refers?\s+to|includes?)\b"
)
_LABEL = re.compile(r"^\s*([A-Z][A-Za-z]+(?:[ -][A-Z][A-Za-z]+){0,3})\s*:\s+(\S.{2,})$")
_PARTIES = re.compile(
    r"(?:(?i:\bby\s+and\s+(?:between|among))"
    r"|(?i:\b(?:made|entered\s+into|executed)\b[^.;]{0,160}?\b(?:between|among))"
    r"|(?im:^\s*(?:between|among)))"
    r"(?=\s*:?\s*(?:\(1\)|[A-Z]))"  # then the first party: "(1) ...", "Acme Inc.", not "the"
    r"|(?m:^\s*(?:THE\s+)?PARTIES\s*:?\s*$)"
)
_ROLE = re.compile(r",?\s+as\s+(?:the\s+)?([A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,3})\b")
# What makes "between" a parties block rather than a mention of one: the parties are named as
# such, with what they are (a company incorporated in..., a Delaware corporation, Acme Inc.) or
# a role (as Borrower); "to be entered into among the Issuer and the Custodian" names neither.
_ENTITY = re.compile(
    r"(?i:\b(?:a|an)\s+(?:[\w.-]+\s+){0,4}?(?:company|corporation|partnership|trust|"
    r"association|bank|institution|entity)\b|\b(?:incorporated|organi[sz]ed|registered|"
    r"existing)\s+(?:in|under)\b)"
    r"|\b(?:Inc|Corp|Corporation|LLC|L\.L\.C|Ltd|Limited|plc|PLC|GmbH|AG|S\.A|N\.V|B\.V|LLP|"
    r"L\.P|LP|AS|ASA|AB|N\.A)\b"
)
_BLOCK_CHARS = 1_500  # a parties block's roles are named within this many characters of it
_NAMED_WITHIN = 400  # ... and its first party is described within this many

_NUMBERED = re.compile(
    r"^\s*(?:(?:section|article|clause|part|schedule)\s+)?"
    r"(?:\d{1,3}(?:\.\d{1,3})*\.?|[IVXLC]{1,6}\.?|\(?[a-z]{1,3}\)|\(?\d{1,2}\))\s+(.{3,})$",
    re.IGNORECASE,
)
_KEYWORD = re.compile(r"^\s*(?:section|article|clause|part|schedule)\b", re.IGNORECASE)
_LEADERS = re.compile(r"\.{4,}|…{2,}|_{4,}")
_TOC_LINE = re.compile(r"(?:\.{4,}|…{2,}|_{4,})|\s\d{1,4}\s*$")
_PAGE_REF = re.compile(r"^\s*\d{1,4}\s*$")
_TOC_TITLE = re.compile(r"^\s*(?:table\s+of\s+contents|contents|index)\s*$", re.IGNORECASE)
_SMALL = set(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "its",
        "not",
        "of",
        "on",
        "or",
        "per",
        "than",
        "the",
        "to",
        "under",
        "upon",
        "vs",
        "with",
    ]
)
_MAX_TITLE_WORDS = 10
_TOC_SHARE = 0.4  # a page whose lines are mostly headings is a table of contents


@dataclass(frozen=True, slots=True)
class PageOutline:
    """The terms a page defines and its section headings, as written."""

    defines: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()


def outline(text: str) -> PageOutline:
    """The defined terms and headings of one page's text (lines separated by newlines)."""
    lines = text.split("\n")
    return PageOutline(_defined_terms(text, lines), _headings(lines))


def _clean(term: str) -> str:
    return " ".join(term.split()).strip(" ,.;:")


def _defined_terms(text: str, lines: list[str]) -> tuple[str, ...]:
    flat = " ".join(text.split())
    terms: list[str] = []
    for paren in _PAREN.finditer(flat):
        terms += [m.group(1) for m in _QUOTED.finditer(paren.group(1))]
    terms += [m.group(1) for m in _MEANS.finditer(flat)]
    for line in lines:
        label = _LABEL.match(line)
        if label and any(c.isupper() or c.isdigit() for c in label.group(2)):
            terms.append(label.group(1))
    for block in _PARTIES.finditer(text):
        start = len(" ".join(text[: block.start()].split()))
        region = flat[start : start + _BLOCK_CHARS]
        near = region[:_NAMED_WITHIN]
        if _ENTITY.search(near) or _ROLE.search(near):
            terms += ["Agreement", "Parties", *(m.group(1) for m in _ROLE.finditer(region))]
            break
    out = dict.fromkeys(t for t in map(_clean, terms) if t and len(t) <= 60)
    return tuple(out)


def _title(text: str) -> str | None:
    """The heading title at the start of ``text`` (to its first full stop), if it reads as one:
    a few words, the significant ones capitalised."""
    title = re.split(r"(?<![A-Z])\.(?:\s|$)|:\s|;", text, maxsplit=1)[0].strip(" .:-–—")
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*", title)
    if not words or len(words) > _MAX_TITLE_WORDS or len(title) < 3:
        return None
    big = [w for w in words if w.lower() not in _SMALL]
    if not big or not all(w[0].isupper() for w in big):
        return None
    return title


def _heading(line: str) -> str | None:
    if _LEADERS.search(line) or (_TOC_LINE.search(line) and len(line.split()) <= 12):
        return None  # a line of a table of contents
    stripped = line.strip()
    numbered = _NUMBERED.match(stripped)
    if numbered:
        return _title(numbered.group(1))
    letters = [c for c in stripped if c.isalpha()]
    words = stripped.split()
    if len(letters) >= 4 and stripped.upper() == stripped and len(words) <= _MAX_TITLE_WORDS:
        title = stripped.strip(" .:-–—")
        return title if _KEYWORD.match(title) is None or len(words) > 2 else None
    return None


def _headings(lines: list[str]) -> tuple[str, ...]:
    if any(_TOC_TITLE.match(line) for line in lines):
        return ()
    found = [h for h in map(_heading, lines) if h]
    body = [line for line in lines if line.strip()]
    refs = sum(1 for line in body if _PAGE_REF.match(line) or _TOC_LINE.search(line))
    if len(found) >= 6 and len(found) >= _TOC_SHARE * len(body):
        return ()
    if refs >= 5 and refs >= _TOC_SHARE * len(body) / 2:  # lines ending in page numbers
        return ()
    return tuple(dict.fromkeys(found))
