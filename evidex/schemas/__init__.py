"""The contract: ``FieldExtraction[T]``, value types, built-in schemas, rules and the result.

Imports nothing else of evidex.
"""

from .answer import NOT_FOUND, build_answer
from .errors import ConfigError, EvidexError, InputError, RunError, SchemaInvalid
from .field import FieldExtraction, Kind, field
from .jsonschema import schema_from_json
from .kinds import KindSource, infer_kind
from .limits import MAX_SCHEMA_BYTES
from .notes import Conflict, DocumentNotes
from .registry import BUILTIN, SchemaDef, builtin_names, get_schema, schema_from_model
from .result import (
    Box,
    CallTrace,
    ContextTrace,
    DocumentInfo,
    FieldResult,
    GateTrace,
    ListCompleteness,
    Result,
    Status,
    Summary,
    Trace,
)
from .rules import EqualRule, OrderRule, RequiredIfRule, Rule, SumRule
from .spec import Leaf, LeafSpec, iter_leaves, leaf_specs
from .values import Address, Amount, DateValue, Duration
from .wire import LEGACY_LIMITS, LIMITS, preflight, strict_schema

__all__ = [
    "BUILTIN",
    "LEGACY_LIMITS",
    "LIMITS",
    "MAX_SCHEMA_BYTES",
    "NOT_FOUND",
    "Address",
    "Amount",
    "Box",
    "CallTrace",
    "ConfigError",
    "Conflict",
    "ContextTrace",
    "DateValue",
    "DocumentInfo",
    "DocumentNotes",
    "Duration",
    "EqualRule",
    "EvidexError",
    "FieldExtraction",
    "FieldResult",
    "GateTrace",
    "InputError",
    "Kind",
    "KindSource",
    "Leaf",
    "LeafSpec",
    "ListCompleteness",
    "OrderRule",
    "RequiredIfRule",
    "Result",
    "Rule",
    "RunError",
    "SchemaDef",
    "SchemaInvalid",
    "Status",
    "SumRule",
    "Summary",
    "Trace",
    "build_answer",
    "builtin_names",
    "field",
    "get_schema",
    "infer_kind",
    "iter_leaves",
    "leaf_specs",
    "preflight",
    "schema_from_json",
    "schema_from_model",
    "strict_schema",
]
