"""``AzureLayoutParser`` with the real Azure SDK against a local server speaking Azure's wire format
(``tests/fake_azure.py``), answering with bodies recorded from the sample PDFs
(``tests/fixtures/azure/make_bodies.py``)."""

from __future__ import annotations

import copy
import importlib.util
import itertools
import json
import pickle
import socket
import time
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import pymupdf
import pytest
from fake_azure import FIXTURES, KEY, FakeAzure, Reply, body, error  # tests/: conftest rootdir
from sample_answers import SAMPLES, SCHEMAS, expected, perfect_fields

from evidex.extractors.document import ParsedDocument
from evidex.extractors.errors import CorruptDocument, EmptyDocument, UnsupportedDocument
from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.azure_layout import (
    AzureAuthError,
    AzureLayoutParser,
    AzureQuota,
    AzureUnavailable,
    tables_of,
)
from evidex.extractors.pipeline import extract
from evidex.extractors.settings import Settings
from evidex.schemas import ConfigError, Status, get_schema

Make = Callable[..., AzureLayoutParser]
ENV = ("AZURE_DOCUMENT_INTELLIGENCE_ENDPOINT", "AZURE_DOCUMENT_INTELLIGENCE_KEY")
PX = 100 / 72  # the PNG fixture: the invoice rendered at 100 dpi


@pytest.fixture(autouse=True)
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No Azure settings inherited, and no name lookup beyond this machine."""
    for name in (*ENV, "EVIDEX_AZURE_TIMEOUT_S", "EVIDEX_AZURE_POLLING_INTERVAL_S"):
        monkeypatch.delenv(name, raising=False)
    real = socket.getaddrinfo

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        assert str(host) in ("127.0.0.1", "localhost", "::1"), f"tests must not resolve {host}"
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)


@pytest.fixture
def fake() -> Iterator[FakeAzure]:
    with FakeAzure() as server:
        yield server


@pytest.fixture
def make(fake: FakeAzure) -> Make:
    def build(**kwargs: Any) -> AzureLayoutParser:
        key = kwargs.pop("key", KEY)
        options = {"polling_interval_s": 0.05, "timeout_s": 10.0, **kwargs}
        return AzureLayoutParser(fake.endpoint, key, **options)

    return build


def pdf(name: str) -> bytes:
    return (SAMPLES / f"{name}.pdf").read_bytes()


def parse(fake: FakeAzure, name: str, **kwargs: Any) -> ParsedDocument:
    fake.add(body(name))
    parser = AzureLayoutParser(fake.endpoint, KEY, polling_interval_s=0.05, **kwargs)
    return parser.parse(pdf(name), f"{name}.pdf")


@cache
def pymupdf_words(name: str, scale: float = 1.0) -> dict[tuple[int, str], list[tuple[float, ...]]]:
    """(page, word) -> the boxes PyMuPDF gives that word, scaled."""
    out: dict[tuple[int, str], list[tuple[float, ...]]] = {}
    with pymupdf.open(SAMPLES / f"{name}.pdf") as doc:
        for page in doc:
            for x0, y0, x1, y1, word, *_ in page.get_text("words"):
                box = tuple(v * scale for v in (x0, y0, x1, y1))
                out.setdefault((page.number + 1, word), []).append(box)
    return out


@cache
def pymupdf_lines(name: str) -> dict[tuple[int, str], list[tuple[float, ...]]]:
    """(page, line text with single spaces) -> the boxes of PyMuPDF's lines with that text."""
    grouped: dict[tuple[int, int, int], list[Any]] = {}
    with pymupdf.open(SAMPLES / f"{name}.pdf") as doc:
        for page in doc:
            for x0, y0, x1, y1, word, block, line, _ in page.get_text("words"):
                grouped.setdefault((page.number + 1, block, line), []).append(
                    (word, x0, y0, x1, y1)
                )
    out: dict[tuple[int, str], list[tuple[float, ...]]] = {}
    for (page_no, *_), words in grouped.items():
        box = (min(w[1] for w in words), min(w[2] for w in words))
        box += (max(w[3] for w in words), max(w[4] for w in words))
        out.setdefault((page_no, " ".join(w[0] for w in words)), []).append(box)
    return out


def assert_words_match_pymupdf(doc: ParsedDocument, name: str, scale: float, tol: float) -> int:
    boxes, checked = pymupdf_words(name, scale), 0
    for row in doc.lines.itertuples():
        for start, end, *box in row.words:
            candidates = boxes[(row.page, row.text[start:end])]
            off = min(max(abs(a - b) for a, b in zip(box, c, strict=True)) for c in candidates)
            assert off <= tol, (row.text, row.text[start:end], box, candidates)
            checked += 1
    return checked


