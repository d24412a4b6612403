"""Value against quote, per kind: true values in unusual forms pass, planted errors fail."""

from __future__ import annotations

from typing import Any

import pytest

from evidex.extractors.verify.compare import check_value

EUR = {"value": 1234.56, "currency": "EUR"}

AGREE: list[tuple[str, Any, str]] = [
    ("amount", EUR, "Total: 1.234,56 €"),
    ("amount", EUR, "Total EUR 1,234.56"),
    ("amount", {"value": 1234.56, "currency": "EUR"}, "Gesamt 1 234,56 EUR"),
    ("amount", {"value": 413.99, "currency": "USD"}, "Total Due: $413.99"),
    ("amount", {"value": 12500.0, "currency": "USD"}, "a monthly fee of USD 12,500.00"),
    ("amount", {"value": 234.0, "currency": "EUR"}, "VAT 19%: 234,00 EUR"),
    # a plain number (a client's ``type: number`` amount) and the document's own minus sign
    ("amount", -12.0, "Discount (5%): -$12.00"),
    ("amount", 12.0, "Discount (5%): -$12.00"),
    ("amount", "1.234,56 EUR", "Total: 1.234,56 €"),
    ("vat_id", "GB980780684", "VAT Reg. No. GB 980 7806 84"),
    ("date", {"iso": "2026-03-15", "original": "15 March 2026"}, "Date: 15 March 2026"),
    ("date", {"iso": "2026-03-15", "original": "March 15, 2026"}, "Dated March 15th, 2026"),
    (
        "date",
        {"iso": "2014-05-20", "original": "20th day of May, 2014"},
        "made this 20th day of May, 2014",
    ),
    ("date", {"iso": "2026-04-14", "original": "14.04.2026"}, "Due: 14.04.2026"),
    ("date", {"iso": "2026-03-15", "original": "15. März 2026"}, "Datum: 15. März 2026"),
    ("date", {"iso": "2019-03-01", "original": "Mar 2019"}, "Mar 2019 – Present"),
    ("date", {"iso": "2026-01-31", "original": "2026-01-31"}, "Delivered 2026-01-31"),
    ("years", 8, "Eight years of experience"),
    ("years", 8, "8+ years in backend engineering"),
    ("integer", 12, "twelve (12) months"),
    ("number", 1234, "1,234 units"),
    ("percentage", 19, "VAT 19 %"),
    ("duration", {"amount": 3, "unit": "years"}, "an initial term of three (3) years"),
    ("duration", {"amount": 90, "unit": "days"}, "ninety (90) days' written notice"),
    ("duration", {"amount": 2, "unit": "years"}, "for a period of two years"),
    ("duration", {"amount": 3, "unit": "years"}, "a three-year term"),
    ("duration", {"amount": 1, "unit": "years"}, "successive one-year periods"),
    ("duration", {"amount": 2, "unit": "years"}, "until the second anniversary of the Date"),
    ("iban", "DE89370400440532013000", "IBAN: DE89 3704 0044 0532 0130 00"),
    ("iban", "DE89 3704 0044 0532 0130 00", "IBAN DE89370400440532013000"),
    ("bic", "COBADEFFXXX", "BIC: COBADEFFXXX"),
    ("vat_id", "DE136695976", "USt-IdNr.: DE 136 695 976"),
    ("phone", "+44 20 7946 0958", "Tel: +44 (0)20 7946 0958"),
    ("email", "Jane.Doe@Example.com", "jane.doe@example.com"),
    ("url", "https://www.linkedin.com/in/jane-doe/", "linkedin.com/in/jane-doe"),
    ("string", "ACME GmbH", "Seller: ACME GmbH, Berlin"),
    ("string", "Müller & Söhne", "Mueller Müller & Söhne KG"),
    ("currency", "EUR", "All amounts in EUR"),
    ("date", {"iso": "2026-05-04", "original": "04.05.2026"}, "Fällig am: 04.05.2026"),
    ("boolean", True, "the term shall automatically renew"),
    ("boolean", False, "this Agreement shall not automatically renew"),
    ("string", "Castellane, Imogen", "Imogen Castellane"),
    (
        "address",
        {
            "street": "Hauptstr. 5",
            "postal_code": "10115",
            "city": "Berlin",
            "region": None,
            "country": "Germany",
        },
        "Hauptstr. 5, 10115 Berlin, Germany",
    ),
]

