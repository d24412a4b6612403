"""The README's main command: the samples through the real API, worker and Redis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from samples import service_demo


def test_service_demo_runs_the_samples_end_to_end(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVIDEX_REDIS_URL", redis_url)
    assert service_demo.run(tmp_path) is True
    for stem, field in (
        ("invoice", "payment.iban"),
        ("cv", "email"),
        ("contract", "governing_law"),
    ):
        result = json.loads((tmp_path / f"{stem}.service.result.json").read_text())
        assert result["fields"][field]["status"] == "verified"
        assert (tmp_path / f"{stem}.service.highlighted.pdf").read_bytes().startswith(b"%PDF-")
