"""The rules backend maps a field to what it means by name, description and synonyms."""

from __future__ import annotations

import pytest

from evidex.extractors.llm.rules.meaning import concept_of, field_words


@pytest.mark.parametrize(
    ("name", "description", "concept"),
    [
        ("party", "", "parties"),
        ("counterparties", "", "parties"),
        ("jurisdiction", "", "governing law"),
        ("governingLaw", "", "governing law"),
        ("duration", "", "agreement term"),
        ("effective_date", "", "agreement date"),
        ("commencement_date", "", "agreement date"),
        ("expiration_date", "", "end date"),
        ("notice_period", "", "notice"),
        ("amount_due", "", "total"),
        ("invoice_no", "", "invoice number"),
        ("tax_rate", "", "tax rate"),  # an exact name beats the shorter "tax" inside it
        ("tax", "", "tax"),
        ("website_url", "", "website"),
        ("full_name", "", "person"),
        ("current_title", "", "job title"),  # not the document's title
        ("title", "", "document title"),
        ("ref", "Purchase order number of the buyer", "purchase order"),  # by description
        # contract fields in German, French and Spanish schemas; accents optional
        ("vertragsparteien", "", "parties"),
        ("partes", "", "parties"),
        ("laufzeit", "", "agreement term"),
        ("duree", "", "agreement term"),
        ("vertragsbeginn", "", "agreement date"),
        ("contractStartDate", "", "agreement date"),
        ("date_d_effet", "", "agreement date"),
        ("fecha_de_terminacion", "", "end date"),
        ("kündigungsfrist", "", "notice"),
        ("preavis", "", "notice"),
        ("anwendbaresRecht", "", "governing law"),
        ("legislación_aplicable", "", "governing law"),
    ],
)
def test_a_field_takes_the_concept_its_name_or_description_states(
    name: str, description: str, concept: str
) -> None:
    found = concept_of(name, description)
    assert found is not None and found.key == concept


@pytest.mark.parametrize("name", ["value", "number", "misc", "notes", "startDate", "datum"])
def test_a_name_that_says_nothing_maps_to_nothing(name: str) -> None:
    assert concept_of(name, "") is None


@pytest.mark.parametrize(
    ("name", "parent"),
    [("bill_to", "buyer"), ("customer", "buyer"), ("vendor", "seller"), ("supplier", "seller")],
)
def test_objects_are_mapped_to_the_party_they_hold(name: str, parent: str) -> None:
    found = concept_of(name, "", parent=True)
    assert found is not None and found.key == parent


def test_field_words_split_every_naming_style() -> None:
    assert [field_words(n) for n in ("effectiveDate", "effective_date", "Effective-Date")] == [
        "effective date"
    ] * 3
