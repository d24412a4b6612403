"""Photos over REST: WebP and HEIC accepted like JPEG, a decompression bomb refused up front,
and ``options.ocr`` checked like every other option."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image
from test_api import ACME, Harness, problem


def bomb() -> bytes:
    """A PNG claiming 40,000 x 40,000 pixels, a few hundred bytes long."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    ihdr = struct.pack(">IIBBBBB", 40_000, 40_000, 8, 0, 0, 0, 0)
    png = chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 100))
    return b"\x89PNG\r\n\x1a\n" + png + chunk(b"IEND", b"")


def photo(kind: str) -> bytes:
    if kind == "HEIF":
        from pillow_heif import register_heif_opener

        register_heif_opener()
    out = io.BytesIO()
    Image.new("RGB", (120, 80), (240, 240, 240)).save(out, format=kind)
    return out.getvalue()


def test_a_decompression_bomb_is_refused_as_bad_input_before_a_job_exists(api: Harness) -> None:
    body = problem(api.submit(bomb(), filename="bomb.png"), 422, "bad_input")
    assert "too large to read safely" in body["detail"]
    assert api.enqueued == []


@pytest.mark.parametrize(
    ("kind", "name", "media"),
    [("WEBP", "a.webp", "image/webp"), ("HEIF", "a.heic", "image/heif")],
)
def test_webp_and_heic_photos_are_accepted_like_jpeg(
    api: Harness, kind: str, name: str, media: str
) -> None:
    r = api.submit(photo(kind), filename=name)
    assert r.status_code == 202, r.text
    job = api.client.get(r.headers["location"], headers=ACME).json()
    assert job["status"] == "queued" and len(api.enqueued) == 1
    stored = api.jobs.get(job["id"])
    assert stored is not None and stored.media_type == media


def test_an_unknown_ocr_engine_is_an_invalid_option(api: Harness) -> None:
    form = {"schema": "invoice", "options": '{"ocr": "easyocr"}'}
    body = problem(api.submit(photo("WEBP"), filename="a.webp", form=form), 422, "options_invalid")
    assert "options: ocr:" in body["detail"]


def test_a_jpeg_cut_short_in_transfer_is_refused_as_damaged_before_a_job_exists(
    api: Harness,
) -> None:
    whole = io.BytesIO()
    Image.effect_noise((400, 300), 60).convert("RGB").save(whole, format="JPEG")
    cut = whole.getvalue()[: len(whole.getvalue()) // 2]
    body = problem(api.submit(cut, filename="receipt.jpg"), 422, "pdf_corrupt")
    assert "receipt.jpg: the JPEG image is damaged or truncated" in body["detail"]
    assert "export or scan it again" in body["detail"]
    assert api.enqueued == []
    r = api.submit(whole.getvalue(), filename="receipt.jpg")
    assert r.status_code == 202, r.text
