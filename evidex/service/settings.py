"""Settings of the REST service: API keys, upload limits, rate limit, where ``serve`` listens.

API keys come from ``EVIDEX_API_KEYS`` (``tenant=key,tenant=key``) and/or
``EVIDEX_API_KEYS_FILE`` (one ``tenant=key`` per line, ``#`` starts a comment). Each key is
hashed (SHA-256) the moment it is read; the settings object never holds a key in plain text, so
it can be logged, repr'd or pickled without leaking one. There is no default key: without keys
every ``/v1`` request is refused (``production_app`` refuses to start instead).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import NoDecode

from evidex.workers.settings import WorkerSettings

__all__ = ["MIB", "ApiKey", "ServiceSettings", "hash_key", "parse_api_keys"]

MIB = 1024 * 1024
_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def hash_key(key: str) -> str:
    """The hex SHA-256 of an API key: what is stored, compared and used to key rate limits."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class ApiKey(BaseModel):
    """One accepted key: the tenant it belongs to and the SHA-256 of the key."""

    model_config = ConfigDict(frozen=True)

    tenant: str
    key_sha256: str


def parse_api_keys(pairs: Iterable[str], source: str) -> list[ApiKey]:
    """``tenant=key`` strings into hashed keys; blank entries and ``#`` comments are skipped."""
    keys: list[ApiKey] = []
    for number, raw in enumerate(pairs, start=1):
        entry = raw.split("#", 1)[0].strip()
        if not entry:
            continue
        tenant, sep, key = (part.strip() for part in entry.partition("="))
        if not sep or not key:
            raise ValueError(f"{source} entry {number} is not 'tenant=key'")
        if not _TENANT.match(tenant):
            raise ValueError(
                f"{source} entry {number}: tenant {tenant!r} must be 1-64 letters, digits, "
                "'-' or '_' (it names the tenant's storage folder)"
            )
        keys.append(ApiKey(tenant=tenant, key_sha256=hash_key(key)))
    return keys


class ServiceSettings(WorkerSettings):
    """Worker settings plus what only the HTTP service needs."""

    api_keys: Annotated[tuple[ApiKey, ...], NoDecode] = Field(
        default=(), description="EVIDEX_API_KEYS: 'tenant=key,tenant=key'; hashed at load."
    )
    api_keys_file: Path | None = Field(
        default=None, description="EVIDEX_API_KEYS_FILE: one 'tenant=key' per line, # comments."
    )
    max_upload_bytes: int = Field(default=25 * MIB, ge=1)
    max_pages: int = Field(default=200, ge=1)
    rate_limit_per_minute: int = Field(default=120, ge=1)
    public_rate_limit_per_minute: int = Field(
        default=120,
        ge=1,
        description="EVIDEX_PUBLIC_RATE_LIMIT_PER_MINUTE: requests a minute from one client "
        "address to the routes that answer without an API key and work for it (a review "
        "link's page, images and decisions; /metrics).",
    )
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    metrics_token: SecretStr | None = Field(
        default=None,
        description="EVIDEX_METRICS_TOKEN: GET /metrics answers 'Authorization: Bearer <it>'; "
        "unset, the route does not exist (404).",
    )
    review_link_secret: SecretStr | None = Field(
        default=None,
        description="EVIDEX_REVIEW_LINK_SECRET: signs review links (POST "
        "/v1/jobs/{id}/review-links); unset, review links cannot be made.",
    )
    public_url: str = Field(
        default="",
        description="EVIDEX_PUBLIC_URL: the service's address as reviewers reach it "
        "(https://evidex.example.com), for the review links it hands out; empty: the "
        "request's own host.",
    )

    @field_validator("api_keys", mode="before")
    @classmethod
    def _hash_keys(cls, value: Any) -> Any:
        if isinstance(value, str):
            return parse_api_keys(value.split(","), "EVIDEX_API_KEYS")
        if isinstance(value, Mapping):  # {tenant: key}, convenient in code and tests
            return parse_api_keys((f"{t}={k}" for t, k in value.items()), "api_keys")
        return value

    @model_validator(mode="after")
    def _load_key_file(self) -> ServiceSettings:
        keys = list(self.api_keys)
        if self.api_keys_file is not None:
            try:
                text = self.api_keys_file.read_text(encoding="utf-8")
            except OSError as exc:
                raise ValueError(f"EVIDEX_API_KEYS_FILE cannot be read: {exc}") from None
            keys += parse_api_keys(text.splitlines(), str(self.api_keys_file))
        owners: dict[str, str] = {}
        for key in keys:
            if owners.setdefault(key.key_sha256, key.tenant) != key.tenant:
                raise ValueError("one API key is configured for two tenants; give each its own")
        self.api_keys = tuple(dict.fromkeys(keys))
        return self
