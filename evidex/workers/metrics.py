"""Operational figures shared by every API and worker process, in Redis.

Workers run on other machines than the API, so the figures cannot live in one process's memory
(nor in Prometheus's multiprocess directory, which needs one shared disk): each process adds to
Redis hashes, atomically (``HINCRBYFLOAT`` in a pipeline), and ``GET /metrics`` on any API
process reads them back and renders the Prometheus text format
(:mod:`evidex.service.metrics`). A recording that fails (Redis down) is logged and dropped: a
figure is never worth a failed job.

::

    evidex_jobs_total{status, error_code}             counter    jobs that ended
    evidex_refusals_total{code}                       counter    jobs refused before any model
                                                                 call (document_empty,
                                                                 document_mismatch)
    evidex_job_duration_seconds{status}               histogram  submission to end
    evidex_stage_duration_seconds{stage}              histogram  parse, llm, verify, total
    evidex_model_tokens_total{direction}              counter    input, output
    evidex_rate_limit_hits_total                      counter    requests refused with 429

A job's figures are written together (:meth:`Metrics.batch`): one pipeline when its result is
stored, one when it ends, not a round trip per figure.

Keys: ``{prefix}:metrics:{name}``, one hash per metric; a field is the label values joined by
``\\x1f``, and for a histogram ``<labels>|<bucket index>``, ``<labels>|sum``, ``<labels>|count``
(bucket counts are stored per bucket and made cumulative when read).
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import redis

    from evidex.schemas import Result
    from evidex.workers.jobs import Job

__all__ = [
    "METRICS",
    "MemoryMetrics",
    "MetricDef",
    "Metrics",
    "RedisMetrics",
    "Snapshot",
    "job_ended",
    "job_result",
]

log = logging.getLogger(__name__)
SEP = "\x1f"
DURATION_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900)


@dataclass(frozen=True, slots=True)
class MetricDef:
    name: str
    kind: str  # counter | histogram
    help: str
    labels: tuple[str, ...] = ()
    buckets: tuple[float, ...] = ()


METRICS: dict[str, MetricDef] = {
    m.name: m
    for m in (
        MetricDef(
            "evidex_jobs", "counter", "Jobs that ended, by status and error code.",
            ("status", "error_code"),
        ),
        MetricDef(
            "evidex_job_duration_seconds", "histogram",
            "Seconds from a job's submission to its end.", ("status",), DURATION_BUCKETS,
        ),
        MetricDef(
            "evidex_stage_duration_seconds", "histogram",
            "Seconds a succeeded job spent in each stage (parse, llm, verify, total).",
            ("stage",), DURATION_BUCKETS,
        ),
        MetricDef(
            "evidex_model_tokens", "counter", "Model tokens used, by direction.", ("direction",)
        ),
        MetricDef("evidex_rate_limit_hits", "counter", "Requests refused by the rate limit."),
        MetricDef(
            "evidex_refusals", "counter",
            "Jobs refused by the pre-call gate, before any model call, by error code.", ("code",),
        ),
    )
}  # fmt: skip
STAGES = ("parse", "llm", "verify", "total")
REFUSALS = frozenset({"document_empty", "document_mismatch"})  # the pre-call gate's codes


@dataclass
class Snapshot:
    """Every figure: counters by label values; histograms by label values as (per-bucket
    counts, sum, count) with one bucket more than the definition's (the +Inf one)."""

    counters: dict[str, dict[tuple[str, ...], float]] = field(default_factory=dict)
    histograms: dict[str, dict[tuple[str, ...], tuple[list[float], float, float]]] = field(
        default_factory=dict
    )


class Metrics(Protocol):
    def inc(self, name: str, labels: Sequence[str] = (), amount: float = 1.0) -> None: ...

    def observe(self, name: str, value: float, labels: Sequence[str] = ()) -> None: ...

    def snapshot(self) -> Snapshot: ...

    def batch(self) -> AbstractContextManager[None]:
        """Writes inside the block are recorded together when it ends."""
        ...


def _bucket(definition: MetricDef, value: float) -> int:
    for index, bound in enumerate(definition.buckets):
        if value <= bound:
            return index
    return len(definition.buckets)


def _check(name: str, labels: Sequence[str]) -> MetricDef:
    definition = METRICS[name]
    if len(labels) != len(definition.labels):
        raise ValueError(f"{name} takes labels {definition.labels}, got {tuple(labels)}")
    return definition


