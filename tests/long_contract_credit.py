"""The 334-page New York-law revolving credit agreement (see ``long_contract``): written with its
own wording, numbering and seed, and held out: page selection was not tuned on it (its first run
lost the list of events of default; the fix came from that diagnosis)."""

from __future__ import annotations

from long_contract import MONTHS, Fact, Style, iso_date, roman, same_text, usd

CREDIT = Style(
    name="credit_agreement",
    title="AMENDED AND RESTATED REVOLVING CREDIT AGREEMENT",
    pages=334,
    seed=8675,
    cover=(
        "",
        "AMENDED AND RESTATED REVOLVING CREDIT AGREEMENT",
        "",
        "dated as of September 30, 2024",
        "",
        "among",
        "",
        "the Lenders from time to time party hereto",
        "",
        "and",
        "",
        "GRANITE NATIONAL BANK, N.A.,",
        "as Administrative Agent, Swingline Lender and an Issuing Bank",
        "",
        "",
        "GRANITE SECURITIES LLC and PIKE STREET CAPITAL MARKETS, INC.,",
        "as Joint Lead Arrangers and Joint Bookrunners",
    ),
    toc_title="TABLE OF CONTENTS",
    clauses=(
        "Definitions and Accounting Terms",
        "The Commitments and Credit Extensions",
        "Letters of Credit",
        "Taxes, Yield Protection and Illegality",
        "Conditions Precedent to Credit Extensions",
        "Representations and Warranties",
        "Affirmative Covenants",
        "Negative Covenants",
        "Events of Default and Remedies",
        "Administrative Agent",
        "Miscellaneous",
    ),
    clause_heading=lambda n, title: f"ARTICLE {roman(n)} {title.upper()}",
    sub_heading=lambda n, k, title: f"SECTION {n}.{k:02d}. {title}.",
    parties_page=5,
    parties=(
        "This AMENDED AND RESTATED REVOLVING CREDIT AGREEMENT is entered into as of September 30,",
        "2024, by and among",
        'ACME INDUSTRIAL HOLDINGS, INC., a Delaware corporation (the "Borrower"),',
        "each lender from time to time party hereto (collectively, the",
        '"Lenders" and individually, a "Lender"), and',
        "GRANITE NATIONAL BANK, N.A., as Administrative Agent, Swingline Lender and an Issuing",
        "Bank.",
        "",
        "PRELIMINARY STATEMENTS",
        "",
        "The Borrower has requested that the Lenders amend and restate the Existing Credit",
        "Agreement to provide a revolving credit facility, and the Lenders have indicated their",
        "willingness to lend on the terms and subject to the conditions set forth herein.",
        "",
        "In consideration of the mutual covenants and agreements herein contained, the parties",
        "hereto covenant and agree as follows:",
    ),
    definitions_intro="SECTION 1.01. Defined Terms. As used in this Agreement, the following "
    "terms shall have the meanings set forth below:",
    definition=lambda term, meaning: f'"{term}" means {meaning}',
    terms=(
        ("Acquisition", "any transaction by which the Borrower acquires a business or division."),
        ("Administrative Agent", "Granite National Bank, N.A., in its capacity as agent."),
        ("Applicable Rate", "the rate per annum set forth in the pricing grid below."),
        ("Approved Fund", "any Fund administered or managed by a Lender or its Affiliate."),
        ("Availability", "the Aggregate Commitments minus the Total Outstandings."),
        ("Base Rate", "the highest of the Federal Funds Rate plus 1/2 of 1% and the Prime Rate."),
        ("Borrowing", "a Revolving Borrowing or a Swingline Borrowing, as the context requires."),
        ("Business Day", "any day other than a Saturday, Sunday or a day banks are closed."),
        ("Change of Control", "an event or series of events by which any person acquires control."),
        ("Commitment", "as to each Lender, its obligation to make Revolving Loans."),
        (
            "Consolidated EBITDA",
            "Consolidated Net Income plus the amounts listed in Schedule 1.01.",
        ),
        ("Credit Extension", "each of a Borrowing and an L/C Credit Extension."),
        ("Default", "any event that, with notice or lapse of time, would be an Event of Default."),
        ("Event of Default", "any of the events specified in Section 8.01."),
        ("Indebtedness", "all obligations for borrowed money and all Guarantees thereof."),
        ("Lien", "any mortgage, pledge, security interest, encumbrance or lien of any kind."),
        ("Loan Documents", "this Agreement, each Note, each Issuer Document and the Fee Letter."),
        ("Maturity Date", "September 30, 2029."),
        ("Obligations", "all advances to, and debts of, any Loan Party under the Loan Documents."),
        ("Required Lenders", "Lenders holding more than 50% of the Aggregate Commitments."),
        ("Subsidiary", "a corporation of which a majority of the shares is owned by the Borrower."),
        (
            "Total Outstandings",
            "the aggregate Outstanding Amount of all Loans and L/C Obligations.",
        ),
    ),
    fact_definitions=(
        ("Aggregate Commitments", "the Commitments of all Lenders, which amount to $725,000,000."),
        ("Closing Date", "September 30, 2024."),
    ),
    sentences=(
        "The Borrower shall, and shall cause each Subsidiary to, comply with all {T} and with "
        "the requirements of all laws applicable to it.",
        "Each Lender severally agrees, on the terms and conditions set forth herein, to make "
        "Revolving Loans not exceeding its Commitment under the Aggregate Commitments.",
        "The Administrative Agent shall promptly notify each Lender of the amount of its "
        "Applicable Percentage of any {T} requested under Section {N}.",
        "No {T} shall be made if, after giving effect to it, the Total Outstandings would exceed "
        "the Aggregate Commitments then in effect.",
        "Each {T} delivered under this Agreement shall be governed by the terms hereof and by "
        "the law applicable to the {T2}.",
        "The Borrower shall not create, incur, assume or suffer to exist any {T} upon any of its "
        "property, whether now owned or hereafter acquired, other than as permitted in Section "
        "{N}.",
        "Any {T} may, at its option, make any Credit Extension by causing any domestic or foreign "
        "branch or Affiliate to make it.",
        "Unless the Administrative Agent shall have received notice from a Lender prior to the "
        "proposed date of any Borrowing, it may assume that such Lender has made its share "
        "available.",
        "The obligations of the Lenders hereunder to make Revolving Loans are several and not "
        "joint, and no Lender shall be responsible for the failure of any other {T}.",
        "From and after the Closing Date the Borrower shall pay a commitment fee on the actual "
        "daily unused portion of the Aggregate Commitments at the Applicable Rate.",
        "Nothing in this Agreement shall be deemed to constitute the Administrative Agent a "
        "fiduciary of any {T} under applicable law.",
        "Each Loan Party shall maintain in full force and effect its legal existence and all "
        "rights, licenses and permits necessary for the conduct of its business.",
        "Any {T} that is not a Business Day shall be extended to the next succeeding Business "
        "Day, and such extension shall be reflected in computing interest or fees.",
        "If any provision of this Agreement or the other Loan Documents is held to be illegal, "
        "invalid or unenforceable, the legality of the remaining provisions shall not be affected.",
    ),
    events_heading="SECTION 9.01. Events of Default. Any of the following shall constitute an",
    events_intro="Event of Default:",
    events=(
        ("(a)", "Non-Payment. The Borrower fails to pay any principal of any Loan when due;"),
        ("(b)", "Specific Covenants. The Borrower fails to perform any covenant in Article VII;"),
        ("(c)", "Other Defaults. Any Loan Party fails to perform any other covenant for 30 days;"),
        ("(d)", "Representations and Warranties. Any representation proves incorrect when made;"),
        ("(e)", "Cross-Default. Any Loan Party fails to pay Indebtedness above the Threshold;"),
        ("(f)", "Insolvency Proceedings. Any Loan Party institutes any insolvency proceeding;"),
        ("(g)", "Inability to Pay Debts. Any Loan Party admits in writing its inability to pay;"),
        ("(h)", "Judgments. A final judgment above the Threshold Amount remains unsatisfied;"),
        ("(i)", "ERISA. An ERISA Event occurs resulting in liability above the Threshold Amount;"),
        ("(j)", "Invalidity of Loan Documents. Any Loan Document ceases to be in full force;"),
        ("(k)", "Change of Control. There occurs any Change of Control; or"),
        ("(l)", "Collateral. Any Lien created by a Collateral Document ceases to be valid."),
    ),
    event_line=lambda label, text: f"{label} {text}",
    events_page=229,
    events_on_first_page=7,
    law_clause="SECTION 11.14. GOVERNING LAW; JURISDICTION; ETC.",
    law_lines=(
        "(a) GOVERNING LAW. THIS AGREEMENT AND THE OTHER LOAN DOCUMENTS SHALL BE GOVERNED BY, AND",
        "CONSTRUED IN ACCORDANCE WITH, THE LAW OF THE STATE OF NEW YORK.",
    ),
    law_page=326,
    footer="{page}",
    facts=(
        Fact(
            "borrower",
            "The company borrowing under the agreement.",
            r"^(ACME INDUSTRIAL HOLDINGS, INC\.), a Delaware corporation",
            same_text,
        ),
        Fact(
            "administrative_agent",
            "The bank acting as administrative agent.",
            r"^(GRANITE NATIONAL BANK, N\.A\.), as Administrative Agent",
            same_text,
        ),
        Fact(
            "closing_date",
            "The closing date of the agreement.",
            r'"Closing Date" means ((?P<month>[A-Z][a-z]+) (?P<day>\d+), (?P<year>\d{4}))',
            iso_date(MONTHS),
            (("type", "string"), ("format", "date")),
        ),
        Fact(
            "governing_law",
            "The law that governs the agreement.",
            r"(THE LAW OF THE STATE OF NEW YORK)",
            same_text,
        ),
        Fact(
            "aggregate_commitments",
            "The total amount of the lenders' commitments.",
            r"which amount to (\$(?P<n>[\d,]+))",
            usd,
            (("type", "number"), ("x-evidex-kind", "amount")),
        ),
    ),
    list_description="Every event of default the agreement lists, in order.",
)
