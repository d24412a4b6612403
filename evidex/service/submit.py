"""``evidex submit FILES... --server URL``: documents to a running service, results back.

Each file is sent with :class:`evidex.client.Client` (an ``Idempotency-Key`` from the file,
schema and options, so running the command again names the same jobs), then every job is
waited for; with ``--out-dir`` each result is written as ``<name>.result.json``. One line per
file, a last line that counts them; exit 0 only when every job succeeded, 1 otherwise, 2 for a
usage error (no API key, no files).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import httpx

from evidex.client import ApiError, Client, Job, JobFailed, WaitTimeout
from evidex.schemas import InputError
from evidex.service.batch import expand_inputs, result_names

__all__ = ["run_submit"]


def run_submit(args: argparse.Namespace) -> int:
    key = args.api_key or os.environ.get("EVIDEX_API_KEY", "")
    if not key:
        raise InputError("no API key: pass --api-key or set EVIDEX_API_KEY")
    try:
        options = json.loads(args.options) if args.options else None
    except json.JSONDecodeError as exc:
        raise InputError(f"--options is not valid JSON: {exc}") from None
    files = expand_inputs(args.file)
    if not files:
        raise InputError(f"no documents found in {' '.join(map(str, args.file))}")
    if args.out_dir is not None:
        args.out_dir.mkdir(parents=True, exist_ok=True)
    outcomes: list[str] = []
    with Client(args.server, key) as client:
        jobs: list[Job | str] = []
        for path in files:  # send everything first: the service works on them meanwhile
            try:
                jobs.append(client.submit(path, args.schema, options))
            except ApiError as exc:
                jobs.append(f"{exc.code}: {exc.detail}")
            except (OSError, httpx.HTTPError) as exc:
                jobs.append(f"io_error: {exc}")
        for path, name, sent in zip(files, result_names(files), jobs, strict=True):
            outcomes.append(_finish(client, path, name, sent, args.out_dir, args.timeout))
    ok = outcomes.count("succeeded")
    print(f"{len(files)} files: {ok} succeeded, {len(files) - ok} failed", flush=True)
    return 0 if ok == len(files) else 1


def _finish(
    client: Client, path: Path, name: str, sent: Job | str, out_dir: Path | None, timeout: float
) -> str:
    if isinstance(sent, str):
        print(f"{path}: failed: {sent}", flush=True)
        return "failed"
    try:
        result = client.result(sent, timeout=timeout)
    except JobFailed as exc:
        print(f"{path}: failed: {exc.job.error_code}: {exc.job.error_message}", flush=True)
        return "failed"
    except (WaitTimeout, ApiError, httpx.HTTPError) as exc:
        print(f"{path}: failed: {exc}", flush=True)
        return "failed"
    if out_dir is not None:
        (out_dir / name).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    counts = ", ".join(f"{n} {status}" for status, n in result["summary"].items() if n)
    print(f"{path}: succeeded {sent.id} ({counts})", flush=True)
    return "succeeded"
