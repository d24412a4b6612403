"""``RulesBackend`` on the sample PDFs: the values it reads match their expected answers, and
the layout's blocks (bill-to, letterhead, addressee) give names and addresses that verify."""

from __future__ import annotations

from typing import Any

import pytest
from rules_backend_cases import BILL_TO, fields, found, lines_of, parse, run, sample

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import Status, get_schema

# -- the sample PDFs against their expected answers -----------------------------------------

SAMPLE_SCHEMAS = {"invoice": "invoice", "cv": "candidate_profile", "contract": "contract"}


def _paths(text: str) -> list[str]:
    return text.split()


# what the rules backend reads off each sample (the rest, e.g. line items, it leaves not found)
SAMPLE_FIELDS = {
    "invoice": _paths("""invoice_number purchase_order issue_date due_date seller.name
        seller.address buyer.name buyer.address seller.vat_id
        seller.email seller.phone buyer.vat_id buyer.email buyer.phone currency subtotal tax_rate
        tax total payment_terms payment.iban payment.bic payment.bank_name payment.account_holder
        payment.payment_reference"""),
    "cv": _paths("""full_name headline location current_title current_employer email phone
        linkedin_url github_url website_url years_of_experience
        work_authorization availability""")
    + [f"skills[{i}]" for i in range(12)]
    + [f"certifications[{i}]" for i in range(3)],
    "contract": _paths("""title parties[0].name parties[0].role parties[1].name parties[1].role
        effective_date expiration_date term auto_renewal renewal_term termination_notice
        governing_law"""),
}


def _same(got: Any, want: Any) -> bool:
    # the PDF prints the title in capitals; its expected value is written in title case
    return bool(got.casefold() == want.casefold() if isinstance(want, str) else got == want)


@pytest.mark.parametrize("name", sorted(SAMPLE_SCHEMAS))
def test_samples_match_their_expected_values(name: str) -> None:
    doc, expected = sample(name)
    got = found(run(doc, SAMPLE_SCHEMAS[name]), SAMPLE_SCHEMAS[name])
    wrong = {
        p: (got.get(p), expected[p]["value"])
        for p in SAMPLE_FIELDS[name]
        if not _same(got.get(p), expected[p]["value"])
    }
    assert wrong == {}
    # and nothing it did find disagrees with the expected answer or is absent from it
    extra = {
        p: v for p, v in got.items() if p not in expected or not _same(v, expected[p]["value"])
    }
    assert extra == {}


# -- layout blocks: bill-to, letterhead, addressee ------------------------------------------


def test_the_block_under_bill_to_is_the_buyers_name_and_address_and_verifies() -> None:
    got = fields(run(BILL_TO, "invoice"), "invoice")
    name, address = got["buyer.name"], got["buyer.address"]
    assert (name.value, name.quote, name.line_start) == ("Beta LLC", "Beta LLC", 4)
    assert address.model_dump(mode="json")["value"] == {
        "street": "4557 De Silva St",
        "postal_code": "94538",
        "city": "Fremont",
        "region": "CA",
        "country": "USA",
    }
    assert (address.quote, address.line_start, address.line_end) == (
        "4557 De Silva St Fremont, CA 94538 USA",
        5,
        7,
    )
    assert not got["seller.address"].found  # the block is headed for the buyer
    result = extract_parsed(parse(BILL_TO), get_schema("invoice"), llm=RulesBackend())
    assert {p: result.fields[p].status for p in ("buyer.name", "buyer.address")} == {
        "buyer.name": Status.VERIFIED,
        "buyer.address": Status.VERIFIED,
    }


def test_a_german_heading_and_a_uk_postcode() -> None:
    text = "Rechnungsadresse\nMüller & Söhne KG\nBaker Street 221\nLondon NW1 6XE\n"
    got = fields(run(text, "invoice"), "invoice")
    assert got["buyer.name"].value == "Müller & Söhne KG"
    assert got["buyer.address"].model_dump(mode="json")["value"] == {
        "street": "Baker Street 221",
        "postal_code": "NW1 6XE",
        "city": "London",
        "region": None,
        "country": None,
    }


def test_sample_invoice_letterhead_and_addressee_blocks() -> None:
    doc, _ = sample("invoice")
    got = fields(run(doc, "invoice"), "invoice")
    # the sender line over the window names the letterhead's name, with the seller's address
    assert (got["seller.name"].value, got["seller.name"].line_start) == (
        "Spreeufer Tagungshaus GmbH",
        3,
    )
    assert got["seller.name"].caveat == "in the letterhead's block"
    assert (got["buyer.name"].value, got["buyer.name"].line_start) == ("Brouwer Analytics B.V.", 4)
    assert (got["buyer.address"].line_start, got["buyer.address"].line_end) == (6, 8)
    assert got["seller.address"].quote == "Spreeuferweg 12 · 10245 Berlin · Germany"


def test_sample_cv_name_headline_and_current_job() -> None:
    doc, _ = sample("cv")
    got = fields(run(doc, "candidate_profile"), "candidate_profile")
    spans = lines_of(got, "full_name", "headline", "location", "current_title", "current_employer")
    assert spans == {
        "full_name": ("Imogen Castellane", 32),
        "headline": ("Data Engineering Lead · Cloud Platforms & Streaming", 33),
        "location": ("London, United Kingdom", 4),
        "current_title": ("Lead Data Engineer", 41),
        "current_employer": ("Northwind Freight Analytics Ltd", 42),
    }
