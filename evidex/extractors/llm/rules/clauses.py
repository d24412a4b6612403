"""Sentences that state a value without a label, read across line breaks.

A contract says who its parties are, when it takes effect, how long it runs and which law
governs it in sentences that wrap over several lines ("…shall be governed by and construed in
accordance with the laws of the State of / Delaware…"). A :class:`Flow` joins the visible lines
with single spaces so each :class:`Clause` pattern reads such a sentence as one; the value it
finds must still sit on one line, because a quote is a verbatim slice of one line, and the
backend quotes the part of the sentence on that line.

The patterns are ones any contract reader would recognise; they are tried in tiers (a
"term of this Agreement shall be…" sentence outranks a heading "Term." over a sentence that
only mentions a duration), the first in reading order within a tier. The agreement's own date
is read only from its opening paragraphs (:attr:`Flow.preamble`), where the agreement names
itself, so a date that belongs to another agreement referred to later is not taken.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .dates import DATE_TEXT
from .match import Span
from .values import ANNIVERSARY_TEXT, DURATION_TEXT

__all__ = ["CLAUSES", "KIND_CLAUSES", "Clause", "Flow", "whole_words"]


@dataclass(frozen=True, slots=True)
class Clause:
    """A sentence pattern; group ``v`` holds the value unless the sentence is the answer."""

    pattern: re.Pattern[str]
    fixed: Any = None  # the value when the sentence itself says it ("shall not renew")
    tier: int = 0  # a lower tier wins; within a tier, the first in reading order
    preamble: bool = False  # only in the opening paragraphs
    not_after: re.Pattern[str] | None = None  # ruled out when the text before it ends so
    # words every match contains (lower case): the pattern runs only near them, not over the
    # whole document
    anchors: tuple[str, ...] = ()
    # a word of a field's name that makes this clause win over every other for that field:
    # an "effective_date" takes the date the text defines as "the Effective Date"
    wins_for: str = ""

    def finditer(self, text: str, lower: str, stop: int) -> list[re.Match[str]]:
        """The pattern's matches that start before ``stop`` (``lower`` is ``text.lower()``,
        the same length), searched only within ``_REACH`` characters of an anchor word."""
        if not self.anchors or len(lower) != len(text):
            return list(
                itertools.takewhile(lambda m: m.start() < stop, self.pattern.finditer(text))
            )
        hits = sorted(
            pos for word in self.anchors for pos in _positions(lower, word, stop + _REACH)
        )
        windows: list[list[int]] = []
        for pos in hits:
            lo, hi = max(0, pos - _REACH), min(len(text), pos + _REACH)
            if windows and lo <= windows[-1][1]:
                windows[-1][1] = max(windows[-1][1], hi)
            else:
                windows.append([lo, hi])
        out: list[re.Match[str]] = []
        for lo, hi in windows:
            for m in self.pattern.finditer(text, lo, hi):
                if m.start() >= stop:
                    return out
                if not out or m.start() >= out[-1].end():
                    out.append(m)
        return out


_REACH = 500  # no clause match runs further than this from its anchor word


def _positions(text: str, word: str, stop: int) -> list[int]:
    out, pos = [], text.find(word, 0, stop)
    while pos >= 0:
        out.append(pos)
        pos = text.find(word, pos + 1, stop)
    return out


# a line that holds only a page number ("6", "- 6 -", "Page 1 of 3") is left out of the flow
_PAGE_NO = re.compile(r"(?i)\s*[-–]?\s*(?:page\s+)?\d{1,3}(?:\s+of\s+\d{1,3})?\s*[-–]?\s*")
# the opening paragraphs end where recitals or numbered sections begin
_BODY = re.compile(
    r"\s*(?:WHEREAS\b|Whereas\b|RECITALS?\b|Recitals?\b|BACKGROUND\b|W\s?I\s?T\s?N\s?E\s?S\s?S"
    r"|NOW,?\s+THEREFORE|(?:ARTICLE|Article|SECTION|Section)\s+(?:1|I)\b|1\.?\s+[A-Z]|[IA]\.\s)"
)
_PREAMBLE_LINES = (6, 60)  # at least / at most this many lines


class Flow:
    """The visible lines joined by single spaces, and the way back from an offset to a line.

    ``preamble`` is the offset where the opening paragraphs end: at the first recital or
    numbered section from the 7th line on, and after 60 lines at most.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.rows = [i for i, t in enumerate(texts) if t.strip() and not _PAGE_NO.fullmatch(t)]
        self.lengths = [len(texts[i]) for i in self.rows]
        self.starts = [0]
        for n in self.lengths[:-1]:
            self.starts.append(self.starts[-1] + n + 1)
        self.text = " ".join(texts[i] for i in self.rows)
        self.lower = self.text.lower()
        self._texts = [texts[i] for i in self.rows]
        self._k_of = {row: k for k, row in enumerate(self.rows)}
        low, high = _PREAMBLE_LINES
        body = next(
            (k for k in range(low, min(high, len(self.rows))) if _BODY.match(texts[self.rows[k]])),
            min(high, len(self.rows)),
        )
        self.preamble = self.starts[body] if body < len(self.rows) else len(self.text)

    def _k(self, pos: int) -> int:
        return max(0, bisect.bisect_right(self.starts, pos) - 1)

    def row(self, pos: int) -> int:
        """The line (index into the texts) that holds offset ``pos``."""
        return self.rows[self._k(pos)]

    def start(self, row: int) -> int:
        """The flow offset where line ``row`` begins."""
        return self.starts[self._k_of[row]]

    def locate(self, start: int, end: int) -> tuple[int, int, int] | None:
        """(line, start, end) in that line's text, when ``start:end`` lies on one line."""
        k = self._k(start)
        local = start - self.starts[k]
        if not self.rows or local < 0 or end - self.starts[k] > self.lengths[k]:
            return None
        return self.rows[k], local, end - self.starts[k]

    def whole_line(self, start: int, end: int) -> tuple[int, int, int] | None:
        """A name that runs on past its line, from a line that holds nothing else ("BETWEEN" /
        "VIRTUAL ITEM PROCESSING SYSTEMS, INC." / "And" / "BROKERS NATIONAL … COMPANY")."""
        k = self._k(start)
        if not self.rows or end <= self.starts[k] + self.lengths[k]:
            return None
        text = self._texts[k]
        local = start - self.starts[k]
        if local != len(text) - len(text.lstrip()) or len(text.split()) < 2:
            return None
        return self.rows[k], local, len(text.rstrip())

    def lines_of(self, start: int, end: int, most: int = 3) -> tuple[int, int] | None:
        """(first line, last line) that ``start:end`` runs over, when they are at most ``most``
        lines in a row with nothing left out between them (a page number would break the
        quote), so the text can be quoted over those lines."""
        if not self.rows or end <= start:
            return None
        first, last = self._k(start), self._k(end - 1)
        if last - first >= most or self.rows[last] - self.rows[first] != last - first:
            return None
        return self.rows[first], self.rows[last]

    def line_end(self, row: int) -> int:
        """The flow offset where line ``row`` ends."""
        k = self._k_of[row]
        return self.starts[k] + self.lengths[k]

    def clip(self, start: int, end: int, row: int) -> Span:
        """The part of ``start:end`` that lies on line ``row``, in that line's offsets."""
        k = self._k_of[row]
        return max(start - self.starts[k], 0), min(end - self.starts[k], self.lengths[k])