# -- the recorded bodies ------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "unit"), [("invoice", "inch"), ("invoice_png", "pixel")])
def test_the_recorded_bodies_are_what_the_generator_reads_in_the_sample(
    name: str, unit: str
) -> None:
    spec = importlib.util.spec_from_file_location("make_bodies", FIXTURES / "make_bodies.py")
    assert spec is not None and spec.loader is not None
    make_bodies = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_bodies)
    fresh = json.loads(json.dumps(make_bodies.build("invoice", unit=unit)))
    assert fresh == body(name), "regenerate: .venv/bin/python tests/fixtures/azure/make_bodies.py"


# -- the line table -------------------------------------------------------------------------------


def test_invoice_boxes_are_pymupdfs_boxes_in_points(fake: FakeAzure) -> None:
    doc = parse(fake, "invoice")
    assert assert_words_match_pymupdf(doc, "invoice", 1.0, 0.5) == 339  # every word of the page
    lines = pymupdf_lines("invoice")
    outside = doc.lines[doc.lines["table"] == -1]
    assert len(outside) == 62
    for row in outside.itertuples():  # the box of PyMuPDF's line with the same text
        box = (row.x0, row.y0, row.x1, row.y1)
        off = min(
            max(abs(a - b) for a, b in zip(box, c, strict=True)) for c in lines[(1, row.text)]
        )
        assert off < 0.5, row.text
    page = doc.pages.iloc[0]
    assert (page["width"], page["height"]) == pytest.approx((595, 842), abs=0.01)
    assert (page["rotation"], page["parser"], bool(page["has_text_layer"])) == (0, "azure", True)
    assert (doc.parser, doc.media_type, set(doc.lines["source"])) == (
        "azure",
        "application/pdf",
        {"azure"},
    )
    assert doc.lines["visible"].all() and (doc.lines["ocr_confidence"] == 0.995).all()
    assert list(doc.lines["line"]) == list(range(1, len(doc.lines) + 1))


def test_each_word_keeps_its_own_confidence_and_the_line_its_lowest(fake: FakeAzure) -> None:
    result = copy.deepcopy(body("invoice"))
    result["pages"][0]["words"][1]["confidence"] = 0.31  # "Tagungshaus" of the first line
    fake.add(result)
    doc = AzureLayoutParser(fake.endpoint, KEY, polling_interval_s=0.05).parse(
        pdf("invoice"), "invoice.pdf"
    )
    first = doc.lines.iloc[0]
    assert first["text"] == "Spreeufer Tagungshaus GmbH"
    assert first["word_confidence"] == (0.995, 0.31, 0.995)
    assert first["ocr_confidence"] == 0.31
    for row in doc.lines.itertuples():  # table rows too: a confidence per word, in order
        assert len(row.word_confidence) == len(row.words) > 0, row.text


def test_the_line_items_table_becomes_one_line_per_row(fake: FakeAzure) -> None:
    doc = parse(fake, "invoice")
    rows = doc.lines[doc.lines["table"] == 0]
    assert rows["text"].iloc[0] == "Pos. | Description | Qty | Unit | Unit price | Amount"
    items = expected("invoice")
    want = [
        " | ".join(
            [str(i + 1), items[f"line_items[{i}].description"]["quote"]]
            + [items[f"line_items[{i}].quantity"]["quote"]]
            + [["day", "day", "pers.", "pers.", "pers.", "h", "day", "flat", "day", "flat"][i]]
            + [items[f"line_items[{i}].{k}"]["quote"] for k in ("unit_price", "amount")]
        )
        for i in range(10)
    ]
    assert list(rows["text"])[1:] == want
    # in reading order where the table was: after the intro, before the totals
    texts = list(doc.lines["text"])
    first = texts.index(rows["text"].iloc[0])
    assert texts[first - 1] == "Spreeufer. We invoice the following services:"
    assert texts[first + 11] == "Subtotal (net)"
    assert not {"Qty", "Amount", "Pos.", "Description"} & set(texts)  # no loose cell lines
    # words are the cells' words, with char ranges into the joined text and PyMuPDF's boxes
    words = pymupdf_words("invoice")
    for row in rows.itertuples():
        cells = row.text.split(" | ")
        assert [row.text[s:e] for s, e, *_ in row.words] == " ".join(cells).split()
        amount = row.words[-2] if row.text.endswith("€") else row.words[-1]
        text = row.text[amount[0] : amount[1]]
        assert any(
            max(abs(a - b) for a, b in zip(amount[2:], c, strict=True)) < 0.5
            for c in words[(1, text)]
        )
        assert row.x0 == pytest.approx(56.0, abs=0.01) and row.x1 == pytest.approx(539.0, abs=0.01)
        assert row.y0 <= min(w[3] for w in row.words) and row.y1 >= max(w[5] for w in row.words)
    table = tables_of(body("invoice"))[0]
    assert (table.index, table.row_count, table.column_count, len(table.cells)) == (0, 11, 6, 66)
    cell = next(c for c in table.cells if (c.row, c.col) == (4, 5))
    assert (cell.text, cell.page, cell.kind) == ("1.302,40 €", 1, "content")
    assert cell.box == pytest.approx((480.0, 437.184, 539.0, 455.184), abs=0.01)
    assert table.rows()[0][0].kind == "columnHeader"


