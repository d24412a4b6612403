"""A monthly model budget per tenant, in tokens: reserve an upper bound first, settle after.

Why an upper bound, reserved before the call: the real cost is known only when the model has
answered, and by then it is spent. So each call first reserves what it *could* cost -- the UTF-8
bytes of everything sent (a token is never shorter than one byte, for any tokenizer) plus the
output cap -- and is refused if that would cross the tenant's limit; when the answer comes, the
difference to the reported usage goes back. Concurrent jobs of one tenant can therefore never
spend more than the limit between them: check and increment are one Lua script, so no two
workers can both pass the check on the last tokens.

Why fail closed: a budget that lets calls through while its counter cannot be read is no budget.
When Redis does not answer, :class:`BudgetUnavailable` (transient: the job is retried later) is
raised and the call does not happen.

Keys (``prefix`` defaults to ``evidex:budget``)::

    {prefix}:{tenant}:{YYYY-MM}   tokens reserved or used in that (UTC) month; expires 40 days
                                  after its last write
    {prefix}-hold:{job_id}        the job's open reservation, "YYYY-MM:tokens": a retried or
                                  redelivered job finds it and reuses it instead of reserving twice

The keys of one operation are declared to the scripts, but a tenant's counter and a job's hold do
not share a hash slot: this is written for one Redis (or a primary with replicas), not a Cluster.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import redis
from redis.exceptions import RedisError

from evidex.extractors.plan.prompt import Prompt
from evidex.extractors.settings import Settings
from evidex.schemas import RunError, SchemaDef
from evidex.workers.redisdriver import driver_info

__all__ = [
    "Budget",
    "BudgetExceeded",
    "BudgetUnavailable",
    "Reservation",
    "job_upper_bound",
    "tokens_used",
    "upper_bound",
]

TTL_S = 40 * 24 * 3600
MESSAGE_OVERHEAD = 256  # role markers, schema name, framing: a few tokens per message
REPAIR_ALLOWANCE = 8192  # the repair note quotes the validation errors of the first answer

# KEYS: counter, hold. ARGV: cost, limit, ttl, hold value.
# Returns {1, hold} (already held), {0, used} (refused) or {2, hold} (reserved now).
_RESERVE = """
local held = redis.call('GET', KEYS[2])
if held then return {1, held} end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return {0, tostring(used)} end
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[3])
return {2, ARGV[4]}
"""

# KEYS: hold, counter. ARGV: the hold value read before, refund. Returns the refund, or -1 when
# the hold changed meanwhile (another settle won).
_SETTLE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('DEL', KEYS[1])
local refund = tonumber(ARGV[2])
if refund > 0 and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('DECRBY', KEYS[2], refund)
  return refund
end
return 0
"""


class BudgetExceeded(RunError):
    """The tenant's monthly token budget cannot cover this call (permanent for this job)."""

    code = "budget_exceeded"


class BudgetUnavailable(RunError):
    """The budget counter cannot be read now; the job is retried, never run unbudgeted."""

    code = "budget_unavailable"
    transient = True


@dataclass(frozen=True, slots=True)
class Reservation:
    tenant: str
    month: str
    tokens: int
    reused: bool = False  # the job held it already (a retry or a redelivery)


def upper_bound(prompt: Prompt, schema: SchemaDef, settings: Settings) -> int:
    """Tokens the model call can cost at most: bytes in (prompt and schema) plus the output cap.

    In ``chat`` and ``prompt`` mode the OpenAI backend may send one repair request, which
    repeats the input and adds the first answer; that second call is counted too.
    """
    sent = len(prompt.system.encode()) + len(prompt.user.encode())
    sent += len(json.dumps(schema.wire_schema, ensure_ascii=False).encode()) + MESSAGE_OVERHEAD
    out = settings.max_output_tokens
    first = sent + out
    if settings.openai_api == "responses":
        return first
    return first + (sent + out + REPAIR_ALLOWANCE) + out


def job_upper_bound(
    calls: Sequence[tuple[Prompt, SchemaDef]], settings: Settings, extra_calls: int = 0
) -> int:
    """Tokens every call of a job can cost at most: each planned call's :func:`upper_bound`,
    plus ``extra_calls`` (list continuations of a long document) of at most the whole window
    (``EVIDEX_CONTEXT_TOKENS``) and the output cap each."""
    total = sum(upper_bound(prompt, schema, settings) for prompt, schema in calls)
    if extra_calls and settings.context_tokens:
        total += extra_calls * (settings.context_tokens + settings.max_output_tokens)
    return total


