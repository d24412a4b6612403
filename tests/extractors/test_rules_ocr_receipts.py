"""The rules backend reads a receipt an OCR engine read as the engine reads it: the cells of one
printed row apart, spaces inside amounts, dates and words, shapes confused (O and 0). Each
receipt here is a line table as the OCR parser makes it (boxes, a confidence per line); the same
text from a text layer is read as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from receipt_cells import read, read_text, receipt, review

from bench.ocr_cache import load_document, save_document
from evidex.extractors.llm.rules.dates import find_dates, spaced_dates
from evidex.extractors.llm.rules.issuer import form_misread
from evidex.extractors.llm.rules.money import closed_up
from evidex.extractors.llm.rules.ocr_text import misread, tidied
from evidex.schemas import Status

TOP = [
    ["KEDAI RUNCIT MAJU SDN BHD"],
    ["(654321-K)"],
    ["NO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU"],
    ["TEL: 07-355 1234"],
]
PAID = [["CASH", "RM 50.00"], ["CHANGE", "RM 16.10"]]  # 33.90 paid
PAID_9 = [["CASH", "50.00"], ["CHANGE", "41.00"]]  # 9.00 paid


def test_the_cells_of_one_printed_row_are_the_merchants_name() -> None:
    rows = [["SAM SAM", "TRADING", "CO"], ["(742016-W)"], ["67, JLN MEWAH 25/63, 40400 SHAH ALAM"]]
    rows += [["TEL: 03-5121 3881"], ["TOTAL", "RM 33.90"], *PAID]
    result = read(receipt(rows))
    company, address = result.fields["company"], result.fields["address"]
    assert (company.value, company.line_start, company.line_end) == ("SAM SAM TRADING CO", 1, 3)
    assert company.status is Status.VERIFIED, company.reasons
    assert (address.value, address.status) == (
        "67, JLN MEWAH 25/63, 40400 SHAH ALAM",
        Status.VERIFIED,
    )
    assert result.fields["total"].value == "33.90"


def test_a_large_name_whose_box_reaches_into_the_address_under_it_is_not_one_row_with_it() -> None:
    document = receipt([TOP[0], TOP[2], TOP[1], TOP[3], ["TOTAL", "RM 33.90"], *PAID])
    # centred, the name set large above a narrower address: its box reaches into line 2's
    document.lines.loc[0, ["x0", "y0", "x1", "y1"]] = (20.0, 8.0, 380.0, 50.0)
    document.lines.loc[1, ["x0", "x1"]] = (60.0, 340.0)
    result = read(document)
    assert result.fields["company"].value == "KEDAI RUNCIT MAJU SDN BHD"
    assert result.fields["address"].value == "NO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU"


def test_a_date_printed_on_the_names_row_stays_apart_from_the_name() -> None:
    rows = [["UNIHAKKA INTERNATIONAL SDN BHD", "12 Mar2018 18:19"], *TOP[1:], ["TOTAL", "8.20"]]
    result = read(receipt(rows))
    assert result.fields["company"].value == "UNIHAKKA INTERNATIONAL SDN BHD"
    assert result.fields["address"].value == "NO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU"
    assert result.fields["date"].value == {"iso": "2018-03-12", "original": "12 Mar2018"}


@pytest.mark.parametrize("date", ["Date: 18/03/20185:41:06", "18/03/201821:28 0001"])
def test_a_date_whose_year_ocr_ran_into_the_time_is_quoted_whole_and_verified(date: str) -> None:
    result = read(receipt([*TOP, [date], ["TOTAL", "RM 33.90"], *PAID]))
    found = result.fields["date"]
    assert found.value == {"iso": "2018-03-18", "original": "18/03/2018"}
    quote = date.removesuffix(" 0001")
    assert (found.quote, found.line_start, found.status) == (quote, 5, Status.VERIFIED)


@pytest.mark.parametrize(
    ("label", "amount", "value"),
    [
        ("TOTAL ROUNDED", "RM 33 .90", "33.90"),
        ("TO TAL", "RM 33.90", "33.90"),
        ("Tota l :", "33. 90", "33.90"),
        ("TOTAL :", "RM33.90", "33.90"),  # the quote takes the currency run into it
        ("TotalAmount:", "RM33.90", "33.90"),
    ],
)
def test_a_total_spaced_out_by_ocr_is_read_whole(label: str, amount: str, value: str) -> None:
    total = read(receipt([*TOP, [label, amount], *PAID])).fields["total"]
    assert (total.value, total.line_start, total.status) == (value, 6, Status.VERIFIED)


@pytest.mark.parametrize("label", ["Total Incl , GST@6%", "Total Incl.6% GST", "TOTAL INCL. GST"])
def test_a_total_including_its_tax_is_read_from_the_line_under_its_label(label: str) -> None:
    rows = [*TOP, ["SUB TOTAL", "RM 31.98"], [label], ["RM 33.90"], *PAID]
    total = read(receipt(rows)).fields["total"]
    assert (total.value, total.line_start, total.status) == ("33.90", 8, Status.VERIFIED)


def test_a_tax_line_is_still_no_total() -> None:
    rows = [*TOP, ["Total GST @6%"], ["RM 1.92"], ["MILO 1KG", "33.90"]]
    assert read(receipt(rows)).fields["total"].value is None


def test_a_month_and_year_alone_give_way_to_the_date_with_its_day() -> None:
    rows = [["MAR 2018"], *TOP, ["TOTAL", "33.90"], *PAID, ["14-03-18 21:49 SH03 T1"]]
    date = read(receipt(rows)).fields["date"]
    assert date.value == {"iso": "2018-03-14", "original": "14-03-18"}
    assert date.line_start == 12


def test_an_ocr_total_no_other_figure_confirms_goes_to_review() -> None:
    rows = [*TOP, ["MILO 1KG", "20.00"], ["ROTI", "12.70"], ["TOTAL", "RM 32.69"]]
    total = read(receipt(rows)).fields["total"]
    assert total.value == "32.69"
    review(total, "the total 32.69 was read by OCR and no other figure on the receipt")


def test_an_ocr_total_the_same_figure_printed_again_confirms_is_verified() -> None:
    rows = [*TOP, ["MILO 1KG", "32.69"], ["TOTAL", "RM 32.69"]]
    total = read(receipt(rows)).fields["total"]
    assert (total.value, total.status) == ("32.69", Status.VERIFIED)


@pytest.mark.parametrize("label", ["Total GV :10.56", "Total eV :10.56"])  # "EV" as OCR read it
def test_a_total_of_something_the_label_names_no_money_goes_to_review(label: str) -> None:
    # a loyalty scheme's points summed as a total, the same figure printed again beside them
    rows = [*TOP, ["MTD SV : 10.56"], ["PMBATHROOM CLEANER", "53.40"], [label]]
    total = read(receipt(rows)).fields["total"]
    assert total.value == "10.56"
    review(total, f"its label on line 8 ({label!r}) totals", "which names no money")


@pytest.mark.parametrize(("label", "code"), [("TAS TOTAL :", "TAS"), ("5UB TOTAL", "5UB")])
def test_a_total_whose_label_may_be_a_misread_part_goes_to_review(label: str, code: str) -> None:
    # a tax summary's "TAX TOTAL" as OCR read it, the tax printed again above it
    rows = [*TOP, ["MILO 1KG", "11.50"], ["GST 6%", "0.69"], [label, "0.69"]]
    total = read(receipt(rows)).fields["total"]
    assert total.value == "0.69"
    review(total, f"its label on line 9 ({label!r}) may name a part", f"{code!r} is one letter")


# "Total Ami Rounded": "Amt" misread, qualified further by a word, not a code
@pytest.mark.parametrize(
    "label", ["TOTAL RM", "TOTAL MYR", "TOTAL AMT", "TOTAL DUE", "Total Ami Rounded"]
)
def test_a_total_qualified_by_its_currency_or_its_amount_is_the_total(label: str) -> None:
    rows = [*TOP, ["MILO 1KG", "20.00"], ["ROTI", "13.90"], [label, "33.90"], *PAID]
    total = read(receipt(rows)).fields["total"]
    assert (total.value, total.status) == ("33.90", Status.VERIFIED), total.reasons


def test_an_ocr_total_of_zero_is_not_confirmed_by_the_zeros_printed_elsewhere() -> None:
    # the label of "TOTAL GST" misread, so its 0.00 is taken for the total; 0.00 is printed
    # again for the discount, which confirms nothing
    rows = [*TOP, ["ELEGANT BAGS", "80.90"], ["DISCOUNT", "0.00"], ["TOTAL OS1", "0.00"]]
    total = read(receipt(rows)).fields["total"]
    assert total.value == "0.00"
    review(total, "the total 0.00 was read by OCR, and a receipt prints 0.00 on many lines")


def test_a_text_layers_total_needs_no_second_figure() -> None:
    text = "KEDAI RUNCIT MAJU SDN BHD\nNO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU\n"
    total = read_text(text + "TEL: 07-355 1234\nMILO 1KG 20.00\nTOTAL: RM 32.69\n").fields["total"]
    assert (total.value, total.status) == ("32.69", Status.VERIFIED)


def test_with_no_total_line_the_amount_cash_less_change_gives_is_answered_for_review() -> None:
    rows = [*TOP, ["SUBTOTAL:", "28.60"], ["TL:RM", "28.60"], ["CASH", "100.00"]]
    total = read(receipt([*rows, ["CHANGE", "71.40"]])).fields["total"]
    assert (total.value, total.line_start) == ("28.60", 8)  # the cell beside "TL:RM"
    review(total, "no line names the total", "is 28.60, the amount line 8 prints")


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        ("Date : 1 8/01/201 8", "18/01/2018"),
        ("Date: 1 1/01/2019", "11/01/2019"),
        ("1 2-01 - 1 9 2 1 : 1 3 SH01", "12-01-19"),
    ],
)
def test_a_date_spaced_out_by_ocr_is_read_whole(printed: str, value: str) -> None:
    date = read(receipt([*TOP, [printed], ["TOTAL", "9.00"], ["ITEM", "9.00"]])).fields["date"]
    assert isinstance(date.value, dict)
    assert (date.value["original"], date.line_start) == (value, 5)


def test_a_code_run_into_a_date_s_shape_and_an_hour_after_a_year_are_no_date() -> None:
    # a product code "HC03-7 - 15" is no date; "12-01-19 21:13" is the 12th, not the year 1921
    rows = [*TOP, ["HC03-7 - 15"], ["TOTAL", "RM 33.90"], *PAID, ["12-01-19 21:13 SH01 ZK09"]]
    date = read(receipt(rows)).fields["date"]
    assert isinstance(date.value, dict)
    assert (date.value["original"], date.value["iso"], date.line_start) == (
        "12-01-19",
        "2019-01-12",
        12,
    )


def test_a_date_run_into_more_than_a_time_is_part_of_a_number() -> None:
    assert find_dates("Ref 18/03/201856") == []
    assert find_dates("Ref 18/03/20185 12") == []


def test_spaces_in_a_text_layers_numbers_are_not_closed_up() -> None:
    assert [d.value["original"] for d in find_dates("Ref 1 1/01/2019")] == ["1/01/2019"]
    assert [d.written for d in spaced_dates("Ref 1 1/01/2019")] == ["11/01/2019"]


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("05Mar201818:24", "2018-03-05"),
        ("12 Mar2018 18:19", "2018-03-12"),
        ("5MAR2018", "2018-03-05"),
        ("Date: 18/03/20185:41:06", "2018-03-18"),
        ("18.03.201821:28 0001", "2018-03-18"),
        # a day, a month's name and a year, one separator throughout; a year written first
        ("02/JAN/2017 10:49:25", "2017-01-02"),
        ("24-MAR-2018 03:44:22 PM", "2018-03-24"),
        ("30 DEC 17", "2017-12-30"),
        ("2003 CLOSED 24 MAR 18 09:58:26 PM", "2018-03-24"),
        ("DATE : 2018/02/22 13 : 34 : 14", "2018-02-22"),
    ],
)
def test_a_tills_run_together_or_month_named_date_is_a_date(text: str, iso: str) -> None:
    assert [d.value["iso"] for d in find_dates(text)] == [iso]


@pytest.mark.parametrize("text", ["12 Mar 18:30", "1-Mar/18", "24 MAR 183", "MI11/3-21 - 12/480"])
def test_a_month_name_before_a_time_or_mixed_separators_is_no_date(text: str) -> None:
    assert find_dates(text) == []


@pytest.mark.parametrize("text", ["MI11/3-21 - 12/480", "DD: 25/10/20:7", "SKU 4/1 2/18-7"])
def test_a_date_shape_glued_into_a_longer_figure_is_no_date_even_spaced(text: str) -> None:
    # an item's code read with OCR's spaces, or a year OCR misread into "20:7"
    assert spaced_dates(text) == []


def test_a_period_printed_on_the_slip_is_not_the_date_of_the_sale() -> None:
    # a promotion's period above the sale's date: the date is the sale's, the period no rival
    rows = [*TOP, ["PROMO 24 NOVEMBER 2017 - 4 MARCH 2018"], ["TOTAL", "RM 33.90"], *PAID]
    date = read(receipt([*rows, ["14-01-2018 (Sun) 16:02"]])).fields["date"]
    assert isinstance(date.value, dict)
    assert (date.value["iso"], date.quote, date.status) == (
        "2018-01-14",
        "14-01-2018",
        Status.VERIFIED,
    )


def test_a_run_together_date_line_ends_the_address() -> None:
    rows = [["UNIHAKKA INTERNATIONAL SDN BHD"], ["05Mar201818:24"], ["(867388-U)"]]
    rows += [["12, JALAN TAMPOI 7/4, 81200 JOHOR BAHRU"], ["TAX INVOICE"], ["TOTAL", "8.20"]]
    address = read(receipt(rows)).fields["address"]
    assert (address.value, address.line_start) == ("12, JALAN TAMPOI 7/4, 81200 JOHOR BAHRU", 4)


@pytest.mark.parametrize("number", ["BR N0.: 0195932-X", "(C0-Reg-:860671-D)"])
def test_a_registration_number_read_with_a_zero_for_an_o_is_no_part_of_the_address(
    number: str,
) -> None:
    rows = [TOP[0], [number], TOP[2], ["GST ID. N0: 000181747712"], ["TOTAL", "RM 33.90"], *PAID]
    address = read(receipt(rows)).fields["address"]
    assert (address.value, address.line_start, address.line_end) == (TOP[2][0], 3, 3)


@pytest.mark.parametrize("tax_id", ["GST 10 : 002017394688", "GST 1D: 000181747712"])
def test_a_tax_id_whose_label_ocr_read_as_a_number_ends_the_address(tax_id: str) -> None:
    rows = [*TOP[:3], [tax_id], ["SHOPPING HOURS"], ["TOTAL", "RM 33.90"], *PAID]
    address = read(receipt(rows)).fields["address"]
    assert (address.value, address.line_start, address.line_end) == (TOP[2][0], 3, 3)


def test_an_ocr_address_that_shows_a_misreading_goes_to_review() -> None:
    rows = [TOP[0], TOP[1], ["L0T 1851-A, JALAN KPB 6, 43300 SERI KEMBANGAN"], TOP[3]]
    address = read(receipt([*rows, ["TOTAL", "RM 33.90"], *PAID])).fields["address"]
    assert address.value == "L0T 1851-A, JALAN KPB 6, 43300 SERI KEMBANGAN"
    review(address, "line 3 was read by OCR and 'L0T' has a zero between letters")


def test_an_ocr_name_whose_company_form_is_misread_goes_to_review() -> None:
    rows = [["WARAKUYA PERMAS CITY SON BHD"], *TOP[1:], ["TOTAL", "RM 33.90"], *PAID]
    company = read(receipt(rows)).fields["company"]
    assert company.value == "WARAKUYA PERMAS CITY SON BHD"
    review(
        company,
        "line 1 was read by OCR and 'SON BHD' is one letter from the company form 'SDN BHD'",
    )


@pytest.mark.parametrize(
    ("text", "sign"),
    [
        ("ACME SDN BHO (12345-X)", "'SDN BHO' is one letter from the company form 'SDN BHD'"),
        ("GLOBAL PARTS LIMlTED", "'LIMlTED' is one letter from the company form 'LIMITED'"),
        ("KEDAI RUNCIT MAJU SDN BHD", ""),
        ("KEDAI RUNCIT MAJU SDN. BHD.", ""),
        ("AEON CO. (M) BHD", ""),
        ("ACME LTO", ""),  # one letter from a short form is too often a word: not looked for
        ("NO 12, JALAN MAWAR 3", ""),
    ],
)
def test_a_company_form_one_letter_off_is_a_sign_of_misreading(text: str, sign: str) -> None:
    assert form_misread(text) == sign


def test_a_speck_under_an_empty_address_label_is_no_address() -> None:
    # the customer's "Name" and "Address" labels, left blank, and a speck OCR read as "B"
    rows = [*TOP, ["Name", "CASH"], ["Address"], ["B"], ["TOTAL", "RM 33.90"], *PAID]
    result = read(receipt(rows))
    assert result.fields["address"].value == "NO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU"


def test_the_same_text_in_a_text_layer_is_what_the_document_says() -> None:
    text = "KEDAI RUNCIT MAJU SDN BHD\n(654321-K)\nL0T 1851-A, JALAN KPB 6, 43300 SERI KEMBANGAN\n"
    address = read_text(text + "TEL: 07-355 1234\nTOTAL: 33.90\n").fields["address"]
    assert (address.value, address.status) == (
        "L0T 1851-A, JALAN KPB 6, 43300 SERI KEMBANGAN",
        Status.VERIFIED,
    )


def test_ocr_spacing_is_taken_out_of_the_name_and_the_quote_keeps_the_line() -> None:
    rows = [["MR D . I . Y . (JOHOR) SDN BHD"], ["(CO.REG:933109-X)"]]
    rows += [["LOT 1851-A , JALAN KPB 6 , 43300 SERI KEMBANGAN"], TOP[3], ["TOTAL", "9.00"]]
    result = read(receipt([*rows, ["ITEM", "9.00"]]))
    company, address = result.fields["company"], result.fields["address"]
    assert (company.value, company.quote) == (
        "MR D.I.Y. (JOHOR) SDN BHD",
        "MR D . I . Y . (JOHOR) SDN BHD",
    )
    assert company.status is Status.VERIFIED, company.reasons
    assert address.value == "LOT 1851-A, JALAN KPB 6, 43300 SERI KEMBANGAN"
    assert address.status is Status.VERIFIED, address.reasons


@pytest.mark.parametrize(
    ("text", "closed"),
    [
        ("RM 33 .92", "RM 33.92"),
        ("TOTAL 73. 00", "TOTAL 73.00"),
        ("RM 30 .9 1", "RM 30.91"),
        ("- RM 0 . 0 1", "- RM 0.01"),
        ("1 15.00", "1 15.00"),  # a quantity and a price stay two numbers
    ],
)
def test_closed_up_takes_ocr_spaces_out_of_amounts(text: str, closed: str) -> None:
    got, at = closed_up(text)
    assert got == closed
    assert "".join(text[i] for i in at[:-1]) == got and at[-1] == len(text)


@pytest.mark.parametrize(
    ("text", "sign"),
    [
        ("L0T 1851-A", "'L0T' has a zero between letters"),
        ("HAI-0 RAYA BHD", "'HAI-0' has a zero closing a word of letters"),
        ("HAI-0, KLANG", "'HAI-0,' has a zero closing a word of letters"),
        # a unit's number and an amount keep their zeros
        ("LOT A-0-1, JALAN SR-0/2, RM-0.16", ""),
        ("JOHOR 8120o", "'8120o' has a letter O inside a number"),
        ("MR D.I.Y. （H) SDN BHD", "'（H)' has a full-width CJK mark"),
        ("URBAN 1DEA SDN BHD", "'1DEA' has a one among its letters, where print has an I or an l"),
        ("HQ: 7, J1n SS21/34", "'J1n' has a one among its letters, where print has an I or an l"),
        # an ordinal, a unit, a block and a code keep their ones
        ("S117, K3-113, U13/X, NO.59, 1ST FLOOR, NO. 20-A1, 1A/3, L1", ""),
    ],
)
def test_misread_names_the_sign(text: str, sign: str) -> None:
    assert misread(text) == sign


def test_a_marked_letter_in_a_name_on_a_slip_with_no_other_goes_to_review() -> None:
    rows = [["LIM SENG THO HARDWARÉ TRADING"], ["(001451637-M)"], *TOP[2:]]
    company = read(receipt([*rows, ["TOTAL", "RM 33.90"], *PAID])).fields["company"]
    assert company.value == "LIM SENG THO HARDWARÉ TRADING"
    review(company, "'HARDWARÉ' has a letter with a mark, where no other line of the slip has one")


def test_a_marked_name_on_a_slip_that_writes_accents_elsewhere_stands() -> None:
    rows = [["BRASSERIE DU MARCHÉ SARL"], ["(654321-K)"], *TOP[2:], ["2 CAFÉ CRÈME", "8.00"]]
    company = read(receipt([*rows, ["TOTAL", "8.00"], ["ESPÈCES", "10.00"]])).fields["company"]
    assert (company.value, company.status) == ("BRASSERIE DU MARCHÉ SARL", Status.VERIFIED)


def test_tidied_sets_spaces_as_print_does() -> None:
    assert (
        tidied("S.H.H. MOTOR ( SUNGAI RENGIT ) SDN. BHD.")
        == "S.H.H. MOTOR (SUNGAI RENGIT) SDN. BHD."
    )
    assert tidied("A. B. SMITH") == "A. B. SMITH"  # initials spaced only after the dot stay


def test_the_bench_cache_gives_back_the_line_table_it_stored(tmp_path: Path) -> None:
    document = receipt([*TOP, ["TOTAL", "RM 33.90"]])
    stored = tmp_path / "000.auto.json"
    save_document(document, stored, "ab" * 32, "auto")
    again = load_document(stored, "ab" * 32)
    assert again is not None
    assert again.lines.to_dict("records") == document.lines.to_dict("records")
    assert again.pages.equals(document.pages)
    assert load_document(stored, "cd" * 32) is None  # another image: read again
    body = json.loads(stored.read_text())
    for row in body["lines"]:
        del row["role"]
    stored.write_text(json.dumps(body))
    assert load_document(stored, "ab" * 32) is None  # stored before a column was added: again
    assert json.loads(stored.read_text())["engine"] == "auto"


# -- a photo that cuts its lines off at the left edge ---------------------------------------------


def test_a_total_at_the_photos_edge_goes_to_review_unless_what_was_paid_confirms_it() -> None:
    """ "SUB TOTAL 33.90" cut to "TOTAL 33.90" reads as the total, and the items print the
    same figure; cash less change is a reading of its own and settles it."""
    rows = [*TOP, ["ITEM A", "33.90"], ["TOTAL", "33.90"]]
    total = read(receipt(rows, left=2.0)).fields["total"]
    assert total.value == "33.90"
    review(total, "runs to the left edge of the image")
    assert read(receipt(rows)).fields["total"].status is Status.VERIFIED
    paid = read(receipt([*rows, *PAID], left=2.0)).fields["total"]
    assert paid.status is Status.VERIFIED, paid.reasons


def test_a_date_at_the_photos_edge_goes_to_review() -> None:
    """ "19/10/2018" cut to "9/10/2018" is as good a date."""
    rows = [*TOP, ["9/10/2018 20:49"], ["TOTAL", "33.90"], *PAID]
    date = read(receipt(rows, left=2.0)).fields["date"]
    assert date.value["iso"] == "2018-10-09"
    review(date, "line 5 runs to the left edge of the image")
    assert read(receipt(rows)).fields["date"].status is Status.VERIFIED


def test_a_summary_row_whose_second_amount_ocr_spaced_is_still_a_tables_row() -> None:
    """The tax summary's "TOTAL : 80.91 0 .00" (amount, tax), its heading lost: "0 .00" is an
    amount as the engine spaced it, so the row prints two and is no receipt total."""
    rows = [*TOP, ["ITEM A", "80.91"], ["Total :", "80.91", "0 .00"]]
    total = read(receipt(rows)).fields["total"]
    assert total.value == "80.91"
    review(total, "the row of line 8 prints several amounts (0.00, 80.91)", "a table's row")


def test_a_day_run_into_its_month_name_is_read_and_verified() -> None:
    """ "12 Mar 2018" as an engine reads it now and then: before, "Mar 2018" alone was taken."""
    rows = [*TOP, ["12Mar 2018 18:19"], ["TOTAL", "RM 33.90"], *PAID]
    date = read(receipt(rows)).fields["date"]
    assert date.value["iso"] == "2018-03-12"
    assert date.status is Status.VERIFIED, date.reasons


@pytest.mark.parametrize("cells", [[["Total (Excluding GST):"], ["10. 75"]], [["Total: 10. 75"]]])
def test_an_amount_ocr_spaced_after_a_label_is_read_whole(cells: list[list[str]]) -> None:
    """Not 10 and a stray "75": read by the label, "10. 75" is 10.75, quoted as read."""
    rows = [*TOP, ["ITEM A", "179.25"], *cells, ["GST Payable:"], ["190.00"]]
    total = read(receipt(rows)).fields["total"]
    assert (total.value, total.quote.endswith("10. 75")) == ("10.75", True)


def test_an_amount_read_by_a_label_that_names_a_part_of_the_total_goes_to_review() -> None:
    """No line names the whole total: the amount beside "Total (Excluding GST):" is what a
    label reads, and the same figure on the item line does not make it the amount paid."""
    rows = [*TOP, ["ITEM A", "10.75"], ["Total (Excluding GST):", "10.75"], ["GST 6%", "0.65"]]
    total = read(receipt(rows)).fields["total"]
    assert total.value == "10.75"
    review(total, "its label on line 7 ('Total (Excluding GST):') names a part of the total")


@pytest.mark.parametrize("label", ["Total 0% supplies:", "Total Zero Rated:"])
def test_a_tax_summarys_row_is_no_total_to_verify(label: str) -> None:
    """The total's line lost: a tax summary's row gives only a part of the total, so it is no
    total, even where the same figure is printed on an item line."""
    rows = [*TOP, ["ITEM A", "39.40"], [label, "39.40"]]
    total = read(receipt(rows)).fields["total"]
    assert (total.value, total.status) == (None, Status.NOT_FOUND)


def test_a_total_that_includes_its_tax_at_a_rate_is_the_total() -> None:
    rows = [*TOP, ["ITEM A", "8.49"], ["TOTAL INCLUDES GST 6%", "9.00"], *PAID_9]
    total = read(receipt(rows)).fields["total"]
    assert (total.value, total.status) == ("9.00", Status.VERIFIED)


def test_a_day_whose_digits_ocr_read_apart_is_read_whole_and_verified() -> None:
    """ "1 7 JAN 2018": before, the "1" was left over and 7 January verified."""
    rows = [*TOP, ["1 7 JAN 2018"], ["TOTAL", "RM 33.90"], *PAID]
    date = read(receipt(rows)).fields["date"]
    assert (date.value["iso"], date.quote) == ("2018-01-17", "1 7 JAN 2018")
    assert date.status is Status.VERIFIED, date.reasons


def test_a_month_and_year_alone_as_the_date_of_sale_goes_to_review() -> None:
    rows = [*TOP, ["PROMO MAR 2018"], ["TOTAL", "RM 33.90"], *PAID]
    date = read(receipt(rows)).fields["date"]
    assert date.value["iso"] == "2018-03-01"
    review(date, "line 5 gives only a month and year ('MAR 2018')", "dated to the day")


@pytest.mark.parametrize("cells", [["Date", "25/12/20 18"], ["Date: 25/12/20 18"]])
def test_a_labelled_date_whose_year_ocr_spaced_is_read_whole(cells: list[str]) -> None:
    """Not 25 December 2020 and a stray "18": the year the engine parted is 2018."""
    rows = [*TOP, cells, ["TOTAL", "RM 33.90"], *PAID]
    date = read(receipt(rows)).fields["date"]
    assert date.value["iso"] == "2018-12-25"
    assert date.status is Status.VERIFIED, date.reasons


@pytest.mark.parametrize(("year", "verified"), [("2018", True), ("2013", False)])
def test_an_ocr_date_is_read_again_by_the_weekday_on_its_line(year: str, verified: bool) -> None:
    # as RapidOCR reads a parking slip: the weekday on the date's line, spaced in its brackets
    fields = read(receipt([*TOP, [f"14-01-{year} (Sun ) 16:02"], ["TOTAL", "RM 9.00"]])).fields
    if verified:
        assert fields["date"].status is Status.VERIFIED, fields["date"].reasons
    else:
        review(fields["date"], "beside Sun", "14 January 2013 is a Monday")


def test_a_quote_never_starts_inside_a_word_so_verification_finds_it() -> None:
    # a label OCR ran into its date, and a currency glued to the amount cash less change gives:
    # each was quoted from inside its word ("14/03/2018", "41.45"), which no line holds as a
    # word, and came back unsupported
    rows = [*TOP, ["Date14/03/2018 10:22"], ["SUBTOTAL RM41.45"], ["CASH", "51.50"]]
    fields = read(receipt([*rows, ["CHANGE", "10.05"]])).fields
    assert fields["date"].status is Status.VERIFIED, fields["date"].reasons
    assert fields["date"].quote == "Date14/03/2018"
    assert fields["total"].quote == "RM41.45"
    review(fields["total"], "cash 51.50 (line 7) less change 10.05 (line 9) is 41.45")