def test_paragraph_roles_are_kept(fake: FakeAzure) -> None:
    invoice = parse(fake, "invoice").lines
    role = dict(zip(invoice["text"], invoice["role"], strict=False))
    assert role["INVOICE"] == "title"
    assert role["Bank details"] == "sectionHeading"
    assert role["Amtsgericht Charlottenburg, HRB 214587 B"] == "pageFooter"
    assert role["Invoice no."] == role["Total due"] == role["EUR"] == ""
    contract = parse(fake, "contract")
    lines = contract.lines
    assert list(lines[lines["role"] == "pageNumber"]["text"]) == [
        f"Page {p} of 3" for p in (1, 2, 3)
    ]
    assert list(lines[lines["text"] == "CONFIDENTIAL"]["role"]) == ["pageHeader"] * 3
    assert list(lines[lines["role"] == "title"]["text"]) == [
        "MANAGED DATA PLATFORM SERVICES AGREEMENT"
    ]
    headings = list(lines[lines["role"] == "sectionHeading"]["text"])
    assert headings[:3] == ["RECITALS", "1. DEFINITIONS", "2. SERVICES"]
    # global line numbers run on over the three pages, line_in_page restarts on each
    assert list(contract.pages["page"]) == [1, 2, 3]
    firsts = lines.groupby("page")["line_in_page"].min()
    assert list(firsts) == [1, 1, 1] and lines["line"].is_monotonic_increasing


# -- end to end ---------------------------------------------------------------------------------


def answer_for(name: str) -> Callable[[LLMRequest], dict[str, Any]]:
    """The samples' expected values as a model's answer, read off the Azure line table the
    pipeline hands the model; each line item's fields cited on that item's table row."""

    def answer(request: LLMRequest) -> dict[str, Any]:
        lines = request.document.lines
        fields = perfect_fields(name, lines)
        for path, field in fields.items():
            if path.startswith("line_items["):
                item = int(path.split("[")[1].split("]")[0])
                row = lines[(lines["table"] == 0) & lines["text"].str.startswith(f"{item + 1} | ")]
                assert len(row) == 1
                line = int(row["line"].iloc[0])
                field.update(page=int(row["page"].iloc[0]), line_start=line, line_end=line)
        return build_answer(get_schema(SCHEMAS[name]), fields)

    return answer


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_expected_field_verifies_on_the_azure_line_table(fake: FakeAzure, name: str) -> None:
    fake.add(body(name))
    parser = AzureLayoutParser(fake.endpoint, KEY, polling_interval_s=0.05)
    schema, llm = get_schema(SCHEMAS[name]), ScriptedLLM(answer_for(name))
    result = extract(SAMPLES / f"{name}.pdf", schema, parser=parser, llm=llm)
    assert result.document.parser == "azure"
    bad = {
        p: (f.status, f.reasons)
        for p, f in result.fields.items()
        if p in expected(name) and f.status != Status.VERIFIED
    }
    assert bad == {}
    assert result.summary.verified == len(expected(name))
    if name != "invoice":
        return
    lines = llm.requests[0].document.lines.set_index("line")
    for i in range(10):
        field = result.fields[f"line_items[{i}].amount"]
        assert (field.status, field.span_corrected) == (Status.VERIFIED, False)
        assert field.line_start == field.line_end
        row = lines.loc[field.line_start]
        assert row["table"] == 0 and row["text"].startswith(f"{i + 1} | ")
        assert row["text"].split(" | ")[5] == field.quote  # the Amount cell of that row
        (box,) = field.boxes
        assert box.page == 1 and row["y0"] <= box.y0 and box.y1 <= row["y1"]
        if field.quote != result.fields[f"line_items[{i}].unit_price"].quote:
            assert box.x0 > 480 and box.x1 == pytest.approx(535.0, abs=0.5)  # Amount column


# -- images ---------------------------------------------------------------------------------------


