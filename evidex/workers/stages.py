"""A job's CPU work -- parsing, the rules backend, verification -- in child processes, each
stage under a time bound.

Why: a step that holds the GIL (a regular expression that backtracks, a pathological page, a
bug) stalls every thread of the process it runs in: the other jobs' model calls, the broker
connection and the heartbeat that keeps their leases alive. In a child process it stalls only
itself, and its bound ends it: the pool kills the one process that overran -- the jobs running
in the others go on -- and starts a fresh one; the job fails ``job_timeout`` naming the stage.
The worker's threads only wait on the children, so its heartbeat cannot be starved by a job.

The stages (each a :class:`Stages` method):

    parse    document bytes -> line table                  (parsers: PyMuPDF, OCR, Azure)
    answer   a request -> the filled schema, for backends that call no model but compute (rules)
    verify   the filled schema + line table -> every field's status, ``data`` (quotes, values,
             cross-field rules, the client's own JSON Schema per value)

A model backend's call is I/O and stays on the worker's thread. What crosses to a child is
pickled: the document as its tables, a computing backend as itself (it holds no client), a
schema as the recipe that built it
(:class:`~evidex.schemas.SchemaDef`), the filled schema as its JSON, which the other side
validates into its model again.

:class:`InlineStages` runs the same stages in the calling thread with no bound (tests, the CLI,
a library caller); :class:`ProcessStages` is the worker's, on a `pebble
<https://pebble.readthedocs.io>`_ process pool (per-task timeouts that kill only the task's own
process, which ``concurrent.futures`` cannot do), spawned -- never forked from a threaded
process -- one process per usable core (``EVIDEX_PARSE_PROCESSES``), each replaced after
``EVIDEX_PARSE_TASKS_PER_PROCESS`` tasks.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import threading
import time
from concurrent.futures import TimeoutError as FuturesTimeout
from functools import cache
from multiprocessing import get_context
from typing import Any, Protocol, TypeVar

import pandas as pd
from pebble import ProcessExpired, ProcessPool
from pydantic import BaseModel

from evidex.extractors.backends import make_parser
from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.base import LLMBackend, LLMRequest, LLMResponse
from evidex.extractors.settings import Settings
from evidex.extractors.verify.fields import Verification, verify
from evidex.schemas import SchemaDef
from evidex.schemas.errors import RunError

__all__ = [
    "CPU_BACKENDS",
    "InlineStages",
    "JobTimeout",
    "ParserCrashed",
    "ProcessStages",
    "StageCrashed",
    "Stages",
    "usable_cores",
]

T = TypeVar("T")

CPU_BACKENDS = frozenset({"rules"})  # backends that compute their answer: run as a stage


class JobTimeout(RunError):
    """A stage of the job (or the job as a whole) ran past its time."""

    code = "job_timeout"


class StageCrashed(RunError):
    """The child process running a stage died (a crash, out of memory); retried, it may pass."""

    code = "stage_crashed"
    transient = True


class ParserCrashed(StageCrashed):
    code = "parser_crashed"


class Stages(Protocol):
    """Where a job's CPU stages run; ``timeout_s`` bounds each call (where it can be enforced)."""

    def parse(self, parser: str, data: bytes, filename: str, timeout_s: float) -> ParsedDocument:
        """The document's line table."""
        ...

    def answer(self, backend: LLMBackend, request: LLMRequest, timeout_s: float) -> LLMResponse:
        """``request`` answered by ``backend``, one that computes (see CPU_BACKENDS)."""
        ...

    def verify(
        self, schema: SchemaDef, output: BaseModel, lines: pd.DataFrame, timeout_s: float
    ) -> Verification:
        """Every field of ``output`` checked against ``lines``."""
        ...


# -- the stages themselves: what runs in a child (module level, so a child can import them) ----


@cache
def _child_settings() -> Settings:
    """The settings a parser reads in a child (Azure's endpoint), read once per process."""
    return Settings()


def parse_document(parser: str, data: bytes, filename: str) -> ParsedDocument:
    return make_parser(parser, _child_settings()).parse(data, filename)


def answer_request(backend: LLMBackend, request: LLMRequest) -> tuple[dict[str, Any], LLMResponse]:
    """The response with its filled schema as JSON (its model class cannot be pickled)."""
    response = backend.complete(request)
    dumped = response.output.model_dump(mode="json")
    return dumped, dataclasses.replace(response, output=_EMPTY)


