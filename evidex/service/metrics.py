"""``GET /metrics``: every process's figures in the Prometheus text format.

The route exists only when ``EVIDEX_METRICS_TOKEN`` is set (otherwise ``/metrics`` is a plain
404) and answers only ``Authorization: Bearer <that token>`` -- a token of its own, not an API
key, so a scraper holds no tenant's credential and a tenant cannot read the operator's figures.
The token is checked by a guard, on the event loop, before any figure is read: a wrong one costs
a constant-time compare, and ``create_app`` counts every request against the per-address limit
first (:func:`evidex.service.ratelimit.per_address`), so guessing is slow too.
The figures come from :mod:`evidex.workers.metrics` (Redis, shared by the API and every worker)
and are rendered by ``prometheus_client``; the queue depth is read at scrape time.
"""

from __future__ import annotations

import hmac
from typing import Any

from litestar import Controller, Response, get
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from evidex.service.problems import ApiError
from evidex.service.services import Services, ServicesDep
from evidex.workers.metrics import METRICS, Snapshot
from evidex.workers.stores import StoreUnavailable

__all__ = ["CONTENT_TYPE", "MetricsController", "render", "require_metrics_token"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class _Figures(Collector):
    def __init__(self, snap: Snapshot, queue_depth: int | None) -> None:
        self.snap, self.queue_depth = snap, queue_depth

    def collect(self) -> Any:
        families: list[Metric] = []
        for name, definition in METRICS.items():
            labels = list(definition.labels)
            if definition.kind == "counter":
                counter = CounterMetricFamily(name, definition.help, labels=labels)
                series = self.snap.counters.get(name, {})
                if not series and not labels:
                    series = {(): 0.0}
                for values, amount in sorted(series.items()):
                    counter.add_metric(list(values), amount)
                families.append(counter)
                continue
            histogram = HistogramMetricFamily(name, definition.help, labels=labels)
            for values, (buckets, total, _count) in sorted(
                self.snap.histograms.get(name, {}).items()
            ):
                bounds = [*map(floatToGoString, definition.buckets), "+Inf"]
                cumulative, running = [], 0.0
                for bound, count in zip(bounds, buckets, strict=True):
                    running += count
                    cumulative.append((bound, running))
                histogram.add_metric(list(values), cumulative, total)
            families.append(histogram)
        if self.queue_depth is not None:
            families.append(
                GaugeMetricFamily(
                    "evidex_queue_depth", "Jobs waiting in the queue.", value=self.queue_depth
                )
            )
        return iter(families)


def render(snap: Snapshot, queue_depth: int | None = None) -> bytes:
    """The Prometheus text exposition of ``snap``."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Figures(snap, queue_depth))
    return generate_latest(registry)


async def require_metrics_token(
    connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler
) -> None:
    """Guard of ``/metrics``: the metrics token, or 401."""
    _authorised(connection.app.state.services, connection.headers.get("authorization"))


def _authorised(services: Services, authorization: str | None) -> None:
    token = services.settings.metrics_token
    scheme, _, presented = (authorization or "").strip().partition(" ")
    ok = (
        token is not None
        and scheme.lower() == "bearer"
        and hmac.compare_digest(presented.strip().encode(), token.get_secret_value().encode())
    )
    if not ok:
        raise ApiError(
            "unauthorized",
            "send the metrics token as 'Authorization: Bearer <EVIDEX_METRICS_TOKEN>'",
            headers={"WWW-Authenticate": 'Bearer realm="evidex-metrics"'},
        )


class MetricsController(Controller):
    path = "/metrics"
    include_in_schema = False
    guards = (require_metrics_token,)

    @get("/", sync_to_thread=True, media_type=CONTENT_TYPE)
    def metrics(self, services: ServicesDep) -> Response[bytes]:
        if services.metrics is None:
            raise ApiError("not_found", "no metrics are recorded by this service")
        depth_of = getattr(services.metrics, "queue_depth", None)
        try:
            snap = services.metrics.snapshot()
            depth = depth_of() if depth_of else None
        except Exception as exc:  # redis errors: the figures cannot be read now
            if type(exc).__module__.startswith("redis"):
                raise StoreUnavailable(f"metrics cannot be read: {exc}") from exc
            raise
        return Response(render(snap, depth), media_type=CONTENT_TYPE)