_WORD = re.compile(r"\w+(?:[.,]\w+)*")


def whole_words(text: str, start: int, end: int) -> Span:
    """``start:end`` widened to whole words, so a quote starts and ends on word boundaries
    ("6.1This Agreement shall…" is quoted from "6.1")."""
    for m in _WORD.finditer(text):
        if m.start() >= end:
            break
        if m.start() < start < m.end():
            start = m.start()
        if m.start() < end < m.end():
            end = m.end()
    return start, end


# -- governing law --------------------------------------------------------------------------

_STOP = (  # also in capitals: "THE COMMONWEALTH OF PENNSYLVANIA WITHOUT GIVING EFFECT …"
    r"(?!(?i:The|This|That|These|Any|Each|All|In|If|Both|Such|Neither|No|Nothing|Section|"
    r"Notwithstanding|Except|Without|Excluding|Regardless|Including|Applicable|As|For|To|"
    r"Agreement|Courts?|Shall|Will|Which|That|With|Its|Their)\b)"
)
_PLACE = rf"(?P<v>{_STOP}[A-Z][A-Za-z'’-]*(?:\s+(?:(?:and|of)\s+)?{_STOP}[A-Z][A-Za-z'’-]*)*)"
_LAWS_OF = (
    r"(?i:(?:the\s+)?(?:internal\s+|substantive\s+|domestic\s+)?laws?\s+of\s+(?:the\s+)?"
    r"(?:(?:state|commonwealth|province|republic|kingdom|federal\s+republic|canton)\s+of\s+)?)"
    r"(?!(?:State|Commonwealth|Province|Republic|Kingdom)\b)"
)
# "shall be governed by[, and construed in accordance with,] the [internal] laws of …",
# "construed and controlled by the laws of …", "interpreted … under the laws of …"
_GOVERNED = re.compile(
    r"(?i:\b(?:governed|construed|interpreted|enforced|controlled|applied)\b)[^.;]{0,120}?\b"
    + _LAWS_OF
    + _PLACE
)
# "shall be governed by Delaware law", "construed under New York law"
_PLACE_LAW = re.compile(
    r"(?i:\b(?:governed|construed|interpreted|enforced)\b[^.;]{0,80}?\b(?:by|under|with)\s+"
    r"(?:the\s+)?(?:internal\s+|substantive\s+|domestic\s+)?)"
    + _PLACE
    + r"(?<!Federal)\s+(?i:laws?)\b"
)
# "The laws of the State of Indiana shall govern this Agreement"
_GOVERN = re.compile(r"\b" + _LAWS_OF + _PLACE + r"\s+(?i:shall|will)\s+(?i:govern)")

