"""What a worker process builds once and shares among its threads, instead of once per job.

**Model clients.** Building an ``OpenAIBackend`` builds an ``openai.OpenAI`` client, whose HTTP
transport loads the system's CA certificates into a fresh TLS context: about 170 ms of CPU, more
than everything else a one-page job costs besides parsing and verification, and a new connection
pool each time, so no connection to the provider is ever reused. A backend holds no per-call
state (each call counts its own attempts and usage), and the client's connection pool is
thread-safe, so one backend per (backend, model) serves every thread of the worker at once.

A job chooses only ``llm`` and ``model`` (:class:`~evidex.workers.jobs.JobOptions`); everything
else comes from the worker's settings, so those two are the key.

**Client schemas.** Turning a client's JSON Schema into an extraction schema builds Pydantic
models and checks their strict wire schema: tens of milliseconds, while a client sends the same
schema with every document. :func:`custom_schema` keeps the last :data:`SCHEMAS_KEPT` by their
JSON text (key order kept: it is the order of the fields in the result). A schema holds no
per-job state, and an invalid one is never kept (its error is raised again each time).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from evidex.extractors.llm.base import LLMBackend
from evidex.extractors.settings import Settings
from evidex.schemas import SchemaDef, get_schema, schema_from_json
from evidex.workers.jobs import Job

__all__ = ["SCHEMAS_KEPT", "SharedLLMs", "custom_schema", "extraction_schema"]

SCHEMAS_KEPT = 128


class SharedLLMs:
    """A ``make_llm`` that builds each (backend, model) once and then hands out the same one.

    At most ``limit`` distinct backends are kept (clients may name any model); past it the
    oldest is dropped, not closed (a thread may still be calling it): its client closes when the
    last call using it lets go of it. A stream of different model names cannot grow the worker.
    """

    def __init__(self, build: Callable[[Settings], LLMBackend], limit: int = 16) -> None:
        self._build, self._limit = build, limit
        self._built: dict[tuple[str, str], LLMBackend] = {}
        self._lock = threading.Lock()

    def __call__(self, settings: Settings) -> LLMBackend:
        key = (settings.backend, settings.model)
        with self._lock:  # building under the lock: a burst of jobs makes one client, not many
            llm = self._built.get(key)
            if llm is None:
                llm = self._built[key] = self._build(settings)
                while len(self._built) > self._limit:
                    del self._built[next(iter(self._built))]
            return llm


def custom_schema(raw: Any) -> SchemaDef:
    """``schema_from_json(raw)``, built once per distinct schema (see the module docstring)."""
    try:
        key = json.dumps(raw, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):  # not plain JSON: let the builder say why
        return schema_from_json(raw)
    return _compiled(key)


@lru_cache(maxsize=SCHEMAS_KEPT)
def _compiled(key: str) -> SchemaDef:
    return schema_from_json(json.loads(key))


def extraction_schema(job: Job) -> SchemaDef:
    """The schema ``job`` asked for, as :meth:`Job.extraction_schema` builds it, but shared."""
    if job.custom_schema is not None:
        return custom_schema(job.custom_schema)
    return get_schema(job.schema_name)
