"""Faults at the API processes on the real path (``evidex serve`` processes, ``evidex worker``,
private Redis, the OpenAI SDK against a fake model server): idempotent resubmission and tenant
isolation, two API processes saving review decisions at once, and a 60 MB upload every client
reads as a 413 problem.

Each test asserts that nothing is lost or done twice: one job and one model call per idempotency
key, no tenant sees another's job, every decision is kept, and nothing is stored for a refused
upload. The stack and its checks are in ``fault_stack``.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_openai import RESPONSES, FakeOpenAI
from fault_stack import (
    ACME,
    GLOBEX,
    Processes,
    assert_one_job,
    assert_queue_drained,
    assert_ran_once,
    good_reply,
    run_job,
    stored_files,
    submit,
    wait_final,
)
from service_stack import AofRedis, needs_redis

pytestmark = needs_redis


def test_idempotent_resubmission_and_tenant_isolation_through_the_api_process(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, good_reply(1), good_reply(2))
    base = procs.api()
    procs.worker()
    with httpx.Client(base_url=base, timeout=30) as api:
        first = submit(api, **{"Idempotency-Key": "inv-0418"})
        replay = submit(api, **{"Idempotency-Key": "inv-0418"})
        assert (first.status_code, replay.status_code) == (202, 200), (first.text, replay.text)
        job_id = first.json()["id"]
        assert replay.json()["id"] == job_id
        assert replay.headers["idempotent-replayed"] == "true"
        done = wait_final(api, job_id, procs)
        assert_ran_once(procs, done)
        late = submit(api, **{"Idempotency-Key": "inv-0418"})  # after the job has ended
        assert (late.status_code, late.json()["id"], late.json()["status"]) == (
            200,
            job_id,
            "succeeded",
        )

        # Another tenant sees none of it, cannot delete it, and has its own key space.
        for method, path in (
            ("GET", f"/v1/jobs/{job_id}"),
            ("GET", f"/v1/jobs/{job_id}/annotated.pdf"),
            ("DELETE", f"/v1/jobs/{job_id}"),
        ):
            response = api.request(method, path, headers=GLOBEX)
            assert response.status_code == 404, (method, path, response.text)
            assert response.json()["code"] == "job_not_found"
        assert api.get("/v1/jobs", headers=GLOBEX).json()["jobs"] == []
        theirs = submit(api, GLOBEX, **{"Idempotency-Key": "inv-0418"})
        assert theirs.status_code == 202 and theirs.json()["id"] != job_id
        other = wait_final(api, theirs.json()["id"], procs, GLOBEX)
        assert other["status"] == "succeeded", (other, procs.logs())
        assert api.get(f"/v1/jobs/{other['id']}", headers=ACME).status_code == 404

        # The owner's job is intact after all that.
        assert api.get(f"/v1/jobs/{job_id}", headers=ACME).json() == done
        pdf = api.get(f"/v1/jobs/{job_id}/annotated.pdf", headers=ACME)
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
        assert [j["id"] for j in api.get("/v1/jobs", headers=ACME).json()["jobs"]] == [job_id]
    assert len(fake.bodies(RESPONSES)) == 2  # one model call per job, none for the replays
    assert stored_files(tmp_path / "data") == {
        f"{tenant}/{jid}/{name}"
        for tenant, jid in (("acme", job_id), ("globex", other["id"]))
        for name in ("document", "result.json")
    }
    assert_one_job(private_redis, "acme", job_id)
    assert_one_job(private_redis, "globex", other["id"])
    assert_queue_drained(private_redis)


def test_two_api_processes_saving_decisions_at_once_lose_none(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, good_reply())
    bases = [procs.api(), procs.api()]
    procs.worker()
    with httpx.Client(base_url=bases[0], timeout=30) as api:
        job = run_job(api, procs)
    assert job["status"] == "succeeded", (job, procs.logs())
    paths = sorted(p for p in job["result"]["fields"] if "[" not in p)[:12]
    assert len(paths) >= 8
    start = threading.Barrier(2)

    def review(base: str, action: str) -> list[int]:
        with httpx.Client(base_url=base, timeout=60) as client:
            start.wait()
            return [
                client.patch(
                    f"/v1/jobs/{job['id']}/fields/{path}",
                    json={"action": action, "note": f"{action} from {base}"},
                    headers=ACME,
                ).status_code
                for path in paths
            ]

    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(review, bases, ["confirm", "reject"]))
    assert outcomes == [[200] * len(paths)] * 2
    saved = httpx.get(f"{bases[1]}/v1/jobs/{job['id']}/decisions", headers=ACME).json()
    made = sorted((d["path"], d["action"]) for d in saved["history"])
    assert made == sorted((p, a) for p in paths for a in ("confirm", "reject"))
    assert set(saved["decisions"]) == set(paths)


BIG = b"%PDF-1.7\n" + b"0" * (60 * 1024 * 1024)  # 60 MB, over the 25 MiB default limit


def _multipart(boundary: str) -> bytes:
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="schema"\r\n\r\ninvoice\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n"
    )
    return head.encode() + BIG + f"\r\n--{boundary}--\r\n".encode()


def _urllib_post(url: str) -> tuple[int, str, bytes]:
    boundary = "evidex-oversize-test"
    request = urllib.request.Request(
        url,
        data=_multipart(boundary),
        method="POST",
        headers={**ACME, "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.headers["content-type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["content-type"], error.read()


def _requests_post(url: str) -> tuple[int, str, bytes]:
    import requests

    files = {"file": ("big.pdf", BIG, "application/pdf")}
    response = requests.post(
        url, files=files, data={"schema": "invoice"}, headers=ACME, timeout=120
    )
    return response.status_code, response.headers["content-type"], response.content


def _httpx_post(url: str) -> tuple[int, str, bytes]:
    files = {"file": ("big.pdf", BIG, "application/pdf")}
    response = httpx.post(url, files=files, data={"schema": "invoice"}, headers=ACME, timeout=120)
    return response.status_code, response.headers["content-type"], response.content


@pytest.mark.parametrize("send", [_urllib_post, _requests_post, _httpx_post])
def test_a_60_mb_upload_gets_a_413_problem_every_client_can_read(
    procs: Processes, tmp_path: Path, send: Any
) -> None:
    base = procs.api()
    status, content_type, body = send(f"{base}/v1/jobs")
    assert status == 413, body[:500]
    assert content_type.startswith("application/problem+json")
    problem = json.loads(body)
    assert problem["code"] == "file_too_large"
    assert "bytes" in problem["detail"]
    assert stored_files(tmp_path / "data") == set()
