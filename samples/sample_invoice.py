"""The invoice sample: a German venue invoicing a Dutch customer in EUR, and its expected fields.

Amounts are printed in German number format (``16.767,90 €``); the VAT ids, IBAN and BIC are
invented but pass their check-digit tests, which the build verifies before drawing anything.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

import pymupdf
from schwifty import IBAN
from stdnum.eu import vat

from samples.pdf_kit import (
    GREY,
    INK,
    NAVY,
    RULE,
    TABLE_HEAD,
    Canvas,
    Expected,
    SampleError,
    amount_value,
    date_value,
    day_month_year,
    dotted,
    eu_number,
    eu_quantity,
    new_document,
)

__all__ = ["build_invoice"]

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


def build_invoice() -> tuple[pymupdf.Document, Expected]:
    _check_invoice_ids()
    ex = Expected()
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
    issue_text = day_month_year(issue)
    due_text = dotted(due)
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
        return f"{eu_number(value)} €"

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
    ex.add("issue_date", date_value(issue, issue_text), issue_text)
    ex.add("due_date", date_value(due, due_text), due_text)
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
    ex.add("subtotal", amount_value(subtotal, "EUR"), money(subtotal))
    ex.add("tax_rate", float(rate), f"{rate}%")
    ex.add("tax", amount_value(tax, "EUR"), money(tax))
    ex.add("total", amount_value(total, "EUR"), money(total))
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
        ex.add(f"{p}.quantity", float(qty), eu_quantity(qty))
        ex.add(f"{p}.unit_price", amount_value(price, "EUR"), money(price))
        ex.add(f"{p}.amount", amount_value(amount, "EUR"), money(amount))

    # Layout.
    doc = new_document(f"Invoice {number}", f"Invoice {number} (fictional sample)")
    w, h = pymupdf.paper_size("a4")
    c = Canvas(doc, w, h)
    c.new_page()
    left, right = 56.0, w - 56.0

    # Letterhead.
    c.text(left, 70, seller["name"], "B", 18, NAVY)
    c.text(left, 86, "Conference venue · Catering · Event technology", "R", 8.5, GREY)
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
        c.text(hx, y, line, font, 8.5, GREY)
        y += 11.5
    c.rule(left, 138, right, NAVY, 1.0)

    # Address window with the sender line.
    c.text(left, 160, seller_line, "R", 6.8, GREY)
    c.rule(left, 163, left + c.length(seller_line, "R", 6.8), GREY, 0.4)
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
    c.text(left, y, f"Customer VAT ID: {buyer['vat_id']}", "R", 8.5, GREY)
    y += 11.5
    c.text(left, y, f"Email: {buyer['email']}", "R", 8.5, GREY)
    y += 11.5
    c.text(left, y, f"Phone: {buyer['phone']}", "R", 8.5, GREY)

    # Invoice details.
    lx, vx = 352.0, 446.0
    y = 180.0
    for label, value in (
        ("Invoice no.", number),
        ("Invoice date", issue_text),
        ("Due date", due_text),
        ("Purchase order", po),
        ("Customer no.", customer_no),
        ("Service period", f"{dotted(date(2026, 3, 4))} – {dotted(date(2026, 3, 5))}"),
        ("Payment terms", "Net 30"),
        ("Currency", "EUR"),
    ):
        c.text(lx, y, label, "B", 8.8)
        c.text(vx, y, value, "R", 8.8)
        y += 13.2

    # Title and intro.
    y = 312.0
    c.text(left, y, "INVOICE", "B", 20, NAVY)
    y += 22
    intro = (
        "Event: Brouwer Analytics Leadership Offsite, 4–5 March 2026, 43 participants. "
        "Thank you for holding your event at Spreeufer. We invoice the following services:"
    )
    y = c.paragraph(left, y, right - left, intro, "R", 9.2, 12.5, keep=ex.keep()) + 6

    # Line item table.
    cols = {"pos": left + 4, "desc": left + 28, "qty": 358.0, "unit": 369.0, "price": 462.0}
    c.box(pymupdf.Rect(left, y, right, y + 18), TABLE_HEAD)
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
        c.text(cols["qty"], ry, eu_quantity(qty), "R", 8.8, align="right")
        c.text(cols["unit"], ry, unit, "R", 8.8, GREY)
        c.text(cols["price"], ry, money(price), "R", 8.8, align="right")
        c.text(right - 4, ry, money(amount), "R", 8.8, align="right")
        y += 18
        c.rule(left, y, right, RULE, 0.5)

    # Totals on the right, bank details beside them on the left.
    y += 22
    top_of_block = y
    tl = 372.0
    for label, value in (("Subtotal (net)", money(subtotal)), (f"VAT {rate}%", money(tax))):
        c.text(tl, y, label, "R", 9.2)
        c.text(right - 4, y, value, "R", 9.2, align="right")
        y += 14
    c.rule(tl, y - 6, right, INK, 0.8)
    y += 8
    c.text(tl, y, "Total due", "B", 10.5)
    c.text(right - 4, y, money(total), "B", 10.5, align="right")
    c.rule(tl, y + 6, right, INK, 0.8)
    c.rule(tl, y + 8, right, INK, 0.8)
    totals_end = y + 8

    y = top_of_block
    c.text(left, y, "Bank details", "B", 9.2, NAVY)
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
    c.rule(left, h - 62, right, RULE, 0.6)
    footer = (
        (seller["name"], f"{seller['street']}, {seller['postal_code']} {seller['city']}"),
        ("Managing Director: Katrin Vollmer", "Amtsgericht Charlottenburg, HRB 214587 B"),
        ("Commerzbank AG", f"IBAN {_IBAN} · BIC {_BIC}"),
    )
    fx = (left, left + 168, left + 330)
    for x, lines in zip(fx, footer, strict=True):
        fy = h - 50
        for line in lines:
            c.text(x, fy, line, "R", 6.8, GREY)
            fy += 9
    return doc, ex
