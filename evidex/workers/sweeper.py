"""The heartbeat and the sweeper: two threads in every worker process, nothing extra to run.

The **heartbeat** (every ``heartbeat_s``) renews the lease of each job this worker runs, in a
thread of its own, so a model call that takes minutes does not stop it; and it pushes the due time
(:mod:`evidex.workers.leases`) of every job the worker runs *or holds prefetched or waiting for a
retry countdown*, so the sweeper leaves all of those alone while the worker lives.

The **sweeper** (every ``sweep_interval_s``, one worker at a time) reads the jobs whose due time
has passed and decides, for each::

    missing, succeeded or failed            drop it from the due index
    a live lease (some worker runs it)      look again one lease time later
    a message for it waiting in the         look again one lease time later (a long queue is no
      broker queue                          fault)
    running with no lease (its worker       send its task again; the next delivery takes the
      died), or queued with no message        lease and runs it as a new attempt
      waiting (lost with a dead worker's
      prefetch, or a retry the broker
      never got)

A job sent again goes to the front of the queue (it waited its turn once already). Sending
again is always safe: the job's compare-and-set state and its lease decide what a
delivery does, so an extra message is a no-op. With the defaults (30 s lease, 5 s heartbeat,
5 s sweep) the jobs of a worker that was SIGKILLed are sent again at most ~35 s after the kill;
the broker's visibility timeout (an hour) remains the backstop for everything else.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from celery import Celery, bootsteps
from celery.worker import state as worker_state

from evidex.workers.leases import Leases
from evidex.workers.runner import STORE_DOWN, Deps
from evidex.workers.stores import JobStore
from evidex.workers.tasks import RUN_JOB, enqueue_job

__all__ = ["Upkeep", "queued_ids", "sweep", "upkeep_step", "worker_job_ids"]

log = logging.getLogger(__name__)


def queued_ids(leases: Leases, queue_key: str) -> set[str]:
    """The ids of the tasks whose messages wait in the broker list ``queue_key``."""
    found: set[str] = set()
    for raw in leases.client.lrange(queue_key, 0, -1):
        try:
            found.add(str(json.loads(raw)["headers"]["id"]))
        except (ValueError, KeyError, TypeError):
            continue
    return found


def sweep(
    jobs: JobStore,
    leases: Leases,
    send: Callable[[str], None],
    waiting: Callable[[], set[str]],
    limit: int = 200,
) -> Counter[str]:
    """One pass over the overdue jobs (see the module docstring); what it did, counted."""
    done: Counter[str] = Counter()
    queued: set[str] | None = None
    for job_id in leases.overdue(limit):
        job = jobs.get(job_id)
        if job is None or job.status.final:
            leases.clear_due(job_id)
            done["ended"] += 1
            continue
        if leases.owner_of(job_id) is not None:
            leases.set_due(job_id, leases.ttl_s)
            done["leased"] += 1
            continue
        if queued is None:
            queued = waiting()
        if job_id in queued:  # its message waits in the queue (maybe a long one): no fault
            leases.set_due(job_id, leases.ttl_s)
            done["waiting"] += 1
            continue
        log.warning(
            "job %s is %s with no live worker and no message waiting; sending it again",
            job_id,
            job.status.value,
        )
        leases.set_due(job_id, leases.ttl_s)
        send(job_id)
        done["sent"] += 1
    return done


def worker_job_ids() -> set[str]:
    """Ids of the tasks this worker process holds: running, prefetched, or waiting for an ETA."""
    for _ in range(5):  # the sets are changed by the consumer thread meanwhile
        try:
            scheduled = getattr(worker_state, "scheduled_requests", ())  # celery >= 5.6
            held = [*worker_state.reserved_requests, *scheduled]
        except RuntimeError:
            continue
        return {r.id for r in held if r.id and r.name == RUN_JOB}  # not webhook deliveries
    return set()


class Upkeep:
    """The heartbeat and sweeper threads of one worker process."""

    def __init__(
        self,
        deps: Deps,
        leases: Leases,
        send: Callable[[str], None],
        queue_key: str,
        held: Callable[[], set[str]] = worker_job_ids,
    ) -> None:
        self.deps, self.leases, self.send, self.queue_key = deps, leases, send, queue_key
        self.held = held
        self.heartbeat_s = deps.settings.heartbeat_s
        self.sweep_s = deps.settings.sweep_interval_s
        self._stop_sweeping = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> Upkeep:
        for name, loop in (("evidex-heartbeat", self._beat), ("evidex-sweeper", self._sweep)):
            thread = threading.Thread(target=loop, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop_sweeping(self) -> None:
        """Stop the sweeper. The heartbeat keeps renewing until the process exits, so the jobs
        a stopping worker still finishes are never taken over meanwhile."""
        self._stop_sweeping.set()

    def beat(self) -> None:
        lost = self.leases.renew_held()
        for job_id in lost:
            log.warning("job %s: another worker took it over; this run stops", job_id)
        ids = sorted(self.held() | set(self.leases.held()))
        self.leases.set_due(ids, self.leases.ttl_s)

    def sweep_once(self) -> Counter[str]:
        def waiting() -> set[str]:
            return queued_ids(self.leases, self.queue_key)

        return sweep(self.deps.jobs, self.leases, self.send, waiting)

    def _beat(self) -> None:
        while True:
            self._guarded(self.beat, "heartbeat")
            threading.Event().wait(self.heartbeat_s)

    def _sweep(self) -> None:
        while not self._stop_sweeping.wait(self.sweep_s):
            if self._guarded(lambda: self.leases.try_sweep(self.sweep_s * 0.9), "sweep"):
                done = self._guarded(self.sweep_once, "sweep")
                if done and done["sent"]:
                    log.warning("sweeper: %s", dict(done))

    @staticmethod
    def _guarded(step: Callable[[], Any], what: str) -> Any:
        try:
            return step()
        except STORE_DOWN as exc:  # Redis is away: try again next time
            log.warning("%s skipped: Redis is unavailable (%s)", what, exc)
        except Exception:
            log.exception("%s failed", what)
        return None


def upkeep_step(deps: Callable[[], Deps]) -> type[bootsteps.StartStopStep]:
    """A worker bootstep that runs :class:`Upkeep` while the worker runs."""

    class UpkeepStep(bootsteps.StartStopStep):
        label = "evidex upkeep"

        def __init__(self, parent: Any, **kwargs: Any) -> None:
            super().__init__(parent, **kwargs)
            self.upkeep: Upkeep | None = None

        def start(self, parent: Any) -> None:
            built = deps()
            if built.leases is None:
                return
            app: Celery = parent.app
            options = app.conf.broker_transport_options or {}
            queue_key = str(options.get("global_keyprefix", "")) + app.conf.task_default_queue
            leases = built.leases

            def send(job_id: str) -> None:
                enqueue_job(app, job_id)
                leases.to_front(queue_key, job_id)  # it has waited its turn once already

            self.upkeep = Upkeep(built, leases, send, queue_key).start()

        def stop(self, parent: Any) -> None:
            if self.upkeep is not None:
                self.upkeep.stop_sweeping()

    return UpkeepStep
