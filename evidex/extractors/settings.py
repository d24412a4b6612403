"""Settings, read from the environment by pydantic-settings at the composition roots only."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from evidex.extractors.names import BackendName, OcrEngineName, ParserName

__all__ = ["Settings"]


class Settings(BaseSettings):
    """Everything configurable; names are part of the public contract (see README)."""

    model_config = SettingsConfigDict(env_prefix="EVIDEX_", extra="ignore", populate_by_name=True)

    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "openai_api_key")
    )
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "openai_base_url")
    )
    llm: BackendName | None = Field(
        default=None,
        description="Backend; default openai when OPENAI_API_KEY or AZURE_OPENAI_ENDPOINT is set, "
        "else rules.",
    )
    model: str = "gpt-4.1-mini"
    openai_api: Literal["responses", "chat", "prompt", "azure"] = Field(
        default="responses",
        description="responses: Responses API + strict schema; chat: Chat Completions json_schema "
        "(OpenAI-compatible servers); prompt: schema in the prompt, validated, one repair retry; "
        "azure: an Azure OpenAI deployment (EVIDEX_MODEL) through its Chat Completions, the "
        "default when AZURE_OPENAI_ENDPOINT is set.",
    )
    azure_openai_endpoint: str | None = Field(
        default=None,
        validation_alias=AliasChoices("AZURE_OPENAI_ENDPOINT", "azure_openai_endpoint"),
    )
    azure_openai_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("AZURE_OPENAI_API_KEY", "azure_openai_api_key"),
        description="Unset: sign in with Microsoft Entra ID (needs the azure-identity package).",
    )
    openai_api_version: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_API_VERSION", "openai_api_version"),
        description="The Azure OpenAI API version, e.g. 2024-10-21.",
    )
    llm_timeout_s: float = 120.0
    llm_max_retries: int = Field(default=4, ge=0, le=10)
    llm_backoff_s: float = Field(default=1.0, ge=0.0)
    max_output_tokens: int = 16_384
    context_tokens: int | None = Field(
        default=None,
        ge=1,
        description="The model's input window in tokens; prompts use at most 75% of it, longer "
        "documents are sent in chosen pages. Unset: the whole document in one call.",
    )
    parser: ParserName = "auto"
    ocr_engine: OcrEngineName = Field(
        default="auto",
        description="The local OCR engine for scans and photos (EVIDEX_OCR_ENGINE): tesseract, "
        "rapidocr, or auto (per page, RapidOCR, then Tesseract too when the page reads poorly).",
    )
    azure_document_intelligence_endpoint: str | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "AZURE_DOCUMENT_INTELLIGENCE_ENDPOINT", "azure_document_intelligence_endpoint"
        ),
    )
    azure_document_intelligence_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "AZURE_DOCUMENT_INTELLIGENCE_KEY", "azure_document_intelligence_key"
        ),
    )
    azure_timeout_s: float = Field(
        default=120.0, gt=0, description="Overall limit for one Azure analysis (upload + polling)."
    )
    azure_polling_interval_s: float = Field(
        default=1.0, gt=0, description="Seconds between Azure status polls (the SDK default is 30)."
    )

    @model_validator(mode="after")
    def _azure_when_its_endpoint_is_set(self) -> Settings:
        if "openai_api" not in self.model_fields_set and self.azure_openai_endpoint:
            self.openai_api = "azure"
        return self

    @property
    def backend(self) -> BackendName:
        if self.llm:
            return self.llm
        return "openai" if self.openai_api_key or self.openai_api == "azure" else "rules"
