"""A company name cut short of the legal form its quote prints goes to review with the name in
full; a name given whole, a person beside a company, an id and a value inside a longer word do
not. A field named for a business goes to review with a piece of the name printed on either
side of it; any other text field may hold part of a line."""

from __future__ import annotations

import pytest

from evidex.extractors.verify.compare import check_value
from evidex.extractors.verify.names import cut_short, runs_on


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


@pytest.mark.parametrize(
    ("value", "quote", "whole"),
    [
        ("GIFT & HOME DECO", "INDAH GIFT & HOME DECO", "INDAH GIFT & HOME DECO"),
        ("ABC HO", "ABC HO TRADING", "ABC HO TRADING"),
        ("SAM TRADING CO", "SAM SAM TRADING CO", "SAM SAM TRADING CO"),
        # the quote as OCR spaced it out
        ("D.I.Y. (JOHOR) SDN BHD", "MR D.I .Y. (JOHOR) SDN BHD", "MR D.I .Y. (JOHOR) SDN BHD"),
        ("MR. D.I.Y. (M) SDN", "MR. D.I.Y. (M) SDN BHD", "MR. D.I.Y. (M) SDN BHD"),
        # whole: after a label, before an id, a stamp or a small word, or the quote itself
        ("ACME", "Company: ACME", ""),
        ("ACME SDN BHD", "ACME SDN BHD (123456-X)", ""),
        ("BAIFU (M) SDN BHD", "#000002 BAIFU (M) SDN BHD", ""),
        ("YONG CEN ENTERPRISE", "YONG CEN ENTERPRISE POSTED", ""),
        ("Google", "Engineer at Google", ""),
        ("ABC HO TRADING", "ABC HO TRADING", ""),
        ("MR D.I.Y. (JOHOR) SDN BHD", "MR D.I .Y. (JOHOR) SDN BHD", ""),
        ("ABC", "XAB C TRADING", ""),  # spaces aside it starts inside a word
    ],
)
def test_runs_on_finds_the_name_a_piece_was_taken_from(value: str, quote: str, whole: str) -> None:
    assert runs_on(value, quote) == whole


@pytest.mark.parametrize("ocr", [False, True])
def test_a_piece_of_a_business_name_goes_to_review_where_the_field_is_named_for_one(
    ocr: bool,
) -> None:
    quote = "INDAH GIFT & HOME DECO"
    piece = check_value("string", "GIFT & HOME DECO", quote, name="merchant_name", ocr=ocr)
    assert (piece.ok, piece.reason) == (
        False,
        "the value is a piece of the name the quote prints: 'INDAH GIFT & HOME DECO'",
    )
    assert check_value("string", quote, quote, name="company", ocr=ocr).ok
    # a field not named for a business may hold part of a line, its address too
    for field in ("city", "company_address"):
        assert check_value("string", "Kuala Lumpur", "53300 Kuala Lumpur Malaysia", name=field).ok
