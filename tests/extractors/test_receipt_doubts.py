"""The rules backend is honest about how sure it is of a receipt's values: a value read by a
strong rule is verified, one read by a weak rule or where the slip points two ways goes to
review with a reason that names the doubt (reported as conflicting evidence, which verification
acts on)."""

from __future__ import annotations

import pytest
from receipt_cells import PLAIN, receipt

from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.llm.rules.lines import Lines
from evidex.extractors.llm.rules.payment import payment, row_cells, signed
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import FieldResult, Result, Status

TOP = "KEDAI RUNCIT MAJU SDN BHD\n(654321-K)\nNO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU\n"
TOP += "TEL: 07-355 1234\nDATE: 25/12/2018\n"  # lines 1-5


def _run(text: str) -> Result:
    document = TextParser().parse(text.encode(), "receipt.txt")
    return extract_parsed(document, PLAIN, llm=RulesBackend())


def _review(field: FieldResult, *words: str) -> None:
    assert field.status is Status.NEEDS_REVIEW, field.reasons
    assert all(w in field.reasons[0] for w in words), field.reasons


def test_values_read_by_strong_rules_stay_verified() -> None:
    result = _run(TOP + "TOTAL: 9.00\nCASH: 10.00\nCHANGE: 1.00\n")
    for name in ("company", "address", "date", "total"):
        assert result.fields[name].status is Status.VERIFIED, (name, result.fields[name].reasons)
    assert result.notes.conflicting_evidence == []


def test_a_lone_name_at_the_top_is_the_merchant() -> None:
    text = "ASIA MART\nNO.23 BATU 10, 42200 KLANG\nTEL: 03-3291 1234\nTOTAL: 5.00\n"
    field = _run(text).fields["company"]
    assert (field.value, field.status) == ("ASIA MART", Status.VERIFIED)


def test_a_merchant_taken_from_two_names_goes_to_review() -> None:
    text = "TAN WOON YANN\nCORNER BAKERY\n12 HIGH STREET, 81100 JOHOR BAHRU\nTEL: 07-355 1234\n"
    result = _run(text + "TOTAL: 9.00\n")
    company = result.fields["company"]
    assert company.value == "CORNER BAKERY"
    _review(company, "lines 1 and 2", "could each be the merchant's name")
    assert result.notes.conflicting_evidence[0].fields == ["company"]
    assert result.fields["address"].status is Status.VERIFIED


def test_a_registration_number_settles_the_merchant_under_a_persons_name() -> None:
    text = "TAN WOON YANN\nCORNER BAKERY\n(123456-X)\n12 HIGH STREET, 81100 JOHOR BAHRU\n"
    company = _run(text + "TEL: 07-355 1234\nTOTAL: 9.00\n").fields["company"]
    assert (company.value, company.status) == ("CORNER BAKERY", Status.VERIFIED)


def test_a_company_form_above_the_registered_name_leaves_the_merchant_open() -> None:
    text = "SINAR MAJU SDN BHD\nKOTA DAMANSARA BRANCH\n(123456-X)\n12 JALAN SS 21, 47400 PJ\n"
    company = _run(text + "TEL: 03-7731 8169\nTOTAL: 9.00\n").fields["company"]
    _review(company, "lines 1 and 2", "could each be the merchant", "carries a company form")


def test_a_line_ending_in_a_company_form_is_no_address_line() -> None:
    text = "TAN WOON YANN\n7-ELEVEN MALAYSIA SDN BHD\nNO 5, JALAN BUKIT BINTANG, 55100 KL\n"
    result = _run(text + "TEL: 03-2145 1234\nTOTAL: 3.50\n")
    assert result.fields["company"].value == "7-ELEVEN MALAYSIA SDN BHD"
    assert result.fields["address"].value == "NO 5, JALAN BUKIT BINTANG, 55100 KL"


@pytest.mark.parametrize(
    ("lines", "value", "doubt"),
    [
        pytest.param(
            "TOTAL AMT: RM 60.31\nROUNDING ADJ: -0.01\nCASH: RM 70.30\nCHANGE: RM 10.00\n",
            "60.31",
            ("cash 70.30 (line 8) less change 10.00 (line 9) is 60.30", "not the 60.31"),
            id="cash-less-change-contradicts-it",
        ),
        pytest.param(
            "TOTAL: 49.60\nNETT TOTAL: 57.80\n",
            "57.80",
            ("the total lines disagree: 57.80 on line 7, 49.60 on line 6",),
            id="total-lines-that-disagree-with-nothing-to-settle-them",
        ),
        pytest.param(
            "TOTAL: 60.31\nROUNDING ADJ: -0.01\n",
            "60.31",
            ("a rounding of 0.01 (line 7) follows this total",),
            id="a-rounding-after-a-plain-total-leaves-the-amount-paid-open",
        ),
        pytest.param(
            "TOTAL: 88.97\nROUNDING ADJ -J.02\n",
            "88.97",
            ("a rounding (line 7), its amount misread, follows this total",),
            id="a-rounding-whose-amount-was-misread-leaves-it-open-too",
        ),
        pytest.param(
            "TOTAL: 60.30\nVISA 63.30\n",
            "60.30",
            ("63.30 was charged to a card (line 7), not the 60.30",),
            id="a-card-charge-for-another-amount",
        ),
        pytest.param(
            "AMT PAID INCL. GST : RM78.30\nAMT PAID EXCL. GST : RM73.87\nTOTAL EV :2.10\n",
            "2.10",
            ("line 6 says 78.30 was paid, not the 2.10 read as the total",),
            id="an-amount-paid-for-another-amount",
        ),
    ],
)
def test_a_total_the_slip_puts_in_doubt_goes_to_review(
    lines: str, value: str, doubt: tuple[str, ...]
) -> None:
    total = _run(TOP + lines).fields["total"]
    assert total.value == value
    _review(total, *doubt)


