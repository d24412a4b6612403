"""``evidex serve`` / ``evidex worker`` and ``production_app``'s wiring (real Redis job store and
local blob store; ``make_celery``/``enqueue_job`` replaced by recording stand-ins)."""

from __future__ import annotations

import types
import uuid
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from test_api import INVOICE, problem

from evidex.service import app as app_module
from evidex.service.cli import main
from evidex.service.ratelimit import RedisRateLimiter
from evidex.service.settings import ServiceSettings


@pytest.fixture(autouse=True)
def logging_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """``configure_logging`` recorded, not run: it would rewire this test process's logging."""
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(
        "evidex.workers.logs.configure_logging", lambda fmt, level: calls.append((fmt, level))
    )
    return calls


class FakeCelery:
    def __init__(self, settings: Any, workers: list[dict[str, Any]]) -> None:
        self.settings = settings
        self.argv: list[str] | None = None
        self.conf = types.SimpleNamespace(worker_hijack_root_logger=True)
        self.control = types.SimpleNamespace(ping=lambda timeout: workers)

    def worker_main(self, argv: list[str]) -> None:
        self.argv = argv


@pytest.fixture
def celery_modules(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``make_celery``/``enqueue_job`` replaced by recording stand-ins (no broker needed)."""
    made: dict[str, Any] = {"apps": [], "sent": [], "workers": [{"celery@w1": {"ok": "pong"}}]}

    def make_celery(settings: Any) -> FakeCelery:
        app = FakeCelery(settings, made["workers"])
        made["apps"].append(app)
        return app

    def enqueue_job(app: Any, job_id: str) -> None:
        made["sent"].append((app, job_id))

    monkeypatch.setattr("evidex.workers.celery_app.make_celery", make_celery)
    monkeypatch.setattr("evidex.workers.tasks.enqueue_job", enqueue_job)
    return made


def test_serve_runs_uvicorn_with_the_production_app(
    monkeypatch: pytest.MonkeyPatch, logging_calls: list[tuple[str, str]]
) -> None:
    ran: dict[str, Any] = {}
    built: list[ServiceSettings] = []
    sentinel = Litestar()

    def fake_production_app(settings: ServiceSettings) -> Litestar:
        built.append(settings)
        return sentinel

    monkeypatch.setenv("EVIDEX_API_KEYS", "acme=k1")
    monkeypatch.setenv("EVIDEX_PORT", "8123")
    monkeypatch.setattr(app_module, "production_app", fake_production_app)
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: ran.update(app=app, **kw))
    assert main(["serve", "--host", "0.0.0.0"]) == 0
    assert ran == {
        "app": sentinel, "host": "0.0.0.0", "port": 8123, "log_level": "info",
        "log_config": None, "access_log": False,
    }  # fmt: skip
    assert [k.tenant for k in built[0].api_keys] == ["acme"]
    assert logging_calls == [("json", "info")]  # EVIDEX_LOG_FORMAT's default
    assert main(["serve", "--port", "9000"]) == 0 and ran["port"] == 9000
    assert ran["host"] == "127.0.0.1"


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ("", "evidex: config_error: no API keys configured"),
        ("acme", "evidex: config_error: invalid setting api_keys: Value error, EVIDEX_API_KEYS"),
    ],
)
def test_serve_refuses_to_start_without_valid_keys(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], keys: str, message: str
) -> None:
    monkeypatch.setenv("EVIDEX_API_KEYS", keys)
    monkeypatch.setattr("uvicorn.run", lambda *a, **kw: pytest.fail("must not start"))
    assert main(["serve"]) == 2
    assert capsys.readouterr().err.startswith(message)


def test_worker_starts_celery_with_a_thread_pool(
    monkeypatch: pytest.MonkeyPatch,
    celery_modules: dict[str, Any],
    logging_calls: list[tuple[str, str]],
) -> None:
    monkeypatch.setenv("EVIDEX_WORKER_CONCURRENCY", "3")
    monkeypatch.setenv("EVIDEX_LOG_FORMAT", "console")
    assert main(["worker"]) == 0
    assert celery_modules["apps"][-1].conf.worker_hijack_root_logger is False  # our JSON logs
    assert logging_calls == [("console", "INFO")]
    assert celery_modules["apps"][-1].argv == [
        "worker", "--pool", "threads", "--concurrency", "3", "--loglevel", "INFO"
    ]  # fmt: skip
    assert main(["worker", "--concurrency", "8", "--queues", "a,b", "--loglevel", "DEBUG"]) == 0
    assert celery_modules["apps"][-1].argv == [
        "worker", "--pool", "threads", "--concurrency", "8", "--loglevel", "DEBUG",
        "--queues", "a,b",
    ]  # fmt: skip


def test_production_app_wires_redis_stores_celery_and_readiness(
    redis_url: str, tmp_path: Path, celery_modules: dict[str, Any]
) -> None:
    tenant, key = f"t{uuid.uuid4().hex[:12]}", uuid.uuid4().hex
    settings = ServiceSettings(api_keys={tenant: key}, redis_url=redis_url, data_dir=tmp_path)
    app = app_module.production_app(settings)
    auth = {"Authorization": f"Bearer {key}"}
    assert isinstance(app.state.services.limiter, RedisRateLimiter)
    with TestClient(app) as client:
        r = client.post(
            "/v1/jobs",
            files={"file": ("invoice.pdf", INVOICE, "application/pdf")},
            data={"schema": "invoice"},
            headers=auth,
        )
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        assert celery_modules["sent"] == [(celery_modules["apps"][0], job_id)]
        assert (tmp_path / tenant / job_id / "document").read_bytes() == INVOICE
        assert client.get(f"/v1/jobs/{job_id}", headers=auth).json()["status"] == "queued"
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json()["checks"] == {"redis": "ok", "workers": "ok: 1 live", "blobs": "ok"}
        celery_modules["workers"].clear()
        problem(client.get("/readyz"), 503, "not_ready")
        assert client.delete(f"/v1/jobs/{job_id}", headers=auth).status_code == 204
        assert not (tmp_path / tenant / job_id / "document").exists()
