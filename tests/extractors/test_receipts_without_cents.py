"""Slips in a currency a till prints without cents (rupiah, dong, won, yen, Rwandan francs):
the rules backend reads them as receipts, their cash and change in whole amounts to confirm or
contradict the total, their currency's symbol beside the number, its country's day/month order,
and the words and dates of Vietnamese, Japanese and Korean tills."""

from __future__ import annotations

import pytest
from receipt_cells import read, receipt
from receipt_cells import read_typed as _run

from evidex.extractors.llm.rules.dates import find_dates
from evidex.extractors.llm.rules.lines import Lines
from evidex.extractors.llm.rules.money import parse_amount
from evidex.extractors.llm.rules.payment import payment, row_cells
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.verify.readings import open_dates
from evidex.schemas import FieldResult, Result, Status, schema_from_json


def _total(result: Result) -> tuple[float | None, str | None, Status]:
    field = result.fields["total"]
    value = field.value if isinstance(field.value, dict) else {}
    return value.get("value"), value.get("currency"), field.status


MINIMARKET = (
    "TOKO SERBA ADA\nJL. RAYA BOGOR KM 30\nDEPOK 16451\n12.03.2025-18:22 KASIR 01\n"
    "AQUA 600ML 2 3.500 7.000\nROTI TAWAR 1 15.900 15.900\n"
)


def test_a_slip_without_cents_or_currency_mark_is_read_as_a_receipt() -> None:
    result = _run(MINIMARKET + "TOTAL : 22.900\nTUNAI : 50.000\nKEMBALI : 27.100\n")
    assert result.fields["company"].value == "TOKO SERBA ADA"
    assert result.fields["date"].value == {"iso": "2025-03-12", "original": "12.03.2025"}
    assert _total(result) == (22900.0, None, Status.VERIFIED)


def test_whole_cash_less_change_that_disagrees_sends_the_total_to_review() -> None:
    total = _run(MINIMARKET + "TOTAL : 22.900\nTUNAI : 50.000\nKEMBALI : 17.100\n").fields["total"]
    assert total.status is Status.NEEDS_REVIEW
    assert total.reasons[0] == (
        "cash 50000 (line 8) less change 17100 (line 9) is 32900, not the 22900 read as the total"
    )


def test_a_slip_with_cents_reads_no_whole_figures() -> None:
    text = "CORNER DELI\n12 Main St\nSANDWICH 7.50\nTOTAL 7.50\nCASH 10\nCHANGE 3\n"
    rows = Lines(TextParser().parse(text.encode(), "slip.txt")).rows
    assert payment(rows, row_cells(rows)).paid is None
    assert _total(_run(text)) == (7.5, None, Status.VERIFIED)


@pytest.mark.parametrize(
    ("text", "paid"),
    [
        ("CASH 10,000\nCHANGE 3,700\n", 6300.0),
        ("Tunai Rp 100.000\nKembalian Rp 31.800\n", 68200.0),
        ("Cash ¥1,000\nChange ¥247\n", 753.0),
        ("Tien khach dua: 200.000\nTien thua: 55.000\n", 145000.0),
        ("お預り ¥500\nお釣り ¥200\n", 300.0),
        ("EFECTIVO $10.000\nVUELTO $1.230\n", 8770.0),
    ],
    ids=["rwanda", "indonesia", "japan", "vietnam", "japanese", "chile"],
)
def test_whole_cash_and_change_are_read(text: str, paid: float) -> None:
    rows = Lines(TextParser().parse(text.encode(), "slip.txt")).rows
    found = payment(rows, row_cells(rows), whole=True).paid
    assert found is not None and found[0] == paid, found


def test_a_time_is_no_whole_amount() -> None:
    rows = Lines(TextParser().parse(b"CASH 18:22\nCHANGE 2\n", "slip.txt")).rows
    assert payment(rows, row_cells(rows), whole=True).paid is None


def test_an_ocr_read_whole_total_is_confirmed_by_cash_less_change() -> None:
    rows = [
        ["SIMBA SUPERMARKET LTD"],
        ["KN 4 Ave, Kigali"],
        ["Date: 14/09/2026 18:05"],
        ["Bread", "1,200"],
        ["TOTAL RWF", "6,300"],
        ["CASH", "10,000"],
        ["CHANGE", "3,700"],
    ]
    total = read(receipt(rows)).fields["total"]
    assert (total.value, total.status) == ("6,300", Status.VERIFIED), total.reasons
    rows[-1] = ["CHANGE", "3,500"]
    total = read(receipt(rows)).fields["total"]
    assert total.status is Status.NEEDS_REVIEW
    assert "less change 3500 (line 10) is 6500, not the 6300" in total.reasons[0], total.reasons


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        ("₩5,600", 5600.0, "KRW"),
        ("Rp 68.200", 68200.0, "IDR"),
        ("Rp. 25.000", 25000.0, "IDR"),
        ("125.000đ", 125000.0, "VND"),
        ("₹1,250.50", 1250.5, "INR"),
        ("12,00 €", 12.0, "EUR"),
    ],
)
def test_a_currencys_own_symbol_is_read_beside_the_amount(
    text: str, value: float, currency: str
) -> None:
    found = parse_amount(text, 0)
    assert found is not None and found.value == {"value": value, "currency": currency}
    assert (found.start, found.end) == (0, len(text))


