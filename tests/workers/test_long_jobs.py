"""A long document as a job: the window from the job's options, every call reserved up front."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest
import redis
from long_supply import SCHEMA, SCHEMA_JSON, document, document_text, reader
from stored_jobs import stored_job

from evidex.extractors.llm.base import LLMRequest, LLMResponse
from evidex.extractors.llm.scripted import ScriptedLLM
from evidex.extractors.pipeline import planned_calls
from evidex.extractors.plan import calls as plan
from evidex.extractors.plan.context import ContextBudget
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.budget import Budget, job_upper_bound
from evidex.workers.jobs import Job, JobOptions, JobStatus
from evidex.workers.jobstore_memory import MemoryJobStore
from evidex.workers.runner import Deps, process, result_key
from evidex.workers.settings import WorkerSettings

USAGE = {"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100}


class MeteredReader(ScriptedLLM):
    """The scripted reader, reporting usage like a model, and noting the budget in each call."""

    name = "metered"

    def __init__(self, budget: Budget, tenant: str) -> None:
        super().__init__(reader)
        self.budget, self.tenant = budget, tenant
        self.used_during: list[int] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.used_during.append(self.budget.used(self.tenant))
        return dataclasses.replace(super().complete(request), usage=dict(USAGE))


@pytest.fixture
def budget(redis_client: redis.Redis, prefix: str) -> Budget:
    return Budget(redis_client, 10**8, prefix=prefix)


def submit(jobs: MemoryJobStore, blobs: MemoryBlobStore, tenant: str, **options: Any) -> Job:
    data = document_text(range(12, 14)).encode()
    return stored_job(
        jobs,
        blobs,
        data,
        tenant,
        filename="supply.txt",
        media_type="text/plain",
        schema_name="supply",
        custom_schema=SCHEMA_JSON,
        options=JobOptions(**options),
    )


def _succeeded_in_a_window(
    budget: Budget,
) -> tuple[MeteredReader, WorkerSettings, MemoryBlobStore, Job]:
    """A long job of a new tenant, run with a window of 4,000 tokens: the reader, the worker's
    settings, the blob store and the job, succeeded."""
    llm = MeteredReader(budget, "t-" + uuid.uuid4().hex[:8])
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    settings = WorkerSettings(monthly_token_budget=10**8, max_output_tokens=2_000)
    deps = Deps(jobs=jobs, blobs=blobs, settings=settings, make_llm=lambda _: llm, budget=budget)
    job = submit(jobs, blobs, llm.tenant, context_tokens=4_000)
    process(job.id, deps)
    done = jobs.get(job.id)
    assert done is not None and done.status is JobStatus.SUCCEEDED, done.error
    return llm, settings, blobs, done


def test_a_job_reserves_every_planned_call_and_settles_their_summed_usage(budget: Budget):
    llm, settings, blobs, done = _succeeded_in_a_window(budget)
    calls, extra = planned_calls(document(range(12, 14)), SCHEMA, ContextBudget(4_000, 2_000))
    windowed = settings.model_copy(update={"context_tokens": 4_000})
    bound = job_upper_bound([(c.prompt, c.schema) for c in calls], windowed, extra)
    assert len(calls) >= 2 and extra == 3
    assert bound > sum(len(c.prompt.user.encode()) for c in calls) + 3 * 4_000
    assert llm.used_during == [bound] * len(llm.requests)  # one reservation, held by every call
    # the planned calls: the list's next page (13) came with the page it follows
    assert len(llm.requests) == len(calls)
    assert budget.used(llm.tenant) == USAGE["total_tokens"] * len(llm.requests)
    result = blobs.get(result_key(done)).decode()
    assert '"context_tokens"' not in result and '"window_tokens": 4000' in result


def test_a_budgeted_job_ranks_pages_and_builds_its_prompts_once(
    budget: Budget, monkeypatch: pytest.MonkeyPatch
):
    indexes: list[object] = []
    planned: list[tuple[str, ...] | None] = []
    built: list[tuple[str, ...]] = []

    class CountedIndex(plan.PageIndex):
        def __init__(self, texts: Any) -> None:
            indexes.append(self)
            super().__init__(texts)

    def counted_calls(self: plan.Planner, budget: Any, only: Any = None) -> list[plan.Call]:
        planned.append(only)
        return plan_calls(self, budget, only)

    def counted_build(self: plan.Planner, names: Any, *args: Any, **kwargs: Any) -> plan.Call:
        built.append(tuple(names))
        return build_call(self, names, *args, **kwargs)

    plan_calls, build_call = plan.Planner.calls, plan.Planner.build
    monkeypatch.setattr(plan, "PageIndex", CountedIndex)
    monkeypatch.setattr(plan.Planner, "calls", counted_calls)
    monkeypatch.setattr(plan.Planner, "build", counted_build)
    llm = _succeeded_in_a_window(budget)[0]
    assert llm.used_during[0] > 0  # tokens were reserved (from the plan) before the first call
    assert len(indexes) == 1  # pages ranked once, for the reservation and the calls alike
    assert planned == [None]  # the job's calls planned once, all together
    asked = [tuple(r.schema.model.model_fields) for r in llm.requests]
    assert len(built) == len(asked) >= 3  # one prompt built per call sent, none twice
    assert built == asked
