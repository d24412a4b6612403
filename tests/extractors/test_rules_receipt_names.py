"""The rules backend names a receipt's merchant and address as print sets them, and says so when
an OCR reading cannot be trusted: a name split over two lines is read whole, a line of nothing
but a company form is no name, letters an engine read in pieces send the value to review, a
shop's policy or thanks is never the merchant, and an address stops at a phone or a title.
Each receipt here is a line table as the OCR parser makes it; a text layer's lines are read as
they are."""

from __future__ import annotations

from dataclasses import replace

import pytest
from receipt_cells import PLAIN, read, read_text, receipt, review

from evidex.extractors.document import ParsedDocument, with_edges
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.llm.rules.ocr_text import misread
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import Status, schema_from_json

ADDRESS = [["NO 8, JALAN 1/118B, DESA TUN RAZAK"], ["56000 KUALA LUMPUR"]]
TAIL = [["TEL: 03-9173 8800"], ["TOTAL", "RM 33.90"], ["CASH", "RM 50.00"], ["CHANGE", "RM 16.10"]]


# -- a name split over lines ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("upper", "lower", "name"),
    [
        ("POPULAR BOOK", "CO. (M) SDN BHD", "POPULAR BOOK CO. (M) SDN BHD"),
        ("PASARAYA BORONG PINTAR", "SDN BHD", "PASARAYA BORONG PINTAR SDN BHD"),
    ],
)
def test_a_company_form_on_a_line_of_its_own_carries_on_the_name_above(
    upper: str, lower: str, name: str
) -> None:
    rows = [[upper], [lower], ["(113825-W)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start, company.line_end) == (name, 1, 2)
    assert company.status is Status.VERIFIED, company.reasons


def test_a_text_layers_name_split_over_lines_is_read_whole() -> None:
    text = "POPULAR BOOK\nCO. (M) SDN BHD\n(113825-W)\nNO 8, JALAN 1/118B, DESA TUN RAZAK\n"
    result = read_text(text + "56000 KUALA LUMPUR\nTEL: 03-9173 8800\nTOTAL: 33.90\n")
    company = result.fields["company"]
    assert (company.value, company.status) == ("POPULAR BOOK CO. (M) SDN BHD", Status.VERIFIED)


def test_one_word_before_the_form_takes_the_line_above_in_doubt() -> None:
    rows = [["LIAN CHI PU TIAN VEGETARIAN"], ["RESTAURANT SDN BHD"], ["(1034187-T)"]]
    company = read(receipt([*rows, *ADDRESS, *TAIL])).fields["company"]
    assert company.value == "LIAN CHI PU TIAN VEGETARIAN RESTAURANT SDN BHD"
    review(company, "one word before its company form", "'LIAN CHI PU TIAN VEGETARIAN'")


def test_a_name_whose_bracket_wraps_over_lines_is_judged_whole() -> None:
    rows = [["AIK HUAT HARDWARE"], ["ENTERPRISE (SETIA"], ["ALAM) SDN BHD"], ["(822737-X)"]]
    company = read(receipt([*rows, *ADDRESS, *TAIL])).fields["company"]
    assert company.value == "AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD"
    assert (company.line_start, company.line_end) == (1, 3)
    review(company, "one word before its company form", "'AIK HUAT HARDWARE'")


def test_a_date_written_above_the_name_is_not_its_registration_number() -> None:
    # a note and a date written by hand over the print: "1MAR2018" is shaped like an id
    rows = [["AIT,"], ["1MAR2018"], ["KEDAI RUNCIT MAJU SDN BHD"], ["(654321-K)"]]
    company = read(receipt([*rows, *ADDRESS, *TAIL])).fields["company"]
    assert (company.value, company.line_start) == ("KEDAI RUNCIT MAJU SDN BHD", 3)


def test_a_company_form_alone_is_never_the_name() -> None:
    rows = [["SDN BHD"], ["(113825-W)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == (None, Status.NOT_FOUND)


@pytest.mark.parametrize(
    "name", ["TEO HENG STATIONERY & BOOKS", "TEO HENG STATIONERY SDN BHD", "CO-OP MART SDN BHD"]
)
def test_a_name_that_begins_with_a_company_word_is_not_carried_over(name: str) -> None:
    """ "TEO" and "CO" are company forms somewhere (cleanco), and a name's first word here: the
    line above (a cashier's name) stays apart."""
    rows = [["tan woon yann"], [name], ["(001749-P)"], *ADDRESS]
    company = read(receipt([*rows, *TAIL])).fields["company"]
    assert (company.value, company.line_start) == (name, 2)
    assert company.status is Status.VERIFIED, company.reasons


# -- letters an engine read in pieces -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "piece"),
    [
        ("J I AWE I HOUSE", "AWE I HOUSE"),
        ("STRICTL Y NO CA S H REFUND", "STRICTL Y NO"),
        ("NO 5, Ja l an 7/1 l8B", "Ja l an"),
        ("Kuala Lumpur, Ma l ays i a", "Ma l ays"),
        ("KAWASAN PER I NDUSTRI AN BALAKONG", "PER I NDUSTRI"),
    ],
)
def test_misread_names_letters_standing_alone(text: str, piece: str) -> None:
    assert (
        misread(text)
        == f"{piece!r} has a letter standing alone, as an engine reads a word in pieces"
    )


@pytest.mark.parametrize(
    "text",
    ["C W KHOO HARDWARE SDN BHD", "MR D I Y", "BLOCK B NO 1, JALAN PJU 9/1", "PRIMA Q U 13/Q"],
)
def test_initials_and_a_blocks_letter_are_no_sign(text: str) -> None:
    assert misread(text) == ""


def test_misread_names_a_raised_dot_inside_an_id() -> None:
    assert misread("9 SFEED MART S/D (519537·X)") == "'(519537·X)' has a raised dot inside a word"


def test_an_ocr_name_in_pieces_goes_to_review() -> None:
    rows = [["J I AWE I HOUSE"], ["(002361-K)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert company.value == "J I AWE I HOUSE"
    review(company, "line 1 was read by OCR and 'AWE I HOUSE' has a letter standing alone")


def test_an_ocr_address_in_pieces_goes_to_review() -> None:
    rows = [["KEDAI RUNCIT MAJU SDN BHD"], ["(654321-K)"], ["NO 5, Ja l an 7/1 l8B, 56000 KL"]]
    address = read(receipt([*rows, *TAIL])).fields["address"]
    assert address.value == "NO 5, Ja l an 7/1 l8B, 56000 KL"
    review(address, "line 3 was read by OCR and 'Ja l an' has a letter standing alone")


def test_initials_read_by_ocr_are_verified() -> None:
    rows = [["C W KHOO HARDWARE SDN BHD"], ["(654321-K)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == ("C W KHOO HARDWARE SDN BHD", Status.VERIFIED)


def test_a_text_layers_spaced_letters_are_what_the_document_says() -> None:
    text = "J I AWE I HOUSE\n(002361-K)\nKAWASAN PER I NDUSTRI AN BALAKONG, 43300 SERI KEMBANGAN\n"
    result = read_text(text + "TEL: 03-9173 8800\nTOTAL: 33.90\n")
    company, address = result.fields["company"], result.fields["address"]
    assert (company.value, company.status) == ("J I AWE I HOUSE", Status.VERIFIED)
    assert address.value == "KAWASAN PER I NDUSTRI AN BALAKONG, 43300 SERI KEMBANGAN"
    assert address.status is Status.VERIFIED, address.reasons


# -- how sure the engine was --------------------------------------------------------------------


def test_an_ocr_name_read_with_middling_confidence_goes_to_review() -> None:
    rows = [["PASAF MINI JIN SENG"], ["(654321-K)"], *ADDRESS, *TAIL]
    company = read(receipt(rows, confidence=0.81)).fields["company"]
    assert company.value == "PASAF MINI JIN SENG"
    review(company, "line 1 was read by OCR with confidence 0.81", "check them against the image")


@pytest.mark.parametrize(
    ("under", "status"), [(0.39, Status.NEEDS_REVIEW), (0.62, Status.VERIFIED)]
)
def test_a_name_over_a_line_the_engine_could_not_read_goes_to_review(
    under: float, status: Status
) -> None:
    # a curl ran two lines into one under the brand: the company's name is not read
    rows = [["Harvey Norman"], ["Harve Noa M'ia Paradd Ma1"], *ADDRESS, *TAIL]
    document = receipt(rows)
    document.lines.loc[1, "ocr_confidence"] = under
    company = read(document).fields["company"]
    assert (company.value, company.status) == ("Harvey Norman", status), company.reasons
    if status is Status.NEEDS_REVIEW:
        review(company, "line 2 under the name was read by OCR with confidence 0.39", "unread")


def test_a_total_read_with_middling_confidence_keeps_its_own_checks() -> None:
    rows = [["PASAF MINI JIN SENG"], ["(654321-K)"], *ADDRESS, *TAIL]
    total = read(receipt(rows, confidence=0.81)).fields["total"]
    assert (total.value, total.status) == ("33.90", Status.VERIFIED)


# -- a policy line, a phone and a title are not the name or the address ----------------------------


@pytest.mark.parametrize(
    "policy", ["STRICTLY NO CASH REFUND", "GOODS SOLD ARE NOT RETURNABLE", "THANK YOU"]
)
def test_a_shops_policy_is_never_the_merchant(policy: str) -> None:
    rows = [["12345"], [policy], ["NO 12, JALAN MAWAR 3, 81100 JOHOR BAHRU"], *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == (None, Status.NOT_FOUND)


@pytest.mark.parametrize(
    "closing", ["GOODS SOLD ARE NOT RETURNABLE", "+603-2181 1234", "GUEST CHECK"]
)
def test_a_policy_a_phone_or_a_title_ends_the_address(closing: str) -> None:
    rows = [["KEDAI RUNCIT MAJU SDN BHD"], ["(654321-K)"], *ADDRESS, [closing]]
    address = read(receipt([*rows, ["TOTAL", "RM 33.90"], ["CASH", "RM 33.90"]])).fields["address"]
    assert (address.value, address.line_start, address.line_end) == (
        "NO 8, JALAN 1/118B, DESA TUN RAZAK 56000 KUALA LUMPUR",
        3,
        4,
    )
    assert address.status is Status.VERIFIED, address.reasons


def test_an_address_that_starts_with_its_postcode_under_a_doubtful_name_goes_to_review() -> None:
    rows = [["99 SPEED MART 57B519537-X)"], ["DALIR"], ["TAMAN BERKELEY"]]
    rows += [["41150 KLANG, SELANGOR"], ["GST ID NO : 000181747712"], *TAIL[1:]]
    address = read(receipt(rows)).fields["address"]
    assert address.value == "41150 KLANG, SELANGOR"
    # the estate's line ("TAMAN BERKELEY") is no name, so it stands between name and address
    review(address, "line 3 between the merchant's name and its address")


# -- the merchant's lines lost to OCR ----------------------------------------------------------


@pytest.mark.parametrize(
    "top",
    [
        ["NO: 28, JALAN ASTANA 1C,"],
        ["K3-113,JL IBRAHIM SULTAN"],
        ["DAMANSARA UTAMA,"],
        ["TAMAN BERKELEY"],
        ["JALAN KAPAR, MUKIM KAPAR"],
        ["LOT PTD 101051"],
        ["BANDAR BARU PERMAS"],
        ["3RD FLR, AEON TAMAN MALURI SC"],
        ["LEVEL 6, BANGUNAN TH"],
        ["221B BAKER STREET"],
        ["No. 9-G, Jalan Dinar D U3/D"],
        ["NO.2-1-1 JALAN SETIA PRIMA Q"],
        ["GS T"],
        ["CO. NO. 373665-A"],
        ["COMPANY NO"],
        ["PREPAY CHIT NUMBER"],
    ],
)
def test_an_address_line_left_at_the_top_is_never_the_merchant(top: list[str]) -> None:
    """OCR lost the name: the address's first line (a house number closed by a comma, a line
    run on by one, a street's, an estate's or a plot's word), an id and its label alone, a
    label, or pieces of a logo with no word of three letters are no name."""
    rows = [top, ["41050 KLANG SELANGOR"], ["TEL: 03-3343 1234"], *TAIL[1:]]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == (None, Status.NOT_FOUND)


def test_the_issuer_block_ends_at_a_phone_so_a_name_and_address_are_not_read_after_it() -> None:
    """OCR lost the address: the name stays the printed one above the phone ("RM RM" under it
    is no rival), and the item line after the phone and the cashier's line, priced, is no
    address."""
    rows = [["tan chay yee"], ["ABC HO TRADING"], ["07-355 2616"], ["CASHIER : 01"]]
    rows += [["DESCRIPTION QTY PRICE"], ["RM RM"], ["PLASTIC 2 15.50 31.00"], *TAIL[1:]]
    fields = read(receipt(rows)).fields
    company, address = fields["company"], fields["address"]
    assert (company.value, company.line_start) == ("ABC HO TRADING", 2)
    assert company.status is Status.VERIFIED, company.reasons
    assert (address.value, address.status) == (None, Status.NOT_FOUND)


def test_a_label_line_under_a_name_in_lower_case_does_not_end_the_block() -> None:
    """A person's name written above the merchant's, a cashier's line read between them: the
    block ends under the printed name, not under the person's."""
    rows = [["tan woon yann"], ["Cashier: CN"], ["INDAH GIFT & HOME DECO"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start) == ("INDAH GIFT & HOME DECO", 3)
    assert company.status is Status.VERIFIED, company.reasons


# -- a name that stands off its header's centre ----------------------------------------------


def _shifted(document: ParsedDocument, line: int, dx0: float, dx1: float) -> ParsedDocument:
    lines = document.lines.copy()
    lines.loc[line - 1, "x0"] += dx0
    lines.loc[line - 1, "x1"] += dx1
    return replace(document, lines=lines)


CENTRED = [["HUAT MACHINERY ENTERPRISE"], ["(JM0352019-K)"], *ADDRESS, ["TAMAN SRI PUTRA"], *TAIL]


def test_a_name_off_the_centre_its_header_shares_goes_to_review() -> None:
    """ "SOON" of "SOON HUAT MACHINERY ENTERPRISE" was not read: what is left is centred a word
    to the right of the lines under it."""
    document = _shifted(receipt(CENTRED), 1, 40.0, 60.0)
    company = read(document).fields["company"]
    assert company.value == "HUAT MACHINERY ENTERPRISE"
    review(company, "the name on line 1 stands off it", "a word at its left")


def _flush_left(document: ParsedDocument) -> ParsedDocument:
    """The header under the name set flush left: each line a different length from the same
    left edge."""
    for line, dx1 in ((3, 80.0), (4, 30.0), (5, 150.0)):
        document = _shifted(document, line, 0.0, dx1)
    return document


def test_a_name_on_its_headers_centre_or_centred_over_a_flush_left_header_stands() -> None:
    """A longer name centred on the same axis is whole, as is a name centred over a header set
    flush left (the block's lines run from 20 to 270: its middle is 145)."""
    centred = _shifted(receipt(CENTRED), 1, -10.0, 10.0)
    assert read(centred).fields["company"].status is Status.VERIFIED
    company = read(_shifted(_flush_left(receipt(CENTRED)), 1, 80.0, 60.0)).fields["company"]
    assert company.status is Status.VERIFIED, company.reasons


def test_a_name_that_starts_right_of_a_flush_left_headers_edge_goes_to_review() -> None:
    """ "SOON" of "SOON HUAT MACHINERY ENTERPRISE" lost under a blot, in a header set flush
    left: what is left starts three letters right of the edge the lines under it share, and
    is not centred over them; the same name on the edge is whole."""
    company = read(_shifted(_flush_left(receipt(CENTRED)), 1, 40.0, 60.0)).fields["company"]
    assert company.value == "HUAT MACHINERY ENTERPRISE"
    review(company, "the name on line 1 starts right of it", "a word at its left")
    on_edge = read(_flush_left(receipt(CENTRED))).fields["company"]
    assert on_edge.status is Status.VERIFIED, on_edge.reasons


# -- a name written in lower case ---------------------------------------------------------------


def test_a_name_in_lower_case_gives_way_to_a_printed_one_above_the_address() -> None:
    """No registration number and no company form: the weakest rule (the name right above the
    address) takes the printed name, and a person's name written in lower case above it is no
    rival that would leave it in doubt."""
    rows = [["tan chay yee"], ["KEDAI RUNCIT MAJU"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start) == ("KEDAI RUNCIT MAJU", 2)
    assert company.status is Status.VERIFIED, company.reasons


def test_a_name_in_lower_case_alone_at_the_top_goes_to_review() -> None:
    """The merchant's lines were lost to OCR: the only name left is a person's, read with full
    confidence, and it is not verified."""
    rows = [["tan woon yann"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start) == ("tan woon yann", 1)
    review(company, "written all in lower case", "line 1")


# -- a photo that cuts a line off --------------------------------------------------------------


def test_a_name_read_from_a_line_at_the_photos_edge_goes_to_review() -> None:
    """The photo cut "UNIHAKKA" at its left edge: what is left reads as a name, with full
    confidence."""
    rows = [["HAKKA INTERNATIONAL SDN BHD"], ["(867388-U)"], *ADDRESS, *TAIL]
    company = read(receipt(rows, left=1.0)).fields["company"]
    assert company.value == "HAKKA INTERNATIONAL SDN BHD"
    review(company, "line 1 runs to the left edge of the image", "may cut it off")
    inside = read(receipt(rows, left=30.0)).fields["company"]
    assert inside.status is Status.VERIFIED, inside.reasons


def test_a_text_layers_line_at_the_page_edge_is_whole() -> None:
    text = "HAKKA INTERNATIONAL SDN BHD\n(867388-U)\nNO 8, JALAN 1/118B, DESA TUN RAZAK\n"
    company = read_text(text + "56000 KUALA LUMPUR\nTEL: 03-9173 8800\nTOTAL: 33.90\n")
    assert company.fields["company"].status is Status.VERIFIED


@pytest.mark.parametrize(("left", "status"), [(1.0, Status.NEEDS_REVIEW), (30.0, Status.VERIFIED)])
def test_a_models_quote_from_a_line_at_the_photos_edge_goes_to_review(
    left: float, status: Status
) -> None:
    """Verification, for any backend: a model that quotes the cut line as the name is not
    verified; the same quote from a line inside the photo is."""
    rows = [["HAKKA INTERNATIONAL SDN BHD"], ["(867388-U)"], *ADDRESS, *TAIL]
    name = {"value": "HAKKA INTERNATIONAL SDN BHD", "quote": "HAKKA INTERNATIONAL SDN BHD"}
    answer = build_answer(PLAIN, {"company": {**name, "page": 1, "line_start": 1, "line_end": 1}})
    company = extract_parsed(receipt(rows, left=left), PLAIN, llm=ScriptedLLM(answer))
    field = company.fields["company"]
    assert field.status is status, field.reasons
    if status is Status.NEEDS_REVIEW:
        review(field, "line 1 runs to the left edge of the image", "check the value")


def test_with_edges_names_the_side_an_ocr_line_runs_to() -> None:
    """Cells start 1, 121, 241 and 361 pixels in on a photo 400 wide; the last ends at 461."""
    document = receipt([["A", "B", "C", "D"]], left=1.0)
    assert with_edges(document)["edge"].tolist() == ["left", "", "", "right"]
    text_layer = receipt([["A", "B", "C", "D"]], confidence=None, left=1.0)
    assert with_edges(text_layer)["edge"].tolist() == ["", "", "", ""]


@pytest.mark.parametrize(("left", "edge"), [(16.0, "left"), (24.0, "")])
def test_a_line_a_letter_in_from_the_edge_may_have_lost_the_letter_the_cut_went_through(
    left: float, edge: str
) -> None:
    # a photo that cuts through a letter leaves the next one up to about half a letter in:
    # "YARIKAT PERNIAGAAN GIN KEE" 16 pixels into a cut photo, its line 50 pixels high
    document = receipt([["YARIKAT PERNIAGAAN GIN KEE"]], left=left)
    lines = document.lines.copy()
    lines.loc[0, "y1"] = lines.loc[0, "y0"] + 50.0
    assert with_edges(replace(document, lines=lines))["edge"].tolist() == [edge]


@pytest.mark.parametrize(("cut", "edge"), [(2.0, "left"), (30.0, "")])
def test_a_side_the_photo_cuts_the_print_at_takes_lines_nearly_a_letter_in(
    cut: float, edge: str
) -> None:
    # two lines start at the side (the print runs off it): a line 10 pixels in, its letters 14
    # high, may have lost a letter too; where no line does, it stands clear of the side
    document = receipt([["AN IPOH BATU 5"], ["IMES BOOKSTORES"], ["L : 03-87686092"]], left=cut)
    lines = document.lines.copy()
    lines.loc[1, "x0"] = 10.0
    assert with_edges(replace(document, lines=lines))["edge"].tolist()[1] == edge


def test_a_scan_cropped_tight_to_the_print_leaves_its_lines_whole() -> None:
    """Four lines 5 pixels in, 14 high: near the side, none touching it (a cut through the
    print leaves a line at the edge itself), so the side is the print's margin. One line at
    the edge makes it a cut again, for every line near it; one line sticking out past the
    margin (a header wider than the body) is judged as at a cut."""
    rows = [["HAKKA INTERNATIONAL SDN BHD"], ["(867388-U)"], *ADDRESS, *TAIL]
    tight = receipt(rows, left=5.0)
    edges = with_edges(tight)["edge"].tolist()
    assert edges[:4] == ["", "", "", ""]
    assert read(tight).fields["company"].status is Status.VERIFIED
    lines = tight.lines.copy()
    lines.loc[0, "x0"] = 1.0
    assert with_edges(replace(tight, lines=lines))["edge"].tolist()[:4] == ["left"] * 4
    lines.loc[1:, "x0"] = lines.loc[1:, "x0"] + 3.0
    lines.loc[0, "x0"] = 4.0  # the margin 8 pixels in, the name 4: it sticks out past it
    assert with_edges(replace(tight, lines=lines))["edge"].tolist()[:4] == ["left", "", "", ""]


# -- ids printed with the name, and lines that only look like ids -------------------------------


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("GARDENIA BAKERIES (KL) SDN BHD (139386 X)", "GARDENIA BAKERIES (KL) SDN BHD"),
        ("KING'S CONFECTIONERY S/B 273500-U (KSB)", "KING'S CONFECTIONERY S/B"),
        ("MAKASSAR FRESH MARKET S/B. (CO.NO. 1208604-T)", "MAKASSAR FRESH MARKET S/B."),
    ],
)
def test_a_registration_number_printed_after_the_name_is_not_part_of_it(
    line: str, name: str
) -> None:
    company = read(receipt([[line], *ADDRESS, *TAIL])).fields["company"]
    assert (company.value, company.line_start) == (name, 1)
    assert company.status is Status.VERIFIED, company.reasons


def test_a_registration_number_whose_closing_bracket_ocr_lost_is_cut_from_the_name() -> None:
    # the open bracket is the id's, so the name does not run on into the branch under it
    rows = [["HAI-O RAYA BHD (169199-V"], ["KEPONG OUTLET"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start, company.line_end) == ("HAI-O RAYA BHD", 1, 1)


def test_a_shorthand_company_form_outranks_a_stamp_above_it() -> None:
    # S/B is a till's Sdn Bhd; "POSTED", stamped above, is no merchant
    rows = [["POSTED"], ["99 SPEED MART S/B (519537-X)"], *ADDRESS, *TAIL]
    fields = read(receipt(rows)).fields
    assert (fields["company"].value, fields["company"].status) == (
        "99 SPEED MART S/B",
        Status.VERIFIED,
    )
    assert fields["address"].value == "NO 8, JALAN 1/118B, DESA TUN RAZAK 56000 KUALA LUMPUR"


@pytest.mark.parametrize(
    "registration", ["(NO. 193573-M)", "(LLP0007299-LGN)", "(CO NO. 315481-T) GST NO. 001287233536"]
)
def test_the_address_starts_under_the_registration_number_however_it_is_written(
    registration: str,
) -> None:
    rows = [["SUN VICTORY SDN BHD"], [registration], *ADDRESS, *TAIL]
    address = read(receipt(rows)).fields["address"]
    assert (address.value, address.line_start, address.line_end) == (
        "NO 8, JALAN 1/118B, DESA TUN RAZAK 56000 KUALA LUMPUR",
        3,
        4,
    )


def test_an_order_number_over_the_name_is_no_registration_and_no_address() -> None:
    rows = [["YOUR ORDER NUMBER IS"], ["264"], ["GOLDEN ARCHES RESTAURANTS SDN BHD"], ["(65351-M)"]]
    fields = read(receipt([*rows, *ADDRESS, *TAIL])).fields
    assert (fields["company"].value, fields["company"].line_start) == (
        "GOLDEN ARCHES RESTAURANTS SDN BHD",
        3,
    )
    assert (fields["address"].line_start, fields["address"].line_end) == (5, 6)


def test_a_numbered_title_ends_the_address() -> None:
    rows = [["DE MAXIMUM THAI EXPRESS SDN BHD"], ["1241045-D"], *ADDRESS]
    tail = [["TAX INVOICE NO 8"], ["5664"], ["DATE: 14/04/2018 11:28"], *TAIL[1:]]
    address = read(receipt([*rows, *tail])).fields["address"]
    assert (address.line_start, address.line_end) == (3, 4)
    assert address.status is Status.VERIFIED, address.reasons


@pytest.mark.parametrize("code", ["(KJ1)", "(KJ1 )", "( KJ1)"])  # OCR spaces inside brackets
def test_a_branch_code_after_the_id_is_cut_with_it(code: str) -> None:
    rows = [[f"KING'S CONFECTIONERY S/B 273500-U {code}"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == ("KING'S CONFECTIONERY S/B", Status.VERIFIED)


def test_a_line_opening_with_an_ampersand_carries_on_the_name_above() -> None:
    rows = [["THE COFFEE BEAN"], ["& TEA LEAF (M) SDN. BHD."], ["COMPANY NO.:441970-H"]]
    company = read(receipt([*rows, *ADDRESS, *TAIL])).fields["company"]
    assert (company.value, company.line_start, company.line_end) == (
        "THE COFFEE BEAN & TEA LEAF (M) SDN. BHD.",
        1,
        2,
    )
    assert company.status is Status.VERIFIED, company.reasons


def test_a_name_of_one_word_takes_the_line_above_in_doubt() -> None:
    rows = [["TSH POWER HARDWARE"], ["TRADING"], ["002458685-T"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert company.value == "TSH POWER HARDWARE TRADING"
    review(company, "the name's line is one word ('TRADING')", "'TSH POWER HARDWARE'")


# -- where the address ends --------------------------------------------------------------------

STREET = [["99 SPEED MART S/B (519537-X)"], ["LOT P.T. 2811, JALAN ANGSA,"]]


@pytest.mark.parametrize(
    ("placed", "after"),
    [
        ("41150 KLANG, SELANGOR", "1032-SUBANG PERDANA"),
        ("41150 KLANG, SELANGOR", "AEON SHAH ALAM"),
        # a postcode and a region, the country cut short after them
        ("56000 KUALA LUMPUR, MALAYSI.", "IOI MALL"),
        # the country's letters read apart, in a shaded photo
        ("56000 Kua la Lumpur, Malays ia", "AEON SHAH ALAM"),
    ],
)
def test_a_line_after_the_region_that_ends_the_address_goes_to_review(
    placed: str, after: str
) -> None:
    rows = [*STREET, [placed], [after], ["GST ID. NO : 000181747712"]]
    address = read(receipt([*rows, *TAIL[1:]])).fields["address"]
    assert address.value == f"LOT P.T. 2811, JALAN ANGSA, {placed} {after}"
    review(address, "line 3 ends the address with its region or country", "line 4 after it")


@pytest.mark.parametrize(
    ("lower", "last"),
    [
        ("41150 KLANG, SELANGOR", "MALAYSIA"),
        ("41150 KLANG,", "SELANGOR"),
        ("43200 CHERAS", "SELANGOR"),
    ],
)
def test_a_region_or_country_on_a_line_of_its_own_ends_the_address(lower: str, last: str) -> None:
    rows = [*STREET, [lower], [last], ["GST ID. NO : 000181747712"]]
    address = read(receipt([*rows, *TAIL[1:]])).fields["address"]
    assert address.value == f"LOT P.T. 2811, JALAN ANGSA, {lower} {last}"
    assert address.status is Status.VERIFIED, address.reasons


def test_an_address_with_no_postcode_over_a_phone_and_then_one_goes_to_review() -> None:
    # the phone printed beside the address's last line is read before it
    rows = [["ARTRANGE STATIONERS & PRINT SDN BHD"], ["(1122327-U)"]]
    rows += [["44 JALAN SS21/58 DAMANSARA UTAMA"], ["TEL : 03-77271129"]]
    rows += [["47400 PETALING JAYA"], ["GST ID: 001725239296"], ["TOTAL", "RM 15.40"]]
    address = read(receipt(rows)).fields["address"]
    assert address.value == "44 JALAN SS21/58 DAMANSARA UTAMA"
    review(address, "gives no postcode", "line 5 after it opens with one ('47400 PETALING JAYA')")


def test_an_address_with_its_postcode_stands_whatever_opens_the_lines_after_it() -> None:
    rows = [["KEDAI RUNCIT MAJU SDN BHD"], ["(654321-K)"], *ADDRESS, ["TEL: 03-9173 8800"]]
    rows += [["10400 PENANG"], ["TOTAL", "RM 33.90"], ["CASH", "RM 50.00"], ["CHANGE", "RM 16.10"]]
    address = read(receipt(rows)).fields["address"]
    assert address.value == "NO 8, JALAN 1/118B, DESA TUN RAZAK 56000 KUALA LUMPUR"
    assert address.status is Status.VERIFIED, address.reasons


@pytest.mark.parametrize(
    ("last", "why"),
    [
        ("40300 SHAH ALAM, SELAUGOR.", "'SELAUGOR' is one letter from the region 'Selangor'"),
        ("40300 SHAH ALAM, SELANGOR.", ""),
        ("10400 PENANG", ""),  # the state's English name, no misread of a region's
        ("43300 SERI KEMBANGAN", ""),
    ],
)
def test_an_address_whose_region_reads_one_letter_off_goes_to_review(last: str, why: str) -> None:
    rows = [["KEDAI RUNCIT MAJU SDN BHD"], ["(654321-K)"], ["LOT 3, JALAN PELABUR 23/1,"]]
    rows += [[last], ["TEL: 03-9173 8800"], ["TOTAL", "RM 33.90"], *TAIL[2:]]
    address = read(receipt(rows)).fields["address"]
    assert address.value == f"LOT 3, JALAN PELABUR 23/1, {last}"
    if why:
        review(address, "line 4 was read by OCR and", why)
    else:
        assert address.status is Status.VERIFIED, address.reasons


def test_a_company_number_under_the_name_is_not_the_company() -> None:
    # "COMPANY" reads as the field's label, but "NO(814198-X)" after it says it labels an id
    rows = [["BAIFU (M) SDN BHD"], ["COMPANY NO(814198-X)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start, company.status) == (
        "BAIFU (M) SDN BHD",
        1,
        Status.VERIFIED,
    )


def test_a_slips_number_before_the_name_is_not_part_of_it() -> None:
    cells = read(receipt([["#000002", "BAIFU (M) SDN BHD"], ["(814198-X)"], *ADDRESS, *TAIL]))
    company = cells.fields["company"]  # OCR read the number as a cell of the name's row
    assert (company.value, company.line_start, company.quote) == (
        "BAIFU (M) SDN BHD",
        2,
        "BAIFU (M) SDN BHD",
    )
    text = "#000002 BAIFU (M) SDN BHD\n(814198-X)\nNO 8, JALAN 1/118B\n56000 KUALA LUMPUR\n"
    line = read_text(text + "TEL: 03-9173 8800\nTOTAL: 33.90\n").fields["company"]
    assert (line.value, line.status) == ("BAIFU (M) SDN BHD", Status.VERIFIED)


@pytest.mark.parametrize(
    ("name", "opening"),
    [
        ("egi Cash & Carry Sdn. Bhd.", "egi"),  # the photo's warp took the "S" of "Segi"
        ("a ng Alaf Restaurants Sdn Bhd", "a"),  # its edge took "Gerb" of "Gerbang"
    ],
)
def test_a_name_opening_in_lower_case_before_capitals_goes_to_review(
    name: str, opening: str
) -> None:
    rows = [[name], ["(317041-W)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert company.value == name
    review(
        company, f"opens with a word in lower case ({opening!r})", "its first letter may be lost"
    )


def test_a_name_opening_with_an_ampersand_has_lost_its_first_word() -> None:
    # a photo on a table lost the "B" of "B & BEST RESTAURANT"
    rows = [["& BEST RESTAURANT"], ["(001610235-P)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert company.value == "& BEST RESTAURANT"
    review(company, "opens with '&', which joins a word to one before it")


def test_a_brand_styled_with_a_small_first_letter_stands() -> None:
    rows = [["eBay Marketplace Sdn. Bhd."], ["(317041-W)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == ("eBay Marketplace Sdn. Bhd.", Status.VERIFIED)


@pytest.mark.parametrize("read_as", ["MR. D.1.Y. (M) SDN BHD", "MR. D.1 .Y. (M) SDN BHD"])
def test_a_digit_among_a_names_initials_sends_it_to_review(read_as: str) -> None:
    # also where OCR set a stray space before a point
    rows = [[read_as], ["(860671-D)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert company.value == "MR. D.1.Y. (M) SDN BHD"
    review(company, "'D.1.Y.' has a digit among its initials")


@pytest.mark.parametrize(
    ("over", "name"),
    [
        # a mall printed over the name, the registration on the name's line
        ([["NYONYA"], ["COLORS @ 1 UTAMA"]], ["LITTLE CRAVINGS SDN BHD (562007-D)"]),
        # a bank's terminal number over a name and its registration number
        ([["Cele R"], ["MBB 264100"]], ["KEDAI PAPAN YEW CHUAN"]),
    ],
)
def test_a_numbered_line_over_the_name_and_its_id_is_not_the_address(
    over: list[list[str]], name: list[str]
) -> None:
    rows = [*over, name] if "(" in name[0] else [*over, name, ["(0005583085-K)"]]
    fields = read(receipt([*rows, *ADDRESS, *TAIL])).fields
    assert fields["company"].value == name[0].split(" (")[0]
    assert fields["company"].line_start == 3
    start = len(rows) + 1
    assert (fields["address"].line_start, fields["address"].line_end) == (start, start + 1)


def test_a_registration_number_under_the_address_does_not_move_it() -> None:
    address = [["NO: 28, JALAN ASTANA 1C,"], ["BANDAR BUKIT RAJA, 41050"], ["KLANG SELANGOR"]]
    rows = [["LIGHTROOM GALLERY SDN BHD"], *address, ["ROC NO. : (1072825-A)"], *TAIL]
    fields = read(receipt(rows)).fields
    assert fields["company"].value == "LIGHTROOM GALLERY SDN BHD"
    assert (fields["address"].line_start, fields["address"].line_end) == (2, 4)


def test_a_sentence_running_on_to_the_order_number_is_no_name() -> None:
    # with no registration number to settle it, a rival name would leave the merchant in doubt
    rows = [["YOUR ORDER NUMBER IS"], ["TEALIVE"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == ("TEALIVE", Status.VERIFIED), company.reasons


def test_a_tax_id_anywhere_on_a_line_or_its_label_alone_is_not_the_address() -> None:
    rows = [["MR. DAKGALBI SOLARIS"], ["BRN GST No. 000417619968 President: Kang"]]
    rows += [*ADDRESS, ["GST No."], ["000417619968"], *TAIL[1:]]
    address = read(receipt(rows)).fields["address"]
    assert (address.value, address.line_start, address.line_end) == (
        "NO 8, JALAN 1/118B, DESA TUN RAZAK 56000 KUALA LUMPUR",
        3,
        4,
    )


def test_a_word_and_a_number_alone_are_no_address_to_verify() -> None:
    rows = [["TF Value-Mart Sdn Bhd (482123-U)"], ["Bentong-2"], ["GST Reg No 000184401920"]]
    address = read(receipt([*rows, *TAIL])).fields["address"]
    assert address.value == "Bentong-2"
    review(address, "line 2 is all the address there is", "a branch's name")


def test_an_address_line_ending_in_its_country_is_no_name_when_the_name_is_lost() -> None:
    # the merchant's line lost: what stands at the top is the address, then the ROC number
    address = [["NO: 28, JALAN ASTANA 1C,"], ["BANDAR BUKIT RAJA, 41050"]]
    rows = [*address, ["KLANG SELANGOR D.E, MALAYSIA"], ["ROC NO. : (1072825-A)"], *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == (None, Status.NOT_FOUND)


@pytest.mark.parametrize(
    "aside",
    ["(TONYMOLY SHOP (95874))", "(SUBANG JASA) 666770-U"],
)
def test_a_bracketed_line_or_a_branch_with_its_id_under_the_name_is_not_the_address(
    aside: str,
) -> None:
    rows = [["TONYMOLY VIVA CITY"], [aside], *ADDRESS, ["GST ID : 000349356032"], *TAIL[1:]]
    fields = read(receipt(rows)).fields
    assert fields["company"].value == "TONYMOLY VIVA CITY"
    address = fields["address"]
    assert (address.value, address.line_start, address.line_end) == (
        "NO 8, JALAN 1/118B, DESA TUN RAZAK 56000 KUALA LUMPUR",
        3,
        4,
    )


def test_a_postcode_alone_under_an_address_that_gives_none_ends_it() -> None:
    address = [["LOT F21 & 22, CITTA MALL"], ["NO 1, JLN PJU 1A/4"], ["47301"]]
    rows = [["TIMES BOOKSTORES"], *address, ["GST REG NO : 000423100416"], *TAIL[1:]]
    address_field = read(receipt(rows)).fields["address"]
    assert (address_field.line_start, address_field.line_end) == (2, 4)
    assert address_field.value.endswith("JLN PJU 1A/4 47301")


def test_a_number_alone_under_an_address_with_its_postcode_is_not_read_into_it() -> None:
    rows = [["TIMES BOOKSTORES"], *ADDRESS, ["29721"], ["GST REG NO : 000423100416"], *TAIL[1:]]
    address = read(receipt(rows)).fields["address"]
    assert (address.line_start, address.line_end) == (2, 3)


def test_a_stamp_read_on_the_names_line_is_no_part_of_the_name() -> None:
    rows = [["YONG CEN ENTERPRISE POSTED"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == ("YONG CEN ENTERPRISE", Status.VERIFIED)
    assert company.quote == "YONG CEN ENTERPRISE"


def test_an_address_under_the_buyers_heading_is_not_the_documents_but_the_buyers() -> None:
    rows = [["ELKEN SERVICE SDN BHD (310184-X)"], *ADDRESS, ["TEL: 603-79859377"]]
    rows += [["BILL TO : WONG PEI HAR"], ["ADDRESS : 2920/1, JALAN JINJANG INDAH 1,"], *TAIL[1:]]
    address = read(receipt(rows)).fields["address"]
    assert (address.value, address.line_start) == (
        "NO 8, JALAN 1/118B, DESA TUN RAZAK 56000 KUALA LUMPUR",
        2,
    )
    schema = schema_from_json(
        {"type": "object", "properties": {"customer_address": {"type": "string"}}}
    )
    theirs = extract_parsed(receipt(rows), schema, llm=RulesBackend()).fields["customer_address"]
    assert (theirs.value, theirs.line_start) == ("2920/1, JALAN JINJANG INDAH 1", 6)


# -- a name with something printed beside or over it ------------------------------------------


def test_a_brand_set_right_over_the_company_in_its_type_sends_the_name_to_review() -> None:
    rows = [["AMPANG 210"], ["FIRST CITY PARKING SDN BHD"], ["(123456-X)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start) == ("FIRST CITY PARKING SDN BHD", 2)
    review(company, "line 1 right above the name ('AMPANG 210')", "same type")


def _taller(document: ParsedDocument, line: int, by: float) -> ParsedDocument:
    """``document`` with line ``line`` (0-based) set in type ``by`` times as tall, its foot
    where it was."""
    lines = document.lines.copy()
    height = lines.loc[line, "y1"] - lines.loc[line, "y0"]
    lines.loc[line, "y0"] = lines.loc[line, "y1"] - by * height
    return replace(document, lines=lines)


def test_a_logo_in_larger_type_or_a_line_a_gap_above_leaves_the_name_verified() -> None:
    rows = [["AMPANG 210"], ["FIRST CITY PARKING SDN BHD"], ["(123456-X)"], *ADDRESS, *TAIL]
    logo = read(_taller(receipt(rows), 0, 2.0)).fields["company"]
    assert (logo.value, logo.status) == ("FIRST CITY PARKING SDN BHD", Status.VERIFIED)
    spaced = read(receipt([rows[0], [""], *rows[1:]])).fields["company"]
    assert (spaced.value, spaced.status) == ("FIRST CITY PARKING SDN BHD", Status.VERIFIED)


def test_a_text_files_line_over_the_name_has_no_type_to_compare() -> None:
    text = "AMPANG 210\nFIRST CITY PARKING SDN BHD\n(123456-X)\n"
    text += "NO 8, JALAN 1/118B, DESA TUN RAZAK\n56000 KUALA LUMPUR\n"
    result = read_text(text + "TEL: 03-9173 8800\nTOTAL: 33.90\n")
    company = result.fields["company"]
    assert (company.value, company.status) == ("FIRST CITY PARKING SDN BHD", Status.VERIFIED)


def test_a_piece_of_the_names_row_read_out_of_order_sends_the_name_to_review() -> None:
    # OCR read "3 &" of "B & BEST RESTAURANT" apart, a speck from lower down between them
    address = [["NO 8, JALAN 1/118B,", "DESA TUN RAZAK"], ["56000 KUALA LUMPUR"]]
    rows = [["3", "&", "BEST RESTAURANT"], ["(001610235-P)"], *address, *TAIL]
    document = receipt(rows)
    order = [0, 1, len(document.lines) - 1, *range(2, len(document.lines) - 1)]
    lines = document.lines.iloc[order].reset_index(drop=True)
    lines["line"] = range(1, len(lines) + 1)
    company = read(replace(document, lines=lines)).fields["company"]
    assert (company.value, company.line_start) == ("BEST RESTAURANT", 4)
    review(company, "OCR read '&' (line 2) on the name's row apart from it")


def test_a_name_among_pieces_of_a_logo_goes_to_review() -> None:
    # "the Roti man bakery", a drawn logo: OCR read one word whole and the rest in pieces
    rows = [["t 1e"], ["Roti"], ["m"], ["a n"], ["117, Jalan Radin Bagus, Sri Petaling"]]
    company = read(receipt([*rows, *TAIL])).fields["company"]
    assert (company.value, company.line_start) == ("Roti", 2)
    review(company, "line 1 beside the name holds only pieces of letters ('t 1e')", "logo")


def test_a_registered_mark_beside_the_name_is_no_piece_of_a_logo() -> None:
    rows = [["R"], ["KEDAI PAPAN YEW CHUAN"], ["(001610235-P)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == ("KEDAI PAPAN YEW CHUAN", Status.VERIFIED)


@pytest.mark.parametrize(
    ("owner", "said"),
    [
        (
            [["OWNED BY"], ["DOMMAL FOOD SERVICES SDN BHD"]],
            "OWNED BY 'DOMMAL FOOD SERVICES SDN BHD'",
        ),
        ([["OWN BY: CHEF LEE SDN BHD"]], "OWN BY 'CHEF LEE SDN BHD'"),
        ([["Owner by Castle Blue S/B"]], "Owner by 'Castle Blue S/B'"),
    ],
)
def test_a_slip_that_says_who_owns_the_shop_sends_the_brand_to_review(
    owner: list[list[str]], said: str
) -> None:
    rows = [["OLD ASIA"], *ADDRESS, *TAIL, *owner]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start) == ("OLD ASIA", 1)
    review(company, f"says who owns the shop ({said})", "check which is meant")


def test_a_name_that_quotes_its_owner_stays_verified() -> None:
    rows = [["32 PUB & BISTRO OWN BY CNU TRADING"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == (
        "32 PUB & BISTRO OWN BY CNU TRADING",
        Status.VERIFIED,
    )


def test_a_branch_in_brackets_under_the_name_sends_it_to_review() -> None:
    rows = [["CHECKERS HYPERMARKET SDN BHD"], ["(JALAN KLANG LAMA)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start) == ("CHECKERS HYPERMARKET SDN BHD", 1)
    review(company, "line 2 under the name is in brackets ('(JALAN KLANG LAMA)')", "branch")


def test_an_id_in_brackets_under_the_name_leaves_it_verified() -> None:
    rows = [["CHECKERS HYPERMARKET SDN BHD"], ["(COMPANY NO: 564429-W)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == ("CHECKERS HYPERMARKET SDN BHD", Status.VERIFIED)


def test_a_line_holding_a_tax_id_is_no_name() -> None:
    rows = [["MR. DAKGALBI SOLARIS"], ["BRN GST No. 000417619968 President: Kang"], *ADDRESS]
    company = read(receipt([*rows, *TAIL])).fields["company"]
    assert (company.value, company.status) == ("MR. DAKGALBI SOLARIS", Status.VERIFIED)


def test_an_id_after_a_name_over_two_lines_is_cut_from_it() -> None:
    rows = [["POPULAR BOOK"], ["CO. (M) SDN BHD (113825-W)"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.line_start, company.line_end) == (
        "POPULAR BOOK CO. (M) SDN BHD",
        1,
        2,
    )
    assert company.quote == "POPULAR BOOK CO. (M) SDN BHD"


def test_an_address_line_is_not_taken_for_a_mall_over_the_name_and_its_id() -> None:
    # OCR lost the name: the address, then a label and its number ("29721"), which are no
    # name and id under a mall's line ("COLORS @ 1 UTAMA" over "LITTLE CRAVINGS SDN BHD")
    rows = [["Lot 1626, Mukim Kampung Laut"], ["16200 Palekbang, Kelantan"]]
    rows += [["PREPAY CHIT NUMBER"], ["29721"], ["THIS IS NOT A RECEIPT"], *TAIL[1:]]
    fields = read(receipt(rows)).fields
    # no name is left to anchor the block, so neither is found (not the slip's money lines)
    assert fields["company"].status is Status.NOT_FOUND, fields["company"].value
    assert fields["address"].status is Status.NOT_FOUND, fields["address"].value


@pytest.mark.parametrize(
    ("top", "name", "why"),
    [
        # the company's line lost over its number: the brand under it is left at the top
        ([["31812012."], ["(1074617K)"]], "IKEA Cheras", "registration number with no name"),
        ([["Lot 1626, Mukim Kampung Laut"]], "Tumpat", "is an address's line"),
    ],
)
def test_a_name_under_what_a_lost_name_stands_over_goes_to_review(
    top: list[list[str]], name: str, why: str
) -> None:
    rows = [*top, [name], ["16200 Palekbang, Kelantan"], ["GST No.: 000115154944"], *TAIL[1:]]
    company = read(receipt(rows)).fields["company"]
    assert company.value == name
    review(company, f"line {len(top)}, above the name", why)


def test_a_company_number_over_a_name_with_its_company_form_is_its_own() -> None:
    rows = [["3-1707067"], ["(481500-M)"], ["C W KHOO HARDWARE SDN BHD"], *ADDRESS, *TAIL]
    company = read(receipt(rows)).fields["company"]
    assert (company.value, company.status) == ("C W KHOO HARDWARE SDN BHD", Status.VERIFIED)


@pytest.mark.parametrize("branch", ["#0020 The Summit USJ", "McDonald's MRR2 Kepong DT(#251)"])
def test_one_line_with_no_postcode_and_no_street_is_no_address_to_verify(branch: str) -> None:
    # OCR lost the address: the branch's line after the tax id is all that is left
    rows = [["Maxincome Resources Sdn Bhd (383322-D)"], ["GST ID: 000468594688"], [branch]]
    address = read(receipt([*rows, ["Tax Invoice"], *TAIL[1:]])).fields["address"]
    assert address.value == branch
    review(address, "gives no postcode and no street", "a branch's name")
