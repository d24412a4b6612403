"""Client patterns run in RE2: a catastrophic pattern cannot stall a worker, patterns RE2 cannot
run are refused when the schema arrives (naming the field and why), and a value too long to check
is a violation that says so."""

from __future__ import annotations

import multiprocessing
from typing import Any

import pytest

from evidex.schemas import SchemaInvalid, schema_from_json
from evidex.schemas.patterns import FORMAT_CHECKER, Validator, pattern_problem
from evidex.schemas.plain import OMIT, plain_value
from evidex.schemas.spec import LeafSpec

TRAP = "^(a+)+$"  # Python's re backtracks for ever on "a" * 34 + "!"
ENGINE = "(patterns run in a linear-time engine, RE2: no lookaround or backreferences)"


def _leaf(node: dict[str, Any]) -> LeafSpec:
    (leaf,) = schema_from_json({"type": "object", "properties": {"reference": node}}).leaves
    return leaf


def _trap_reason() -> str:
    """Run in a child process: a hang there fails the test instead of stalling the suite."""
    return plain_value(_leaf({"type": "string", "pattern": TRAP}), "a" * 34 + "!")[1]


def test_a_catastrophic_pattern_answers_at_once_that_the_value_does_not_fit() -> None:
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        reason = pool.apply_async(_trap_reason).get(timeout=10)
    assert (
        reason == f"the value does not fit the schema: {'a' * 34 + '!'!r} does not match {TRAP!r}"
    )


def test_a_value_that_matches_the_catastrophic_pattern_passes() -> None:
    assert plain_value(_leaf({"type": "string", "pattern": TRAP}), "a" * 34) == ("a" * 34, "")


def test_the_exact_message_for_lookaround() -> None:
    schema = {
        "type": "object",
        "properties": {"reference": {"type": "string", "pattern": "(?=a)b"}},
    }
    with pytest.raises(SchemaInvalid) as info:
        schema_from_json(schema)
    assert info.value.message == (
        f"reference: pattern '(?=a)b' cannot be used: lookaround is not supported {ENGINE}; "
        "rewrite it without them"
    )
    assert info.value.code == "schema_invalid"


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


STRING = {"type": "string"}


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (
            _object(reference={"type": "string", "pattern": "(?<!x)b"}),
            "reference: pattern '(?<!x)b' cannot be used: lookaround is not supported",
        ),
        (
            _object(reference={"type": "string", "pattern": r"(a)\1"}),
            r"reference: pattern '(a)\\1' cannot be used: backreferences (\1) are not supported",
        ),
        (
            _object(reference={"type": "string", "pattern": "a{1001}"}),
            "reference: pattern 'a{1001}' cannot be used: the repeat count {1001} is over RE2's",
        ),
        (
            _object(reference={"type": "string", "pattern": "a" * 1001}),
            "reference: pattern has 1,001 characters; the limit is 1,000",
        ),
        (
            _object(meta={**_object(a=STRING), "patternProperties": {"(?!x-)": STRING}}),
            "meta: patternProperties key '(?!x-)' cannot be used: lookaround is not supported",
        ),
        (
            {
                **_object(seller={"$ref": "#/$defs/Party"}),
                "$defs": {"Party": _object(name={"type": "string", "pattern": "(?P<n>a)(?P=n)"})},
            },
            "$defs.Party.name: pattern '(?P<n>a)(?P=n)' cannot be used: named backreferences",
        ),
        (
            _object(lines={"type": "array", "items": _object(sku={**STRING, "pattern": "x*+"})}),
            "lines[].sku: pattern 'x*+' cannot be used: possessive quantifiers",
        ),
        (
            _object(reference={**STRING, "not": {"pattern": "[a-"}}),
            "reference.not: pattern '[a-' cannot be used: a '[' is never closed",
        ),
    ],
    ids=[
        "lookbehind",
        "backreference",
        "repeat-count",
        "too-long",
        "patternProperties-key",
        "in-defs",
        "in-list-items",
        "under-not",
    ],
)
def test_a_pattern_re2_cannot_run_is_refused_naming_the_field(
    schema: dict[str, Any], message: str
) -> None:
    with pytest.raises(SchemaInvalid) as info:
        schema_from_json(schema)
    assert info.value.message.startswith(message)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(?=a)", f"lookaround is not supported {ENGINE}; rewrite it without them"),
        (r"\2", rf"backreferences (\2) are not supported {ENGINE}; rewrite it without them"),
        ("a?+", f"possessive quantifiers (++, *+, ?+) are not supported {ENGINE}"),
        ("(?:a{100}){100}", "the repeat count {100} is over RE2's limit of 1000"),
        (r"\p{L}{1000}", "it is too large once its repeats are expanded"),
        ("a**", "** repeats a repeat; group the inner part first"),
        (r"\Z", r"\Z is not supported; write \z (or $) for the end of the text"),
        (r"\u00e9", r"\u escapes are not supported; write \x{hhhh} or the character itself"),
        ("(a", "a '(' is never closed; correct the pattern"),
        ("a)", "a ')' closes no group; correct the pattern"),
        ("*a", "* has nothing before it to repeat; correct the pattern"),
        (r"\p{Latin1}", r"\p{Latin1} is not a character class or range RE2 knows"),
        ("a\\", "it ends in a lone backslash; correct the pattern"),
        ("(?#note)", "the group (?#…) is not supported"),
    ],
)
def test_re2_errors_are_explained_in_words(pattern: str, reason: str) -> None:
    assert pattern_problem(pattern).startswith(reason)


