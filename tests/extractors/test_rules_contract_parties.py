"""``RulesBackend`` on contract parties: exact names, roles and lines from opening sentences,
lists and headings, and the addressee and company of a letter agreement."""

from __future__ import annotations

import pytest
from rules_backend_cases import fields, run

PARTY_CASES = [
    (
        "middle-initial",
        "This Agreement is made between Kenneth M. Bate (“Employee”) and NitroMed, Inc. (the "
        "“Company”).\n",
        [("Kenneth M. Bate", 1, "Employee"), ("NitroMed, Inc.", 1, "Company")],
    ),
    (
        "descriptions-and-roles",
        "This Agreement is entered into by and between JDA Software Group, Inc., a Delaware "
        "corporation (together with its subsidiaries, “JDA”), and\nRedPrairie Holding, Inc., a "
        "Delaware corporation (“RHI”).\n",
        [("JDA Software Group, Inc.", 1, "JDA"), ("RedPrairie Holding, Inc.", 2, "RHI")],
    ),
    (
        "role-on-next-line",
        "This Agreement is made by and between Intercept Pharmaceuticals, Inc. (the\n“Company”) "
        "and David Shapiro (the “Employee”).\n",
        [("Intercept Pharmaceuticals, Inc.", 1, "Company"), ("David Shapiro", 2, "Employee")],
    ),
    (
        "among-list",
        "This Agreement is by and among TESARO, Inc. (“TESARO”), GSK LLC (“GSK”), and Ajinomoto "
        "Althea, Inc. (“ABPS”).\n",
        [
            ("TESARO, Inc.", 1, "TESARO"),
            ("GSK LLC", 1, "GSK"),
            ("Ajinomoto Althea, Inc.", 1, "ABPS"),
        ],
    ),
    (
        "lower-case-name",
        "This Agreement is entered into by and between Patricia Sueltz (the “Employee”), on the "
        "one hand, and salesforce.com, inc. (the “Company”), on the other hand.\n",
        [("Patricia Sueltz", 1, "Employee"), ("salesforce.com, inc.", 1, "Company")],
    ),
    (
        "between-colon-list",
        "CONSULTING AGREEMENT\nTHIS AGREEMENT is dated for reference the 1st day of February, "
        '2020. BETWEEN:\nCORAL GOLD RESOURCES LTD., a company incorporated\n(the "Company")\n'
        'AND:\nINTERMARK CAPITAL CORP., a company incorporated\n(the "Consultant")\n',
        [("CORAL GOLD RESOURCES LTD.", 3, "Company"), ("INTERMARK CAPITAL CORP.", 6, "Consultant")],
    ),
    (
        "names-on-their-own-lines",
        "OUTSOURCING AGREEMENT\nBETWEEN\nVIRTUAL ITEM PROCESSING SYSTEMS, INC.\nAnd\nBROKERS "
        "NATIONAL LIFE ASSURANCE COMPANY\nE - 4\n",
        [
            ("VIRTUAL ITEM PROCESSING SYSTEMS, INC.", 3, None),
            ("BROKERS NATIONAL LIFE ASSURANCE COMPANY", 5, None),
        ],
    ),
    (
        "a-name-split-over-lines-is-quoted-over-them",
        "This Agreement is made by and between Alpha Corp, a Delaware corporation, and\nBeta\n"
        "Holdings, Inc.\n",
        [("Alpha Corp", 1, None), ("Beta Holdings, Inc.", 2, None)],
    ),
    (
        "entered-into-by",
        "This Agreement is entered into as of May 5, 2021 by Alpha Corp. (the “Discloser”) and "
        "Beta LLC (the “Recipient”).\n",
        [("Alpha Corp.", 1, "Discloser"), ("Beta LLC", 1, "Recipient")],
    ),
    (
        "executed-by-both-parties-is-no-list",
        "This Agreement, effective when executed by both parties, is made between Alpha Inc. "
        "(“Alpha”) and Beta Corp. (“Beta”).\n",
        [("Alpha Inc.", 1, "Alpha"), ("Beta Corp.", 1, "Beta")],
    ),
    (
        "a-courtesy-title-is-no-part-of-the-name",
        "This Agreement is made between Alpha Inc. (the “Company”) and Mr. John Smith (the "
        "“Consultant”).\n",
        [("Alpha Inc.", 1, "Company"), ("John Smith", 1, "Consultant")],
    ),
    (
        "two-roles-joined-by-and-without-between",
        "In consideration of the mutual promises below, Alpha Holdings, Inc., a Delaware "
        "corporation (“Alpha”), and Beta Widgets LLC (the “Recipient”) agree as follows.\n",
        [("Alpha Holdings, Inc.", 1, "Alpha"), ("Beta Widgets LLC", 1, "Recipient")],
    ),
    (
        "roles-of-defined-terms-are-no-pair",
        "The Company (“Discloser”) and the Employee (“Recipient”) agree as follows.\n",
        [],
    ),
    (
        "a-one-word-name-a-description-calls-a-company",
        "This Agreement is made between Acme, a Delaware corporation, and Beta Widgets LLC, a "
        "New York company.\n",
        [("Acme", 1, None), ("Beta Widgets LLC", 1, None)],
    ),
    (
        "among-a-list-of-described-companies",
        "This Agreement is made by and among Alpha Corp., a Delaware corporation, Beta Holdings "
        "LLC, a Nevada company, and Gamma Partners LP, a Texas partnership.\n",
        [("Alpha Corp.", 1, None), ("Beta Holdings LLC", 1, None), ("Gamma Partners LP", 1, None)],
    ),
    ("defined-terms-are-no-names", "Nothing here is between the Company and the Employee.\n", []),
    (
        "a-reference-in-parentheses",
        "Effective immediately prior to the Merger (as defined in the Agreement and Plan of "
        "Merger, by and among Alpha, Inc. (“Alpha”), Beta Corp. and Gamma LLC), you will be "
        "terminated.\n",
        [],
    ),
    ("a-short-name-in-a-heading", "CONFIDENTIALITY AGREEMENT BY AND BETWEEN AUSPEX AND TEVA\n", []),
    (
        "a-pair-whose-first-name-has-an-address",
        "Alpha Biotech, Inc., with a place of business at 740 Heinz Avenue, Berkeley, CA 94710 "
        "(“Alpha”) and Beta B.V. having an address at Main 16, Leiden (“Consultant”) agree.\n",
        [("Alpha Biotech, Inc.", 1, "Alpha"), ("Beta B.V.", 1, "Consultant")],
    ),
    (
        "a-heading-that-runs-on-into-the-opening-sentence",
        "AGREEMENT BY AND BETWEEN ALPHA AND BETA\nTHIS AGREEMENT is entered into between ALPHA "
        "PHARMACEUTICALS, located at 1 Main Street, La Jolla, CA 92037 (“Company”), and BETA "
        "INDUSTRIES, LTD., of Basel Street, Israel (“BETA”).\n",
        [("ALPHA PHARMACEUTICALS", 2, "Company"), ("BETA INDUSTRIES, LTD.", 2, "BETA")],
    ),
    (
        "a-slash-and-a-spanish-suffix-belong-to-the-name",
        "This Agreement is made between Alpha / Beta Credit Income Fund (“Client”) and Espacio "
        "Information Technology, SA. (“EIT”).\n",
        [
            ("Alpha / Beta Credit Income Fund", 1, "Client"),
            ("Espacio Information Technology, SA.", 1, "EIT"),
        ],
    ),
    (
        "roles-after-as-in-an-among-list",
        "TRANSFER AND SERVICING AGREEMENT among ALPHA OWNER TRUST 2020-A, as Issuer, ALPHA ABS "
        "LLC, as Depositor and BETA PARTNERSHIP, as Servicer, Marketing Agent and Custodian.\n",
        [
            ("ALPHA OWNER TRUST 2020-A", 1, "Issuer"),
            ("ALPHA ABS LLC", 1, "Depositor"),
            ("BETA PARTNERSHIP", 1, "Servicer"),
        ],
    ),
    (
        "a-bank-suffix-and-a-role-given-with-its-affiliates",
        "In connection with a possible transaction, Alpha Partners, L.P. (together with its "
        "affiliates, “you”) agrees with Beta Bank, N.A. (the “Bank”) as follows.\n",
        [("Alpha Partners, L.P.", 1, "you"), ("Beta Bank, N.A.", 1, "Bank")],
    ),
    (
        "legal-names-given-roles-without-between",
        "LIMITED POWER OF ATTORNEY\nKNOW ALL MEN BY THESE PRESENTS, that ALPHA HOLDINGS COMPANY, a "
        "statutory trust organized under the laws of Delaware (the “Adviser”), hereby appoints\n"
        "Beta Advisory Services, LLC, a Delaware limited liability company (“Beta”), to act.\n",
        [("ALPHA HOLDINGS COMPANY", 2, "Adviser"), ("Beta Advisory Services, LLC", 3, "Beta")],
    ),
    (
        "three-parties-between-each-given-a-role",
        "This Agreement is made between Alpha Inc. (“Alpha”), Beta LLC (“Beta”) and Gamma Corp. "
        "(“Gamma”) and the Affiliates of each.\n",
        [("Alpha Inc.", 1, "Alpha"), ("Beta LLC", 1, "Beta"), ("Gamma Corp.", 1, "Gamma")],
    ),
    (
        "a-legal-name-a-definition-quotes-again-is-still-a-name",
        "This Agreement is made between Alpha Networks Incorporated (“Alpha”) and Beta LLC "
        "(“Beta”).\n“Alpha Parties” means “Alpha Networks Incorporated” and its affiliates.\n",
        [("Alpha Networks Incorporated", 1, "Alpha"), ("Beta LLC", 1, "Beta")],
    ),
]