def test_an_image_is_read_in_its_own_pixels(fake: FakeAzure, make: Make) -> None:
    with pymupdf.open(SAMPLES / "invoice.pdf") as doc:
        png = doc[0].get_pixmap(dpi=100).tobytes("png")
    fake.add(body("invoice_png"))
    doc = make().parse(png, "invoice.png")
    assert doc.media_type == "image/png"
    page = doc.pages.iloc[0]
    assert (page["width"], page["height"]) == (827.0, 1170.0)
    assert assert_words_match_pymupdf(doc, "invoice", PX, 0.5) == 339
    title = doc.lines[doc.lines["text"] == "INVOICE"].iloc[0]
    assert (title["x0"], title["y0"]) == pytest.approx((56.0 * PX, 290.6 * PX), abs=0.5)
    assert len(doc.lines[doc.lines["table"] == 0]) == 11
    (post,) = fake.seen("POST")
    assert post.body == png and post.headers["content-type"] == "application/octet-stream"


# -- the wire: request, polling ------------------------------------------------------------------


def test_the_request_and_the_polling_interval(fake: FakeAzure, make: Make) -> None:
    fake.add(body("invoice"))
    fake.running_polls = 3
    make(polling_interval_s=0.3).parse(pdf("invoice"), "invoice.pdf")
    post, *polls = fake.requests
    assert post.path == "/documentintelligence/documentModels/prebuilt-layout:analyze"
    assert post.query == {"api-version": "2024-11-30", "stringIndexType": "unicodeCodePoint"}
    assert post.headers["ocp-apim-subscription-key"] == KEY
    assert post.body == pdf("invoice")
    assert len(polls) == 4 and all(p.method == "GET" for p in polls)
    # azure-core polls once at once, then every polling_interval (not the SDK's 30 s)
    gaps = [b.at - a.at for a, b in itertools.pairwise(polls)]
    assert all(0.28 <= gap < 1.0 for gap in gaps), gaps


def test_a_5xx_blip_is_retried_with_the_whole_body(fake: FakeAzure, make: Make) -> None:
    fake.add(body("invoice"))
    fake.post_errors.append(Reply(503, error("500")))
    doc = make(max_retries=1).parse(pdf("invoice"), "invoice.pdf")
    assert len(doc.lines) == 73
    assert [p.body == pdf("invoice") for p in fake.seen("POST")] == [True, True]


# -- errors -------------------------------------------------------------------------------------


def test_a_wrong_key_is_an_auth_error(make: Make, fake: FakeAzure) -> None:
    with pytest.raises(AzureAuthError) as caught:
        make(key="not-the-key").parse(pdf("invoice"), "invoice.pdf")
    assert caught.value.code == "azure_auth_failed" and caught.value.exit_code == 2
    assert "AZURE_DOCUMENT_INTELLIGENCE_KEY" in str(caught.value)
    assert "Access denied" in str(caught.value)
    assert len(fake.requests) == 1  # not retried


def test_429_with_a_long_retry_after_is_raised_at_once(make: Make, fake: FakeAzure) -> None:
    fake.post_errors.append(Reply(429, error("429"), {"Retry-After": "30"}))
    start = time.monotonic()
    with pytest.raises(AzureQuota) as caught:
        make().parse(pdf("invoice"), "invoice.pdf")
    assert time.monotonic() - start < 5
    err = caught.value
    assert (err.code, err.retry_after, err.transient) == ("azure_quota", 30.0, True)
    assert "wait 30 s" in str(err) and len(fake.seen("POST")) == 1
    again = pickle.loads(pickle.dumps(err))  # crosses Celery's process boundary intact
    assert (type(again), again.retry_after, str(again)) == (AzureQuota, 30.0, str(err))


def test_429_with_a_short_retry_after_is_waited_out(make: Make, fake: FakeAzure) -> None:
    fake.add(body("invoice"))
    fake.post_errors.append(Reply(429, error("429"), {"Retry-After": "1"}))
    doc = make().parse(pdf("invoice"), "invoice.pdf")
    posts = fake.seen("POST")
    assert len(doc.lines) == 73 and len(posts) == 2 and posts[1].at - posts[0].at >= 0.95


def test_a_500_storm_is_unavailable_after_the_retries(make: Make, fake: FakeAzure) -> None:
    fake.post_errors.extend(Reply(500, error("500")) for _ in range(5))
    with pytest.raises(AzureUnavailable) as caught:
        make(max_retries=1).parse(pdf("invoice"), "invoice.pdf")
    assert (caught.value.code, caught.value.transient) == ("azure_unavailable", True)
    assert "InternalServerError" in str(caught.value)
    assert len(fake.seen("POST")) == 2


