"""A company name cut short of the legal form its quote prints goes to review with the name in
full; a name given whole, a person beside a company, an id and a value inside a longer word do
not."""

from __future__ import annotations

import pytest

from evidex.extractors.verify.compare import check_value
from evidex.extractors.verify.names import cut_short


@pytest.mark.parametrize(
    ("value", "quote", "full"),
    [
        (
            "Nando's.",
            "Nando's Chickenland Malaysia Sdn Bhd",
            "Nando's Chickenland Malaysia Sdn Bhd",
        ),
        ("ACME Tools", "ACME Tools GmbH", "ACME Tools GmbH"),
        ("NANDO'S,", "NANDO'S CHICKENLAND SDN BHD", "NANDO'S CHICKENLAND SDN BHD"),
        ("MR D.I.Y.", "MR D.I.Y. (M) SDN BHD", "MR D.I.Y. (M) SDN BHD"),
        ("Popular Book", "POPULAR BOOK CO. (M) SDN BHD", "POPULAR BOOK CO. (M) SDN BHD"),
        ("Banh Mi Cafe", "Dimiliki : banh mi cafe sdn bhd 1110644-W", "banh mi cafe sdn bhd"),
        # an "&" among the name's words, a till's shorthand form (S/B: Sdn Bhd)
        ("LAVENDER", "LAVENDER CONFECTIONERY & BAKERY S/B", "LAVENDER CONFECTIONERY & BAKERY S/B"),
        ("SOON FATT", "SOON FATT S/B (81497-P)", "SOON FATT S/B"),
        ("ABC", "ABC AND/OR XYZ", ""),
        # not cut short: whole, someone else, an id, inside a word, a small word between
        ("ACME Tools GmbH", "ACME Tools GmbH", ""),
        ("John Smith", "John Smith, ACME Ltd", ""),
        ("John", "Signed John for ACME Ltd", ""),
        ("Bank", "Bank of America Corp", ""),
        ("INV-1", "Invoice INV-1 ACME Ltd", ""),
        ("ACME", "ACMEX Ltd", ""),
        ("ACME", "ACME.com Ltd", ""),
        ("Jane Doe", "Jane Doe", ""),
        ("Jane", "Jane Doe Consulting Partners Group Holdings Ltd", ""),  # too far to the form
    ],
)
def test_cut_short_finds_the_name_the_quote_prints_in_full(
    value: str, quote: str, full: str
) -> None:
    assert cut_short(value, quote) == full


@pytest.mark.parametrize("ocr", [False, True])
def test_a_name_cut_short_goes_to_review_and_the_whole_name_verifies(ocr: bool) -> None:
    quote = "Nando's Chickenland Malaysia Sdn Bhd"
    short = check_value("string", "Nando's", quote, ocr=ocr)
    assert not short.ok
    assert short.reason == (
        'the quote names it in full, with its legal form: "Nando\'s Chickenland Malaysia Sdn Bhd"'
    )
    assert check_value("string", "Nando's Chickenland Malaysia Sdn Bhd", quote, ocr=ocr).ok
