"""The contract sample: a three-page US services agreement (Letter size) and its expected fields."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pymupdf

from samples.pdf_kit import (
    GREY,
    INK,
    Canvas,
    Expected,
    amount_value,
    date_value,
    new_document,
    us_long,
)

__all__ = ["build_contract"]


def build_contract() -> tuple[pymupdf.Document, Expected]:
    ex = Expected()
    title = "Managed Data Platform Services Agreement"
    supplier = "Halvorsen Cloud Systems, Inc."
    customer = "Meridian Outdoor Goods LLC"
    effective = date(2026, 4, 1)
    expiry = date(2029, 3, 31)
    effective_text = us_long(effective)
    expiry_text = us_long(expiry)
    signatories = [
        ("Daniel K. Osei", "Chief Executive Officer", supplier, "SUPPLIER"),
        ("Laura Brennan-Vance", "Chief Financial Officer", customer, "CUSTOMER"),
    ]

    ex.add("title", title, title)
    ex.add("parties[0].name", supplier, supplier)
    ex.add("parties[0].role", "Supplier", 'the "Supplier"')
    ex.add("parties[1].name", customer, customer)
    ex.add("parties[1].role", "Customer", 'the "Customer"')
    ex.add("effective_date", date_value(effective, effective_text), effective_text)
    ex.add("expiration_date", date_value(expiry, expiry_text), expiry_text)
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
        ex.add(f"fees[{i}].amount", amount_value(value, "USD"), written)
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
    doc = new_document(title, f"{title} between {supplier} and {customer} (fictional sample)")
    w, h = pymupdf.paper_size("letter")
    c = Canvas(doc, w, h)
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
        c.text(x, sy, label, "TB", 9.5, GREY)
        sy += 14
        c.text(x, sy, party, "TB", size)
        sy += 34
        c.rule(x, sy - 9, x + col_w - 36, INK, 0.6)
        c.text(x, sy, "By:", "TR", 9.5, GREY)
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
        c.text(right, 48, "CONFIDENTIAL", "TR", 8, GREY, align="right", page=page)
        c.text(left, 48, f"{supplier} / {customer}", "TI", 8, GREY, page=page)
        c.text(
            w / 2, h - 48, f"Page {number} of {pages}", "TR", 8.5, GREY, align="center", page=page
        )
    return doc, ex
