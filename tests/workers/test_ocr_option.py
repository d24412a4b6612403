"""``options.ocr`` reaches the worker's parse the way ``options.parser`` and ``tables`` do."""

from __future__ import annotations

from sample_answers import SAMPLES

from evidex.extractors.backends import make_parser
from evidex.extractors.document import ParsedDocument
from evidex.extractors.parse.auto import AutoParser
from evidex.extractors.parse.ocr import OcrParser
from evidex.extractors.settings import Settings
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.jobs import Job, JobOptions, JobStatus, new_job_id
from evidex.workers.jobstore_memory import MemoryJobStore
from evidex.workers.runner import Deps, process
from evidex.workers.settings import WorkerSettings
from evidex.workers.stages import InlineStages

INVOICE = (SAMPLES / "invoice.pdf").read_bytes()


class RecordingStages(InlineStages):
    """The inline stages, noting the parser each parse was asked for and what it built."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.engines: list[str] = []

    def parse(self, parser: str, data: bytes, filename: str, timeout_s: float) -> ParsedDocument:
        self.asked.append(parser)
        made = make_parser(parser, Settings())
        ocr = made.ocr if isinstance(made, AutoParser) else made
        self.engines.append(ocr.engine_name if isinstance(ocr, OcrParser) else "")
        return super().parse(parser, data, filename, timeout_s)


def run(options: JobOptions) -> tuple[RecordingStages, Job]:
    jobs, blobs, stages = MemoryJobStore(), MemoryBlobStore(), RecordingStages()
    deps = Deps(jobs=jobs, blobs=blobs, settings=WorkerSettings(llm="rules"), stages=stages)
    job_id = new_job_id()
    blobs.put(f"acme/{job_id}/document", INVOICE, "application/pdf")
    jobs.create(
        Job(
            id=job_id,
            tenant="acme",
            filename="invoice.pdf",
            media_type="application/pdf",
            size=len(INVOICE),
            sha256="0" * 64,
            schema_name="invoice",
            document_key=f"acme/{job_id}/document",
            options=options,
        )
    )
    process(job_id, deps)
    done = jobs.get(job_id)
    assert done is not None
    return stages, done


def test_the_jobs_ocr_engine_goes_to_the_parse_with_its_parser_and_tables() -> None:
    stages, job = run(JobOptions(parser="ocr", tables="off", ocr="rapidocr"))
    assert job.status is JobStatus.SUCCEEDED
    assert stages.asked == ["ocr:off:rapidocr"] and stages.engines == ["rapidocr"]


def test_without_the_option_the_parse_uses_the_configured_engine() -> None:
    stages, job = run(JobOptions())
    assert job.status is JobStatus.SUCCEEDED
    assert stages.asked == ["auto"] and stages.engines == ["auto"]
