"""Errors of the extraction pipeline, on top of :mod:`evidex.schemas.errors`.

::

    InputError
    ├── DocumentError               the file cannot be read as a document
    │   ├── UnsupportedDocument     unsupported_media_type  (not a PDF / supported format)
    │   ├── EmptyDocument           document_empty          (0 bytes, or no text after parsing
    │   │                                                    and OCR: refused before any call)
    │   ├── CorruptDocument         pdf_corrupt
    │   ├── EncryptedDocument       pdf_encrypted
    │   ├── NoPages                 pdf_no_pages
    │   ├── NoTextLayer             no_text_layer           (a scan: needs OCR)
    │   └── ImageTooLarge           bad_input               (over the decoder's pixel limit)
    └── DocumentMismatch            document_mismatch       (the document does not answer the
                                                             schema: refused before any call)
    RunError
    └── LLMError                    the model call failed; ``transient`` says whether to retry
        ├── LLMUnavailable          llm_unavailable  (network, timeout, 429/5xx after retries)
        ├── LLMAuthError            llm_auth_failed  (bad or missing key)
        ├── LLMBadRequest           llm_bad_request  (the provider rejected the request)
        │   └── LLMContextExceeded  llm_context_exceeded (the prompt is over the model's window,
        │                           even after one smaller retry)
        ├── LLMRefused              llm_refused      (the model declined; ``refusal`` has its words)
        ├── LLMTruncated            llm_truncated    (output cut at the token limit)
        └── LLMInvalidOutput        llm_invalid_output (not JSON, or not the schema, after repair)

SDK exceptions are translated into these once, in the backend module that calls the SDK.
"""

from __future__ import annotations

from evidex.schemas.errors import InputError, RunError

__all__ = [
    "CorruptDocument",
    "DocumentError",
    "DocumentMismatch",
    "EmptyDocument",
    "EncryptedDocument",
    "ImageTooLarge",
    "LLMAuthError",
    "LLMBadRequest",
    "LLMContextExceeded",
    "LLMError",
    "LLMInvalidOutput",
    "LLMRefused",
    "LLMTruncated",
    "LLMUnavailable",
    "NoPages",
    "NoTextLayer",
    "UnsupportedDocument",
]


class DocumentError(InputError):
    code = "document_invalid"


class UnsupportedDocument(DocumentError):
    code = "unsupported_media_type"


class EmptyDocument(DocumentError):
    code = "document_empty"


class CorruptDocument(DocumentError):
    code = "pdf_corrupt"


class EncryptedDocument(DocumentError):
    code = "pdf_encrypted"


class NoPages(DocumentError):
    code = "pdf_no_pages"


class NoTextLayer(DocumentError):
    code = "no_text_layer"


class ImageTooLarge(DocumentError):
    """More pixels than the image decoder will take on (a decompression bomb, or a real image
    too large to read safely)."""

    code = "bad_input"


class DocumentMismatch(InputError):
    """The pre-call gate found too little of the schema in the document (:mod:`.gate`);
    ``score`` is its support, ``reads_like`` the built-in schema it answers better, if any."""

    code = "document_mismatch"

    def __init__(self, message: str, *, score: float | None = None, reads_like: str = "") -> None:
        super().__init__(message)
        self.score = score
        self.reads_like = reads_like


class LLMError(RunError):
    code = "llm_failed"

    def __init__(self, message: str, *, response_id: str = "", transient: bool = False) -> None:
        super().__init__(message)
        self.response_id = response_id
        self.transient = transient


class LLMUnavailable(LLMError):
    code = "llm_unavailable"

    def __init__(self, message: str, *, response_id: str = "", transient: bool = True) -> None:
        super().__init__(message, response_id=response_id, transient=transient)


class LLMAuthError(LLMError):
    code = "llm_auth_failed"
    exit_code = 2


class LLMBadRequest(LLMError):
    code = "llm_bad_request"


class LLMContextExceeded(LLMBadRequest):
    """The model refused the prompt as longer than its window; ``window_tokens`` and
    ``prompt_tokens`` are the provider's numbers when its message gives them."""

    code = "llm_context_exceeded"

    def __init__(
        self,
        message: str,
        *,
        response_id: str = "",
        window_tokens: int | None = None,
        prompt_tokens: int | None = None,
    ) -> None:
        super().__init__(message, response_id=response_id)
        self.window_tokens = window_tokens
        self.prompt_tokens = prompt_tokens


class LLMRefused(LLMError):
    code = "llm_refused"

    def __init__(self, message: str, *, refusal: str = "", response_id: str = "") -> None:
        super().__init__(message, response_id=response_id)
        self.refusal = refusal


class LLMTruncated(LLMError):
    code = "llm_truncated"


class LLMInvalidOutput(LLMError):
    code = "llm_invalid_output"