DISAGREE: list[tuple[str, Any, str, str]] = [
    ("amount", 5.0, "Discount (5%): -$12.00", "value 5 is a percentage in the quote"),
    ("vat_id", "GB980780685", "VAT GB980780685", "check digits"),
    ("email", "jane@example", "jane@example", "not a valid email address"),
    ("number", "12", "Quantity: 21", "does not match"),
    ("amount", {"value": 413.99, "currency": "USD"}, "Total Due: $431.99", "431.99"),
    ("amount", EUR, "Total: 1.234,56 $", "currency EUR"),
    ("amount", {"value": 19.0, "currency": "EUR"}, "VAT 19%: 234,00 EUR", "is a percentage"),
    ("date", {"iso": "2026-02-30", "original": "30.02.2026"}, "30.02.2026", "not a valid"),
    ("date", {"iso": "2026-03-16", "original": "15 March 2026"}, "15 March 2026", "2026-03-15"),
    ("date", {"iso": "2026-03-15"}, "Date: 15 April 2026", "2026-04-15"),
    ("years", 9, "Eight years of experience", "does not match"),
    ("percentage", 0.19, "VAT 19%", "fraction"),
    ("duration", {"amount": 3, "unit": "months"}, "three (3) years", "unit"),
    ("duration", {"amount": 3, "unit": "months"}, "the third anniversary", "unit"),
    ("duration", {"amount": 3, "unit": "years"}, "the second anniversary", "does not match"),
    ("iban", "DE89370400440532013001", "IBAN: DE89 3704 0044 0532 0130 01", "checksum"),
    ("iban", "GB82WEST12345698765432", "IBAN: DE89 3704 0044 0532 0130 00", "differs"),
    ("vat_id", "DE136695977", "VAT DE136695977", "check digits"),
    ("phone", "+44 20 7946 0959", "Tel: +44 20 7946 0958", "does not match"),
    ("email", "jane@example.org", "jane@example.com", "not in the quote"),
    ("string", "INV-2026-002", "Invoice INV-2026-001", "002"),
    ("string", "Globex Corporation", "Seller: ACME GmbH", "not what the quote says"),
    ("currency", "USD", "Total 12,00 EUR", "not stated"),
    ("currency", "XYZ", "XYZ", "ISO 4217"),
    ("date", {"iso": "2026-04-01"}, "Due: 15.04.2026", "2026-04-15"),
    ("date", {"iso": "2026-03-01"}, "Due Date: 04/03/2026", "does not match"),
    ("string", "Imogen Castellano", "Imogen Castellane", "castellano not in it"),
    ("boolean", False, "the term shall automatically renew", "affirms"),
    ("boolean", True, "the term shall not renew", "negated"),
]


@pytest.mark.parametrize(("kind", "value", "quote"), AGREE)
def test_true_values_in_other_forms_agree(kind: str, value: Any, quote: str) -> None:
    check = check_value(kind, value, quote)
    assert check.ok, check.reason


@pytest.mark.parametrize(("kind", "value", "quote", "reason"), DISAGREE)
def test_planted_errors_disagree(kind: str, value: Any, quote: str, reason: str) -> None:
    check = check_value(kind, value, quote)
    assert not check.ok
    assert reason in check.reason


def test_currency_from_symbol_is_marked_computed() -> None:
    check = check_value("currency", "USD", "a setup fee of $4,000")
    assert check.ok and check.computed
    assert "symbol" in check.reason


def test_false_without_a_no_is_marked_inferred() -> None:
    check = check_value("boolean", False, "Jan 2016 – Feb 2019")
    assert check.ok and check.computed and "inferred" in check.reason


def test_words_match_approximately_only_when_the_quote_did() -> None:
    assert not check_value("string", "Imogen Castellano", "Imogen Castellane").ok
    assert check_value("string", "Imogen Castellane", "Imogen Caste1lane", fuzzy=True).ok


LINE = "Subtotal: $250.00 Tax (8%): $20.00 Total: $270.00"


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("total", 270.0, ""),
        ("tax", 20.0, ""),
        ("subtotal", 250.0, ""),
        (
            "total",
            250.0,
            "value 250.00 is the amount labelled 'subtotal' in the quote; 'total' there is 270.00",
        ),
        ("tax_amount", 270.0, "labelled 'total'"),
        ("grand_total", 250.0, ""),  # its label is not in the quote: nothing to settle
    ],
)
def test_an_amount_belongs_to_its_own_label(name: str, value: float, reason: str) -> None:
    check = check_value("amount", value, LINE, name=name)
    assert check.ok == (not reason)
    assert reason in check.reason


def test_a_label_that_names_no_money_takes_no_amount_away() -> None:
    assert check_value("amount", 270.0, "Total (2 items): 270.00", name="total").ok
