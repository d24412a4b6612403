"""Cross-field rules (sums, order, equality, required-if), checked on the extracted values.

Pure. A rule is data declared on the schema (:mod:`evidex.schemas.rules`); this module evaluates
it. A rule only speaks when its fields were found: a missing subtotal is the subtotal's problem,
not the sum's. A failed rule returns the concrete field paths it involves and a reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from evidex.schemas import EqualRule, OrderRule, RequiredIfRule, Rule, SumRule

__all__ = ["RuleFailure", "check_rules"]


@dataclass(frozen=True, slots=True)
class RuleFailure:
    rule: str
    paths: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Found:
    """A found field's value in comparable form, keyed by concrete path."""

    path: str
    template: str
    value: Any


def _comparable(kind: str, value: Any) -> Any:
    if kind == "amount" and isinstance(value, dict):
        return value.get("value")
    if kind == "date" and isinstance(value, dict):
        return value.get("iso")
    return value


def _template(path: str) -> str:
    return re.sub(r"\[\d+\]", "[]", path)


def _index(path: str) -> tuple[int, ...]:
    return tuple(int(i) for i in re.findall(r"\[(\d+)\]", path))


def check_rules(
    rules: tuple[Rule, ...], values: Mapping[str, tuple[str, Any]], found: Mapping[str, bool]
) -> list[RuleFailure]:
    """``values``: path -> (kind, JSON value) of every leaf; ``found``: path -> found."""
    by_template: dict[str, list[Found]] = {}
    missing: set[str] = set()
    for path, (kind, value) in values.items():
        template = _template(path)
        if found.get(path) and value is not None:
            by_template.setdefault(template, []).append(
                Found(path, template, _comparable(kind, value))
            )
        else:
            missing.add(template)
    failures: list[RuleFailure] = []
    for rule in rules:
        if isinstance(rule, SumRule) and missing & {rule.total, *rule.parts}:
            continue  # a sum over an incomplete set says nothing; the gap speaks for itself
        failures.extend(_check(rule, by_template, found))
    return failures


def _check(
    rule: Rule, found_by: dict[str, list[Found]], found: Mapping[str, bool]
) -> Iterator[RuleFailure]:
    if isinstance(rule, SumRule):
        totals = found_by.get(rule.total, [])
        parts = [f for t in rule.parts for f in found_by.get(t, [])]
        if len(totals) != 1 or not parts:
            return
        if any(not isinstance(f.value, int | float) for f in [*parts, *totals]):
            return
        total = float(totals[0].value)
        got = sum(float(f.value) for f in parts)
        if abs(got - total) > rule.tolerance:
            yield RuleFailure(
                rule.describe(),
                tuple(f.path for f in [*parts, *totals]),
                f"rule {rule.describe()} fails: the parts add up to {got:.2f}, not {total:.2f}",
            )
    elif isinstance(rule, OrderRule):
        later = {_index(f.path): f for f in found_by.get(rule.later, [])}
        for early in found_by.get(rule.earlier, []):
            late = later.get(_index(early.path))
            if late is None or type(early.value) is not type(late.value):
                continue
            if early.value > late.value:
                yield RuleFailure(
                    rule.describe(),
                    (early.path, late.path),
                    f"rule {rule.describe()} fails: {early.value} is after {late.value}",
                )
    elif isinstance(rule, EqualRule):
        items = [f for t in rule.fields for f in found_by.get(t, [])]
        if len({repr(f.value) for f in items}) > 1:
            yield RuleFailure(
                rule.describe(),
                tuple(f.path for f in items),
                f"rule {rule.describe()} fails: the values differ",
            )
    elif isinstance(rule, RequiredIfRule):
        for cond in found_by.get(rule.condition, []):
            if cond.value is False:
                continue
            target = rule.field if "[]" not in rule.field else None
            if target is not None and not found.get(target):
                yield RuleFailure(
                    rule.describe(),
                    (cond.path, target),
                    f"rule {rule.describe()} fails: {rule.condition} is set but "
                    f"{rule.field} was not found",
                )
