"""The review page of an image file (PNG, JPEG, TIFF): each frame is a page image, shown upright
and scaled down past REVIEW_IMAGE_PIXELS, with every box at its fraction of the page the OCR read
(``page_info`` in pixels). Over the memory stores; the images are made here with Pillow, and the
results are the invoice's real one with its evidence moved onto the image, so only the drawing is
under test (the whole path, OCR included, is in ``test_upload_browser``).
"""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from test_api import ACME, Harness, harness, problem
from test_review import machine, succeed_with

from evidex.schemas import Box
from evidex.schemas.result import PageInfo
from evidex.service.review import MAX_PAGE_PIXELS, REVIEW_IMAGE_PIXELS

FIELD = "invoice_number"
_BOX = re.compile(r'<div class="box s-\w+[^"]*" data-field="(f-\d+)" ([^>]*)>')
_NUMBER = re.compile(r'data-([ltwh])="([0-9.]+)"')


def _image(size: tuple[int, int], kind: str, **save: object) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, "white").save(out, kind, **save)
    return out.getvalue()


def _result(pages: list[tuple[int, int]], boxes: list[Box]) -> str:
    """The invoice's result read from an image of ``pages`` (pixels): FIELD's evidence in
    ``boxes``, every other field without boxes."""
    result = machine()
    fields = {
        path: field.model_copy(update={"boxes": boxes if path == FIELD else []})
        for path, field in result.fields.items()
    }
    info = [
        PageInfo(page=n, width=w, height=h, unit="px", parser="ocr")
        for n, (w, h) in enumerate(pages, start=1)
    ]
    document = result.document.model_copy(
        update={"pages": len(pages), "parser": "ocr", "page_info": info}
    )
    return result.model_copy(update={"fields": fields, "document": document}).to_json()


def _job(api: Harness, data: bytes, filename: str, media: str, result_json: str) -> str:
    r = api.client.post(
        "/v1/jobs",
        files={"file": (filename, data, media)},
        data={"schema": "invoice"},
        headers=ACME,
    )
    assert r.status_code == 202, r.text
    job_id: str = r.json()["id"]
    succeed_with(api.jobs, api.blobs, job_id, result_json)
    return job_id


def _boxes(html: str) -> list[dict[str, float]]:
    return [{k: float(v) for k, v in _NUMBER.findall(attrs)} for _, attrs in _BOX.findall(html)]


def _png_size(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG"
        return image.size


@pytest.mark.parametrize(
    ("kind", "media", "name"),
    [
        ("PNG", "image/png", "scan.png"),
        ("JPEG", "image/jpeg", "photo.jpg"),
        ("WEBP", "image/webp", "photo.webp"),
    ],
)
def test_image_page_shows_boxes_at_their_fraction_of_the_page(
    api: Harness, kind: str, media: str, name: str
) -> None:
    data = _image((600, 300), kind)
    box = Box(page=1, x0=60, y0=30, x1=300, y1=60)
    job = _job(api, data, name, media, _result([(600, 300)], [box]))
    html = api.client.get(f"/v1/jobs/{job}/review", headers=ACME).text
    assert "no page images" not in html
    assert f'src="/v1/jobs/{job}/pages/1.png" width="600" height="300"' in html
    assert _boxes(html) == [{"l": 10.0, "t": 10.0, "w": 40.0, "h": 10.0}]
    image = api.client.get(f"/v1/jobs/{job}/pages/1.png", headers=ACME)
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert _png_size(image.content) == (600, 300)
    problem(api.client.get(f"/v1/jobs/{job}/pages/2.png", headers=ACME), 404, "page_not_found")


def test_a_large_photo_is_shown_scaled_down_with_its_boxes_in_place(api: Harness) -> None:
    data = _image((4000, 3000), "JPEG")
    box = Box(page=1, x0=1000, y0=750, x1=3000, y1=1500)
    job = _job(api, data, "photo.jpg", "image/jpeg", _result([(4000, 3000)], [box]))
    html = api.client.get(f"/v1/jobs/{job}/review", headers=ACME).text
    assert f'src="/v1/jobs/{job}/pages/1.png" width="2309" height="1732"' in html
    assert REVIEW_IMAGE_PIXELS >= 2309 * 1732
    assert _boxes(html) == [{"l": 25.0, "t": 25.0, "w": 50.0, "h": 25.0}]
    image = api.client.get(f"/v1/jobs/{job}/pages/1.png", headers=ACME)
    assert _png_size(image.content) == (2309, 1732)


def test_a_photo_taken_sideways_is_shown_upright(api: Harness) -> None:
    """EXIF orientation 6 (the camera held sideways): the file holds 300 x 100 pixels, a viewer
    shows them 100 x 300, and so does the page; the OCR reads it upright too (page_info)."""
    exif = Image.Exif()
    exif[0x0112] = 6
    data = _image((300, 100), "JPEG", exif=exif.tobytes())
    box = Box(page=1, x0=10, y0=30, x1=50, y1=150)
    job = _job(api, data, "sideways.jpg", "image/jpeg", _result([(100, 300)], [box]))
    html = api.client.get(f"/v1/jobs/{job}/review", headers=ACME).text
    assert f'src="/v1/jobs/{job}/pages/1.png" width="100" height="300"' in html
    assert _boxes(html) == [{"l": 10.0, "t": 10.0, "w": 40.0, "h": 40.0}]
    image = api.client.get(f"/v1/jobs/{job}/pages/1.png", headers=ACME)
    assert _png_size(image.content) == (100, 300)


def test_each_frame_of_a_tiff_is_a_page(api: Harness) -> None:
    out = io.BytesIO()
    first, second = Image.new("L", (400, 200), 255), Image.new("L", (200, 400), 255)
    first.save(out, "TIFF", save_all=True, append_images=[second])
    box = Box(page=2, x0=20, y0=100, x1=120, y1=140)
    result = _result([(400, 200), (200, 400)], [box])
    job = _job(api, out.getvalue(), "fax.tiff", "image/tiff", result)
    html = api.client.get(f"/v1/jobs/{job}/review", headers=ACME).text
    assert f'src="/v1/jobs/{job}/pages/1.png" width="400" height="200"' in html
    assert f'src="/v1/jobs/{job}/pages/2.png" width="200" height="400"' in html
    page_two = html[html.index('id="page-2"') :]
    assert _boxes(page_two) == [{"l": 10.0, "t": 25.0, "w": 50.0, "h": 10.0}]
    for n, size in ((1, (400, 200)), (2, (200, 400))):
        image = api.client.get(f"/v1/jobs/{job}/pages/{n}.png", headers=ACME)
        assert _png_size(image.content) == size


def test_an_image_over_the_page_bound_is_page_too_large_and_its_fields_still_listed() -> None:
    side = 5001  # 25,010,001 pixels: one row over the bound; a white PNG of it is small
    assert side * side > MAX_PAGE_PIXELS
    data = _image((side, side), "PNG")
    with harness(max_upload_bytes=len(data) + 1) as api:
        job = _job(api, data, "poster.png", "image/png", _result([(side, side)], []))
        html = api.client.get(f"/v1/jobs/{job}/review", headers=ACME).text
        assert f'data-path="{FIELD}"' in html
        body = problem(
            api.client.get(f"/v1/jobs/{job}/pages/1.png", headers=ACME), 413, "page_too_large"
        )
        assert "5001 x 5001 pixels" in body["detail"]
