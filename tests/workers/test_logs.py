"""Structured logs: JSON lines with the job's context; credentials never survive."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
import structlog

from evidex.workers.logs import bind_job, clear_job, configure_logging, get_logger


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    """configure_logging writing to a buffer; the process's logging restored afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    buffer = io.StringIO()
    yield buffer
    root.handlers, root.level = handlers, level
    structlog.reset_defaults()
    clear_job()


def _lines(buffer: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def test_json_lines_carry_the_bound_job_context_for_structlog_and_stdlib(
    stream: io.StringIO,
) -> None:
    configure_logging("json", "INFO", stream)
    bind_job("job_1", "acme", 2)
    get_logger("evidex.test").info("stage finished", stage="parse", duration_ms=12.5)
    logging.getLogger("celery.worker").warning("a %s record", "stdlib")
    clear_job()
    get_logger("evidex.test").debug("below the level")
    get_logger("evidex.test").info("after the job")
    first, second, third = _lines(stream)
    assert {k: first[k] for k in ("event", "job_id", "tenant", "attempt", "stage")} == {
        "event": "stage finished", "job_id": "job_1", "tenant": "acme", "attempt": 2,
        "stage": "parse",
    }  # fmt: skip
    assert first["duration_ms"] == 12.5 and first["level"] == "info"
    assert first["logger"] == "evidex.test" and first["timestamp"].endswith("Z")
    assert second["event"] == "a stdlib record" and second["job_id"] == "job_1"
    assert second["level"] == "warning" and second["logger"] == "celery.worker"
    assert third["event"] == "after the job" and "job_id" not in third


def test_credentials_are_redacted_wherever_they_appear(stream: io.StringIO) -> None:
    configure_logging("json", "INFO", stream)
    log = get_logger("evidex.test")
    log.info("request", authorization="Bearer abc", api_key="k", webhook_secret="s", tokens=5)
    log.info("GET /review/evr1.eyJqIjoi.c2ln HTTP/1.1", path="/review/evr1.eyJqIjoi.c2ln/pages")
    logging.getLogger("httpx").info("sent Authorization: Bearer sk-live-123 to the model")
    one, two, three = _lines(stream)
    assert (one["authorization"], one["api_key"], one["webhook_secret"]) == ("[redacted]",) * 3
    assert one["tokens"] == 5  # a count, not a credential
    assert two["event"] == "GET /review/evr1.[redacted] HTTP/1.1"
    assert two["path"] == "/review/evr1.[redacted]/pages"
    assert "sk-live-123" not in three["event"] and "Bearer [redacted]" in three["event"]


def test_console_format_and_a_bad_format(stream: io.StringIO) -> None:
    configure_logging("console", "INFO", stream)
    get_logger("evidex.test").info("hello", job_id="job_9")
    assert "hello" in stream.getvalue() and "job_id=job_9" in stream.getvalue()
    with pytest.raises(ValueError, match="EVIDEX_LOG_FORMAT"):
        configure_logging("xml")
