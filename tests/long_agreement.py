"""A 300-page credit agreement made with reportlab at test time, with facts planted on known pages.

* page 1: the borrower and the effective date;
* page 147: the governing law;
* page 288: the aggregate commitment;
* pages 150-151: the 14 events of default, (a) to (j) at the foot of page 150 and (k) to (n) at
  the top of page 151, after the running footer.

Every other line is boilerplate drawn from a fixed vocabulary with a fixed seed, so the file is
the same on every run. Page 151 shares no word with the fields' queries: it reaches the model as
the page after page 150 (a clause may run over), or through the next-page check. ``SCHEMA`` is
the JSON Schema a client would send for it; ``READER`` answers it as a model would, from the
lines a request holds only (for ``fake_window.WindowedOpenAI``).
"""

from __future__ import annotations

import io
import random
import re
from functools import cache
from typing import Any

from fake_window import Row, first_match, leaf, pattern_reader

PAGES = 300
LINES_PER_PAGE = 42
BORROWER = "Northwind Holdings LLC"
EFFECTIVE = "March 15, 2024"
LAW = "the State of New York"
COMMITMENT = "$250,000,000"
EVENTS = [
    ("a", "failure to pay any principal of any Loan when due;"),
    ("b", "failure to pay any interest or fee within five Business Days after it is due;"),
    ("c", "any representation or warranty proves to have been incorrect when made;"),
    ("d", "failure to observe any covenant contained in Article VI;"),
    ("e", "failure to observe any other covenant for thirty days after notice;"),
    ("f", "cross-acceleration of Material Indebtedness in excess of $10,000,000;"),
    ("g", "an involuntary proceeding is commenced and continues undismissed for 60 days;"),
    ("h", "the Borrower commences a voluntary case under any bankruptcy law;"),
    ("i", "the Borrower admits in writing its inability to pay its debts as they become due;"),
    ("j", "one or more judgments for the payment of money in excess of $10,000,000;"),
    ("k", "a termination of any pension plan could reasonably be expected to cost $5,000,000;"),
    ("l", "a Change in Control occurs;"),
    ("m", "any Loan Document ceases to be binding on any party to it;"),
    ("n", "any Lien purported to be created under any Security Document ceases to be valid."),
]
LIST_PAGE = 150
ITEMS_ON_FIRST_PAGE = 10

SCHEMA: dict[str, Any] = {
    "title": "credit_agreement",
    "type": "object",
    "properties": {
        "borrower": {"type": "string", "description": "Legal name of the borrower."},
        "effective_date": {
            "type": "string",
            "format": "date",
            "description": "Date the agreement is effective.",
        },
        "governing_law": {
            "type": "string",
            "description": "Jurisdiction whose law governs the agreement.",
        },
        "aggregate_commitment": {
            "type": "number",
            "x-evidex-kind": "amount",
            "description": "The aggregate amount of the lenders' commitments.",
        },
        "events_of_default": {
            "type": "array",
            "description": "Every event of default the agreement lists, in order.",
            "items": {
                "type": "object",
                "properties": {
                    "label": {"type": "string", "description": "The item's letter, e.g. (a)."},
                    "event": {"type": "string", "description": "The event of default."},
                },
            },
        },
    },
}

_TEXT = (
    "the parties hereto agree that each notice request instruction consent or other "
    "communication shall be delivered in writing to the address specified on the signature "
    "pages and any such schedule may be amended supplemented or otherwise modified from time to "
    "time in accordance with the terms set forth herein including without limitation the "
    "obligations of the agent the lenders and the issuing bank with respect to any letter of "
    "credit reimbursement participation assignment transfer or register maintained by the agent "
    "for the purpose of recording the names and addresses of the lenders"
)
_WORDS = _TEXT.split(" ")


def _filler(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(11, 14))]
    return " ".join(words).capitalize() + "."


def page_lines(page: int, rng: random.Random) -> list[str]:
    """The body lines of ``page`` (without its footer)."""
    lines = [_filler(rng) for _ in range(LINES_PER_PAGE)]
    if page == 1:
        lines[:6] = [
            "CREDIT AGREEMENT",
            f"Borrower: {BORROWER}",
            f"Effective Date: {EFFECTIVE}",
            "Administrative Agent: First Harbor Bank, N.A.",
            "This Credit Agreement is entered into by the Borrower, the Lenders and the Agent.",
            "Article I sets out the defined terms used throughout this Agreement.",
        ]
    elif page == 147:
        lines[20:22] = [
            "Section 9.07 Governing Law. This Agreement shall be construed in accordance",
            f"with and governed by the law of {LAW}.",
        ]
    elif page == 288:
        lines[12:13] = [
            f"Section 12.14 Aggregate Commitment. The Commitments total {COMMITMENT}.",
        ]
    elif page == LIST_PAGE:
        items = [f"({k}) {text}" for k, text in EVENTS[:ITEMS_ON_FIRST_PAGE]]
        start = LINES_PER_PAGE - len(items) - 2
        lines[start:] = [
            "Section 8.01 Events of Default. If any of the following events of default occurs:",
            "each of them is an Event of Default for the purposes of this Agreement:",
            *items,
        ]
    elif page == LIST_PAGE + 1:
        items = [f"({k}) {text}" for k, text in EVENTS[ITEMS_ON_FIRST_PAGE:]]
        lines[: len(items) + 1] = [
            *items,
            "Section 8.02 Remedies. Upon such an occurrence the Agent may take the actions below.",
        ]
    return lines


@cache
def agreement_pdf(pages: int = PAGES) -> bytes:
    """The agreement as PDF bytes (made once per process)."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    rng = random.Random(1147)
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf, pagesize=letter, invariant=True)
    width, height = letter
    for page in range(1, pages + 1):
        pdf.setFont("Helvetica", 9)
        y = height - 54
        for text in page_lines(page, rng):
            pdf.drawString(54, y, text)
            y -= 16
        pdf.drawString(width / 2 - 60, 30, f"Credit Agreement - Page {page} of {pages}")
        pdf.showPage()
    pdf.save()
    return buf.getvalue()


_ITEM = re.compile(r"^\(([a-z])\) (.+)$")


def _events(rows: list[Row]) -> list[dict[str, Any]]:
    """The items of the list, one per line opening with its letter."""
    items = []
    for row in rows:
        m = _ITEM.match(row[2])
        if m:
            label = f"({m.group(1)})"
            items.append({"label": leaf(row, label, label), "event": leaf(row, m[2], m[2])})
    return items


READER = pattern_reader(
    {
        "borrower": first_match(r"Borrower: (.+)$", lambda m: (m[1], m[1])),
        "effective_date": first_match(
            r"Effective Date: (March 15, 2024)",
            lambda m: (m[1], {"iso": "2024-03-15", "original": m[1]}),
        ),
        "governing_law": first_match(r"the law of (the State of New York)", lambda m: (m[1], m[1])),
        "aggregate_commitment": first_match(
            r"Commitments total (\$250,000,000)",
            lambda m: (m[1], {"value": 250_000_000, "currency": "USD"}),
        ),
        "events_of_default": _events,
    }
)