def test_the_amount_paid_printed_under_a_total_that_contradicts_it_is_answered_for_review() -> None:
    text = TOP + "TOTAL AMT: RM 60.31\nROUNDING ADJ: -0.01\nRM 60.30\nCASH: RM 70.30\n"
    total = _run(text + "CHANGE: RM 10.00\n").fields["total"]
    assert (total.value, total.line_start) == ("60.30", 8)
    _review(total, "the total line (line 6) reads 60.31", "is 60.30, the amount line 8 prints")


@pytest.mark.parametrize(
    ("lines", "value"),
    [
        pytest.param(
            "TOTAL: 9.03\nROUNDED TOTAL (RM): 9.05\nCASH: 10.00\nCHANGE: 0.95\n",
            "9.05",
            id="cash-less-change-settles-them",
        ),
        pytest.param(
            "TOTAL AMOUNT: 49.60\nSERVICE CHARGE 10%: 4.96\nGST 6%: 3.27\nROUNDING ADJ: -0.03\n"
            "NETT TOTAL: 57.80\n",
            "57.80",
            id="charges-printed-after-an-earlier-total",
        ),
        pytest.param(
            "TOTAL RM 30.91\nROUNDING ADJUSTMENT RM 0.01\nTOTAL ROUNDED RM 30.90\n",
            "30.90",
            id="a-printed-rounding-whatever-its-sign",
        ),
    ],
)
def test_total_lines_that_disagree_for_a_reason_the_slip_prints_stay_verified(
    lines: str, value: str
) -> None:
    total = _run(TOP + lines).fields["total"]
    assert (total.value, total.status) == (value, Status.VERIFIED)


def test_an_amount_under_a_total_label_of_its_own_goes_to_review() -> None:
    text = "KEDAI MAJU\n12 JALAN MAWAR, 81100 JOHOR BAHRU\nTEL: 07-355 1234\nTotal :\n80.91\n0.00\n"
    total = _run(text).fields["total"]
    assert (total.value, total.line_start) == ("80.91", 5)
    _review(total, "read from line 5, under a total label on a line of its own")


def test_an_address_whose_last_line_runs_on_goes_to_review() -> None:
    text = "KEDAI MAJU SDN BHD\nNO 12, JALAN MAWAR 3,\nTAMAN BUNGA RAYA,\n"
    address = _run(text + "TEL: 07-355 1234 81100 JOHOR BAHRU\nTOTAL: 9.00\n").fields["address"]
    assert address.value == "NO 12, JALAN MAWAR 3, TAMAN BUNGA RAYA,"
    _review(address, "line 3", "ends in ','")


def test_an_address_nothing_closes_goes_to_review() -> None:
    text = "KEDAI MAJU SDN BHD\nLOT 5\nBLOCK B\nLEVEL 2\nMENARA TH\nJALAN SS 21\nDAMANSARA\n"
    address = _run(text + "47400 PJ\nBEST COFFEE IN TOWN\nTOTAL: 9.00\n").fields["address"]
    assert address.line_end == 7  # six lines and still no phone, id or date line
    _review(address, "no phone, registration or date line closes the address after line 7")


def test_a_line_between_the_name_and_the_address_leaves_its_start_open() -> None:
    text = (
        "GERBANG ALAF SDN BHD\n(65351-M)\nLICENSEE OF BURGER PLACE\n"
        "LEVEL 6, MENARA TH, 47400 PETALING JAYA\nGST ID: 000504664064\nTOTAL: 26.60\n"
    )
    result = _run(text)
    assert result.fields["company"].status is Status.VERIFIED
    _review(result.fields["address"], "line 3 between the merchant's name and its address")


def test_an_unlabelled_first_date_among_other_dates_goes_to_review() -> None:
    text = "KEDAI MAJU SDN BHD\nNO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU\nTEL: 07-355 1234\n"
    text += "25/12/2018 20:49\nTOTAL: RM 9.00\nMEMBER 14/01/2019\n"
    date = _run(text).fields["date"]
    assert date.value == {"iso": "2018-12-25", "original": "25/12/2018"}
    _review(date, "other dates (line 6)", "no label says which is the date of the sale")


