"""What a worker builds once and shares among its threads: model clients, client schemas, and the
size of its parse pool."""

from __future__ import annotations

import copy
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from celery import Celery
from pydantic import SecretStr

from evidex.extractors.llm.base import LLMBackend, LLMRequest, LLMResponse
from evidex.extractors.llm.openai_backend import OpenAIBackend
from evidex.extractors.settings import Settings
from evidex.schemas import SchemaInvalid
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.celery_app import build_deps
from evidex.workers.jobs import Job
from evidex.workers.jobstore_memory import MemoryJobStore
from evidex.workers.settings import WorkerSettings
from evidex.workers.shared import SharedLLMs, custom_schema, extraction_schema
from evidex.workers.stages import ProcessStages

PROPERTIES: dict[str, Any] = {
    "total": {"type": "number", "x-evidex-kind": "amount"},
    "number": {"type": "string", "description": "The order number"},
}
SCHEMA: dict[str, Any] = {"title": "order", "type": "object", "properties": PROPERTIES}


class Counted:
    name = "counted"

    def __init__(self, model: str) -> None:
        self.model = model

    def complete(self, request: LLMRequest) -> LLMResponse:  # pragma: no cover - not called
        raise NotImplementedError


def test_one_backend_per_backend_and_model_even_when_many_threads_ask_at_once() -> None:
    built: list[str] = []
    start = threading.Barrier(32)

    def build(settings: Settings) -> LLMBackend:
        built.append(settings.model)
        return Counted(settings.model)

    shared = SharedLLMs(build)
    a = Settings(llm="openai", model="m-1")

    def ask(_: int) -> LLMBackend:
        start.wait()
        return shared(a)

    with ThreadPoolExecutor(32) as pool:
        got = list(pool.map(ask, range(32)))
    assert built == ["m-1"] and all(g is got[0] for g in got)
    other = shared(Settings(llm="openai", model="m-2"))
    assert other is not got[0] and built == ["m-1", "m-2"]
    assert shared(Settings(llm="openai", model="m-1")) is got[0]


def test_past_the_limit_the_oldest_backend_is_dropped_and_built_again() -> None:
    built: list[str] = []

    def build(settings: Settings) -> LLMBackend:
        built.append(settings.model)
        return Counted(settings.model)

    shared = SharedLLMs(build, limit=2)
    for model in ("a", "b", "c", "a"):
        shared(Settings(llm="openai", model=model))
    assert built == ["a", "b", "c", "a"]


def test_the_worker_shares_one_openai_client_between_jobs() -> None:
    settings = WorkerSettings(llm="openai", openai_api_key=SecretStr("sk-test"), model="m")
    deps = build_deps(
        Celery(set_as_current=False),
        settings,
        jobs=MemoryJobStore(),
        blobs=MemoryBlobStore(),
    )
    first, second = deps.make_llm(settings), deps.make_llm(settings.model_copy())
    assert isinstance(first, OpenAIBackend) and first is second
    assert deps.make_llm(settings.model_copy(update={"model": "other"})) is not first
    first.close()


def test_a_client_schema_is_built_once_and_keeps_its_field_order() -> None:
    one = custom_schema(SCHEMA)
    assert custom_schema(copy.deepcopy(SCHEMA)) is one
    assert [leaf.path for leaf in one.leaves] == ["total", "number"]
    swapped = SCHEMA | {"properties": dict(reversed(list(PROPERTIES.items())))}
    assert [leaf.path for leaf in custom_schema(swapped).leaves] == ["number", "total"]
    job = Job(
        id="job_1",
        tenant="t",
        filename="a.pdf",
        size=1,
        sha256="0",
        schema_name="order",
        custom_schema=SCHEMA,
        document_key="t/job_1/document",
    )
    assert extraction_schema(job) is one
    builtin = job.model_copy(update={"custom_schema": None, "schema_name": "invoice"})
    assert extraction_schema(builtin).name == "invoice"


def test_an_invalid_client_schema_fails_every_time() -> None:
    bad = {"type": "object", "properties": {"x": {"type": "tuple"}}}
    for _ in range(2):
        with pytest.raises(SchemaInvalid):
            custom_schema(bad)


def test_the_stage_pool_has_a_process_per_usable_core_and_replaces_them_as_configured() -> None:
    assert ProcessStages().workers == len(os.sched_getaffinity(0))
    deps = build_deps(
        Celery(set_as_current=False),
        WorkerSettings(parse_processes=3, parse_tasks_per_process=7),
        jobs=MemoryJobStore(),
        blobs=MemoryBlobStore(),
    )
    assert isinstance(deps.stages, ProcessStages)
    assert (deps.stages.workers, deps.stages.tasks_per_child) == (3, 7)
    assert WorkerSettings().parse_processes is None
