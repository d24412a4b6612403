"""The token budget on a real Redis: atomic reservations, refunds, month keys, failing closed."""

from __future__ import annotations

import json
import socket
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import redis

from evidex.extractors.parse.text import TextParser
from evidex.extractors.plan.prompt import build_prompt
from evidex.extractors.settings import Settings
from evidex.schemas import get_schema
from evidex.workers.budget import (
    MESSAGE_OVERHEAD,
    REPAIR_ALLOWANCE,
    Budget,
    BudgetExceeded,
    BudgetUnavailable,
    Reservation,
    tokens_used,
    upper_bound,
)

PREFIX = f"evidex-test-{uuid.uuid4().hex[:8]}:budget"
MARCH = datetime(2026, 3, 31, 23, 59, 59, tzinfo=UTC)
APRIL = datetime(2026, 4, 1, 0, 0, 1, tzinfo=UTC)


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    for key in client.scan_iter(match=f"{PREFIX}*"):
        client.delete(key)
    client.close()


def tenant() -> str:
    return "t-" + uuid.uuid4().hex[:10]


def budget(client: redis.Redis, limit: int, clock: Clock | None = None) -> Budget:
    return Budget(client, limit, prefix=PREFIX, clock=clock or Clock(MARCH))


def test_a_reservation_within_the_limit_is_counted_with_a_40_day_expiry(
    client: redis.Redis,
) -> None:
    b, who = budget(client, 1000), tenant()
    held = b.reserve(who, "job_a", 600)
    assert held == Reservation(who, "2026-03", 600, reused=False)
    assert b.used(who) == 600
    assert client.get(f"{PREFIX}:{who}:2026-03") == b"600"
    assert 39 * 86400 < client.ttl(f"{PREFIX}:{who}:2026-03") <= 40 * 86400
    assert client.get(f"{PREFIX}-hold:job_a") == b"2026-03:600"


def test_a_job_reserving_again_reuses_its_hold_instead_of_reserving_twice(
    client: redis.Redis,
) -> None:
    b, who = budget(client, 1000), tenant()
    b.reserve(who, "job_b", 600)
    again = b.reserve(who, "job_b", 600)
    assert again == Reservation(who, "2026-03", 600, reused=True)
    assert b.used(who) == 600


def test_a_reservation_over_the_limit_is_refused_and_counts_nothing(client: redis.Redis) -> None:
    b, who = budget(client, 1000), tenant()
    b.reserve(who, "job_1", 600)
    with pytest.raises(BudgetExceeded) as refused:
        b.reserve(who, "job_2", 401)
    assert refused.value.code == "budget_exceeded"
    assert refused.value.transient is False
    assert "600 of 1,000 tokens" in refused.value.message
    assert b.used(who) == 600
    assert client.exists(f"{PREFIX}-hold:job_2") == 0
    assert b.reserve(who, "job_3", 400).tokens == 400  # exactly up to the limit is fine
    assert b.used(who) == 1000


def test_concurrent_reservations_from_16_threads_never_pass_the_limit(
    client: redis.Redis,
) -> None:
    b, who = budget(client, 1000), tenant()
    start = threading.Barrier(16)
    granted: list[int] = []
    refused: list[int] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        start.wait()
        for i in range(10):
            try:
                b.reserve(who, f"job_{n}_{i}", 70)
            except BudgetExceeded:
                with lock:
                    refused.append(70)
            else:
                with lock:
                    granted.append(70)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(granted) == 14  # 14 * 70 = 980; a 15th would make 1050
    assert len(refused) == 160 - 14
    assert b.used(who) == 980


def test_a_new_month_starts_a_new_counter_and_a_refund_goes_to_the_reserving_month(
    client: redis.Redis,
) -> None:
    clock = Clock(MARCH)
    b, who = budget(client, 1000, clock), tenant()
    b.reserve(who, "job_m", 900)
    clock.at = APRIL
    assert b.reserve(who, "job_n", 900) == Reservation(who, "2026-04", 900)
    assert b.settle(who, "job_m", 100) == 800
    assert b.used(who, MARCH) == 100
    assert b.used(who, APRIL) == 900
    assert client.get(f"{PREFIX}:{who}:2026-04") == b"900"


def test_settling_refunds_what_the_call_did_not_use_once(client: redis.Redis) -> None:
    b, who = budget(client, 1000), tenant()
    b.reserve(who, "job_s", 800)
    assert b.settle(who, "job_s", 300) == 500
    assert b.used(who) == 300
    assert client.exists(f"{PREFIX}-hold:job_s") == 0
    assert b.settle(who, "job_s", 0) == 0  # settled already: nothing more comes back
    assert b.used(who) == 300


def test_settling_with_unknown_usage_keeps_the_reservation(client: redis.Redis) -> None:
    b, who = budget(client, 1000), tenant()
    b.reserve(who, "job_u", 800)
    assert b.settle(who, "job_u", None) == 0
    assert b.used(who) == 800
    assert client.exists(f"{PREFIX}-hold:job_u") == 0


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_redis_fails_closed() -> None:
    b = Budget.from_url(f"redis://127.0.0.1:{_closed_port()}/0", 1000)
    with pytest.raises(BudgetUnavailable) as down:
        b.reserve(tenant(), "job_x", 10)
    assert down.value.code == "budget_unavailable"
    assert down.value.transient is True
    with pytest.raises(BudgetUnavailable):
        b.settle(tenant(), "job_x", 5)
    with pytest.raises(BudgetUnavailable):
        b.used(tenant())


def test_the_upper_bound_is_the_bytes_sent_plus_the_output_cap() -> None:
    doc = TextParser().parse("Rechnung Nr. 7\nGesamt: 12,00 €\n".encode(), "a.txt")
    schema = get_schema("invoice")
    prompt = build_prompt(schema, doc.lines, doc.filename)
    settings = Settings(max_output_tokens=1000)
    sent = (
        len(prompt.system.encode())
        + len(prompt.user.encode())
        + len(json.dumps(schema.wire_schema, ensure_ascii=False).encode())
        + MESSAGE_OVERHEAD
    )
    assert "€" in prompt.user and len(prompt.user.encode()) > len(prompt.user)  # bytes, not chars
    assert upper_bound(prompt, schema, settings) == sent + 1000
    chat = Settings(max_output_tokens=1000, openai_api="chat")
    assert upper_bound(prompt, schema, chat) == 2 * sent + 3000 + REPAIR_ALLOWANCE


@pytest.mark.parametrize(
    ("usage", "used"),
    [
        ({"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}, 15),
        ({"input_tokens": 10, "output_tokens": 5}, 15),
        ({"input_tokens": 10}, None),
        ({}, None),
    ],
)
def test_tokens_used_reads_the_trace_usage(usage: dict[str, int], used: int | None) -> None:
    assert tokens_used(usage) == used
