"""The error tree shared by every evidex package.

::

    EvidexError                     base; ``code`` is stable and maps to HTTP/CLI outcomes
    ├── InputError                  the caller's document, schema or options are wrong (exit 2)
    │   ├── SchemaInvalid           schema_invalid
    │   └── (extractors) DocumentError and its kinds: not_a_pdf, pdf_corrupt, pdf_encrypted, ...
    ├── ConfigError                 the deployment is misconfigured (exit 2)
    └── RunError                    the extraction could not finish (exit 1)
        └── (extractors) LLMError and its kinds: llm_refused, llm_truncated, ...

Every error carries ``code`` (machine readable) and a message that says what to do next. The
classes keep their constructor arguments in ``args`` so they pickle across Celery.
"""

from __future__ import annotations

__all__ = ["ConfigError", "EvidexError", "InputError", "RunError", "SchemaInvalid"]


class EvidexError(Exception):
    """Base of every error evidex raises on purpose."""

    code = "evidex_error"
    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[object, ...]:
        # Keep extra attributes (response ids, refusal text) when the error crosses a process.
        return (self.__class__._restore, (self.__class__, self.message, self.__dict__))

    @staticmethod
    def _restore(cls: type[EvidexError], message: str, state: dict[str, object]) -> EvidexError:
        err = cls.__new__(cls)
        Exception.__init__(err, message)
        err.__dict__.update(state)
        return err


class InputError(EvidexError):
    """The caller supplied something evidex cannot use; retrying will not help."""

    code = "bad_input"
    exit_code = 2


class ConfigError(EvidexError):
    """Settings are missing or contradictory; fix the environment and run again."""

    code = "config_error"
    exit_code = 2


class RunError(EvidexError):
    """The extraction started but could not finish."""

    code = "extraction_failed"
    exit_code = 1
    transient = False


class SchemaInvalid(InputError):
    """A schema (built-in name or JSON Schema) cannot be turned into an extraction schema."""

    code = "schema_invalid"
