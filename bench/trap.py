"""Another tenant's latency while one tenant sends the regular-expression trap.

    PYTHONPATH=. .venv/bin/python -m bench.trap --jobs 12 --rounds 2

Starts a private redis-server (see :mod:`bench.load`), one ``evidex worker`` with its default
settings and ``evidex serve``, every job on the embedded ``rules`` backend (no model server: the
figures are the service's own). Then, ``--rounds`` times, two batches side by side:

- *plain*: tenant B submits ``--jobs`` copies of the sample invoice at once;
- *trap*: tenant A first submits a one-page PDF reading ``Reference code: aaa…a!`` (34 a's)
  with a schema whose field has the pattern ``^(a+)+$`` (catastrophic backtracking in a
  backtracking engine), then B submits the same batch.

It prints B's job latency (created -> succeeded, the server's clock) p50/p99 per kind of batch
and the trap's p99 over the plain p99 (target at most 2), how the trap job ended and how long it
took (target: within 30 s, with a named outcome), and what a pattern the linear-time engine
cannot run gets at submit (``422 schema_invalid``).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from bench.common import SAMPLES
from bench.load import _pct, _redis
from tests.service_stack import EVIDEX, clean_env, free_port, process, wait_ready
from tests.trap_documents import LOOKAROUND, TRAP_SCHEMA, trap_pdf

INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
TARGET_RATIO, TARGET_TRAP_S = 2.0, 30.0


class Tenant:
    def __init__(self, base: str, key: str) -> None:
        self.client = httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60
        )

    def submit(self, data: bytes, name: str, schema: dict[str, Any] | str) -> httpx.Response:
        form = {"options": json.dumps({"llm": "rules"})}
        form |= (
            {"schema": schema} if isinstance(schema, str) else {"schema_json": json.dumps(schema)}
        )
        return self.client.post(
            "/v1/jobs", data=form, files={"file": (name, data, "application/pdf")}
        )

    def wait(self, ids: list[str], timeout_s: float = 600.0) -> dict[str, dict[str, Any]]:
        deadline, ended = time.monotonic() + timeout_s, {}
        while len(ended) < len(ids) and time.monotonic() < deadline:
            for job_id in ids:
                if job_id not in ended:
                    job = self.client.get(f"/v1/jobs/{job_id}").json()
                    if job["status"] in ("succeeded", "failed"):
                        ended[job_id] = job
            time.sleep(0.2)
        return ended


def took_s(job: dict[str, Any]) -> float:
    """Created -> its final event, on the server's clock."""
    final = [e["at"] for e in job["events"] if e["status"] == job["status"]][-1]
    return (
        datetime.fromisoformat(final) - datetime.fromisoformat(job["created_at"])
    ).total_seconds()


def batch(b: Tenant, jobs: int) -> list[str]:
    sent = [b.submit(INVOICE, "invoice.pdf", "invoice") for _ in range(jobs)]
    bad = [r.status_code for r in sent if r.status_code != 202]
    if bad:
        raise SystemExit(f"tenant B's submits failed: {bad}")
    return [r.json()["id"] for r in sent]


def run(jobs: int, rounds: int) -> int:
    logs = Path(tempfile.mkdtemp(prefix="evidex-bench-trap-"))
    keys = {"alpha": secrets.token_urlsafe(24), "beta": secrets.token_urlsafe(24)}
    print(f"bench.trap: {rounds} round(s) of {jobs} jobs, plain vs with the trap; logs in {logs}")
    latencies: dict[str, list[float]] = {"plain": [], "trap": []}
    traps: list[tuple[str, str, float]] = []
    with _redis() as (redis_url, _queue):
        env = clean_env(
            EVIDEX_REDIS_URL=redis_url,
            EVIDEX_DATA_DIR=str(logs / "data"),
            EVIDEX_API_KEYS=",".join(f"{t}={k}" for t, k in keys.items()),
            EVIDEX_RATE_LIMIT_PER_MINUTE="1000000",
            EVIDEX_LLM="rules",
        )
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        serve = [EVIDEX, "serve", "--port", str(port), "--log-level", "warning"]
        with (
            process([EVIDEX, "worker", "--loglevel", "WARNING"], env, logs / "worker.log") as w,
            process(serve, env, logs / "api.log") as api,
        ):
            a, b = Tenant(base, keys["alpha"]), Tenant(base, keys["beta"])
            wait_ready(base, [w, api], logs, "/healthz")
            b.wait(batch(b, 2))  # warm-up: the worker's stage processes start on first use
            refused = a.submit(INVOICE, "invoice.pdf", LOOKAROUND)
            for _ in range(rounds):
                latencies["plain"] += [took_s(j) for j in b.wait(batch(b, jobs)).values()]
                trap = a.submit(trap_pdf(), "trap.pdf", TRAP_SCHEMA).json()["id"]
                latencies["trap"] += [took_s(j) for j in b.wait(batch(b, jobs)).values()]
                ended = a.wait([trap])[trap]
                field = ended.get("result", {}).get("fields", {}).get("reference_code", {})
                status = f"{ended['status']} ({field.get('status', ended.get('error'))})"
                traps.append((status, str(field.get("reasons", "")), took_s(ended)))
    p99 = {kind: _pct(values, 0.99) for kind, values in latencies.items()}
    for kind, values in latencies.items():
        print(
            f"  B, {kind:5}: {len(values)} jobs, "
            f"p50 {_pct(values, 0.5):.2f} s, p99 {p99[kind]:.2f} s"
        )
    ratio = p99["trap"] / p99["plain"]
    print(f"  B's p99 with the trap / without: {ratio:.2f} (target <= {TARGET_RATIO:g})")
    for status, reasons, seconds in traps:
        print(f"  trap job: {status} in {seconds:.1f} s (target <= {TARGET_TRAP_S:g}); {reasons}")
    problem = refused.json()
    print(f"  lookaround pattern at submit: {refused.status_code} {problem.get('code', '')}")
    ok = ratio <= TARGET_RATIO and all(s <= TARGET_TRAP_S for _, _, s in traps)
    return 0 if ok and refused.status_code == 422 else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.trap", description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=12, help="tenant B's jobs per batch")
    ap.add_argument("--rounds", type=int, default=2, help="plain + trap batches to run")
    args = ap.parse_args(argv)
    return run(args.jobs, args.rounds)


if __name__ == "__main__":
    sys.exit(main())