# -- renewal, experience --------------------------------------------------------------------

_RENEW = r"(?:automatically\s+(?:be\s+)?renew(?:ed|s)?|renew(?:ed|s)?\s+automatically|auto-?renew)"
_NO_RENEWAL = re.compile(
    rf"(?i)\b(?:shall|will|does|is)\s+not\s+(?:be\s+)?{_RENEW}|\bno\s+automatic\s+renewal"
)
_RENEWAL = re.compile(rf"(?i)\b{_RENEW}")
_YEARS = re.compile(
    r"(?i)\b(?P<v>\d+(?:[.,]\d+)?)\s*\+?\s*(?:years?|yrs\.?)\s+(?:of\s+)?(?:[a-z-]+\s+){0,2}experience"
)

# -- the agreement's date -------------------------------------------------------------------

_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
# "is made and entered into as of January 25, 2012", "dated this 11th day of January, 2012",
# "made to be effective on 30th day of April, 2009", "Agreement made December 28, 2018",
# "the parties hereby agree as of July 31, 2008"; a blank ("dated as of ____") is no date
_DATED = re.compile(
    r"(?i:\b(?:made|entered\s+into|executed|dated|effective|agreed?|agrees)"
    r"(?:,?\s+and\s+(?:made\s+|is\s+)?(?:entered\s+into|effective))?(?:\s+to\s+be\s+effective)?,?\s+"
    r"(?:(?:as\s+)?effective\s+)?(?:(?:as\s+)?(?:of|on|at|from)\s+)?(?:(?:this|the)\s+)?)"
    rf"(?P<v>(?=\d|(?i:{_MONTHS})\b))"
)
# "…and the Mutual Nondisclosure Agreement, dated October 6, 2011": a date that follows
# another agreement's name (not "this Agreement") is that agreement's
_OTHER_AGREEMENT = re.compile(
    r"(?:\b(?:the|that\s+certain|an?)\s+(?:[A-Z][\w-]*\s+){0,6}(?:Agreement|AGREEMENT|Amendment)"
    r"(?:\s*\([^()]*\))?,?\s*)$"
)
# "July 31, 2008 (the “Effective Date”)": a date defined as the effective date, anywhere
_DEFINED_DATE = re.compile(
    rf"(?P<v>(?i:{DATE_TEXT}))\s*,?\s*\(\s*(?i:the\s+|this\s+)?[“\"](?:[A-Z][\w-]*\s+)?"
    r"Effective\s+Date[”\"]\s*\)?"
)

# -- the term -------------------------------------------------------------------------------

