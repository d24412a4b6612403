"""``/metrics``: off without a token, token-only, Prometheus text; the figures' store contract
over both backends (memory, real Redis). Workers' figures end to end: ``test_service_kit``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families
from test_api import ACME, harness

from evidex.service.metrics import render
from evidex.workers.metrics import MemoryMetrics, Metrics, RedisMetrics

TOKEN = "metrics-token-for-tests"


def test_without_a_token_the_route_does_not_exist() -> None:
    with harness() as h:
        r = h.client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 404


def test_token_only_and_rate_limit_hits_are_counted() -> None:
    with harness(metrics_token=TOKEN, rate_limit_per_minute=2) as h:
        assert h.client.get("/metrics").status_code == 401
        assert h.client.get("/metrics", headers=ACME).status_code == 401  # an API key is not it
        codes = [h.client.get("/v1/schemas", headers=ACME).status_code for _ in range(4)]
        assert codes == [200, 200, 429, 429]
        r = h.client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
        samples = {
            s.name: s.value for f in text_string_to_metric_families(r.text) for s in f.samples
        }
        assert samples["evidex_rate_limit_hits_total"] == 2
        assert "evidex_queue_depth" not in samples  # no queue behind the memory harness
        assert "# TYPE evidex_jobs_total counter" in r.text
        assert "# TYPE evidex_stage_duration_seconds histogram" in r.text


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest, redis_url: str) -> Iterator[Metrics]:
    if request.param == "memory":
        yield MemoryMetrics()
        return
    prefix = f"evidex-test-{uuid.uuid4().hex[:10]}"
    metrics = RedisMetrics.from_url(redis_url, prefix=prefix, queue=f"{prefix}-queue")
    yield metrics
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match=f"{prefix}*"):
        client.delete(key)
    client.close()
    metrics.client.close()


def test_counters_and_histograms_add_up_across_writes(store: Metrics) -> None:
    store.inc("evidex_jobs", ("succeeded", ""))
    store.inc("evidex_jobs", ("succeeded", ""))
    store.inc("evidex_jobs", ("failed", "llm_refused"))
    store.inc("evidex_model_tokens", ("input",), 1830)
    for seconds in (0.004, 0.2, 0.2, 7.0, 5000.0):
        store.observe("evidex_stage_duration_seconds", seconds, ("parse",))
    with pytest.raises(ValueError, match="takes labels"):
        store.inc("evidex_jobs", ("succeeded",))
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in text_string_to_metric_families(render(store.snapshot()).decode())
        for s in f.samples
    }
    jobs = "evidex_jobs_total"
    assert samples[(jobs, (("error_code", ""), ("status", "succeeded")))] == 2
    assert samples[(jobs, (("error_code", "llm_refused"), ("status", "failed")))] == 1
    assert samples[("evidex_model_tokens_total", (("direction", "input"),))] == 1830
    bucket = "evidex_stage_duration_seconds_bucket"
    le = {k[1][0][1]: v for k, v in samples.items() if k[0] == bucket}
    assert (le["0.01"], le["0.25"], le["5.0"], le["10.0"], le["900.0"], le["+Inf"]) == (
        1, 3, 3, 4, 4, 5
    )  # fmt: skip
    assert samples[("evidex_stage_duration_seconds_count", (("stage", "parse"),))] == 5
    total = samples[("evidex_stage_duration_seconds_sum", (("stage", "parse"),))]
    assert total == pytest.approx(5007.404)


def test_a_batch_records_its_writes_together_when_it_ends(store: Metrics) -> None:
    with store.batch():
        store.inc("evidex_jobs", ("succeeded", ""))
        with store.batch():  # nested: still the outer block's
            store.observe("evidex_job_duration_seconds", 2.5, ("succeeded",))
        if isinstance(store, RedisMetrics):  # nothing sent yet
            assert store.snapshot().counters.get("evidex_jobs", {}) == {}
    snap = store.snapshot()
    assert snap.counters["evidex_jobs"] == {("succeeded", ""): 1.0}
    buckets, total, count = snap.histograms["evidex_job_duration_seconds"][("succeeded",)]
    assert (total, count, sum(buckets)) == (2.5, 1.0, 1.0)


def test_a_batch_is_one_round_trip_to_redis(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = f"evidex-test-{uuid.uuid4().hex[:10]}"
    metrics = RedisMetrics.from_url(redis_url, prefix=prefix)
    pipelines: list[object] = []
    real = metrics.client.pipeline

    def counted(*args: object, **kwargs: object) -> object:
        pipelines.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(metrics.client, "pipeline", counted)
    try:
        with metrics.batch():
            for stage in ("parse", "llm", "verify", "total"):
                metrics.observe("evidex_stage_duration_seconds", 0.1, (stage,))
            metrics.inc("evidex_model_tokens", ("input",), 100)
        assert len(pipelines) == 1
        metrics.inc("evidex_model_tokens", ("output",), 5)  # outside a batch: its own
        assert len(pipelines) == 2
    finally:
        client = redis.Redis.from_url(redis_url)
        for key in client.scan_iter(match=f"{prefix}*"):
            client.delete(key)
        client.close()
        metrics.client.close()
