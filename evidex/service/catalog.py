"""``/v1/schemas``: the built-in extraction schemas, their leaves and strict wire schemas."""

from __future__ import annotations

from litestar import Controller, get
from litestar.params import FromPath

from evidex.schemas import SchemaInvalid, builtin_names, get_schema
from evidex.service.jobs import V1_PROBLEMS
from evidex.service.problems import ApiError, problem_responses
from evidex.service.views import SchemaDetail, SchemaSummary

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
