"""Settings of the queue, the stores and the workers (environment, read at composition roots)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr

from evidex.extractors.settings import Settings

__all__ = ["WorkerSettings"]


class WorkerSettings(Settings):
    """Pipeline settings plus where jobs, documents and results live and how tasks run."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    data_dir: Path = Path("./evidex-data")
    blob_store: Literal["local", "s3"] = "local"
    s3_bucket: str = "evidex"
    s3_endpoint_url: str | None = None  # an S3-compatible server (MinIO, moto, Ceph...)
    s3_region: str = "us-east-1"
    job_retention_s: int = Field(default=7 * 24 * 3600, ge=60)
    task_soft_time_limit_s: int = Field(default=840, ge=10)
    task_time_limit_s: int = Field(default=900, ge=10)
    visibility_timeout_s: int = Field(default=3600, ge=60)
    task_max_retries: int = Field(default=5, ge=0)
    task_backoff_s: float = Field(
        default=10.0,
        gt=0,
        description="Base of the exponential delay between a job's "
        "retries (doubled each attempt, jittered, capped at 600 s).",
    )
    worker_concurrency: int = Field(
        default=64,
        ge=1,
        description="Threads of one worker process, each running one job: the model calls it "
        "keeps in flight at once (see evidex.workers.celery_app).",
    )
    parse_processes: int | None = Field(
        default=None,
        ge=1,
        description="Processes of a worker's pool for the jobs' CPU stages (parsing, the rules "
        "backend, verification); unset: one per CPU core it may use.",
    )
    parse_tasks_per_process: int = Field(
        default=1000,
        ge=1,
        description="Stages a pool process runs before it is replaced (bounds its memory; "
        "starting one costs about a second of CPU, so not too often).",
    )
    stage_time_limit_s: float = Field(
        default=120.0,
        ge=1.0,
        description="Longest a CPU stage of one job (parse, rules backend, verification) may "
        "run in its child process before it is killed and the job fails job_timeout.",
    )
    # Leases, heartbeat, sweeper (evidex/workers/leases.py, sweeper.py): a dead worker's jobs are
    # sent again within about lease_ttl_s + sweep_interval_s. The job's CPU work runs in child
    # processes, so nothing a job does delays the heartbeat: a short lease is safe.
    lease_ttl_s: float = Field(default=10.0, ge=1.0)
    heartbeat_s: float = Field(default=2.0, gt=0)
    sweep_interval_s: float = Field(default=2.0, gt=0)
    monthly_token_budget: int | None = Field(
        default=None, description="Per tenant and calendar month, in tokens; unset: no budget."
    )
    webhook_secret: SecretStr | None = None
    webhook_allowed_hosts: list[str] = Field(default_factory=list)
    webhook_max_attempts: int = Field(default=6, ge=1)
    log_format: Literal["json", "console"] = Field(
        default="json", description="EVIDEX_LOG_FORMAT: JSON lines, or lines for a terminal."
    )
