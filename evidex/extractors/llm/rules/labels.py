"""Values that follow a label: "Invoice No: INV-1", "Due date 14.04.2026", "IBAN" over
"DE45 …", "Skills: a, b (c, d)".

A label is the field's name, its concept's labels (``meaning.py``) or a short description. A
one-word label starts its line or ends in a colon after a value, so "Due date" is never read as
"date"; a label word that carries on the sentence of the line above is prose, not a label.
Each label list is compiled once and run once over the whole document (``Lines.joined``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .dates import date_at, spaced_dates
from .lines import Hit, Leaf, Line, Lines, leaf
from .match import Match, word_end
from .money import PERCENT_PREFIX, amount_at
from .values import ANCHORED, SEARCHED, near_value, parse_string, split_items

__all__ = ["LabelFinder", "label_regex", "lead", "norm_label", "sep"]

_SEP = re.compile(r"\.?[ \t]*(?:\([^()\n]{0,24}\)[ \t]*)?(?:[:#=]|[-–](?=\s))?[ \t]*")
_LEAD = re.compile(r"\s*(?:[-•*·▪]\s*|\(?[0-9a-z]{1,3}[.)]\s*)?(?:\d+(?:\.\d+)*\.?\s+)?")
_ID_TOKEN = re.compile(r"[^\s:]*\d\S*?(?=[.,;]?(?:\s|$))")
# a token that opens with an id's word ("NO(814198-X)"): the label before it names an id
# ("COMPANY NO"), so what follows is that id, not the label's own value (the company)
_ID_WORD = re.compile(r"(?i)(?:n[o0]|nr|reg|id)\b|#")
_COLON = re.compile(r"[:#=–-]\s*$")  # the separator ends in "Label: " (or "#", "=", " - ")
_BULLET = re.compile(r"\s*[-•*·▪]\s+")
_PROSE = re.compile(r"\s+(?:and|or|of|shall|will|is|are|to|in|for|with|by|as)\s")
_NEXT_LINE_KINDS = {"date", "amount", "currency", "percentage", "duration", "bic"}
_NEXT_LINE_KINDS |= {"email", "url", "iban", "vat_id", "phone"}

LabelMatch = tuple[Line, re.Match[str], int, bool]


@lru_cache(maxsize=512)
def _lookup(labels: tuple[tuple[str, bool], ...]) -> dict[str, tuple[int, bool]]:
    """A matched label's (rank, qualified), keyed by its normal form."""
    out: dict[str, tuple[int, bool]] = {}
    for rank, (label, qualified) in enumerate(labels):
        out.setdefault(norm_label(label), (rank, qualified))
    return out


@lru_cache(maxsize=4096)
def norm_label(label: str) -> str:
    return re.sub(r"[^a-z0-9#äöüß]", "", label.lower())


@lru_cache(maxsize=512)
def label_regex(labels: tuple[str, ...]) -> re.Pattern[str]:
    alts = []
    for label in sorted(set(labels), key=len, reverse=True):
        body = r"[ \t\-_./]*".join(re.escape(w) for w in label.split())
        left = r"(?<![A-Za-z0-9])" if label[0].isalnum() else ""
        right = r"(?![A-Za-z0-9])" if label[-1].isalnum() else ""
        alts.append(left + body + right)
    return re.compile("(?i)" + "|".join(alts))


def sep(text: str, pos: int) -> re.Match[str]:
    found = _SEP.match(text, pos)
    assert found is not None  # every part of _SEP is optional
    return found


def lead(text: str) -> int:
    found = _LEAD.match(text)
    return found.end() if found else 0


