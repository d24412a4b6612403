"""Write the fictional sample PDFs and the extraction each one should yield.

Run ``python -m samples.make_samples [--out DIR]`` from the repository root. For every sample it
writes ``<name>.pdf`` and ``<name>.expected.json`` (field path -> ``{"value", "quote"}``), then
reads the PDF back with PyMuPDF and fails loudly when an expected quote is not in the extracted
text, or when a quote meant to sit on one rendered line does not. Everything is fixed content
with fixed metadata, so the output is reproducible.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pymupdf
from schwifty import IBAN
from stdnum.eu import vat

__all__ = ["SAMPLES", "SampleError", "check_pdf", "main", "write_samples"]

SAMPLES = ("cv", "invoice", "contract")
"""Sample names; each gives ``<name>.pdf`` and ``<name>.expected.json``."""

_FONTS = {
    "R": "helv",
    "B": "hebo",
    "I": "heit",
    "TR": "tiro",
    "TB": "tibo",
    "TI": "tiit",
}
_FONT_CACHE: dict[str, pymupdf.Font] = {}

_INK = (0.13, 0.13, 0.15)
_GREY = (0.38, 0.40, 0.44)
_RULE = (0.78, 0.80, 0.84)
_NAVY = (0.11, 0.22, 0.40)
_SIDEBAR = (0.925, 0.937, 0.957)
_TABLE_HEAD = (0.92, 0.93, 0.95)

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

_FIXED_DATE = "D:20260316090000+00'00'"


class SampleError(AssertionError):
    """A generated sample does not match what its expected file says."""


# --------------------------------------------------------------------------------------------
# Small value helpers


def _font(alias: str) -> pymupdf.Font:
    name = _FONTS[alias]
    if name not in _FONT_CACHE:
        _FONT_CACHE[name] = pymupdf.Font(name)
    return _FONT_CACHE[name]


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _day_month_year(d: date) -> str:
    return f"{d.day} {_MONTHS[d.month - 1]} {d.year}"


def _dotted(d: date) -> str:
    return f"{d.day:02d}.{d.month:02d}.{d.year}"


def _us_long(d: date) -> str:
    return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"


def _month_year(d: date) -> str:
    return f"{_MONTHS[d.month - 1][:3]} {d.year}"


def _date_value(d: date, original: str) -> dict[str, str]:
    return {"iso": d.isoformat(), "original": original}


def _amount(value: Decimal, currency: str) -> dict[str, Any]:
    return {"value": float(value), "currency": currency}


def _eu_number(value: Decimal) -> str:
    """``16738.3`` -> ``16.738,30`` (German grouping and decimal comma)."""
    us = f"{value.quantize(Decimal('0.01')):,.2f}"
    return us.replace(",", "_").replace(".", ",").replace("_", ".")


def _eu_quantity(value: Decimal) -> str:
    text = f"{value.normalize():f}"
    return text.replace(".", ",")


def _address(
    street: str, postal_code: str, city: str, country: str, region: str | None = None
) -> dict[str, str | None]:
    return {
        "street": street,
        "postal_code": postal_code,
        "city": city,
        "region": region,
        "country": country,
    }


class _Expected:
    """The expected extraction of one sample, in the order the schema declares its fields."""

    def __init__(self) -> None:
        self.fields: dict[str, dict[str, Any]] = {}
        self.multiline: set[str] = set()

    def add(self, path: str, value: Any, quote: str, *, multiline: bool = False) -> None:
        if path in self.fields:
            raise SampleError(f"duplicate expected field {path!r}")
        self.fields[path] = {"value": value, "quote": quote}
        if multiline:
            self.multiline.add(path)

    def keep(self) -> list[str]:
        """Quotes that must not be broken across rendered lines."""
        return [e["quote"] for p, e in self.fields.items() if p not in self.multiline]


# --------------------------------------------------------------------------------------------
# Layout: fixed-position text with our own word wrapping, so we know which words share a line


class _Canvas:
    """Pages of one document plus text helpers that place, measure and wrap text."""

    def __init__(self, doc: pymupdf.Document, width: float, height: float) -> None:
        self.doc = doc
        self.width = width
        self.height = height
        self.page: pymupdf.Page | None = None
        self._fonts: dict[int, set[str]] = {}

    def new_page(self) -> pymupdf.Page:
        self.page = self.doc.new_page(width=self.width, height=self.height)
        return self.page

    def _current(self) -> pymupdf.Page:
        if self.page is None:
            raise SampleError("no page")
        return self.page

    def length(self, text: str, font: str, size: float) -> float:
        return float(_font(font).text_length(text, size))

    def text(
        self,
        x: float,
        y: float,
        text: str,
        font: str = "R",
        size: float = 9.5,
        color: tuple[float, float, float] = _INK,
        *,
        align: str = "left",
        page: pymupdf.Page | None = None,
    ) -> None:
        """Write one line with its baseline at ``y``; ``align='right'`` ends it at ``x``."""
        target = page or self._current()
        fonts = self._fonts.setdefault(target.xref, set())
        if font not in fonts:
            target.insert_font(fontname=font, fontbuffer=_font(font).buffer)
            fonts.add(font)
        width = self.length(text, font, size)
        if align == "right":
            x -= width
        elif align == "center":
            x -= width / 2
        if x < 0 or x + width > self.width + 0.01:
            raise SampleError(f"text runs off the page: {text!r}")
        target.insert_text((x, y), text, fontname=font, fontsize=size, color=color)

    def wrap(
        self, text: str, font: str, size: float, width: float, keep: Iterable[str] = ()
    ) -> list[str]:
        """Break ``text`` into lines no wider than ``width``; never inside a ``keep`` phrase."""
        protected: set[int] = set()
        for phrase in keep:
            if " " not in phrase:
                continue
            start = text.find(phrase)
            while start != -1:
                protected.update(i for i in range(start, start + len(phrase)) if text[i] == " ")
                start = text.find(phrase, start + 1)
        words: list[str] = []
        current: list[str] = []
        for i, ch in enumerate(text):
            if ch == " " and i not in protected:
                words.append("".join(current))
                current = []
            else:
                current.append(ch)
        words.append("".join(current))
        lines: list[str] = []
        line = ""
        for word in words:
            if not word:
                continue
            candidate = f"{line} {word}" if line else word
            if line and self.length(candidate, font, size) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        if line:
            lines.append(line)
        for line in lines:
            if self.length(line, font, size) > width + 0.01:
                raise SampleError(f"cannot fit {line!r} in {width}pt")
        return lines

    def paragraph(
        self,
        x: float,
        y: float,
        width: float,
        text: str,
        font: str = "R",
        size: float = 9.5,
        leading: float = 13.0,
        color: tuple[float, float, float] = _INK,
        keep: Iterable[str] = (),
        *,
        bottom: float | None = None,
        top: float = 72.0,
    ) -> float:
        """Write a wrapped paragraph from baseline ``y``; return the baseline after it.

        With ``bottom`` a line that would fall below it starts a new page, where the text
        resumes at baseline ``top``.
        """
        for line in self.wrap(text, font, size, width, keep):
            if bottom is not None and y > bottom:
                self.new_page()
                y = top
            self.text(x, y, line, font, size, color)
            y += leading
        return y

    def rule(
        self,
        x0: float,
        y: float,
        x1: float,
        color: tuple[float, float, float] = _RULE,
        width: float = 0.6,
    ) -> None:
        self._current().draw_line((x0, y), (x1, y), color=color, width=width)

    def box(self, rect: pymupdf.Rect, fill: tuple[float, float, float]) -> None:
        self._current().draw_rect(rect, color=None, fill=fill, width=0)


def _new_document(title: str, subject: str) -> pymupdf.Document:
    doc = pymupdf.open()
    doc.set_metadata(
        {
            "title": title,
            "author": "evidex samples (fictional)",
            "subject": subject,
            "keywords": "evidex, sample, fictional",
            "creator": "samples/make_samples.py",
            "producer": "PyMuPDF",
            "creationDate": _FIXED_DATE,
            "modDate": _FIXED_DATE,
        }
    )
    return doc


# --------------------------------------------------------------------------------------------
# 1. CV: two columns, contact sidebar on the left


def _build_cv() -> tuple[pymupdf.Document, _Expected]:
    ex = _Expected()
    name = "Imogen Castellane"
    headline = "Data Engineering Lead · Cloud Platforms & Streaming"
    email = "hello@imogencastellane.dev"
    phone = "+44 20 7946 0958"
    location = "London, United Kingdom"
    linkedin = "https://linkedin.com/in/icastellane"
    github = "https://github.com/icastellane"
    website = "https://imogencastellane.dev"
    summary = (
        "Data engineer with 11 years of experience designing, building and operating cloud "
        "data platforms for logistics and insurance businesses. I lead small platform teams, "
        "own streaming and batch pipelines end to end, and care about data quality, cost "
        "control and clear documentation. Currently focused on real-time freight visibility "
        "and self-service analytics on AWS."
    )
    skills = [
        "Python",
        "SQL",
        "Apache Spark",
        "Apache Kafka",
        "Apache Airflow",
        "dbt",
        "AWS (S3, Glue, EMR, Redshift)",
        "Terraform",
        "Docker",
        "Kubernetes",
        "PostgreSQL",
        "Data modelling",
    ]
    languages = [
        ("English", "Native"),
        ("German", "Professional (C1)"),
        ("Spanish", "Intermediate (B1)"),
    ]
    positions: list[dict[str, Any]] = [
        {
            "title": "Lead Data Engineer",
            "employer": "Northwind Freight Analytics Ltd",
            "location": "London, UK",
            "start": date(2019, 3, 1),
            "end": None,
            "bullets": [
                "Lead a team of five engineers running the company's AWS data platform "
                "(S3, Glue, EMR, Redshift) used by more than 300 internal analysts.",
                "Replaced nightly batch loads with Kafka and Spark Structured Streaming, "
                "cutting shipment-tracking latency from six hours to under two minutes.",
                "Introduced dbt, data contracts and automated quality checks; data incidents "
                "fell by 60% year on year.",
            ],
        },
        {
            "title": "Data Engineer",
            "employer": "Calder & Finch Insurance",
            "location": "Edinburgh, UK",
            "start": date(2016, 1, 1),
            "end": date(2019, 2, 1),
            "bullets": [
                "Built Airflow pipelines loading policy and claims data from 14 source systems "
                "into a central PostgreSQL warehouse.",
                "Migrated legacy ETL jobs to Python, saving £180,000 a year in licence fees.",
            ],
        },
        {
            "title": "Software Developer",
            "employer": "Brightwater Retail Group",
            "location": "Manchester, UK",
            "start": date(2014, 9, 1),
            "end": date(2015, 12, 1),
            "bullets": [
                "Developed reporting tools in Python and SQL for store performance and stock "
                "forecasting; maintained the Django supplier portal used by 400 suppliers.",
            ],
        },
    ]
    education: list[dict[str, Any]] = [
        {
            "degree": "MSc",
            "field": "Data Science",
            "institution": "University of Edinburgh",
            "start": date(2013, 9, 1),
            "end": date(2014, 8, 1),
            "note": "Distinction. Dissertation on anomaly detection in sensor streams.",
        },
        {
            "degree": "BSc (Hons)",
            "field": "Mathematics",
            "institution": "University of Leeds",
            "start": date(2010, 9, 1),
            "end": date(2013, 6, 1),
            "note": "First-class honours.",
        },
    ]
    certifications = [
        ("AWS Certified Solutions Architect – Associate", "2021"),
        ("Google Cloud Professional Data Engineer", "2022"),
        ("Databricks Certified Data Engineer Professional", "2024"),
    ]
    work_authorisation = "British citizen, no sponsorship required"
    notice = "3 months"

    def span(start: date, end: date | None) -> str:
        return f"{_month_year(start)} – {_month_year(end) if end else 'Present'}"

    # Expected fields, in schema order.
    ex.add("full_name", name, name)
    ex.add("headline", headline, headline)
    ex.add("email", email, email)
    ex.add("phone", phone, phone)
    ex.add("location", location, location)
    ex.add("linkedin_url", linkedin, linkedin)
    ex.add("github_url", github, github)
    ex.add("website_url", website, website)
    ex.add("current_title", positions[0]["title"], positions[0]["title"])
    ex.add("current_employer", positions[0]["employer"], positions[0]["employer"])
    ex.add("years_of_experience", 11.0, "11 years of experience")
    ex.add("summary", summary, summary, multiline=True)
    ex.add("work_authorization", work_authorisation, work_authorisation)
    ex.add("availability", notice, f"Notice period: {notice}")
    for i, skill in enumerate(skills):
        ex.add(f"skills[{i}]", skill, skill)
    for i, (language, level) in enumerate(languages):
        ex.add(f"languages[{i}].language", language, language)
        ex.add(f"languages[{i}].proficiency", level, level)
    for i, (cert, _year) in enumerate(certifications):
        ex.add(f"certifications[{i}]", cert, cert)
    for i, edu in enumerate(education):
        p = f"education[{i}]"
        ex.add(f"{p}.institution", edu["institution"], edu["institution"])
        ex.add(f"{p}.degree", edu["degree"], edu["degree"])
        ex.add(f"{p}.field_of_study", edu["field"], edu["field"])
        start, end = _month_year(edu["start"]), _month_year(edu["end"])
        ex.add(f"{p}.start_date", _date_value(edu["start"], start), start)
        ex.add(f"{p}.end_date", _date_value(edu["end"], end), end)
    for i, pos in enumerate(positions):
        p = f"work_history[{i}]"
        ex.add(f"{p}.title", pos["title"], pos["title"])
        ex.add(f"{p}.employer", pos["employer"], pos["employer"])
        ex.add(f"{p}.location", pos["location"], pos["location"])
        start = _month_year(pos["start"])
        ex.add(f"{p}.start_date", _date_value(pos["start"], start), start)
        if pos["end"] is not None:
            end = _month_year(pos["end"])
            ex.add(f"{p}.end_date", _date_value(pos["end"], end), end)
            ex.add(f"{p}.is_current", False, span(pos["start"], pos["end"]))
        else:
            ex.add(f"{p}.is_current", True, "Present")
    keep = ex.keep()

    # Layout.
    doc = _new_document(f"{name} – CV", "Curriculum vitae (fictional sample)")
    w, h = pymupdf.paper_size("a4")
    cv = _Canvas(doc, w, h)
    cv.new_page()
    side_w = 196.0
    cv.box(pymupdf.Rect(0, 0, side_w, h), _SIDEBAR)

    # Sidebar.
    sx, sw = 26.0, side_w - 2 * 26.0
    y = 86.0

    def side_heading(y: float, title: str) -> float:
        cv.text(sx, y, title, "B", 9.5, _NAVY)
        cv.rule(sx, y + 5, sx + sw, _NAVY, 0.8)
        return y + 21

    y = side_heading(y, "CONTACT")
    for line in (email, phone, location):
        cv.text(sx, y, line, "R", 8.8)
        y += 14
    y += 14
    y = side_heading(y, "LINKS")
    for label, url in (("LinkedIn", linkedin), ("GitHub", github), ("Website", website)):
        cv.text(sx, y, label, "B", 7.6, _GREY)
        y += 11
        cv.text(sx, y, url, "R", 8.3)
        y += 16
    y += 8
    y = side_heading(y, "SKILLS")
    for skill in skills:
        cv.text(sx, y, "•", "R", 8.8, _NAVY)
        cv.text(sx + 9, y, skill, "R", 8.8)
        y += 13.5
    y += 14
    y = side_heading(y, "LANGUAGES")
    for language, level in languages:
        cv.text(sx, y, language, "B", 8.8)
        y += 12
        cv.text(sx, y, level, "R", 8.8, _GREY)
        y += 16
    if y > h - 40:
        raise SampleError("CV sidebar overflows the page")

    # Main column.
    mx = side_w + 30
    mw = w - mx - 36
    cv.text(mx, 78, name, "B", 27, _NAVY)
    cv.text(mx, 101, headline, "R", 12, _GREY)
    cv.rule(mx, 114, mx + mw, _NAVY, 1.2)
    y = 140.0

    def heading(y: float, title: str) -> float:
        cv.text(mx, y, title, "B", 10.5, _NAVY)
        cv.rule(mx, y + 5, mx + mw, _RULE, 0.6)
        return y + 20

    def bullets(y: float, items: Sequence[str], size: float = 9.0) -> float:
        for item in items:
            cv.text(mx + 2, y, "•", "R", size, _NAVY)
            y = cv.paragraph(mx + 12, y, mw - 12, item, "R", size, 12.2, keep=keep)
        return y

    y = heading(y, "PROFILE")
    y = cv.paragraph(mx, y, mw, summary, "R", 9.4, 13.2, keep=keep) + 10
    y = heading(y, "EXPERIENCE")
    for pos in positions:
        cv.text(mx, y, pos["title"], "B", 10.5)
        y += 13.5
        cv.text(mx, y, pos["employer"], "I", 9.2)
        x_loc = mx + cv.length(pos["employer"], "I", 9.2)
        cv.text(x_loc, y, f"  ·  {pos['location']}", "R", 9.2, _GREY)
        cv.text(mx + mw, y, span(pos["start"], pos["end"]), "R", 9.2, _GREY, align="right")
        y += 14
        y = bullets(y, pos["bullets"]) + 8
    y += 2
    y = heading(y, "EDUCATION")
    for edu in education:
        cv.text(mx, y, f"{edu['degree']} {edu['field']}", "B", 10.5)
        y += 13.5
        cv.text(mx, y, edu["institution"], "I", 9.2)
        dates = f"{_month_year(edu['start'])} – {_month_year(edu['end'])}"
        cv.text(mx + mw, y, dates, "R", 9.2, _GREY, align="right")
        y += 13
        cv.text(mx, y, edu["note"], "R", 9.0)
        y += 20
    y = heading(y, "CERTIFICATIONS")
    for cert, year in certifications:
        cv.text(mx + 2, y, "•", "R", 9.0, _NAVY)
        cv.text(mx + 12, y, cert, "R", 9.0)
        cv.text(mx + mw, y, year, "R", 9.0, _GREY, align="right")
        y += 13
    y += 12
    y = heading(y, "ADDITIONAL INFORMATION")
    cv.text(mx, y, f"Work authorisation: {work_authorisation}", "R", 9.0)
    y += 13
    cv.text(mx, y, f"Notice period: {notice}", "R", 9.0)
    y += 13
    if y > h - 36:
        raise SampleError(f"CV main column overflows the page (y={y:.0f})")
    return doc, ex


# --------------------------------------------------------------------------------------------
# 2. Invoice: German venue invoicing a Dutch customer, EUR, German number format

_SELLER_VAT = "DE281694033"
_BUYER_VAT = "NL862637207B01"
_IBAN = "DE45 1004 0000 0482 7002 03"
_BIC = "COBADEBBXXX"


def _check_invoice_ids() -> None:
    for number in (_SELLER_VAT, _BUYER_VAT):
        if not vat.is_valid(number):
            raise SampleError(f"invalid VAT id {number}")
    iban = IBAN(_IBAN, validate_bban=True)
    if str(iban.bic) != _BIC:
        raise SampleError(f"BIC {_BIC} does not belong to {_IBAN} ({iban.bic})")


def _build_invoice() -> tuple[pymupdf.Document, _Expected]:
    _check_invoice_ids()
    ex = _Expected()
    seller = {
        "name": "Spreeufer Tagungshaus GmbH",
        "street": "Spreeuferweg 12",
        "postal_code": "10245",
        "city": "Berlin",
        "country": "Germany",
        "vat_id": _SELLER_VAT,
        "email": "rechnung@spreeufer-tagungshaus.de",
        "phone": "+49 30 4920 3318",
    }
    buyer = {
        "name": "Brouwer Analytics B.V.",
        "street": "Wibautstraat 212",
        "postal_code": "1091 GS",
        "city": "Amsterdam",
        "country": "The Netherlands",
        "vat_id": _BUYER_VAT,
        "email": "ap@brouwer-analytics.nl",
        "phone": "+31 20 794 3320",
    }
    number = "INV-2026-00418"
    po = "PO-NL-77215"
    customer_no = "K-10482"
    issue = date(2026, 3, 16)
    due = issue + timedelta(days=30)
    issue_text = _day_month_year(issue)
    due_text = _dotted(due)
    reference = f"{number} / {customer_no}"
    rate = Decimal(19)
    items = [
        ("Plenary room “Spreesaal”, full-day hire", Decimal(2), "day", Decimal("2450.00")),
        ("Breakout room package (3 rooms), full day", Decimal(2), "day", Decimal("680.00")),
        ("Lunch buffet incl. soft drinks", Decimal(86), "pers.", Decimal("32.50")),
        ("Coffee breaks, morning and afternoon", Decimal(88), "pers.", Decimal("14.80")),
        ("Welcome dinner incl. beverages, 4 March", Decimal(41), "pers.", Decimal("68.00")),
        ("AV technician on site", Decimal("18.5"), "h", Decimal("65.00")),
        ("Projection and sound system package", Decimal(2), "day", Decimal("420.00")),
        ("Video recording of keynote sessions", Decimal(1), "flat", Decimal("1150.00")),
        ("Dedicated event Wi-Fi (500 Mbit/s)", Decimal(2), "day", Decimal("95.00")),
        ("Late-service and cleaning surcharge", Decimal(1), "flat", Decimal("240.00")),
    ]
    cent = Decimal("0.01")
    amounts = [(qty * price).quantize(cent, ROUND_HALF_UP) for _, qty, _, price in items]
    subtotal = sum(amounts, Decimal(0))
    tax = (subtotal * rate / 100).quantize(cent, ROUND_HALF_UP)
    total = subtotal + tax
    if sum(amounts) != subtotal or subtotal + tax != total:
        raise SampleError("invoice arithmetic")

    def money(value: Decimal) -> str:
        return f"{_eu_number(value)} €"

    seller_line = " · ".join(
        (
            seller["name"],
            seller["street"],
            f"{seller['postal_code']} {seller['city']}",
            seller["country"],
        )
    )
    seller_address_quote = seller_line.split(" · ", 1)[1]

    ex.add("invoice_number", number, number)
    ex.add("purchase_order", po, po)
    ex.add("issue_date", _date_value(issue, issue_text), issue_text)
    ex.add("due_date", _date_value(due, due_text), due_text)
    for role, party in (("seller", seller), ("buyer", buyer)):
        address = _address(party["street"], party["postal_code"], party["city"], party["country"])
        if role == "seller":
            address_quote, multiline = seller_address_quote, False
        else:
            address_quote = (
                f"{party['street']} {party['postal_code']} {party['city']} {party['country']}"
            )
            multiline = True
        ex.add(f"{role}.name", party["name"], party["name"])
        ex.add(f"{role}.address", address, address_quote, multiline=multiline)
        ex.add(f"{role}.vat_id", party["vat_id"], party["vat_id"])
        ex.add(f"{role}.email", party["email"], party["email"])
        ex.add(f"{role}.phone", party["phone"], party["phone"])
    ex.add("currency", "EUR", "EUR")
    ex.add("subtotal", _amount(subtotal, "EUR"), money(subtotal))
    ex.add("tax_rate", float(rate), f"{rate}%")
    ex.add("tax", _amount(tax, "EUR"), money(tax))
    ex.add("total", _amount(total, "EUR"), money(total))
    ex.add("payment_terms", "Net 30", "Net 30")
    ex.add("payment.iban", _IBAN, _IBAN)
    ex.add("payment.bic", _BIC, _BIC)
    ex.add("payment.bank_name", "Commerzbank AG", "Commerzbank AG")
    ex.add("payment.account_holder", seller["name"], seller["name"])
    ex.add("payment.payment_reference", reference, reference)
    for i, ((description, qty, _unit, price), amount) in enumerate(
        zip(items, amounts, strict=True)
    ):
        p = f"line_items[{i}]"
        ex.add(f"{p}.description", description, description)
        ex.add(f"{p}.quantity", float(qty), _eu_quantity(qty))
        ex.add(f"{p}.unit_price", _amount(price, "EUR"), money(price))
        ex.add(f"{p}.amount", _amount(amount, "EUR"), money(amount))

    # Layout.
    doc = _new_document(f"Invoice {number}", f"Invoice {number} (fictional sample)")
    w, h = pymupdf.paper_size("a4")
    c = _Canvas(doc, w, h)
    c.new_page()
    left, right = 56.0, w - 56.0

    # Letterhead.
    c.text(left, 70, seller["name"], "B", 18, _NAVY)
    c.text(left, 86, "Conference venue · Catering · Event technology", "R", 8.5, _GREY)
    hx = 392.0
    y = 58.0
    for line, font in (
        (seller["street"], "R"),
        (f"{seller['postal_code']} {seller['city']}", "R"),
        (seller["country"], "R"),
        (f"Phone {seller['phone']}", "R"),
        (seller["email"], "R"),
        (f"VAT ID {seller['vat_id']}", "R"),
    ):
        c.text(hx, y, line, font, 8.5, _GREY)
        y += 11.5
    c.rule(left, 138, right, _NAVY, 1.0)

    # Address window with the sender line.
    c.text(left, 160, seller_line, "R", 6.8, _GREY)
    c.rule(left, 163, left + c.length(seller_line, "R", 6.8), _GREY, 0.4)
    y = 180.0
    for line, font in (
        (buyer["name"], "B"),
        ("Attn. Accounts Payable", "R"),
        (buyer["street"], "R"),
        (f"{buyer['postal_code']} {buyer['city']}", "R"),
        (buyer["country"], "R"),
    ):
        c.text(left, y, line, font, 10)
        y += 13.5
    y += 6
    c.text(left, y, f"Customer VAT ID: {buyer['vat_id']}", "R", 8.5, _GREY)
    y += 11.5
    c.text(left, y, f"Email: {buyer['email']}", "R", 8.5, _GREY)
    y += 11.5
    c.text(left, y, f"Phone: {buyer['phone']}", "R", 8.5, _GREY)

    # Invoice details.
    lx, vx = 352.0, 446.0
    y = 180.0
    for label, value in (
        ("Invoice no.", number),
        ("Invoice date", issue_text),
        ("Due date", due_text),
        ("Purchase order", po),
        ("Customer no.", customer_no),
        ("Service period", f"{_dotted(date(2026, 3, 4))} – {_dotted(date(2026, 3, 5))}"),
        ("Payment terms", "Net 30"),
        ("Currency", "EUR"),
    ):
        c.text(lx, y, label, "B", 8.8)
        c.text(vx, y, value, "R", 8.8)
        y += 13.2

    # Title and intro.
    y = 312.0
    c.text(left, y, "INVOICE", "B", 20, _NAVY)
    y += 22
    intro = (
        "Event: Brouwer Analytics Leadership Offsite, 4–5 March 2026, 43 participants. "
        "Thank you for holding your event at Spreeufer. We invoice the following services:"
    )
    y = c.paragraph(left, y, right - left, intro, "R", 9.2, 12.5, keep=ex.keep()) + 6

    # Line item table.
    cols = {"pos": left + 4, "desc": left + 28, "qty": 358.0, "unit": 369.0, "price": 462.0}
    c.box(pymupdf.Rect(left, y, right, y + 18), _TABLE_HEAD)
    hy = y + 12.3
    c.text(cols["pos"], hy, "Pos.", "B", 8.5)
    c.text(cols["desc"], hy, "Description", "B", 8.5)
    c.text(cols["qty"], hy, "Qty", "B", 8.5, align="right")
    c.text(cols["unit"], hy, "Unit", "B", 8.5)
    c.text(cols["price"], hy, "Unit price", "B", 8.5, align="right")
    c.text(right - 4, hy, "Amount", "B", 8.5, align="right")
    y += 18
    for i, ((description, qty, unit, price), amount) in enumerate(
        zip(items, amounts, strict=True), start=1
    ):
        ry = y + 12.6
        c.text(cols["pos"], ry, str(i), "R", 8.8)
        c.text(cols["desc"], ry, description, "R", 8.8)
        c.text(cols["qty"], ry, _eu_quantity(qty), "R", 8.8, align="right")
        c.text(cols["unit"], ry, unit, "R", 8.8, _GREY)
        c.text(cols["price"], ry, money(price), "R", 8.8, align="right")
        c.text(right - 4, ry, money(amount), "R", 8.8, align="right")
        y += 18
        c.rule(left, y, right, _RULE, 0.5)

    # Totals on the right, bank details beside them on the left.
    y += 22
    top_of_block = y
    tl = 372.0
    for label, value in (("Subtotal (net)", money(subtotal)), (f"VAT {rate}%", money(tax))):
        c.text(tl, y, label, "R", 9.2)
        c.text(right - 4, y, value, "R", 9.2, align="right")
        y += 14
    c.rule(tl, y - 6, right, _INK, 0.8)
    y += 8
    c.text(tl, y, "Total due", "B", 10.5)
    c.text(right - 4, y, money(total), "B", 10.5, align="right")
    c.rule(tl, y + 6, right, _INK, 0.8)
    c.rule(tl, y + 8, right, _INK, 0.8)
    totals_end = y + 8

    y = top_of_block
    c.text(left, y, "Bank details", "B", 9.2, _NAVY)
    y += 14
    for label, value in (
        ("Account holder", seller["name"]),
        ("Bank", "Commerzbank AG"),
        ("IBAN", _IBAN),
        ("BIC", _BIC),
        ("Payment reference", reference),
    ):
        c.text(left, y, label, "B", 8.6)
        c.text(left + 88, y, value, "R", 8.6)
        y += 12.4

    # Terms and notes.
    y = max(y, totals_end) + 22
    notes = (
        f"Payment terms: Net 30. Please transfer the total amount by {due_text} without "
        "deduction, quoting the payment reference. Place of supply: Berlin, Germany (event "
        "venue and catering services); German VAT is charged."
    )
    y = c.paragraph(left, y, right - left, notes, "R", 9.0, 12.5, keep=ex.keep())
    y = c.paragraph(left, y + 4, right - left, "Thank you for your business.", "R", 9.0, 12.5)
    if y > h - 90:
        raise SampleError(f"invoice body overflows into the footer (y={y:.0f})")

    # Footer.
    c.rule(left, h - 62, right, _RULE, 0.6)
    footer = (
        (seller["name"], f"{seller['street']}, {seller['postal_code']} {seller['city']}"),
        ("Managing Director: Katrin Vollmer", "Amtsgericht Charlottenburg, HRB 214587 B"),
        ("Commerzbank AG", f"IBAN {_IBAN} · BIC {_BIC}"),
    )
    fx = (left, left + 168, left + 330)
    for x, lines in zip(fx, footer, strict=True):
        fy = h - 50
        for line in lines:
            c.text(x, fy, line, "R", 6.8, _GREY)
            fy += 9
    return doc, ex


# --------------------------------------------------------------------------------------------
# 3. Contract: a US services agreement, Letter size, serif body


def _build_contract() -> tuple[pymupdf.Document, _Expected]:
    ex = _Expected()
    title = "Managed Data Platform Services Agreement"
    supplier = "Halvorsen Cloud Systems, Inc."
    customer = "Meridian Outdoor Goods LLC"
    effective = date(2026, 4, 1)
    expiry = date(2029, 3, 31)
    effective_text = _us_long(effective)
    expiry_text = _us_long(expiry)
    signatories = [
        ("Daniel K. Osei", "Chief Executive Officer", supplier, "SUPPLIER"),
        ("Laura Brennan-Vance", "Chief Financial Officer", customer, "CUSTOMER"),
    ]

    ex.add("title", title, title)
    ex.add("parties[0].name", supplier, supplier)
    ex.add("parties[0].role", "Supplier", 'the "Supplier"')
    ex.add("parties[1].name", customer, customer)
    ex.add("parties[1].role", "Customer", 'the "Customer"')
    ex.add("effective_date", _date_value(effective, effective_text), effective_text)
    ex.add("expiration_date", _date_value(expiry, expiry_text), expiry_text)
    ex.add("term", {"amount": 3, "unit": "years"}, "three (3) years")
    ex.add("auto_renewal", True, "shall automatically renew")
    ex.add("renewal_term", {"amount": 1, "unit": "years"}, "successive one (1) year periods")
    ex.add("termination_notice", {"amount": 90, "unit": "days"}, "ninety (90) days' written notice")
    payment_terms = "within thirty (30) days of invoice by wire transfer"
    ex.add("payment_terms", payment_terms, payment_terms)
    fees = [
        ("monthly service fee", Decimal("12500.00"), "USD 12,500.00"),
        ("one-time setup fee", Decimal("4000"), "$4,000"),
        ("Additional Services", Decimal("185.00"), "USD 185.00"),
    ]
    for i, (description, value, written) in enumerate(fees):
        ex.add(f"fees[{i}].description", description, description)
        ex.add(f"fees[{i}].amount", _amount(value, "USD"), written)
    ex.add("governing_law", "New York", "laws of the State of New York")
    for i, (name, role_title, party, _label) in enumerate(signatories):
        ex.add(f"signatories[{i}].name", name, name)
        ex.add(f"signatories[{i}].title", role_title, role_title)
        ex.add(f"signatories[{i}].party", party, party)
    keep = [*ex.keep(), '(the "Supplier")', '(the "Customer")']

    preamble = (
        f'This {title} (the "Agreement") is entered into as of {effective_text} (the "Effective '
        f'Date") by and between {supplier}, a Delaware corporation with offices at 410 Hudson '
        f'Street, New York, NY 10014 (the "Supplier"), and {customer}, a Colorado limited '
        "liability company with offices at 1650 Wynkoop Street, Denver, CO 80202 (the "
        '"Customer"). The Supplier and the Customer are each '
        'referred to as a "Party" and together as the "Parties".'
    )
    recitals = (
        "The Customer wishes to engage the Supplier to operate and support its cloud data "
        "platform, and the Supplier is willing to provide those services on the terms of this "
        "Agreement. The Parties therefore agree as follows:"
    )
    sections: list[tuple[str, list[str]]] = [
        (
            "1. DEFINITIONS",
            [
                '1.1 "Services" means the managed data platform services described in Exhibit A '
                "(Statement of Work), including platform operations, monitoring, incident "
                "response, backup and recovery, and capacity planning.",
                '1.2 "Service Levels" means the availability and response targets set out in '
                'Exhibit B. "Business Day" means any day other than a Saturday, Sunday or '
                "public holiday in the State of New York.",
                '1.3 "Customer Data" means all data, in any form, that the Customer or its users '
                "submit to the platform or that the Supplier processes on the Customer's behalf.",
            ],
        ),
        (
            "2. SERVICES",
            [
                "2.1 The Supplier shall provide the Services with reasonable skill and care, in "
                "accordance with good industry practice and the Service Levels, using "
                "appropriately qualified personnel.",
                "2.2 The Customer shall provide timely access to its systems, information and "
                "personnel as reasonably required for the Supplier to perform the Services. The "
                "Supplier is not responsible for any failure to meet the Service Levels to the "
                "extent caused by the Customer's failure to do so.",
                "2.3 Each Party shall appoint a relationship manager. The relationship managers "
                "shall meet at least once per calendar quarter to review performance, open "
                "incidents and planned changes.",
            ],
        ),
        (
            "3. TERM AND RENEWAL",
            [
                "3.1 This Agreement commences on the Effective Date and continues for an initial "
                f'term of three (3) years (the "Initial Term"), ending on {expiry_text}, unless '
                "terminated earlier in accordance with Section 9.",
                "3.2 Thereafter, this Agreement shall automatically renew for successive one "
                '(1) year periods (each a "Renewal Term"), unless either '
                "Party gives the other at least ninety (90) days' written notice of "
                "non-renewal before the end of the then-current term.",
            ],
        ),
        (
            "4. FEES AND PAYMENT",
            [
                "4.1 Monthly Fee. The Customer shall pay the Supplier a monthly service fee of "
                "USD 12,500.00, invoiced monthly in advance on the first Business Day of each "
                "calendar month.",
                "4.2 Setup Fee. The Customer shall pay a one-time setup fee of $4,000 for "
                "onboarding, environment provisioning and knowledge transfer, invoiced on the "
                "Effective Date.",
                "4.3 Additional Services. Work requested by the Customer outside the scope of "
                'Exhibit A ("Additional Services") shall be charged at USD 185.00 per hour, '
                "subject to the Customer's prior written approval of an estimate.",
                "4.4 Payment. Each undisputed invoice is payable "
                f"{payment_terms} to the bank account designated by the Supplier. Late "
                "payments bear interest at one percent (1%) per month or the highest rate "
                "permitted by law, whichever is lower.",
                "4.5 Taxes. All fees are exclusive of sales, use and similar taxes, which the "
                "Customer shall pay in addition, except for taxes based on the Supplier's net "
                "income.",
            ],
        ),
        (
            "5. CONFIDENTIALITY",
            [
                "5.1 Each Party shall keep the other Party's Confidential Information "
                "confidential, use it only to perform or receive the Services, and disclose it "
                "only to employees and advisers who need to know it and are bound by "
                "obligations of confidentiality no less protective than this Section.",
                "5.2 These obligations survive for five (5) years after termination or expiry "
                "of this Agreement, and indefinitely for trade secrets and Customer Data.",
            ],
        ),
        (
            "6. DATA PROTECTION AND SECURITY",
            [
                "6.1 The Supplier shall process Customer Data only on the Customer's documented "
                "instructions and shall maintain administrative, physical and technical "
                "safeguards consistent with the SOC 2 Type II controls described in Exhibit C.",
                "6.2 The Supplier shall notify the Customer without undue delay, and in any "
                "event within forty-eight (48) hours, after becoming aware of a security "
                "incident affecting Customer Data.",
            ],
        ),
        (
            "7. WARRANTIES",
            [
                "7.1 Each Party warrants that it has full power and authority to enter into "
                "this Agreement. The Supplier warrants that the Services will conform in all "
                "material respects to Exhibit A.",
                "7.2 EXCEPT AS EXPRESSLY SET OUT IN THIS AGREEMENT, NEITHER PARTY MAKES ANY "
                "OTHER WARRANTY, EXPRESS OR IMPLIED, INCLUDING ANY WARRANTY OF MERCHANTABILITY "
                "OR FITNESS FOR A PARTICULAR PURPOSE.",
            ],
        ),
        (
            "8. LIMITATION OF LIABILITY",
            [
                "8.1 Except for breach of Section 5, neither Party shall be liable for any "
                "indirect, incidental, special or consequential damages, or for lost profits, "
                "arising out of this Agreement.",
                "8.2 Each Party's total liability under this Agreement shall not exceed the fees "
                "paid or payable by the Customer in the twelve (12) months preceding the event "
                "giving rise to the claim.",
            ],
        ),
        (
            "9. TERMINATION",
            [
                "9.1 Either Party may terminate this Agreement by written notice if the other "
                "Party materially breaches it and fails to cure the breach within thirty (30) "
                "days after receiving notice describing the breach in reasonable detail.",
                "9.2 The Customer may terminate for convenience on ninety (90) days' written "
                "notice to the Supplier, subject to payment of all "
                "fees accrued up to the date of termination.",
                "9.3 On termination or expiry, the Supplier shall provide reasonable transition "
                "assistance for up to sixty (60) days at the rate set out in Section 4.3 and "
                "shall return or delete Customer Data as the Customer directs.",
            ],
        ),
        (
            "10. GOVERNING LAW AND DISPUTES",
            [
                "10.1 This Agreement is governed by the laws of the State of New York, without "
                "regard to its conflict of laws principles.",
                "10.2 The state and federal courts located in New York County, New York, shall "
                "have exclusive jurisdiction over any dispute arising out of or relating to this "
                "Agreement.",
            ],
        ),
        (
            "11. GENERAL",
            [
                "11.1 This Agreement, together with its Exhibits, is the entire agreement of "
                "the Parties on its subject matter and supersedes all prior proposals and "
                "understandings. It may be amended only in a writing signed by both Parties.",
                "11.2 Neither Party may assign this Agreement without the other Party's prior "
                "written consent, except to a successor to all or substantially all of its "
                "business. Notices shall be given in writing to the addresses stated above.",
                "11.3 This Agreement may be executed in counterparts, including by electronic "
                "signature, each of which is an original and all of which together are one "
                "instrument.",
            ],
        ),
    ]

    # Layout.
    doc = _new_document(title, f"{title} between {supplier} and {customer} (fictional sample)")
    w, h = pymupdf.paper_size("letter")
    c = _Canvas(doc, w, h)
    left, right = 72.0, w - 72.0
    width = right - left
    top, bottom = 88.0, h - 84.0
    size, leading = 10.5, 13.6

    c.new_page()
    c.text(w / 2, 96, title.upper(), "TB", 14, align="center")
    y = 130.0
    y = c.paragraph(left, y, width, preamble, "TR", size, leading, keep=keep) + 8
    c.text(left, y, "RECITALS", "TB", size)
    y += leading
    y = c.paragraph(left, y, width, recitals, "TR", size, leading, keep=keep) + 10
    for heading, clauses in sections:
        if y > bottom - 3 * leading:
            c.new_page()
            y = top
        c.text(left, y, heading, "TB", size)
        y += leading + 2
        for clause in clauses:
            y = c.paragraph(
                left + 18,
                y,
                width - 18,
                clause,
                "TR",
                size,
                leading,
                keep=keep,
                bottom=bottom,
                top=top,
            )
            y += 5
        y += 7

    # Signature block, kept on one page.
    block_height = 150.0
    if y + block_height > bottom:
        c.new_page()
        y = top
    closing = (
        "IN WITNESS WHEREOF, the Parties have caused this Agreement to be executed by their "
        "duly authorized representatives as of the Effective Date."
    )
    y = c.paragraph(left, y, width, closing, "TR", size, leading, keep=keep) + 22
    col_w = width / 2
    for i, (name, role_title, party, label) in enumerate(signatories):
        x = left + i * col_w
        sy = y
        c.text(x, sy, label, "TB", 9.5, _GREY)
        sy += 14
        c.text(x, sy, party, "TB", size)
        sy += 34
        c.rule(x, sy - 9, x + col_w - 36, _INK, 0.6)
        c.text(x, sy, "By:", "TR", 9.5, _GREY)
        sy += 16
        c.text(x, sy, "Name:", "TR", size)
        c.text(x + 40, sy, name, "TR", size)
        sy += 16
        c.text(x, sy, "Title:", "TR", size)
        c.text(x + 40, sy, role_title, "TR", size)
        sy += 16
        c.text(x, sy, "Date:", "TR", size)
        c.text(x + 40, sy, effective_text, "TR", size)

    # Running header and page numbers.
    pages = doc.page_count
    for number, page in enumerate(doc, start=1):
        c.text(right, 48, "CONFIDENTIAL", "TR", 8, _GREY, align="right", page=page)
        c.text(left, 48, f"{supplier} / {customer}", "TI", 8, _GREY, page=page)
        c.text(
            w / 2, h - 48, f"Page {number} of {pages}", "TR", 8.5, _GREY, align="center", page=page
        )
    return doc, ex


# --------------------------------------------------------------------------------------------
# Checking and writing


def _page_lines(doc: pymupdf.Document) -> list[str]:
    lines = []
    for page in doc:
        for block in page.get_text("dict")["blocks"]:
            for line in block.get("lines", []):
                lines.append(_collapse("".join(span["text"] for span in line["spans"])))
    return lines


def check_pdf(
    pdf: Path, expected: dict[str, dict[str, Any]], multiline: Iterable[str] = ()
) -> None:
    """Fail unless every expected quote is in the PDF's text; single-line quotes on one line.

    ``multiline`` names the paths whose quote may wrap (a paragraph, an address block); every
    other quote must be found inside one extracted line.
    """
    wrapped = set(multiline)
    with pymupdf.open(pdf) as doc:
        text = _collapse(" ".join(page.get_text("text") for page in doc))
        lines = _page_lines(doc)
    problems = []
    for path, entry in expected.items():
        quote = _collapse(entry["quote"])
        if not quote:
            problems.append(f"{path}: empty quote")
        elif quote not in text:
            problems.append(f"{path}: quote {quote!r} not in the PDF text")
        elif path not in wrapped and not any(quote in line for line in lines):
            problems.append(f"{path}: quote {quote!r} is split across rendered lines")
        elif path in wrapped and any(quote in line for line in lines):
            problems.append(f"{path}: quote {quote!r} fits one line; drop it from multiline")
    if problems:
        raise SampleError(f"{pdf.name}:\n  " + "\n  ".join(problems))


_BUILDERS = {"cv": _build_cv, "invoice": _build_invoice, "contract": _build_contract}


def write_samples(out_dir: Path) -> list[Path]:
    """Write every sample PDF and expected file into ``out_dir``, check them, return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SAMPLES:
        doc, ex = _BUILDERS[name]()
        pdf = out_dir / f"{name}.pdf"
        doc.subset_fonts()
        doc.save(pdf, garbage=4, deflate=True, no_new_id=True)
        doc.close()
        check_pdf(pdf, ex.fields, ex.multiline)
        expected = out_dir / f"{name}.expected.json"
        expected.write_text(
            json.dumps(ex.fields, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        written += [pdf, expected]
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m samples.make_samples", description=__doc__)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent,
        help="output directory (default: the samples/ folder)",
    )
    args = parser.parse_args(argv)
    for path in write_samples(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