def test_an_unlabelled_first_date_is_read_in_the_documents_own_order() -> None:
    text = "KEDAI MAJU SDN BHD\nNO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU\nTEL: 07-355 1234\n"
    date = _run(text + "02/12/2017 18:42\nTOTAL: RM 9.00\n").fields["date"]
    assert date.value == {"iso": "2017-12-02", "original": "02/12/2017"}
    assert date.status is Status.VERIFIED, date.reasons


def test_a_date_whose_order_nothing_on_the_slip_settles_goes_to_review() -> None:
    text = "CORNER CAFE\n12 HIGH ST\nTEL 555-1234\n03/04/2018 18:42\nTOTAL: 9.00\n"
    date = _run(text).fields["date"]
    assert date.value == {"iso": "2018-03-04", "original": "03/04/2018"}
    _review(date, "not settled")


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("ROUNDING ADJ -0.01", -0.01),
        ("ROUNDING ADJUSTMENT -RM 0.02", -0.02),
        ("ROUNDING (0.02)", -0.02),
        ("GST 6% 3.27", 3.27),
        ("CASH RM 1,070.30", 1070.30),
        ("TOTAL : 80.91 0.00", None),
        ("TOTAL QTY 3", None),
    ],
)
def test_the_one_signed_amount_a_line_prints(text: str, amount: float | None) -> None:
    assert signed(text) == amount


def test_payment_reads_cash_change_card_and_roundings() -> None:
    text = "ROUNDING ADJ -0.02\nCASH CHANGE 7.00\nCASH TENDERED 20.10\nEXCHANGE WITHIN 7 DAYS\n"
    document = TextParser().parse(text.encode(), "slip.txt")
    rows = Lines(document).rows
    pay = payment(rows, row_cells(rows))
    assert [(r.line, r.amount) for r in pay.rounding] == [(1, 0.02)]
    assert pay.change is not None and (pay.change.line, pay.change.amount) == (2, 7.0)
    assert pay.cash is not None and pay.cash.amount == 20.1
    assert pay.paid == (13.1, "cash 20.10 (line 3) less change 7.00 (line 2) is 13.10")


@pytest.mark.parametrize(
    ("text", "paid"),
    [
        ("AMOUNT PAID: 50.00\nCHANGE: 1.20\n", (48.8, "the amount paid 50.00 (line 1)")),
        ("AMT PAID INCL GST : RM111.90\nAMT PAID EXCL. GST :RM 105.57\n", (111.9, "line 1 says")),
        # "EXCL." as an engine misreads it is still no amount paid
        ("AMT PAID INCL GST : RM111.90\nAmt Paid xcl. GST:RM 105.57\n", (111.9, "line 1 says")),
    ],
)
def test_an_amount_paid_is_what_was_paid_less_any_change(
    text: str, paid: tuple[float, str]
) -> None:
    rows = Lines(TextParser().parse(text.encode(), "slip.txt")).rows
    found = payment(rows, row_cells(rows)).paid
    assert found is not None and found[0] == paid[0] and found[1].startswith(paid[1]), found


def _cells(rows: list[list[str]]) -> ParsedDocument:
    """A slip whose rows a parser read as separate cells (one line per cell, same height)."""
    return receipt(rows, confidence=None)


SPLIT = [
    ["KEDAI RUNCIT MAJU SDN BHD"],
    ["NO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU"],
    ["TEL: 07-355 1234"],
    ["TOTAL AMT", "RM 60.31"],
    ["ROUNDING ADJ", "-0.01"],
    ["TOTAL ROUNDED", "RM 60.30"],
    ["CASH", "RM 70.30"],
    ["CHANGE", "RM 10.00"],
    ["GST SUMMARY", "AMOUNT", "TAX"],
    ["TOTAL:", "56.89", "3.41"],
]


def test_a_total_read_across_the_cells_of_its_row_is_verified() -> None:
    result = extract_parsed(_cells(SPLIT), PLAIN, llm=RulesBackend())
    total = result.fields["total"]
    assert (total.value, total.line_start, total.status) == ("60.30", 9, Status.VERIFIED)


def test_cells_of_a_row_are_read_together_for_what_was_paid() -> None:
    rows = [r for r in SPLIT if r[0] != "TOTAL ROUNDED"]  # only the unrounded total is labelled
    total = extract_parsed(_cells(rows), PLAIN, llm=RulesBackend()).fields["total"]
    assert total.value == "60.31"
    _review(total, "cash 70.30 (line 8) less change 10.00 (line 10) is 60.30")


def test_a_table_row_of_several_amounts_split_into_cells_is_not_the_total() -> None:
    rows = [SPLIT[0], SPLIT[1], SPLIT[2], *SPLIT[8:]]  # only the tax summary's totals row
    total = extract_parsed(_cells(rows), PLAIN, llm=RulesBackend()).fields["total"]
    _review(total, "the row of line 8 prints several amounts (3.41, 56.89)", "a table's row")
