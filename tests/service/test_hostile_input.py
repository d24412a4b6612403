"""A hostile client against the real thing: ``evidex serve`` and ``evidex worker`` processes on a
private Redis, two tenants.

Tenant A sends the classic regular-expression trap: a field whose ``pattern`` is ``^(a+)+$`` and
a document whose value is 34 a's and a ``!``. In Python's ``re`` that check backtracks for ever
while holding the worker's GIL; in RE2 it is linear, so the job ends at once with the value sent
to review. Meanwhile tenant B's ordinary jobs run to success on the same worker. A pattern RE2
cannot run (lookaround, backreferences) is refused at submit, naming the field, and by the CLI
with exit 2. No timing is asserted: "ends" means within a generous bound for a loaded machine.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sample_answers import SAMPLES
from service_stack import EVENTUALLY_S, Service, running_stack, skip_without_redis
from trap_documents import LOOKAROUND, TRAP_SCHEMA, TRAP_VALUE, trap_pdf

from evidex.service.cli import main

INVOICE = (SAMPLES / "invoice.pdf").read_bytes()

skip_without_redis()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    polls = "100000"  # the tests poll until jobs end; the rate limit is tested elsewhere
    with running_stack(
        tmp_path_factory.mktemp("hostile"),
        ("alpha", "beta"),
        EVIDEX_LLM="rules",
        EVIDEX_RATE_LIMIT_PER_MINUTE=polls,
    ) as stack:
        yield stack


def _submit(
    stack: Service, tenant: str, data: bytes, name: str, schema: dict[str, Any] | str
) -> httpx.Response:
    return stack.submit(data, schema, {"llm": "rules"}, name=name, tenant=tenant)


def _job_ids(stack: Service, tenant: str) -> list[str]:
    return [job["id"] for job in stack.jobs(tenant)]


def test_the_pattern_trap_ends_and_another_tenants_jobs_finish(stack: Service) -> None:
    trap = _submit(stack, "alpha", trap_pdf(), "trap.pdf", TRAP_SCHEMA)
    assert trap.status_code == 202, trap.text
    ordinary = []
    for n in range(4):
        sent = _submit(stack, "beta", INVOICE, f"invoice-{n}.pdf", "invoice")
        assert sent.status_code == 202, sent.text
        ordinary.append(sent.json()["id"])
    pending = {("alpha", trap.json()["id"]), *(("beta", i) for i in ordinary)}
    final: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + EVENTUALLY_S
    while pending and time.monotonic() < deadline:
        for tenant, job_id in sorted(pending):
            job = stack.job(job_id, tenant)
            if job["status"] in ("succeeded", "failed"):
                final[job_id] = job
                pending.discard((tenant, job_id))
        time.sleep(0.2)
    assert not pending, f"jobs that did not end: {pending}"

    ended = final[trap.json()["id"]]
    assert ended["status"] == "succeeded", ended
    field = ended["result"]["fields"]["reference_code"]
    assert field["status"] == "needs_review"
    assert field["value"] == TRAP_VALUE
    reason = f"the value does not fit the schema: '{TRAP_VALUE}' does not match '^(a+)+$'"
    assert field["reasons"] == [reason]
    assert ended["result"]["data"] == {}  # a value that breaks its pattern is not given as data
    for job_id in ordinary:
        job = final[job_id]
        assert job["status"] == "succeeded", job
        assert job["result"]["fields"]["invoice_number"]["status"] == "verified"
    # One tenant never sees the other's job.
    r = stack.request("GET", f"/v1/jobs/{ordinary[0]}", "alpha")
    assert r.status_code == 404


def test_a_pattern_re2_cannot_run_is_refused_at_submit_naming_the_field(stack: Service) -> None:
    before = _job_ids(stack, "alpha")
    r = _submit(stack, "alpha", trap_pdf(), "trap.pdf", LOOKAROUND)
    assert r.status_code == 422
    problem = r.json()
    assert problem["code"] == "schema_invalid"
    assert problem["detail"].startswith("reference_code: pattern '(?=a)b' cannot be used")
    assert "lookaround is not supported" in problem["detail"]
    assert _job_ids(stack, "alpha") == before  # no job was created


def test_the_cli_ends_on_the_trap_and_refuses_a_lookaround_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf, trap, look = tmp_path / "trap.pdf", tmp_path / "trap.json", tmp_path / "look.json"
    pdf.write_bytes(trap_pdf())
    trap.write_text(json.dumps(TRAP_SCHEMA))
    look.write_text(json.dumps(LOOKAROUND))
    out = tmp_path / "r.json"
    argv = ["extract", str(pdf), "--schema", str(trap), "--llm", "rules", "--out", str(out)]
    assert main(argv) == 0
    field = json.loads(out.read_text())["fields"]["reference_code"]
    assert (field["status"], field["value"]) == ("needs_review", TRAP_VALUE)
    capsys.readouterr()
    assert main(["extract", str(pdf), "--schema", str(look), "--llm", "rules"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evidex: schema_invalid: reference_code: pattern '(?=a)b' cannot be used")