def test_an_analysis_that_never_ends_times_out(make: Make, fake: FakeAzure) -> None:
    fake.hang = True
    start = time.monotonic()
    with pytest.raises(AzureUnavailable, match=r"timed out after 1\.5 s"):
        make(timeout_s=1.5, polling_interval_s=0.2).parse(pdf("invoice"), "invoice.pdf")
    assert 1.4 <= time.monotonic() - start < 3.0
    assert len(fake.seen("GET")) >= 5


def test_an_upload_that_gets_no_answer_times_out(make: Make, fake: FakeAzure) -> None:
    fake.post_errors.append(Reply(202, delay_s=30))
    start = time.monotonic()
    with pytest.raises(AzureUnavailable) as caught:
        make(timeout_s=1.0, max_retries=0).parse(pdf("invoice"), "invoice.pdf")
    assert time.monotonic() - start < 3.0
    assert caught.value.transient


def test_invalid_content_is_a_document_error(make: Make, fake: FakeAzure) -> None:
    fake.post_errors.append(Reply(400, error("InvalidContent")))
    with pytest.raises(CorruptDocument) as caught:
        make().parse(pdf("invoice"), "invoice.pdf")
    assert caught.value.code == "pdf_corrupt" and caught.value.exit_code == 2
    assert "InvalidContent: The file is corrupted" in str(caught.value)
    fake.post_errors.append(Reply(400, error("UnsupportedContent")))
    with pytest.raises(UnsupportedDocument):
        make().parse(pdf("invoice"), "invoice.pdf")


def test_a_failed_analysis_is_translated_too(make: Make, fake: FakeAzure) -> None:
    fake.failure = error("failed")
    with pytest.raises(CorruptDocument, match="InvalidContent"):
        make().parse(pdf("invoice"), "invoice.pdf")
    fake.failure = {"code": "InternalServerError", "message": "An unexpected error occurred."}
    with pytest.raises(AzureUnavailable, match="InternalServerError"):
        make().parse(pdf("invoice"), "invoice.pdf")


def test_unreadable_input_is_refused_before_any_request(make: Make, fake: FakeAzure) -> None:
    with pytest.raises(UnsupportedDocument, match="not a PDF, PNG, JPEG, TIFF or BMP"):
        make().parse(b"PK\x03\x04 a docx", "a.docx")
    with pytest.raises(EmptyDocument):
        make().parse(b"", "empty.pdf")
    assert fake.requests == []


def test_a_closed_port_is_unavailable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    parser = AzureLayoutParser(f"http://127.0.0.1:{port}", KEY, max_retries=0, timeout_s=5)
    with pytest.raises(AzureUnavailable, match="AZURE_DOCUMENT_INTELLIGENCE_ENDPOINT"):
        parser.parse(pdf("invoice"), "invoice.pdf")


# -- settings -----------------------------------------------------------------------------------


def test_from_settings_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="AZURE_DOCUMENT_INTELLIGENCE_ENDPOINT"):
        AzureLayoutParser.from_settings(Settings())
    monkeypatch.setenv("AZURE_DOCUMENT_INTELLIGENCE_ENDPOINT", "https://di.example.azure.com/")
    monkeypatch.setenv("AZURE_DOCUMENT_INTELLIGENCE_KEY", "k")
    monkeypatch.setenv("EVIDEX_AZURE_TIMEOUT_S", "45")
    monkeypatch.setenv("EVIDEX_AZURE_POLLING_INTERVAL_S", "2")
    parser = AzureLayoutParser.from_settings(Settings())
    assert (parser.endpoint, parser.timeout_s, parser.polling_interval_s) == (
        "https://di.example.azure.com",
        45.0,
        2.0,
    )
    assert "k" not in repr(Settings().azure_document_intelligence_key)
    with pytest.raises(ConfigError):
        AzureLayoutParser("di.example.azure.com", "k")


def test_a_given_client_is_used_and_left_open(fake: FakeAzure) -> None:
    from azure.ai.documentintelligence import DocumentIntelligenceClient
    from azure.core.credentials import AzureKeyCredential

    fake.add(body("invoice"), body("invoice"))
    with DocumentIntelligenceClient(fake.endpoint, AzureKeyCredential(KEY)) as client:
        parser = AzureLayoutParser("", "", client=client, polling_interval_s=0.05)
        first = parser.parse(pdf("invoice"), "invoice.pdf")
        second = parser.parse(pdf("invoice"), "invoice.pdf")  # still open after the first
    assert len(first.lines) == len(second.lines) == 73
    assert len(fake.seen("POST")) == 2