@pytest.mark.parametrize(
    "pattern", [r"^\p{L}+$", r"^[A-Z]{2}\d{2}$", "^PO-[0-9]+$", r"(?i)^total\b", "a{1000}"]
)
def test_patterns_re2_runs_are_accepted(pattern: str) -> None:
    assert pattern_problem(pattern) == ""


def test_a_unicode_class_pattern_builds_and_checks_values() -> None:
    # \p{L} is ECMA 262 and RE2 but not Python re: the meta-schema check must not refuse it
    leaf = _leaf({"type": "string", "pattern": r"^\p{L}+$"})
    assert plain_value(leaf, "Zoë") == ("Zoë", "")
    value, reason = plain_value(leaf, "Zoë1")
    assert value is OMIT
    assert "does not match" in reason


@pytest.mark.parametrize(
    ("length", "expected"),
    [
        (10_000, ("a" * 10_000, "")),
        (
            10_001,
            (OMIT, "the value is longer than 10,000 characters, so its pattern was not checked"),
        ),
    ],
)
def test_a_value_over_the_cap_is_a_violation_that_says_its_pattern_was_not_checked(
    length: int, expected: tuple[Any, str]
) -> None:
    assert plain_value(_leaf({"type": "string", "pattern": "^a+$"}), "a" * length) == expected


def test_a_nullable_leaf_over_the_cap_comes_back_null_with_the_reason() -> None:
    leaf = _leaf({"type": ["string", "null"], "pattern": "a"})
    assert plain_value(leaf, "a" * 10_001) == (
        None,
        "the value is longer than 10,000 characters, so its pattern was not checked",
    )


@pytest.mark.parametrize(("value", "fits"), [("a+b", True), ("(?=a)", False), ("(a", False)])
def test_format_regex_values_are_checked_with_re2(value: str, fits: bool) -> None:
    reason = plain_value(_leaf({"type": "string", "format": "regex"}), value)[1]
    assert (reason == "") is fits


@pytest.mark.parametrize(
    ("instance", "messages"),
    [
        ({"x-a": 1, "b": "two"}, []),
        ({"x-a": "one"}, ["'one' is not of type 'integer'"]),
        (
            {"x-" + "a" * 10_000: 1},
            ["the property name 'x-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'… is longer than 10,000"],
        ),
    ],
)
def test_pattern_properties_select_keys_with_re2(
    instance: dict[str, Any], messages: list[str]
) -> None:
    validator = Validator(
        {"patternProperties": {"^x-": {"type": "integer"}}}, format_checker=FORMAT_CHECKER
    )
    found = [error.message for error in validator.iter_errors(instance)]
    assert [m[: len(e)] for m, e in zip(found, messages, strict=False)] == messages
    assert len(found) == len(messages)
