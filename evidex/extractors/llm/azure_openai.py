"""Where an Azure OpenAI deployment is and how evidex signs in to it (``EVIDEX_OPENAI_API=azure``).

Azure serves a model as a *deployment* of a resource: requests go to
``{AZURE_OPENAI_ENDPOINT}/openai/deployments/{EVIDEX_MODEL}/chat/completions?api-version=…`` with
an ``api-key`` header (``AZURE_OPENAI_API_KEY``) or, without a key, a Microsoft Entra ID bearer
token. The token comes from ``azure-identity`` (``DefaultAzureCredential``: a managed identity,
the Azure CLI's sign-in, workload identity…), an optional package imported only when it is
needed, so a deployment that uses keys never installs it.

This module only reads settings and says what is missing; the ``openai`` SDK's ``AzureOpenAI``
client is built by :mod:`evidex.extractors.llm.openai_backend`, the one module that imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evidex.extractors.settings import Settings
from evidex.schemas.errors import ConfigError

__all__ = ["ENTRA_SCOPE", "AzureTarget", "azure_target", "entra_token_provider"]

ENTRA_SCOPE = "https://cognitiveservices.azure.com/.default"


@dataclass(frozen=True, slots=True)
class AzureTarget:
    """An Azure OpenAI resource and one way to sign in: a key, or a token provider."""

    endpoint: str
    api_version: str
    api_key: str | None = None
    token_provider: Callable[[], str] | None = None

    def __post_init__(self) -> None:
        if (self.api_key is None) == (self.token_provider is None):
            raise ConfigError("Azure OpenAI needs exactly one of an API key or a token provider")


def azure_target(settings: Settings) -> AzureTarget:
    """The Azure OpenAI resource the settings name, or a ConfigError saying what to set."""
    endpoint = (settings.azure_openai_endpoint or "").strip()
    if not endpoint:
        raise ConfigError(
            "EVIDEX_OPENAI_API=azure needs AZURE_OPENAI_ENDPOINT: set it to your resource's "
            "endpoint, e.g. https://my-resource.openai.azure.com"
        )
    version = (settings.openai_api_version or "").strip()
    if not version:
        raise ConfigError(
            "Azure OpenAI needs OPENAI_API_VERSION: set it to an API version that supports "
            "structured outputs, e.g. 2024-10-21"
        )
    key = settings.azure_openai_api_key.get_secret_value() if settings.azure_openai_api_key else ""
    if key:
        return AzureTarget(endpoint, version, api_key=key)
    return AzureTarget(endpoint, version, token_provider=entra_token_provider())


def entra_token_provider() -> Callable[[], str]:
    """Bearer tokens for Azure OpenAI from Microsoft Entra ID (``DefaultAzureCredential``)."""
    try:
        from azure.identity import DefaultAzureCredential, get_bearer_token_provider
    except ImportError:
        raise ConfigError(
            "AZURE_OPENAI_API_KEY is not set: set it to your resource's key, or install "
            "azure-identity (pip install 'evidex[azure]') to sign in with Microsoft Entra ID"
        ) from None
    provider: Callable[[], str] = get_bearer_token_provider(DefaultAzureCredential(), ENTRA_SCOPE)
    return provider