_DURATION = rf"(?P<v>(?i:{DURATION_TEXT}))"
_AGREEMENT = r"(?:this|the)\s+(?:letter\s+)?agreement"
# "The term of this Agreement shall be two (2) years", "…is three (3) years"
_TERM_IS = re.compile(
    rf"(?i:\b(?:term\s+of\s+{_AGREEMENT}|{_AGREEMENT}\s+(?:shall|will)\s+have\s+a\s+term\s+of)"
    r"\s+(?:(?:shall|will|is)\s+(?:be\s+)?)?(?:for\s+)?"
    r"(?:(?:continue|remain\s+in\s+effect)\s+for\s+)?(?:a\s+period\s+of\s+)?)" + _DURATION
)
# "This Agreement shall terminate two years after …", "This Agreement shall continue in full
# force and effect for a period of three years …", "the obligations hereunder shall terminate
# five years from …", "The provisions of this Agreement shall remain in effect for …": the
# duration follows "for" or comes before "from", "after" or "following"
_LASTS = (
    rf"(?i:(?<![A-Za-z])(?:{_AGREEMENT}|(?:the\s+)?(?:obligations|provisions|restrictions|duty|"
    r"duties|covenants)\s+"
    rf"(?:[^.;]{{0,40}}?\s)?(?:hereunder|hereof|(?:of|under)\s+{_AGREEMENT}))\b[^.;]{{0,80}}?"
    r"\b(?:(?:shall|will)\s+(?:automatically\s+)?(?:terminate|expire|continue|remain|survive|last"
    r"|be\s+(?:in\s+(?:full\s+)?(?:force|effect)|effective|binding))"
    r"|(?:automatically\s+)?(?:terminates|expires|continues|remains|survives|lasts"
    r"|is\s+(?:in\s+(?:full\s+)?(?:force|effect)|effective|binding)))\b"
    r"[^.;]{0,50}?"
)
_LASTS_FOR = re.compile(
    _LASTS + r"(?i:\bfor\s+(?:(?:a|the)\s+(?:period|term)\s+of\s+)?))" + _DURATION
)
_LASTS_UNTIL = re.compile(_LASTS + ")" + _DURATION + r"\s+(?i:from|after|following)\b")
# "…shall remain in effect until the second (2nd) anniversary of the Effective Date", "this
# Agreement expires on the third anniversary of the Effective Date"
_LASTS_ANNIVERSARY = re.compile(
    _LASTS + r"\b(?:until|through|on|upon)\s+the\s+)" + rf"(?P<v>(?i:{ANNIVERSARY_TEXT}))"
)
# "The term of this Agreement shall commence on the Effective Date and continue for two years"
_TERM_RUNS = re.compile(
    rf"(?i:\bterm\s+of\s+{_AGREEMENT}\s+(?:shall|will)\s+(?:commence|begin|start)\b[^.;]{{0,80}}?"
    r"\band\s+(?:shall\s+|will\s+)?(?:continue|remain\s+in\s+(?:full\s+)?(?:force|effect)"
    r"(?:\s+and\s+effect)?|run|last)\s+for\s+(?:a\s+period\s+of\s+)?)" + _DURATION
)
# "for a period of two (2) years from the date of this Agreement", in any sentence
_PERIOD_FROM = re.compile(
    r"(?i:\bfor\s+a\s+period\s+of\s+)" + _DURATION + r"(?i:\s+(?:from|after|following)\s+"
    rf"(?:the\s+)?(?:date\s+(?:hereof|of\s+{_AGREEMENT})|effective\s+date|execution\s+of\s+"
    rf"{_AGREEMENT}))"
)
# "for a period of one year following the Effective Date (“the Term”)"
_TERM_DEFINED = re.compile(
    r"(?i:\bfor\s+(?:a\s+period\s+of\s+)?)"
    + _DURATION
    + r"[^.;()]{0,60}?\(\s*(?:the\s+)?[“\"](?:the\s+)?(?:(?!Renewal)[A-Z][a-z]+\s+)?Term[”\"]\s*\)?"
)
# "6. TERM. The period during which disclosures may be made … shall be one (1) year"
_TERM_HEADING = re.compile(
    r"(?:\b\d{1,2}(?:\.\d{1,2})*\.?\s+|\([a-z0-9]{1,3}\)\s+)"
    r"(?:Term|TERM|Duration|DURATION)(?:\s+(?:and|AND|&)\s+(?:Termination|TERMINATION))?\.\s+"
    r"(?i:[^.;]{0,150}?\b(?:shall|will)\s+(?:be|continue|remain|last|survive)\b[^.;]{0,40}?"
    r"(?:\bfor\s+)?(?:a\s+period\s+of\s+)?)" + _DURATION
)

_LASTING = ("terminate", "expire", "continue", "remain", "survive", "last", "effect", "binding")
# Keyed by concept (``meaning.py``), or by kind.
CLAUSES: dict[str, tuple[Clause, ...]] = {
    "governing law": (
        Clause(
            _GOVERNED,
            anchors=("governed", "construed", "interpreted", "enforced", "controlled", "applied"),
        ),
        Clause(_GOVERN, anchors=("govern",)),
        Clause(_PLACE_LAW, tier=1, anchors=("governed", "construed", "interpreted", "enforced")),
    ),
    "auto renewal": (
        Clause(_NO_RENEWAL, False, anchors=("renew",)),
        Clause(_RENEWAL, True, anchors=("renew",)),
    ),
    "agreement date": (
        Clause(
            _DATED,
            preamble=True,
            not_after=_OTHER_AGREEMENT,
            anchors=("made", "entered", "executed", "dated", "effective", "agree"),
        ),
        Clause(_DEFINED_DATE, tier=1, anchors=("effective",), wins_for="effective"),
    ),
    "agreement term": (
        Clause(_TERM_IS, anchors=("term",)),
        Clause(_LASTS_FOR, tier=1, anchors=_LASTING),
        Clause(_LASTS_UNTIL, tier=1, anchors=_LASTING),
        Clause(_TERM_DEFINED, tier=1, anchors=("term",)),
        Clause(_TERM_RUNS, tier=1, anchors=("term",)),
        Clause(_LASTS_ANNIVERSARY, tier=2, anchors=("anniversary",)),
        Clause(_TERM_HEADING, tier=2, anchors=("term", "duration")),
    ),
}
KIND_CLAUSES: dict[str, tuple[Clause, ...]] = {"years": (Clause(_YEARS, anchors=("experience",)),)}
