"""Structured logs (structlog) for the API and the workers: one JSON object per line.

``EVIDEX_LOG_FORMAT=json`` (the default) writes JSON lines to stderr; ``console`` writes
coloured lines for a person at a terminal. Every record carries ``timestamp`` (UTC, ISO 8601),
``level``, ``logger`` and ``event``, plus the context bound where it was logged: ``job_id``,
``tenant`` and ``attempt`` inside a job, ``stage`` and ``duration_ms`` for a timed step (parse,
llm, verify, job; request in the API). Records from the standard library's loggers (Celery,
uvicorn, evidex modules that use ``logging``) go through the same renderer, so the stream is
uniform.

What never reaches a log: document text and secrets. evidex logs ids, codes, counts and
timings, never a quote, a value or a line; :func:`redact` is the safety net below that rule:
any key that names a credential (``authorization``, ``api_key``, ``secret``, ``token``,
``password``, ...) is replaced by ``[redacted]``, and a review-link token or a bearer header
that slipped into a message or a URL is cut out of it.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any, Literal, TextIO

import structlog
from structlog.contextvars import bind_contextvars, clear_contextvars
from structlog.types import EventDict, Processor

__all__ = [
    "LogFormat",
    "bind_job",
    "clear_job",
    "configure_logging",
    "get_logger",
    "redact",
    "scrub",
    "timed",
]

LogFormat = Literal["json", "console"]
REDACTED = "[redacted]"
_SECRET_KEY = re.compile(r"authorization|api[_-]?key|secret|token|password|cookie", re.I)
_SECRET_TEXT = re.compile(
    r"(evr1\.)[A-Za-z0-9_\-.]+"  # a review-link token (evidex.service.review_links)
    r"|(bearer\s+)[^\s'\",]+",  # an Authorization header's credential
    re.I,
)


def scrub(text: str) -> str:
    """``text`` without review-link tokens or bearer credentials."""
    return _SECRET_TEXT.sub(lambda m: (m.group(1) or m.group(2)) + REDACTED, text)


def redact(_: Any, __: str, event: EventDict) -> EventDict:
    """structlog processor: no credential survives, whatever the caller passed."""
    event.pop("color_message", None)  # uvicorn's copy of the message with terminal colours
    for key, value in list(event.items()):
        if _SECRET_KEY.search(key) and key not in ("tokens", "input_tokens", "output_tokens"):
            event[key] = REDACTED
        elif isinstance(value, str):
            event[key] = scrub(value)
    return event


def _shared() -> list[Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.ExtraAdder(),
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        redact,
    ]


def configure_logging(
    fmt: LogFormat | str = "json", level: str | int = "INFO", stream: TextIO | None = None
) -> None:
    """Route structlog and the standard library's logging to ``stream`` (stderr) in ``fmt``;
    call once, at a process's start (``evidex serve``, ``evidex worker``)."""
    out = stream or sys.stderr
    if fmt not in ("json", "console"):
        raise ValueError(f"EVIDEX_LOG_FORMAT must be 'json' or 'console', not {fmt!r}")
    renderer: Processor = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=out.isatty())
    )
    finish: list[Processor] = [structlog.stdlib.ProcessorFormatter.remove_processors_meta]
    if fmt == "json":
        finish.append(structlog.processors.format_exc_info)
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_shared(), processors=[*finish, renderer]
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper() if isinstance(level, str) else level)
    structlog.configure(
        # filter_by_level first: a record below the level is dropped before the chain stamps,
        # redacts and wraps it (~25 µs each, on every job's stage records at WARNING)
        processors=[
            structlog.stdlib.filter_by_level,
            *_shared(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> Any:
    """A structlog logger (keyword arguments become fields of the record)."""
    return structlog.stdlib.get_logger(name)


def bind_job(job_id: str, tenant: str | None = None, attempt: int | None = None) -> None:
    """Bind the job's context: every record logged by this thread (or task) until
    :func:`clear_job` carries it."""
    context: MutableMapping[str, Any] = {"job_id": job_id}
    if tenant is not None:
        context["tenant"] = tenant
    if attempt is not None:
        context["attempt"] = attempt
    bind_contextvars(**context)


def clear_job() -> None:
    clear_contextvars()


@contextmanager
def timed(log: Any, stage: str, **fields: Any) -> Iterator[dict[str, Any]]:
    """Log ``stage finished`` with ``stage`` and ``duration_ms`` when the block ends; the yielded
    dict takes more fields."""
    import time

    extra: dict[str, Any] = dict(fields)
    started = time.perf_counter()
    try:
        yield extra
    finally:
        duration = round((time.perf_counter() - started) * 1000, 2)
        log.info("stage finished", stage=stage, duration_ms=duration, **extra)
