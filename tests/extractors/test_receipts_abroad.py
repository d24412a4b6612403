"""Receipts printed outside Malaysia and in other languages: the rules backend finds the total
by the word the till prints for it (SUMME, TOTALE, TOTAAL, NET À PAYER), checks it against
cash less change as the till names them (GEG. BAR / RÜCKGELD, CONTANTI / RESTO), reads a slip
whose currency prints no cents, and settles a date's order by the country's address and tax."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from receipt_cells import read, receipt
from receipt_cells import read_typed as _run

from bench import receipt_texts
from evidex.extractors.llm.rules.lines import Lines
from evidex.extractors.llm.rules.payment import payment, row_cells
from evidex.extractors.llm.rules.total_labels import names_a_part
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import FieldResult, Result, Status, schema_from_json


def _amount(result: Result) -> float:
    value = result.fields["total"].value
    number = value.get("value") if isinstance(value, dict) else value
    assert isinstance(number, (int, float)), result.fields["total"]
    return float(number)


BAKERY = (
    "Bäckerei Sonnenschein GmbH\nLindenstraße 8\n50674 Köln\nTel. 0221 123456\n"
    "Brezel 2 x 0,80 1,60 A\nKaffee 2,40 B\n"
)


def test_a_german_slip_totals_under_summe_and_cash_less_change_confirms_it() -> None:
    text = BAKERY + "ZWISCHENSUMME 4,00\nSUMME EUR 4,00\nGeg. BAR EUR 5,00\nRückgeld EUR 1,00\n"
    result = _run(text + "MwSt 19% 0,38\nDatum 03.11.2026 08:15\n")
    total = result.fields["total"]
    assert (_amount(result), total.status) == (4.0, Status.VERIFIED), total.reasons
    assert result.fields["company"].value == "Bäckerei Sonnenschein GmbH"
    assert result.fields["address"].value == "Lindenstraße 8 50674 Köln"
    assert result.fields["date"].value == {"iso": "2026-11-03", "original": "03.11.2026"}


def test_a_german_total_that_cash_less_change_contradicts_goes_to_review() -> None:
    text = BAKERY + "SUMME EUR 4,00\nGeg. BAR EUR 5,00\nRückgeld EUR 0,50\n"
    total = _run(text).fields["total"]
    assert _amount(_run(text)) == 4.0
    assert total.status is Status.NEEDS_REVIEW
    assert "cash 5.00 (line 8) less change 0.50 (line 9) is 4.50" in total.reasons[0]


@pytest.mark.parametrize(
    ("lines", "amount"),
    [
        ("Totale complessivo 12,40\nPagamento contante 20,00\nResto 7,60\n", 12.4),
        ("Totaal 8,43\nPinnen 8,43\nBTW 9% 0,70\n", 8.43),
        ("Total HT 13,18\nTVA 10% 1,32\nNet à payer 14,50\nEspèces 20,00\nRendu 5,50\n", 14.5),
        (
            "Base imponible 6,82\nIVA 10% 0,68\nTOTAL A PAGAR 7,50\nEfectivo 8,00\nCambio 0,50\n",
            7.5,
        ),
        ("ARA TOPLAM 100,00\nKDV 8,00\nTOPLAM 108,00\nNAKİT 110,00\nPARA ÜSTÜ 2,00\n", 108.0),
    ],
    ids=["italian", "dutch", "french", "spanish", "turkish"],
)
def test_a_total_is_read_by_the_word_its_language_prints(lines: str, amount: float) -> None:
    text = "CAFFÈ CENTRALE\nVia Garibaldi 4\n10122 Torino\nCaffè 1,20\n" + lines
    result = _run(text)
    total = result.fields["total"]
    assert (_amount(result), total.status) == (amount, Status.VERIFIED), total.reasons
    assert result.fields["company"].value == "CAFFÈ CENTRALE"


@pytest.mark.parametrize(
    "label",
    ["Total HT", "ZWISCHENSUMME", "Sous-total", "ARA TOPLAM", "SUMME MWST", "Rückgeld", "Resto"],
)
def test_a_part_of_the_total_in_another_language_is_no_total(label: str) -> None:
    assert names_a_part(f"{label} 13,18")


@pytest.mark.parametrize(
    ("text", "paid"),
    [
        ("Geg. BAR EUR 10,00\nRückgeld EUR 3,98\n", 6.02),
        ("BAR 10,00\nRiickgeld 3,98\n", 6.02),  # "ü" as an engine reads it
        ("Espèces 20,00\nRendu 5,50\n", 14.5),
        ("Pagamento contante 5,00\nResto 2,30\n", 2.7),
        ("Efectivo 10,00\nCambio 2,50\n", 7.5),
        ("Dinheiro 20,00\nTroco 4,10\n", 15.9),
        ("TUNAI 100.00\nKEMBALIAN 12.50\n", 87.5),
    ],
)
def test_cash_and_change_are_read_in_the_tills_language(text: str, paid: float) -> None:
    rows = Lines(TextParser().parse(text.encode(), "slip.txt")).rows
    found = payment(rows, row_cells(rows)).paid
    assert found is not None and found[0] == paid, found


def test_a_slip_whose_currency_prints_no_cents_is_read_as_a_receipt() -> None:
    text = "SAKURA MART\n1-2-3 Dogenzaka, Shibuya\n2026/09/20 07:48\nOnigiri ¥160\nTea ¥140\n"
    result = _run(text + "Total ¥300\nCash ¥1,000\nChange ¥700\n")
    assert result.fields["company"].value == "SAKURA MART"
    date = result.fields["date"]
    assert (date.value, date.status) == (
        {"iso": "2026-09-20", "original": "2026/09/20"},
        Status.VERIFIED,
    )


US_TOP = "PACIFIC HARDWARE\n300 Castro St\nMountain View, CA 94041\n(650) 555-0100\n"


def test_a_us_address_settles_a_month_first_date() -> None:
    result = _run(US_TOP + "03/08/2026 1:15 PM\nTAPE 4.49\nTOTAL 4.49\nDEBIT 4.49\n")
    date = result.fields["date"]
    assert (date.value, date.status) == (
        {"iso": "2026-03-08", "original": "03/08/2026"},
        Status.VERIFIED,
    ), date.reasons
    address = result.fields["address"]
    assert (address.value, address.status) == (
        "300 Castro St Mountain View, CA 94041",
        Status.VERIFIED,
    ), address.reasons


def test_a_return_by_date_is_not_the_date_of_the_sale() -> None:
    text = US_TOP + "TAPE 4.49\nTOTAL 4.49\nRETURNS WITH RECEIPT BY 11/24/2026\n08/30/2026\n"
    date = _run(text).fields["date"]
    assert date.value == {"iso": "2026-08-30", "original": "08/30/2026"}
    assert date.status is Status.VERIFIED, date.reasons


def test_a_street_line_at_the_top_is_not_taken_for_the_merchant() -> None:
    text = "2025 El Camino Real\nMountain View, CA 94040\n(650) 555-0100\nSOAP 3.49\nTOTAL 3.49\n"
    assert _run(text).fields["company"].status is Status.NOT_FOUND


def test_a_line_after_an_address_ending_in_its_zip_code_leaves_the_address_to_review() -> None:
    text = "MINT COFFEE\n66 Mint St\nSan Francisco, CA 94103\nFerry Plaza Kiosk\n"
    address = _run(text + "(415) 555-0123\nLatte 6.25\nTotal $6.25\n").fields["address"]
    assert address.status is Status.NEEDS_REVIEW
    assert "line 3 ends the address with its region or country" in address.reasons[0]


@pytest.mark.parametrize(
    ("top", "address"),
    [
        (
            "MINT COFFEE\n66 Mint St\nSan Francisco, CA 94103\nOrder #4471  Register 2\n",
            "66 Mint St San Francisco, CA 94103",
        ),
        (
            "CORNER DRUGS\nStore 8842\n1100 Broadway, New York, NY 10010\n",
            "1100 Broadway, New York, NY 10010",
        ),
        (
            "HARBOR COFFEE\n1 Ferry Building\nSan Francisco, CA\nCHK 8841\n",
            "1 Ferry Building San Francisco, CA",
        ),
        (
            "BAKMI JAYA\nJl. Letjen S. Parman Kav 21, Jakarta Barat\nNo: 0023451  Meja: 12\n",
            "Jl. Letjen S. Parman Kav 21, Jakarta Barat",
        ),
    ],
    ids=["order-and-register", "store-number", "check-number", "bill-and-table"],
)
def test_a_tills_own_numbers_are_no_part_of_the_address(top: str, address: str) -> None:
    field = _run(top + "(415) 555-0123\nLatte 6.25\nTotal $6.25\n").fields["address"]
    assert (field.value, field.status) == (address, Status.VERIFIED), field.reasons


def test_a_branchs_line_under_the_brand_is_not_taken_for_the_merchant() -> None:
    text = "FamilyMart\nShibuya Dogenzaka Store\nTel 03-1234-5678\n2026/09/20 07:48\n"
    company = _run(text + "Onigiri Salmon ¥160\nTotal ¥160\n").fields["company"]
    assert company.value == "FamilyMart"
    assert company.status is Status.NEEDS_REVIEW  # two names at the top; nothing settles which


def test_a_french_phone_line_closes_the_address() -> None:
    text = "CAFÉ DU PONT\n12 rue de la Paix\n75002 Paris\nTél 01 45 48 55 26\nTable 14\n"
    address = _run(text + "Café 2,50\nTotal TTC 2,50 €\n").fields["address"]
    assert (address.value, address.status) == ("12 rue de la Paix 75002 Paris", Status.VERIFIED)


def test_the_receipt_texts_bench_counts_right_and_wrong_values(tmp_path: Path) -> None:
    (tmp_path / "koeln.txt").write_text(BAKERY + "SUMME EUR 4,00\nDatum 03.11.2026\n", "utf-8")
    (tmp_path / "torino.txt").write_text("CAFFÈ CENTRALE\nVia Garibaldi 4\nTotale 1,20\n", "utf-8")
    keys = {
        "koeln": {"merchant": "Bäckerei Sonnenschein", "total": "4.00", "date": "2026-11-03"},
        "torino": {"merchant": "Caffè Centrale", "total": "2.40", "date": None},
    }
    (tmp_path / "keys.json").write_text(json.dumps(keys), "utf-8")
    tally = receipt_texts.run(tmp_path, show=False)
    assert tally[("merchant", "right verified")] == 2
    assert tally[("total", "right verified")] == 1
    assert tally[("total", "wrong verified")] == 1  # the key says 2.40; the slip prints 1,20
    assert tally[("date", "right verified")] == 1
    assert tally[("date", "not found, no key")] == 1


ADDRESSED = {
    "type": "object",
    "properties": {
        "merchant": {"type": "string"},
        "address": {"type": "string"},
        "date": {"type": "string", "format": "date"},
    },
}


def _fields(text: str) -> dict[str, tuple[object, Status]]:
    result = _run(text, schema_from_json(ADDRESSED))
    return {k: (f.value, f.status) for k, f in result.fields.items()}


def test_a_slogan_a_manager_and_the_tills_numbers_stay_out_of_the_issuer_block() -> None:
    text = (
        "Walmart\nSave money. Live better.\n( 479 ) 273 - 4000\nMANAGER JOHN SMITH\n"
        "702 SW 8TH ST\nBENTONVILLE AR 72716\nST# 05483 OP# 009044 TE# 44 TR# 01301\n"
        "BREAD 2.88 N\nSUBTOTAL 2.88\nTOTAL 2.88\nCASH TEND 5.00\nCHANGE DUE 2.12\n"
        "07/04/25 18:42:07\n"
    )
    fields = _fields(text)
    assert fields["merchant"] == ("Walmart", Status.VERIFIED)
    assert fields["address"][0] == "702 SW 8TH ST BENTONVILLE AR 72716"
    # the ZIP after the state's code, without a comma, settles the order month first
    assert fields["date"] == ({"iso": "2025-07-04", "original": "07/04/25"}, Status.VERIFIED)


def test_item_lines_priced_in_their_currency_are_no_address() -> None:
    text = "TESCO\nCamden Town Express\nBANANAS LOOSE £0.87\nSOURDOUGH LOAF £1.60\nTOTAL £2.47\n"
    assert _fields(text)["address"] == (None, Status.NOT_FOUND)


def test_a_branchs_place_named_again_in_the_address_is_not_the_merchant() -> None:
    text = (
        "Woolworths\nBondi Junction\n500 Oxford St, Bondi Junction NSW 2022\nABN 88 000 014 675\n"
    )
    fields = _fields(text + "Milk $3.10\nTOTAL $3.10\n05/03/2025 09:14\n")
    assert fields["merchant"][0] == "Woolworths"
    assert fields["date"] == ({"iso": "2025-03-05", "original": "05/03/2025"}, Status.VERIFIED)


def test_a_country_before_its_postcode_settles_the_date_order() -> None:
    text = "KOPI CORNER\nBlk 192 Lorong 4 Toa Payoh\nSingapore 310192\nDate: 03/04/2025\n"
    fields = _fields(text + "KOPI 1.80\nTOTAL 1.80\n")
    assert fields["date"] == ({"iso": "2025-04-03", "original": "03/04/2025"}, Status.VERIFIED)


def test_a_slip_that_prints_only_a_card_charge_answers_it_for_review() -> None:
    result = _run("Joe's Food Truck\nBurrito 11.00\nSoda 2.50\nCard 13.50\nThanks!\n")
    assert result.fields["company"].value == "Joe's Food Truck"
    total = result.fields["total"]
    assert (_amount(result), total.status) == (13.5, Status.NEEDS_REVIEW)
    assert total.reasons[0].startswith(
        "no line names the total; 13.50 was charged to a card (line 4)"
    ), total.reasons


CURRENCY = {
    "type": "object",
    "properties": {"total": {"type": "number"}, "currency": {"type": "string"}},
}


def _currency_fields(text: str) -> dict[str, FieldResult]:
    return _run(text, schema_from_json(CURRENCY)).fields


@pytest.mark.parametrize(
    ("top", "code", "why"),
    [
        ("WOOLWORTHS\n500 Oxford St, Bondi Junction NSW 2022\n", "AUD", "Australia (NSW 2022)"),
        ("TIM HORTONS\n100 Queen St W, Toronto ON M5H 2N2\n", "CAD", "Canada (ON M5H 2N2)"),
        ("CADENA COMERCIAL OXXO SA DE CV\nAV. INSURGENTES SUR 1235\n", "MXN", "'SA DE CV'"),
        ("TRADER JOE'S\n1234 Market St\nSan Francisco, CA 94103\n", "USD", "United States"),
    ],
    ids=["sydney", "toronto", "mexico-city", "san-francisco"],
)
def test_a_dollar_sign_is_read_as_the_dollar_of_where_the_slip_is_from(
    top: str, code: str, why: str
) -> None:
    fields = _currency_fields(top + "Coffee $4.61\nTOTAL $4.61\n")
    total, currency = fields["total"], fields["currency"]
    assert (total.value, total.status) == ({"value": 4.61, "currency": code}, Status.VERIFIED)
    assert total.caveat is not None and f"'$' read as {code}: the document" in total.caveat
    assert why in total.caveat
    assert (currency.value, currency.status) == (code, Status.VERIFIED), currency.reasons


def test_a_dollar_sign_on_a_slip_from_nowhere_stays_usd_with_its_caveat() -> None:
    total = _currency_fields("CORNER DELI\nCoffee $4.61\nTOTAL $4.61\n")["total"]
    assert total.value == {"value": 4.61, "currency": "USD"}
    assert total.caveat is not None and "'$' read as USD" in total.caveat


def test_a_model_answering_usd_for_a_sydney_slips_dollar_goes_to_review() -> None:
    text = "WOOLWORTHS\n500 Oxford St, Bondi Junction NSW 2022\nTOTAL $4.61\n"
    document = TextParser().parse(text.encode(), "receipt.txt")
    schema = schema_from_json(CURRENCY)
    said = {"value": {"value": 4.61, "currency": "USD"}, "quote": "TOTAL $4.61"}
    answer = build_answer(schema, {"total": {**said, "page": 1, "line_start": 3, "line_end": 3}})
    result = extract_parsed(document, schema, llm=ScriptedLLM(answer))
    total = result.fields["total"]
    assert total.status is Status.NEEDS_REVIEW
    assert total.reasons[0] == "currency USD does not match AUD in the quote"


def test_a_dollar_that_names_its_country_is_its_currency() -> None:
    text = "PADARIA SAO JORGE LTDA\nRUA AUGUSTA 1500\nPAO R$ 6,50\nTOTAL R$ 6,50\n"
    fields = _currency_fields(text + "DINHEIRO R$ 10,00\nTROCO R$ 3,50\n")
    assert (fields["total"].value, fields["total"].status) == (
        {"value": 6.5, "currency": "BRL"},
        Status.VERIFIED,
    )
    assert (fields["currency"].value, fields["currency"].status) == ("BRL", Status.VERIFIED)


def test_a_hungarian_slip_in_whole_forints() -> None:
    text = "SPAR MAGYARORSZAG KFT.\n1061 Budapest, Andrassy ut 12.\nKENYER 450 Ft\nTEJ 389 Ft\n"
    result = _run(text + "OSSZESEN: 839 Ft\nKESZPENZ: 1000 Ft\nVISSZAJARO: 161 Ft\n2025.03.14\n")
    assert result.fields["company"].value == "SPAR MAGYARORSZAG KFT."
    assert result.fields["date"].value == {"iso": "2025-03-14", "original": "2025.03.14"}
    assert (_amount(result), result.fields["total"].status) == (839.0, Status.VERIFIED)


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "COOP\nBahnhofstrasse 57\n8001 Zuerich\nMWST-Nr CHE-116.320.145 MWST\n"
            "Gipfeli 1.60\nTotal CHF 1.60\n",
            "Bahnhofstrasse 57 8001 Zuerich",
        ),
        (
            "BIEDRONKA\nul. Marszalkowska 10, 00-590 Warszawa\nNIP 779-10-11-327\n"
            "Chleb 1 x 4,99 4,99 C\nSUMA PLN 4,99\n",
            "ul. Marszalkowska 10, 00-590 Warszawa",
        ),
    ],
    ids=["swiss-uid", "polish-nip"],
)
def test_another_countrys_tax_number_closes_the_address(text: str, address: str) -> None:
    assert _fields(text)["address"] == (address, Status.VERIFIED)


def test_item_and_total_lines_in_whole_amounts_are_no_address() -> None:
    text = "KOPI KENANGAN\n1 KOPI KENANGAN MANTAN   24,000\nTOTAL   Rp 24,000\nCASH   50,000\n"
    assert _fields(text + "CHANGE   26,000\n")["address"] == (None, Status.NOT_FOUND)


def test_a_malls_line_under_the_brand_is_not_the_merchant() -> None:
    text = "Bakmi GM\nMall Taman Anggrek\nJl. Letjen S. Parman Kav 21, Jakarta Barat\n"
    merchant = _fields(text + "Bakmi Ayam Rp 48.000\nGrand Total Rp 48.000\n")["merchant"]
    assert merchant[0] == "Bakmi GM"


SAFEWAY = (
    "THANK YOU FOR SHOPPING WITH US!\nGROCERY\nBC CHOC CUPCAKES 3.99 B\nRegPrice 4.19\n"
    "Card Savings 1.20-\nMULTIGRAIN CHEERIO 1.50 B\n"
)


@pytest.mark.parametrize("brand", ["SAFEWAY TM", "SAFEWAY™", "SAFEWAY (R)"])
def test_a_trade_marks_sign_after_the_brand_is_no_part_of_the_merchant(brand: str) -> None:
    fields = _fields(f"{brand}\nSTORE MGR TOM MILAZZO 703-777-5833\n" + SAFEWAY)
    assert fields["merchant"][0] == "SAFEWAY"
    # the store manager's line is the staff's, not an address: the slip prints none
    assert fields["address"] == (None, Status.NOT_FOUND)


def test_a_trade_marks_sign_on_the_brands_row_is_no_part_of_the_merchant() -> None:
    # OCR reads the small "TM" over the logo's end as a cell of the brand's row
    doc = receipt(
        [
            ["SAFEWAY", "TM"],
            ["STORE MGR TOM MILAZZO 703-777-5833"],
            *[[t] for t in SAFEWAY.split("\n") if t],
        ]
    )
    assert read(doc).fields["company"].value == "SAFEWAY"


def test_what_a_loyalty_card_saved_is_no_card_payment() -> None:
    # "Card Savings 1.20-" is a discount: no amount was charged to a card, no total is printed
    result = _run("SAFEWAY\n" + SAFEWAY)
    assert result.fields["total"].status is Status.NOT_FOUND, result.fields["total"]
    assert result.fields["company"].value == "SAFEWAY"


def test_a_house_number_opening_the_address_is_no_postcode() -> None:
    text = (
        "CHO\nEUN\nKOREAN RESTAURANT\n2621 ORANGETHORPE AVE,FULLERTON.\n(714) 879-3574\n"
        "DATE 12/30/2016 FRI\nLA BEEF RIB T1 $17.99\nSUBTOTAL $17.99\nTAX1 $1.44\nTOTAL $19.43\n"
    )
    address = _run(text, schema_from_json(ADDRESSED)).fields["address"]
    assert (address.value, address.status) == (
        "2621 ORANGETHORPE AVE,FULLERTON.",
        Status.VERIFIED,
    ), address.reasons


def test_an_at_sign_in_a_malls_name_is_no_email() -> None:
    # "COLORS@1 UTAMA" (a kiosk in the 1 Utama mall) is no contact line: the company with its
    # form and number under it is still the merchant
    text = (
        "NYONYA\nCOLORS@1 UTAMA\nLITTLE CRAVINGS SDN BHD (562007-D)\nHQ: 7, Jln SS21/34,47400 PJ\n"
        "18-03-2018 11:23\nKUIH KETAYAP RM2.70\nTOTAL RM2.70\n"
    )
    assert _run(text).fields["company"].value == "LITTLE CRAVINGS SDN BHD"