class LabelFinder:
    lines: Lines

    def label_matches(
        self, labels: list[tuple[str, bool]], strict: bool, text_kind: bool
    ) -> list[LabelMatch]:
        """(line, label match, rank, qualified) for each well-placed label."""
        lookup = _lookup(tuple(labels))
        regex, out = label_regex(tuple(label for label, _ in labels)), []
        for found in self._find(regex, [label for label, _ in labels]):
            line, offset = self.lines.at(found.start())
            m = regex.match(line.text, offset)
            if m is None:
                continue
            rank, qualified = lookup.get(norm_label(m.group()), (-1, False))
            before = line.text[: m.start()]
            prev = before.split()[-1] if before.split() else ""
            colon = ":" in sep(line.text, m.end()).group()
            placed = len(before) <= lead(line.text) or (
                not strict and (bool(re.search(r"\W", m.group())) or (colon and not prev.isalpha()))
            )
            if rank >= 0 and placed and not self._in_prose(line, m):
                out.append((line, m, rank, qualified))
        return out

    def _find(self, regex: re.Pattern[str], labels: list[str]) -> list[re.Match[str]]:
        """``regex.finditer`` over the document, tried only where a label's first word is
        (found by ``str.find`` on the lower-cased text, much faster than the regex scan)."""
        joined, lower = self.lines.joined, self.lines.lower
        if len(lower) != len(joined):
            return list(regex.finditer(joined))
        starts: set[int] = set()
        for word in {label.split()[0].lower() for label in labels if label.split()}:
            pos = lower.find(word)
            while pos >= 0:
                starts.add(pos)
                pos = lower.find(word, pos + 1)
        out: list[re.Match[str]] = []
        for pos in sorted(starts):
            if out and pos < out[-1].end():
                continue
            if m := regex.match(joined, pos):
                out.append(m)
        return out

    def _in_prose(self, line: Line, m: re.Match[str]) -> bool:
        """A label word that carries on the sentence of the line above is prose ("… during
        the" / "Term and for a period of two years thereafter")."""
        above = self.lines.before(line)
        if above is None or not _PROSE.match(line.text, m.end()):
            return False
        return above.continued_by(line) and bool(re.search(r"[a-z,]$", above.text.rstrip()))

    def label_hits(self, kind: str, enum: tuple[str, ...], matches: list[LabelMatch]) -> list[Hit]:
        hits = []
        for line, m, rank, qualified in matches:
            found = self._value_after(kind, enum, line, m)
            if found:
                at, match, quote = found
                hits.append(Hit((0 if qualified else 1, rank), at, match, quote, qualified))
        return hits

    def _value_after(
        self, kind: str, enum: tuple[str, ...], line: Line, m: re.Match[str]
    ) -> tuple[Line, Match, tuple[int, int]] | None:
        text, separator = line.text, sep(line.text, m.end())
        pos, rest, value = separator.end(), line.text[separator.end() :].strip(), None
        if not rest or (kind == "amount" and PERCENT_PREFIX.fullmatch(rest)):
            alone = not rest and len(text[: m.start()]) <= lead(text)
            if below := self._next_line(kind, enum, line, alone):
                return below
        if rest and kind in ("string", "text"):
            # a string needs "Label:" unless it is one ID-like token ("Invoice No INV-1")
            if _COLON.search(separator.group()):
                value = parse_string(text, pos)
            elif (token := _ID_TOKEN.match(text, pos)) and not _ID_WORD.match(token.group()):
                value = Match(pos, token.end(), token.group())
        elif rest and kind == "date":
            value = date_at(text, pos, line.read_by_ocr)  # "Date: 25/12/20 18" as OCR spaced it
        elif rest and kind == "amount":
            value = amount_at(text, pos, line.read_by_ocr)  # "Total: 10. 75" as OCR spaced it
        elif rest and kind in ANCHORED:
            value = ANCHORED[kind](text, pos, enum)
        if value is None and kind == "date" and line.read_by_ocr:  # "Date: 1 8/01/201 8"
            value = near_value(spaced_dates(text), text, m, pos, before=False)
        elif value is None and kind in SEARCHED:
            value = near_value(SEARCHED[kind](text), text, m, pos, before=kind == "duration")
        if value is None:
            return None
        # a quote stops at a word's end: "Date: 10/03/20185:41:06" when OCR ran the time on
        start, end = min(m.start(), value.start), word_end(text, max(m.end(), value.end))
        if text[start:end].count("(") > text[start:end].count(")") and text[end : end + 1] == ")":
            end += 1  # "VAT (19%" reads better closed
        return line, value, (start, end) if end - start <= 120 else (value.start, value.end)

    def _next_line(
        self, kind: str, enum: tuple[str, ...], line: Line, alone: bool
    ) -> tuple[Line, Match, tuple[int, int]] | None:
        """A label ending its line, the value starting the next one ("IBAN" / "DE45 …")."""
        below = self.lines.after(line)
        if below is None or not line.continued_by(below):
            return None
        text, value = below.text, None
        pos = len(text) - len(text.lstrip())
        if kind in ("string", "text"):
            # only a short value under a label alone on its line: a heading over a paragraph
            # ("Governing law" / "This Agreement shall…") is not a value
            short = len(text.split()) <= 8 and len(text) <= 60 and not text.rstrip().endswith(":")
            token = _ID_TOKEN.match(text, pos)
            if alone and short:
                value = parse_string(text, pos)
            elif token and not text[token.end() :].strip(" .,;"):
                value = Match(pos, token.end(), token.group())
        elif kind == "date":
            value = date_at(text, pos, below.read_by_ocr)
        elif kind == "amount":
            value = amount_at(text, pos, below.read_by_ocr)
        elif kind in _NEXT_LINE_KINDS and kind in ANCHORED:
            value = ANCHORED[kind](text, pos, enum)
        elif kind in _NEXT_LINE_KINDS and kind in SEARCHED:
            value = next((v for v in SEARCHED[kind](text) if v.start == pos), None)
        return (below, value, (value.start, value.end)) if value else None

    # -- lists -------------------------------------------------------------------------------

    def label_list(self, kind: str, enum: tuple[str, ...], matches: list[LabelMatch]) -> list[Leaf]:
        """A "Skills: a, b (c, d)" line, or a heading over such a line or over bullets."""
        for line, m, _, _ in sorted(matches, key=lambda x: (not x[3], x[2], x[0].no)):
            separator = sep(line.text, m.end())
            pos = separator.end()
            if line.text[pos:].strip():
                if not _COLON.search(separator.group()):
                    continue  # "Skills and interests" is a heading, not a list
                return self.items(kind, enum, line, split_items(line.text, pos))
            rest = [x for x in self.lines.rows[line.index + 1 :] if x.page == line.page]
            out: list[Leaf] = []
            for below in rest:
                bullet = _BULLET.match(below.text)
                if bullet:
                    out += self.items(kind, enum, below, [(bullet.end(), len(below.text))])
                elif out and not re.search(r"[A-Za-z]", below.text):
                    continue  # a year or date beside a bullet
                else:
                    break
            if out:
                return out
            if rest and len(split_items(rest[0].text, 0)) > 1:
                return self.items(kind, enum, rest[0], split_items(rest[0].text, 0))
        return []

    @staticmethod
    def items(
        kind: str, enum: tuple[str, ...], line: Line, spans: list[tuple[int, int]]
    ) -> list[Leaf]:
        out = []
        for start, end in spans:
            start += len(line.text[start:end]) - len(line.text[start:end].lstrip())
            while end > start and line.text[end - 1] in " .":
                end -= 1
            if kind in ("string", "text"):
                value: Match | None = Match(start, end, line.text[start:end])
            elif kind in ANCHORED:
                value = ANCHORED[kind](line.text, start, enum)
            elif kind in SEARCHED:
                value = next((v for v in SEARCHED[kind](line.text) if v.start == start), None)
            else:
                value = None
            if value and value.end == end and re.search(r"\w", line.text[start:end]):
                out.append(leaf(line, start, end, value.value, value.caveat))
        return out
