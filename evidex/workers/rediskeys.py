"""The Redis key layout of the job store and the leases: one owner for every key name.

``prefix`` is the job store's (``evidex`` by default); the leases use the store's prefix::

    {prefix}:job:{id}               string  the Job as JSON; TTL = retention, reset on every write
    {prefix}:tenant:{tenant}:jobs   zset    job ids scored by created_at (µs since the epoch)
    {prefix}:idem:{tenant}:{key}    string  the id of the tenant's first job for Idempotency-Key
    {prefix}:due                    zset    job id -> unix time by which the job must have moved
                                            on (ended, or its lease renewed); the sweeper looks
                                            past it (leases.py)
    {prefix}:lease:{job_id}         string  the owner token of the worker running the job;
                                            expires ``ttl_s`` after its last renewal
    {prefix}:sweeper                string  which worker sweeps now (one at a time)
    {prefix}:ran:{owner}            set     the jobs a worker is running; a dead worker's set
                                            keeps the jobs that died with it

What each key means and who writes it: :mod:`evidex.workers.jobstore_redis` (the first three and
``due`` at creation) and :mod:`evidex.workers.leases` (the rest).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RedisKeys"]


@dataclass(frozen=True)
class RedisKeys:
    prefix: str = "evidex"

    def job(self, job_id: str) -> str:
        return f"{self.prefix}:job:{job_id}"

    def tenant_jobs(self, tenant: str) -> str:
        return f"{self.prefix}:tenant:{tenant}:jobs"

    def idempotency(self, tenant: str, key: str) -> str:
        return f"{self.prefix}:idem:{tenant}:{key}"

    @property
    def due(self) -> str:
        return f"{self.prefix}:due"

    def lease(self, job_id: str) -> str:
        return f"{self.prefix}:lease:{job_id}"

    @property
    def sweeper(self) -> str:
        return f"{self.prefix}:sweeper"

    def ran(self, owner: str) -> str:
        return f"{self.prefix}:ran:{owner}"
