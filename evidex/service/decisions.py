"""Review decisions: a person confirms, edits or rejects a field's machine value.

Decisions live beside the machine result, in ``{tenant}/{job_id}/decisions.json``; the result
itself is never rewritten. The file holds the latest decision per field path and the full
history (every decision, in order), each with who made it (``tenant/key id``, the key id being
the first 12 hex digits of the key's SHA-256) and when.

An edited value is checked against the field's kind and stored in the shape the machine uses
for that kind, so a consumer can put a reviewed value where the machine value was:

=============================  ====================================================
number, percentage, years      a JSON number
integer                        a JSON number with no fraction
amount                         a number (the machine's currency is kept) or
                               ``{"value": number, "currency": "EUR" | null}``
date                           ``"YYYY-MM-DD"`` (or ``{"iso": ...}``), stored as
                               ``{"iso": d, "original": d}``
boolean                        true or false
enum (or any kind with enum)   one of the enum's strings
address, duration              an object of that type's keys
anything else                  a non-empty string
=============================  ====================================================

Writes are a read-modify-write of one small blob under a lock per job. The blob stores (local
files, S3) have no compare-and-set, so the lock is held in Redis when the service runs on Redis
(:func:`redis_lock`; redis-py's ``Lock``: ``SET NX PX`` with a token, released only by its
holder): any number of API processes deciding on one job at the same instant lose none of it.
Without Redis (tests, the demo) it is a lock of this process (:func:`local_lock`). A lock that
cannot be had within ``LOCK_WAIT_S`` is ``store_unavailable`` (503, retry).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import date, datetime
from enum import StrEnum
from typing import Any, cast

import redis
from pydantic import BaseModel, Field, ValidationError
from redis.exceptions import LockError, RedisError

from evidex.schemas import Address, Amount, Duration, FieldResult, LeafSpec, Status
from evidex.service.problems import ApiError
from evidex.workers.jobs import Job, now
from evidex.workers.stores import BlobNotFound, BlobStore, StoreUnavailable

__all__ = [
    "Action",
    "Decision",
    "DecisionLock",
    "Decisions",
    "decide",
    "decisions_key",
    "load_decisions",
    "local_lock",
    "parse_request",
    "record_decision",
    "redis_lock",
]

MAX_NOTE = 2000
MAX_TEXT = 10_000
NUMBER_KINDS = frozenset({"number", "percentage", "years", "integer"})
_OBJECT_KINDS: dict[str, type[BaseModel]] = {"address": Address, "duration": Duration}
_LOCK = threading.Lock()
LOCK_HOLD_S, LOCK_WAIT_S = 30.0, 10.0

DecisionLock = Callable[[str], AbstractContextManager[object]]
"""A lock for one key (``decisions_key``): held while a decision is added."""


class Action(StrEnum):
    CONFIRM = "confirm"
    EDIT = "edit"
    REJECT = "reject"


class Decision(BaseModel):
    """One person's decision on one field."""

    path: str = Field(description="The field's result path, e.g. line_items[0].amount.")
    action: Action
    value: Any = Field(
        description="The reviewed value: the machine value (confirm), the typed edit (edit) "
        "or null (reject)."
    )
    machine_value: Any = Field(description="The machine value the decision was made on.")
    machine_status: Status
    note: str = ""
    who: str = Field(description="tenant/key id of the API key that made the decision.")
    at: datetime


class Decisions(BaseModel):
    """``decisions.json``, and the body of ``GET /v1/jobs/{id}/decisions``."""

    job_id: str
    decisions: dict[str, Decision] = Field(
        default_factory=dict, description="The latest decision per field path."
    )
    history: list[Decision] = Field(
        default_factory=list, description="Every decision, oldest first."
    )


def decisions_key(job: Job) -> str:
    return f"{job.tenant}/{job.id}/decisions.json"


def load_decisions(blobs: BlobStore, job: Job) -> Decisions:
    try:
        raw = blobs.get(decisions_key(job))
    except BlobNotFound:
        return Decisions(job_id=job.id)
    return Decisions.model_validate_json(raw)


def local_lock(key: str) -> AbstractContextManager[object]:
    """One lock for this process (decisions are rare; no need for one per job)."""
    return _LOCK


def redis_lock(client: redis.Redis) -> DecisionLock:
    """A lock per job held in Redis, shared by every API process on that Redis."""

    def lock(key: str) -> AbstractContextManager[object]:
        name = f"evidex:lock:{key}"
        return cast(
            AbstractContextManager[object],
            client.lock(name, timeout=LOCK_HOLD_S, blocking_timeout=LOCK_WAIT_S),
        )

    return lock


