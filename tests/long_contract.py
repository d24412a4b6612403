"""Long agreements written the way real ones are, made with reportlab at test time.

Each has a cover page, a table of contents that names every clause (the fields' words among
them), the parties on page 3, 4 or 5 with their defined roles, a definitions clause, defined
terms ("the Borrower", "the Commitments", "the Effective Date") used on nearly every page, a list
of twelve events of default that runs over a page break, and a governing-law clause near the
end. The facts' words are shared with many other pages: "law", "governed", "Commitments",
"Borrower" and "Agent" appear throughout.

A ``Style`` holds an agreement's wording, numbering, page count and seed, read from a TOML file
in ``fixtures/long_contracts/`` (the wording is data: what differs between agreements is
written there, how a page is laid out here); two are written:

* ``long_contract_facility.FACILITY`` (``facility_agreement``): an English-law term facility,
  numbered clauses (``23.4 Insolvency``), parties listed ``(1) ... (2) ...``;
* ``long_contract_credit.CREDIT`` (``credit_agreement``): a New York-law revolving credit
  agreement, ``SECTION 9.01`` headings, parties ``by and among``, events of default ``(a)`` to
  ``(l)``. Held out: page selection was not tuned on it. Its first run lost the list (5/5 facts,
  0/12 items); the rule that a list's evidence takes the page after each evidence page came from
  that diagnosis, so it is no longer an agreement not seen before.

``Agreement.schema`` is the JSON Schema a client would send for it, ``Agreement.reader`` a reader
for ``fake_window.WindowedOpenAI`` that answers from the lines it was sent only, and
``Agreement.facts`` / ``Agreement.events`` what a complete answer holds.
"""

from __future__ import annotations

import calendar
import io
import itertools
import random
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from fake_window import Reader, Row, first_match, leaf, pattern_reader

LINES_PER_PAGE = 46
WIDTH_CHARS = 104


Answer = Callable[[re.Match[str]], tuple[str, Any]]  # the quote and the value, from the match
JsonType = tuple[tuple[str, Any], ...]  # a leaf's JSON Schema keywords, hashable


@dataclass(frozen=True)
class Fact:
    """A planted fact: the line that states it, and how a reader answers it from that line."""

    name: str
    description: str
    pattern: str
    value: Answer
    json_type: JsonType = (("type", "string"),)


@dataclass(frozen=True)
class Style:
    """An agreement's wording, numbering, page count and seed (``fixtures/long_contracts/``)."""

    name: str
    title: str
    pages: int
    seed: int
    cover: tuple[str, ...]
    toc_title: str
    clauses: tuple[str, ...]  # clause titles in order (the table of contents)
    clause_heading: str  # {n}, {roman}: its number; {title}, {TITLE}: its title as listed, upper
    sub_heading: str  # {n}: the clause's number, {k}: the sub-clause's, {title}
    parties_page: int
    parties: tuple[str, ...]
    definitions_intro: str
    terms: tuple[tuple[str, str], ...]  # defined term, its meaning
    fact_definitions: tuple[tuple[str, str], ...]  # planted among the definitions
    sentences: tuple[str, ...]  # body templates; {T} is a defined term, {N} a clause number
    events_heading: str
    events_intro: str
    events: tuple[tuple[str, str], ...]  # (label, text)
    events_page: int
    events_on_first_page: int
    law_clause: str
    law_lines: tuple[str, ...]
    law_page: int
    footer: str
    facts: tuple[Fact, ...]
    list_description: str = "Every event of default the agreement lists, in order."


def iso_date(months: dict[str, int]) -> Answer:
    def make(m: re.Match[str]) -> tuple[str, Any]:
        day, month, year = m["day"], months[m["month"]], m["year"]
        iso = f"{year}-{month:02d}-{int(day):02d}"
        return m[1], {"iso": iso, "original": m[1]}

    return make


MONTHS = {calendar.month_name[i]: i for i in range(1, 13)}


def usd(m: re.Match[str]) -> tuple[str, Any]:
    return m[1], {"value": float(m["n"].replace(",", "")), "currency": "USD"}


def same_text(m: re.Match[str]) -> tuple[str, Any]:
    return m[1], m[1]


# A fact's kind: how its answer is read from the match, and its JSON Schema type.
FACT_KINDS: dict[str, tuple[Answer, JsonType]] = {
    "text": (same_text, (("type", "string"),)),  # the words of the first group
    "date": (iso_date(MONTHS), (("type", "string"), ("format", "date"))),  # day, month, year
    "amount": (usd, (("type", "number"), ("x-evidex-kind", "amount"))),  # US dollars, group n
}
CONTRACTS = Path(__file__).resolve().parent / "fixtures" / "long_contracts"