class MemoryMetrics:
    """The figures of one process (tests, a single-process deployment)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fields: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))

    def inc(self, name: str, labels: Sequence[str] = (), amount: float = 1.0) -> None:
        _check(name, labels)
        with self._lock:
            self._fields[name][SEP.join(labels)] += amount

    def observe(self, name: str, value: float, labels: Sequence[str] = ()) -> None:
        definition, key = _check(name, labels), SEP.join(labels)
        with self._lock:
            fields = self._fields[name]
            fields[f"{key}|{_bucket(definition, value)}"] += 1
            fields[f"{key}|sum"] += value
            fields[f"{key}|count"] += 1

    def snapshot(self) -> Snapshot:
        with self._lock:
            raw = {name: dict(fields) for name, fields in self._fields.items()}
        return _decode(raw)

    @contextmanager
    def batch(self) -> Iterator[None]:
        yield  # each write is already one step in memory


class RedisMetrics:
    """The figures of every process, in the Redis at ``url`` (see the module docstring)."""

    def __init__(self, client: redis.Redis, prefix: str = "evidex", queue: str = "evidex") -> None:
        self.client, self.prefix, self.queue = client, prefix, queue
        self._pending = threading.local()  # this thread's open batch: [(key, field, amount)]

    @classmethod
    def from_url(cls, url: str, prefix: str = "evidex", queue: str = "evidex") -> RedisMetrics:
        import redis

        from evidex.workers.redisdriver import driver_info

        client = redis.Redis.from_url(
            url, socket_timeout=2, socket_connect_timeout=2, driver_info=driver_info()
        )
        return cls(client, prefix, queue)

    def key(self, name: str) -> str:
        return f"{self.prefix}:metrics:{name}"

    @contextmanager
    def batch(self) -> Iterator[None]:
        """The block's writes (this thread's) go to Redis in one pipeline when it ends."""
        outer = getattr(self._pending, "writes", None)
        if outer is not None:  # nested: the outermost block sends them
            yield
            return
        writes: list[tuple[str, str, float]] = []
        self._pending.writes = writes
        try:
            yield
        finally:
            self._pending.writes = None
            self._send(writes)

    def _write(self, name: str, increments: Mapping[str, float]) -> None:
        writes = [(self.key(name), field_name, amount) for field_name, amount in increments.items()]
        pending = getattr(self._pending, "writes", None)
        if pending is not None:
            pending.extend(writes)
        else:
            self._send(writes)

    def _send(self, writes: list[tuple[str, str, float]]) -> None:
        from redis.exceptions import RedisError

        if not writes:
            return
        try:
            pipe = self.client.pipeline(transaction=False)
            for key, field_name, amount in writes:
                pipe.hincrbyfloat(key, field_name, amount)
            pipe.execute()
        except RedisError as exc:
            log.warning("metrics not recorded: %s", exc)

    def inc(self, name: str, labels: Sequence[str] = (), amount: float = 1.0) -> None:
        _check(name, labels)
        self._write(name, {SEP.join(labels): amount})

    def observe(self, name: str, value: float, labels: Sequence[str] = ()) -> None:
        definition, key = _check(name, labels), SEP.join(labels)
        bucket = f"{key}|{_bucket(definition, value)}"
        self._write(name, {bucket: 1, f"{key}|sum": value, f"{key}|count": 1})

    def snapshot(self) -> Snapshot:
        pipe = self.client.pipeline(transaction=False)
        for name in METRICS:
            pipe.hgetall(self.key(name))
        answers = pipe.execute()
        raw = {
            name: {k.decode(): float(v) for k, v in answer.items()}
            for name, answer in zip(METRICS, answers, strict=True)
        }
        return _decode(raw)

    def queue_depth(self) -> int:
        """Tasks waiting in the Celery queue (a Redis list named after it)."""
        return int(self.client.llen(self.queue))


def _decode(raw: Mapping[str, Mapping[str, float]]) -> Snapshot:
    snap = Snapshot()
    for name, fields in raw.items():
        definition = METRICS[name]
        if definition.kind == "counter":
            snap.counters[name] = {tuple(k.split(SEP)) if k else (): v for k, v in fields.items()}
            continue
        series: dict[tuple[str, ...], tuple[list[float], float, float]] = {}
        for field_name, value in fields.items():
            key, _, part = field_name.rpartition("|")
            labels = tuple(key.split(SEP)) if key else ()
            buckets, total, count = series.get(
                labels, ([0.0] * (len(definition.buckets) + 1), 0.0, 0.0)
            )
            if part == "sum":
                total = value
            elif part == "count":
                count = value
            else:
                buckets[int(part)] = value
            series[labels] = (buckets, total, count)
        snap.histograms[name] = series
    return snap


def job_result(metrics: Metrics | None, job: Job, result: Result) -> None:
    """A job's result was stored: its stage durations and model tokens (and a log line per
    stage, with the job's bound context)."""
    from evidex.workers.logs import get_logger

    logger = get_logger(__name__)
    timings = result.trace.timings_ms
    for stage in STAGES:
        if stage in timings:
            logger.info("stage finished", stage=stage, duration_ms=timings[stage])
    if metrics is None:
        return
    with metrics.batch():
        for stage in STAGES:
            if stage in timings:
                metrics.observe("evidex_stage_duration_seconds", timings[stage] / 1000, (stage,))
        for direction in ("input", "output"):
            tokens = result.trace.usage.get(f"{direction}_tokens", 0)
            if tokens:
                metrics.inc("evidex_model_tokens", (direction,), tokens)


def job_ended(metrics: Metrics | None, job: Job) -> None:
    """A job reached its final state: count it by status and error code, time it."""
    from evidex.workers.logs import get_logger

    seconds = max((job.updated_at - job.created_at).total_seconds(), 0.0)
    code = job.error.code if job.error else ""
    get_logger(__name__).info(
        f"job {job.status.value}",
        stage="job",
        status=job.status.value,
        error_code=code or None,
        duration_ms=round(seconds * 1000, 2),
    )
    if metrics is None:
        return
    with metrics.batch():
        metrics.inc("evidex_jobs", (job.status.value, code))
        if code in REFUSALS:
            metrics.inc("evidex_refusals", (code,))
        metrics.observe("evidex_job_duration_seconds", seconds, (job.status.value,))