def verify_output(schema: SchemaDef, output: dict[str, Any], lines: pd.DataFrame) -> Verification:
    return verify(schema, schema.wire_model.model_validate(output), lines)


class _Empty(BaseModel):
    """Stands for a filled schema on its way between processes as JSON."""


_EMPTY = _Empty()


def _filled(request: LLMRequest, got: tuple[dict[str, Any], LLMResponse]) -> LLMResponse:
    dumped, response = got
    output = request.schema.wire_model.model_validate(dumped)
    return dataclasses.replace(response, output=output)


class InlineStages:
    """Every stage in the calling thread; ``timeout_s`` is not enforced here."""

    def parse(self, parser: str, data: bytes, filename: str, timeout_s: float) -> ParsedDocument:
        return make_parser(parser, Settings()).parse(data, filename)

    def answer(self, backend: LLMBackend, request: LLMRequest, timeout_s: float) -> LLMResponse:
        return backend.complete(request)

    def verify(
        self, schema: SchemaDef, output: BaseModel, lines: pd.DataFrame, timeout_s: float
    ) -> Verification:
        return verify(schema, output, lines)


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity, e.g. a container's cpuset)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _exit_with_parent(parent: int) -> None:
    """Child initializer: exit when the worker is gone (even SIGKILLed), not linger."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="evidex-parent-watch", daemon=True).start()


class ProcessStages:
    """The stages on a pool of child processes shared by the worker's threads, started on first
    use (see the module docstring)."""

    def __init__(self, workers: int | None = None, tasks_per_child: int = 1000) -> None:
        self.workers = workers or usable_cores()
        self.tasks_per_child = tasks_per_child
        self._pool: ProcessPool | None = None
        self._lock = threading.Lock()

    def _get(self) -> ProcessPool:
        with self._lock:
            if self._pool is None or not self._pool.active:
                if self._pool is None:
                    # Its processes are not daemons: stop them before multiprocessing's own exit
                    # handler waits for them (handlers run last registered first), or a worker
                    # that was told to stop never exits.
                    atexit.register(self.close)
                self._pool = ProcessPool(
                    max_workers=self.workers,
                    max_tasks=self.tasks_per_child,
                    initializer=_exit_with_parent,
                    initargs=(os.getpid(),),
                    context=get_context("spawn"),
                )
            return self._pool

    def run(self, stage: str, what: str, fn: Any, args: tuple[Any, ...], timeout_s: float) -> Any:
        """``fn(*args)`` in a child, killed past ``timeout_s`` seconds of running."""
        if timeout_s <= 0:
            raise JobTimeout(f"no time was left for the {stage} stage of {what}")
        future = self._get().schedule(fn, args=args, timeout=timeout_s)
        try:
            return future.result()
        except FuturesTimeout:
            raise JobTimeout(
                f"the {stage} stage of {what} did not finish within {timeout_s:.0f} s and was "
                "stopped; send fewer pages or a smaller document, or a simpler schema"
            ) from None
        except ProcessExpired as exc:
            crashed = ParserCrashed if stage == "parse" else StageCrashed
            raise crashed(
                f"the process running the {stage} stage of {what} stopped (exit code "
                f"{exc.exitcode}; out of memory?)"
            ) from None

    def parse(self, parser: str, data: bytes, filename: str, timeout_s: float) -> ParsedDocument:
        doc: ParsedDocument = self.run(
            "parse", filename, parse_document, (parser, data, filename), timeout_s
        )
        return doc

    def answer(self, backend: LLMBackend, request: LLMRequest, timeout_s: float) -> LLMResponse:
        stage, what = f"{backend.name} backend", request.document.filename
        args = (backend, request)
        return _filled(request, self.run(stage, what, answer_request, args, timeout_s))

    def verify(
        self, schema: SchemaDef, output: BaseModel, lines: pd.DataFrame, timeout_s: float
    ) -> Verification:
        args = (schema, output.model_dump(mode="json"), lines)
        checked: Verification = self.run(
            "verification", f"schema {schema.name!r}", verify_output, args, timeout_s
        )
        return checked

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()  # type: ignore[no-untyped-call]
            pool.join(timeout=10)