def load_style(name: str) -> Style:
    """The agreement written in ``fixtures/long_contracts/{name}.toml``: the cover, the parties
    and the governing law as they stand on the page, line by line; the tables in their order."""
    data: dict[str, Any] = tomllib.loads((CONTRACTS / f"{name}.toml").read_text(encoding="utf-8"))
    for key in ("cover", "parties", "law_lines"):
        data[key] = tuple(data[key].removesuffix("\n").split("\n"))
    for key in ("clauses", "sentences"):
        data[key] = tuple(data[key])
    for key in ("terms", "fact_definitions", "events"):
        data[key] = tuple(data[key].items())
    data["facts"] = tuple(
        Fact(f["name"], f["description"], f["pattern"], *FACT_KINDS[f["kind"]])
        for f in data["facts"]
    )
    return Style(**data)


def definition(term: str, meaning: str) -> str:
    return f'"{term}" means {meaning}'


def clause_heading(style: Style, number: int) -> str:
    title = style.clauses[number - 1]
    return style.clause_heading.format(
        n=number, roman=roman(number), title=title, TITLE=title.upper()
    )


def roman(n: int) -> str:
    out, values = "", [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    for value, letter in values:
        while n >= value:
            out, n = out + letter, n - value
    return out


def _wrap(text: str) -> list[str]:
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > WIDTH_CHARS:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return [*lines, current] if current else lines


def _sentence(style: Style, rng: random.Random) -> str:
    terms = [t for t, _ in style.terms]
    text = rng.choice(style.sentences)
    return text.format(
        T=rng.choice(terms),
        T2=rng.choice(terms),
        T3=rng.choice(terms),
        N=f"{rng.randint(2, len(style.clauses))}.{rng.randint(1, 9)}",
    )


def _paragraph(style: Style, rng: random.Random) -> list[str]:
    return _wrap(" ".join(_sentence(style, rng) for _ in range(rng.randint(2, 4))))


def _clause_pages(style: Style) -> dict[int, int]:
    """The page each clause starts on (clause 1 after the parties; the events of default and
    the governing law where the style puts them; the others spread between)."""
    n = len(style.clauses)
    events = style.clauses.index(next(c for c in style.clauses if "Events of Default" in c)) + 1
    law = next(
        i for i, c in enumerate(style.clauses, 1) if "Governing Law" in c or c == "Miscellaneous"
    )
    fixed = {1: style.parties_page + 1, events: style.events_page - 1, law: style.law_page - 1}
    anchors = sorted(fixed.items())
    out = dict(fixed)
    for (a, pa), (b, pb) in itertools.pairwise(anchors):
        for k in range(a + 1, b):
            out[k] = pa + (pb - pa) * (k - a) // (b - a)
    last_clause, last_page = anchors[-1]
    for k in range(last_clause + 1, n + 1):
        out[k] = last_page + 2 + (k - last_clause) * 2
    return out


# Sub-clause titles as agreements use them, in any clause.
SUB_TITLES = [
    "Notification",
    "Payments",
    "Application of prepayments",
    "Restrictions",
    "Calculation",
    "Default interest",
    "Notification of rates",
    "Currency of account",
    "Exclusions",
    "Costs of utilisation",
    "Conditions",
    "Reliance",
    "Delivery",
    "Requirements as to financial statements",
    "Waiver of defences",
    "Appropriations",
    "Additional security",
    "Limitation",
    "Procedure",
    "Disclosure",
    "No set-off",
    "Continuing obligations",
    "Timing",
]
DEFINITION_LINES_PER_PAGE = 14  # the rest of a definitions page is the clause's other text


def _definition_lines(style: Style) -> list[str]:
    entries = list(style.terms)
    for i, fact in enumerate(style.fact_definitions):
        entries.insert(9 + 11 * i, fact)
    out = [style.definitions_intro]
    for term, meaning in entries:
        line = definition(term, meaning)
        assert len(line) <= WIDTH_CHARS or (term, meaning) not in style.fact_definitions, line
        out += _wrap(line)
    return out


def page_lines(style: Style, page: int, rng: random.Random) -> list[str]:
    """The body lines of ``page`` (without its footer)."""
    if page == 1:
        return list(style.cover)
    toc_pages = range(2, style.parties_page)
    if page in toc_pages:
        return _toc(style, page, toc_pages)
    if page == style.parties_page:
        return [style.title, "", *style.parties]
    starts = _clause_pages(style)
    definitions = _definition_lines(style)
    lines: list[str] = []
    for number, start in starts.items():
        if start == page:
            lines += ["", clause_heading(style, number)]
    chunk = page - starts[1]
    if 0 <= chunk * DEFINITION_LINES_PER_PAGE < len(definitions):
        at = chunk * DEFINITION_LINES_PER_PAGE
        lines += definitions[at : at + DEFINITION_LINES_PER_PAGE]
    while len(lines) < LINES_PER_PAGE:
        if rng.random() < 0.25:
            number = max((n for n, s in starts.items() if s <= page), default=1)
            title = rng.choice(SUB_TITLES)
            lines += ["", style.sub_heading.format(n=number, k=rng.randint(2, 19), title=title)]
        lines += _paragraph(style, rng)
    lines = lines[:LINES_PER_PAGE]
    if page == style.events_page:
        items = [" ".join(e) for e in style.events[: style.events_on_first_page]]
        lines[LINES_PER_PAGE - len(items) - 2 :] = [
            style.events_heading,
            style.events_intro,
            *items,
        ]
    elif page == style.events_page + 1:
        items = [" ".join(e) for e in style.events[style.events_on_first_page :]]
        after = "Remedies. Upon the occurrence of any Event of Default the Agent may act as below."
        lines[: len(items) + 1] = [*items, after]
    elif page == style.law_page:
        lines[14 : 16 + len(style.law_lines)] = ["", style.law_clause, *style.law_lines]
    return lines[:LINES_PER_PAGE]


def _toc(style: Style, page: int, toc_pages: range) -> list[str]:
    per = -(-len(style.clauses) // len(toc_pages))
    first = (page - toc_pages.start) * per
    starts = _clause_pages(style)
    lines = [style.toc_title, ""] if page == toc_pages.start else []
    for number in range(first + 1, min(first + per, len(style.clauses)) + 1):
        title = style.clauses[number - 1]
        dots = "." * max(4, 80 - len(title))
        lines.append(f"{number}. {title} {dots} {starts[number]}")
    return lines


@cache
def agreement_pdf(style: Style) -> bytes:
    """The agreement as PDF bytes (made once per process)."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    rng = random.Random(style.seed)
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf, pagesize=letter, invariant=True)
    width, height = letter
    for page in range(1, style.pages + 1):
        pdf.setFont("Helvetica", 8.5)
        y = height - 50
        for text in page_lines(style, page, rng):
            pdf.drawString(50, y, text)
            y -= 15
        pdf.drawString(width / 2 - 40, 28, style.footer.format(page=page))
        pdf.showPage()
    pdf.save()
    return buf.getvalue()


def schema(style: Style) -> dict[str, Any]:
    properties: dict[str, Any] = {
        fact.name: {**dict(fact.json_type), "description": fact.description} for fact in style.facts
    }
    properties["events_of_default"] = {
        "type": "array",
        "description": style.list_description,
        "items": {
            "type": "object",
            "properties": {
                "label": {"type": "string", "description": "The item's number or letter."},
                "event": {"type": "string", "description": "The event of default."},
            },
        },
    }
    return {"title": style.name, "type": "object", "properties": properties}


_ITEM = re.compile(r"^(\(\w\)|\d+\.\d+) (.+)$")


def _events(style: Style) -> Callable[[list[Row]], list[dict[str, Any]]]:
    labels = {label for label, _ in style.events}

    def find(rows: list[Row]) -> list[dict[str, Any]]:
        items = []
        for row in rows:
            m = _ITEM.match(row[2])
            if m and m[1] in labels and (m[1], m[2]) in style.events:
                items.append({"label": leaf(row, m[1], m[1]), "event": leaf(row, m[2], m[2])})
        return items

    return find


def reader(style: Style) -> Reader:
    finders: dict[str, Any] = {
        fact.name: first_match(fact.pattern, fact.value) for fact in style.facts
    }
    finders["events_of_default"] = _events(style)
    return pattern_reader(finders)


def expected(style: Style) -> dict[str, Any]:
    """The value each fact has, as the result reports it."""
    out: dict[str, Any] = {}
    for fact in style.facts:
        for line in _fact_lines(style):
            m = re.search(fact.pattern, line)
            if m:
                value = fact.value(m)[1]
                out[fact.name] = value
                break
    return out


def _fact_lines(style: Style) -> list[str]:
    lines = [*style.parties, *style.law_lines]
    lines += [definition(t, m) for t, m in style.fact_definitions]
    return lines