def tokens_used(usage: dict[str, int]) -> int | None:
    """Tokens a call used, from its trace's usage; None when the backend did not say."""
    if usage.get("total_tokens"):
        return usage["total_tokens"]
    if {"input_tokens", "output_tokens"} <= usage.keys():
        return usage["input_tokens"] + usage["output_tokens"]
    return None


def _month(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m")


class Budget:
    """Per-tenant monthly token budget on Redis (see the module docstring)."""

    def __init__(
        self,
        client: redis.Redis,
        limit: int,
        *,
        prefix: str = "evidex:budget",
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        if limit < 0:
            raise ValueError(f"a token budget cannot be negative ({limit})")
        self.limit, self.prefix = limit, prefix
        self._client, self._clock = client, clock
        self._reserve = client.register_script(_RESERVE)
        self._settle = client.register_script(_SETTLE)

    @classmethod
    def from_url(cls, url: str, limit: int, *, prefix: str = "evidex:budget") -> Budget:
        client = redis.Redis.from_url(
            url, socket_timeout=5, socket_connect_timeout=2, driver_info=driver_info()
        )
        return cls(client, limit, prefix=prefix)

    def counter_key(self, tenant: str, month: str) -> str:
        return f"{self.prefix}:{tenant}:{month}"

    def hold_key(self, job_id: str) -> str:
        return f"{self.prefix}-hold:{job_id}"

    def used(self, tenant: str, at: datetime | None = None) -> int:
        """Tokens reserved or used by ``tenant`` in the month of ``at`` (default: now)."""
        key = self.counter_key(tenant, _month(at or self._clock()))
        try:
            value = self._client.get(key)
        except RedisError as exc:
            raise self._unavailable(exc) from exc
        return int(value) if value is not None else 0

    def reserve(self, tenant: str, job_id: str, tokens: int) -> Reservation:
        """Reserve ``tokens`` for ``job_id``'s call, or reuse the reservation it holds already.

        Raises :class:`BudgetExceeded` when the month's counter plus ``tokens`` would pass the
        limit, :class:`BudgetUnavailable` when Redis cannot be reached.
        """
        month = _month(self._clock())
        hold = f"{month}:{tokens}"
        keys = [self.counter_key(tenant, month), self.hold_key(job_id)]
        try:
            state, value = self._reserve(keys=keys, args=[tokens, self.limit, TTL_S, hold])
        except RedisError as exc:
            raise self._unavailable(exc) from exc
        text = value.decode() if isinstance(value, bytes) else str(value)
        if state == 0:
            raise BudgetExceeded(
                f"the monthly model budget of tenant {tenant!r} cannot cover this document: "
                f"{int(text):,} of {self.limit:,} tokens are used in {month} and this call may "
                f"need up to {tokens:,}; send fewer pages or raise EVIDEX_MONTHLY_TOKEN_BUDGET"
            )
        held_month, _, held_tokens = text.partition(":")
        return Reservation(tenant, held_month, int(held_tokens), reused=state == 1)

    def settle(self, tenant: str, job_id: str, used: int | None) -> int:
        """Close the job's reservation, giving back what the call did not use; the refund.

        ``used`` None (the usage is unknown) keeps the whole reservation. Without an open
        reservation (settled already, or never made) nothing changes.
        """
        try:
            held = self._client.get(self.hold_key(job_id))
            if held is None:
                return 0
            hold = held.decode() if isinstance(held, bytes) else str(held)
            month, _, tokens = hold.partition(":")
            refund = 0 if used is None else max(int(tokens) - used, 0)
            keys = [self.hold_key(job_id), self.counter_key(tenant, month)]
            result = self._settle(keys=keys, args=[hold, refund])
        except RedisError as exc:
            raise self._unavailable(exc) from exc
        return max(int(result), 0)

    def _unavailable(self, exc: Exception) -> BudgetUnavailable:
        return BudgetUnavailable(
            f"the token budget cannot be checked, so the model was not called ({exc}); "
            "the job is retried when Redis answers again"
        )
