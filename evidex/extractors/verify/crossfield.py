"""Cross-field rules (sums, order, equality, required-if), checked on the extracted values.

Pure. A rule is data declared on the schema (:mod:`evidex.schemas.rules`); this module evaluates
it. A rule only speaks when its fields were found: a missing subtotal is the subtotal's problem,
not the sum's. A failed rule returns the concrete field paths it involves and a reason.

Blame: when some members of a failed rule already fail their own quote check (their value is
not what their quote says) and the values their quotes *do* state make the rule hold, the
failure is theirs: only they are ``blamed`` (sent to review), and the members whose values agree
with their quotes stay verified, with a note naming the rule. When the doubtful members do not
explain it, every member is blamed: a wrong value marked verified is the worst outcome.

Numbers in reasons are written as the document writes them: the decimals of the quote
(``250.00``), never rounded ("not 1.46" for a value of 1.4637 would mislead).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import Any

from evidex.schemas import EqualRule, OrderRule, RequiredIfRule, Rule, SumRule

__all__ = ["RuleFailure", "check_rules"]


@dataclass(frozen=True, slots=True)
class RuleFailure:
    rule: str
    paths: tuple[str, ...]
    reason: str
    blamed: tuple[str, ...] = field(default=())  # the members that go to review

    @property
    def cleared(self) -> tuple[str, ...]:
        """Members that agree with their own quotes and are not to blame."""
        return tuple(p for p in self.paths if p not in self.blamed)


_MAX_COMBINATIONS = 256


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
    rules: tuple[Rule, ...],
    values: Mapping[str, tuple[str, Any]],
    found: Mapping[str, bool],
    doubtful: Mapping[str, Sequence[Any]] | None = None,
    written: Mapping[str, Decimal] | None = None,
) -> list[RuleFailure]:
    """``values``: path -> (kind, JSON value) of every leaf; ``found``: path -> found;
    ``doubtful``: path -> the comparable values its quote states, for each member that fails
    its own quote check; ``written``: path -> a number as its quote writes it (for reasons)."""
    doubtful = doubtful or {}
    by_template = _by_template(values, found)
    missing = {_template(p) for p in values if not (found.get(p) and values[p][1] is not None)}
    failures: list[RuleFailure] = []
    for rule in rules:
        if isinstance(rule, SumRule) and missing & ({rule.total, *rule.parts} - {*rule.optional}):
            continue  # a sum over an incomplete set says nothing; the gap speaks for itself
        for failure in _check(rule, by_template, found, written or {}):
            failures.append(
                replace(failure, blamed=_blame(rule, failure, by_template, found, doubtful))
            )
    return failures


def _by_template(
    values: Mapping[str, tuple[str, Any]], found: Mapping[str, bool]
) -> dict[str, list[Found]]:
    by_template: dict[str, list[Found]] = {}
    for path, (kind, value) in values.items():
        if found.get(path) and value is not None:
            template = _template(path)
            by_template.setdefault(template, []).append(
                Found(path, template, _comparable(kind, value))
            )
    return by_template


def _blame(
    rule: Rule,
    failure: RuleFailure,
    by_template: dict[str, list[Found]],
    found: Mapping[str, bool],
    doubtful: Mapping[str, Sequence[Any]],
) -> tuple[str, ...]:
    """The doubtful members when their quotes' own values make this failure go away, else all."""
    suspects = [p for p in failure.paths if p in doubtful]
    if not suspects or len(suspects) == len(failure.paths):
        return failure.paths
    options = [list(dict.fromkeys(doubtful[p]))[:8] for p in suspects]
    if not all(options):
        return failure.paths
    for n, combination in enumerate(itertools.product(*options)):
        if n >= _MAX_COMBINATIONS:
            break
        swap = dict(zip(suspects, combination, strict=True))
        trial = {
            t: [replace(f, value=swap[f.path]) if f.path in swap else f for f in fs]
            for t, fs in by_template.items()
        }
        if not any(set(f.paths) == set(failure.paths) for f in _check(rule, trial, found, {})):
            return tuple(suspects)
    return failure.paths


def _decimal(value: Any) -> Decimal:
    try:
        return Decimal(repr(float(value)))
    except (InvalidOperation, ValueError, TypeError):
        return Decimal(0)


def _check(
    rule: Rule,
    found_by: dict[str, list[Found]],
    found: Mapping[str, bool],
    written: Mapping[str, Decimal],
) -> Iterator[RuleFailure]:
    if isinstance(rule, SumRule):
        totals = found_by.get(rule.total, [])
        parts = [f for t in rule.parts for f in found_by.get(t, [])]
        if len(totals) != 1 or not parts:
            return
        if any(not isinstance(f.value, int | float) for f in [*parts, *totals]):
            return
        numbers = {f.path: written.get(f.path, _decimal(f.value)) for f in [*parts, *totals]}
        total = numbers[totals[0].path]
        got = sum((numbers[f.path] for f in parts), Decimal(0))
        if abs(float(got) - float(total)) > rule.tolerance:
            yield RuleFailure(
                rule.describe(),
                tuple(f.path for f in [*parts, *totals]),
                f"rule {rule.describe()} fails: the parts add up to {got:f}, not {total:f}",
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
