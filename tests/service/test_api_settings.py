"""API keys from the environment or a file, hashed at load; and the one error table."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from test_api import ACME, harness, problem

from evidex.extractors.errors import (
    CorruptDocument,
    EncryptedDocument,
    LLMUnavailable,
    NoTextLayer,
    UnsupportedDocument,
)
from evidex.schemas import ConfigError, EvidexError, InputError, RunError, SchemaInvalid
from evidex.service.auth import authenticate
from evidex.service.problems import PROBLEMS, ApiError
from evidex.service.settings import MIB, ApiKey, ServiceSettings
from evidex.workers.stores import StoreUnavailable


def sha(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def test_defaults() -> None:
    settings = ServiceSettings()
    assert settings.max_upload_bytes == 25 * MIB and settings.max_pages == 200
    assert settings.rate_limit_per_minute == 120 and settings.api_keys == ()


def test_keys_from_the_environment_are_hashed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVIDEX_API_KEYS", " acme = s3cret-a , globex=s3cret-b,")
    settings = ServiceSettings()
    assert settings.api_keys == (
        ApiKey(tenant="acme", key_sha256=sha("s3cret-a")),
        ApiKey(tenant="globex", key_sha256=sha("s3cret-b")),
    )
    for shown in (repr(settings), settings.model_dump_json(), str(settings.model_dump())):
        assert "s3cret" not in shown


def test_keys_from_a_file_with_comments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = tmp_path / "keys"
    keys.write_text("# tenants\nacme=k-file-1\n\n  globex = k-file-2  # rotated 2026-01\n")
    monkeypatch.setenv("EVIDEX_API_KEYS_FILE", str(keys))
    monkeypatch.setenv("EVIDEX_API_KEYS", "initech=k-env")
    tenants = [k.tenant for k in ServiceSettings().api_keys]
    assert tenants == ["initech", "acme", "globex"]
    assert authenticate("Bearer k-file-2", ServiceSettings().api_keys).tenant == "globex"


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("acme", "EVIDEX_API_KEYS entry 1 is not 'tenant=key'"),
        ("acme=", "EVIDEX_API_KEYS entry 1 is not 'tenant=key'"),
        ("../etc=k", "tenant '../etc' must be 1-64 letters"),
        ("acme=same,globex=same", "one API key is configured for two tenants"),
    ],
)
def test_bad_keys_are_refused(monkeypatch: pytest.MonkeyPatch, value: str, error: str) -> None:
    monkeypatch.setenv("EVIDEX_API_KEYS", value)
    with pytest.raises(ValidationError, match=error):
        ServiceSettings()


def test_missing_key_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="EVIDEX_API_KEYS_FILE cannot be read"):
        ServiceSettings(api_keys_file=tmp_path / "missing")


def test_the_same_key_twice_for_one_tenant_is_kept_once() -> None:
    assert len(ServiceSettings(api_keys="acme=k,acme=k").api_keys) == 1


# --- the error table ---------------------------------------------------------------------------


class BudgetExceeded(RunError):  # what the budget module raises (code only matters here)
    code = "budget_exceeded"


class SomeNewInputError(InputError):
    code = "some_new_input_error"


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (SchemaInvalid("bad"), 422, "schema_invalid"),
        (EncryptedDocument("locked"), 422, "pdf_encrypted"),
        (CorruptDocument("broken"), 422, "pdf_corrupt"),
        (NoTextLayer("scan"), 422, "no_text_layer"),
        (UnsupportedDocument("png"), 415, "unsupported_media_type"),
        (LLMUnavailable("down"), 503, "llm_unavailable"),
        (BudgetExceeded("spent"), 429, "budget_exceeded"),
        (SomeNewInputError("new"), 422, "some_new_input_error"),
        (ConfigError("misconfigured"), 500, "config_error"),
        (EvidexError("odd"), 500, "evidex_error"),
        (StoreUnavailable("redis down"), 503, "store_unavailable"),
        (RuntimeError("bug"), 500, "internal_error"),
        (ApiError("job_not_ready", "wait"), 409, "job_not_ready"),
    ],
)
def test_errors_map_to_problems(error: Exception, status: int, code: str) -> None:
    class Failing:
        def list(self, *args: Any, **kwargs: Any) -> Any:
            raise error

    with harness() as api:
        state = api.client.app.state
        state.services = dataclasses.replace(state.services, job_store=Failing())
        body = problem(api.client.get("/v1/jobs", headers=ACME), status, code)
        if code == "internal_error":
            assert "bug" not in body["detail"]  # no internals leak


def test_every_problem_code_has_a_4xx_or_5xx_status() -> None:
    assert all(400 <= kind.status < 600 and kind.title for kind in PROBLEMS.values())
    with pytest.raises(ValueError, match="unknown problem code"):
        ApiError("no_such_code", "x")