@pytest.mark.parametrize(
    ("text", "want"), [c[1:] for c in PARTY_CASES], ids=[c[0] for c in PARTY_CASES]
)
def test_contract_parties_have_exact_names_roles_and_lines(
    text: str, want: list[tuple[str, int, str | None]]
) -> None:
    got = fields(run(text, "contract"), "contract")
    visible = [x for x in text.splitlines() if x.strip()]
    parties = []
    for i in range(len(want) + 1):
        name, role = got.get(f"parties[{i}].name"), got.get(f"parties[{i}].role")
        if name is None or role is None:
            break
        assert name.line_start is not None and name.line_end is not None
        assert name.quote == name.value
        assert name.quote in " ".join(visible[name.line_start - 1 : name.line_end])
        if role.line_start is not None:
            assert role.quote in visible[role.line_start - 1]
        parties.append((name.value, name.line_start, role.value))
    assert parties == want


LETTER = """\
March 3, 2020
Globex Corporation
100 Main Street
Springfield, IL 62701
Ladies and Gentlemen:
In connection with a possible transaction with Initech, Inc. (the "Company"), you have asked
for information about the Company.
"""


def test_a_letter_agreement_names_its_addressee_and_the_company_and_is_dated_above() -> None:
    got = fields(run(LETTER, "contract"), "contract")
    names = [(got[f"parties[{i}].name"].value, got[f"parties[{i}].name"].line_start) for i in "01"]
    assert names == [("Globex Corporation", 2), ("Initech, Inc.", 6)]
    assert "parties[2].name" not in got
    date = got["effective_date"]
    assert (date.model_dump(mode="json")["value"], date.quote, date.line_start) == (
        {"iso": "2020-03-03", "original": "March 3, 2020"},
        "March 3, 2020",
        1,
    )
    assert date.caveat == "the date of the letter, above its salutation"


