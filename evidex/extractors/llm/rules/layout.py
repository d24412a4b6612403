"""Values placed, not labelled: where a line sits and how large it is says what it holds.

* the name at the top of a CV (the largest line of page 1), its headline (the line under the
  name), its location ("City, Country" beside the contact details), and the current job (the
  first entry under an "Experience" heading: the line with a job word is the title, the other
  the employer);
* the blocks of an invoice: a block under a heading ("Bill to", "Sold to", "Ship to",
  "Vendor", "Rechnungsadresse") belongs to that party; a name and address block without one is
  the addressee's (the buyer's) unless it names the seller, whose name is the letterhead (the
  largest name on page 1);
* an address read from a block's lines or a line's " · "-separated parts: the street (words and
  a house number), the postal code and city ("10245 Berlin", "1091 GS Amsterdam", "Fremont, CA
  94538") and the country (Babel's English territory names).

Every value still quotes visible lines: a block's address cites its lines, joined by spaces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from babel import Locale

from .lines import Hit, Line, Lines
from .match import Match
from .meaning import PARENTS, Concept

__all__ = ["LayoutFinder"]

_NOT_A_NAME = re.compile(
    r"(?i)(?:curriculum vitae|resume|résumé|cv|invoice|rechnung|facture|receipt|quote|quotation"
    r"|agreement|contract|tax invoice|credit note|statement|bill|page \d.*)"
)
# words of a document's own vocabulary: a line holding one is a heading or a label, not a name
_DOCUMENT_WORDS = re.compile(
    r"(?i)\b(?:invoice|rechnung|factuur|facture|factura|total|amount|balance|due|date|tax|vat"
    r"|receipt|order|page|summary|statement|address|adres|adresse|bill|billing)\b"
)
_WORD = r"[A-ZÀ-Þ][\w.'’&-]*"
_ORG = re.compile(
    rf"(?:{_WORD}|&|[a-z]{{1,3}}|[\w.-]+)(?:\s+(?:{_WORD}|&|and|of|[a-z]{{1,3}}\.?|[\w.-]+)){{0,7}}"
)
_SEGMENTS = re.compile(r"\s+[|·•–—]\s+|\s{3,}|\s*[\ue000-\uf8ff]\s*")  # private use: icons
_LOCATION = re.compile(
    r"[A-ZÀ-Þ][\w.'’-]+(?:\s[A-ZÀ-Þ][\w.'’-]+){0,2},\s?[A-ZÀ-Þ][\w.'’-]+(?:\s[A-ZÀ-Þ][\w.'’-]+){0,2}"
)
_CONTACT = re.compile(r"@|https?://|www\.|\+\d|\d{3}[\s.-]\d{3}")
_EXPERIENCE = re.compile(
    r"(?i)\s*(?:(?:work|professional|relevant)\s+)?(?:experience|employment(?:\s+history)?"
    r"|work\s+history|career(?:\s+history)?|berufserfahrung|expérience)\s*:?\s*"
)
_JOB_WORDS = re.compile(
    r"(?i)\b(?:engineer|developer|manager|lead|director|intern|analyst|scientist|founder|cto|"
    r"ceo|cfo|consultant|designer|architect|officer|head|president|researcher|specialist|"
    r"associate|assistant|administrator|programmer|technician|coordinator|teacher|professor|"
    r"accountant|nurse|owner|partner|advisor|fellow|editor|writer|trainee)s?\b"
)
_DATE_LINE = re.compile(r"(?i)\s*(?:\d{1,2}[./]\d{4}|\d{4}|[a-z]{3,9}\.?\s+\d{4})\b")
_POSTAL_EU = re.compile(
    r"(?:[A-Z]{1,2}[- ])?(?P<pc>\d{4,5}(?:\s?[A-Z]{2})?)\s+"
    r"(?P<city>[A-ZÀ-Þ][\w'’.-]*(?:[ -][A-ZÀ-Þa-z][\w'’.-]*){0,3})"
)
_POSTAL_US = re.compile(
    r"(?P<city>[A-ZÀ-Þ][\w'’.-]*(?:\s[A-ZÀ-Þ][\w'’.-]*){0,3}),?\s+(?P<region>[A-Z]{2})\s+(?P<pc>\d{5}(?:-\d{4})?)"
)
_POSTAL_UK = re.compile(
    r"(?P<city>[A-ZÀ-Þ][\w'’.-]*(?:\s[A-ZÀ-Þ][\w'’.-]*){0,2}),?\s+"
    r"(?P<pc>[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2})"
)
_STREET = re.compile(
    r"(?:\d+[A-Za-z]?\s+(?:[A-ZÀ-Þ][\w'’.-]*\s?){1,5}|(?:[A-ZÀ-Þ][\w'’.-]*\s){0,4}[A-ZÀ-Þa-zß][\w'’.-]*\s\d+[A-Za-z]?(?:[-/]\d+)?)"
)


@lru_cache(maxsize=1)
def _countries() -> frozenset[str]:
    names = {n.lower() for n in Locale("en").territories.values()}
    return frozenset(names | {"usa", "uk", "the netherlands", "deutschland", "nederland"})


@lru_cache(maxsize=1)
def _headings() -> list[tuple[str, re.Pattern[str]]]:
    """Per party (seller, buyer), a heading line: its label alone, or before ":" or a gap."""
    out = []
    for concept in PARENTS[:2]:
        labels = "|".join(re.escape(x) for x in sorted(concept.labels, key=len, reverse=True))
        out.append((concept.key, re.compile(rf"(?i)\s*(?:{labels})\s*(?::|$|\s{{2,}})\s*")))
    return out


@dataclass(frozen=True, slots=True)
class _Part:
    line: Line
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.line.text[self.start : self.end]


_TRIM = " \t•|·–—"


def _parts(line: Line) -> list[_Part]:
    out, pos = [], 0
    for m in [*_SEGMENTS.finditer(line.text), None]:
        end = m.start() if m else len(line.text)
        chunk = line.text[pos:end]
        lead = len(chunk) - len(chunk.lstrip(_TRIM))
        if chunk.strip(_TRIM):
            out.append(_Part(line, pos + lead, pos + len(chunk.rstrip(_TRIM))))
        pos = m.end() if m else pos
    return out


def _postal(text: str) -> dict[str, Any] | None:
    for pattern in (_POSTAL_US, _POSTAL_UK, _POSTAL_EU):
        if m := pattern.fullmatch(text):
            found = m.groupdict()
            return {
                "postal_code": found["pc"],
                "city": found["city"],
                "region": found.get("region"),
            }
    return None


def _address(parts: list[_Part]) -> tuple[dict[str, Any], int, int] | None:
    """The address the parts hold: a street part right before a postal code and city part,
    then a country part if one follows; its value and the first and last part it uses."""
    texts = [part.text.strip().rstrip(",") for part in parts]
    for i in range(1, len(texts)):
        postal = _postal(texts[i])
        street = texts[i - 1]
        if postal is None or not (_STREET.fullmatch(street) or _POSTAL_EU.fullmatch(street)):
            continue
        value: dict[str, Any] = {"street": street, **postal, "country": None}
        last = i
        if i + 1 < len(texts) and texts[i + 1].lower() in _countries():
            value["country"], last = texts[i + 1], i + 1
        return value, i - 1, last
    return None


def _name_like(text: str) -> bool:
    clean = text.strip()
    return (
        bool(clean)
        and not _NOT_A_NAME.fullmatch(clean)
        and not _DOCUMENT_WORDS.search(clean)
        and clean.lower() not in _countries()
        and not _CONTACT.search(clean)
        and not re.search(r"\d{3}|:", clean)
        and _ORG.fullmatch(clean) is not None
        and clean[0].isupper()
    )


class LayoutFinder:
    lines: Lines

    def layout_hits(
        self,
        concept: Concept | None,
        kind: str,
        parent: str,
        owner: Concept | None,
        description: str = "",
    ) -> list[Hit]:
        if concept is None:
            return []
        if owner is not None and owner.key in ("seller", "buyer"):
            if concept.layout == "person":
                return self._party(owner.key, "name")
            if concept.key == "address" or kind == "address":
                return self._party(owner.key, "address")
            return []
        if parent:
            return []
        if concept.layout in ("person", "title"):
            return self._prominent(concept.layout, description)
        if concept.layout == "headline":
            return self._headline()
        if concept.layout == "location":
            return self._location()
        if concept.layout in ("job title", "employer"):
            return self._job(concept.layout)
        return []

    # -- CVs ---------------------------------------------------------------------------------

    def _page_one(self) -> list[Line]:
        rows = self.lines.rows
        return [line for line in rows if line.page == rows[0].page] if rows else []

    def _top(self, layout: str) -> tuple[Line, bool] | None:
        """The most prominent plausible line of page 1, and whether it stands out by size."""
        page = self._page_one()
        if not page:
            return None
        sizes = sorted({line.size for line in page if line.size == line.size}, reverse=True)
        flat = len(sizes) <= 1
        for size in sizes[:3] if not flat else sizes:
            for line in page if not flat else page[:5]:
                if line.size == size and self._fits(layout, line.text):
                    return line, not flat
        return None

    @staticmethod
    def _fits(layout: str, text: str) -> bool:
        clean = text.strip()
        if _NOT_A_NAME.fullmatch(clean) or "@" in clean or not re.search(r"[A-Za-z]{2}", clean):
            return False
        if layout == "title":
            return len(clean.split()) <= 15 and not clean.endswith(".") and not clean[:1].isdigit()
        person = rf"{_WORD}(?:\s+{_WORD}){{1,5}}"
        return re.fullmatch(person, clean) is not None and not re.search(r"\d", clean)

    def _prominent(self, layout: str, description: str) -> list[Hit]:
        top = self._top(layout)
        if top is None:
            return []
        line, stands_out = top
        if layout == "title" and not stands_out:
            # every line the same size: only a first line that says what the field names
            keys = [w for w in re.findall(r"[a-z]{5,}", description.lower()) if w != "title"]
            firsts = [x for x in self._page_one()[:5] if self._fits(layout, x.text)]
            named = next((x for x in firsts if any(k in x.text.lower() for k in keys)), None)
            if named is None:
                return []
            line = named
        start, end = len(line.text) - len(line.text.lstrip()), len(line.text.rstrip())
        caveat = (
            "taken from the most prominent line of page 1; no label names it"
            if stands_out
            else "taken from the first lines: every line on page 1 has the same size"
        )
        rank = (1, -2) if stands_out else (3, 0)
        return [Hit(rank, line, Match(start, end, line.text[start:end], caveat), (start, end))]

    def _headline(self) -> list[Hit]:
        top = self._top("person")
        below = self.lines.after(top[0]) if top else None
        if top is None or below is None or not top[1] or below.page != top[0].page:
            return []
        text = below.text.strip()
        if _CONTACT.search(text) or len(text.split()) < 2 or len(text.split()) > 12:
            return []
        parts = [p.text.strip() for p in _parts(below)]
        if any(_LOCATION.fullmatch(x) for x in parts) or _EXPERIENCE.fullmatch(text):
            return []  # a location or a heading: no headline
        start, end = len(below.text) - len(below.text.lstrip()), len(below.text.rstrip())
        match = Match(start, end, below.text[start:end], "the line under the name; no label")
        return [Hit((3, 0), below, match, (start, end))]

    def _location(self) -> list[Hit]:
        page = self._page_one()[:60]
        near = {i for i, line in enumerate(page) if _CONTACT.search(line.text)}
        for i, line in enumerate(page):
            if not any(abs(i - j) <= 2 for j in near):
                continue
            for part in _parts(line):
                if _LOCATION.fullmatch(part.text) and not _CONTACT.search(part.text):
                    caveat = "a place beside the contact details; no label"
                    match = Match(part.start, part.end, part.text, caveat)
                    return [Hit((3, 0), line, match, (part.start, part.end))]
        return []

    def _job(self, layout: str) -> list[Hit]:
        rows = self.lines.rows
        for line in rows:
            if not _EXPERIENCE.fullmatch(line.text):
                continue
            entry = [
                x for x in rows[line.index + 1 : line.index + 6] if not _DATE_LINE.match(x.text)
            ]
            if len(entry) < 2:
                return []
            first, second = (_parts(x)[0] for x in entry[:2])
            both = first.text.split(", ")
            if len(both) == 2 and bool(_JOB_WORDS.search(both[0])) != bool(
                _JOB_WORDS.search(both[1])
            ):
                cut = first.start + len(both[0])  # "Co-Founder & CTO, Nexus AI" on one line
                first, second = (
                    _Part(first.line, first.start, cut),
                    _Part(first.line, cut + 2, first.end),
                )
            title, employer = (
                (second, first)
                if (_JOB_WORDS.search(second.text) and not _JOB_WORDS.search(first.text))
                else (first, second)
            )
            part = title if layout == "job title" else employer
            if part.text.strip().endswith(".") or len(part.text.split()) > 8:
                return []
            head = line.text.strip()
            caveat = f"the first entry under {head!r}; no label"
            match = Match(part.start, part.end, part.text, caveat)
            return [Hit((3, 0), part.line, match, (part.start, part.end))]
        return []

    # -- invoice blocks ------------------------------------------------------------------------

    def _heading(self, line: Line) -> tuple[str, int] | None:
        """The party a heading line names, and where the text after it starts."""
        for key, heading in _headings():
            if m := heading.match(line.text):
                return key, m.end()
        return None

    def _blocks(self) -> list[tuple[str | None, list[_Part]]]:
        """Blocks of parts: (owner named by a heading or None, parts in order)."""
        cached: list[tuple[str | None, list[_Part]]] | None = getattr(self, "_block_cache", None)
        if cached is not None:
            return cached
        out: list[tuple[str | None, list[_Part]]] = []
        page, used = self._page_one(), set[int]()
        for line in page:
            if line.index in used:
                continue
            head = self._heading(line)
            block, parts = [line], []
            if head is not None and line.text[head[1] :].strip():
                parts.append(_Part(line, head[1], len(line.text.rstrip())))
            elif head is None:
                parts += _parts(line)
            current = line
            while len(block) < 7 and (below := self.lines.after(current)) is not None:
                apart = not current.continued_by(below) or abs(below.x0 - block[-1].x0) > 15
                if apart and (
                    head is None or below.page != line.page or abs(below.x0 - line.x0) > 15
                ):
                    break
                if ":" in below.text or below.index in used or abs(below.size - current.size) > 1:
                    break
                block.append(below)
                parts += _parts(below)
                current = below
            used.update(x.index for x in block)
            if head is not None or _address(parts) is not None:
                out.append((head[0] if head else None, parts))
        self._block_cache = out
        return out

    def _party(self, owner: str, what: str) -> list[Hit]:
        seller = self._top("title")
        seller_name = (
            seller[0].text.strip() if seller and seller[1] and _name_like(seller[0].text) else None
        )
        blocks = self._blocks()
        headed = {o for o, _ in blocks if o}
        for head, parts in blocks:
            found = _address(parts)
            name = parts[0] if parts and _name_like(parts[0].text) else None
            if found is not None and name is not None and found[1] == 0:
                name = None
            if head is not None:
                belongs, caveat = head == owner, f"in the block headed for the {head}"
            elif name is not None and name.text.strip() == seller_name:
                belongs, caveat = owner == "seller", "in the letterhead's block"
            elif name is not None:
                belongs = owner == "buyer" and "buyer" not in headed
                caveat = "the addressee's block; no heading names the buyer"
            else:
                belongs = owner == "seller" and "seller" not in headed
                caveat = "an address without a name, taken as the sender's"
            if not belongs:
                continue
            if what == "name" and name is not None:
                match = Match(name.start, name.end, name.text, caveat)
                return [Hit((1, 0), name.line, match, (name.start, name.end), True)]
            if what == "address" and found is not None:
                value, first, last = found
                a, b = parts[first], parts[last]
                if a.line is b.line:
                    match = Match(a.start, b.end, value, caveat)
                    return [Hit((1, 0), a.line, match, (a.start, b.end), True)]
                text = " ".join(x.text for x in self.lines.rows[a.line.index : b.line.index + 1])
                end = len(text) - (len(b.line.text) - b.end)
                match = Match(a.start, end, value, caveat)
                last = b.line.index
                return [Hit((1, 0), a.line, match, (a.start, end), True, last, text)]
        if what == "name" and owner == "seller" and seller is not None and seller_name:
            line = seller[0]
            start, end = len(line.text) - len(line.text.lstrip()), len(line.text.rstrip())
            caveat = "the letterhead: the most prominent name on page 1"
            return [
                Hit((2, 0), line, Match(start, end, line.text[start:end], caveat), (start, end))
            ]
        return []
