"""What a page declares (terms it defines, its headings), and how they rank pages for a field:
a page that defines the term a field asks about outranks the pages that only use it, and a
page's headings speak for it."""

from __future__ import annotations

import pytest

from evidex.extractors.plan.outline import outline
from evidex.extractors.plan.pages import PageIndex, field_query
from evidex.schemas import LeafSpec

USES = (
    "The Borrower shall deliver to the Agent the financial statements of the Borrower. The "
    "Borrower shall ensure that no Default occurs. If the Borrower fails to pay, the Borrower "
    "pays default interest. The Borrower represents that the Borrower is duly incorporated."
)


def leaf(path: str, description: str, kind: str = "text") -> LeafSpec:
    return LeafSpec(path=path, kind=kind, description=description)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ('Halvorsen Maritime AS, a company incorporated in Norway (the "Borrower");', "Borrower"),
        ("Acme Software Ltd. (“Licensee”) and Beta Inc.", "Licensee"),
        ('"Total Commitments" means the aggregate of the Commitments.', "Total Commitments"),
        ("Borrower: Halvorsen Maritime AS, a company incorporated in Norway", "Borrower"),
        ("This Agreement is made between (1) HALVORSEN MARITIME AS as Borrower and", "Borrower"),
        ("made BY AND BETWEEN Acme Corp. and Beta LLC, as Supplier", "Supplier"),
        ("BY AND BETWEEN Acme Corp. and Beta LLC", "Parties"),
    ],
)
def test_the_ways_a_page_defines_a_term(text, term):
    assert term in outline(text).defines


@pytest.mark.parametrize(
    "text",
    [
        "is the only agreement entered into among the parties with respect to the Accounts",
        "the Indenture dated 2012, by and between the Company and the Trustee",
        "the Borrower shall pay the Lenders",
    ],
)
def test_a_mention_of_parties_or_a_term_defines_nothing(text):
    assert outline(text).defines == ()


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("Section 9.07 Governing Law. This Agreement shall be construed", "Governing Law"),
        ("12. LIMITATION OF LIABILITY", "LIMITATION OF LIABILITY"),
        ("(f) Effective Period and Termination. It runs", "Effective Period and Termination"),
        ("ARTICLE VIII EVENTS OF DEFAULT", "EVENTS OF DEFAULT"),
        ("GOVERNING LAW", "GOVERNING LAW"),
        ("(a) failure to pay any principal of any Loan when due;", None),
        ("The Borrower shall pay. 12 Business Days", None),
    ],
)  # fmt: skip
def test_headings_are_numbered_or_capitalised_titles(line, heading):
    assert outline(line).headings == ((heading,) if heading else ())


def test_a_table_of_contents_has_no_headings():
    toc = "\n".join(
        ["TABLE OF CONTENTS", "1. Definitions ........ 4", "37. Governing Law ........ 305"]
    )
    assert outline(toc).headings == ()
    listed = "\n".join(f"Section {n}.1\nTitle Number {n}\n{n + 3}" for n in range(1, 9))
    assert outline(listed).headings == ()  # headings over page numbers, without the title


def pages(*texts: str) -> PageIndex:
    return PageIndex(dict(enumerate(texts, 1)))


def test_a_page_that_defines_the_term_outranks_the_pages_that_use_it():
    index = pages(
        "TERM FACILITY AGREEMENT\nDated 14 June 2024",
        "CONTENTS\n1. Definitions ........ 4\n2. The Facility ........ 9",
        "THIS AGREEMENT is made between:\n(1) HALVORSEN MARITIME AS, a company incorporated in "
        'Norway (the "Borrower");\n(2) NORDIC BANK ASA as agent (the "Agent").',
        USES,
        USES + " The Borrower.",
        USES,
    )
    borrower = [leaf("borrower", "Legal name of the borrower.")]
    plain = index.rank(field_query(borrower))
    assert plain[0][0] in (4, 5, 6)  # by its words alone a page using the term wins
    ranked = index.rank_fields(borrower)
    assert (ranked[0].page, ranked[0].why) == (3, 'defines "Borrower"')
    assert ranked[0].score > ranked[1].score
    # A field named otherwise but describing the term: the definition counts, at half weight.
    described = index.rank_fields([leaf("obligor_name", "Name of the borrower.")])
    assert described[0].page == 3 and described[0].why == 'defines "Borrower"'


def test_a_term_is_defined_where_first_defined_not_where_restated():
    restated = 'Schedule 9: Halvorsen Maritime AS (the "Borrower") as restated'
    index = pages(
        'made between (1) HALVORSEN MARITIME AS, a company incorporated in Norway (the "Borrower")',
        USES,
        'Exhibit A, between (1) HALVORSEN MARITIME AS, a company (the "Borrower")',
        USES,
        restated,
    )
    ranked = index.rank_fields([leaf("borrower", "The borrower.")])
    defining = [r.page for r in ranked if r.why.startswith("defines")]
    assert sorted(defining) == [1, 3]  # the first two pages that define it; 5 only restates it


def test_words_of_a_value_s_form_do_not_make_a_definition():
    index = pages('"Date" means a calendar date.', '"Services" means the work.', USES)
    effective = index.rank_fields([leaf("effective_date", "When the agreement takes effect.")])
    assert all(not r.why.startswith("defines") for r in effective)  # "Date" alone
    servicer = pages('Acme Corp. (the "Servicer")', USES)
    assert all(
        not r.why.startswith("defines")
        for r in servicer.rank_fields([leaf("post_termination_services", "Services after.")])
    )  # whole words: "Servicer" is not "services"


def test_headings_carry_weight():
    law = [leaf("governing_law", "The law that governs the agreement.")]
    index = pages(
        "Each party to this Agreement shall comply with all applicable law. Any law, rule or law "
        "governing this Agreement and the laws of each state and law shall apply to the Agreement.",
        "Section 9.07 Governing Law. Delaware statutes apply to this contract and to disputes "
        "arising out of it, and the courts of Wilmington hear them.",
        "CONTENTS\n9. Governing Law ........ 2\n10. Notices ........ 3",
    )
    plain = index.rank(field_query(law))
    assert plain[0][0] == 1  # the page that repeats "law" wins on words alone
    ranked = index.rank_fields(law)
    assert (ranked[0].page, ranked[0].why) == (2, 'heading "Governing Law"')
    toc = next(r for r in ranked if r.page == 3)
    assert not toc.why  # the table of contents names the heading but is not about it


def test_words_of_a_value_s_form_do_not_rank_the_signature_pages_first():
    block = "By: ____________\nName: ____________\nTitle: ____________\nDate: ____________"
    index = pages(
        "The repayment schedule runs over twelve quarters from the first utilisation.",
        "IN WITNESS WHEREOF\nTHE BORROWER\n" + "\n".join([block] * 3),
        "The borrower is the shipowner whose vessels are charged as security.",
    )
    name = [leaf("borrower_name", "The name of the borrower.")]
    ranked = index.rank_fields(name)
    assert ranked[0].page == 3  # "name", "title", "date" of the blocks count for nothing
    assert ranked[0].score > ranked[1].score