def test_the_opening_sentence_after_a_table_of_contents_names_the_parties() -> None:
    contents = "".join(f"Section 1.{i:02d} Heading number {i}\n{i}\n" for i in range(1, 40))
    text = (
        "OUTSOURCING AGREEMENT\nTABLE OF CONTENTS\nARTICLE I DEFINITIONS\n"
        + contents
        + "This OUTSOURCING AGREEMENT is entered into as of March 1, 2012 by and between Alpha "
        "Holdings, LLC (the “Company”), and Beta LLC (the “Contractor”).\n"
    )
    got = fields(run(text, "contract"), "contract")
    names = [(got[f"parties[{i}].name"].value, got[f"parties[{i}].role"].value) for i in "01"]
    assert names == [("Alpha Holdings, LLC", "Company"), ("Beta LLC", "Contractor")]
    assert got["parties[0].name"].line_start == 82


def test_without_a_salutation_the_address_block_names_no_party() -> None:
    text = LETTER.replace("Ladies and Gentlemen:", "Summary of terms")
    out = run(text, "contract")
    got = fields(out, "contract")
    # the legal name the text gives a role still is one; the block over no greeting is not
    assert [(p.name.value, p.role.value) for p in out.parties] == [  # type: ignore[attr-defined]
        ("Initech, Inc.", "Company")
    ]
    assert got["parties[0].name"].line_start == 6
    date = got["effective_date"]  # no letter: the date on its own line at the top still dates it
    assert date.caveat == "a date on a line of its own at the top of the document"
