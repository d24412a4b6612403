"""A job's CPU stages in real child processes: the same answers as in the thread, and a stage
that never ends -- Python's ``re`` backtracking, which holds its process's GIL -- killed at its
bound while the stages of other jobs go on.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
from sample_answers import SAMPLES

from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.llm.rules import RulesBackend
from evidex.schemas import schema_from_json
from evidex.workers.stages import (
    InlineStages,
    JobTimeout,
    ParserCrashed,
    ProcessStages,
    StageCrashed,
)

INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
ORDER = {
    "type": "object",
    "title": "order",
    "properties": {
        "invoice_number": {"type": "string", "description": "The invoice number"},
        "total": {"type": "number", "description": "The total amount due"},
        "iban": {"type": "string", "description": "The IBAN to pay to"},
    },
}


def backtrack() -> bool:
    """Never ends in practice: 2**64 ways to split the a's, and the GIL held throughout."""
    return re.match(r"^(a+)+$", "a" * 64 + "!") is not None


def die() -> None:
    import os

    os._exit(9)


@pytest.fixture
def stages() -> Iterator[ProcessStages]:
    pool = ProcessStages(workers=2)
    yield pool
    pool.close()


def test_the_stages_in_child_processes_give_what_they_give_in_the_thread(
    stages: ProcessStages,
) -> None:
    schema = schema_from_json(ORDER)  # a client's schema: its models cannot be pickled
    inline = InlineStages()
    results = []
    for where in (inline, stages):
        doc = where.parse("pymupdf", INVOICE, "invoice.pdf", 60.0)
        request = LLMRequest("", "", schema, doc)
        answer = where.answer(RulesBackend(), request, 60.0)
        checked = where.verify(schema, answer.output, doc.lines, 60.0)
        results.append((answer.output.model_dump(), checked.fields, checked.data))
    assert results[0] == results[1]
    fields, data = results[1][1], results[1][2]
    assert fields["invoice_number"].status == "verified"
    assert data["invoice_number"] == "INV-2026-00418"


def test_a_stage_that_never_ends_is_killed_at_its_bound_and_the_others_go_on(
    stages: ProcessStages,
) -> None:
    parsed: list[str] = []

    def other_job() -> None:
        for _ in range(3):  # on the other process, while the trap holds the first
            doc = stages.parse("pymupdf", INVOICE, "invoice.pdf", 60.0)
            parsed.append(doc.sha256)

    beside = threading.Thread(target=other_job)
    beside.start()
    with pytest.raises(JobTimeout) as late:
        stages.run("verification", "schema 'trap'", backtrack, (), 3.0)
    beside.join(timeout=120)
    assert late.value.code == "job_timeout"
    assert "the verification stage of schema 'trap' did not finish within 3 s" in str(late.value)
    assert len(parsed) == 3 and len(set(parsed)) == 1
    # The pool replaced the killed process: it still serves.
    assert stages.parse("pymupdf", INVOICE, "invoice.pdf", 60.0).sha256 == parsed[0]


def test_no_time_left_starts_no_stage(stages: ProcessStages) -> None:
    with pytest.raises(JobTimeout) as late:
        stages.run("parse", "a.pdf", backtrack, (), 0.0)
    assert str(late.value) == "no time was left for the parse stage of a.pdf"


@pytest.mark.parametrize(("stage", "error", "code"), [
    ("parse", ParserCrashed, "parser_crashed"),
    ("verification", StageCrashed, "stage_crashed"),
])  # fmt: skip
def test_a_child_that_dies_is_a_transient_crash_of_its_stage(
    stages: ProcessStages, stage: str, error: type[StageCrashed], code: str
) -> None:
    with pytest.raises(error) as crashed:
        stages.run(stage, "a.pdf", die, (), 30.0)
    assert crashed.value.code == code and crashed.value.transient
    assert f"the process running the {stage} stage of a.pdf stopped (exit code 9" in str(
        crashed.value
    )