def record_decision(
    blobs: BlobStore, job: Job, decision: Decision, lock: DecisionLock = local_lock
) -> Decisions:
    """Add ``decision`` (it replaces the field's latest) and store the file, under ``lock``."""
    key = decisions_key(job)
    try:
        with lock(key):
            current = load_decisions(blobs, job)
            current.decisions[decision.path] = decision
            current.history.append(decision)
            blobs.put(key, current.model_dump_json(indent=2).encode(), "application/json")
    except (LockError, RedisError) as exc:
        raise StoreUnavailable(f"the decision could not be saved now ({exc})") from exc
    return current


def _invalid(detail: str) -> ApiError:
    return ApiError("decision_invalid", detail)


def parse_request(body: dict[str, Any]) -> tuple[Action, Any, str]:
    """``(action, value, note)`` from a PATCH body; ``decision_invalid`` (422) when it is not
    ``{"action": "confirm"|"edit"|"reject", "value"?: ..., "note"?: str}``."""
    unknown = sorted(set(body) - {"action", "value", "note"})
    if unknown:
        raise _invalid(f"unknown key(s) {', '.join(map(repr, unknown))}; use action, value, note")
    raw = body.get("action")
    if not isinstance(raw, str) or raw not in [a.value for a in Action]:
        raise _invalid("action must be 'confirm', 'edit' or 'reject'")
    action = Action(raw)
    note = body.get("note", "")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise _invalid(f"note must be a string of at most {MAX_NOTE} characters")
    if action is Action.EDIT and "value" not in body:
        raise _invalid("an edit needs the new 'value'")
    if action is not Action.EDIT and "value" in body:
        raise _invalid(f"'value' is only sent with an edit, not with {action.value}")
    return action, body.get("value"), note


def _number(value: Any, kind: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _invalid(f"a {kind} field takes a finite JSON number")
    if kind == "integer":
        if value != int(value):
            raise _invalid("an integer field takes a number with no fraction")
        return int(value)
    return value


def _date(value: Any) -> dict[str, str]:
    iso = value.get("iso") if isinstance(value, dict) else value
    try:
        if not isinstance(iso, str) or len(iso) != 10:
            raise ValueError
        parsed = date.fromisoformat(iso).isoformat()
    except ValueError:
        raise _invalid("a date field takes 'YYYY-MM-DD'") from None
    return {"iso": parsed, "original": parsed}


def coerce_value(spec: LeafSpec, value: Any, machine_value: Any) -> Any:
    """An edited ``value`` checked against the field's kind, in the machine's shape."""
    kind = spec.kind
    if spec.enum:
        if value not in spec.enum:
            raise _invalid(f"{spec.path} takes one of {', '.join(spec.enum)}")
        return value
    if kind in NUMBER_KINDS:
        return _number(value, kind)
    if kind == "amount":
        if isinstance(value, dict):
            try:
                return Amount.model_validate(value).model_dump()
            except ValidationError:
                raise _invalid("an amount takes a number or {value, currency}") from None
        currency = machine_value.get("currency") if isinstance(machine_value, dict) else None
        return {"value": _number(value, "amount"), "currency": currency}
    if kind == "date":
        return _date(value)
    if kind == "boolean":
        if not isinstance(value, bool):
            raise _invalid("a boolean field takes true or false")
        return value
    if kind in _OBJECT_KINDS:
        model = _OBJECT_KINDS[kind]
        try:
            return model.model_validate(value).model_dump()
        except ValidationError:
            keys = ", ".join(model.model_fields)
            raise _invalid(f"a {kind} field takes an object with {keys}") from None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise _invalid(f"a {kind} field takes a non-empty string (at most {MAX_TEXT} chars)")
    return value.strip()


def decide(
    path: str, field: FieldResult, spec: LeafSpec, body: dict[str, Any], who: str
) -> Decision:
    """The decision a PATCH body asks for, checked; not yet stored."""
    action, value, note = parse_request(body)
    reviewed: Any = None  # reject
    if action is Action.CONFIRM:
        reviewed = field.value
    elif action is Action.EDIT:
        reviewed = coerce_value(spec, value, field.value)
    return Decision(
        path=path,
        action=action,
        value=reviewed,
        machine_value=field.value,
        machine_status=field.status,
        note=note.strip(),
        who=who,
        at=now(),
    )