def test_rupiah_settle_a_day_first_date() -> None:
    text = "WARUNG KOPI SENJA\nJl. Kemang Raya No. 8\nTanggal: 05/02/2025 14:10\n"
    result = _run(text + "Es Kopi 2 x Rp 22.000 Rp 44.000\nTotal Rp 44.000\nTunai Rp 50.000\n")
    date = result.fields["date"]
    assert (date.value, date.status) == (
        {"iso": "2025-02-05", "original": "05/02/2025"},
        Status.VERIFIED,
    ), date.reasons
    assert date.reasons == ["read day-first: the document prints Rp (IDR)"]
    assert _total(result) == (44000.0, "IDR", Status.VERIFIED)


def test_a_vietnamese_slip_totals_under_tong_cong() -> None:
    text = "CONG CAPHE\n152 Trung Hoa, Cau Giay, Ha Noi\nNgay: 22/06/2025 09:41\n"
    text += "Banh mi 1 35.000 35.000\nTổng tiền hàng: 180.000\nGiảm giá: 35.000\n"
    result = _run(text + "Tổng cộng: 145.000\nTiền khách đưa: 200.000\nTiền thừa: 55.000\n")
    assert result.fields["company"].value == "CONG CAPHE"
    assert _total(result) == (145000.0, None, Status.VERIFIED)


def test_a_japanese_slip_reads_its_total_and_its_date() -> None:
    text = "Lawson\n2025年 7月 3日(木) 12:15\nおにぎり ¥150\nお茶 ¥128\n小計 ¥278\n"
    result = _run(text + "合計 ¥300\nお預り ¥500\nお釣り ¥200\n")
    date = result.fields["date"]
    assert (date.value, date.status) == (
        {"iso": "2025-07-03", "original": "2025年 7月 3日"},
        Status.VERIFIED,
    ), date.reasons
    assert _total(result) == (300.0, "JPY", Status.VERIFIED)


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("2025.07.03 12:00", "2025-07-03"),  # not the 25th of July 2003
        ("2025년 7월 3일", "2025-07-03"),
        ("2025年7月3日", "2025-07-03"),
    ],
)
def test_year_first_dates_are_read_by_the_finder_and_the_verifier(text: str, iso: str) -> None:
    assert [d.value["iso"] for d in find_dates(text)] == [iso]
    assert {d.isoformat() for d in open_dates(text, None)[0]} == {iso}


@pytest.mark.parametrize("text", ["Ver 2018.1.2", "2025.07.031"])
def test_a_version_or_a_longer_figure_is_no_year_first_date(text: str) -> None:
    assert find_dates(text) == []
    assert open_dates(text, None)[0] == set()


@pytest.mark.parametrize("text", ["1.2025.07.03", "112.03.2025", "5.12.03.2025"])
def test_no_date_is_read_out_of_a_longer_dotted_figure(text: str) -> None:
    assert find_dates(text) == []


def _model_total(text: str, value: float, line: int) -> FieldResult:
    schema = schema_from_json({"type": "object", "properties": {"total": {"type": "number"}}})
    quote = text.splitlines()[line - 1]
    said = {"value": {"value": value, "currency": None}, "quote": quote, "page": 1}
    answer = build_answer(schema, {"total": {**said, "line_start": line, "line_end": line}})
    document = TextParser().parse(text.encode(), "receipt.txt")
    return extract_parsed(document, schema, llm=ScriptedLLM(answer)).fields["total"]


def test_a_models_decimal_reading_of_a_whole_slips_thousands_goes_to_review() -> None:
    text = MINIMARKET + "TOTAL : 22.900\nTUNAI : 50.000\nKEMBALI : 27.100\n"
    wrong = _model_total(text, 22.9, 7)
    assert wrong.status is Status.NEEDS_REVIEW
    assert wrong.reasons[0] == (
        "the document prints every amount whole (none with cents), so 22.900 is 22900, not 22.9"
    )
    assert _model_total(text, 22900, 7).status is Status.VERIFIED


@pytest.mark.parametrize(
    "text",
    [
        "FUEL STOP\nDIESEL 32.200 L\nTOTAL 46.98\n",  # a slip with cents: litres to three places
        "KUWAIT STORE\nITEM KWD 1.250\nITEM 2.000\nTOTAL 3.250\n",  # dinars have three decimals
    ],
)
def test_three_decimals_stand_where_the_slip_prints_cents_or_a_three_decimal_currency(
    text: str,
) -> None:
    line = len(text.splitlines())
    value = float(text.splitlines()[-1].split()[-1])
    assert _model_total(text, value, line).status is Status.VERIFIED
