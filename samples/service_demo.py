"""The service path end to end on the three samples: REST API + Celery worker + Redis.

Finds a Redis (``EVIDEX_REDIS_URL``, else 127.0.0.1:6379) or starts a private one, starts
``evidex worker`` and ``evidex serve`` as real processes with a throw-away API key, submits each
sample with ``POST /v1/jobs``, polls ``GET /v1/jobs/{id}`` until it ends, prints the per-field
table and saves the highlighted PDF from ``GET /v1/jobs/{id}/annotated.pdf`` under ``out/``.
Returns False (without doing anything) when no Redis can be had.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from evidex.schemas import Result
from evidex.service.table import render_table
from evidex.workers.localredis import LocalRedis, find_redis_server, reachable

HERE = Path(__file__).parent
SAMPLES = (
    ("invoice.pdf", "invoice"),
    ("cv.pdf", "candidate_profile"),
    ("contract.pdf", "contract"),
)
EVIDEX = str(Path(sys.executable).with_name("evidex"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _redis() -> Iterator[str | None]:
    url = os.environ.get("EVIDEX_REDIS_URL", "redis://127.0.0.1:6379/0")
    if reachable(url):
        yield url
    elif find_redis_server() is not None:
        with LocalRedis.start() as local:
            print(f"(no Redis at {url}: started a private one at {local.url})")
            yield local.url
    else:
        yield None


@contextlib.contextmanager
def _process(argv: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(client: httpx.Client, procs: list[subprocess.Popen[bytes]], logs: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            raise RuntimeError(f"a service process exited early; see the logs in {logs}")
        with contextlib.suppress(httpx.HTTPError):
            if client.get("/readyz").status_code == 200:
                return
        time.sleep(0.5)
    raise RuntimeError(f"the service did not become ready in 60 s; see the logs in {logs}")


def _run_job(client: httpx.Client, path: Path, schema: str, out_dir: Path) -> str:
    with path.open("rb") as fh:
        created = client.post(
            "/v1/jobs", files={"file": (path.name, fh, "application/pdf")}, data={"schema": schema}
        )
    created.raise_for_status()
    location = created.headers["location"]
    print(f"\nPOST /v1/jobs {path.name} schema={schema} -> {created.status_code} {location}")
    deadline = time.monotonic() + 120
    while True:
        job = client.get(location).json()
        if job["status"] in ("succeeded", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    print(f"GET {location} -> {job['status']}")
    if job["status"] != "succeeded":
        print(f"  error: {job.get('error')}")
        return str(job["status"])
    result = Result.model_validate(job["result"])
    print(render_table(result))
    pdf = client.get(f"{location}/annotated.pdf")
    target = out_dir / f"{path.stem}.service.highlighted.pdf"
    target.write_bytes(pdf.content)
    (out_dir / f"{path.stem}.service.result.json").write_text(result.to_json() + "\n")
    return "succeeded"


def run(out_dir: Path) -> bool:
    out_dir.mkdir(parents=True, exist_ok=True)
    with _redis() as redis_url:
        if redis_url is None:
            print("(no Redis and no redis-server: skipping the service path)")
            return False
        key = secrets.token_urlsafe(24)
        port = _free_port()
        data = tempfile.mkdtemp(prefix="evidex-demo-")
        env = {
            **os.environ,
            "EVIDEX_REDIS_URL": redis_url,
            "EVIDEX_DATA_DIR": data,
            "EVIDEX_API_KEYS": f"demo={key}",
            "EVIDEX_LLM": os.environ.get("EVIDEX_LLM", "rules"),
        }
        print(f"\nservice path: Redis {redis_url}, API http://127.0.0.1:{port}, data in {data}")
        worker = [EVIDEX, "worker", "--concurrency", "4"]
        serve = [EVIDEX, "serve", "--port", str(port), "--log-level", "warning"]
        with (
            _process(worker, env, out_dir / "worker.log") as w,
            _process(serve, env, out_dir / "api.log") as api,
            httpx.Client(
                base_url=f"http://127.0.0.1:{port}",
                headers={"Authorization": f"Bearer {key}"},
                timeout=30,
            ) as client,
        ):
            _wait_ready(client, [w, api], out_dir)
            outcomes = [_run_job(client, HERE / name, schema, out_dir) for name, schema in SAMPLES]
        print(
            f"\nservice path: {outcomes.count('succeeded')}/{len(outcomes)} jobs succeeded; "
            f"results, highlighted PDFs and logs are in {out_dir}/"
        )
        return outcomes.count("succeeded") == len(outcomes)


if __name__ == "__main__":
    sys.exit(0 if run(Path("out")) else 1)
