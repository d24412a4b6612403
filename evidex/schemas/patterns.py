"""Regular expressions from clients, run in RE2, a linear-time engine.

A client's schema may carry ``pattern`` and ``patternProperties``; ``jsonschema`` runs them with
Python's ``re``, which backtracks: ``^(a+)+$`` against 34 ``a`` s and a ``!`` runs for ever, and
it holds the GIL while it does, so every thread of the worker stops, heartbeats included. Here
every client regex is compiled and run by RE2 (``google-re2``), whose time grows with the text,
never exponentially. RE2 has no lookaround, backreferences or possessive quantifiers and caps
repeat counts at 1000; :func:`check_patterns` refuses such patterns when the schema arrives,
naming the field and saying why in words, so no job exists that could not check them.

Two more bounds: a pattern is at most :data:`~evidex.schemas.limits.MAX_PATTERN_CHARS` long, and
a value longer than :data:`MAX_CHECKED_CHARS` is never run against a pattern. Such a value is
reported as a violation that says its pattern was not checked, never passed silently.

:data:`Validator` is ``Draft202012Validator`` with RE2 for ``pattern`` and ``patternProperties``;
:data:`FORMAT_CHECKER` is its format checker with RE2 for ``format: regex``, used for the leaves'
values and for the meta-schema check of the schema itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any, cast

import re2
from jsonschema import Draft202012Validator, FormatChecker, ValidationError, protocols
from jsonschema.validators import extend

from .errors import SchemaInvalid
from .limits import MAX_PATTERN_CHARS, schema_nodes

__all__ = [
    "FORMAT_CHECKER",
    "MAX_CHECKED_CHARS",
    "PatternNotChecked",
    "Validator",
    "check_patterns",
    "matches",
    "pattern_problem",
]

MAX_CHECKED_CHARS = 10_000

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a refused pattern is the client's mistake, not a log line
_ENGINE = "patterns run in a linear-time engine, RE2: no lookaround or backreferences"
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


class PatternNotChecked(ValidationError):
    """A value too long to run against its pattern: a violation, with that reason."""


def check_patterns(schema: dict[str, Any]) -> None:
    """Raise :class:`SchemaInvalid` for the first ``pattern`` or ``patternProperties`` key,
    at any depth, that RE2 cannot run; the message names the field and says why."""
    for where, node in schema_nodes(schema):
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            _refuse(where, "pattern", pattern)
        table = node.get("patternProperties")
        if isinstance(table, dict):
            for key in table:
                _refuse(where, "patternProperties key", str(key))


def _refuse(where: str, what: str, pattern: str) -> None:
    problem = pattern_problem(pattern)
    if problem:
        raise SchemaInvalid(f"{where or 'root'}: {what} {pattern!r} cannot be used: {problem}")


def pattern_problem(pattern: str) -> str:
    """Why RE2 cannot run ``pattern``, in words for the client; empty when it can."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"it has {len(pattern):,} characters; the limit is {MAX_PATTERN_CHARS:,}: shorten it"
    try:
        _compiled(pattern)
    except re2.error as exc:
        text = exc.args[0] if exc.args else ""
        return _explain(text.decode(errors="replace") if isinstance(text, bytes) else str(text))
    return ""


def _explain(error: str) -> str:
    """RE2's parse error (``invalid perl operator: (?=``) as a reason and what to do."""
    kind, _, part = error.partition(": ")
    if kind == "invalid perl operator":
        if part.startswith(_LOOKAROUND):
            return _unsupported("lookaround is not supported")
        if part.startswith("(?P"):
            return _unsupported("named backreferences (?P=name) are not supported")
        return (
            f"the group {part}…) is not supported (RE2 knows (?:…), (?P<name>…) and the flags "
            "i, m, s and U); correct the pattern"
        )
    if kind == "invalid escape sequence":
        return _escape(part)
    if kind == "bad repetition operator":
        if part.endswith("+"):
            return _unsupported("possessive quantifiers (++, *+, ?+) are not supported")
        return f"{part} repeats a repeat; group the inner part first, e.g. (?:a{{2}}){{3}}"
    if kind == "invalid repetition size":
        return (
            f"the repeat count {part} is over RE2's limit of 1000 (counts inside counts "
            "multiply); use a smaller count, or + or *"
        )
    if error.startswith("pattern too large"):
        return "it is too large once its repeats are expanded; use smaller counts, or + or *"
    plain = {
        "missing ]": "a '[' is never closed",
        "missing )": "a '(' is never closed",
        "unexpected )": "a ')' closes no group",
        "trailing \\": "it ends in a lone backslash",
        "no argument for repetition operator": f"{part} has nothing before it to repeat",
        "invalid character class range": f"{part} is not a character class or range RE2 knows",
        "invalid character class": f"{part} is not a valid character class",
        "invalid named capture group": f"the group name in {part} is not valid",
        "invalid UTF-8": "it is not valid UTF-8 text",
    }
    return f"{plain.get(kind, error)}; correct the pattern"


def _escape(part: str) -> str:
    if part[1:2].isdigit():
        return _unsupported(f"backreferences ({part}) are not supported")
    if part == "\\Z":
        return "\\Z is not supported; write \\z (or $) for the end of the text"
    if part == "\\u":
        return "\\u escapes are not supported; write \\x{hhhh} or the character itself"
    return f"the escape {part} is not supported; write the character itself, or \\x{{hh}}"


def _unsupported(what: str) -> str:
    return f"{what} ({_ENGINE}); rewrite it without them"


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> Any:
    return re2.compile(_utf8(pattern), _OPTIONS)


def _utf8(text: str) -> bytes:
    # JSON may carry lone surrogates; RE2 sees them as the invalid UTF-8 they are
    return text.encode("utf-8", "surrogatepass")


def matches(pattern: str, text: str) -> bool:
    """``re.search`` semantics (a match anywhere, as JSON Schema means), run by RE2.

    Raises ``re2.error`` for a pattern :func:`pattern_problem` refuses.
    """
    return _compiled(pattern).search(_utf8(text)) is not None


def _too_long(what: str) -> PatternNotChecked:
    return PatternNotChecked(
        f"{what} is longer than {MAX_CHECKED_CHARS:,} characters, so its pattern was not checked"
    )


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    if len(instance) > MAX_CHECKED_CHARS:
        yield _too_long("the value")
    elif not matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, table: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in table.items():
        for key, value in instance.items():
            if len(key) > MAX_CHECKED_CHARS:
                yield _too_long(f"the property name {key[:40]!r}…")
            elif matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _is_regex(instance: object) -> bool:
    return not isinstance(instance, str) or not pattern_problem(instance)


def _format_checker() -> FormatChecker:
    checker = FormatChecker(formats=())
    checker.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)
    checker.checks("regex")(_is_regex)
    return checker


FORMAT_CHECKER = _format_checker()
Validator = cast(
    "type[protocols.Validator]",
    extend(  # type: ignore[no-untyped-call]  # untyped in types-jsonschema
        Draft202012Validator,
        {"pattern": _pattern, "patternProperties": _pattern_properties},
        format_checker=FORMAT_CHECKER,
    ),
)
