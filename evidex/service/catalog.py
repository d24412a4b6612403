"""``/v1/schemas``: the built-in extraction schemas, their leaves and strict wire schemas, and
``POST /v1/schemas/explain``: how a client's JSON Schema will be read (each leaf's kind and where
it came from) before any job is sent."""

from __future__ import annotations

import json
from typing import Annotated, Any

from litestar import Controller, get, post
from litestar.params import Body, FromPath

from evidex.schemas import SchemaInvalid, builtin_names, get_schema
from evidex.service.intake import read_schema
from evidex.service.jobs import V1_PROBLEMS
from evidex.service.problems import ApiError, problem_responses
from evidex.service.views import SchemaDetail, SchemaExplanation, SchemaSummary

__all__ = ["SchemasController"]


class SchemasController(Controller):
    path = "/schemas"
    tags = ("schemas",)

    @get(
        "/",
        summary="The built-in schemas",
        sync_to_thread=False,
        responses=problem_responses(*V1_PROBLEMS),
    )
    def list_schemas(self) -> list[SchemaSummary]:
        return [
            SchemaSummary(name=s.name, description=s.description, fields=len(s.leaves))
            for s in map(get_schema, builtin_names())
        ]

    @get(
        "/{name:str}",
        summary="One built-in schema: its leaves and the strict wire schema",
        sync_to_thread=False,
        responses=problem_responses(*V1_PROBLEMS, "schema_not_found"),
    )
    def schema_detail(self, name: FromPath[str]) -> SchemaDetail:
        try:
            return SchemaDetail.of(get_schema(name))
        except SchemaInvalid as exc:
            raise ApiError("schema_not_found", str(exc)) from None

    @post(
        "/explain",
        summary="How a JSON Schema will be read: each leaf's kind and its source",
        status_code=200,
        sync_to_thread=False,
        responses=problem_responses(*V1_PROBLEMS, "file_too_large", "schema_invalid"),
    )
    def explain_schema(
        self,
        data: Annotated[
            dict[str, Any],
            Body(description="A JSON Schema of plain values, as sent in schema_json with a job."),
        ],
    ) -> SchemaExplanation:
        # the same reading as a job's schema_json, so the answer is what a job would get
        return SchemaExplanation.of(read_schema(None, json.dumps(data))[0])
