"""The committed sample documents: reproducible, quoted faithfully, arithmetically sound."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from schwifty import IBAN
from stdnum.eu import vat

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
NAMES = ("cv", "invoice", "contract")


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _page_texts(pdf: Path) -> list[str]:
    with pymupdf.open(pdf) as doc:
        return [page.get_text("text") for page in doc]


def _expected(name: str, folder: Path = SAMPLES) -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(
        (folder / f"{name}.expected.json").read_text(encoding="utf-8")
    )
    return data


def _money(entry: dict[str, Any]) -> Decimal:
    return Decimal(str(entry["value"]["value"]))


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("samples")
    run = subprocess.run(
        [sys.executable, "-m", "samples.make_samples", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return out


@pytest.mark.parametrize("name", NAMES)
def test_committed_pdf_is_reproducible(name: str, regenerated: Path) -> None:
    committed = _page_texts(SAMPLES / f"{name}.pdf")
    fresh = _page_texts(regenerated / f"{name}.pdf")
    assert len(fresh) == len(committed)
    for page_no, (old, new) in enumerate(zip(committed, fresh, strict=True), start=1):
        assert new == old, f"{name}.pdf page {page_no} differs from a fresh build"


@pytest.mark.parametrize("name", NAMES)
def test_committed_expected_file_is_reproducible(name: str, regenerated: Path) -> None:
    assert _expected(name, regenerated) == _expected(name)


@pytest.mark.parametrize("name", NAMES)
def test_every_quote_is_in_the_pdf_text(name: str) -> None:
    text = _collapse(" ".join(_page_texts(SAMPLES / f"{name}.pdf")))
    expected = _expected(name)
    assert expected
    missing = [
        path
        for path, entry in expected.items()
        if not entry["quote"].strip() or _collapse(entry["quote"]) not in text
    ]
    assert missing == []


def test_invoice_line_items_sum_to_subtotal() -> None:
    expected = _expected("invoice")
    amounts = [_money(e) for p, e in expected.items() if p.endswith(".amount")]
    assert len(amounts) >= 8
    assert sum(amounts, Decimal(0)) == _money(expected["subtotal"])


def test_invoice_tax_and_total() -> None:
    expected = _expected("invoice")
    subtotal, tax, total = (_money(expected[k]) for k in ("subtotal", "tax", "total"))
    rate = Decimal(str(expected["tax_rate"]["value"]))
    assert tax == (subtotal * rate / 100).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert subtotal + tax == total


def test_invoice_bank_and_vat_ids_are_valid() -> None:
    expected = _expected("invoice")
    iban = IBAN(expected["payment.iban"]["value"])
    assert str(iban.bic) == expected["payment.bic"]["value"]
    for party in ("seller", "buyer"):
        assert vat.is_valid(expected[f"{party}.vat_id"]["value"])
    assert expected["seller.vat_id"]["value"][:2] != expected["buyer.vat_id"]["value"][:2]


@pytest.mark.parametrize(
    ("name", "earlier", "later"),
    [
        ("invoice", "issue_date", "due_date"),
        ("contract", "effective_date", "expiration_date"),
        ("cv", "work_history[1].start_date", "work_history[1].end_date"),
        ("cv", "education[0].start_date", "education[0].end_date"),
    ],
)
def test_dates_are_in_order(name: str, earlier: str, later: str) -> None:
    expected = _expected(name)
    first = date.fromisoformat(expected[earlier]["value"]["iso"])
    second = date.fromisoformat(expected[later]["value"]["iso"])
    assert first < second
